/*
 * cmd_run.c - `replay [run] [OPTIONS] TRACE... TARGET_DIR`: replay a trace
 * on a target directory and report the completion time.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "engine/engine.h"
#include "ops/opstream.h"
#include "plan/plan.h"
#include "report/report.h"
#include "run/runner.h"
#include "run/topo.h"
#include "trace/dxt.h"
#include "trace/trace.h"
#include "util/util.h"

const char usage_run[] =
	"usage: replay [run] [OPTIONS] TRACE... TARGET_DIR\n"
	"\n"
	"Replay the traced I/O of TRACE on files beneath TARGET_DIR and report the\n"
	"completion time (cache dropped before, delayed writes flushed after).\n"
	"\n"
	"  -m, --mode MODE          parallel (default): all processes at once;\n"
	"                           sequential: one rank at a time, each alone\n"
	"  -n, --processes N        replay ranks 0..N-1 (default: all ranks; more\n"
	"                           than the trace has: ranks reused round-robin)\n"
	"  -e, --engine ENGINE      sync (default), libaio, io_uring, null\n"
	"  -q, --depth DEPTH        requests in flight per process (default 1)\n"
	"      --overlap            run ahead over independent reads/writes (up to -q)\n"
	"      --direct             open files O_DIRECT (requests rounded to blocks)\n"
	"      --bind MODE          spread (default: workers over cores), core, numa, none\n"
	"  -r, --repeats R          run R times (files re-prepared, caches dropped)\n"
	"  -o, --output FILE.json   write fio-like JSON results (atomically)\n"
	"      --format F           trace format: strace, lanl, sandia, dxt, fio-iolog\n"
	"                           (default: detect)\n"
	"      --dxt-layer L        DXT traces: posix (default) or mpiio\n"
	"      --dry-run            print the plan (files, sizes, ranks) and exit\n"
	"      --force              allow overwriting existing files in TARGET_DIR\n"
	"      --keep               keep the files the run created\n"
	"      --no-drop-caches     do not drop the page cache (recorded as skipped)\n"
	"      --continue-on-error  count failing ops and go on\n"
	"      --sample-interval MS timeline sampling interval (default 100)\n"
	"      --quiet              no progress line\n"
	"  -h, --help               this text\n";

enum {
	OPT_OVERLAP = 256, OPT_DIRECT, OPT_BIND, OPT_FORMAT, OPT_DRY, OPT_FORCE, OPT_KEEP,
	OPT_NODROP, OPT_CONT, OPT_SAMPLE, OPT_QUIET, OPT_DXT_LAYER,
};

static const struct option longopts[] = {
	{ "mode", required_argument, NULL, 'm' },
	{ "processes", required_argument, NULL, 'n' },
	{ "engine", required_argument, NULL, 'e' },
	{ "depth", required_argument, NULL, 'q' },
	{ "overlap", no_argument, NULL, OPT_OVERLAP },
	{ "direct", no_argument, NULL, OPT_DIRECT },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "repeats", required_argument, NULL, 'r' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "dxt-layer", required_argument, NULL, OPT_DXT_LAYER },
	{ "dry-run", no_argument, NULL, OPT_DRY },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "no-drop-caches", no_argument, NULL, OPT_NODROP },
	{ "continue-on-error", no_argument, NULL, OPT_CONT },
	{ "sample-interval", required_argument, NULL, OPT_SAMPLE },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_count(const char *opt, const char *arg, uint64_t lo, uint64_t hi, uint64_t *v)
{
	if (parse_u64(arg, strlen(arg), v) < 0 || *v < lo || *v > hi) {
		die_msg("invalid %s '%s': expected a number from %llu to %llu", opt, arg,
			(unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	return 0;
}

static void short_usage(void)
{
	fputs("usage: replay [run] [OPTIONS] TRACE... TARGET_DIR (see 'replay help run')\n", stderr);
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = runner_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;      /* no SA_RESTART: waits return EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int cmd_run(int argc, char **argv)
{
	struct runner_opts ro = { .mode = RUN_PARALLEL, .depth = 1, .bind = BIND_SPREAD,
				  .drop_caches = true, .sample_interval_ns = 100000000ull };
	struct plan_opts po = { 0 };
	struct load_opts lo = { 0 };
	struct load_result lr;
	struct opstream s;
	struct plan plan;
	struct target_info ti;
	struct topo_summary tsum;
	struct report_info ri;
	struct report_agg *agg = NULL;
	struct runner *runner = NULL;
	struct rerr e = { .msg = "" };
	json_t *doc = NULL;
	const char *engine = "sync", *output = NULL, *mode = "parallel", *bind = "spread";
	bool dry = false, quiet = false, have_ops = false, have_plan = false, have_ti = false;
	bool stopped_cleanup_done = false;
	uint64_t v, repeats = 1;
	int opt, ret = 0, status = 1, ntraces;
	char **traces;
	const char *target;

	memset(&lr, 0, sizeof(lr));
	memset(&s, 0, sizeof(s));
	memset(&plan, 0, sizeof(plan));
	plan.target_fd = -1;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":m:n:e:q:r:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (!strcmp(optarg, "parallel")) {
				ro.mode = RUN_PARALLEL;
			} else if (!strcmp(optarg, "sequential")) {
				ro.mode = RUN_SEQUENTIAL;
			} else {
				die_msg("invalid mode '%s': expected 'parallel' or 'sequential'", optarg);
				return 2;
			}
			mode = optarg;
			break;
		case 'n':
			if (parse_count("process count", optarg, 1, 1u << 20, &v))
				return 2;
			po.nprocs = (unsigned)v;
			break;
		case 'e':
			engine = optarg;
			break;
		case 'q':
			if (parse_count("depth", optarg, 1, 65536, &v))
				return 2;
			ro.depth = (unsigned)v;
			break;
		case OPT_OVERLAP:
			ro.overlap = true;
			break;
		case OPT_DIRECT:
			ro.direct = true;
			break;
		case OPT_BIND: {
			enum bind_mode bm;

			if (topo_parse_bind(optarg, &bm) < 0) {
				die_msg("invalid bind mode '%s': expected none, core, numa or spread", optarg);
				return 2;
			}
			ro.bind = bm;
			bind = topo_bind_name(bm);
			break;
		}
		case 'r':
			if (parse_count("repeat count", optarg, 1, 100000, &repeats))
				return 2;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_FORMAT:
			lo.format = optarg;
			break;
		case OPT_DXT_LAYER: {
			enum dxt_layer dl;

			if (dxt_layer_parse(optarg, &dl) < 0) {
				die_msg("invalid DXT layer '%s': expected 'posix' or 'mpiio'", optarg);
				return 2;
			}
			lo.dxt_layer = optarg;
			break;
		}
		case OPT_DRY:
			dry = true;
			break;
		case OPT_FORCE:
			po.force = true;
			break;
		case OPT_KEEP:
			po.keep = true;
			break;
		case OPT_NODROP:
			ro.drop_caches = false;
			break;
		case OPT_CONT:
			ro.continue_on_error = true;
			break;
		case OPT_SAMPLE:
			if (parse_count("sample interval", optarg, 1, 3600000, &v))
				return 2;
			ro.sample_interval_ns = v * 1000000ull;
			break;
		case OPT_QUIET:
			quiet = true;
			break;
		case 'h':
			fputs(usage_run, stdout);
			return 0;
		case ':':
			die_msg("option '%s' needs a value", argv[optind - 1]);
			short_usage();
			return 2;
		default:
			die_msg("unknown option '%s'", argv[optind - 1]);
			short_usage();
			return 2;
		}
	}
	if (argc - optind < 2) {
		die_msg(argc - optind == 1 ? "missing TARGET_DIR after the trace"
					   : "missing TRACE and TARGET_DIR");
		short_usage();
		return 2;
	}
	traces = argv + optind;
	ntraces = argc - optind - 1;
	target = argv[argc - 1];
	ro.engine = engine_find(engine);
	if (!ro.engine) {
		die_msg("unknown engine '%s': expected one of %s", engine, engine_names());
		return 2;
	}
	if (ro.depth > 1 && (ro.engine->flags & ENGINE_F_SYNC) && !quiet)
		warn_msg("engine '%s' completes every request at once: -q %u has no effect",
			 engine, ro.depth);
	if (engine_warn_buffered(ro.engine, ro.direct) && !quiet)
		warn_msg("libaio without --direct: the kernel completes buffered requests at"
			 " submission, so they do not overlap");
	ro.progress = !quiet && isatty(STDERR_FILENO);

	/* parsing a big trace can take long: Ctrl-C simply ends it (the loader
	 * writes its .ops atomically); from here on the run handles signals */
	ret = trace_load(traces, ntraces, &lo, NULL, &lr, &e);
	if (ret < 0) {
		die_msg("%s", e.msg);
		goto out;
	}
	install_signals();
	{
		const char *why = NULL;

		ret = opstream_open(&s, lr.ops_path, &why);
		if (ret < 0) {
			die_msg("cannot read '%s': %s", lr.ops_path, why ? why : strerror(-ret));
			goto out;
		}
		have_ops = true;
	}
	{
		char wb[512];

		if (dxt_incomplete_warning(&s, wb, sizeof(wb)))
			warn_msg("%s: %s", traces[0], wb);
	}
	ret = plan_build(&plan, &s, target, &po, &e);
	if (ret < 0) {
		die_msg("%s", e.msg);
		goto out;
	}
	have_plan = true;
	if (dry) {
		plan_print(&plan, &s, stdout);
		status = 0;
		goto out;
	}
	have_ti = target_info_get(target, &ti) == 0;
	if (have_ti && ro.direct)
		ro.logical_block = ti.logical_block;

	if (runner_signal()) {
		die_msg("interrupted by signal %d (%s)", runner_signal(), strsignal(runner_signal()));
		goto out;
	}
	ret = runner_init(&runner, &plan, &s, &ro, &e);
	if (ret < 0) {
		die_msg("%s", e.msg);
		goto out;
	}
	memset(&ri, 0, sizeof(ri));
	ri.version = REPLAY_VERSION;
	ri.timestamp = time(NULL);
	ri.traces = traces;
	ri.ntraces = (size_t)ntraces;
	ri.format = lr.format;
	ri.mode = mode;
	ri.processes = (unsigned)plan.nprocs;
	ri.ranks = s.nranks;
	ri.ranks_used = plan.nranks_used;
	ri.copies = plan.ncopies;
	ri.reused = plan.reused;
	ri.engine = ro.engine->name;
	ri.depth = ro.depth;
	ri.direct = ro.direct;
	ri.overlap = ro.overlap;
	ri.bind = bind;
	ri.repeats = (unsigned)repeats;
	ri.drop_caches = ro.drop_caches;
	ri.target = target;
	ri.ti = have_ti ? &ti : NULL;
	if (runner_topo(runner)) {
		topo_get_summary(runner_topo(runner), &tsum);
		ri.topo = &tsum;
	}
	doc = report_doc_new(&ri);
	agg = malloc(sizeof(*agg));
	if (!doc || !agg) {
		die_msg("out of memory");
		goto out;
	}
	{
		/* a trace cut short (DXT's buffer filled up) says so in the results */
		char inc[128];
		const char *iv = opstream_info(&s, "incomplete", inc, sizeof(inc));

		json_object_set_new(json_object_get(doc, "options"), "trace_incomplete",
				    iv && *iv ? json_string(iv) : json_false());
	}
	report_agg_init(agg);
	if (plan.reused && !quiet)
		fprintf(stderr, "replay: %zu processes for %u ranks: ranks reused round-robin,"
			" each reuse on its own copy of the files (%u copies)\n",
			plan.nprocs, plan.nranks_used, plan.ncopies);

	ret = 0;
	for (uint64_t r = 0; r < repeats; r++) {
		struct run_outcome out;
		struct rerr ce = { .msg = "" };
		bool last = r + 1 == repeats;

		ret = runner_run(runner, &out, &e);
		if (ret < 0 && !out.completion_ns && !out.incomplete && !out.failed &&
		    !out.stop_signal) {
			/* nothing ran (preparation or cache drop failed) */
			die_msg("%s", e.msg);
			break;
		}
		if (report_add_run(doc, report_run_json(runner_shared(runner), &out,
							ro.mode == RUN_SEQUENTIAL)) < 0 ||
		    report_agg_add(agg, runner_shared(runner), &out, ro.mode == RUN_SEQUENTIAL) < 0) {
			die_msg("out of memory");
			ret = -ENOMEM;
			break;
		}
		if (ret < 0) {
			die_msg("%s", e.msg);
			break;
		}
		if (!last || !po.keep) {
			if (plan_cleanup(&plan, &ce) < 0) {
				die_msg("%s", ce.msg);
				ret = -EIO;
				stopped_cleanup_done = true;  /* said once; not again below */
				break;
			}
			if (last)
				stopped_cleanup_done = true;
		}
		if (runner_signal()) {
			ret = -EINTR;
			die_msg("interrupted by signal %d (%s)", runner_signal(),
				strsignal(runner_signal()));
			break;
		}
	}
	if (ret < 0 && !po.keep && !stopped_cleanup_done) {
		struct rerr ce = { .msg = "" };

		if (plan_cleanup(&plan, &ce) < 0)
			die_msg("%s", ce.msg);
	}
	if (report_finish(doc) < 0) {
		die_msg("out of memory");
		goto out;
	}
	if (agg->nruns)
		report_print(stdout, &ri, agg);
	if (output) {
		struct rerr we = { .msg = "" };

		if (report_write(doc, output, &we) < 0) {
			die_msg("%s", we.msg);
			goto out;
		}
	}
	status = ret < 0 ? 1 : 0;
	if (!ret) {
		/* --continue-on-error: the run completed, but ops failed */
		char list[512] = "", name[32];
		size_t len = 0;
		uint64_t nfail = 0;

		for (int k = 1; k < RES_MAX_ERRNO; k++) {
			if (!agg->errno_counts[k])
				continue;
			nfail += agg->errno_counts[k];
			if (len < sizeof(list)) {
				int n = snprintf(list + len, sizeof(list) - len, "%s%s %llu", len ? ", " : "",
						 report_errno_name(k, name, sizeof(name)),
						 (unsigned long long)agg->errno_counts[k]);
				if (n > 0)
					len += (size_t)n;
			}
		}
		if (nfail) {
			die_msg("%llu replayed op%s failed (%s)", (unsigned long long)nfail,
				nfail == 1 ? "" : "s", list);
			status = 1;
		}
	}
out:
	fflush(stdout);
	if (runner_signal()) {
		/* a signal that landed where nothing reported it (the cleanup
		 * after the last run, the summary, the JSON) still needs its
		 * one-line reason */
		if (status == 0)
			die_msg("interrupted by signal %d (%s)", runner_signal(),
				strsignal(runner_signal()));
		status = 128 + runner_signal();
	}
	if (agg) {
		report_agg_release(agg);
		free(agg);
	}
	json_decref(doc);
	runner_free(runner);
	if (have_plan)
		plan_release(&plan);
	if (have_ops)
		opstream_close(&s);
	if (lr.temporary && lr.ops_path[0])
		unlink(lr.ops_path);
	return status;
}
