/* test_hist.c - bucket bounds, percentile error <= 1%, merge, stats. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "run/hist.h"

static struct hist h, h2;

static void test_exact_small(void **state)
{
	(void)state;
	for (uint64_t v = 0; v < HIST_SUB; v++) {
		assert_int_equal(hist_bucket(v), v);
		assert_int_equal(hist_bucket_mid(hist_bucket(v)), v);
	}
}

static void test_relative_error(void **state)
{
	(void)state;
	/* every bucket midpoint is within 1% of any value in the bucket */
	uint64_t vals[] = { 64, 65, 100, 127, 128, 1000, 4095, 4096, 123456, 999999,
			    1000000007ull, 3ull << 40, (1ull << 47) + 12345 };
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint64_t mid = hist_bucket_mid(hist_bucket(vals[i]));
		double err = fabs((double)mid - (double)vals[i]) / (double)vals[i];
		assert_true(err <= 0.01);
	}
	/* monotone buckets */
	unsigned prev = 0;
	for (uint64_t v = 1; v < (1ull << 40); v = v * 3 / 2 + 1) {
		unsigned b = hist_bucket(v);
		assert_true(b >= prev);
		assert_true(b < HIST_NBUCKETS);
		prev = b;
	}
	assert_int_equal(hist_bucket(UINT64_MAX), HIST_NBUCKETS - 1);
}

static void test_percentiles(void **state)
{
	(void)state;
	hist_init(&h);
	assert_int_equal(hist_percentile(&h, 50), 0);
	for (uint64_t v = 1; v <= 10000; v++)
		hist_add(&h, v * 1000);   /* 1 us .. 10 ms */
	assert_int_equal(h.n, 10000);
	assert_int_equal(h.min, 1000);
	assert_int_equal(h.max, 10000000);
	for (int i = 0; i < HIST_NPCT; i++) {
		double p = hist_pcts[i];
		double want = ceil(p / 100.0 * 10000) * 1000;
		double got = (double)hist_percentile(&h, p);
		assert_true(fabs(got - want) / want <= 0.01);
	}
	assert_int_equal(hist_percentile(&h, 100), 10000000);
	assert_true(fabs(hist_mean(&h) - 5000500.0) < 1.0);
	/* stddev of 1000*uniform(1..10000) = 1000*sqrt((n^2-1)/12) (sample) */
	double sd = 1000.0 * sqrt(10000.0 * 10001.0 / 12.0);
	assert_true(fabs(hist_stddev(&h) - sd) / sd < 0.001);
}

static void test_merge(void **state)
{
	(void)state;
	hist_init(&h);
	hist_init(&h2);
	hist_add(&h, 10);
	hist_add(&h2, 1000000);
	hist_add(&h2, 5);
	hist_merge(&h, &h2);
	assert_int_equal(h.n, 3);
	assert_int_equal(h.min, 5);
	assert_int_equal(h.max, 1000000);
	assert_int_equal(hist_percentile(&h, 50), 10);
}

/* Many percentiles at once equal each asked alone, in fio's ascending
 * list and in any order; an empty histogram gives zeros. */
/* All zero is empty: memory fresh from the kernel (the runner's shared
 * slots) needs no hist_init; min and max come from the first value, in
 * hist_add as in hist_merge, whatever the value. */
static void test_zero_is_empty(void **state)
{
	(void)state;
	static struct hist z, a, m;     /* zero-initialized, never hist_init'ed */
	double q[2] = { 50.0, 100.0 };
	uint64_t out[2] = { 9, 9 };

	assert_int_equal(z.n, 0);
	hist_percentiles(&z, q, 2, out);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 0);
	assert_true(hist_mean(&z) == 0.0);
	hist_add(&a, 5000);             /* larger than the zero in min */
	assert_int_equal(a.min, 5000);
	assert_int_equal(a.max, 5000);
	assert_int_equal(hist_percentile(&a, 1.0), 5000);
	hist_merge(&m, &z);             /* empty into empty: still empty */
	assert_int_equal(m.n, 0);
	hist_merge(&m, &a);             /* into empty: takes src's min */
	assert_int_equal(m.min, 5000);
	hist_add(&a, 7);
	hist_merge(&m, &a);
	assert_int_equal(m.min, 7);
	assert_int_equal(m.max, 5000);
	assert_int_equal(m.n, 3);
}

static void test_percentiles_at_once(void **state)
{
	(void)state;
	static struct hist hp;
	unsigned seed = 3;
	uint64_t many[HIST_NPCT];
	hist_init(&hp);
	hist_percentiles(&hp, hist_pcts, HIST_NPCT, many);
	for (int i = 0; i < HIST_NPCT; i++)
		assert_int_equal(many[i], 0);
	for (int i = 0; i < 20000; i++)
		hist_add(&hp, 1000 + (uint64_t)(rand_r(&seed) % 5000000));
	hist_percentiles(&hp, hist_pcts, HIST_NPCT, many);
	for (int i = 0; i < HIST_NPCT; i++)
		assert_int_equal(many[i], hist_percentile(&hp, hist_pcts[i]));
	for (int i = 1; i < HIST_NPCT; i++)
		assert_true(many[i] >= many[i - 1]);
	const double mixed[] = { 99.9, 50, 100, 1, 50, 99.99 };
	uint64_t got[6];
	hist_percentiles(&hp, mixed, 6, got);
	for (int i = 0; i < 6; i++)
		assert_int_equal(got[i], hist_percentile(&hp, mixed[i]));
	assert_int_equal(got[2], hp.max);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_small),
		cmocka_unit_test(test_relative_error),
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_percentiles_at_once),
		cmocka_unit_test(test_zero_is_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
