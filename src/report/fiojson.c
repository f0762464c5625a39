/*
 * fiojson.c - fio 3.33's JSON layout at the top level of the result
 * (report.h: report_fio_jobs, report_fio_finish).
 *
 * Each run's replayed processes become fio "jobs" (built while the run's
 * worker results are at hand and kept in the run as "fio_jobs"); at the
 * end the headline run's jobs move to the top-level "jobs" array, next to
 * "fio version", "timestamp_ms", "global options" and "disk_util" (and
 * "timestamp", "time", "time_utc" become the instant of "timestamp_ms":
 * one reading of the clock, as fio's three are), so
 * fio's tools and jq filters (.jobs[].write.bw) read a replay result as
 * they read fio's.  Units are fio's: bw in KiB/s, runtime in ms, latencies
 * in ns, usr_cpu/sys_cpu in percent of the job's run time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "report/jsontext.h"
#include "report/report.h"
#include "run/hist.h"

static bool fio_bins;

void report_fio_set_bins(bool on)
{
	fio_bins = on;
}

bool report_fio_bins(void)
{
	return fio_bins;
}

/* ns as fio's ms: fio adds up microseconds and rounds them up to the
 * ms (update_runtime() in its backend.c), so a job that did I/O never
 * reports 0 ms, and scripts that divide by runtime do not divide by 0. */
static uint64_t fio_ms(uint64_t ns)
{
	return (ns / 1000 + 999) / 1000;
}

/* "read", "write" or "trim": fio's direction object.  runtime_ns is the
 * job's I/O time (fio's runtime is the job's, in ms).  bw_bytes and iops
 * follow from that ms runtime as fio computes them (stat.c: 1000 *
 * io_bytes / runtime, integer, and 1000.0 * total_ios / runtime), so a
 * script that checks or recomputes one from the others finds what it
 * finds in fio's output; replay's own figures from the ns time are in
 * runs[].jobs[]. */
static json_t *dir_json(const struct class_stats *cs, uint64_t runtime_ns)
{
	json_t *o = json_object();
	struct hist none;
	uint64_t ms = cs->total_ios ? fio_ms(runtime_ns) : 0;
	/* fio's bytes are those transferred: what the kernel reported, not
	 * what the trace asked for (they differ when ops failed and the run
	 * went on: --continue-on-error, --on-mismatch warn) */
	uint64_t bw = ms ? (uint64_t)((unsigned __int128)cs->done_bytes * 1000 / ms) : 0;
	int bad = 0;
	hist_init(&none);
	bad |= report_set(o, "io_bytes", report_u64(cs->done_bytes));
	bad |= report_set(o, "io_kbytes", report_u64(cs->done_bytes >> 10));
	bad |= report_set(o, "bw_bytes", report_u64(bw));
	bad |= report_set(o, "bw", report_u64(bw >> 10));
	bad |= report_set(o, "iops", json_real(ms ? 1000.0 * (double)cs->total_ios / (double)ms : 0.0));
	bad |= report_set(o, "runtime", report_u64(ms));
	bad |= report_set(o, "total_ios", report_u64(cs->total_ios));
	bad |= report_set(o, "short_ios", report_u64(cs->short_ios));
	bad |= report_set(o, "drop_ios", report_u64(0));
	/* replay times each op from issue to completion: no separate
	 * submission latency, so clat == lat and slat is empty */
	bad |= report_set(o, "slat_ns", report_lat_json(&none, LAT_PCT_NONE, false));
	bad |= report_set(o, "clat_ns", report_lat_json(&cs->lat, LAT_PCT_IF_ANY, fio_bins));
	bad |= report_set(o, "lat_ns", report_lat_json(&cs->lat, LAT_PCT_IF_ANY, false));
	/* fio's statistics of its periodic bandwidth and IOPS samples, as
	 * fio writes them for a job it took no sample of: replay takes none
	 * (scripts that read them, fio-plot's, find them) */
	static const struct { const char *key; bool real; } samples[] = {
		{ "bw_min", false }, { "bw_max", false }, { "bw_agg", true }, { "bw_mean", true },
		{ "bw_dev", true }, { "bw_samples", false }, { "iops_min", false },
		{ "iops_max", false }, { "iops_mean", true }, { "iops_stddev", true },
		{ "iops_samples", false },
	};
	for (size_t k = 0; k < sizeof(samples) / sizeof(samples[0]); k++)
		bad |= report_set(o, samples[k].key,
				  samples[k].real ? json_real(0.0) : json_integer(0));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* fio's latency_ns/us/ms: percent of the data ops whose latency falls in
 * each bucket (<= the key, above the previous key; ">=2000" for the rest). */
static int latency_buckets(json_t *job, const struct worker_result *w)
{
	static const unsigned keys[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000 };
	static const char *const names[3] = { "latency_ns", "latency_us", "latency_ms" };
	static const double unit[3] = { 1, 1e3, 1e6 };
	struct hist h;
	int bad = 0;
	hist_init(&h);
	hist_merge(&h, &w->cls[RC_READ].lat);
	hist_merge(&h, &w->cls[RC_WRITE].lat);
	double cnt[3][12] = { { 0 } };
	for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
		if (!h.b[i])
			continue;
		double v = (double)hist_bucket_mid(i);
		int u = v <= 1000 ? 0 : v <= 1e6 ? 1 : 2;
		size_t k = 0;
		while (k < 10 && v > keys[k] * unit[u])
			k++;
		if (u == 2 && k == 10)
			k = v <= 2000 * unit[2] ? 10 : 11;
		cnt[u][k] += h.b[i];
	}
	for (int u = 0; u < 3; u++) {
		json_t *o = json_object();
		for (size_t k = 0; k < (u == 2 ? 12u : 10u); k++) {
			char key[16];
			if (k < 10)
				snprintf(key, sizeof(key), "%u", keys[k]);
			else
				snprintf(key, sizeof(key), k == 10 ? "2000" : ">=2000");
			bad |= report_set(o, key, json_real(h.n ? 100.0 * cnt[u][k] / (double)h.n : 0.0));
		}
		bad |= report_set(job, names[u], o);
	}
	return bad;
}

static json_t *sync_json(const struct class_stats *cs)
{
	json_t *o = json_object();
	int bad = report_set(o, "total_ios", report_u64(cs->total_ios));
	bad |= report_set(o, "lat_ns", report_lat_json(&cs->lat, LAT_PCT_IF_ANY, fio_bins));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* fio's "elapsed": whole seconds, rounded up as fio rounds them (its
 * eta.c: (ms + 999) / 1000 of the ms since it started), so a job that ran
 * is never 0 s. */
static uint64_t fio_elapsed(uint64_t ns)
{
	return (ns / 1000000 + 999) / 1000;
}

/* elapsed_ns: the time the job's part of the run took, from the release
 * to its end (fio's elapsed, the same in every job of one fio run) */
static json_t *job_json(const struct worker_result *w, uint32_t idx, uint64_t elapsed_ns,
			bool sequential)
{
	json_t *o = json_object(), *jo = json_object();
	struct class_stats empty;
	char name[80], v[32];
	double rt = (double)w->io_ns;
	int bad = 0;
	memset(&empty, 0, sizeof(empty));
	hist_init(&empty.lat);
	if (w->copy)
		snprintf(name, sizeof(name), "rank-%d-copy%u", w->rank, w->copy);
	else
		snprintf(name, sizeof(name), "rank-%d", w->rank);
	bad |= report_set(o, "jobname", json_string(name));
	/* sequential: each process ran alone, as fio's jobs after a
	 * stonewall, which are groups of their own, in order */
	bad |= report_set(o, "groupid", json_integer(sequential ? (json_int_t)idx : 0));
	uint64_t nerr = 0;
	for (size_t k = 0; k < RES_MAX_ERRNO; k++)
		nerr += w->errno_counts[k];
	bad |= report_set(o, "error", json_integer(w->fail_errno));
	/* fio's ETA when the report is written: 0, the job is over */
	bad |= report_set(o, "eta", json_integer(0));
	bad |= report_set(o, "elapsed", report_u64(fio_elapsed(elapsed_ns)));
	/* fio writes these two with continue_on_error; replay always: ops
	 * may fail without stopping the worker (--on-mismatch) */
	bad |= report_set(o, "total_err", report_u64(nerr));
	bad |= report_set(o, "first_error", json_integer(w->first_errno));
	snprintf(v, sizeof(v), "%d", w->rank);
	bad |= report_set(jo, "rank", json_string(v));
	bad |= report_set(jo, "rank_name", json_text_str(w->rank_name));
	snprintf(v, sizeof(v), "%u", idx);
	bad |= report_set(jo, "process", json_string(v));
	bad |= report_set(o, "job options", jo);
	bad |= report_set(o, "read", dir_json(&w->cls[RC_READ], w->io_ns));
	bad |= report_set(o, "write", dir_json(&w->cls[RC_WRITE], w->io_ns));
	bad |= report_set(o, "trim", dir_json(&empty, w->io_ns));
	bad |= report_set(o, "sync", sync_json(&w->cls[RC_SYNC]));
	bad |= report_set(o, "job_runtime", report_u64(fio_ms(w->io_ns)));
	bad |= report_set(o, "usr_cpu", json_real(rt > 0 ? 100.0 * (double)w->usr_ns / rt : 0.0));
	bad |= report_set(o, "sys_cpu", json_real(rt > 0 ? 100.0 * (double)w->sys_ns / rt : 0.0));
	bad |= report_set(o, "ctx", report_u64(w->ctx));
	bad |= report_set(o, "majf", report_u64(w->majf));
	bad |= report_set(o, "minf", report_u64(w->minf));
	bad |= latency_buckets(o, w);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A parallel run's jobs ran together: each one's elapsed is the run's
 * makespan; in sequential mode each ran alone, its own completion. */
json_t *report_fio_jobs(const struct run_shared *sh, const struct run_outcome *out,
			bool sequential)
{
	json_t *a = json_array();
	if (!a)
		return NULL;
	for (uint32_t i = 0; i < sh->nworkers; i++)
		if (json_array_append_new(a, job_json(&sh->w[i], i, sequential ? sh->w[i].completion_ns
										 : out->completion_ns,
						      sequential))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* The headline run: the complete run whose completion time is the median
 * (the lower one of the two middle runs for an even count); the last run
 * when none is complete.  -1 when there is no run. */
static long headline_run(const json_t *runs)
{
	size_t n = json_array_size(runs), i, k = 0;
	long best = n ? (long)n - 1 : -1;
	json_t *r;
	uint64_t v[n ? n : 1];
	json_array_foreach(runs, i, r)
		if (!json_is_true(json_object_get(r, "incomplete")))
			v[k++] = (uint64_t)json_integer_value(json_object_get(r, "completion_ns"));
	if (!k)
		return best;
	for (size_t a = 1; a < k; a++)          /* k is small: insertion sort */
		for (size_t b = a; b > 0 && v[b - 1] > v[b]; b--) {
			uint64_t t = v[b];
			v[b] = v[b - 1];
			v[b - 1] = t;
		}
	uint64_t med = v[(k - 1) / 2];
	json_array_foreach(runs, i, r)
		if (!json_is_true(json_object_get(r, "incomplete")) &&
		    (uint64_t)json_integer_value(json_object_get(r, "completion_ns")) == med)
			return (long)i;
	return best;
}

/* fio's direct=1: all of the jobs' I/O bypassed the page cache.  So with
 * --direct, or when every data op of the headline run (its replay's
 * runs[].jobs[]) was issued on a descriptor with O_DIRECT: the trace's
 * own O_DIRECT opens (dd oflag=direct).  No data op: not direct. */
static bool all_direct(const json_t *opt, const json_t *run)
{
	const json_t *j;
	uint64_t data = 0, buffered = 0;
	size_t i;

	if (json_is_true(json_object_get(opt, "direct")))
		return true;
	json_array_foreach(json_object_get(run, "jobs"), i, j) {
		buffered += (uint64_t)json_integer_value(json_object_get(j, "buffered_ops"));
		data += (uint64_t)json_integer_value(json_object_get(json_object_get(j, "read"),
								      "total_ios"));
		data += (uint64_t)json_integer_value(json_object_get(json_object_get(j, "write"),
								      "total_ios"));
	}
	return data > 0 && buffered == 0;
}

/* fio's "global options": strings, as fio writes them. */
static json_t *global_options(const json_t *doc, const json_t *run)
{
	const json_t *opt = json_object_get(doc, "options");
	const json_t *tg = json_object_get(doc, "target");
	json_t *g = json_object();
	char v[32];
	int bad = 0;
	const char *dir = json_string_value(json_object_get(tg, "dir"));
	const char *eng = json_string_value(json_object_get(opt, "engine"));
	bad |= report_set(g, "directory", json_string(dir ? dir : ""));
	bad |= report_set(g, "ioengine", json_string(eng ? eng : ""));
	snprintf(v, sizeof(v), "%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(opt, "depth")));
	bad |= report_set(g, "iodepth", json_string(v));
	bad |= report_set(g, "direct", json_string(all_direct(opt, run) ? "1" : "0"));
	snprintf(v, sizeof(v), "%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(opt, "processes")));
	bad |= report_set(g, "numjobs", json_string(v));
	if (bad) {
		json_decref(g);
		return NULL;
	}
	return g;
}

/* fio's latency target keys of a job without one (fio writes them after
 * latency_ms): the queue depth it ran at, no target (0), all of the ops
 * (100 %), no window. */
static int latency_target(json_t *jobs, json_int_t depth)
{
	json_t *j;
	size_t i;
	int bad = 0;

	json_array_foreach(jobs, i, j) {
		bad |= report_set(j, "latency_depth", json_integer(depth));
		bad |= report_set(j, "latency_target", json_integer(0));
		bad |= report_set(j, "latency_percentile", json_real(100.0));
		bad |= report_set(j, "latency_window", json_integer(0));
	}
	return bad;
}

int report_fio_finish(json_t *doc)
{
	json_t *runs = json_object_get(doc, "runs"), *r;
	long h = headline_run(runs);
	json_t *jobs = NULL, *du = NULL;
	struct timeval tv;
	size_t i;
	int bad = 0;
	json_array_foreach(runs, i, r) {
		if ((long)i == h) {
			jobs = json_incref(json_object_get(r, "fio_jobs"));
			du = json_incref(json_object_get(r, "disk_util"));
		}
		json_object_del(r, "fio_jobs");
	}
	if (jobs)
		bad |= latency_target(jobs, json_integer_value(json_object_get(
						    json_object_get(doc, "options"), "depth")));
	/* one instant for the four, as fio's (stat.c reads the clock once) */
	gettimeofday(&tv, NULL);
	bad |= report_set_time(doc, tv.tv_sec);
	/* the layout's version, as fio writes its own: scripts choose keys
	 * by it (clat before fio 2.21, clat_ns after); replay's own is its
	 * "replay version" */
	bad |= report_set(doc, "fio version", json_string("fio-3.33"));
	bad |= report_set(doc, "timestamp_ms",
			  report_u64((uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000));
	bad |= report_set(doc, "global options", global_options(doc, h >= 0 ? json_array_get(runs, (size_t)h)
										  : NULL));
	bad |= report_set(doc, "headline_run", json_integer(h));
	bad |= report_set(doc, "jobs", jobs ? jobs : json_array());
	bad |= report_set(doc, "disk_util", du ? du : json_array());
	return bad ? -ENOMEM : 0;
}
