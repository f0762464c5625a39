/* test_clock.c - now_ns()'s sources (util/clock.h): the names, the checks
 * that allow the TSC (a clocksource file that says something else, or is
 * missing, refuses it), the TSC's mapping against CLOCK_MONOTONIC read
 * around it, reads that never go back, and a sleep to a deadline on the
 * mapped clock that does not end before it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "run/sched.h"
#include "util/clock.h"

static void t_names(void **state)
{
	(void)state;
	assert_int_equal(clock_parse("auto"), CLOCK_SRC_AUTO);
	assert_int_equal(clock_parse("tsc"), CLOCK_SRC_TSC);
	assert_int_equal(clock_parse("monotonic"), CLOCK_SRC_MONOTONIC);
	assert_int_equal(clock_parse("none"), CLOCK_SRC_NONE);
	assert_int_equal(clock_parse("TSC"), -1);
	assert_int_equal(clock_parse(""), -1);
	assert_int_equal(clock_parse("mono"), -1);
	assert_string_equal(clock_name(CLOCK_SRC_TSC), "tsc");
	assert_string_equal(clock_name(CLOCK_SRC_MONOTONIC), "monotonic");
}

/* A clocksource file holding s; its path (static). */
static const char *cs_file(const char *s)
{
	static char path[] = "/tmp/replay-test-clock-XXXXXX";
	int fd;

	strcpy(path, "/tmp/replay-test-clock-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
	return path;
}

/* Is the CPU's TSC invariant (what clock_tsc_usable asks first)?  Read
 * independently, from /proc/cpuinfo's flags. */
static int cpu_invariant_tsc(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];
	int c = 0, n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		c = strstr(line, " constant_tsc") != NULL;
		n = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return c && n;
}

static void t_usable(void **state)
{
	const char *why = "unset", *p;
	(void)state;

	/* another clocksource, or none readable: refused, with the reason */
	p = cs_file("kvm-clock\n");
	assert_int_equal(clock_tsc_usable(p, &why), -ENOTSUP);
	assert_non_null(why);
	unlink(p);
	assert_int_equal(clock_tsc_usable("/nonexistent/current_clocksource", &why), -ENOTSUP);
	assert_non_null(why);
	p = cs_file("");
	assert_int_equal(clock_tsc_usable(p, &why), -ENOTSUP);
	unlink(p);
	p = cs_file("tsc-early\n");
	assert_int_equal(clock_tsc_usable(p, &why), -ENOTSUP);
	unlink(p);
#if defined(__x86_64__)
	/* "tsc": taken exactly when the CPU's TSC is invariant */
	p = cs_file("tsc\n");
	int inv = cpu_invariant_tsc();
	if (inv >= 0)
		assert_int_equal(clock_tsc_usable(p, &why), inv ? 0 : -ENOTSUP);
	if (inv == 1)
		assert_null(why);
	unlink(p);
#else
	p = cs_file("tsc\n");
	assert_int_equal(clock_tsc_usable(p, &why), -ENOTSUP);
	unlink(p);
#endif
}

static void t_monotonic(void **state)
{
	const char *why;
	(void)state;

	assert_int_equal(clock_setup(CLOCK_SRC_MONOTONIC, &why), CLOCK_SRC_MONOTONIC);
	clock_start();
	assert_int_equal(clock_tsc.on, 0);
	assert_int_equal(clock_current(), CLOCK_SRC_MONOTONIC);
	uint64_t a = clock_mono_ns(), v = now_ns(), b = clock_mono_ns();
	assert_true(a <= v && v <= b);
	/* none (ops not timed): the run's own times from CLOCK_MONOTONIC */
	assert_int_equal(clock_setup(CLOCK_SRC_NONE, &why), CLOCK_SRC_MONOTONIC);
	clock_start();
	assert_int_equal(clock_tsc.on, 0);
	assert_int_equal(clock_current(), CLOCK_SRC_MONOTONIC);
}

/* The mapped TSC read between two CLOCK_MONOTONIC reads, over ~60 ms:
 * within them, give or take 20 us (the rate's error is a few ppm: 0.2 us
 * there).  A try whose two reads are over 1 ms apart (the process was
 * preempted) is taken again. */
static void t_tsc_mapping(void **state)
{
	const char *why;
	(void)state;

	if (clock_tsc_usable(NULL, &why) < 0) {
		/* asked for, the TSC is refused with the same reason */
		assert_int_equal(clock_setup(CLOCK_SRC_TSC, &why), -ENOTSUP);
		assert_non_null(why);
		assert_int_equal(clock_tsc.on, 0);
		assert_int_equal(clock_setup(CLOCK_SRC_AUTO, &why), CLOCK_SRC_MONOTONIC);
		clock_start();
		assert_int_equal(clock_current(), CLOCK_SRC_MONOTONIC);
		skip();
	}
	uint64_t t0 = clock_mono_ns();
	assert_int_equal(clock_setup(CLOCK_SRC_AUTO, &why), CLOCK_SRC_TSC);
	/* CLOCK_MONOTONIC until the setup ends, and after it the TSC */
	assert_int_equal(clock_current(), CLOCK_SRC_MONOTONIC);
	clock_start();
	assert_true(clock_mono_ns() - t0 >= CLOCK_CAL_NS);     /* (it waited) */
	assert_int_equal(clock_current(), CLOCK_SRC_TSC);
	assert_int_equal(clock_tsc.on, 1);
	assert_true(clock_tsc.mult > 0);
	for (int i = 0; i < 6; i++) {
		int ok = 0;

		for (int k = 0; k < 100 && !ok; k++) {
			uint64_t a = clock_mono_ns(), v = now_ns(), b = clock_mono_ns();

			if (b - a > 1000000)
				continue;
			assert_true(v + 20000 >= a);
			assert_true(v <= b + 20000);
			ok = 1;
		}
		assert_true(ok);
		usleep(10000);
	}
	assert_int_equal(clock_setup(CLOCK_SRC_MONOTONIC, &why), CLOCK_SRC_MONOTONIC);
}

/* 2 M reads in a row on each source: none below the one before. */
static void t_never_back(void **state)
{
	const char *why;
	(void)state;

	for (int src = 0; src < 2; src++) {
		clock_setup(src ? CLOCK_SRC_AUTO : CLOCK_SRC_MONOTONIC, &why);
		clock_start();
		uint64_t prev = now_ns();
		for (int i = 0; i < 2000000; i++) {
			uint64_t v = now_ns();
			assert_true(v >= prev);
			prev = v;
		}
	}
	clock_setup(CLOCK_SRC_MONOTONIC, &why);
}

/* The schedule's sleep to a deadline on now_ns()'s clock: never returns
 * more than the rate's error (1 us here) before it, on either source. */
static void t_sleep_until(void **state)
{
	const char *why;
	(void)state;

	for (int src = 0; src < 2; src++) {
		clock_setup(src ? CLOCK_SRC_AUTO : CLOCK_SRC_MONOTONIC, &why);
		clock_start();
		for (int i = 0; i < 5; i++) {
			uint64_t due = now_ns() + 3000000;

			/* (it may return early on a signal: none comes here) */
			sched_monotonic.sleep_until(sched_monotonic.ctx, due);
			assert_true(now_ns() + 1000 >= due);
		}
		/* a deadline passed: back at once */
		sched_monotonic.sleep_until(sched_monotonic.ctx, now_ns() - 1000);
	}
	clock_setup(CLOCK_SRC_MONOTONIC, &why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_names),
		cmocka_unit_test(t_usable),
		cmocka_unit_test(t_monotonic),
		cmocka_unit_test(t_tsc_mapping),
		cmocka_unit_test(t_never_back),
		cmocka_unit_test(t_sleep_until),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
