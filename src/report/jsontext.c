/* jsontext.c - json_dumps' indented text, written fast (jsontext.h). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/jsontext.h"

#define JT_INDENT 2
#define JT_MAX_DEPTH 2048       /* jansson's JSON_PARSER_MAX_DEPTH */

struct jt {
	char *b;
	size_t n, cap;
	bool bad;
};

/* Room for `more` bytes after what is written. */
static bool jt_room(struct jt *t, size_t more)
{
	if (t->n + more <= t->cap)
		return true;
	size_t cap = t->cap ? t->cap : 65536;
	while (cap < t->n + more)
		cap *= 2;
	char *b = realloc(t->b, cap);
	if (!b) {
		t->bad = true;
		return false;
	}
	t->b = b;
	t->cap = cap;
	return true;
}

static void jt_put(struct jt *t, const char *s, size_t n)
{
	if (!jt_room(t, n))
		return;
	memcpy(t->b + t->n, s, n);
	t->n += n;
}

/* A newline and the indentation of depth. */
static void jt_newline(struct jt *t, int depth)
{
	size_t n = 1 + (size_t)depth * JT_INDENT;
	if (!jt_room(t, n))
		return;
	t->b[t->n] = '\n';
	memset(t->b + t->n + 1, ' ', n - 1);
	t->n += n;
}

/* v's decimal digits (a '-' first when neg) ending just before end: their
 * start. */
static char *dec_before(char *end, uint64_t v, bool neg)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--end = '-';
	return end;
}

static void jt_int(struct jt *t, json_int_t v)
{
	char d[24];
	char *p = dec_before(d + sizeof(d), v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);

	jt_put(t, p, (size_t)(d + sizeof(d) - p));
}

int json_text_real(char *buf, double v)
{
	char *e;
	int n;

	/* an integral value below 1e15 (most of a results document's reals:
	 * zeros, counts): "%.17g" prints its digits, jansson adds ".0" */
	if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v) {
		char d[24];
		int64_t x = (int64_t)v;
		char *p;

		d[22] = '.';
		d[23] = '0';
		p = dec_before(d + 22, x < 0 ? 0 - (uint64_t)x : (uint64_t)x, signbit(v));
		n = (int)(d + sizeof(d) - p);
		memcpy(buf, p, (size_t)n);
		buf[n] = '\0';
		return n;
	}
	n = snprintf(buf, 32, "%.17g", v);

	if (n < 0 || n >= 26)
		return -1;
	if (!strchr(buf, '.') && !strchr(buf, 'e')) {
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	e = strchr(buf, 'e');
	if (e) {
		/* e+17 -> e17, e-05 -> e-5 */
		char *from = e + 2, *to = e[1] == '-' ? e + 2 : e + 1;
		while (*from == '0' && from[1])
			from++;
		memmove(to, from, strlen(from) + 1);
		n = (int)strlen(buf);
	}
	return n;
}

/* The length of the UTF-8 sequence at s (1-4), or 0 when it is not one
 * (overlong, a surrogate, above U+10FFFF, cut short). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t k;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4, cp = c & 0x07;
	else
		return 0;
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

/* ---- any bytes as a string jansson takes (jsontext.h) ----------------- */

/* A byte kept as it is: part of a UTF-8 sequence, not NUL; its sequence's
 * length, 0 for a byte to write as \xHH. */
static size_t keep_len(const unsigned char *s, size_t n)
{
	return s[0] ? utf8_len(s, n) : 0;
}

int json_text_is_utf8(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n;) {
		if (s[i] >= 0x20 && s[i] < 0x80) {      /* the usual byte */
			i++;
			continue;
		}
		size_t k = keep_len(s + i, n - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

char *json_text_escape(const char *str, size_t n, size_t *outlen)
{
	const unsigned char *s = (const unsigned char *)str;
	static const char hex[] = "0123456789abcdef";
	size_t len = 0, o = 0;
	char *out;

	if (json_text_is_utf8(str, n)) {
		out = malloc(n + 1);
		if (!out)
			return NULL;
		memcpy(out, str, n);
		out[n] = '\0';
		if (outlen)
			*outlen = n;
		return out;
	}
	for (size_t i = 0; i < n;) {
		size_t k = keep_len(s + i, n - i);
		len += !k ? 4 : s[i] == '\\' ? 2 : k;
		i += k ? k : 1;
	}
	out = malloc(len + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t k = keep_len(s + i, n - i);
		if (!k) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[s[i] >> 4];
			out[o++] = hex[s[i] & 15];
			i++;
		} else if (s[i] == '\\') {
			out[o++] = '\\';
			out[o++] = '\\';
			i++;
		} else {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		}
	}
	out[o] = '\0';
	if (outlen)
		*outlen = o;
	return out;
}

json_t *json_text_strn(const char *s, size_t n)
{
	json_t *j;
	size_t len;
	char *e;

	if (!s)
		return NULL;
	if (json_text_is_utf8(s, n))
		return json_stringn(s, n);
	e = json_text_escape(s, n, &len);
	j = e ? json_stringn(e, len) : NULL;
	free(e);
	return j;
}

json_t *json_text_str(const char *s)
{
	return s ? json_text_strn(s, strlen(s)) : NULL;
}

int json_text_set(json_t *o, const char *key, json_t *v)
{
	size_t n;
	char *e;
	int rc;

	if (!v)
		return -1;
	n = strlen(key);
	if (json_text_is_utf8(key, n))
		return json_object_set_new(o, key, v);
	e = json_text_escape(key, n, NULL);
	if (!e) {
		json_decref(v);
		return -1;
	}
	rc = json_object_set_new(o, e, v);
	free(e);
	return rc;
}

static void jt_string(struct jt *t, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	jt_put(t, "\"", 1);
	while (i < len) {
		unsigned c = s[i];
		size_t k = 1;

		if (c >= 0x80) {
			k = utf8_len(s + i, len - i);
			if (!k) {
				t->bad = true;      /* jansson refuses it too */
				return;
			}
		} else if (c < 0x20 || c == '"' || c == '\\') {
			char esc[8];
			const char *e = esc;
			size_t en = 2;

			jt_put(t, str + run, i - run);
			switch (c) {
			case '"': e = "\\\""; break;
			case '\\': e = "\\\\"; break;
			case '\b': e = "\\b"; break;
			case '\f': e = "\\f"; break;
			case '\n': e = "\\n"; break;
			case '\r': e = "\\r"; break;
			case '\t': e = "\\t"; break;
			default:
				snprintf(esc, sizeof(esc), "\\u%04X", c);
				en = 6;
			}
			jt_put(t, e, en);
			run = i + 1;
		}
		i += k;
	}
	jt_put(t, str + run, len - run);
	jt_put(t, "\"", 1);
}

static void jt_value(struct jt *t, const json_t *j, int depth)
{
	char num[32];
	int n;

	if (t->bad)
		return;
	if (!j || depth >= JT_MAX_DEPTH) {
		t->bad = true;
		return;
	}
	switch (json_typeof(j)) {
	case JSON_NULL:
		jt_put(t, "null", 4);
		break;
	case JSON_TRUE:
		jt_put(t, "true", 4);
		break;
	case JSON_FALSE:
		jt_put(t, "false", 5);
		break;
	case JSON_INTEGER:
		jt_int(t, json_integer_value(j));
		break;
	case JSON_REAL:
		n = json_text_real(num, json_real_value(j));
		if (n < 0)
			t->bad = true;
		else
			jt_put(t, num, (size_t)n);
		break;
	case JSON_STRING:
		jt_string(t, json_string_value(j), json_string_length(j));
		break;
	case JSON_ARRAY: {
		size_t sz = json_array_size(j);

		jt_put(t, "[", 1);
		if (!sz) {
			jt_put(t, "]", 1);
			break;
		}
		for (size_t i = 0; i < sz && !t->bad; i++) {
			if (i)
				jt_put(t, ",", 1);
			jt_newline(t, depth + 1);
			jt_value(t, json_array_get(j, i), depth + 1);
		}
		jt_newline(t, depth);
		jt_put(t, "]", 1);
		break;
	}
	case JSON_OBJECT: {
		void *it = json_object_iter((json_t *)j);

		jt_put(t, "{", 1);
		if (!it) {
			jt_put(t, "}", 1);
			break;
		}
		for (bool first = true; it && !t->bad; it = json_object_iter_next((json_t *)j, it)) {
			const char *key = json_object_iter_key(it);
#if JANSSON_VERSION_HEX >= 0x020e00
			size_t klen = json_object_iter_key_len(it);
#else
			size_t klen = strlen(key);
#endif
			if (!first)
				jt_put(t, ",", 1);
			first = false;
			jt_newline(t, depth + 1);
			jt_string(t, key, klen);
			jt_put(t, ": ", 2);
			jt_value(t, json_object_iter_value(it), depth + 1);
		}
		jt_newline(t, depth);
		jt_put(t, "}", 1);
		break;
	}
	default:
		t->bad = true;
	}
}

/* Does this jansson print reals as json_text_real() does?  Checked once. */
static bool reals_match(void)
{
	static int ok = -1;
	static const double probe[] = { 0.0, -0.0, 1.0, -2.0, 0.1, 0.5, 100.0, 1e15, 1e16, 1e17,
					1.5e16, 1e-4, 1e-5, 3e-4, 123456.789, -9.875e-7, 1e300,
					-1e-300, 5e-324, 1.7976931348623157e308, 2.5e22, 1234.5 };

	if (ok >= 0)
		return ok;
	ok = 1;
	for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]) && ok; i++) {
		json_t *r = json_real(probe[i]);
		char *s = r ? json_dumps(r, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17)) : NULL;
		char mine[32];
		int n = json_text_real(mine, probe[i]);

		if (s && (n < 0 || strcmp(s, mine) != 0))
			ok = 0;
		free(s);
		json_decref(r);
	}
	return ok;
}

char *json_text(const json_t *doc, size_t *len)
{
	struct jt t = { 0 };

	if (!json_is_object(doc) && !json_is_array(doc))
		return NULL;            /* as json_dumps without JSON_ENCODE_ANY */
	if (!reals_match()) {
		char *s = json_dumps(doc, JSON_INDENT(JT_INDENT) | JSON_REAL_PRECISION(17));
		if (s)
			*len = strlen(s);
		return s;
	}
	jt_value(&t, doc, 0);
	if (!t.bad && jt_room(&t, 1))
		t.b[t.n] = '\0';
	if (t.bad) {
		free(t.b);
		return NULL;
	}
	*len = t.n;
	return t.b;
}
