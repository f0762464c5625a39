/*
 * waits.h - how one worker waits for another, in shared memory.
 *
 * A worker publishes how many of its ops are complete (a prefix: every op
 * before `done` has completed); a worker whose next op depends on another
 * rank's op waits until that prefix is long enough.  Waiting sleeps in a
 * futex (no spinning); publishing costs one store, and a wake-up only when
 * somebody sleeps.  Traced barriers are generation barriers of a known
 * number of participants.  A stop (signal, failed worker) wakes everyone:
 * waits return -EINTR, never hang (a sleeper also looks at the stop flag
 * every 100 ms).
 */
#ifndef REPLAY_RUN_WAITS_H
#define REPLAY_RUN_WAITS_H

#include <stdint.h>

struct wait_word {
	uint64_t done;          /* completed prefix (ops)                */
	uint32_t seq;           /* futex word: bumped by a publish that wakes */
	uint32_t waiters;       /* workers sleeping on seq               */
};

void wait_publish(struct wait_word *w, uint64_t done);
/* 0 once w->done >= need; -EINTR when *stop is set first. */
int  wait_for(struct wait_word *w, uint64_t need, const uint32_t *stop);
void wait_wake_all(struct wait_word *w);

struct barrier {
	uint32_t count;         /* arrived at the current generation     */
	uint32_t gen;           /* futex word                            */
};

/* Arrive; 0 when all nparts did (and released), -EINTR on stop. */
int  barrier_arrive(struct barrier *b, uint32_t nparts, const uint32_t *stop);
void barrier_wake_all(struct barrier *b);
/* Arrive for n participants without waiting (replay-mpi's relay stands in
 * for the ones in other processes); releases the barrier when that makes
 * nparts. */
void barrier_arrive_for(struct barrier *b, uint32_t n, uint32_t nparts);

#endif
