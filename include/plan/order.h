/*
 * order.h - the whole trace in its traced order: what each file was when
 * tracing began, and which ops of one rank must wait for another's.
 *
 * One pass over the kept ops of the replayed ranks in global trace order
 * (one trace file: its line order, the real order strace wrote; several
 * files: the ranks' absolute times, ties by rank then op) follows each
 * path's existence and size:
 *
 *  - initial state: a path existed before tracing when the first op that
 *    tells anything says so (an open without O_CREAT, a read, a stat, an
 *    unlink or rename of it, an rmdir); it did not when that op creates it
 *    (open O_CREAT|O_EXCL, mkdir, rename to it).  An open with O_CREAT
 *    alone says nothing until a later op does; with nothing else the file
 *    is taken as created.  Its initial size is the largest offset + bytes
 *    a read returned of data nobody had written yet (a short read of it
 *    pins the size), and at least a size the trace shows before any write
 *    (a stat's st_size, an lseek SEEK_END's result minus its offset, the
 *    end of a short read: ops flagged OPF_STAT_SIZE, and short reads).
 *    Such a size of data nobody wrote also says an O_CREAT file was there.
 *    A read of 0 bytes says only that the file ends at or before its
 *    offset: no data, no size.  Appends land at the end of the file as it
 *    really was (initial size + what was written since), which is what the
 *    kernel does on replay too; appends made before anything showed the
 *    size have their base worked out from a size shown after them (the
 *    size then less what they appended: `echo x >> log; cat log`), or
 *    bounded by the data read after them; with nothing after them either,
 *    the file counts as created and the replay leaves it shorter.
 *    Several ranks appending at once show sizes that lag or lead each
 *    other's appends (a line is its call's start: a size shown can miss a
 *    write in flight, or include one whose line comes later): a size shown
 *    below what only other ranks wrote beyond it leaves the size as it is;
 *    and when the pass orders every rank by the trace's lines (by_line), a
 *    written file's initial size is at most the smallest size shown before
 *    its first write (at least the data read before it).  A pass over some
 *    ranks only (sequential mode's each-rank-alone) counts a file the pass
 *    only appended to as its initial size + its own appends: a size shown
 *    beyond them is the others' appends, data before its own.
 *
 *  - dependencies (parallel mode): rank B's op j waits until rank A has
 *    completed its first `need` ops, when the trace shows j after A's op
 *    need-1 and correctness needs that order: a read of bytes A wrote
 *    (RAW), any op on a path after A created, removed or renamed it, a
 *    create beneath a directory A made, and an unlink, rename, truncate,
 *    O_TRUNC open or rmdir after A's earlier ops on that path (or, for a
 *    directory, beneath it).  Per (B, A) only the strongest edge is kept;
 *    every edge points back in the traced order, so there is no cycle.
 *
 * Ranks are given as the stream's rank ids of the replayed ranks (filter
 * and -n applied); results are indexed by position in that list.
 */
#ifndef REPLAY_PLAN_ORDER_H
#define REPLAY_PLAN_ORDER_H

#include <stdbool.h>
#include <stdint.h>
#include "ops/opstream.h"
#include "plan/filter.h"
#include "util/util.h"

/* Per path: what the replay must find when it starts. */
#define PS_USED    0x01u   /* some kept op names it                      */
#define PS_EXISTED 0x02u   /* there before the trace: prepare it          */
#define PS_DIR     0x04u   /* a directory (mkdir/rmdir/O_DIRECTORY)       */
#define PS_CREATED 0x08u   /* the trace creates it (first existence op)   */
#define PS_WRITTEN 0x10u   /* the trace writes or truncates it            */
#define PS_SIZED   0x20u   /* size0 pinned by a short read of data        */

struct pstate {
	uint8_t bits;
	uint32_t first_rank;       /* position of the first rank using it  */
	uint32_t nranks;           /* ranks using it (2 is "several")      */
	uint64_t size0;            /* initial size when PS_EXISTED         */
	char *start;               /* NULL, or when PS_EXISTED and first named
	                            * beneath a directory the trace renamed
	                            * before: its name when the trace began
	                            * (mapped back through those renames)   */
};

/* Rank B's op `op` waits until rank `rank` (a position) has completed
 * `need` ops. */
struct dep {
	uint64_t op;
	uint32_t rank;
	uint64_t need;
};

struct order {
	uint32_t npaths, nranks;
	struct pstate *paths;      /* npaths: over the ranks together      */
	struct dep **deps;         /* per rank position, sorted by op      */
	uint64_t *ndeps;
	uint64_t total_deps;
	uint64_t **true_off;       /* per rank position: NULL, or per op the
	                            * real offset of an append (UINT64_MAX not one);
	                            * for an append before anything showed the
	                            * file's size, where the pass placed it then
	                            * (a lower bound: the base is learnt later);
	                            * for dump-like checks (test_order): the
	                            * replayed append lands where the kernel
	                            * puts it */
	/* sequential mode: what each rank alone needs, per rank position */
	struct rank_prep {
		uint32_t *path;        /* path ids to prepare              */
		uint64_t *size;        /* their sizes                      */
		uint8_t *dir;          /* 1: a directory                   */
		uint8_t *moved;        /* 1: the rank alone met it first beneath
		                        * a directory it renamed (pstate.start) */
		uint32_t n;
	} *alone;
	bool by_line;              /* order taken from the trace's lines   */
	bool one_order;            /* by_line, or the times of one strace
	                            * capture's -ff files on their common
	                            * clock: every rank's ops in the order
	                            * one tracer saw them start            */
	bool laid_out;             /* the reader says every file was there,
	                            * at least as long as any op on it
	                            * reaches (info files_laid_out: fio
	                            * iologs): writes say so too          */
};

struct order_opts {
	const uint32_t *ranks;     /* stream rank ids, in process order    */
	uint32_t nranks;
	const struct filter *filter;
	bool deps;                 /* compute dependencies                 */
	bool alone;                /* compute each rank's own needs        */
};

int  order_build(struct order *o, const struct opstream *s, const struct order_opts *oo,
		 struct rerr *e);
void order_release(struct order *o);

/* Is the op's traced result a success (or unknown)? */
static inline bool order_ok(int64_t r)
{
	return r >= 0 || r == INT64_MIN;
}

#endif
