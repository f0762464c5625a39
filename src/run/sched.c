/* sched.c - the timing modes' issue schedule (sched.h). */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "run/sched.h"
#include "util/util.h"

int timing_parse(const char *s)
{
	if (!strcmp(s, "afap"))
		return TIMING_AFAP;
	if (!strcmp(s, "think"))
		return TIMING_THINK;
	if (!strcmp(s, "trace"))
		return TIMING_TRACE;
	return -1;
}

const char *timing_name(int mode)
{
	return mode == TIMING_THINK ? "think" : mode == TIMING_TRACE ? "trace" : "afap";
}

static uint64_t mono_now(void *ctx)
{
	(void)ctx;
	return now_ns();
}

/* Relative: t is on now_ns()'s clock, which may be the TSC's mapping and
 * drift from CLOCK_MONOTONIC by a few ppm. */
static void mono_sleep_until(void *ctx, uint64_t t)
{
	(void)ctx;
	uint64_t now = now_ns();
	if (t <= now)
		return;
	uint64_t d = t - now;
	struct timespec ts = { (time_t)(d / 1000000000ull), (long)(d % 1000000000ull) };
	/* EINTR: the caller looks at the clock again */
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

const struct sched_clock sched_monotonic = { mono_now, mono_sleep_until, NULL };

void sched_init(struct sched *s, int mode, double speed, const struct sched_clock *clk,
		uint64_t start, uint64_t offset, struct hist *lag)
{
	memset(s, 0, sizeof(*s));
	s->mode = mode;
	s->inv_speed = speed > 0 ? 1.0 / speed : 1.0;
	s->clk = clk ? clk : &sched_monotonic;
	s->start = start;
	s->offset = offset;
	s->last_issue = start;
	s->lag = lag;
}

/* A traced duration at the replay's speed. */
static uint64_t scaled(const struct sched *s, uint64_t ns)
{
	return (uint64_t)((double)ns * s->inv_speed + 0.5);
}

uint64_t sched_due(const struct sched *s, const struct op *op)
{
	switch (s->mode) {
	case TIMING_TRACE:
		return s->start + scaled(s, s->offset + op->t_ns);
	case TIMING_THINK:
		if (!s->have_prev)
			return s->start + scaled(s, s->offset + op->t_ns);
		return s->prev_real_end +
		       (op->t_ns > s->prev_trace_end ? scaled(s, op->t_ns - s->prev_trace_end) : 0);
	default:
		return s->start;
	}
}

uint64_t sched_wait(const struct sched *s, uint64_t due)
{
	uint64_t now = s->clk->now(s->clk->ctx);
	while (now + SCHED_SPIN_NS < due) {
		s->clk->sleep_until(s->clk->ctx, due - SCHED_SPIN_NS);
		now = s->clk->now(s->clk->ctx);
	}
	while (now < due)
		now = s->clk->now(s->clk->ctx);
	return now;
}

void sched_issued(struct sched *s, uint64_t due, uint64_t issued)
{
	uint64_t lag = issued > due ? issued - due : 0;
	s->last_issue = issued;
	if (s->mode == TIMING_AFAP)
		return;
	if (s->lag)
		hist_add(s->lag, lag);
	if (lag > s->max_lag)
		s->max_lag = lag;
	if (s->mode == TIMING_THINK)
		s->drift_ns += (int64_t)lag;
	else
		s->drift_ns = (int64_t)lag;
}

void sched_returned(struct sched *s, const struct op *op, uint64_t t)
{
	s->have_prev = true;
	s->prev_trace_end = op->t_ns + op->dur_ns;
	s->prev_real_end = t;
}

uint64_t sched_span(const struct sched *s)
{
	uint64_t span = s->last_issue - s->start;
	return (int64_t)span > s->drift_ns ? span - (uint64_t)s->drift_ns : 0;
}
