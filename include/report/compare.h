/*
 * compare.h - read `replay run -o` result files and line them up.
 *
 * A result set is one command-line argument: a result file (a JSON object,
 * or a JSON array of such objects) or a directory whose *.json files are
 * all results (what scripts/evaluate-storage writes per target).  Each
 * result object is one configuration: the trace set, the mode and the
 * process count, with its repeats ("runs").  Rows match configurations
 * across sets by (trace set, mode, processes); the first set is the
 * baseline.
 *
 * Completion time of a configuration = the median over its complete runs
 * (runs marked "incomplete" are counted but not used); the spread is
 * min..max over the same runs.  A difference to the baseline is "within
 * the spread" when the min..max ranges of the two overlap.
 *
 * Latency percentiles are pooled over every process of every complete run.
 * When every pooled job carries its histogram bins (lat_ns.bins, written
 * by `replay run --output-format json+`), the bins are added up and the
 * percentile is taken from them as the run's summary does (run/hist.c:
 * nearest rank, the bucket's middle value clamped to min..max): exact, the
 * summary's figure.  Otherwise each job's percentile list (min = rank 1,
 * each p = rank ceil(p/100 N), max = rank N) places its ops: the listed
 * ranks at their values, the ranks not listed evenly spaced between their
 * listed neighbours; the percentile is the pooled op of the nearest rank.
 * A single job gets back exactly its listed percentiles, and so do pooled
 * jobs whose lists name every rank (N <= 10); otherwise the value lies
 * within the bounds the listed points allow, either side of the truth.
 */
#ifndef REPLAY_COMPARE_H
#define REPLAY_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "util/util.h"

/* Report classes as named in the JSON (same order as enum rclass). */
#define CMP_NCLASS 6
extern const char *const cmp_class_names[CMP_NCLASS];

#define CMP_MAXPTS 24            /* percentile points per job (17 + min + max) */

/* One job's ops as its percentile list describes them: the ops of ranks
 * clo[i]..chi[i] are at x[i]; the clo[i+1]-chi[i]-1 ops of the ranks in
 * between are evenly spaced strictly between x[i] and x[i+1]. */
struct cmp_jobcdf {
	double n;                    /* the job's op count                  */
	unsigned npts;
	double x[CMP_MAXPTS];        /* latency ns, increasing              */
	double clo[CMP_MAXPTS];      /* ops, non-decreasing, clo[i] <= chi[i] */
	double chi[CMP_MAXPTS];
	double min, max;             /* the job's (p0 and p100)             */
};

struct hist;

struct cmp_class {
	uint64_t n;                  /* ops over all pooled jobs            */
	size_t njobs;
	struct cmp_jobcdf *jobs;
	struct hist *bins;           /* the jobs' bins added up, or NULL    */
	bool nobins;                 /* a pooled job had none (approximate) */
};

struct cmp_timeline {
	int rank;
	int copy;
	double interval_ns;
	size_t n;
	double *bytes;               /* cumulative bytes at each sample     */
	size_t shift;                /* samples before its first: the run's
	                              * earlier processes' in sequential mode,
	                              * which ran before it (0 in parallel) */
};

struct cmp_config {
	char *trace;                 /* trace basenames joined by '+'       */
	char *mode;                  /* "sequential" | "parallel" | ...     */
	unsigned procs;
	char *src;                   /* file it came from                   */
	size_t nruns;                /* runs in the file                    */
	size_t ncomplete;            /* runs used (not "incomplete")        */
	double *completion;          /* ns, ncomplete values, sorted        */
	double median, min, max;     /* ns; 0 when ncomplete == 0           */
	double failed_ops;           /* ops that failed (runs[].jobs[].errors), complete runs */
	double mismatches;           /* results unlike the trace's (mismatches.total) */
	struct cmp_class cls[CMP_NCLASS];
	size_t ntl;                  /* jobs of the first complete run      */
	struct cmp_timeline *tl;
	/* the workload, from the result's options and its first complete run */
	char *format, *engine;       /* "" when the result does not say     */
	unsigned ranks;              /* trace ranks (0 unknown)             */
	double filtered;             /* ops the filter left out             */
	double ops[CMP_NCLASS];      /* total_ios per class, summed over jobs */
	double bytes[CMP_NCLASS];    /* io_bytes per class, summed over jobs  */
	/* how it was run, "key=value" lines: the trace files (whole paths),
	 * the ranks replayed, engine, depth, direct, overlap, the cache drop,
	 * timing, speed, order, bind; and what of it differs from the
	 * baseline's of its row ("key: A, here B; ..."), NULL when alike */
	char *setup, *differs;
};

struct cmp_set {
	char *label;
	char *path;
	char *fstype, *device;       /* from the first result ("" unknown)  */
	char *dir, *scheduler;       /* target directory, I/O scheduler      */
	int rotational;              /* 1, 0, -1 unknown                     */
	/* a result of the set on another file system or device than the
	 * first's: "ext4 on /dev/loop0 (FILE)", NULL when all on one */
	char *mixed;
	size_t ncfg;
	struct cmp_config *cfg;
};

struct cmp_row {
	const char *trace, *mode;
	unsigned procs;
	struct cmp_config **cell;    /* one per set, NULL when missing      */
};

struct compare {
	size_t nsets;
	struct cmp_set *sets;
	size_t nrows;
	struct cmp_row *rows;
};

void compare_init(struct compare *c);
/* Add a result set (file or directory).  label NULL: the file name without
 * ".json" (or the directory name).  -errno + e naming the file (and the
 * JSON line:column for syntax errors). */
int  compare_add(struct compare *c, const char *path, const char *label, struct rerr *e);
/* Match rows across sets; sorted by trace, mode (sequential first), procs. */
int  compare_build(struct compare *c, struct rerr *e);
void compare_release(struct compare *c);
/* Split a -L list at commas (empty names skipped) into *names, malloc'd,
 * pointing into list (which is modified); *n their count.  0 or -ENOMEM. */
int  cmp_split_labels(char *list, char ***names, size_t *n);
/* compare_add() each of paths[0..n), named labels[i] (labels NULL: the
 * default names), then compare_build().  -errno + e of the first failure. */
int  compare_load(struct compare *c, char *const *paths, size_t n, char *const *labels,
		  struct rerr *e);

/* Pooled latency percentile (pct in [0,100]) of one class; 0 when empty. */
double cmp_quantile(const struct cmp_class *k, double pct);
/* True when the class's percentiles come from pooled bins (exact). */
bool cmp_exact(const struct cmp_class *k);
/* "" for a clean result, else what went wrong in its complete runs, as
 * "1 failed op, 2 mismatches" (--continue-on-error, --on-mismatch warn). */
const char *cmp_failure_note(const struct cmp_config *g, char *buf, size_t n);
/* True when the min..max completion ranges of the two overlap. */
bool cmp_within_spread(const struct cmp_config *base, const struct cmp_config *x);
/* A ratio to the baseline as the tables print it: two decimals, or two
 * significant digits below 0.095 (0.019, not 0.02); buf, len >= 16. */
const char *cmp_fmt_ratio(char *buf, size_t len, double r);

enum cmp_style { CMP_TEXT, CMP_MARKDOWN };
/* Human table (completion normalized to the first set, then p50/p99 per
 * class), as aligned text or Markdown tables (with a table of the
 * targets).  Returns 0 or -errno of the stream. */
int  compare_print(const struct compare *c, FILE *f, enum cmp_style style);
/* The same as JSON (new reference). */
json_t *compare_json(const struct compare *c);

/* A file-name-safe form of s ([A-Za-z0-9._-], others -> '_'), malloc'd. */
char *cmp_safe_name(const char *s);

#endif
