/*
 * runner.c - one run of a plan: prepare, drop caches, fork, barrier,
 * replay, flush (runner.h has the contract).
 *
 * Why it is shaped like this:
 *  - Workers are processes, not threads: the study replays N independent
 *    processes, and a crashing or killed worker must not take the others'
 *    results with it.  Results go to a MAP_SHARED|MAP_ANONYMOUS region
 *    mapped before the fork; each worker writes only its own slot.
 *  - Everything a worker allocates (buffer, handle table, engine) is set
 *    up before it reports ready; the parent releases all workers at once by
 *    storing 1 in run_shared.go and waking the futex.  Times are measured
 *    from that release (CLOCK_MONOTONIC is system-wide).
 *  - The parent blocks SIGCHLD and waits in sigtimedwait(), so it learns of
 *    the last worker's exit within microseconds (the completion time does
 *    not include a polling delay) and still wakes for timeline samples and
 *    the progress line.
 *  - The hot loop allocates nothing and formats nothing; a failure message
 *    is formatted once, when the run stops because of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/direct.h"
#include "run/hist.h"
#include "run/overlap.h"
#include "run/runner.h"
#include "run/sched.h"
#include "run/slots.h"
#include "run/topo.h"
#include "run/waits.h"

#define FD_NONE (-1)
#define RELAXED __ATOMIC_RELAXED

static volatile sig_atomic_t stop_sig;

void runner_on_signal(int sig)
{
	stop_sig = sig;
}

int runner_signal(void)
{
	return stop_sig;
}

struct runner {
	struct runner_hooks hk;      /* replay-mpi (runner.h); zero: none */
	struct plan *plan;
	const struct opstream *s;
	struct runner_opts o;
	struct run_shared *sh;
	size_t sh_size;
	pid_t *pids;
	uint8_t *used;               /* per slot: a worker wrote results there */
	pid_t parent;
	int dir_fd;                  /* O_RDONLY fd of TARGET for syncfs   */
	struct topo *topo;           /* NULL when hwloc could not load     */
	const char *drop_done;
	uint64_t run_no;             /* runner_run calls so far (1: the first) */
};

/* ---- small pieces ---------------------------------------------------- */

int runner_drop_caches(void)
{
	int fd, ret = 0;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3\n", 2) != 2)
		ret = -errno;
	close(fd);
	return ret;
}

void runner_scan_rank(const struct op *ops, uint64_t n, uint32_t *nhandles, uint64_t *max_len)
{
	uint32_t nh = 0;
	uint64_t ml = 0;

	for (uint64_t i = 0; i < n; i++) {
		const struct op *op = &ops[i];

		if (op->handle != OP_NOHANDLE && op->handle + 1 > nh)
			nh = op->handle + 1;
		if (op_is_data(op->kind) && runner_op_len(op) > ml)
			ml = runner_op_len(op);
	}
	*nhandles = nh;
	*max_len = ml;
}

static uint64_t buf_max(const struct runner_opts *o)
{
	return o->buf_max ? o->buf_max : RUNNER_BUF_MAX;
}

uint64_t runner_buf_len(const struct op *ops, uint64_t n, const struct runner_opts *o,
			uint64_t *nsplit)
{
	uint64_t ml = 0, split = 0, cap = buf_max(o), len;

	for (uint64_t i = 0; i < n; i++) {
		if (!op_is_data(ops[i].kind))
			continue;
		len = runner_op_len(&ops[i]);
		if (len > ml)
			ml = len;
		split += len > cap;
	}
	if (nsplit)
		*nsplit = split;
	len = ml < cap ? ml : cap;
	/* room for a request rounded to any alignment up to DIRECT_MAX_ALIGN,
	 * the largest one opens accept (see do_open) */
	if (o->direct)
		len = direct_buf_len(len, DIRECT_MAX_ALIGN);
	return len < 4096 ? 4096 : len;
}

void runner_print_buffers(const struct plan *p, const struct opstream *s,
			  const struct runner_opts *o, FILE *f)
{
	uint64_t total = 0;
	char b1[32], b2[32];

	fprintf(f, "\nI/O buffer per process (filled once; a transfer longer than %s is issued "
		"in pieces of %s, one after the other):\n", fmt_bytes(b1, sizeof(b1), (double)buf_max(o)),
		fmt_bytes(b2, sizeof(b2), (double)buf_max(o)));
	/* by position: the traced rank the workers of that position replay
	 * (ws_setup sizes each one's buffer from that rank's ops), and its
	 * copies 0..k-1 when there are more processes than ranks */
	for (uint32_t pos = 0; pos < p->nranks_used; pos++) {
		uint64_t n, nsplit, ml, len;
		uint32_t nh, r = p->ranks[pos], k = 0;
		const struct op *ops = opstream_rank_ops(s, r, &n);

		for (size_t i = 0; i < p->nprocs; i++)
			k += p->procs[i].pos == pos;
		len = runner_buf_len(ops, n, o, &nsplit);
		runner_scan_rank(ops, n, &nh, &ml);
		fprintf(f, "  rank %u", r);
		if (k > 1)
			fprintf(f, ", copies 0-%u (%u processes)", k - 1, k);
		fprintf(f, ": %s%s", fmt_bytes(b1, sizeof(b1), (double)len), k > 1 ? " each" : "");
		if (nsplit)
			fprintf(f, ", %llu op%s in pieces (longest transfer %s)",
				(unsigned long long)nsplit, nsplit == 1 ? "" : "s",
				fmt_bytes(b2, sizeof(b2), (double)ml));
		fputc('\n', f);
		total += len * k;
	}
	fprintf(f, "  all %zu process%s: %s\n", p->nprocs, p->nprocs == 1 ? "" : "es",
		fmt_bytes(b1, sizeof(b1), (double)total));
}

/* The bytes a replayed transfer counts: the kernel's answer, or the
 * traced bytes when an O_DIRECT read asked more than the trace got and
 * got more (the file is longer on the target). */
static inline int64_t clip_want(int64_t res, uint64_t want)
{
	return res > (int64_t)want ? (int64_t)want : res;
}

uint64_t runner_op_req(const struct op *op, int fd, void *buf, uint32_t align, struct io_req *req)
{
	uint64_t ooff, olen;

	memset(req, 0, sizeof(*req));
	req->fd = fd;
	req->buf = buf;
	switch (op->kind) {
	case OP_READ: case OP_AREAD:
		req->dir = IO_READ;
		break;
	case OP_WRITE: case OP_AWRITE:
		req->dir = IO_WRITE;
		if (op->flags & OPF_RWF)        /* per-call sync flags, as traced */
			req->rw_flags = (op->flags & OPF_RWF_DSYNC ? RWF_DSYNC : 0) |
					(op->flags & OPF_RWF_SYNC ? RWF_SYNC : 0);
		break;
	case OP_FDATASYNC:
		req->dir = IO_FDATASYNC;
		return 0;
	default:
		req->dir = IO_FSYNC;
		return 0;
	}
	req->offset = op->offset;
	req->len = runner_op_len(op);
	if (align > 1)
		return direct_adjust(req, align, &ooff, &olen);
	return 0;
}

void runner_worker_init(struct worker_result *w)
{
	/* the histograms: all zero is empty (hist_init) */
	w->numa_node = -1;
}

/* ---- the worker ------------------------------------------------------ */

struct slot {
	struct io_req req;
	uint64_t op_idx;
	uint64_t traced;             /* traced bytes (io_bytes)            */
	uint64_t ooff, olen;         /* traced range when direct-adjusted  */
	uint8_t cls;
	uint8_t adjusted;
	uint8_t piece;               /* part of a longer op: not accounted  */
};

/* How long issue() waits for the op it issued. */
enum wait_mode {
	WAIT_DONE,    /* a traced synchronous call: done before the next op   */
	WAIT_AWAIT,   /* a traced async submit: in flight until its AWAIT     */
	WAIT_AHEAD,   /* --overlap: in flight, reaped when the slots are full */
};

struct wstate {
	const struct worker_ctx *c;
	struct worker_result *w;
	const struct op *ops;
	uint64_t nops;
	struct engine eng;
	bool eng_ok;
	bool async;                  /* engine may leave requests in flight */
	bool rw_direct;              /* the sync engine: reads and writes call
	                              * engine_sync_rw() without queue() */
	bool rw_short;               /* afap, buffered: replay_op() takes a
	                              * plain read or write straight to
	                              * issue_sync() or issue_req() */
	uint8_t rw_wait;             /* then its enum wait_mode            */
	const struct filter *filter; /* the plan's (NULL: none)              */
	void *buf;
	int *fd;                     /* per handle: fd or FD_NONE           */
	uint32_t *hfile;             /* per handle: path id                 */
	uint32_t *halign;            /* per handle: direct alignment        */
	uint8_t *hdirect;            /* per handle: its fd has O_DIRECT     */
	uint8_t *hlost;              /* per handle: its replayed open failed */
	uint64_t *hmade;             /* plan.alone: per handle, when this rank
	                              * made or truncated its file (absolute
	                              * trace time + 1), 0 not; else NULL  */
	const char *open_why;        /* what plan_open_run refused (put in
	                              * the target during the run) for op
	                              * why_idx, NULL none                  */
	uint64_t why_idx;
	uint32_t nhandles;
	uint64_t piece;              /* longest request issued at once      */
	uint8_t *written;            /* per path id                         */
	struct slot *slots;
	struct slots st;             /* which slots are free, awaited       */
	struct io_req **done;
	unsigned nslots, inflight;
	struct overlap ovl;          /* in-flight byte ranges (async)       */
	bool ovl_ok;
	const struct dep *deps;      /* this rank's waits for others, by op */
	uint64_t ndeps, dep_next;
	struct wait_word *words;     /* the processes' completed prefixes   */
	size_t proc_base;            /* process index of position 0 in our copy */
	struct barrier *bar;         /* our copy's traced barrier, or NULL  */
	uint64_t bar_k;              /* traced barriers passed              */
	bool timed;                  /* --timing think|trace                 */
	bool lat;                    /* ops timed (all but --clock none)     */
	bool ahead;                  /* trace timing, async: data ops in flight */
	uint64_t offset;             /* rank's traced start after the first  */
	struct sched sch;
	uint64_t cur_idx;            /* the op being issued                  */
	uint64_t t_ret;              /* when it completed (0: in flight)     */
};

static void ws_free(struct wstate *ws)
{
	if (ws->eng_ok && ws->w) {
		ws->w->eng_short_ios = ws->eng.short_ios;
		ws->w->eng_eagain = ws->eng.eagain;
		ws->w->eng_sync_fallback = ws->eng.sync_fallback;
	}
	if (ws->eng_ok && ws->eng.ops->exit)
		ws->eng.ops->exit(&ws->eng);
	ws->eng_ok = false;
	if (ws->fd)
		for (uint32_t h = 0; h < ws->nhandles; h++)
			if (ws->fd[h] >= 0)
				close(ws->fd[h]);
	if (ws->ovl_ok)
		overlap_release(&ws->ovl);
	slots_release(&ws->st);
	free(ws->fd);
	free(ws->hfile);
	free(ws->halign);
	free(ws->hdirect);
	free(ws->hlost);
	free(ws->hmade);
	free(ws->written);
	free(ws->slots);
	free(ws->done);
	free(ws->buf);
	memset(ws, 0, sizeof(*ws));
}

/* Cross-rank order: this rank's waits, where the others publish their
 * progress, our copy's traced barrier, the real offsets of appends. */
static void ws_setup_order(struct wstate *ws, const struct worker_ctx *c)
{
	const struct plan *p = c->plan;
	if (!p || c->pos >= p->nranks_used)
		return;
	if (!c->sh)
		return;
	ws->proc_base = (size_t)c->copy * p->nranks_used;
	if (p->ordered && p->ord.deps) {
		ws->deps = p->ord.deps[c->pos];
		ws->ndeps = p->ord.ndeps[c->pos];
	}
	if (p->nbars)
		ws->bar = run_shared_barrier(c->sh, c->copy);
}

static int ws_setup(struct wstate *ws, const struct worker_ctx *c)
{
	const struct runner_opts *o = c->o;
	struct engine_opts eo = { .depth = o->depth ? o->depth : 1, .direct = o->direct };
	uint64_t buflen, longest;
	int ret;

	memset(ws, 0, sizeof(*ws));
	ws->c = c;
	ws->w = c->w;
	ws->ops = opstream_rank_ops(c->s, c->rank, &ws->nops);
	runner_scan_rank(ws->ops, ws->nops, &ws->nhandles, &longest);
	ws->piece = buf_max(o);
	buflen = runner_buf_len(ws->ops, ws->nops, o, NULL);
	if (buflen > SIZE_MAX / 2)
		return -ENOMEM;
	ws->w->buf_bytes = buflen;
	ret = posix_memalign(&ws->buf, 4096, (size_t)buflen);
	if (ret) {
		ws->buf = NULL;
		return -ret;
	}
	/* non-zero data, written once: compression or zero detection in the
	 * storage stack must not make the replay's writes cheaper */
	for (size_t i = 0; i < buflen; i++)
		((unsigned char *)ws->buf)[i] = (unsigned char)(0x5a ^ (i * 31 >> 3));

	ws->fd = malloc((ws->nhandles + 1) * sizeof(*ws->fd));
	ws->hfile = calloc(ws->nhandles + 1, sizeof(*ws->hfile));
	ws->halign = calloc(ws->nhandles + 1, sizeof(*ws->halign));
	ws->hdirect = calloc(ws->nhandles + 1, 1);
	ws->hlost = calloc(ws->nhandles + 1, 1);
	if (c->plan && c->plan->alone)
		ws->hmade = calloc(ws->nhandles + 1, sizeof(*ws->hmade));  /* NULL: none said */
	ws->written = calloc(c->s->npaths + 1, 1);
	if (!ws->fd || !ws->hfile || !ws->halign || !ws->hdirect || !ws->hlost || !ws->written)
		return -ENOMEM;
	for (uint32_t h = 0; h <= ws->nhandles; h++)
		ws->fd[h] = FD_NONE;

	ws->eng.ops = o->engine;
	ret = o->engine->init(&ws->eng, &eo);
	if (ret < 0)
		return ret;
	ws->eng_ok = true;
	ws->async = !(o->engine->flags & ENGINE_F_SYNC);
	ws->rw_direct = o->engine == &engine_sync;
	ws->nslots = ws->async ? (ws->eng.depth ? ws->eng.depth : eo.depth) : 1;
	ws->slots = calloc(ws->nslots, sizeof(*ws->slots));
	ws->done = calloc(ws->nslots, sizeof(*ws->done));
	if (!ws->slots || !ws->done)
		return -ENOMEM;
	ret = slots_init(&ws->st, ws->nslots);
	if (ret < 0)
		return ret;
	for (unsigned i = 0; i < ws->nslots; i++)
		ws->slots[i].req.slot = i;
	if (ws->async) {
		ret = overlap_init(&ws->ovl, ws->nslots, c->s->npaths);
		if (ret < 0)
			return ret;
		ws->ovl_ok = true;
	}
	ws->w->ops_total = ws->nops;
	ws_setup_order(ws, c);
	ws->timed = o->timing != TIMING_AFAP;
	ws->ahead = o->timing == TIMING_TRACE && ws->async;
	ws->rw_short = !ws->timed && !o->direct;
	ws->lat = !o->no_lat || ws->timed;
	ws->rw_wait = !ws->async ? WAIT_DONE : o->overlap || ws->ahead ? WAIT_AHEAD : WAIT_DONE;
	ws->filter = c->plan ? c->plan->filter : NULL;
	/* timed: timers fire when asked, not up to 50 us later (the default
	 * slack of a normal thread) */
	if (ws->timed)
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (ws->timed && c->sh && o->trace_t0 && c->s->ranks[c->rank].t0_ns > o->trace_t0)
		ws->offset = c->s->ranks[c->rank].t0_ns - o->trace_t0;
	return 0;
}

/* An op's clock reading: 0 when ops are not timed (--clock none). */
static inline uint64_t op_now(const struct wstate *ws)
{
	return ws->lat ? now_ns() : 0;
}

/* An op done: counted, and its latency lat added when ops are timed
 * (`timed`: ws->lat, a constant where the caller is specialised). */
static inline void account_t(const struct wstate *ws, unsigned cls, uint64_t traced,
			     int64_t res, uint64_t want, uint64_t lat, bool timed)
{
	struct worker_result *w = ws->w;
	struct class_stats *cs = &w->cls[cls];

	cs->total_ios++;
	cs->io_bytes += traced;
	if (timed)
		hist_add(&cs->lat, lat);
	if (res < 0) {
		cs->errors++;
		return;
	}
	if (cls == RC_READ || cls == RC_WRITE) {
		cs->done_bytes += (uint64_t)res;
		if ((uint64_t)res < want)
			cs->short_ios++;
		__atomic_store_n(&w->bytes_done, w->bytes_done + (uint64_t)res, RELAXED);
	}
}

static void account(const struct wstate *ws, unsigned cls, uint64_t traced, int64_t res,
		    uint64_t want, uint64_t lat)
{
	account_t(ws, cls, traced, res, want, lat, ws->lat);
}

const char *mismatch_policy_name(int m)
{
	switch (m) {
	case MM_STOP: return "stop";
	case MM_WARN: return "warn";
	case MM_IGNORE: return "ignore";
	default: return "data-stop";
	}
}

/* err: the storage or the node could not do what the application did (no
 * room, no descriptor, an I/O error): whatever the op, what follows it
 * (the reads and writes of a file that could not be opened) is not what
 * the application did either. */
static bool err_of_resources(int err)
{
	switch (err) {
	case ENOSPC: case EDQUOT: case EMFILE: case ENFILE: case EIO: case EROFS:
	case ENOMEM: case EFBIG:
		return true;
	default:
		return false;
	}
}

/* Does a mismatch of op (err, 0 when it moved fewer bytes) stop the run? */
static bool mismatch_stops(const struct wstate *ws, const struct op *op, int err,
			   const char *why)
{
	const struct runner_opts *o = ws->c->o;
	if (o->continue_on_error)
		return false;
	switch (o->on_mismatch) {
	case MM_STOP: return true;
	case MM_WARN: case MM_IGNORE: return false;
	default: return op_is_data(op->kind) || err_of_resources(err) || why;
	}
}

/*
 * A replayed op's result differs from the traced one: an error (err > 0)
 * where the trace succeeded, or fewer bytes (err 0, got < want).  Counted
 * by op kind (and errno), the first few kept as examples; the run stops
 * when the policy says so (the worker's error names the op and its line).
 */
/* What a failure err of op means, for its message: strerror, and why
 * where the target (not the trace) is the cause: an O_DIRECT request
 * whose alignment the target's file system does not accept, a fallocate
 * mode it does not support. */
static void err_what(const struct wstate *ws, const struct op *op, int err, const char *why,
		     char *what, size_t n)
{
	int fd = op->handle < ws->nhandles ? ws->fd[op->handle] : FD_NONE;
	int fl = fd >= 0 && err == EINVAL && op_is_data(op->kind) ? fcntl(fd, F_GETFL) : -1;

	if (fl >= 0 && (fl & O_DIRECT)) {
		uint32_t oa = 0, ma = 0;
		char al[48] = "";

		/* (fallback 1: no alignment made up when the kernel does not say) */
		if (direct_query_align(fd, 1, &oa, &ma) == 0 && oa > 1)
			snprintf(al, sizeof(al), " (%u-byte alignment)", oa > ma ? oa : ma);
		snprintf(what, n, "%s: O_DIRECT request of %llu bytes at offset %llu not aligned as "
			 "the target's file system requires%s", strerror(err),
			 (unsigned long long)runner_op_len(op), (unsigned long long)op->offset, al);
	} else if (why) {
		snprintf(what, n, "%s: %s", strerror(err), why);
	} else if (err == EINVAL && op->kind == OP_OPEN && (op->oflags & O_DIRECT)) {
		snprintf(what, n, "%s: the target's file system refuses O_DIRECT, which the trace "
			 "opened with", strerror(err));
	} else if (err == EOPNOTSUPP && op->kind == OP_FALLOCATE) {
		struct statfs sf;
		const char *fs = NULL;
		char mb[200];

		if (fd >= 0 && !fstatfs(fd, &sf))
			fs_magic_shared((unsigned long)sf.f_type, &fs);
		snprintf(what, n, "%s: the target's file system (%s) does not support fallocate mode %s",
			 strerror(err), fs ? fs : "of unknown type",
			 op_falloc_mode_str(op->aux, mb, sizeof(mb)));
	} else if (err == EMFILE) {
		struct rlimit rl;
		if (!getrlimit(RLIMIT_NOFILE, &rl))
			snprintf(what, n, "%s (this process may hold %llu: ulimit -n)", strerror(err),
				 (unsigned long long)rl.rlim_cur);
		else
			snprintf(what, n, "%s", strerror(err));
	} else {
		snprintf(what, n, "%s", strerror(err));
	}
}

/* A read or write that moved fewer bytes than traced: a write the file
 * system had no room for says so (the kernel's short write is how a full
 * disk first shows, before ENOSPC). */
static void short_what(const struct wstate *ws, const struct op *op, int64_t got, int64_t want,
		       char *what, size_t n)
{
	int fd = op->handle < ws->nhandles ? ws->fd[op->handle] : FD_NONE;
	struct statvfs sv;
	int w = snprintf(what, n, "%lld bytes where the trace moved %lld", (long long)got,
			 (long long)want);
	if (w < 0 || (size_t)w >= n || !op_is_write(op->kind) || fd < 0 || fstatvfs(fd, &sv))
		return;
	unsigned long long avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
	if (avail < (unsigned long long)(want - got) + sv.f_frsize)
		snprintf(what + w, n - (size_t)w, " (the target's file system is full: %llu bytes"
			 " free)", avail);
}

static int mismatch(struct wstate *ws, uint64_t idx, int err, int64_t got, int64_t want)
{
	struct worker_result *w = ws->w;
	const struct op *op = &ws->ops[idx];
	const char *path = "";
	const char *why = ws->open_why && ws->why_idx == idx ? ws->open_why : NULL;
	char what[300];

	if (err > 0 && err < RES_MAX_ERRNO)
		w->errno_counts[err]++;
	if (err > 0 && !w->first_errno)
		w->first_errno = err;
	w->mismatch[op->kind < MM_KINDS ? op->kind : 0]++;
	if (w->nmm_ex < MM_EXAMPLES)
		w->mm_ex[w->nmm_ex++] = (struct mm_example){
			.op = (uint32_t)idx, .line = op->line, .kind = op->kind, .err = err,
			.mode = op->kind == OP_FALLOCATE ? op->aux : 0, .got = got, .want = want };
	if (!mismatch_stops(ws, op, err, why))
		return 0;
	if (w->fail_errno)
		return err ? -err : -EIO;
	w->fail_errno = err ? err : EIO;
	w->fail_op = (uint32_t)idx;
	if (op->file != OP_NOFILE)
		path = opstream_path(ws->c->s, op->file);
	else if (op->handle != OP_NOHANDLE && op->handle < ws->nhandles)
		path = opstream_path(ws->c->s, ws->hfile[op->handle]);
	if (err)
		err_what(ws, op, err, why, what, sizeof(what));
	else
		short_what(ws, op, got, want, what, sizeof(what));
	/* of a trace in several files (strace -ff), the rank's: its FILE:LINE */
	char src[PATH_MAX], at[PATH_MAX + 16] = "";
	if (!opstream_source_file(ws->c->s, src, sizeof(src)) &&
	    opstream_rank_source(ws->c->s, ws->c->rank, src, sizeof(src)))
		snprintf(at, sizeof(at), " of %s", src);
	snprintf(w->fail_msg, sizeof(w->fail_msg), "%s '%s' (op %llu, trace line %u%s): %s",
		 op_kind_name(op->kind), path, (unsigned long long)idx, op->line, at, what);
	return err ? -err : -EIO;
}

static int op_failed(struct wstate *ws, uint64_t idx, int err)
{
	return mismatch(ws, idx, err, -1, -1);
}

/* A read that finds less than the trace read, through a handle whose file
 * the rank made or truncated itself (ws->hmade), of data a rank absent
 * while it runs (plan.alone: sequential mode, or ranks left out) wrote
 * after that: their data is not there, which is no fault of the storage,
 * and no preparation could put it there (the rank's own open wipes it). */
static bool alone_missing(const struct wstate *ws, uint64_t idx)
{
	const struct plan *p = ws->c->plan;
	const struct op *op = &ws->ops[idx];
	if (!p || !p->alone || !ws->hmade || (op->kind != OP_READ && op->kind != OP_AREAD) ||
	    op->handle >= ws->nhandles || !ws->hmade[op->handle])
		return false;
	uint32_t f = op->file != OP_NOFILE ? op->file : ws->hfile[op->handle];
	return plan_absent_write(p, f, ws->c->rank) > ws->hmade[op->handle];
}

/* The handle's file made or truncated by this rank at op (alone_missing). */
static void made_now(struct wstate *ws, const struct op *op)
{
	if (ws->hmade && op->handle < ws->nhandles)
		ws->hmade[op->handle] = ws->c->s->ranks[ws->c->rank].t0_ns + op->t_ns + 1;
}

/* A data op's completion: an error, or fewer bytes than the trace. */
static int data_result(struct wstate *ws, uint64_t idx, int64_t res, uint64_t want)
{
	if (res < 0)
		return op_failed(ws, idx, (int)-res);
	if ((uint64_t)res < want && alone_missing(ws, idx)) {
		ws->w->alone_short++;
		ws->w->alone_short_bytes += want - (uint64_t)res;
		return 0;
	}
	if ((uint64_t)res < want)
		return mismatch(ws, idx, 0, res, (int64_t)want);
	return 0;
}

static int complete_slot(struct wstate *ws, struct slot *sl, uint64_t t_end)
{
	int64_t res = sl->req.res;
	uint64_t want = sl->traced;
	int ret = 0;

	if (sl->op_idx == ws->cur_idx)
		ws->t_ret = t_end;      /* think timing: when the current op returned */
	if (sl->adjusted)
		res = direct_result(res, sl->req.offset, sl->ooff, sl->olen);
	if (sl->piece) {
		sl->req.res = res;      /* issue_pieces() accounts for the op */
	} else {
		res = clip_want(res, want);
		account(ws, sl->cls, sl->traced, res, want, t_end - sl->req.t_start_ns);
		if (sl->cls == RC_READ || sl->cls == RC_WRITE)
			ret = data_result(ws, sl->op_idx, res, want);
		else if (res < 0)
			ret = op_failed(ws, sl->op_idx, (int)-res);
	}
	if (ws->ovl_ok)
		overlap_done(&ws->ovl, sl->req.slot);
	slots_put(&ws->st, sl->req.slot);
	return ret;
}

/* One reap() of the engine, its completions accounted: how many, or
 * -errno; *ret gets the first completed op's failure. */
static int reap_batch(struct wstate *ws, unsigned min, const struct timespec *timeout, int *ret)
{
	int n = ws->eng.ops->reap(&ws->eng, min, ws->nslots, ws->done, timeout);
	uint64_t t = op_now(ws);

	if (n == -EINTR || n == -EAGAIN)
		return 0;
	if (n < 0)
		return n;
	for (int k = 0; k < n; k++) {
		struct slot *sl = &ws->slots[ws->done[k]->slot];
		int r = complete_slot(ws, sl, t);

		ws->inflight--;
		if (r && !*ret)
			*ret = r;
	}
	return n;
}

/* Reap at least `min` completions from an async engine. */
static int reap_some(struct wstate *ws, unsigned min)
{
	int ret = 0;

	while (min > 0 || ws->inflight > 0) {
		int n = reap_batch(ws, min, NULL, &ret);

		if (n < 0)
			return n;
		if ((unsigned)n >= min)
			break;
		min -= (unsigned)n;
	}
	return ret;
}

static int drain(struct wstate *ws)
{
	return ws->inflight ? reap_some(ws, ws->inflight) : 0;
}

/* A free slot, now busy (reaping until one is free); NULL and *ret. */
static struct slot *free_slot(struct wstate *ws, int *ret)
{
	int i;

	*ret = 0;
	while ((i = slots_get(&ws->st)) < 0) {
		*ret = reap_some(ws, 1);
		if (*ret)
			return NULL;
	}
	return &ws->slots[i];
}

static int wait_slot(struct wstate *ws, struct slot *sl)
{
	while (slots_busy(&ws->st, sl->req.slot)) {
		int ret = reap_some(ws, 1);

		if (ret)
			return ret;
	}
	return 0;
}

/* A piece of a data op longer than the buffer: the range to issue; the
 * request's result (for that range) and the bytes --direct rounding added
 * come back here. */
struct piece {
	uint64_t off, len;
	int64_t res;
	uint64_t extra;
};

/* Fill slot sl's request for op idx (or the piece pc of it) on fd, rounded
 * to align for direct I/O; returns the bytes rounding added. */
static uint64_t slot_prepare(struct wstate *ws, struct slot *sl, uint64_t idx, int fd,
			     uint32_t align, const struct piece *pc)
{
	const struct op *op = &ws->ops[idx];

	runner_op_req(op, fd, ws->buf, 0, &sl->req);
	if (pc) {
		sl->req.offset = pc->off;
		sl->req.len = pc->len;
	}
	sl->req.slot = (uint32_t)(sl - ws->slots);
	sl->req.op_index = (uint32_t)idx;
	sl->op_idx = idx;
	sl->cls = (uint8_t)rclass_of(op->kind);
	sl->traced = sl->cls != RC_READ && sl->cls != RC_WRITE ? 0 :
		     pc ? sl->req.len : runner_op_want(op);
	sl->adjusted = 0;
	sl->piece = pc != NULL;
	if (align > 1 && (sl->cls == RC_READ || sl->cls == RC_WRITE)) {
		sl->adjusted = 1;
		return direct_adjust(&sl->req, align, &sl->ooff, &sl->olen);
	}
	return 0;
}

/* The path id a data op's handle stands for (overlap is per file). */
static uint32_t op_file(const struct wstate *ws, const struct op *op)
{
	return op->handle < ws->nhandles ? ws->hfile[op->handle] : 0;
}

/* Same bytes of the same file, one of them a write: reap until the
 * earlier op is done (syncs are issued only once everything is drained). */
static inline __attribute__((always_inline)) int
wait_conflicts(struct wstate *ws, const struct slot *sl, uint32_t file)
{
	int wr = sl->req.dir != IO_READ;

	while (ws->inflight &&
	       overlap_conflicts(&ws->ovl, file, sl->req.offset, sl->req.len, wr, NULL)) {
		int ret = reap_some(ws, 1);

		if (ret)
			return ret;
	}
	return 0;
}

/* Queue sl's request, reaping while the engine is busy: ENGINE_QUEUED,
 * ENGINE_COMPLETED, or -errno (the request's own failure when reaping
 * succeeded; *ret is the reaping's). */
static inline __attribute__((always_inline)) int
slot_queue(struct wstate *ws, struct slot *sl, int *ret)
{
	int q;

	*ret = 0;
	for (;;) {
		sl->req.t_start_ns = op_now(ws);
		q = ws->eng.ops->queue(&ws->eng, &sl->req);
		if (q != ENGINE_BUSY)
			return q;
		*ret = ws->inflight ? reap_some(ws, 1) : -EAGAIN;
		if (*ret)
			return *ret;
	}
}

/* A queued request is in flight: track it, submit it, wait as asked. */
static inline __attribute__((always_inline)) int
slot_submitted(struct wstate *ws, struct slot *sl, uint32_t file, uint32_t async_id,
	       enum wait_mode wait)
{
	int ret;

	/* an op waited for here is done before the next one is issued: no
	 * later op can conflict with it, so it stays out of the index */
	if (ws->ovl_ok && wait != WAIT_DONE)
		overlap_add(&ws->ovl, sl->req.slot, file, sl->req.offset, sl->req.len,
			    sl->req.dir != IO_READ);
	ws->inflight++;
	if (ws->inflight > ws->w->max_inflight)
		ws->w->max_inflight = ws->inflight;
	ret = ws->eng.ops->commit(&ws->eng);
	if (ret < 0)
		return ret;
	if (wait == WAIT_DONE)
		return wait_slot(ws, sl);
	if (wait == WAIT_AWAIT)
		slots_await(&ws->st, sl->req.slot, async_id);
	return 0;
}

/* A prepared slot's request on `file` through the engine: its conflicts
 * waited for, queued, then completed or tracked as `wait` says.  (The
 * three steps above are forced inline: each is called here only, and
 * this is inlined into issue_req() and issue_rw(); as calls they cost
 * libaio q8 ~40 instructions per op.) */
static inline int issue_slot(struct wstate *ws, struct slot *sl, uint32_t file,
			     uint32_t async_id, enum wait_mode wait)
{
	int ret, q;

	ret = ws->ovl_ok ? wait_conflicts(ws, sl, file) : 0;
	q = ret ? 0 : slot_queue(ws, sl, &ret);
	if (ret) {
		slots_put(&ws->st, sl->req.slot);
		return ret;
	}
	if (q < 0) {
		sl->req.res = q;
		return complete_slot(ws, sl, op_now(ws));
	}
	if (q == ENGINE_COMPLETED) {
		/* done inside queue(): still one op in flight with those queued */
		if (ws->inflight + 1 > ws->w->max_inflight)
			ws->w->max_inflight = ws->inflight + 1;
		return complete_slot(ws, sl, op_now(ws));
	}
	return slot_submitted(ws, sl, file, async_id, wait);
}

/* Issue one request for op idx (all of it, or the piece pc) through the
 * engine. */
static int issue_req(struct wstate *ws, uint64_t idx, int fd, uint32_t align,
		     enum wait_mode wait, struct piece *pc)
{
	const struct op *op = &ws->ops[idx];
	uint32_t file = op_file(ws, op);
	struct slot *sl;
	uint64_t extra;
	int ret;

	sl = free_slot(ws, &ret);
	if (!sl)
		return ret;
	extra = slot_prepare(ws, sl, idx, fd, align, pc);
	if (pc) {
		pc->extra = extra;
	} else if (extra) {
		ws->w->rounded_ops++;
		ws->w->rounded_extra_bytes += extra;
	}
	ret = issue_slot(ws, sl, file, op->aux, wait);
	if (pc)
		pc->res = sl->req.res;  /* complete_slot() left the piece's result */
	return ret;
}

/* replay_op()'s plain read or write (cls) with an async engine: what
 * issue_req() does for it, whole (no piece) and not rounded (no
 * --direct), its request filled in place. */
static int issue_rw(struct wstate *ws, uint64_t idx, const struct op *op, int fd, unsigned cls)
{
	struct slot *sl;
	uint64_t len = runner_op_len(op);
	int ret;

	sl = free_slot(ws, &ret);
	if (!sl)
		return ret;
	sl->req = (struct io_req){ .fd = fd, .dir = cls == RC_WRITE ? IO_WRITE : IO_READ,
				   .buf = ws->buf, .len = len, .offset = op->offset,
				   .op_index = (uint32_t)idx,
				   .slot = (uint32_t)(sl - ws->slots) };
	sl->op_idx = idx;
	sl->traced = runner_op_want(op);
	sl->cls = (uint8_t)cls;
	sl->adjusted = 0;
	sl->piece = 0;
	return issue_slot(ws, sl, ws->hfile[op->handle], op->aux, ws->rw_wait);
}

/* A data op longer than the buffer: pieces of ws->piece bytes, one after
 * the other, accounted as one op (runner.h). */
static int issue_pieces(struct wstate *ws, uint64_t idx, int fd, uint32_t align)
{
	const struct op *op = &ws->ops[idx];
	uint64_t want = runner_op_want(op), len = runner_op_ask(op, want);
	uint64_t done = 0, extra = 0, t0 = op_now(ws);
	int64_t res = 0;
	int ret;

	ws->w->split_ops++;
	while (done < len) {
		struct piece pc = { .off = op->offset + done,
				    .len = len - done < ws->piece ? len - done : ws->piece };

		ret = issue_req(ws, idx, fd, align, WAIT_DONE, &pc);
		if (ret)
			return ret;
		extra += pc.extra;
		if (pc.res < 0) {
			res = pc.res;
			break;
		}
		res += pc.res;
		done += (uint64_t)pc.res;
		if ((uint64_t)pc.res < pc.len)
			break;          /* short: the rest is not there */
	}
	if (extra) {
		ws->w->rounded_ops++;
		ws->w->rounded_extra_bytes += extra;
	}
	res = clip_want(res, want);
	account(ws, rclass_of(op->kind), want, res, want, op_now(ws) - t0);
	return data_result(ws, idx, res, want);
}

/* Op idx through a synchronous engine's queue(), timed: its result. */
static int64_t sync_queue_req(struct wstate *ws, const struct op *op, int fd,
			      uint64_t *t0, uint64_t *t)
{
	struct io_req req;
	int q;

	runner_op_req(op, fd, ws->buf, 0, &req);
	req.op_index = (uint32_t)(op - ws->ops);
	*t0 = op_now(ws);
	q = ws->eng.ops->queue(&ws->eng, &req);
	*t = op_now(ws);
	return q < 0 ? q : req.res;
}

/* The sync engine's read or write of op idx (cls RC_READ or RC_WRITE),
 * whole, from ws->buf: timed, accounted and checked as issue_sync() does
 * a request through queue(). */
static inline __attribute__((always_inline)) int
sync_rw_t(struct wstate *ws, uint64_t idx, const struct op *op, int fd, unsigned cls, bool timed)
{
	uint64_t want = runner_op_want(op), t0 = 0, t = 0;
	int64_t res;

	if (timed)
		t0 = now_ns();
	res = engine_sync_rw(&ws->eng, fd, cls == RC_WRITE, ws->buf, runner_op_ask(op, want),
			     op->offset);
	if (timed)
		t = now_ns();
	res = clip_want(res, want);
	if (idx == ws->cur_idx)
		ws->t_ret = t;
	account_t(ws, cls, want, res, want, t - t0, timed);
	return data_result(ws, idx, res, want);
}

/* (one copy timed, one not: the test of ws->lat made once per op) */
static inline int sync_rw(struct wstate *ws, uint64_t idx, const struct op *op, int fd,
			  unsigned cls)
{
	return ws->lat ? sync_rw_t(ws, idx, op, fd, cls, true) :
			 sync_rw_t(ws, idx, op, fd, cls, false);
}

/* A synchronous engine's request (whole, not rounded): done inside
 * queue(), so what issue_req() does around it with a slot, done here with
 * the request on the stack.  The sync engine's reads and writes skip the
 * io_req: its transfer is called directly (ws->rw_direct). */
static int issue_sync(struct wstate *ws, uint64_t idx, int fd, unsigned cls)
{
	const struct op *op = &ws->ops[idx];
	uint64_t want, t0, t;
	int64_t res;

	if (!ws->w->max_inflight)
		ws->w->max_inflight = 1;
	if (ws->rw_direct && (cls == RC_READ || cls == RC_WRITE) && !(op->flags & OPF_RWF))
		return sync_rw(ws, idx, op, fd, cls);
	want = cls == RC_READ || cls == RC_WRITE ? runner_op_want(op) : 0;
	res = sync_queue_req(ws, op, fd, &t0, &t);
	if (cls == RC_READ || cls == RC_WRITE)
		res = clip_want(res, want);
	if (idx == ws->cur_idx)
		ws->t_ret = t;
	account(ws, cls, want, res, want, t - t0);
	if (cls == RC_READ || cls == RC_WRITE)
		return data_result(ws, idx, res, want);
	return res < 0 ? op_failed(ws, idx, (int)-res) : 0;
}

/* Issue a data or sync op through the engine. */
static int issue(struct wstate *ws, uint64_t idx, int fd, uint32_t align, enum wait_mode wait)
{
	const struct op *op = &ws->ops[idx];

	if (op_is_data(op->kind) && runner_op_len(op) > ws->piece)
		return issue_pieces(ws, idx, fd, align);
	if (!ws->async && (align <= 1 || !op_is_data(op->kind)))
		return issue_sync(ws, idx, fd, rclass_of(op->kind));
	return issue_req(ws, idx, fd, align, wait, NULL);
}

/* OP_AWAIT: reap until the submit with that async id is done. */
static int await_id(struct wstate *ws, uint32_t id)
{
	while (slots_awaited(&ws->st, id)) {
		int ret = reap_some(ws, 1);

		if (ret)
			return ret;
	}
	return 0;
}

static inline int handle_fd(const struct wstate *ws, uint32_t h)
{
	return h < ws->nhandles ? ws->fd[h] : FD_NONE;
}

/* A metadata op done by the runner itself (not through the engine). */
static int meta_done(struct wstate *ws, uint64_t idx, unsigned cls, int res, uint64_t t0)
{
	uint64_t t = op_now(ws);
	ws->t_ret = t;
	account(ws, cls, 0, res, 0, t - t0);
	return res < 0 ? op_failed(ws, idx, -res) : 0;
}

static int do_open(struct wstate *ws, uint64_t idx, const struct op *op)
{
	const struct worker_ctx *c = ws->c;
	int flags = (int)op->oflags | O_CLOEXEC;
	uint64_t t0;
	int fd;

	if (op->handle >= ws->nhandles || op->file == OP_NOFILE) {
		ws->w->skipped_nohandle++;
		return 0;
	}
	bool tmpfile = op_oflags_tmpfile(op->oflags), named = false;
	if (c->o->direct && (!(flags & O_DIRECTORY) || tmpfile))
		flags |= O_DIRECT;
	if (ws->fd[op->handle] >= 0) {
		close(ws->fd[op->handle]);
		ws->fd[op->handle] = FD_NONE;
	}
	t0 = op_now(ws);
	ws->why_idx = idx;
	ws->open_why = NULL;
	/* O_TMPFILE: a new unnamed file in the directory of op->file */
	fd = tmpfile ? plan_open_tmpfile(c->plan, c->copy, op->file, flags, (mode_t)op->aux, &named)
		     : plan_open_run(c->plan, c->copy, op->file, flags, (mode_t)op->aux,
				     ws->written[op->file], &ws->open_why);
	/* --direct on a directory (or a file system without O_DIRECT): the
	 * open the trace made, without it */
	if (fd == -EINVAL && (flags & O_DIRECT) && !(op->oflags & O_DIRECT)) {
		flags &= ~O_DIRECT;
		fd = tmpfile ? plan_open_tmpfile(c->plan, c->copy, op->file, flags,
						 (mode_t)op->aux, &named)
			     : plan_open_run(c->plan, c->copy, op->file, flags, (mode_t)op->aux,
					     ws->written[op->file], &ws->open_why);
	}
	if (fd >= 0 && named)
		ws->w->tmpfile_named++;
	if (fd >= 0) {
		ws->fd[op->handle] = fd;
		ws->hfile[op->handle] = op->file;
		ws->hdirect[op->handle] = (flags & O_DIRECT) != 0;
		/* made or emptied by the open: flushed at the end (a file
		 * opened O_RDWR and only read is not: its writes mark it) */
		if (flags & (O_CREAT | O_TRUNC))
			ws->written[op->file] = 1;
		if (ws->hmade)
			ws->hmade[op->handle] = 0;
		if ((flags & (O_CREAT | O_TRUNC)) || tmpfile)
			made_now(ws, op);
	}
	if (fd >= 0 && c->o->direct) {
		uint32_t oa = 0, ma = 0;

		if (direct_query_align(fd, c->o->logical_block, &oa, &ma) == 0)
			ws->halign[op->handle] = oa > ma ? oa : ma;
		else
			ws->halign[op->handle] = c->o->logical_block ? c->o->logical_block : 512;
		/* the data buffer is sized for DIRECT_MAX_ALIGN: a file asking for
		 * more fails its open (EINVAL) rather than overrun the buffer */
		if (ws->halign[op->handle] > DIRECT_MAX_ALIGN) {
			close(fd);
			ws->fd[op->handle] = FD_NONE;
			fd = -EINVAL;
		}
	}
	ws->hlost[op->handle] = fd < 0;
	return meta_done(ws, idx, RC_OPEN, fd < 0 ? fd : 0, t0);
}

/* The fd of op's handle; FD_NONE (and the op counted as not issued) when
 * the handle was never opened in the replay. */
static int op_fd(struct wstate *ws, const struct op *op)
{
	int fd = handle_fd(ws, op->handle);

	if (fd < 0) {
		ws->w->skipped_nohandle++;
		/* its replayed open failed (the traced one did not): the
		 * rank's ops on it are not replayed, which the run says */
		if (op->handle < ws->nhandles && ws->hlost[op->handle]) {
			ws->w->open_failed_ops++;
			if (op_is_data(op->kind))
				ws->w->open_failed_bytes += op->len;
		}
	}
	return fd;
}

static int do_data(struct wstate *ws, uint64_t idx, const struct op *op)
{
	const struct runner_opts *o = ws->c->o;
	int fd = op_fd(ws, op);
	enum wait_mode wait;

	if (fd < 0)
		return 0;
	if (op_is_write(op->kind))
		ws->written[ws->hfile[op->handle]] = 1;
	ws->w->buffered_ops += !ws->hdirect[op->handle];
	/* (a synchronous engine completes every op at once: no wait to choose) */
	wait = !ws->async ? WAIT_DONE :
	       op->kind == OP_AREAD || op->kind == OP_AWRITE ? WAIT_AWAIT :
	       o->overlap || ws->ahead ? WAIT_AHEAD : WAIT_DONE;
	return issue(ws, idx, fd, o->direct ? ws->halign[op->handle] : 0, wait);
}

static int do_sync(struct wstate *ws, uint64_t idx, const struct op *op)
{
	int fd = op_fd(ws, op);

	return fd < 0 ? 0 : issue(ws, idx, fd, 0, WAIT_DONE);
}

static int do_close(struct wstate *ws, uint64_t idx, const struct op *op)
{
	int fd = op_fd(ws, op), res;
	uint64_t t0;

	if (fd < 0)
		return 0;
	t0 = op_now(ws);
	res = close(fd) < 0 ? -errno : 0;
	ws->fd[op->handle] = FD_NONE;
	return meta_done(ws, idx, RC_CLOSE, res, t0);
}

static int do_resize(struct wstate *ws, uint64_t idx, const struct op *op)
{
	int fd, res;
	uint64_t t0;

	if (op->kind == OP_FTRUNCATE && op->handle == OP_NOHANDLE && op->file != OP_NOFILE) {
		/* truncate(path, len): beneath the target, by path */
		ws->written[op->file] = 1;
		t0 = op_now(ws);
		ws->why_idx = idx;
		res = plan_truncate(ws->c->plan, ws->c->copy, op->file, op->len, &ws->open_why);
		return meta_done(ws, idx, RC_META, res, t0);
	}
	fd = op_fd(ws, op);
	if (fd < 0)
		return 0;
	ws->written[ws->hfile[op->handle]] = 1;
	t0 = op_now(ws);
	if (op->kind == OP_FTRUNCATE) {
		made_now(ws, op);
		res = ftruncate(fd, (off_t)op->len) < 0 ? -errno : 0;
	} else
		res = fallocate(fd, (int)op->aux, (off_t)op->offset, (off_t)op->len) < 0 ? -errno : 0;
	return meta_done(ws, idx, RC_META, res, t0);
}

/* fcntl(F_SETFL) as traced: the status flags Linux lets a process change
 * on an open file (O_APPEND, O_DIRECT, O_NOATIME, O_NONBLOCK) set to the
 * op's, the others kept.  With --direct a handle open with O_DIRECT keeps
 * it (every data op direct, as asked); e.g. dd oflag=direct clears
 * O_DIRECT before its last, partial block. */
static int do_setfl(struct wstate *ws, uint64_t idx, const struct op *op)
{
	const int bits = O_APPEND | O_DIRECT | O_NOATIME | O_NONBLOCK;
	int fd = op_fd(ws, op), cur, res;
	uint64_t t0;

	if (fd < 0)
		return 0;
	t0 = op_now(ws);
	cur = fcntl(fd, F_GETFL);
	if (cur < 0) {
		res = -errno;
	} else {
		int nf = (cur & ~bits) | ((int)op->oflags & bits);
		if (ws->c->o->direct)
			nf |= cur & O_DIRECT;
		res = fcntl(fd, F_SETFL, nf) < 0 ? -errno : 0;
		if (!res)
			ws->hdirect[op->handle] = (nf & O_DIRECT) != 0;
	}
	return meta_done(ws, idx, RC_META, res, t0);
}

static int do_stat(struct wstate *ws, uint64_t idx, const struct op *op)
{
	uint64_t t0 = op_now(ws);
	struct stat st;
	int fd, res;

	if (op->handle != OP_NOHANDLE) {
		fd = op_fd(ws, op);
		if (fd < 0)
			return 0;
		res = fstat(fd, &st) < 0 ? -errno : 0;
	} else if (op->file != OP_NOFILE) {
		res = plan_stat(ws->c->plan, ws->c->copy, op->file);
	} else {
		ws->w->skipped_nohandle++;
		return 0;
	}
	return meta_done(ws, idx, RC_META, res, t0);
}

/* unlink, rename, link, symlink, mkdir, rmdir: by path, beneath the target. */
static int do_path_op(struct wstate *ws, uint64_t idx, const struct op *op)
{
	const struct worker_ctx *c = ws->c;
	uint64_t t0;
	int res;

	if (op->file == OP_NOFILE || (op_aux_is_path(op->kind) && op->aux >= c->s->npaths)) {
		ws->w->skipped_nohandle++;
		return 0;
	}
	t0 = op_now(ws);
	switch (op->kind) {
	case OP_UNLINK:
		res = plan_unlink(c->plan, c->copy, op->file);
		break;
	case OP_RENAME:
	case OP_LINK:
		res = op->kind == OP_LINK ? plan_link(c->plan, c->copy, op->file, op->aux) :
					    plan_rename(c->plan, c->copy, op->file, op->aux);
		if (res >= 0 && ws->written[op->file])
			ws->written[op->aux] = 1;
		break;
	case OP_SYMLINK:
		/* the content as the plan makes it, inside the copy */
		res = plan_symlink(c->plan, c->copy, op->file, opstream_path(c->s, op->aux));
		/* the name was free (a file written there was unlinked since):
		 * nothing to flush under it, and the end's flush must not open
		 * the link (the walk refuses it; a dangling one has no file) */
		if (res >= 0)
			ws->written[op->file] = 0;
		break;
	case OP_MKDIR:
		res = plan_mkdir(c->plan, c->copy, op->file, (mode_t)op->aux);
		/* the traced mkdir succeeded; the directory is already there
		 * because the plan made it for another rank that uses it (ranks
		 * run unordered): what the trace wanted */
		if (res == -EEXIST)
			res = 0;
		break;
	default:
		res = plan_rmdir(c->plan, c->copy, op->file);
		break;
	}
	return meta_done(ws, idx, RC_META, res < 0 ? res : 0, t0);
}

/* Ops that are only counted, never issued: 1 when op is one (*ret set). */
static int not_issued(struct wstate *ws, const struct op *op, int *ret)
{
	struct worker_result *w = ws->w;

	*ret = 0;
	if (!filter_op_kept(ws->filter, op)) {
		w->filtered++;
		return 1;
	}
	switch (op->kind) {
	case OP_SEEK:
		w->seeks++;
		return 1;
	case OP_BARRIER:
		w->barriers++;
		return 1;
	case OP_MMAP:
		w->skipped_mmap++;
		return 1;
	case OP_AWAIT:
		*ret = await_id(ws, op->aux);
		return 1;
	case OP_NONE:
		return 1;
	default:
		break;
	}
	/* A call that failed in the trace is not replayed: it either fails
	 * again or does work the application never did. */
	if (op->result < 0) {
		w->skipped_failed++;
		if (op->kind == OP_OPEN && op->handle < ws->nhandles && ws->fd[op->handle] >= 0) {
			close(ws->fd[op->handle]);
			ws->fd[op->handle] = FD_NONE;
		}
		return 1;
	}
	return 0;
}

/* Timed modes: wait until op is due.  Completions of the ops in flight
 * are reaped meanwhile (their latency is theirs, not the wait's); a long
 * wait sleeps in slices of 100 ms so a stop is seen. */
static int timed_wait(struct wstate *ws, const struct op *op, uint64_t *due)
{
	const uint32_t *stop = ws->c->stop;
	int ret = 0;

	*due = sched_due(&ws->sch, op);
	for (;;) {
		uint64_t now = now_ns();
		if (now + SCHED_SPIN_NS >= *due)
			break;
		if (stop && __atomic_load_n(stop, RELAXED))
			return -EINTR;
		uint64_t left = *due - SCHED_SPIN_NS - now;
		if (left > 100000000ull)
			left = 100000000ull;
		if (ws->inflight) {
			struct timespec to = { (time_t)(left / 1000000000ull),
					       (long)(left % 1000000000ull) };
			int n = reap_batch(ws, 1, &to, &ret);
			if (n < 0)
				return n;
			if (ret)
				return ret;
		} else {
			ws->sch.clk->sleep_until(ws->sch.clk->ctx, now + left);
		}
	}
	sched_wait(&ws->sch, *due);
	return 0;
}

/* Issue op i (its kind's do_*); afap unless timed. */
static int dispatch(struct wstate *ws, uint64_t i, const struct op *op)
{
	switch (op->kind) {
	case OP_OPEN:
		return do_open(ws, i, op);
	case OP_READ: case OP_WRITE: case OP_AREAD: case OP_AWRITE:
		return do_data(ws, i, op);
	case OP_FSYNC: case OP_FDATASYNC:
		return do_sync(ws, i, op);
	case OP_CLOSE:
		return do_close(ws, i, op);
	case OP_FTRUNCATE: case OP_FALLOCATE:
		return do_resize(ws, i, op);
	case OP_SETFL:
		return do_setfl(ws, i, op);
	case OP_STAT:
		return do_stat(ws, i, op);
	case OP_UNLINK: case OP_RENAME: case OP_MKDIR: case OP_RMDIR: case OP_LINK:
	case OP_SYMLINK:
		return do_path_op(ws, i, op);
	default:
		return 0;
	}
}

static int replay_op(struct wstate *ws, uint64_t i)
{
	const struct op *op = &ws->ops[i];
	uint64_t due = 0;
	int ret;

	/* The common op, the way not_issued(), dispatch(), do_data() and
	 * issue() would take it: a read or write the trace saw succeed, kept
	 * by the filter, on a handle open here, of at most a buffer, without
	 * per-call sync flags (RWF_DSYNC: runner_op_req gives them). */
	int fd;
	if (ws->rw_short && (op->kind == OP_READ || op->kind == OP_WRITE) && op->result >= 0 &&
	    !(op->flags & OPF_RWF) &&
	    (fd = handle_fd(ws, op->handle)) >= 0 &&
	    runner_op_len(op) <= ws->piece && filter_op_kept(ws->filter, op)) {
		unsigned cls = op->kind == OP_WRITE ? RC_WRITE : RC_READ;
		if (cls == RC_WRITE)
			ws->written[ws->hfile[op->handle]] = 1;
		ws->w->buffered_ops += !ws->hdirect[op->handle];
		if (ws->rw_direct) {
			ws->w->max_inflight = 1;
			return sync_rw(ws, i, op, fd, cls);
		}
		if (!ws->async)
			return issue_sync(ws, i, fd, cls);
		return issue_rw(ws, i, op, fd, cls);
	}
	if (not_issued(ws, op, &ret))
		return ret;
	if (ws->timed) {
		ret = timed_wait(ws, op, &due);
		if (ret)
			return ret;
	}
	/* anything but data waits for the data ops in flight */
	if (!op_is_data(op->kind)) {
		ret = drain(ws);
		if (ret)
			return ret;
	}
	if (!ws->timed)
		return dispatch(ws, i, op);
	ws->cur_idx = i;
	ws->t_ret = 0;
	sched_issued(&ws->sch, due, now_ns());
	ret = dispatch(ws, i, op);
	/* think: the gap runs from the op's completion as seen (a synchronous
	 * call) or from its submission (left in flight) */
	sched_returned(&ws->sch, op, ws->t_ret ? ws->t_ret : now_ns());
	ws->cur_idx = UINT64_MAX;
	return ret;
}

/* A failure of the final flush: counted, and the worker's error (the
 * first one) names the file. */
static int flush_failed(struct wstate *ws, uint32_t p, const char *what, int r)
{
	struct worker_result *w = ws->w;

	if (r > -RES_MAX_ERRNO)
		w->errno_counts[-r]++;
	if (!w->first_errno)
		w->first_errno = -r;
	if (!w->fail_errno) {
		w->fail_errno = -r;
		snprintf(w->fail_msg, sizeof(w->fail_msg), "flush of '%s': %s: %s",
			 opstream_path(ws->c->s, p), what, strerror(-r));
	}
	return r;
}

/* After the ops: fsync every file this worker wrote, so its delayed
 * writes are on the device before it reports done.  Files unlinked or
 * renamed away by the trace are gone and need nothing (ENOENT, or ENOTDIR
 * when a directory on the way went, or ELOOP when a symbolic link took the
 * name); any other failure to open one is an
 * error, as a failed fsync is (EINVAL aside: a file that cannot be synced). */
static int flush_written(struct wstate *ws)
{
	const struct worker_ctx *c = ws->c;
	int ret = 0;

	bool synced_fs = false;

	for (uint32_t p = 0; p < c->s->npaths; p++) {
		int fd, r;

		if (!ws->written[p])
			continue;
		/* (O_NOFOLLOW: a name the trace made a symbolic link since,
		 * maybe another rank, holds no data of ours: ELOOP) */
		fd = plan_openat(c->plan, c->copy, p,
				 O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0);
		if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
			continue;
		if (fd == -EACCES || fd == -EPERM) {
			/* a file the trace made unreadable to this user (mode 0,
			 * 0200: a run not as root): the file system's sync
			 * flushes it with the rest, once */
			if (synced_fs)
				continue;
			int dfd = openat(c->plan->target_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			r = dfd < 0 ? -errno : syncfs(dfd) < 0 ? -errno : 0;
			if (dfd >= 0)
				close(dfd);
			synced_fs = true;
			if (r < 0 && !ret)
				ret = flush_failed(ws, p, "syncfs of the target", r);
			continue;
		}
		if (fd < 0) {
			if (!ret)
				ret = flush_failed(ws, p, "cannot open it", fd);
			continue;
		}
		r = fsync(fd) < 0 ? -errno : 0;
		close(fd);
		if (r < 0 && r != -EINVAL && !ret)
			ret = flush_failed(ws, p, "fsync", r);
	}
	return ret;
}

/* Ops 0..done-1 are complete: tell the ranks that wait for them. */
static void publish(struct wstate *ws, uint64_t done)
{
	if (ws->c->sh)
		wait_publish(&ws->w->ww, done);
}

/* Op i waits for the ops of other ranks the trace shows before it (its
 * own in flight first: a rank it waits for may be waiting for them). */
static int wait_deps(struct wstate *ws, uint64_t i)
{
	const struct worker_ctx *c = ws->c;
	bool waited = false;
	uint64_t t0 = now_ns();
	int ret = drain(ws);
	if (ret)
		return ret;
	publish(ws, i);
	for (; ws->dep_next < ws->ndeps && ws->deps[ws->dep_next].op == i; ws->dep_next++) {
		const struct dep *d = &ws->deps[ws->dep_next];
		size_t j = ws->proc_base + d->rank;
		if (j >= c->sh->nworkers)
			continue;       /* that rank has no process in this copy */
		struct wait_word *ww = &c->sh->w[j].ww;
		if (__atomic_load_n(&ww->done, __ATOMIC_ACQUIRE) >= d->need)
			continue;
		waited = true;
		ret = wait_for(ww, d->need, c->stop);
		if (ret)
			return ret;
	}
	if (waited) {
		ws->w->dep_waits++;
		ws->w->dep_wait_ns += now_ns() - t0;
	}
	return 0;
}

/* A traced barrier: every replayed rank of the copy that has it meets. */
static int at_barrier(struct wstate *ws, uint64_t i)
{
	const struct plan *p = ws->c->plan;
	uint64_t k = ws->bar_k++, t0 = now_ns();
	int ret = drain(ws);
	if (ret || k >= p->nbars)
		return ret;
	publish(ws, i);
	ret = barrier_arrive(ws->bar, plan_bar_parts(p, ws->c->copy, k), ws->c->stop);
	ws->w->barrier_waits++;
	ws->w->barrier_wait_ns += now_ns() - t0;
	return ret;
}

static int before_op(struct wstate *ws, uint64_t i)
{
	int ret = 0;
	if (ws->dep_next < ws->ndeps && ws->deps[ws->dep_next].op == i)
		ret = wait_deps(ws, i);
	if (!ret && ws->bar && ws->ops[i].kind == OP_BARRIER)
		ret = at_barrier(ws, i);
	return ret;
}

/* Kept a function (never inlined) so that scripts/bench-instr can count
 * the instructions of the op loop by its name. */
static __attribute__((noinline)) int replay_ops(struct wstate *ws, const uint32_t *stop)
{
	struct worker_result *w = ws->w;
	uint64_t t_io, t_end;
	int ret = 0;

	ws->cur_idx = UINT64_MAX;
	if (ws->timed)
		sched_init(&ws->sch, ws->c->o->timing, ws->c->o->speed, &sched_monotonic,
			   w->start_ns, ws->offset, &w->lag);
	for (uint64_t i = 0; i < ws->nops; i++) {
		if (stop && __atomic_load_n(stop, RELAXED)) {
			ret = -EINTR;
			break;
		}
		/* a record ahead: the syscalls between ops hide the stream
		 * from the hardware prefetcher */
		if (i + 4 < ws->nops)
			__builtin_prefetch(&ws->ops[i + 4]);
		ret = before_op(ws, i);
		if (!ret)
			ret = replay_op(ws, i);
		__atomic_store_n(&w->ops_done, i + 1, RELAXED);
		if (ret)
			break;
		if (!ws->inflight)
			publish(ws, i + 1);
	}
	if (!ret)
		ret = drain(ws);
	if (!ret)
		publish(ws, ws->nops);
	t_io = now_ns();
	w->io_ns = t_io - w->start_ns;
	if (ws->timed) {
		w->drift_ns = ws->sch.drift_ns;
		w->sched_ns = sched_span(&ws->sch);
	}
	if (!ret)
		ret = flush_written(ws);
	t_end = now_ns();
	w->flush_ns = t_end - t_io;
	w->completion_ns = t_end - w->start_ns;
	return ret;
}

int runner_replay_rank(const struct worker_ctx *c)
{
	struct wstate ws;
	int ret;

	ret = ws_setup(&ws, c);
	if (ret == 0) {
		c->w->start_ns = now_ns();
		ret = replay_ops(&ws, c->stop);
	}
	ws_free(&ws);
	return ret;
}

/* ---- the parent ------------------------------------------------------ */

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void fmt_cpuset(char *out, size_t len)
{
	cpu_set_t set;
	size_t n = 0;
	int first = -1;

	out[0] = '\0';
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return;
	for (int i = 0; i <= CPU_SETSIZE; i++) {
		bool in = i < CPU_SETSIZE && CPU_ISSET(i, &set);

		if (in && first < 0)
			first = i;
		if (!in && first >= 0) {
			int k = first == i - 1
				? snprintf(out + n, len - n, "%s%d", n ? "," : "", first)
				: snprintf(out + n, len - n, "%s%d-%d", n ? "," : "", first, i - 1);
			if (k < 0 || (size_t)k >= len - n) {
				out[n] = '\0';
				return;
			}
			n += (size_t)k;
			first = -1;
		}
	}
}

static uint64_t tv_ns(const struct timeval *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_usec * 1000ull;
}

/* The CPU, context switches and faults of the replay itself. */
static void usage_delta(struct worker_result *w, const struct rusage *a, const struct rusage *b)
{
	w->usr_ns = tv_ns(&b->ru_utime) - tv_ns(&a->ru_utime);
	w->sys_ns = tv_ns(&b->ru_stime) - tv_ns(&a->ru_stime);
	w->ctx = (uint64_t)(b->ru_nvcsw - a->ru_nvcsw) + (uint64_t)(b->ru_nivcsw - a->ru_nivcsw);
	w->majf = (uint64_t)(b->ru_majflt - a->ru_majflt);
	w->minf = (uint64_t)(b->ru_minflt - a->ru_minflt);
}


/* Fault injection for the test suite: REPLAY_TEST_FAIL_SETUP=N makes the
 * worker of process N fail its setup (ECANCELED), as an engine that
 * refused it would, so the parent's handling of a worker lost before the
 * start can be tested now that the depths the engines refuse are caught
 * before any worker starts (see replay(1), ENVIRONMENT). */
static int injected_setup_failure(unsigned idx)
{
	const char *v = getenv("REPLAY_TEST_FAIL_SETUP");
	char *end;
	unsigned long n;
	if (!v || !*v)
		return 0;
	n = strtoul(v, &end, 10);
	return !*end && n == idx ? -ECANCELED : 0;
}

static __attribute__((noreturn)) void worker_main(struct runner *r, unsigned idx)
{
	struct run_shared *sh = r->sh;
	struct worker_result *w = &sh->w[idx];
	struct worker_ctx c = {
		.plan = r->plan, .s = r->s, .o = &r->o,
		.rank = w->rank, .copy = w->copy, .pos = r->plan->procs[idx].pos, .w = w,
		.stop = &sh->stop, .sh = r->plan->sequential ? NULL : sh,
	};
	struct wstate ws;
	sigset_t none;
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != r->parent)
		_exit(1);
	signal(SIGINT, SIG_IGN);     /* the parent decides; it kills us   */
	signal(SIGHUP, SIG_IGN);     /* (a hangup reaches the whole group) */
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	w->pid = getpid();
	if (r->topo) {
		ret = topo_bind_worker(r->topo, (enum bind_mode)r->o.bind, idx, sh->nworkers,
				       w->cpuset, sizeof(w->cpuset), &w->numa_node);
		if (ret < 0) {
			w->fail_errno = -ret;
			snprintf(w->fail_msg, sizeof(w->fail_msg), "cannot bind (--bind %s): %s",
				 topo_bind_name((enum bind_mode)r->o.bind), strerror(-ret));
			/* not counted ready: the parent must not release the others
			 * before it has reaped this one and stopped the run */
			__atomic_store_n(&w->status, W_FAILED, __ATOMIC_SEQ_CST);
			_exit(1);
		}
	} else {
		/* no hwloc: the worker keeps the parent's affinity */
		fmt_cpuset(w->cpuset, sizeof(w->cpuset));
	}
	ret = injected_setup_failure(idx);
	if (!ret)
		ret = ws_setup(&ws, &c);
	if (ret) {
		w->fail_errno = -ret;
		snprintf(w->fail_msg, sizeof(w->fail_msg), "worker setup (engine %s, depth %u): %s",
			 r->o.engine->name, r->o.depth, strerror(-ret));
		/* not counted ready: the parent must not release the others
		 * before it has reaped this one and stopped the run */
		__atomic_store_n(&w->status, W_FAILED, __ATOMIC_SEQ_CST);
		_exit(1);
	}
	__atomic_store_n(&w->status, W_RUNNING, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE) == 0)
		futex(&sh->go, FUTEX_WAIT, 0);
	if (__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE))
		_exit(1);
	w->start_ns = sh->release_ns;
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
	ret = replay_ops(&ws, &sh->stop);
	getrusage(RUSAGE_SELF, &ru1);
	usage_delta(w, &ru0, &ru1);
	ws_free(&ws);
	__atomic_store_n(&w->status, ret ? W_FAILED : W_DONE, __ATOMIC_SEQ_CST);
	_exit(ret ? 1 : 0);
}

int runner_init(struct runner **rp, struct plan *p, const struct opstream *s,
		const struct runner_opts *o, struct rerr *e)
{
	struct runner *r = NULL;
	const char *why = NULL;
	int ret;

	*rp = NULL;
	if (!o->engine)
		return rerr_set(e, -EINVAL, "no engine");
	if (p->nprocs == 0)
		return rerr_set(e, -EINVAL, "the trace has no ranks to replay");
	ret = o->engine->probe ? o->engine->probe(&why) : 0;
	if (ret < 0)
		return rerr_set(e, ret, "engine '%s' is not usable here: %s", o->engine->name,
				why ? why : strerror(-ret));
	if (o->drop_caches && access("/proc/sys/vm/drop_caches", W_OK) < 0)
		return rerr_set(e, -errno, "cannot drop the page cache: '/proc/sys/vm/drop_caches': %s"
				" (run as root, or pass --no-drop-caches)", strerror(errno));
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->plan = p;
	r->s = s;
	r->o = *o;
	if (!r->o.depth)
		r->o.depth = 1;
	if (!r->o.sample_interval_ns)
		r->o.sample_interval_ns = 100000000ull;
	r->dir_fd = -1;
	r->parent = getpid();
	ret = topo_load(&r->topo);
	if (ret < 0) {
		r->topo = NULL;
		if (o->bind != BIND_NONE) {
			rerr_set(e, ret, "cannot load the host topology for --bind %s: %s",
				 topo_bind_name((enum bind_mode)o->bind), strerror(-ret));
			goto out;
		}
	}
	r->sh_size = sizeof(struct run_shared) + p->nprocs * sizeof(struct worker_result) +
		     p->ncopies * sizeof(struct barrier);
	r->sh = mmap(NULL, r->sh_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r->sh == MAP_FAILED) {
		ret = rerr_set(e, -errno, "cannot map shared results: %s", strerror(errno));
		r->sh = NULL;
		goto out;
	}
	r->sh->nworkers = (uint32_t)p->nprocs;
	r->pids = calloc(p->nprocs, sizeof(*r->pids));
	r->used = calloc(p->nprocs, 1);
	if (!r->pids || !r->used) {
		ret = -ENOMEM;
		goto out;
	}
	r->dir_fd = openat(p->target_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->dir_fd < 0) {
		ret = rerr_set(e, -errno, "cannot open '%s': %s", p->target, strerror(errno));
		goto out;
	}
	*rp = r;
	return 0;
out:
	runner_free(r);
	return ret;
}

const struct run_shared *runner_shared(const struct runner *r)
{
	return r->sh;
}

void runner_set_hooks(struct runner *r, const struct runner_hooks *h)
{
	r->hk = *h;
}

struct run_shared *runner_shared_rw(struct runner *r)
{
	return r->sh;
}

/* Forked by this runner (every process, unless replay-mpi placed some
 * elsewhere). */
static bool is_local(const struct runner *r, unsigned i)
{
	return !r->hk.local || r->hk.local[i];
}

const struct topo *runner_topo(const struct runner *r)
{
	return r->topo;
}

void runner_free(struct runner *r)
{
	if (!r)
		return;
	if (r->sh)
		munmap(r->sh, r->sh_size);
	if (r->dir_fd >= 0)
		close(r->dir_fd);
	if (r->topo)
		topo_free(r->topo);
	free(r->pids);
	free(r->used);
	free(r);
}

/* A slot made ready for a worker.  One no worker has used is still as the
 * kernel mapped it, all zero (empty histograms): only its own fields are
 * set, so that 1024 slots of ~80 KiB are not all written (and faulted in)
 * by the parent before the workers start. */
static void reset_slot(struct runner *r, unsigned i)
{
	struct worker_result *w = &r->sh->w[i];

	if (r->used[i])
		memset(w, 0, sizeof(*w));
	runner_worker_init(w);
	w->rank = (int32_t)r->plan->procs[i].rank;
	w->copy = r->plan->procs[i].copy;
	w->pid = -1;
	w->sample_interval_ns = r->o.sample_interval_ns;
	snprintf(w->rank_name, sizeof(w->rank_name), "%s", opstream_rank_name(r->s, (uint32_t)w->rank));
	opstream_rank_ops(r->s, w->rank, &w->ops_total);
	w->ops_replayed = filter_rank_ops(r->plan->filter, (uint32_t)w->rank, w->ops_total);
}

/* The cgroup v2 directory of this process ("" when unknown). */
static void own_cgroup(char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/self/cgroup", "re");
	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(out, len, "/sys/fs/cgroup%s", strcmp(line + 3, "/") ? line + 3 : "");
		break;
	}
	fclose(f);
}

int runner_room(unsigned n, struct rerr *e)
{
	long long tasks = -1, cap = -1;
	const char *capname = NULL;
	FILE *f = fopen("/proc/loadavg", "re");
	if (f) {
		double l1, l5, l15;
		long long run;
		if (fscanf(f, "%lf %lf %lf %lld/%lld", &l1, &l5, &l15, &run, &tasks) != 5)
			tasks = -1;
		fclose(f);
	}
	long long pmax = file_number("/proc/sys/kernel/pid_max");
	long long tmax = file_number("/proc/sys/kernel/threads-max");
	if (pmax > 0) {
		cap = pmax;
		capname = "kernel.pid_max";
	}
	if (tmax > 0 && (cap < 0 || tmax < cap)) {
		cap = tmax;
		capname = "kernel.threads-max";
	}
	/* a margin for the rest of the node (its daemons, the job's shell) */
	if (cap > 0 && tasks >= 0 && (long long)n + tasks + 64 > cap)
		return rerr_set(e, -EAGAIN,
				"-n %u: this node runs %lld tasks and %s is %lld: it cannot start "
				"%u more processes at once (use fewer, or -m sequential, or more "
				"nodes with replay-mpi)", n, tasks, capname, cap, n);
	char cg[560], pth[600];
	own_cgroup(cg, sizeof(cg));
	if (cg[0]) {
		snprintf(pth, sizeof(pth), "%s/pids.max", cg);
		long long cmax = file_number(pth);     /* "max": -1, no limit */
		snprintf(pth, sizeof(pth), "%s/pids.current", cg);
		long long cur = file_number(pth);
		if (cmax > 0 && cur >= 0 && (long long)n + cur > cmax)
			return rerr_set(e, -EAGAIN,
					"-n %u: this job's cgroup (%s) allows %lld processes and "
					"holds %lld: it cannot start %u more at once (use fewer, or "
					"-m sequential)", n, cg, cmax, cur, n);
	}
	struct rlimit rl;
	if (geteuid() != 0 && !getrlimit(RLIMIT_NPROC, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (unsigned long long)n + 1 > (unsigned long long)rl.rlim_cur)
		return rerr_set(e, -EAGAIN,
				"-n %u: the process limit of this user is %llu (ulimit -u): it "
				"cannot start %u more processes at once (use fewer, or -m "
				"sequential, or raise it)", n, (unsigned long long)rl.rlim_cur, n);
	return 0;
}

static void kill_all(struct runner *r, unsigned first, unsigned count)
{
	__atomic_store_n(&r->sh->stop, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&r->sh->go, 1, __ATOMIC_SEQ_CST);
	futex(&r->sh->go, FUTEX_WAKE, INT_MAX);
	for (unsigned i = first; i < first + count; i++)
		if (r->pids[i] > 0)
			kill(r->pids[i], SIGKILL);
}

static void take_sample(struct runner *r, unsigned first, unsigned count)
{
	for (unsigned i = first; i < first + count; i++) {
		struct worker_result *w = &r->sh->w[i];

		if (w->nsamples == RES_TIMELINE) {
			/* full: keep every second sample, double the interval */
			for (unsigned k = 0; k < RES_TIMELINE / 2; k++)
				w->sample_bytes[k] = w->sample_bytes[2 * k + 1];
			w->nsamples = RES_TIMELINE / 2;
			w->sample_interval_ns *= 2;
		}
		w->sample_bytes[w->nsamples++] = __atomic_load_n(&w->bytes_done, RELAXED);
	}
}

/* Replayed ops (those the filter keeps) done and to do, bytes moved by
 * the group's workers so far: this runner's own (replay-mpi: the other
 * runners' slots are not live).  A worker walks all its rank's ops: those
 * it passed less those it left out are the replayed ones done. */
static void group_counts(const struct runner *r, unsigned first, unsigned count,
			 uint64_t *done, uint64_t *total, uint64_t *bytes)
{
	*done = *total = *bytes = 0;
	for (unsigned i = first; i < first + count; i++) {
		if (!is_local(r, i))
			continue;
		const struct worker_result *w = &r->sh->w[i];
		uint64_t walked = __atomic_load_n(&w->ops_done, RELAXED);
		uint64_t left = __atomic_load_n(&w->filtered, RELAXED);
		uint64_t d = walked > left ? walked - left : 0;

		*done += d < w->ops_replayed ? d : w->ops_replayed;
		*total += w->ops_replayed;
		*bytes += __atomic_load_n(&w->bytes_done, RELAXED);
	}
}

/* --status-interval: one whole line, with the time, for logs. */
static void status_line(struct runner *r, unsigned first, unsigned count, uint64_t t0)
{
	uint64_t done, total, bytes, el = now_ns() - t0;
	char b1[32], b2[32], t[32];

	char run[48] = "";

	group_counts(r, first, count, &done, &total, &bytes);
	if (r->o.repeats > 1)
		snprintf(run, sizeof(run), " run %llu/%llu:", (unsigned long long)r->run_no,
			 (unsigned long long)r->o.repeats);
	fprintf(stderr, "replay: status %s:%s ops %llu/%llu (%.1f %%), %s, elapsed %s\n",
		fmt_utc_now(t, sizeof(t)), run, (unsigned long long)done, (unsigned long long)total,
		total ? 100.0 * (double)done / (double)total : 0.0,
		fmt_bytes(b1, sizeof(b1), (double)bytes), fmt_ns(b2, sizeof(b2), (double)el));
}

static void progress(struct runner *r, unsigned first, unsigned count, uint64_t t0, bool final)
{
	uint64_t done, total, bytes, el = now_ns() - t0;
	char b1[32], b2[32], b3[32];

	group_counts(r, first, count, &done, &total, &bytes);
	if (done && done < total)
		fmt_ns(b3, sizeof(b3), (double)el * (double)(total - done) / (double)done);
	else
		snprintf(b3, sizeof(b3), "-");
	fprintf(stderr, "\r\033[Kops %llu/%llu  %s  elapsed %s  ETA %s%s",
		(unsigned long long)done, (unsigned long long)total,
		fmt_bytes(b1, sizeof(b1), (double)bytes), fmt_ns(b2, sizeof(b2), (double)el),
		b3, final ? "\r\033[K" : "");
}

/* One group of workers in flight: run_group()'s state. */
struct group {
	struct runner *r;
	struct run_outcome *out;
	unsigned first, count;
	unsigned alive, failed;
	unsigned nlocal;             /* workers forked here (hooks.local)  */
	bool started;                /* hooks.start said go               */
	int fail_idx;                /* the first worker that failed, or -1 */
	bool released;
	uint64_t t_rel, next_sample, next_prog, next_status;
	sigset_t chld;
};

#define PROG_STEP_NS 500000000ull

static void group_kill(struct group *g)
{
	kill_all(g->r, g->first, g->count);
}

static bool group_stopping(const struct group *g)
{
	return __atomic_load_n(&g->r->sh->stop, __ATOMIC_SEQ_CST);
}

/* Reset the group's slots and fork its workers; -errno + e when a fork
 * fails (the workers already started are told to stop). */
static int group_fork(struct group *g, struct rerr *e)
{
	struct runner *r = g->r;
	struct run_shared *sh = r->sh;

	__atomic_store_n(&sh->go, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&sh->ready, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&sh->stop, 0, __ATOMIC_SEQ_CST);
	sh->sample_interval_ns = r->o.sample_interval_ns;
	for (unsigned i = g->first; i < g->first + g->count; i++) {
		reset_slot(r, i);
		r->pids[i] = -1;
		r->used[i] = 1;         /* a worker (or, under MPI, a gather) fills it */
	}
	fflush(NULL);
	for (unsigned i = g->first; i < g->first + g->count; i++) {
		if (!is_local(r, i))
			continue;
		g->nlocal++;
		pid_t pid = fork();

		if (pid < 0) {
			int err = errno;
			int ret = rerr_set(e, -err, "cannot start worker %u of %u: %s%s", i,
					   g->first + g->count, strerror(err),
					   err == EAGAIN ? " (a limit on processes: ulimit -u, "
					   "kernel.pid_max, the job's cgroup pids.max)" : "");

			g->out->failed = true;
			group_kill(g);
			return ret;
		}
		if (pid == 0)
			worker_main(r, i);
		r->pids[i] = pid;
		sh->w[i].pid = pid;
		g->alive++;
	}
	return 0;
}

/* Worker i ended with wait status st: record how, and stop the others
 * when it failed on its own. */
static void worker_exited(struct group *g, unsigned i, int st)
{
	struct worker_result *w = &g->r->sh->w[i];
	/* a signal to the whole process group (timeout(1), a batch scheduler)
	 * kills the workers too, maybe before we act on ours: that is the
	 * interruption, not a worker failure */
	bool stopping = group_stopping(g);

	/* so is a SIGTERM sent to each process rather than to the group
	 * (Slurm's scancel and time limit signal every process of the job):
	 * a worker killed by it stops the run as if replay had got it too,
	 * whether replay's own has come yet or never comes */
	if (!stopping && !runner_signal() && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM)
		runner_on_signal(SIGTERM);
	if (!stopping && runner_signal()) {
		g->out->stop_signal = runner_signal();
		group_kill(g);
		stopping = true;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
	    __atomic_load_n(&w->status, __ATOMIC_SEQ_CST) == W_DONE)
		return;
	/* killed before it could time itself: it ran from the release until
	 * now, all of it I/O (no flush was made) */
	if (g->released && !w->completion_ns) {
		w->io_ns = w->completion_ns = now_ns() - g->t_rel;
		w->flush_ns = 0;
	}
	if (WIFSIGNALED(st)) {
		w->status = W_KILLED;
		if (!stopping)
			snprintf(w->fail_msg, sizeof(w->fail_msg), "worker died: killed by signal %d (%s)",
				 WTERMSIG(st), strsignal(WTERMSIG(st)));
	} else if (w->status != W_FAILED) {
		w->status = W_FAILED;
		if (!w->fail_msg[0])
			snprintf(w->fail_msg, sizeof(w->fail_msg), "worker exited with status %d",
				 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	/* a worker ending after we asked all to stop is collateral: stopped,
	 * whether by our SIGKILL or by seeing the stop flag first (then it
	 * exits 1, which is no failure of its own) */
	if (stopping) {
		if (!w->fail_errno)
			w->status = W_KILLED;
		return;
	}
	g->failed++;
	g->fail_idx = (int)i;
	group_kill(g);
}

/* Reap every worker of the group that has exited. */
static void group_reap(struct group *g)
{
	struct runner *r = g->r;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		unsigned i;

		for (i = g->first; i < g->first + g->count; i++)
			if (r->pids[i] == pid)
				break;
		if (i == g->first + g->count)
			continue;
		r->pids[i] = -1;
		g->alive--;
		worker_exited(g, i, st);
	}
}

/* Release the workers once all are ready (and nothing asked to stop). */
static void group_release(struct group *g)
{
	struct run_shared *sh = g->r->sh;

	if (g->released)
		return;
	if (g->r->hk.start && !g->started &&
	    (__atomic_load_n(&sh->ready, __ATOMIC_SEQ_CST) == g->nlocal || group_stopping(g))) {
		/* the other runners must learn that this one stops, too */
		g->started = true;
		if (!g->r->hk.start(g->r->hk.ctx, group_stopping(g)) && !group_stopping(g)) {
			g->out->stop_signal = g->out->stop_signal ? g->out->stop_signal : SIGTERM;
			group_kill(g);
		}
	}
	if (__atomic_load_n(&sh->ready, __ATOMIC_SEQ_CST) != g->nlocal || group_stopping(g))
		return;
	g->t_rel = now_ns();
	sh->release_ns = g->t_rel;
	__atomic_store_n(&sh->go, 1, __ATOMIC_SEQ_CST);
	futex(&sh->go, FUTEX_WAKE, INT_MAX);
	g->released = true;
	g->next_sample = g->t_rel + g->r->o.sample_interval_ns;
	g->next_prog = g->t_rel + PROG_STEP_NS;
	g->next_status = g->t_rel + g->r->o.status_interval_ns;
}

/* Timeline samples and the progress line that are due at now; returns how
 * long to sleep until the next one (at most 100 ms). */
static uint64_t group_tick(struct group *g, uint64_t now)
{
	struct runner *r = g->r;
	uint64_t wake;

	if (!g->released)
		return 5000000ull;
	if (now >= g->next_sample) {
		take_sample(r, g->first, g->count);
		g->next_sample += r->sh->w[g->first].sample_interval_ns;
	}
	if (r->o.progress && now >= g->next_prog) {
		progress(r, g->first, g->count, g->t_rel, false);
		g->next_prog += PROG_STEP_NS;
	}
	if (r->o.status_interval_ns && now >= g->next_status) {
		status_line(r, g->first, g->count, g->t_rel);
		while (g->next_status <= now)
			g->next_status += r->o.status_interval_ns;
	}
	wake = g->next_sample < g->next_prog || !r->o.progress ? g->next_sample : g->next_prog;
	if (r->o.status_interval_ns && g->next_status < wake)
		wake = g->next_status;
	wake = wake > now ? wake - now : 0;
	return wake > 100000000ull ? 100000000ull : wake;
}

/* Wait until every worker of the group has exited. */
static void group_wait(struct group *g)
{
	while (g->alive > 0) {
		uint64_t now, wake;
		struct timespec ts;
		siginfo_t si;

		group_reap(g);
		if (g->alive == 0)
			break;
		if (runner_signal() && !group_stopping(g)) {
			g->out->stop_signal = runner_signal();
			group_kill(g);
		}
		group_release(g);
		now = now_ns();
		wake = group_tick(g, now);
		if (g->r->hk.tick && g->released) {
			uint64_t t = g->r->hk.tick(g->r->hk.ctx, g->r->sh);
			wake = t < wake ? t : wake;
		}
		ts.tv_sec = (time_t)(wake / 1000000000ull);
		ts.tv_nsec = (long)(wake % 1000000000ull);
		sigtimedwait(&g->chld, &si, &ts);
	}
}

/* What stopped the group, as the run's error: a failed worker, a signal,
 * workers that never started; else ret. */
static int group_error(const struct group *g, int ret, struct rerr *e)
{
	struct run_outcome *out = g->out;

	if (g->fail_idx >= 0) {
		const struct worker_result *w = &g->r->sh->w[g->fail_idx];

		out->failed = true;
		return rerr_set(e, w->fail_errno ? -w->fail_errno : -ECHILD,
				"rank %d (process %d, worker pid %d) failed: %s", w->rank, g->fail_idx,
				(int)w->pid, w->fail_msg[0] ? w->fail_msg : "unknown error");
	}
	if (out->stop_signal)
		return rerr_set(e, -EINTR, "interrupted by signal %d (%s)", out->stop_signal,
				strsignal(out->stop_signal));
	if (!ret && !g->released)
		return rerr_set(e, -ECHILD, "workers did not start");
	return ret;
}

/*
 * Fork workers [first, first+count), release them at once, wait for all,
 * then syncfs the target.  *completion: release -> syncfs done.
 */
static int run_group(struct runner *r, unsigned first, unsigned count,
		     uint64_t *completion, bool *flushed, struct run_outcome *out,
		     struct rerr *e)
{
	struct group g = { .r = r, .out = out, .first = first, .count = count, .fail_idx = -1 };
	struct timespec zero = { 0, 0 };
	siginfo_t si;
	sigset_t old;
	int ret;

	sigemptyset(&g.chld);
	sigaddset(&g.chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &g.chld, &old);
	ret = group_fork(&g, e);
	group_wait(&g);
	if (r->hk.finish && g.released)
		r->hk.finish(r->hk.ctx, r->sh);
	*flushed = false;
	if (r->hk.flush && g.released) {
		/* replay-mpi: one flush per node, every runner takes part */
		int fr = r->hk.flush(r->hk.ctx, r->dir_fd, !ret && !g.failed && !group_stopping(&g));
		*flushed = fr == 0;
		if (fr < 0 && !ret)
			ret = rerr_set(e, fr, "cannot flush '%s': %s", r->plan->target, strerror(-fr));
	} else if (g.released && !ret && !g.failed && !group_stopping(&g)) {
		*flushed = true;
		if (syncfs(r->dir_fd) < 0)
			ret = rerr_set(e, -errno, "cannot flush '%s': %s", r->plan->target, strerror(errno));
	}
	if (g.released)
		*completion = now_ns() - g.t_rel;
	if (r->o.progress && g.released)
		progress(r, first, count, g.t_rel, true);
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* drop a SIGCHLD left pending while it was blocked */
	while (sigtimedwait(&g.chld, &si, &zero) > 0)
		;
	return group_error(&g, ret, e);
}

static int drop(struct runner *r, struct rerr *e)
{
	int ret;

	if (!r->o.drop_caches) {
		sync();
		r->drop_done = "skipped (--no-drop-caches)";
		return 0;
	}
	ret = runner_drop_caches();
	if (ret < 0)
		return rerr_set(e, ret, "cannot drop the page cache: '/proc/sys/vm/drop_caches': %s"
				" (run as root, or pass --no-drop-caches)", strerror(-ret));
	r->drop_done = "dropped";
	return 0;
}

/* The end of a run that started: what was done about the cache, and
 * incomplete when it stopped early. */
static int run_done(struct runner *r, struct run_outcome *out, int ret)
{
	out->drop = r->drop_done ? r->drop_done : out->drop;
	if (ret)
		out->incomplete = true;
	return ret;
}

static int interrupted(struct run_outcome *out, struct rerr *e)
{
	out->stop_signal = runner_signal();
	return rerr_set(e, -EINTR, "interrupted by signal %d (%s)", out->stop_signal,
			strsignal(out->stop_signal));
}

/* The engine can give procs workers at once -q requests each: checked
 * before the files are prepared, so that a limit is said up front rather
 * than as every worker's setup failure. */
static int check_depth(const struct runner *r, unsigned procs, struct rerr *e)
{
	char why[256];
	int ret;
	if (!r->o.engine->check_depth || !procs)
		return 0;
	ret = r->o.engine->check_depth(r->o.depth, procs, why, sizeof(why));
	return ret < 0 ? rerr_set(e, ret, "engine '%s': %s", r->o.engine->name, why) : 0;
}

/* Parallel mode: every process at once; the completion is the makespan.
 * A failure before the workers start leaves out->incomplete false: the
 * caller reads that as "nothing ran". */
static int run_parallel(struct runner *r, struct run_outcome *out, struct rerr *e)
{
	unsigned n = (unsigned)r->plan->nprocs, local = 0;
	bool flushed = false;
	int ret;

	for (unsigned i = 0; i < n; i++)
		local += is_local(r, i);
	ret = check_depth(r, local, e);
	if (ret < 0)
		return ret;
	if (r->hk.prepare)
		ret = r->hk.prepare(r->hk.ctx, r->plan, r->o.drop_caches, &r->drop_done, e);
	else
		ret = plan_prepare(r->plan, e);
	if (ret < 0)
		return ret;
	if (runner_signal()) {
		out->incomplete = true;
		return interrupted(out, e);
	}
	ret = r->hk.prepare ? 0 : drop(r, e);
	if (ret < 0)
		return ret;
	ret = run_group(r, 0, n, &out->completion_ns, &flushed, out, e);
	for (unsigned i = 0; i < n; i++)
		if (r->sh->w[i].io_ns > out->io_ns)
			out->io_ns = r->sh->w[i].io_ns;
	if (!flushed)    /* stopped: no final flush, all of it was I/O */
		out->io_ns = out->completion_ns;
	out->flush_ns = out->completion_ns > out->io_ns ? out->completion_ns - out->io_ns : 0;
	return run_done(r, out, ret);
}

/* Sequential mode, process i alone on a freshly prepared target; the
 * run's completion is the longest one. */
static int run_one(struct runner *r, unsigned i, struct run_outcome *out, struct rerr *e)
{
	struct worker_result *w = &r->sh->w[i];
	bool flushed = false;
	uint64_t c = 0;
	int ret;

	if (i > 0) {
		ret = plan_cleanup(r->plan, e);
		if (ret < 0)
			return ret;
	} else if ((ret = check_depth(r, 1, e)) < 0) {
		return ret;
	}
	ret = plan_prepare_proc(r->plan, i, e);
	if (ret < 0)
		return ret;
	if (runner_signal())
		return interrupted(out, e);
	ret = drop(r, e);
	if (ret < 0)
		return ret;
	ret = run_group(r, i, 1, &c, &flushed, out, e);
	/* each rank's completion includes the syncfs of the target */
	w->completion_ns = c;
	if (!flushed)
		w->io_ns = c;
	w->flush_ns = c > w->io_ns ? c - w->io_ns : 0;
	if (c > out->completion_ns) {
		out->completion_ns = c;
		out->io_ns = w->io_ns;
		out->flush_ns = w->flush_ns;
	}
	return ret;
}

int runner_run(struct runner *r, struct run_outcome *out, struct rerr *e)
{
	unsigned n = (unsigned)r->plan->nprocs;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	r->run_no++;
	out->drop = r->o.drop_caches ? "dropped" : "skipped (--no-drop-caches)";
	for (unsigned i = 0; i < n; i++)
		reset_slot(r, i);
	if (r->o.mode == RUN_PARALLEL)
		return run_parallel(r, out, e);
	for (unsigned i = 0; i < n && !ret; i++)
		ret = run_one(r, i, out, e);
	return run_done(r, out, ret);
}
