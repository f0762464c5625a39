/*
 * main.c - replay-mpi: `replay run` as an MPI program (DESIGN.md,
 * "replay-mpi").  Every MPI process loads the trace and builds the same
 * plan; the plan's processes are placed on the MPI processes
 * (--placement), each MPI process forks the workers of its share with the
 * ordinary runner, and its parent relays progress and barriers between
 * MPI processes (relay.c).  The root (MPI rank 0) writes the one report.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>

#include "cmd/cmds.h"
#include "cmd/options.h"
#include "mpi/mpi_run.h"
#include "mpi/place.h"
#include "mpi/relay.h"
#include "report/report.h"
#include "run/runner.h"
#include "util/util.h"

struct mpi_ctx g_mpi;

/* ---- options ------------------------------------------------------------ */

static int mpi_option(void *ctx, int id, const char *arg)
{
	struct mpi_ctx *m = ctx;
	if (id == OPT_PLACEMENT) {
		m->placement = place_parse(arg);
		if (m->placement < 0) {
			die_msg("invalid --placement '%s': expected block, cyclic or hosts", arg);
			return -1;
		}
		return 0;
	}
	if (id == OPT_TARGET) {
		if (strcmp(arg, "shared") && strcmp(arg, "local")) {
			die_msg("invalid --target '%s': expected shared or local", arg);
			return -1;
		}
		m->target_kind = !strcmp(arg, "shared") ? 1 : 0;
		m->target_why = "--target";
		return 0;
	}
	return -1;
}

/* Shared or local target: --target, else the file system's statfs magic. */
static void detect_target(struct mpi_ctx *m, const char *target)
{
	struct statfs sf;
	const char *name = NULL;
	if (statfs(target, &sf) == 0) {
		int shared = fs_magic_shared((unsigned long)sf.f_type, &name);
		snprintf(m->fs_name, sizeof(m->fs_name), "%s", name ? name : "");
		m->fs_magic = (unsigned long)sf.f_type & 0xFFFFFFFFul;
		if (m->target_kind < 0) {
			m->target_kind = shared;
			m->target_why = "statfs";
		}
	}
	if (m->target_kind < 0) {
		m->target_kind = 0;
		m->target_why = "statfs failed: local";
	}
}

static int mpi_setup(void *ctx, const char *target, struct runner_opts *ro, struct plan_opts *po,
		     bool *quiet, const char **output)
{
	struct mpi_ctx *m = ctx;
	m->phase = 1;
	if (ro->mode != RUN_PARALLEL) {
		die_msg("-m sequential replays one rank at a time on one node: use 'replay run'");
		return -1;
	}
	detect_target(m, target);
	/* shared: MPI rank 0 prepares and cleans up; local: one process per node */
	m->preparer = m->target_kind ? m->rank == 0 : m->node_rank == 0;
	if (!m->preparer)
		po->keep = true;
	m->keep = po->keep;
	if (m->rank != 0) {
		*quiet = true;
		*output = NULL;
	}
	m->output = *output;
	return 0;
}

/* ---- placement -------------------------------------------------------- */

/* Dense ids of the traced hosts of the plan processes; NULL when a rank has
 * none. */
static uint32_t *trace_hosts(const struct plan *p, const struct opstream *s)
{
	uint32_t *id = calloc(p->nprocs, sizeof(*id)), n = 0;
	const char **names = calloc(p->nprocs, sizeof(*names));
	if (!id || !names)
		goto fail;
	for (size_t i = 0; i < p->nprocs; i++) {
		const char *h = opstream_rank_host(s, p->procs[i].rank);
		uint32_t k;
		if (!h || !*h)
			goto fail;
		for (k = 0; k < n && strcmp(names[k], h); k++)
			;
		if (k == n)
			names[n++] = h;
		id[i] = k;
	}
	free(names);
	return id;
fail:
	free(id);
	free(names);
	return NULL;
}

static void print_placement(const struct mpi_ctx *m, const struct plan *p)
{
	uint32_t *list = malloc(p->nprocs * sizeof(*list));
	FILE *f = m->json_stdout ? stderr : stdout;
	char buf[256];
	if (!list)
		return;
	fprintf(f, "replay-mpi: %d MPI processes on %d node%s, placement %s, target %s (%s%s%s)\n",
	       m->size, m->nnodes, m->nnodes == 1 ? "" : "s", place_name(m->placement),
	       m->target_kind ? "shared" : "local", m->target_why,
	       m->fs_name[0] ? ": " : "", m->fs_name);
	for (int q = 0; q < m->size; q++) {
		size_t n = 0;
		bool one;
		for (size_t i = 0; i < p->nprocs; i++)
			if (m->owner[i] == (uint32_t)q)
				list[n++] = (uint32_t)i;
		fmt_proc_ranks(p->procs, list, n, p->reused, buf, sizeof(buf), &one);
		fprintf(f, "  MPI rank %d on %s: trace rank%s %s\n", q, m->hosts + (size_t)q * HOSTLEN,
		       one ? "" : "s", buf);
	}
	free(list);
	fflush(f);
}

static int mpi_planned(void *ctx, const struct plan *p, const struct opstream *s)
{
	struct mpi_ctx *m = ctx;
	char why[256];
	uint32_t *th = NULL;
	m->plan = p;
	m->s = s;
	if (!opstream_source_file(s, m->trace_name, sizeof(m->trace_name)))
		m->trace_name[0] = '\0';
	m->owner = calloc(p->nprocs, sizeof(*m->owner));
	m->local = calloc(p->nprocs, 1);
	if (!m->owner || !m->local) {
		die_msg("out of memory");
		return -1;
	}
	if (m->placement == PLACE_HOSTS) {
		th = trace_hosts(p, s);
		if (!th) {
			if (m->rank == 0)
				warn_msg("--placement hosts: the trace records no host for some rank"
					 " (strace and Sandia traces do not; DXT and LANL ones do):"
					 " placing by block");
			m->placement = PLACE_BLOCK;
		}
	}
	int ret = place_procs(m->placement, (uint32_t)p->nprocs, (uint32_t)m->size, th,
			      m->node_of, m->owner, why, sizeof(why));
	free(th);
	if (ret < 0) {
		die_msg("%s", why);
		return -1;
	}
	for (size_t i = 0; i < p->nprocs; i++)
		m->local[i] = m->owner[i] == (uint32_t)m->rank;
	m->rl = relay_new(MPI_COMM_WORLD, p, s, m->owner);
	if (!m->rl) {
		die_msg("out of memory");
		return -1;
	}
	if (m->rank == 0)
		print_placement(m, p);
	mpi_measure_offsets(m);
	return 0;
}

/* ---- the runner's hooks ------------------------------------------------- */

static int hook_prepare(void *ctx, struct plan *p, bool drop, const char **drop_done,
			struct rerr *e)
{
	struct mpi_ctx *m = ctx;
	int ret = 0, ok, sig, anysig;
	relay_begin(m->rl, m->sh);
	/* every plan is built (its checks of the target done) before files appear */
	MPI_Barrier(MPI_COMM_WORLD);
	if (m->preparer)
		ret = plan_prepare(p, e);
	ok = ret >= 0;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!ok)
		return ret < 0 ? ret : rerr_set(e, -EIO, "another MPI process could not prepare"
						    " the target (its message above)");
	if (m->node_rank == 0) {
		if (drop)
			ret = runner_drop_caches();
		else
			sync();
	}
	ok = ret >= 0;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!ok)
		return ret < 0 ? rerr_set(e, ret, "cannot drop the page cache: "
					  "'/proc/sys/vm/drop_caches': %s", strerror(-ret))
			       : rerr_set(e, -EIO, "another node could not drop its page cache");
	*drop_done = drop ? "dropped (one process per node)" : "skipped (--no-drop-caches)";
	sig = runner_signal();
	MPI_Allreduce(&sig, &anysig, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (anysig && !sig)
		runner_on_signal(anysig);
	return 0;
}

static int hook_start(void *ctx, bool stopping)
{
	struct mpi_ctx *m = ctx;
	int stop = stopping, any = 0;
	MPI_Allreduce(&stop, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (!m->startup_ns)
		m->startup_ns = now_ns() - m->t_init;
	return !any;
}

static uint64_t hook_tick(void *ctx, struct run_shared *sh)
{
	return relay_tick(((struct mpi_ctx *)ctx)->rl, sh);
}

static void hook_finish(void *ctx, struct run_shared *sh)
{
	relay_flush(((struct mpi_ctx *)ctx)->rl, sh);
}

/* Each node flushes once, when its processes' workers are all done (a
 * stopped or failed process tells the others first: they may be waiting
 * for it). */
static int hook_flush(void *ctx, int dir_fd, bool wanted)
{
	struct mpi_ctx *m = ctx;
	int w = wanted, all = 0, rc = 0;
	if (!wanted) {
		if (runner_signal())
			relay_tick(m->rl, m->sh);      /* sends the stop */
		else
			relay_fail(m->rl);
	}
	MPI_Allreduce(&w, &all, 1, MPI_INT, MPI_MIN, m->node);
	if (all && m->node_rank == 0 && syncfs(dir_fd) < 0)
		rc = -errno;
	MPI_Bcast(&rc, 1, MPI_INT, 0, m->node);
	return all ? rc : 1;
}

static int mpi_runner(void *ctx, struct runner *r)
{
	struct mpi_ctx *m = ctx;
	struct runner_hooks h = { .ctx = m, .local = m->local, .prepare = hook_prepare,
				  .start = hook_start, .tick = hook_tick, .finish = hook_finish,
				  .flush = hook_flush };
	m->sh = runner_shared_rw(r);
	runner_set_hooks(r, &h);
	return 0;
}

/* A failed run is the job's failure: it names the MPI rank, the host and
 * the trace; the others stop, the root writes what ran (failed), the
 * preparer removes the files, then the failed process aborts the job. */
static int mpi_after_run(void *ctx, struct runner *r, struct run_outcome *out, int ret,
			 struct rerr *e)
{
	struct mpi_ctx *m = ctx;
	bool here = ret < 0 && !out->stop_signal && !runner_signal();
	int who = here ? m->rank + 1 : 0, peer = relay_failed_peer(m->rl);
	if (here)
		relay_fail(m->rl);      /* once: relay_fail says it at most once a run */
	relay_end(m->rl);
	MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (here) {
		m->failed_here = true;
		if (m->trace_name[0])
			die_msg("MPI rank %d on %s: %s (trace %s)", m->rank, m->host, e->msg,
				m->trace_name);
		else
			die_msg("MPI rank %d on %s: %s", m->rank, m->host, e->msg);
		rerr_set(e, ret, "stopping the job (MPI_Abort once rank 0 has written what ran)");
	} else if (who) {
		/* stopped by the failure, not by a signal of its own */
		if (peer >= 0 || !out->stop_signal) {
			runner_on_signal(0);
			out->stop_signal = 0;
		}
		out->failed = true;
		out->incomplete = true;
		rerr_set(e, -ECANCELED, "stopped: MPI rank %d failed (its message above)", who - 1);
	}
	m->failed_rank = who - 1;
	return mpi_merge_run(m, runner_shared_rw(r), out);
}

static int mpi_report(void *ctx, json_t *doc)
{
	struct mpi_ctx *m = ctx;
	m->done = true;
	return m->rank == 0 ? mpi_report_json(m, doc) : 0;
}

static void mpi_print(void *ctx, FILE *f)
{
	mpi_report_print(ctx, f);
}

/* ---- main ----------------------------------------------------------------- */

static void usage(void)
{
	printf("usage: mpirun -np P replay-mpi [OPTIONS] TRACE... TARGET_DIR\n"
	       "       srun -n P replay-mpi [OPTIONS] TRACE... TARGET_DIR\n\n"
	       "Replay a trace as 'replay run' does, its ranks spread over the MPI processes\n"
	       "(each runs its share as forked workers); MPI rank 0 writes the one report.\n"
	       "See replay-mpi(1).\n\n");
	opts_print(stdout, CMD_RUN | CMD_MPI);
}

int main(int argc, char **argv)
{
	struct mpi_ctx *m = &g_mpi;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage();
			return 0;
		}
	m->t_init = now_ns();
	/* FUNNELED: the preparer's plan prepares and removes many copies in
	 * threads of its own (plan.c), which never call MPI */
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	m->placement = PLACE_BLOCK;
	m->target_kind = -1;
	m->failed_rank = -1;
	mpi_world(m);
	snprintf(m->prefix, sizeof(m->prefix), "replay-mpi[%d@%.63s]", m->rank, m->host);
	msg_set_prefix(m->prefix);
	struct run_ext x = { .ctx = m, .cmds = CMD_MPI, .root = m->rank == 0, .option = mpi_option,
			  .json_stdout = &m->json_stdout,
			     .setup = mpi_setup, .planned = mpi_planned, .runner = mpi_runner,
			     .after_run = mpi_after_run, .report = mpi_report, .print = mpi_print };
	int status = cmd_run_ext(argc, argv, &x);
	fflush(stdout);
	fflush(stderr);
	/* a usage error is everybody's (same arguments); past it, an error of
	 * one process may leave the others waiting for it */
	if (status && status != 2 && m->phase && !m->done)
		MPI_Abort(MPI_COMM_WORLD, status);
	if (m->failed_rank >= 0) {
		/* the root has written the results, the files are removed */
		MPI_Barrier(MPI_COMM_WORLD);
		if (m->failed_here)
			MPI_Abort(MPI_COMM_WORLD, status ? status : 1);
	}
	mpi_ctx_release(m);
	MPI_Finalize();
	return status;
}
