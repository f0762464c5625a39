/* clock.c - now_ns()'s source: CLOCK_MONOTONIC or the TSC (clock.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "util/clock.h"

struct tsc_map clock_tsc;

int clock_parse(const char *s)
{
	if (!strcmp(s, "auto"))
		return CLOCK_SRC_AUTO;
	if (!strcmp(s, "tsc"))
		return CLOCK_SRC_TSC;
	if (!strcmp(s, "monotonic"))
		return CLOCK_SRC_MONOTONIC;
	if (!strcmp(s, "none"))
		return CLOCK_SRC_NONE;
	return -1;
}

const char *clock_name(int src)
{
	return src == CLOCK_SRC_TSC ? "tsc" : "monotonic";
}

int clock_tsc_usable(const char *cs_path, const char **why)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	char cs[64] = "";
	FILE *f;

	/* invariant TSC: CPUID 0x80000007, EDX bit 8 (a constant rate in every
	 * P-, C- and T-state) */
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8))) {
		*why = "the CPU has no invariant TSC";
		return -ENOTSUP;
	}
	/* the kernel keeps "tsc" as its clocksource only while it finds the
	 * TSCs of all CPUs in step (else it falls back to another) */
	f = fopen(cs_path ? cs_path : "/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	if (!f || !fgets(cs, sizeof(cs), f)) {
		if (f)
			fclose(f);
		*why = "the kernel's clocksource cannot be read";
		return -ENOTSUP;
	}
	fclose(f);
	cs[strcspn(cs, "\n")] = '\0';
	if (strcmp(cs, "tsc") != 0) {
		*why = "the kernel's clocksource is not tsc";
		return -ENOTSUP;
	}
	*why = NULL;
	return 0;
#else
	(void)cs_path;
	*why = "the TSC is read on x86-64 only";
	return -ENOTSUP;
#endif
}

#if defined(__x86_64__)
/* A (TSC, CLOCK_MONOTONIC) pair read together: of 5 tries, the one whose
 * clock read sits between the closest two TSC reads, TSC at their middle. */
static void tsc_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = __rdtsc(), n = clock_mono_ns(), b = __rdtsc();

		if (b > a && b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}
#endif

/* The first pair of a rate measured by clock_setup(), until clock_start() */
static struct { uint64_t t0, n0; int pending; } cal;

int clock_setup(int want, const char **why)
{
	*why = NULL;
	clock_tsc.on = 0;
	cal.pending = 0;
	if (want == CLOCK_SRC_MONOTONIC || want == CLOCK_SRC_NONE)
		return CLOCK_SRC_MONOTONIC;
	if (clock_tsc_usable(NULL, why) < 0)
		return want == CLOCK_SRC_TSC ? -ENOTSUP : CLOCK_SRC_MONOTONIC;
#if defined(__x86_64__)
	tsc_pair(&cal.t0, &cal.n0);
	cal.pending = 1;
	return CLOCK_SRC_TSC;
#else
	return want == CLOCK_SRC_TSC ? -ENOTSUP : CLOCK_SRC_MONOTONIC;
#endif
}

void clock_start(void)
{
#if defined(__x86_64__)
	uint64_t t1 = 0, n1 = 0;

	if (!cal.pending)
		return;
	cal.pending = 0;
	n1 = clock_mono_ns();
	if (n1 - cal.n0 < CLOCK_CAL_NS) {
		uint64_t d = CLOCK_CAL_NS - (n1 - cal.n0);
		struct timespec ts = { 0, (long)d };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	do
		tsc_pair(&t1, &n1);
	while (n1 - cal.n0 < CLOCK_CAL_NS);
	if (t1 <= cal.t0)
		return;                 /* a TSC that did not advance: CLOCK_MONOTONIC */
	clock_tsc.mult = (uint64_t)(((unsigned __int128)(n1 - cal.n0) << 32) / (t1 - cal.t0));
	clock_tsc.t0 = t1;
	clock_tsc.n0 = n1;
	clock_tsc.last = n1;
	clock_tsc.on = 1;
#endif
}
