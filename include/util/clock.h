/*
 * clock.h - the clock every duration of a run is read from.
 *
 * now_ns() is CLOCK_MONOTONIC in nanoseconds.  After clock_setup() picks
 * the TSC and clock_start() ends the setup, it is the CPU's time-stamp
 * counter, mapped onto CLOCK_MONOTONIC at that moment: ns = n0 + (tsc -
 * t0) x rate, the rate measured against CLOCK_MONOTONIC over at least
 * CLOCK_CAL_NS.  One rdtsc and a multiply where clock_gettime costs about
 * twice that, read twice per op.  Processes forked after the setup share
 * its mapping, so their times compare; the mapped clock drifts from
 * CLOCK_MONOTONIC by the rate's error (a few ppm: ms over an hour).  A
 * process never sees it go back.
 */
#ifndef REPLAY_UTIL_CLOCK_H
#define REPLAY_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* CLOCK_SRC_NONE: no op is timed (run --clock none); the run's own
 * durations are read from CLOCK_MONOTONIC. */
enum clock_source { CLOCK_SRC_AUTO, CLOCK_SRC_TSC, CLOCK_SRC_MONOTONIC, CLOCK_SRC_NONE };

#define CLOCK_CAL_NS 5000000ull  /* the TSC rate is measured over 5 ms */

struct tsc_map {
	uint64_t t0;    /* TSC at setup                                  */
	uint64_t n0;    /* CLOCK_MONOTONIC at setup, ns                   */
	uint64_t mult;  /* ns per tick, x 2^32                            */
	uint64_t last;  /* the last value read (reads never go back)      */
	int on;
};
extern struct tsc_map clock_tsc;

static inline uint64_t clock_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ns on the run's clock; inline: the runner reads it twice per op */
static inline uint64_t now_ns(void)
{
#if defined(__x86_64__)
	if (clock_tsc.on) {
		uint64_t d = __rdtsc() - clock_tsc.t0;
		uint64_t v = clock_tsc.n0 + (uint64_t)(((unsigned __int128)d * clock_tsc.mult) >> 32);
		/* TSCs of two CPUs may differ by a few ticks */
		if (v < clock_tsc.last)
			v = clock_tsc.last;
		clock_tsc.last = v;
		return v;
	}
#endif
	return clock_mono_ns();
}

/* "auto", "tsc", "monotonic" or "none": the enum, or -1. */
int clock_parse(const char *s);
/* The name a source is reported by ("tsc" or "monotonic"). */
const char *clock_name(int src);
/* Whether now_ns() can be the TSC here: 0, or -ENOTSUP with *why set (no
 * x86-64, no invariant TSC, or a kernel clocksource other than "tsc" as
 * read from cs_path; NULL: the running kernel's). */
int clock_tsc_usable(const char *cs_path, const char **why);
/* Pick now_ns()'s source: want CLOCK_SRC_AUTO takes the TSC where usable,
 * else CLOCK_MONOTONIC (as do MONOTONIC and NONE).  Returns the source picked (CLOCK_SRC_TSC or
 * CLOCK_SRC_MONOTONIC), or -ENOTSUP with *why when the TSC was asked for
 * and is not usable.  The TSC's rate is measured from here to
 * clock_start() (CLOCK_CAL_NS at least), so that the work done between
 * the two hides it; until then now_ns() reads CLOCK_MONOTONIC. */
int clock_setup(int want, const char **why);
/* Finish what clock_setup() began: from here now_ns() reads the TSC when
 * it was picked (it sleeps the part of CLOCK_CAL_NS not yet gone by; a
 * TSC that did not advance leaves CLOCK_MONOTONIC).  Once; no-op after. */
void clock_start(void);
/* The source now_ns() reads. */
static inline int clock_current(void)
{
	return clock_tsc.on ? CLOCK_SRC_TSC : CLOCK_SRC_MONOTONIC;
}

#endif
