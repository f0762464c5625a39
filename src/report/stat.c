/*
 * stat.c - trace analysis behind `replay stat`.
 *
 * Two passes over the mapped records.  The first counts everything and
 * finds candidate dominant deltas and request sizes with a Misra-Gries
 * summary (bounded memory, whatever the trace size); the second counts
 * those few candidates exactly.  Per-rank state (streams, pending async
 * submits) lives in small hash tables reset between ranks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/stat.h"

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
	unsigned i = 0;
	uint64_t bound = 1024;

	while (i < STAT_NBUCKETS - 1 && size > bound) {
		bound <<= 1;
		i++;
	}
	return i;
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

/* ---- heavy hitters (Misra-Gries) ------------------------------------- */

#define HH_K 32

struct hh {
	int64_t key[HH_K];
	uint64_t cnt[HH_K];
	uint64_t exact[HH_K];   /* second pass */
	unsigned n;
};

static void hh_add(struct hh *h, int64_t key)
{
	for (unsigned i = 0; i < h->n; i++) {
		if (h->key[i] == key) {
			h->cnt[i]++;
			return;
		}
	}
	if (h->n < HH_K) {
		h->key[h->n] = key;
		h->cnt[h->n++] = 1;
		return;
	}
	unsigned j = 0;
	for (unsigned i = 0; i < h->n; i++) {
		if (--h->cnt[i] > 0) {
			h->key[j] = h->key[i];
			h->cnt[j++] = h->cnt[i];
		}
	}
	h->n = j;
}

static void hh_recount(struct hh *h, int64_t key)
{
	for (unsigned i = 0; i < h->n; i++) {
		if (h->key[i] == key) {
			h->exact[i]++;
			return;
		}
	}
}

/* Most frequent candidate by exact count; ties: smallest key. */
static void hh_top(const struct hh *h, int64_t *key, uint64_t *n)
{
	*key = 0;
	*n = 0;
	for (unsigned i = 0; i < h->n; i++) {
		if (h->exact[i] > *n || (h->exact[i] == *n && *n > 0 && h->key[i] < *key)) {
			*key = h->key[i];
			*n = h->exact[i];
		}
	}
}

/* ---- a small u64 -> slot hash map ----------------------------------- */

struct slot {
	uint64_t key;
	int used;
	/* stream state: last request per direction */
	int have[2];
	uint64_t off[2], len[2];
	/* async submit state */
	int dir;
	uint64_t alen;
};

struct umap {
	struct slot *s;
	size_t cap, n;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void umap_reset(struct umap *m)
{
	if (m->s && m->n)
		memset(m->s, 0, m->cap * sizeof(*m->s));
	m->n = 0;
}

static void umap_free(struct umap *m)
{
	free(m->s);
	m->s = NULL;
	m->cap = m->n = 0;
}

static struct slot *umap_find(struct umap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t i = mix64(key) & (m->cap - 1);
	while (m->s[i].used) {
		if (m->s[i].key == key)
			return &m->s[i];
		i = (i + 1) & (m->cap - 1);
	}
	return NULL;
}

static int umap_grow(struct umap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t k = 0; k < m->cap; k++) {
		if (!m->s[k].used)
			continue;
		size_t i = mix64(m->s[k].key) & (ncap - 1);
		while (ns[i].used)
			i = (i + 1) & (ncap - 1);
		ns[i] = m->s[k];
	}
	free(m->s);
	m->s = ns;
	m->cap = ncap;
	return 0;
}

/* Find or insert (zeroed) the slot of key. */
static int umap_get(struct umap *m, uint64_t key, struct slot **out)
{
	struct slot *sl = umap_find(m, key);

	if (sl) {
		*out = sl;
		return 0;
	}
	if ((m->n + 1) * 4 > m->cap * 3) {
		int rc = umap_grow(m);
		if (rc < 0)
			return rc;
	}
	size_t i = mix64(key) & (m->cap - 1);
	while (m->s[i].used)
		i = (i + 1) & (m->cap - 1);
	memset(&m->s[i], 0, sizeof(m->s[i]));
	m->s[i].used = 1;
	m->s[i].key = key;
	m->n++;
	*out = &m->s[i];
	return 0;
}

/* ---- the passes ------------------------------------------------------ */

struct walk {
	struct stat_report *r;
	struct umap streams, async;
	struct hh delta[2], size[2];
	int pass;               /* 1 or 2 */
	const struct filter *f;     /* ops it leaves out are not counted */
	uint32_t *fr_ix;        /* path id -> index in r->fr for this rank */
	uint32_t *touched;      /* path ids set in fr_ix                   */
	size_t ntouched, capfr;
};

static struct stat_dir *dir_of(struct stat_report *r, int d)
{
	return d ? &r->wr : &r->rd;
}

/* A successful data request of direction d on stream key. */
static int request(struct walk *w, int d, uint64_t key, const struct op *op)
{
	struct stat_dir *sd = dir_of(w->r, d);
	struct slot *st;
	int rc = umap_get(&w->streams, key, &st);

	if (rc < 0)
		return rc;
	if (w->pass == 1) {
		sd->requests++;
		sd->req_bytes += op->len;
		sd->hist[stat_bucket_of(op->len)]++;
		sd->dhist[stat_darshan_bucket_of(op->len)]++;
		hh_add(&w->size[d], (int64_t)op->len);
	} else {
		hh_recount(&w->size[d], (int64_t)op->len);
	}
	if (st->have[d]) {
		if (op->offset == st->off[d] + st->len[d]) {
			if (w->pass == 1) {
				sd->transitions++;
				sd->sequential++;
			}
		} else {
			int64_t delta = (int64_t)(op->offset - st->off[d]);
			if (w->pass == 1) {
				sd->transitions++;
				hh_add(&w->delta[d], delta);
			} else {
				hh_recount(&w->delta[d], delta);
			}
		}
	}
	st->have[d] = 1;
	st->off[d] = op->offset;
	st->len[d] = op->len;
	return 0;
}

/* The (file, rank) entry of file for the rank being walked. */
static int fr_get(struct walk *w, uint32_t rank, uint32_t file, struct stat_file_rank **out)
{
	struct stat_report *r = w->r;

	if (w->fr_ix[file] == UINT32_MAX) {
		if (r->nfr == w->capfr) {
			size_t cap = w->capfr ? w->capfr * 2 : 64;
			void *n = realloc(r->fr, cap * sizeof(*r->fr));
			if (!n)
				return -ENOMEM;
			r->fr = n;
			w->capfr = cap;
		}
		if (r->nfr >= UINT32_MAX)
			return -ENOMEM;
		r->fr[r->nfr] = (struct stat_file_rank){ .file = file, .rank = r->ranks[rank].id };
		w->fr_ix[file] = (uint32_t)r->nfr++;
		w->touched[w->ntouched++] = file;
	}
	*out = &r->fr[w->fr_ix[file]];
	return 0;
}

static void add_bytes(struct walk *w, uint32_t rank, uint32_t file, int d, uint64_t n)
{
	struct stat_report *r = w->r;
	struct stat_file_rank *fr = NULL;

	dir_of(r, d)->bytes += n;
	if (file != OP_NOFILE && w->fr_ix[file] != UINT32_MAX)
		fr = &r->fr[w->fr_ix[file]];
	if (d) {
		r->ranks[rank].bytes_written += n;
		if (file != OP_NOFILE)
			r->files[file].bytes_written += n;
		if (fr)
			fr->bytes_written += n;
	} else {
		r->ranks[rank].bytes_read += n;
		if (file != OP_NOFILE)
			r->files[file].bytes_read += n;
		if (fr)
			fr->bytes_read += n;
	}
}

/* Rank `rank` of the report, the stream's rank `sr`. */
static int walk_rank(struct walk *w, const struct opstream *s, uint32_t rank, uint32_t sr)
{
	struct stat_report *r = w->r;
	struct stat_rank *rk = &r->ranks[rank];
	uint64_t n;
	const struct op *ops = opstream_rank_ops(s, sr, &n);
	int rc = 0;

	umap_reset(&w->streams);
	umap_reset(&w->async);
	for (size_t i = 0; i < w->ntouched; i++)
		w->fr_ix[w->touched[i]] = UINT32_MAX;
	w->ntouched = 0;
	for (uint64_t i = 0; i < n; i++) {
		const struct op *op = &ops[i];
		unsigned k = op->kind < OP__COUNT ? op->kind : OP_NONE;
		uint32_t file = op->file < s->npaths ? op->file : OP_NOFILE;

		if (!filter_op_kept(w->f, op))
			continue;
		if (w->pass == 1) {
			r->kinds[k]++;
			rk->kinds[k]++;
			rk->ops++;
			if (op->flags & OPF_SYNTH)
				r->synth[k]++;
			if (op->result < 0)
				r->failed_ops++;
			uint64_t end = op->t_ns + op->dur_ns;
			if (end > rk->end_ns)
				rk->end_ns = end;
			rk->in_ops_ns += op->dur_ns;
			if (op->dur_ns)
				rk->timed = true;
			if (file != OP_NOFILE) {
				struct stat_file *f = &r->files[file];
				if (op->result >= 0 && (!f->nranks || f->last_rank != rank)) {
					f->nranks++;
					f->last_rank = rank;
				}
				f->ops++;
			}
		}

		if (op_is_data(k)) {
			int d = op_is_write(k);
			if (op->result < 0) {
				if (w->pass == 1)
					dir_of(r, d)->failed++;
				continue;
			}
			if (w->pass == 1 && file == OP_NOFILE)
				r->nofile_data_ops++;
			if (w->pass == 1 && file != OP_NOFILE) {
				struct stat_file_rank *fr;
				rc = fr_get(w, rank, file, &fr);
				if (rc < 0)
					return rc;
				if (d)
					fr->writes++;
				else
					fr->reads++;
			}
			uint64_t key = ((uint64_t)op->file << 32) | op->handle;
			rc = request(w, d, key, op);
			if (rc < 0)
				return rc;
			if (w->pass != 1)
				continue;
			if (k == OP_READ || k == OP_WRITE) {
				add_bytes(w, rank, file, d, (uint64_t)op->result);
			} else {
				/* async submit: bytes come with its await */
				struct slot *a;
				rc = umap_get(&w->async, op->aux, &a);
				if (rc < 0)
					return rc;
				if (a->dir) /* id reused before its await: settle the old one */
					add_bytes(w, rank, (uint32_t)a->off[0], a->dir - 1, a->alen);
				a->dir = d + 1;
				a->alen = op->len;
				a->off[0] = file;
			}
		} else if (k == OP_AWAIT && w->pass == 1) {
			struct slot *a = umap_find(&w->async, op->aux);
			if (a && a->dir) {
				uint64_t b = op->result >= 0 ? (uint64_t)op->result : a->alen;
				add_bytes(w, rank, (uint32_t)a->off[0], a->dir - 1, b);
				a->dir = 0;
			}
		}
	}
	if (w->pass == 1) {
		/* submits never awaited: count what was submitted */
		for (size_t j = 0; j < w->async.cap; j++) {
			struct slot *a = &w->async.s[j];
			if (a->used && a->dir)
				add_bytes(w, rank, (uint32_t)a->off[0], a->dir - 1, a->alen);
		}
		if (rk->end_ns > r->duration_ns)
			r->duration_ns = rk->end_ns;
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

int stat_compute(const struct opstream *s, const struct filter *f, struct stat_report *r)
{
	struct walk w;
	struct stat_file *all = NULL;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	memset(&w, 0, sizeof(w));
	w.r = r;
	w.f = f;
	r->nranks = f ? f->nkept : s->nranks;
	r->nops = f ? f->ops_kept : s->nops;
	r->ranks = calloc(s->nranks ? s->nranks : 1, sizeof(*r->ranks));
	all = calloc(s->npaths ? s->npaths : 1, sizeof(*all));
	if (!r->ranks || !all) {
		rc = -ENOMEM;
		goto out;
	}
	r->files = all;
	for (uint32_t i = 0; i < r->nranks; i++) {
		uint32_t sr = f ? f->kept[i] : i;
		r->ranks[i].id = sr;
		r->ranks[i].name = s->strs + s->ranks[sr].name;
		r->ranks[i].pid = s->ranks[sr].pid;
		r->ranks[i].host = opstream_rank_host(s, sr);
	}
	w.fr_ix = malloc((s->npaths ? s->npaths : 1) * sizeof(*w.fr_ix));
	w.touched = malloc((s->npaths ? s->npaths : 1) * sizeof(*w.touched));
	if (!w.fr_ix || !w.touched) {
		rc = -ENOMEM;
		goto out;
	}
	memset(w.fr_ix, 0xff, (s->npaths ? s->npaths : 1) * sizeof(*w.fr_ix));
	for (uint32_t i = 0; i < s->npaths; i++) {
		all[i].id = i;
		all[i].path = s->strs + s->paths[i].name;
		all[i].truncated = !!(s->paths[i].flags & OPSP_TRUNCATED_NAME);
		if (all[i].truncated)
			r->truncated_names++;
	}

	for (w.pass = 1; w.pass <= 2; w.pass++) {
		for (int d = 0; d < 2; d++) {
			memset(w.delta[d].exact, 0, sizeof(w.delta[d].exact));
			memset(w.size[d].exact, 0, sizeof(w.size[d].exact));
		}
		for (uint32_t i = 0; i < r->nranks; i++) {
			rc = walk_rank(&w, s, i, f ? f->kept[i] : i);
			if (rc < 0)
				goto out;
		}
	}
	for (int d = 0; d < 2; d++) {
		struct stat_dir *sd = dir_of(r, d);
		int64_t sz;
		hh_top(&w.delta[d], &sd->top_delta, &sd->top_delta_n);
		hh_top(&w.size[d], &sz, &sd->top_size_n);
		sd->top_size = (uint64_t)sz;
		sd->pattern = stat_classify(sd);
	}

	rc = hosts_compute(r);
	if (rc < 0)
		goto out;
	uint32_t npaths = s->npaths;
	rc = ostsets_compute(s, r, &npaths);
	if (rc < 0)
		goto out;

	/* keep only files with ops, in path-id order */
	uint32_t nf = 0;
	for (uint32_t i = 0; i < s->npaths; i++) {
		if (!all[i].ops)
			continue;
		all[nf] = all[i];
		if (all[nf].nranks > 1)
			r->files_shared++;
		else if (!all[nf].nranks)
			r->files_failed++;
		nf++;
	}
	r->nfiles = nf;
out:
	free(w.fr_ix);
	free(w.touched);
	umap_free(&w.streams);
	umap_free(&w.async);
	if (rc < 0)
		stat_release(r);
	return rc;
}
