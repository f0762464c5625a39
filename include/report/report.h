/*
 * report.h - results of `replay run`: the human summary and the fio-like
 * JSON document (field list in replay(1), section run).
 *
 * The document is built run by run (report_add_run right after each run,
 * so a long series of repeats does not keep every worker's histograms),
 * finished with the summary across runs, and written atomically.
 */
#ifndef REPLAY_REPORT_H
#define REPLAY_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "plan/plan.h"
#include "run/results.h"
#include "run/runner.h"
#include "run/topo.h"
#include "util/util.h"

/*
 * o[key] = v, taking v's reference even when it fails; -1 when v is NULL
 * (an allocation failed) or o is.  So the builders attach every object they
 * make, check nothing on the way and test `bad` once.
 */
static inline int report_set(json_t *o, const char *key, json_t *v)
{
	return v ? json_object_set_new(o, key, v) : -1;
}
/* A count as a JSON integer (clamped to the largest one). */
static inline json_t *report_u64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* min, median, max, mean, stddev (population) of n values. */
struct rstats {
	double min, median, max, mean, stddev;
};
void report_stats(const uint64_t *v, size_t n, struct rstats *s);

/* What the document says about the setup. */
struct report_info {
	const char *version;
	time_t timestamp;
	char *const *traces;
	size_t ntraces;
	const char *format;
	const char *mode;             /* "parallel" | "sequential"        */
	unsigned processes;
	unsigned ranks;               /* ranks in the trace               */
	unsigned ranks_used;
	unsigned copies;
	bool reused;
	const char *engine;
	unsigned depth;
	bool direct, overlap;
	const char *bind;
	unsigned repeats;
	bool drop_caches;
	const char *target;
	const struct target_info *ti; /* NULL: unknown                    */
	const struct filter *filter;  /* what was left out (NULL: nothing) */
	const char *order;            /* "resource", "none", "alone"      */
	uint64_t dependencies;        /* cross-rank waits the plan holds  */
	bool barriers;                /* traced barriers honoured         */
	const char *on_mismatch;      /* the policy's name                */
	const char *trace_incomplete; /* NULL, or the Darshan modules whose
	                               * DXT data the trace says is cut short */
	uint64_t trace_cut_lines;     /* strace lines cut mid-line, dropped */
	const char *trace_cut_line;   /* the first one's FILE:LINE, or NULL */
	const char *trace_no_clock;   /* NULL, or why the trace's processes
	                               * have no common clock (strace -ff) */
	const struct topo_summary *topo; /* NULL: unknown                 */
	const char *timing;           /* "afap", "think", "trace"         */
	double speed;                 /* --speed (1 when not given)       */
	const char *clock;            /* "tsc", "monotonic" (util/clock.h) */
	const struct traced_times *traced; /* NULL: the trace has no durations */
	const char *workload;         /* the replayed workload in one line (or NULL) */
	const char *workload_all;     /* the whole trace's, when --ranks or -n left
					 ranks out ("" or NULL: none) */
};

/* What the trace says the replayed ops took: their traced durations per
 * class and each process's traced rank time (from its start, the ranks'
 * traced start offsets included in parallel mode). */
struct traced_times {
	struct hist lat[RC__COUNT];
	uint64_t rank_ns_sum;         /* over the processes               */
	uint64_t *rank_ns;            /* per plan process (NULL: none)    */
	uint64_t nprocs;
	bool have_dur;                /* some op has a traced duration    */
	bool have_time;               /* some op has a traced time        */
};
/* Over the plan's processes, the ops the filter keeps and the replay issues. */
void traced_times_build(struct traced_times *t, const struct plan *p, const struct opstream *s,
			uint64_t trace_t0);
void traced_times_release(struct traced_times *t);

/* Totals over every run and worker, for the human summary. */
struct report_agg {
	struct class_stats cls[RC__COUNT];
	uint64_t time_ns[RC__COUNT];  /* I/O time the bandwidth is over   */
	uint64_t skipped_failed, skipped_nohandle, skipped_mmap, seeks, barriers, filtered;
	uint64_t open_failed_ops, open_failed_bytes;  /* of skipped_nohandle */
	uint64_t tmpfile_named;
	uint64_t alone_short, alone_short_bytes;
	uint64_t dep_waits, dep_wait_ns, barrier_waits, barrier_wait_ns;
	uint64_t mismatch[MM_KINDS];
	struct mm_example mm_ex[MM_EXAMPLES];  /* the first ones, any worker */
	uint32_t nmm_ex;
	char mm_rank[MM_EXAMPLES][64];  /* each one's "rank R (NAME)"   */
	const char *mm_src;           /* trace file for "file:line" (NULL: several:
					 the rank and the line) */
	const struct opstream *s;     /* several: each example's rank's file */
	char mm_file[MM_EXAMPLES][256];  /* from it ("" not known)          */
	uint64_t rounded_ops, rounded_extra_bytes;
	uint64_t errno_counts[RES_MAX_ERRNO];
	size_t nruns;
	uint64_t *completion;         /* per run                          */
	uint64_t *io, *flush;
	bool *incomplete;
	uint64_t *rank_completion;    /* sequential: last run, per process */
	size_t nrank;
	/* timing (sched.h): lags of every issued op, drift and scheduled span
	 * summed over workers and runs, the worst drift of one worker in % */
	struct hist lag;
	int64_t drift_sum;
	uint64_t sched_sum;
	double drift_max_pct;
	uint64_t rank_io_sum, nrank_io; /* replayed rank times (io_ns)    */
	/* the traced rank times of the processes counted in rank_io_sum (a
	 * stopped run compares the ranks that ran to their end with their
	 * own traced times): set traced before the adds (NULL: none) */
	const struct traced_times *traced;
	uint64_t traced_done_sum;
};
void report_agg_init(struct report_agg *a);
int  report_agg_add(struct report_agg *a, const struct run_shared *sh,
		    const struct run_outcome *out, bool sequential);
void report_agg_release(struct report_agg *a);

/* The document without runs; NULL on allocation failure.  Its
 * "timestamp", "time" and "time_utc" are ri->timestamp (the start) until
 * report_finish() makes them the instant the results are complete. */
json_t *report_doc_new(const struct report_info *ri);
/* "timestamp" (seconds since the epoch), "time" (fio's ctime(3) form,
 * local time) and "time_utc" (ISO 8601) of one instant t; non-zero on
 * allocation failure. */
int report_set_time(json_t *doc, time_t t);
/* One run's object ("completion_ns", ..., "jobs"[]). */
json_t *report_run_json(const struct run_shared *sh, const struct run_outcome *out,
			bool sequential);
/* One job (worker) and one class, exposed for tests.  A job's classes
 * carry their histogram "bins" in lat_ns when report_fio_bins() (json+),
 * so `replay compare` can pool them exactly as the run's summary does. */
json_t *report_job_json(const struct worker_result *w);
json_t *report_class_json(const struct class_stats *cs, uint64_t runtime_ns, bool bins);
/* Append a run (steals the reference). -ENOMEM. */
int  report_add_run(json_t *doc, json_t *run);
/* Add "summary" computed from the complete runs in the document, and
 * "incomplete": true when a run is incomplete or the document holds fewer
 * runs than options.repeats (a series cut short). */
int  report_finish(json_t *doc);
/* Write atomically: temp file in the same directory, fsync, rename. */
int  report_write(json_t *doc, const char *path, struct rerr *e);
/* errno value -> "ENOSPC" (or the number as text) into buf. */
const char *report_errno_name(int err, char *buf, size_t len);

/* What the filter left out: {"ops_removed", "rules": [{"rule", "why",
 * "ops", "files"}], "ranks_without_ops", "ranks_not_selected"}. */
json_t *report_filter_json(const struct filter *f);
/* The same as lines "filtered:  ..." for the human outputs. */
void report_filter_print(FILE *out, const struct filter *f, unsigned copies);

/* Add "timing" (mode, speed, lag, drift) and, when ri->traced, "fidelity"
 * (traced vs replayed latency per class, rank time) to the document. */
int  report_timing_add(json_t *doc, const struct report_info *ri, const struct report_agg *a);
/* The "timing:" and "fidelity:" lines of the summary. */
void report_timing_print(FILE *f, const struct report_info *ri, const struct report_agg *a);
/* Worker drift in % of its scheduled span (0 when none). */
double report_drift_pct(int64_t drift_ns, uint64_t sched_ns);

/* The stdout summary. */
void report_print(FILE *f, const struct report_info *ri, const struct report_agg *a);

/* fio 3.33's JSON layout (fiojson.c).  report_run_json() keeps each run's
 * processes as fio jobs ("fio_jobs"); report_finish() moves the headline
 * run's (the complete run of median completion time) to the top-level
 * "jobs" (adding fio's latency_depth/target/percentile/window to each) and
 * adds "fio version", "timestamp_ms", "global options", "headline_run" and
 * "disk_util" (the headline run's "disk_util"), and sets "timestamp",
 * "time", "time_utc" and "timestamp_ms" to one instant: now, when the
 * results are complete (as fio's are those of its report).  With
 * bins on (--output-format json+), clat_ns and sync lat_ns carry fio's
 * json+ "bins" {"<ns>": count}. */
void report_fio_set_bins(bool on);
bool report_fio_bins(void);
/* fio's latency object of a histogram: min, max, mean, stddev, N; then
 * percentile{"99.000000": ns}: LAT_PCT_NONE never, LAT_PCT_IF_ANY when h
 * has values, LAT_PCT_ALWAYS always (0s when empty); with bins, json+'s
 * bins{"<ns>": count} (hist.h's buckets, fio's layout: 64 per power of 2). */
enum { LAT_PCT_NONE, LAT_PCT_IF_ANY, LAT_PCT_ALWAYS };
json_t *report_lat_json(const struct hist *h, int pct, bool bins);
json_t *report_fio_jobs(const struct run_shared *sh, const struct run_outcome *out,
			bool sequential);
int report_fio_finish(json_t *doc);

#endif
