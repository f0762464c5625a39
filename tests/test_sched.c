/*
 * test_sched.c - run/sched: the timing modes' issue schedule, driven by an
 * injected clock (deterministic: no real sleep, no timing assertion).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "run/sched.h"

#define US 1000ull
#define MS 1000000ull

/* A fake clock: now() advances by `tick` per call (a spinning loop makes
 * progress); sleep_until() lands `overshoot` ns after its target, as a
 * real timer does. */
struct fake {
	uint64_t t, tick, overshoot;
	unsigned sleeps, nows;
};

static uint64_t fake_now(void *ctx)
{
	struct fake *f = ctx;
	f->nows++;
	f->t += f->tick;
	return f->t;
}

static void fake_sleep(void *ctx, uint64_t until)
{
	struct fake *f = ctx;
	f->sleeps++;
	if (until > f->t)
		f->t = until + f->overshoot;
}

static struct op op_at(uint64_t t_ns, uint64_t dur_ns)
{
	struct op o;
	memset(&o, 0, sizeof(o));
	o.kind = OP_WRITE;
	o.t_ns = t_ns;
	o.dur_ns = dur_ns;
	return o;
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(timing_parse("afap"), TIMING_AFAP);
	assert_int_equal(timing_parse("think"), TIMING_THINK);
	assert_int_equal(timing_parse("trace"), TIMING_TRACE);
	assert_int_equal(timing_parse("fast"), -1);
	assert_int_equal(timing_parse(""), -1);
	assert_string_equal(timing_name(TIMING_THINK), "think");
	assert_string_equal(timing_name(TIMING_TRACE), "trace");
	assert_string_equal(timing_name(TIMING_AFAP), "afap");
}

/* Open loop: due = start + traced start, whatever the service times; a
 * slow op makes the next one late, not every one after it. */
static void test_trace_absolute(void **state)
{
	(void)state;
	struct fake f = { .t = 5 * MS };
	struct sched_clock clk = { fake_now, fake_sleep, &f };
	struct hist lag;
	struct sched s;
	hist_init(&lag);
	sched_init(&s, TIMING_TRACE, 1.0, &clk, 5 * MS, 0, &lag);

	uint64_t t_tr[] = { 0, 1 * MS, 2 * MS, 9 * MS, 10 * MS };
	uint64_t service[] = { 100 * US, 2500 * US, 100 * US, 100 * US, 100 * US };
	uint64_t expect_lag[] = { 0, 0, 1500 * US, 0, 0 };
	for (int i = 0; i < 5; i++) {
		struct op o = op_at(t_tr[i], 50 * US);
		uint64_t due = sched_due(&s, &o);
		assert_int_equal(due, 5 * MS + t_tr[i]);
		uint64_t at = f.t >= due ? f.t : (f.t = due);   /* issued on time or late */
		sched_issued(&s, due, at);
		assert_int_equal(at - due, expect_lag[i]);
		f.t = at + service[i];
		sched_returned(&s, &o, f.t);
	}
	assert_int_equal(lag.n, 5);
	assert_int_equal(lag.max, 1500 * US);
	assert_int_equal(s.drift_ns, 0);            /* the last op was on time */
	assert_int_equal(sched_span(&s), 10 * MS);
}

/* Closed loop: the traced gap after each op's end is kept from the real
 * end; lags add up into the drift. */
static void test_think(void **state)
{
	(void)state;
	struct fake f = { .t = 0 };
	struct sched_clock clk = { fake_now, fake_sleep, &f };
	struct sched s;
	sched_init(&s, TIMING_THINK, 1.0, &clk, 1000, 0, NULL);

	/* traced: op0 [0, 1 ms), gap 2 ms, op1 [3 ms, 3.5 ms), gap 0.5 ms, op2 */
	struct op o0 = op_at(0, 1 * MS), o1 = op_at(3 * MS, 500 * US), o2 = op_at(4 * MS, 0);
	assert_int_equal(sched_due(&s, &o0), 1000);
	sched_issued(&s, 1000, 1000);
	sched_returned(&s, &o0, 1000 + 7 * MS);      /* storage 7x slower */
	assert_int_equal(sched_due(&s, &o1), 1000 + 9 * MS);
	sched_issued(&s, 1000 + 9 * MS, 1000 + 9 * MS + 20 * US);
	sched_returned(&s, &o1, 1000 + 9 * MS + 120 * US);
	assert_int_equal(sched_due(&s, &o2), 1000 + 9 * MS + 620 * US);
	sched_issued(&s, 1000 + 9 * MS + 620 * US, 1000 + 9 * MS + 650 * US);
	assert_int_equal(s.drift_ns, 50 * US);        /* 20 + 30 us */
	assert_int_equal(s.max_lag, 30 * US);
	assert_int_equal(sched_span(&s), 9 * MS + 600 * US);

	/* an op traced before the previous one ended (threads): no gap */
	struct op early = op_at(3 * MS, 0);
	sched_returned(&s, &o1, 50 * MS);
	assert_int_equal(sched_due(&s, &early), 50 * MS);
}

/* --speed F divides every traced time; the first op of a rank that
 * started later in the trace waits for its offset (scaled too). */
static void test_speed_offset(void **state)
{
	(void)state;
	struct fake f = { .t = 0 };
	struct sched_clock clk = { fake_now, fake_sleep, &f };
	struct sched s;
	sched_init(&s, TIMING_TRACE, 4.0, &clk, 0, 2 * MS, NULL);
	struct op o = op_at(6 * MS, 0);
	assert_int_equal(sched_due(&s, &o), 2 * MS);   /* (2 + 6) / 4 */
	sched_init(&s, TIMING_THINK, 0.5, &clk, 0, 0, NULL);
	struct op a = op_at(0, 1 * MS), b = op_at(3 * MS, 0);
	sched_returned(&s, &a, 10 * MS);
	assert_int_equal(sched_due(&s, &b), 14 * MS);  /* gap 2 ms at half speed */
	/* afap never waits */
	sched_init(&s, TIMING_AFAP, 1.0, &clk, 777, 5 * MS, NULL);
	assert_int_equal(sched_due(&s, &b), 777);
}

/* A million ops 333 ns apart at speed 3: every due time is computed from
 * the absolute traced time, so each is exactly round(t/3) after the
 * start (summing rounded gaps would be off by up to 0.5 ns per op). */
static void test_no_accumulation(void **state)
{
	(void)state;
	struct fake f = { .t = 0 };
	struct sched_clock clk = { fake_now, fake_sleep, &f };
	struct sched s;
	sched_init(&s, TIMING_TRACE, 3.0, &clk, 1000000, 0, NULL);
	for (uint64_t k = 0; k < 1000000; k++) {
		uint64_t tt = k * 333 + (k % 7);
		struct op o = op_at(tt, 0);
		uint64_t due = sched_due(&s, &o);
		if (due != 1000000 + (tt + 1) / 3)
			fail_msg("op %lu: due %lu, expected %lu", (unsigned long)k, (unsigned long)due,
				 (unsigned long)(1000000 + (tt + 1) / 3));
		sched_issued(&s, due, due);
	}
	assert_int_equal(s.drift_ns, 0);
}

/* sched_wait sleeps to SCHED_SPIN_NS before the due time, then spins: a
 * timer that overshoots by less than that costs no lag. */
static void test_wait(void **state)
{
	(void)state;
	struct fake f = { .t = 0, .tick = 100, .overshoot = SCHED_SPIN_NS / 2 };
	struct sched_clock clk = { fake_now, fake_sleep, &f };
	struct sched s;
	sched_init(&s, TIMING_TRACE, 1.0, &clk, 0, 0, NULL);
	uint64_t due = 5 * MS;
	uint64_t at = sched_wait(&s, due);
	assert_true(at >= due);
	assert_true(at < due + 200);                   /* within two clock reads */
	assert_int_equal(f.sleeps, 1);
	/* a due time already past: no sleep, at once */
	unsigned before = f.sleeps;
	at = sched_wait(&s, 1000);
	assert_int_equal(f.sleeps, before);
	assert_true(at > 1000);
	/* a timer that wakes early: sleep again, never issue early */
	struct fake g = { .t = 0, .tick = 100 };
	struct sched_clock early = { fake_now, fake_sleep, &g };
	sched_init(&s, TIMING_TRACE, 1.0, &early, 0, 0, NULL);
	at = sched_wait(&s, 20 * MS);
	assert_true(at >= 20 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_trace_absolute),
		cmocka_unit_test(test_think),
		cmocka_unit_test(test_speed_offset),
		cmocka_unit_test(test_no_accumulation),
		cmocka_unit_test(test_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
