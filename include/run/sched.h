/*
 * sched.h - when a worker issues each op: the timing modes.
 *
 *   afap   every op as soon as the one before returned (the study's method)
 *   think  closed loop: the traced gap between the end of one op and the
 *          start of the next (the application's compute time) is kept,
 *          whatever the storage does: due = previous op returned + gap
 *   trace  open loop: each op at its traced start, relative to the rank's
 *          start: due = rank start + traced start
 *
 * Every traced time is divided by the speed factor (--speed 2: twice as
 * fast).  Due times are computed from absolute traced times each time, so
 * no rounding accumulates; a worker sleeps with clock_nanosleep(ABSTIME)
 * until SCHED_SPIN_NS before the due time and spins the rest.
 *
 * Lag is (actual issue - due), per op, into a histogram.  Drift is how much
 * later the rank ended than its schedule said, given the service times it
 * got: in trace mode the lag of its last op (the schedule is absolute, so
 * lateness does not carry over unless the storage falls behind), in think
 * mode the sum of the lags (each one delays everything after it).
 *
 * The clock is injected, so tests drive the scheduler deterministically.
 */
#ifndef REPLAY_RUN_SCHED_H
#define REPLAY_RUN_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include "ops/ops.h"
#include "run/hist.h"

enum timing_mode { TIMING_AFAP = 0, TIMING_THINK, TIMING_TRACE };

/* "afap", "think", "trace" -> the mode; -1 for anything else. */
int timing_parse(const char *s);
const char *timing_name(int mode);

#define SCHED_SPIN_NS 80000ull      /* spin the last 80 us of a wait */

struct sched_clock {
	uint64_t (*now)(void *ctx);                 /* ns, monotonic          */
	void (*sleep_until)(void *ctx, uint64_t t); /* may return early       */
	void *ctx;
};
/* now_ns() (util/clock.h), a relative clock_nanosleep to its deadline. */
extern const struct sched_clock sched_monotonic;

struct sched {
	int mode;
	double inv_speed;            /* 1 / --speed                           */
	const struct sched_clock *clk;
	uint64_t start;              /* clock at the rank's start             */
	uint64_t offset;             /* traced start of the rank after the
	                              * earliest replayed rank (ns, unscaled) */
	bool have_prev;
	uint64_t prev_trace_end;     /* previous op: traced start + duration  */
	uint64_t prev_real_end;      /* previous op: when it returned (clock) */
	uint64_t last_issue;         /* clock when the last op was issued     */
	int64_t drift_ns;
	uint64_t max_lag;
	struct hist *lag;            /* lags go here (may be NULL)            */
};

void sched_init(struct sched *s, int mode, double speed, const struct sched_clock *clk,
		uint64_t start, uint64_t offset, struct hist *lag);
/* The clock time op is due (start for afap: never waits). */
uint64_t sched_due(const struct sched *s, const struct op *op);
/* Sleep until due (returns at once when past); returns the clock then. */
uint64_t sched_wait(const struct sched *s, uint64_t due);
/* The op was issued at `issued` (>= due unless afap); record the lag. */
void sched_issued(struct sched *s, uint64_t due, uint64_t issued);
/* The op returned to the worker at `t` (sync: completed; async: submitted). */
void sched_returned(struct sched *s, const struct op *op, uint64_t t);
/* Scheduled span of the rank: issue of its last op - start - drift. */
uint64_t sched_span(const struct sched *s);

#endif
