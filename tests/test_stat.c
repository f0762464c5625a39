/* test_stat.c - stat analysis: patterns, size buckets, ratio, bytes, files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "report/stat.h"

static char dir[] = "/tmp/replay-test-statXXXXXX";

/* A stream being built: one writer, a file path, an opened reader. */
struct tb {
	char path[256];
	struct ops_writer *w;
	uint32_t rank[8];
	uint32_t file[4];
	struct opstream s;
	struct stat_report r;
};

static void tb_start(struct tb *t, const char *name, unsigned nranks, unsigned nfiles)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s/%s.ops", dir, name);
	assert_int_equal(opsw_open(&t->w, t->path), 0);
	for (unsigned i = 0; i < nranks; i++) {
		char n[32];
		snprintf(n, sizeof(n), "pid %u", 100 + i);
		assert_int_equal(opsw_rank(t->w, n, 100 + i, &t->rank[i]), 0);
	}
	for (unsigned i = 0; i < nfiles; i++) {
		char p[32];
		snprintf(p, sizeof(p), "/data/f%u", i);
		assert_int_equal(opsw_path(t->w, p, i == 3 ? OPSP_TRUNCATED_NAME : 0, &t->file[i]), 0);
	}
}

static void tb_op(struct tb *t, unsigned rank, unsigned kind, unsigned file, uint64_t off,
		  uint64_t len, int64_t result)
{
	struct op op = { .kind = (uint8_t)kind, .file = t->file[file], .handle = file,
			 .offset = off, .len = len, .result = result, .iovcnt = 1 };
	assert_int_equal(opsw_append(t->w, t->rank[rank], &op), 0);
}

static void tb_add(struct tb *t, unsigned rank, const struct op *op)
{
	assert_int_equal(opsw_append(t->w, t->rank[rank], op), 0);
}

static void tb_finish(struct tb *t)
{
	const char *why = NULL;
	assert_int_equal(opsw_finish(t->w, NULL), 0);
	t->w = NULL;
	assert_int_equal(opstream_open(&t->s, t->path, &why), 0);
	assert_int_equal(stat_compute(&t->s, NULL, &t->r), 0);
}

static void tb_end(struct tb *t)
{
	stat_release(&t->r);
	opstream_close(&t->s);
	unlink(t->path);
}

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

/* ---- pure functions ------------------------------------------------- */

static void test_buckets(void **state)
{
	(void)state;
	assert_int_equal(stat_bucket_of(0), 0);
	assert_int_equal(stat_bucket_of(1), 0);
	assert_int_equal(stat_bucket_of(1024), 0);
	assert_int_equal(stat_bucket_of(1025), 1);
	assert_int_equal(stat_bucket_of(2048), 1);
	assert_int_equal(stat_bucket_of(2049), 2);
	assert_int_equal(stat_bucket_of(65536), 6);
	assert_int_equal(stat_bucket_of(65537), 7);
	assert_int_equal(stat_bucket_of(2097152), 11);
	assert_int_equal(stat_bucket_of(2097153), 12);
	assert_int_equal(stat_bucket_of(UINT64_MAX), 12);
	/* against the definition (the smallest i with size <= 1024 << i, at
	 * most 12) around every power of two */
	for (unsigned k = 0; k < 64; k++)
		for (int d = -1; d <= 1; d++) {
			uint64_t size = (1ull << k) + (uint64_t)(int64_t)d;
			unsigned i = 0;
			while (i < 12 && size > (1024ull << i))
				i++;
			assert_int_equal(stat_bucket_of(size), i);
		}
	assert_string_equal(stat_bucket_label(0), "<=1K");
	assert_string_equal(stat_bucket_label(1), "2K");
	assert_string_equal(stat_bucket_label(6), "64K");
	assert_string_equal(stat_bucket_label(11), "2048K");
	assert_string_equal(stat_bucket_label(12), ">2048K");
	assert_string_equal(stat_bucket_label(13), "?");
}

static void test_ratio(void **state)
{
	(void)state;
	char b[32];
	double rf, wf;
	assert_string_equal(stat_fmt_ratio(b, sizeof(b), 51, 49), "0.51/0.49");
	assert_string_equal(stat_fmt_ratio(b, sizeof(b), 0, 4096), "0.00/1.00");
	assert_string_equal(stat_fmt_ratio(b, sizeof(b), 4096, 0), "1.00/0.00");
	assert_string_equal(stat_fmt_ratio(b, sizeof(b), 1, 1), "0.50/0.50");
	assert_string_equal(stat_fmt_ratio(b, sizeof(b), 1, 2), "0.33/0.67");
	assert_string_equal(stat_fmt_ratio(b, sizeof(b), 2, 1), "0.67/0.33");
	/* 0.145 rounds up to 0.15; the parts still add up to 1.00 */
	assert_string_equal(stat_fmt_ratio(b, sizeof(b), 145, 855), "0.15/0.85");
	assert_string_equal(stat_fmt_ratio(b, sizeof(b), 0, 0), "N/A");
	assert_int_equal(stat_ratio(0, 0, &rf, &wf), -ENODATA);
	assert_int_equal(stat_ratio(1, 3, &rf, &wf), 0);
	assert_true(rf == 0.25 && wf == 0.75);
}

static void test_classify_counters(void **state)
{
	(void)state;
	struct stat_dir d = { 0 };
	assert_int_equal(stat_classify(&d), STAT_PAT_NA);
	d.requests = 5;
	assert_int_equal(stat_classify(&d), STAT_PAT_SEQUENTIAL); /* one request per stream */
	d.requests = 101;
	d.transitions = 100;
	d.sequential = 90;
	assert_int_equal(stat_classify(&d), STAT_PAT_SEQUENTIAL);
	d.sequential = 89;
	d.top_delta_n = 5;
	assert_int_equal(stat_classify(&d), STAT_PAT_UNRECOGNIZED);
	d.sequential = 10;
	d.top_delta_n = 90;
	assert_int_equal(stat_classify(&d), STAT_PAT_STRIDED);
	d.top_delta_n = 20;
	d.top_size_n = 91;
	assert_int_equal(stat_classify(&d), STAT_PAT_RANDOM);
	d.top_size_n = 90; /* 90 of 101 requests is < 90%: sizes not regular */
	assert_int_equal(stat_classify(&d), STAT_PAT_UNRECOGNIZED);
	assert_string_equal(stat_pattern_name(STAT_PAT_NA), "N/A");
	assert_string_equal(stat_pattern_name(STAT_PAT_UNRECOGNIZED), "unrecognized");
}

/* ---- patterns on synthetic streams ---------------------------------- */

/* LANL N-to-1 non-strided: rank r writes then reads back its own region. */
static void test_sequential_n_to_1(void **state)
{
	(void)state;
	struct tb t;
	const uint64_t sz = 65536, nobj = 50;
	tb_start(&t, "seq", 4, 1);
	for (unsigned r = 0; r < 4; r++) {
		for (uint64_t i = 0; i < nobj; i++)
			tb_op(&t, r, OP_WRITE, 0, (r * nobj + i) * sz, sz, (int64_t)sz);
		for (uint64_t i = 0; i < nobj; i++)
			tb_op(&t, r, OP_READ, 0, (r * nobj + i) * sz, sz, (int64_t)sz);
	}
	tb_finish(&t);
	assert_int_equal(t.r.wr.pattern, STAT_PAT_SEQUENTIAL);
	assert_int_equal(t.r.rd.pattern, STAT_PAT_SEQUENTIAL);
	assert_int_equal(t.r.wr.transitions, 4 * (nobj - 1));
	assert_int_equal(t.r.wr.sequential, 4 * (nobj - 1));
	assert_int_equal(t.r.wr.bytes, 4 * nobj * sz);
	assert_int_equal(t.r.rd.bytes, 4 * nobj * sz);
	assert_int_equal(t.r.wr.hist[6], 4 * nobj); /* 64K */
	assert_int_equal(t.r.nfiles, 1);
	assert_int_equal(t.r.files_shared, 1);
	assert_int_equal(t.r.files[0].nranks, 4);
	assert_int_equal(t.r.kinds[OP_WRITE], 4 * nobj);
	tb_end(&t);
}

/* LANL N-to-1 strided: object i of rank r at (i*N + r)*size. */
static void test_strided(void **state)
{
	(void)state;
	struct tb t;
	const uint64_t sz = 1 << 20, n = 4;
	tb_start(&t, "strided", 4, 1);
	for (unsigned r = 0; r < n; r++)
		for (uint64_t i = 0; i < 20; i++)
			tb_op(&t, r, OP_WRITE, 0, (i * n + r) * sz, sz, (int64_t)sz);
	tb_finish(&t);
	assert_int_equal(t.r.wr.pattern, STAT_PAT_STRIDED);
	assert_int_equal(t.r.wr.top_delta, (int64_t)(n * sz));
	assert_int_equal(t.r.wr.top_delta_n, n * 19);
	assert_int_equal(t.r.rd.pattern, STAT_PAT_NA);
	tb_end(&t);
}

/* Random: fixed size, scattered block offsets, some blocks re-read
 * (delta 0), like a zipf-distributed read workload. */
static void test_random(void **state)
{
	(void)state;
	struct tb t;
	uint64_t x = 42, prev = 0;
	tb_start(&t, "random", 2, 1);
	for (unsigned r = 0; r < 2; r++) {
		for (unsigned i = 0; i < 500; i++) {
			uint64_t blk = (lcg(&x) % 10 < 3) ? prev : lcg(&x) % 100000;
			prev = blk;
			tb_op(&t, r, OP_READ, 0, blk * 4096, 4096, 4096);
		}
	}
	tb_finish(&t);
	assert_int_equal(t.r.rd.pattern, STAT_PAT_RANDOM);
	assert_int_equal(t.r.rd.top_size, 4096);
	assert_int_equal(t.r.rd.top_size_n, 1000);
	assert_int_equal(t.r.wr.pattern, STAT_PAT_NA);
	tb_end(&t);
}

/* Unrecognized: irregular sizes, partly sequential, partly jumps
 * (alegra/CTH-like). */
static void test_unrecognized(void **state)
{
	(void)state;
	struct tb t;
	uint64_t x = 7, off = 0;
	tb_start(&t, "unrec", 1, 2);
	for (unsigned i = 0; i < 400; i++) {
		uint64_t len = 100 + lcg(&x) % 300000;
		if (lcg(&x) % 3 == 0)
			off = lcg(&x) % (1ull << 30);
		tb_op(&t, 0, OP_WRITE, i % 2, off, len, (int64_t)len);
		off += len;
	}
	tb_finish(&t);
	assert_int_equal(t.r.wr.pattern, STAT_PAT_UNRECOGNIZED);
	tb_end(&t);
}

/* Random offsets but irregular sizes: not "random", "unrecognized". */
static void test_random_offsets_irregular_sizes(void **state)
{
	(void)state;
	struct tb t;
	uint64_t x = 9;
	tb_start(&t, "irr", 1, 1);
	for (unsigned i = 0; i < 300; i++) {
		uint64_t len = 512u << (lcg(&x) % 8);
		tb_op(&t, 0, OP_READ, 0, (lcg(&x) % 100000) * 512, len, (int64_t)len);
	}
	tb_finish(&t);
	assert_int_equal(t.r.rd.pattern, STAT_PAT_UNRECOGNIZED);
	tb_end(&t);
}

/* Streams are per rank and file: interleaving two sequential files in one
 * rank, or two ranks, stays sequential. */
static void test_interleaved_streams(void **state)
{
	(void)state;
	struct tb t;
	tb_start(&t, "inter", 2, 2);
	for (unsigned r = 0; r < 2; r++)
		for (uint64_t i = 0; i < 100; i++) {
			tb_op(&t, r, OP_WRITE, 0, i * 1000, 1000, 1000);
			tb_op(&t, r, OP_WRITE, 1, i * 3000, 3000, 3000);
		}
	tb_finish(&t);
	assert_int_equal(t.r.wr.pattern, STAT_PAT_SEQUENTIAL);
	assert_int_equal(t.r.wr.transitions, 2 * 2 * 99);
	assert_int_equal(t.r.wr.hist[0], 200); /* 1000 B: <=1K */
	assert_int_equal(t.r.wr.hist[2], 200); /* 3000 B: 4K   */
	assert_int_equal(t.r.wr.bytes, 2 * 100 * 4000);
	tb_end(&t);
}

/* ---- bytes, failures, async, files, ranks, duration ------------------ */

static void test_bytes_and_files(void **state)
{
	(void)state;
	struct tb t;
	tb_start(&t, "bytes", 2, 4);
	/* rank 0: short read counted by its result, failed write not at all */
	tb_op(&t, 0, OP_OPEN, 0, 0, 0, 3);
	tb_op(&t, 0, OP_READ, 0, 0, 8192, 100);
	tb_op(&t, 0, OP_WRITE, 0, 0, 4096, -28);
	tb_op(&t, 0, OP_WRITE, 1, 0, 1025, 1025);
	/* rank 1: async write 5 awaited with 80 bytes; aread 6 never awaited */
	struct op a = { .kind = OP_AWRITE, .file = t.file[2], .handle = 0, .offset = 0,
			.len = 100, .aux = 5, .t_ns = 10, .dur_ns = 5 };
	tb_add(&t, 1, &a);
	struct op rd = { .kind = OP_AREAD, .file = t.file[2], .handle = 0, .offset = 0,
			 .len = 50, .aux = 6, .t_ns = 20 };
	tb_add(&t, 1, &rd);
	struct op w = { .kind = OP_AWAIT, .handle = 0, .file = OP_NOFILE, .aux = 5,
			.result = 80, .t_ns = 1000, .dur_ns = 234 };
	tb_add(&t, 1, &w);
	tb_op(&t, 1, OP_READ, 0, 0, 10, 10);
	tb_op(&t, 1, OP_WRITE, 3, 0, 3000000, 3000000);
	tb_op(&t, 1, OP_OPEN, 1, 0, 0, -13); /* a failed open does not share f1 */
	tb_finish(&t);

	assert_int_equal(t.r.nranks, 2);
	assert_int_equal(t.r.nops, 10);
	assert_int_equal(t.r.failed_ops, 2);
	assert_int_equal(t.r.wr.failed, 1);
	assert_int_equal(t.r.rd.bytes, 100 + 50 + 10);
	assert_int_equal(t.r.wr.bytes, 1025 + 80 + 3000000);
	assert_int_equal(t.r.ranks[0].bytes_read, 100);
	assert_int_equal(t.r.ranks[0].bytes_written, 1025);
	assert_int_equal(t.r.ranks[1].bytes_read, 60);
	assert_int_equal(t.r.ranks[1].bytes_written, 3000080);
	assert_int_equal(t.r.ranks[0].ops, 4);
	assert_int_equal(t.r.ranks[1].kinds[OP_AWAIT], 1);
	assert_string_equal(t.r.ranks[1].name, "pid 101");
	assert_int_equal(t.r.ranks[1].pid, 101);
	assert_int_equal(t.r.duration_ns, 1234);
	/* histograms: requests by requested length, failed ones excluded */
	assert_int_equal(t.r.rd.hist[stat_bucket_of(8192)], 1);
	assert_int_equal(t.r.wr.hist[1], 1);  /* 1025 -> 2K      */
	assert_int_equal(t.r.wr.hist[12], 1); /* 3000000 -> >2048K */
	assert_int_equal(t.r.wr.requests, 3);
	/* files: f0 shared by both ranks, the others private */
	assert_int_equal(t.r.nfiles, 4);
	assert_int_equal(t.r.files_shared, 1);
	assert_string_equal(t.r.files[0].path, "/data/f0");
	assert_int_equal(t.r.files[0].nranks, 2);
	assert_int_equal(t.r.files[0].bytes_read, 110);
	assert_int_equal(t.r.files[1].nranks, 1);
	assert_int_equal(t.r.files[1].ops, 2);
	assert_int_equal(t.r.files_failed, 0);
	assert_int_equal(t.r.files[2].bytes_written, 80);
	assert_int_equal(t.r.files[2].bytes_read, 50);
	assert_int_equal(t.r.files[3].truncated, 1);
	assert_int_equal(t.r.truncated_names, 1);
	tb_end(&t);
}

static void test_empty(void **state)
{
	(void)state;
	struct tb t;
	char b[16];
	tb_start(&t, "empty", 1, 1);
	struct op o = { .kind = OP_MKDIR, .file = OP_NOFILE, .handle = OP_NOHANDLE };
	tb_add(&t, 0, &o);
	tb_op(&t, 0, OP_OPEN, 0, 0, 0, -2); /* only a failed open: neither shared nor private */
	tb_finish(&t);
	assert_int_equal(t.r.rd.pattern, STAT_PAT_NA);
	assert_int_equal(t.r.wr.pattern, STAT_PAT_NA);
	assert_int_equal(t.r.nfiles, 1);
	assert_int_equal(t.r.files[0].nranks, 0);
	assert_int_equal(t.r.files_failed, 1);
	assert_int_equal(t.r.files_shared, 0);
	assert_string_equal(stat_fmt_ratio(b, sizeof(b), t.r.rd.bytes, t.r.wr.bytes), "N/A");
	tb_end(&t);
}


/* A rename's new name is a file its rank made: rsync writes .f.XXXX and
 * renames it to f, whose only other ops are failed probes; f was counted
 * "only in failed calls" (or left out when it had no other op). */
static void test_rename_target(void **state)
{
	(void)state;
	struct tb t;
	tb_start(&t, "rename", 2, 3);
	tb_op(&t, 0, OP_STAT, 1, 0, 0, -2);          /* the final name does not exist yet */
	tb_op(&t, 0, OP_OPEN, 0, 0, 0, 3);
	tb_op(&t, 0, OP_WRITE, 0, 0, 100, 100);
	struct op rn = { .kind = OP_RENAME, .file = t.file[0], .aux = t.file[1],
			 .handle = OP_NOHANDLE, .result = 0 };
	tb_add(&t, 0, &rn);
	struct op ln = { .kind = OP_LINK, .file = t.file[1], .aux = t.file[2],
			 .handle = OP_NOHANDLE, .result = 0 };
	tb_add(&t, 1, &ln);                            /* f2: no op but this link */
	tb_finish(&t);
	assert_int_equal(t.r.nfiles, 3);
	assert_int_equal(t.r.files_failed, 0);
	assert_int_equal(t.r.files_shared, 1);         /* f1: renamed to by 0, linked by 1 */
	assert_string_equal(t.r.files[1].path, "/data/f1");
	assert_int_equal(t.r.files[1].nranks, 2);
	assert_int_equal(t.r.files[1].ops, 3);
	assert_string_equal(t.r.files[2].path, "/data/f2");
	assert_int_equal(t.r.files[2].nranks, 1);
	tb_end(&t);
}

/* ---- Darshan's buckets, (file, rank) counts, hosts, OST sets --------- */

static void test_darshan_buckets(void **state)
{
	(void)state;
	/* each bound inclusive (darshan-common.h: "< 101", "< 1025", ...) */
	static const uint64_t last[] = { 100, 1024, 10240, 102400, 1048576, 4194304, 10485760,
					 104857600, 1073741824 };
	static const char *const lbl[] = { "0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M",
					   "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS" };
	assert_int_equal(stat_darshan_bucket_of(0), 0);
	for (unsigned i = 0; i < 9; i++) {
		assert_int_equal(stat_darshan_bucket_of(last[i]), i);
		assert_int_equal(stat_darshan_bucket_of(last[i] + 1), i + 1);
	}
	assert_int_equal(stat_darshan_bucket_of(UINT64_MAX), 9);
	for (unsigned i = 0; i < STAT_NDARSHAN; i++)
		assert_string_equal(stat_darshan_bucket_label(i), lbl[i]);
	assert_string_equal(stat_darshan_bucket_label(STAT_NDARSHAN), "?");
}

/* Per (file, rank): successful reads and writes and their bytes (async
 * bytes from the await); synthesized ops counted apart; hosts grouped;
 * the OST sets of the info blob matched to paths. */
static void test_groups(void **state)
{
	(void)state;
	struct tb t;

	tb_start(&t, "groups", 3, 3);
	assert_int_equal(opsw_rank_host(t.w, t.rank[0], "n1"), 0);
	assert_int_equal(opsw_rank_host(t.w, t.rank[1], "n2"), 0);
	assert_int_equal(opsw_rank_host(t.w, t.rank[2], "n1"), 0);
	assert_int_equal(opsw_info(t.w, "lustre_osts", "3,7\t/data/f0"), 0);
	assert_int_equal(opsw_info(t.w, "lustre_osts", "3,7\t/data/f1"), 0);
	assert_int_equal(opsw_info(t.w, "lustre_osts", "mdt\t/data/f2"), 0);
	assert_int_equal(opsw_info(t.w, "lustre_osts", "5\t/data/none"), 0);   /* no such path */
	struct op so = { .kind = OP_OPEN, .file = t.file[0], .handle = 0, .flags = OPF_SYNTH };
	tb_add(&t, 0, &so);
	tb_op(&t, 0, OP_WRITE, 0, 0, 100, 100);
	tb_op(&t, 0, OP_WRITE, 0, 100, 50, 50);
	tb_op(&t, 0, OP_READ, 0, 0, 100, 100);
	tb_op(&t, 0, OP_READ, 0, 0, 100, -5);     /* failed: not counted */
	tb_op(&t, 0, OP_READ, 1, 0, 7, 7);
	so.kind = OP_CLOSE;
	tb_add(&t, 0, &so);
	tb_op(&t, 1, OP_WRITE, 0, 0, 2000, 2000);
	struct op a = { .kind = OP_AREAD, .file = t.file[2], .handle = 2, .offset = 0, .len = 300,
			.aux = 1, .iovcnt = 1 };
	tb_add(&t, 1, &a);
	struct op w = { .kind = OP_AWAIT, .file = OP_NOFILE, .handle = 2, .aux = 1, .result = 200 };
	tb_add(&t, 1, &w);
	tb_op(&t, 2, OP_STAT, 1, 0, 0, 0);       /* no data op: no pair */
	tb_finish(&t);

	assert_int_equal(t.r.synth[OP_OPEN], 1);
	assert_int_equal(t.r.synth[OP_CLOSE], 1);
	assert_int_equal(t.r.synth[OP_WRITE], 0);
	assert_int_equal(t.r.nfr, 4);
	/* rank 0: f0 then f1, in order of first data op */
	assert_int_equal(t.r.fr[0].rank, 0);
	assert_int_equal(t.r.fr[0].file, t.file[0]);
	assert_int_equal(t.r.fr[0].writes, 2);
	assert_int_equal(t.r.fr[0].reads, 1);
	assert_int_equal(t.r.fr[0].bytes_written, 150);
	assert_int_equal(t.r.fr[0].bytes_read, 100);
	assert_int_equal(t.r.fr[1].file, t.file[1]);
	assert_int_equal(t.r.fr[1].reads, 1);
	assert_int_equal(t.r.fr[1].bytes_read, 7);
	assert_int_equal(t.r.fr[2].rank, 1);
	assert_int_equal(t.r.fr[2].bytes_written, 2000);
	assert_int_equal(t.r.fr[3].file, t.file[2]);
	assert_int_equal(t.r.fr[3].reads, 1);
	assert_int_equal(t.r.fr[3].bytes_read, 200);   /* the await's result */
	/* Darshan's buckets beside the study's */
	assert_int_equal(t.r.wr.dhist[0], 2);    /* 100, 50 */
	assert_int_equal(t.r.wr.dhist[2], 1);    /* 2000    */
	assert_int_equal(t.r.rd.dhist[0], 2);    /* 100, 7  */
	assert_int_equal(t.r.rd.dhist[1], 1);    /* 300     */
	/* hosts: n1 (ranks 0, 2), n2 (rank 1) */
	assert_int_equal(t.r.nhosts, 2);
	assert_string_equal(t.r.hosts[0].name, "n1");
	assert_int_equal(t.r.hosts[0].nranks, 2);
	assert_int_equal(t.r.hosts[0].ranks[1], 2);
	assert_int_equal(t.r.hosts[0].bytes_written, 150);
	assert_string_equal(t.r.hosts[1].name, "n2");
	assert_string_equal(t.r.ranks[2].host, "n1");
	/* OST sets: "3,7" holds f0 and f1, "mdt" f2; /data/none matched nothing */
	assert_int_equal(t.r.nostsets, 2);
	assert_string_equal(t.r.ostsets[0].osts, "3,7");
	assert_int_equal(t.r.ostsets[0].nfiles, 2);
	assert_int_equal(t.r.ostsets[0].bytes_written, 2150);
	assert_string_equal(t.r.ostsets[1].osts, "mdt");
	assert_int_equal(t.r.osts_unmatched, 1);
	assert_string_equal(t.r.files[0].osts, "3,7");
	tb_end(&t);

	/* no host anywhere: no host groups */
	tb_start(&t, "nohost", 2, 1);
	tb_op(&t, 0, OP_WRITE, 0, 0, 1, 1);
	tb_finish(&t);
	assert_int_equal(t.r.nhosts, 0);
	assert_int_equal(t.r.nostsets, 0);
	assert_string_equal(t.r.ranks[0].host, "");
	tb_end(&t);
}

/* ---- one pass: dominant values, the accumulator, the sink ------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The most frequent of v[0..n) (sorted here), ties to the smallest. */
static void brute_top(int64_t *v, size_t n, int64_t *key, uint64_t *cnt)
{
	*key = 0;
	*cnt = 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (j - i > *cnt) {
			*cnt = j - i;
			*key = v[i];
		}
	}
}

/* Up to STAT_HH_MAX distinct values: the exact count of the most frequent,
 * ties to the smallest, against a brute-force count. */
static void test_hh_exact(void **state)
{
	(void)state;
	for (unsigned round = 0; round < 4; round++) {
		uint64_t x = 7 + round;
		size_t n = 60000, pool = round == 3 ? STAT_HH_MAX : 100u << (3 * round);
		int64_t *v = malloc(n * sizeof(*v));
		struct stat_hh h = { 0 };
		int64_t key, want_key;
		uint64_t cnt, want_cnt;
		assert_non_null(v);
		for (size_t i = 0; i < n; i++) {
			/* skewed: low indexes more frequent; negative values too */
			uint64_t a = lcg(&x) % pool, b = lcg(&x) % pool;
			int64_t val = (int64_t)(a < b ? a : b) * 4096 - (int64_t)(pool / 2) * 4096;
			v[i] = i < pool ? (int64_t)i * 4096 - (int64_t)(pool / 2) * 4096 : val;
			assert_int_equal(stat_hh_add(&h, v[i]), 0);
		}
		assert_int_equal(stat_hh_top(&h, &key, &cnt), 0);
		assert_int_equal(h.sweeps, 0);
		assert_true(h.n <= STAT_HH_MAX);
		brute_top(v, n, &want_key, &want_cnt);
		assert_int_equal(cnt, want_cnt);
		assert_int_equal(key, want_key);
		stat_hh_release(&h);
		free(v);
	}
	/* a tie: the smallest value */
	struct stat_hh h = { 0 };
	int64_t key;
	uint64_t cnt;
	static const int64_t tie[] = { 5, -3, 7, 7, -3, 5, 9 };
	for (size_t i = 0; i < sizeof(tie) / sizeof(tie[0]); i++)
		assert_int_equal(stat_hh_add(&h, tie[i]), 0);
	assert_int_equal(stat_hh_top(&h, &key, &cnt), 0);
	assert_int_equal(key, -3);
	assert_int_equal(cnt, 2);
	stat_hh_release(&h);
	assert_int_equal(stat_hh_top(&h, &key, &cnt), 0);          /* empty */
	assert_int_equal(cnt, 0);
	assert_int_equal(key, 0);
}

/* Far more distinct values than STAT_HH_MAX: memory stays bounded, and a
 * value making up a quarter of them is still found, short by at most the
 * number of sweeps. */
static void test_hh_bounded(void **state)
{
	(void)state;
	struct stat_hh h = { 0 };
	uint64_t x = 3, heavy = 0, cnt;
	int64_t key;

	for (uint64_t i = 0; i < 8 * (uint64_t)STAT_HH_MAX; i++) {
		int64_t v = (int64_t)(lcg(&x) << 12) + 1;     /* distinct, never -8192 */
		if (i % 4 == 0) {
			v = -8192;
			heavy++;
		}
		assert_int_equal(stat_hh_add(&h, v), 0);
		assert_true(h.n <= STAT_HH_MAX);
		assert_true(h.cap <= 2 * (size_t)STAT_HH_MAX);
	}
	assert_int_equal(stat_hh_top(&h, &key, &cnt), 0);
	assert_true(h.sweeps > 0);
	assert_int_equal(key, -8192);
	assert_true(cnt <= heavy);
	assert_true(cnt + h.sweeps >= heavy);
	stat_hh_release(&h);
}

/* Values wait in a queue before they are counted (their slots fetched
 * ahead): the table must end as if each had been counted at once (a
 * flush after every add), sweeps and all, whatever the queue held when a
 * sweep or a growth came. */
static void test_hh_queue_same(void **state)
{
	(void)state;
	for (unsigned round = 0; round < 3; round++) {
		struct stat_hh q = { 0 }, now = { 0 };
		uint64_t x = 11 + round;
		size_t pool = round == 0 ? 50 : round == 1 ? STAT_HH_MAX / 2 : 4 * (size_t)STAT_HH_MAX;
		for (size_t i = 0; i < 3 * (size_t)STAT_HH_MAX; i++) {
			int64_t v = (int64_t)(lcg(&x) % pool) - 7;
			if (i % 3 == 0)
				v = 42;         /* runs of the last value too */
			assert_int_equal(stat_hh_add(&q, v), 0);
			assert_int_equal(stat_hh_add(&now, v), 0);
			assert_int_equal(stat_hh_flush(&now), 0);
			assert_int_equal(now.npend, 0);
			assert_true(q.npend < STAT_HH_PEND);
		}
		int64_t kq, kn;
		uint64_t cq, cn;
		assert_int_equal(stat_hh_top(&q, &kq, &cq), 0);
		assert_int_equal(stat_hh_top(&now, &kn, &cn), 0);
		assert_int_equal(q.npend, 0);
		assert_int_equal(q.sweeps, now.sweeps);
		assert_int_equal(q.n, now.n);
		assert_int_equal(q.cap, now.cap);
		assert_int_equal(kq, kn);
		assert_int_equal(cq, cn);
		if (round == 2)
			assert_true(q.sweeps > 0);
		for (size_t i = 0; i < q.cap; i++) {
			assert_int_equal(q.e[i].cnt, now.e[i].cnt);
			if (q.e[i].cnt)
				assert_int_equal(q.e[i].key, now.e[i].key);
		}
		stat_hh_release(&q);
		stat_hh_release(&now);
	}
}

/* ---- a random multi-rank stream, and what it must give --------------- */

#define MR 4                   /* ranks                              */
#define MF 4                   /* files (tb_start's /data/f0..f3)    */
#define MH 4096                /* handles per rank in the model      */
#define MSTEPS 24000

struct mstream {
	int have;
	uint64_t off, len;
};

struct model {
	/* generator state, per rank */
	uint32_t nexth[MR], open[MR][3], nopen[MR], hfile[MR][MH];
	uint32_t next_aux[MR];
	uint64_t t[MR];
	/* expected results */
	struct mstream st[MR][MH][2];
	int pend[MR][64];              /* async id -> 1 + dir, 0 none */
	uint64_t plen[MR][64];
	uint64_t req[2], failed[2], bytes[2], trans[2], seq[2], rbytes[MR][2], ops[MR];
	int64_t *delta[2], *size[2];
	size_t ndelta[2], nsize[2];
};

static void m_bytes(struct model *m, unsigned r, int d, uint64_t n)
{
	m->bytes[d] += n;
	m->rbytes[r][d] += n;
}

static void m_data(struct model *m, unsigned r, int d, uint32_t h, const struct op *op)
{
	struct mstream *st = &m->st[r][h][d];

	m->ops[r]++;
	if (op->result < 0) {
		m->failed[d]++;
		return;
	}
	m->req[d]++;
	m->size[d][m->nsize[d]++] = (int64_t)op->len;
	if (st->have) {
		m->trans[d]++;
		if (op->offset == st->off + st->len)
			m->seq[d]++;
		else
			m->delta[d][m->ndelta[d]++] = (int64_t)(op->offset - st->off);
	}
	*st = (struct mstream){ 1, op->offset, op->len };
}

/* The next op of rank r (and what the model expects of it). */
static struct op m_next(struct model *m, uint64_t *x, unsigned r)
{
	struct op op = { .file = OP_NOFILE, .handle = OP_NOHANDLE, .iovcnt = 1, .t_ns = m->t[r] };
	unsigned pick = (unsigned)(lcg(x) % 100);

	m->t[r] += 1 + lcg(x) % 1000;
	if ((m->nopen[r] == 0 || pick < 6) && m->nopen[r] < 3 && m->nexth[r] < MH - 1) {
		uint32_t h = m->nexth[r]++;
		m->hfile[r][h] = (uint32_t)(lcg(x) % MF);
		m->open[r][m->nopen[r]++] = h;
		op.kind = OP_OPEN;
		op.file = m->hfile[r][h];
		op.handle = h;
		op.result = 3;
		m->ops[r]++;
		return op;
	}
	if (m->nopen[r] == 0) {         /* out of handles: a data op without a path */
		op.kind = OP_WRITE;
		op.len = op.result = 100;
		m_data(m, r, 1, MH - 1, &op);
		return op;
	}
	uint32_t slot = (uint32_t)(lcg(x) % m->nopen[r]), h = m->open[r][slot];
	op.file = m->hfile[r][h];
	op.handle = h;
	if (pick < 12) {                /* close: the stream ends */
		op.kind = OP_CLOSE;
		m->open[r][slot] = m->open[r][--m->nopen[r]];
		m->ops[r]++;
		return op;
	}
	if (pick < 20) {                /* async submit, its id sometimes reused */
		uint32_t id = (uint32_t)(lcg(x) % 64);
		int d = pick & 1;
		op.kind = d ? OP_AWRITE : OP_AREAD;
		op.aux = id;
		op.len = 512u << (lcg(x) % 4);
		op.offset = 512 * (lcg(x) % 1000);
		m_data(m, r, d, h, &op);
		if (m->pend[r][id])
			m_bytes(m, r, m->pend[r][id] - 1, m->plen[r][id]);
		m->pend[r][id] = 1 + d;
		m->plen[r][id] = op.len;
		return op;
	}
	if (pick < 27) {                /* await, some of unknown ids, some results unknown */
		uint32_t id = (uint32_t)(lcg(x) % 64);
		op.kind = OP_AWAIT;
		op.file = OP_NOFILE;
		op.aux = id;
		op.result = lcg(x) % 3 ? (int64_t)(lcg(x) % 600) : -1;
		if (m->pend[r][id])
			m_bytes(m, r, m->pend[r][id] - 1,
				op.result >= 0 ? (uint64_t)op.result : m->plen[r][id]);
		m->pend[r][id] = 0;
		m->ops[r]++;
		return op;
	}
	/* read or write: sequential, strided or random, some failed or short */
	int d = pick & 1;
	struct mstream *st = &m->st[r][h][d];
	unsigned how = (unsigned)(lcg(x) % 10);
	op.kind = d ? OP_WRITE : OP_READ;
	op.len = how == 9 ? 1 + lcg(x) % 70000 : 4096u << (lcg(x) % 2);
	op.offset = how < 4 && st->have ? st->off + st->len :
		    how < 7 && st->have ? st->off + 65536 * (1 + how % 2) : 4096 * (lcg(x) % 50000);
	op.result = lcg(x) % 20 == 0 ? -5 : (int64_t)(op.len - (how == 8 ? op.len / 2 : 0));
	m_data(m, r, d, h, &op);
	if (op.result >= 0)
		m_bytes(m, r, d, (uint64_t)op.result);
	return op;
}

/* The same stream given two ways: to a file writer (the ops of each rank
 * contiguous, walked rank by rank by stat_compute), and in the generated
 * interleaving to a sink feeding a stat_acc.  Both must equal the model. */
struct pair_run {
	struct tb t;                    /* file, stat_compute */
	struct ops_writer *sw;          /* sink */
	struct filter f;
	struct stat_acc *acc;
	struct stat_stream ss;
	struct ops_sink sink;
	struct opstream tables;
	struct stat_report r;
};

static void run_start(struct pair_run *p, const char *name, const struct filter_opts *fo)
{
	uint32_t id;

	memset(p, 0, sizeof(*p));
	assert_int_equal(filter_begin(&p->f, fo), 0);
	assert_int_equal(stat_acc_new(&p->acc), 0);
	p->ss = (struct stat_stream){ &p->f, p->acc };
	stat_stream_sink(&p->ss, &p->sink);
	assert_int_equal(opsw_open_sink(&p->sw, &p->sink), 0);
	tb_start(&p->t, name, MR, MF);
	for (unsigned i = 0; i < MR; i++) {
		char n[32];
		snprintf(n, sizeof(n), "pid %u", 100 + i);
		assert_int_equal(opsw_rank(p->sw, n, 100 + i, &id), 0);
		assert_int_equal(id, i);
	}
	for (unsigned i = 0; i < MF; i++) {
		char n[32];
		snprintf(n, sizeof(n), "/data/f%u", i);
		assert_int_equal(opsw_path(p->sw, n, i == 3 ? OPSP_TRUNCATED_NAME : 0, &id), 0);
		assert_int_equal(id, i);
	}
}

static void run_op(struct pair_run *p, unsigned r, const struct op *op)
{
	tb_add(&p->t, r, op);
	assert_int_equal(opsw_append(p->sw, r, op), 0);
}

static void run_finish(struct pair_run *p, const struct filter_opts *fo)
{
	const char *why = NULL;
	struct rerr e = { { 0 } };
	struct filter ff;

	assert_int_equal(opsw_finish_tables(p->sw, &p->tables, &why), 0);
	assert_null(p->tables.ops);
	assert_int_equal(filter_end(&p->f, p->tables.nranks, &e), 0);
	assert_int_equal(stat_acc_finish(p->acc, &p->tables, &p->f, &p->r), 0);
	/* the file way, with the filter built over the mapped stream */
	assert_int_equal(opsw_finish(p->t.w, NULL), 0);
	p->t.w = NULL;
	assert_int_equal(opstream_open(&p->t.s, p->t.path, &why), 0);
	assert_int_equal(filter_build(&ff, &p->t.s, fo, &e), 0);
	assert_int_equal(stat_compute(&p->t.s, &ff, &p->t.r), 0);
	assert_int_equal(ff.ops_kept, p->f.ops_kept);
	assert_int_equal(ff.ops_removed, p->f.ops_removed);
	assert_int_equal(ff.files_kept, p->f.files_kept);
	assert_int_equal(ff.nkept, p->f.nkept);
	assert_int_equal(ff.ranks_unselected, p->f.ranks_unselected);
	assert_int_equal(ff.ranks_empty, p->f.ranks_empty);
	assert_int_equal(ff.nrules, p->f.nrules);
	for (size_t i = 0; i < ff.nrules; i++) {
		assert_int_equal(ff.rules[i].ops, p->f.rules[i].ops);
		assert_int_equal(ff.rules[i].files, p->f.rules[i].files);
	}
	filter_release(&ff);
}

static void run_end(struct pair_run *p)
{
	stat_release(&p->r);
	stat_acc_free(p->acc);
	filter_release(&p->f);
	opstream_close(&p->tables);
	tb_end(&p->t);
}

static void dir_equal(const struct stat_dir *a, const struct stat_dir *b)
{
	assert_memory_equal(a, b, sizeof(*a));
}

/* Every field of two reports (the file way and the sink way). */
static void reports_equal(const struct stat_report *a, const struct stat_report *b)
{
	assert_int_equal(a->nranks, b->nranks);
	assert_int_equal(a->nops, b->nops);
	assert_memory_equal(a->kinds, b->kinds, sizeof(a->kinds));
	assert_memory_equal(a->synth, b->synth, sizeof(a->synth));
	assert_int_equal(a->failed_ops, b->failed_ops);
	dir_equal(&a->rd, &b->rd);
	dir_equal(&a->wr, &b->wr);
	assert_int_equal(a->duration_ns, b->duration_ns);
	assert_int_equal(a->nofile_data_ops, b->nofile_data_ops);
	assert_int_equal(a->truncated_names, b->truncated_names);
	for (uint32_t i = 0; i < a->nranks; i++) {
		const struct stat_rank *x = &a->ranks[i], *y = &b->ranks[i];
		assert_int_equal(x->id, y->id);
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->ops, y->ops);
		assert_int_equal(x->bytes_read, y->bytes_read);
		assert_int_equal(x->bytes_written, y->bytes_written);
		assert_int_equal(x->end_ns, y->end_ns);
		assert_int_equal(x->in_ops_ns, y->in_ops_ns);
		assert_memory_equal(x->kinds, y->kinds, sizeof(x->kinds));
	}
	assert_int_equal(a->nfiles, b->nfiles);
	assert_int_equal(a->files_shared, b->files_shared);
	assert_int_equal(a->files_failed, b->files_failed);
	for (uint32_t i = 0; i < a->nfiles; i++) {
		const struct stat_file *x = &a->files[i], *y = &b->files[i];
		assert_string_equal(x->path, y->path);
		assert_int_equal(x->nranks, y->nranks);
		assert_int_equal(x->ops, y->ops);
		assert_int_equal(x->bytes_read, y->bytes_read);
		assert_int_equal(x->bytes_written, y->bytes_written);
		assert_int_equal(x->truncated, y->truncated);
	}
	assert_int_equal(a->nfr, b->nfr);
	if (a->nfr)
		assert_memory_equal(a->fr, b->fr, a->nfr * sizeof(*a->fr));
}

static void model_check(struct model *m, const struct stat_report *r)
{
	for (int d = 0; d < 2; d++) {
		const struct stat_dir *sd = d ? &r->wr : &r->rd;
		int64_t key;
		uint64_t n;
		assert_int_equal(sd->requests, m->req[d]);
		assert_int_equal(sd->failed, m->failed[d]);
		assert_int_equal(sd->bytes, m->bytes[d]);
		assert_int_equal(sd->transitions, m->trans[d]);
		assert_int_equal(sd->sequential, m->seq[d]);
		brute_top(m->delta[d], m->ndelta[d], &key, &n);
		assert_int_equal(sd->top_delta, key);
		assert_int_equal(sd->top_delta_n, n);
		brute_top(m->size[d], m->nsize[d], &key, &n);
		assert_int_equal(sd->top_size, key);
		assert_int_equal(sd->top_size_n, n);
		for (unsigned k = 0; k < MR; k++)
			assert_int_equal(d ? r->ranks[k].bytes_written : r->ranks[k].bytes_read,
					 m->rbytes[k][d]);
	}
	for (unsigned k = 0; k < MR; k++)
		assert_int_equal(r->ranks[k].ops, m->ops[k]);
}

static struct model *model_new(void)
{
	struct model *m = calloc(1, sizeof(*m));
	assert_non_null(m);
	for (int d = 0; d < 2; d++) {
		m->delta[d] = malloc(MSTEPS * sizeof(int64_t));
		m->size[d] = malloc(MSTEPS * sizeof(int64_t));
		assert_non_null(m->delta[d]);
		assert_non_null(m->size[d]);
	}
	return m;
}

static void model_free(struct model *m)
{
	for (int d = 0; d < 2; d++) {
		free(m->delta[d]);
		free(m->size[d]);
	}
	free(m);
}

/* Ranks interleaved at random, handles opened and closed, async ids
 * reused, failed and short calls: the sink's one pass, the rank-by-rank
 * walk of the file and the brute-force model agree on everything. */
static void test_acc_interleaved(void **state)
{
	(void)state;
	struct model *m = model_new();
	struct pair_run p;
	uint64_t x = 11;

	run_start(&p, "inter1", NULL);
	for (unsigned i = 0; i < MSTEPS; i++) {
		unsigned r = (unsigned)(lcg(&x) % MR);
		struct op op = m_next(m, &x, r);
		run_op(&p, r, &op);
	}
	/* submits never awaited count their length */
	for (unsigned r = 0; r < MR; r++)
		for (unsigned id = 0; id < 64; id++)
			if (m->pend[r][id])
				m_bytes(m, r, m->pend[r][id] - 1, m->plen[r][id]);
	run_finish(&p, NULL);
	assert_true(m->ndelta[0] > 1000 && m->ndelta[1] > 1000);
	assert_true(p.r.rd.top_delta_n > 10);
	model_check(m, &p.r);
	model_check(m, &p.t.r);
	reports_equal(&p.t.r, &p.r);
	run_end(&p);
	model_free(m);
}

/* The filter built as the paths and ops arrive equals filter_build over
 * the file: --exclude, defaults, --ranks (rank 3 unselected). */
static void test_acc_filtered(void **state)
{
	(void)state;
	struct model *m = model_new();
	struct filter_opts fo = { .exclude = { "/data/f1" }, .nexclude = 1 };
	struct pair_run p;
	uint64_t x = 5;

	assert_int_equal(ranklist_parse("0-2", &fo.ranks), 0);
	run_start(&p, "filt", &fo);
	for (unsigned i = 0; i < MSTEPS / 4; i++) {
		unsigned r = (unsigned)(lcg(&x) % MR);
		struct op op = m_next(m, &x, r);
		run_op(&p, r, &op);
	}
	run_finish(&p, &fo);
	assert_int_equal(p.f.nkept, 3);
	assert_int_equal(p.f.ranks_unselected, 1);
	assert_true(p.f.ops_removed > 0);
	assert_int_equal(p.r.nranks, 3);
	for (uint32_t i = 0; i < p.r.nfiles; i++)
		assert_string_not_equal(p.r.files[i].path, "/data/f1");
	reports_equal(&p.t.r, &p.r);
	run_end(&p);
	filter_opts_release(&fo);
	model_free(m);
}

/* State is per open stream and pending submit, not per op: a million
 * opens, writes, closes and awaited submits leave (rank, file) pairs only. */
static void test_acc_bounded(void **state)
{
	(void)state;
	struct stat_acc *a;
	size_t peak = 0;

	assert_int_equal(stat_acc_new(&a), 0);
	for (uint32_t i = 0; i < 250000; i++) {
		uint32_t r = i % 3, h = i / 3;
		struct op o = { .kind = OP_OPEN, .file = i % 2, .handle = h, .result = 3 };
		assert_int_equal(stat_acc_op(a, r, &o), 0);
		o = (struct op){ .kind = OP_WRITE, .file = i % 2, .handle = h, .offset = 0,
				 .len = 10, .result = 10 };
		assert_int_equal(stat_acc_op(a, r, &o), 0);
		o.offset = 10;
		assert_int_equal(stat_acc_op(a, r, &o), 0);
		o.kind = OP_AREAD;
		o.aux = i;
		assert_int_equal(stat_acc_op(a, r, &o), 0);
		if (stat_acc_entries(a) > peak)
			peak = stat_acc_entries(a);
		o = (struct op){ .kind = OP_AWAIT, .file = OP_NOFILE, .handle = h, .aux = i,
				 .result = 10 };
		assert_int_equal(stat_acc_op(a, r, &o), 0);
		o = (struct op){ .kind = OP_CLOSE, .file = i % 2, .handle = h };
		assert_int_equal(stat_acc_op(a, r, &o), 0);
	}
	/* 3 ranks x 2 files of pairs, at most one open stream and one submit */
	assert_int_equal(stat_acc_entries(a), 6);
	assert_true(peak <= 8);
	stat_acc_free(a);
}

/* A sink writer creates no file: not in $TMPDIR, not anywhere. */
static void test_sink_writes_nothing(void **state)
{
	(void)state;
	char tmpd[] = "/tmp/replay-test-sinkXXXXXX";
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	struct ops_writer *w;
	struct ops_sink none = { 0 };
	struct opstream s;
	const char *why;
	uint32_t r, f;

	assert_non_null(mkdtemp(tmpd));
	setenv("TMPDIR", tmpd, 1);
	assert_int_equal(opsw_open_sink(&w, &none), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r), 0);
	assert_int_equal(opsw_path(w, "/x", 0, &f), 0);
	for (unsigned i = 0; i < 10000; i++) {
		struct op o = { .kind = OP_WRITE, .file = f, .handle = 0, .len = 1, .result = 1 };
		assert_int_equal(opsw_append(w, r, &o), 0);
	}
	assert_int_equal(opsw_info(w, "format", "strace"), 0);
	assert_int_equal(opsw_finish_tables(w, &s, &why), 0);
	assert_int_equal(s.nops, 10000);
	assert_int_equal(s.ranks[0].count, 10000);
	assert_string_equal(opstream_path(&s, 0), "/x");
	assert_string_equal(opstream_rank_name(&s, 0), "pid 1");
	char buf[16];
	assert_string_equal(opstream_info(&s, "format", buf, sizeof(buf)), "strace");
	opstream_close(&s);

	/* a record opstream_open would refuse fails the sink too: when it is
	 * handed over (here at the end, as it is the last one buffered) */
	assert_int_equal(opsw_open_sink(&w, &none), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r), 0);
	assert_int_equal(opsw_path(w, "/x", 0, &f), 0);
	struct op bad = { .kind = OP_WRITE, .file = f + 1, .handle = 0 };
	assert_int_equal(opsw_append(w, r, &bad), 0);
	assert_int_equal(opsw_finish_tables(w, &s, &why), -EINVAL);
	assert_int_equal(rmdir(tmpd), 0);        /* fails unless still empty */
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}

struct order_log {
	uint64_t next;          /* the sequence number the next op must carry */
	uint32_t rank_of[4096]; /* by sequence number: its rank */
	int bad;
};

static int order_op(void *arg, uint32_t rank, const struct op *op)
{
	struct order_log *l = arg;

	if (op->offset != l->next || op->offset >= 4096 || l->rank_of[op->offset] != rank)
		l->bad++;
	l->next = op->offset + 1;
	return 0;
}

/* A sink gets the ops in the order they came, across ranks too (runs of
 * one rank longer and shorter than the writer's buffer, appended and
 * filled in place), not rank by rank. */
static void test_sink_order(void **state)
{
	(void)state;
	static struct order_log log;
	struct ops_sink sink = { .op = order_op, .arg = &log };
	struct ops_writer *w;
	struct opstream s;
	const char *why;
	uint32_t r[3], f;
	uint64_t seq = 0;
	unsigned long rnd = 12345;

	memset(&log, 0, sizeof(log));
	assert_int_equal(opsw_open_sink(&w, &sink), 0);
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "pid %d", i + 1);
		assert_int_equal(opsw_rank(w, name, i + 1, &r[i]), 0);
	}
	assert_int_equal(opsw_path(w, "/x", 0, &f), 0);
	while (seq < 4096) {
		rnd = rnd * 6364136223846793005ul + 1442695040888963407ul;
		uint32_t rank = r[(rnd >> 33) % 3];
		uint64_t run = 1 + (rnd >> 40) % (seq < 2048 ? 8 : 3 * OPSW_CHUNK);
		for (uint64_t k = 0; k < run && seq < 4096; k++, seq++) {
			struct op o = { .kind = OP_WRITE, .file = f, .handle = 0,
					.offset = seq, .len = 1, .result = 1 };
			struct op *slot = opsw_slot(w, rank);
			log.rank_of[seq] = rank;
			if (slot) {
				*slot = o;
				assert_int_equal(opsw_commit(w, rank), 0);
			} else {
				assert_int_equal(opsw_append(w, rank, &o), 0);
			}
		}
	}
	assert_int_equal(opsw_finish_tables(w, &s, &why), 0);
	assert_int_equal(log.bad, 0);
	assert_int_equal(log.next, 4096);
	assert_int_equal(s.nops, 4096);
	opstream_close(&s);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_ratio),
		cmocka_unit_test(test_classify_counters),
		cmocka_unit_test(test_sequential_n_to_1),
		cmocka_unit_test(test_strided),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_unrecognized),
		cmocka_unit_test(test_random_offsets_irregular_sizes),
		cmocka_unit_test(test_interleaved_streams),
		cmocka_unit_test(test_bytes_and_files),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_rename_target),
		cmocka_unit_test(test_darshan_buckets),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_hh_exact),
		cmocka_unit_test(test_hh_bounded),
		cmocka_unit_test(test_hh_queue_same),
		cmocka_unit_test(test_acc_interleaved),
		cmocka_unit_test(test_acc_filtered),
		cmocka_unit_test(test_acc_bounded),
		cmocka_unit_test(test_sink_writes_nothing),
		cmocka_unit_test(test_sink_order),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
