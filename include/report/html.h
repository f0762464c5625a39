/*
 * html.h - one self-contained HTML page of a comparison (`replay compare
 * --html FILE`): the targets, the workload of every configuration, the
 * completion times normalized to the first result set, latency CDFs (log
 * axis, p50/p99/p99.9 marked) and percentile tables per op class, and the
 * throughput timelines of the first complete run.  Plots are inline SVG;
 * the page has no script, no style sheet or image of its own to fetch and
 * no link to the network, so it opens anywhere and can be mailed as is.
 */
#ifndef REPLAY_HTML_H
#define REPLAY_HTML_H

#include <stdio.h>
#include "report/compare.h"

/* Write the page for c (built by compare_load()).  0, or -errno of the
 * stream. */
int html_write(const struct compare *c, FILE *f);

#endif
