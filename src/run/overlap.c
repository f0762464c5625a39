/*
 * overlap.c - in-flight conflict tracking (see overlap.h).
 *
 * A file's ops in flight sit in a plain list (O(1) in and out) while no
 * check has to look at them: a read when no write is in flight, and an op
 * outside the span [lo, hi) that its file's ops in flight have covered
 * since the file was last idle ([wlo, whi) of its writes, for a read),
 * need no look, which keeps sequential and strided streams in the list at
 * any depth; a check inside that span scans the list while it has at most
 * OVL_LIST_MAX ops.  Past that, such a check moves the file's ops into
 * two interval trees, its writes and its reads: treaps
 * keyed by (offset, slot), each node holding the largest end offset of
 * its subtree, so "does anything overlap [off, end)?" descends one path.
 * The file goes back to the list when it is idle again.  Nodes are the
 * slots themselves: nothing is allocated after overlap_init().
 */
#include <errno.h>
#include <stdlib.h>

#include "run/overlap.h"

#define NIL OVL_NIL

int overlap_init(struct overlap *o, unsigned nslots, unsigned nfiles)
{
	*o = (struct overlap){ .rng = 0x9e3779b9u };
	o->nslots = nslots ? nslots : 1;
	o->nfiles = nfiles;
	o->s = calloc(o->nslots, sizeof(*o->s));
	o->f = malloc(((size_t)nfiles + 1) * sizeof(*o->f));
	if (!o->s || !o->f) {
		overlap_release(o);
		return -ENOMEM;
	}
	for (size_t i = 0; i <= nfiles; i++)
		o->f[i] = (struct ovl_file){ .writes = NIL, .reads = NIL, .list = NIL,
					     .lo = UINT64_MAX, .wlo = UINT64_MAX };
	return 0;
}

void overlap_release(struct overlap *o)
{
	free(o->s);
	free(o->f);
	o->s = NULL;
	o->f = NULL;
	o->nslots = o->nfiles = o->busy = 0;
}

/* ---- the treap ------------------------------------------------------- */

static int key_less(const struct ovl_slot *s, uint32_t a, uint32_t b)
{
	return s[a].off < s[b].off || (s[a].off == s[b].off && a < b);
}

static void pull(struct ovl_slot *s, uint32_t t)
{
	uint64_t m = s[t].end;

	if (s[t].left != NIL && s[s[t].left].maxend > m)
		m = s[s[t].left].maxend;
	if (s[t].right != NIL && s[s[t].right].maxend > m)
		m = s[s[t].right].maxend;
	s[t].maxend = m;
}

/* Split tree t into the keys below node i's (*l) and above (*r). */
static void split(struct ovl_slot *s, uint32_t t, uint32_t i, uint32_t *l, uint32_t *r)
{
	if (t == NIL) {
		*l = *r = NIL;
	} else if (key_less(s, t, i)) {
		split(s, s[t].right, i, &s[t].right, r);
		*l = t;
		pull(s, t);
	} else {
		split(s, s[t].left, i, l, &s[t].left);
		*r = t;
		pull(s, t);
	}
}

static uint32_t insert(struct ovl_slot *s, uint32_t t, uint32_t i)
{
	if (t == NIL)
		return i;
	if (s[i].prio > s[t].prio) {
		split(s, t, i, &s[i].left, &s[i].right);
		pull(s, i);
		return i;
	}
	if (key_less(s, i, t))
		s[t].left = insert(s, s[t].left, i);
	else
		s[t].right = insert(s, s[t].right, i);
	pull(s, t);
	return t;
}

/* Join trees a and b, every key of a below every key of b. */
static uint32_t merge(struct ovl_slot *s, uint32_t a, uint32_t b)
{
	if (a == NIL)
		return b;
	if (b == NIL)
		return a;
	if (s[a].prio > s[b].prio) {
		s[a].right = merge(s, s[a].right, b);
		pull(s, a);
		return a;
	}
	s[b].left = merge(s, a, s[b].left);
	pull(s, b);
	return b;
}

static uint32_t erase(struct ovl_slot *s, uint32_t t, uint32_t i)
{
	if (t == NIL)
		return NIL;
	if (t == i)
		return merge(s, s[t].left, s[t].right);
	if (key_less(s, i, t))
		s[t].left = erase(s, s[t].left, i);
	else
		s[t].right = erase(s, s[t].right, i);
	pull(s, t);
	return t;
}

/* A node of tree t overlapping [off, end), or NIL.  Going left when the
 * left subtree reaches past off is safe: if nothing there overlaps, the
 * interval reaching past off starts at or after end, and so does all of
 * the right subtree (keys are ordered by start). */
static uint32_t find(const struct ovl_slot *s, uint32_t t, uint64_t off, uint64_t end)
{
	while (t != NIL) {
		if (off < s[t].end && s[t].off < end)
			return t;
		if (s[t].left != NIL && s[s[t].left].maxend > off)
			t = s[t].left;
		else
			t = s[t].right;
	}
	return NIL;
}

/* ---- per file --------------------------------------------------------- */

static void tree_add(struct overlap *o, uint32_t *root, uint32_t i)
{
	struct ovl_slot *n = &o->s[i];

	o->rng ^= o->rng << 13;
	o->rng ^= o->rng >> 17;
	o->rng ^= o->rng << 5;
	n->prio = o->rng;
	n->left = n->right = NIL;
	n->maxend = n->end;
	*root = insert(o->s, *root, i);
}

/* Past the list's limit: the file's listed ops go into the trees, and
 * its later ones too, until it is idle again. */
static void make_indexed(struct overlap *o, struct ovl_file *f)
{
	uint32_t i = f->list;

	while (i != NIL) {
		uint32_t next = o->s[i].right;
		tree_add(o, o->s[i].write ? &f->writes : &f->reads, i);
		i = next;
	}
	f->list = NIL;
	f->indexed = 1;
}

/* A listed op of file f overlapping [off, end), a write unless any
 * (write != 0); NIL if none.  Only while the list is short. */
static uint32_t list_find(const struct ovl_slot *s, const struct ovl_file *f, uint64_t off,
			  uint64_t end, int any)
{
	for (uint32_t i = f->list; i != NIL; i = s[i].right)
		if ((any || s[i].write) && off < s[i].end && s[i].off < end)
			return i;
	return NIL;
}

/* Inside the span of file f's ops in flight: look (the list while short,
 * else the trees). */
int overlap_find(struct overlap *o, struct ovl_file *f, uint64_t off, uint64_t end, int write,
		 unsigned *slot)
{
	uint32_t hit;

	if (!f->indexed && f->inflight > OVL_LIST_MAX)
		make_indexed(o, f);     /* a long list, with a write to check */
	if (!f->indexed) {
		hit = list_find(o->s, f, off, end, write);
	} else {
		hit = find(o->s, f->writes, off, end);
		if (hit == NIL && write)
			hit = find(o->s, f->reads, off, end);
	}
	if (hit == NIL)
		return 0;
	if (slot)
		*slot = hit;
	return 1;
}

void overlap_tree_add(struct overlap *o, struct ovl_file *f, unsigned slot)
{
	tree_add(o, o->s[slot].write ? &f->writes : &f->reads, slot);
}

void overlap_tree_done(struct overlap *o, struct ovl_file *f, unsigned slot)
{
	if (o->s[slot].write)
		f->writes = erase(o->s, f->writes, slot);
	else
		f->reads = erase(o->s, f->reads, slot);
}
