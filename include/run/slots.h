/*
 * slots.h - a worker's in-flight request slots: which are free, and which
 * busy ones a traced async wait waits for.  Every operation is O(1) at any
 * queue depth (expected O(1) for the async ids: a hash of chains).
 *
 * A slot is taken for each request issued through the engine and given
 * back when it completes.  A request for a traced async submit (OP_AREAD,
 * OP_AWRITE) is marked with the submit's async id; OP_AWAIT with that id
 * reaps until no busy slot carries it (several may: a large request is
 * issued in pieces).
 */
#ifndef REPLAY_SLOTS_H
#define REPLAY_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

struct slots {
	unsigned n;              /* slots 0 .. n-1                          */
	unsigned nfree;
	uint32_t *free;          /* stack of free slot numbers              */
	uint8_t *busy;
	/* busy slots an async wait will wait for: chains by id hash        */
	uint32_t *id, *prev, *next;
	uint32_t *head;          /* per bucket: first slot, or SLOTS_NONE   */
	uint32_t mask;           /* buckets - 1 (a power of two >= n)       */
	uint8_t *awaited;
};

#define SLOTS_NONE UINT32_MAX

int  slots_init(struct slots *t, unsigned n);    /* 0, -EINVAL (n == 0), -ENOMEM */
void slots_release(struct slots *t);
/* Take a free slot (now busy): its number, or -1 when all are busy.  The
 * slot given back last is taken first.  (Inline, with slots_put: once per
 * request each.) */
static inline int slots_get(struct slots *t)
{
	unsigned i;

	if (!t->nfree)
		return -1;
	i = t->free[--t->nfree];
	t->busy[i] = 1;
	return (int)i;
}
/* slots_put()'s part for a slot an async wait waits for (slots.c). */
void slots_unlink_awaited(struct slots *t, unsigned i);
/* Give a busy slot back (out of the async index too); anything else is
 * ignored. */
static inline void slots_put(struct slots *t, unsigned i)
{
	if (i >= t->n || !t->busy[i])
		return;
	if (t->awaited[i])
		slots_unlink_awaited(t, i);
	t->busy[i] = 0;
	t->free[t->nfree++] = i;
}
bool slots_busy(const struct slots *t, unsigned i);
/* Busy slot i carries async id `id` until it is given back. */
void slots_await(struct slots *t, unsigned i, uint32_t id);
/* Does a busy slot carry async id `id`? */
bool slots_awaited(const struct slots *t, uint32_t id);

#endif
