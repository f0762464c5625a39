/*
 * darshan_log.c - binary Darshan logs read by replay itself: the text
 * `darshan-dxt-parser --show-incomplete` (darshan-util 3.5.0) prints for a
 * log, so that a site's .darshan files replay on a machine without
 * darshan-util.  dxt_input.c runs it in a child process writing into the
 * pipe the DXT text reader reads, as it runs the tool itself otherwise.
 *
 * The log (the facts are from Darshan's darshan-log-format.h,
 * darshan-logutils.c and darshan-dxt-logutils.c; the layout is the writer's
 * C structs, natural alignment, in the writer's byte order, which the
 * magic number tells):
 *
 *   header, uncompressed: char version[8] ("3.21"), int64 magic (6567223),
 *     uint8 compression (0 zlib, 1 bzip2, 2 none), then
 *       format 3.41:       uint64 partial flags at 24, name map at 32, 64
 *                          module maps at 48, 64 uint32 module versions
 *                          at 1072 (1328 bytes in all);
 *       formats 3.10-3.21: uint32 partial flags at 20, name map at 24, 16
 *                          module maps at 40, 16 versions at 296 (360);
 *     a map is {uint64 offset, uint64 length} of a region in the file;
 *   job region (from the header's end to the first region): int64 uid,
 *     start_sec, [start_nsec,] end_sec, [end_nsec,] nprocs, jobid (the
 *     nsec fields from 3.41 on), char metadata[1024] ("key=value\n"...),
 *     then the command line and, one per '\n', "fstype\tmountpoint";
 *   name region: {uint64 record id, NUL-terminated path}...;
 *   module regions: records, a DXT one being uint64 id, int64 rank, int64
 *     shared, char hostname[64], int64 write_count, read_count (104
 *     bytes), then write_count + read_count segments of int64 offset,
 *     length, double start, end (seconds from the rank's start) and, from
 *     DXT_POSIX version 2 and DXT_MPIIO version 3 on, uint64 pthread id.
 *   DXT_MPIIO version 1 stored no offsets (printed as -1).
 *
 * Every region but the header is compressed as one or more back-to-back
 * zlib (or bzip2) streams, each rank's data being its own stream.  Module
 * ids moved: 3.20 added H5D at 4, 3.41 PNETCDF_VAR at 6, so a log's id is
 * mapped to today's before use (DXT_POSIX is 8 in 3.10, 9 in 3.2x, 10 in
 * 3.41).
 *
 * The LUSTRE module (version 1: one layout of stripe size and count, then
 * the OST ids; version 2: components of 7 counters and a 16-byte pool name,
 * then the OST ids) gives the X_POSIX lines their OST columns.  What is
 * not printed: the pthread columns of development versions after 3.5.0.
 *
 * Memory: the name region is held (ids and paths); a module region is
 * read as a stream, one segment at a time, so a log of any size is
 * printed in bounded memory.
 */
#include <bzlib.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "trace/dxt.h"

#define MAGIC 6567223
#define MAX_MODS 64
#define NKNOWN 18                 /* the modules darshan-util 3.5.0 knows  */
#define MOD_LUSTRE 8
#define MOD_DXT_POSIX 10
#define MOD_DXT_MPIIO 11
#define HEADER_341 1328           /* sizeof(struct darshan_header) today  */
#define JOB_META 1024
#define REC_HEAD 104
#define IN_CHUNK (64u * 1024u)
#define OUT_CHUNK (256u * 1024u)   /* decompressed at a time: records are read
                                    * 32-104 bytes at a time, and one inflate
                                    * call each cost more than the rest */

static const char *const mod_names[NKNOWN] = {
	"NULL", "POSIX", "MPI-IO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR", "BG/Q",
	"LUSTRE", "STDIO", "DXT_POSIX", "DXT_MPIIO", "MDHIM", "APXC", "APMPI", "HEATMAP",
	"DFS", "DAOS",
};

struct dmap {
	uint64_t off, len;
};

struct name {
	uint64_t id;
	char *path;
};

struct mount {
	char *type, *path;
	size_t plen;
};

/* A Lustre layout component (the counters the OST columns need). */
struct lcomp {
	int64_t size, count, start, end;        /* end -1: EOF */
};

struct lustre {
	uint64_t id;
	size_t seq;               /* order in the module (the last one wins) */
	int64_t ncomps, nosts;
	struct lcomp *comps;
	int64_t *osts;
};

/* One region read as a stream of bytes. */
struct region {
	const struct dmap *m;
	uint64_t used;            /* compressed bytes taken from the file  */
	unsigned char *in;        /* IN_CHUNK of them                      */
	unsigned char *out;       /* OUT_CHUNK decompressed, read from opos */
	size_t opos, olen;
	bool oend;                /* the region's data ends with out's     */
	int kind;                 /* 0 zlib, 1 bzip2, 2 none               */
	bool live;                /* the decompressor is initialised       */
	z_stream z;
	bz_stream b;
};

struct dlog {
	int fd;
	uint64_t size;
	char version[9];
	int minor;                /* 10, 20, 21, 41                        */
	int64_t nprocs;           /* the job's processes                   */
	bool swap;
	int comp;
	uint64_t partial;         /* bit per (today's) module id           */
	struct dmap job, names, mods[MAX_MODS];
	uint32_t ver[MAX_MODS];
	struct name *nv;
	size_t nn;
	struct mount *mv;
	size_t nm;
	struct lustre *lv;
	size_t nl;
	char *why;
	size_t whylen;
};

static int fail(struct dlog *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct dlog *L, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(L->why, L->whylen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t u64(const struct dlog *L, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return L->swap ? __builtin_bswap64(v) : v;
}

static int64_t i64(const struct dlog *L, const unsigned char *p)
{
	return (int64_t)u64(L, p);
}

static uint32_t u32(const struct dlog *L, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return L->swap ? __builtin_bswap32(v) : v;
}

static double f64(const struct dlog *L, const unsigned char *p)
{
	uint64_t v = u64(L, p);
	double d;

	memcpy(&d, &v, 8);
	return d;
}

int darshan_log_version(const char *head, size_t n)
{
	static const char *const known[] = { "3.10", "3.20", "3.21", "3.41" };

	if (n < 16 || !dxt_is_darshan_log(head, n))
		return 0;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strncmp(head, known[i], 8))
			return atoi(head + 2);
	return 0;
}

static int read_at(struct dlog *L, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(L->fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail(L, "cannot read the log: %s", strerror(errno));
		if (r == 0)
			return fail(L, "the log ends at byte %" PRIu64 ", inside its header"
				    " (a truncated file?)", off + got);
		got += (size_t)r;
	}
	return 0;
}

/* Today's module id of a log's id i, or -1 (a slot no module had). */
static int mod_today(int minor, int i)
{
	if (minor < 20 && i >= 4)
		i++;            /* H5D came at 4 in 3.2.0 */
	if (minor < 41 && i >= 6)
		i++;            /* PNETCDF_VAR at 6 in 3.4.1 */
	return i < MAX_MODS ? i : -1;
}

static int read_header(struct dlog *L)
{
	unsigned char h[HEADER_341];
	struct stat st;
	uint64_t hsize;

	if (fstat(L->fd, &st) < 0)
		return fail(L, "cannot stat the log: %s", strerror(errno));
	L->size = (uint64_t)st.st_size;
	if (read_at(L, h, 16, 0) < 0)
		return -1;
	memcpy(L->version, h, 8);
	L->version[8] = 0;
	L->minor = atoi(L->version + 2);
	hsize = L->minor >= 41 ? HEADER_341 : 360;
	if (read_at(L, h, hsize, 0) < 0)
		return -1;
	uint64_t magic;
	memcpy(&magic, h + 8, 8);
	if (magic != MAGIC) {
		if (__builtin_bswap64(magic) != MAGIC)
			return fail(L, "not a Darshan log (bad magic number)");
		L->swap = true;
	}
	L->comp = h[16];
	if (L->comp > 2)
		return fail(L, "unknown compression method %d in the header", L->comp);
	const unsigned char *maps;
	const unsigned char *vers;
	int nmods;
	uint64_t partial;
	if (L->minor >= 41) {
		partial = u64(L, h + 24);
		maps = h + 32;
		nmods = MAX_MODS;
		vers = h + 32 + 16 * (1 + MAX_MODS);
	} else {
		partial = u32(L, h + 20);
		maps = h + 24;
		nmods = 16;
		vers = h + 24 + 16 * (1 + 16);
	}
	L->names.off = u64(L, maps);
	L->names.len = u64(L, maps + 8);
	for (int i = 0; i < nmods; i++) {
		int t = mod_today(L->minor, i);
		if (t < 0)
			continue;
		L->mods[t].off = u64(L, maps + 16 * (1 + i));
		L->mods[t].len = u64(L, maps + 16 * (1 + i) + 8);
		L->ver[t] = u32(L, vers + 4 * i);
		if (partial & (1ull << i))
			L->partial |= 1ull << t;
	}
	/* the job region: from the header to the first region that follows */
	L->job.off = hsize;
	uint64_t end = L->names.off;
	for (int i = 0; !end && i < MAX_MODS; i++)
		end = L->mods[i].off;
	if (!end)
		end = L->size;
	if (end < hsize)
		return fail(L, "the header's region map is corrupt (a region starts inside the header)");
	L->job.len = end - hsize;
	const struct dmap *all[2 + MAX_MODS] = { &L->job, &L->names };
	for (int i = 0; i < MAX_MODS; i++)
		all[2 + i] = &L->mods[i];
	for (int i = 0; i < 2 + MAX_MODS; i++)
		if (all[i]->len && (all[i]->off > L->size || all[i]->len > L->size - all[i]->off))
			return fail(L, "a region runs past the end of the log (byte %" PRIu64
				    " of %" PRIu64 "): a truncated file?",
				    all[i]->off + all[i]->len, L->size);
	return 0;
}

/* ---- regions as streams ---------------------------------------------- */

static void region_end(struct region *r)
{
	if (r->live) {
		if (r->kind == 0)
			inflateEnd(&r->z);
		else if (r->kind == 1)
			BZ2_bzDecompressEnd(&r->b);
	}
	r->live = false;
	free(r->in);
	free(r->out);
	r->in = r->out = NULL;
}

static int region_start(struct dlog *L, struct region *r, const struct dmap *m)
{
	memset(r, 0, sizeof(*r));
	r->m = m;
	r->kind = L->comp;
	r->in = malloc(IN_CHUNK);
	r->out = malloc(OUT_CHUNK);
	if (!r->in || !r->out)
		return fail(L, "out of memory");
	if (r->kind == 0 && inflateInit(&r->z) != Z_OK)
		return fail(L, "cannot start zlib");
	if (r->kind == 1 && BZ2_bzDecompressInit(&r->b, 0, 0) != BZ_OK)
		return fail(L, "cannot start bzip2");
	r->live = r->kind != 2;
	return 0;
}

/* More compressed input: bytes loaded, 0 at the region's end, -1. */
static ssize_t region_load(struct dlog *L, struct region *r)
{
	uint64_t left = r->m->len - r->used;
	size_t n = left < IN_CHUNK ? (size_t)left : IN_CHUNK;

	if (!n)
		return 0;
	if (read_at(L, r->in, n, r->m->off + r->used) < 0)
		return -1;
	r->used += n;
	return (ssize_t)n;
}

/* Up to n bytes of the region's data decompressed into buf: fewer only at
 * its end; -1. */
static ssize_t region_fill(struct dlog *L, struct region *r, void *buf, size_t n)
{
	size_t got = 0;

	if (r->kind == 2) {
		uint64_t left = r->m->len - r->used;
		size_t k = left < n ? (size_t)left : n;
		if (k && read_at(L, buf, k, r->m->off + r->used) < 0)
			return -1;
		r->used += k;
		return (ssize_t)k;
	}
	while (got < n) {
		unsigned avail = r->kind == 0 ? r->z.avail_in : r->b.avail_in;
		if (!avail) {
			ssize_t k = region_load(L, r);
			if (k < 0)
				return -1;
			if (!k)
				break;
			if (r->kind == 0) {
				r->z.next_in = r->in;
				r->z.avail_in = (unsigned)k;
			} else {
				r->b.next_in = (char *)r->in;
				r->b.avail_in = (unsigned)k;
			}
		}
		if (r->kind == 0) {
			r->z.next_out = (unsigned char *)buf + got;
			r->z.avail_out = (unsigned)(n - got);
			int rc = inflate(&r->z, Z_NO_FLUSH);
			got = n - r->z.avail_out;
			if (rc == Z_STREAM_END)
				inflateReset(&r->z);    /* the next rank's stream */
			else if (rc != Z_OK && rc != Z_BUF_ERROR)
				return fail(L, "corrupt compressed data (zlib: %s)",
					    r->z.msg ? r->z.msg : "error");
		} else {
			r->b.next_out = (char *)buf + got;
			r->b.avail_out = (unsigned)(n - got);
			int rc = BZ2_bzDecompress(&r->b);
			got = n - r->b.avail_out;
			if (rc == BZ_STREAM_END) {
				BZ2_bzDecompressEnd(&r->b);
				r->live = false;
				char *ni = r->b.next_in;
				unsigned na = r->b.avail_in;
				memset(&r->b, 0, sizeof(r->b));
				if (BZ2_bzDecompressInit(&r->b, 0, 0) != BZ_OK)
					return fail(L, "cannot start bzip2");
				r->live = true;
				r->b.next_in = ni;
				r->b.avail_in = na;
			} else if (rc != BZ_OK) {
				return fail(L, "corrupt compressed data (bzip2 error %d)", rc);
			}
		}
	}
	return (ssize_t)got;
}

/* Up to n bytes of the region's data, through r->out: fewer only at its
 * end; -1. */
static ssize_t region_read(struct dlog *L, struct region *r, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		if (r->opos == r->olen) {
			if (r->oend)
				break;
			ssize_t k = region_fill(L, r, r->out, OUT_CHUNK);
			if (k < 0)
				return -1;
			r->opos = 0;
			r->olen = (size_t)k;
			r->oend = (size_t)k < OUT_CHUNK;
			if (!k)
				break;
		}
		size_t c = r->olen - r->opos < n - got ? r->olen - r->opos : n - got;
		memcpy((char *)buf + got, r->out + r->opos, c);
		r->opos += c;
		got += c;
	}
	return (ssize_t)got;
}

/* The whole region into a malloc'ed buffer (NUL after it); -1. */
static int region_slurp(struct dlog *L, const struct dmap *m, char **out, size_t *len)
{
	struct region r;
	size_t cap = 64 * 1024, n = 0;
	char *b = NULL;

	*out = NULL;
	*len = 0;
	if (region_start(L, &r, m) < 0) {
		region_end(&r);
		return -1;
	}
	for (;;) {
		if (cap - n < 4096) {
			cap *= 2;
		}
		char *nb = realloc(b, cap + 1);
		if (!nb) {
			free(b);
			region_end(&r);
			return fail(L, "out of memory");
		}
		b = nb;
		ssize_t k = region_read(L, &r, b + n, cap - n);
		if (k < 0) {
			free(b);
			region_end(&r);
			return -1;
		}
		n += (size_t)k;
		if (n < cap)
			break;
	}
	region_end(&r);
	b[n] = 0;
	*out = b;
	*len = n;
	return 0;
}

/* ---- job, mounts, names ------------------------------------------------ */

struct job {
	int64_t uid, start, start_ns, end, end_ns, nprocs, jobid;
	char meta[JOB_META + 1];
	char *exe;                /* into the trailing text                 */
	bool has_exe;             /* it ended with '\n' (else not printed)  */
};

static int cmp_mount(const void *a, const void *b)
{
	const struct mount *x = a, *y = b;

	/* longest path first; equal lengths keep the log's order (the index
	 * is in type's slot until the sort is done, see read_mounts) */
	if (x->plen != y->plen)
		return x->plen > y->plen ? -1 : 1;
	return (x->type > y->type) - (x->type < y->type);
}

/* The mount table after the command line: "type\tpath" per '\n' (text
 * starts at the command line's '\n'); blank lines are passed over. */
static int read_mounts(struct dlog *L, char *text)
{
	size_t cap = 0;
	char *p = text;

	while (p) {
		*p++ = 0;                       /* ends the previous line */
		char *nl = strchr(p, '\n');
		char *t = p + strspn(p, " \t");
		size_t tl = strcspn(t, " \t\n");
		char *q = t + tl;
		q += strspn(q, " \t");
		size_t ql = strcspn(q, " \t\n");
		p = nl;
		if (!tl && (!*t || *t == '\n'))
			continue;
		if (!tl || !ql)
			return fail(L, "poorly formatted mount table in the job region");
		if (L->nm == cap) {
			cap = cap ? cap * 2 : 16;
			struct mount *nv = realloc(L->mv, cap * sizeof(*nv));
			if (!nv)
				return fail(L, "out of memory");
			L->mv = nv;
		}
		L->mv[L->nm++] = (struct mount){ .type = t, .path = q, .plen = ql };
		t[tl] = 0;
		if (q + ql != nl)
			q[ql] = 0;      /* else the next round ends it */
	}
	return 0;
}

static int read_job(struct dlog *L, struct job *j, char **buf)
{
	size_t len;

	if (region_slurp(L, &L->job, buf, &len) < 0)
		return -1;
	const unsigned char *p = (const unsigned char *)*buf;
	size_t fixed = L->minor >= 41 ? 56 : 40;
	if (len < fixed + JOB_META)
		return fail(L, "the job region holds %zu bytes, fewer than a job record's %zu",
			    len, fixed + JOB_META);
	memset(j, 0, sizeof(*j));
	j->uid = i64(L, p);
	j->start = i64(L, p + 8);
	if (L->minor >= 41) {
		j->start_ns = i64(L, p + 16);
		j->end = i64(L, p + 24);
		j->end_ns = i64(L, p + 32);
		j->nprocs = i64(L, p + 40);
		j->jobid = i64(L, p + 48);
	} else {
		j->end = i64(L, p + 16);
		j->nprocs = i64(L, p + 24);
		j->jobid = i64(L, p + 32);
	}
	memcpy(j->meta, p + fixed, JOB_META);
	j->meta[JOB_META] = 0;
	j->exe = *buf + fixed + JOB_META;       /* NUL-terminated by slurp */
	char *nl = strchr(j->exe, '\n');
	if (!nl)
		return 0;       /* no newline: darshan-util prints no command line */
	j->has_exe = true;
	if (read_mounts(L, nl) < 0)
		return -1;
	/* stable: ties keep their order by the path's address (log order) */
	if (L->nm)
		qsort(L->mv, L->nm, sizeof(*L->mv), cmp_mount);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	const struct name *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->path > y->path) - (x->path < y->path);
}

static int read_names(struct dlog *L, char **buf)
{
	size_t len, cap = 0;

	if (!L->names.len)
		return 0;
	if (region_slurp(L, &L->names, buf, &len) < 0)
		return -1;
	char *p = *buf, *end = *buf + len;
	while (end - p >= 9) {
		char *name = p + 8;
		char *z = memchr(name, 0, (size_t)(end - name));
		if (!z)
			return fail(L, "the record table ends inside a name (a corrupt log?)");
		if (L->nn == cap) {
			cap = cap ? cap * 2 : 256;
			struct name *nv = realloc(L->nv, cap * sizeof(*nv));
			if (!nv)
				return fail(L, "out of memory");
			L->nv = nv;
		}
		L->nv[L->nn++] = (struct name){ .id = u64(L, (unsigned char *)p), .path = name };
		p = z + 1;
	}
	if (L->nn)
		qsort(L->nv, L->nn, sizeof(*L->nv), cmp_name);
	/* duplicates: the first one, unless it is empty and a later one not */
	size_t k = 0;
	for (size_t i = 0; i < L->nn; i++) {
		if (k && L->nv[k - 1].id == L->nv[i].id) {
			if (!L->nv[k - 1].path[0] && L->nv[i].path[0])
				L->nv[k - 1].path = L->nv[i].path;
			continue;
		}
		L->nv[k++] = L->nv[i];
	}
	L->nn = k;
	return 0;
}

static const char *name_of(const struct dlog *L, uint64_t id)
{
	size_t lo = 0, hi = L->nn;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (L->nv[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < L->nn && L->nv[lo].id == id ? L->nv[lo].path : NULL;
}

/* ---- Lustre layouts ------------------------------------------------------ */

#define LUSTRE_MAX (1 << 16)      /* components or stripes of one file: more is corruption */

static int cmp_lustre(const void *a, const void *b)
{
	const struct lustre *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Exactly n bytes of the region into buf: 1, 0 at its end (or a short
 * record), -1. */
static int region_take(struct dlog *L, struct region *r, void *buf, size_t n)
{
	ssize_t k = region_read(L, r, buf, n);

	return k < 0 ? -1 : (size_t)k == n;
}

/* One record of the LUSTRE module into *x: 1, 0 at the end, -1. */
static int lustre_record(struct dlog *L, struct region *r, struct lustre *x)
{
	unsigned char b[72];
	int rc;

	memset(x, 0, sizeof(*x));
	if (L->ver[MOD_LUSTRE] == 1) {
		/* id, rank, OSTs, MDTs, stripe offset, stripe size, stripe count */
		if ((rc = region_take(L, r, b, 56)) <= 0)
			return rc;
		x->id = u64(L, b);
		x->ncomps = 1;
		x->nosts = i64(L, b + 48);
		if (x->nosts < 0 || x->nosts > LUSTRE_MAX)
			return 0;
		x->comps = malloc(sizeof(*x->comps));
		if (!x->comps)
			return fail(L, "out of memory");
		x->comps[0] = (struct lcomp){ .size = i64(L, b + 40), .count = x->nosts,
					      .start = 0, .end = -1 };
	} else {
		/* id, rank, components, stripes; 72-byte components; OST ids */
		if ((rc = region_take(L, r, b, 32)) <= 0)
			return rc;
		x->id = u64(L, b);
		x->ncomps = i64(L, b + 16);
		x->nosts = i64(L, b + 24);
		if (x->ncomps < 0 || x->ncomps > LUSTRE_MAX || x->nosts < 0 || x->nosts > LUSTRE_MAX)
			return 0;
		x->comps = calloc((size_t)x->ncomps + 1, sizeof(*x->comps));
		if (!x->comps)
			return fail(L, "out of memory");
		for (int64_t i = 0; i < x->ncomps; i++) {
			if ((rc = region_take(L, r, b, 72)) <= 0)
				return rc;
			/* stripe size, count, pattern, flags, extent start, end */
			x->comps[i] = (struct lcomp){ .size = i64(L, b), .count = i64(L, b + 8),
						      .start = i64(L, b + 32), .end = i64(L, b + 40) };
		}
	}
	x->osts = malloc(((size_t)x->nosts + 1) * sizeof(*x->osts));
	if (!x->osts)
		return fail(L, "out of memory");
	for (int64_t i = 0; i < x->nosts; i++) {
		if ((rc = region_take(L, r, b, 8)) <= 0)
			return rc;
		x->osts[i] = i64(L, b);
	}
	/* unused components (stripe size -1) end the list; the stripes are
	 * those of the components kept */
	int64_t kept = 0;
	for (int64_t i = 0; i < x->ncomps; i++) {
		if (x->comps[i].size == -1) {
			x->ncomps = i;
			break;
		}
		if (x->comps[i].count < 0 || x->comps[i].count > LUSTRE_MAX)
			return 0;
		kept += x->comps[i].count;
	}
	if (kept < 0 || kept > x->nosts)
		return 0;
	x->nosts = kept;
	return 1;
}

static void lustre_free(struct lustre *x)
{
	free(x->comps);
	free(x->osts);
}

/* The LUSTRE module's layouts, for the OST columns of X_POSIX lines.  A
 * version or a record replay cannot read ends them (no OST columns from
 * there on): they are not needed to replay. */
static int read_lustre(struct dlog *L)
{
	struct region r;
	size_t cap = 0;
	int rc = 0;

	if (!L->mods[MOD_LUSTRE].len || L->ver[MOD_LUSTRE] < 1 || L->ver[MOD_LUSTRE] > 2)
		return 0;
	if (region_start(L, &r, &L->mods[MOD_LUSTRE]) < 0) {
		region_end(&r);
		return -1;
	}
	for (;;) {
		struct lustre x;
		rc = lustre_record(L, &r, &x);
		if (rc <= 0) {
			lustre_free(&x);
			break;
		}
		if (L->nl == cap) {
			cap = cap ? cap * 2 : 64;
			struct lustre *nv = realloc(L->lv, cap * sizeof(*nv));
			if (!nv) {
				lustre_free(&x);
				rc = fail(L, "out of memory");
				break;
			}
			L->lv = nv;
		}
		x.seq = L->nl;
		L->lv[L->nl++] = x;
	}
	region_end(&r);
	if (L->nl)
		qsort(L->lv, L->nl, sizeof(*L->lv), cmp_lustre);
	return rc < 0 ? -1 : 0;
}

/* The file's layout (the last record of its id), or NULL. */
static const struct lustre *lustre_of(const struct dlog *L, uint64_t id)
{
	size_t lo = 0, hi = L->nl;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (L->lv[mid].id <= id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && L->lv[lo - 1].id == id ? &L->lv[lo - 1] : NULL;
}

static void print_components(const struct lustre *x, FILE *out)
{
	int64_t o = 0;

	fputs("# DXT, Lustre stripe components:\n", out);
	for (int64_t i = 0; i < x->ncomps; i++) {
		const struct lcomp *c = &x->comps[i];
		fprintf(out, "#\t[Component %" PRId64 "] stripe_ext: %" PRId64 " - ", i + 1, c->start);
		if (c->end == -1)
			fputs("EOF, ", out);
		else
			fprintf(out, "%" PRId64 ", ", c->end);
		fprintf(out, "stripe_size: %" PRId64 ", stripe_count: %" PRId64 ", OSTs:", c->size,
			c->count);
		for (int64_t j = 0; j < c->count && o < x->nosts; j++)
			fprintf(out, " %" PRId64, x->osts[o++]);
		fputc('\n', out);
	}
}

/* The OSTs a segment [off, off + len) touches, " [N]" each, as
 * darshan-dxt-parser 3.5.0 lists them: component by component, stripe
 * by stripe from the one holding the offset, at most stripe_count of them
 * in all per component it reaches (components without stripes, data on
 * the MDT, have none). */
static void print_osts(const struct lustre *x, int64_t off, int64_t len, FILE *out)
{
	/* 128-bit: a corrupt layout's extents must not overflow */
	__int128 cur = off, stop = (__int128)off + len;
	int64_t base = 0, printed = 0;

	for (int64_t j = 0; j < x->ncomps; j++) {
		const struct lcomp *c = &x->comps[j];
		if (c->count == 0)
			continue;
		if (c->size > 0 && c->count > 0 && cur >= c->start && (cur < c->end || c->end == -1)) {
			__int128 in = cur - c->start;
			int64_t k = (int64_t)((in / c->size) % c->count);
			while (cur < stop && (cur < c->end || c->end == -1)) {
				if (base + k < x->nosts) {       /* " [%ld]" */
					char b[32], *e = b;
					*e++ = ' ';
					*e++ = '[';
					e = darshan_put_i64(e, x->osts[base + k], 0);
					*e++ = ']';
					fwrite(b, 1, (size_t)(e - b), out);
				}
				k = k == c->count - 1 ? 0 : k + 1;
				in = (in / c->size + 1) * c->size;
				cur = c->start + in;
				if (++printed >= c->count) {
					cur = c->end == -1 ? stop : c->end;
					break;
				}
			}
		}
		base += c->count;
	}
}

/* ---- printing ------------------------------------------------------------ */

static void print_job(const struct dlog *L, const struct job *j, FILE *out)
{
	static const char *const comp[] = { "ZLIB", "BZIP2", "NONE" };
	char meta[JOB_META + 1];
	char tbuf[64];
	time_t t;

	if (!strcmp(L->version, "3.20"))
		fputs("# WARNING: Darshan logs generated by runtime version 3.2.0 likely exhibit"
		      " some corruption in counter values.\n"
		      "#          This bug clearly results in bogus values for some"
		      " COMMON_ACCESS counters (POSIX, MPIIO, H5 modules),\n"
		      "#          but preceding data may also be corrupted.\n", out);
	fprintf(out, "# darshan log version: %s\n", L->version);
	fprintf(out, "# compression method: %s\n", comp[L->comp]);
	fprintf(out, "# exe: %s\n", j->has_exe ? j->exe : "");
	fprintf(out, "# uid: %" PRId64 "\n", j->uid);
	fprintf(out, "# jobid: %" PRId64 "\n", j->jobid);
	fprintf(out, "# start_time: %" PRId64 "\n", j->start);
	t = (time_t)j->start;
	fprintf(out, "# start_time_asci: %s", ctime_r(&t, tbuf) ? tbuf : "?\n");
	fprintf(out, "# end_time: %" PRId64 "\n", j->end);
	t = (time_t)j->end;
	fprintf(out, "# end_time_asci: %s", ctime_r(&t, tbuf) ? tbuf : "?\n");
	fprintf(out, "# nprocs: %" PRId64 "\n", j->nprocs);
	double run = L->minor >= 41
			     ? (double)((j->end + j->end_ns / 1e9) - (j->start + j->start_ns / 1e9))
			     : (double)j->end - (double)j->start + 1;      /* no overflow */
	fprintf(out, "# run time: %.4lf\n", run);
	memcpy(meta, j->meta, sizeof(meta));
	char *save = NULL;
	for (char *tok = strtok_r(meta, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = 0;
		fprintf(out, "# metadata: %s = %s\n", tok, eq + 1);
	}
	fputs("\n# log file regions\n# -------------------------------------------------------\n",
	      out);
	fprintf(out, "# header: %d bytes (uncompressed)\n", HEADER_341);
	fprintf(out, "# job data: %" PRIu64 " bytes (compressed)\n", L->job.len);
	fprintf(out, "# record table: %" PRIu64 " bytes (compressed)\n", L->names.len);
	for (int i = 0; i < MAX_MODS; i++) {
		if (!L->mods[i].len && !(L->partial & (1ull << i)))
			continue;
		if (i < NKNOWN)
			fprintf(out, "# %s module: %" PRIu64 " bytes (compressed), ver=%u\n",
				mod_names[i], L->mods[i].len, L->ver[i]);
		else
			fprintf(out, "# <UNKNOWN> module (id %d): %" PRIu64
				" bytes (compressed), ver=%u\n", i, L->mods[i].len, L->ver[i]);
	}
	fputs("\n# mounted file systems (mount point and fs type)\n"
	      "# -------------------------------------------------------\n", out);
	for (size_t i = 0; i < L->nm; i++)
		fprintf(out, "# mount entry:\t%s\t%s\n", L->mv[i].path, L->mv[i].type);
}

/* ---- printf's conversions of the segment lines, by hand ------------------ */

/* The n bytes of s right-aligned in w columns (printf's "%*s"); past the
 * text's end. */
static char *put_right_n(char *p, const char *s, size_t n, int w)
{
	for (int k = (int)n; k < w; k++)
		*p++ = ' ';
	memcpy(p, s, n);
	return p + n;
}

static char *put_right(char *p, const char *s, int w)
{
	return put_right_n(p, s, strlen(s), w);
}

/* v in decimal, right-aligned in w columns ("%*" PRId64). */
char *darshan_put_i64(char *p, int64_t v, int w)
{
	char d[24], *e = d + sizeof(d) - 1, *q = e;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do
		*--q = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--q = '-';
	return put_right_n(p, q, (size_t)(e - q), w);
}

/* v >= 0 rounded to 4 decimals as printf's "%*.4f" rounds it: the exact
 * binary value to the nearest, ties to even (v = m 2^e, so v 10^4 is
 * m 10^4 2^e, an integer shifted: done in 128 bits).  A value outside
 * [0, 1e12) or negative zero goes to snprintf. */
char *darshan_put_fix4(char *p, double v, int w)
{
	uint64_t bits;
	memcpy(&bits, &v, 8);
	int bexp = (int)(bits >> 52 & 0x7ff);
	if ((bits >> 63) || bexp == 0x7ff || !(v < 1e12)) {
		char t[64];
		snprintf(t, sizeof(t), "%*.4f", w, v);
		return put_right(p, t, w);
	}
	uint64_t m = bits & ((1ull << 52) - 1);
	int e;
	if (bexp) {
		m |= 1ull << 52;
		e = bexp - 1075;
	} else {
		e = -1074;      /* subnormal */
	}
	unsigned __int128 n = (unsigned __int128)m * 10000u;
	uint64_t r;
	if (e >= 0) {
		r = (uint64_t)(n << e);         /* < 1e16: v < 1e12 */
	} else if (-e >= 127) {
		r = 0;                          /* below 2^-60 */
	} else {
		int sh = -e;
		unsigned __int128 q = n >> sh, rem = n & (((unsigned __int128)1 << sh) - 1);
		unsigned __int128 half = (unsigned __int128)1 << (sh - 1);
		if (rem > half || (rem == half && (q & 1)))
			q++;
		r = (uint64_t)q;
	}
	char d[40], *e2 = d + sizeof(d) - 1, *q = e2;
	*e2 = 0;
	uint64_t frac = r % 10000, ip = r / 10000;
	for (int k = 0; k < 4; k++, frac /= 10)
		*--q = (char)('0' + frac % 10);
	*--q = '.';
	do
		*--q = (char)('0' + ip % 10);
	while (ip /= 10);
	return put_right_n(p, q, (size_t)(e2 - q), w);
}

/* A hostname darshan could have recorded: printable, no line break. */
static bool host_ok(const char *h)
{
	for (; *h; h++)
		if ((unsigned char)*h < 0x20 || *h == 0x7f)
			return false;
	return true;
}

/* One DXT module's records, streamed. */
static int print_module(struct dlog *L, int mod, FILE *out)
{
	bool posix = mod == MOD_DXT_POSIX;
	uint32_t v = L->ver[mod];
	const char *seg = posix ? "X_POSIX" : "X_MPIIO";
	size_t segsz = (posix ? v >= 2 : v >= 3) ? 40 : 32;
	unsigned char h[REC_HEAD], s[40];
	struct region r;
	int rc = 0;

	if (v == 0 || v > (posix ? 2u : 3u))
		return fail(L, "%s module version %u is not one replay reads (1 to %d)",
			    mod_names[mod], v, posix ? 2 : 3);
	fprintf(out, "\n# ***************************************************\n"
		     "# %s module data\n"
		     "# ***************************************************\n", mod_names[mod]);
	if (L->partial & (1ull << mod))
		fprintf(out, "\n# *WARNING*: The %s module contains incomplete data!\n"
			     "#            This happens when a module runs out of\n"
			     "#            memory to store new record data.\n"
			     "\n# To avoid this error, consult the darshan-runtime\n"
			     "# documentation and consider setting the\n"
			     "# DARSHAN_EXCLUDE_DIRS or DXT_TRIGGER_CONF_PATH\n"
			     "# environment variable to prevent Darshan from\n"
			     "# instrumenting unecessary files.\n", mod_names[mod]);
	if (region_start(L, &r, &L->mods[mod]) < 0) {
		region_end(&r);
		return -1;
	}
	for (uint64_t nrec = 0;; nrec++) {
		ssize_t k = region_read(L, &r, h, REC_HEAD);
		if (k < 0) {
			rc = -1;
			break;
		}
		if (k < REC_HEAD)
			break;          /* the module's end (a partial record too) */
		uint64_t id = u64(L, h);
		int64_t rank = i64(L, h + 8);
		int64_t nw = i64(L, h + 88), nr = i64(L, h + 96);
		char host[65];
		memcpy(host, h + 24, 64);
		host[64] = 0;
		if (nw < 0 || nr < 0 || nw > INT32_MAX || nr > INT32_MAX) {
			rc = fail(L, "%s record %" PRIu64 " (rank %" PRId64 ") has write_count %"
				  PRId64 ", read_count %" PRId64 ": a corrupt log", mod_names[mod],
				  nrec + 1, rank, nw, nr);
			break;
		}
		/* darshan-util prints what it finds; a record that cannot be
		 * one (its data decompressed into garbage) is refused here,
		 * rather than printed as text the DXT reader then fails on */
		if ((L->nprocs > 0 && rank >= L->nprocs) || rank < 0 || !host_ok(host)) {
			rc = fail(L, "%s record %" PRIu64 " has rank %" PRId64 " of %" PRId64
				  " processes%s: a corrupt log", mod_names[mod], nrec + 1, rank,
				  L->nprocs, host_ok(host) ? "" : " and an unprintable hostname");
			break;
		}
		const char *name = name_of(L, id);
		const char *mnt = "UNKNOWN", *fs = "UNKNOWN";
		for (size_t i = 0; name && i < L->nm; i++)
			if (!strncmp(L->mv[i].path, name, L->mv[i].plen)) {
				mnt = L->mv[i].path;
				fs = L->mv[i].type;
				break;
			}
		fprintf(out, "\n# DXT, file_id: %" PRIu64 ", file_name: %s\n", id,
			name ? name : "(null)");
		fprintf(out, "# DXT, rank: %" PRId64 ", hostname: %s\n", rank, host);
		fprintf(out, "# DXT, write_count: %" PRId64 ", read_count: %" PRId64 "\n", nw, nr);
		fprintf(out, "# DXT, mnt_pt: %s, fs_type: %s\n", mnt, fs);
		const struct lustre *lu = posix ? lustre_of(L, id) : NULL;
		if (lu)
			print_components(lu, out);
		fprintf(out, "# Module    Rank  Wt/Rd  Segment          Offset       Length"
			     "    Start(s)      End(s)%s\n", lu ? "   [OST]" : "");
		for (int64_t i = 0; i < nw + nr; i++) {
			k = region_read(L, &r, s, segsz);
			if (k < 0) {
				rc = -1;
				break;
			}
			if ((size_t)k < segsz) {
				rc = fail(L, "%s record %" PRIu64 " (rank %" PRId64 ", %s) ends after %"
					  PRId64 " of its %" PRId64 " segments: a truncated or corrupt log",
					  mod_names[mod], nrec + 1, rank, name ? name : "(no name)",
					  i, nw + nr);
				break;
			}
			bool w = i < nw;
			int64_t off = !posix && v == 1 ? -1 : i64(L, s);
			double t0 = f64(L, s + 16), t1 = f64(L, s + 24);
			/* an end beyond the largest offset (2^63 - 1) too */
			if (off < -1 || i64(L, s + 8) < 0 || off > INT64_MAX - i64(L, s + 8) ||
			    !(t0 >= 0 && t0 < 1e12) ||
			    !(t1 >= 0 && t1 < 1e12)) {
				rc = fail(L, "%s record %" PRIu64 " (rank %" PRId64 ", %s): segment %"
					  PRId64 " has offset %" PRId64 ", length %" PRId64
					  ", times %g-%g: a corrupt log", mod_names[mod], nrec + 1, rank,
					  name ? name : "(no name)", i, off, i64(L, s + 8), t0, t1);
				break;
			}
			int64_t len = i64(L, s + 8);
			/* "%8s%8ld%7s%9d%16ld%16ld%12.4f%12.4f", by hand: printf
			 * was most of the time spent on a large log */
			char line[160], *p = line;
			p = put_right_n(p, seg, 7, 8);
			p = darshan_put_i64(p, rank, 8);
			p = put_right_n(p, w ? "write" : "read", w ? 5 : 4, 7);
			p = darshan_put_i64(p, w ? i : i - nw, 9);
			p = darshan_put_i64(p, off, 16);
			p = darshan_put_i64(p, len, 16);
			p = darshan_put_fix4(p, t0, 12);
			p = darshan_put_fix4(p, t1, 12);
			if (posix)
				p = memcpy(p, "   ", 3) + 3;
			fwrite(line, 1, (size_t)(p - line), out);
			if (lu)
				print_osts(lu, off, len, out);
			fputc('\n', out);
		}
		if (rc)
			break;
	}
	region_end(&r);
	return rc;
}

int darshan_log_print(int fd, FILE *out, char *why, size_t whylen)
{
	struct dlog L = { .fd = fd, .why = why, .whylen = whylen };
	struct job j;
	char *jobbuf = NULL, *namebuf = NULL;
	int rc = -1;

	why[0] = 0;
	if (read_header(&L) < 0 || read_job(&L, &j, &jobbuf) < 0 || read_names(&L, &namebuf) < 0 ||
	    read_lustre(&L) < 0)
		goto out;
	L.nprocs = j.nprocs;
	if (j.nprocs <= 0) {
		rc = fail(&L, "the job record says %" PRId64 " processes: a corrupt log", j.nprocs);
		goto out;
	}
	print_job(&L, &j, out);
	if (!L.mods[MOD_DXT_POSIX].len && !L.mods[MOD_DXT_MPIIO].len) {
		fputs("\n# no DXT module data available for this Darshan log.\n", out);
		rc = 0;
		goto out;
	}
	rc = 0;
	for (int m = MOD_DXT_POSIX; m <= MOD_DXT_MPIIO && !rc; m++)
		if (L.mods[m].len)
			rc = print_module(&L, m, out);
out:
	for (size_t i = 0; i < L.nl; i++)
		lustre_free(&L.lv[i]);
	free(L.lv);
	free(L.nv);
	free(L.mv);
	free(jobbuf);
	free(namebuf);
	return rc;
}
