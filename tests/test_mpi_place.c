/* test_mpi_place.c - replay-mpi's MPI-free decisions (mpi/place.h):
 * placement, shared file systems by statfs magic, the merge of class
 * statistics by histogram bins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mpi/place.h"

static void test_parse(void **st)
{
	(void)st;
	assert_int_equal(place_parse("block"), PLACE_BLOCK);
	assert_int_equal(place_parse("cyclic"), PLACE_CYCLIC);
	assert_int_equal(place_parse("hosts"), PLACE_HOSTS);
	assert_int_equal(place_parse("Block"), -1);
	assert_int_equal(place_parse(""), -1);
	assert_string_equal(place_name(PLACE_CYCLIC), "cyclic");
}

/* block: contiguous, sizes differ by at most one, every process used */
static void test_block(void **st)
{
	(void)st;
	char why[256];
	for (uint32_t np = 1; np <= 9; np++)
		for (uint32_t n = np; n <= 40; n++) {
			uint32_t owner[40], count[9] = { 0 };
			assert_int_equal(place_procs(PLACE_BLOCK, n, np, NULL, NULL, owner, why,
						     sizeof(why)), 0);
			for (uint32_t i = 0; i < n; i++) {
				assert_true(owner[i] < np);
				if (i)
					assert_true(owner[i] == owner[i - 1] || owner[i] == owner[i - 1] + 1);
				count[owner[i]]++;
			}
			for (uint32_t q = 0; q < np; q++) {
				assert_true(count[q] >= n / np);
				assert_true(count[q] <= (n + np - 1) / np);
			}
		}
	uint32_t o[8];
	assert_int_equal(place_procs(PLACE_BLOCK, 8, 2, NULL, NULL, o, why, sizeof(why)), 0);
	uint32_t want[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	assert_memory_equal(o, want, sizeof(want));
}

static void test_cyclic(void **st)
{
	(void)st;
	char why[256];
	uint32_t o[10], want[10] = { 0, 1, 2, 0, 1, 2, 0, 1, 2, 0 };
	assert_int_equal(place_procs(PLACE_CYCLIC, 10, 3, NULL, NULL, o, why, sizeof(why)), 0);
	assert_memory_equal(o, want, sizeof(want));
}

/* hosts: the ranks of one traced host share one node; hosts dealt to the
 * nodes round-robin; spread over the node's processes */
static void test_hosts(void **st)
{
	(void)st;
	char why[256];
	/* 8 plan processes on traced hosts A A B B C C D D (ids 0..3), given in
	 * an interleaved order; 4 MPI processes on 2 nodes (0 0 1 1) */
	uint32_t host[8] = { 0, 1, 2, 3, 0, 1, 2, 3 };
	uint32_t node[4] = { 0, 1, 0, 1 };
	uint32_t o[8];
	assert_int_equal(place_procs(PLACE_HOSTS, 8, 4, host, node, o, why, sizeof(why)), 0);
	for (uint32_t i = 0; i < 8; i++) {
		/* host h on node h % 2 */
		assert_int_equal(node[o[i]], host[i] % 2);
		for (uint32_t j = 0; j < 8; j++)
			if (host[i] == host[j])
				assert_int_equal(node[o[i]], node[o[j]]);
	}
	/* both processes of each node get work */
	uint32_t used[4] = { 0 };
	for (uint32_t i = 0; i < 8; i++)
		used[o[i]]++;
	for (uint32_t q = 0; q < 4; q++)
		assert_int_equal(used[q], 2);
	/* no host list: an error, not a silent block placement */
	assert_int_equal(place_procs(PLACE_HOSTS, 8, 4, NULL, node, o, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no host"));
}

static void test_too_many(void **st)
{
	(void)st;
	char why[256];
	uint32_t o[4];
	assert_int_equal(place_procs(PLACE_BLOCK, 4, 5, NULL, NULL, o, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "5 MPI processes for 4 trace ranks"));
	assert_int_equal(place_procs(PLACE_CYCLIC, 4, 0, NULL, NULL, o, why, sizeof(why)), -1);
}

static void test_fs_magic(void **st)
{
	(void)st;
	const char *n = NULL;
	assert_int_equal(fs_magic_shared(0x0BD00BD0ul, &n), 1);
	assert_string_equal(n, "lustre");
	assert_int_equal(fs_magic_shared(0x47504653ul, &n), 1);
	assert_string_equal(n, "gpfs");
	assert_int_equal(fs_magic_shared(0x6969ul, &n), 1);
	assert_string_equal(n, "nfs");
	assert_int_equal(fs_magic_shared(0x00C36400ul, &n), 1);
	assert_string_equal(n, "ceph");
	assert_int_equal(fs_magic_shared(0x19830326ul, &n), 1);
	assert_string_equal(n, "beegfs");
	assert_int_equal(fs_magic_shared(0xEF53ul, &n), 0);
	assert_string_equal(n, "ext4");
	assert_int_equal(fs_magic_shared(0x01021994ul, &n), 0);
	assert_int_equal(fs_magic_shared(0x12345678ul, &n), 0);
	assert_null(n);
	/* f_type is a signed long on some ABIs: 0xFF534D42 sign-extended */
	assert_int_equal(fs_magic_shared((unsigned long)(long)(int32_t)0xFF534D42u, &n), 1);
	assert_string_equal(n, "cifs");
}

/* merged by bins: the percentiles of the merge are those of one histogram
 * fed every value; counts add; min and max are the extremes */
static void test_combine(void **st)
{
	(void)st;
	struct class_stats *a = calloc(RC__COUNT, sizeof(*a)), *b = calloc(RC__COUNT, sizeof(*b));
	struct hist *all = calloc(1, sizeof(*all));
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(all);
	for (int c = 0; c < RC__COUNT; c++) {
		hist_init(&a[c].lat);
		hist_init(&b[c].lat);
	}
	hist_init(all);
	uint64_t x = 12345;
	for (int i = 0; i < 5000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t v = 1000 + (x >> 40) % (i < 2500 ? 50000 : 5000000);
		hist_add(i % 3 ? &a[RC_WRITE].lat : &b[RC_WRITE].lat, v);
		hist_add(all, v);
		(i % 3 ? a : b)[RC_WRITE].total_ios++;
		(i % 3 ? a : b)[RC_WRITE].done_bytes += 4096;
	}
	b[RC_READ].errors = 3;
	cls_combine(b, a, RC__COUNT);
	assert_int_equal(a[RC_WRITE].total_ios, 5000);
	assert_int_equal(a[RC_WRITE].done_bytes, 5000ull * 4096);
	assert_int_equal(a[RC_READ].errors, 3);
	assert_int_equal(a[RC_WRITE].lat.n, all->n);
	assert_int_equal(a[RC_WRITE].lat.min, all->min);
	assert_int_equal(a[RC_WRITE].lat.max, all->max);
	for (int k = 0; k < HIST_NPCT; k++)
		assert_int_equal(hist_percentile(&a[RC_WRITE].lat, hist_pcts[k]),
				 hist_percentile(all, hist_pcts[k]));
	assert_memory_equal(a[RC_WRITE].lat.b, all->b, sizeof(all->b));
	/* an empty class stays empty (min not lowered to 0) */
	assert_int_equal(a[RC_SYNC].lat.n, 0);
	free(a);
	free(b);
	free(all);
}

static void test_rank_list(void **st)
{
	(void)st;
	char buf[64];
	uint32_t r[] = { 0, 1, 2, 3, 8, 10, 11 };
	assert_string_equal(fmt_rank_list(r, 7, buf, sizeof(buf)), "0-3,8,10-11");
	assert_string_equal(fmt_rank_list(r, 0, buf, sizeof(buf)), "");
	assert_string_equal(fmt_rank_list(r + 4, 1, buf, sizeof(buf)), "8");
}

/* The placement line's trace ranks: the processes' traced rank numbers, not
 * their indexes in the plan; with copies, each copy's ranks with it. */
static void test_proc_ranks(void **st)
{
	(void)st;
	char buf[128];
	bool one;
	/* ranks 0,2-5 replayed (1 filtered out), no copies */
	struct plan_proc five[] = { { 0, 0, 0 }, { 2, 1, 0 }, { 3, 2, 0 }, { 4, 3, 0 }, { 5, 4, 0 } };
	uint32_t all5[] = { 0, 1, 2, 3, 4 }, last[] = { 4 };
	assert_string_equal(fmt_proc_ranks(five, all5, 2, false, buf, sizeof(buf), &one), "0,2");
	assert_false(one);
	assert_string_equal(fmt_proc_ranks(five, all5, 5, false, buf, sizeof(buf), &one), "0,2-5");
	assert_string_equal(fmt_proc_ranks(five, last, 1, false, buf, sizeof(buf), &one), "5");
	assert_true(one);
	/* one rank (7), -n 8: copies 0-7 */
	struct plan_proc cp[8];
	uint32_t idx[8];
	for (uint32_t i = 0; i < 8; i++) {
		cp[i] = (struct plan_proc){ 7, 0, i };
		idx[i] = i;
	}
	assert_string_equal(fmt_proc_ranks(cp, idx, 2, true, buf, sizeof(buf), &one), "7, copies 0-1");
	assert_true(one);
	assert_string_equal(fmt_proc_ranks(cp, idx + 6, 1, true, buf, sizeof(buf), &one), "7, copy 6");
	uint32_t gap[] = { 0, 4 };     /* cyclic: copies 0 and 4 */
	assert_string_equal(fmt_proc_ranks(cp, gap, 2, true, buf, sizeof(buf), &one),
			    "7, copy 0; 7, copy 4");
	/* ranks 0,2,3, -n 8 (copies 0, 1, 2 of two): the parts of a block */
	struct plan_proc three[8];
	const uint32_t rk[] = { 0, 2, 3 };
	for (uint32_t i = 0; i < 8; i++)
		three[i] = (struct plan_proc){ rk[i % 3], i % 3, i / 3 };
	assert_string_equal(fmt_proc_ranks(three, idx + 2, 2, true, buf, sizeof(buf), &one),
			    "3, copy 0; 0, copy 1");
	assert_false(one);
	assert_string_equal(fmt_proc_ranks(three, idx, 8, true, buf, sizeof(buf), &one),
			    "0,2-3, copies 0-1; 0,2, copy 2");
	/* too long: cut with "..." */
	char small[12];
	assert_string_equal(fmt_proc_ranks(three, idx, 8, true, small, sizeof(small), &one),
			    "0,2-3, c...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),     cmocka_unit_test(test_block),
		cmocka_unit_test(test_cyclic),    cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_too_many),  cmocka_unit_test(test_fs_magic),
		cmocka_unit_test(test_combine),   cmocka_unit_test(test_rank_list),
		cmocka_unit_test(test_proc_ranks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
