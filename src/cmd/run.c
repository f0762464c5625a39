/*
 * run.c - `replay [run] [OPTIONS] TRACE... TARGET_DIR`: replay a trace on a
 * target directory and report the completion time.
 *
 * The order is the user's safety net: the command line, the engine, the
 * output path, the whole trace and the target are all checked before the
 * first timed op, so a mistake is reported at once, never after an hour
 * of replay.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "engine/engine.h"
#include "ops/opstream.h"
#include "plan/plan.h"
#include "report/report.h"
#include "report/stat.h"
#include "report/diskutil.h"
#include "report/jsontext.h"
#include "run/runner.h"
#include "run/sched.h"
#include "run/topo.h"
#include "trace/trace.h"
#include "util/util.h"

/* What the command line asked for. */
struct run_cli {
	struct runner_opts ro;
	struct plan_opts po;
	struct load_opts lo;
	struct filter_opts fo;
	const char *engine, *output, *mode, *bind;
	bool dry, quiet, speed_given;
	int clock;                   /* enum clock_source (util/clock.h)  */
	int ofmt;                    /* 0 normal, 1 json, 2 json+          */
	uint64_t repeats;
	char **traces;
	int ntraces;
	const char *target;
	const struct run_ext *x;     /* replay-mpi's hooks, or NULL       */
};

/* Everything a run holds, released by run_release(). */
struct run_state {
	struct load_result lr;
	struct opstream s;
	struct filter filt;
	struct plan plan;
	struct target_info ti;
	struct topo_summary tsum;
	struct report_info ri;
	struct report_agg *agg;
	struct traced_times traced;
	struct runner *runner;
	json_t *doc;
	const char *clock;        /* now_ns()'s source, as reported         */
	char incomplete[128];     /* the trace's "incomplete" info (DXT)    */
	char cut_lines[32], cut_line[512]; /* strace cut mid-line (killed)   */
	char no_clock[256];       /* strace -ff without a common clock      */
	char workload[512];       /* the replayed workload in one line      */
	char workload_all[512];   /* the whole trace's, when ranks left out */
	char source[4096];        /* its one source file, for FILE:LINE      */
	struct disk_dev disk;     /* the target's disk ("" name: none)      */
	bool have_ops, have_filter, have_plan, have_ti, cleanup_done, cleanup_bg;
	bool usage;               /* the arguments were wrong: exit status 2 */
};

static int set_mode(struct run_cli *c, const char *arg)
{
	if (!strcmp(arg, "parallel")) {
		c->ro.mode = RUN_PARALLEL;
		c->po.sequential = false;
	} else if (!strcmp(arg, "sequential")) {
		c->ro.mode = RUN_SEQUENTIAL;
		c->po.sequential = true;
	} else {
		die_msg("invalid mode '%s': expected 'parallel' or 'sequential'", arg);
		return -1;
	}
	c->mode = arg;
	return 0;
}

static int set_bind(struct run_cli *c, const char *arg)
{
	enum bind_mode bm;
	if (topo_parse_bind(arg, &bm) < 0) {
		die_msg("invalid bind mode '%s': expected none, core, numa or spread", arg);
		return -1;
	}
	c->ro.bind = bm;
	c->bind = topo_bind_name(bm);
	return 0;
}

/* One option; 0, or -1 after the message. */
/* A decimal number above 0 (or 0 too with zero_ok) and at most max: 0, or
 * -1 (the caller says why). */
static int arg_real(const char *arg, bool zero_ok, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(zero_ok ? v >= 0 : v > 0) || v > max)
		return -1;
	*out = v;
	return 0;
}

static int run_option(void *ctx, int id, const char *arg)
{
	struct run_cli *c = ctx;
	uint64_t v;
	int f = filter_option(&c->fo, id, arg);
	if (f)
		return f < 0 ? -1 : 0;
	switch (id) {
	case 'm': return set_mode(c, arg);
	case 'e': c->engine = arg; return 0;
	case 'o': c->output = arg; return 0;
	case 'f': c->lo.format = arg; return 0;
	case OPT_SKIP_BAD: c->lo.skip_bad = true; return 0;
	case OPT_DXT_LAYER: return dxt_layer_option(&c->lo, arg);
	case OPT_BIND: return set_bind(c, arg);
	case OPT_OVERLAP: c->ro.overlap = true; return 0;
	case OPT_DIRECT: c->ro.direct = true; return 0;
	case OPT_DRY: c->dry = c->po.dry = true; return 0;
	case OPT_FORCE: c->po.force = true; return 0;
	case OPT_KEEP: c->po.keep = true; return 0;
	case OPT_NODROP: c->ro.drop_caches = false; return 0;
	case OPT_CONT: c->ro.continue_on_error = true; return 0;
	case OPT_QUIET: c->quiet = true; return 0;
	case OPT_NO_BARRIERS: c->po.no_barriers = true; return 0;
	case OPT_ON_MISMATCH:
		c->ro.on_mismatch = !strcmp(arg, "stop") ? MM_STOP : !strcmp(arg, "warn") ? MM_WARN :
				    !strcmp(arg, "ignore") ? MM_IGNORE : -1;
		if (c->ro.on_mismatch < 0) {
			die_msg("invalid --on-mismatch '%s': expected stop, warn or ignore", arg);
			return -1;
		}
		return 0;
	case OPT_CLOCK:
		c->clock = clock_parse(arg);
		if (c->clock < 0) {
			die_msg("invalid clock '%s': expected auto, tsc, monotonic or none", arg);
			return -1;
		}
		return 0;
	case OPT_TIMING:
		c->ro.timing = timing_parse(arg);
		if (c->ro.timing < 0) {
			die_msg("invalid timing '%s': expected afap, think or trace", arg);
			return -1;
		}
		return 0;
	case OPT_SPEED: {
		double sp;
		if (arg_real(arg, false, 1e9, &sp) < 0) {
			die_msg("invalid speed '%s': expected a positive number (2: twice as fast,"
				" 0.5: half as fast)", arg);
			return -1;
		}
		c->ro.speed = sp;
		c->speed_given = true;
		return 0;
	}
	case OPT_OUTPUT_FORMAT:
		c->ofmt = !strcmp(arg, "normal") ? 0 : !strcmp(arg, "json") ? 1 :
			  !strcmp(arg, "json+") ? 2 : -1;
		if (c->ofmt < 0) {
			die_msg("invalid output format '%s': expected normal, json or json+", arg);
			return -1;
		}
		return 0;
	case OPT_STATUS_INTERVAL: {
		double sec;
		if (arg_real(arg, true, 86400.0 * 365, &sec) < 0) {
			die_msg("invalid status interval '%s': expected seconds (1, 0.5, 60; 0: none)", arg);
			return -1;
		}
		c->ro.status_interval_ns = (uint64_t)(sec * 1e9);
		return 0;
	}
	case OPT_ORDER:
		if (strcmp(arg, "resource") && strcmp(arg, "none")) {
			die_msg("invalid order '%s': expected 'resource' or 'none'", arg);
			return -1;
		}
		c->po.no_order = !strcmp(arg, "none");
		return 0;
	case 'r': return arg_count("repeat count", arg, 1, 100000, &c->repeats);
	case 'n':
		if (arg_count("process count", arg, 1, 1u << 20, &v))
			return -1;
		c->po.nprocs = (unsigned)v;
		return 0;
	case 'q':
		if (arg_count("depth", arg, 1, 65536, &v))
			return -1;
		c->ro.depth = (unsigned)v;
		return 0;
	case OPT_SAMPLE:
		if (arg_count("sample interval", arg, 1, 3600000, &v))
			return -1;
		c->ro.sample_interval_ns = v * 1000000ull;
		return 0;
	default:
		if (c->x && c->x->option)
			return c->x->option(c->x->ctx, id, arg);
		die_msg("run: option %s is listed but not handled (a bug: please report it)",
			opt_long_name(id) ? opt_long_name(id) : "?");
		return -1;
	}
}

/* 0: go on; 1: --help printed; 2: a usage error (said). */
static int parse_args(int argc, char **argv, struct run_cli *c)
{
	int rc = opts_parse(CMD_RUN | (c->x ? c->x->cmds : 0), false, argc, argv, run_option, c);
	if (rc)
		return rc;
	if (argc - optind < 2) {
		die_msg(argc - optind == 1 ? "missing TARGET_DIR after the trace"
					   : "missing TRACE and TARGET_DIR");
		cmd_short_usage(CMD_RUN);
		return 2;
	}
	c->traces = argv + optind;
	c->ntraces = argc - optind - 1;
	c->target = argv[argc - 1];
	if (c->output && !strcmp(c->output, "-")) {
		c->output = NULL;       /* -o -: the JSON on stdout, as json without -o */
		if (!c->ofmt)
			c->ofmt = 1;
	}
	if (c->x && c->x->setup &&
	    c->x->setup(c->x->ctx, c->target, &c->ro, &c->po, &c->quiet, &c->output) < 0)
		return 2;
	return 0;
}

/* The engine exists; -o can be written (checked now, not after the run). */
static int check_setup(struct run_cli *c)
{
	struct rerr e = { .msg = "" };
	if (load_opts_check(&c->lo, &e) < 0) {      /* -f, --dxt-layer: usage */
		die_msg("%s", e.msg);
		return -1;
	}
	c->ro.engine = engine_find(c->engine);
	if (!c->ro.engine) {
		die_msg("unknown engine '%s': expected one of %s", c->engine, engine_names());
		return -1;
	}
	if (c->output && (check_output_file(c->output, "result file", true) ||
			  check_output_not_input(c->output, c->traces, c->ntraces, "result file")))
		return -1;
	if (c->clock == CLOCK_SRC_NONE && c->ro.timing != TIMING_AFAP) {
		die_msg("--clock none needs --timing afap: think and trace timing read the"
			" clock around every op");
		return -1;
	}
	c->ro.no_lat = c->clock == CLOCK_SRC_NONE;
	if (c->speed_given && c->ro.timing == TIMING_AFAP && !c->quiet)
		warn_msg("--speed has no effect with --timing afap (no schedule to scale)");
	if (c->ro.depth > 1 && (c->ro.engine->flags & ENGINE_F_SYNC) && !c->quiet)
		warn_msg("engine '%s' completes every request at once: -q %u has no effect",
			 c->engine, c->ro.depth);
	c->ro.progress = !c->quiet && isatty(STDERR_FILENO) && !c->ro.status_interval_ns;
	c->ro.repeats = c->repeats;
	report_fio_set_bins(c->ofmt == 2);
	if (c->x && !c->x->root)
		c->ro.status_interval_ns = 0;     /* replay-mpi: rank 0's lines only */
	if (c->x && c->x->json_stdout)
		*c->x->json_stdout = c->ofmt && !c->output;
	return 0;
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = runner_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;      /* no SA_RESTART: waits return EINTR */
	sigaction(SIGTERM, &sa, NULL);
	/* a hangup (the ssh session of an interactive run closed) stops the
	 * run as SIGTERM does, the target cleaned; under nohup it stays
	 * ignored (cmd_guard_loading left an ignored one so); so does a
	 * SIGINT a shell made a background job ignore (`replay ... &` in a
	 * script: a Ctrl-C at the terminal is not for it) */
	struct sigaction old;
	for (int s = 0, sigs[] = { SIGINT, SIGHUP }; s < 2; s++)
		if (!sigaction(sigs[s], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(sigs[s], &sa, NULL);
	/* a reader of stdout that goes away (| head, | jq that failed) makes
	 * the write fail with EPIPE instead of killing the process while the
	 * target is still being cleaned up (that runs beside the results) */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

static int check_open_files(const struct run_state *st, const struct run_cli *c);

/* The replayed ranks' earliest traced start; what the trace holds of
 * times and durations; a timing mode the trace cannot support is an error
 * naming what is missing. */
static int check_timing(struct run_state *st, struct run_cli *c)
{
	const struct plan *p = &st->plan;
	uint64_t t0 = 0;
	for (uint32_t k = 0; k < p->nranks_used; k++) {
		uint64_t r0 = st->s.ranks[p->ranks[k]].t0_ns;
		if (r0 && (!t0 || r0 < t0))
			t0 = r0;
	}
	c->ro.trace_t0 = t0;
	traced_times_build(&st->traced, p, &st->s, t0);
	const char *src = c->ntraces == 1 ? c->traces[0] : "the trace";
	if (c->ro.timing != TIMING_AFAP && !st->traced.have_time) {
		char nc[160];
		/* an -ff capture's -r deltas are left out: they are no clock */
		if (opstream_info(&st->s, "no_common_clock", nc, sizeof(nc)))
			die_msg("--timing %s: %s has no common clock (%s: every op at time 0):"
				" capture with strace -ff -tt (or -ttt) and -T, or replay with --timing"
				" afap", timing_name(c->ro.timing), src, nc);
		else
			die_msg("--timing %s: %s has no timestamps (every op at time 0): capture with"
				" strace -tt (or -ttt, -r) and -T, or replay with --timing afap",
				timing_name(c->ro.timing), src);
		return -EINVAL;
	}
	if (c->ro.timing == TIMING_THINK && !st->traced.have_dur) {
		die_msg("--timing think: %s has no op durations (strace -T): the time between ops"
			" cannot be told from the time in them; capture with -T, or use --timing trace",
			src);
		return -EINVAL;
	}
	return 0;
}

/* libaio completes a buffered request at submission (it blocks in
 * io_submit until the data is copied): say so when some replayed reads
 * and writes are on descriptors the trace did not have O_DIRECT on at the
 * call (op.oflags; those are O_DIRECT in the replay too, and overlap). */
static void warn_buffered_aio(const struct run_state *st)
{
	uint64_t buffered = 0, all = 0;

	for (uint32_t k = 0; k < st->filt.nkept; k++) {
		uint64_t n;
		const struct op *o = opstream_rank_ops(&st->s, st->filt.kept[k], &n);
		for (uint64_t i = 0; i < n; i++)
			if (op_is_data(o[i].kind) && filter_op_kept(&st->filt, &o[i])) {
				all++;
				buffered += !(o[i].oflags & O_DIRECT);
			}
	}
	if (buffered)
		warn_msg("libaio without --direct: %" PRIu64 " of the %" PRIu64 " reads and writes"
			 " are on files the trace did not open O_DIRECT; the kernel completes such"
			 " buffered requests at submission, so they do not overlap", buffered, all);
}

/* Files the application mapped (mmap) to reach their data: the loads and
 * stores through a mapping are memory accesses, not system calls, so the
 * trace does not hold them and the replay does not make them.  Said once,
 * with the first files' names; code mappings (PROT_EXEC, the dynamic
 * loader's MAP_DENYWRITE) are not data. */
static void warn_mmaps(const struct run_state *st)
{
	uint64_t maps = 0, shared_w = 0;
	uint32_t files[3], nf = 0, more = 0;

	if (!st->filt.data_mmaps)       /* the filter counted them: most traces */
		return;                 /* need no pass over their ops here */

	for (uint32_t k = 0; k < st->filt.nkept; k++) {
		uint64_t n;
		const struct op *o = opstream_rank_ops(&st->s, st->filt.kept[k], &n);
		for (uint64_t i = 0; i < n; i++) {
			if (o[i].kind != OP_MMAP || o[i].result < 0 || o[i].file == OP_NOFILE ||
			    !op_mmap_data(o[i].aux) || !filter_op_kept(&st->filt, &o[i]))
				continue;
			maps++;
			shared_w += (o[i].aux & (OP_MMAP_SHARED | OP_MMAP_WRITE)) ==
				    (OP_MMAP_SHARED | OP_MMAP_WRITE);
			uint32_t j = 0;
			while (j < nf && files[j] != o[i].file)
				j++;
			if (j == nf && nf < 3)
				files[nf++] = o[i].file;
			else if (j == nf)
				more = 1;
		}
	}
	if (!maps)
		return;
	char esc[3][512];
	const char *nm[3] = { "", "", "" };
	for (uint32_t j = 0; j < nf; j++)
		nm[j] = text_esc(opstream_path(&st->s, files[j]), esc[j], sizeof(esc[j]));
	warn_msg("%" PRIu64 " mapping%s (mmap) of %s%s%s%s%s%s: what the application read or"
		 " wrote through %s is memory accesses, not system calls: not in the trace,"
		 " not replayed%s", maps, maps == 1 ? "" : "s", nm[0], nf > 1 ? ", " : "", nm[1],
		 nf > 2 ? ", " : "", nm[2], more ? " and more" : "", maps == 1 ? "it" : "them",
		 shared_w ? " (some are shared and writable: their stores reach the file)" : "");
}

/* "4-7", "0, 3, 5-7" of n sorted values into buf (at most 6 runs shown). */
static void runs_text(char *buf, size_t len, const int64_t *v, size_t n)
{
	size_t used = 0, runs = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n && used < len; runs++) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		int w = runs >= 6 ? snprintf(buf + used, len - used, ", ...") :
			j > i ? snprintf(buf + used, len - used, "%s%" PRId64 "-%" PRId64,
					 runs ? ", " : "", v[i], v[j]) :
				snprintf(buf + used, len - used, "%s%" PRId64, runs ? ", " : "", v[i]);
		used += w > 0 ? (size_t)w : 0;
		if (runs >= 6)
			break;
		i = j + 1;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Bytes of rank r's reads and writes the filter keeps. */
static uint64_t rank_data_bytes(const struct opstream *s, const struct filter *f, uint32_t r)
{
	uint64_t n, b = 0;
	const struct op *o = opstream_rank_ops(s, r, &n);
	for (uint64_t i = 0; i < n; i++) {
		if (!op_is_data(o[i].kind) || !filter_op_kept(f, &o[i]))
			continue;
		if (o[i].kind == OP_AREAD || o[i].kind == OP_AWRITE)
			b += o[i].len;
		else if (o[i].result > 0)
			b += (uint64_t)o[i].result;
	}
	return b;
}

/* Whether two ranks' names are of one capture: "pid N of CAPTURE" (the
 * strace reader's, given several captures) the same CAPTURE, or neither
 * naming one. */
static bool same_capture(const char *a, const char *b)
{
	const char *x = a ? strstr(a, " of ") : NULL, *y = b ? strstr(b, " of ") : NULL;
	return (!x && !y) || (x && y && !strcmp(x, y));
}

/* -n fewer than the ranks with I/O (or --ranks) left some out: say so once,
 * with which and how much of the data (an -n of the MPI job's size cuts
 * AIO helper threads, which are ranks of their own). */
static void warn_left_out(const struct run_state *st, const struct run_cli *c)
{
	const struct filter *f = &st->filt;
	const struct opstream *s = &st->s;
	if (!f->ranks_beyond && !f->ranks_unselected)
		return;
	int64_t *ranks = calloc(s->nranks + 1, sizeof(*ranks));
	int64_t *pids = calloc(s->nranks + 1, sizeof(*pids));
	int64_t *tgid = calloc(s->nranks + 1, sizeof(*tgid));
	int64_t *tg = calloc(s->nranks + 1, sizeof(*tg));
	if (!ranks || !pids || !tgid || !tg)
		goto out;
	opstream_thread_of(s, tgid);
	uint32_t with_io = 0;
	size_t n = 0, nthr = 0;
	uint64_t all = 0, out = 0;
	for (uint32_t r = 0; r < s->nranks; r++) {
		if (r >= f->nrank_ops || !f->rank_ops[r] ||
		    (f->launcher_of && f->launcher_of[r]))
			continue;       /* no I/O the path rules keep, or a launcher's */
		uint64_t b = rank_data_bytes(s, f, r);
		with_io++;
		all += b;
		if (f->rank_kept[r])
			continue;
		out += b;
		ranks[n] = r;
		pids[n++] = s->ranks[r].pid;
		if (tgid[r] >= 0) {
			/* a thread of a process that is replayed? */
			for (uint32_t k = 0; k < f->nkept; k++)
				if (s->ranks[f->kept[k]].pid == tgid[r] &&
				    same_capture(opstream_rank_name(s, f->kept[k]),
						 opstream_rank_name(s, r))) {
					tg[nthr++] = tgid[r];
					break;
				}
		}
	}
	if (!n)
		goto out;
	char rl[128], pl[128], tl[200] = "", b1[32], b2[32], nopt[32] = "", hint[96] = "";
	qsort(pids, n, sizeof(*pids), cmp_i64);
	qsort(tg, nthr, sizeof(*tg), cmp_i64);
	size_t np = 0;          /* the distinct pids (several captures may share one) */
	for (size_t i = 0; i < n; i++)
		if (!np || pids[np - 1] != pids[i])
			pids[np++] = pids[i];
	size_t u = 0;           /* the distinct processes */
	for (size_t i = 0; i < nthr; i++)
		if (!u || tg[u - 1] != tg[i])
			tg[u++] = tg[i];
	runs_text(rl, sizeof(rl), ranks, n);
	runs_text(pl, sizeof(pl), pids, np);
	if (nthr) {
		char t[128];
		runs_text(t, sizeof(t), tg, u);
		snprintf(tl, sizeof(tl), ", %s%s of replayed pid%s %s", nthr == n ? "" : "some ",
			 nthr == 1 ? "a thread" : "threads", u == 1 ? "" : "s", t);
	}
	if (f->ranks_beyond)
		snprintf(nopt, sizeof(nopt), "-n %u", (unsigned)c->po.nprocs);
	if (f->ranks_beyond && !f->ranks_unselected)
		snprintf(hint, sizeof(hint), "; give -n %" PRIu32 " to replay them all, or --ranks to"
			 " choose", with_io);
	warn_msg("%s%s%s leave%s out %zu of the trace's %" PRIu32 " ranks with I/O (%s of its reads"
		 " and writes: %s): rank%s %s (pid%s %s)%s%s",
		 f->ranks_unselected ? "--ranks" : "", f->ranks_unselected && f->ranks_beyond ? " and " : "",
		 nopt, f->ranks_unselected && f->ranks_beyond ? "" : "s", n, with_io,
		 fmt_bytes(b1, sizeof(b1), (double)all), fmt_bytes(b2, sizeof(b2), (double)out),
		 n == 1 ? "" : "s", rl, np == 1 ? "" : "s", pl, tl, hint);
out:
	free(ranks);
	free(pids);
	free(tgid);
	free(tg);
}

/* Load the whole trace (a signal now ends the command, leaving no
 * temporary file), map it, and build the plan on the target. */
static int load_and_plan(struct run_state *st, struct run_cli *c)
{
	struct rerr e = { .msg = "" };
	const char *why = NULL;
	cmd_guard_loading();
	int ret = trace_load(c->traces, c->ntraces, &c->lo, NULL, &st->lr, &e);
	if (ret < 0) {
		/* `replay run TARGET TRACE`: the arguments the wrong way round */
		struct stat tt, t0;
		bool swapped = !stat(c->target, &tt) && S_ISREG(tt.st_mode) &&
			       (stat(c->traces[0], &t0) ? errno == ENOENT : S_ISDIR(t0.st_mode));
		die_msg("%s%s%s%s", e.msg, swapped ? " (replay run TRACE... TARGET_DIR: the target "
			"directory comes last, and '" : "", swapped ? c->target : "",
			swapped ? "' is a file)" : "");
		st->usage = swapped;
		return ret;
	}
	install_signals();
	ret = trace_load_map(&st->s, &st->lr, &why);
	if (ret < 0) {
		die_msg("cannot read '%s': %s", st->lr.ops_path, why ? why : strerror(-ret));
		return ret;
	}
	st->have_ops = true;
	trace_load_opened(&st->lr);
	if (!c->x || c->x->root)        /* replay-mpi: said once, by rank 0 */
		trace_warn_incomplete(&st->s, c->traces[0]);
	if (st->lr.bad_lines && (!c->x || c->x->root))
		warn_msg("--skip-bad: %" PRIu64 " malformed line%s skipped, not replayed; the first: %s",
			 st->lr.bad_lines, st->lr.bad_lines == 1 ? "" : "s", st->lr.first_bad);
	ret = filter_build(&st->filt, &st->s, &c->fo, &e);
	if (ret < 0) {
		die_msg("%s", e.msg);
		return ret;
	}
	st->have_filter = true;
	if (!c->x || c->x->root)
		filter_note_rank_numbers(&st->filt, &st->s);
	/* -n fewer than the ranks: the filter is cut to the ranks replayed,
	 * so the workload, filtered: and the JSON count those */
	filter_limit(&st->filt, &st->s, c->po.nprocs);
	if (!c->x || c->x->root)
		warn_left_out(st, c);
	c->po.filter = &st->filt;
	if (engine_warn_buffered(c->ro.engine, c->ro.direct) && !c->quiet && (!c->x || c->x->root))
		warn_buffered_aio(st);
	if (!c->quiet && (!c->x || c->x->root))
		warn_mmaps(st);
	ret = plan_build(&st->plan, &st->s, c->target, &c->po, &e);
	if (ret < 0) {
		die_msg("%s", e.msg);
		return ret;
	}
	st->have_plan = true;
	if (c->x && c->x->planned && c->x->planned(c->x->ctx, &st->plan, &st->s) < 0)
		return -EINVAL;
	ret = check_open_files(st, c);
	if (ret < 0)
		return ret;
	char conflict[PATH_MAX * 2 + 300];
	if ((!c->x || c->x->root) && plan_file_dir_conflict(&st->plan, conflict, sizeof conflict))
		warn_msg("%s", conflict);
	return check_timing(st, c);
}

/* Descriptors a worker holds besides the trace's files: those open here
 * now (stdio, the target's, what the shell left open), which it inherits,
 * and 3 it opens (the results pipe, the engine's ring, a directory). */
static unsigned fds_own(void)
{
	unsigned n = 0;
	for (int fd = 0; fd < 4096; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n + 3;
}

/* The most files a rank the filter keeps holds open at once in the
 * replay (its opens that succeeded, less its closes; a handle opened again
 * is closed first), and where: *rank, *line of the open that reaches it. */
static uint64_t peak_open(const struct opstream *s, const struct filter *f, uint32_t *rank,
			  uint32_t *line)
{
	uint64_t best = 0;
	for (uint32_t k = 0; k < f->nkept; k++) {
		uint32_t r = f->kept[k], nh;
		uint64_t n, ml, cur = 0;
		const struct op *ops = opstream_rank_ops(s, r, &n);
		runner_scan_rank(ops, n, &nh, &ml);
		uint8_t *open = calloc(nh ? nh : 1, 1);
		if (!open)
			return 0;       /* out of memory: the run will say so */
		for (uint64_t i = 0; i < n; i++) {
			const struct op *op = &ops[i];
			if (op->handle >= nh || !filter_op_kept(f, op))
				continue;
			if (op->kind == OP_OPEN && op->result >= 0 && !open[op->handle]) {
				open[op->handle] = 1;
				if (++cur > best) {
					best = cur;
					*rank = r;
					*line = op->line;
				}
			} else if (op->kind == OP_CLOSE && open[op->handle]) {
				open[op->handle] = 0;
				cur--;
			}
		}
		free(open);
	}
	return best;
}

/* A rank that holds more files open at once than a process may have
 * here would fail there with EMFILE, after the preparation: refused now
 * (--dry-run: said).  The limit is the soft one main() raised to the
 * hard one. */
static int check_open_files(const struct run_state *st, const struct run_cli *c)
{
	struct rlimit rl;
	uint32_t rank = 0, line = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	uint64_t peak = peak_open(&st->s, &st->filt, &rank, &line);
	unsigned own = fds_own();
	if (peak + own <= (uint64_t)rl.rlim_cur)
		return 0;
	char where[600], who[300];
	const char *name = opstream_rank_name(&st->s, rank);
	snprintf(who, sizeof(who), "rank %u", rank);
	if (name && strcmp(name, who))
		snprintf(who, sizeof(who), "rank %u (%s)", rank, name);
	snprintf(where, sizeof(where), "%s holds up to %" PRIu64 " files open at once (the open at"
		 " trace line %u), and a process may have %llu descriptors here (ulimit -n, the"
		 " hard limit%s), %u of them the replay's own", who, peak, line,
		 (unsigned long long)rl.rlim_cur, rl.rlim_max == rl.rlim_cur ? "" : " not reached",
		 own);
	if (c->dry) {
		warn_msg("%s: the run would fail there with 'Too many open files'", where);
		return 0;
	}
	die_msg("%s: the run would fail there with 'Too many open files' (EMFILE); raise the hard"
		" limit (ulimit -Hn as root, /etc/security/limits.conf, or a batch job's limits) to"
		" at least %" PRIu64, where, peak + own);
	return -EMFILE;
}

/* "3 files (1 shared), read 13.0 MiB in 208 requests (sequential), write
 * ..., 4 syncs, 8 opens" of the ops f keeps, after the prefix. */
static void workload_text(char *buf, size_t len, const char *prefix, const struct opstream *s,
			  const struct filter *f)
{
	struct stat_report sr;
	char b1[32], b2[32];
	memset(&sr, 0, sizeof(sr));
	if (stat_compute(s, f, &sr) < 0) {
		stat_release(&sr);
		return;
	}
	char fo[64] = "";
	if (sr.kinds_failed[OP_OPEN])
		snprintf(fo, sizeof(fo), " (%llu failed in the trace: not replayed)",
			 (unsigned long long)sr.kinds_failed[OP_OPEN]);
	snprintf(buf, len,
		 "%s: %u file%s (%u shared), read %s in %llu requests (%s), write %s"
		 " in %llu (%s), %llu syncs, %llu opens%s",
		 prefix, sr.nfiles, sr.nfiles == 1 ? "" : "s", sr.files_shared,
		 fmt_bytes(b1, sizeof(b1), (double)sr.rd.bytes), (unsigned long long)sr.rd.requests,
		 stat_pattern_name(sr.rd.pattern), fmt_bytes(b2, sizeof(b2), (double)sr.wr.bytes),
		 (unsigned long long)sr.wr.requests, stat_pattern_name(sr.wr.pattern),
		 (unsigned long long)(sr.kinds[OP_FSYNC] + sr.kinds[OP_FDATASYNC]),
		 (unsigned long long)sr.kinds[OP_OPEN], fo);
	stat_release(&sr);
}

/* The workload the run replays: the ranks the filter keeps, cut to -n
 * (one copy's when ranks are reused).  When --ranks or -n left ranks out,
 * a second line gives the whole trace's: every rank, the same path rules. */
static void workload_line(struct run_state *st, const struct run_cli *c)
{
	const struct filter *f = &st->filt;
	const struct plan *p = &st->plan;
	char prefix[128], copy[64] = "";
	uint32_t last = p->reused && p->nranks_used ? (uint32_t)(p->nprocs % p->nranks_used) : 0;
	if (p->reused && last)
		snprintf(copy, sizeof(copy), ", per copy (the last copy: the first %u)", last);
	else if (p->reused)
		snprintf(copy, sizeof(copy), ", per copy");
	if (f->nkept < st->s.nranks)
		snprintf(prefix, sizeof(prefix), "%u of the trace's %u ranks replayed%s", f->nkept,
			 st->s.nranks, copy);
	else
		snprintf(prefix, sizeof(prefix), "all %u rank%s%s", f->nkept, f->nkept == 1 ? "" : "s",
			 copy);
	workload_text(st->workload, sizeof(st->workload), prefix, &st->s, f);
	st->workload_all[0] = 0;
	if (!f->ranks_unselected && !f->ranks_beyond)
		return;
	struct filter_opts every = c->fo;
	struct filter whole;
	struct rerr e = { .msg = "" };
	memset(&every.ranks, 0, sizeof(every.ranks));
	if (filter_build(&whole, &st->s, &every, &e) < 0)
		return;
	if (whole.nkept < st->s.nranks)     /* some with no op the path rules keep */
		snprintf(prefix, sizeof(prefix), "whole trace, the %u ranks with ops kept", whole.nkept);
	else
		snprintf(prefix, sizeof(prefix), "whole trace, all %u rank%s", whole.nkept,
			 whole.nkept == 1 ? "" : "s");
	workload_text(st->workload_all, sizeof(st->workload_all), prefix, &st->s, &whole);
	filter_release(&whole);
}

static void fill_report_info(struct run_state *st, const struct run_cli *c)
{
	struct report_info *ri = &st->ri;
	memset(ri, 0, sizeof(*ri));
	ri->version = REPLAY_VERSION;
	ri->timestamp = time(NULL);
	ri->traces = c->traces;
	ri->ntraces = (size_t)c->ntraces;
	ri->format = st->lr.format;
	ri->mode = c->mode;
	ri->processes = (unsigned)st->plan.nprocs;
	ri->ranks = st->s.nranks;
	ri->ranks_used = st->plan.nranks_used;
	ri->copies = st->plan.ncopies;
	ri->reused = st->plan.reused;
	ri->engine = c->ro.engine->name;
	ri->depth = c->ro.depth;
	ri->direct = c->ro.direct;
	ri->overlap = c->ro.overlap;
	ri->bind = c->bind;
	ri->repeats = (unsigned)c->repeats;
	ri->drop_caches = c->ro.drop_caches;
	ri->target = c->target;
	ri->ti = st->have_ti ? &st->ti : NULL;
	ri->filter = &st->filt;
	ri->order = st->plan.sequential ? "alone" : st->plan.ordered ? "resource" : "none";
	ri->dependencies = st->plan.ord.total_deps;
	ri->barriers = st->plan.nbars > 0;
	ri->on_mismatch = c->ro.continue_on_error ? "warn" : mismatch_policy_name(c->ro.on_mismatch);
	const char *inc = opstream_info(&st->s, "incomplete", st->incomplete, sizeof(st->incomplete));
	ri->trace_incomplete = inc && *inc ? inc : NULL;
	const char *cut = opstream_info(&st->s, "cut_lines", st->cut_lines, sizeof(st->cut_lines));
	ri->trace_cut_lines = cut ? strtoull(cut, NULL, 10) : 0;
	ri->trace_cut_line = ri->trace_cut_lines ?
			     opstream_info(&st->s, "cut_line", st->cut_line, sizeof(st->cut_line)) : NULL;
	ri->trace_no_clock = opstream_info(&st->s, "no_common_clock", st->no_clock,
					   sizeof(st->no_clock));
	ri->timing = timing_name(c->ro.timing);
	ri->clock = st->clock;
	ri->speed = c->ro.speed > 0 ? c->ro.speed : 1.0;
	ri->traced = st->traced.have_dur ? &st->traced : NULL;
	workload_line(st, c);
	ri->workload = st->workload;
	ri->workload_all = st->workload_all;
	if (runner_topo(st->runner)) {
		topo_get_summary(runner_topo(st->runner), &st->tsum);
		ri->topo = &st->tsum;
	}
}

/* The runner, the results document and the totals. */
static int prepare_run(struct run_state *st, struct run_cli *c)
{
	struct rerr e = { .msg = "" };
	st->have_ti = target_info_get(c->target, &st->ti) == 0;
	diskutil_init(&st->disk, st->have_ti ? st->ti.disk : NULL);   /* none: disk_util [] */
	if (st->have_ti && c->ro.direct)
		c->ro.logical_block = st->ti.logical_block;
	if (runner_signal()) {
		die_msg("interrupted by signal %d (%s)", runner_signal(), strsignal(runner_signal()));
		return -EINTR;
	}
	/* all of a parallel run's workers at once: refused before anything is
	 * prepared when the node cannot start them (replay-mpi's runners
	 * start their node's share: fork says) */
	if (!c->x && c->ro.mode != RUN_SEQUENTIAL && runner_room((unsigned)st->plan.nprocs, &e) < 0) {
		die_msg("%s", e.msg);
		return -EAGAIN;
	}
	const char *why;
	if (clock_setup(c->clock, &why) < 0) {
		die_msg("--clock tsc: not usable here: %s (use auto or monotonic)", why);
		return -ENOTSUP;
	}
	int ret = runner_init(&st->runner, &st->plan, &st->s, &c->ro, &e);
	if (ret < 0) {
		die_msg("%s", e.msg);
		return ret;
	}
	clock_start();          /* the TSC's rate measured across runner_init */
	st->clock = c->clock == CLOCK_SRC_NONE ? "none" : clock_name(clock_current());
	if (c->x && c->x->runner && c->x->runner(c->x->ctx, st->runner) < 0)
		return -EINVAL;
	fill_report_info(st, c);
	st->doc = report_doc_new(&st->ri);
	st->agg = malloc(sizeof(*st->agg));
	if (!st->doc || !st->agg) {
		die_msg("out of memory");
		return -ENOMEM;
	}
	report_agg_init(st->agg);
	st->agg->traced = &st->traced;  /* fidelity: the same processes' times */
	/* "FILE:LINE" only when the ops came from one file (an .ops names the
	 * trace it was made of); else the examples name the rank */
	st->agg->mm_src = opstream_source_file(&st->s, st->source, sizeof(st->source));
	st->agg->s = &st->s;
	if (st->plan.reused && !c->quiet)
		fprintf(stderr, "replay: %zu processes for %u rank%s: ranks reused round-robin,"
			" each reuse on its own copy of the files (%u copies)\n",
			st->plan.nprocs, st->plan.nranks_used, st->plan.nranks_used == 1 ? "" : "s",
			st->plan.ncopies);
	return 0;
}

/* One repeat: run, add it to the results, clean up for the next one.
 * 1: go on; 0: the last one done; -errno: stop (said). */
static int one_repeat(struct run_state *st, struct run_cli *c, bool last)
{
	struct run_outcome out;
	struct rerr e = { .msg = "" }, ce = { .msg = "" };
	bool seq = c->ro.mode == RUN_SEQUENTIAL;
	struct disk_stat d0, d1;
	diskutil_read(&st->disk, &d0);
	uint64_t t0 = now_ns();
	int ret = runner_run(st->runner, &out, &e);
	uint64_t wall = now_ns() - t0;
	diskutil_read(&st->disk, &d1);
	if (ret >= 0 && last && !c->po.keep) {
		/* the results are built and written while it runs */
		plan_cleanup_start(&st->plan);
		st->cleanup_done = st->cleanup_bg = true;
	}
	if (ret < 0 && !out.completion_ns && !out.incomplete && !out.failed && !out.stop_signal) {
		die_msg("%s", e.msg);           /* nothing ran (preparation or cache drop failed) */
		return ret;
	}
	if (c->x && c->x->after_run && c->x->after_run(c->x->ctx, st->runner, &out, ret, &e) < 0)
		return -EIO;
	json_t *rj = report_run_json(runner_shared(st->runner), &out, seq);
	if ((rj && report_set(rj, "disk_util", diskutil_json(&st->disk, &d0, &d1, wall)) < 0) ||
	    report_add_run(st->doc, rj) < 0 ||
	    report_agg_add(st->agg, runner_shared(st->runner), &out, seq) < 0) {
		die_msg("out of memory");
		return -ENOMEM;
	}
	if (ret < 0) {
		die_msg("%s", e.msg);
		return ret;
	}
	if (!last) {
		if (plan_cleanup(&st->plan, &ce) < 0) {
			die_msg("%s", ce.msg);
			st->cleanup_done = true;  /* said once; not again after the loop */
			return -EIO;
		}
	}
	if (runner_signal()) {
		die_msg("interrupted by signal %d (%s)", runner_signal(), strsignal(runner_signal()));
		return -EINTR;
	}
	return last ? 0 : 1;
}

static int run_repeats(struct run_state *st, struct run_cli *c)
{
	int ret = 1;
	for (uint64_t r = 0; r < c->repeats && ret == 1; r++)
		ret = one_repeat(st, c, r + 1 == c->repeats);
	if (ret < 0 && !c->po.keep && !st->cleanup_done) {
		struct rerr ce = { .msg = "" };
		if (plan_cleanup(&st->plan, &ce) < 0)
			die_msg("%s", ce.msg);
	}
	return ret < 0 ? ret : 0;
}

/* The run completed, but results differed from the trace (the policy let
 * it go on): say so.  --continue-on-error makes that a failure (1). */
static int mismatches(const struct report_agg *agg, const struct run_cli *c)
{
	char list[512] = "", name[32];
	size_t len = 0;
	uint64_t n = 0;
	for (int k = 0; k < MM_KINDS; k++) {
		if (!agg->mismatch[k])
			continue;
		n += agg->mismatch[k];
		int m = snprintf(list + len, sizeof(list) - len, "%s%s %llu", len ? ", " : "",
				 op_kind_name((enum op_kind)k), (unsigned long long)agg->mismatch[k]);
		if (m > 0 && (size_t)m < sizeof(list) - len)
			len += (size_t)m;
	}
	for (int k = 1; k < RES_MAX_ERRNO && len < sizeof(list); k++)
		if (agg->errno_counts[k]) {
			int m = snprintf(list + len, sizeof(list) - len, "; %s %llu",
					 report_errno_name(k, name, sizeof(name)),
					 (unsigned long long)agg->errno_counts[k]);
			if (m > 0 && (size_t)m < sizeof(list) - len)
				len += (size_t)m;
		}
	if (!n)
		return 0;
	if (c->ro.continue_on_error) {
		die_msg("%llu replayed op%s failed or moved fewer bytes than traced (%s)",
			(unsigned long long)n, n == 1 ? "" : "s", list);
		return 1;
	}
	if (c->ro.on_mismatch != MM_IGNORE)
		warn_msg("%llu replayed op%s did not get the traced result (%s): see 'mismatches'",
			 (unsigned long long)n, n == 1 ? "" : "s", list);
	if (c->ro.on_mismatch != MM_IGNORE && agg->open_failed_ops)
		warn_msg("%llu op%s on the descriptors those failed opens did not give were not"
			 " issued (%s of reads and writes): the run replayed part of the workload"
			 " (not_issued.open_failed in the JSON)",
			 (unsigned long long)agg->open_failed_ops, agg->open_failed_ops == 1 ? "" : "s",
			 fmt_bytes(name, sizeof(name), (double)agg->open_failed_bytes));
	return 0;
}

/* The summary on stdout, the JSON file; the exit status. */
static int report_results(struct run_state *st, const struct run_cli *c, int ret)
{
	bool root = !c->x || c->x->root;
	if (report_timing_add(st->doc, &st->ri, st->agg) < 0 ||
	    (c->x && c->x->report && c->x->report(c->x->ctx, st->doc) < 0) ||
	    report_finish(st->doc) < 0) {
		die_msg("out of memory");
		return 1;
	}
	bool json_out = c->ofmt && !c->output;   /* the JSON is the stdout */
	if (st->agg->nruns && root && !json_out) {
		report_print(stdout, &st->ri, st->agg);
		if (c->x && c->x->print)
			c->x->print(c->x->ctx, stdout);
	}
	if (c->output) {
		struct rerr we = { .msg = "" };
		if (report_write(st->doc, c->output, &we) < 0) {
			die_msg("%s", we.msg);
			return 1;
		}
	}
	if (json_out && root) {
		size_t tlen;
		char *text = json_text(st->doc, &tlen);
		if (!text) {
			die_msg("cannot write the JSON to stdout: out of memory");
			return 1;
		}
		bool bad = fwrite(text, 1, tlen, stdout) != tlen || fputc('\n', stdout) == EOF ||
			   fflush(stdout);
		free(text);
		if (bad) {
			die_msg("cannot write the JSON to stdout: %s", strerror(errno));
			return 1;
		}
	}
	if (ret < 0)
		return 1;
	return root ? mismatches(st->agg, c) : 0;
}

static void run_release(struct run_state *st)
{
	traced_times_release(&st->traced);
	if (st->agg) {
		report_agg_release(st->agg);
		free(st->agg);
	}
	json_decref(st->doc);
	runner_free(st->runner);
	if (st->have_plan)
		plan_release(&st->plan);
	if (st->have_filter)
		filter_release(&st->filt);
	if (st->have_ops)
		opstream_close(&st->s);
	trace_load_opened(&st->lr);
}

static const struct run_cli run_defaults = {
	.ro = { .mode = RUN_PARALLEL, .depth = 1, .bind = BIND_SPREAD, .drop_caches = true,
		.sample_interval_ns = 1000000ull },
	.engine = "sync", .mode = "parallel", .bind = "spread", .repeats = 1
};

int cmd_run_parse(int argc, char **argv)
{
	struct run_cli c = run_defaults;
	int ret = parse_args(argc, argv, &c);
	filter_opts_release(&c.fo);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	return cmd_run_ext(argc, argv, NULL);
}

/* "replay: start|end 2026-11-25T08:40:01Z ..." on stderr, so a batch log
 * says when the timed part began and ended (not with --quiet). */
static void stamp_line(const struct run_cli *c, size_t nprocs, const char *what, int status)
{
	char t[32];
	if (c->quiet || (c->x && !c->x->root))
		return;
	fprintf(stderr, "replay: %s %s", what, fmt_utc_now(t, sizeof(t)));
	if (status < 0)
		fprintf(stderr, ": %s, %zu process%s, %llu run%s, %s -> %s\n", c->mode,
			nprocs, nprocs == 1 ? "" : "es", (unsigned long long)c->repeats,
			c->repeats == 1 ? "" : "s", c->traces[0], c->target);
	else
		fprintf(stderr, ": exit status %d\n", status);
}

/* A run stopped by a signal exits 128 + it; one that landed where nothing
 * reported it (the cleanup after the last run, the summary, the JSON)
 * still needs its one-line reason. */
static void interrupted_status(int *status)
{
	int sig = runner_signal();
	if (!sig || *status == 128 + sig)
		return;
	if (*status == 0)
		die_msg("interrupted by signal %d (%s)", sig, strsignal(sig));
	*status = 128 + sig;
}

/* One run at a time in a target directory: two at once each prepare,
 * write and remove files the other uses, and both report figures of the
 * mix.  An exclusive flock on the directory, held until the end (the
 * workers share it); replay-mpi's processes share their target on
 * purpose and take none.  Where the file system has no flock, no check.
 * The descriptor, -1 when none is held, or -2 (said) when another run
 * holds it. */
static int target_lock(const char *target)
{
	int fd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;              /* the plan says what is wrong */
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return fd;
	int err = errno;
	close(fd);
	if (err != EWOULDBLOCK)
		return -1;
	die_msg("another replay run is replaying into '%s' now (the files of one would be"
		" the other's, and its figures the mix's): wait for it to end, or give another"
		" directory", target);
	return -2;
}

int cmd_run_ext(int argc, char **argv, const struct run_ext *x)
{
	struct run_cli c = run_defaults;
	c.x = x;
	struct run_state st;
	int status = 1, ret;

	ret = parse_args(argc, argv, &c);
	if (!ret && check_setup(&c))
		ret = 2;
	if (ret) {
		filter_opts_release(&c.fo);
		return ret == 1 ? 0 : 2;
	}
	/* batch logs see each line as it comes (nothing was written to
	 * stdout yet: --help and usage errors returned above) */
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&st, 0, sizeof(st));
	st.plan.target_fd = -1;
	int lock = !x && !c.dry ? target_lock(c.target) : -1;
	if (lock == -2)
		goto out;
	if (load_and_plan(&st, &c) < 0) {
		status = st.usage ? 2 : 1;
		goto out;
	}
	if (c.dry && x && !x->root) {
		status = 0;
		goto out;
	}
	if (c.dry) {
		/* the plan is text: nothing was run, so no results to write */
		if ((c.output || c.ofmt) && (!x || x->root))
			warn_msg("--dry-run prints the plan as text and writes no results: %s%s%s ignored",
				 c.output ? "-o" : "", c.output && c.ofmt ? " and " : "",
				 c.ofmt ? "--output-format" : "");
		struct rerr re = { .msg = "" };
		if (!x && c.ro.mode != RUN_SEQUENTIAL && runner_room((unsigned)st.plan.nprocs, &re) < 0)
			warn_msg("the run would stop at once: %s", re.msg);
		plan_print(&st.plan, &st.s, stdout);
		report_filter_print(stdout, &st.filt, st.plan.ncopies);
		runner_print_buffers(&st.plan, &st.s, &c.ro, stdout);
		status = 0;
		goto out;
	}
	if (prepare_run(&st, &c) < 0)
		goto out;
	stamp_line(&c, st.plan.nprocs, "start", -1);
	status = report_results(&st, &c, run_repeats(&st, &c));
	if (st.cleanup_bg) {
		struct rerr ce = { .msg = "" };
		if (plan_cleanup_wait(&st.plan, &ce) < 0) {
			die_msg("%s", ce.msg);
			status = status ? status : 1;
		}
	}
	interrupted_status(&status);     /* the end line says the status returned */
	stamp_line(&c, st.plan.nprocs, "end", status);
out:
	fflush(stdout);
	interrupted_status(&status);
	run_release(&st);
	filter_opts_release(&c.fo);
	if (lock >= 0)
		close(lock);
	return status;
}
