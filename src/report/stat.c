/*
 * stat.c - trace analysis behind `replay stat`.
 *
 * One pass over the ops, in any interleaving of the ranks as long as each
 * rank's ops come in order: straight from the builder while a trace is
 * read (stat_stream_sink: no .ops file, nothing written), or rank by rank
 * from a mapped .ops file (stat_compute).  Everything is a sum or a max,
 * so the order across ranks does not matter; what depends on order within
 * a rank (a stream's previous request, pending async submits) is keyed by
 * rank.  Memory: per rank, per path, per (rank, file) pair, per open
 * stream and pending submit (a stream ends at its close), and four tables
 * of dominant values bounded by STAT_HH_MAX; never per op.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/stat.h"
#include "util/util.h"

static const char *const pattern_names[] = {
	[STAT_PAT_NA] = "N/A",
	[STAT_PAT_SEQUENTIAL] = "sequential",
	[STAT_PAT_STRIDED] = "strided",
	[STAT_PAT_RANDOM] = "random",
	[STAT_PAT_UNRECOGNIZED] = "unrecognized",
};

const char *stat_pattern_name(enum stat_pattern p)
{
	if ((unsigned)p >= sizeof(pattern_names) / sizeof(pattern_names[0]))
		return "?";
	return pattern_names[p];
}

static const char *const bucket_labels[STAT_NBUCKETS] = {
	"<=1K", "2K", "4K", "8K", "16K", "32K", "64K", "128K", "256K",
	"512K", "1024K", "2048K", ">2048K",
};

unsigned stat_bucket_of(uint64_t size)
{
	if (size <= 1024)
		return 0;
	/* bucket i > 0 holds (512 << i, 1024 << i]: 1 + floor(log2(size - 1)) - 10 */
	unsigned i = 54 - (unsigned)__builtin_clzll(size - 1);
	return i < STAT_NBUCKETS - 1 ? i : STAT_NBUCKETS - 1;
}

const char *stat_bucket_label(unsigned idx)
{
	return idx < STAT_NBUCKETS ? bucket_labels[idx] : "?";
}

static const char *const darshan_labels[STAT_NDARSHAN] = {
	"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M",
	"10M_100M", "100M_1G", "1G_PLUS",
};

unsigned stat_darshan_bucket_of(uint64_t size)
{
	static const uint64_t bound[STAT_NDARSHAN - 1] = {
		100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824,
	};
	unsigned i = 0;

	while (i < STAT_NDARSHAN - 1 && size > bound[i])
		i++;
	return i;
}

const char *stat_darshan_bucket_label(unsigned idx)
{
	return idx < STAT_NDARSHAN ? darshan_labels[idx] : "?";
}

enum stat_pattern stat_classify(const struct stat_dir *d)
{
	uint64_t t = d->transitions;

	if (d->requests == 0)
		return STAT_PAT_NA;
	if (t == 0)
		return STAT_PAT_SEQUENTIAL;
	if (d->sequential * 100 >= t * STAT_SEQ_PCT)
		return STAT_PAT_SEQUENTIAL;
	if (d->top_delta_n * 100 >= t * STAT_STRIDE_PCT)
		return STAT_PAT_STRIDED;
	if (d->sequential * 100 < t * STAT_RANDOM_MAX_PCT &&
	    d->top_delta_n * 100 < t * STAT_RANDOM_MAX_PCT &&
	    d->top_size_n * 100 >= d->requests * STAT_REGULAR_SIZE_PCT)
		return STAT_PAT_RANDOM;
	return STAT_PAT_UNRECOGNIZED;
}

int stat_ratio(uint64_t rbytes, uint64_t wbytes, double *rf, double *wf)
{
	double tot = (double)rbytes + (double)wbytes;

	if (rbytes == 0 && wbytes == 0) {
		*rf = *wf = 0;
		return -ENODATA;
	}
	*rf = (double)rbytes / tot;
	*wf = (double)wbytes / tot;
	return 0;
}

const char *stat_fmt_ratio(char *buf, size_t len, uint64_t rbytes, uint64_t wbytes)
{
	double rf, wf;

	if (stat_ratio(rbytes, wbytes, &rf, &wf) < 0) {
		snprintf(buf, len, "N/A");
		return buf;
	}
	/* round the read part half up, in integers (0.145 -> 0.15); the
	 * write part is its complement so the two always add up to 1.00 */
	unsigned __int128 tot = (unsigned __int128)rbytes + wbytes;
	unsigned r = (unsigned)(((unsigned __int128)rbytes * 200 + tot) / (2 * tot));
	unsigned w = 100 - r;
	snprintf(buf, len, "%u.%02u/%u.%02u", r / 100, r % 100, w / 100, w % 100);
	return buf;
}

/* ---- dominant values: exact counts, Misra-Gries past STAT_HH_MAX ---- */

/* 64 - log2(cap) for a power of two cap. */
static inline unsigned cap_shift(size_t cap)
{
	return (unsigned)__builtin_clzll((unsigned long long)cap) + 1;
}

/* The slot of key: its entry, or the empty slot where it would go. */
static size_t hh_slot(const struct stat_hh *h, int64_t key)
{
	size_t i = hash_fib((uint64_t)key, cap_shift(h->cap));

	while (h->e[i].cnt && h->e[i].key != key)
		i = (i + 1) & (h->cap - 1);
	return i;
}

/* Rehash into cap slots, every count less `minus` (entries reaching 0
 * are dropped). */
static int hh_rehash(struct stat_hh *h, size_t cap, uint64_t minus)
{
	struct stat_hh n = { .cap = cap };

	n.e = calloc(cap, sizeof(*n.e));
	if (!n.e)
		return -ENOMEM;
	for (size_t k = 0; k < h->cap; k++) {
		if (h->e[k].cnt <= minus)
			continue;
		size_t i = hh_slot(&n, h->e[k].key);
		n.e[i].key = h->e[k].key;
		n.e[i].cnt = h->e[k].cnt - minus;
		n.n++;
	}
	free(h->e);
	h->e = n.e;             /* what waits in h->pend stays */
	h->cap = cap;
	h->n = n.n;
	h->last = 0;
	return 0;
}

/* One value counted now (stat_hh_add's order kept by its caller). */
static int hh_count(struct stat_hh *h, int64_t key)
{
	/* the slot of the last value added, while it still holds that value
	 * (a rehash moves values: then the key compare fails) */
	if (h->last < h->cap && h->e[h->last].cnt && h->e[h->last].key == key) {
		h->e[h->last].cnt++;
		return 0;
	}
	if (!h->cap && hh_rehash(h, 64, 0) < 0)
		return -ENOMEM;
	size_t i = hh_slot(h, key);
	h->last = i;
	if (h->e[i].cnt) {
		h->e[i].cnt++;
		return 0;
	}
	if (h->n == STAT_HH_MAX) {
		/* Misra-Gries: the new value and every held one lose one */
		h->sweeps++;
		return hh_rehash(h, h->cap, 1);
	}
	if ((h->n + 1) * 2 > h->cap) {
		if (hh_rehash(h, h->cap * 2, 0) < 0)
			return -ENOMEM;
		i = hh_slot(h, key);
		h->last = i;
	}
	h->e[i].key = key;
	h->e[i].cnt = 1;
	h->n++;
	return 0;
}

int stat_hh_flush(struct stat_hh *h)
{
	unsigned n = h->npend;
	int rc = 0;

	h->npend = 0;
	for (unsigned k = 0; k < n && !rc; k++)
		rc = hh_count(h, h->pend[k]);
	return rc;
}

/*
 * A table of many values (scattered offsets give a new delta nearly every
 * request) is larger than the caches: each value's first probe missed
 * them and stalled the stream (22 % of `replay stat` on random requests).
 * So a value that is not the last one's goes to a queue of STAT_HH_PEND,
 * its slot's line fetched ahead, and the queue is counted in order when it
 * is full (or by stat_hh_flush): the misses overlap, and the counts, the
 * sweeps and what they drop are as if each value were counted at once.
 */
int stat_hh_add(struct stat_hh *h, int64_t key)
{
	if (!h->npend && h->last < h->cap && h->e[h->last].cnt && h->e[h->last].key == key) {
		h->e[h->last].cnt++;
		return 0;
	}
	if (h->cap)
		__builtin_prefetch(&h->e[hash_fib((uint64_t)key, cap_shift(h->cap))]);
	h->pend[h->npend++] = key;
	return h->npend == STAT_HH_PEND ? stat_hh_flush(h) : 0;
}

int stat_hh_top(struct stat_hh *h, int64_t *key, uint64_t *n)
{
	*key = 0;
	*n = 0;
	int rc = stat_hh_flush(h);
	if (rc)
		return rc;
	for (size_t i = 0; i < h->cap; i++) {
		const struct stat_hh_ent *e = &h->e[i];
		if (e->cnt > *n || (e->cnt == *n && *n > 0 && e->key < *key)) {
			*key = e->key;
			*n = e->cnt;
		}
	}
	return 0;
}

void stat_hh_release(struct stat_hh *h)
{
	free(h->e);
	memset(h, 0, sizeof(*h));
}

/* ---- a map from (k1, k2) to per-stream, per-pair or per-async state ---- */

struct kent {
	uint64_t k1, k2;
	uint8_t used;
	uint8_t have[2];        /* stream: a previous request per direction   */
	uint8_t ok;             /* pair: the rank has a successful op on the file */
	uint8_t dir;            /* async: 1 read, 2 write pending; 0 none     */
	uint32_t ix;            /* pair: file-rank entry + 1 (0 none); async: file */
	uint64_t off[2], len[2];/* stream: the last request; async: len[0]   */
};

struct kmap {
	struct kent *e;
	size_t cap, n;
};

static size_t kmap_home(const struct kmap *m, uint64_t k1, uint64_t k2)
{
	return hash_fib(k1 * 0xff51afd7ed558ccdULL + k2, cap_shift(m->cap));
}

static struct kent *kmap_find(const struct kmap *m, uint64_t k1, uint64_t k2)
{
	if (!m->cap)
		return NULL;
	for (size_t i = kmap_home(m, k1, k2); m->e[i].used; i = (i + 1) & (m->cap - 1))
		if (m->e[i].k1 == k1 && m->e[i].k2 == k2)
			return &m->e[i];
	return NULL;
}

static int kmap_grow(struct kmap *m)
{
	struct kmap n = { .cap = m->cap ? m->cap * 2 : 64, .n = m->n };

	n.e = calloc(n.cap, sizeof(*n.e));
	if (!n.e)
		return -ENOMEM;
	for (size_t k = 0; k < m->cap; k++) {
		if (!m->e[k].used)
			continue;
		size_t i = kmap_home(&n, m->e[k].k1, m->e[k].k2);
		while (n.e[i].used)
			i = (i + 1) & (n.cap - 1);
		n.e[i] = m->e[k];
	}
	free(m->e);
	*m = n;
	return 0;
}

/* Find or insert (zeroed) the entry of (k1, k2).  Pointers into the map
 * last until the next insertion or deletion. */
static int kmap_get(struct kmap *m, uint64_t k1, uint64_t k2, struct kent **out)
{
	struct kent *x = kmap_find(m, k1, k2);

	if (x) {
		*out = x;
		return 0;
	}
	if ((m->n + 1) * 4 > m->cap * 3 && kmap_grow(m) < 0)
		return -ENOMEM;
	size_t i = kmap_home(m, k1, k2);
	while (m->e[i].used)
		i = (i + 1) & (m->cap - 1);
	m->e[i] = (struct kent){ .k1 = k1, .k2 = k2, .used = 1 };
	m->n++;
	*out = &m->e[i];
	return 0;
}

/* kmap_get, trying first the slot hint[k2 % KMAP_HINTS] (where the last
 * lookup of a key so placed ended: a rank's ops mostly go back to the same
 * few streams and files), taken only while it holds (k1, k2); it is set to
 * where this one ends. */
#define KMAP_HINTS 4
static inline int kmap_get_at(struct kmap *m, uint64_t k1, uint64_t k2, size_t *hints,
			      struct kent **out)
{
	size_t *hint = &hints[k2 % KMAP_HINTS];
	if (*hint < m->cap) {
		struct kent *x = &m->e[*hint];
		if (x->used && x->k1 == k1 && x->k2 == k2) {
			*out = x;
			return 0;
		}
	}
	int rc = kmap_get(m, k1, k2, out);
	if (!rc)
		*hint = (size_t)(*out - m->e);
	return rc;
}

/* Remove x (linear probing: later entries of its run shift back). */
static void kmap_del(struct kmap *m, struct kent *x)
{
	size_t mask = m->cap - 1, i = (size_t)(x - m->e), j = i;

	for (;;) {
		j = (j + 1) & mask;
		if (!m->e[j].used)
			break;
		size_t h = kmap_home(m, m->e[j].k1, m->e[j].k2);
		/* e[j] may fill the hole at i unless its home lies in (i, j] */
		int stays = i <= j ? (h > i && h <= j) : (h > i || h <= j);
		if (!stays) {
			m->e[i] = m->e[j];
			i = j;
		}
	}
	memset(&m->e[i], 0, sizeof(m->e[i]));
	m->n--;
}

/* ---- the accumulator --------------------------------------------------- */

struct stat_acc {
	struct stat_dir dir[2];           /* reads, writes                      */
	struct stat_hh delta[2], size[2];
	uint64_t kinds[OP__COUNT], synth[OP__COUNT], kinds_failed[OP__COUNT];
	uint64_t failed_ops, nofile_data_ops;
	struct stat_rank *ranks;          /* by the stream's rank index         */
	uint32_t nranks, capranks;
	struct stat_file *files;          /* by path id                         */
	uint32_t nfiles, capfiles;
	struct stat_file_rank *fr;        /* in the order they appear           */
	size_t nfr, capfr;
	struct kmap streams;              /* (rank, file << 32 | handle)        */
	struct kmap pairs;                /* (rank, file)                       */
	struct kmap async;                /* (rank, async id): pending submits  */
	size_t stream_hint[KMAP_HINTS];   /* kmap_get_at's                      */
	size_t pair_hint[KMAP_HINTS];
};

int stat_acc_new(struct stat_acc **a)
{
	*a = calloc(1, sizeof(**a));
	return *a ? 0 : -ENOMEM;
}

void stat_acc_free(struct stat_acc *a)
{
	if (!a)
		return;
	for (int d = 0; d < 2; d++) {
		stat_hh_release(&a->delta[d]);
		stat_hh_release(&a->size[d]);
	}
	free(a->ranks);
	free(a->files);
	free(a->fr);
	free(a->streams.e);
	free(a->pairs.e);
	free(a->async.e);
	free(a);
}

size_t stat_acc_entries(const struct stat_acc *a)
{
	return a->streams.n + a->pairs.n + a->async.n;
}

/* Room for entry `ix` in an array of `sz`-byte entries, new ones zeroed. */
static int room(void **p, uint32_t *n, uint32_t *cap, uint32_t ix, size_t sz)
{
	if (ix < *n)
		return 0;
	if (ix >= *cap) {
		uint64_t nc = *cap ? *cap : 16;
		while (nc <= ix)
			nc *= 2;
		char *np = realloc(*p, (size_t)nc * sz);
		if (!np)
			return -ENOMEM;
		memset(np + (size_t)*cap * sz, 0, (size_t)(nc - *cap) * sz);
		*p = np;
		*cap = (uint32_t)(nc > UINT32_MAX ? UINT32_MAX : nc);
	}
	*n = ix + 1;
	return 0;
}

/* n bytes moved in direction d by rank on file, whose (file, rank)
 * entry is fr (NULL none). */
static void add_bytes_fr(struct stat_acc *a, uint32_t rank, uint32_t file,
			 struct stat_file_rank *fr, int d, uint64_t n)
{
	struct stat_rank *rk = &a->ranks[rank];

	a->dir[d].bytes += n;
	if (d) {
		rk->bytes_written += n;
		if (file != OP_NOFILE)
			a->files[file].bytes_written += n;
		if (fr)
			fr->bytes_written += n;
	} else {
		rk->bytes_read += n;
		if (file != OP_NOFILE)
			a->files[file].bytes_read += n;
		if (fr)
			fr->bytes_read += n;
	}
}

static void add_bytes(struct stat_acc *a, uint32_t rank, uint32_t file, int d, uint64_t n)
{
	struct stat_file_rank *fr = NULL;

	if (file != OP_NOFILE) {
		const struct kent *p = kmap_find(&a->pairs, rank, file);
		if (p && p->ix)
			fr = &a->fr[p->ix - 1];
	}
	add_bytes_fr(a, rank, file, fr, d, n);
}

/* A successful data request of direction d: sizes, and the transition
 * from the previous request of its stream. */
static int request(struct stat_acc *a, int d, uint32_t rank, const struct op *op)
{
	struct stat_dir *sd = &a->dir[d];
	struct kent *st;
	int rc;

	sd->requests++;
	sd->req_bytes += op->len;
	sd->hist[stat_bucket_of(op->len)]++;
	/* Darshan's buckets count its records: a segment longer than one
	 * call, replayed in pieces, once (its first piece is 1G_PLUS too) */
	if (!(op->flags & OPF_PIECE))
		sd->dhist[stat_darshan_bucket_of(op->len)]++;
	if ((rc = stat_hh_add(&a->size[d], (int64_t)op->len)) < 0 ||
	    (rc = kmap_get_at(&a->streams, rank, (uint64_t)op->file << 32 | op->handle,
			      a->stream_hint, &st)) < 0)
		return rc;
	if (st->have[d]) {
		sd->transitions++;
		if (op->offset == st->off[d] + st->len[d])
			sd->sequential++;
		else if ((rc = stat_hh_add(&a->delta[d], (int64_t)(op->offset - st->off[d]))) < 0)
			return rc;
	}
	st->have[d] = 1;
	st->off[d] = op->offset;
	st->len[d] = op->len;
	return 0;
}

/* The (file, rank) entry of the pair p, made at the rank's first data op
 * on the file. */
static int fr_get(struct stat_acc *a, struct kent *p, struct stat_file_rank **out)
{
	uint32_t rank = (uint32_t)p->k1, file = (uint32_t)p->k2;

	if (!p->ix) {
		if (a->nfr == a->capfr) {
			size_t cap = a->capfr ? a->capfr * 2 : 64;
			void *n = realloc(a->fr, cap * sizeof(*a->fr));
			if (!n)
				return -ENOMEM;
			a->fr = n;
			a->capfr = cap;
		}
		if (a->nfr >= UINT32_MAX - 1)
			return -ENOMEM;
		a->fr[a->nfr] = (struct stat_file_rank){ .file = file, .rank = rank };
		p->ix = (uint32_t)++a->nfr;
	}
	*out = &a->fr[p->ix - 1];
	return 0;
}

/* An async submit: its bytes come with its await. */
static int submit(struct stat_acc *a, int d, uint32_t rank, uint32_t file, const struct op *op)
{
	struct kent *x;
	int rc = kmap_get(&a->async, rank, op->aux, &x);

	if (rc < 0)
		return rc;
	if (x->dir) /* id reused before its await: settle the old one */
		add_bytes(a, rank, x->ix, x->dir - 1, x->len[0]);
	x->dir = (uint8_t)(d + 1);
	x->len[0] = op->len;
	x->ix = file;
	return 0;
}

/* A data op; pair is its (rank, file) entry when it succeeded on a file. */
static int data_op(struct stat_acc *a, unsigned k, uint32_t rank, uint32_t file,
		   const struct op *op, struct kent *pair)
{
	struct stat_file_rank *fr = NULL;
	int d = op_is_write(k), rc;

	if (op->result < 0) {
		a->dir[d].failed++;
		return 0;
	}
	if (file == OP_NOFILE) {
		a->nofile_data_ops++;
	} else {
		if ((rc = fr_get(a, pair, &fr)) < 0)
			return rc;
		if (op->flags & OPF_PIECE)
			;               /* one record, counted at its first piece */
		else if (d)
			fr->writes++;
		else
			fr->reads++;
	}
	if ((rc = request(a, d, rank, op)) < 0)
		return rc;
	if (k == OP_READ || k == OP_WRITE) {
		add_bytes_fr(a, rank, file, fr, d, (uint64_t)op->result);
		return 0;
	}
	return submit(a, d, rank, file, op);
}

/* Counts every op and the file's ranks (pair: as for data_op). */
static void count_op(struct stat_acc *a, unsigned k, uint32_t rank, uint32_t file,
		     const struct op *op, struct kent *pair)
{
	struct stat_rank *rk = &a->ranks[rank];
	uint64_t end = op->t_ns + op->dur_ns;

	a->kinds[k]++;
	rk->kinds[k]++;
	rk->ops++;
	if (op->flags & OPF_SYNTH)
		a->synth[k]++;
	if (op->result < 0) {
		a->failed_ops++;
		a->kinds_failed[k]++;
	}
	if (end > rk->end_ns)
		rk->end_ns = end;
	rk->in_ops_ns += op->dur_ns;
	if (op->dur_ns)
		rk->timed = true;
	if (file == OP_NOFILE)
		return;
	a->files[file].ops++;
	if (pair && !pair->ok) {
		pair->ok = 1;
		a->files[file].nranks++;
	}
}

int stat_acc_op(struct stat_acc *a, uint32_t rank, const struct op *op)
{
	unsigned k = op->kind < OP__COUNT ? op->kind : OP_NONE;
	uint32_t file = op->file;
	struct kent *pair = NULL;
	int rc;

	if (rank == UINT32_MAX ||
	    room((void **)&a->ranks, &a->nranks, &a->capranks, rank, sizeof(*a->ranks)) < 0 ||
	    (file != OP_NOFILE &&
	     room((void **)&a->files, &a->nfiles, &a->capfiles, file, sizeof(*a->files)) < 0))
		return rank == UINT32_MAX ? -EINVAL : -ENOMEM;
	/* one lookup of the pair serves the counts, the data and the bytes */
	if (file != OP_NOFILE && op->result >= 0 &&
	    (rc = kmap_get_at(&a->pairs, rank, file, a->pair_hint, &pair)) < 0)
		return rc;
	count_op(a, k, rank, file, op, pair);
	if (op_has_path2(k) && op->result >= 0 && op->aux != OP_NOFILE) {
		/* a rename's or link's new name is a file the rank made (rsync's
		 * final names: else only their failed probes would name them) */
		struct kent *p2 = NULL;
		uint32_t to = (uint32_t)op->aux;
		if (room((void **)&a->files, &a->nfiles, &a->capfiles, to, sizeof(*a->files)) < 0)
			return -ENOMEM;
		if ((rc = kmap_get_at(&a->pairs, rank, to, a->pair_hint, &p2)) < 0)
			return rc;
		a->files[to].ops++;
		if (p2 && !p2->ok) {
			p2->ok = 1;
			a->files[to].nranks++;
		}
	}
	if (op_is_data(k))
		return data_op(a, k, rank, file, op, pair);
	if (k == OP_AWAIT) {
		struct kent *x = kmap_find(&a->async, rank, op->aux);
		if (x && x->dir) {
			uint64_t b = op->result >= 0 ? (uint64_t)op->result : x->len[0];
			add_bytes(a, rank, x->ix, x->dir - 1, b);
			kmap_del(&a->async, x);
		}
	} else if (k == OP_CLOSE) {
		/* handles are never reused after their close: the stream ends */
		struct kent *x = kmap_find(&a->streams, rank, (uint64_t)op->file << 32 | op->handle);
		if (x)
			kmap_del(&a->streams, x);
	}
	return 0;
}

/* The report's (file, rank) list: by rank, then first data op. */
static int fr_by_rank(struct stat_acc *a, struct stat_report *r)
{
	uint64_t *start = calloc((size_t)a->nranks + 1, sizeof(*start));

	r->fr = malloc((a->nfr ? a->nfr : 1) * sizeof(*r->fr));
	if (!start || !r->fr) {
		free(start);
		return -ENOMEM;
	}
	for (size_t i = 0; i < a->nfr; i++)
		start[a->fr[i].rank + 1]++;
	for (uint32_t k = 0; k < a->nranks; k++)
		start[k + 1] += start[k];
	for (size_t i = 0; i < a->nfr; i++)
		r->fr[start[a->fr[i].rank]++] = a->fr[i];
	r->nfr = a->nfr;
	free(start);
	return 0;
}

/* Ranks of the report: the filter's, with their names from s. */
static int ranks_of(const struct stat_acc *a, const struct opstream *s, const struct filter *f,
		    struct stat_report *r)
{
	r->ranks = calloc(r->nranks ? r->nranks : 1, sizeof(*r->ranks));
	if (!r->ranks)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->nranks; i++) {
		uint32_t sr = f ? f->kept[i] : i;
		struct stat_rank *rk = &r->ranks[i];
		if (sr < a->nranks)
			*rk = a->ranks[sr];
		rk->id = sr;
		rk->name = s->strs + s->ranks[sr].name;
		rk->pid = s->ranks[sr].pid;
		rk->host = opstream_rank_host(s, sr);
		if (rk->end_ns > r->duration_ns)
			r->duration_ns = rk->end_ns;
	}
	return 0;
}

static int patterns_of(struct stat_acc *a, struct stat_report *r)
{
	for (int d = 0; d < 2; d++) {
		struct stat_dir *sd = d ? &r->wr : &r->rd;
		int64_t sz;
		int rc;
		*sd = a->dir[d];
		if ((rc = stat_hh_top(&a->delta[d], &sd->top_delta, &sd->top_delta_n)) < 0 ||
		    (rc = stat_hh_top(&a->size[d], &sz, &sd->top_size_n)) < 0)
			return rc;
		sd->top_size = (uint64_t)sz;
		sd->pattern = stat_classify(sd);
	}
	return 0;
}

void stat_release(struct stat_report *r)
{
	free(r->ranks);
	free(r->files);
	free(r->fr);
	for (uint32_t i = 0; i < r->nhosts; i++)
		free(r->hosts[i].ranks);
	free(r->hosts);
	free(r->ostsets);
	free(r->ostbuf);
	memset(r, 0, sizeof(*r));
}

/* ---- hosts and Lustre OST sets ----------------------------------------- */

static int hosts_compute(struct stat_report *r)
{
	int any = 0;

	for (uint32_t i = 0; i < r->nranks && !any; i++)
		any = r->ranks[i].host[0] != 0;
	if (!any)
		return 0;
	r->hosts = calloc(r->nranks, sizeof(*r->hosts));
	if (!r->hosts)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->nranks; i++) {
		const char *h = r->ranks[i].host;
		uint32_t k;
		for (k = 0; k < r->nhosts; k++)     /* hosts are few; ranks per host many */
			if (r->hosts[k].name == h || !strcmp(r->hosts[k].name, h))
				break;
		struct stat_host *sh = &r->hosts[k];
		if (k == r->nhosts) {
			sh->name = h;
			sh->ranks = malloc(r->nranks * sizeof(*sh->ranks));
			if (!sh->ranks)
				return -ENOMEM;
			r->nhosts++;
		}
		sh->ranks[sh->nranks++] = r->ranks[i].id;
		sh->bytes_read += r->ranks[i].bytes_read;
		sh->bytes_written += r->ranks[i].bytes_written;
	}
	return 0;
}

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static int cmp_ostset(const void *a, const void *b)
{
	return strcmp(((const struct stat_ostset *)a)->osts, ((const struct stat_ostset *)b)->osts);
}

/*
 * Lines "lustre_osts=SET<TAB>PATH" (DXT, replay-ops(5)) give a path's OST
 * set.  Paths are looked up in the path table through a small hash; the
 * sets are copied (they are not NUL-terminated in the blob).
 */
static int ostsets_compute(const struct opstream *s, struct stat_report *r, uint32_t *all_nf)
{
	static const char key[] = "lustre_osts=";
	size_t kl = sizeof(key) - 1, cap = 0, blen = 0, nlines = 0;
	uint32_t *tab = NULL;
	int rc = 0;

	for (const char *p = s->info; (p = strstr(p, key)); p += kl)
		if (p == s->info || p[-1] == '\n')
			nlines++, blen += strcspn(p + kl, "\t\n") + 1;
	if (!nlines)
		return 0;
	cap = 1;
	while (cap < 2 * (size_t)s->npaths + 2)
		cap *= 2;
	tab = calloc(cap, sizeof(*tab));
	r->ostbuf = malloc(blen);
	r->ostsets = calloc(nlines, sizeof(*r->ostsets));
	if (!tab || !r->ostbuf || !r->ostsets) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < s->npaths; i++) {
		const char *pn = s->strs + s->paths[i].name;
		size_t j = fnv(pn, strlen(pn)) & (cap - 1);
		while (tab[j])
			j = (j + 1) & (cap - 1);
		tab[j] = i + 1;
	}
	char *o = r->ostbuf;
	for (const char *p = s->info; (p = strstr(p, key)); p += kl) {
		if (p != s->info && p[-1] != '\n')
			continue;
		const char *set = p + kl;
		size_t sl = strcspn(set, "\t\n");
		if (set[sl] != '\t')
			continue;
		const char *path = set + sl + 1;
		size_t pl = strcspn(path, "\n");
		uint32_t id = UINT32_MAX;
		for (size_t j = fnv(path, pl) & (cap - 1); tab[j]; j = (j + 1) & (cap - 1)) {
			const char *pn = s->strs + s->paths[tab[j] - 1].name;
			if (strlen(pn) == pl && !memcmp(pn, path, pl)) {
				id = tab[j] - 1;
				break;
			}
		}
		if (id == UINT32_MAX) {
			r->osts_unmatched++;
			continue;
		}
		memcpy(o, set, sl);
		o[sl] = 0;
		r->files[id].osts = o;   /* files are still indexed by path id here */
		o += sl + 1;
	}
	/* group the files that have ops */
	for (uint32_t i = 0; i < *all_nf; i++) {
		const struct stat_file *f = &r->files[i];
		uint32_t k;
		if (!f->osts || !f->ops)
			continue;
		for (k = 0; k < r->nostsets; k++)
			if (!strcmp(r->ostsets[k].osts, f->osts))
				break;
		if (k == r->nostsets) {
			if (k == nlines)
				continue;
			r->ostsets[r->nostsets++].osts = f->osts;
		}
		r->ostsets[k].nfiles++;
		r->ostsets[k].bytes_read += f->bytes_read;
		r->ostsets[k].bytes_written += f->bytes_written;
	}
	qsort(r->ostsets, r->nostsets, sizeof(*r->ostsets), cmp_ostset);
out:
	free(tab);
	return rc;
}

/* Every path of s, with the counts of those the ops touched. */
static int files_of(const struct stat_acc *a, const struct opstream *s, struct stat_report *r)
{
	struct stat_file *all = calloc(s->npaths ? s->npaths : 1, sizeof(*all));

	if (!all)
		return -ENOMEM;
	r->files = all;
	for (uint32_t i = 0; i < s->npaths; i++) {
		if (i < a->nfiles)
			all[i] = a->files[i];
		all[i].id = i;
		all[i].path = s->strs + s->paths[i].name;
		all[i].truncated = !!(s->paths[i].flags & OPSP_TRUNCATED_NAME);
		if (all[i].truncated)
			r->truncated_names++;
	}
	return 0;
}

int stat_acc_finish(struct stat_acc *a, const struct opstream *s, const struct filter *f,
		    struct stat_report *r)
{
	int rc;

	memset(r, 0, sizeof(*r));
	/* submits never awaited: count what was submitted */
	for (size_t j = 0; j < a->async.cap; j++) {
		const struct kent *x = &a->async.e[j];
		if (x->used && x->dir)
			add_bytes(a, (uint32_t)x->k1, x->ix, x->dir - 1, x->len[0]);
	}
	r->nranks = f ? f->nkept : s->nranks;
	r->nops = f ? f->ops_kept : s->nops;
	memcpy(r->kinds, a->kinds, sizeof(r->kinds));
	memcpy(r->synth, a->synth, sizeof(r->synth));
	memcpy(r->kinds_failed, a->kinds_failed, sizeof(r->kinds_failed));
	r->failed_ops = a->failed_ops;
	r->nofile_data_ops = a->nofile_data_ops;
	if ((rc = patterns_of(a, r)) < 0 || (rc = ranks_of(a, s, f, r)) < 0 || (rc = fr_by_rank(a, r)) < 0 ||
	    (rc = files_of(a, s, r)) < 0 || (rc = hosts_compute(r)) < 0)
		goto out;
	uint32_t npaths = s->npaths;
	if ((rc = ostsets_compute(s, r, &npaths)) < 0)
		goto out;

	/* keep only files with ops, in path-id order */
	uint32_t nf = 0;
	for (uint32_t i = 0; i < s->npaths; i++) {
		if (!r->files[i].ops)
			continue;
		r->files[nf] = r->files[i];
		if (r->files[nf].nranks > 1)
			r->files_shared++;
		else if (!r->files[nf].nranks)
			r->files_failed++;
		nf++;
	}
	r->nfiles = nf;
out:
	if (rc < 0)
		stat_release(r);
	return rc;
}

int stat_compute(const struct opstream *s, const struct filter *f, struct stat_report *r)
{
	struct stat_acc *a = NULL;
	uint32_t nranks = f ? f->nkept : s->nranks;
	int rc = stat_acc_new(&a);

	for (uint32_t i = 0; i < nranks && !rc; i++) {
		uint32_t sr = f ? f->kept[i] : i;
		uint64_t n;
		const struct op *ops = opstream_rank_ops(s, sr, &n);
		for (uint64_t k = 0; k < n && !rc; k++)
			if (filter_op_kept(f, &ops[k]))
				rc = stat_acc_op(a, sr, &ops[k]);
	}
	if (!rc)
		rc = stat_acc_finish(a, s, f, r);
	else
		memset(r, 0, sizeof(*r));
	stat_acc_free(a);
	return rc;
}

/* ---- the sink: a trace's ops straight from the builder ---------------- */

static int sink_path(void *arg, uint32_t id, const char *name)
{
	struct stat_stream *ss = arg;

	return filter_path(ss->f, id, name);
}

static int sink_op(void *arg, uint32_t rank, const struct op *op)
{
	struct stat_stream *ss = arg;
	int rc = filter_op(ss->f, rank, op);

	return rc > 0 ? stat_acc_op(ss->acc, rank, op) : rc;
}

static int sink_launcher(void *arg, uint32_t rank, int64_t pid, const char *prog)
{
	struct stat_stream *ss = arg;

	return filter_launcher(ss->f, rank, pid, prog);
}

void stat_stream_sink(struct stat_stream *ss, struct ops_sink *sink)
{
	*sink = (struct ops_sink){ .path = sink_path, .op = sink_op, .launcher = sink_launcher,
				   .arg = ss };
}
