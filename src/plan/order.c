/*
 * order.c - one pass over the trace in its traced order (order.h).
 *
 * Memory is bounded by the trace: per path a small state, the byte ranges
 * last written by each rank (adjacent ranges of one rank merged: a reader
 * then waits for that rank's latest write of the range before the read,
 * which the trace also shows before it), and per (path, rank) the last op;
 * per rank its edges.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plan/order.h"
#include "util/imap.h"

struct seg {
	uint64_t start, end;
	uint32_t rank;
	uint64_t need;            /* the writer's op index + 1 */
};

/* What the pass knows of one path. */
struct pst {
	uint8_t known;            /* initial existence decided              */
	uint8_t maybe;            /* opened O_CREAT before anything said    */
	uint8_t exists;           /* now (as far as the trace shows)         */
	uint8_t truncated;        /* truncated or O_TRUNC since the start    */
	uint8_t written;          /* written since the start                 */
	uint8_t exact;            /* size is the size now, not a lower bound */
	uint8_t placed;           /* written other than by appends of unknown
	                             base (see app)                          */
	uint64_t app;             /* appended while the size was not known:
	                             bytes, placed from app_base on (a lower
	                             bound of the initial size)             */
	uint64_t app_base;
	uint32_t chg_rank;        /* last change of existence or size (a
	                           * truncate): rank, op + 1                 */
	uint64_t chg_need;
	uint32_t ext_rank;        /* the last write placed at an offset that
	                           * grew the file: rank, op + 1 (appends
	                           * land after it)                          */
	uint64_t ext_need;
	uint64_t size;            /* size now (lower bound)                  */
	uint8_t has_shown0;       /* a size was shown before any write:     */
	uint64_t shown0;          /* the smallest such                      */
	uint64_t read0;           /* end of the data read before any write  */
	struct seg *segs;
	size_t nsegs, csegs;
	uint32_t *touch;          /* ranks that used it (or something below) */
	size_t ntouch, ctouch;
	uint32_t from1;           /* renamed here from path from1 - 1 with the
	                             data it had when the trace began (0: no):
	                             data found here that nobody wrote was
	                             that path's (data_before)               */
	size_t nren0;             /* renames logged before its first op      */
	struct app_at {           /* each rank's last append since the last  */
		uint32_t rank;    /* write placed at an offset that grew the */
		uint64_t need;    /* file: op + 1                            */
	} *apps;
	uint32_t napps, capps;
};

struct ren {
	uint32_t from, to;        /* a rename of path from to path to         */
};

struct pass {
	const struct opstream *s;
	const struct order_opts *oo;
	const uint32_t *ranks;
	uint32_t nranks;
	struct order *out;
	struct pstate *ps;        /* out: per path                           */
	struct pst *st;
	uint32_t *parent;         /* per path: nearest ancestor path id      */
	uint32_t *byname;         /* path ids sorted by name                 */
	struct imap last;         /* (path << 32 | rank) -> last op + 1      */
	struct imap have;         /* (rank << 32 | rank) -> strongest need   */
	bool deps;
	bool complete;            /* every rank with a kept op is in the pass */
	size_t *cdeps;
	struct ren *ren;          /* the pass's renames, in the order it met them */
	size_t nren, cren;
	int err;
};

/* ---- ancestors --------------------------------------------------------- */

static const struct opstream *sort_s;
static int cmp_path(const void *a, const void *b)
{
	return strcmp(opstream_path(sort_s, *(const uint32_t *)a),
		      opstream_path(sort_s, *(const uint32_t *)b));
}

/* parent[p]: the nearest proper ancestor of p that is itself a path of
 * the table, UINT32_MAX when none. */
static int find_parents(struct pass *P)
{
	const struct opstream *s = P->s;
	uint32_t n = s->npaths, *byname = malloc((n ? n : 1) * sizeof(*byname));
	P->parent = malloc((n ? n : 1) * sizeof(*P->parent));
	if (!byname || !P->parent) {
		free(byname);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		byname[i] = i;
	sort_s = s;
	qsort(byname, n, sizeof(*byname), cmp_path);
	for (uint32_t p = 0; p < n; p++) {
		char buf[4096];
		const char *name = opstream_path(s, p);
		size_t len = strlen(name);
		P->parent[p] = UINT32_MAX;
		if (len >= sizeof(buf))
			continue;
		memcpy(buf, name, len + 1);
		while (len > 1) {
			char *sl = memrchr(buf, '/', len);
			if (!sl)
				break;
			len = sl == buf ? 1 : (size_t)(sl - buf);
			buf[len] = 0;
			size_t lo = 0, hi = n;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				int c = strcmp(opstream_path(s, byname[mid]), buf);
				if (!c) {
					lo = mid;
					break;
				}
				if (c < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < n && !strcmp(opstream_path(s, byname[lo]), buf)) {
				P->parent[p] = byname[lo];
				break;
			}
		}
	}
	P->byname = byname;
	return 0;
}

/* The first index of byname whose name is >= want (exact: its index only
 * when equal, else n). */
static uint32_t byname_find(const struct pass *P, const char *want, bool exact)
{
	uint32_t lo = 0, hi = P->s->npaths;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (strcmp(opstream_path(P->s, P->byname[mid]), want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (exact && (lo == P->s->npaths || strcmp(opstream_path(P->s, P->byname[lo]), want)))
		return P->s->npaths;
	return lo;
}

/* ---- edges and touches -------------------------------------------------- */

/* b's op waits for rank a's first `need` ops. */
static void edge(struct pass *P, uint32_t b, uint64_t op, uint32_t a, uint64_t need)
{
	if (!P->deps || a == b || !need || P->err)
		return;
	int64_t key = (int64_t)((uint64_t)b << 32 | a);
	uintptr_t had = (uintptr_t)imap_get(&P->have, key);
	if (had >= need)
		return;
	struct order *o = P->out;
	if (o->ndeps[b] == P->cdeps[b]) {
		size_t nc = P->cdeps[b] ? P->cdeps[b] * 2 : 16;
		struct dep *nd = realloc(o->deps[b], nc * sizeof(*nd));
		if (!nd) {
			P->err = -ENOMEM;
			return;
		}
		o->deps[b] = nd;
		P->cdeps[b] = nc;
	}
	struct dep *last = o->ndeps[b] ? &o->deps[b][o->ndeps[b] - 1] : NULL;
	if (last && last->op == op && last->rank == a)
		last->need = need;           /* the same wait, stronger */
	else
		o->deps[b][o->ndeps[b]++] = (struct dep){ op, a, need };
	if (imap_put(&P->have, key, (void *)(uintptr_t)need))
		P->err = -ENOMEM;
}

/* Rank b used path p (and what is above it) at op i. */
static void touch(struct pass *P, uint32_t p, uint32_t b, uint64_t i)
{
	for (int depth = 0; p != UINT32_MAX && depth < 256; p = P->parent[p], depth++) {
		int64_t key = (int64_t)((uint64_t)p << 32 | b);
		if (!imap_get(&P->last, key)) {
			struct pst *st = &P->st[p];
			if (st->ntouch == st->ctouch) {
				size_t nc = st->ctouch ? st->ctouch * 2 : 4;
				uint32_t *nt = realloc(st->touch, nc * sizeof(*nt));
				if (!nt) {
					P->err = -ENOMEM;
					return;
				}
				st->touch = nt;
				st->ctouch = nc;
			}
			st->touch[st->ntouch++] = b;
		}
		if (imap_put(&P->last, key, (void *)(uintptr_t)(i + 1)))
			P->err = -ENOMEM;
	}
}

/* An op that changes or removes what others used: after their last ops
 * on p (or beneath it). */
static void after_users(struct pass *P, uint32_t p, uint32_t b, uint64_t i)
{
	struct pst *st = &P->st[p];
	for (size_t k = 0; k < st->ntouch; k++) {
		uint32_t a = st->touch[k];
		if (a != b)
			edge(P, b, i, a, (uintptr_t)imap_get(&P->last, (int64_t)((uint64_t)p << 32 | a)));
	}
}

/* After the last change of p's existence by another rank. */
static void after_change(struct pass *P, uint32_t p, uint32_t b, uint64_t i)
{
	const struct pst *st = &P->st[p];
	if (st->chg_need && st->chg_rank != b)
		edge(P, b, i, st->chg_rank, st->chg_need);
}

static void changed(struct pass *P, uint32_t p, uint32_t b, uint64_t i, bool exists)
{
	P->st[p].chg_rank = b;
	P->st[p].chg_need = i + 1;
	P->st[p].exists = exists;
}

/* ---- existence and size ------------------------------------------------- */

/* p was there when the trace began.  Named first beneath a directory the
 * trace had renamed (renamed to, before p's first op): at the start it had
 * the name it has beneath the rename's source, mapped back through each
 * such rename, last first; those sources and targets are directories. */
static void existed(struct pass *P, uint32_t p)
{
	struct pstate *ps = &P->ps[p];
	struct pst *st = &P->st[p];
	ps->bits |= PS_EXISTED;
	st->known = 1;
	if (ps->start || !st->nren0)
		return;
	const struct opstream *s = P->s;
	char *name = strdup(opstream_path(s, p));
	bool moved = false;
	for (size_t k = st->nren0; k-- > 0 && name;) {
		/* beneath the renamed directory (not the rename's target itself):
		 * its name before the rename */
		const char *to = opstream_path(s, P->ren[k].to);
		char *nn;
		if (!strcmp(name, to) ||
		    !path_rebase(name, to, opstream_path(s, P->ren[k].from), &nn))
			continue;
		free(name);
		name = nn;
		moved = true;
		P->ps[P->ren[k].from].bits |= PS_DIR;
		P->ps[P->ren[k].to].bits |= PS_DIR;
	}
	if (!name) {
		P->err = -ENOMEM;
		return;
	}
	if (moved)
		ps->start = name;
	else
		free(name);
}

/* The op says p was there (when nothing said otherwise before). */
static void was_there(struct pass *P, uint32_t p)
{
	struct pst *st = &P->st[p];
	/* after an O_CREAT open only data found (data_before) says it was
	 * there before; else settle() takes it as created */
	if (!st->known && !st->maybe)
		existed(P, p);
	st->exists = 1;
}

/* The op creates p; `excl`: it cannot have been there. */
static void creates(struct pass *P, uint32_t p, uint32_t b, uint64_t i, bool excl)
{
	struct pst *st = &P->st[p];
	for (uint32_t a = P->parent[p]; a != UINT32_MAX; a = P->parent[a])
		after_change(P, a, b, i);       /* beneath a directory made */
	if (!st->known && excl) {
		st->known = 1;
		P->ps[p].bits |= PS_CREATED;
	} else if (!st->known) {
		st->maybe = 1;
	}
	if (!st->exists || excl)
		changed(P, p, b, i, true);
}

/* Data of p that nobody wrote during the trace was there before it. */
static void data_before(struct pass *P, uint32_t p, uint64_t end, bool pinned)
{
	struct pst *st = &P->st[p];
	/* renamed here with its initial data: that data was the source's */
	uint32_t o = st->from1 ? st->from1 - 1 : p;
	struct pstate *ps = &P->ps[o];
	if (st->truncated || (ps->bits & PS_CREATED))
		return;
	if (!(ps->bits & PS_EXISTED))
		existed(P, o);              /* an O_CREAT open found data */
	if (end > ps->size0 && !(ps->bits & PS_SIZED))
		ps->size0 = end;
	if (pinned && !st->written) {
		ps->size0 = end;
		ps->bits |= PS_SIZED;
	}
	if (end > st->size)
		st->size = end;
}

/* A pass over some of the ranks only (sequential mode: one rank alone,
 * or ranks left out: --ranks, -n): the others' writes are absent. */
static bool partial(const struct pass *P)
{
	return !P->complete;
}

/* Written only by appends since the start, while the size was unknown:
 * the size now is the initial size + app.  In a partial pass, all the
 * appends of the pass (the others' appends between them absent, the file
 * there is the initial size + what this pass appended). */
static bool appending(const struct pass *P, const struct pst *st, const struct pstate *ps)
{
	return st->written && st->app && !st->placed && (!st->exact || partial(P)) &&
	       !st->truncated && !(ps->bits & PS_CREATED);
}

/* An appended-to file (appending()) was at least s0 bytes when the trace
 * began: its appends, and the byte ranges they wrote, move up to start
 * there. */
static void app_floor(struct pass *P, uint32_t p, uint64_t s0)
{
	struct pst *st = &P->st[p];
	if (s0 > st->app_base) {
		uint64_t d = s0 - st->app_base;
		for (size_t k = 0; k < st->nsegs; k++) {
			st->segs[k].start += d;
			st->segs[k].end += d;
		}
		st->app_base = s0;
		st->size = s0 + st->app;
	}
	if (s0)
		data_before(P, p, s0, false);
}

/* Were the bytes the pass placed past x (some) all written by ranks other
 * than b? */
static bool others_beyond(const struct pst *st, uint32_t b, uint64_t x)
{
	bool any = false;
	for (size_t k = st->nsegs; k-- > 0 && st->segs[k].end > x;) {
		if (st->segs[k].rank == b)
			return false;
		any = true;
	}
	return any;
}

/* The trace shows p's size now is x (a stat's st_size, a SEEK_END, the
 * end of a short read).  Before any write that is the initial size (a
 * lower bound in a pass over fewer ranks: another rank's writes before it
 * are absent); after appends only, it is the initial size + what they
 * appended; beyond what was written since, it is data nobody wrote.
 * Either way such data says the file was there.  Below what only other
 * ranks wrote past it, it is a size shown while their write was in
 * flight.  The smallest size shown before any write bounds the initial
 * size (settle()). */
static void size_now(struct pass *P, uint32_t p, uint32_t b, uint64_t x)
{
	struct pst *st = &P->st[p];
	if (!st->written && !st->truncated && (!st->has_shown0 || x < st->shown0)) {
		st->has_shown0 = 1;
		st->shown0 = x;
	}
	if (appending(P, st, &P->ps[p]) && partial(P)) {
		/* the others' appends since: more data before this pass's
		 * appends when it runs alone (a size shown smaller than that
		 * is one they had not made yet) */
		if (x >= st->app)
			app_floor(P, p, x - st->app);
		st->size = st->app_base + st->app;
		st->exact = 1;
		return;
	}
	if (appending(P, st, &P->ps[p]) && x >= st->app) {
		app_floor(P, p, x - st->app);
	} else if (st->written && x < st->size && others_beyond(st, b, x)) {
		/* what the pass has written past x is another rank's: a write
		 * in flight when rank b's op showed the size (the trace's
		 * line order is the calls' starts); the size stays */
		return;
	} else if (x && (x > st->size || !st->written)) {
		data_before(P, p, x, false);     /* data nobody wrote */
	}
	st->size = x;
	st->exact = 1;
}

/* ---- byte ranges -------------------------------------------------------- */

/* Readers of [start, end) wait for the other ranks' writes of it. */
static void raw_deps(struct pass *P, uint32_t p, uint32_t b, uint64_t i, uint64_t start,
		     uint64_t end)
{
	const struct pst *st = &P->st[p];
	size_t lo = 0, hi = st->nsegs;
	while (lo < hi) {             /* first segment ending after start */
		size_t mid = (lo + hi) / 2;
		if (st->segs[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < st->nsegs && st->segs[k].start < end; k++)
		edge(P, b, i, st->segs[k].rank, st->segs[k].need);
}

static int seg_room(struct pst *st, size_t more)
{
	if (st->nsegs + more <= st->csegs)
		return 0;
	size_t nc = st->csegs ? st->csegs * 2 : 8;
	while (nc < st->nsegs + more)
		nc *= 2;
	struct seg *ns = realloc(st->segs, nc * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	st->segs = ns;
	st->csegs = nc;
	return 0;
}

/* [start, end) was last written by rank b's op i. */
static int seg_write(struct pst *st, uint32_t b, uint64_t need, uint64_t start, uint64_t end)
{
	if (seg_room(st, 2))
		return -ENOMEM;
	size_t lo = 0, hi = st->nsegs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (st->segs[mid].end < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* segments [lo, k) touch or overlap the new one */
	size_t k = lo;
	struct seg keep_l = { 0 }, keep_r = { 0 };
	bool has_l = false, has_r = false;
	uint64_t ns = start, ne = end;
	for (; k < st->nsegs && st->segs[k].start <= end; k++) {
		struct seg *g = &st->segs[k];
		if (g->rank == b) {               /* merge with our own */
			ns = g->start < ns ? g->start : ns;
			ne = g->end > ne ? g->end : ne;
			continue;
		}
		if (g->start < start) {
			keep_l = *g;
			keep_l.end = start;
			has_l = true;
		}
		if (g->end > end) {
			keep_r = *g;
			keep_r.start = end;
			has_r = true;
		}
	}
	struct seg nw = { ns, ne, b, need };
	size_t nnew = 1 + has_l + has_r, nold = k - lo;
	memmove(&st->segs[lo + nnew], &st->segs[k], (st->nsegs - k) * sizeof(*st->segs));
	st->nsegs = st->nsegs - nold + nnew;
	size_t w = lo;
	if (has_l)
		st->segs[w++] = keep_l;
	st->segs[w++] = nw;
	if (has_r)
		st->segs[w++] = keep_r;
	return 0;
}

/* ---- one op -------------------------------------------------------------- */

static void on_open(struct pass *P, uint32_t p, uint32_t b, uint64_t i, const struct op *op)
{
	uint32_t fl = op->oflags;
	if (op_oflags_tmpfile(fl)) {
		/* a new unnamed file in p's directory: empty, nothing before */
		after_change(P, p, b, i);
		creates(P, p, b, i, true);
		P->st[p].truncated = 1;
		P->st[p].written = 0;
		P->st[p].size = 0;
		P->st[p].nsegs = 0;
		P->st[p].napps = 0;
		return;
	}
	if (fl & O_DIRECTORY)
		P->ps[p].bits |= PS_DIR;
	after_change(P, p, b, i);
	if (fl & O_CREAT)
		creates(P, p, b, i, (fl & O_EXCL) != 0);
	else
		was_there(P, p);
	if ((fl & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
		P->st[p].size = 0;
		P->st[p].exact = 1;
	}
	if (fl & O_TRUNC) {
		/* like ftruncate to 0: after the others' ops on p, and their
		 * later ops after it */
		after_users(P, p, b, i);
		changed(P, p, b, i, true);
		P->st[p].truncated = 1;
		P->st[p].exact = 1;
		P->st[p].size = 0;
		P->st[p].nsegs = 0;
		P->st[p].napps = 0;
		P->ps[p].bits |= PS_WRITTEN;
	}
}

static void on_read(struct pass *P, uint32_t p, uint32_t b, uint64_t i, const struct op *op)
{
	uint64_t got = op->len;
	bool is_short = false;
	if (op->kind == OP_READ && op->result != INT64_MIN && (uint64_t)op->result < got) {
		got = (uint64_t)op->result;
		is_short = true;
	}
	after_change(P, p, b, i);
	uint64_t end = op->offset + got;
	if (end < op->offset)
		end = UINT64_MAX;
	struct pst *st = &P->st[p];
	/* (before raw_deps: appends of unknown base may move up) */
	if (appending(P, st, &P->ps[p])) {
		if (is_short && got)
			size_now(P, p, b, end);    /* the end of the file */
		else if (got && end > st->size)
			app_floor(P, p, end - st->app);
	}
	if (got)
		raw_deps(P, p, b, i, op->offset, end);
	if (got && !st->written && !st->truncated && end > st->read0)
		st->read0 = end;
	/* (before was_there: data nobody wrote after an O_CREAT open says
	 * the file was there).  A read of 0 bytes says only that the file
	 * ends at or before its offset: no data, no size (at offset 0, that
	 * it is empty) */
	if (got && (end > st->size || (is_short && !st->written)))
		data_before(P, p, end, is_short);
	if (is_short && (got || !op->offset))
		size_now(P, p, b, end);
	was_there(P, p);
}

static void on_write(struct pass *P, uint32_t p, uint32_t b, uint64_t i, const struct op *op)
{
	struct pst *st = &P->st[p];
	uint64_t off = op->offset;
	after_change(P, p, b, i);
	if (op->flags & OPF_APPEND) {
		off = st->size;                 /* where the kernel appends */
		/* the end of the file, where this lands, is where the last
		 * write placed at an offset that grew it left it: after it
		 * when another rank made it (`prog > f; prog2 >> f`).  Other
		 * appends need no wait: in any order they add up to the
		 * same end */
		if (st->ext_need && st->ext_rank != b)
			edge(P, b, i, st->ext_rank, st->ext_need);
		/* and a later write placed past the end waits for it (app_at) */
		uint32_t k = 0;
		while (k < st->napps && st->apps[k].rank != b)
			k++;
		if (k == st->napps) {
			if (st->napps == st->capps) {
				uint32_t nc = st->capps ? st->capps * 2 : 4;
				struct app_at *na = realloc(st->apps, nc * sizeof(*na));
				if (!na) {
					P->err = -ENOMEM;
					return;
				}
				st->apps = na;
				st->capps = nc;
			}
			st->napps++;
		}
		st->apps[k] = (struct app_at){ b, i + 1 };
		if ((!st->exact || partial(P)) && !st->truncated &&
		    !(P->ps[p].bits & PS_CREATED)) {
			if (!st->app)
				st->app_base = off;
			st->app += op->len;     /* the initial size still unknown */
		}
		/* the whole pass only: an alone pass (sequential mode) runs
		 * one rank as its position 0, whose array is rank 0's */
		if (P->ranks == P->oo->ranks && P->out->true_off && P->out->true_off[b])
			P->out->true_off[b][i] = off;
	} else {
		st->placed = 1;
	}
	uint64_t end = off + op->len < off ? UINT64_MAX : off + op->len;
	/* a fio iolog's write overwrites what fio laid out: the file was
	 * there at least that long (written as appends to an empty file,
	 * fio's overwrites would be allocating writes) */
	if (P->out->laid_out && op->len && end > st->size)
		data_before(P, p, end, false);
	/* a write past the end leaves a hole that reads as zeros: for its
	 * readers, this op wrote it (another rank's pread of the hole,
	 * replayed before it, would find the file shorter: 0 bytes).  The
	 * size may be a lower bound (a file there before): a reader of such
	 * data then waits for a write the trace shows before it, no more */
	uint64_t from = off > st->size && op->len ? st->size : off;
	if (op->len && seg_write(st, b, i + 1, from, end))
		P->err = -ENOMEM;
	if (end > st->size && !(op->flags & OPF_APPEND)) {
		/* it moves the end: after the other ranks' appends the trace
		 * shows before it, which landed at the end before it (replayed
		 * later, one would land past this write's end) */
		for (uint32_t k = 0; k < st->napps; k++)
			edge(P, b, i, st->apps[k].rank, st->apps[k].need);
		st->napps = 0;
		st->ext_rank = b;
		st->ext_need = i + 1;
	}
	if (end > st->size)
		st->size = end;
	st->written = 1;
	P->ps[p].bits |= PS_WRITTEN;
}

/* fallocate, as its mode (op->aux) acts on the file.  COLLAPSE_RANGE and
 * INSERT_RANGE move the data from the offset on and change the size: like
 * ftruncate, after every other rank's last op on the file, and every later
 * op of another rank on it after this one; the kernel refuses them unless
 * the file goes past the range (collapse) or the offset (insert), so data
 * up to there that nobody wrote was there.  Plain and ZERO_RANGE without
 * KEEP_SIZE extend the file as a write of the range would, PUNCH_HOLE and
 * ZERO_RANGE change its bytes in the range: readers of them wait for this
 * op as for a write.  The rest (KEEP_SIZE preallocation, UNSHARE_RANGE)
 * changes neither data nor size.  Every mode waits for the other ranks'
 * earlier writes and fallocates of its range. */
static void on_fallocate(struct pass *P, uint32_t p, uint32_t b, uint64_t i, const struct op *op)
{
	struct pst *st = &P->st[p];
	uint32_t mode = op->aux;
	uint64_t off = op->offset, end = off + op->len < off ? UINT64_MAX : off + op->len;

	after_change(P, p, b, i);
	/* what it allocates, punches or zeroes, after the other ranks' writes
	 * (and fallocates) of the range: the blocks the file ends with depend
	 * on their order (a hole punched, then filled, or the reverse) */
	raw_deps(P, p, b, i, off, op_falloc_shifts(mode) ? UINT64_MAX : end);
	if (op_falloc_shifts(mode)) {
		uint64_t need = mode & OP_FALLOC_COLLAPSE_RANGE ? end : off;
		after_users(P, p, b, i);
		if (need < UINT64_MAX && need + 1 > st->size)
			data_before(P, p, need + 1, false);
		if (mode & OP_FALLOC_COLLAPSE_RANGE)
			st->size = st->size > op->len ? st->size - op->len : 0;
		else
			st->size = st->size + op->len < st->size ? UINT64_MAX : st->size + op->len;
		if (seg_write(st, b, i + 1, off, UINT64_MAX))
			P->err = -ENOMEM;
		changed(P, p, b, i, true);
	} else if (mode & (OP_FALLOC_PUNCH_HOLE | OP_FALLOC_ZERO_RANGE | OP_FALLOC_WRITE_ZEROES) ||
		   (op_falloc_may_extend(mode) && end > st->size)) {
		uint64_t from = mode & (OP_FALLOC_PUNCH_HOLE | OP_FALLOC_ZERO_RANGE |
					OP_FALLOC_WRITE_ZEROES) || off > st->size ? off : st->size;
		if (end > from && seg_write(st, b, i + 1, from, end))
			P->err = -ENOMEM;
		if (op_falloc_may_extend(mode) && end > st->size) {
			st->size = end;
			st->ext_rank = b;       /* appends land after it */
			st->ext_need = i + 1;
		}
	}
	st->placed = 1;
	st->written = 1;        /* (a size seen later is not the initial one) */
	P->ps[p].bits |= PS_WRITTEN;
}

static void on_stat(struct pass *P, uint32_t p, uint32_t b, uint64_t i, const struct op *op)
{
	after_change(P, p, b, i);
	if (op->handle == OP_NOHANDLE)
		was_there(P, p);
	/* a directory the trace only looks at is made as one (as an open with
	 * O_DIRECTORY would have it), unless the trace writes it as a file */
	if ((op->flags & OPF_STAT_DIR) && !(P->ps[p].bits & PS_WRITTEN))
		P->ps[p].bits |= PS_DIR;
	/* the size seen before any write of this pass is a lower bound of
	 * the initial size, not a pin: in a pass over fewer ranks (sequential
	 * mode) another rank's writes before the stat are absent, and reads
	 * of them must still find data */
	if (op->flags & OPF_STAT_SIZE)
		size_now(P, p, b, op->len);
}

static void on_remove(struct pass *P, uint32_t p, uint32_t b, uint64_t i)
{
	after_change(P, p, b, i);
	after_users(P, p, b, i);
	was_there(P, p);
	changed(P, p, b, i, false);
	P->st[p].nsegs = 0;
	P->st[p].napps = 0;
	P->st[p].size = 0;
	P->st[p].exact = 1;
	P->st[p].truncated = 1;
}

/* When p still holds what it held when the trace began (neither
 * truncated nor written nor made by the trace), data later read from a
 * name it is renamed or linked to that nobody wrote was there, under p's
 * first name: that path id + 1, else 0. */
static uint32_t content_origin(const struct pass *P, uint32_t p)
{
	const struct pst *from = &P->st[p];
	if (from->truncated || from->written || (P->ps[p].bits & PS_CREATED))
		return 0;
	return from->from1 ? from->from1 : p + 1;
}

/* t, a rename's target or a link's new name, now holds a file of size
 * (exact or not) whose data was there when the trace began, under path
 * id org - 1, when org (0: written or made by the trace since). */
static void takes_content(struct pass *P, uint32_t t, uint64_t size, uint8_t exact, uint32_t org)
{
	struct pst *to = &P->st[t];
	to->nsegs = 0;
	to->napps = 0;
	to->size = size;
	to->exact = exact;
	to->truncated = 1;
	to->written = 1;
	to->from1 = org;
	if (org && org - 1 != t) {
		to->truncated = 0;
		to->written = 0;
		to->placed = 0;
		to->app = 0;
		to->app_base = 0;
	}
	P->ps[t].bits |= PS_WRITTEN;
}

static void on_rename(struct pass *P, uint32_t p, uint32_t t, uint32_t b, uint64_t i)
{
	const struct pst *from = &P->st[p];
	uint64_t size = from->size;     /* (before on_remove empties it) */
	uint8_t exact = from->exact;
	uint32_t org = content_origin(P, p);
	after_change(P, t, b, i);
	after_users(P, t, b, i);
	on_remove(P, p, b, i);
	creates(P, t, b, i, false);
	changed(P, t, b, i, true);
	takes_content(P, t, size, exact, org);
	if (P->ps[p].bits & PS_DIR)
		P->ps[t].bits |= PS_DIR;
}

/* A directory p renamed to t: each path the trace names beneath p is
 * renamed with it, to the same name beneath t when the trace names that
 * too (a file written in "ckpt.tmp/" and read back from "ckpt.1/" after
 * the rename: not a file that existed before under its new name). */
static void on_rename_beneath(struct pass *P, uint32_t p, uint32_t t, uint32_t b, uint64_t i)
{
	const struct opstream *s = P->s;
	if (!P->byname)
		return;
	const char *from = opstream_path(s, p), *to = opstream_path(s, t);
	size_t fl = strlen(from), tl = strlen(to), cap = 0;
	char *pre = malloc(fl + 2), *name = NULL;
	if (!pre) {
		P->err = -ENOMEM;
		return;
	}
	memcpy(pre, from, fl);
	memcpy(pre + fl, "/", 2);
	for (uint32_t k = byname_find(P, pre, false); k < s->npaths && !P->err; k++) {
		uint32_t q = P->byname[k];
		const char *qn = opstream_path(s, q);
		if (strncmp(qn, pre, fl + 1))
			break;
		size_t need = tl + strlen(qn + fl) + 1;
		if (need > cap) {
			char *nn = realloc(name, need);
			if (!nn) {
				P->err = -ENOMEM;
				break;
			}
			name = nn;
			cap = need;
		}
		memcpy(name, to, tl);
		memcpy(name + tl, qn + fl, need - tl);
		uint32_t j = byname_find(P, name, true);
		if (j == s->npaths || P->byname[j] == q ||
		    !filter_path_kept(P->oo->filter, P->byname[j]))
			continue;
		on_rename(P, q, P->byname[j], b, i);
		touch(P, P->byname[j], b, i);
	}
	free(name);
	free(pre);
}

/* A hard link: t appears with p's content, p stays.  As for a rename's
 * target: while p still holds what it held when the trace began, data
 * read from t that nobody wrote was there, in p (under p's first name):
 * p is prepared with it, t is made by the run's link. */
static void on_link(struct pass *P, uint32_t p, uint32_t t, uint32_t b, uint64_t i)
{
	const struct pst *from = &P->st[p];
	after_change(P, p, b, i);
	was_there(P, p);
	uint32_t org = content_origin(P, p);
	after_change(P, t, b, i);
	after_users(P, t, b, i);
	creates(P, t, b, i, true);
	changed(P, t, b, i, true);
	takes_content(P, t, from->size, from->exact, org);
}

static void log_rename(struct pass *P, uint32_t p, uint32_t t)
{
	if (P->nren == P->cren) {
		size_t nc = P->cren ? P->cren * 2 : 16;
		struct ren *nr = realloc(P->ren, nc * sizeof(*nr));
		if (!nr) {
			P->err = -ENOMEM;
			return;
		}
		P->ren = nr;
		P->cren = nc;
	}
	P->ren[P->nren++] = (struct ren){ p, t };
}

/* Rank position b, op index i of the stream, on path p. */
static void one_op(struct pass *P, uint32_t b, uint64_t i, const struct op *op, uint32_t p)
{
	if (p == OP_NOFILE || p >= P->s->npaths || !order_ok(op->result) ||
	    !filter_op_kept(P->oo->filter, op) || !filter_path_kept(P->oo->filter, p))
		return;
	struct pstate *ps = &P->ps[p];
	if (!(ps->bits & PS_USED)) {
		P->st[p].nren0 = P->nren;
		ps->bits |= PS_USED;
		ps->first_rank = b;
		ps->nranks = 1;
	} else if (ps->first_rank != b && ps->nranks < 2) {
		ps->nranks = 2;
	}
	switch (op->kind) {
	case OP_OPEN: on_open(P, p, b, i, op); break;
	case OP_READ: case OP_AREAD: on_read(P, p, b, i, op); break;
	case OP_WRITE: case OP_AWRITE: on_write(P, p, b, i, op); break;
	case OP_STAT: on_stat(P, p, b, i, op); break;
	case OP_SEEK:
		after_change(P, p, b, i);
		if (op->flags & OPF_STAT_SIZE)  /* a SEEK_END's: the size now */
			size_now(P, p, b, op->len);
		break;
	case OP_UNLINK: on_remove(P, p, b, i); break;
	case OP_FTRUNCATE:
		/* the size and the bytes past it change: after every other
		 * rank's last op on p, and their later ops on p after it (a
		 * write replayed before another rank's truncate loses its
		 * bytes past the new size: MPI_File_preallocate and
		 * MPI_File_set_size truncate on every rank) */
		after_change(P, p, b, i);
		after_users(P, p, b, i);
		if (op->handle == OP_NOHANDLE)  /* truncate by path: it was there */
			was_there(P, p);
		changed(P, p, b, i, P->st[p].exists);
		P->st[p].truncated = 1;
		P->st[p].size = op->len;
		P->st[p].exact = 1;
		P->st[p].nsegs = 0;
		P->st[p].napps = 0;
		ps->bits |= PS_WRITTEN;
		break;
	case OP_FALLOCATE: on_fallocate(P, p, b, i, op); break;
	case OP_MKDIR:
		ps->bits |= PS_DIR;
		after_change(P, p, b, i);
		creates(P, p, b, i, true);
		break;
	case OP_SYMLINK:        /* made by the call, which fails on any name there */
		after_change(P, p, b, i);
		creates(P, p, b, i, true);
		break;
	case OP_RMDIR:
		ps->bits |= PS_DIR;
		on_remove(P, p, b, i);
		break;
	case OP_RENAME:
	case OP_LINK:
		if (op->aux < P->s->npaths) {
			if (op->kind == OP_LINK) {
				on_link(P, p, op->aux, b, i);
			} else {
				on_rename(P, p, op->aux, b, i);
				on_rename_beneath(P, p, op->aux, b, i);
				log_rename(P, p, op->aux);
			}
			touch(P, op->aux, b, i);
		}
		break;
	default:
		after_change(P, p, b, i);
		break;
	}
	touch(P, p, b, i);
}

/* ---- the merge ------------------------------------------------------------ */

struct cursor {
	const struct op *ops;
	uint64_t n, i, t0;
	uint32_t *hpath;          /* handle -> path of its open (ops that name
	                           * only their handle: hand-made streams)   */
	size_t hcap;
};

/* The path op acts on: its own, or its handle's. */
static uint32_t op_path(struct cursor *c, const struct op *op, int *err)
{
	if (op->kind == OP_OPEN && op->handle != OP_NOHANDLE && op->file != OP_NOFILE &&
	    op->handle < (1u << 24)) {
		if (op->handle >= c->hcap) {
			size_t nc = c->hcap ? c->hcap : 16;
			while (nc <= op->handle)
				nc *= 2;
			uint32_t *nh = realloc(c->hpath, nc * sizeof(*nh));
			if (!nh) {
				*err = -ENOMEM;
				return OP_NOFILE;
			}
			memset(nh + c->hcap, 0xff, (nc - c->hcap) * sizeof(*nh));
			c->hpath = nh;
			c->hcap = nc;
		}
		c->hpath[op->handle] = op->file;
	}
	if (op->file == OP_NOFILE && op->handle < c->hcap)
		return c->hpath[op->handle];
	return op->file;
}

static uint64_t key_of(const struct pass *P, const struct cursor *c)
{
	const struct op *op = &c->ops[c->i];
	return P->out->by_line ? op->line : c->t0 + op->t_ns;
}

static bool before(const struct pass *P, const struct cursor *cs, uint32_t x, uint32_t y)
{
	uint64_t kx = key_of(P, &cs[x]), ky = key_of(P, &cs[y]);
	return kx < ky || (kx == ky && x < y);
}

static void sift(const struct pass *P, const struct cursor *cs, uint32_t *h, uint32_t n, uint32_t c)
{
	for (;;) {
		uint32_t l = 2 * c + 1, r = l + 1, m = c;
		if (l < n && before(P, cs, h[l], h[m]))
			m = l;
		if (r < n && before(P, cs, h[r], h[m]))
			m = r;
		if (m == c)
			return;
		uint32_t t = h[c];
		h[c] = h[m];
		h[m] = t;
		c = m;
	}
}

static int walk(struct pass *P)
{
	uint32_t n = P->nranks, nh = 0;
	struct cursor *cs = calloc(n ? n : 1, sizeof(*cs));
	uint32_t *h = calloc(n ? n : 1, sizeof(*h));
	if (!cs || !h) {
		free(cs);
		free(h);
		return -ENOMEM;
	}
	for (uint32_t b = 0; b < n; b++) {
		cs[b].ops = opstream_rank_ops(P->s, P->ranks[b], &cs[b].n);
		cs[b].t0 = P->s->ranks[P->ranks[b]].t0_ns;
		if (cs[b].n)
			h[nh++] = b;
	}
	for (uint32_t k = nh / 2; k-- > 0;)
		sift(P, cs, h, nh, k);
	while (nh && !P->err) {
		struct cursor *c = &cs[h[0]];
		const struct op *op = &c->ops[c->i];
		one_op(P, h[0], c->i, op, op_path(c, op, &P->err));
		if (++c->i == c->n)
			h[0] = h[--nh];
		sift(P, cs, h, nh, 0);
	}
	for (uint32_t b = 0; b < n; b++)
		free(cs[b].hpath);
	free(cs);
	free(h);
	return P->err;
}

/* A file opened O_CREAT and nothing said it was there: created. */
static void settle(struct pass *P)
{
	for (uint32_t p = 0; p < P->s->npaths; p++)
		if ((P->ps[p].bits & PS_USED) && !P->st[p].known) {
			if (P->st[p].maybe)
				P->ps[p].bits |= PS_CREATED;
			else
				existed(P, p);
		}
	/* one ordering of every rank (one strace file, or the -ff files of
	 * one capture on their common clock: audit PC, 40 processes
	 * appending to a log, a stat 4096 bytes ahead of the appends before
	 * it prepared 1 MiB): a file the trace writes was no bigger than
	 * the smallest size shown before its first write, whatever the
	 * arithmetic of later sizes and writes (another process's write in
	 * flight) says; but no smaller than the data read before it (a
	 * trace that contradicts itself: reads find their data) */
	if (!P->out->one_order || !P->complete)
		return;
	for (uint32_t p = 0; p < P->s->npaths; p++) {
		const struct pst *st = &P->st[p];
		uint64_t cap = st->shown0 > st->read0 ? st->shown0 : st->read0;
		if (st->has_shown0 && st->written && (P->ps[p].bits & PS_EXISTED) &&
		    P->ps[p].size0 > cap)
			P->ps[p].size0 = cap;
	}
}

static void pass_release(struct pass *P)
{
	if (P->st)
		for (uint32_t p = 0; p < P->s->npaths; p++) {
			free(P->st[p].segs);
			free(P->st[p].touch);
			free(P->st[p].apps);
		}
	free(P->st);
	free(P->ren);
	imap_release(&P->last);
	imap_release(&P->have);
}

/* One pass over ranks[0..n): path states into ps, edges into o when deps. */
static int run_pass(struct order *o, const struct opstream *s, const struct order_opts *oo,
		    const uint32_t *ranks, uint32_t n, struct pstate *ps, const uint32_t *parent,
		    const uint32_t *byname, bool deps, size_t *cdeps)
{
	struct pass P = { .s = s, .oo = oo, .ranks = ranks, .nranks = n, .out = o, .ps = ps,
			  .parent = (uint32_t *)parent, .byname = (uint32_t *)byname,
			  .deps = deps, .cdeps = cdeps };
	/* (a rank the filter left no op is no absent writer) */
	P.complete = n + (oo->filter ? oo->filter->ranks_empty : 0) >= s->nranks;
	P.st = calloc(s->npaths ? s->npaths : 1, sizeof(*P.st));
	int rc = P.st ? walk(&P) : -ENOMEM;
	if (!rc)
		settle(&P);
	pass_release(&P);
	return rc;
}

/* Sequential mode: each rank alone, what it must find prepared. */
static int alone_preps(struct order *o, const struct opstream *s, const struct order_opts *oo,
		       const uint32_t *parent, const uint32_t *byname)
{
	struct pstate *ps = calloc(s->npaths ? s->npaths : 1, sizeof(*ps));
	o->alone = calloc(oo->nranks ? oo->nranks : 1, sizeof(*o->alone));
	if (!ps || !o->alone) {
		free(ps);
		return -ENOMEM;
	}
	int rc = 0;
	for (uint32_t b = 0; b < oo->nranks && !rc; b++) {
		for (uint32_t p = 0; p < s->npaths; p++)
			free(ps[p].start);
		memset(ps, 0, s->npaths * sizeof(*ps));
		rc = run_pass(o, s, oo, &oo->ranks[b], 1, ps, parent, byname, false, NULL);
		struct rank_prep *rp = &o->alone[b];
		uint32_t cnt = 0;
		for (uint32_t p = 0; p < s->npaths && !rc; p++)
			cnt += (ps[p].bits & (PS_USED | PS_EXISTED)) == (PS_USED | PS_EXISTED);
		rp->path = malloc((cnt ? cnt : 1) * sizeof(*rp->path));
		rp->size = malloc((cnt ? cnt : 1) * sizeof(*rp->size));
		rp->dir = malloc(cnt ? cnt : 1);
		rp->moved = malloc(cnt ? cnt : 1);
		if (!rp->path || !rp->size || !rp->dir || !rp->moved)
			rc = -ENOMEM;
		for (uint32_t p = 0; p < s->npaths && !rc; p++)
			if ((ps[p].bits & (PS_USED | PS_EXISTED)) == (PS_USED | PS_EXISTED)) {
				rp->path[rp->n] = p;
				rp->size[rp->n] = ps[p].size0;
				rp->dir[rp->n] = (ps[p].bits & PS_DIR) != 0;
				rp->moved[rp->n++] = ps[p].start != NULL;
			}
	}
	for (uint32_t p = 0; p < s->npaths; p++)
		free(ps[p].start);
	free(ps);
	return rc;
}

int order_build(struct order *o, const struct opstream *s, const struct order_opts *oo,
		struct rerr *e)
{
	struct pass P = { .s = s };
	char buf[32];
	size_t *cdeps = NULL;
	memset(o, 0, sizeof(*o));
	o->npaths = s->npaths;
	o->nranks = oo->nranks;
	/* one strace file: its line order is the order things happened (a
	 * Sandia or DXT file lists one process after the other) */
	o->by_line = opstream_info(s, "source_files", buf, sizeof(buf)) && !strcmp(buf, "1") &&
		     opstream_info(s, "format", buf, sizeof(buf)) && !strcmp(buf, "strace");
	o->one_order = o->by_line ||
		       (opstream_info(s, "format", buf, sizeof(buf)) && !strcmp(buf, "strace") &&
			!opstream_info(s, "no_common_clock", buf, sizeof(buf)) &&
			!opstream_info(s, "captures", buf, sizeof(buf)));
	o->laid_out = opstream_info(s, "files_laid_out", buf, sizeof(buf)) && !strcmp(buf, "1");
	o->paths = calloc(s->npaths ? s->npaths : 1, sizeof(*o->paths));
	o->deps = calloc(oo->nranks ? oo->nranks : 1, sizeof(*o->deps));
	o->ndeps = calloc(oo->nranks ? oo->nranks : 1, sizeof(*o->ndeps));
	o->true_off = calloc(oo->nranks ? oo->nranks : 1, sizeof(*o->true_off));
	cdeps = calloc(oo->nranks ? oo->nranks : 1, sizeof(*cdeps));
	int rc = (!o->paths || !o->deps || !o->ndeps || !o->true_off || !cdeps) ? -ENOMEM : 0;
	for (uint32_t b = 0; b < oo->nranks && !rc; b++) {
		uint64_t n;
		const struct op *ops = opstream_rank_ops(s, oo->ranks[b], &n);
		bool appends = false;
		for (uint64_t i = 0; i < n && !appends; i++)
			appends = (ops[i].flags & OPF_APPEND) != 0;
		if (appends && !(o->true_off[b] = malloc(n * sizeof(uint64_t))))
			rc = -ENOMEM;
		else if (appends)
			memset(o->true_off[b], 0xff, n * sizeof(uint64_t));
	}
	if (!rc)
		rc = find_parents(&P);
	if (!rc)
		rc = run_pass(o, s, oo, oo->ranks, oo->nranks, o->paths, P.parent, P.byname,
			      oo->deps, cdeps);
	if (!rc && oo->alone)
		rc = alone_preps(o, s, oo, P.parent, P.byname);
	for (uint32_t b = 0; b < oo->nranks && !rc; b++)
		o->total_deps += o->ndeps[b];
	free(P.parent);
	free(P.byname);
	free(cdeps);
	if (rc) {
		order_release(o);
		return rerr_set(e, rc, "cannot order the trace: %s", strerror(-rc));
	}
	return 0;
}

void order_release(struct order *o)
{
	for (uint32_t b = 0; b < o->nranks; b++) {
		if (o->deps)
			free(o->deps[b]);
		if (o->true_off)
			free(o->true_off[b]);
		if (o->alone) {
			free(o->alone[b].path);
			free(o->alone[b].size);
			free(o->alone[b].dir);
			free(o->alone[b].moved);
		}
	}
	if (o->paths)
		for (uint32_t p = 0; p < o->npaths; p++)
			free(o->paths[p].start);
	free(o->paths);
	free(o->deps);
	free(o->ndeps);
	free(o->true_off);
	free(o->alone);
	memset(o, 0, sizeof(*o));
}
