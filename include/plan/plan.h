/*
 * plan.h - the replay plan: traced paths mapped beneath TARGET, the file
 * set to prepare, and ranks -> processes.
 *
 * Safety contract: nothing outside TARGET is ever created, written or
 * removed.  Every file is opened with plan_openat() (openat2 with
 * RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS, relative to the target fd), so
 * `..`, absolute symlinks and symlinks planted in the target cannot
 * escape.  Traced paths are mapped: "/a/b/c" -> "a/b/c", a relative "x/y"
 * -> "x/y", ".." components that would climb above the root are refused
 * (plan_build fails, naming the path); "/.." is "/" as in the kernel.
 * Copy 0 lives at TARGET/<path>, copy k > 0 at TARGET/.replay-copy-<k>/<path>;
 * traced paths starting with ".replay-" are refused.  REPLAY_RESOLVE=walk in
 * the environment forces the O_NOFOLLOW walk used when openat2 is missing.
 */
#ifndef REPLAY_PLAN_H
#define REPLAY_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "ops/opstream.h"
#include "plan/filter.h"
#include "plan/order.h"
#include "util/util.h"

struct plan_file {
	uint32_t path_id;        /* id in the opstream path table          */
	char *rel;               /* mapped path relative to the copy root  */
	char *prep_rel;          /* NULL, or where it is prepared: its name
	                          * when the run starts, first named beneath
	                          * a directory the trace renamed before   */
	uint64_t prep_size;      /* bytes of real data to write first      */
	bool prepare;            /* read before written: must pre-exist    */
	bool shared;             /* used by several ranks                  */
	bool is_dir;             /* only mkdir/rmdir'd                     */
	bool written;            /* some rank writes it                    */
};

struct plan_proc {
	uint32_t rank;           /* traced rank (stream id) replayed       */
	uint32_t pos;            /* its position among the replayed ranks  */
	uint32_t copy;           /* 0 = first use; k>0 = k-th reuse        */
};

struct plan_opts {
	unsigned nprocs;         /* 0: all ranks                           */
	bool force;              /* allow overwriting existing files       */
	bool keep;               /* keep files after the run               */
	const struct filter *filter; /* NULL: every op of every rank       */
	bool sequential;         /* each rank alone: its own prepared files */
	bool no_order;           /* --order none: no cross-rank waits       */
	bool no_barriers;        /* traced barriers not honoured            */
	bool dry;                /* --dry-run: a lack of space is told in the
				    plan (plan_print), not an error         */
};

struct plan {
	char *target;            /* as given                               */
	int target_fd;           /* O_DIRECTORY|O_PATH fd of TARGET        */
	struct plan_file *files; /* indexed by nothing: search by path_id via file_of */
	size_t nfiles;
	uint32_t *file_of;       /* path_id -> index in files, UINT32_MAX none */
	uint32_t npaths;
	struct plan_proc *procs;
	size_t nprocs;
	uint32_t ncopies;        /* copies of the file set (>= 1)          */
	uint32_t nranks_used;    /* distinct ranks replayed                */
	uint32_t *ranks;         /* their stream ids, by position          */
	const struct filter *filter; /* ops it leaves out are not replayed */
	struct order ord;        /* initial states, dependencies           */
	bool ordered;            /* ord holds cross-rank dependencies      */
	bool sequential;
	bool alone;              /* some ranks' ops are absent while a rank
	                          * runs: sequential, or ranks left out     */
	struct plan_writes {     /* alone only (else NULL), per path id: the */
		uint32_t r1, r2; /* last write of an absent rank (sequential:
				  * any rank), its rank + 1 and the end of it
				  * in absolute trace time; the last of a rank
				  * other than r1's; 0: none                */
		uint64_t t1, t2;
	} *writes;
	uint32_t *bar_parts;     /* per traced barrier k: ranks taking part */
	uint32_t *bar_parts_last; /* the same in a partial last copy (parallel,
	                          * -n not a multiple of the ranks: only its
	                          * first ranks run), else NULL             */
	uint32_t nbars;          /* 0: barriers not honoured               */
	bool reused;             /* more processes than ranks              */
	struct plan_priv *priv;  /* plan.c's bookkeeping (created/existing)  */
};

/* The replayed ranks that meet at traced barrier k in copy `copy`. */
static inline uint32_t plan_bar_parts(const struct plan *p, uint32_t copy, uint64_t k)
{
	return p->bar_parts_last && copy + 1 == p->ncopies ? p->bar_parts_last[k] : p->bar_parts[k];
}

/* Map paths, compute sizes to prepare, check the target (exists, is a
 * directory, no file to be overwritten unless o->force).  -errno + e. */
/* The end (absolute trace time) of the last write to path_id by a rank
 * other than `rank` that is absent while it runs (plan.alone), 0 none. */
static inline uint64_t plan_absent_write(const struct plan *p, uint32_t path_id, uint32_t rank)
{
	if (!p->writes || path_id >= p->npaths)
		return 0;
	const struct plan_writes *w = &p->writes[path_id];
	return w->r1 && w->r1 != rank + 1 ? w->t1 : w->r2 ? w->t2 : 0;
}

/* A path the trace writes as a file and uses as the directory of others,
 * with nothing between that makes one the other: said in buf, else NULL. */
const char *plan_file_dir_conflict(const struct plan *p, char *buf, size_t n);
/* Why a trace holds no ranks, as " (...)" to append to a message, or "". */
const char *plan_no_ranks_why(const struct opstream *s, char *buf, size_t n);
int  plan_build(struct plan *p, const struct opstream *s, const char *target,
		const struct plan_opts *o, struct rerr *e);
/* Create directories and prepared files (real data, fsynced) for every copy. */
int  plan_prepare(struct plan *p, struct rerr *e);
/* Sequential mode: what process `proc` alone must find (its own files). */
int  plan_prepare_proc(struct plan *p, size_t proc, struct rerr *e);
/* Open a traced path of copy `copy` beneath the target. -errno. */
int  plan_openat(const struct plan *p, uint32_t copy, uint32_t path_id, int flags, mode_t mode);
/* A worker's open of a traced file: plan_openat, and what something else
 * put in the target during the run refused (a FIFO, socket or device
 * node: -EPERM; a file with other hard links opened to be written when
 * the trace makes none: -EMLINK; a symbolic link where the trace makes
 * none: -ELOOP), with *why saying so; O_TRUNC done on the file checked.
 * there: the caller opened the name before (the file is likely there). */
int  plan_open_run(const struct plan *p, uint32_t copy, uint32_t path_id, int flags, mode_t mode,
		   bool there, const char **why);
/* O_TMPFILE (plan_openat with it comes here): path_id is the unnamed
 * file's traced name (strace -y's "DIR/#INODE"); the open makes a new one
 * in the directory above it.  Where the file system refuses O_TMPFILE
 * (EOPNOTSUPP), plan_open_unnamed's file instead, and *named (may be NULL)
 * says so.  The fd, or -errno. */
int  plan_open_tmpfile(const struct plan *p, uint32_t copy, uint32_t path_id, int flags,
		       mode_t mode, bool *named);
/* The equivalent without O_TMPFILE: a file of a reserved name
 * (".replay-tmpfile-PID-N") created O_EXCL in that directory and unlinked
 * at once, signals held in between.  The fd, or -errno. */
int  plan_open_unnamed(const struct plan *p, uint32_t copy, uint32_t path_id, int flags,
		       mode_t mode);
/* Path-based metadata ops beneath the target (unlink, rename, link, mkdir,
 * rmdir, stat: an lstat, never following a last symbolic link). */
int  plan_unlink(const struct plan *p, uint32_t copy, uint32_t path_id);
int  plan_rename(const struct plan *p, uint32_t copy, uint32_t from_id, uint32_t to_id);
int  plan_link(const struct plan *p, uint32_t copy, uint32_t from_id, uint32_t to_id);
int  plan_mkdir(const struct plan *p, uint32_t copy, uint32_t path_id, mode_t mode);
int  plan_rmdir(const struct plan *p, uint32_t copy, uint32_t path_id);
int  plan_stat(const struct plan *p, uint32_t copy, uint32_t path_id);
/* symlink(2): make path_id a symbolic link, with symlinkat() in its parent
 * opened beneath the target, holding plan_symlink_content() of the traced
 * content.  0 or -errno. */
int  plan_symlink(const struct plan *p, uint32_t copy, uint32_t path_id, const char *content);
/* The content a symbolic link at copy-relative link_rel gets for the traced
 * content: a relative one as it is, unless its ".." climb above the traced
 * root; an absolute one (and such a relative one) made relative, the way
 * from the link's directory to where it pointed (lexically, "/.." being
 * "/"), so that it points at that path in the link's own copy, never out
 * of it.  0, -ENOENT (empty content), -ENAMETOOLONG. */
int  plan_symlink_content(const char *link_rel, const char *content, char *out, size_t len);
/* truncate(2) of a path beneath the target (opened for writing, then
 * ftruncate): 0 or -errno. */
int  plan_truncate(const struct plan *p, uint32_t copy, uint32_t path_id, uint64_t len,
		   const char **why);
/* Remove what the plan created (files, then directories), never anything else
 * (a directory the run made and left non-empty is emptied, without force).
 * Callable again after a new plan_prepare (between repeats); the caller
 * skips it for --keep. */
int  plan_cleanup(struct plan *p, struct rerr *e);
/* plan_cleanup in a thread of its own (signals blocked in it), while the
 * caller writes the results; plan_cleanup_wait joins it and returns what
 * plan_cleanup returned (it runs it there if no thread could start).
 * Meanwhile nothing may prepare, run or clean the plan. */
void plan_cleanup_start(struct plan *p);
int  plan_cleanup_wait(struct plan *p, struct rerr *e);
/* --dry-run: files, sizes to prepare, ranks -> processes. */
void plan_print(const struct plan *p, const struct opstream *s, FILE *f);
void plan_release(struct plan *p);

/* Target description for reports. */
struct target_info {
	char fstype[32];
	char device[128];        /* "/dev/vda" or "tmpfs"                  */
	char disk[64];           /* the whole disk in /sys/block ("vda"), "" none */
	int rotational;          /* 1, 0, -1 unknown                       */
	char scheduler[32];      /* "mq-deadline", "none", "" unknown      */
	uint32_t logical_block;  /* logical block size for O_DIRECT, 512 if unknown */
	int hw_queues;           /* blk-mq hardware queues (/sys/block/D/mq), -1 unknown */
	char resolve[16];        /* "openat2" (RESOLVE_BENEATH) or "walk" (O_NOFOLLOW walk) */
};
int target_info_get(const char *dir, struct target_info *ti);
/* A file system by its statfs f_type: 1 when it is shared (Lustre, GPFS,
 * NFS, CephFS, BeeGFS, CIFS/SMB2, OrangeFS, AFS, PanFS, GFS2), else 0;
 * *name its name, NULL when unknown (name may be NULL). */
int fs_magic_shared(unsigned long magic, const char **name);

#endif
