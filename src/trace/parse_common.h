/*
 * parse_common.h - small helpers the LANL and Sandia parsers share.
 * Header-only (static inline): included by src/trace/lanl.c and
 * src/trace/sandia.c, no module of its own.
 */
#ifndef REPLAY_TRACE_PARSE_COMMON_H
#define REPLAY_TRACE_PARSE_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "trace/trace.h"

/* Room for `need` elements of `sz` bytes in *p, whose capacity *cap
 * starts at `first` and doubles.  0, or -ENOMEM with *p unchanged. */
static inline int trace_grow(void **p, size_t *cap, size_t need, size_t sz, size_t first)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : first;
	while (nc < need)
		nc *= 2;
	void *q = realloc(*p, nc * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}

/* A malformed line, counted in in->bad_lines.  Without --skip-bad:
 * -EINVAL with e "src:line: what"; with it: 0, and the first such line
 * kept in in->first_bad. */
static inline int trace_bad_line(struct trace_input *in, struct rerr *e, const char *src,
				 unsigned long line, const char *what)
{
	in->bad_lines++;
	if (!in->skip_bad)
		return rerr_at(e, -EINVAL, src, line, "%s", what);
	if (!in->first_bad[0])
		snprintf(in->first_bad, sizeof(in->first_bad), "%s:%lu: %s", src, line, what);
	return 0;
}

#endif
