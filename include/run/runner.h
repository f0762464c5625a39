/*
 * runner.h - replays a plan: prepare, drop caches, fork the workers, start
 * them at once, collect their results from shared memory, flush.
 *
 * One call of runner_run() is one run (one repeat of -r).  In parallel mode
 * every process of the plan runs at once and the run's completion time is
 * the makespan (barrier release -> last worker done and the final syncfs of
 * the target done).  In sequential mode the processes run one at a time,
 * each alone on a freshly prepared target after its own cache drop, each
 * with its own completion time; the run's completion time is the longest
 * one (the study's headline).
 *
 * Workers report into a struct run_shared (results.h) mapped MAP_SHARED
 * before the fork; the runner keeps it until runner_free(), so the caller
 * reads the results of the last run through runner_shared().
 */
#ifndef REPLAY_RUNNER_H
#define REPLAY_RUNNER_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "engine/engine.h"
#include "ops/opstream.h"
#include "plan/plan.h"
#include "run/results.h"
#include "util/util.h"

enum run_mode { RUN_PARALLEL = 0, RUN_SEQUENTIAL };

/* A replayed op whose result differs from the traced one (an error where
 * the trace succeeded, or fewer bytes): MM_DEFAULT stops the run on data
 * ops (read, write) and warns on the others; stop: any; warn: none
 * (counted, examples kept); ignore: none, no warning. */
enum mismatch_policy { MM_DEFAULT = 0, MM_STOP, MM_WARN, MM_IGNORE };
const char *mismatch_policy_name(int m);   /* "data-stop", "stop", ... */

struct runner_opts {
	enum run_mode mode;
	const struct engine_ops *engine;
	unsigned depth;              /* in-flight requests per worker (>= 1) */
	bool overlap;                /* run ahead over independent data ops    */
	bool direct;                 /* O_DIRECT, offsets/lengths rounded      */
	uint32_t logical_block;      /* alignment for direct (512 if 0)        */
	int bind;                    /* enum bind_mode (topo.h)                */
	bool drop_caches;            /* false: --no-drop-caches                */
	bool continue_on_error;      /* --continue-on-error: --on-mismatch warn */
	int on_mismatch;             /* enum mismatch_policy                   */
	bool progress;               /* one updating line on stderr            */
	uint64_t status_interval_ns; /* a full progress line on stderr every
	                              * that often (0: none)                  */
	uint64_t repeats;            /* runs of runner_run to come (-r): more
	                              * than 1, the status line names the run */
	uint64_t sample_interval_ns; /* timeline sampling (0: 100 ms)          */
	uint64_t buf_max;            /* I/O buffer bound (0: RUNNER_BUF_MAX)   */
	int timing;                  /* enum timing_mode (sched.h)             */
	bool no_lat;                 /* --clock none: ops not timed, latency
	                              * histograms left empty (afap only: the
	                              * other timings read the clock anyway) */
	double speed;                /* traced times divided by it (0: 1)      */
	uint64_t trace_t0;           /* earliest traced start of the replayed
	                              * ranks (ns; 0 unknown): parallel timed
	                              * runs start each rank that much later   */
};

/*
 * Each worker has one I/O buffer, filled once with non-zero data, that
 * every request reads into or writes from.  It is sized by the rank's
 * longest transfer (the traced result of a short read or write, else the
 * request: `read(3, ..., 2147483647) = 10` needs 10 bytes), at least
 * 4 KiB, at most buf_max (plus the rounding room of --direct).  A transfer
 * longer than buf_max is issued in pieces of buf_max bytes at consecutive
 * offsets, one after the other, each waiting for the one before (a short
 * piece ends it); it counts as one op, its latency from the first piece to
 * the last.
 */
#define RUNNER_BUF_MAX (64ull << 20)

/* What one run did, besides the shared per-worker results. */
struct run_outcome {
	uint64_t completion_ns, io_ns, flush_ns;
	bool incomplete;             /* interrupted or failed                  */
	bool failed;                 /* a worker failed or died                */
	int stop_signal;             /* SIGINT/SIGTERM that stopped it, or 0   */
	const char *drop;            /* "dropped", "skipped (--no-drop-caches)" */
};

struct runner;

/* Validate options, map the shared results for plan->nprocs workers,
 * initialize the engine probe.  -errno + e. */
int  runner_init(struct runner **r, struct plan *p, const struct opstream *s,
		 const struct runner_opts *o, struct rerr *e);
/* Whether this node lets one process start n more at once (the workers of
 * a parallel run): the kernel's pid_max and threads-max less the tasks
 * running (/proc/loadavg), the cgroup's pids.max less pids.current (a
 * Slurm job's), and RLIMIT_NPROC for a user other than root.  0, or
 * -EAGAIN with e naming the limit. */
int  runner_room(unsigned n, struct rerr *e);
/* One run.  Returns 0, or -errno with e naming the cause (a failed op and
 * its rank, a dead worker, an interruption: -EINTR).  out is filled in
 * every case where the run started. */
int  runner_run(struct runner *r, struct run_outcome *out, struct rerr *e);
const struct run_shared *runner_shared(const struct runner *r);
/* The host topology (NULL when hwloc could not load it). */
const struct topo *runner_topo(const struct runner *r);
void runner_free(struct runner *r);

/*
 * Hooks for replay-mpi (src/mpi/): the same runner, several cooperating
 * runners in different MPI processes.  Every member may be NULL (what
 * `replay run` does).  The hooks run in the parent only; forked workers
 * never call them.
 *  local    per plan process: 1 when this runner forks it (NULL: all);
 *           the others' slots are kept up to date by tick()
 *  prepare  replaces plan_prepare + the cache drop of a parallel run;
 *           *drop names what was done about the cache
 *  start    every local worker is ready (stopping: the run is being
 *           stopped): returns 1 when all runners may start now, 0 when
 *           one of them is stopping (the workers are then stopped)
 *  tick     polled while the workers run; returns the ns until it wants
 *           to be called again
 *  finish   the local workers have all exited (final progress to send)
 *  flush    replaces the syncfs of the target after a released group, in
 *           every runner (wanted: this one's workers all completed):
 *           0 flushed, 1 not flushed (some runner stopped), -errno
 */
struct runner_hooks {
	void *ctx;
	const uint8_t *local;
	int (*prepare)(void *ctx, struct plan *p, bool drop, const char **drop_done,
		       struct rerr *e);
	int (*start)(void *ctx, bool stopping);
	uint64_t (*tick)(void *ctx, struct run_shared *sh);
	void (*finish)(void *ctx, struct run_shared *sh);
	int (*flush)(void *ctx, int dir_fd, bool wanted);
};
void runner_set_hooks(struct runner *r, const struct runner_hooks *h);
/* The shared results, writable (replay-mpi gathers the other processes'
 * slots into it). */
struct run_shared *runner_shared_rw(struct runner *r);

/* Async-signal-safe: the SIGINT/SIGTERM handler cmd_run installs. */
void runner_on_signal(int sig);
/* The signal received so far, 0 if none. */
int  runner_signal(void);

/* Cache drop: sync, then "3" into /proc/sys/vm/drop_caches.  -errno
 * (-EACCES/-EPERM/-EROFS when not permitted). */
int  runner_drop_caches(void);

/* ---- pieces exposed for tests ---------------------------------------- */

/* Scan a rank's ops: highest handle id + 1 and the longest data transfer
 * (runner_op_len()). */
void runner_scan_rank(const struct op *ops, uint64_t n, uint32_t *nhandles,
		      uint64_t *max_len);
/* The I/O buffer a worker replaying those ops allocates (see above), and
 * how many of its ops are issued in pieces (when nsplit != NULL). */
uint64_t runner_buf_len(const struct op *ops, uint64_t n, const struct runner_opts *o,
			uint64_t *nsplit);
/* --dry-run: the I/O buffer of each replayed rank, the ops issued in
 * pieces, and the total over the processes. */
void runner_print_buffers(const struct plan *p, const struct opstream *s,
			  const struct runner_opts *o, FILE *f);
/* Bytes the replay asks for in a data op: the traced result when it is a
 * short transfer, else the requested length; but a short read on a
 * descriptor the trace had O_DIRECT on (op->oflags & O_DIRECT) asks what
 * the traced call asked (a request O_DIRECT accepted, where the bytes it
 * got, up to the end of the file, need not be aligned), so that the
 * kernel stops at the same end of file. */
static inline uint64_t runner_op_len(const struct op *op);
/* Bytes the trace shows the op moved, what the replay must move for the
 * op not to be a mismatch: the traced result when short, else the
 * requested length.  (A replayed O_DIRECT read that gets more, the file
 * being longer on the target, counts these.) */
static inline uint64_t runner_op_want(const struct op *op)
{
	if ((op->kind == OP_READ || op->kind == OP_WRITE) && op->result >= 0 &&
	    (uint64_t)op->result < op->len)
		return (uint64_t)op->result;
	return op->len;
}
/* runner_op_len() of an op whose runner_op_want() is want (the hot path
 * computes it once). */
static inline uint64_t runner_op_ask(const struct op *op, uint64_t want)
{
	return op->kind == OP_READ && (op->oflags & O_DIRECT) ? op->len : want;
}
static inline uint64_t runner_op_len(const struct op *op)
{
	return runner_op_ask(op, runner_op_want(op));
}
/* Fill an engine request for a data or sync op on fd.  With align > 1
 * (direct I/O) offset and length are widened to multiples of align; returns
 * the extra bytes that added (0 when already aligned). */
uint64_t runner_op_req(const struct op *op, int fd, void *buf, uint32_t align,
		       struct io_req *req);

/* Run one rank's ops in the calling process, as a worker does after the
 * barrier (no fork): used by the workers and by unit tests.  w must be
 * zeroed by the caller (all-zero histograms are empty), then given to
 * runner_worker_init.
 * stop: polled between ops (may be NULL).  Returns 0 or -errno of the
 * first failing op (unless continue_on_error). */
struct worker_ctx {
	const struct plan *plan;
	const struct opstream *s;
	const struct runner_opts *o;
	uint32_t rank, copy;
	uint32_t pos;                /* rank position in the plan            */
	struct worker_result *w;
	const uint32_t *stop;
	struct run_shared *sh;       /* the other workers (NULL: alone, no waits) */
};
void runner_worker_init(struct worker_result *w);
int  runner_replay_rank(const struct worker_ctx *c);

#endif
