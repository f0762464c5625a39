/*
 * fioiolog.h - fio iologs, both ways.
 *
 * Export: an op stream as fio iologs (one per rank), so fio can replay the
 * very same ops (read_iolog, replay_no_stall=1).  Version 2 (default: every
 * fio reads it) or version 3 (fio >= 3.31: each line starts with its time
 * in microseconds since the rank's first op, as fio's write_iolog does).
 *
 * Import: the trace format "fio-iolog" (trace_fioiolog, in trace.h) reads
 * version 2 and 3 iologs, one rank per file, detected by the first line.
 * Reading back an exported log gives the exported ops again: see
 * replay(1), "fio iologs".
 */
#ifndef REPLAY_FIOIOLOG_H
#define REPLAY_FIOIOLOG_H

#include "ops/opstream.h"
#include "plan/filter.h"
#include "util/util.h"

struct fio_export_opts {
	const char *target;     /* directory the iolog file names point into; NULL: traced paths mapped under "." */
	unsigned nranks;        /* 0: all (of the ranks exported) */
	unsigned version;       /* iolog version: 2 (0 means 2) or 3 */
	/* what `replay run` would replay (filter.h, built on the same stream):
	 * its kept ranks only, and only the ops filter_op_kept keeps.  NULL:
	 * every rank, every op. */
	const struct filter *filter;
};

/* What an export wrote and left out. */
struct fio_export_stats {
	uint32_t ranks;         /* iologs written                          */
	uint32_t ranks_no_io;   /* ranks without a read or write left: no
	                         * iolog (fio refuses one)                 */
	uint64_t lines;         /* action lines (add, open, read, ...)     */
	/* ops fio cannot replay: opens of directories (O_DIRECTORY, the
	 * target's root itself) and O_PATH opens, and the calls on the
	 * descriptors they return (reads, syncs, closes, ...) */
	uint64_t unfit_ops;
	/* fallocate calls of the exported files, left out: fio's iolog has
	 * no such action (the holes, preallocations and size changes they
	 * made are not in the logs) */
	uint64_t fallocate_ops;
	/* rank-<N>.iolog files of an earlier export in DIR that this one
	 * did not write: removed */
	uint32_t stale_removed;
};

/*
 * Write DIR/rank-<R>.iolog for each exported rank (R as the trace numbers
 * it) that has a read or write left.  DIR is created when missing.  Every log is written to a temporary
 * file in DIR first and the logs are renamed into place only once all of
 * them are complete; on failure the temporaries are removed, and DIR too
 * when this call created it, so DIR is left as it was.  On success the
 * rank-<N>.iolog files it did not write (an earlier export's) are removed.  st (may be NULL):
 * the counts.  -errno + e.
 */
int fio_iolog_export(const struct opstream *s, const char *dir,
		     const struct fio_export_opts *o, struct fio_export_stats *st,
		     struct rerr *e);

#endif
