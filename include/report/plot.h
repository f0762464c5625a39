/*
 * plot.h - gnuplot data files and scripts from a comparison.
 *
 * plot_write() writes into DIR, for each figure NAME, NAME.dat (the
 * numbers) and NAME.gp (a script that renders NAME.png and NAME.svg when
 * run as `gnuplot NAME.gp` inside DIR), so every figure can be redone or
 * restyled by hand.  Figures:
 *   completion-sequential, completion-parallel: grouped bars per trace (and
 *     process count), one bar per result set, normalized to the first set,
 *     error bars = min..max over the runs, the baseline's absolute time on top;
 *   latency-TRACE-MODE-N: latency CDF per op class (one panel per class),
 *     one line per result set;
 *   timeline-LABEL-TRACE-MODE-N: per-process throughput over time of the
 *     first complete run (and the sum in parallel mode).
 * plot_render() runs gnuplot on one script; -ENOENT when gnuplot is not
 * installed.
 */
#ifndef REPLAY_PLOT_H
#define REPLAY_PLOT_H

#include <stddef.h>
#include "report/compare.h"
#include "util/util.h"

struct plot_list {
	size_t n;
	char **names;            /* figure names (NAME.gp / .dat / .png / .svg) */
};

int  plot_write(const struct compare *c, const char *dir, struct plot_list *out, struct rerr *e);
/* Run gnuplot NAME.gp in dir; its messages go to NAME.log.  -errno + e. */
int  plot_render(const char *dir, const char *name, struct rerr *e);
void plot_list_release(struct plot_list *l);

#endif
