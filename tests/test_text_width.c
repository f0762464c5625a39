/* test_text_width.c - text_width() counts terminal columns, not bytes, and
 * pad_width() turns a column width into the printf field width that pads a
 * string holding non-ASCII ("µs", a file name) to it; text_esc() escapes
 * control bytes for printing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "util/util.h"

static void test_columns(void **state)
{
	(void)state;
	assert_int_equal(text_width(""), 0);
	assert_int_equal(text_width("850 ns"), 6);
	assert_int_equal(text_width("2.4 \xc2\xb5s"), 6);            /* µ: 2 bytes, 1 column */
	assert_int_equal(text_width("caf\xc3\xa9"), 4);              /* é */
	assert_int_equal(text_width("e\xcc\x81"), 1);                 /* e + combining acute */
	assert_int_equal(text_width("\xe6\x97\xa5\xe6\x9c\xac"), 4);  /* 日本: wide */
	assert_int_equal(text_width("\xf0\x9f\x98\x80"), 2);          /* an emoji */
	assert_int_equal(text_width("\xe2\x82\xac"), 1);              /* € */
}

static void test_invalid_bytes(void **state)
{
	(void)state;
	/* a byte that is no part of valid UTF-8 is a column of its own */
	assert_int_equal(text_width("a\xff" "b"), 3);
	assert_int_equal(text_width("\xc2"), 1);                      /* cut short */
	assert_int_equal(text_width("\xc0\xaf"), 2);                  /* overlong */
	assert_int_equal(text_width("\xed\xa0\x80"), 3);              /* a surrogate */
	assert_int_equal(text_width("\xe2\x82"), 2);                  /* cut short */
}

static void test_pad(void **state)
{
	char out[64];
	(void)state;
	assert_int_equal(pad_width(10, "1.3 ms"), 10);
	assert_int_equal(pad_width(10, "1.3 \xc2\xb5s"), 11);
	/* right- and left-aligned: the same columns as an ASCII string */
	snprintf(out, sizeof(out), "[%*s]", pad_width(9, "2.4 \xc2\xb5s"), "2.4 \xc2\xb5s");
	assert_string_equal(out, "[   2.4 \xc2\xb5s]");
	snprintf(out, sizeof(out), "[%-*s]", pad_width(9, "\xe6\x97\xa5.dat"), "\xe6\x97\xa5.dat");
	assert_string_equal(out, "[\xe6\x97\xa5.dat   ]");   /* 日 is 2 columns */
	/* longer than the width: printed whole, no padding */
	snprintf(out, sizeof(out), "[%*s]", pad_width(3, "12.5 \xc2\xb5s"), "12.5 \xc2\xb5s");
	assert_string_equal(out, "[12.5 \xc2\xb5s]");
}

/* text_esc: control bytes as C escapes (a name printed in a table stays
 * one line, and an ESC sequence in it reaches no terminal); text without
 * them is returned as is; a small buffer cuts, never overflows. */
static void test_esc(void **state)
{
	(void)state;
	char b[64];
	const char *plain = "/data/run 1/caf\xc3\xa9.h5";
	assert_ptr_equal(text_esc(plain, b, sizeof(b)), plain);
	assert_string_equal(text_esc("a\nb\tc\x1b[31m\r\x7f", b, sizeof(b)), "a\\nb\\tc\\x1b[31m\\r\\x7f");
	/* a backslash and an n are not a newline */
	assert_string_equal(text_esc("f\\n", b, sizeof(b)), "f\\\\n");
	assert_string_equal(text_esc("nl\nname", b, sizeof(b)), "nl\\nname");
	char small[8];
	memset(small, 'Z', sizeof(small));
	const char *r = text_esc("ab\ncdefgh", small, sizeof(small));
	assert_ptr_equal(r, small);
	assert_true(strlen(r) < sizeof(small));
	assert_int_equal(strncmp(r, "ab\\n", 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_invalid_bytes),
		cmocka_unit_test(test_pad),
		cmocka_unit_test(test_esc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
