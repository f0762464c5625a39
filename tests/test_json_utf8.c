/* test_json_utf8.c - json_text_escape() and the JSON strings made from it
 * (report/jsontext.h): UTF-8 without NUL is kept byte for byte, any other
 * byte becomes \xHH with backslashes doubled in that string only, and the
 * result is always a string (and an object key) jansson takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/jsontext.h"

/* in (n bytes) escapes to want; the JSON string made of it holds want and
 * dumps as valid JSON. */
static void check_n(const char *in, size_t n, const char *want)
{
	size_t len = 12345;
	char *got = json_text_escape(in, n, &len);
	json_t *j = json_text_strn(in, n);

	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(len, strlen(want));
	assert_int_equal(json_text_is_utf8(in, n), n == strlen(want) && !memcmp(in, want, n));
	assert_non_null(j);
	assert_int_equal(json_string_length(j), strlen(want));
	assert_memory_equal(json_string_value(j), want, strlen(want));
	free(got);
	json_decref(j);
}

static void check(const char *in, const char *want)
{
	check_n(in, strlen(in), want);
}

static void t_valid_unchanged(void **state)
{
	(void)state;
	check("", "");
	check("/x/plain.txt", "/x/plain.txt");
	check("tab\tnl\nquote\"ctl\x01\x7f", "tab\tnl\nquote\"ctl\x01\x7f");
	check("caf\xc3\xa9", "caf\xc3\xa9");                    /* 2 bytes */
	check("\xe2\x82\xac 5", "\xe2\x82\xac 5");              /* 3 bytes */
	check("\xf0\x9f\x98\x80.txt", "\xf0\x9f\x98\x80.txt");  /* 4 bytes */
	check("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");          /* U+10FFFF */
	check("\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80",
	      "\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80"); /* the bounds */
	check("\xed\x9f\xbf\xee\x80\x80", "\xed\x9f\xbf\xee\x80\x80");  /* around surrogates */
	/* a backslash in valid text is kept single */
	check("C:\\dir\\x41", "C:\\dir\\x41");
}

static void t_invalid_bytes(void **state)
{
	(void)state;
	check("\377\376bin.txt", "\\xff\\xfebin.txt");
	check("/x/\377\376bin.txt", "/x/\\xff\\xfebin.txt");
	/* overlong forms */
	check("\xc0\x80", "\\xc0\\x80");
	check("\xc1\xbf", "\\xc1\\xbf");
	check("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
	check("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf");
	/* surrogates, above U+10FFFF, bytes that never start a sequence */
	check("\xed\xa0\x80", "\\xed\\xa0\\x80");
	check("\xed\xbf\xbf", "\\xed\\xbf\\xbf");
	check("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	check("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80");
	check("a\xf8\xfc\xfe\xff", "a\\xf8\\xfc\\xfe\\xff");
	/* cut-short sequences: at the end, and before an ASCII byte */
	check("ab\xc3", "ab\\xc3");
	check("ab\xe2\x82", "ab\\xe2\\x82");
	check("ab\xf0\x9f\x98", "ab\\xf0\\x9f\\x98");
	check("\xe2\x82x", "\\xe2\\x82x");
	/* lone continuation bytes, next to valid sequences kept whole */
	check("\x80", "\\x80");
	check("\xbf\xc3\xa9\x80", "\\xbf\xc3\xa9\\x80");
	check("\xf0\x9f\x98\x80\x80", "\xf0\x9f\x98\x80\\x80");
	/* in such text, and only there, a backslash is doubled */
	check("a\\b\377", "a\\\\b\\xff");
	check("\\x41\377", "\\\\x41\\xff");
}

static void t_nul(void **state)
{
	(void)state;
	/* a NUL byte (never in a path) is written \x00: the result is a C string */
	check_n("a\0b", 3, "a\\x00b");
	check_n("\0", 1, "\\x00");
	check_n("\\\0", 2, "\\\\\\x00");
}

/* the escaping is undone unambiguously: \\ -> \, \xHH -> the byte */
static size_t unescape(const char *s, char *out)
{
	size_t o = 0;

	while (*s) {
		if (s[0] == '\\' && s[1] == '\\') {
			out[o++] = '\\';
			s += 2;
		} else if (s[0] == '\\' && s[1] == 'x') {
			unsigned v;
			assert_int_equal(sscanf(s + 2, "%2x", &v), 1);
			out[o++] = (char)v;
			s += 4;
		} else {
			out[o++] = *s++;
		}
	}
	return o;
}

static void t_round_trip(void **state)
{
	static const char pieces[][5] = { "a", "\\", "x", "7", "\xc3\xa9", "\xe2\x82\xac",
					  "\xf0\x9f\x98\x80", "\xff", "\x80", "\xc3", "\xed\xa0",
					  "\xc0", "\xfe", "\n" };
	uint64_t rng = 88172645463325252ull;
	(void)state;

	for (int round = 0; round < 20000; round++) {
		char in[64], back[64];
		size_t n = 0, len;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		for (unsigned k = rng % 12; k--;) {
			const char *p;
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			p = pieces[rng % (sizeof(pieces) / sizeof(pieces[0]))];
			memcpy(in + n, p, strlen(p));
			n += strlen(p);
		}
		char *e = json_text_escape(in, n, &len);
		json_t *j = json_text_strn(in, n);
		assert_non_null(e);
		assert_non_null(j);             /* jansson takes it: UTF-8 */
		assert_int_equal(strlen(e), len);
		if (json_text_is_utf8(in, n)) {
			assert_int_equal(len, n);
			assert_memory_equal(e, in, n);
		} else {
			assert_int_equal(unescape(e, back), n);
			assert_memory_equal(back, in, n);
		}
		json_decref(j);
		free(e);
	}
}

static void t_keys_and_documents(void **state)
{
	json_t *o = json_object(), *a = json_array();
	size_t len;
	char *text;
	(void)state;

	/* jansson alone refuses both */
	assert_null(json_string("\377\376bin.txt"));
	assert_int_equal(json_object_set_new(o, "k\377", json_integer(1)), -1);

	assert_int_equal(json_text_set(o, "skipped\377", json_integer(3)), 0);
	assert_int_equal(json_text_set(o, "plain", json_integer(4)), 0);
	assert_int_equal(json_text_set(o, "nothing", NULL), -1);
	assert_int_equal(json_array_append_new(a, json_text_str("/x/\377\376bin.txt")), 0);
	assert_int_equal(json_object_set_new(o, "files", a), 0);
	assert_null(json_text_str(NULL));
	assert_null(json_text_strn(NULL, 0));

	assert_int_equal(json_integer_value(json_object_get(o, "skipped\\xff")), 3);
	assert_int_equal(json_integer_value(json_object_get(o, "plain")), 4);
	text = json_text(o, &len);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"skipped\\\\xff\": 3"));
	assert_non_null(strstr(text, "\"/x/\\\\xff\\\\xfebin.txt\""));
	free(text);
	text = json_dumps(o, JSON_COMPACT);
	assert_non_null(text);
	free(text);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_valid_unchanged),
		cmocka_unit_test(t_invalid_bytes),
		cmocka_unit_test(t_nul),
		cmocka_unit_test(t_round_trip),
		cmocka_unit_test(t_keys_and_documents),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
