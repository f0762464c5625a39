/* test_slots.c - free slots and the async-id index (slots.h). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "run/slots.h"

static void t_basics(void **state)
{
	(void)state;
	struct slots t;

	assert_int_equal(slots_init(&t, 0), -EINVAL);
	assert_int_equal(slots_init(&t, 3), 0);
	/* lowest first at the start, as a scan would */
	assert_int_equal(slots_get(&t), 0);
	assert_int_equal(slots_get(&t), 1);
	assert_int_equal(slots_get(&t), 2);
	assert_int_equal(slots_get(&t), -1);            /* all busy */
	assert_true(slots_busy(&t, 1));
	assert_false(slots_busy(&t, 3));                /* out of range */
	slots_put(&t, 1);
	slots_put(&t, 1);                               /* twice: ignored */
	slots_put(&t, 7);                               /* out of range: ignored */
	assert_int_equal(t.nfree, 1);
	assert_false(slots_busy(&t, 1));
	assert_int_equal(slots_get(&t), 1);             /* the one given back */
	/* async ids: several slots may carry one (a request in pieces) */
	slots_await(&t, 0, 42);
	slots_await(&t, 2, 42);
	slots_await(&t, 1, 7);
	assert_true(slots_awaited(&t, 42));
	assert_true(slots_awaited(&t, 7));
	assert_false(slots_awaited(&t, 8));
	slots_put(&t, 0);
	assert_true(slots_awaited(&t, 42));
	slots_put(&t, 2);
	assert_false(slots_awaited(&t, 42));
	/* a free slot cannot be awaited; re-marking moves the slot */
	slots_await(&t, 0, 9);
	assert_false(slots_awaited(&t, 9));
	slots_await(&t, 1, 8);
	assert_false(slots_awaited(&t, 7));
	assert_true(slots_awaited(&t, 8));
	slots_release(&t);
}

static uint64_t xs(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Random takes, gives and marks against a model (busy flags, ids): the
 * slot taken was free, none is lost or given twice, and the index answers
 * as a scan of the busy slots would. */
static void t_random(void **state)
{
	(void)state;
	static int busy[1024], marked[1024];
	static uint32_t id[1024];
	const unsigned ns[] = { 1, 2, 7, 64, 1024 };
	uint64_t x = 0x243F6A8885A308D3ull;

	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		unsigned n = ns[k], nbusy = 0;
		struct slots t;

		memset(busy, 0, sizeof(busy));
		memset(marked, 0, sizeof(marked));
		assert_int_equal(slots_init(&t, n), 0);
		for (int step = 0; step < 50000; step++) {
			unsigned r = (unsigned)(xs(&x) % 10), i = (unsigned)(xs(&x) % n);
			uint32_t q = (uint32_t)(xs(&x) % (2 * n + 3));

			if (r < 4) {
				int got = slots_get(&t);
				if (nbusy == n) {
					assert_int_equal(got, -1);
				} else {
					assert_true(got >= 0 && (unsigned)got < n && !busy[got]);
					busy[got] = 1;
					marked[got] = 0;
					nbusy++;
				}
			} else if (r < 7) {
				if (busy[i])
					nbusy--;
				slots_put(&t, i);
				busy[i] = marked[i] = 0;
			} else if (r < 8) {
				slots_await(&t, i, q);
				if (busy[i]) {
					marked[i] = 1;
					id[i] = q;
				}
			} else {
				int want = 0;
				for (unsigned j = 0; j < n; j++)
					want |= busy[j] && marked[j] && id[j] == q;
				assert_int_equal(slots_awaited(&t, q), want);
			}
			assert_int_equal(t.nfree, n - nbusy);
			assert_int_equal(slots_busy(&t, i), busy[i]);
		}
		slots_release(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_basics),
		cmocka_unit_test(t_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
