/*
 * timing.c - the timing modes and the replay's fidelity in the results:
 * lag and drift (from the workers), traced vs replayed latency per class
 * and rank time (report.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan/filter.h"
#include "util/imap.h"
#include "report/report.h"

/* Ops the runner issues (not_issued() in runner.c skips the rest). */
static bool issued_kind(unsigned k)
{
	return k != OP_SEEK && k != OP_BARRIER && k != OP_MMAP && k != OP_AWAIT && k != OP_NONE;
}

void traced_times_build(struct traced_times *t, const struct plan *p, const struct opstream *s,
			uint64_t trace_t0)
{
	memset(t, 0, sizeof(*t));
	for (int c = 0; c < RC__COUNT; c++)
		hist_init(&t->lat[c]);
	t->rank_ns = calloc(p->nprocs ? p->nprocs : 1, sizeof(*t->rank_ns));  /* NULL: sums only */
	struct imap pending = { 0 };    /* async id -> submit op index + 1 */
	/* a trace with durations: one of 0 is one below its resolution (DXT's
	 * 0.0000, strace -T's <0.000000>), a latency like the others; a
	 * call the reader made up (OPF_SYNTH, an implicit open) has none */
	for (size_t i = 0; i < p->nprocs && !t->have_dur; i++) {
		uint64_t n;
		const struct op *ops = opstream_rank_ops(s, p->procs[i].rank, &n);
		for (uint64_t k = 0; k < n && !t->have_dur; k++)
			t->have_dur = ops[k].dur_ns != 0;
	}
	const bool durs = t->have_dur;
	for (size_t i = 0; i < p->nprocs; i++) {
		uint32_t r = p->procs[i].rank;
		uint64_t n, end = 0;
		const struct op *ops = opstream_rank_ops(s, r, &n);
		for (uint64_t k = 0; k < n; k++) {
			const struct op *op = &ops[k];
			if (op->t_ns)
				t->have_time = true;
			/* the replay ends with the rank's last op it keeps */
			if (!filter_op_kept(p->filter, op))
				continue;
			if (op->t_ns + op->dur_ns > end)
				end = op->t_ns + op->dur_ns;
			/* an async op's traced latency: from its submit's start to
			 * the end of the wait that completed it (the submit call
			 * alone is not the transfer, which the replay times) */
			if ((op->kind == OP_AREAD || op->kind == OP_AWRITE) && op->result >= 0) {
				if (imap_put(&pending, op->aux, (void *)(uintptr_t)(k + 1)))
					break;          /* out of memory: fewer figures */
				continue;
			}
			if (op->kind == OP_AWAIT) {
				uintptr_t sk = (uintptr_t)imap_get(&pending, op->aux);
				if (sk) {
					const struct op *sub = &ops[sk - 1];
					uint64_t e = op->t_ns + op->dur_ns;
					imap_del(&pending, op->aux);
					if (op->result >= 0 && (sub->dur_ns || op->dur_ns) && e >= sub->t_ns)
						hist_add(&t->lat[rclass_of(sub->kind)], e - sub->t_ns);
				}
				continue;
			}
			if ((op->dur_ns || (durs && !(op->flags & (OPF_SYNTH | OPF_IMPLICIT_OPEN)))) &&
			    issued_kind(op->kind) && op->result >= 0)
				hist_add(&t->lat[rclass_of(op->kind)], op->dur_ns);
		}
		imap_release(&pending);
		uint64_t t0 = s->ranks[r].t0_ns;
		if (t0)
			t->have_time = true;
		if (!p->sequential && trace_t0 && t0 > trace_t0)
			end += t0 - trace_t0;
		t->rank_ns_sum += end;
		if (t->rank_ns)
			t->rank_ns[t->nprocs] = end;
		t->nprocs++;
	}
}

void traced_times_release(struct traced_times *t)
{
	free(t->rank_ns);
	t->rank_ns = NULL;
}

double report_drift_pct(int64_t drift_ns, uint64_t sched_ns)
{
	return sched_ns ? 100.0 * (double)drift_ns / (double)sched_ns : 0.0;
}

static double err_pct(double replayed, double traced)
{
	return traced > 0 ? 100.0 * (replayed - traced) / traced : 0.0;
}

/* A percentile's error, null when the traced one is 0: below the trace's
 * time resolution, where no ratio means anything. */
static json_t *err_json(double replayed, double traced)
{
	return traced > 0 ? json_real(err_pct(replayed, traced)) : json_null();
}

#define set_new report_set
#define u64j report_u64

static json_t *timing_json(const struct report_info *ri, const struct report_agg *a)
{
	json_t *o = json_object();
	int bad = 0;
	bad |= set_new(o, "mode", json_string(ri->timing ? ri->timing : "afap"));
	bad |= set_new(o, "speed", json_real(ri->speed > 0 ? ri->speed : 1.0));
	if (!a->lag.n) {
		/* afap: no schedule, so no lag; said explicitly */
		bad |= set_new(o, "lag", json_null());
		bad |= set_new(o, "drift", json_null());
	} else {
		json_t *lg = json_object(), *dr = json_object();
		bad |= set_new(lg, "ops", u64j(a->lag.n));
		bad |= set_new(lg, "p50_ns", u64j(hist_percentile(&a->lag, 50)));
		bad |= set_new(lg, "p99_ns", u64j(hist_percentile(&a->lag, 99)));
		bad |= set_new(lg, "max_ns", u64j(a->lag.max));
		bad |= set_new(o, "lag", lg);
		if (!a->sched_sum) {    /* no rank reached its end: no span to compare */
			json_decref(dr);
			dr = json_null();
		} else {
			bad |= set_new(dr, "ns", json_integer(a->drift_sum));
			bad |= set_new(dr, "scheduled_ns", u64j(a->sched_sum));
			bad |= set_new(dr, "pct",
				       json_real(report_drift_pct(a->drift_sum, a->sched_sum)));
			bad |= set_new(dr, "max_pct", json_real(a->drift_max_pct));
		}
		bad |= set_new(o, "drift", dr);
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The traced rank time the replayed one is compared with: the mean over
 * the processes that ran to their end, each with its own traced time (a
 * stopped run's few against every process's mean said -99 %); over every
 * process when the aggregate does not know which. */
static double traced_rank_mean(const struct traced_times *t, const struct report_agg *a)
{
	if (a->traced == t && t->rank_ns && a->nrank_io)
		return (double)a->traced_done_sum / (double)a->nrank_io;
	return t->nprocs ? (double)t->rank_ns_sum / (double)t->nprocs : 0;
}

static json_t *fidelity_json(const struct traced_times *t, const struct report_agg *a)
{
	json_t *o = json_object(), *bc = json_object(), *rt = json_object();
	int bad = 0;
	for (int c = 0; c < RC__COUNT; c++) {
		const struct hist *tr = &t->lat[c], *rp = &a->cls[c].lat;
		if (!tr->n || !rp->n)
			continue;
		json_t *k = json_object();
		double t50 = (double)hist_percentile(tr, 50), r50 = (double)hist_percentile(rp, 50);
		double t99 = (double)hist_percentile(tr, 99), r99 = (double)hist_percentile(rp, 99);
		bad |= set_new(k, "traced_ops", u64j(tr->n));
		bad |= set_new(k, "replayed_ops", u64j(rp->n));
		bad |= set_new(k, "traced_p50_ns", u64j((uint64_t)t50));
		bad |= set_new(k, "replayed_p50_ns", u64j((uint64_t)r50));
		bad |= set_new(k, "p50_error_pct", err_json(r50, t50));
		bad |= set_new(k, "traced_p99_ns", u64j((uint64_t)t99));
		bad |= set_new(k, "replayed_p99_ns", u64j((uint64_t)r99));
		bad |= set_new(k, "p99_error_pct", err_json(r99, t99));
		bad |= set_new(bc, rclass_name(c), k);
	}
	bad |= set_new(o, "by_class", bc);
	double tr = traced_rank_mean(t, a);
	double rp = a->nrank_io ? (double)a->rank_io_sum / (double)a->nrank_io : 0;
	bad |= set_new(rt, "traced_ns", u64j((uint64_t)tr));
	/* null when no rank ran to its end (a stopped run): nothing to compare */
	bad |= set_new(rt, "replayed_ns", a->nrank_io ? u64j((uint64_t)rp) : json_null());
	bad |= set_new(rt, "error_pct", a->nrank_io ? json_real(err_pct(rp, tr)) : json_null());
	bad |= set_new(o, "rank_time", rt);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int report_timing_add(json_t *doc, const struct report_info *ri, const struct report_agg *a)
{
	int bad = set_new(doc, "timing", timing_json(ri, a));
	if (ri->traced && ri->traced->have_dur)
		bad |= set_new(doc, "fidelity", fidelity_json(ri->traced, a));
	return bad ? -ENOMEM : 0;
}

void report_timing_print(FILE *f, const struct report_info *ri, const struct report_agg *a)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	const char *mode = ri->timing ? ri->timing : "afap";
	if (!a->lag.n) {
		fprintf(f, "timing:      %s%s\n", mode, !strcmp(mode, "afap") ?
			" (each op as soon as the one before returned: no schedule, no lag)" : "");
	} else {
		fprintf(f, "timing:      %s, speed %g: lag p50 %s, p99 %s, max %s over %llu ops;",
			mode, ri->speed > 0 ? ri->speed : 1.0,
			fmt_ns(b1, sizeof(b1), (double)hist_percentile(&a->lag, 50)),
			fmt_ns(b2, sizeof(b2), (double)hist_percentile(&a->lag, 99)),
			fmt_ns(b3, sizeof(b3), (double)a->lag.max), (unsigned long long)a->lag.n);
		if (!a->sched_sum)      /* no rank reached its end: no span to compare */
			fputs(" drift - (no rank ran to its end)\n", f);
		else
			fprintf(f, " drift %+.3f %% (%s over %s scheduled; worst rank %+.3f %%)\n",
				report_drift_pct(a->drift_sum, a->sched_sum),
				fmt_ns(b4, sizeof(b4), (double)a->drift_sum),
				fmt_ns(b5, sizeof(b5), (double)a->sched_sum), a->drift_max_pct);
	}
	const struct traced_times *t = ri->traced;
	if (!t || !t->have_dur)
		return;
	const char *lead = "fidelity:   ";   /* until a line has said it */
	for (int c = 0; c < RC__COUNT; c++) {
		const struct hist *tr = &t->lat[c], *rp = &a->cls[c].lat;
		if (!tr->n || !rp->n)   /* not traced, or not timed (--clock none) */
			continue;
		if (*lead) {
			fprintf(f, "%s %-6s %11s %11s %9s %11s %11s %9s\n", lead, "class",
				"traced p50", "replay p50", "error", "traced p99", "replay p99",
				"error");
			lead = "";
		}
		double t50 = (double)hist_percentile(tr, 50), r50 = (double)hist_percentile(rp, 50);
		double t99 = (double)hist_percentile(tr, 99), r99 = (double)hist_percentile(rp, 99);
		char e50[16] = "        -", e99[16] = "        -";  /* traced 0: below resolution */
		fmt_ns(b1, sizeof(b1), t50);
		fmt_ns(b2, sizeof(b2), r50);
		fmt_ns(b3, sizeof(b3), t99);
		fmt_ns(b4, sizeof(b4), r99);
		if (t50 > 0)
			snprintf(e50, sizeof(e50), "%+8.1f%%", err_pct(r50, t50));
		if (t99 > 0)
			snprintf(e99, sizeof(e99), "%+8.1f%%", err_pct(r99, t99));
		fprintf(f, "             %-6s %*s %*s %9s %*s %*s %9s\n", rclass_name(c),
			pad_width(11, b1), b1, pad_width(11, b2), b2, e50,
			pad_width(11, b3), b3, pad_width(11, b4), b4, e99);
	}
	double tr = traced_rank_mean(t, a);
	double rp = a->nrank_io ? (double)a->rank_io_sum / (double)a->nrank_io : 0;
	if (!a->nrank_io)
		fprintf(f, "%-12s rank time: traced %s, replayed - (no rank ran to its end)\n",
			*lead ? lead : "", fmt_ns(b1, sizeof(b1), tr));
	else
		fprintf(f, "%-12s rank time: traced %s, replayed %s (%+.1f %%)\n", *lead ? lead : "",
			fmt_ns(b1, sizeof(b1), tr), fmt_ns(b2, sizeof(b2), rp), err_pct(rp, tr));
}
