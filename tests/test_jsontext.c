/* test_jsontext.c - json_text() (report/jsontext.h) gives json_dumps'
 * bytes, JSON_INDENT(2) | JSON_REAL_PRECISION(17): on random documents
 * (nested objects and arrays, empty ones, integers to the int64 limits,
 * reals from random bit patterns, strings and keys with quotes,
 * backslashes, control bytes and UTF-8), on the results of real runs
 * under tests/data, and on what jansson refuses (a string that is not
 * UTF-8, a scalar document). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/jsontext.h"


static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void same_as_jansson(const json_t *doc)
{
	size_t len = 0;
	char *want = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	char *got = json_text(doc, &len);

	assert_non_null(want);
	assert_non_null(got);
	assert_int_equal(len, strlen(want));
	assert_string_equal(got, want);
	free(want);
	free(got);
}

/* A random string of up to max bytes: ASCII, the escaped bytes, 2-4 byte
 * UTF-8 sequences. */
static json_t *rand_string(size_t max)
{
	static const char *pieces[] = { "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\r",
					"\b", "\f", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac",
					"\xf0\x9f\x98\x80", "\xef\xbf\xbf", "key", "\xc2\x80" };
	char buf[256];
	size_t n = 0, want = next() % (max + 1);

	while (n < want) {
		const char *p = pieces[next() % (sizeof(pieces) / sizeof(pieces[0]))];
		size_t k = strlen(p);
		if (n + k >= sizeof(buf))
			break;
		memcpy(buf + n, p, k);
		n += k;
	}
	if (next() % 16 == 0 && n + 1 < sizeof(buf))
		buf[n++] = '\0';          /* an embedded NUL: \u0000 */
	return json_stringn(buf, n);
}

static json_t *rand_real(void)
{
	for (;;) {
		double d;
		uint64_t b = next();

		switch (next() % 4) {
		case 0:
			memcpy(&d, &b, sizeof(d));     /* any bit pattern */
			break;
		case 1:
			d = (double)(int64_t)(b % 2000001) - 1000000.0;    /* integral */
			break;
		case 2:
			d = (double)(b % 1000000) / 1000.0 * pow(10.0, (double)(next() % 40) - 20.0);
			break;
		default:
			d = ldexp((double)(b >> 11), (int)(next() % 200) - 150);
		}
		if (isfinite(d))
			return json_real(d);
	}
}

static json_t *rand_value(int depth)
{
	unsigned k = (unsigned)(next() % (depth > 5 ? 6 : 9));
	json_t *v;

	switch (k) {
	case 0: return json_null();
	case 1: return json_true();
	case 2: return json_false();
	case 3: {
		static const json_int_t edge[] = { 0, 1, -1, 9, 10, -10, INT64_MAX, INT64_MIN,
						   INT64_MAX - 1, INT64_MIN + 1, 1000000000000ll };
		if (next() % 3 == 0)
			return json_integer(edge[next() % (sizeof(edge) / sizeof(edge[0]))]);
		return json_integer((json_int_t)(next() >> (next() % 64)) * (next() % 2 ? 1 : -1));
	}
	case 4: return rand_real();
	case 5: return rand_string(40);
	case 6: case 7:
		v = json_array();
		for (unsigned i = 0, n = (unsigned)(next() % 6); i < n; i++)
			json_array_append_new(v, rand_value(depth + 1));
		return v;
	default:
		v = json_object();
		for (unsigned i = 0, n = (unsigned)(next() % 6); i < n; i++) {
			json_t *key = rand_string(12);
			json_object_setn_new(v, json_string_value(key), json_string_length(key),
					     rand_value(depth + 1));
			json_decref(key);
		}
		return v;
	}
}

static void t_random_documents(void **state)
{
	(void)state;
	for (int i = 0; i < 3000; i++) {
		json_t *doc = next() % 2 ? json_object() : json_array();
		for (unsigned k = 0, n = (unsigned)(next() % 8); k < n; k++) {
			json_t *v = rand_value(1);
			if (json_is_object(doc)) {
				char key[16];
				snprintf(key, sizeof(key), "k%u", k);
				json_object_set_new(doc, key, v);
			} else {
				json_array_append_new(doc, v);
			}
		}
		same_as_jansson(doc);
		json_decref(doc);
	}
}

static void real_same(double v)
{
	json_t *r = json_real(v);
	char *want = json_dumps(r, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
	char got[32];
	int n = json_text_real(got, v);

	assert_non_null(want);
	assert_int_equal(n, (int)strlen(want));
	assert_string_equal(got, want);
	free(want);
	json_decref(r);
}

static void t_reals(void **state)
{
	static const double edge[] = { 0.0, -0.0, 1.0, -1.0, 999999999999999.0, -999999999999999.0,
				       1e15, -1e15, 1e15 + 1, 1e16, 1e17, 9007199254740993.0, 0.5, -0.5,
				       1e-300, 5e-324, 1.7976931348623157e308, 123.0, 4503599627370496.5 };
	(void)state;
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		real_same(edge[i]);
	for (int i = 0; i < 200000; i++) {
		json_t *r = rand_real();
		char *want = json_dumps(r, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
		char got[32];
		int n = json_text_real(got, json_real_value(r));

		assert_non_null(want);
		assert_true(n > 0);
		assert_string_equal(got, want);
		free(want);
		json_decref(r);
	}
}

/* Results of real runs kept under tests/data, loaded and written again. */
static void t_real_results(void **state)
{
	static const char *files[] = {
		TEST_DATA "/run/n64-values.json", TEST_DATA "/results/hdd-par.json",
		TEST_DATA "/results/ssd-seq-incomplete.json", TEST_DATA "/results/ssd/s3d-parallel-2.json",
		TEST_DATA "/results/hdd-all.json", TEST_DATA "/results/no-runs.json",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		json_error_t err;
		json_t *doc = json_load_file(files[i], 0, &err);

		if (!doc)
			fail_msg("%s: %s", files[i], err.text);
		same_as_jansson(doc);
		json_decref(doc);
	}
}

static void t_refused(void **state)
{
	size_t len = 7;
	json_t *doc = json_object();
	(void)state;

	/* not UTF-8: jansson's dump fails, and so does this */
	json_object_set_new(doc, "s", json_stringn_nocheck("ab\xff", 3));
	assert_null(json_dumps(doc, JSON_INDENT(2)));
	assert_null(json_text(doc, &len));
	json_object_set_new(doc, "s", json_stringn_nocheck("\xed\xa0\x80", 3));   /* a surrogate */
	assert_null(json_dumps(doc, JSON_INDENT(2)));
	assert_null(json_text(doc, &len));
	json_object_set_new(doc, "s", json_stringn_nocheck("\xc0\x80", 2));       /* overlong */
	assert_null(json_dumps(doc, JSON_INDENT(2)));
	assert_null(json_text(doc, &len));
	json_decref(doc);
	/* a scalar document */
	doc = json_integer(3);
	assert_null(json_text(doc, &len));
	json_decref(doc);
	/* empty containers */
	doc = json_pack("{s:[], s:{}, s:[[]]}", "a", "b", "c");
	same_as_jansson(doc);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_random_documents),
		cmocka_unit_test(t_reals),
		cmocka_unit_test(t_real_results),
		cmocka_unit_test(t_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
