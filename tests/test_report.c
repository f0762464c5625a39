/* test_report.c - the JSON of `replay run`: shape and numbers against a
 * golden structure (json_equal), the summary across runs, atomic write. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "plan/filter.h"
#include "plan/plan.h"
#include "run/hist.h"
#include "report/report.h"

#define TMPDIR_TEMPLATE "/tmp/replay-test-reportXXXXXX"
#include "tmpdir_fixture.h"
#include "strace_text.h"

/* Reals rounded to 3 decimals, so the golden text can state them. */
static void round_reals(json_t *j)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach(j, k, v) {
			if (json_is_real(v))
				json_object_set_new(j, k, json_real(round(json_real_value(v) * 1e3) / 1e3));
			else
				round_reals(v);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			if (json_is_real(v))
				json_array_set_new(j, i, json_real(round(json_real_value(v) * 1e3) / 1e3));
			else
				round_reals(v);
		}
	}
}

static json_t *golden(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);

	if (!j)
		fail_msg("golden JSON: line %d: %s", err.line, err.text);
	return j;
}

static void assert_json_equal(json_t *got, json_t *want)
{
	round_reals(got);
	round_reals(want);
	if (!json_equal(got, want)) {
		char *a = json_dumps(got, JSON_SORT_KEYS | JSON_INDENT(1));
		char *b = json_dumps(want, JSON_SORT_KEYS | JSON_INDENT(1));

		print_error("got:\n%s\nwant:\n%s\n", a, b);
		free(a);
		free(b);
		fail();
	}
}

#define EMPTY_CLASS \
	"{\"io_bytes\":0,\"done_bytes\":0,\"bw_bytes\":0,\"iops\":0.0,\"runtime_ns\":2000000000," \
	"\"total_ios\":0,\"short_ios\":0,\"errors\":0,\"lat_ns\":{\"min\":0,\"max\":0,\"mean\":0.0," \
	"\"stddev\":0.0,\"N\":0,\"percentile\":{\"1.000000\":0,\"5.000000\":0,\"10.000000\":0," \
	"\"20.000000\":0,\"30.000000\":0,\"40.000000\":0,\"50.000000\":0,\"60.000000\":0," \
	"\"70.000000\":0,\"80.000000\":0,\"90.000000\":0,\"95.000000\":0,\"99.000000\":0," \
	"\"99.500000\":0,\"99.900000\":0,\"99.950000\":0,\"99.990000\":0}}}"

/* A worker with fixed numbers: 4 writes of 4096 bytes with latencies
 * 10, 20, 30, 40 ns (exact histogram buckets), over 2 s of I/O. */
static void fill_worker(struct worker_result *w)
{
	memset(w, 0, sizeof(*w));
	runner_worker_init(w);
	w->rank = 1;
	w->pid = 4242;
	w->copy = 0;
	w->status = W_DONE;
	w->io_ns = 2000000000ull;
	w->flush_ns = 500000000ull;
	w->completion_ns = 2500000000ull;
	w->ops_total = 6;
	w->ops_done = 6;
	w->max_inflight = 1;
	w->numa_node = -1;
	strcpy(w->cpuset, "0-1");
	strcpy(w->rank_name, "pid 77");
	w->eng_short_ios = 1;
	w->eng_eagain = 2;
	w->eng_sync_fallback = 3;
	w->errno_counts[ENOSPC] = 2;
	w->skipped_failed = 3;
	w->seeks = 5;
	w->sample_interval_ns = 100000000ull;
	w->nsamples = 3;
	w->sample_bytes[0] = 0;
	w->sample_bytes[1] = 8192;
	w->sample_bytes[2] = 16384;
	struct class_stats *cs = &w->cls[RC_WRITE];
	cs->total_ios = 4;
	cs->io_bytes = 16384;
	cs->done_bytes = 16000;
	cs->short_ios = 1;
	for (int v = 10; v <= 40; v += 10)
		hist_add(&cs->lat, (uint64_t)v);
	w->buffered_ops = 4;
}

static void test_job_golden(void **state)
{
	(void)state;
	struct worker_result *w = calloc(1, sizeof(*w));
	json_t *got, *want;

	fill_worker(w);
	got = report_job_json(w);
	assert_non_null(got);
	want = golden(
		"{\"rank\":1,\"rank_name\":\"pid 77\",\"pid\":4242,\"copy\":0,\"status\":\"done\",\"cpuset\":\"0-1\","
		"\"numa_node\":-1,\"completion_ns\":2500000000,\"io_ns\":2000000000,"
		"\"flush_ns\":500000000,\"ops\":6,\"ops_done\":6,\"max_inflight\":1,\"short_ios\":1,\"eagain\":2,\"sync_fallback\":3,"
		"\"rounded_ops\":0,\"rounded_extra_bytes\":0,\"tmpfile_named\":0,\"alone_short_reads\":0,\"alone_short_bytes\":0,\"buffered_ops\":4,"
		"\"errors\":{\"ENOSPC\":2},"
		"\"not_issued\":{\"traced_failures\":3,\"no_handle\":0,\"open_failed\":0,\"open_failed_bytes\":0,\"mmap\":0,\"seeks\":5,\"barriers\":0,"
		"  \"filtered\":0},"
		"\"dep_waits\":0,\"dep_wait_ns\":0,\"barrier_waits\":0,\"barrier_wait_ns\":0,"
		"\"mismatches\":{\"total\":0,\"by_kind\":{},\"examples\":[]},"
		"\"read\":" EMPTY_CLASS ",\"sync\":" EMPTY_CLASS ",\"open\":" EMPTY_CLASS ","
		"\"close\":" EMPTY_CLASS ",\"meta\":" EMPTY_CLASS ","
		"\"write\":{\"io_bytes\":16384,\"done_bytes\":16000,\"bw_bytes\":8192,\"iops\":2.0,"
		"  \"runtime_ns\":2000000000,\"total_ios\":4,\"short_ios\":1,\"errors\":0,"
		"  \"lat_ns\":{\"min\":10,\"max\":40,\"mean\":25.0,\"stddev\":12.91,\"N\":4,"
		"    \"percentile\":{\"1.000000\":10,\"5.000000\":10,\"10.000000\":10,\"20.000000\":10,"
		"      \"30.000000\":20,\"40.000000\":20,\"50.000000\":20,\"60.000000\":30,"
		"      \"70.000000\":30,\"80.000000\":40,\"90.000000\":40,\"95.000000\":40,"
		"      \"99.000000\":40,\"99.500000\":40,\"99.900000\":40,\"99.950000\":40,"
		"      \"99.990000\":40}}},"
		"\"timeline\":{\"interval_ns\":100000000,\"bytes\":[0,8192,16384]}}");
	assert_json_equal(got, want);
	json_decref(got);
	json_decref(want);
	free(w);
}

static void test_run_and_summary(void **state)
{
	(void)state;
	size_t sz = sizeof(struct run_shared) + 2 * sizeof(struct worker_result);
	struct run_shared *sh = calloc(1, sz);
	struct report_info ri = { .version = "9.9", .timestamp = 1700000000, .mode = "sequential",
				  .processes = 2, .engine = "sync", .depth = 1, .bind = "none",
				  .repeats = 3, .drop_caches = true, .clock = "tsc", .target = "/mnt/x",
				  .format = "strace" };
	char *tr[] = { "a.txt" };
	struct run_outcome out = { .completion_ns = 3000, .io_ns = 2000, .flush_ns = 1000,
				   .drop = "dropped" };
	json_t *doc, *run, *v;

	sh->nworkers = 2;
	fill_worker(&sh->w[0]);
	fill_worker(&sh->w[1]);
	sh->w[1].rank = 2;
	ri.traces = tr;
	ri.ntraces = 1;
	doc = report_doc_new(&ri);
	assert_non_null(doc);
	run = report_run_json(sh, &out, true);
	assert_non_null(run);
	assert_int_equal(json_array_size(json_object_get(run, "jobs")), 2);
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(json_object_get(run, "jobs"), 1), "rank")), 2);
	/* fio's jobs of the run, moved to the top level by report_finish() */
	assert_int_equal(json_array_size(json_object_get(run, "fio_jobs")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(run, "fio_jobs"), 1), "jobname")), "rank-2");
	/* the run's own fields (jobs checked above and in test_job_golden) */
	json_object_del(run, "jobs");
	json_object_del(run, "fio_jobs");
	json_t *want = golden("{\"completion_ns\":3000,\"io_ns\":2000,\"flush_ns\":1000,"
			      "\"incomplete\":false,\"failed\":false,\"drop_caches\":\"dropped\","
			      "\"headline\":\"longest rank\"}");
	assert_json_equal(run, want);
	json_decref(want);
	assert_int_equal(report_add_run(doc, run), 0);
	out.completion_ns = 1000;
	assert_int_equal(report_add_run(doc, report_run_json(sh, &out, true)), 0);
	out.completion_ns = 2000;
	assert_int_equal(report_add_run(doc, report_run_json(sh, &out, true)), 0);
	/* an interrupted run does not enter the statistics */
	out.completion_ns = 99;
	out.incomplete = true;
	out.stop_signal = 2;
	assert_int_equal(report_add_run(doc, report_run_json(sh, &out, true)), 0);
	assert_int_equal(report_finish(doc), 0);
	/* the headline run is the complete one of median completion (2000:
	 * the third), its jobs are fio's; no run keeps its fio_jobs */
	assert_int_equal(json_integer_value(json_object_get(doc, "headline_run")), 2);
	assert_int_equal(json_array_size(json_object_get(doc, "jobs")), 2);
	assert_non_null(json_object_get(json_object_get(json_array_get(json_object_get(doc, "jobs"), 0),
							"write"), "bw"));
	for (size_t i = 0; i < 4; i++)
		assert_null(json_object_get(json_array_get(json_object_get(doc, "runs"), i), "fio_jobs"));

	want = golden("{\"completion_ns\":{\"min\":1000.0,\"median\":2000.0,\"max\":3000.0,"
		      "\"mean\":2000.0,\"stddev\":816.497},\"runs\":4,\"complete_runs\":3}");
	assert_json_equal(json_object_get(doc, "summary"), want);
	json_decref(want);
	assert_true(json_is_true(json_object_get(doc, "incomplete")));
	v = json_array_get(json_object_get(doc, "runs"), 3);
	assert_int_equal(json_integer_value(json_object_get(v, "stop_signal")), 2);

	/* top level and options */
	assert_string_equal(json_string_value(json_object_get(doc, "replay version")), "9.9");
	/* the start (ri.timestamp) is start_utc; timestamp, time, time_utc
	 * and timestamp_ms are one later instant: checked in
	 * test_fio_time_one_instant */
	assert_string_equal(json_string_value(json_object_get(doc, "start_utc")), "2023-11-14T22:13:20Z");
	want = golden("{\"mode\":\"sequential\",\"processes\":2,\"ranks\":0,\"ranks_used\":0,"
		      "\"copies\":0,\"rank_reuse\":false,\"engine\":\"sync\",\"depth\":1,"
		      "\"direct\":false,\"overlap\":false,\"bind\":\"none\",\"repeats\":3,"
		      "\"trace\":[\"a.txt\"],\"format\":\"strace\",\"drop_caches\":true,"
		      "\"order\":\"\",\"dependencies\":0,\"barriers\":false,\"on_mismatch\":\"\",\"trace_incomplete\":false,\"trace_cut_lines\":0,\"trace_no_common_clock\":false,"
		      "\"timing\":\"afap\",\"speed\":1.0,\"clock\":\"tsc\"}");
	assert_json_equal(json_object_get(doc, "options"), want);
	json_decref(want);
	v = json_object_get(doc, "host");
	assert_true(json_is_string(json_object_get(v, "hostname")));
	assert_true(json_integer_value(json_object_get(v, "cpus")) >= 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "target"), "dir")),
			    "/mnt/x");

	/* atomic write: the file parses back equal, no temporary left */
	char path[300];
	struct rerr e;
	json_error_t jerr;
	snprintf(path, sizeof(path), "%s/out.json", dir);
	assert_int_equal(report_write(doc, path, &e), 0);
	json_t *back = json_load_file(path, 0, &jerr);
	assert_non_null(back);
	assert_true(json_equal(back, doc));
	json_decref(back);
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	assert_int_equal(n, 1);
	/* a directory that does not exist: an error naming it */
	snprintf(path, sizeof(path), "%s/nope/out.json", dir);
	assert_int_equal(report_write(doc, path, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "nope"));
	json_decref(doc);
	free(sh);
}

/* -r 4 interrupted after two complete runs: the runs made are complete,
 * the series is not; the median of an even count is the mean of the two
 * middle values; stddev is the population one (replay(1) says so). */
static void test_series_cut_short(void **state)
{
	(void)state;
	size_t sz = sizeof(struct run_shared) + sizeof(struct worker_result);
	struct run_shared *sh = calloc(1, sz);
	struct report_info ri = { .version = "9.9", .mode = "parallel", .processes = 1,
				  .engine = "sync", .depth = 1, .bind = "none", .repeats = 4,
				  .target = "/mnt/x", .format = "strace" };
	struct run_outcome out = { .completion_ns = 1000, .drop = "dropped" };
	json_t *doc, *want;

	assert_non_null(sh);
	sh->nworkers = 1;
	fill_worker(&sh->w[0]);
	doc = report_doc_new(&ri);
	assert_non_null(doc);
	assert_int_equal(report_add_run(doc, report_run_json(sh, &out, false)), 0);
	out.completion_ns = 4000;
	assert_int_equal(report_add_run(doc, report_run_json(sh, &out, false)), 0);
	assert_int_equal(report_finish(doc), 0);
	want = golden("{\"completion_ns\":{\"min\":1000.0,\"median\":2500.0,\"max\":4000.0,"
		      "\"mean\":2500.0,\"stddev\":1500.0},\"runs\":2,\"complete_runs\":2}");
	assert_json_equal(json_object_get(doc, "summary"), want);
	json_decref(want);
	assert_true(json_is_true(json_object_get(doc, "incomplete")));
	json_decref(doc);

	/* all four runs made and complete: not incomplete */
	doc = report_doc_new(&ri);
	assert_non_null(doc);
	for (int i = 0; i < 4; i++)
		assert_int_equal(report_add_run(doc, report_run_json(sh, &out, false)), 0);
	assert_int_equal(report_finish(doc), 0);
	assert_true(json_is_false(json_object_get(doc, "incomplete")));
	json_decref(doc);
	free(sh);
}

/* A run of two workers' results and an aggregate to add them to. */
static void two_workers(struct run_shared **sh, struct report_agg **a)
{
	*sh = calloc(1, sizeof(struct run_shared) + 2 * sizeof(struct worker_result));
	*a = calloc(1, sizeof(**a));
	assert_non_null(*sh);
	assert_non_null(*a);
	(*sh)->nworkers = 2;
	report_agg_init(*a);
}

/* Percentiles over processes and runs come from the merged bins, never
 * from averaging each process's percentiles: one process with 1 us reads,
 * one with 10 us reads, over two runs: the pooled p50 is one of the two
 * (1 us: 50 % of the ops are at most that), the p99 is 10 us; averaging
 * would say 5.5 us for both. */
static void test_agg_percentiles_merge_bins(void **state)
{
	(void)state;
	struct run_shared *sh;
	struct report_agg *a;
	struct run_outcome out = { .completion_ns = 1000000, .io_ns = 1000000 };
	two_workers(&sh, &a);
	for (int run = 0; run < 2; run++) {
		for (int w = 0; w < 2; w++) {
			fill_worker(&sh->w[w]);
			hist_init(&sh->w[w].cls[RC_READ].lat);
			for (int i = 0; i < 100; i++)
				hist_add(&sh->w[w].cls[RC_READ].lat, w ? 10000 : 1000);
			sh->w[w].cls[RC_READ].total_ios = 100;
		}
		assert_int_equal(report_agg_add(a, sh, &out, false), 0);
	}
	const struct hist *h = &a->cls[RC_READ].lat;
	assert_int_equal(h->n, 400);
	uint64_t p50 = hist_percentile(h, 50);   /* a bucket's middle: within 1 % */
	assert_true(p50 >= 990 && p50 <= 1010);
	uint64_t p99 = hist_percentile(h, 99);
	assert_true(p99 >= 9900 && p99 <= 10100);
	report_agg_release(a);
	free(a);
	free(sh);
}

/* Drift is over the ranks that ran to their end: a stopped worker that
 * wrote its cut-short span (it saw the stop flag) adds nothing, so a run
 * stopped before any rank's end says none (the summary gave "drift +0.6 %
 * over 557 ms scheduled" or "-", as the workers happened to end). */
static void test_agg_drift_done_only(void **state)
{
	(void)state;
	struct run_shared *sh;
	struct report_agg *a;
	struct run_outcome out = { .completion_ns = 1000000, .io_ns = 1000000 };
	two_workers(&sh, &a);
	for (int w = 0; w < 2; w++) {
		fill_worker(&sh->w[w]);
		hist_init(&sh->w[w].lag);
		hist_add(&sh->w[w].lag, 1000);
		sh->w[w].status = W_KILLED;
		sh->w[w].drift_ns = 3000000;
		sh->w[w].sched_ns = 500000000;
	}
	assert_int_equal(report_agg_add(a, sh, &out, false), 0);
	assert_int_equal(a->sched_sum, 0);
	assert_int_equal(a->lag.n, 2);                /* the lag, measured, counts */
	sh->w[1].status = W_DONE;
	assert_int_equal(report_agg_add(a, sh, &out, false), 0);
	assert_int_equal(a->sched_sum, 500000000);
	assert_int_equal(a->drift_sum, 3000000);
	report_agg_release(a);
	free(a);
	free(sh);
}

static void test_errno_name(void **state)
{
	(void)state;
	char b[32];

	assert_string_equal(report_errno_name(ENOSPC, b, sizeof(b)), "ENOSPC");
	assert_string_equal(report_errno_name(EIO, b, sizeof(b)), "EIO");
	assert_string_equal(report_errno_name(9999, b, sizeof(b)), "9999");
}

static void test_agg_and_print(void **state)
{
	(void)state;
	size_t sz = sizeof(struct run_shared) + 1 * sizeof(struct worker_result);
	struct run_shared *sh = calloc(1, sz);
	struct report_agg *a = calloc(1, sizeof(*a));
	struct run_outcome out = { .completion_ns = 2500000000ull, .io_ns = 2000000000ull,
				   .flush_ns = 500000000ull };
	struct report_info ri = { .mode = "parallel", .processes = 1, .engine = "sync",
				  .depth = 1, .bind = "none", .target = "/mnt/x", .format = "strace",
				  .ranks = 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	sh->nworkers = 1;
	fill_worker(&sh->w[0]);
	report_agg_init(a);
	assert_int_equal(report_agg_add(a, sh, &out, false), 0);
	assert_int_equal(report_agg_add(a, sh, &out, false), 0);
	assert_int_equal(a->nruns, 2);
	assert_int_equal(a->cls[RC_WRITE].total_ios, 8);
	assert_int_equal(a->cls[RC_WRITE].lat.n, 8);
	assert_int_equal(a->time_ns[RC_WRITE], 4000000000ull);
	assert_int_equal(a->errno_counts[ENOSPC], 4);
	f = open_memstream(&buf, &len);
	report_print(f, &ri, a);
	fclose(f);
	/* per run: 4 writes, 16 KiB; 32 KiB over 4 s of I/O = 8 KiB/s =
	 * 0.00781 MiB/s, 8 writes over 4 s = 2 IOPS (never the sums) */
	const char *row = strstr(buf, "\nwrite ");
	assert_non_null(row);
	char col[5][32];
	assert_int_equal(sscanf(row, " write %31s %31s %31s %31s %31s", col[0], col[1], col[2], col[3],
				col[4]), 5);
	assert_string_equal(col[0], "4");
	assert_string_equal(col[1], "16.0");
	assert_string_equal(col[2], "KiB");
	assert_string_equal(col[3], "0.00781");
	assert_string_equal(col[4], "2");
	assert_non_null(strstr(buf, "completion 2.500 s"));
	assert_non_null(strstr(buf, "ENOSPC: 4"));
	assert_non_null(strstr(buf, "10 seeks"));
	free(buf);
	report_agg_release(a);
	free(a);
	free(sh);
}

/* A run of part of the trace (-n 2 of 8 ranks, 1 not in --ranks): the
 * summary's workload: line, then the whole trace's named as such, and the
 * filtered: line and the JSON's "filtered" with the ranks past -n. */
static void test_selection_print(void **state)
{
	(void)state;
	struct report_agg *a = calloc(1, sizeof(*a));
	struct filter flt = { .nkept = 2, .ranks_unselected = 1, .ranks_beyond = 5,
			      .ops_kept = 418, .ops_removed = 4 };
	struct report_info ri = { .mode = "parallel", .processes = 2, .engine = "sync",
				  .depth = 1, .bind = "none", .target = "/mnt/x", .format = "lanl",
				  .ranks = 8, .filter = &flt,
				  .workload = "2 of the trace's 8 ranks replayed: read 6.5 MiB",
				  .workload_all = "whole trace, all 8 ranks: read 26.0 MiB" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	report_agg_init(a);
	f = open_memstream(&buf, &len);
	report_print(f, &ri, a);
	fclose(f);
	assert_non_null(strstr(buf, "\nworkload:    2 of the trace's 8 ranks replayed: read 6.5 MiB\n"
				    "             whole trace, all 8 ranks: read 26.0 MiB\nmode:"));
	assert_non_null(strstr(buf, "\nfiltered:    4 ops left out (418 replayed); 1 rank not in"
				    " --ranks; 5 ranks past the 2 replayed (-n)\n"));
	free(buf);

	/* the whole trace: one line */
	ri.workload = "all 8 ranks: read 26.0 MiB";
	ri.workload_all = "";
	flt = (struct filter){ .nkept = 8, .ops_kept = 1672 };
	buf = NULL;
	f = open_memstream(&buf, &len);
	report_print(f, &ri, a);
	fclose(f);
	assert_non_null(strstr(buf, "\nworkload:    all 8 ranks: read 26.0 MiB\nmode:"));
	assert_non_null(strstr(buf, "\nfiltered:    nothing left out\n"));
	free(buf);

	/* -n alone: said, though no op was left out */
	flt = (struct filter){ .nkept = 2, .ranks_beyond = 6, .ops_kept = 418 };
	json_t *j = report_filter_json(&flt);
	json_t *want = golden("{\"ops_kept\": 418, \"ops_removed\": 0, \"rules\": [],"
			      " \"launchers\": [], \"ranks_launchers\": 0,"
			      " \"ranks_without_ops\": 0, \"ranks_not_selected\": 0,"
			      " \"ranks_beyond_processes\": 6}");
	assert_json_equal(j, want);
	json_decref(j);
	json_decref(want);
	buf = NULL;
	f = open_memstream(&buf, &len);
	report_filter_print(f, &flt, 1);
	fclose(f);
	assert_string_equal(buf, "filtered:    0 ops left out (418 replayed); 6 ranks past the 2"
				 " replayed (-n)\n");
	free(buf);
	report_agg_release(a);
	free(a);
}

/* Timing and fidelity: lags, drift and the traced vs replayed figures
 * with the errors computed (values below 64 ns are exact in the
 * histograms, so the percentiles and errors are too). */
/* The traced latency of an async op is from its submit's start to the end
 * of the wait that completed it (the submit call alone is not the
 * transfer, which the replay times); a synchronous op's is its duration. */
static void test_traced_async(void **state)
{
	(void)state;
	struct opstream s;
	strace_text_open(&s, "async",
		"1 10:00:00.000000 io_submit(0x7f, 1, [{aio_data=0, aio_lio_opcode=IOCB_CMD_PREAD, aio_fildes=6</d/f>, aio_buf=0x56, aio_nbytes=4096, aio_offset=0}]) = 1 <0.000010>\n"
		"1 10:00:00.000500 io_getevents(0x7f, 1, 1, [{data=0, obj=0x1, res=4096, res2=0}], NULL) = 1 <0.000100>\n"
		"1 10:00:00.001000 pread64(6</d/f>, \"x\", 100, 0) = 100 <0.000020>\n");
	struct plan_proc pp = { .rank = 0 };
	struct plan p = { .procs = &pp, .nprocs = 1 };
	struct traced_times *tt = calloc(1, sizeof(*tt));
	assert_non_null(tt);
	traced_times_build(tt, &p, &s, 0);
	assert_true(tt->have_dur);
	assert_int_equal(tt->lat[RC_READ].n, 2);
	assert_int_equal(tt->lat[RC_READ].min, 20000);
	assert_int_equal(tt->lat[RC_READ].max, 600000);
	assert_non_null(tt->rank_ns);
	assert_int_equal(tt->rank_ns[0], 1020000);    /* to the pread's end */
	traced_times_release(tt);
	free(tt);
	opstream_close(&s);
}

static void test_timing_fidelity(void **state)
{
	(void)state;
	size_t sz = sizeof(struct run_shared) + 2 * sizeof(struct worker_result);
	struct run_shared *sh = calloc(1, sz);
	struct report_agg *a = calloc(1, sizeof(*a));
	struct traced_times *tt = calloc(1, sizeof(*tt));
	struct run_outcome out = { .completion_ns = 3000, .io_ns = 2000, .flush_ns = 1000 };
	struct report_info ri = { .mode = "parallel", .processes = 2, .engine = "sync",
				  .depth = 1, .bind = "none", .target = "/mnt/x", .format = "strace",
				  .ranks = 2, .timing = "think", .speed = 2.0, .traced = tt };
	sh->nworkers = 2;
	for (int i = 0; i < 2; i++) {
		struct worker_result *w = &sh->w[i];
		fill_worker(w);
		memset(&w->cls, 0, sizeof(w->cls));
		for (int c = 0; c < RC__COUNT; c++)
			hist_init(&w->cls[c].lat);
		w->io_ns = i ? 1200 : 800;          /* mean replayed rank time 1000 */
		for (uint64_t v = 1; v <= 40; v++)  /* lags 1..40: p50 20, p99 40 */
			hist_add(&w->lag, v);
		w->drift_ns = 10 * (i + 1);         /* 10 and 20 ns */
		w->sched_ns = 1000;                 /* 1 % and 2 % */
		for (int k = 0; k < 10; k++)
			hist_add(&w->cls[RC_WRITE].lat, 50);   /* replayed 50 ns */
		w->cls[RC_WRITE].total_ios = 10;
	}
	for (int c = 0; c < RC__COUNT; c++)
		hist_init(&tt->lat[c]);
	for (int k = 0; k < 20; k++)
		hist_add(&tt->lat[RC_WRITE], 40);                /* traced 40 ns */
	tt->rank_ns_sum = 1600;
	tt->nprocs = 2;                               /* mean traced 800 */
	tt->have_dur = tt->have_time = true;
	report_agg_init(a);
	assert_int_equal(report_agg_add(a, sh, &out, false), 0);

	json_t *doc = report_doc_new(&ri);
	assert_non_null(doc);
	assert_int_equal(report_timing_add(doc, &ri, a), 0);
	json_t *tm = json_object_get(doc, "timing");
	assert_string_equal(json_string_value(json_object_get(tm, "mode")), "think");
	assert_true(json_real_value(json_object_get(tm, "speed")) == 2.0);
	json_t *lag = json_object_get(tm, "lag");
	assert_int_equal(json_integer_value(json_object_get(lag, "ops")), 80);
	assert_int_equal(json_integer_value(json_object_get(lag, "p50_ns")), 20);
	assert_int_equal(json_integer_value(json_object_get(lag, "p99_ns")), 40);
	assert_int_equal(json_integer_value(json_object_get(lag, "max_ns")), 40);
	json_t *dr = json_object_get(tm, "drift");
	assert_int_equal(json_integer_value(json_object_get(dr, "ns")), 30);
	assert_int_equal(json_integer_value(json_object_get(dr, "scheduled_ns")), 2000);
	assert_true(json_real_value(json_object_get(dr, "pct")) == 1.5);
	assert_true(json_real_value(json_object_get(dr, "max_pct")) == 2.0);
	json_t *fw = json_object_get(json_object_get(json_object_get(doc, "fidelity"), "by_class"),
				     "write");
	assert_int_equal(json_integer_value(json_object_get(fw, "traced_ops")), 20);
	assert_int_equal(json_integer_value(json_object_get(fw, "replayed_ops")), 20);
	assert_int_equal(json_integer_value(json_object_get(fw, "traced_p50_ns")), 40);
	assert_int_equal(json_integer_value(json_object_get(fw, "replayed_p50_ns")), 50);
	assert_true(json_real_value(json_object_get(fw, "p50_error_pct")) == 25.0);
	assert_null(json_object_get(json_object_get(json_object_get(doc, "fidelity"), "by_class"),
				    "read"));
	json_t *rt = json_object_get(json_object_get(doc, "fidelity"), "rank_time");
	assert_int_equal(json_integer_value(json_object_get(rt, "traced_ns")), 800);
	assert_int_equal(json_integer_value(json_object_get(rt, "replayed_ns")), 1000);
	assert_true(json_real_value(json_object_get(rt, "error_pct")) == 25.0);
	/* per job */
	json_t *job = report_job_json(&sh->w[1]);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(job, "lag"), "p99_ns")), 40);
	assert_int_equal(json_integer_value(json_object_get(job, "drift_ns")), 20);
	assert_true(json_real_value(json_object_get(job, "drift_pct")) == 2.0);
	json_decref(job);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	report_print(f, &ri, a);
	fclose(f);
	assert_non_null(strstr(buf, "timing:      think, speed 2: lag p50 20 ns, p99 40 ns, max 40 ns over 80 ops; drift +1.500 %"));
	if (!strstr(buf, "rank time: traced 800 ns, replayed 1.0 \xc2\xb5s (+25.0 %)"))
		fail_msg("%s", buf);
	free(buf);
	json_decref(doc);

	/* a stopped run: worker 1 did not run to its end; the replayed rank
	 * time (worker 0's 800) is compared with worker 0's own traced time
	 * (500), not with the mean over both (800): +60 %, not 0 % */
	report_agg_release(a);
	uint64_t per[2] = { 500, 1100 };
	tt->rank_ns = per;
	sh->w[1].status = W_KILLED;
	report_agg_init(a);
	a->traced = tt;
	assert_int_equal(report_agg_add(a, sh, &out, false), 0);
	doc = report_doc_new(&ri);
	assert_int_equal(report_timing_add(doc, &ri, a), 0);
	rt = json_object_get(json_object_get(doc, "fidelity"), "rank_time");
	assert_int_equal(json_integer_value(json_object_get(rt, "traced_ns")), 500);
	assert_int_equal(json_integer_value(json_object_get(rt, "replayed_ns")), 800);
	assert_true(json_real_value(json_object_get(rt, "error_pct")) == 60.0);
	json_decref(doc);
	tt->rank_ns = NULL;
	sh->w[1].status = W_DONE;

	/* afap: lag and drift explicitly null, no lag per job */
	report_agg_release(a);
	for (int i = 0; i < 2; i++)
		hist_init(&sh->w[i].lag);
	report_agg_init(a);
	assert_int_equal(report_agg_add(a, sh, &out, false), 0);
	ri.timing = "afap";
	ri.traced = NULL;
	doc = report_doc_new(&ri);
	assert_int_equal(report_timing_add(doc, &ri, a), 0);
	assert_true(json_is_null(json_object_get(json_object_get(doc, "timing"), "lag")));
	assert_true(json_is_null(json_object_get(json_object_get(doc, "timing"), "drift")));
	assert_null(json_object_get(doc, "fidelity"));
	job = report_job_json(&sh->w[0]);
	assert_null(json_object_get(job, "lag"));
	json_decref(job);
	json_decref(doc);
	report_agg_release(a);
	free(a);
	free(tt);
	free(sh);
}

/* Read a whole file (NUL-terminated) into *out; its length. */
static size_t slurp(const char *path, char **out)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 16, n = 0, k;
	char *b = malloc(cap + 1);

	assert_non_null(f);
	assert_non_null(b);
	while ((k = fread(b + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			cap *= 2;
			b = realloc(b, cap + 1);
			assert_non_null(b);
		}
	}
	fclose(f);
	b[n] = '\0';
	*out = b;
	return n;
}

/* The document of a 64-process run, written at once, is byte for byte
 * what the writer before it produced (json_dumpfd, then a newline). */
static void test_write_64_like_before(void **state)
{
	(void)state;
	const unsigned n = 64;
	size_t sz = sizeof(struct run_shared) + n * sizeof(struct worker_result);
	struct run_shared *sh = calloc(1, sz);
	struct report_info ri = { .version = "9.9", .timestamp = 1700000000, .mode = "parallel",
				  .processes = n, .ranks = 3, .ranks_used = 3, .copies = 22,
				  .reused = true, .engine = "io_uring", .depth = 8, .bind = "spread",
				  .repeats = 2, .target = "/mnt/x", .format = "strace" };
	struct run_outcome out = { .completion_ns = 3000000000ull, .io_ns = 2000000000ull,
				   .flush_ns = 1000000000ull, .drop = "dropped" };
	char path[300], old[300], *a, *b;
	struct rerr e;

	assert_non_null(sh);
	sh->nworkers = n;
	for (unsigned i = 0; i < n; i++) {
		struct worker_result *w = &sh->w[i];
		fill_worker(w);
		w->rank = (int32_t)(i % 3);
		w->copy = i / 3;
		w->pid = (int32_t)(1000 + i);
		w->io_ns += i * 7919;
		for (unsigned v = 0; v < i; v++)
			hist_add(&w->cls[RC_READ].lat, 1000 + v * v);
		w->cls[RC_READ].total_ios = i;
		w->cls[RC_READ].io_bytes = 4096ull * i;
	}
	json_t *doc = report_doc_new(&ri);
	assert_non_null(doc);
	assert_int_equal(report_add_run(doc, report_run_json(sh, &out, false)), 0);
	out.completion_ns += 12345;
	assert_int_equal(report_add_run(doc, report_run_json(sh, &out, false)), 0);
	assert_int_equal(report_finish(doc), 0);

	snprintf(path, sizeof(path), "%s/run64.json", dir);
	assert_int_equal(report_write(doc, path, &e), 0);
	snprintf(old, sizeof(old), "%s/run64-before.json", dir);
	FILE *f = fopen(old, "w");
	assert_non_null(f);
	assert_int_equal(json_dumpfd(doc, fileno(f), JSON_INDENT(2) | JSON_REAL_PRECISION(17)), 0);
	assert_int_equal(write(fileno(f), "\n", 1), 1);
	fclose(f);

	size_t la = slurp(path, &a), lb = slurp(old, &b);
	assert_true(la > 64 * 1000);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	json_error_t jerr;
	json_t *back = json_loads(a, 0, &jerr);
	assert_non_null(back);
	assert_true(json_equal(back, doc));
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(back, "runs"), 1),
							 "jobs")), n);
	json_decref(back);
	free(a);
	free(b);
	unlink(path);
	unlink(old);
	json_decref(doc);
	free(sh);
}

/* A document of one run of the workers in sh, finished (report_finish). */
static json_t *finished_doc(const struct report_info *ri, const struct run_shared *sh,
			    const struct run_outcome *out, bool sequential)
{
	json_t *doc = report_doc_new(ri);

	assert_non_null(doc);
	assert_int_equal(report_add_run(doc, report_run_json(sh, out, sequential)), 0);
	assert_int_equal(report_finish(doc), 0);
	return doc;
}

/* fio's timestamp, timestamp_ms and time (and replay's time_utc) are one
 * instant, when the results are complete, not the start (ri.timestamp,
 * kept as start_utc): fio reads its clock once for the three. */
static void test_fio_time_one_instant(void **state)
{
	(void)state;
	size_t sz = sizeof(struct run_shared) + sizeof(struct worker_result);
	struct run_shared *sh = calloc(1, sz);
	struct report_info ri = { .version = "9.9", .timestamp = 1700000000, .mode = "parallel",
				  .processes = 1, .engine = "sync", .depth = 1, .bind = "none",
				  .repeats = 1, .target = "/mnt/x", .format = "strace" };
	struct run_outcome out = { .completion_ns = 3000, .io_ns = 2000, .drop = "dropped" };
	time_t before = time(NULL);

	assert_non_null(sh);
	sh->nworkers = 1;
	fill_worker(&sh->w[0]);
	json_t *doc = finished_doc(&ri, sh, &out, false);
	time_t after = time(NULL);
	json_int_t ts = json_integer_value(json_object_get(doc, "timestamp"));
	json_int_t ms = json_integer_value(json_object_get(doc, "timestamp_ms"));
	assert_true(ts >= before && ts <= after);
	assert_int_equal(ms / 1000, ts);
	/* fio's ctime(3) form, in the local time zone: as ctime_r writes it */
	char ct[64], iso[32];
	time_t t = (time_t)ts;
	struct tm tm;
	assert_non_null(ctime_r(&t, ct));
	ct[strcspn(ct, "\n")] = 0;
	assert_string_equal(json_string_value(json_object_get(doc, "time")), ct);
	assert_non_null(gmtime_r(&t, &tm));
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	assert_string_equal(json_string_value(json_object_get(doc, "time_utc")), iso);
	assert_string_equal(json_string_value(json_object_get(doc, "start_utc")), "2023-11-14T22:13:20Z");
	json_decref(doc);
	free(sh);
}

/* Index of key in o's order, -1 when absent. */
static int key_pos(json_t *o, const char *key)
{
	const char *k;
	json_t *v;
	int i = 0;

	json_object_foreach(o, k, v) {
		if (!strcmp(k, key))
			return i;
		i++;
	}
	return -1;
}

/* Every fio job has fio's eta and elapsed after error, and after
 * latency_ms the latency target keys of a job without a target;
 * elapsed is whole seconds rounded up as fio's (ms + 999) / 1000: the
 * makespan in parallel mode, each process's completion in sequential. */
static void test_fio_elapsed_latency_target(void **state)
{
	(void)state;
	size_t sz = sizeof(struct run_shared) + 2 * sizeof(struct worker_result);
	struct run_shared *sh = calloc(1, sz);
	struct report_info ri = { .version = "9.9", .timestamp = 1700000000, .mode = "parallel",
				  .processes = 2, .engine = "io_uring", .depth = 8, .bind = "none",
				  .repeats = 1, .target = "/mnt/x", .format = "strace" };
	struct run_outcome out = { .completion_ns = 2000999999ull, .io_ns = 2000000000ull,
				   .drop = "dropped" };
	json_t *doc, *j;
	size_t i;

	assert_non_null(sh);
	sh->nworkers = 2;
	fill_worker(&sh->w[0]);
	fill_worker(&sh->w[1]);
	sh->w[0].completion_ns = 22000000ull;         /* 22 ms: 1 s, as fio says */
	sh->w[1].completion_ns = 4001000000ull;       /* 4001 ms: 5 s */

	/* parallel: the makespan, 2000 ms (fio's ms are whole): 2 s in both */
	doc = finished_doc(&ri, sh, &out, false);
	assert_int_equal(json_array_size(json_object_get(doc, "jobs")), 2);
	json_array_foreach(json_object_get(doc, "jobs"), i, j) {
		assert_int_equal(json_integer_value(json_object_get(j, "eta")), 0);
		assert_true(json_is_integer(json_object_get(j, "eta")));
		assert_int_equal(json_integer_value(json_object_get(j, "elapsed")), 2);
		assert_int_equal(json_integer_value(json_object_get(j, "latency_depth")), 8);
		assert_true(json_is_integer(json_object_get(j, "latency_target")));
		assert_int_equal(json_integer_value(json_object_get(j, "latency_target")), 0);
		assert_true(json_is_real(json_object_get(j, "latency_percentile")));
		assert_true(json_real_value(json_object_get(j, "latency_percentile")) == 100.0);
		assert_true(json_is_integer(json_object_get(j, "latency_window")));
		assert_int_equal(json_integer_value(json_object_get(j, "latency_window")), 0);
		/* fio's places: eta, elapsed right after error; the four last,
		 * after latency_ms */
		int e = key_pos(j, "error"), n = (int)json_object_size(j);
		assert_int_equal(key_pos(j, "eta"), e + 1);
		assert_int_equal(key_pos(j, "elapsed"), e + 2);
		assert_int_equal(key_pos(j, "latency_ms"), n - 5);
		assert_int_equal(key_pos(j, "latency_depth"), n - 4);
		assert_int_equal(key_pos(j, "latency_target"), n - 3);
		assert_int_equal(key_pos(j, "latency_percentile"), n - 2);
		assert_int_equal(key_pos(j, "latency_window"), n - 1);
	}
	json_decref(doc);

	/* sequential: each process's own completion */
	ri.mode = "sequential";
	ri.depth = 1;
	out.completion_ns = 4001000000ull;
	doc = finished_doc(&ri, sh, &out, true);
	j = json_object_get(doc, "jobs");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 0), "elapsed")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 1), "elapsed")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 1), "latency_depth")), 1);
	json_decref(doc);

	/* no time at all: 0 s */
	sh->w[0].completion_ns = 0;
	doc = finished_doc(&ri, sh, &out, true);
	j = json_object_get(doc, "jobs");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 0), "elapsed")), 0);
	json_decref(doc);
	free(sh);
}

static const char *global_direct(json_t *doc)
{
	return json_string_value(json_object_get(json_object_get(doc, "global options"), "direct"));
}

/* fio's global direct is "1" when all of the run's reads and writes
 * bypassed the page cache: with --direct, or when no data op went
 * through it (the trace's own O_DIRECT opens); options.direct stays the
 * --direct flag. */
static void test_fio_global_direct(void **state)
{
	(void)state;
	size_t sz = sizeof(struct run_shared) + 2 * sizeof(struct worker_result);
	struct run_shared *sh = calloc(1, sz);
	struct report_info ri = { .version = "9.9", .timestamp = 1700000000, .mode = "parallel",
				  .processes = 2, .engine = "sync", .depth = 1, .bind = "none",
				  .repeats = 1, .target = "/mnt/x", .format = "strace" };
	struct run_outcome out = { .completion_ns = 3000, .io_ns = 2000, .drop = "dropped" };
	json_t *doc;

	assert_non_null(sh);
	sh->nworkers = 2;
	fill_worker(&sh->w[0]);
	fill_worker(&sh->w[1]);
	sh->w[1].cls[RC_READ].total_ios = 3;

	/* buffered writes, no --direct */
	doc = finished_doc(&ri, sh, &out, false);
	assert_string_equal(global_direct(doc), "0");
	json_decref(doc);

	/* every data op on an O_DIRECT descriptor (the trace's) */
	sh->w[0].buffered_ops = sh->w[1].buffered_ops = 0;
	doc = finished_doc(&ri, sh, &out, false);
	assert_string_equal(global_direct(doc), "1");
	assert_true(json_is_false(json_object_get(json_object_get(doc, "options"), "direct")));
	json_decref(doc);

	/* one buffered op in one process (a program's stderr): not direct */
	sh->w[1].buffered_ops = 1;
	doc = finished_doc(&ri, sh, &out, false);
	assert_string_equal(global_direct(doc), "0");
	json_decref(doc);

	/* --direct: direct, whatever the count says */
	ri.direct = true;
	doc = finished_doc(&ri, sh, &out, false);
	assert_string_equal(global_direct(doc), "1");
	assert_true(json_is_true(json_object_get(json_object_get(doc, "options"), "direct")));
	json_decref(doc);

	/* no read or write at all: not direct (nothing says it was) */
	ri.direct = false;
	for (int k = 0; k < 2; k++) {
		sh->w[k].buffered_ops = 0;
		sh->w[k].cls[RC_READ].total_ios = sh->w[k].cls[RC_WRITE].total_ios = 0;
	}
	doc = finished_doc(&ri, sh, &out, false);
	assert_string_equal(global_direct(doc), "0");
	json_decref(doc);
	free(sh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_golden),
		cmocka_unit_test(test_run_and_summary),
		cmocka_unit_test(test_series_cut_short),
		cmocka_unit_test(test_agg_drift_done_only),
		cmocka_unit_test(test_errno_name),
		cmocka_unit_test(test_agg_percentiles_merge_bins),
		cmocka_unit_test(test_agg_and_print),
		cmocka_unit_test(test_selection_print),
		cmocka_unit_test(test_traced_async),
		cmocka_unit_test(test_timing_fidelity),
		cmocka_unit_test(test_write_64_like_before),
		cmocka_unit_test(test_fio_time_one_instant),
		cmocka_unit_test(test_fio_elapsed_latency_target),
		cmocka_unit_test(test_fio_global_direct),
	};
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
