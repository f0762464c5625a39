/*
 * fioiolog.h - export an op stream as fio iologs (one per rank), so fio
 * can replay the very same ops (read_iolog, replay_no_stall=1).
 */
#ifndef REPLAY_FIOIOLOG_H
#define REPLAY_FIOIOLOG_H

#include "ops/opstream.h"
#include "util/util.h"

struct fio_export_opts {
	const char *target;     /* directory the iolog file names point into; NULL: traced paths mapped under "." */
	unsigned nranks;        /* 0: all */
};

/* Write DIR/rank-<R>.iolog for each rank.  -errno + e. */
int fio_iolog_export(const struct opstream *s, const char *dir,
		     const struct fio_export_opts *o, struct rerr *e);

#endif
