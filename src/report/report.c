/*
 * report.c - human summary and fio-like JSON of `replay run` (report.h).
 *
 * Names and units follow fio's --output-format=json where a field has a
 * fio counterpart ("io_bytes", "bw_bytes", "iops", "total_ios",
 * "lat_ns"{"percentile"{"99.000000": ...}}), so fio tooling can read the
 * per-class objects; what fio has no word for gets a plain name.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "run/hist.h"
#include "report/jsontext.h"
#include "report/report.h"
#include "plan/filter.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void report_stats(const uint64_t *v, size_t n, struct rstats *s)
{
	uint64_t *tmp;
	double sum = 0, sq = 0;

	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	s->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += ((double)v[i] - s->mean) * ((double)v[i] - s->mean);
	s->stddev = sqrt(sq / (double)n);
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp) {
		s->median = s->mean;
		s->min = s->max = (double)v[0];
		for (size_t i = 1; i < n; i++) {
			if ((double)v[i] < s->min)
				s->min = (double)v[i];
			if ((double)v[i] > s->max)
				s->max = (double)v[i];
		}
		return;
	}
	memcpy(tmp, v, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), cmp_u64);
	s->min = (double)tmp[0];
	s->max = (double)tmp[n - 1];
	s->median = n % 2 ? (double)tmp[n / 2] : ((double)tmp[n / 2 - 1] + (double)tmp[n / 2]) / 2.0;
	free(tmp);
}

const char *report_errno_name(int err, char *buf, size_t len)
{
	const char *n = err > 0 ? strerrorname_np(err) : NULL;

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "%d", err);
	return buf;
}

/* ---- aggregate for the summary --------------------------------------- */

void report_agg_init(struct report_agg *a)
{
	memset(a, 0, sizeof(*a));
	for (int c = 0; c < RC__COUNT; c++)
		hist_init(&a->cls[c].lat);
	hist_init(&a->lag);
}

void report_agg_release(struct report_agg *a)
{
	free(a->completion);
	free(a->io);
	free(a->flush);
	free(a->incomplete);
	free(a->rank_completion);
	a->completion = a->io = a->flush = a->rank_completion = NULL;
	a->incomplete = NULL;
}

static void add_cls(struct class_stats *d, const struct class_stats *s)
{
	d->total_ios += s->total_ios;
	d->io_bytes += s->io_bytes;
	d->done_bytes += s->done_bytes;
	d->errors += s->errors;
	d->short_ios += s->short_ios;
	hist_merge(&d->lat, &s->lat);
}

int report_agg_add(struct report_agg *a, const struct run_shared *sh,
		   const struct run_outcome *out, bool sequential)
{
	size_t n = a->nruns + 1;
	uint64_t *c = realloc(a->completion, n * sizeof(*c));

	if (!c)
		return -ENOMEM;
	a->completion = c;
	c = realloc(a->io, n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	a->io = c;
	c = realloc(a->flush, n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	a->flush = c;
	bool *b = realloc(a->incomplete, n * sizeof(*b));
	if (!b)
		return -ENOMEM;
	a->incomplete = b;
	a->completion[a->nruns] = out->completion_ns;
	a->io[a->nruns] = out->io_ns;
	a->flush[a->nruns] = out->flush_ns;
	a->incomplete[a->nruns] = out->incomplete;
	a->nruns = n;

	if (sequential) {
		uint64_t *rc = realloc(a->rank_completion, sh->nworkers * sizeof(*rc));

		if (!rc)
			return -ENOMEM;
		a->rank_completion = rc;
		a->nrank = sh->nworkers;
	}
	for (uint32_t i = 0; i < sh->nworkers; i++) {
		const struct worker_result *w = &sh->w[i];

		for (int k = 0; k < RC__COUNT; k++) {
			add_cls(&a->cls[k], &w->cls[k]);
			/* parallel: the classes share the run's I/O time; sequential:
			 * the ranks' I/O times add up */
			if (sequential)
				a->time_ns[k] += w->io_ns;
		}
		a->skipped_failed += w->skipped_failed;
		a->skipped_nohandle += w->skipped_nohandle;
		a->open_failed_ops += w->open_failed_ops;
		a->open_failed_bytes += w->open_failed_bytes;
		a->alone_short += w->alone_short;
		a->alone_short_bytes += w->alone_short_bytes;
		a->tmpfile_named += w->tmpfile_named;
		a->skipped_mmap += w->skipped_mmap;
		a->seeks += w->seeks;
		a->barriers += w->barriers;
		a->filtered += w->filtered;
		a->dep_waits += w->dep_waits;
		a->dep_wait_ns += w->dep_wait_ns;
		a->barrier_waits += w->barrier_waits;
		a->barrier_wait_ns += w->barrier_wait_ns;
		for (int k = 0; k < MM_KINDS; k++)
			a->mismatch[k] += w->mismatch[k];
		for (uint32_t k = 0; k < w->nmm_ex && a->nmm_ex < MM_EXAMPLES; k++) {
			snprintf(a->mm_rank[a->nmm_ex], sizeof(a->mm_rank[0]), "rank %d (%s)",
				 w->rank, w->rank_name);
			/* of several trace files, the rank's ("" not known) */
			if (a->mm_src || !a->s || w->rank < 0 ||
			    !opstream_rank_source(a->s, (uint32_t)w->rank, a->mm_file[a->nmm_ex],
						  sizeof(a->mm_file[0])))
				a->mm_file[a->nmm_ex][0] = '\0';
			a->mm_ex[a->nmm_ex++] = w->mm_ex[k];
		}
		a->rounded_ops += w->rounded_ops;
		a->rounded_extra_bytes += w->rounded_extra_bytes;
		for (int k = 0; k < RES_MAX_ERRNO; k++)
			a->errno_counts[k] += w->errno_counts[k];
		if (sequential)
			a->rank_completion[i] = w->completion_ns;
		hist_merge(&a->lag, &w->lag);
		/* drift over the ranks that ran to their end: a stopped one's
		 * span is cut short (a worker that saw the stop flag wrote it,
		 * one the signal ended did not: the summary said either) */
		if (w->lag.n && w->status == W_DONE) {
			double pct = report_drift_pct(w->drift_ns, w->sched_ns);
			a->drift_sum += w->drift_ns;
			a->sched_sum += w->sched_ns;
			if (pct > a->drift_max_pct)
				a->drift_max_pct = pct;
		}
		if (w->status == W_DONE) {
			a->rank_io_sum += w->io_ns;
			a->nrank_io++;
			if (a->traced && a->traced->rank_ns && i < a->traced->nprocs)
				a->traced_done_sum += a->traced->rank_ns[i];
		}
	}
	if (!sequential)
		for (int k = 0; k < RC__COUNT; k++)
			a->time_ns[k] += out->io_ns;
	return 0;
}

/* ---- JSON ------------------------------------------------------------ */

/* report_set() and report_u64() (report.h), by short names */
#define set_new report_set
#define u64j report_u64

json_t *report_lat_json(const struct hist *h, int pct, bool bins)
{
	json_t *o = json_object();
	int bad = 0;
	bad |= report_set(o, "min", report_u64(h->n ? h->min : 0));
	bad |= report_set(o, "max", report_u64(h->max));
	bad |= report_set(o, "mean", json_real(h->n ? hist_mean(h) : 0.0));
	bad |= report_set(o, "stddev", json_real(h->n ? hist_stddev(h) : 0.0));
	bad |= report_set(o, "N", report_u64(h->n));
	if (pct == LAT_PCT_ALWAYS || (pct == LAT_PCT_IF_ANY && h->n)) {
		static char keys[HIST_NPCT][16];      /* fio's "99.900000" */
		uint64_t v[HIST_NPCT];
		json_t *p = json_object();
		hist_percentiles(h, hist_pcts, HIST_NPCT, v);
		for (int i = 0; i < HIST_NPCT; i++) {
			if (!keys[i][0])
				snprintf(keys[i], sizeof(keys[i]), "%f", hist_pcts[i]);
			bad |= report_set(p, keys[i], report_u64(v[i]));
		}
		bad |= report_set(o, "percentile", p);
	}
	if (bins && h->n) {
		json_t *b = json_object();
		for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
			char key[32];
			if (!h->b[i])
				continue;
			snprintf(key, sizeof(key), "%" PRIu64, hist_bucket_mid(i));
			bad |= report_set(b, key, report_u64(h->b[i]));
		}
		bad |= report_set(o, "bins", b);
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *report_class_json(const struct class_stats *cs, uint64_t runtime_ns, bool bins)
{
	json_t *o = json_object();
	double secs = (double)runtime_ns / 1e9;
	int bad = 0;

	bad |= set_new(o, "io_bytes", u64j(cs->io_bytes));
	bad |= set_new(o, "done_bytes", u64j(cs->done_bytes));
	bad |= set_new(o, "bw_bytes", u64j(secs > 0 ? (uint64_t)((double)cs->io_bytes / secs) : 0));
	bad |= set_new(o, "iops", json_real(secs > 0 ? (double)cs->total_ios / secs : 0.0));
	bad |= set_new(o, "runtime_ns", u64j(runtime_ns));
	bad |= set_new(o, "total_ios", u64j(cs->total_ios));
	bad |= set_new(o, "short_ios", u64j(cs->short_ios));
	bad |= set_new(o, "errors", u64j(cs->errors));
	bad |= set_new(o, "lat_ns", report_lat_json(&cs->lat, LAT_PCT_ALWAYS, bins));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static const char *status_name(uint32_t st)
{
	switch (st) {
	case W_PENDING: return "not run";
	case W_RUNNING: return "running";
	case W_DONE:    return "done";
	case W_FAILED:  return "failed";
	case W_KILLED:  return "killed";
	default:        return "?";
	}
}

/* {"total", "by_kind": {"read": n}, "examples": [{"op", "line", "kind",
 * "errno" | "bytes", "traced_bytes"}]} */
static json_t *mismatch_json(const struct worker_result *w)
{
	json_t *o = json_object(), *k = json_object(), *ex = json_array();
	uint64_t total = 0;
	char name[32];
	for (int i = 0; i < MM_KINDS; i++)
		if (w->mismatch[i]) {
			total += w->mismatch[i];
			json_object_set_new(k, op_kind_name((enum op_kind)i), u64j(w->mismatch[i]));
		}
	for (uint32_t i = 0; i < w->nmm_ex; i++) {
		const struct mm_example *m = &w->mm_ex[i];
		json_t *e = json_pack("{s:I,s:I,s:s}", "op", (json_int_t)m->op, "line",
				      (json_int_t)m->line, "kind", op_kind_name((enum op_kind)m->kind));
		if (m->kind == OP_FALLOCATE) {
			char mb[200];
			json_object_set_new(e, "mode", json_string(op_falloc_mode_str(m->mode, mb,
										      sizeof(mb))));
		}
		if (m->err)
			json_object_set_new(e, "errno", json_string(report_errno_name(m->err, name,
										      sizeof(name))));
		else if (m->kind != OP_FALLOCATE) {
			json_object_set_new(e, "bytes", json_integer(m->got));
			json_object_set_new(e, "traced_bytes", json_integer(m->want));
		}
		json_array_append_new(ex, e);
	}
	json_object_set_new(o, "total", u64j(total));
	json_object_set_new(o, "by_kind", k);
	json_object_set_new(o, "examples", ex);
	return o;
}

json_t *report_job_json(const struct worker_result *w)
{
	json_t *o = json_object(), *errs = json_object(), *sk = json_object();
	json_t *tl = json_object(), *arr = json_array();
	int bad = 0;

	bad |= set_new(o, "rank", json_integer(w->rank));
	bad |= set_new(o, "rank_name", json_text_str(w->rank_name));
	bad |= set_new(o, "pid", json_integer(w->pid));
	bad |= set_new(o, "copy", json_integer(w->copy));
	bad |= set_new(o, "status", json_string(status_name(w->status)));
	if (w->fail_msg[0])
		bad |= set_new(o, "error", json_text_str(w->fail_msg));
	bad |= set_new(o, "cpuset", json_string(w->cpuset));
	bad |= set_new(o, "numa_node", json_integer(w->numa_node));
	bad |= set_new(o, "completion_ns", u64j(w->completion_ns));
	bad |= set_new(o, "io_ns", u64j(w->io_ns));
	bad |= set_new(o, "flush_ns", u64j(w->flush_ns));
	bad |= set_new(o, "ops", u64j(w->ops_total));
	bad |= set_new(o, "ops_done", u64j(w->ops_done));
	bad |= set_new(o, "max_inflight", u64j(w->max_inflight));
	bad |= set_new(o, "short_ios", u64j(w->eng_short_ios));
	bad |= set_new(o, "eagain", u64j(w->eng_eagain));
	bad |= set_new(o, "sync_fallback", u64j(w->eng_sync_fallback));
	bad |= set_new(o, "rounded_ops", u64j(w->rounded_ops));
	bad |= set_new(o, "rounded_extra_bytes", u64j(w->rounded_extra_bytes));
	bad |= set_new(o, "tmpfile_named", u64j(w->tmpfile_named));
	bad |= set_new(o, "alone_short_reads", u64j(w->alone_short));
	bad |= set_new(o, "alone_short_bytes", u64j(w->alone_short_bytes));
	bad |= set_new(o, "buffered_ops", u64j(w->buffered_ops));
	for (int k = 1; k < RES_MAX_ERRNO; k++) {
		char name[32];

		if (w->errno_counts[k])
			bad |= set_new(errs, report_errno_name(k, name, sizeof(name)),
				       u64j(w->errno_counts[k]));
	}
	bad |= set_new(o, "errors", errs);
	bad |= set_new(sk, "traced_failures", u64j(w->skipped_failed));
	bad |= set_new(sk, "no_handle", u64j(w->skipped_nohandle));
	bad |= set_new(sk, "open_failed", u64j(w->open_failed_ops));
	bad |= set_new(sk, "open_failed_bytes", u64j(w->open_failed_bytes));
	bad |= set_new(sk, "mmap", u64j(w->skipped_mmap));
	bad |= set_new(sk, "seeks", u64j(w->seeks));
	bad |= set_new(sk, "barriers", u64j(w->barriers));
	bad |= set_new(sk, "filtered", u64j(w->filtered));
	bad |= set_new(o, "not_issued", sk);
	bad |= set_new(o, "dep_waits", u64j(w->dep_waits));
	bad |= set_new(o, "dep_wait_ns", u64j(w->dep_wait_ns));
	bad |= set_new(o, "barrier_waits", u64j(w->barrier_waits));
	bad |= set_new(o, "barrier_wait_ns", u64j(w->barrier_wait_ns));
	bad |= set_new(o, "mismatches", mismatch_json(w));
	if (w->lag.n) {
		json_t *lg = json_object();
		bad |= set_new(lg, "ops", u64j(w->lag.n));
		bad |= set_new(lg, "p50_ns", u64j(hist_percentile(&w->lag, 50)));
		bad |= set_new(lg, "p99_ns", u64j(hist_percentile(&w->lag, 99)));
		bad |= set_new(lg, "max_ns", u64j(w->lag.max));
		bad |= set_new(o, "lag", lg);
		bad |= set_new(o, "drift_ns", json_integer(w->drift_ns));
		bad |= set_new(o, "scheduled_ns", u64j(w->sched_ns));
		bad |= set_new(o, "drift_pct", json_real(report_drift_pct(w->drift_ns, w->sched_ns)));
	}
	for (int c = 0; c < RC__COUNT; c++)
		bad |= set_new(o, rclass_name(c), report_class_json(&w->cls[c], w->io_ns,
							       report_fio_bins()));
	for (uint32_t i = 0; i < w->nsamples && i < RES_TIMELINE; i++)
		bad |= json_array_append_new(arr, u64j(w->sample_bytes[i]));
	bad |= set_new(tl, "interval_ns", u64j(w->sample_interval_ns));
	bad |= set_new(tl, "bytes", arr);
	bad |= set_new(o, "timeline", tl);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *report_run_json(const struct run_shared *sh, const struct run_outcome *out, bool sequential)
{
	json_t *o = json_object(), *jobs = json_array();
	int bad = 0;

	bad |= set_new(o, "completion_ns", u64j(out->completion_ns));
	bad |= set_new(o, "io_ns", u64j(out->io_ns));
	bad |= set_new(o, "flush_ns", u64j(out->flush_ns));
	bad |= set_new(o, "incomplete", json_boolean(out->incomplete));
	bad |= set_new(o, "failed", json_boolean(out->failed));
	if (out->stop_signal)
		bad |= set_new(o, "stop_signal", json_integer(out->stop_signal));
	bad |= set_new(o, "drop_caches", json_string(out->drop ? out->drop : ""));
	bad |= set_new(o, "headline", json_string(sequential ? "longest rank" : "makespan"));
	for (uint32_t i = 0; i < sh->nworkers; i++)
		bad |= json_array_append_new(jobs, report_job_json(&sh->w[i]));
	bad |= set_new(o, "jobs", jobs);
	bad |= set_new(o, "fio_jobs", report_fio_jobs(sh, out, sequential));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* t in ISO 8601 UTC ("" if it cannot be converted) */
static json_t *iso_utc(time_t t)
{
	char tbuf[64] = "";
	struct tm tm;

	if (gmtime_r(&t, &tm))
		strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(tbuf);
}

int report_set_time(json_t *doc, time_t t)
{
	char tbuf[64] = "";
	struct tm tm;
	int bad = 0;

	bad |= set_new(doc, "timestamp", json_integer((json_int_t)t));
	/* "time" as fio writes it (ctime(3): local time, no newline), so
	 * fio's scripts parse it; "time_utc" in ISO 8601 */
	if (localtime_r(&t, &tm))
		strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", &tm);
	bad |= set_new(doc, "time", json_string(tbuf));
	bad |= set_new(doc, "time_utc", iso_utc(t));
	return bad;
}

json_t *report_doc_new(const struct report_info *ri)
{
	json_t *doc = json_object(), *host = json_object(), *tg = json_object();
	json_t *opt = json_object(), *tr = json_array(), *runs = json_array();
	char hn[256] = "";
	struct utsname u;
	int bad = 0;

	bad |= set_new(doc, "replay version", json_string(ri->version ? ri->version : ""));
	/* the start, until report_finish() sets the instant the results are
	 * complete (fio's); "start_utc" keeps the start */
	bad |= report_set_time(doc, ri->timestamp);
	bad |= set_new(doc, "start_utc", iso_utc(ri->timestamp));

	gethostname(hn, sizeof(hn) - 1);
	bad |= set_new(host, "hostname", json_text_str(hn));
	bad |= set_new(host, "kernel", json_text_str(uname(&u) == 0 ? u.release : ""));
	bad |= set_new(host, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	if (ri->topo) {
		json_t *t = json_object();

		bad |= set_new(t, "packages", json_integer(ri->topo->packages));
		bad |= set_new(t, "numa_nodes", json_integer(ri->topo->numa_nodes));
		bad |= set_new(t, "cores", json_integer(ri->topo->cores));
		bad |= set_new(t, "pus", json_integer(ri->topo->pus));
		bad |= set_new(host, "topology", t);
	}
	bad |= set_new(doc, "host", host);

	bad |= set_new(tg, "dir", json_text_str(ri->target ? ri->target : ""));
	if (ri->ti) {
		bad |= set_new(tg, "fstype", json_text_str(ri->ti->fstype));
		bad |= set_new(tg, "device", json_text_str(ri->ti->device));
		bad |= set_new(tg, "rotational", json_integer(ri->ti->rotational));
		bad |= set_new(tg, "scheduler", json_text_str(ri->ti->scheduler));
		bad |= set_new(tg, "logical_block", json_integer(ri->ti->logical_block));
		bad |= set_new(tg, "hw_queues", ri->ti->hw_queues >= 0 ? json_integer(ri->ti->hw_queues)
									 : json_null());
		bad |= set_new(tg, "resolve", json_text_str(ri->ti->resolve));
	}
	bad |= set_new(doc, "target", tg);

	bad |= set_new(doc, "filtered", report_filter_json(ri->filter));
	bad |= set_new(opt, "order", json_string(ri->order ? ri->order : ""));
	bad |= set_new(opt, "dependencies", u64j(ri->dependencies));
	bad |= set_new(opt, "barriers", json_boolean(ri->barriers));
	bad |= set_new(opt, "on_mismatch", json_string(ri->on_mismatch ? ri->on_mismatch : ""));
	bad |= set_new(opt, "trace_incomplete", ri->trace_incomplete ? json_string(ri->trace_incomplete)
								     : json_false());
	bad |= set_new(opt, "trace_cut_lines", u64j(ri->trace_cut_lines));
	bad |= set_new(opt, "trace_no_common_clock",
		       ri->trace_no_clock ? json_string(ri->trace_no_clock) : json_false());
	bad |= set_new(opt, "mode", json_string(ri->mode ? ri->mode : ""));
	bad |= set_new(opt, "processes", json_integer(ri->processes));
	bad |= set_new(opt, "ranks", json_integer(ri->ranks));
	bad |= set_new(opt, "ranks_used", json_integer(ri->ranks_used));
	bad |= set_new(opt, "copies", json_integer(ri->copies));
	bad |= set_new(opt, "rank_reuse", json_boolean(ri->reused));
	bad |= set_new(opt, "engine", json_string(ri->engine ? ri->engine : ""));
	bad |= set_new(opt, "depth", json_integer(ri->depth));
	bad |= set_new(opt, "direct", json_boolean(ri->direct));
	bad |= set_new(opt, "overlap", json_boolean(ri->overlap));
	bad |= set_new(opt, "bind", json_string(ri->bind ? ri->bind : ""));
	bad |= set_new(opt, "repeats", json_integer(ri->repeats));
	for (size_t i = 0; i < ri->ntraces; i++)
		bad |= json_array_append_new(tr, json_text_str(ri->traces[i]));
	bad |= set_new(opt, "trace", tr);
	bad |= set_new(opt, "format", json_string(ri->format ? ri->format : ""));
	bad |= set_new(opt, "drop_caches", json_boolean(ri->drop_caches));
	bad |= set_new(opt, "timing", json_string(ri->timing ? ri->timing : "afap"));
	bad |= set_new(opt, "speed", json_real(ri->speed > 0 ? ri->speed : 1.0));
	bad |= set_new(opt, "clock", json_string(ri->clock ? ri->clock : "monotonic"));
	bad |= set_new(doc, "options", opt);
	bad |= set_new(doc, "runs", runs);
	if (bad) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int report_add_run(json_t *doc, json_t *run)
{
	json_t *runs = json_object_get(doc, "runs");

	if (!run)
		return -ENOMEM;
	if (!runs || json_array_append_new(runs, run))
		return -ENOMEM;
	return 0;
}

int report_finish(json_t *doc)
{
	json_t *runs = json_object_get(doc, "runs"), *sum = json_object(), *c = json_object();
	size_t n = json_array_size(runs), k = 0, i;
	uint64_t *v = calloc(n ? n : 1, sizeof(*v));
	json_t *run;
	struct rstats st;
	bool incomplete = false;
	int bad = 0;

	if (!sum || !c || !v) {
		json_decref(sum);
		json_decref(c);
		free(v);
		return -ENOMEM;
	}
	/* the statistics are over the complete runs */
	json_array_foreach(runs, i, run) {
		if (json_is_true(json_object_get(run, "incomplete"))) {
			incomplete = true;
			continue;
		}
		v[k++] = (uint64_t)json_integer_value(json_object_get(run, "completion_ns"));
	}
	/* a series cut short (interrupted between runs, or a run that could
	 * not start) is incomplete even when every run it did was complete */
	if ((json_int_t)n < json_integer_value(json_object_get(json_object_get(doc, "options"),
									 "repeats")))
		incomplete = true;
	report_stats(v, k, &st);
	free(v);
	/* no complete run: no statistics (null, as compare's JSON has them),
	 * never a completion time of 0 */
	bad |= set_new(c, "min", k ? json_real(st.min) : json_null());
	bad |= set_new(c, "median", k ? json_real(st.median) : json_null());
	bad |= set_new(c, "max", k ? json_real(st.max) : json_null());
	bad |= set_new(c, "mean", k ? json_real(st.mean) : json_null());
	bad |= set_new(c, "stddev", k ? json_real(st.stddev) : json_null());
	bad |= set_new(sum, "completion_ns", c);
	bad |= set_new(sum, "runs", json_integer((json_int_t)n));
	bad |= set_new(sum, "complete_runs", json_integer((json_int_t)k));
	bad |= set_new(doc, "summary", sum);
	bad |= set_new(doc, "incomplete", json_boolean(incomplete));
	if (bad || report_fio_finish(doc) < 0)
		return -ENOMEM;
	return 0;
}

/* All of buf into fd, in as few write() calls as the kernel allows. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The document as text, the final newline included: built in memory
 * (json_text: json_dumps' bytes, faster) and written at once (jansson's
 * json_dumpfd makes a write() per token: two million of them for 1024
 * processes). */
int report_write(json_t *doc, const char *path, struct rerr *e)
{
	size_t len = strlen(path), tlen;
	char *tmp = malloc(len + 16), *text = NULL;
	int fd = -1, ret = 0;
	bool made = false;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len + 16, "%s.tmpXXXXXX", path);
	text = json_text(doc, &tlen);
	if (!text) {
		ret = rerr_set(e, -ENOMEM, "cannot write '%s': out of memory", path);
		goto out;
	}
	text[tlen] = '\n';             /* over the NUL: written by length */
	struct stat st;
	if (!lstat(path, &st) && !S_ISREG(st.st_mode)) {
		/* a device, FIFO or socket (/dev/null), or a link (/dev/stdout):
		 * written in place, never renamed over */
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0) {
			ret = rerr_set(e, -errno, "cannot open '%s': %s", path, strerror(errno));
			goto out;
		}
		ret = write_all(fd, text, tlen + 1);
		int cl = close(fd);
		fd = -1;
		if (ret < 0)
			ret = rerr_set(e, ret, "cannot write '%s': %s", path, strerror(-ret));
		else if (cl < 0)
			ret = rerr_set(e, -errno, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = rerr_set(e, -errno, "cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	made = true;
	ret = write_all(fd, text, tlen + 1);
	if (ret < 0) {
		ret = rerr_set(e, ret, "cannot write '%s': %s", tmp, strerror(-ret));
		goto out;
	}
	if (fchmod(fd, 0644) < 0 || fsync(fd) < 0) {
		ret = rerr_set(e, -errno, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		ret = rerr_set(e, -errno, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		ret = rerr_set(e, -errno, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		goto out;
	}
out:
	if (fd >= 0)
		close(fd);
	if (ret && made)
		unlink(tmp);
	free(text);
	free(tmp);
	return ret;
}

/* ---- human summary --------------------------------------------------- */

static void print_setup(FILE *f, const struct report_info *ri, bool seq)
{
	fprintf(f, "trace:       ");
	for (size_t i = 0; i < ri->ntraces; i++)
		fprintf(f, "%s%s", i ? " " : "", ri->traces[i]);
	fprintf(f, " (%s, %u rank%s)\n", ri->format ? ri->format : "?", ri->ranks,
		ri->ranks == 1 ? "" : "s");
	if (ri->trace_incomplete)       /* said on stderr too; the log keeps this */
		fprintf(f, "             incomplete (%s: Darshan's DXT buffer filled up): later"
			" operations were not recorded, and are not replayed\n", ri->trace_incomplete);
	if (ri->trace_cut_lines)        /* said on stderr too */
		fprintf(f, "             cut mid-line at %s%s (%s killed?): the cut line was"
			" dropped, the lines before it replayed\n",
			ri->trace_cut_line ? ri->trace_cut_line : "?",
			ri->trace_cut_lines > 1 ? " and more" : "",
			ri->format && !strncmp(ri->format, "fio", 3) ? "fio" : "strace");
	if (ri->trace_no_clock)         /* said on stderr too */
		fprintf(f, "             no common clock between its processes (%s): ordered"
			" as the files were read\n", ri->trace_no_clock);
	if (ri->workload && ri->workload[0])
		fprintf(f, "workload:    %s\n", ri->workload);
	if (ri->workload_all && ri->workload_all[0])
		fprintf(f, "             %s\n", ri->workload_all);
	fprintf(f, "mode:        %s, %u process%s", ri->mode, ri->processes,
		ri->processes == 1 ? "" : "es");
	if (ri->reused)
		fprintf(f, " (more processes than ranks: %u rank%s reused round-robin,"
			" each reuse on its own copy of the files, %u copies)", ri->ranks_used,
			ri->ranks_used == 1 ? "" : "s", ri->copies);
	fprintf(f, "\nengine:      %s, depth %u%s%s, bind %s\n", ri->engine, ri->depth,
		ri->direct ? ", O_DIRECT" : "", ri->overlap ? ", overlap" : "", ri->bind);
	fprintf(f, "target:      %s", ri->target);
	if (ri->ti) {
		const char *rot = ri->ti->rotational > 0 ? "rotational" :
				  ri->ti->rotational == 0 ? "non-rotational" : "rotational unknown";
		fprintf(f, " (%s on %s, %s, scheduler %s", ri->ti->fstype[0] ? ri->ti->fstype : "?",
			ri->ti->device[0] ? ri->ti->device : "?", rot,
			ri->ti->scheduler[0] ? ri->ti->scheduler : "unknown");
		if (ri->ti->hw_queues > 0)
			fprintf(f, ", %d queue%s", ri->ti->hw_queues, ri->ti->hw_queues == 1 ? "" : "s");
		fprintf(f, ")");
		/* one queue: its completions come to one CPU at a time, and a
		 * bound worker elsewhere is woken across CPUs (replay(1), --bind) */
		if (ri->ti->hw_queues == 1 && ri->bind && strcmp(ri->bind, "none") &&
		    (!ri->topo || ri->topo->pus > 1))
			fprintf(f, "\n             one queue: completions reach one CPU; a bound worker"
				   " elsewhere is woken across CPUs after each blocking I/O (--bind none)");
	}
	fprintf(f, "\npage cache:  %s before each %s\n",
		ri->drop_caches ? "dropped" : "not dropped (--no-drop-caches)",
		seq ? "rank" : "run");
}

/* Statistics of the complete runs' completion times (several runs). */
static void print_completion_stats(FILE *f, const struct report_agg *a)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	uint64_t *v = malloc(a->nruns * sizeof(*v));
	size_t k = 0;
	struct rstats st;

	if (!v)
		return;
	for (size_t r = 0; r < a->nruns; r++)
		if (!a->incomplete[r])
			v[k++] = a->completion[r];
	report_stats(v, k, &st);
	free(v);
	fprintf(f, "completion:  min %s  median %s  max %s  mean %s  stddev %s (%zu runs)\n",
		fmt_ns(b1, sizeof(b1), st.min), fmt_ns(b2, sizeof(b2), st.median),
		fmt_ns(b3, sizeof(b3), st.max), fmt_ns(b4, sizeof(b4), st.mean),
		fmt_ns(b5, sizeof(b5), st.stddev), k);
}

static void print_runs(FILE *f, const struct report_agg *a, bool seq)
{
	char b1[32], b2[32], b3[32];

	for (size_t r = 0; r < a->nruns; r++) {
		char label[32];

		snprintf(label, sizeof(label), "run %zu:", r + 1);
		fprintf(f, "%-12s completion %s (io %s, flush %s)%s\n", label,
			fmt_ns(b1, sizeof(b1), (double)a->completion[r]),
			fmt_ns(b2, sizeof(b2), (double)a->io[r]),
			fmt_ns(b3, sizeof(b3), (double)a->flush[r]),
			a->incomplete[r] ? "  INCOMPLETE" : seq ? "  (longest rank)" : "");
	}
	if (seq && a->rank_completion) {
		fprintf(f, "processes (last run):");
		for (size_t i = 0; i < a->nrank; i++)
			fprintf(f, " %s", fmt_ns(b1, sizeof(b1), (double)a->rank_completion[i]));
		fprintf(f, "\n");
	}
	if (a->nruns > 1)
		print_completion_stats(f, a);
}

/* One class: ops and bytes of one run (the runs replay the same ops), the
 * throughput and IOPS over the runs' I/O time (so one run's rate, averaged
 * by time, never a sum over runs), the latencies over every op of every
 * run (merged histogram bins). */
static void print_class(FILE *f, const struct report_agg *a, int c)
{
	const struct class_stats *cs = &a->cls[c];
	double runs = a->nruns ? (double)a->nruns : 1.0;
	char b1[32], b2[32], b3[32], b4[32], t[32] = "", io[32] = "";

	if (a->time_ns[c] && (c == RC_READ || c == RC_WRITE)) {
		double mibs = (double)cs->io_bytes * 1e9 / (double)a->time_ns[c] / 1048576.0;
		snprintf(t, sizeof(t), mibs >= 100 ? "%.0f" : mibs >= 1 ? "%.1f" : "%.3g", mibs);
		snprintf(io, sizeof(io), "%.0f", (double)cs->total_ios * 1e9 / (double)a->time_ns[c]);
	}
	fprintf(f, "%-6s %9.0f %11s %9s %9s", rclass_name(c), (double)cs->total_ios / runs,
		fmt_bytes(b1, sizeof(b1), (double)cs->io_bytes / runs), t, io);
	if (!cs->lat.n)         /* ops not timed (--clock none) */
		fprintf(f, " %10s %10s %10s %10s", "-", "-", "-", "-");
	else {
		fmt_ns(b1, sizeof(b1), (double)hist_percentile(&cs->lat, 50));
		fmt_ns(b2, sizeof(b2), (double)hist_percentile(&cs->lat, 90));
		fmt_ns(b3, sizeof(b3), (double)hist_percentile(&cs->lat, 99));
		fmt_ns(b4, sizeof(b4), (double)cs->lat.max);
		fprintf(f, " %*s %*s %*s %*s", pad_width(10, b1), b1, pad_width(10, b2), b2,
			pad_width(10, b3), b3, pad_width(10, b4), b4);
	}
	if (cs->errors || cs->short_ios)
		fprintf(f, "  (%llu errors, %llu short)", (unsigned long long)cs->errors,
			(unsigned long long)cs->short_ios);
	fprintf(f, "\n");
}

/* Results unlike the trace's, and the first ones as file:line. */
static void print_mismatches(FILE *f, const struct report_agg *a, const char *fstype)
{
	uint64_t n = 0;
	char name[32];
	for (int k = 0; k < MM_KINDS; k++)
		n += a->mismatch[k];
	if (!n)
		return;
	fprintf(f, "mismatches:  %llu (", (unsigned long long)n);
	const char *sep = "";
	for (int k = 0; k < MM_KINDS; k++)
		if (a->mismatch[k]) {
			fprintf(f, "%s%s %llu", sep, op_kind_name((enum op_kind)k),
				(unsigned long long)a->mismatch[k]);
			sep = ", ";
		}
	fprintf(f, ")\n");
	for (uint32_t i = 0; i < a->nmm_ex; i++) {
		const struct mm_example *m = &a->mm_ex[i];
		if (a->mm_src)
			fprintf(f, "             %s:%u: %s ", a->mm_src, m->line,
				op_kind_name((enum op_kind)m->kind));
		else if (a->mm_file[i][0])
			fprintf(f, "             %s, %s:%u: %s ", a->mm_rank[i], a->mm_file[i], m->line,
				op_kind_name((enum op_kind)m->kind));
		else
			fprintf(f, "             %s, line %u: %s ", a->mm_rank[i], m->line,
				op_kind_name((enum op_kind)m->kind));
		if (m->err && m->kind == OP_FALLOCATE) {
			char mb[200];
			fprintf(f, "failed with %s", report_errno_name(m->err, name, sizeof(name)));
			if (m->err == EOPNOTSUPP)
				fprintf(f, ": the target's file system (%s) does not support mode %s\n",
					fstype && fstype[0] ? fstype : "?",
					op_falloc_mode_str(m->mode, mb, sizeof(mb)));
			else
				fprintf(f, " (mode %s)\n", op_falloc_mode_str(m->mode, mb, sizeof(mb)));
		} else if (m->err)
			fprintf(f, "failed with %s\n", report_errno_name(m->err, name, sizeof(name)));
		else
			fprintf(f, "moved %lld bytes, the trace %lld\n", (long long)m->got,
				(long long)m->want);
	}
}

/* " (N after a replayed open failed)", or "" */
static const char *failed_opens(char *b, size_t n, const struct report_agg *a)
{
	if (!a->open_failed_ops)
		return "";
	snprintf(b, n, " (%llu after their replayed open failed)",
		 (unsigned long long)a->open_failed_ops);
	return b;
}

/* What was not issued, rounded for O_DIRECT, or failed. */
static void print_notes(FILE *f, const struct report_agg *a, const char *fstype)
{
	char b1[32], b2[32], b3[64];

	if (a->skipped_failed || a->skipped_nohandle || a->skipped_mmap || a->seeks || a->barriers ||
	    a->filtered)
		fprintf(f, "\nnot issued:  %llu traced failures skipped, %llu ops on handles not opened%s,"
			" %llu mmap, %llu seeks (offsets are explicit), %llu barriers%s, %llu filtered%s\n",
			(unsigned long long)a->skipped_failed, (unsigned long long)a->skipped_nohandle,
			failed_opens(b3, sizeof(b3), a),
			(unsigned long long)a->skipped_mmap, (unsigned long long)a->seeks,
			(unsigned long long)a->barriers, a->barrier_waits ? " (honoured)" : "",
			(unsigned long long)a->filtered, a->nruns > 1 ? " (over the runs)" : "");
	if (a->dep_waits || a->barrier_waits)
		fprintf(f, "waits:       %llu ops waited for other ranks (%s), %llu at barriers (%s)\n",
			(unsigned long long)a->dep_waits, fmt_ns(b1, sizeof(b1), (double)a->dep_wait_ns),
			(unsigned long long)a->barrier_waits,
			fmt_ns(b2, sizeof(b2), (double)a->barrier_wait_ns));
	if (a->alone_short)
		fprintf(f, "alone:       %llu read%s found %s less than the trace read: data other"
			" ranks write, which are not running with %s (sequential mode, or ranks left"
			" out); not counted as mismatches\n",
			(unsigned long long)a->alone_short, a->alone_short == 1 ? "" : "s",
			fmt_bytes(b1, sizeof(b1), (double)a->alone_short_bytes),
			a->alone_short == 1 ? "it" : "them");
	if (a->tmpfile_named)
		fprintf(f, "O_TMPFILE:   %llu open%s refused by the target's file system (EOPNOTSUPP):"
			" a named file instead, unlinked at once\n",
			(unsigned long long)a->tmpfile_named, a->tmpfile_named == 1 ? "" : "s");
	if (a->rounded_ops)
		fprintf(f, "direct I/O:  %llu ops rounded to the block size, %s extra\n",
			(unsigned long long)a->rounded_ops,
			fmt_bytes(b1, sizeof(b1), (double)a->rounded_extra_bytes));
	for (int k = 1; k < RES_MAX_ERRNO; k++) {
		char name[32];

		if (a->errno_counts[k])
			fprintf(f, "errors:      %s: %llu\n", report_errno_name(k, name, sizeof(name)),
				(unsigned long long)a->errno_counts[k]);
	}
	print_mismatches(f, a, fstype);
}

static void print_all(FILE *f, const struct report_info *ri, const struct report_agg *a)
{
	bool seq = ri->mode && !strcmp(ri->mode, "sequential");

	print_setup(f, ri, seq);
	report_filter_print(f, ri->filter, ri->copies);
	if (ri->order)
		fprintf(f, "order:       %s%s\n", !strcmp(ri->order, "resource") ? "resource: " :
			!strcmp(ri->order, "alone") ? "each rank alone, its inputs prepared" :
			"none: ranks run free", !strcmp(ri->order, "resource") ?
			"ranks wait for the ops they depend on" : "");
	print_runs(f, a, seq);
	report_timing_print(f, ri, a);
	if (a->nruns > 1)
		fprintf(f, "\nper run (ops, bytes, MiB/s, IOPS: one run; latency: every op of the %zu runs)",
			a->nruns);
	fprintf(f, "\n%-6s %9s %11s %9s %9s %10s %10s %10s %10s\n", "class", "ops", "bytes",
		"MiB/s", "IOPS", "lat p50", "p90", "p99", "max");
	for (int c = 0; c < RC__COUNT; c++)
		if (a->cls[c].total_ios)
			print_class(f, a, c);
	if (ri->clock && !strcmp(ri->clock, "none"))
		fprintf(f, "latency:     not measured (--clock none)\n");
	print_notes(f, a, ri->ti ? ri->ti->fstype : NULL);
}

/* Built in memory and handed to f at once (a terminal's line buffering
 * would otherwise make a write per line). */
void report_print(FILE *f, const struct report_info *ri, const struct report_agg *a)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		print_all(f, ri, a);
		return;
	}
	print_all(m, ri, a);
	if (fclose(m) == 0)
		fwrite(text, 1, len, f);
	else
		print_all(f, ri, a);
	free(text);
}

json_t *report_filter_json(const struct filter *f)
{
	json_t *rules = json_array(), *o;
	for (size_t r = 0; f && r < f->nrules; r++) {
		const struct filter_rule *ru = &f->rules[r];
		if (ru->ops)
			json_array_append_new(rules, json_pack("{s:o,s:o,s:I,s:I}", "rule", json_text_str(ru->what),
							       "why", json_text_str(ru->why), "ops", (json_int_t)ru->ops,
							       "files", (json_int_t)ru->files));
	}
	json_t *launchers = json_array();
	for (uint32_t l = 0; f && l < f->nlaunchers; l++) {
		const struct filter_launcher *x = &f->launchers[l];
		if (x->ops)
			json_array_append_new(launchers, json_pack("{s:I,s:I,s:o,s:I}", "rank",
								   (json_int_t)x->rank, "pid", (json_int_t)x->pid,
								   "program", json_text_str(x->prog),
								   "ops", (json_int_t)x->ops));
	}
	o = json_pack("{s:I,s:I,s:o,s:o,s:I,s:I,s:I,s:I}", "ops_kept", (json_int_t)(f ? f->ops_kept : 0),
		      "ops_removed", (json_int_t)(f ? f->ops_removed : 0), "rules", rules,
		      "launchers", launchers,
		      "ranks_without_ops", (json_int_t)(f ? f->ranks_empty : 0),
		      "ranks_launchers", (json_int_t)(f ? f->ranks_launcher : 0),
		      "ranks_not_selected", (json_int_t)(f ? f->ranks_unselected : 0),
		      "ranks_beyond_processes", (json_int_t)(f ? f->ranks_beyond : 0));
	return o;
}

void report_filter_print(FILE *out, const struct filter *f, unsigned copies)
{
	if (!f || (!f->ops_removed && !f->ranks_empty && !f->ranks_unselected && !f->ranks_beyond)) {
		fprintf(out, "filtered:    nothing left out\n");
		return;
	}
	fprintf(out, "filtered:    %" PRIu64 " ops left out (%" PRIu64 " replayed)%s", f->ops_removed,
		f->ops_kept, copies > 1 ? ", per copy" : "");
	if (f->ranks_empty)
		fprintf(out, "; %" PRIu32 " rank%s with no op left", f->ranks_empty,
			f->ranks_empty == 1 ? "" : "s");
	if (f->ranks_launcher)
		fprintf(out, "; %" PRIu32 " launcher rank%s", f->ranks_launcher,
			f->ranks_launcher == 1 ? "" : "s");
	if (f->ranks_unselected)
		fprintf(out, "; %" PRIu32 " rank%s not in --ranks", f->ranks_unselected,
			f->ranks_unselected == 1 ? "" : "s");
	if (f->ranks_beyond)
		fprintf(out, "; %" PRIu32 " rank%s past the %" PRIu32 " replayed (-n)", f->ranks_beyond,
			f->ranks_beyond == 1 ? "" : "s", f->nkept);
	fputc('\n', out);
	for (size_t r = 0; r < f->nrules; r++) {
		const struct filter_rule *ru = &f->rules[r];
		if (ru->ops)
			fprintf(out, "             %-*s %8" PRIu64 " op%s on %" PRIu64 " file%s%s%s\n",
				pad_width(16, ru->what), ru->what, ru->ops, ru->ops == 1 ? "" : "s",
				ru->files, ru->files == 1 ? "" : "s", *ru->why ? ": " : "", ru->why);
	}
	if (f->ranks_launcher) {
		char t[512];
		fprintf(out, "             %s\n", filter_launchers_text(f, t, sizeof(t)));
	}
}
