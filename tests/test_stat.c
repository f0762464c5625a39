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
	assert_int_equal(opsw_finish(t->w), 0);
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
		cmocka_unit_test(test_darshan_buckets),
		cmocka_unit_test(test_groups),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
