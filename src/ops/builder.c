/*
 * builder.c - sc_event -> struct op.
 *
 * The builder is the only place that knows fd semantics.  It keeps:
 *  - per traced process a refcounted fd table (threads and CLONE_FILES
 *    children share it; forked children get a copy whose entries point to
 *    the same open file descriptions, as the kernel does);
 *  - per open file description (ofd) the position, the path, the open flags
 *    and the handle each rank uses for it;
 *  - per path its size as the trace shows it so far: set by what tells
 *    the size (a stat's st_size, an lseek SEEK_END's result minus its
 *    offset, a short read's end, ftruncate, O_TRUNC, unlink), grown by
 *    writes; where O_APPEND writes land, and the fallback for SEEK_END
 *    when the trace has no result.  A file the trace appends to before
 *    anything tells its size counts from 0 here (its appends' offsets are
 *    then short by the unknown initial size; the plan's order pass works
 *    that size out from what comes later, plan/order.h).
 * Nothing per op is kept: memory is bounded by open files and processes.
 *
 * Ranks are created lazily, at a process's first op, so threads that never
 * touch a file (futex waiters, signal handlers) do not become empty ranks.
 * A rank that uses an ofd it did not open itself (a thread sharing the
 * table, a forked child) first gets an implicit OP_OPEN of it, without
 * O_CREAT/O_TRUNC/O_EXCL, so each rank's stream replays on its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/builder.h"
#include "util/imap.h"

#define FD_MAX (1 << 20)    /* larger fds are treated as unknown */

/* ---- state --------------------------------------------------------------- */
struct rhandle {
	uint32_t rank, handle;
};

#define REN_KEEP 4096        /* renames ofd_path_is can follow */

struct ofd {                 /* open file description */
	int refs;            /* fd table entries pointing here */
	uint32_t file;       /* path id or OP_NOFILE           */
	uint32_t oflags;
	uint64_t pos;
	struct rhandle *h;   /* per-rank handles               */
	uint32_t nh, hcap;
	char *path;          /* for dirfd resolution, and what -y
	                        should show for it                */
	uint64_t nren;       /* renames (b->nrens) path has followed */
	int special;         /* /dev/null, /proc/...: not storage I/O */
	int ypath;           /* path is what -y showed (the open's result,
	                        or a call's fd): not as the program spelled it */
	int moved;           /* path followed a rename away from file's name */
	uint64_t at;         /* b->nsops when it came to be at path (its
	                        open, the rename that took it there)      */
};

struct fdtab {
	int refs;            /* processes sharing this table   */
	struct ofd **fds;
	uint32_t cap;
};

struct proc {
	int64_t pid;
	struct fdtab *tab;
	char *cwd;           /* from chdir/fchdir, NULL unknown */
	int64_t rank;        /* -1 until the first op          */
	int adopted;         /* got its table from a clone     */
	int touched;         /* fd table changed since created */
	int counted;         /* in procs_seen: a line of its own was seen
				(a clone's child without one, as under
				strace without -f, is not a traced process) */
	int root;            /* the first counted of its capture: the
				traced command, which no fork in it made */
	char *prog;          /* the program it last executed (a thread:
				its process's), NULL unknown */
	int64_t tgid;        /* a thread (CLONE_THREAD): its process's pid, else -1 */
};

struct async_ent {
	uint32_t dense;
	uint32_t handle;
	uint64_t len;        /* bytes submitted, for a wait that traces none */
	struct async_ent *next;      /* on the builder's free list */
};

#define ASLAB_N 255
struct aslab {               /* async entries come from these, never freed
				before the builder (a free list reuses them) */
	struct aslab *next;
	struct async_ent e[ASLAB_N];
};

struct rankst {
	uint64_t t0;
	int t0_set;
	uint32_t next_handle;
	uint32_t next_async;
	uint32_t barriers;
	uint64_t last_t;     /* keeps t_ns non-decreasing within the rank */
	struct imap async;   /* traced async id -> struct async_ent* */
};

struct skipname {
	char *name;
	uint64_t n;
	size_t len;
};

struct builder {
	struct ops_writer *w;
	struct imap procs;           /* pid -> struct proc* */
	struct proc *pseen[64];      /* by pid & 63: the process last found with
					that pid (never freed before the builder:
					procs stay in the map) */
	struct rankst *ranks;
	uint32_t nranks, rcap;
	uint64_t *sizes;             /* path id -> size as the trace shows it */
	uint32_t nsizes;
	struct skipname *skips;
	size_t nskips, skcap;
	uint32_t *skhash;            /* open addressing: skips index + 1, 0 empty */
	size_t skhcap;
	struct skipseen {            /* count_skip: the name found last at */
		const char *at;      /* this address (a reader's table entry, */
		size_t i;            /* its line buffer...) was skips[i]'s    */
	} skipseen[64];
	struct build_stats st;
	uint64_t inherited_opens, unknown_async, sfr_as_fdatasync, procs_seen, iocbs;
	uint64_t rooted;             /* captures (< 64) whose root is seen */
	char first_implicit[256];    /* "fd N (PATH)": the first implicit open above fd 2 */
	char *pathbuf;               /* scratch for path resolution */
	size_t pathcap;
	char *aliasbuf;              /* scratch for an alias rewrite */
	size_t aliascap;
	struct alias {               /* a directory reached through a symlink: */
		char *from, *to;     /* spelled -> real (from strace -y)       */
		size_t flen;
	} *aliases;
	size_t naliases;
	uint64_t aliased;            /* paths rewritten by an alias          */
	struct ren {                 /* the trace's last REN_KEEP successful */
		char *from, *to;     /* renames, rename i at i % REN_KEEP    */
		uint64_t seq;        /* (its nsops)                          */
	} *rens;                     /* (ofd_path_is follows an open file's  */
	uint64_t nrens;              /* path through them); renames so far   */
	uint64_t nsops;              /* successful unlinks and renames so far */
	uint64_t *gone_at;           /* path id -> nsops when the name last
					stopped naming its file (unlink,
					rename from or over it), 0 never */
	uint32_t ngone;
	uint64_t unnamed_shared;     /* implicit opens of a file with no name */
	uint64_t exchanges;          /* renameat2 RENAME_EXCHANGE, as 3 renames */
	char **capnames;             /* builder_captures: the captures' names */
	bool rank_sources;           /* builder_rank_sources */
	size_t ncap;                 /* (several: pids carry k << 32)         */
	char unnamed_first[300];     /* "FILE:LINE (PATH)" of the first        */
	struct fdcache {             /* what fast_ofd found for (pid, fd), */
		int64_t pid, fd;     /* valid while gen is fdgen            */
		uint64_t gen;
		struct ofd *o;
		uint32_t rank, handle;
	} fdc[64];
	uint64_t fdgen;              /* bumped by every event the fast paths
					do not take whole: fd tables, ofds'
					handles and processes change only there */
	struct async_ent *afree;     /* async entries free for reuse         */
	struct aslab *aslabs;        /* where they all live                  */
	uint32_t aslab_used;         /* entries of aslabs handed out so far  */
};

/* ---- helpers ------------------------------------------------------------- */
static struct fdtab *fdtab_new(void)
{
	struct fdtab *t = calloc(1, sizeof(*t));
	if (t)
		t->refs = 1;
	return t;
}

static void ofd_unref(struct ofd *o)
{
	if (--o->refs > 0)
		return;
	free(o->h);
	free(o->path);
	free(o);
}

static void fdtab_unref(struct fdtab *t)
{
	if (!t || --t->refs > 0)
		return;
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->fds[i])
			ofd_unref(t->fds[i]);
	free(t->fds);
	free(t);
}

static struct fdtab *fdtab_copy(const struct fdtab *src)
{
	struct fdtab *t = fdtab_new();
	if (!t)
		return NULL;
	if (src->cap) {
		t->fds = calloc(src->cap, sizeof(*t->fds));
		if (!t->fds) {
			free(t);
			return NULL;
		}
		t->cap = src->cap;
		for (uint32_t i = 0; i < src->cap; i++) {
			t->fds[i] = src->fds[i];
			if (t->fds[i])
				t->fds[i]->refs++;
		}
	}
	return t;
}

static struct ofd *fd_get(const struct proc *p, int64_t fd)
{
	if (fd < 0 || fd >= (int64_t)p->tab->cap)
		return NULL;
	return p->tab->fds[fd];
}

/* Install o at fd (taking a new reference); replaces what was there. */
static int fdt_set(struct proc *p, int64_t fd, struct ofd *o)
{
	struct fdtab *t = p->tab;
	if (fd < 0 || fd >= FD_MAX)
		return -EINVAL;
	if ((uint64_t)fd >= t->cap) {
		uint32_t ncap = t->cap ? t->cap : 16;
		while (ncap <= (uint64_t)fd)
			ncap *= 2;
		struct ofd **n = realloc(t->fds, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + t->cap, 0, (ncap - t->cap) * sizeof(*n));
		t->fds = n;
		t->cap = ncap;
	}
	if (t->fds[fd])
		ofd_unref(t->fds[fd]);
	t->fds[fd] = o;
	o->refs++;
	p->touched = 1;
	return 0;
}

static int tab_refs_ofd(const struct fdtab *t, const struct ofd *o)
{
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->fds[i] == o)
			return 1;
	return 0;
}

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elsz)
{
	if (need <= *cap)
		return 0;
	uint32_t ncap = *cap ? *cap : 8;
	while (ncap < need)
		ncap *= 2;
	void *n = realloc(*arr, (size_t)ncap * elsz);
	if (!n)
		return -ENOMEM;
	memset((char *)n + (size_t)*cap * elsz, 0, (size_t)(ncap - *cap) * elsz);
	*arr = n;
	*cap = ncap;
	return 0;
}

/* An async entry (its fields unset), from the free list or a slab. */
static inline struct async_ent *async_alloc(struct builder *b)
{
	struct async_ent *ae = b->afree;
	if (ae) {
		b->afree = ae->next;
		return ae;
	}
	if (!b->aslabs || b->aslab_used == ASLAB_N) {
		struct aslab *s = malloc(sizeof(*s));
		if (!s)
			return NULL;
		s->next = b->aslabs;
		b->aslabs = s;
		b->aslab_used = 0;
	}
	return &b->aslabs->e[b->aslab_used++];
}

static inline void async_release(struct builder *b, struct async_ent *ae)
{
	ae->next = b->afree;
	b->afree = ae;
}

/* A submit of async id on rank's handle h, len bytes: its entry (a
 * resubmitted id's own, else a new one), numbered in the rank's order. */
static inline int async_submit(struct builder *b, uint32_t rank, uint64_t id, uint32_t h,
			       uint64_t len, struct async_ent **out)
{
	struct rankst *rs = &b->ranks[rank];
	struct async_ent *ae = imap_get(&rs->async, (int64_t)id);
	if (!ae) {
		ae = async_alloc(b);
		if (!ae)
			return -ENOMEM;
		int rc = imap_put(&rs->async, (int64_t)id, ae);
		if (rc) {
			async_release(b, ae);
			return rc;
		}
	}
	ae->dense = rs->next_async++;
	ae->handle = h;
	ae->len = len;
	*out = ae;
	return 0;
}

static uint64_t *size_of(struct builder *b, uint32_t file)
{
	if (file < b->nsizes)
		return &b->sizes[file];
	if (file == OP_NOFILE)
		return NULL;
	if (grow((void **)&b->sizes, &b->nsizes, file + 1, sizeof(*b->sizes)))
		return NULL;
	return &b->sizes[file];
}

static void size_at_least(struct builder *b, uint32_t file, uint64_t end)
{
	uint64_t *s = size_of(b, file);
	if (s && *s < end)
		*s = end;
}

/* The trace shows file's size is `size` now. */
static void size_is(struct builder *b, uint32_t file, uint64_t size)
{
	uint64_t *s = size_of(b, file);
	if (s)
		*s = size;
}

static int __attribute__((noinline)) proc_find(struct builder *b, int64_t pid, struct proc **out,
					       int own)
{
	struct proc *p = imap_get(&b->procs, pid);
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = pid;
		p->rank = -1;
		p->tgid = -1;
		p->tab = fdtab_new();
		if (!p->tab) {
			free(p);
			return -ENOMEM;
		}
		int rc = imap_put(&b->procs, pid, p);
		if (rc) {
			fdtab_unref(p->tab);
			free(p);
			return rc;
		}
	} else if (!p->tab) {        /* pid reused after exit */
		p->tab = fdtab_new();
		if (!p->tab)
			return -ENOMEM;
		p->adopted = p->touched = p->root = 0;
		free(p->prog);
		p->prog = NULL;
		p->tgid = -1;
	}
	if (own && !p->counted) {
		size_t k = builder_pid_capture(pid);
		p->counted = 1;
		b->procs_seen++;
		if (k < 64 && !(b->rooted & (1ull << k))) {
			b->rooted |= 1ull << k;
			p->root = 1;
		}
	}
	*out = b->pseen[pid & 63] = p;
	return 0;
}

/* The process of an event of its own (counted as traced). */
static inline int proc_get(struct builder *b, int64_t pid, struct proc **out)
{
	struct proc *p = b->pseen[pid & 63];
	if (p && p->pid == pid && p->tab && p->counted) {
		*out = p;               /* seen before, and not exited since */
		return 0;
	}
	return proc_find(b, pid, out, 1);
}

bool builder_is_launcher(const char *base)
{
	static const char *const names[] = {
		"mpirun", "mpiexec", "orterun", "prterun", "prte", "prted",
		"orted", "hydra_pmi_proxy", "srun", "slurmstepd",
	};
	for (size_t i = 0; base && i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);
		/* also the names distributions install them under: mpiexec.hydra,
		 * mpirun.mpich, mpiexec.openmpi (Debian's alternatives) */
		if (!strncmp(base, names[i], n) && (!base[n] || base[n] == '.'))
			return true;
	}
	return false;
}

/* Rank r runs prog: recorded as a launcher's when its base name is one of
 * builder_is_launcher's. */
static int note_launcher(struct builder *b, uint32_t r, const char *prog)
{
	const char *base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	return builder_is_launcher(base) ? opsw_rank_launcher(b->w, r, base) : 0;
}

/* What a new rank's process is: a launcher, a thread of another process. */
static int rank_about(struct builder *b, const struct proc *p, uint32_t r)
{
	int rc = p->prog ? note_launcher(b, r, p->prog) : 0;
	if (!rc && p->tgid >= 0 && p->tgid != p->pid) {
		char v[48];
		snprintf(v, sizeof(v), "%" PRIu32 " %" PRId64, r, builder_pid_shown(p->tgid));
		rc = opsw_info(b->w, "thread_of", v);
	}
	return rc;
}

/* rank_of for a process's first event: its rank made, its t0 set. */
static int __attribute__((noinline)) rank_first(struct builder *b, struct proc *p,
						const struct sc_event *ev, uint32_t *rank)
{
	uint64_t ts = ev->ts_ns;
	if (p->rank < 0) {
		char name[400];
		/* of several captures, the k-th one's pids carry k << 32, and
		 * its main process is -1 - k: named with the capture */
		int64_t shown = builder_pid_shown(p->pid);
		size_t k = builder_pid_capture(p->pid);
		if (p->pid >= 0)
			snprintf(name, sizeof(name), "pid %" PRId64, shown);
		else
			snprintf(name, sizeof(name), "main");
		if (b->ncap > 1 && k < b->ncap) {
			size_t l = strlen(name);
			snprintf(name + l, sizeof(name) - l, " of %s", b->capnames[k]);
		}
		uint32_t r;
		int rc = opsw_rank(b->w, name, shown, &r);
		if (rc)
			return rc;
		rc = grow((void **)&b->ranks, &b->rcap, r + 1, sizeof(*b->ranks));
		if (rc)
			return rc;
		if (r + 1 > b->nranks)
			b->nranks = r + 1;
		p->rank = r;
		if ((rc = rank_about(b, p, r)))
			return rc;
		/* the file of its first op (one of several: an strace -ff
		 * capture's, or captures given together), for messages; a
		 * name opsw_info cannot hold (a newline) is left out */
		if (b->rank_sources && ev->src && (rc = opsw_rank_source(b->w, r, ev->src)) &&
		    rc != -EINVAL)
			return rc;
	}
	struct rankst *rs = &b->ranks[p->rank];
	if (!rs->t0_set) {
		rs->t0 = ts;
		rs->t0_set = 1;
		opsw_rank_t0(b->w, (uint32_t)p->rank, ts);
	}
	*rank = (uint32_t)p->rank;
	return 0;
}

static inline int rank_of(struct builder *b, struct proc *p, const struct sc_event *ev,
			  uint32_t *rank)
{
	if (p->rank >= 0 && b->ranks[p->rank].t0_set) {
		*rank = (uint32_t)p->rank;      /* every event after a rank's first */
		return 0;
	}
	return rank_first(b, p, ev, rank);
}

/* An op earlier than the one before it in its rank (a process's clock
 * went back): it is timed as that one (last_t, returned), and counted in
 * the stats (the first one's file and line kept), for the readers whose
 * clocks should never go back (strace) to say so. */
static __attribute__((noinline, cold)) uint64_t clock_back(struct builder *b,
							    const struct sc_event *ev,
							    uint64_t last_t)
{
	if (!b->st.clock_back++) {
		b->st.clock_back_src = ev->src;
		b->st.clock_back_line = ev->line;
	}
	return last_t;
}

static int emit_rank(struct builder *b, uint32_t rank, const struct sc_event *ev, struct op *op)
{
	int rc;
	struct rankst *rs = &b->ranks[rank];
	op->t_ns = ev->ts_ns > rs->t0 ? ev->ts_ns - rs->t0 : 0;
	if (__builtin_expect(op->t_ns < rs->last_t, 0))
		op->t_ns = clock_back(b, ev, rs->last_t);
	rs->last_t = op->t_ns;
	op->dur_ns = ev->dur_ns;
	op->line = (uint32_t)ev->line;
	op->flags |= ev->opflags;
	if (!op->iovcnt)
		op->iovcnt = 1;
	struct op *slot = opsw_slot(b->w, rank);
	if (slot) {
		*slot = *op;
		rc = opsw_commit(b->w, rank);
	} else {
		rc = opsw_append(b->w, rank, op);
	}
	if (rc)
		return rc;
	b->st.ops++;
	if (ev->ret < 0 && ev->ret != SC_RET_UNKNOWN)
		b->st.failed_calls++;
	return 0;
}

static int emit(struct builder *b, struct proc *p, const struct sc_event *ev, struct op *op)
{
	uint32_t rank;
	int rc = rank_of(b, p, ev, &rank);
	if (rc)
		return rc;
	return emit_rank(b, rank, ev, op);
}

static struct op op_new(enum op_kind k)
{
	return (struct op){ .kind = (uint16_t)k, .file = OP_NOFILE, .handle = OP_NOHANDLE,
			    .iovcnt = 1 };
}

/* The handle rank `rank` uses for o, or UINT32_MAX. */
static uint32_t ofd_handle(const struct ofd *o, uint32_t rank)
{
	for (uint32_t i = 0; i < o->nh; i++)
		if (o->h[i].rank == rank)
			return o->h[i].handle;
	return OP_NOHANDLE;
}

static int ofd_add_handle(struct builder *b, struct ofd *o, uint32_t rank, uint32_t *handle)
{
	int rc = grow((void **)&o->h, &o->hcap, o->nh + 1, sizeof(*o->h));
	if (rc)
		return rc;
	*handle = b->ranks[rank].next_handle++;
	o->h[o->nh++] = (struct rhandle){ rank, *handle };
	return 0;
}

static void ofd_drop_handle(struct ofd *o, uint32_t rank)
{
	for (uint32_t i = 0; i < o->nh; i++)
		if (o->h[i].rank == rank) {
			o->h[i] = o->h[--o->nh];
			return;
		}
}

static int ofd_follow_renames(struct builder *b, struct ofd *o);

/* Handle of o in p's rank, emitting an implicit open when p's rank has none
 * (the ofd was opened by another thread, or inherited over fork). */
static __attribute__((noinline)) int use_ofd_first(struct builder *b, struct proc *p,
						    const struct sc_event *ev, struct ofd *o,
						    uint32_t *handle)
{
	uint32_t rank;
	int rc = rank_of(b, p, ev, &rank);
	if (rc)
		return rc;
	*handle = ofd_handle(o, rank);
	if (*handle != OP_NOHANDLE)
		return 0;
	rc = ofd_add_handle(b, o, rank, handle);
	if (rc)
		return rc;
	/* the file is where the trace's renames since its open took it: a
	 * child given the fd of a log rotated away opens the rotated name,
	 * not the new file at the old one */
	if (o->file != OP_NOFILE && o->path) {
		rc = ofd_follow_renames(b, o);
		if (rc >= 0 && o->moved)
			rc = opsw_path(b->w, o->path, 0, &o->file);
		if (rc < 0)
			return rc;
		o->moved = 0;
	}
	/* a file with no name now (unlinked since it came to be at its
	 * path, or made O_TMPFILE): this rank's process cannot open the
	 * file the trace's did; said by the loader */
	if (o->file != OP_NOFILE &&
	    (op_oflags_tmpfile(o->oflags) || (o->file < b->ngone && b->gone_at[o->file] > o->at))) {
		if (!b->unnamed_shared++)
			snprintf(b->unnamed_first, sizeof b->unnamed_first, "%s:%" PRIu64 " (%s)",
				 ev->src ? ev->src : "?", (uint64_t)ev->line, o->path ? o->path : "?");
	}
	struct op op = op_new(OP_OPEN);
	op.file = o->file;
	op.handle = *handle;
	op.oflags = o->oflags & ~(uint32_t)(O_CREAT | O_TRUNC | O_EXCL);
	op.flags = OPF_IMPLICIT_OPEN;
	op.result = ev->fd;
	struct sc_event e2 = *ev;
	e2.dur_ns = 0;
	e2.ret = 0;
	b->inherited_opens++;
	return emit(b, p, &e2, &op);
}

/* use_ofd_first unless p's rank has its t0 and a handle for o already. */
static inline int use_ofd(struct builder *b, struct proc *p, const struct sc_event *ev,
			  struct ofd *o, uint32_t *handle)
{
	if (p->rank >= 0 && b->ranks[p->rank].t0_set) {
		uint32_t h = ofd_handle(o, (uint32_t)p->rank);
		if (h != OP_NOHANDLE) {
			*handle = h;
			return 0;
		}
	}
	return use_ofd_first(b, p, ev, o, handle);
}

/*
 * Paths whose I/O is not storage I/O: /proc and /sys, and the character
 * devices every program touches (/dev/null, ttys, random...).  Other /dev
 * paths stay: block devices and /dev/shm files are real I/O.
 */
static int is_special(const char *path)
{
	static const char *const dirs[] = { "/proc", "/sys", "/dev/pts", "/dev/fd" };
	static const char *const devs[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
		"/dev/ptmx", "/dev/console", "/dev/tty", "/dev/stdin", "/dev/stdout",
		"/dev/stderr", "/dev/kmsg", "/dev/log",
	};
	/* memfd_create's anonymous file, as -y names it ("/memfd:NAME
	 * (deleted)"): memory, not storage */
	if (path[0] == '/' && path[1] == 'm' && !strncmp(path, "/memfd:", 7))
		return 1;
	/* Darshan's names of the standard streams: a terminal or a job's
	 * log, not a file of the application */
	if (path[0] == '<' && (!strcmp(path, "<STDOUT>") || !strcmp(path, "<STDERR>") ||
			       !strcmp(path, "<STDIN>")))
		return 1;
	if (path[0] != '/' || (path[1] != 'p' && path[1] != 's' && path[1] != 'd'))
		return 0;       /* none of those */
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t n = strlen(dirs[i]);
		if (!strncmp(path, dirs[i], n) && (path[n] == '/' || !path[n]))
			return 1;
	}
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
		if (!strcmp(path, devs[i]))
			return 1;
	/* /dev/tty1, /dev/ttyS0, ... */
	return !strncmp(path, "/dev/tty", 8);
}

static struct ofd *ofd_new(uint32_t file, uint32_t oflags, const char *path)
{
	struct ofd *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->file = file;
	o->oflags = oflags;
	if (path) {
		o->path = strdup(path);
		if (!o->path) {
			free(o);
			return NULL;
		}
	}
	return o;
}

static int close_fd(struct builder *b, struct proc *p, const struct sc_event *ev,
		    int64_t fd, int64_t result, int emit_op);
static const char *resolve(struct builder *b, struct proc *p, const char *path,
			   int64_t dirfd, const char *dirpath);

/* -y's absolute fdpath is what o was opened on, at a glance (a path not
 * known absolute is not contradicted). */
static inline int ofd_path_same(const struct ofd *o, const char *fdpath)
{
	return !o->path || o->path[0] != '/' || !strcmp(o->path, fdpath);
}

/* A -y decoration agreed with o's absolute path: that path is -y's name
 * of the file from now on (a later one naming another file is another
 * file, lookup_fd_slow). */
static inline void ofd_y_agreed(struct ofd *o)
{
	if (!o->ypath && o->path && o->path[0] == '/')
		o->ypath = 1;
}

/* o->path taken where the renames the trace made since it followed them
 * took it (the last REN_KEEP of them).  1 when it moved, 0 not, -ENOMEM. */
static int ofd_follow_renames(struct builder *b, struct ofd *o)
{
	if (!o->path || o->nren >= b->nrens || b->nrens - o->nren > REN_KEEP)
		return 0;
	char *cur = strdup(o->path);
	int moved = 0;
	for (uint64_t i = o->nren; cur && i < b->nrens; i++) {
		char *n;
		int r = path_rebase(cur, b->rens[i % REN_KEEP].from, b->rens[i % REN_KEEP].to, &n);
		if (!r)
			continue;
		free(cur);
		cur = n;                /* NULL when out of memory */
		moved = 1;
		o->at = b->rens[i % REN_KEEP].seq;
	}
	if (!cur)
		return -ENOMEM;
	o->nren = b->nrens;
	free(o->path);
	o->path = cur;
	o->moved |= moved;
	return moved;
}

/* Whether -y's absolute fdpath names o's file: its path, or where the
 * renames the trace made since took it (o->path then follows; only the
 * last REN_KEEP renames are kept, so memory stays bounded: a file renamed
 * longer ago counts as reopened), or the same path as resolved.  1 yes,
 * 0 no, -ENOMEM. */
static int ofd_path_is(struct builder *b, struct proc *p, struct ofd *o, const char *fdpath)
{
	if (ofd_path_same(o, fdpath))
		return 1;
	if (o->nren < b->nrens) {
		int moved = ofd_follow_renames(b, o);
		if (moved < 0)
			return moved;
		if (!strcmp(o->path, fdpath))
			return 1;
	}
	const char *r = resolve(b, p, fdpath, SC_AT_FDCWD, NULL);
	if (!r)
		return -ENOMEM;
	return !strcmp(o->path, r);
}

/*
 * The ofd an fd op refers to.  *o = NULL with 0 when the op is to be
 * dropped (counted).  Synthesizes an implicit open from an absolute -y
 * decoration for fds opened before the trace started.
 */
static __attribute__((noinline)) int lookup_fd_slow(struct builder *b, struct proc *p,
						     const struct sc_event *ev, int64_t fd,
						     const char *fdpath, struct ofd **out)
{
	*out = NULL;
	struct ofd *o = fd_get(p, fd);
	if (o && fdpath && fdpath[0] != '/') {
		/* -y says it's a socket/pipe/...: our entry is stale (a close we
		 * could not see, e.g. close_range or exec) */
		p->tab->fds[fd] = NULL;
		ofd_unref(o);
		o = NULL;
	} else if (o && fdpath) {
		/* -y names another file than the one the fd was opened on (and
		 * not where a traced rename took it): it was closed and another
		 * opened on its number out of the trace's sight (strace -e
		 * trace=read,write, -P, or an exec).  Closed here (synthesized),
		 * then opened implicitly as any fd the trace never opened. */
		int is = ofd_path_is(b, p, o, fdpath);
		if (is < 0)
			return is;
		if (is)
			ofd_y_agreed(o);
		if (!is && !o->ypath) {
			/* the open showed no -y on its result (an older strace):
			 * its path is as spelled, a symlinked directory on the
			 * way perhaps; the first -y of the fd is the file's
			 * name, not another file's */
			char *y = strdup(fdpath);
			if (!y)
				return -ENOMEM;
			free(o->path);
			o->path = y;
			o->ypath = 1;
			o->nren = b->nrens;
			is = 1;     /* the same o: what fdc remembers holds */
		}
		if (!is) {
			b->fdgen++;  /* fdc may remember o for (pid, fd) */
			struct sc_event e2 = *ev;
			e2.dur_ns = 0;
			e2.ret = 0;
			e2.opflags = OPF_SYNTH;  /* not the call's own (a stat's size) */
			int rc = close_fd(b, p, &e2, fd, 0, 1);
			if (rc)
				return rc;
			o = NULL;
		}
	}
	if (o && o->special) {
		b->st.special_ops++;
		return 0;
	}
	if (o) {
		*out = o;
		return 0;
	}
	if (fdpath && fdpath[0] == '/' && is_special(fdpath)) {
		b->st.special_ops++;
		return 0;
	}
	if (fd < 0 || fd >= FD_MAX || !fdpath || fdpath[0] != '/') {
		b->st.unknown_fd_ops++;
		b->st.undecorated_ops += !fdpath;
		if (fd >= 0 && fd <= 2)
			b->st.stdio_ops++;
		return 0;
	}
	uint32_t file;
	int rc = opsw_path(b->w, fdpath, 0, &file);
	if (rc)
		return rc;
	o = ofd_new(file, O_RDWR, fdpath);
	if (!o)
		return -ENOMEM;
	o->nren = b->nrens;
	o->at = b->nsops;
	o->ypath = 1;
	rc = fdt_set(p, fd, o);      /* the table holds the only reference */
	if (rc) {
		free(o->path);
		free(o);
		return rc;
	}
	uint32_t rank;
	rc = rank_of(b, p, ev, &rank);
	if (rc)
		return rc;
	uint32_t h;
	rc = ofd_add_handle(b, o, rank, &h);
	if (rc)
		return rc;
	struct op op = op_new(OP_OPEN);
	op.file = file;
	op.handle = h;
	op.oflags = O_RDWR;
	op.flags = OPF_IMPLICIT_OPEN;
	op.result = fd;
	struct sc_event e2 = *ev;
	e2.dur_ns = 0;
	e2.ret = fd;
	/* (0, 1, 2: mostly a shell's redirect, where position 0 is right;
	 * not in a process whose fork the trace does not show, not the
	 * traced command: a capture without its clone lines, -e
	 * trace=%file,%desc, where two processes share the redirect's
	 * offset) */
	bool unforked = fd <= 2 && !p->adopted && !p->root && b->procs_seen > 1;
	if ((fd > 2 || unforked) && !b->first_implicit[0])
		snprintf(b->first_implicit, sizeof b->first_implicit,
			 unforked ? "fd %" PRId64 " (%s) of pid %" PRId64 ", whose fork the trace does"
				    " not show" : "fd %" PRId64 " (%s)", fd, fdpath,
			 builder_pid_shown(p->pid));
	b->st.implicit_opens++;
	rc = emit(b, p, &e2, &op);
	if (rc)
		return rc;
	*out = o;
	return 0;
}

/* The ofd at fd: a table entry of a storage file that -y (when shown) does
 * not contradict at once, anything else by lookup_fd_slow. */
static inline int lookup_fd(struct builder *b, struct proc *p, const struct sc_event *ev,
			    int64_t fd, const char *fdpath, struct ofd **out)
{
	struct ofd *o = fd_get(p, fd);
	if (o && !o->special && (!fdpath || (fdpath[0] == '/' && ofd_path_same(o, fdpath)))) {
		if (fdpath)
			ofd_y_agreed(o);
		*out = o;
		return 0;
	}
	return lookup_fd_slow(b, p, ev, fd, fdpath, out);
}

/* Join dir and rel into b->pathbuf (path_join_buf).  Returns the buffer. */
static const char *path_join(struct builder *b, const char *dir, const char *rel)
{
	size_t need = (dir ? strlen(dir) : 0) + strlen(rel) + 3;
	if (need > b->pathcap) {
		char *n = realloc(b->pathbuf, need * 2);
		if (!n)
			return NULL;
		b->pathbuf = n;
		b->pathcap = need * 2;
	}
	path_join_buf(b->pathbuf, dir, rel);
	return b->pathbuf;
}

/* Resolve an event's path against its dirfd.  NULL on ENOMEM. */
/* A path spelled through a directory -y showed to be elsewhere: the real
 * one (the longest known alias of a leading directory). */
static const char *unalias(struct builder *b, const char *r)
{
	const struct alias *best = NULL;
	size_t len = r && b->naliases ? strlen(r) : 0;
	for (size_t i = 0; r && i < b->naliases; i++) {
		const struct alias *a = &b->aliases[i];
		/* r is a->from, or below it: its last byte first, then the rest */
		if (len < a->flen || (r[a->flen] != '/' && r[a->flen]) ||
		    (a->flen && r[a->flen - 1] != a->from[a->flen - 1]) ||
		    memcmp(r, a->from, a->flen))
			continue;
		if (!best || a->flen > best->flen)
			best = a;
	}
	if (!best)
		return r;
	size_t tl = strlen(best->to), rl = strlen(r + best->flen);
	if (tl + rl + 1 > b->aliascap) {
		char *n = realloc(b->aliasbuf, (tl + rl + 1) * 2);
		if (!n)
			return NULL;
		b->aliasbuf = n;
		b->aliascap = (tl + rl + 1) * 2;
	}
	memcpy(b->aliasbuf, best->to, tl);
	memcpy(b->aliasbuf + tl, r + best->flen, rl + 1);
	b->aliased++;
	return b->aliasbuf;
}

/* An open of `spelled` found `real` (strace -y): when they differ in their
 * directories only, the spelled directory is an alias of the real one
 * (a symlink on the way), for the later calls that name paths. */
static int learn_alias(struct builder *b, const char *spelled, const char *real)
{
	const char *s1 = strrchr(spelled, '/'), *s2 = strrchr(real, '/');
	if (!strcmp(spelled, real)) {
		/* opened where it is spelled: an alias of its directory was a
		 * file's symlink that happened to share the name, not a
		 * directory's */
		for (size_t i = 0; i < b->naliases; i++) {
			struct alias *a = &b->aliases[i];
			if (!strncmp(spelled, a->from, a->flen) && spelled[a->flen] == '/') {
				free(a->from);
				free(a->to);
				*a = b->aliases[--b->naliases];
				i--;
			}
		}
		return 0;
	}
	if (!s1 || !s2 || strcmp(s1, s2) || s1 == spelled)
		return 0;
	size_t fl = (size_t)(s1 - spelled), tl = (size_t)(s2 - real);
	for (size_t i = 0; i < b->naliases; i++)
		if (b->aliases[i].flen == fl && !strncmp(b->aliases[i].from, spelled, fl))
			return 0;
	struct alias *na = realloc(b->aliases, (b->naliases + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	b->aliases = na;
	struct alias *a = &na[b->naliases];
	a->from = strndup(spelled, fl);
	a->to = strndup(real, tl ? tl : 1);
	a->flen = fl;
	if (!a->from || !a->to) {
		free(a->from);
		free(a->to);
		return -ENOMEM;
	}
	b->naliases++;
	return 0;
}

static const char *resolve_spelled(struct builder *b, struct proc *p, const char *path,
				   int64_t dirfd, const char *dirpath);

static const char *resolve(struct builder *b, struct proc *p, const char *path,
			   int64_t dirfd, const char *dirpath)
{
	const char *r = resolve_spelled(b, p, path, dirfd, dirpath);
	return r && r[0] == '/' && b->naliases ? unalias(b, r) : r;
}

static const char *resolve_spelled(struct builder *b, struct proc *p, const char *path,
				   int64_t dirfd, const char *dirpath)
{
	if (path[0] == '/')
		return path_join(b, NULL, path);
	const char *dir = NULL;
	if (dirpath && dirpath[0] == '/')
		dir = dirpath;
	else if (dirfd != SC_AT_FDCWD) {
		struct ofd *o = fd_get(p, dirfd);
		if (o && o->path)
			dir = o->path;
	} else {
		dir = p->cwd;
	}
	return path_join(b, dir, path);
}

/* The path id of the resolved path full (and a copy of it). */
static int intern_full(struct builder *b, const char *full, uint32_t flags, uint32_t *id,
		       char **copy)
{
	if (copy) {
		*copy = strdup(full);
		if (!*copy)
			return -ENOMEM;
	}
	return opsw_path(b->w, full, flags, id);
}

/* path resolved against dirfd (dirpath: its -y decoration). */
static int intern(struct builder *b, struct proc *p, const struct sc_event *ev,
		  const char *path, int64_t dirfd, const char *dirpath, uint32_t *id,
		  char **copy)
{
	const char *full = resolve(b, p, path, dirfd, dirpath);
	if (!full)
		return -ENOMEM;
	return intern_full(b, full, path == ev->path ? ev->path_flags : 0, id, copy);
}

/* ---- calls ---------------------------------------------------------------- */
static int do_open(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	if (!ev->path)
		return 0;
	const char *path = ev->path;
	/* a relative path whose directory we do not know: -y told us where
	 * the kernel found it */
	bool from_ret = false;
	if (path[0] != '/' && ev->retpath && ev->retpath[0] == '/' &&
	    !(ev->fdpath && ev->fdpath[0] == '/') &&
	    !(ev->dirfd != SC_AT_FDCWD && fd_get(p, ev->dirfd)) &&
	    !(ev->dirfd == SC_AT_FDCWD && p->cwd)) {
		path = ev->retpath;
		from_ret = true;
	}
	/* strace -y names the file the kernel opened: its identity, whatever
	 * symlinked directory the call went through (learnt as an alias for
	 * the calls that only name paths) */
	if (ev->ret >= 0 && ev->retpath && ev->retpath[0] == '/' && !from_ret) {
		const char *spelled = resolve_spelled(b, p, path, ev->dirfd, ev->fdpath);
		if (!spelled)
			return -ENOMEM;
		if (spelled[0] == '/' && learn_alias(b, spelled, ev->retpath))
			return -ENOMEM;
		path = ev->retpath;
	}
	const char *r = resolve(b, p, path, ev->dirfd, ev->fdpath);
	if (!r)
		return -ENOMEM;
	/* O_TMPFILE names a directory and makes an unnamed file in it: strace
	 * -y shows it as "DIR/#INODE" (taken above); without that, it is
	 * called DIR/#tmpfile.  Either way its path is beneath the directory,
	 * which the replay's open names (plan_openat). */
	char *tmpname = NULL;
	bool tmpfile = op_oflags_tmpfile((uint32_t)ev->flags);
	if (tmpfile && path != ev->retpath) {
		size_t rl = strlen(r);
		tmpname = malloc(rl + sizeof "/#tmpfile");
		if (!tmpname)
			return -ENOMEM;
		memcpy(tmpname, r, rl);
		memcpy(tmpname + rl, rl && r[rl - 1] == '/' ? "#tmpfile" : "/#tmpfile",
		       sizeof "/#tmpfile");
		r = tmpname;
	}
	if (is_special(r)) {
		free(tmpname);
		/* kept in the fd table (dup, close) but never replayed */
		b->st.special_ops++;
		if (ev->ret < 0 || ev->ret >= FD_MAX)
			return 0;
		struct ofd *so = ofd_new(OP_NOFILE, (uint32_t)ev->flags, r);
		if (!so)
			return -ENOMEM;
		so->special = 1;
		so->nren = b->nrens;
		so->ypath = path == ev->retpath;
		int rc = fdt_set(p, ev->ret, so);
		if (rc) {
			free(so->path);
			free(so);
		}
		return rc;
	}
	uint32_t file;
	char *full = NULL;
	int rc = intern_full(b, r, path == ev->path ? ev->path_flags : 0, &file, &full);
	free(tmpname);
	if (rc)
		return rc;
	struct op op = op_new(OP_OPEN);
	op.file = file;
	op.oflags = (uint32_t)ev->flags;
	op.aux = (uint32_t)ev->mode;
	op.result = ev->ret;
	if (ev->ret >= 0 && ev->ret < FD_MAX) {
		struct ofd *o = ofd_new(file, (uint32_t)ev->flags, full);
		if (!o) {
			rc = -ENOMEM;
			goto out;
		}
		o->nren = b->nrens;
		o->at = b->nsops;
		o->ypath = path == ev->retpath;
		rc = fdt_set(p, ev->ret, o);
		if (rc) {
			free(o->path);
			free(o);
			goto out;
		}
		uint32_t rank;
		rc = rank_of(b, p, ev, &rank);
		if (rc)
			goto out;
		rc = ofd_add_handle(b, o, rank, &op.handle);
		if (rc)
			goto out;
		if ((ev->flags & O_TRUNC) || tmpfile) {   /* a new unnamed file is empty */
			uint64_t *s = size_of(b, file);
			if (s)
				*s = 0;
		}
	}
	rc = emit(b, p, ev, &op);
out:
	free(full);
	return rc;
}

/* Remove fd from p's table; emit OP_CLOSE in p's rank when that was the
 * table's last reference to the ofd and the rank had a handle for it.
 * When it was the last reference of all, the description is gone: every
 * other rank still holding a handle for it closes it too, at this time
 * (a thread pool that opens in one thread and closes in another would
 * otherwise leave handles open in the replay). */
static int close_fd(struct builder *b, struct proc *p, const struct sc_event *ev,
		    int64_t fd, int64_t result, int emit_op)
{
	struct ofd *o = fd_get(p, fd);
	if (!o)
		return 0;
	p->tab->fds[fd] = NULL;
	p->touched = 1;
	int rc = 0;
	if (o->refs == 1 || !tab_refs_ofd(p->tab, o)) {
		uint32_t h = p->rank >= 0 ? ofd_handle(o, (uint32_t)p->rank) : OP_NOHANDLE;
		if (h != OP_NOHANDLE) {
			ofd_drop_handle(o, (uint32_t)p->rank);
			if (emit_op) {
				struct op op = op_new(OP_CLOSE);
				op.handle = h;
				op.file = o->file;
				op.result = result;
				rc = emit(b, p, ev, &op);
			}
		}
	}
	if (o->refs == 1 && emit_op) {
		struct sc_event e2 = *ev;
		e2.dur_ns = 0;
		e2.ret = 0;
		while (o->nh && !rc) {
			struct rhandle rh = o->h[--o->nh];
			struct op op = op_new(OP_CLOSE);
			op.handle = rh.handle;
			op.file = o->file;
			op.result = 0;
			rc = emit_rank(b, rh.rank, &e2, &op);
		}
	}
	ofd_unref(o);
	return rc;
}

static int do_close(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	if (!fd_get(p, ev->fd)) {
		/* closing what we never saw opened: nothing to replay */
		b->st.unknown_fd_ops++;
		b->st.undecorated_ops += !ev->fdpath;
		if (ev->fd >= 0 && ev->fd <= 2)
			b->st.stdio_ops++;
		return 0;
	}
	return close_fd(b, p, ev, ev->fd, ev->ret, 1);
}

static int do_dup(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	int64_t newfd = ev->call == SC_DUP2 ? ev->fd2 : ev->ret;
	if (ev->call == SC_DUP2 && ev->ret >= 0)
		newfd = ev->ret;
	if (ev->ret < 0 || newfd < 0 || newfd == ev->fd)
		return 0;
	struct ofd *o = fd_get(p, ev->fd);  /* special ones too: they stay special */
	int rc = 0;
	if (!o) {
		rc = lookup_fd(b, p, ev, ev->fd, ev->fdpath, &o);
		if (rc)
			return rc;
	}
	if (fd_get(p, newfd)) {              /* dup2 closes the target first */
		rc = close_fd(b, p, ev, newfd, 0, 1);
		if (rc)
			return rc;
	}
	if (!o)
		return 0;
	rc = fdt_set(p, newfd, o);
	return rc == -EINVAL ? 0 : rc;
}

/* The ofd of ev's fd and the rank's handle of it: 0 with *o NULL when the
 * op is dropped (counted by lookup_fd), or -errno. */
static int fd_handle(struct builder *b, struct proc *p, const struct sc_event *ev, struct ofd **o,
		     uint32_t *h)
{
	int rc = lookup_fd(b, p, ev, ev->fd, ev->fdpath, o);
	if (rc || !*o)
		return rc;
	rc = use_ofd(b, p, ev, *o, h);
	if (rc)
		*o = NULL;
	return rc;
}

#define RW_MAX OP_MAX_DATA_LEN

static int do_data(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	struct ofd *o;
	uint32_t h;
	int rc = fd_handle(b, p, ev, &o, &h);
	if (rc || !o)
		return rc;
	int is_write = ev->call == SC_WRITE || ev->call == SC_AWRITE;
	int async = ev->call == SC_AREAD || ev->call == SC_AWRITE;
	struct op op = op_new(ev->call == SC_READ ? OP_READ : ev->call == SC_WRITE ? OP_WRITE :
			      ev->call == SC_AREAD ? OP_AREAD : OP_AWRITE);
	op.handle = h;
	op.file = o->file;
	/* a sync call that moved more than its length: only a vector whose
	 * iovecs strace showed in part (the readers refuse it otherwise) */
	uint64_t want = ev->len;
	if (!async && ev->ret > 0 && (uint64_t)ev->ret > want)
		want = (uint64_t)ev->ret;
	/* one call moves at most MAX_RW_COUNT bytes; cat asks copy_file_range
	 * for SSIZE_MAX-ish and a failing call keeps that request (a DXT
	 * segment may be longer: it moved what one call can) */
	uint64_t len = want > RW_MAX ? RW_MAX : want;
	op.len = len;
	op.iovcnt = (uint16_t)(ev->iovcnt > UINT16_MAX ? UINT16_MAX : ev->iovcnt ? ev->iovcnt : 1);
	op.result = !async && ev->ret > (int64_t)len ? (int64_t)len : ev->ret;
	op.oflags = o->oflags & O_DIRECT;       /* the description's, at this call */
	int positional = ev->offset >= 0;
	uint64_t off = positional ? (uint64_t)ev->offset : o->pos;
	/* O_APPEND, or pwritev2 RWF_APPEND (ev->flags O_APPEND on a write) */
	if (is_write && ((o->oflags & O_APPEND) ||
			 (ev->call == SC_WRITE && (ev->flags & O_APPEND)))) {
		uint64_t *s = size_of(b, o->file);
		off = s ? *s : o->pos;
		op.flags |= OPF_APPEND;
		/* Linux appends even for pwrite on O_APPEND, and pwrite still
		 * leaves the file position alone */
	}
	op.offset = off;
	/* bytes actually moved: the result, or for async submits (result is
	 * an id or unknown) the request */
	uint64_t moved = 0;
	if (async)
		moved = len;
	else if (ev->ret > 0 && ev->ret != SC_RET_UNKNOWN)
		moved = (uint64_t)ev->ret;
	else if (ev->ret == SC_RET_UNKNOWN)
		moved = len;
	if (!positional)
		o->pos = off + moved;
	if (!async && !is_write && moved && moved < len)
		size_is(b, o->file, off + moved);   /* a short read ends at the end */
	else if (moved)
		size_at_least(b, o->file, off + moved);
	if (async) {
		struct async_ent *ae;
		rc = async_submit(b, (uint32_t)p->rank, ev->async_id, h, op.len, &ae);
		if (rc)
			return rc;
		op.aux = ae->dense;
		op.result = ev->ret == SC_RET_UNKNOWN ? 0 : ev->ret;
	}
	return emit(b, p, ev, &op);
}

static int do_await(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	if (p->rank < 0) {
		b->unknown_async++;
		return 0;
	}
	struct rankst *rs = &b->ranks[p->rank];
	struct async_ent *ae = imap_get(&rs->async, (int64_t)ev->async_id);
	if (!ae) {
		b->unknown_async++;
		return 0;
	}
	struct op op = op_new(OP_AWAIT);
	op.aux = ae->dense;
	op.handle = ae->handle;
	if (ev->ret == SC_RET_UNKNOWN) {
		/* the wait carried no byte count: the submitted length stands in,
		 * flagged so stat and dump can say so */
		op.result = (int64_t)ae->len;
		op.flags |= OPF_ASYNC_BYTES;
	} else {
		op.result = ev->ret;
	}
	imap_del(&rs->async, (int64_t)ev->async_id);
	async_release(b, ae);
	return emit(b, p, ev, &op);
}

/* o's position after the lseek ev: its result, or when the trace does not
 * show it (= ?) worked out from whence and offset; a failed one leaves it.
 * Returns the file size the seek shows (a SEEK_END with its result: the
 * result minus the offset), else UINT64_MAX. */
static inline __attribute__((always_inline)) uint64_t seek_to(struct builder *b, struct ofd *o,
							      const struct sc_event *ev)
{
	int64_t np;
	uint64_t shown = UINT64_MAX;
	if (ev->ret >= 0 && ev->ret != SC_RET_UNKNOWN) {
		np = ev->ret;
		if (ev->whence == SEEK_END && ev->ret >= ev->offset) {
			shown = (uint64_t)(ev->ret - ev->offset);
			size_is(b, o->file, shown);
		}
	} else if (ev->ret == SC_RET_UNKNOWN) {
		int64_t base = 0;
		if (ev->whence == SEEK_CUR)
			base = (int64_t)o->pos;
		else if (ev->whence == SEEK_END) {
			uint64_t *s = size_of(b, o->file);
			base = s ? (int64_t)*s : 0;
		}
		np = base + ev->offset;
		if (np < 0)
			np = -1;
	} else {
		np = -1;            /* failed: position unchanged */
	}
	if (np >= 0)
		o->pos = (uint64_t)np;
	return shown;
}

static int do_seek(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	struct ofd *o;
	uint32_t h;
	int rc = fd_handle(b, p, ev, &o, &h);
	if (rc || !o)
		return rc;
	uint64_t shown = seek_to(b, o, ev);
	struct op op = op_new(OP_SEEK);
	op.handle = h;
	op.file = o->file;
	op.offset = o->pos;
	if (shown != UINT64_MAX) {
		op.len = shown;
		op.flags |= OPF_STAT_SIZE;
	}
	op.aux = (uint32_t)ev->whence;
	op.result = ev->ret == SC_RET_UNKNOWN ? (int64_t)o->pos : ev->ret;
	return emit(b, p, ev, &op);
}

/* Whether a live process of rank r has o in its descriptor table. */
static bool rank_holds(const struct builder *b, uint32_t r, const struct ofd *o)
{
	for (size_t i = 0; i < b->procs.cap; i++) {
		const struct proc *q = b->procs.vals[i];
		if (q && q->rank == (int64_t)r && q->tab && tab_refs_ofd(q->tab, o))
			return true;
	}
	return false;
}

static int do_fdop(struct builder *b, struct proc *p, const struct sc_event *ev, enum op_kind k)
{
	struct ofd *o;
	uint32_t h;
	int rc = fd_handle(b, p, ev, &o, &h);
	if (rc || !o)
		return rc;
	struct op op = op_new(k);
	op.handle = h;
	op.file = o->file;
	op.result = ev->ret;
	if (k == OP_FTRUNCATE) {
		op.len = ev->len;
		if (ev->ret == 0) {
			uint64_t *s = size_of(b, o->file);
			if (s)
				*s = ev->len;
		}
	} else if (k == OP_FALLOCATE) {
		op.offset = ev->offset > 0 ? (uint64_t)ev->offset : 0;
		op.len = ev->len;
		op.aux = (uint32_t)ev->mode;
		uint64_t *s = ev->ret == 0 ? size_of(b, o->file) : NULL;
		/* the tracked end moves as the kernel moved it (O_APPEND
		 * writes land there): COLLAPSE_RANGE takes len bytes out,
		 * INSERT_RANGE adds len, plain and ZERO_RANGE without
		 * KEEP_SIZE may extend the file, the other modes keep it */
		if (s && (op.aux & OP_FALLOC_COLLAPSE_RANGE))
			*s = *s > op.len ? *s - op.len : 0;
		else if (s && (op.aux & OP_FALLOC_INSERT_RANGE))
			*s += op.len;
		else if (s && op_falloc_may_extend(op.aux) && *s < op.offset + op.len)
			*s = op.offset + op.len;
	} else if (k == OP_STAT && (ev->opflags & OPF_STAT_SIZE)) {
		op.len = ev->len;
		if (ev->ret == 0)
			size_is(b, o->file, ev->len);
	} else if (k == OP_MMAP) {
		op.offset = ev->offset > 0 ? (uint64_t)ev->offset : 0;
		op.len = ev->len;
		op.aux = (uint32_t)ev->mode;
		b->st.mmaps++;
	} else if (k == OP_SETFL) {
		/* the flags F_SETFL can change (Linux): later writes append or
		 * not, and a rank's implicit open of this description has them */
		const uint32_t bits = O_APPEND | O_ASYNC | O_DIRECT | O_NOATIME | O_NONBLOCK;
		op.oflags = (uint32_t)ev->flags & bits;
		if (ev->ret == 0)
			o->oflags = (o->oflags & ~bits) | op.oflags;
	} else if (k == OP_FDATASYNC && ev->name && !strcmp(ev->name, "sync_file_range")) {
		b->sfr_as_fdatasync++;
	}
	rc = emit(b, p, ev, &op);
	if (rc || k != OP_SETFL || ev->ret != 0 || o->nh < 2)
		return rc;
	/* the flags are the description's: every other rank's open of it (a
	 * thread's, a child's) takes them too, at this time, or its writes
	 * would not append as the trace's did; not one whose process is gone
	 * or no longer holds it (an op after its end would stretch it) */
	struct sc_event e2 = *ev;
	e2.dur_ns = 0;
	for (uint32_t i = 0; i < o->nh && !rc; i++) {
		if ((int64_t)o->h[i].rank == p->rank || !rank_holds(b, o->h[i].rank, o))
			continue;
		struct op o2 = op;
		o2.handle = o->h[i].handle;
		o2.flags |= OPF_SYNTH;
		rc = emit_rank(b, o->h[i].rank, &e2, &o2);
	}
	return rc;
}

/* Record a successful rename of `from` to `to` (both taken over) for
 * ofd_path_is. */
static int ren_push(struct builder *b, char *from, char *to)
{
	if (!b->rens)
		b->rens = calloc(REN_KEEP, sizeof(*b->rens));
	if (!from || !b->rens) {
		free(from);
		free(to);
		return -ENOMEM;
	}
	struct ren *e = &b->rens[b->nrens++ % REN_KEEP];
	free(e->from);
	free(e->to);
	*e = (struct ren){ .from = from, .to = to, .seq = b->nsops };
	return 0;
}

/* ren_push of ev->path (resolved) to `to` (taken over). */
static int ren_add(struct builder *b, struct proc *p, const struct sc_event *ev, char *to)
{
	const char *r = resolve(b, p, ev->path, ev->dirfd, ev->fdpath);
	char *from = r ? strdup(r) : NULL;
	if (!from) {
		free(to);
		return -ENOMEM;
	}
	return ren_push(b, from, to);
}

/* The name `file` stops naming the file it named (an unlink, a rename
 * from or over it), as the trace's b->nsops-th such change. */
static int name_gone(struct builder *b, uint32_t file)
{
	if (file == OP_NOFILE)
		return 0;
	if (file >= b->ngone && grow((void **)&b->gone_at, &b->ngone, file + 1, sizeof(*b->gone_at)))
		return -ENOMEM;
	b->gone_at[file] = b->nsops;
	return 0;
}

/*
 * renameat2(A, B, RENAME_EXCHANGE), which succeeded: the two names swap
 * files.  There is no exchange op: it is three renames, A to a name of
 * the replay's beside it (A.replay-exchange), B to A, that one to B, the
 * last two flagged synthesized; the names end as the call left them, and
 * open descriptors follow their files.  op: the call's rename (A to B),
 * bpath: B resolved (taken over).
 */
static int do_exchange(struct builder *b, struct proc *p, const struct sc_event *ev,
		       struct op *op, char *bpath)
{
	const char *r = resolve(b, p, ev->path, ev->dirfd, ev->fdpath);
	size_t al = r ? strlen(r) : 0;
	char *tmp = r ? malloc(al + sizeof ".replay-exchange") : NULL;
	uint32_t t = OP_NOFILE, a = op->file, bb = op->aux;
	int rc = tmp ? 0 : -ENOMEM;
	if (!rc) {
		memcpy(tmp, r, al);
		memcpy(tmp + al, ".replay-exchange", sizeof ".replay-exchange");
		rc = intern_full(b, tmp, 0, &t, NULL);
	}
	/* the names each rename moves, for the descriptors' paths */
	const char *from[3] = { r, bpath, tmp }, *to[3] = { tmp, r, bpath };
	uint32_t fid[3] = { a, bb, t }, tid[3] = { t, a, bb };
	for (int i = 0; i < 3 && !rc; i++) {
		char *f = strdup(from[i]), *g = strdup(to[i]);
		if (!f || !g) {
			free(f);
			free(g);
			rc = -ENOMEM;
			break;
		}
		b->nsops++;
		rc = ren_push(b, f, g);
		if (!rc)
			rc = name_gone(b, fid[i]);
		if (!rc)
			rc = name_gone(b, tid[i]);
	}
	free(tmp);
	free(bpath);
	if (rc)
		return rc;
	uint64_t *sa = size_of(b, a), *sb = size_of(b, bb);
	sa = size_of(b, a);             /* size_of may have moved */
	if (sa && sb) {
		uint64_t x = *sa;
		*sa = *sb;
		*sb = x;
	}
	struct sc_event e2 = *ev;
	e2.dur_ns = 0;
	for (int i = 0; i < 3 && !rc; i++) {
		struct op o = *op;
		o.file = fid[i];
		o.aux = tid[i];
		if (i)
			o.flags |= OPF_SYNTH;
		rc = emit(b, p, i ? &e2 : ev, &o);
	}
	b->exchanges++;
	return rc;
}

static int do_path(struct builder *b, struct proc *p, const struct sc_event *ev, enum op_kind k)
{
	if (!ev->path)
		return k == OP_STAT ? do_fdop(b, p, ev, OP_STAT) : 0;
	const char *r = resolve(b, p, ev->path, ev->dirfd, ev->fdpath);
	if (!r)
		return -ENOMEM;
	int sp = is_special(r);
	if (!sp && op_has_path2(k) && ev->path2) {
		r = resolve(b, p, ev->path2, ev->dirfd2, ev->fdpath2);
		if (!r)
			return -ENOMEM;
		sp = is_special(r);
	}
	if (sp) {
		b->st.special_ops++;
		return 0;
	}
	struct op op = op_new(k);
	int rc = intern(b, p, ev, ev->path, ev->dirfd, ev->fdpath, &op.file, NULL);
	if (rc)
		return rc;
	op.result = ev->ret;
	if (k == OP_MKDIR)
		op.aux = (uint32_t)ev->mode;
	if (k == OP_STAT && (ev->opflags & OPF_STAT_SIZE)) {
		op.len = ev->len;
		if (ev->ret == 0)
			size_is(b, op.file, ev->len);
	}
	if (k == OP_FTRUNCATE) {        /* truncate(path, len) */
		op.len = ev->len;
		if (ev->ret == 0)
			size_is(b, op.file, ev->len);
	}
	if (op_has_path2(k)) {
		if (!ev->path2)
			return 0;
		/* the second path against its own directory (renameat's and
		 * linkat's newdirfd, the working directory for rename and
		 * link); an unknown one keeps it relative, as for the first */
		char *newpath = NULL;
		rc = intern(b, p, ev, ev->path2, ev->dirfd2, ev->fdpath2, &op.aux,
			    k == OP_RENAME && ev->ret == 0 ? &newpath : NULL);
		if (rc)
			return rc;
		if (newpath && (ev->flags & SC_RENAME_EXCHANGE))
			return do_exchange(b, p, ev, &op, newpath);
		if (newpath) {
			b->nsops++;
			rc = ren_add(b, p, ev, newpath);
			if (!rc)
				rc = name_gone(b, op.file);
			if (!rc)
				rc = name_gone(b, op.aux);
			if (rc)
				return rc;
		}
		if (ev->ret == 0) {
			uint64_t *from = size_of(b, op.file), *to = size_of(b, op.aux);
			from = size_of(b, op.file);     /* size_of may have moved */
			if (from && to) {
				*to = *from;
				if (k == OP_RENAME)
					*from = 0;
			}
		}
	}
	if (k == OP_UNLINK && ev->ret == 0) {
		uint64_t *s = size_of(b, op.file);
		if (s)
			*s = 0;
		b->nsops++;
		rc = name_gone(b, op.file);
		if (rc)
			return rc;
	}
	return emit(b, p, ev, &op);
}

/* symlink/symlinkat: the link's path is resolved as any path; its content
 * is kept as the call gave it (a relative one is relative to the link's
 * directory, whatever the cwd or dirfd): the plan decides where it points
 * beneath the target. */
static int do_symlink(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	if (!ev->path || !ev->path2)
		return 0;       /* a name strace did not show (-e raw) */
	const char *r = resolve(b, p, ev->path, ev->dirfd, ev->fdpath);
	if (!r)
		return -ENOMEM;
	if (is_special(r)) {
		b->st.special_ops++;
		return 0;
	}
	struct op op = op_new(OP_SYMLINK);
	int rc = intern_full(b, r, ev->path_flags, &op.file, NULL);
	if (!rc)
		rc = opsw_path(b->w, ev->path2, 0, &op.aux);
	if (rc)
		return rc;
	op.result = ev->ret;
	return emit(b, p, ev, &op);
}

static int do_clone(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	if (ev->ret <= 0 || ev->ret == SC_RET_UNKNOWN)
		return 0;
	int shared = (ev->flags & (CLONE_THREAD | CLONE_FILES)) != 0;
	struct proc *c = imap_get(&b->procs, ev->ret);
	if (c && c->tab && c->adopted)
		return 0;   /* adopted already (the parser saw it first) */
	int rc;
	if (!c) {
		rc = proc_find(b, ev->ret, &c, 0);   /* traced once a line is its own */
		if (rc)
			return rc;
	}
	struct fdtab *t = shared ? p->tab : fdtab_copy(p->tab);
	if (!t)
		return -ENOMEM;
	if (shared)
		t->refs++;
	/* the child ran before its clone returned in the trace: what it
	 * opened meanwhile goes on top of what it inherited */
	struct fdtab *own = c->tab;
	for (uint32_t fd = 0; own && c->touched && fd < own->cap; fd++) {
		if (!own->fds[fd])
			continue;
		if (fd < t->cap && t->fds[fd] && !shared) {
			ofd_unref(t->fds[fd]);
			t->fds[fd] = NULL;
		}
		if (fd >= t->cap || !t->fds[fd]) {
			struct proc tmp = { .tab = t };
			rc = fdt_set(&tmp, fd, own->fds[fd]);
			if (rc) {
				fdtab_unref(t);
				return rc;
			}
		}
	}
	fdtab_unref(own);
	c->tab = t;
	c->adopted = 1;
	if ((ev->flags & CLONE_THREAD) && !c->prog) {
		/* a thread runs its process's program (a forked child its
		 * own, once it executes one: until then it is neither) */
		c->tgid = p->tgid >= 0 ? p->tgid : p->pid;
		if (p->prog && !(c->prog = strdup(p->prog)))
			return -ENOMEM;
	}
	if (p->cwd && !c->cwd) {
		c->cwd = strdup(p->cwd);
		if (!c->cwd)
			return -ENOMEM;
	}
	return 0;
}

static int do_close_range(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	const int64_t cloexec = 4, unshare = 2;   /* CLOSE_RANGE_* */
	if (ev->ret != 0 || (ev->flags & cloexec) || ev->fd < 0)
		return 0;
	if ((ev->flags & unshare) && p->tab->refs > 1) {
		struct fdtab *t = fdtab_copy(p->tab);
		if (!t)
			return -ENOMEM;
		fdtab_unref(p->tab);
		p->tab = t;
	}
	int64_t last = ev->fd2 < 0 ? INT64_MAX : ev->fd2;
	for (int64_t fd = ev->fd; fd <= last && fd < (int64_t)p->tab->cap; fd++) {
		if (!p->tab->fds[fd])
			continue;
		int rc = close_fd(b, p, ev, fd, 0, 1);
		if (rc)
			return rc;
	}
	return 0;
}

static int do_chdir(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	if (ev->ret != 0)
		return 0;
	const char *dir = NULL;
	if (ev->path) {
		dir = resolve(b, p, ev->path, SC_AT_FDCWD, NULL);
		if (!dir)
			return -ENOMEM;
	} else {
		struct ofd *o = fd_get(p, ev->fd);
		dir = o && o->path ? o->path : ev->fdpath;
	}
	/* a relative result is relative to the first working directory the
	 * trace never named (chdir("d") with no -y): keep it, so the paths
	 * after it stay in step with those before; one that climbs above
	 * that start is unknown */
	if (!dir || (dir[0] != '/' && (!strcmp(dir, ".") || !strcmp(dir, "..") ||
					!strncmp(dir, "../", 3)))) {
		free(p->cwd);
		p->cwd = NULL;
		return 0;
	}
	char *n = strdup(dir);
	if (!n)
		return -ENOMEM;
	free(p->cwd);
	p->cwd = n;
	return 0;
}

/*
 * strace -y prints where AT_FDCWD pointed ("AT_FDCWD</tmp/x>"): that is
 * the cwd of the process at that call, even when the trace never showed a
 * chdir.  Learn it, so that a later plain mkdir("./d") or open("f")
 * resolves to the same file as openat(AT_FDCWD</tmp/x>, "./d").
 */
static int learn_cwd(struct proc *p, const struct sc_event *ev)
{
	switch (ev->call) {
	case SC_OPEN: case SC_UNLINK: case SC_RENAME: case SC_MKDIR:
	case SC_RMDIR: case SC_STAT: case SC_SYMLINK:
		break;
	default:
		return 0;
	}
	/* renameat(3</d>, "a", AT_FDCWD</w>, "b"): the new name's AT_FDCWD */
	const char *w = ev->dirfd == SC_AT_FDCWD ? ev->fdpath : NULL;
	if (!w && ev->call == SC_RENAME && ev->path2 && ev->dirfd2 == SC_AT_FDCWD)
		w = ev->fdpath2;
	if (!ev->path || !w || w[0] != '/')
		return 0;
	if (p->cwd && !strcmp(p->cwd, w))
		return 0;
	char *n = strdup(w);
	if (!n)
		return -ENOMEM;
	free(p->cwd);
	p->cwd = n;
	return 0;
}

/* The slot of skipseen for a name at address `at`. */
static inline struct skipseen *skip_seen(struct builder *b, const char *at)
{
	uintptr_t a = (uintptr_t)at;
	return &b->skipseen[(a ^ (a >> 6) ^ (a >> 12)) & 63];
}

static int skip_rehash(struct builder *b)
{
	size_t cap = b->skhcap ? b->skhcap * 2 : 64;
	uint32_t *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < b->nskips; i++) {
		size_t j = hash_bytes(b->skips[i].name, b->skips[i].len) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(b->skhash);
	b->skhash = t;
	b->skhcap = cap;
	return 0;
}

/* count_skip for a name not at the address skipseen remembers: by hash. */
static __attribute__((noinline)) int count_skip_slow(struct builder *b, const char *name,
						     struct skipseen *c)
{
	if ((b->nskips + 1) * 2 > b->skhcap && skip_rehash(b))
		return -ENOMEM;
	size_t len = strlen(name), mask = b->skhcap - 1;
	size_t j = hash_bytes(name, len) & mask, i;
	while (b->skhash[j]) {
		i = b->skhash[j] - 1;
		if (b->skips[i].len == len && !memcmp(b->skips[i].name, name, len))
			goto found;
		j = (j + 1) & mask;
	}
	if (b->nskips == b->skcap) {
		size_t ncap = b->skcap ? b->skcap * 2 : 32;
		struct skipname *n = realloc(b->skips, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		b->skips = n;
		b->skcap = ncap;
	}
	char *s = strdup(name);
	if (!s)
		return -ENOMEM;
	i = b->nskips++;
	b->skips[i] = (struct skipname){ s, 0, len };
	b->skhash[j] = (uint32_t)i + 1;
found:
	b->skips[i].n++;
	*c = (struct skipseen){ name, i };
	return 0;
}

/*
 * Count a skipped call under its name.  Readers mostly pass the same few
 * addresses (their call tables, their line buffer), so the entry last
 * found for a name at this address is tried first: one strcmp (the
 * address may hold another name by now), else the list is searched.
 */
static inline int count_skip(struct builder *b, const char *name)
{
	if (!name)
		name = "?";
	struct skipseen *c = skip_seen(b, name);
	if (c->at == name && !strcmp(b->skips[c->i].name, name)) {
		b->skips[c->i].n++;
		return 0;
	}
	return count_skip_slow(b, name, c);
}

/* ---- API ------------------------------------------------------------------ */
int builder_new(struct builder **out, struct ops_writer *w)
{
	struct builder *b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->w = w;
	b->fdgen = 1;                /* fdc[] entries (gen 0) all stale */
	*out = b;
	return 0;
}

int builder_rank(struct builder *b, int64_t pid, const char *name, uint32_t *rank)
{
	struct proc *p;
	b->fdgen++;
	int rc = proc_get(b, pid, &p);
	if (rc)
		return rc;
	if (p->rank >= 0) {
		*rank = (uint32_t)p->rank;
		return 0;
	}
	rc = opsw_rank(b->w, name, pid, rank);
	if (rc)
		return rc;
	rc = grow((void **)&b->ranks, &b->rcap, *rank + 1, sizeof(*b->ranks));
	if (rc)
		return rc;
	if (*rank + 1 > b->nranks)
		b->nranks = *rank + 1;
	p->rank = *rank;
	return 0;
}

int builder_rank_host(struct builder *b, uint32_t rank, const char *host)
{
	return opsw_rank_host(b->w, rank, host);
}

int builder_info(struct builder *b, const char *key, const char *value)
{
	return opsw_info(b->w, key, value);
}

static int do_barrier(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	struct op op = op_new(OP_BARRIER);
	uint32_t rank;
	int rc = rank_of(b, p, ev, &rank);
	if (rc)
		return rc;
	op.aux = b->ranks[rank].barriers++;
	op.result = ev->ret == SC_RET_UNKNOWN ? 0 : ev->ret;
	return emit(b, p, ev, &op);
}

/* The op kind of the calls recorded as one op on the fd / on a path. */
static const uint8_t fd_kind[] = {
	[SC_FTRUNCATE] = OP_FTRUNCATE, [SC_FSYNC] = OP_FSYNC, [SC_FDATASYNC] = OP_FDATASYNC,
	[SC_FALLOCATE] = OP_FALLOCATE, [SC_MMAP] = OP_MMAP,
};
static const uint8_t path_kind[] = {
	[SC_UNLINK] = OP_UNLINK, [SC_RENAME] = OP_RENAME, [SC_MKDIR] = OP_MKDIR,
	[SC_RMDIR] = OP_RMDIR, [SC_STAT] = OP_STAT, [SC_LINK] = OP_LINK,
	[SC_TRUNCATE] = OP_FTRUNCATE,   /* by path: no handle */
};

/* One event to its handler: 0, -errno, or 1 for an unknown kind. */
static int dispatch(struct builder *b, struct proc *p, const struct sc_event *ev)
{
	unsigned c = ev->call;
	if (c < sizeof(fd_kind) && fd_kind[c])
		return do_fdop(b, p, ev, fd_kind[c]);
	if (c < sizeof(path_kind) && path_kind[c])
		return do_path(b, p, ev, path_kind[c]);
	switch (ev->call) {
	case SC_SKIP:
		b->st.skipped_calls++;
		return count_skip(b, ev->name);
	case SC_OPEN:
		return do_open(b, p, ev);
	case SC_CLOSE:
		return do_close(b, p, ev);
	case SC_READ: case SC_WRITE: case SC_AREAD: case SC_AWRITE:
		return do_data(b, p, ev);
	case SC_AWAIT:
		return do_await(b, p, ev);
	case SC_LSEEK:
		return do_seek(b, p, ev);
	case SC_DUP: case SC_DUP2:
		return do_dup(b, p, ev);
	case SC_CLONE:
		return do_clone(b, p, ev);
	case SC_EXIT:
		fdtab_unref(p->tab);
		p->tab = NULL;
		return 0;
	case SC_CLOSE_RANGE:
		return do_close_range(b, p, ev);
	case SC_CHDIR:
		return do_chdir(b, p, ev);
	case SC_SYMLINK:
		return do_symlink(b, p, ev);
	case SC_EXEC:
		/* counted with the calls not replayed, as before; the program
		 * of a successful one is the process's from now on */
		if (ev->ret == 0 && ev->path && ev->path[0]) {
			char *n = strdup(ev->path);
			if (!n)
				return -ENOMEM;
			free(p->prog);
			p->prog = n;
			p->tgid = -1;   /* the exec makes it its process's leader */
			/* a rank made before it exec'd a launcher (a job script's
			 * shell child opened the redirect `mpirun ... > out`
			 * before it became mpirun): a launcher's rank from now,
			 * its ops before too (the redirect is the job's output) */
			if (p->rank >= 0) {
				int rc = note_launcher(b, (uint32_t)p->rank, n);
				if (rc)
					return rc;
			}
		}
		b->st.skipped_calls++;
		return count_skip(b, ev->name);
	case SC_BARRIER:
		return do_barrier(b, p, ev);
	case SC_SETFL: {
		/* on a file (open here, or one -y names): a setfl op; on a
		 * socket, pipe, device or a descriptor never seen (O_NONBLOCK
		 * on the MPI runtime's sockets), a call counted as before */
		const struct ofd *o = fd_get(p, ev->fd);
		if (o ? !o->special : ev->fdpath && ev->fdpath[0] == '/' && !is_special(ev->fdpath))
			return do_fdop(b, p, ev, OP_SETFL);
		b->st.skipped_calls++;
		return count_skip(b, ev->name);
	}
	default:
		return 1;
	}
}

/* ev's name is "io_submit" (its iocbs counted in io_submit_iocbs) */
static inline bool is_io_submit(const char *name)
{
	return name && name[0] == 'i' && name[1] == 'o' && name[2] == '_' &&
	       !strcmp(name + 3, "submit");
}

static __attribute__((noinline, cold)) int event_fail(const struct sc_event *ev, int rc,
						       struct rerr *e)
{
	return rerr_at(e, rc, ev->src ? ev->src : "?", ev->line, "cannot record %s: %s",
		       ev->name ? ev->name : "event", strerror(-rc));
}

/* A fast path's answer when it found the event's open file, rank and
 * handle but cannot build the record in place (no writer slot, an O_APPEND
 * write): the general path then does what it does for such an event, which
 * changes no fd table, handle or process, and fdc stays.  (1: not found,
 * the general path may change anything.) */
#define FAST_GENERAL_SAME 2

/* fdc's slot of (pid, fd): a multiplicative hash of the pid plus the fd
 * times a large odd constant (ranks often count pids and fds up together:
 * pid * 31 + fd put ten such pairs in two slots) */
static inline size_t fdc_slot(int64_t pid, int64_t fd)
{
	return hash_fib((uint64_t)pid + (uint64_t)fd * 0x08d90a46e8698ed3ull, 58);
}

/*
 * fast_ofd when fdc has nothing for ev's (pid, fd): the ofd the fd is of,
 * when lookup_fd and use_ofd would give it without a side effect: an fd of
 * the table that is a storage file, the process's rank started and holding
 * a handle for it: remembered in c, returned.  NULL otherwise.
 */
static __attribute__((noinline)) const struct fdcache *fast_ofd_find(struct builder *b,
								     const struct sc_event *ev,
								     struct fdcache *c)
{
	struct proc *p;
	if (proc_get(b, ev->pid, &p))
		return NULL;    /* the general path meets the error again */
	const struct fdtab *t = p->tab;
	uint64_t fd = (uint64_t)ev->fd;
	if (fd >= t->cap)
		return NULL;
	struct ofd *o = t->fds[fd];
	if (!o || o->special)
		return NULL;
	int64_t r = p->rank;
	if (r < 0 || !b->ranks[r].t0_set)
		return NULL;
	for (uint32_t i = 0; i < o->nh; i++)
		if (o->h[i].rank == (uint32_t)r) {
			*c = (struct fdcache){ .pid = ev->pid, .fd = ev->fd, .gen = b->fdgen,
					       .o = o, .rank = (uint32_t)r,
					       .handle = o->h[i].handle };
			return c;
		}
	return NULL;
}

/*
 * The ofd a read, write or seek on ev->fd uses, when lookup_fd and use_ofd
 * would give it without a side effect (see fast_ofd_find), -y (when shown)
 * not contradicting it; its handle in *h, the rank in *rank.  NULL: the
 * general path takes the event.  What was found for (pid, fd) holds until
 * an event the fast paths do not take whole (fdgen).
 */
static inline __attribute__((always_inline)) struct ofd *fast_ofd(struct builder *b,
								  const struct sc_event *ev,
								  uint32_t *h, uint32_t *rank)
{
	if (ev->fdpath && ev->fdpath[0] != '/')
		return NULL;
	struct fdcache *c = &b->fdc[fdc_slot(ev->pid, ev->fd)];
	const struct fdcache *f = c;
	if (c->gen != b->fdgen || c->pid != ev->pid || c->fd != ev->fd) {
		f = fast_ofd_find(b, ev, c);
		if (!f)
			return NULL;
	}
	if (ev->fdpath) {
		if (!ofd_path_same(f->o, ev->fdpath))
			return NULL;    /* lookup_fd_slow decides */
		ofd_y_agreed(f->o);
	}
	*h = f->handle;
	*rank = f->rank;
	return f->o;
}

/* What emit_rank sets, and counts, for op in slot of rank (then
 * committed); ret is ev->ret. */
static inline __attribute__((always_inline)) int fast_commit(struct builder *b, uint32_t rank,
							     const struct sc_event *ev,
							     int64_t ret, struct op *op)
{
	struct rankst *rs = &b->ranks[rank];
	uint64_t tn = ev->ts_ns > rs->t0 ? ev->ts_ns - rs->t0 : 0;
	if (__builtin_expect(tn < rs->last_t, 0))
		tn = clock_back(b, ev, rs->last_t);
	rs->last_t = tn;
	op->t_ns = tn;
	op->dur_ns = ev->dur_ns;
	op->line = (uint32_t)ev->line;
	int rc = opsw_commit(b->w, rank);
	if (rc)
		return rc;
	b->st.ops++;
	if (ret < 0 && ret != SC_RET_UNKNOWN)
		b->st.failed_calls++;
	return 0;
}

/* Where a data op on o starts (offset, or o's position when -1, which
 * then moves by `moved` bytes), with the file's size grown to its end as
 * do_data grows it (`at_end`: a short read, the file ends there). */
static inline __attribute__((always_inline)) uint64_t fast_place(struct builder *b,
								 struct ofd *o, int64_t offset,
								 uint64_t moved, int at_end)
{
	uint64_t off = offset >= 0 ? (uint64_t)offset : o->pos;
	if (offset < 0)
		o->pos = off + moved;
	if (at_end) {
		size_is(b, o->file, off + moved);
	} else if (moved) {
		uint32_t file = o->file;
		if (file < b->nsizes) {
			if (b->sizes[file] < off + moved)
				b->sizes[file] = off + moved;
		} else {
			size_at_least(b, file, off + moved);
		}
	}
	return off;
}

/*
 * The common data event, as do_data + emit would record it, built in
 * place in the rank's writer buffer: a read or write (not async) fast_ofd
 * finds the ofd of, no O_APPEND (neither the file's nor the call's), the
 * writer giving a slot.  1 or FAST_GENERAL_SAME when the event is not
 * such (nothing done then: do_data takes it), else 0 or -errno.
 */
_Static_assert((int)OP_READ == (int)SC_READ && (int)OP_WRITE == (int)SC_WRITE,
	       "data_fast takes the op kind from the call");
static inline __attribute__((always_inline)) int data_fast(struct builder *b,
							   const struct sc_event *ev)
{
	uint32_t h, rank;
	struct ofd *o = fast_ofd(b, ev, &h, &rank);
	if (!o)
		return 1;
	if (ev->call == SC_WRITE && ((o->oflags & O_APPEND) || (ev->flags & O_APPEND)))
		return FAST_GENERAL_SAME;
	struct op *op = opsw_slot(b->w, rank);
	if (!op)
		return FAST_GENERAL_SAME;
	/* from here on as do_data does it */
	uint64_t len = ev->len > RW_MAX ? RW_MAX : ev->len;
	int64_t ret = ev->ret;
	if (__builtin_expect(ret > (int64_t)len, 0))
		return FAST_GENERAL_SAME;       /* a vector shown in part, or clamped */
	uint64_t moved = ret > 0 ? (uint64_t)ret : ret == SC_RET_UNKNOWN ? len : 0;
	uint64_t off = fast_place(b, o, ev->offset, moved,
				  ev->call == SC_READ && moved && moved < len);
	uint32_t iov = ev->iovcnt;
	op->offset = off;
	op->len = len;
	op->result = ret;
	op->file = o->file;
	op->handle = h;
	op->oflags = o->oflags & O_DIRECT;
	op->aux = 0;
	op->kind = (uint8_t)ev->call;   /* OP_READ or OP_WRITE */
	op->flags = ev->opflags;
	op->iovcnt = (uint16_t)(iov > UINT16_MAX ? UINT16_MAX : iov ? iov : 1);
	return fast_commit(b, rank, ev, ret, op);
}

/* do_seek for an lseek fast_ofd finds the ofd of, built in place; 1 when
 * it finds none, FAST_GENERAL_SAME when the writer gives no slot (nothing
 * done then: do_seek takes it). */
static inline __attribute__((always_inline)) int seek_fast(struct builder *b,
							   const struct sc_event *ev)
{
	uint32_t h, rank;
	struct ofd *o = fast_ofd(b, ev, &h, &rank);
	if (!o)
		return 1;
	struct op *op = opsw_slot(b->w, rank);
	if (!op)
		return FAST_GENERAL_SAME;
	/* from here on as do_seek does it */
	int64_t ret = ev->ret;
	uint64_t shown = seek_to(b, o, ev);
	op->offset = o->pos;
	op->len = shown != UINT64_MAX ? shown : 0;
	op->result = ret == SC_RET_UNKNOWN ? (int64_t)o->pos : ret;
	op->file = o->file;
	op->handle = h;
	op->oflags = 0;
	op->aux = (uint32_t)ev->whence;
	op->kind = OP_SEEK;
	op->flags = (uint8_t)(ev->opflags | (shown != UINT64_MAX ? OPF_STAT_SIZE : 0));
	op->iovcnt = 1;
	return fast_commit(b, rank, ev, ret, op);
}

/*
 * An async submit as do_data + emit record it, built in place: fast_ofd
 * finds the ofd, not an O_APPEND file's write, the writer gives a slot.
 * 1 or FAST_GENERAL_SAME when not such (nothing done then: do_data takes
 * it), else 0 or -errno.
 */
static inline __attribute__((always_inline)) int async_fast(struct builder *b,
							    const struct sc_event *ev)
{
	uint32_t h, rank;
	struct ofd *o = fast_ofd(b, ev, &h, &rank);
	if (!o)
		return 1;
	if (ev->call == SC_AWRITE && (o->oflags & O_APPEND))
		return FAST_GENERAL_SAME;
	struct op *op = opsw_slot(b->w, rank);
	if (!op)
		return FAST_GENERAL_SAME;
	/* from here on as do_data does it */
	uint64_t len = ev->len > RW_MAX ? RW_MAX : ev->len;
	uint64_t off = fast_place(b, o, ev->offset, len, 0);
	struct async_ent *ae;
	int rc = async_submit(b, rank, ev->async_id, h, len, &ae);
	if (rc)
		return rc;
	uint32_t iov = ev->iovcnt;
	int64_t ret = ev->ret;
	op->offset = off;
	op->len = len;
	op->result = ret == SC_RET_UNKNOWN ? 0 : ret;
	op->file = o->file;
	op->handle = h;
	op->oflags = o->oflags & O_DIRECT;
	op->aux = ae->dense;
	op->kind = ev->call == SC_AREAD ? OP_AREAD : OP_AWRITE;
	op->flags = ev->opflags;
	op->iovcnt = (uint16_t)(iov > UINT16_MAX ? UINT16_MAX : iov ? iov : 1);
	return fast_commit(b, rank, ev, ret, op);
}

/* do_await + emit for a wait of a rank started, built in place; 1 when
 * not such or the writer gives no slot (nothing done then). */
static inline __attribute__((always_inline)) int await_fast(struct builder *b,
							    const struct sc_event *ev)
{
	struct proc *p;
	if (proc_get(b, ev->pid, &p))
		return 1;       /* the general path meets the error again */
	int64_t r = p->rank;
	if (r < 0 || !b->ranks[r].t0_set)
		return 1;
	uint32_t rank = (uint32_t)r;
	struct rankst *rs = &b->ranks[rank];
	struct async_ent *ae = imap_get(&rs->async, (int64_t)ev->async_id);
	if (!ae)
		return 1;
	struct op *op = opsw_slot(b->w, rank);
	if (!op)
		return 1;
	int64_t ret = ev->ret;
	uint8_t fl = ev->opflags;
	if (ret == SC_RET_UNKNOWN) {
		op->result = (int64_t)ae->len;
		fl |= OPF_ASYNC_BYTES;
	} else {
		op->result = ret;
	}
	op->offset = 0;
	op->len = 0;
	op->file = OP_NOFILE;
	op->handle = ae->handle;
	op->oflags = 0;
	op->aux = ae->dense;
	op->kind = OP_AWAIT;
	op->flags = fl;
	op->iovcnt = 1;
	imap_del(&rs->async, (int64_t)ev->async_id);
	async_release(b, ae);
	return fast_commit(b, rank, ev, ret, op);
}

/* Every event but those builder_event hands its handler itself. */
static __attribute__((noinline)) int event_slow(struct builder *b, const struct sc_event *ev,
						struct rerr *e)
{
	struct proc *p;
	if (is_io_submit(ev->name))
		b->iocbs++;
	/* an fd op (fsync, ftruncate...) changes no fd table, handle or
	 * process, unless -y says its fd is no longer a file's (lookup_fd_slow
	 * drops the entry then); anything else may */
	if (!(ev->call < sizeof(fd_kind) && fd_kind[ev->call]) ||
	    (ev->fdpath && ev->fdpath[0] != '/'))
		b->fdgen++;
	int rc = proc_get(b, ev->pid, &p);
	if (!rc) {
		rc = learn_cwd(p, ev);
		if (!rc) {
			rc = dispatch(b, p, ev);
			if (rc == 1)
				return rerr_at(e, -EINVAL, ev->src ? ev->src : "?", ev->line,
					       "unknown event kind %d", (int)ev->call);
		}
	}
	return rc ? event_fail(ev, rc, e) : 0;
}

/* An event a fast path did not take: its handler, by the general path.
 * fdgen is bumped (that path may change what fdc remembers) unless the
 * fast path answered FAST_GENERAL_SAME. */
static __attribute__((noinline)) int event_general(struct builder *b, const struct sc_event *ev,
						    int same)
{
	struct proc *p;
	if (same != FAST_GENERAL_SAME)
		b->fdgen++;
	int rc = proc_get(b, ev->pid, &p);
	if (rc)
		return rc;
	switch (ev->call) {
	case SC_LSEEK:
		return do_seek(b, p, ev);
	case SC_AWAIT:
		return do_await(b, p, ev);
	default:
		return do_data(b, p, ev);
	}
}

/*
 * The calls traces are full of go straight to their handler: reads and
 * writes (data_fast, else do_data), seeks (seek_fast, else do_seek), async
 * submits (async_fast, else do_data) and waits (await_fast, else
 * do_await), skipped calls and barriers.  For them learn_cwd has nothing
 * to learn and dispatch would pick that very handler.  The rest:
 * event_slow.
 */
uintptr_t builder_fd_on(struct builder *b, int64_t pid, int64_t fd, const char *path)
{
	const struct proc *p = imap_get(&b->procs, pid);
	const struct ofd *o = p && p->tab ? fd_get(p, fd) : NULL;
	if (!o || (path && (!o->path || strcmp(o->path, path))))
		return 0;
	return (uintptr_t)p->tab;
}

int builder_event(struct builder *b, const struct sc_event *ev, struct rerr *e)
{
	b->st.events++;
	unsigned c = ev->call;
	struct proc *p;
	int rc;
	if (c == SC_READ || c == SC_WRITE) {
		if (is_io_submit(ev->name))
			b->iocbs++;
		if ((rc = data_fast(b, ev)) >= 1)
			rc = event_general(b, ev, rc);
	} else if (c == SC_SKIP) {
		rc = proc_get(b, ev->pid, &p);
		if (!rc) {
			b->st.skipped_calls++;
			rc = count_skip(b, ev->name);
		}
	} else if (c == SC_LSEEK || c == SC_BARRIER || c == SC_AREAD || c == SC_AWRITE ||
		   c == SC_AWAIT) {
		if (is_io_submit(ev->name))
			b->iocbs++;
		if (c == SC_LSEEK)
			rc = seek_fast(b, ev);
		else if (c == SC_AWAIT)
			rc = await_fast(b, ev);
		else if (c == SC_BARRIER)   /* no fd table or handle changes */
			rc = (rc = proc_get(b, ev->pid, &p)) ? rc : do_barrier(b, p, ev);
		else
			rc = async_fast(b, ev);
		if (rc >= 1)
			rc = event_general(b, ev, rc);
	} else {
		return event_slow(b, ev, e);
	}
	return rc ? event_fail(ev, rc, e) : 0;
}

static int info_u64(struct ops_writer *w, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return opsw_info(w, key, buf);
}

void builder_rank_sources(struct builder *b)
{
	b->rank_sources = true;
}

int builder_captures(struct builder *b, char *const *names, size_t n)
{
	char **v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = strdup(names[i]))) {
			while (i--)
				free(v[i]);
			free(v);
			return -ENOMEM;
		}
	for (size_t i = 0; i < b->ncap; i++)
		free(b->capnames[i]);
	free(b->capnames);
	b->capnames = v;
	b->ncap = n;
	return 0;
}

int builder_finish(struct builder *b, struct rerr *e)
{
	struct { const char *k; uint64_t v; } kv[] = {
		{ "events", b->st.events },
		{ "ops", b->st.ops },
		{ "skipped_calls", b->st.skipped_calls },
		{ "unknown_fd_ops", b->st.unknown_fd_ops },
		{ "undecorated_fd_ops", b->st.undecorated_ops },
		{ "stdio_ops", b->st.stdio_ops },
		{ "implicit_opens", b->st.implicit_opens },
		{ "special_file_ops", b->st.special_ops },
		{ "inherited_opens", b->inherited_opens },
		{ "mmaps", b->st.mmaps },
		{ "failed_calls", b->st.failed_calls },
		{ "traced_processes", b->procs_seen },
		{ "unknown_async_waits", b->unknown_async },
		{ "sync_file_range_as_fdatasync", b->sfr_as_fdatasync },
		/* (io_submit_iocbs_as_sync before: they are not made synchronous) */
		{ "io_submit_iocbs", b->iocbs },
		{ "rename_exchanges", b->exchanges },
	};
	int rc = 0;
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && !rc; i++)
		rc = info_u64(b->w, kv[i].k, kv[i].v);
	if (!rc && b->first_implicit[0])
		rc = opsw_info(b->w, "implicit_open_first", b->first_implicit);
	/* several captures given together: no one clock orders them */
	if (!rc && b->ncap > 1)
		rc = info_u64(b->w, "captures", b->ncap);
	if (!rc && b->unnamed_shared)
		rc = info_u64(b->w, "unnamed_shared_opens", b->unnamed_shared);
	if (!rc && b->unnamed_shared)
		rc = opsw_info(b->w, "unnamed_shared_first", b->unnamed_first);
	for (size_t i = 0; i < b->nskips && !rc; i++) {
		char key[300];
		snprintf(key, sizeof(key), "skipped.%s", b->skips[i].name);
		rc = info_u64(b->w, key, b->skips[i].n);
	}
	if (rc)
		return rerr_set(e, rc, "cannot record build counters: %s", strerror(-rc));
	return 0;
}

const struct build_stats *builder_stats(const struct builder *b)
{
	return &b->st;
}

void builder_free(struct builder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->procs.cap; i++) {
		struct proc *p = b->procs.vals ? b->procs.vals[i] : NULL;
		if (!p)
			continue;
		fdtab_unref(p->tab);
		free(p->cwd);
		free(p->prog);
		free(p);
	}
	imap_release(&b->procs);
	for (uint32_t r = 0; r < b->nranks; r++) {
		imap_release(&b->ranks[r].async);
	}
	while (b->aslabs) {
		struct aslab *s = b->aslabs;
		b->aslabs = s->next;
		free(s);
	}
	free(b->ranks);
	free(b->sizes);
	free(b->gone_at);
	for (size_t i = 0; i < b->ncap; i++)
		free(b->capnames[i]);
	free(b->capnames);
	for (size_t i = 0; i < b->naliases; i++) {
		free(b->aliases[i].from);
		free(b->aliases[i].to);
	}
	free(b->aliases);
	free(b->aliasbuf);
	for (uint32_t i = 0; b->rens && i < REN_KEEP; i++) {
		free(b->rens[i].from);
		free(b->rens[i].to);
	}
	free(b->rens);
	for (size_t i = 0; i < b->nskips; i++)
		free(b->skips[i].name);
	free(b->skips);
	free(b->skhash);
	free(b->pathbuf);
	free(b);
}
