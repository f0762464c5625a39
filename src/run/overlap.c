/*
 * overlap.c - in-flight conflict tracking (see overlap.h).  A linear scan:
 * depth is small (tens), and the scan runs once per issued op.
 */
#include <errno.h>
#include <stdlib.h>

#include "run/overlap.h"

int overlap_init(struct overlap *o, unsigned nslots)
{
	o->busy = 0;
	o->nslots = nslots ? nslots : 1;
	o->s = calloc(o->nslots, sizeof(*o->s));
	return o->s ? 0 : -ENOMEM;
}

void overlap_release(struct overlap *o)
{
	free(o->s);
	o->s = NULL;
	o->nslots = o->busy = 0;
}

int overlap_conflicts(const struct overlap *o, uint32_t file, uint64_t off, uint64_t len,
		      int write, unsigned *slot)
{
	uint64_t end = off + len;

	if (!len || !o->busy)
		return 0;
	for (unsigned i = 0; i < o->nslots; i++) {
		const struct ovl_slot *s = &o->s[i];

		if (!s->busy || s->file != file || !(write || s->write))
			continue;
		if (off < s->end && s->off < end) {
			if (slot)
				*slot = i;
			return 1;
		}
	}
	return 0;
}

void overlap_add(struct overlap *o, unsigned slot, uint32_t file, uint64_t off, uint64_t len,
		 int write)
{
	struct ovl_slot *s;

	if (slot >= o->nslots)
		return;
	s = &o->s[slot];
	if (!s->busy)
		o->busy++;
	*s = (struct ovl_slot){ .off = off, .end = off + len, .file = file,
				.write = (uint8_t)!!write, .busy = 1 };
}

void overlap_done(struct overlap *o, unsigned slot)
{
	if (slot < o->nslots && o->s[slot].busy) {
		o->s[slot].busy = 0;
		o->busy--;
	}
}
