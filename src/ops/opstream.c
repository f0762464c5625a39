/*
 * opstream.c - the .ops writer and reader.
 *
 * The writer keeps, per rank, one buffer of OPSW_CHUNK records; a full
 * buffer is appended to the output's temporary file (next to the target)
 * and remembered by offset, so memory is bounded by ranks x chunk,
 * whatever the trace length.  Records come right after the header, the
 * tables after the records (the header says where each section is).
 * While ranks arrive one after another in index order (LANL, Sandia, DXT,
 * fio iologs), a rank's chunks follow the previous rank's, each rank's
 * last partial chunk written when the next rank starts: the records are
 * already in the final order and are written once.  When ranks interleave
 * (strace), full buffers are kept in memory, up to OPSW_HOLD bytes in all;
 * when that is full, the ranks holding the most write what they hold,
 * each as one piece of its records, until half of it is free again.
 * opsw_finish then writes each rank's last piece (what memory still
 * holds).  A trace whose op stream fits OPSW_HOLD has one piece a rank,
 * in rank order: a version 1 file.  A longer one is a version 2 file, with
 * a table of the pieces, every record written once: the pieces of a rank
 * start at OPS_PIECE_ALIGN boundaries and are multiples of it long, but
 * its last, so the reader maps them one after another into one array.
 * Records written in place before ranks interleaved are read back and
 * appended again (unplace).  Where pieces cannot be (more than
 * OPSW_MAX_PIECES), every rank's records are copied in order into a
 * second temporary file, by the kernel (copy_file_range) where it can: a
 * version 1 file again.  Either way the finished file is renamed onto the
 * target.
 *
 * A sink writer (opsw_open_sink) has no spill file and one buffer: the
 * records go to the consumer in the order they came, a rank's run of them
 * at a time, checked by the rules the reader applies to a file, and the
 * tables end up in one malloc'ed block laid out as the file's head, so the
 * reader's accessors work on it unchanged.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ops/opstream.h"
#include "util/util.h"

#define CHECK_WINDOW (2u << 20)  /* opstream_open lets checked pages go by 2 MiB */
#define OPSW_HOLD (32u << 20)    /* records kept in memory when ranks interleave */

struct wchunk {
	uint64_t off;        /* in the output's temporary file (mem NULL) */
	struct op *mem;      /* or kept here (OPSW_CHUNK records' room) */
	uint32_t n;          /* records, 1..OPSW_CHUNK */
};

struct wrank {
	uint64_t name;       /* string table offset */
	int64_t pid;
	uint64_t t0;
	uint64_t host;       /* string table offset, 0 = "" */
	uint32_t maxh1;      /* highest handle + 1, 0 none */
	struct wchunk *chunks; /* where the rank's written records are: */
	size_t nchunks, capchunks; /* those in memory are the last nheld */
	size_t nheld;
	/* its buffer (OPSW_CHUNK records, allocated lazily), its buffered
	 * records and its count: w->head.fill[rank] */
};

struct buf {
	char *p;
	size_t len, cap;
};

struct ops_writer {
	struct opsw_head head;   /* first: opsw_slot() reads it; head.nranks
				  * is nranks, head.fill one per rank */
	char *path;          /* the output (NULL: an unnamed file in dir) */
	char *dir;           /* opsw_open_unnamed: the files' directory    */
	char tmp[PATH_MAX];  /* the temporary output, "" none (or unnamed) */
	int fd;              /* open on tmp, -1 none */
	uint64_t end;        /* where the next chunk goes */
	uint32_t cur;        /* records in place: ranks below cur are done */
	int in_place;        /* every chunk so far in final order */
	size_t held;         /* bytes of the chunks kept in memory */
	size_t hold;         /* at most this many (OPSW_HOLD; opsw_hold) */
	struct op *arena;    /* one mapping of `hold` bytes for the buffers */
	size_t arena_len;    /* its length in bytes                    */
	size_t arena_n, arena_used;  /* of it: records, records given out */
	struct op *freed;    /* arena chunks given back, a list through them */
	size_t max_pieces;   /* OPSW_MAX_PIECES; opsw_max_pieces */
	struct ops_piece *pieces; /* opsw_finish's piece table (version 2) */
	uint64_t npieces;
	struct wrank *ranks;
	uint32_t nranks, capranks, capfill;
	struct ops_path *paths;
	uint32_t npaths, cappaths;
	uint32_t *hash;      /* open addressing: path id + 1, 0 empty */
	size_t hashcap;
	struct buf strs;
	struct buf info;
	struct ops_sink sink;
	int is_sink;
	uint32_t sink_rank;  /* sink: the rank holding the one buffer, or none */
	const char *bad;     /* the first record opstream_open would refuse */
};

/* ---- the rules a record follows (reader and sink) ------------------- */

#define BAD_HANDLE "corrupt .ops file (handle id out of range)"

/* Handles are dense per rank, so never more than the rank's ops; a
 * hand-made file may leave gaps, but never so large a handle that a
 * worker's handle table could not be allocated. */
static int handle_bad(uint32_t handle, uint64_t n)
{
	return handle != OP_NOHANDLE && handle >= n && handle >= OPS_MAX_SPARSE_HANDLE;
}

/* One record, of a stream of npaths paths, but for its handle. */
static const char *check_op(uint32_t npaths, const struct op *o)
{
	if (o->kind == OP_NONE || o->kind >= OP__COUNT)
		return "corrupt .ops file (unknown op kind)";
	if (o->file != OP_NOFILE && o->file >= npaths)
		return "corrupt .ops file (path id out of range)";
	if (op_is_data(o->kind) && o->len > OP_MAX_DATA_LEN)
		return "corrupt .ops file (data op longer than one call can move)";
	if (op_has_path2(o->kind) && o->aux >= npaths)
		return "corrupt .ops file (rename target out of range)";
	if (o->kind == OP_SYMLINK && o->aux >= npaths)
		return "corrupt .ops file (symlink content out of range)";
	return NULL;
}

/* ---- writer ---------------------------------------------------------- */

static int buf_append(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		char *np = realloc(b->p, cap);
		if (!np)
			return -ENOMEM;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/* Append a NUL-terminated string to the string table; returns its offset. */
static int str_add(struct ops_writer *w, const char *s, uint64_t *off)
{
	*off = w->strs.len;
	return buf_append(&w->strs, s, strlen(s) + 1);
}

static uint64_t path_hash(const char *s)
{
	return hash_bytes(s, strlen(s));
}

/* Records start right after the header (64-byte aligned). */
#define OPS_RECORDS0 ((uint64_t)sizeof(struct ops_header))

/* The mkostemps template of a temporary file next to path; false when too
 * long. */
static bool tmp_name(char *buf, size_t size, const char *path)
{
	return snprintf(buf, size, "%s.tmpXXXXXX", path) < (int)size;
}

/* A new file to write: a named temporary beside w->path (tracked, so
 * a handled signal removes it; tmp gets its name), or an unnamed one
 * in w->dir (tmp ""), which nothing can leave behind.  -errno. */
static int writer_file(const struct ops_writer *w, char *tmp, size_t size)
{
	int fd;
	tmp[0] = '\0';
	if (w->dir) {
		fd = open(w->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		return fd < 0 ? -errno : fd;
	}
	if (!tmp_name(tmp, size, w->path)) {
		tmp[0] = '\0';
		return -ENAMETOOLONG;
	}
	fd = tmpfile_make(tmp, 0, true);
	if (fd < 0) {
		tmp[0] = '\0';
		return -errno;
	}
	return fd;
}

/* opsw_open (path) or opsw_open_unnamed (dir, fd). */
static int writer_new(struct ops_writer **wp, const char *path, const char *dir, int fd)
{
	struct ops_writer *w = calloc(1, sizeof(*w));
	int ret = -ENOMEM;
	if (!w) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	w->fd = fd;
	w->in_place = 1;
	w->end = OPS_RECORDS0;
	w->hold = OPSW_HOLD;
	w->max_pieces = OPSW_MAX_PIECES;
	/* for the test suite: a smaller hold makes pieces of a small trace */
	const char *env = getenv("REPLAY_OPS_HOLD");
	char *end;
	unsigned long long hold = env ? strtoull(env, &end, 10) : 0;
	if (env && *env && !*end)
		w->hold = (size_t)hold;
	if (dir ? !(w->dir = strdup(dir)) : !(w->path = strdup(path)))
		goto fail;
	if (w->fd < 0 && (w->fd = writer_file(w, w->tmp, sizeof(w->tmp))) < 0) {
		ret = w->fd;
		goto fail;
	}
	/* string offset 0 is the empty string */
	if ((ret = buf_append(&w->strs, "", 1)) < 0)
		goto fail;
	*wp = w;
	return 0;
fail:
	opsw_abort(w);
	return ret;
}

int opsw_open(struct ops_writer **wp, const char *path)
{
	return writer_new(wp, path, NULL, -1);
}

int opsw_open_unnamed(struct ops_writer **wp, const char *dir, int fd)
{
	return writer_new(wp, NULL, dir, fd);
}

int opsw_path(struct ops_writer *w, const char *path, uint32_t flags, uint32_t *id)
{
	if (w->npaths * 2 >= w->hashcap) {
		size_t cap = w->hashcap ? w->hashcap * 2 : 1024;
		uint32_t *h = calloc(cap, sizeof(*h));
		if (!h)
			return -ENOMEM;
		for (uint32_t i = 0; i < w->npaths; i++) {
			size_t j = path_hash(w->strs.p + w->paths[i].name) & (cap - 1);
			while (h[j])
				j = (j + 1) & (cap - 1);
			h[j] = i + 1;
		}
		free(w->hash);
		w->hash = h;
		w->hashcap = cap;
	}
	size_t pl = strlen(path), j = hash_bytes(path, pl) & (w->hashcap - 1);
	while (w->hash[j]) {
		uint32_t i = w->hash[j] - 1;
		if (!strcmp(w->strs.p + w->paths[i].name, path)) {
			w->paths[i].flags |= flags;
			*id = i;
			return 0;
		}
		j = (j + 1) & (w->hashcap - 1);
	}
	if (w->npaths == w->cappaths) {
		uint32_t cap = w->cappaths ? w->cappaths * 2 : 64;
		struct ops_path *np = realloc(w->paths, cap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		w->paths = np;
		w->cappaths = cap;
	}
	uint64_t off;
	int ret = str_add(w, path, &off);
	if (ret < 0)
		return ret;
	w->paths[w->npaths] = (struct ops_path){ .name = off, .flags = flags };
	w->hash[j] = w->npaths + 1;
	*id = w->npaths++;
	if (w->is_sink && w->sink.path)
		return w->sink.path(w->sink.arg, *id, path);
	return 0;
}

int opsw_rank(struct ops_writer *w, const char *name, int64_t pid, uint32_t *rank)
{
	if (w->nranks == w->capranks) {
		uint32_t cap = w->capranks ? w->capranks * 2 : 16;
		struct wrank *nr = realloc(w->ranks, cap * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		w->ranks = nr;
		w->capranks = cap;
	}
	if (w->nranks == w->capfill) {
		uint32_t cap = w->capfill ? w->capfill * 2 : 16;
		struct opsw_fill *nf = realloc(w->head.fill, cap * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		w->head.fill = nf;
		w->capfill = cap;
	}
	memset(&w->head.fill[w->nranks], 0, sizeof(*w->head.fill));
	struct wrank *r = &w->ranks[w->nranks];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	int ret = str_add(w, name, &r->name);
	if (ret < 0)
		return ret;
	*rank = w->nranks++;
	w->head.nranks = w->nranks;
	return 0;
}

void opsw_rank_t0(struct ops_writer *w, uint32_t rank, uint64_t t0_ns)
{
	if (rank < w->nranks)
		w->ranks[rank].t0 = t0_ns;
}

int opsw_rank_host(struct ops_writer *w, uint32_t rank, const char *host)
{
	if (rank >= w->nranks)
		return -EINVAL;
	if (!host || !*host) {
		w->ranks[rank].host = 0;
		return 0;
	}
	return str_add(w, host, &w->ranks[rank].host);
}

static int write_full(int fd, const void *p, size_t n, uint64_t off)
{
	const char *c = p;
	while (n) {
		ssize_t k = pwrite(fd, c, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		c += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

static int read_full(int fd, void *p, size_t n, uint64_t off)
{
	char *c = p;
	while (n) {
		ssize_t k = pread(fd, c, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO;
		c += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* Check rank's buffered records by the rules opstream_open applies, as
 * they leave the buffer (in cache): the first failure is kept in w->bad,
 * and opsw_finish / opsw_finish_tables fail with it.  The handle rule
 * needs the rank's final count: the highest handle is kept for it. */
static void check_buf(struct ops_writer *w, uint32_t rank)
{
	struct wrank *r = &w->ranks[rank];
	const struct opsw_fill *f = &w->head.fill[rank];
	uint32_t maxh1 = r->maxh1;

	for (uint32_t i = 0; i < f->nbuf; i++) {
		const struct op *op = &f->buf[i];
		const char *why = check_op(w->npaths, op);
		if (why && !w->bad)
			w->bad = why;
		if (op->handle != OP_NOHANDLE && op->handle >= maxh1)
			maxh1 = op->handle + 1;
	}
	r->maxh1 = maxh1;
}

/* The handle rule, once the ranks' counts are final; w->bad then. */
static const char *check_handles(struct ops_writer *w)
{
	for (uint32_t i = 0; i < w->nranks && !w->bad; i++)
		if (w->ranks[i].maxh1 && handle_bad(w->ranks[i].maxh1 - 1, w->head.fill[i].count))
			w->bad = BAD_HANDLE;
	return w->bad;
}

/* Sink mode: hand rank's buffered records over, each checked as the
 * reader checks a record.  The buffer lets the builder fill records in
 * place (opsw_slot) for a sink as for a file; one rank holds it at a time
 * (opsw_append moves it to the next rank, after draining it), so the
 * consumer sees the ops in the trace's own order, across ranks too. */
static int sink_drain(struct ops_writer *w, uint32_t rank)
{
	struct opsw_fill *f = &w->head.fill[rank];
	uint32_t n = f->nbuf;

	check_buf(w, rank);
	f->nbuf = 0;
	if (w->bad)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		int ret = w->sink.op ? w->sink.op(w->sink.arg, rank, &f->buf[i]) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

/* Sink mode: rank is to hold the buffer (the previous holder's records
 * handed over first). */
static int sink_take(struct ops_writer *w, uint32_t rank)
{
	uint32_t old = w->sink_rank;

	if (old == rank)
		return 0;
	if (old != UINT32_MAX) {
		struct opsw_fill *o = &w->head.fill[old];
		int ret = sink_drain(w, old);
		if (ret)
			return ret;
		w->head.fill[rank].buf = o->buf;
		o->buf = NULL;
		o->fast = 0;
	}
	w->sink_rank = rank;
	return 0;
}

/* The rank buffers that replace kept ones come from one mapping of
 * `hold` bytes, taken in order, and given back (to w->freed) when their
 * records are written: with transparent huge pages (madvise) it faults
 * 2 MiB at a time, not 4 KiB (8,400 page faults fewer for 100 MB of
 * strace).  malloc when it is used up or cannot be mapped. */
static struct op *arena_chunk(struct ops_writer *w)
{
	if (w->freed) {
		struct op *c = w->freed;
		memcpy(&w->freed, (const char *)c, sizeof(struct op *));
		return c;
	}
	if (!w->arena && w->hold >= OPSW_CHUNK * sizeof(struct op)) {
		void *m = mmap(NULL, w->hold, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m != MAP_FAILED) {
			madvise(m, w->hold, MADV_HUGEPAGE);
			w->arena = m;
			w->arena_len = w->hold;
			w->arena_n = w->hold / sizeof(struct op);
		}
	}
	if (w->arena && w->arena_used + OPSW_CHUNK <= w->arena_n) {
		struct op *c = w->arena + w->arena_used;
		w->arena_used += OPSW_CHUNK;
		return c;
	}
	return malloc(OPSW_CHUNK * sizeof(struct op));
}

static void chunk_free(struct ops_writer *w, struct op *c)
{
	if (!w->arena || c < w->arena || c >= w->arena + w->arena_n) {
		free(c);
		return;
	}
	memcpy((char *)c, &w->freed, sizeof(struct op *));
	w->freed = c;
}

/* Records kept in memory, written where they go in fd: wv_add gathers
 * buffers bound for consecutive places, up to IOVS of them, and wv_flush
 * writes them with one pwritev (more when it writes less). */
#define IOVS 64
struct wv {
	struct iovec iov[IOVS];
	int n;
	uint64_t at;         /* where iov[0] goes */
	size_t len;
};

static int wv_flush(int fd, struct wv *v)
{
	int i = 0;
	while (i < v->n) {
		ssize_t k = pwritev(fd, v->iov + i, v->n - i, (off_t)v->at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		v->at += (uint64_t)k;
		v->len -= (size_t)k;
		while (k > 0 && i < v->n) {       /* past what went */
			size_t t = v->iov[i].iov_len < (size_t)k ? v->iov[i].iov_len : (size_t)k;
			v->iov[i].iov_base = (char *)v->iov[i].iov_base + t;
			v->iov[i].iov_len -= t;
			k -= (ssize_t)t;
			if (!v->iov[i].iov_len)
				i++;
		}
	}
	v->n = 0;
	return 0;
}

static int wv_add(int fd, struct wv *v, void *p, size_t n, uint64_t pos)
{
	if (v->n && (v->n == IOVS || v->at + v->len != pos)) {
		int ret = wv_flush(fd, v);
		if (ret < 0)
			return ret;
	}
	if (!v->n) {
		v->at = pos;
		v->len = 0;
	}
	v->iov[v->n++] = (struct iovec){ p, n };
	v->len += n;
	return 0;
}

#define CHUNK_BYTES ((size_t)OPSW_CHUNK * sizeof(struct op))
_Static_assert(CHUNK_BYTES % OPS_PIECE_ALIGN == 0, "a full buffer is a multiple of a piece's alignment");

static uint64_t align_piece(uint64_t v)
{
	return (v + OPS_PIECE_ALIGN - 1) & ~(uint64_t)(OPS_PIECE_ALIGN - 1);
}

/* Write the chunks rank keeps in memory, and its buffer too when with_buf
 * (checked), as one piece at the file's next OPS_PIECE_ALIGN boundary;
 * their memory is given back. */
static int spill_rank(struct ops_writer *w, uint32_t rank, bool with_buf)
{
	struct wrank *r = &w->ranks[rank];
	struct opsw_fill *f = &w->head.fill[rank];
	size_t first = r->nchunks - r->nheld;
	uint64_t at = align_piece(w->end), n = 0;
	struct wv v = { .n = 0 };
	int ret = 0;

	for (size_t c = first; c < r->nchunks && !ret; n += r->chunks[c++].n)
		ret = wv_add(w->fd, &v, r->chunks[c].mem, (size_t)r->chunks[c].n * sizeof(struct op),
			     at + n * sizeof(struct op));
	if (!ret && with_buf && f->nbuf) {
		ret = wv_add(w->fd, &v, f->buf, (size_t)f->nbuf * sizeof(struct op),
			     at + n * sizeof(struct op));
		n += f->nbuf;
	}
	if (!ret)
		ret = wv_flush(w->fd, &v);
	if (ret < 0)
		return ret;
	if (!n)
		return 0;
	for (size_t c = first; c < r->nchunks; c++)
		chunk_free(w, r->chunks[c].mem);
	w->held -= r->nheld * CHUNK_BYTES;
	r->nheld = 0;
	r->nchunks = first;         /* room for one: flush_rank made it */
	r->chunks[r->nchunks++] = (struct wchunk){ .off = at, .n = (uint32_t)n };
	if (with_buf)
		f->nbuf = 0;
	w->end = at + n * sizeof(struct op);
	return 0;
}

static int by_held(const void *a, const void *b, void *arg)
{
	const struct wrank *r = arg;
	size_t x = r[*(const uint32_t *)a].nheld, y = r[*(const uint32_t *)b].nheld;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The memory for kept chunks is full: the ranks holding the most write
 * theirs, one piece each, until half of it is free. */
static int spill_most(struct ops_writer *w)
{
	uint32_t *ix = malloc((size_t)w->nranks * sizeof(*ix)), k = 0;
	int ret = 0;
	if (!ix)
		return -ENOMEM;
	for (uint32_t i = 0; i < w->nranks; i++)
		if (w->ranks[i].nheld)
			ix[k++] = i;
	qsort_r(ix, k, sizeof(*ix), by_held, w->ranks);
	for (uint32_t j = 0; j < k && !ret && w->held > w->hold / 2; j++)
		ret = spill_rank(w, ix[j], false);
	free(ix);
	return ret;
}

/* rank's buffer is full (or its rank done, in place): keep it in memory
 * while ranks interleave and memory allows, else write it out: at the
 * end of the file in place, else with what the rank keeps, as a piece. */
static int flush_rank(struct ops_writer *w, uint32_t rank)
{
	struct wrank *r = &w->ranks[rank];
	struct opsw_fill *f = &w->head.fill[rank];
	if (!f->nbuf)
		return 0;
	check_buf(w, rank);
	if (r->nchunks == r->capchunks) {
		size_t cap = r->capchunks ? r->capchunks * 2 : 16;
		struct wchunk *nc = realloc(r->chunks, cap * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		r->chunks = nc;
		r->capchunks = cap;
	}
	size_t n = (size_t)f->nbuf * sizeof(struct op);
	if (!w->in_place) {
		int ret;
		if (w->held + CHUNK_BYTES > w->hold && w->held && (ret = spill_most(w)) < 0)
			return ret;
		struct op *nb = w->held + CHUNK_BYTES <= w->hold ? arena_chunk(w) : NULL;
		if (!nb)
			return spill_rank(w, rank, true);
		r->chunks[r->nchunks++] = (struct wchunk){ .mem = f->buf, .n = f->nbuf };
		r->nheld++;
		w->held += CHUNK_BYTES;
		f->buf = nb;
		f->nbuf = 0;
		return 0;
	}
	int ret = write_full(w->fd, f->buf, n, w->end);
	if (ret < 0)
		return ret;
	r->chunks[r->nchunks++] = (struct wchunk){ .off = w->end, .n = f->nbuf };
	w->end += n;
	f->nbuf = 0;
	return 0;
}

/* In place: ranks cur .. upto-1 are done (their last records written,
 * in index order); upto is the rank now written. */
static int close_ranks(struct ops_writer *w, uint32_t upto)
{
	for (; w->cur < upto; w->cur++) {
		int ret = flush_rank(w, w->cur);
		if (ret < 0)
			return ret;
		/* done: a record more must go through opsw_append, which
		 * marks the file out of place */
		w->head.fill[w->cur].fast = 0;
	}
	return 0;
}

/* The rest of an append once rank's buffer is full (n records). */
int opsw_full(struct ops_writer *w, uint32_t rank)
{
	if (w->is_sink)
		return sink_drain(w, rank);
	if (w->in_place) {
		int ret = close_ranks(w, rank);
		if (ret < 0)
			return ret;
	}
	return flush_rank(w, rank);
}

/*
 * A done rank goes on: the records are no longer in order.  Those written
 * in place so far are read back and appended again, kept in memory or
 * written as pieces like the rest (after them: the place they had is
 * punched out, a hole), so that every piece of a rank starts at an
 * OPS_PIECE_ALIGN boundary.  They are written twice, the rest once.
 */
static int unplace(struct ops_writer *w)
{
	uint64_t placed = w->end - OPS_RECORDS0;
	struct op *back;
	int ret = 0;

	w->in_place = 0;
	if (!placed)
		return 0;
	if (!(back = malloc(CHUNK_BYTES)))
		return -ENOMEM;
	for (uint32_t i = 0; i < w->nranks && !ret; i++) {
		struct wrank *r = &w->ranks[i];
		struct opsw_fill *f = &w->head.fill[i];
		struct op *last = f->buf;
		uint32_t nlast = f->nbuf;
		struct wchunk *was = r->chunks;    /* all in the file */
		size_t nwas = r->nchunks;
		r->chunks = NULL;
		r->nchunks = r->capchunks = 0;
		f->buf = NULL;
		f->nbuf = 0;
		f->count -= nlast;
		for (size_t c = 0; c < nwas && !ret; c++) {
			f->count -= was[c].n;
			ret = read_full(w->fd, back, (size_t)was[c].n * sizeof(struct op), was[c].off);
			for (uint32_t k = 0; k < was[c].n && !ret; k++)
				ret = opsw_append(w, i, &back[k]);
		}
		for (uint32_t k = 0; k < nlast && !ret; k++)
			ret = opsw_append(w, i, &last[k]);
		free(was);
		if (last)
			chunk_free(w, last);
	}
	free(back);
	if (!ret)       /* no matter if it cannot: the bytes stay, unused */
		fallocate(w->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)OPS_RECORDS0,
			  (off_t)placed);
	return ret;
}

int opsw_append(struct ops_writer *w, uint32_t rank, const struct op *op)
{
	if (rank >= w->nranks)
		return -EINVAL;
	struct opsw_fill *f = &w->head.fill[rank];
	if (w->is_sink) {
		int ret = sink_take(w, rank);
		if (ret)
			return ret;
	} else if (rank < w->cur && w->in_place) {
		int ret = unplace(w);
		if (ret)
			return ret;
	}
	if (!f->buf) {
		f->buf = malloc(OPSW_CHUNK * sizeof(struct op));
		if (!f->buf)
			return -ENOMEM;
	}
	/* from now on opsw_slot() may give out the buffer's next record:
	 * the rank has a buffer and, if it is below w->cur, the file is no
	 * longer in place (close_ranks clears this as it passes the rank) */
	f->fast = 1;
	f->buf[f->nbuf++] = *op;
	f->count++;
	if (f->nbuf < OPSW_CHUNK)
		return 0;
	return opsw_full(w, rank);
}

void opsw_hold(struct ops_writer *w, size_t bytes)
{
	w->hold = bytes;
}

void opsw_max_pieces(struct ops_writer *w, size_t n)
{
	w->max_pieces = n;
}

int opsw_in_place(const struct ops_writer *w)
{
	return !w->is_sink && w->in_place;
}

int opsw_info(struct ops_writer *w, const char *key, const char *value)
{
	if (strchr(key, '\n') || strchr(key, '=') || strchr(value, '\n'))
		return -EINVAL;
	int ret = buf_append(&w->info, key, strlen(key));
	if (!ret)
		ret = buf_append(&w->info, "=", 1);
	if (!ret)
		ret = buf_append(&w->info, value, strlen(value));
	if (!ret)
		ret = buf_append(&w->info, "\n", 1);
	return ret;
}

int opsw_rank_launcher(struct ops_writer *w, uint32_t rank, const char *prog)
{
	char v[300];
	if (rank >= w->nranks || strchr(prog, '\n'))
		return -EINVAL;
	snprintf(v, sizeof(v), "%" PRIu32 " %s", rank, prog);
	int rc = opsw_info(w, "launcher", v);
	if (!rc && w->is_sink && w->sink.launcher)
		rc = w->sink.launcher(w->sink.arg, rank, w->ranks[rank].pid, prog);
	return rc;
}

int opsw_rank_source(struct ops_writer *w, uint32_t rank, const char *path)
{
	size_t n = strlen(path) + 16;
	char *v;
	if (rank >= w->nranks)
		return -EINVAL;
	if (!(v = malloc(n)))
		return -ENOMEM;
	snprintf(v, n, "%" PRIu32 " %s", rank, path);
	int rc = opsw_info(w, "rank_source", v);
	free(v);
	return rc;
}

static uint64_t align64(uint64_t v)
{
	return (v + 63) & ~63ull;
}

/* The rank table's entry of r, whose records start at `first`. */
static struct ops_rank rank_entry(const struct ops_writer *w, uint32_t i, uint64_t first)
{
	const struct wrank *r = &w->ranks[i];
	return (struct ops_rank){ .first = first, .count = w->head.fill[i].count, .name = r->name,
				  .pid = r->pid, .t0_ns = r->t0, .host = r->host };
}

/* The header of w's file: every section's place.  A file has its records
 * first, at OPS_RECORDS0, and the tables after them (after the last piece
 * in version 2, the piece table last); the sink's tables (records_first
 * false) start after the header and its records are not there (ops_off is
 * the tables' aligned end, as is file_size). */
static void layout(const struct ops_writer *w, struct ops_header *h, bool records_first)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, OPS_MAGIC, 8);
	h->version = w->pieces ? OPS_VERSION_PIECES : OPS_VERSION;
	h->header_size = sizeof(*h);
	h->nranks = w->nranks;
	h->npaths = w->npaths;
	for (uint32_t i = 0; i < w->nranks; i++)
		h->nops += w->head.fill[i].count;
	h->info_off = !records_first ? sizeof(*h)
		    : w->pieces ? align64(w->end) : OPS_RECORDS0 + h->nops * sizeof(struct op);
	h->info_len = w->info.len + 1;
	h->str_off = h->info_off + h->info_len;
	h->str_len = w->strs.len;
	h->paths_off = align64(h->str_off + h->str_len);
	h->ranks_off = align64(h->paths_off + (uint64_t)w->npaths * sizeof(struct ops_path));
	h->file_size = h->ranks_off + (uint64_t)w->nranks * sizeof(struct ops_rank);
	if (w->pieces) {
		h->pieces_off = align64(h->file_size);
		h->npieces = w->npieces;
		h->file_size = h->pieces_off + w->npieces * sizeof(struct ops_piece);
	}
	h->ops_off = records_first ? OPS_RECORDS0 : (h->file_size = align64(h->file_size));
}

/* The tables and the header into fd, whose records are at OPS_RECORDS0 in
 * rank order, or where w->pieces says. */
static int write_tables(const struct ops_writer *w, int fd)
{
	struct ops_header h;
	uint64_t first = 0;
	int ret;

	layout(w, &h, true);
	if (w->info.len && (ret = write_full(fd, w->info.p, w->info.len, h.info_off)) < 0)
		return ret;
	if ((ret = write_full(fd, "", 1, h.info_off + w->info.len)) < 0 ||
	    (ret = write_full(fd, w->strs.p, w->strs.len, h.str_off)) < 0)
		return ret;
	if (w->npaths &&
	    (ret = write_full(fd, w->paths, w->npaths * sizeof(struct ops_path), h.paths_off)) < 0)
		return ret;
	if (w->nranks) {
		struct ops_rank *ri = malloc(w->nranks * sizeof(*ri));
		if (!ri)
			return -ENOMEM;
		for (uint32_t i = 0; i < w->nranks; i++) {
			ri[i] = rank_entry(w, i, first);
			first += w->head.fill[i].count;
		}
		ret = write_full(fd, ri, w->nranks * sizeof(*ri), h.ranks_off);
		free(ri);
		if (ret < 0)
			return ret;
	}
	if (w->npieces &&
	    (ret = write_full(fd, w->pieces, w->npieces * sizeof(*w->pieces), h.pieces_off)) < 0)
		return ret;
	if ((ret = write_full(fd, &h, sizeof(h), 0)) < 0)
		return ret;
	return ftruncate(fd, (off_t)h.file_size) < 0 ? -errno : 0;
}

/* Are the chunks written so far the records in rank order, contiguous
 * from OPS_RECORDS0, with nothing left in a buffer? */
static int chunks_in_order(const struct ops_writer *w)
{
	uint64_t pos = OPS_RECORDS0;

	for (uint32_t i = 0; i < w->nranks; i++) {
		const struct wrank *r = &w->ranks[i];
		if (w->head.fill[i].nbuf)
			return 0;
		for (size_t c = 0; c < r->nchunks; c++) {
			if (r->chunks[c].off != pos)
				return 0;
			pos += (uint64_t)r->chunks[c].n * sizeof(struct op);
		}
	}
	return pos == w->end;
}

/*
 * n bytes at off_in of fd_in to off_out of fd_out.  copy_file_range first:
 * the kernel moves the pages from one file's cache to the other's (no copy
 * through user space, one call where read+write were two; a reflink where
 * the file system shares blocks).  Where it cannot (an old kernel, another
 * file system: ENOSYS, EXDEV, EINVAL, EOPNOTSUPP), *cfr turns off and the
 * bytes go through buf (OPSW_CHUNK records) by pread and pwrite.
 */
static int copy_range(int fd_in, uint64_t off_in, int fd_out, uint64_t off_out, size_t n,
		      void *buf, bool *cfr)
{
	while (n && *cfr) {
		loff_t i = (loff_t)off_in, o = (loff_t)off_out;
		ssize_t k = copy_file_range(fd_in, &i, fd_out, &o, n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == ENOSYS || errno == EXDEV || errno == EINVAL ||
			      errno == EOPNOTSUPP)) {
			*cfr = false;
			break;
		}
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO;
		off_in += (uint64_t)k;
		off_out += (uint64_t)k;
		n -= (size_t)k;
	}
	while (n) {
		size_t m = n < OPSW_CHUNK * sizeof(struct op) ? n : OPSW_CHUNK * sizeof(struct op);
		int ret = read_full(fd_in, buf, m, off_in);
		if (ret < 0 || (ret = write_full(fd_out, buf, m, off_out)) < 0)
			return ret;
		off_in += m;
		off_out += m;
		n -= m;
	}
	return 0;
}

/* The chunks of r from c on that lie one after another in the file:
 * bytes, and the next chunk in *d. */
static uint64_t file_run(const struct wrank *r, size_t c, size_t *d)
{
	uint64_t n = (uint64_t)r->chunks[c].n * sizeof(struct op);
	size_t e = c + 1;
	for (; e < r->nchunks && !r->chunks[e].mem && r->chunks[e].off == r->chunks[c].off + n; e++)
		n += (uint64_t)r->chunks[e].n * sizeof(struct op);
	*d = e;
	return n;
}

/*
 * Records spilled: room for the piece table of a version 2 file (each
 * rank's runs of chunks in the file, then its last piece, what memory
 * holds), in w->pieces.  0 with w->pieces NULL when it cannot be one:
 * more than w->max_pieces pieces, or a rank of several whose pieces a
 * reader could not map one after another (not at OPS_PIECE_ALIGN
 * boundaries: none is so, by spill_rank and unplace).  -ENOMEM.
 */
static int plan_pieces(struct ops_writer *w)
{
	uint64_t np = 0;

	for (uint32_t i = 0; i < w->nranks; i++) {
		const struct wrank *r = &w->ranks[i];
		size_t nfile = r->nchunks - r->nheld, runs = 0, d;
		bool tail = r->nheld || w->head.fill[i].nbuf, whole = true;
		for (size_t c = 0; c < nfile; c = d, runs++) {
			uint64_t n = file_run(r, c, &d);
			if (r->chunks[c].off % OPS_PIECE_ALIGN ||
			    (n % OPS_PIECE_ALIGN && (d < nfile || tail)))
				whole = false;
		}
		if (runs + tail > 1 && !whole)
			return 0;
		np += runs + tail;
	}
	if (np > w->max_pieces)
		return 0;
	if (!(w->pieces = calloc(np ? np : 1, sizeof(*w->pieces))))
		return -ENOMEM;
	w->npieces = np;
	return 0;
}

/* Version 2: the piece table, and each rank's last piece (the chunks
 * memory holds and its partial buffer) written at the end of the file, at
 * an OPS_PIECE_ALIGN boundary when it has pieces before it. */
static int write_last_pieces(struct ops_writer *w)
{
	struct wv v = { .n = 0 };
	uint64_t k = 0;
	int ret = 0;

	for (uint32_t i = 0; i < w->nranks && !ret; i++) {
		const struct wrank *r = &w->ranks[i];
		const struct opsw_fill *f = &w->head.fill[i];
		size_t nfile = r->nchunks - r->nheld, d;
		for (size_t c = 0; c < nfile; c = d) {
			uint64_t n = file_run(r, c, &d);
			w->pieces[k++] = (struct ops_piece){ r->chunks[c].off, n / sizeof(struct op) };
		}
		if (!r->nheld && !f->nbuf)
			continue;
		uint64_t at = nfile ? align_piece(w->end) : w->end, n = 0;
		for (size_t c = nfile; c < r->nchunks && !ret; n += r->chunks[c++].n)
			ret = wv_add(w->fd, &v, r->chunks[c].mem,
				     (size_t)r->chunks[c].n * sizeof(struct op), at + n * sizeof(struct op));
		if (!ret && f->nbuf) {
			ret = wv_add(w->fd, &v, f->buf, (size_t)f->nbuf * sizeof(struct op),
				     at + n * sizeof(struct op));
			n += f->nbuf;
		}
		w->pieces[k++] = (struct ops_piece){ at, n };
		w->end = at + n * sizeof(struct op);
	}
	if (!ret)
		ret = wv_flush(w->fd, &v);
	return ret;
}

/* Has a rank records in the file (not only in memory)? */
static bool any_written(const struct ops_writer *w)
{
	for (uint32_t i = 0; i < w->nranks; i++)
		if (w->ranks[i].nchunks > w->ranks[i].nheld)
			return true;
	return false;
}

/* Ranks interleaved: write every rank's records in rank order, the chunks
 * kept in memory as they are, those spilled to the temporary file copied
 * (a rank's chunks that lie one after another there, one copy), into the
 * temporary file itself when none was spilled, else into a second one,
 * which replaces it. */
static int copy_in_order(struct ops_writer *w)
{
	char tmp[PATH_MAX];
	struct op *chunk = NULL;
	struct wv v = { .n = 0 };
	uint64_t pos = OPS_RECORDS0;
	int fd = -1, ret = -ENOMEM;
	bool cfr = true;        /* copy_file_range works here, as far as seen */
	bool spilled = any_written(w);

	tmp[0] = '\0';
	if (!spilled) {
		fd = w->fd;
	} else {
		chunk = malloc(OPSW_CHUNK * sizeof(struct op));
		if (!chunk)
			goto out;
		fd = writer_file(w, tmp, sizeof(tmp));
		if (fd < 0) {
			ret = fd;
			goto out;
		}
	}
	for (uint32_t i = 0; i < w->nranks; i++) {
		const struct wrank *r = &w->ranks[i];
		for (size_t c = 0, d; c < r->nchunks; c = d) {
			size_t n = (size_t)r->chunks[c].n * sizeof(struct op);
			if (r->chunks[c].mem) {
				d = c + 1;
				if ((ret = wv_add(fd, &v, r->chunks[c].mem, n, pos)) < 0)
					goto out;
				pos += n;
				continue;
			}
			uint64_t from = r->chunks[c].off;
			n = (size_t)file_run(r, c, &d);
			if ((ret = wv_flush(fd, &v)) < 0 ||
			    (ret = copy_range(w->fd, from, fd, pos, n, chunk, &cfr)) < 0)
				goto out;
			pos += n;
		}
		const struct opsw_fill *f = &w->head.fill[i];
		if (f->nbuf) {
			size_t n = (size_t)f->nbuf * sizeof(struct op);
			if ((ret = wv_add(fd, &v, f->buf, n, pos)) < 0)
				goto out;
			pos += n;
		}
	}
	if ((ret = wv_flush(fd, &v)) < 0)
		goto out;
	w->end = pos;
	ret = 0;
	if (!spilled)
		goto out;
	/* the copy replaces the first file */
	close(w->fd);
	if (w->tmp[0]) {
		unlink(w->tmp);
		tmpfile_untrack(w->tmp);
	}
	w->fd = fd;
	memcpy(w->tmp, tmp, sizeof(tmp));
	fd = -1;
out:
	if (spilled && fd >= 0) {
		close(fd);
		if (tmp[0]) {
			unlink(tmp);
			tmpfile_untrack(tmp);
		}
	}
	free(chunk);
	return ret;
}

/* opsw_finish and opsw_finish_unnamed: every record in place, the tables
 * written; w not freed. */
static int finish_file(struct ops_writer *w, const char **why)
{
	int ret = 0;

	for (uint32_t i = 0; i < w->nranks; i++)
		check_buf(w, i);        /* the partial buffers flush_rank may not see */
	const char *bad = check_handles(w);
	if (why)
		*why = bad;
	if (bad)
		ret = -EINVAL;
	if (!ret && w->in_place)
		ret = close_ranks(w, w->nranks);
	if (!ret && !(w->in_place && chunks_in_order(w))) {
		/* nothing written yet: copy_in_order writes all in place */
		if (any_written(w) && (ret = plan_pieces(w)) == 0 && w->pieces)
			ret = write_last_pieces(w);
		else if (!ret)
			ret = copy_in_order(w);
	}
	if (!ret)
		ret = write_tables(w, w->fd);
	return ret;
}

int opsw_finish(struct ops_writer *w, const char **why)
{
	int ret = finish_file(w, why);
	if (!ret && (fchmod(w->fd, 0644) < 0 || rename(w->tmp, w->path) < 0))
		ret = -errno;
	if (!ret) {
		tmpfile_untrack(w->tmp);
		w->tmp[0] = '\0';
	}
	opsw_abort(w);
	return ret;
}

int opsw_finish_unnamed(struct ops_writer *w, const char **why, int *fd)
{
	int ret = finish_file(w, why);
	*fd = -1;
	if (!ret) {
		*fd = w->fd;
		w->fd = -1;
	}
	opsw_abort(w);
	return ret;
}

int opsw_open_sink(struct ops_writer **wp, const struct ops_sink *sink)
{
	struct ops_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->is_sink = 1;
	w->sink = *sink;
	w->sink_rank = UINT32_MAX;
	if (buf_append(&w->strs, "", 1) < 0) {   /* offset 0: the empty string */
		opsw_abort(w);
		return -ENOMEM;
	}
	*wp = w;
	return 0;
}

static void point_sections(struct opstream *s);

int opsw_finish_tables(struct ops_writer *w, struct opstream *s, const char **why)
{
	struct ops_header h;
	uint64_t first = 0;
	char *m;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	*why = NULL;
	if (w->sink_rank != UINT32_MAX && (ret = sink_drain(w, w->sink_rank)) < 0) {
		*why = w->bad;
		goto out;
	}
	if ((*why = check_handles(w))) {
		ret = -EINVAL;
		goto out;
	}
	layout(w, &h, false);                  /* the records are not here */
	m = calloc(1, h.ops_off);
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(m, &h, sizeof(h));
	if (w->info.len)
		memcpy(m + h.info_off, w->info.p, w->info.len);
	memcpy(m + h.str_off, w->strs.p, w->strs.len);
	if (w->npaths)
		memcpy(m + h.paths_off, w->paths, w->npaths * sizeof(struct ops_path));
	for (uint32_t i = 0; i < w->nranks; i++) {
		struct ops_rank ri = rank_entry(w, i, first);
		memcpy(m + h.ranks_off + (uint64_t)i * sizeof(ri), &ri, sizeof(ri));
		first += w->head.fill[i].count;
	}
	s->map = m;
	s->size = h.ops_off;
	s->heap = 1;
	point_sections(s);
	s->ops = NULL;
out:
	opsw_abort(w);
	return ret;
}

void opsw_abort(struct ops_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp[0]) {
		unlink(w->tmp);
		tmpfile_untrack(w->tmp);
	}
	for (uint32_t i = 0; i < w->nranks; i++) {
		for (size_t c = 0; c < w->ranks[i].nchunks; c++)
			chunk_free(w, w->ranks[i].chunks[c].mem);
		free(w->ranks[i].chunks);
		chunk_free(w, w->head.fill[i].buf);
	}
	if (w->arena)
		munmap(w->arena, w->arena_len);
	free(w->pieces);
	free(w->ranks);
	free(w->head.fill);
	free(w->paths);
	free(w->hash);
	free(w->strs.p);
	free(w->info.p);
	free(w->path);
	free(w->dir);
	free(w);
}

/* ---- reader ---------------------------------------------------------- */

int ops_file_is(const char *path)
{
	char magic[8];
	if (file_is_stream(path))
		return 0;       /* an .ops file is mapped: never a pipe */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == (ssize_t)sizeof(magic) && !memcmp(magic, OPS_MAGIC, 8);
}

static int in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* Map the whole file read-only, *fd open on it (the caller closes it);
 * -errno, or -EINVAL + why when too short. */
static int map_file(struct opstream *s, const char *path, const char **why, int *fdp)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	*fdp = fd;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
	} else if ((uint64_t)st.st_size < sizeof(struct ops_header)) {
		*why = "file too short for an .ops header";
		ret = -EINVAL;
	} else {
		s->size = (size_t)st.st_size;
		s->map = mmap(NULL, s->size, PROT_READ, MAP_SHARED, fd, 0);
		if (s->map == MAP_FAILED) {
			s->map = NULL;
			ret = -errno;
		}
	}
	return ret;
}

/* The header: magic, version, sizes, every section inside the file.
 * NULL, or what is wrong. */
static const char *check_header(const struct ops_header *h, size_t size)
{
	if (memcmp(h->magic, OPS_MAGIC, 8))
		return "not an .ops file (bad magic)";
	if (h->version != OPS_VERSION && h->version != OPS_VERSION_PIECES)
		return "unsupported .ops version";
	if (h->header_size != sizeof(*h) || h->file_size != size)
		return "truncated or corrupt .ops file (size mismatch)";
	if (!in_file(h->info_off, h->info_len, size) || h->info_len == 0 ||
	    !in_file(h->str_off, h->str_len, size) || h->str_len == 0 ||
	    !in_file(h->paths_off, (uint64_t)h->npaths * sizeof(struct ops_path), size) ||
	    !in_file(h->ranks_off, (uint64_t)h->nranks * sizeof(struct ops_rank), size) ||
	    h->nops > size / sizeof(struct op) ||
	    !in_file(h->ops_off, h->nops * sizeof(struct op), size) ||
	    (h->paths_off | h->ranks_off | h->ops_off) % 8)
		return "corrupt .ops file (section out of bounds)";
	if (h->version == OPS_VERSION_PIECES &&
	    (h->npieces > h->nops || h->pieces_off % 8 ||
	     !in_file(h->pieces_off, h->npieces * sizeof(struct ops_piece), size)))
		return "corrupt .ops file (section out of bounds)";
	return NULL;
}

#define BAD_PIECES "corrupt .ops file (bad piece table)"

static size_t page_up(size_t v, size_t pg)
{
	return (v + pg - 1) / pg * pg;
}

/* Rank r's records, in the k pieces at p, as one array of their own:
 * mapped from fd one after another where every piece starts at a page
 * and all but the last are whole pages (as replay writes them), else
 * (or when the mapping fails: too many mappings) read into anonymous
 * memory.  -errno. */
static int join_pieces(struct opstream *s, int fd, uint32_t r, const struct ops_piece *p, uint64_t k)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = page_up(s->ranks[r].count * sizeof(struct op), pg);
	bool map = true;
	struct opstream_map *m = realloc(s->maps, (s->nmaps + 1) * sizeof(*m));

	if (!m)
		return -ENOMEM;
	s->maps = m;
	for (uint64_t i = 0; i < k; i++)
		if (p[i].off % pg || (i + 1 < k && p[i].count * sizeof(struct op) % pg))
			map = false;
	for (;; map = false) {
		char *base = mmap(NULL, len, map ? PROT_NONE : PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		uint64_t at = 0, i = 0;
		int ret = 0;
		if (base == MAP_FAILED)
			return -errno;
		for (; i < k && !ret; at += p[i++].count * sizeof(struct op)) {
			size_t n = p[i].count * sizeof(struct op);
			if (map && mmap(base + at, page_up(n, pg), PROT_READ, MAP_SHARED | MAP_FIXED, fd,
					(off_t)p[i].off) == MAP_FAILED)
				ret = -errno;
			else if (!map)
				ret = read_full(fd, base + at, n, p[i].off);
		}
		if (!ret && !map && mprotect(base, len, PROT_READ) < 0)
			ret = -errno;
		if (ret) {
			munmap(base, len);
			if (map)
				continue;
			return ret;
		}
		s->maps[s->nmaps++] = (struct opstream_map){ base, len, !map };
		s->rank_ops[r] = (const struct op *)(void *)base;
		return 0;
	}
}

static int by_off(const void *a, const void *b)
{
	uint64_t x = ((const struct ops_piece *)a)->off, y = ((const struct ops_piece *)b)->off;
	return (x > y) - (x < y);
}

/* No two of the n pieces at p (each inside the file) share a byte: each
 * record is one rank's, once, as in a version 1 file.  -ENOMEM. */
static int pieces_apart(const struct ops_piece *p, uint64_t n, bool *apart)
{
	struct ops_piece *q = malloc((n ? n : 1) * sizeof(*q));
	if (!q)
		return -ENOMEM;
	memcpy(q, p, n * sizeof(*q));
	qsort(q, n, sizeof(*q), by_off);
	*apart = true;
	for (uint64_t i = 1; i < n && *apart; i++)
		*apart = q[i - 1].off + q[i - 1].count * sizeof(struct op) <= q[i].off;
	free(q);
	return 0;
}

/* Each rank's records: at ops_off + first (version 1), or in the pieces
 * the piece table gives it, rank by rank, no two sharing a record
 * (version 2).  -EINVAL + why, or -errno. */
static int place_ranks(struct opstream *s, int fd, const char **why)
{
	const struct ops_header *h = s->hdr;
	/* (version 1: pieces_off is a reserved field, not an offset) */
	const struct ops_piece *p = h->version != OPS_VERSION_PIECES ? NULL :
		(const void *)((const char *)s->map + h->pieces_off);
	uint64_t j = 0;

	if (!(s->rank_ops = calloc(s->nranks ? s->nranks : 1, sizeof(*s->rank_ops))))
		return -ENOMEM;
	for (uint32_t r = 0; r < s->nranks; r++) {
		uint64_t need = s->ranks[r].count, have = 0, k = 0;
		s->rank_ops[r] = s->ops + s->ranks[r].first;
		if (h->version == OPS_VERSION || !need)
			continue;
		for (; have < need; k++) {
			if (j + k >= h->npieces || !p[j + k].count || p[j + k].count > need - have ||
			    p[j + k].off % 8 ||
			    !in_file(p[j + k].off, p[j + k].count * sizeof(struct op), s->size)) {
				*why = BAD_PIECES;
				return -EINVAL;
			}
			have += p[j + k].count;
		}
		if (k == 1) {
			s->rank_ops[r] = (const void *)((const char *)s->map + p[j].off);
		} else {
			int ret = join_pieces(s, fd, r, p + j, k);
			if (ret)
				return ret;
		}
		j += k;
	}
	if (h->version == OPS_VERSION_PIECES) {
		bool apart = false;
		int ret = j == h->npieces ? pieces_apart(p, j, &apart) : 0;
		if (ret)
			return ret;
		if (!apart) {
			*why = BAD_PIECES;
			return -EINVAL;
		}
	}
	return 0;
}

/* Strings terminated, names inside the string table, the rank index
 * contiguous and covering every record. */
static const char *check_tables(const struct opstream *s)
{
	const struct ops_header *h = s->hdr;
	if (s->info[h->info_len - 1] != '\0' || s->strs[h->str_len - 1] != '\0')
		return "corrupt .ops file (unterminated strings)";
	for (uint32_t i = 0; i < s->npaths; i++)
		if (s->paths[i].name >= h->str_len)
			return "corrupt .ops file (path name out of bounds)";
	uint64_t next = 0;
	for (uint32_t r = 0; r < s->nranks; r++) {
		if (s->ranks[r].name >= h->str_len || s->ranks[r].host >= h->str_len ||
		    s->ranks[r].first != next ||
		    s->ranks[r].count > h->nops - next)
			return "corrupt .ops file (bad rank index)";
		next += s->ranks[r].count;
	}
	if (next != h->nops)
		return "corrupt .ops file (rank index does not cover the records)";
	return NULL;
}

/* The section pointers of a checked header at s->map. */
static void point_sections(struct opstream *s)
{
	const struct ops_header *h = s->map;

	s->hdr = h;
	s->info = (const char *)s->map + h->info_off;
	s->strs = (const char *)s->map + h->str_off;
	s->paths = (const void *)((const char *)s->map + h->paths_off);
	s->ranks = (const void *)((const char *)s->map + h->ranks_off);
	s->ops = (const void *)((const char *)s->map + h->ops_off);
	s->nranks = h->nranks;
	s->npaths = h->npaths;
	s->nops = h->nops;
}

/* Map path and check its header and tables, and its records when
 * `records`. */
static int open_checked(struct opstream *s, const char *path, const char **why, bool records)
{
	static const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	memset(s, 0, sizeof(*s));
	int fd, ret = map_file(s, path, why, &fd);
	if (!ret && (*why = check_header(s->map, s->size)))
		ret = -EINVAL;
	if (!ret) {
		point_sections(s);
		if ((*why = check_tables(s)))
			ret = -EINVAL;
	}
	if (!ret)
		ret = place_ranks(s, fd, why);
	if (fd >= 0)
		close(fd);
	if (ret) {
		opstream_close(s);
		return ret;
	}
	if (!records)
		return 0;
	/* Records are trusted by every consumer (the runner sizes its handle
	 * table from them), so check each one once here: a sequential pass
	 * over the mapping, far cheaper than the replay itself.  The pages
	 * checked are let go every CHECK_WINDOW bytes (a consumer faults them
	 * in again from the page cache), so the pass does not make the
	 * process as large as the file (convert's peak RSS stays bounded). */
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t kept0 = ((uintptr_t)s->ops + (uintptr_t)pg - 1) & ~(uintptr_t)(pg - 1);
	for (uint32_t r = 0; r < s->nranks; r++) {
		const struct op *o = s->rank_ops[r];
		/* the file's mapping, or a rank's own: one window each, and
		 * none for records read into memory (they would be lost) */
		uintptr_t own = 0, *kp = &kept0;
		for (uint32_t m = 0; m < s->nmaps; m++)
			if (s->maps[m].p == (const void *)o) {
				own = s->maps[m].anon ? UINTPTR_MAX - CHECK_WINDOW : (uintptr_t)o;
				kp = &own;
			}
		for (uint64_t i = 0, n = s->ranks[r].count; i < n; i++, o++) {
			*why = handle_bad(o->handle, n) ? BAD_HANDLE : check_op(s->npaths, o);
			/* what every text reader refuses, so no writer writes
			 * it (not checked there again): a read or write moving
			 * more than it asked for */
			if (!*why && (o->kind == OP_READ || o->kind == OP_WRITE) &&
			    o->result > (int64_t)o->len)
				*why = "corrupt .ops file (a read or write moving more than its length)";
			if (*why)
				goto bad;
			if ((uintptr_t)o >= *kp + CHECK_WINDOW) {
				madvise((void *)*kp, CHECK_WINDOW, MADV_DONTNEED);
				*kp += CHECK_WINDOW;
			}
		}
	}
	return 0;
bad:
	opstream_close(s);
	return -EINVAL;
}

int opstream_open(struct opstream *s, const char *path, const char **why)
{
	return open_checked(s, path, why, true);
}

int opstream_open_made(struct opstream *s, const char *path, const char **why)
{
	return open_checked(s, path, why, false);
}

void opstream_close(struct opstream *s)
{
	if (s->map && s->heap)
		free(s->map);
	else if (s->map)
		munmap(s->map, s->size);
	for (uint32_t m = 0; m < s->nmaps; m++)
		munmap(s->maps[m].p, s->maps[m].len);
	free(s->maps);
	free(s->rank_ops);
	memset(s, 0, sizeof(*s));
}

/* Each info line "KEY=N REST" (N < s->nranks): fn(arg, N, REST, its length). */
static int info_rank_lines(const struct opstream *s, const char *key,
			   int (*fn)(void *arg, uint32_t rank, const char *rest, size_t len), void *arg)
{
	size_t kl = strlen(key);
	for (const char *p = s->info; *p;) {
		size_t l = strcspn(p, "\n");
		if (l > kl + 1 && !memcmp(p, key, kl) && p[kl] == '=') {
			char *end;
			unsigned long long r = strtoull(p + kl + 1, &end, 10);
			if (end > p + kl + 1 && *end == ' ' && r < s->nranks) {
				int rc = fn(arg, (uint32_t)r, end + 1, l - (size_t)(end + 1 - p));
				if (rc)
					return rc;
			}
		}
		p += l + (p[l] == '\n');
	}
	return 0;
}

struct source_fn {
	uint32_t rank;
	char *buf;
	size_t len;
	bool found;
};

static int one_source(void *arg, uint32_t rank, const char *rest, size_t len)
{
	struct source_fn *f = arg;
	if (rank != f->rank || f->found || !f->len)
		return 0;
	if (len >= f->len)
		len = f->len - 1;
	memcpy(f->buf, rest, len);
	f->buf[len] = '\0';
	f->found = true;
	return 0;
}

const char *opstream_rank_source(const struct opstream *s, uint32_t r, char *buf, size_t len)
{
	struct source_fn f = { r, buf, len, false };
	info_rank_lines(s, "rank_source", one_source, &f);
	return f.found ? buf : opstream_source_file(s, buf, len);
}

struct launcher_fn {
	const struct opstream *s;
	int (*fn)(void *arg, uint32_t rank, int64_t pid, const char *prog);
	void *arg;
};

static int one_launcher(void *arg, uint32_t rank, const char *rest, size_t len)
{
	struct launcher_fn *l = arg;
	char prog[256];
	if (len >= sizeof(prog))
		len = sizeof(prog) - 1;
	memcpy(prog, rest, len);
	prog[len] = 0;
	return l->fn(l->arg, rank, l->s->ranks[rank].pid, prog);
}

int opstream_launchers(const struct opstream *s,
		       int (*fn)(void *arg, uint32_t rank, int64_t pid, const char *prog), void *arg)
{
	struct launcher_fn l = { s, fn, arg };
	return info_rank_lines(s, "launcher", one_launcher, &l);
}

static int one_thread(void *arg, uint32_t rank, const char *rest, size_t len)
{
	(void)len;
	((int64_t *)arg)[rank] = strtoll(rest, NULL, 10);
	return 0;
}

void opstream_thread_of(const struct opstream *s, int64_t *tgid)
{
	for (uint32_t r = 0; r < s->nranks; r++)
		tgid[r] = -1;
	info_rank_lines(s, "thread_of", one_thread, tgid);
}

int opstream_feed(const struct opstream *s, const struct ops_sink *sink)
{
	int rc = 0;

	for (uint32_t p = 0; p < s->npaths && !rc; p++)
		rc = sink->path ? sink->path(sink->arg, p, opstream_path(s, p)) : 0;
	if (!rc && sink->launcher)
		rc = opstream_launchers(s, sink->launcher, sink->arg);
	for (uint32_t r = 0; r < s->nranks && !rc; r++) {
		uint64_t n;
		const struct op *ops = opstream_rank_ops(s, r, &n);
		for (uint64_t i = 0; i < n && !rc; i++)
			rc = sink->op ? sink->op(sink->arg, r, &ops[i]) : 0;
	}
	return rc;
}

const char *opstream_path(const struct opstream *s, uint32_t id)
{
	if (id == OP_NOFILE || id >= s->npaths)
		return "";
	return s->strs + s->paths[id].name;
}

const char *opstream_rank_name(const struct opstream *s, uint32_t r)
{
	return r < s->nranks ? s->strs + s->ranks[r].name : "";
}

const char *opstream_rank_host(const struct opstream *s, uint32_t r)
{
	return r < s->nranks ? s->strs + s->ranks[r].host : "";
}

const char *opstream_source_file(const struct opstream *s, char *buf, size_t len)
{
	char n[32];
	const char *v = opstream_info(s, "source_files", n, sizeof(n));
	return v && !strcmp(v, "1") ? opstream_info(s, "source", buf, len) : NULL;
}

const char *opstream_info(const struct opstream *s, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	const char *p = s->info;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		if (l > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			size_t vlen = l - klen - 1;
			if (vlen >= len)
				vlen = len ? len - 1 : 0;
			if (len) {
				memcpy(buf, p + klen + 1, vlen);
				buf[vlen] = '\0';
			}
			return buf;
		}
		p += l + (nl ? 1 : 0);
	}
	return NULL;
}
