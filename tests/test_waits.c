/*
 * test_waits.c - run/waits: dependency waits and traced barriers between
 * real forked processes on a MAP_SHARED region, as the runner uses them.
 * Every child arms alarm(): a lost wake-up kills it instead of hanging.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "run/waits.h"

#define ROUNDS 20000
#define GENS   2000

struct shared {
	struct wait_word w[2];
	uint64_t value[2];          /* written before each publish          */
	struct barrier bar;
	uint32_t arrived[GENS];     /* per generation, before arriving     */
	uint32_t stop;
};

static struct shared *map_shared(void)
{
	void *p = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	memset(p, 0, sizeof(struct shared));
	return p;
}

/* Exit status of every child, 0 when all succeeded. */
static int reap(int n)
{
	int bad = 0;
	for (int i = 0; i < n; i++) {
		int st;
		assert_true(wait(&st) > 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	return bad;
}

/* Two processes in lock step: each publishes round i after writing its
 * value, then waits for the other's round i and must see its value. */
static void pingpong(struct shared *sh, int me)
{
	alarm(60);
	int other = 1 - me;
	for (uint64_t i = 1; i <= ROUNDS; i++) {
		__atomic_store_n(&sh->value[me], i, __ATOMIC_RELAXED);
		wait_publish(&sh->w[me], i);
		if (wait_for(&sh->w[other], i, &sh->stop))
			_exit(2);
		if (__atomic_load_n(&sh->value[other], __ATOMIC_RELAXED) < i)
			_exit(3);
	}
	_exit(0);
}

static void test_pingpong(void **state)
{
	(void)state;
	struct shared *sh = map_shared();
	for (int me = 0; me < 2; me++) {
		pid_t p = fork();
		assert_true(p >= 0);
		if (p == 0)
			pingpong(sh, me);
	}
	assert_int_equal(reap(2), 0);
	assert_int_equal(sh->w[0].done, ROUNDS);
	assert_int_equal(sh->w[1].done, ROUNDS);
	assert_int_equal(sh->w[0].waiters, 0);
	munmap(sh, sizeof(*sh));
}

/* Three processes through GENS barrier generations: after each, all three
 * have counted themselves in. */
static void test_barrier(void **state)
{
	(void)state;
	struct shared *sh = map_shared();
	for (int me = 0; me < 3; me++) {
		pid_t p = fork();
		assert_true(p >= 0);
		if (p == 0) {
			alarm(60);
			for (int g = 0; g < GENS; g++) {
				__atomic_fetch_add(&sh->arrived[g], 1, __ATOMIC_SEQ_CST);
				if (barrier_arrive(&sh->bar, 3, &sh->stop))
					_exit(2);
				if (__atomic_load_n(&sh->arrived[g], __ATOMIC_SEQ_CST) != 3)
					_exit(3);
			}
			_exit(0);
		}
	}
	assert_int_equal(reap(3), 0);
	assert_int_equal(sh->bar.gen, GENS);
	assert_int_equal(sh->bar.count, 0);
	munmap(sh, sizeof(*sh));
}

/* A stop wakes a waiter that nobody will ever satisfy, and a barrier that
 * will never fill: both return -EINTR (exit 0 here), neither hangs. */
static void test_stop(void **state)
{
	(void)state;
	struct shared *sh = map_shared();
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		alarm(10);
		_exit(wait_for(&sh->w[0], 5, &sh->stop) == -EINTR ? 0 : 1);
	}
	pid_t q = fork();
	assert_true(q >= 0);
	if (q == 0) {
		alarm(10);
		_exit(barrier_arrive(&sh->bar, 2, &sh->stop) == -EINTR ? 0 : 1);
	}
	struct timespec ms50 = { 0, 50000000 };
	nanosleep(&ms50, NULL);
	wait_publish(&sh->w[0], 4);          /* not enough: still waiting */
	nanosleep(&ms50, NULL);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_SEQ_CST);
	wait_wake_all(&sh->w[0]);
	barrier_wake_all(&sh->bar);
	assert_int_equal(reap(2), 0);
	munmap(sh, sizeof(*sh));
}

/* Already satisfied: no sleep, no stop needed. */
static void test_satisfied(void **state)
{
	(void)state;
	struct wait_word w = { 0 };
	uint32_t stop = 1;
	wait_publish(&w, 7);
	assert_int_equal(wait_for(&w, 7, &stop), 0);
	assert_int_equal(wait_for(&w, 0, NULL), 0);
	assert_int_equal(wait_for(&w, 8, &stop), -EINTR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_satisfied),
		cmocka_unit_test(test_pingpong),
		cmocka_unit_test(test_barrier),
		cmocka_unit_test(test_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
