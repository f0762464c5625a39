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
#include "util/util.h"

struct fio_export_opts {
	const char *target;     /* directory the iolog file names point into; NULL: traced paths mapped under "." */
	unsigned nranks;        /* 0: all */
	unsigned version;       /* iolog version: 2 (0 means 2) or 3 */
};

/* Write DIR/rank-<R>.iolog for each rank.  -errno + e. */
int fio_iolog_export(const struct opstream *s, const char *dir,
		     const struct fio_export_opts *o, struct rerr *e);

#endif
