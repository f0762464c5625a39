/* waits.c - futex waits for dependencies and traced barriers (waits.h). */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "run/waits.h"

#define ACQ __ATOMIC_ACQUIRE
#define REL __ATOMIC_RELEASE

static const struct timespec tick = { 0, 100000000 };   /* stop checks */

static long fwait(uint32_t *addr, uint32_t val)
{
	return syscall(SYS_futex, addr, FUTEX_WAIT, val, &tick, NULL, 0);
}

static void fwake(uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void wait_publish(struct wait_word *w, uint64_t done)
{
	__atomic_store_n(&w->done, done, REL);
	if (__atomic_load_n(&w->waiters, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_add(&w->seq, 1, __ATOMIC_SEQ_CST);
		fwake(&w->seq);
	}
}

int wait_for(struct wait_word *w, uint64_t need, const uint32_t *stop)
{
	while (__atomic_load_n(&w->done, ACQ) < need) {
		if (stop && __atomic_load_n(stop, ACQ))
			return -EINTR;
		uint32_t seq = __atomic_load_n(&w->seq, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&w->waiters, 1, __ATOMIC_SEQ_CST);
		/* published between the check and the sleep: seq moved, the
		 * futex returns at once */
		if (__atomic_load_n(&w->done, __ATOMIC_SEQ_CST) < need)
			fwait(&w->seq, seq);
		__atomic_fetch_sub(&w->waiters, 1, __ATOMIC_SEQ_CST);
	}
	return 0;
}

void wait_wake_all(struct wait_word *w)
{
	__atomic_fetch_add(&w->seq, 1, __ATOMIC_SEQ_CST);
	fwake(&w->seq);
}

int barrier_arrive(struct barrier *b, uint32_t nparts, const uint32_t *stop)
{
	uint32_t gen = __atomic_load_n(&b->gen, ACQ);
	if (__atomic_add_fetch(&b->count, 1, __ATOMIC_SEQ_CST) >= nparts) {
		__atomic_store_n(&b->count, 0, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&b->gen, 1, __ATOMIC_SEQ_CST);
		fwake(&b->gen);
		return 0;
	}
	while (__atomic_load_n(&b->gen, ACQ) == gen) {
		if (stop && __atomic_load_n(stop, ACQ))
			return -EINTR;
		fwait(&b->gen, gen);
	}
	return 0;
}

void barrier_wake_all(struct barrier *b)
{
	fwake(&b->gen);
}

void barrier_arrive_for(struct barrier *b, uint32_t n, uint32_t nparts)
{
	if (__atomic_add_fetch(&b->count, n, __ATOMIC_SEQ_CST) >= nparts) {
		__atomic_store_n(&b->count, 0, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&b->gen, 1, __ATOMIC_SEQ_CST);
		fwake(&b->gen);
	}
}
