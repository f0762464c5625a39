/* test_html.c - the HTML page of a comparison: units, escaping, the page
 * holds the numbers of struct compare, and nothing that fetches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "report/compare.h"
#include "report/html.h"
#include "util/util.h"

#define RES TEST_DATA "/results/"

static void test_fmt_ns(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(fmt_ns(b, sizeof(b), 850), "850 ns");
	assert_string_equal(fmt_ns(b, sizeof(b), 12500), "12.5 \xc2\xb5s");
	assert_string_equal(fmt_ns(b, sizeof(b), 3.2e6), "3.20 ms");
	assert_string_equal(fmt_ns(b, sizeof(b), 1.234e9), "1.234 s");
}

/* The page of two fixture sets, labels with markup, in a malloc'd string. */
static char *page_of(struct compare *c)
{
	char *paths[] = { RES "hdd-all.json", RES "ssd" };
	char *labels[] = { "<b>hdd&", "ssd\"x" };
	struct rerr e = { "" };
	compare_init(c);
	assert_int_equal(compare_load(c, paths, 2, labels, &e), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(html_write(c, f), 0);
	fclose(f);
	return buf;
}

static void test_page(void **state)
{
	(void)state;
	struct compare c;
	char *p = page_of(&c);
	/* escaped, never raw */
	assert_non_null(strstr(p, "&lt;b&gt;hdd&amp;"));
	assert_non_null(strstr(p, "ssd&quot;x"));
	assert_null(strstr(p, "<b>hdd"));
	/* nothing to fetch */
	assert_null(strstr(p, "<script"));
	assert_null(strstr(p, "src="));
	assert_null(strstr(p, "href="));
	assert_null(strstr(p, "http"));
	assert_null(strstr(p, "url("));
	/* a completion cell per set of each row: the median as written */
	char b[32], want[64];
	for (size_t r = 0; r < c.nrows; r++)
		for (size_t s = 0; s < c.nsets; s++) {
			const struct cmp_config *g = c.rows[r].cell[s];
			if (!g || !g->ncomplete)
				continue;
			snprintf(want, sizeof(want), "<td>%s", fmt_ns(b, sizeof(b), g->median));
			assert_non_null(strstr(p, want));
		}
	/* one CDF per (row, class with ops), each with the three marks per set */
	size_t cdfs = 0, marks = 0, want_marks = 0;
	for (size_t r = 0; r < c.nrows; r++)
		for (int k = 0; k < CMP_NCLASS; k++) {
			bool any = false;
			for (size_t s = 0; s < c.nsets; s++)
				if (c.rows[r].cell[s] && c.rows[r].cell[s]->cls[k].n) {
					any = true;
					want_marks += 3;
				}
			cdfs += any;
		}
	size_t h4 = 0;
	for (const char *q = p; (q = strstr(q, "<h4>")); q++)
		h4++;
	for (const char *q = p; (q = strstr(q, "<circle")); q++)
		marks++;
	assert_true(cdfs > 0);
	assert_int_equal(h4, cdfs);
	assert_int_equal(marks, want_marks);
	assert_non_null(strstr(p, "</html>\n"));
	free(p);
	compare_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_ns),
		cmocka_unit_test(test_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
