/* test_parse_common.c - the number and clock decoders the LANL, Sandia
 * and DXT readers share (src/trace/parse_common.h), against libc on
 * random and edge inputs.  Every string is placed at the very end of a
 * buffer of its exact size, so a decoder that read past the end (or past
 * a NUL) is caught under ASan. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../src/trace/parse_common.h"

/* A malloc'd copy of s[0..n) with nothing after it (no NUL). */
static char *exact(const char *s, size_t n)
{
	char *p = malloc(n ? n : 1);
	assert_non_null(p);
	memcpy(p, s, n);
	return p;
}

static void t_digit_space(void **state)
{
	(void)state;
	for (int c = 0; c < 256; c++) {
		assert_int_equal(tx_digit((char)c), !!isdigit(c));
		assert_int_equal(tx_space((char)c), !!isspace(c));
	}
}

/* strtoull's reading of exactly n decimal (base 10) or hex (16) digits. */
static bool ref_num(const char *s, size_t n, int base, size_t max, uint64_t *v)
{
	char buf[64];
	if (!n || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (base == 10 ? !isdigit((unsigned char)s[i]) : !isxdigit((unsigned char)s[i]))
			return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtoull(buf, NULL, base);
	return true;
}

static void t_dec_hex(void **state)
{
	(void)state;
	static const char abc[] = "0123456789abcdefABCDEFx -+.";
	unsigned seed = 11;
	char s[32];
	for (int it = 0; it < 200000; it++) {
		size_t n = (size_t)rand_r(&seed) % 22;
		/* mostly digits, so long valid numbers come up */
		for (size_t i = 0; i < n; i++)
			s[i] = rand_r(&seed) % 6 ? (char)('0' + rand_r(&seed) % 10)
						 : abc[rand_r(&seed) % (sizeof(abc) - 1)];
		char *p = exact(s, n);
		uint64_t v = 12345, r = 0;
		bool ok = ref_num(s, n, 10, 19, &r);
		assert_int_equal(tx_dec(p, n, &v), ok);
		if (ok)
			assert_true(v == r);
		v = 12345;
		ok = ref_num(s, n, 16, 16, &r);
		assert_int_equal(tx_hex(p, n, &v), ok);
		if (ok)
			assert_true(v == r);
		free(p);
	}
	/* the edges: 19 nines, 16 f's, one digit too many */
	uint64_t v;
	assert_true(tx_dec("9999999999999999999", 19, &v) && v == 9999999999999999999ull);
	assert_false(tx_dec("10000000000000000000", 20, &v));
	assert_true(tx_hex("ffffFFFFffffFFFF", 16, &v) && v == UINT64_MAX);
	assert_false(tx_hex("10000000000000000", 17, &v));
	assert_false(tx_dec("", 0, &v));
	assert_false(tx_hex("", 0, &v));
}

static void t_clock15(void **state)
{
	(void)state;
	unsigned seed = 5;
	char s[32];
	for (int it = 0; it < 100000; it++) {
		unsigned h = (unsigned)rand_r(&seed) % 26, m = (unsigned)rand_r(&seed) % 62,
			 sec = (unsigned)rand_r(&seed) % 62, us = (unsigned)rand_r(&seed) % 1000000;
		snprintf(s, sizeof(s), "%02u:%02u:%02u.%06u", h, m, sec, us);
		char *p = exact(s, 15);
		uint64_t ns = 0;
		bool ok = h < 24 && m < 60 && sec < 60;
		assert_int_equal(tx_clock15(p, &ns), ok);
		if (ok)
			assert_true(ns == ((uint64_t)(h * 3600 + m * 60 + sec)) * 1000000000ull +
						  (uint64_t)us * 1000);
		free(p);
	}
	/* every shorter prefix, NUL-terminated, is refused without a byte
	 * read past its NUL (ASan: the buffer ends there) */
	const char *full = "23:59:59.999999";
	for (size_t n = 0; n < 15; n++) {
		char *p = exact(full, n + 1);
		p[n] = '\0';
		uint64_t ns;
		assert_false(tx_clock15(p, &ns));
		free(p);
	}
	static const char *const bad[] = { "24:00:00.000000", "23:60:00.000000", "23:59:60.000000",
					   "23-59:59.000000", "23:59:59,000000", "2a:00:00.000000",
					   "00:00:00.00000x", " 0:00:00.000000" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t ns;
		assert_false(tx_clock15(bad[i], &ns));
	}
	uint64_t ns;
	assert_true(tx_clock15("23:59:59.999999", &ns) && ns == 86399999999000ull);
	assert_true(tx_clock15("00:00:00.000001 rest", &ns) && ns == 1000);
}

/* A copy of s[0..n) (exact) with up to two bytes changed, to one of
 * `from` or, when any, to any byte at all. */
static char *changed(char *s, size_t n, const char *from, bool any, unsigned *seed)
{
	for (int k = rand_r(seed) % 3; k > 0; k--)
		s[rand_r(seed) % n] = (char)(any ? rand_r(seed) & 0xff
						 : from[rand_r(seed) % strlen(from)]);
	return exact(s, n);
}

/* tx_clock15n gives tx_clock15's answer on any 15 bytes: clocks of every
 * value, a byte changed anywhere to anything. */
static void t_clock15n(void **state)
{
	(void)state;
	unsigned seed = 3;
	for (int it = 0; it < 400000; it++) {
		char s[16];
		snprintf(s, sizeof(s), "%02u:%02u:%02u.%06u", (unsigned)(rand_r(&seed) % 26),
			 (unsigned)(rand_r(&seed) % 62), (unsigned)(rand_r(&seed) % 62),
			 (unsigned)(rand_r(&seed) % 1000000));
		char *p = changed(s, 15, "0123456789:./ a", it % 4 == 0, &seed);
		uint64_t a = 1, b = 2;
		bool ra = tx_clock15(p, &a), rb = tx_clock15n(p, &b);
		assert_int_equal(ra, rb);
		if (ra)
			assert_true(a == b);
		free(p);
	}
	uint64_t ns;
	assert_true(tx_clock15n("23:59:59.999999", &ns) && ns == 86399999999000ull);
	assert_true(tx_clock15n("00:00:00.000001", &ns) && ns == 1000);
	assert_false(tx_clock15n("00:00:00:000001", &ns));
	assert_false(tx_clock15n("00.00:00.000001", &ns));
}

/* tx_dur8 against its definition (one digit, '.', six digits) on durations
 * of every value with bytes changed anywhere. */
static void t_dur8(void **state)
{
	(void)state;
	unsigned seed = 9;
	for (int it = 0; it < 400000; it++) {
		char s[9];
		snprintf(s, sizeof(s), "%u.%06u", (unsigned)(rand_r(&seed) % 10),
			 (unsigned)(rand_r(&seed) % 1000000));
		char *p = changed(s, 8, "0123456789.:/ <>", it % 4 == 0, &seed);
		uint64_t sec, us, want = 0, got = 1;
		bool ok = tx_dec(p, 1, &sec) && p[1] == '.' && tx_dec(p + 2, 6, &us);
		if (ok)
			want = sec * 1000000000ull + us * 1000;
		assert_int_equal(tx_dur8(p, &got), ok);
		if (ok)
			assert_true(got == want);
		free(p);
	}
	uint64_t ns;
	assert_true(tx_dur8("9.999999", &ns) && ns == 9999999000ull);
	assert_true(tx_dur8("0.000009", &ns) && ns == 9000);
	assert_false(tx_dur8("0,000009", &ns));
	assert_false(tx_dur8("10.00000", &ns));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_digit_space),
		cmocka_unit_test(t_dec_hex),
		cmocka_unit_test(t_clock15),
		cmocka_unit_test(t_clock15n),
		cmocka_unit_test(t_dur8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
