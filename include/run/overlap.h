/*
 * overlap.h - which data ops may be in flight together.
 *
 * With an async engine a worker may keep several ops in flight.  Order
 * matters only between ops that touch the same bytes of the same file
 * with at least one of them a write (read-after-write, write-after-read,
 * write-after-write); anything else is independent and may overlap.  The
 * runner tracks its in-flight ops here, by slot (the engine's req->slot),
 * and before issuing a data op reaps until overlap_conflicts() is 0.
 *
 * Under --direct pass the rounded range: a rounded write touches more
 * bytes than traced.
 */
#ifndef REPLAY_OVERLAP_H
#define REPLAY_OVERLAP_H

#include <stdint.h>

struct ovl_slot {
	uint64_t off, end;       /* [off, end)                 */
	uint32_t file;           /* path id (per copy)         */
	uint8_t write;
	uint8_t busy;
};

struct overlap {
	struct ovl_slot *s;
	unsigned nslots;
	unsigned busy;
};

int  overlap_init(struct overlap *o, unsigned nslots);   /* -ENOMEM */
void overlap_release(struct overlap *o);
/* Would an op on `file` [off, off+len) have to wait for an in-flight one?
 * 1 yes (and *slot names one it must wait for, when slot != NULL), 0 no. */
int  overlap_conflicts(const struct overlap *o, uint32_t file, uint64_t off, uint64_t len,
		       int write, unsigned *slot);
void overlap_add(struct overlap *o, unsigned slot, uint32_t file, uint64_t off, uint64_t len,
		 int write);
void overlap_done(struct overlap *o, unsigned slot);

#endif
