/* test_overlap.c - in-flight conflict rules (overlap.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/overlap.h"

static void t_rules(void **state)
{
	(void)state;
	struct overlap o;
	unsigned slot = 99;

	assert_int_equal(overlap_init(&o, 4), 0);
	/* nothing in flight: never a conflict */
	assert_int_equal(overlap_conflicts(&o, 1, 0, 4096, 1, &slot), 0);
	overlap_add(&o, 2, 1, 4096, 4096, 1);          /* write file 1 [4096, 8192) */
	/* same file, overlapping bytes, read after write: wait for slot 2 */
	assert_int_equal(overlap_conflicts(&o, 1, 8191, 10, 0, &slot), 1);
	assert_int_equal(slot, 2);
	/* write after write on overlapping bytes */
	assert_int_equal(overlap_conflicts(&o, 1, 0, 4097, 1, NULL), 1);
	/* adjacent ranges do not overlap (N-1 strided writes run together) */
	assert_int_equal(overlap_conflicts(&o, 1, 8192, 4096, 1, NULL), 0);
	assert_int_equal(overlap_conflicts(&o, 1, 0, 4096, 1, NULL), 0);
	/* another file is independent */
	assert_int_equal(overlap_conflicts(&o, 2, 4096, 4096, 1, NULL), 0);
	/* zero length never conflicts */
	assert_int_equal(overlap_conflicts(&o, 1, 5000, 0, 1, NULL), 0);
	overlap_add(&o, 0, 3, 0, 1 << 20, 0);           /* read file 3 [0, 1 MiB) */
	/* read after read: independent */
	assert_int_equal(overlap_conflicts(&o, 3, 100, 100, 0, NULL), 0);
	/* write after read: wait */
	assert_int_equal(overlap_conflicts(&o, 3, 100, 100, 1, &slot), 1);
	assert_int_equal(slot, 0);
	assert_int_equal(o.busy, 2);
	overlap_done(&o, 2);
	overlap_done(&o, 2);                            /* twice: no underflow */
	assert_int_equal(o.busy, 1);
	assert_int_equal(overlap_conflicts(&o, 1, 8191, 10, 0, NULL), 0);
	overlap_done(&o, 0);
	assert_int_equal(o.busy, 0);
	assert_int_equal(overlap_conflicts(&o, 3, 100, 100, 1, NULL), 0);
	/* out-of-range slots are ignored */
	overlap_add(&o, 9, 1, 0, 10, 1);
	assert_int_equal(o.busy, 0);
	/* a slot reused keeps the count right */
	overlap_add(&o, 1, 5, 0, 10, 1);
	overlap_add(&o, 1, 5, 10, 10, 1);
	assert_int_equal(o.busy, 1);
	assert_int_equal(overlap_conflicts(&o, 5, 0, 10, 1, NULL), 0);
	assert_int_equal(overlap_conflicts(&o, 5, 15, 1, 0, NULL), 1);
	overlap_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
