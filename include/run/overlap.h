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
 * Cost, at any depth: O(1) to check, add and remove for a read on a file
 * with no write in flight, and for an op outside the span its file's ops
 * in flight (writes in flight, for a read) have covered since the file was
 * last idle: sequential and strided streams; otherwise a scan of at most
 * OVL_LIST_MAX ops (a file with that few in flight), or O(log n) expected
 * in the ops in flight on that file (per file interval trees); never a
 * scan of every op in flight.
 *
 * Under --direct pass the rounded range: a rounded write touches more
 * bytes than traced.
 */
#ifndef REPLAY_OVERLAP_H
#define REPLAY_OVERLAP_H

#include <stdint.h>

struct ovl_slot {
	uint64_t off, end;       /* [off, end)                              */
	uint64_t maxend;         /* largest end in its subtree              */
	uint32_t file;           /* index into files                        */
	uint32_t prio;           /* treap priority                          */
	uint32_t left, right;    /* children; prev/next in a file's list */
	uint8_t write;
	uint8_t busy;
};

/* A file's ops in flight are listed (scanned) while at most this many, or
 * while no check has had to look at them; past that, in trees until it
 * is idle. */
#define OVL_LIST_MAX 16

struct ovl_file {
	uint64_t lo, hi;         /* [lo, hi) holds every op in flight ...   */
	uint64_t wlo, whi;       /* ... and every write, since the file (its
	                          * writes) last had none: lo > hi when none */
	uint32_t writes;         /* interval tree of the writes in flight (indexed) */
	uint32_t reads;          /* interval tree of the reads in flight (indexed)  */
	uint32_t list;           /* ops in flight while not indexed         */
	uint32_t inflight;
	uint32_t nwrites;        /* of them writes                          */
	uint8_t indexed;         /* in the trees until the file is idle     */
};

struct overlap {
	struct ovl_slot *s;
	struct ovl_file *f;      /* nfiles + 1: the last for out-of-range ids */
	unsigned nslots, nfiles;
	unsigned busy;
	uint32_t rng;
};

/* nslots slots, files 0 .. nfiles-1 (a larger id shares one extra entry:
 * conflicts among such files are then over-reported, never missed).
 * 0 or -ENOMEM. */
int  overlap_init(struct overlap *o, unsigned nslots, unsigned nfiles);
void overlap_release(struct overlap *o);
/* Would an op on `file` [off, off+len) have to wait for an in-flight one?
 * 1 yes (and *slot names one it must wait for, when slot != NULL), 0 no. */
int  overlap_conflicts(struct overlap *o, uint32_t file, uint64_t off, uint64_t len,
		       int write, unsigned *slot);
void overlap_add(struct overlap *o, unsigned slot, uint32_t file, uint64_t off, uint64_t len,
		 int write);
void overlap_done(struct overlap *o, unsigned slot);

#endif
