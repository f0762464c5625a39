/*
 * relay.h - replay-mpi's cross-process order (the parent of each MPI
 * process, idle while its forked workers replay, relays).
 *
 * Every MPI process keeps the wait words of ALL plan processes in its
 * run_shared.  The relay sends the progress (completed prefix) of its local
 * processes to the MPI processes that host other processes of the same
 * copy, and publishes what it receives into the local wait words
 * (wait_publish wakes the local waiters).  A traced barrier with
 * participants in several MPI processes is met locally by the local
 * participants plus the relay standing in for the remote ones: once its
 * local participants have all arrived, the relay says so to the other
 * participating processes, and when all of them said so it arrives for the
 * remote participants, which releases the local ones.  A stop (signal)
 * goes to every process.  Forked workers never call MPI.
 */
#ifndef REPLAY_MPI_RELAY_H
#define REPLAY_MPI_RELAY_H

#include <stdbool.h>
#include <stdint.h>
#include <mpi.h>
#include "ops/opstream.h"
#include "plan/plan.h"
#include "run/results.h"

struct relay;

/* owner[i]: the MPI rank of plan process i (in comm). */
struct relay *relay_new(MPI_Comm comm, const struct plan *p, const struct opstream *s,
			const uint32_t *owner);
/* A new run: the barrier generations as they are now. */
void relay_begin(struct relay *rl, struct run_shared *sh);
/* Send and receive; the ns until the next call. */
uint64_t relay_tick(struct relay *rl, struct run_shared *sh);
/* The local workers have exited: send their last progress. */
void relay_flush(struct relay *rl, struct run_shared *sh);
/* End of a run: tell every process, and read until every process did. */
void relay_end(struct relay *rl);
/* A stop came from another process (reset by relay_begin). */
bool relay_stopped(const struct relay *rl);
/* This process's run failed: every other one stops (as on a signal). */
void relay_fail(struct relay *rl);
/* The MPI rank whose failure stopped this run, or -1. */
int  relay_failed_peer(const struct relay *rl);
void relay_free(struct relay *rl);

#endif
