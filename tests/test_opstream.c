/* test_opstream.c - .ops writer/reader round trip, chunk spill, corruption. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "ops/opstream.h"

static char dir[] = "/tmp/replay-test-opsXXXXXX";

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void test_roundtrip(void **state)
{
	(void)state;
	char path[256];
	path_in(path, sizeof(path), "a.ops");
	struct ops_writer *w;
	assert_int_equal(opsw_open(&w, path), 0);
	uint32_t r0, r1, p0, p1, p0b;
	assert_int_equal(opsw_rank(w, "pid 10", 10, &r0), 0);
	assert_int_equal(opsw_rank(w, "pid 11", 11, &r1), 0);
	assert_int_equal(opsw_path(w, "/tmp/x", 0, &p0), 0);
	assert_int_equal(opsw_path(w, "/tmp/y", OPSP_TRUNCATED_NAME, &p1), 0);
	assert_int_equal(opsw_path(w, "/tmp/x", 0, &p0b), 0);
	assert_int_equal(p0, p0b);
	assert_int_not_equal(p0, p1);
	opsw_rank_t0(w, r1, 12345);
	assert_int_equal(opsw_info(w, "format", "strace"), 0);
	assert_int_equal(opsw_info(w, "bad\nkey", "x"), -EINVAL);
	/* interleave ranks; rank 1 gets more than several chunks */
	const unsigned n1 = 1000, n0 = 3;
	for (unsigned i = 0; i < n1; i++) {
		struct op op = { .kind = OP_WRITE, .file = p1, .offset = i * 4096ull, .len = 4096, .result = 4096, .t_ns = i };
		assert_int_equal(opsw_append(w, r1, &op), 0);
		if (i < n0) {
			struct op o0 = { .kind = OP_READ, .file = p0, .offset = i, .len = 1, .result = 1 };
			assert_int_equal(opsw_append(w, r0, &o0), 0);
		}
	}
	assert_int_equal(opsw_finish(w, NULL), 0);

	assert_true(ops_file_is(path));
	struct opstream s;
	const char *why = NULL;
	assert_int_equal(opstream_open(&s, path, &why), 0);
	assert_int_equal(s.nranks, 2);
	assert_int_equal(s.npaths, 2);
	assert_int_equal(s.nops, n0 + n1);
	assert_string_equal(opstream_rank_name(&s, 1), "pid 11");
	assert_int_equal(s.ranks[1].pid, 11);
	assert_int_equal(s.ranks[1].t0_ns, 12345);
	assert_string_equal(opstream_path(&s, p1), "/tmp/y");
	assert_int_equal(s.paths[p1].flags, OPSP_TRUNCATED_NAME);
	assert_string_equal(opstream_path(&s, OP_NOFILE), "");
	char buf[64];
	assert_non_null(opstream_info(&s, "format", buf, sizeof(buf)));
	assert_string_equal(buf, "strace");
	assert_null(opstream_info(&s, "form", buf, sizeof(buf)));
	uint64_t n;
	const struct op *ops = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(n, n0);
	for (unsigned i = 0; i < n0; i++) {
		assert_int_equal(ops[i].kind, OP_READ);
		assert_int_equal(ops[i].offset, i);
	}
	ops = opstream_rank_ops(&s, 1, &n);
	assert_int_equal(n, n1);
	for (unsigned i = 0; i < n1; i++) {
		assert_int_equal(ops[i].offset, i * 4096ull);
		assert_int_equal(ops[i].t_ns, i);
	}
	opstream_close(&s);
	unlink(path);
}

static void test_corrupt(void **state)
{
	(void)state;
	char path[256];
	path_in(path, sizeof(path), "c.ops");
	struct ops_writer *w;
	uint32_t r;
	assert_int_equal(opsw_open(&w, path), 0);
	assert_int_equal(opsw_rank(w, "r", 1, &r), 0);
	struct op op = { .kind = OP_WRITE, .file = OP_NOFILE, .handle = OP_NOHANDLE };
	for (int i = 0; i < 10; i++)
		assert_int_equal(opsw_append(w, r, &op), 0);
	assert_int_equal(opsw_finish(w, NULL), 0);

	/* truncate: size mismatch must be detected */
	struct opstream s;
	const char *why = NULL;
	assert_int_equal(truncate(path, 200), 0);
	assert_int_equal(opstream_open(&s, path, &why), -EINVAL);
	assert_non_null(why);

	/* not an ops file at all */
	int fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	char junk[300];
	memset(junk, 'x', sizeof(junk));
	assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	close(fd);
	assert_false(ops_file_is(path));
	assert_int_equal(opstream_open(&s, path, &why), -EINVAL);
	assert_string_equal(why, "not an .ops file (bad magic)");
	assert_int_equal(opstream_open(&s, "/nonexistent/x.ops", &why), -ENOENT);
	unlink(path);
}

/* Write a one-rank file holding `op` (after a valid open) and open it. */
static int files_in_dir(void);

/* A writer to path with one rank (*r) and one path; *o0 an open of it. */
static void start_writer(const char *path, struct ops_writer **w, uint32_t *r, struct op *o0)
{
	uint32_t p;
	assert_int_equal(opsw_open(w, path), 0);
	assert_int_equal(opsw_rank(*w, "r", 1, r), 0);
	assert_int_equal(opsw_path(*w, "/f", 0, &p), 0);
	*o0 = (struct op){ .kind = OP_OPEN, .file = p, .handle = 0, .result = 3 };
}

/* A file of two records, an open and *op, put in by hand over a good
 * second record (the writer would refuse a bad one), then opened. */
static int open_with(const struct op *op, const char **why)
{
	char path[256];
	path_in(path, sizeof(path), "v.ops");
	struct ops_writer *w;
	struct op o0;
	uint32_t r;
	start_writer(path, &w, &r, &o0);
	assert_int_equal(opsw_append(w, r, &o0), 0);
	assert_int_equal(opsw_append(w, r, &o0), 0);
	assert_int_equal(opsw_finish(w, NULL), 0);
	struct ops_header h;
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &h, sizeof(h), 0), sizeof(h));
	assert_int_equal(pwrite(fd, op, sizeof(*op), (off_t)(h.ops_off + sizeof(*op))), sizeof(*op));
	close(fd);
	struct opstream s;
	int rc = opstream_open(&s, path, why);
	if (rc == 0)
		opstream_close(&s);
	unlink(path);
	return rc;
}

/* The writer given the same two records: -EINVAL from opsw_finish, with
 * the reason opstream_open gives, and no file, when the second is bad;
 * after `before` good records of the rank (records in the writer's
 * buffer or already flushed from it). */
static int write_with(const struct op *op, unsigned before, const char **why)
{
	char path[256];
	path_in(path, sizeof(path), "w.ops");
	struct ops_writer *w;
	struct op o0;
	uint32_t r;
	start_writer(path, &w, &r, &o0);
	for (unsigned i = 0; i <= before; i++)
		assert_int_equal(opsw_append(w, r, &o0), 0);
	assert_int_equal(opsw_append(w, r, op), 0);
	for (unsigned i = 0; i < 3 * OPSW_CHUNK; i++)
		assert_int_equal(opsw_append(w, r, &o0), 0);
	int rc = opsw_finish(w, why);
	assert_int_equal(files_in_dir(), rc ? 0 : 1);
	unlink(path);
	return rc;
}

/* Both ways to meet a bad record agree: rc and reason. */
static int check_record(const struct op *op, const char **why)
{
	const char *wwhy = NULL;
	int rc = open_with(op, why);
	assert_int_equal(write_with(op, 0, &wwhy), rc);
	if (rc)
		assert_string_equal(wwhy, *why);
	else
		assert_null(wwhy);
	assert_int_equal(write_with(op, OPSW_CHUNK + 7, &wwhy), rc);
	if (rc)
		assert_string_equal(wwhy, *why);
	return rc;
}

static void test_records_validated(void **state)
{
	(void)state;
	const char *why = NULL;
	struct op ok = { .kind = OP_WRITE, .file = OP_NOFILE, .handle = 0, .len = 1, .result = 1 };
	assert_int_equal(check_record(&ok, &why), 0);

	struct op bad = ok;
	bad.kind = OP__COUNT;
	assert_int_equal(check_record(&bad, &why), -EINVAL);
	assert_string_equal(why, "corrupt .ops file (unknown op kind)");
	bad = ok;
	bad.kind = OP_NONE;
	assert_int_equal(check_record(&bad, &why), -EINVAL);
	bad = ok;
	bad.file = 1;  /* one path only */
	assert_int_equal(check_record(&bad, &why), -EINVAL);
	assert_string_equal(why, "corrupt .ops file (path id out of range)");
	bad = (struct op){ .kind = OP_RENAME, .file = 0, .aux = 7, .handle = OP_NOHANDLE };
	assert_int_equal(check_record(&bad, &why), -EINVAL);
	assert_string_equal(why, "corrupt .ops file (rename target out of range)");
	/* a symlink's content is a path-table entry too */
	bad = (struct op){ .kind = OP_SYMLINK, .file = 0, .aux = 7, .handle = OP_NOHANDLE };
	assert_int_equal(check_record(&bad, &why), -EINVAL);
	assert_string_equal(why, "corrupt .ops file (symlink content out of range)");
	bad.aux = 0;
	assert_int_equal(check_record(&bad, &why), 0);
	bad = ok;
	bad.handle = 0xfffffff0u;  /* would size a 64 GiB handle table */
	assert_int_equal(check_record(&bad, &why), -EINVAL);
	assert_string_equal(why, "corrupt .ops file (handle id out of range)");
	bad = ok;
	bad.len = 1ull << 47;  /* a worker would try to allocate this */
	assert_int_equal(check_record(&bad, &why), -EINVAL);
	assert_string_equal(why, "corrupt .ops file (data op longer than one call can move)");
	/* moved more than it asked for: every text reader refuses it, so the
	 * writer is never given one; a file holding one is refused */
	bad = ok;
	bad.result = 2;
	assert_int_equal(open_with(&bad, &why), -EINVAL);
	assert_string_equal(why, "corrupt .ops file (a read or write moving more than its length)");
	bad.kind = OP_READ;
	assert_int_equal(open_with(&bad, &why), -EINVAL);
	bad.result = -5;  /* failed: EIO */
	assert_int_equal(check_record(&bad, &why), 0);
	bad.kind = OP_AREAD;  /* a submit's result is not its count */
	bad.result = 7;
	assert_int_equal(open_with(&bad, &why), 0);
	bad = ok;
	bad.handle = 9;  /* sparse but small: tolerated */
	assert_int_equal(check_record(&bad, &why), 0);
}

static void test_empty(void **state)
{
	(void)state;
	char path[256];
	path_in(path, sizeof(path), "e.ops");
	struct ops_writer *w;
	assert_int_equal(opsw_open(&w, path), 0);
	assert_int_equal(opsw_finish(w, NULL), 0);
	struct opstream s;
	assert_int_equal(opstream_open(&s, path, NULL), 0);
	assert_int_equal(s.nranks, 0);
	assert_int_equal(s.nops, 0);
	opstream_close(&s);
	unlink(path);
}

/* Files in dir (the writer's temporaries must be gone). */
static int files_in_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* A record that says which rank it is and its index in that rank. */
static struct op tagged(uint32_t rank, uint64_t i)
{
	return (struct op){ .kind = OP_WRITE, .file = OP_NOFILE, .handle = OP_NOHANDLE,
			    .offset = i, .len = 1, .result = 1, .t_ns = rank };
}

/* Every rank of s (nr of them) has want[rank] records, each tagged()
 * with its rank and index, in order. */
static void assert_tagged(const struct opstream *s, const uint64_t *want, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t n;
		const struct op *ops = opstream_rank_ops(s, i, &n);
		assert_int_equal(n, want[i]);
		for (uint64_t k = 0; k < n; k++) {
			assert_int_equal(ops[k].t_ns, i);
			assert_int_equal(ops[k].offset, k);
		}
	}
}

/* How check_feed hands records over: 0 opsw_append, 1 opsw_slot +
 * opsw_commit whenever a slot is given (else opsw_append), 2 either at
 * random. */
static int feed_slots;

static int put(struct ops_writer *w, uint32_t rank, const struct op *op)
{
	if (feed_slots == 1 || (feed_slots == 2 && rand() % 2)) {
		struct op *slot = opsw_slot(w, rank);
		if (slot) {
			*slot = *op;
			return opsw_commit(w, rank);
		}
	}
	return opsw_append(w, rank, op);
}

/* The order in which ranks hand their records to the writer. */
enum feed { FEED_IN_ORDER, FEED_RANDOM, FEED_REVERSED, FEED_RESUMED };

/*
 * Ranks of random sizes (none, under a chunk, exactly one, many), fed as
 * `how` says; every record must read back in its rank, in order, and the
 * writer must have known whether it could write them in place.
 */
static size_t feed_hold = SIZE_MAX;     /* opsw_hold; SIZE_MAX: the default */
static size_t feed_pieces;              /* opsw_max_pieces; 0: the default */
static int feed_unnamed;                /* opsw_open_unnamed in dir */

static void check_feed(enum feed how, unsigned seed)
{
	enum { NR = 9 };
	static const unsigned sizes[] = { 0, 1, 255, 256, 257, 512, 3000, 100, 0 };
	uint64_t want[NR], fed[NR] = { 0 }, total = 0, left;
	char path[256];
	struct ops_writer *w;
	uint32_t r;

	srand(seed);
	path_in(path, sizeof(path), "feed.ops");
	if (feed_unnamed)
		assert_int_equal(opsw_open_unnamed(&w, dir, -1), 0);
	else
		assert_int_equal(opsw_open(&w, path), 0);
	if (feed_hold != SIZE_MAX)
		opsw_hold(w, feed_hold);
	if (feed_pieces)
		opsw_max_pieces(w, feed_pieces);
	for (unsigned i = 0; i < NR; i++) {
		char name[16];
		snprintf(name, sizeof(name), "rank %u", i);
		assert_int_equal(opsw_rank(w, name, i, &r), 0);
		assert_int_equal(r, i);
		want[i] = sizes[(i + seed) % NR] + (uint64_t)(rand() % 3);
		total += want[i];
	}
	left = total;
	switch (how) {
	case FEED_IN_ORDER:
	case FEED_REVERSED:
		for (unsigned k = 0; k < NR; k++) {
			uint32_t i = how == FEED_IN_ORDER ? k : NR - 1 - k;
			for (; fed[i] < want[i]; fed[i]++) {
				struct op op = tagged(i, fed[i]);
				assert_int_equal(put(w, i, &op), 0);
			}
		}
		break;
	case FEED_RANDOM:
		while (left) {
			uint32_t i = (uint32_t)rand() % NR;
			if (fed[i] == want[i])
				continue;
			struct op op = tagged(i, fed[i]++);
			assert_int_equal(put(w, i, &op), 0);
			left--;
		}
		break;
	case FEED_RESUMED:
		/* rank 3 writes half, rank 6 all of it, then rank 3 the rest */
		want[3] = 700, want[6] = 600;
		for (uint64_t k = 0; k < 350; k++) {
			struct op op = tagged(3, fed[3]++);
			assert_int_equal(put(w, 3, &op), 0);
		}
		for (; fed[6] < want[6]; fed[6]++) {
			struct op op = tagged(6, fed[6]);
			assert_int_equal(put(w, 6, &op), 0);
		}
		for (uint32_t i = 0; i < NR; i++)
			for (; fed[i] < want[i]; fed[i]++) {
				struct op op = tagged(i, fed[i]);
				assert_int_equal(put(w, i, &op), 0);
			}
		total = 0;
		for (uint32_t i = 0; i < NR; i++)
			total += want[i];
		break;
	}
	/* in place exactly when no rank came after a higher one had written */
	int expect = how == FEED_IN_ORDER;
	if (how == FEED_REVERSED) {
		/* a rank is written out (and later ranks' turn begins) when it
		 * fills a chunk: a lower rank with records after that is late */
		expect = 1;
		for (unsigned j = 0; j < NR; j++)
			for (unsigned i = 0; i < j; i++)
				if (want[j] >= 256 && want[i] > 0)
					expect = 0;
	}
	if (how != FEED_RANDOM)
		assert_int_equal(opsw_in_place(w), expect);
	int fd = -1;
	if (feed_unnamed) {
		/* nothing with a name, before or after: the file is fd's alone */
		assert_int_equal(files_in_dir(), 0);
		assert_int_equal(opsw_finish_unnamed(w, NULL, &fd), 0);
		assert_true(fd >= 0);
		assert_int_equal(files_in_dir(), 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	} else {
		assert_int_equal(opsw_finish(w, NULL), 0);
		assert_int_equal(files_in_dir(), 1);
	}

	struct opstream s;
	const char *why = NULL;
	assert_int_equal(opstream_open(&s, path, &why), 0);
	assert_int_equal(s.nranks, NR);
	assert_int_equal(s.nops, total);
	assert_int_equal(s.hdr->file_size, s.size);
	/* pieces only for records written before the end, ranks interleaved,
	 * and no more than allowed */
	if (feed_hold == SIZE_MAX || expect)
		assert_int_equal(s.hdr->version, OPS_VERSION);
	if (s.hdr->version == OPS_VERSION_PIECES) {
		assert_true(s.hdr->npieces <= (feed_pieces ? feed_pieces : OPSW_MAX_PIECES));
		assert_true(s.hdr->npieces >= 1);
	}
	assert_tagged(&s, want, NR);
	opstream_close(&s);
	if (fd >= 0)
		close(fd);
	else
		unlink(path);
}

static void test_feed_orders(void **state)
{
	(void)state;
	/* full buffers of interleaved ranks: all kept in memory (the default
	 * holds these sizes whole), all spilled to the temporary file (0), or
	 * the first three kept and the rest spilled, so that a rank's records
	 * come from both */
	static const size_t holds[] = { SIZE_MAX, 0, 3 * OPSW_CHUNK * sizeof(struct op),
					16 * OPSW_CHUNK * sizeof(struct op) };
	/* each into a named file, and into an unnamed one (O_TMPFILE: the
	 * temporary .ops of run and dump) */
	for (feed_unnamed = 0; feed_unnamed < 2; feed_unnamed++)
		for (size_t h = 0; h < sizeof(holds) / sizeof(holds[0]); h++) {
			feed_hold = holds[h];
			for (feed_slots = 0; feed_slots < 3; feed_slots++)
				for (unsigned seed = 0; seed < 18; seed++) {
					/* pieces allowed, or too few (copied) */
					feed_pieces = seed % 3 == 2 ? 2 : 0;
					check_feed(FEED_IN_ORDER, seed);
					check_feed(FEED_RANDOM, seed);
					check_feed(FEED_REVERSED, seed);
					check_feed(FEED_RESUMED, seed);
				}
		}
	feed_unnamed = 0;
	feed_pieces = 0;
	feed_slots = 0;
	feed_hold = SIZE_MAX;
}

/* Ranks interleaved past what memory may hold: rank 0 first alone for
 * `alone` records (in place, until rank 1 starts), then NR ranks in turn,
 * `each` records each; read back, every rank's records in order.  The
 * file's version. */
static uint32_t write_interleaved(const char *path, size_t hold, size_t max_pieces, uint64_t alone,
				  uint64_t each)
{
	enum { NR = 4 };
	struct ops_writer *w;
	uint64_t fed[NR] = { 0 };
	uint32_t r;
	assert_int_equal(opsw_open(&w, path), 0);
	opsw_hold(w, hold);
	if (max_pieces)
		opsw_max_pieces(w, max_pieces);
	for (uint32_t i = 0; i < NR; i++)
		assert_int_equal(opsw_rank(w, "r", i, &r), 0);
	for (; fed[0] < alone; fed[0]++) {
		struct op op = tagged(0, fed[0]);
		assert_int_equal(opsw_append(w, 0, &op), 0);
	}
	for (uint64_t k = 0; k < each; k++)
		for (uint32_t i = 0; i < NR; i++) {
			struct op op = tagged(i, fed[i]++);
			assert_int_equal(opsw_append(w, i, &op), 0);
		}
	assert_int_equal(opsw_finish(w, NULL), 0);
	assert_int_equal(files_in_dir(), 1);

	struct opstream s;
	const char *why = NULL;
	assert_int_equal(opstream_open(&s, path, &why), 0);
	assert_int_equal(s.nranks, NR);
	assert_tagged(&s, fed, NR);
	uint32_t version = s.hdr->version;
	if (version == OPS_VERSION_PIECES) {
		/* every record once: the pieces add up to the records, and a
		 * rank of several is mapped from the file, not copied */
		const struct ops_piece *p = (const void *)((const char *)s.map + s.hdr->pieces_off);
		uint64_t sum = 0;
		for (uint64_t j = 0; j < s.hdr->npieces; j++)
			sum += p[j].count;
		assert_int_equal(sum, s.nops);
		assert_true(s.hdr->npieces > NR);
		assert_true(s.nmaps >= 1);
		for (uint32_t m = 0; m < s.nmaps; m++)
			assert_int_equal(s.maps[m].anon, 0);
		/* records written in place first are read back and written
		 * again, their first place punched out: the blocks the file
		 * holds are the records' (and the gaps that align pieces) */
		struct stat st;
		assert_int_equal(stat(path, &st), 0);
		assert_true((uint64_t)st.st_blocks * 512 <
			    sizeof(struct ops_header) + s.nops * sizeof(struct op) +
				    s.hdr->npieces * (OPS_PIECE_ALIGN + sizeof(struct ops_piece)) + 8192);
	}
	opstream_close(&s);
	unlink(path);
	return version;
}

/* A trace longer than memory may hold, ranks interleaved: its records in
 * pieces, each written once (version 2); in one piece a rank (version 1)
 * when memory holds them all, when the pieces would be too many, or when
 * too much was written in place before ranks interleaved. */
static void test_pieces_written(void **state)
{
	(void)state;
	char path[256];
	const size_t chunk = OPSW_CHUNK * sizeof(struct op);
	path_in(path, sizeof(path), "p.ops");
	/* each rank's first buffer is written in place (4 ranks, 4 chunks),
	 * then read back when rank 0 goes on */
	assert_int_equal(write_interleaved(path, 16 * chunk, 0, 0, 40 * OPSW_CHUNK), OPS_VERSION_PIECES);
	assert_int_equal(write_interleaved(path, 16 * chunk, 0, 0, 40 * OPSW_CHUNK + 77),
			 OPS_VERSION_PIECES);
	assert_int_equal(write_interleaved(path, 2 * chunk, 0, 0, 40 * OPSW_CHUNK), OPS_VERSION_PIECES);
	/* all held: one piece a rank */
	assert_int_equal(write_interleaved(path, SIZE_MAX / 2, 0, 0, 40 * OPSW_CHUNK), OPS_VERSION);
	/* too many pieces: copied */
	assert_int_equal(write_interleaved(path, 16 * chunk, 4, 0, 40 * OPSW_CHUNK), OPS_VERSION);
	/* rank 0 alone first, written in place (a partial chunk last, when
	 * rank 1 fills one), read back */
	assert_int_equal(write_interleaved(path, 32 * chunk, 0, 300, 40 * OPSW_CHUNK),
			 OPS_VERSION_PIECES);
	assert_int_equal(write_interleaved(path, 8 * chunk, 0, 20 * OPSW_CHUNK + 5, 40 * OPSW_CHUNK),
			 OPS_VERSION_PIECES);
	/* nothing held: every full buffer a piece */
	assert_int_equal(write_interleaved(path, 0, 0, 100, 10 * OPSW_CHUNK), OPS_VERSION_PIECES);
}

/* A version 2 file made by hand from a version 1 file of two ranks
 * (3 and 10 records): its piece table (npieces entries of p) appended,
 * the header made to say so.  Then opened. */
static int open_pieces(const struct ops_piece *p, uint64_t npieces, struct opstream *s,
		       const char **why)
{
	char path[256];
	struct ops_writer *w;
	uint32_t r;
	path_in(path, sizeof(path), "h.ops");
	assert_int_equal(opsw_open(&w, path), 0);
	assert_int_equal(opsw_rank(w, "a", 1, &r), 0);
	assert_int_equal(opsw_rank(w, "b", 2, &r), 0);
	for (uint64_t i = 0; i < 13; i++) {
		struct op op = tagged(i < 3 ? 0 : 1, i < 3 ? i : i - 3);
		assert_int_equal(opsw_append(w, i < 3 ? 0 : 1, &op), 0);
	}
	assert_int_equal(opsw_finish(w, NULL), 0);
	struct ops_header h;
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &h, sizeof(h), 0), sizeof(h));
	assert_int_equal(h.version, OPS_VERSION);
	h.version = OPS_VERSION_PIECES;
	h.pieces_off = (h.file_size + 63) & ~63ull;
	h.npieces = npieces;
	assert_int_equal(pwrite(fd, p, npieces * sizeof(*p), (off_t)h.pieces_off),
			 (ssize_t)(npieces * sizeof(*p)));
	h.file_size = h.pieces_off + npieces * sizeof(*p);
	assert_int_equal(ftruncate(fd, (off_t)h.file_size), 0);
	assert_int_equal(pwrite(fd, &h, sizeof(h), 0), sizeof(h));
	close(fd);
	int rc = opstream_open(s, path, why);
	unlink(path);
	return rc;
}

/* The reader follows the piece table, in its order; pieces it cannot map
 * one after another (not at page boundaries) it reads into memory; a
 * table that does not give every rank exactly its records is refused. */
static void test_pieces_read(void **state)
{
	(void)state;
	struct opstream s;
	const char *why = NULL;
	const uint64_t r0 = sizeof(struct ops_header), r1 = r0 + 3 * sizeof(struct op);
	const uint64_t rec = sizeof(struct op);
	/* rank 1 as records 6..9, then 0..5: the table's order */
	struct ops_piece p[] = { { r0, 3 }, { r1 + 6 * rec, 4 }, { r1, 6 } };
	assert_int_equal(open_pieces(p, 3, &s, &why), 0);
	uint64_t n;
	const struct op *ops = opstream_rank_ops(&s, 1, &n);
	assert_int_equal(n, 10);
	for (uint64_t k = 0; k < n; k++)
		assert_int_equal(ops[k].offset, k < 4 ? 6 + k : k - 4);
	assert_int_equal(s.nmaps, 1);
	assert_int_equal(s.maps[0].anon, 1);     /* copied: not at page boundaries */
	ops = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(n, 3);
	assert_int_equal(ops[2].offset, 2);
	opstream_close(&s);

	/* one piece a rank: where the table says, no copy */
	struct ops_piece one[] = { { r0, 3 }, { r1, 10 } };
	assert_int_equal(open_pieces(one, 2, &s, &why), 0);
	assert_int_equal(s.nmaps, 0);
	ops = opstream_rank_ops(&s, 1, &n);
	assert_int_equal(ops[9].offset, 9);
	opstream_close(&s);

	static const char bad[] = "corrupt .ops file (bad piece table)";
	struct ops_piece shortp[] = { { r0, 3 }, { r1, 9 } };          /* rank 1 short */
	assert_int_equal(open_pieces(shortp, 2, &s, &why), -EINVAL);
	assert_string_equal(why, bad);
	struct ops_piece over[] = { { r0, 3 }, { r1, 11 } };           /* past rank 1 */
	assert_int_equal(open_pieces(over, 2, &s, &why), -EINVAL);
	assert_string_equal(why, bad);
	struct ops_piece extra[] = { { r0, 3 }, { r1, 10 }, { r1, 1 } }; /* one left over */
	assert_int_equal(open_pieces(extra, 3, &s, &why), -EINVAL);
	assert_string_equal(why, bad);
	struct ops_piece empty[] = { { r0, 3 }, { r1, 0 }, { r1, 10 } };
	assert_int_equal(open_pieces(empty, 3, &s, &why), -EINVAL);
	assert_string_equal(why, bad);
	struct ops_piece askew[] = { { r0, 3 }, { r1 + 4, 10 } };      /* not 8-aligned */
	assert_int_equal(open_pieces(askew, 2, &s, &why), -EINVAL);
	assert_string_equal(why, bad);
	struct ops_piece outside[] = { { r0, 3 }, { 1ull << 40, 10 } };
	assert_int_equal(open_pieces(outside, 2, &s, &why), -EINVAL);
	assert_string_equal(why, bad);
	struct ops_piece huge[] = { { r0, 3 }, { r1, 1ull << 60 } };
	assert_int_equal(open_pieces(huge, 2, &s, &why), -EINVAL);
	assert_string_equal(why, bad);
	struct ops_piece few[] = { { r0, 3 } };                        /* rank 1 none */
	assert_int_equal(open_pieces(few, 1, &s, &why), -EINVAL);
	assert_string_equal(why, bad);
	/* a record twice: rank 1's piece over rank 0's, or over its own */
	struct ops_piece shared[] = { { r0, 3 }, { r0, 3 }, { r1, 7 } };
	assert_int_equal(open_pieces(shared, 3, &s, &why), -EINVAL);
	assert_string_equal(why, bad);
	struct ops_piece twice[] = { { r0, 3 }, { r1, 5 }, { r1 + 4 * rec, 5 } };
	assert_int_equal(open_pieces(twice, 3, &s, &why), -EINVAL);
	assert_string_equal(why, bad);
}

/* opsw_slot gives no slot where opsw_append must decide: an unknown
 * rank, a rank without a record yet, a sink's rank not holding its buffer. */
static void test_slot_refused(void **state)
{
	(void)state;
	char path[256];
	struct ops_writer *w;
	uint32_t r;
	path_in(path, sizeof(path), "slot.ops");
	assert_int_equal(opsw_open(&w, path), 0);
	assert_int_equal(opsw_rank(w, "r", 1, &r), 0);
	assert_null(opsw_slot(w, r));
	assert_null(opsw_slot(w, r + 1));
	struct op op = tagged(0, 0);
	assert_int_equal(opsw_append(w, r, &op), 0);
	assert_non_null(opsw_slot(w, r));
	/* a later rank fills a chunk: r is done, written in place; a record
	 * more of r must go through opsw_append, which knows the file is no
	 * longer in place */
	uint32_t r2;
	assert_int_equal(opsw_rank(w, "r2", 2, &r2), 0);
	for (uint64_t i = 0; i < OPSW_CHUNK; i++) {
		struct op o2 = tagged(1, i);
		struct op *slot = opsw_slot(w, r2);
		if (slot) {
			*slot = o2;
			assert_int_equal(opsw_commit(w, r2), 0);
		} else {
			assert_int_equal(opsw_append(w, r2, &o2), 0);
		}
	}
	assert_int_equal(opsw_in_place(w), 1);
	assert_null(opsw_slot(w, r));
	assert_int_equal(opsw_append(w, r, &op), 0);
	assert_int_equal(opsw_in_place(w), 0);
	assert_non_null(opsw_slot(w, r));
	opsw_abort(w);
	/* a sink has one buffer, the rank's that appended last: another
	 * rank's record goes through opsw_append, which hands it over */
	struct ops_sink sink = { 0 };
	assert_int_equal(opsw_open_sink(&w, &sink), 0);
	assert_int_equal(opsw_rank(w, "r", 1, &r), 0);
	assert_int_equal(opsw_rank(w, "r2", 2, &r2), 0);
	assert_null(opsw_slot(w, r));
	assert_int_equal(opsw_append(w, r, &op), 0);
	assert_non_null(opsw_slot(w, r));
	assert_null(opsw_slot(w, r2));
	assert_int_equal(opsw_append(w, r2, &op), 0);
	assert_null(opsw_slot(w, r));
	assert_non_null(opsw_slot(w, r2));
	opsw_abort(w);
}

/* An aborted writer leaves nothing in the output's directory. */
static void test_abort_cleans(void **state)
{
	(void)state;
	char path[256];
	struct ops_writer *w;
	uint32_t r;
	path_in(path, sizeof(path), "ab.ops");
	assert_int_equal(opsw_open(&w, path), 0);
	assert_int_equal(files_in_dir(), 1);     /* its temporary file */
	assert_int_equal(opsw_rank(w, "r", 1, &r), 0);
	for (uint64_t i = 0; i < 1000; i++) {
		struct op op = tagged(0, i);
		assert_int_equal(opsw_append(w, r, &op), 0);
	}
	opsw_abort(w);
	assert_int_equal(files_in_dir(), 0);
	/* no writer where the directory does not exist */
	assert_int_equal(opsw_open(&w, "/nonexistent-dir/x.ops"), -ENOENT);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_records_validated),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_feed_orders),
		cmocka_unit_test(test_pieces_written),
		cmocka_unit_test(test_pieces_read),
		cmocka_unit_test(test_slot_refused),
		cmocka_unit_test(test_abort_cleans),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return rc;
}
