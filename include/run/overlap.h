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

#define OVL_NIL UINT32_MAX

/* nslots slots, files 0 .. nfiles-1 (a larger id shares one extra entry:
 * conflicts among such files are then over-reported, never missed).
 * 0 or -ENOMEM. */
int  overlap_init(struct overlap *o, unsigned nslots, unsigned nfiles);
void overlap_release(struct overlap *o);

/* The out-of-line parts of the calls below (overlap.c): a look inside
 * the span, a file in the trees. */
int  overlap_find(struct overlap *o, struct ovl_file *f, uint64_t off, uint64_t end, int write,
		  unsigned *slot);
void overlap_tree_add(struct overlap *o, struct ovl_file *f, unsigned slot);
void overlap_tree_done(struct overlap *o, struct ovl_file *f, unsigned slot);

static inline struct ovl_file *overlap_file(struct overlap *o, uint32_t file)
{
	return &o->f[file < o->nfiles ? file : o->nfiles];
}

/* Would an op on `file` [off, off+len) have to wait for an in-flight one?
 * 1 yes (and *slot names one it must wait for, when slot != NULL), 0 no.
 * Inline: the answers that need no look (nothing in flight on the file,
 * a read with no write in flight, an op outside the span). */
static inline int overlap_conflicts(struct overlap *o, uint32_t file, uint64_t off,
				    uint64_t len, int write, unsigned *slot)
{
	struct ovl_file *f;
	uint64_t end = off + len;

	if (!len || !o->busy)
		return 0;
	f = overlap_file(o, file);
	if (!f->inflight || (!write && !f->nwrites))
		return 0;
	if (write ? end <= f->lo || off >= f->hi : end <= f->wlo || off >= f->whi)
		return 0;               /* outside all that was in flight */
	return overlap_find(o, f, off, end, write, slot);
}

/* Slot's op is done (no-op when the slot holds none). */
static inline void overlap_done(struct overlap *o, unsigned slot)
{
	struct ovl_slot *n;
	struct ovl_file *f;

	if (slot >= o->nslots || !o->s[slot].busy)
		return;
	n = &o->s[slot];
	f = &o->f[n->file];
	if (f->indexed) {
		overlap_tree_done(o, f, slot);
	} else {
		if (n->left != OVL_NIL)
			o->s[n->left].right = n->right;
		else
			f->list = n->right;
		if (n->right != OVL_NIL)
			o->s[n->right].left = n->left;
	}
	n->busy = 0;
	o->busy--;
	f->nwrites -= n->write;
	if (!f->nwrites) {
		f->wlo = UINT64_MAX;
		f->whi = 0;
	}
	if (--f->inflight == 0) {
		f->indexed = 0;
		f->lo = UINT64_MAX;
		f->hi = 0;
	}
}

/* An op in flight in slot: file [off, off+len), a write or not (a busy
 * slot reused is replaced). */
static inline void overlap_add(struct overlap *o, unsigned slot, uint32_t file, uint64_t off,
			       uint64_t len, int write)
{
	struct ovl_file *f;
	struct ovl_slot *n;

	if (slot >= o->nslots)
		return;
	if (o->s[slot].busy)
		overlap_done(o, slot);
	f = overlap_file(o, file);
	n = &o->s[slot];
	n->off = off;
	n->end = off + len;
	n->write = (uint8_t)!!write;
	n->busy = 1;
	n->file = (uint32_t)(f - o->f);
	f->inflight++;
	f->nwrites += n->write;
	o->busy++;
	if (off < f->lo)
		f->lo = off;
	if (n->end > f->hi)
		f->hi = n->end;
	if (write && off < f->wlo)
		f->wlo = off;
	if (write && n->end > f->whi)
		f->whi = n->end;
	/* listed until a check has to look inside [lo, hi) with the list long */
	if (f->indexed) {
		overlap_tree_add(o, f, slot);
	} else {
		n->left = OVL_NIL;
		n->right = f->list;
		if (f->list != OVL_NIL)
			o->s[f->list].left = slot;
		f->list = slot;
	}
}

#endif
