/*
 * test_dxt.c - the Darshan DXT reader through the whole load path
 * (trace_load -> .ops -> opstream_open) on the real fixtures of
 * tests/data/dxt/ (README there), and on small broken dumps made here.
 *
 * Expected numbers come from the fixtures' text (the README's table, or
 * the block headers quoted in comments), not from the reader.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/builder.h"
#include "ops/opstream.h"
#include "trace/dxt.h"
#include "trace/trace.h"
#include "util/scan.h"

#define TMPDIR_TEMPLATE "/tmp/replay-test-dxtXXXXXX"
#include "tmpdir_fixture.h"

#define FIX TEST_DATA "/dxt/"

static char ops_path[512];

/* Load into ops_path; rc of trace_load (e filled). */
static int load_rc(const char *arg, const char *layer, struct rerr *e)
{
	struct load_opts o = { .dxt_layer = layer };
	struct load_result res;
	char *args[] = { (char *)arg };

	snprintf(ops_path, sizeof(ops_path), "%s/t.ops", dir);
	unlink(ops_path);
	e->msg[0] = 0;
	return trace_load(args, 1, &o, ops_path, &res, e);
}

static void load(const char *arg, const char *layer, struct opstream *s)
{
	struct rerr e;
	const char *why = NULL;
	int rc = load_rc(arg, layer, &e);

	if (rc)
		fail_msg("trace_load %s: %s", arg, e.msg);
	rc = opstream_open(s, ops_path, &why);
	if (rc)
		fail_msg("opstream_open: %s", why ? why : strerror(-rc));
	char fmt[32];
	assert_non_null(opstream_info(s, "format", fmt, sizeof(fmt)));
	assert_string_equal(fmt, "dxt");
}

static uint64_t info_u64(const struct opstream *s, const char *key)
{
	char v[64];

	if (!opstream_info(s, key, v, sizeof(v)))
		fail_msg("no info key %s", key);
	return strtoull(v, NULL, 10);
}

/* Count data ops and synthesized opens/closes of the whole stream. */
struct counts {
	uint64_t data, opens, closes, synth, rbytes, wbytes, reads, writes;
};

static void count(const struct opstream *s, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	for (uint32_t r = 0; r < s->nranks; r++) {
		uint64_t n;
		const struct op *o = opstream_rank_ops(s, r, &n);
		for (uint64_t i = 0; i < n; i++) {
			if (o[i].flags & OPF_SYNTH)
				c->synth++;
			if (o[i].kind == OP_OPEN)
				c->opens++;
			else if (o[i].kind == OP_CLOSE)
				c->closes++;
			else if (o[i].kind == OP_READ)
				c->data++, c->reads++, c->rbytes += o[i].len;
			else if (o[i].kind == OP_WRITE)
				c->data++, c->writes++, c->wbytes += o[i].len;
			else
				fail_msg("unexpected op kind %u", o[i].kind);
		}
	}
}

/* ---- every fixture: segments, blocks, ranks (README's table) ------------ */

static void check_fixture(const char *name, const char *layer, uint64_t segs, uint64_t blocks,
			  uint32_t ranks)
{
	struct opstream s;
	struct counts c;
	char path[512];

	snprintf(path, sizeof(path), FIX "%s", name);
	load(path, layer, &s);
	count(&s, &c);
	assert_int_equal(s.nranks, ranks);
	assert_int_equal(c.data, segs);
	/* one synthesized open and close per block: no (file, rank) twice */
	assert_int_equal(c.opens, blocks);
	assert_int_equal(c.closes, blocks);
	assert_int_equal(c.synth, 2 * blocks);
	assert_int_equal(s.nops, segs + 2 * blocks);
	opstream_close(&s);
}

static void t_fixtures(void **st)
{
	(void)st;
	check_fixture("mpi-io-test-x86_64-3.1.6.dxt.txt", NULL, 8, 4, 4);
	check_fixture("ior_hdf5_example.dxt.txt", NULL, 59, 4, 4);
	check_fixture("ior_hdf5_example.dxt.txt", "mpiio", 59, 4, 4);
	check_fixture("mpi_io_test_with_dxt.dxt.txt", NULL, 320, 64, 32);
	check_fixture("mpi_io_test_with_dxt.dxt.txt", "mpiio", 256, 32, 32);
	check_fixture("treddy_h5d_no_h5f.dxt.txt", NULL, 102, 48, 3);
	check_fixture("hdf5_diagonal_write_bytes_range_dxt.dxt.txt", NULL, 440, 210, 10);
	check_fixture("nonmpi_dxt_anonymized.dxt.txt.gz", NULL, 17652, 75, 1);
	check_fixture("partial_data_dxt.show-incomplete.dxt.txt.gz", NULL, 65536, 1, 1);
	check_fixture("partial_data_dxt.show-incomplete.dxt.txt.gz", "mpiio", 65529, 1, 1);
	check_fixture("unet3d_a100.dxt.txt.gz", NULL, 1953, 969, 8);
	/* 449 blocks: 384 MPIIO, 65 POSIX (64 aggregators + rank 0's hints file) */
	check_fixture("jlbez_8a_benchmark_write_parallel.dxt.txt.gz", NULL, 17525, 65, 64);
	check_fixture("jlbez_8a_benchmark_write_parallel.dxt.txt.gz", "mpiio", 8448, 384, 384);
	check_fixture("parser-versions/mpi-io-test-x86_64-3.1.6.util-3.1.8.dxt.txt", NULL, 8, 4, 4);
	check_fixture("parser-versions/ior_hdf5_example.util-3.4.4.dxt.txt", NULL, 59, 4, 4);
	check_fixture("parser-versions/ior_hdf5_example.util-main-45bcba8.dxt.txt", NULL, 59, 4, 4);
	check_fixture("parser-versions/ior_hdf5_example.util-main-45bcba8.dxt.txt", "mpiio", 59, 4, 4);
}

/* ---- the same log through three parser versions: the same ops ----------- */

static void t_parser_versions(void **st)
{
	(void)st;
	static const char *const v[] = {
		"parser-versions/ior_hdf5_example.util-3.4.4.dxt.txt",
		"parser-versions/ior_hdf5_example.util-main-45bcba8.dxt.txt",
	};
	struct opstream a, b;
	char path[512];
	char ref[512];

	/* keep a copy of the reference stream: load() reuses ops_path */
	load(FIX "ior_hdf5_example.dxt.txt", NULL, &a);
	snprintf(ref, sizeof(ref), "%s/ref.ops", dir);
	opstream_close(&a);
	assert_int_equal(rename(ops_path, ref), 0);
	assert_int_equal(opstream_open(&a, ref, NULL), 0);
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		snprintf(path, sizeof(path), FIX "%s", v[k]);
		load(path, NULL, &b);
		assert_int_equal(a.nranks, b.nranks);
		assert_int_equal(a.nops, b.nops);
		for (uint64_t i = 0; i < a.nops; i++) {
			struct op x = a.ops[i], y = b.ops[i];
			x.line = y.line = 0;          /* versions print more lines */
			assert_memory_equal(&x, &y, sizeof(x));
		}
		for (uint32_t r = 0; r < a.nranks; r++)
			assert_string_equal(opstream_rank_host(&a, r), opstream_rank_host(&b, r));
		opstream_close(&b);
	}
	opstream_close(&a);
	unlink(ref);
}

/* ---- order: per rank by start time, ties in listed order ------------------ */

static void t_merge_order(void **st)
{
	(void)st;
	struct opstream s;

	load(FIX "nonmpi_dxt_anonymized.dxt.txt.gz", NULL, &s);
	uint64_t n;
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	/* non-decreasing start; equal starts keep the text's order (lines) */
	for (uint64_t i = 1; i < n; i++) {
		assert_true(o[i].t_ns >= o[i - 1].t_ns);
		if (op_is_data(o[i].kind) && op_is_data(o[i - 1].kind) && o[i].t_ns == o[i - 1].t_ns &&
		    o[i].file == o[i - 1].file)
			assert_true(o[i].line > o[i - 1].line);
	}
	/* the file with 1,827 writes and 722 reads: its first read comes
	 * before its last write once merged (DXT lists every write first) */
	uint32_t big = OP_NOFILE;
	uint64_t w = 0;
	for (uint32_t f = 0; f < s.npaths && big == OP_NOFILE; f++) {
		uint64_t nw = 0, nr = 0;
		for (uint64_t i = 0; i < n; i++)
			if (o[i].file == f)
				nw += o[i].kind == OP_WRITE, nr += o[i].kind == OP_READ;
		if (nw == 1827 && nr == 722)
			big = f, w = nw;
	}
	assert_int_not_equal(big, OP_NOFILE);
	uint64_t first_read = UINT64_MAX, last_write = 0, seen_w = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (o[i].file != big)
			continue;
		if (o[i].kind == OP_READ && first_read == UINT64_MAX)
			first_read = i;
		if (o[i].kind == OP_WRITE && ++seen_w == w)
			last_write = i;
	}
	assert_true(first_read < last_write);
	opstream_close(&s);

	/* ior rank 0: reads 0..3 all start at 0.2384 (lines 89-92), and the
	 * text order is kept; times are relative to the rank's first op,
	 * write 0 at 0.0300 */
	load(FIX "ior_hdf5_example.dxt.txt", NULL, &s);
	o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(o[1].kind, OP_WRITE);
	assert_int_equal(o[1].t_ns, 0);
	assert_int_equal(o[1].dur_ns, 3100000);          /* 0.0331 - 0.0300 */
	assert_int_equal(s.ranks[0].t0_ns, 1594155460ull * 1000000000ull + 30000000ull);
	int k = 0;
	for (uint64_t i = 0; i < n; i++)
		if (o[i].kind == OP_READ && o[i].t_ns == 208400000ull) {
			assert_int_equal(o[i].line, 89 + k);
			k++;
		}
	assert_int_equal(k, 4);
	opstream_close(&s);
}

/* ---- synthesized opens and closes ------------------------------------------- */

static void t_synth(void **st)
{
	(void)st;
	struct opstream s;

	load(FIX "treddy_h5d_no_h5f.dxt.txt", NULL, &s);
	for (uint32_t r = 0; r < s.nranks; r++) {
		uint64_t n;
		const struct op *o = opstream_rank_ops(&s, r, &n);
		for (uint32_t f = 0; f < s.npaths; f++) {
			int64_t open = -1, close = -1, first = -1, last = -1;
			uint64_t maxend = 0;
			int writes = 0;
			for (uint64_t i = 0; i < n; i++) {
				if (o[i].file != f)
					continue;
				if (o[i].kind == OP_OPEN) {
					assert_int_equal(open, -1);      /* once */
					open = (int64_t)i;
				} else if (o[i].kind == OP_CLOSE) {
					assert_int_equal(close, -1);
					close = (int64_t)i;
				} else {
					if (first < 0)
						first = (int64_t)i;
					last = (int64_t)i;
					writes |= o[i].kind == OP_WRITE;
					if (o[i].t_ns + o[i].dur_ns > maxend)
						maxend = o[i].t_ns + o[i].dur_ns;
					assert_int_equal(o[i].result, (int64_t)o[i].len);
				}
			}
			if (first < 0) {
				assert_int_equal(open, -1);
				continue;
			}
			assert_true(open >= 0 && open < first);
			assert_true(close > last);
			assert_int_equal(o[open].flags & OPF_SYNTH, OPF_SYNTH);
			assert_int_equal(o[close].flags & OPF_SYNTH, OPF_SYNTH);
			assert_int_equal(o[open].t_ns, o[first].t_ns);
			assert_int_equal(o[close].t_ns, maxend);
			assert_int_equal(o[open].oflags, writes ? (O_RDWR | O_CREAT) : O_RDONLY);
			assert_int_equal(o[close].handle, o[open].handle);
			for (int64_t i = first; i <= last; i++)
				if (o[i].file == f)
					assert_int_equal(o[i].handle, o[open].handle);
			/* the data ops themselves are not synthesized */
			assert_int_equal(o[first].flags & OPF_SYNTH, 0);
		}
	}
	assert_int_equal(info_u64(&s, "synthesized_opens"), 48);
	assert_int_equal(info_u64(&s, "synthesized_closes"), 48);
	opstream_close(&s);
}

/* ---- N-to-1 and N-to-N: one path per file ------------------------------------ */

static void t_sharing(void **st)
{
	(void)st;
	struct opstream s;

	/* one shared file (N-to-1) + one .sm file per rank (N-to-N) */
	load(FIX "mpi_io_test_with_dxt.dxt.txt", NULL, &s);
	assert_int_equal(s.npaths, 33);
	uint32_t shared = OP_NOFILE;
	for (uint32_t f = 0; f < s.npaths; f++) {
		uint32_t ranks = 0;
		for (uint32_t r = 0; r < s.nranks; r++) {
			uint64_t n;
			const struct op *o = opstream_rank_ops(&s, r, &n);
			for (uint64_t i = 0; i < n; i++)
				if (o[i].file == f) {
					ranks++;
					break;
				}
		}
		if (ranks == 32)
			shared = f;
		else
			assert_int_equal(ranks, 1);
	}
	assert_int_not_equal(shared, OP_NOFILE);
	opstream_close(&s);
}

/* ---- hosts and Lustre OSTs ---------------------------------------------------- */

static void t_hosts_osts(void **st)
{
	(void)st;
	struct opstream s;
	char v[256];

	load(FIX "ior_hdf5_example.dxt.txt", NULL, &s);
	for (uint32_t r = 0; r < s.nranks; r++) {
		char name[16];
		snprintf(name, sizeof(name), "rank %u", r);
		assert_string_equal(opstream_rank_name(&s, r), name);
		assert_string_equal(opstream_rank_host(&s, r), "nid00097");
		assert_int_equal(s.ranks[r].pid, r);
	}
	assert_non_null(opstream_info(&s, "lustre_osts", v, sizeof(v)));
	assert_string_equal(v, "106\t/global/cscratch1/sd/ssnyder/test123.h5");
	opstream_close(&s);
	/* the old Lustre lines of parser 3.4.4 give the same set */
	load(FIX "parser-versions/ior_hdf5_example.util-3.4.4.dxt.txt", NULL, &s);
	assert_non_null(opstream_info(&s, "lustre_osts", v, sizeof(v)));
	assert_string_equal(v, "106\t/global/cscratch1/sd/ssnyder/test123.h5");
	opstream_close(&s);
	/* data on the MDT (stripe_count 0, no OST) */
	load(FIX "unet3d_a100.dxt.txt.gz", NULL, &s);
	assert_non_null(opstream_info(&s, "lustre_osts", v, sizeof(v)));
	assert_true(!strncmp(v, "mdt\t/p/lustre3/", 15));
	assert_string_equal(opstream_rank_host(&s, 0), "corona171");
	opstream_close(&s);
	/* no Lustre: no line */
	load(FIX "treddy_h5d_no_h5f.dxt.txt", NULL, &s);
	assert_null(opstream_info(&s, "lustre_osts", v, sizeof(v)));
	assert_string_equal(opstream_rank_host(&s, 2), "adobe");
	opstream_close(&s);
}

/* The host field of the .ops rank table: written, read back, and a file
 * made without hosts (as before they were kept) reads as "". */
static void t_ops_host(void **st)
{
	(void)st;
	struct ops_writer *w;
	struct opstream s;
	uint32_t r0, r1;
	char p[512];

	snprintf(p, sizeof(p), "%s/h.ops", dir);
	assert_int_equal(opsw_open(&w, p), 0);
	assert_int_equal(opsw_rank(w, "a", 1, &r0), 0);
	assert_int_equal(opsw_rank(w, "b", 2, &r1), 0);
	assert_int_equal(opsw_rank_host(w, r1, "node7"), 0);
	assert_int_equal(opsw_rank_host(w, 9, "x"), -EINVAL);
	assert_int_equal(opsw_finish(w, NULL), 0);
	assert_int_equal(opstream_open(&s, p, NULL), 0);
	assert_string_equal(opstream_rank_host(&s, 0), "");
	assert_string_equal(opstream_rank_host(&s, 1), "node7");
	assert_string_equal(opstream_rank_host(&s, 5), "");
	uint64_t off = s.hdr->ranks_off + offsetof(struct ops_rank, host);
	opstream_close(&s);
	/* a host offset beyond the string table is refused, not followed */
	int fd = open(p, O_RDWR);
	uint64_t bad = 1u << 30;
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &bad, sizeof(bad), (off_t)off), (ssize_t)sizeof(bad));
	close(fd);
	const char *why = NULL;
	assert_int_equal(opstream_open(&s, p, &why), -EINVAL);
	assert_non_null(strstr(why, "rank index"));
	unlink(p);
}

/* ---- incomplete logs ------------------------------------------------------------- */

static void t_incomplete(void **st)
{
	(void)st;
	struct opstream s;
	struct rerr e;
	char v[128];

	/* --show-incomplete: what was captured is read, and marked */
	load(FIX "partial_data_dxt.show-incomplete.dxt.txt.gz", NULL, &s);
	assert_non_null(opstream_info(&s, "incomplete", v, sizeof(v)));
	assert_string_equal(v, "DXT_POSIX,DXT_MPIIO");
	assert_non_null(dxt_incomplete_warning(&s, v, sizeof(v)));
	assert_non_null(strstr(v, "incomplete"));
	opstream_close(&s);
	/* a complete log says nothing */
	load(FIX "ior_hdf5_example.dxt.txt", NULL, &s);
	assert_null(opstream_info(&s, "incomplete", v, sizeof(v)));
	assert_null(dxt_incomplete_warning(&s, v, sizeof(v)));
	opstream_close(&s);
	/* without --show-incomplete the parser stopped after the banner */
	assert_int_equal(load_rc(FIX "partial_data_dxt.dxt.txt", NULL, &e), -ENODATA);
	assert_non_null(strstr(e.msg, "DXT_POSIX module is announced but no block follows"));
	assert_non_null(strstr(e.msg, "--show-incomplete"));
	assert_int_equal(access(ops_path, F_OK), -1);
	/* a log without DXT at all */
	assert_int_equal(load_rc(FIX "no-dxt_mpi-io-test-x86_64-3.5.0.dxt.txt", NULL, &e), -ENODATA);
	assert_non_null(strstr(e.msg, "no DXT trace"));
	assert_non_null(strstr(e.msg, "DXT_ENABLE_IO_TRACE"));
	assert_int_equal(access(ops_path, F_OK), -1);
}

/* ---- segments beyond the in-memory run: sorted runs merged in a file ------ */

/* Parse file (layer) into out with in.dxt_run records per sorted run. */
static void load_runs(const char *file, const char *layer, size_t run, const char *out,
		      struct opstream *s)
{
	struct ops_writer *w = NULL;
	struct builder *b = NULL;
	struct rerr e = { { 0 } };
	char *files[] = { (char *)file };
	struct trace_input in = { .files = files, .nfiles = 1, .dxt_layer = layer, .dxt_run = run };
	const char *why = NULL;

	assert_int_equal(opsw_open(&w, out), 0);
	assert_int_equal(builder_new(&b, w), 0);
	int rc = trace_dxt.parse(&in, b, &e);
	if (rc)
		fail_msg("%s (run %zu): %s", file, run, e.msg);
	assert_int_equal(builder_finish(b, &e), 0);
	builder_free(b);
	assert_int_equal(opsw_finish(w, NULL), 0);
	assert_int_equal(opstream_open(s, out, &why), 0);
}

/* Runs of 1, 3 and 64 segments (the spill file, merged) give exactly the
 * ops of the in-memory sort: the same records, ranks and paths. */
static void t_spilled_runs(void **st)
{
	(void)st;
	static const struct {
		const char *file, *layer;
	} fx[] = {
		{ FIX "mpi_io_test_with_dxt.dxt.txt", NULL },
		{ FIX "mpi_io_test_with_dxt.dxt.txt", "mpiio" },
		{ FIX "hdf5_diagonal_write_bytes_range_dxt.dxt.txt", NULL },
		{ FIX "nonmpi_dxt_anonymized.dxt.txt.gz", NULL },
	};
	static const size_t runs[] = { 1, 3, 64 };
	char a[600], b[600];

	snprintf(a, sizeof(a), "%s/mem.ops", dir);
	snprintf(b, sizeof(b), "%s/runs.ops", dir);
	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		struct opstream x, y;
		load_runs(fx[i].file, fx[i].layer, 0, a, &x);
		assert_true(x.nops > 64 * 3);   /* several runs of 64 */
		for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
			load_runs(fx[i].file, fx[i].layer, runs[r], b, &y);
			assert_int_equal(x.nranks, y.nranks);
			assert_int_equal(x.npaths, y.npaths);
			assert_int_equal(x.nops, y.nops);
			for (uint32_t k = 0; k < x.nranks; k++) {
				assert_string_equal(opstream_rank_name(&x, k), opstream_rank_name(&y, k));
				assert_int_equal(x.ranks[k].count, y.ranks[k].count);
			}
			for (uint32_t k = 0; k < x.npaths; k++)
				assert_string_equal(opstream_path(&x, k), opstream_path(&y, k));
			if (memcmp(x.ops, y.ops, x.nops * sizeof(*x.ops)))
				fail_msg("%s: runs of %zu differ from the sort in memory", fx[i].file,
					 runs[r]);
			opstream_close(&y);
		}
		opstream_close(&x);
	}
	unlink(a);
	unlink(b);
}

/* ---- pass 2 on made-up dumps: the sort, the merge, the per-file sums ---- */

#define P2_RANKS 6
#define P2_FILES 5

/* A dump of P2_RANKS ranks (numbered out of order, rank 4 with MPIIO
 * segments only) by P2_FILES files, with starts up to tmax seconds
 * (pseudo-random, many equal), zero lengths, and for rank 7 /p2/f1
 * read-only, with the first segment, and after it (a block of its own:
 * one per file and rank) /p2/f5 with writes, the last to start and the
 * one that ends last.  Returns the number of POSIX segments. */
static unsigned p2_dump(const char *path, double tmax)
{
	static const int rank[P2_RANKS] = { 7, 1000000, 3, 0, 12, 4 };
	FILE *f = fopen(path, "w");
	unsigned seed = 12345, nseg = 0;

	assert_non_null(f);
	fprintf(f, "# darshan log version: 3.21\n# start_time: 1594155460\n# nprocs: 7\n\n"
		"# ***************************************************\n"
		"# DXT_POSIX module data\n"
		"# ***************************************************\n\n");
	for (int fi = 0; fi < P2_FILES; fi++)
		for (int ri = 0; ri < P2_RANKS - 1; ri++) {
			int nw = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 9;
			int nr = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 9;
			bool dup = rank[ri] == 7 && fi == 1;
			if (dup)
				nw = 0, nr = 2;
			fprintf(f, "# DXT, file_id: %d, file_name: /p2/f%d\n"
				"# DXT, rank: %d, hostname: h%d\n"
				"# DXT, write_count: %d, read_count: %d\n"
				"# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)      End(s)\n",
				100 + fi, fi, rank[ri], ri, nw, nr);
			for (int k = 0; k < nw + nr; k++) {
				unsigned x = (seed = seed * 1103515245u + 12345u) >> 8;
				/* starts on a coarse grid: many are equal */
				double t0 = (double)(x % 64) * tmax / 64;
				double t1 = t0 + (double)(x % 3) * 0.0001;
				if (dup)        /* both first, one ends late */
					t0 = 0, t1 = k ? tmax + 1 : 0.0001;
				fprintf(f, " X_POSIX %7d  %s %8d %15u %15u %11.4f %11.4f\n", rank[ri],
					k < nw ? "write" : "read", k < nw ? k : k - nw, x % 100000,
					x % 5 ? x % 4096 : 0, t0, t1);
				nseg++;
			}
			fprintf(f, "\n");
			if (dup) {
				fprintf(f, "# DXT, file_id: 105, file_name: /p2/f5\n"
					"# DXT, rank: 7, hostname: h0\n"
					"# DXT, write_count: 2, read_count: 0\n"
					" X_POSIX       7  write        0               0              10 %11.4f %11.4f\n"
					" X_POSIX       7  write        1              10              10 %11.4f %11.4f\n\n",
					tmax / 2, tmax + 2, tmax / 4, tmax / 4);
				nseg += 2;
			}
		}
	fprintf(f, "# ***************************************************\n"
		"# DXT_MPIIO module data\n"
		"# ***************************************************\n\n"
		"# DXT, file_id: 100, file_name: /p2/f0\n# DXT, rank: 4, hostname: h5\n"
		"# DXT, write_count: 1, read_count: 0\n"
		" X_MPIIO       4  write        0               0              10      1.0000      2.0000\n");
	fclose(f);
	return nseg;
}

/* Every rank's ops in order (start, then line), one open and one close per
 * (rank, file) around its segments, the close at the latest end; the
 * sorted runs of the spill file merged give the very same ops. */
static void t_pass2(void **st)
{
	(void)st;
	/* 3.0 s: keys of a few bits; 400,000 s: 32-bit starts, more than 3
	 * radix passes (rank above them) */
	static const double tmax[] = { 3.0, 400000.0 };
	static const size_t runs[] = { 1, 5, 64 };
	char txt[600], a[600], b[600];

	snprintf(txt, sizeof(txt), "%s/p2.dxt.txt", dir);
	snprintf(a, sizeof(a), "%s/p2mem.ops", dir);
	snprintf(b, sizeof(b), "%s/p2runs.ops", dir);
	for (size_t t = 0; t < sizeof(tmax) / sizeof(tmax[0]); t++) {
		unsigned nseg = p2_dump(txt, tmax[t]);
		struct opstream x, y;
		load_runs(txt, NULL, 0, a, &x);
		assert_int_equal(x.nranks, P2_RANKS - 1);       /* rank 4: MPIIO only */
		static const char *const names[] = { "rank 0", "rank 3", "rank 7", "rank 12",
						     "rank 1000000" };
		uint64_t data = 0;
		for (uint32_t r = 0; r < x.nranks; r++) {
			assert_string_equal(opstream_rank_name(&x, r), names[r]);
			uint64_t n;
			const struct op *o = opstream_rank_ops(&x, r, &n);
			uint32_t opens[P2_FILES + 2] = { 0 }, closes[P2_FILES + 2] = { 0 };
			uint64_t close_t[P2_FILES + 2] = { 0 }, end[P2_FILES + 2] = { 0 };
			uint32_t fl[P2_FILES + 2] = { 0 }, w[P2_FILES + 2] = { 0 };
			for (uint64_t i = 0; i < n; i++) {
				uint32_t fi = o[i].file;
				assert_true(fi < x.npaths && fi <= P2_FILES + 1);
				if (i)
					assert_true(o[i].t_ns >= o[i - 1].t_ns);
				if (i && op_is_data(o[i].kind) && op_is_data(o[i - 1].kind) &&
				    o[i].t_ns == o[i - 1].t_ns)
					assert_true(o[i].line > o[i - 1].line);
				if (o[i].kind == OP_OPEN) {
					assert_int_equal(opens[fi]++, 0);
					fl[fi] = o[i].oflags;
				} else if (o[i].kind == OP_CLOSE) {
					assert_int_equal(closes[fi]++, 0);
					close_t[fi] = o[i].t_ns;
				} else {
					assert_true(op_is_data(o[i].kind));
					assert_int_equal(opens[fi], 1);
					assert_int_equal(closes[fi], 0);
					if (o[i].t_ns + o[i].dur_ns > end[fi])
						end[fi] = o[i].t_ns + o[i].dur_ns;
					w[fi] |= o[i].kind == OP_WRITE;
					data++;
				}
			}
			for (uint32_t fi = 0; fi < x.npaths; fi++) {
				if (!opens[fi])
					continue;
				assert_int_equal(closes[fi], 1);
				assert_int_equal(close_t[fi], end[fi]);
				assert_int_equal(fl[fi], w[fi] ? O_RDWR | O_CREAT : O_RDONLY);
			}
			if (!strcmp(names[r], "rank 7")) {      /* f1, then f5 */
				uint32_t line[2] = { 0, 0 }, nl = 0, ln = 0;
				char l[256], prev[256] = "";
				FILE *f = fopen(txt, "r");
				assert_non_null(f);
				while (fgets(l, sizeof(l), f)) {
					ln++;
					if (!strcmp(l, "# DXT, rank: 7, hostname: h0\n") &&
					    (!strcmp(prev, "# DXT, file_id: 101, file_name: /p2/f1\n") ||
					     !strcmp(prev, "# DXT, file_id: 105, file_name: /p2/f5\n")))
						line[nl++ % 2] = ln - 1;
					strcpy(prev, l);
				}
				fclose(f);
				assert_int_equal(nl, 2);
				uint32_t f1 = UINT32_MAX, f5 = UINT32_MAX;
				for (uint32_t fi = 0; fi < x.npaths; fi++) {
					if (!strcmp(opstream_path(&x, fi), "/p2/f1"))
						f1 = fi;
					if (!strcmp(opstream_path(&x, fi), "/p2/f5"))
						f5 = fi;
				}
				assert_true(f1 < x.npaths && f5 < x.npaths);
				assert_int_equal(opens[f1], 1);
				assert_int_equal(fl[f1], O_RDONLY);
				assert_int_equal(opens[f5], 1);
				assert_int_equal(fl[f5], O_RDWR | O_CREAT);
				assert_int_equal(o[n - 1].kind, OP_CLOSE);
				assert_int_equal(o[n - 1].file, f5);
				/* the opens' and closes' lines: their block's */
				for (uint64_t i = 0; i < n; i++)
					if (o[i].kind == OP_OPEN || o[i].kind == OP_CLOSE) {
						if (o[i].file == f1)
							assert_int_equal(o[i].line, line[0]);
						if (o[i].file == f5)
							assert_int_equal(o[i].line, line[1]);
					}
			}
		}
		assert_int_equal(data, nseg);
		for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
			load_runs(txt, NULL, runs[r], b, &y);
			assert_int_equal(x.nops, y.nops);
			if (memcmp(x.ops, y.ops, x.nops * sizeof(*x.ops)))
				fail_msg("%.0f s: runs of %zu differ from the sort in memory", tmax[t],
					 runs[r]);
			opstream_close(&y);
		}
		opstream_close(&x);
	}
	unlink(txt);
	unlink(a);
	unlink(b);
}

/* ---- the MPI-IO layer ------------------------------------------------------------- */

static void t_mpiio(void **st)
{
	(void)st;
	struct opstream s;
	struct rerr e;
	char v[32];

	/* offsets present (DXT_MPIIO v2): positioned I/O on the shared file,
	 * rank 0's first MPIIO write is "0 write 0 2048 262144 0.0300 0.0331" */
	load(FIX "ior_hdf5_example.dxt.txt", "mpiio", &s);
	assert_string_equal(opstream_info(&s, "dxt_layer", v, sizeof(v)), "mpiio");
	uint64_t n;
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(o[1].kind, OP_WRITE);
	assert_int_equal(o[1].offset, 2048);
	assert_int_equal(o[1].len, 262144);
	assert_int_equal(o[1].line, 175);
	opstream_close(&s);
	/* never the same bytes twice: POSIX and MPIIO both say 59 segments,
	 * one layer is replayed */
	load(FIX "mpi_io_test_with_dxt.dxt.txt", "mpiio", &s);
	struct counts c;
	count(&s, &c);
	assert_int_equal(c.wbytes, 32ull * 4 * 16777216);
	assert_int_equal(c.rbytes, 32ull * 4 * 16777216);
	opstream_close(&s);
	/* offsets unknown (-1, log version 1): refused, with the way out */
	assert_int_equal(load_rc(FIX "mpi-io-test-x86_64-3.1.6.dxt.txt", "mpiio", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "mpi-io-test-x86_64-3.1.6.dxt.txt:84: X_MPIIO offset unknown"
				      " (-1: DXT_MPIIO log version 1, or a Darshan runtime built with"
				      " Open MPI)"));
	assert_non_null(strstr(e.msg, "--dxt-layer posix"));
	assert_int_equal(access(ops_path, F_OK), -1);
	/* parser 3.1.8: no offset column at all */
	assert_int_equal(load_rc(FIX "parser-versions/mpi-io-test-x86_64-3.1.6.util-3.1.8.dxt.txt",
				 "mpiio", &e), -EINVAL);
	assert_non_null(strstr(e.msg, ":84: X_MPIIO offset unknown (no offset column: a"
				      " darshan-dxt-parser of 3.1.x)"));
	/* the posix layer of the same dumps is fine, and says the MPIIO
	 * offsets were unknown */
	load(FIX "mpi-io-test-x86_64-3.1.6.dxt.txt", NULL, &s);
	assert_int_equal(info_u64(&s, "dxt_mpiio_unknown_offsets"), 8);
	opstream_close(&s);
	/* a layer with no data: the other one is named */
	assert_int_equal(load_rc(FIX "treddy_h5d_no_h5f.dxt.txt", "mpiio", &e), -ENODATA);
	assert_non_null(strstr(e.msg, "no X_MPIIO segment"));
	assert_non_null(strstr(e.msg, "--dxt-layer posix"));
	/* an unknown layer */
	assert_int_equal(load_rc(FIX "treddy_h5d_no_h5f.dxt.txt", "stdio", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "unknown DXT layer 'stdio'"));
}

/* ---- bad input: file:line, and no .ops written ------------------------------------ */

/* a dump's header and its POSIX module banner (7 lines) */
#define POSIX_HEAD \
	"# darshan log version: 3.21\n" \
	"# nprocs: 2\n" \
	"\n" \
	"# ***************************************************\n" \
	"# DXT_POSIX module data\n" \
	"# ***************************************************\n" \
	"\n"
static const char head[] =
	POSIX_HEAD
	"# DXT, file_id: 42, file_name: /d/f\n"                /* line 8 */
	"# DXT, rank: 0, hostname: n1\n"
	"# DXT, write_count: 1, read_count: 1\n"
	"# DXT, mnt_pt: /, fs_type: ext4\n"
	"# Module    Rank  Wt/Rd  Segment          Offset       Length    Start(s)      End(s)\n";

static void bad_case(const char *body, int line, const char *want)
{
	char path[512], msg[600];
	struct rerr e;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bad.dxt.txt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(head, f);
	fputs(body, f);
	fclose(f);
	int rc = load_rc(path, NULL, &e);
	if (rc == 0)
		fail_msg("accepted: %s", body);
	snprintf(msg, sizeof(msg), "%s:%d: %s", path, line, want);
	if (!strstr(e.msg, msg))
		fail_msg("expected '%s' in '%s'", msg, e.msg);
	/* nothing is replayed from a rejected trace */
	assert_int_equal(access(ops_path, F_OK), -1);
	unlink(path);
}

static void t_bad_input(void **st)
{
	(void)st;
	const char *w = " X_POSIX       0  write        0               0             100      0.0010      0.0020\n";
	char b[2048];

	/* the good case first: the same text with both lines is accepted */
	snprintf(b, sizeof(b), "%s%s", w,
		 " X_POSIX       0   read        0               0             100      0.0030      0.0040\n");
	{
		char path[512];
		struct rerr e;
		snprintf(path, sizeof(path), "%s/good.dxt.txt", dir);
		FILE *f = fopen(path, "w");
		fputs(head, f);
		fputs(b, f);
		fclose(f);
		assert_int_equal(load_rc(path, NULL, &e), 0);
		/* an empty hostname (gethostname() gave ""), with and without
		 * the blank darshan-dxt-parser leaves after the colon */
		for (int blank = 0; blank < 2; blank++) {
			char h2[sizeof(head)];
			struct opstream s;
			snprintf(h2, sizeof(h2), "%s", head);
			char *at = strstr(h2, "hostname: n1\n");
			assert_non_null(at);
			memmove(at + 9 + blank, at + 12, strlen(at + 12) + 1);
			f = fopen(path, "w");
			fputs(h2, f);
			fputs(b, f);
			fclose(f);
			load(path, NULL, &s);
			assert_int_equal(s.nranks, 1);
			assert_string_equal(opstream_rank_host(&s, 0), "");
			opstream_close(&s);
		}
		unlink(path);
	}
	bad_case(" X_POSIX       0  write        0               0\n", 13,
		 "X_POSIX line with 4 fields where 7 were expected (rank, write|read, segment, offset,"
		 " length, start and end): a truncated line?");
	bad_case(" X_STDIO       0  write        0               0             100      0.0010      0.0020\n",
		 13, "unknown module 'X_STDIO'");
	bad_case(" X_POSIX       0  write        0               0            -100      0.0010      0.0020\n",
		 13, "negative length -100");
	bad_case(" X_POSIX       0  write        0              -5             100      0.0010      0.0020\n",
		 13, "negative offset -5");
	bad_case(" X_POSIX       0  write        0               0             100      0.0030      0.0020\n",
		 13, "end time before start time");
	bad_case(" X_POSIX       0  write        0               0             100      0.0010      x.0020\n",
		 13, "expected start and end times");
	bad_case(" X_POSIX       3  write        0               0             100      0.0010      0.0020\n",
		 13, "segment of rank 3 in the block of rank 0");
	bad_case(" X_POSIX       0  write        7               0             100      0.0010      0.0020\n",
		 13, "write segment 7 where 0 was expected");
	bad_case(" X_POSIX       0  write        0               0             100      0.0010      0.0020  junk\n",
		 13, "unexpected 'junk' after the end time");
	/* counts that disagree with the header: too few, too many */
	bad_case(w, 8, "block of '/d/f' (rank 0) lists 1 writes and 0 reads, its header says 1 and 1");
	snprintf(b, sizeof(b), "%s%s", w, w);
	bad_case(b, 14, "more writes than the block's header announces (1)");
	bad_case(" X_POSIX       0   read        0               0             100      0.0010      0.0020\n",
		 13, "read listed after 0 of the block's 1 writes");
	/* an unknown module banner after a complete block */
	const char *r = " X_POSIX       0   read        0               0             100      0.0030      0.0040\n";
	snprintf(b, sizeof(b), "%s%s\n# ***************************************************\n"
		 "# DXT_STDIO module data\n", w, r);
	bad_case(b, 17, "unknown module 'DXT_STDIO'");
	/* a segment before any block header */
	{
		char path[512];
		struct rerr e;
		snprintf(path, sizeof(path), "%s/bad2.dxt.txt", dir);
		FILE *f = fopen(path, "w");
		fputs("# darshan log version: 3.21\n\n# DXT_POSIX module data\n", f);
		fputs(w, f);
		fclose(f);
		assert_int_equal(load_rc(path, NULL, &e), -EINVAL);
		char want[600];
		snprintf(want, sizeof(want), "%s:4: X_POSIX segment before any '# DXT, file_id:' block header", path);
		assert_non_null(strstr(e.msg, want));
		assert_int_equal(access(ops_path, F_OK), -1);
		unlink(path);
	}
	/* a block whose header announces segments that never come */
	snprintf(b, sizeof(b), "%s%s# DXT, file_id: 43, file_name: /d/g\n# DXT, rank: 0, hostname: n1\n"
		 "# DXT, write_count: 2, read_count: 0\n", w, r);
	bad_case(b, 15, "block of '/d/g' (rank 0) lists 0 writes and 0 reads, its header says 2 and 0");
	/* a truncated header line */
	snprintf(b, sizeof(b), "%s%s# DXT, file_id: 43, file_name: /d/g\n# DXT, rank: 1, hostname: n1\n"
		 "# DXT, write_count: 1, read_\n", w, r);
	bad_case(b, 17, "expected 'write_count: W, read_count: R'");
	/* a host that changes for one rank */
	snprintf(b, sizeof(b), "%s%s# DXT, file_id: 43, file_name: /d/g\n# DXT, rank: 0, hostname: n2\n",
		 w, r);
	bad_case(b, 16, "rank 0 on host 'n2' here, on 'n1' at line 9");
	/* one file id, two names */
	snprintf(b, sizeof(b), "%s%s# DXT, file_id: 42, file_name: /d/other\n", w, r);
	bad_case(b, 15, "file_id 42 names '/d/other' here and '/d/f' before");
	/* a segment of a block whose counts line is missing */
	snprintf(b, sizeof(b), "%s%s# DXT, file_id: 43, file_name: /d/g\n# DXT, rank: 0, hostname: n1\n%s",
		 w, r, w);
	bad_case(b, 17, "segment of a block without its '# DXT, write_count:' line");
	/* neither '#' nor a segment */
	snprintf(b, sizeof(b), "%s%sgarbage here\n", w, r);
	bad_case(b, 15, "expected a '#' line or an X_POSIX/X_MPIIO segment line");
	/* with --skip-bad: bad lines are skipped and counted, and a block
	 * short of its header's counts keeps what it has */
	{
		char path[512];
		struct rerr e;
		struct load_opts lo = { .skip_bad = true };
		struct load_result res;
		struct opstream st2;
		snprintf(path, sizeof(path), "%s/skip.dxt.txt", dir);
		FILE *f = fopen(path, "w");
		fputs(head, f);
		fputs(" X_POSIX       0  write        0               0            -100      0.0010      0.0020\n", f);
		fputs(" X_POSIX       0   read        0               0             100      0.0030      0.0040\n", f);
		fclose(f);
		char *args[] = { path };
		unlink(ops_path);
		assert_int_equal(trace_load(args, 1, &lo, ops_path, &res, &e), 0);
		/* the negative length, then the block (1 write announced, 0 kept) */
		assert_int_equal(res.bad_lines, 2);
		assert_non_null(strstr(res.first_bad, ":13: negative length -100"));
		assert_int_equal(opstream_open(&st2, ops_path, NULL), 0);
		assert_int_equal(st2.nops, 3);             /* open, the read, close */
		assert_int_equal(st2.ops[1].kind, OP_READ);
		opstream_close(&st2);
		unlink(path);
	}
	/* --skip-bad drops a block's only rank line; the block, short of its
	 * counts, then has no rank to name (issue 15: fuzz_dxt found this
	 * reading ranks[0] of an empty table) */
	{
		char path[512];
		struct rerr e;
		struct load_opts lo = { .skip_bad = true };
		struct load_result res;
		snprintf(path, sizeof(path), "%s/norank.dxt.txt", dir);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs("# darshan log version: 3.21\n# nprocs: 1\n\n# DXT_POSIX module data\n\n"
		      "# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: x, hostname: n1\n"
		      "# DXT, write_count: 1, read_count: 0\n"
		      "# DXT, file_id: 43, file_name: /d/g\n", f);
		fclose(f);
		char *args[] = { path };
		unlink(ops_path);
		assert_int_not_equal(trace_load(args, 1, &lo, ops_path, &res, &e), 0);
		/* the rank line, block 42 (no rank line now), and block 43,
		 * which the text ends right after its file_id line */
		assert_int_equal(res.bad_lines, 3);
		assert_non_null(strstr(res.first_bad, ":7: expected 'rank: R, hostname: HOST'"));
		unlink(path);
		unlink(ops_path);
	}
	/* a time beyond what 32-bit ticks of 0.1 ms hold */
	bad_case(" X_POSIX       0  write        0               0             100 500000.0000 500000.0001\n",
		 13, "time beyond 429496 s");
}

/* A dump in dir/name: head, then body; its path in path. */
static void write_dump(char *path, size_t len, const char *name, const char *hd, const char *body)
{
	snprintf(path, len, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(hd, f);
	fputs(body, f);
	fclose(f);
}

/* A dump cut short: right after a block's file_id line or its rank line
 * (at the end, or before the next block), or at a block boundary before a
 * DXT module its regions list announces (audit C, F1). */
static void t_cut_dump(void **st)
{
	(void)st;
	const char *w = " X_POSIX       0  write        0               0             100      0.0010      0.0020\n";
	const char *r = " X_POSIX       0   read        0               0             100      0.0030      0.0040\n";
	char b[2048], path[512];
	struct rerr e;

	snprintf(b, sizeof(b), "%s%s# DXT, file_id: 43, file_name: /d/g\n", w, r);
	bad_case(b, 15, "block of '/d/g' ends without its '# DXT, rank:' line (truncated dump?)");
	snprintf(b, sizeof(b), "%s%s# DXT, file_id: 43, file_name: /d/g\n# DXT, rank: 1, hostname: n2\n",
		 w, r);
	bad_case(b, 15, "block of '/d/g' (rank 1) ends without its '# DXT, write_count:' line"
		 " (truncated dump?)");
	/* the same block followed by another: its end is the next header */
	snprintf(b, sizeof(b), "%s%s# DXT, file_id: 43, file_name: /d/g\n"
		 "# DXT, file_id: 44, file_name: /d/h\n# DXT, rank: 0, hostname: n1\n"
		 "# DXT, write_count: 0, read_count: 0\n", w, r);
	bad_case(b, 15, "block of '/d/g' ends without its '# DXT, rank:' line");
	/* with --skip-bad the block is counted as a bad line, and the rest kept */
	{
		struct load_opts lo = { .skip_bad = true };
		struct load_result res;
		snprintf(b, sizeof(b), "%s%s# DXT, file_id: 43, file_name: /d/g\n", w, r);
		write_dump(path, sizeof(path), "cut.dxt.txt", head, b);
		char *args[] = { path };
		unlink(ops_path);
		assert_int_equal(trace_load(args, 1, &lo, ops_path, &res, &e), 0);
		assert_int_equal(res.bad_lines, 1);
		assert_non_null(strstr(res.first_bad, ":15: block of '/d/g' ends without its"));
		unlink(path);
	}
	/* the regions list announces DXT_MPIIO, the dump ends with DXT_POSIX */
	static const char regions[] =
		"# darshan log version: 3.21\n"
		"# nprocs: 2\n"
		"\n"
		"# log file regions\n"
		"# -------------------------------------------------------\n"
		"# header: 744 bytes (uncompressed)\n"
		"# DXT_POSIX module: 848 bytes (compressed), ver=1\n"
		"# DXT_MPIIO module: 853 bytes (compressed), ver=2\n"
		"\n"
		"# ***************************************************\n"
		"# DXT_POSIX module data\n"
		"# ***************************************************\n"
		"\n"
		"# DXT, file_id: 42, file_name: /d/f\n"
		"# DXT, rank: 0, hostname: n1\n"
		"# DXT, write_count: 1, read_count: 1\n";
	snprintf(b, sizeof(b), "%s%s", w, r);
	write_dump(path, sizeof(path), "nompiio.dxt.txt", regions, b);
	assert_int_equal(load_rc(path, NULL, &e), -EINVAL);
	char want[1024];
	snprintf(want, sizeof(want), "%s: the log's regions list announces the DXT_MPIIO module (853"
		 " bytes) but the dump has no '# DXT_MPIIO module data' section: the dump looks cut"
		 " short; give replay the .darshan log itself, or dump it again"
		 " ('darshan-dxt-parser --show-incomplete LOG > FILE')", path);
	if (!strstr(e.msg, want))
		fail_msg("expected '%s' in '%s'", want, e.msg);
	assert_int_equal(access(ops_path, F_OK), -1);
	/* with the MPIIO banner (and its block) it is read */
	snprintf(b, sizeof(b), "%s%s\n# ***************************************************\n"
		 "# DXT_MPIIO module data\n# ***************************************************\n\n"
		 "# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
		 "# DXT, write_count: 1, read_count: 0\n"
		 " X_MPIIO       0  write        0               0             100      0.0010      0.0020\n",
		 w, r);
	write_dump(path, sizeof(path), "nompiio.dxt.txt", regions, b);
	assert_int_equal(load_rc(path, NULL, &e), 0);
	/* a log the parser stopped in (no --show-incomplete): the DXT_POSIX
	 * banner, then nothing; that message stays */
	write_dump(path, sizeof(path), "nompiio.dxt.txt", regions, "");
	{
		/* regions ends inside a block: cut it at the DXT_POSIX banner */
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fwrite(regions, 1, (size_t)(strstr(regions, "\n# DXT, file_id") - regions + 1), f);
		fclose(f);
	}
	assert_int_equal(load_rc(path, NULL, &e), -ENODATA);
	assert_non_null(strstr(e.msg, "the DXT_POSIX module is announced but no block follows"));
	unlink(path);
}

/* Dumps put together (`cat D D`, or darshan-dxt-parser run over several
 * logs into one file): read as one job they doubled every segment; a
 * second dump header, or a second block of a (module, file, rank), is
 * refused, naming the first. */
static void t_concatenated(void **st)
{
	(void)st;
	const char *w = " X_POSIX       0  write        0               0             100      0.0010      0.0020\n";
	const char *r = " X_POSIX       0   read        0               0             100      0.0030      0.0040\n";
	char b[4096], path[512];
	struct rerr e;

	/* one dump after the other: the second's header line is line 15 */
	snprintf(b, sizeof(b), "%s%s%s%s%s", w, r, head, w, r);
	bad_case(b, 15, "a second dump header ('# darshan log version:', the first at line 1): the"
		 " file holds more than one darshan-dxt-parser dump (dumps put together?); replay"
		 " replays one job at a time: give each dump as its own trace");
	/* the first without its header line */
	write_dump(path, sizeof(path), "cat.dxt.txt", strchr(head, '\n') + 1, "");
	{
		FILE *f = fopen(path, "a");
		assert_non_null(f);
		fprintf(f, "%s%s%s%s%s", w, r, head, w, r);
		fclose(f);
	}
	assert_int_equal(load_rc(path, NULL, &e), -EINVAL);
	char want[1024];
	snprintf(want, sizeof(want), "%s:14: a dump header ('# darshan log version:') after DXT"
		 " data: the file holds more than one darshan-dxt-parser dump", path);
	if (!strstr(e.msg, want))
		fail_msg("expected '%s' in '%s'", want, e.msg);
	assert_int_equal(access(ops_path, F_OK), -1);
	/* the second without its header: its first block repeats the first's */
	snprintf(b, sizeof(b), "%s%s%s%s%s", w, r, strstr(head, "\n# DXT, file_id") + 1, w, r);
	bad_case(b, 15, "a second DXT_POSIX block of '/d/f' for rank 0 (the first at line 8):"
		 " darshan-dxt-parser prints one block per file and rank, so the file holds more"
		 " than one dump (dumps put together?); replay replays one job at a time: give"
		 " each dump as its own trace");
	/* refused with --skip-bad too: it is no bad line to leave out */
	{
		struct load_opts lo = { .skip_bad = true };
		struct load_result res;
		write_dump(path, sizeof(path), "cat.dxt.txt", head, b);
		char *args[] = { path };
		unlink(ops_path);
		assert_int_equal(trace_load(args, 1, &lo, ops_path, &res, &e), -EINVAL);
		assert_non_null(strstr(e.msg, ":15: a second DXT_POSIX block of '/d/f' for rank 0"));
		assert_int_equal(access(ops_path, F_OK), -1);
	}
	/* the same file and rank in the other module, another rank of the
	 * same file, another file of the same rank: one dump, accepted */
	snprintf(b, sizeof(b), "%s%s"
		 "# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 1, hostname: n1\n"
		 "# DXT, write_count: 0, read_count: 1\n%s"
		 "# DXT, file_id: 43, file_name: /d/g\n# DXT, rank: 0, hostname: n1\n"
		 "# DXT, write_count: 1, read_count: 0\n%s"
		 "\n# DXT_MPIIO module data\n\n"
		 "# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
		 "# DXT, write_count: 1, read_count: 0\n"
		 " X_MPIIO       0  write        0               0             100      0.0010      0.0020\n",
		 w, r, " X_POSIX       1   read        0               0             100      0.0030      0.0040\n",
		 " X_POSIX       0  write        0             100             100      0.0050      0.0060\n");
	write_dump(path, sizeof(path), "one.dxt.txt", head, b);
	if (load_rc(path, NULL, &e))
		fail_msg("one dump refused: %s", e.msg);
	unlink(path);
}

/* A last segment line without its newline: cut inside its end time
 * ("0.01" of "0.0140"), it parsed as a shorter duration.  The parser
 * ends every line with a newline, so it is a truncated dump. */
static void t_cut_last_line(void **st)
{
	(void)st;
	const char *w = " X_POSIX       0  write        0               0             100      0.0010      0.0020\n";
	char b[1024], path[512];
	struct rerr e;

	snprintf(b, sizeof(b), "%s X_POSIX       0   read        0               0             100      0.0030      0.01", w);
	bad_case(b, 14, "the dump ends inside this segment line: it has no newline, and"
		 " darshan-dxt-parser ends every line with one (truncated dump?; if the line is"
		 " whole, add the newline)");
	/* whole but for its newline: the same (nothing tells the two apart) */
	snprintf(b, sizeof(b), "%s X_POSIX       0   read        0               0             100      0.0030      0.0040", w);
	bad_case(b, 14, "the dump ends inside this segment line");
	/* with --skip-bad: the line is left out, and its block is short */
	{
		struct load_opts lo = { .skip_bad = true };
		struct load_result res;
		write_dump(path, sizeof(path), "cut.dxt.txt", head, b);
		char *args[] = { path };
		unlink(ops_path);
		assert_int_equal(trace_load(args, 1, &lo, ops_path, &res, &e), 0);
		assert_int_equal(res.bad_lines, 2);
		assert_non_null(strstr(res.first_bad, ":14: the dump ends inside this segment line"));
		unlink(ops_path);
	}
	/* the newline there: read */
	snprintf(b, sizeof(b), "%s X_POSIX       0   read        0               0             100      0.0030      0.0040\n", w);
	write_dump(path, sizeof(path), "whole.dxt.txt", head, b);
	assert_int_equal(load_rc(path, NULL, &e), 0);
	/* a last '#' line without one is no segment: read as before */
	write_dump(path, sizeof(path), "whole.dxt.txt", head, "");
	{
		FILE *f = fopen(path, "a");
		fprintf(f, "%s X_POSIX       0   read        0               0             100      0.0030      0.0040\n# end", w);
		fclose(f);
	}
	assert_int_equal(load_rc(path, NULL, &e), 0);
	unlink(path);
}

/* An offset of 16 or more digits glued to the segment number, as
 * darshan-dxt-parser's "%9d%16ld" prints it (audit C, F4): split after the
 * segment number the block expects; else the fields are counted. */
static void t_glued_offset(void **st)
{
	(void)st;
	const char *w = " X_POSIX       0  write        0               0             100      0.0010      0.0020\n";
	char b[2048], path[512];
	struct opstream s;

	/* read 0 at 1 PiB; then, with reads 0 and 1, read 1 at 10 PiB + 3 */
	snprintf(b, sizeof(b), "%s X_POSIX       0   read        01125899906842624            4096"
		 "      0.0030      0.0040\n", w);
	write_dump(path, sizeof(path), "glued.dxt.txt", head, b);
	load(path, NULL, &s);
	uint64_t n;
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(n, 4);                 /* open, write, read, close */
	assert_int_equal(o[2].kind, OP_READ);
	assert_int_equal(o[2].offset, 1125899906842624ull);
	assert_int_equal(o[2].len, 4096);
	opstream_close(&s);
	static const char head2[] =
		"# darshan log version: 3.21\n# nprocs: 2\n\n# DXT_POSIX module data\n\n"
		"# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
		"# DXT, write_count: 0, read_count: 2\n";
	write_dump(path, sizeof(path), "glued.dxt.txt", head2,
		   " X_POSIX       0   read        0               0             100      0.0010      0.0020\n"
		   " X_POSIX       0   read        111258999068426243            4096      0.0030      0.0040   [5] N/A\n");
	load(path, NULL, &s);
	o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(n, 4);
	assert_int_equal(o[2].offset, 11258999068426243ull);
	opstream_close(&s);
	/* MPIIO lines are glued the same way (6 fields otherwise mean no
	 * offset column: 3.1.x parsers) */
	static const char headm[] =
		"# darshan log version: 3.21\n# nprocs: 2\n\n# DXT_MPIIO module data\n\n"
		"# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
		"# DXT, write_count: 1, read_count: 0\n";
	write_dump(path, sizeof(path), "glued.dxt.txt", headm,
		   " X_MPIIO       0  write        02251799813685248            4096      0.0010      0.0020\n");
	load(path, "mpiio", &s);
	o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(n, 3);
	assert_int_equal(o[1].kind, OP_WRITE);
	assert_int_equal(o[1].offset, 2251799813685248ull);
	opstream_close(&s);
	unlink(path);
	/* glued to a segment number other than the one expected (read 0) */
	snprintf(b, sizeof(b), "%s X_POSIX       0   read        11125899906842624            4096"
		 "      0.0030      0.0040\n", w);
	bad_case(b, 14, "X_POSIX line with 6 fields where 7 were expected (rank, write|read, segment,"
		 " offset, length, start and end): an offset of 16 or more digits glued to a segment"
		 " number other than the one expected?");
	/* 15 digits glued: not what the parser prints (16 wide) */
	snprintf(b, sizeof(b), "%s X_POSIX       0   read        0112589990684262            4096"
		 "      0.0030      0.0040\n", w);
	bad_case(b, 14, "X_POSIX line with 6 fields where 7 were expected");
}

/* A rank the header's nprocs does not have: warned once, not refused
 * (audit C, F5; the binary reader refuses it as a corrupt log). */
static void t_rank_beyond_nprocs(void **st)
{
	(void)st;
	char path[512], wb[512];
	struct opstream s;

	write_dump(path, sizeof(path), "beyond.dxt.txt", head,
		   " X_POSIX       0  write        0               0             100      0.0010      0.0020\n"
		   " X_POSIX       0   read        0               0             100      0.0030      0.0040\n"
		   "# DXT, file_id: 43, file_name: /d/g\n# DXT, rank: 7, hostname: n2\n"
		   "# DXT, write_count: 1, read_count: 0\n"
		   " X_POSIX       7  write        0               0             100      0.0010      0.0020\n"
		   "# DXT, file_id: 44, file_name: /d/h\n# DXT, rank: 9, hostname: n2\n"
		   "# DXT, write_count: 1, read_count: 0\n"
		   " X_POSIX       9  write        0               0             100      0.0010      0.0020\n");
	load(path, NULL, &s);
	assert_int_equal(s.nranks, 3);
	char v[64];
	assert_non_null(opstream_info(&s, "dxt_rank_beyond_nprocs", v, sizeof(v)));
	assert_string_equal(v, "16 7");        /* the first only */
	assert_non_null(dxt_rank_warning(&s, wb, sizeof(wb)));
	assert_non_null(strstr(wb, ":16: rank 7 is not below the header's nprocs (2;"));
	opstream_close(&s);
	/* within nprocs: no key, no warning */
	write_dump(path, sizeof(path), "beyond.dxt.txt", head,
		   " X_POSIX       0  write        0               0             100      0.0010      0.0020\n"
		   " X_POSIX       0   read        0               0             100      0.0030      0.0040\n");
	load(path, NULL, &s);
	assert_null(opstream_info(&s, "dxt_rank_beyond_nprocs", v, sizeof(v)));
	assert_null(dxt_rank_warning(&s, wb, sizeof(wb)));
	opstream_close(&s);
	unlink(path);
}

/* A segment whose end (offset + length) is beyond 2^63 - 1 (audit C, F6);
 * one that ends exactly there is read. */
static void t_offset_overflow(void **st)
{
	(void)st;
	char path[512];
	struct opstream s;

	bad_case(" X_POSIX       0  write        0 9223372036854775798            4096      0.0010      0.0020\n",
		 13, "offset 9223372036854775798 + length 4096 is beyond the largest file offset (2^63 - 1)");
	/* glued (19 digits): split, then refused the same way */
	bad_case(" X_POSIX       0  write        09223372036854775798            4096      0.0010      0.0020\n",
		 13, "offset 9223372036854775798 + length 4096 is beyond");
	write_dump(path, sizeof(path), "edge.dxt.txt", head,
		   " X_POSIX       0  write        0 9223372036854771711            4096      0.0010      0.0020\n"
		   " X_POSIX       0   read        0               0             100      0.0030      0.0040\n");
	load(path, NULL, &s);
	uint64_t n;
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(o[1].offset + o[1].len, 9223372036854775807ull);
	opstream_close(&s);
	unlink(path);
}

/* A segment longer than one Linux call can move (0x7ffff000 bytes): every
 * byte replayed, as consecutive ops of at most that length, in both
 * layers (audit C, 1: a 3 GiB MPI-IO write moved 2 GiB - 4 KiB) */
static const char both_head[] = POSIX_HEAD;

static void t_longer_than_one_call(void **st)
{
	(void)st;
	char path[512], v[64];
	struct opstream s;
	struct counts c;
	uint64_t n;

	/* POSIX: 3 GiB at 4096, from 0.0010 to 0.0040 s (3,000,000 ns) */
	write_dump(path, sizeof(path), "long.dxt.txt", head,
		   " X_POSIX       0  write        0            4096      3221225472      0.0010      0.0040\n"
		   " X_POSIX       0   read        0               0             100      0.0050      0.0060\n");
	load(path, NULL, &s);
	count(&s, &c);
	assert_int_equal(c.wbytes, 3221225472ull);
	assert_int_equal(c.writes, 2);
	assert_int_equal(c.reads, 1);
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(n, 5);                 /* open, 2 writes, read, close */
	assert_int_equal(o[1].kind, OP_WRITE);
	assert_int_equal(o[1].offset, 4096);
	assert_int_equal(o[1].len, 0x7ffff000);
	assert_int_equal(o[1].result, 0x7ffff000);
	assert_int_equal(o[2].kind, OP_WRITE);
	assert_int_equal(o[2].offset, 4096 + 0x7ffff000ull);
	assert_int_equal(o[2].len, 3221225472ull - 0x7ffff000);
	assert_int_equal(o[2].result, 3221225472ull - 0x7ffff000);
	assert_int_equal(o[1].line, 13);
	assert_int_equal(o[2].line, 13);
	assert_int_equal(o[1].t_ns, o[2].t_ns);  /* the segment's start, both */
	assert_int_equal(o[1].dur_ns + o[2].dur_ns, 3000000);
	assert_true(o[1].dur_ns > o[2].dur_ns); /* in proportion to their lengths */
	assert_int_equal(o[3].kind, OP_READ);
	assert_int_equal(o[3].len, 100);
	assert_int_equal(info_u64(&s, "dxt_longer_than_one_call"), 1);
	assert_int_equal(info_u64(&s, "dxt_longer_than_one_call_ops"), 2);
	opstream_close(&s);

	/* MPIIO: 5 GiB (three ops) and a 0x7ffff000 one (one op, not split) */
	char body[2048];
	snprintf(body, sizeof(body), "%s"
		 "# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
		 "# DXT, write_count: 1, read_count: 0\n"
		 " X_POSIX       0  write        0               0             100      0.0010      0.0020\n"
		 "\n# ***************************************************\n"
		 "# DXT_MPIIO module data\n"
		 "# ***************************************************\n\n"
		 "# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
		 "# DXT, write_count: 2, read_count: 0\n"
		 " X_MPIIO       0  write        0             512      5368709120      0.0010      0.0020\n"
		 " X_MPIIO       0  write        1               0      2147479552      0.0030      0.0040\n",
		 both_head);
	write_dump(path, sizeof(path), "long.dxt.txt", "", body);
	load(path, "mpiio", &s);
	count(&s, &c);
	assert_int_equal(c.wbytes, 5368709120ull + 2147479552ull);
	assert_int_equal(c.writes, 4);
	o = opstream_rank_ops(&s, 0, &n);
	uint64_t off = 512, sum = 0;
	for (int i = 1; i <= 3; i++) {
		assert_int_equal(o[i].offset, off);
		assert_true(o[i].len <= OP_MAX_DATA_LEN);
		assert_int_equal(o[i].result, (int64_t)o[i].len);
		off += o[i].len;
		sum += o[i].dur_ns;
	}
	assert_int_equal(off, 512 + 5368709120ull);
	assert_int_equal(o[3].len, 5368709120ull - 2ull * 0x7ffff000);
	assert_int_equal(sum, 1000000);
	assert_int_equal(o[4].len, 2147479552);
	assert_int_equal(info_u64(&s, "dxt_longer_than_one_call"), 1);
	assert_int_equal(info_u64(&s, "dxt_longer_than_one_call_ops"), 3);
	assert_non_null(opstream_info(&s, "dxt_layer", v, sizeof(v)));
	assert_string_equal(v, "mpiio");
	opstream_close(&s);
	unlink(path);
	/* beyond 16 TiB: refused, not made into millions of ops */
	bad_case(" X_POSIX       0  write        0               0  17592186044417      0.0010      0.0020\n",
		 13, "length 17592186044417 is beyond 16 TiB");
}

/* Files with segments only in the layer not replayed: counted, their
 * bytes and the first one named, and warned about (audit C, 2) */
static void t_other_layer_files(void **st)
{
	(void)st;
	char path[512], body[4096], wb[512];
	struct opstream s;

	snprintf(body, sizeof(body), "%s"
		 "# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
		 "# DXT, write_count: 1, read_count: 0\n"
		 " X_POSIX       0  write        0               0             100      0.0010      0.0020\n"
		 "# DXT, file_id: 43, file_name: /d/p\n# DXT, rank: 0, hostname: n1\n"
		 "# DXT, write_count: 1, read_count: 1\n"
		 " X_POSIX       0  write        0               0             200      0.0010      0.0020\n"
		 " X_POSIX       0   read        0               0              80      0.0030      0.0040\n"
		 "\n# ***************************************************\n"
		 "# DXT_MPIIO module data\n"
		 "# ***************************************************\n\n"
		 "# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
		 "# DXT, write_count: 1, read_count: 0\n"
		 " X_MPIIO       0  write        0               0             100      0.0010      0.0020\n"
		 "# DXT, file_id: 44, file_name: /d/m\n# DXT, rank: 1, hostname: n1\n"
		 "# DXT, write_count: 1, read_count: 0\n"
		 " X_MPIIO       1  write        0            4096            4096      0.0010      0.0020\n"
		 "# DXT, file_id: 45, file_name: /d/m2\n# DXT, rank: 1, hostname: n1\n"
		 "# DXT, write_count: 1, read_count: 0\n"
		 " X_MPIIO       1  write        0               0              10      0.0010      0.0020\n",
		 both_head);
	write_dump(path, sizeof(path), "layers.dxt.txt", "", body);
	/* posix: /d/m and /d/m2 (MPIIO only) are not replayed */
	load(path, NULL, &s);
	char v[64];
	assert_int_equal(info_u64(&s, "dxt_files_other_layer_only"), 2);
	assert_int_equal(info_u64(&s, "dxt_files_other_layer_only_bytes"), 4106);
	assert_string_equal(opstream_info(&s, "dxt_files_other_layer_only_first", v, sizeof(v)), "/d/m");
	assert_int_equal(info_u64(&s, "dxt_ranks_other_layer_only"), 1);
	assert_non_null(dxt_layer_warning(&s, wb, sizeof(wb)));
	assert_non_null(strstr(wb, "2 files have segments only in the DXT_MPIIO layer, none in the"
				   " replayed DXT_POSIX layer (4106 bytes there; the first: /d/m):"
				   " they are not replayed; use --dxt-layer mpiio"));
	opstream_close(&s);
	/* mpiio: /d/p (POSIX only) is not */
	load(path, "mpiio", &s);
	assert_int_equal(info_u64(&s, "dxt_files_other_layer_only"), 1);
	assert_int_equal(info_u64(&s, "dxt_files_other_layer_only_bytes"), 280);
	assert_string_equal(opstream_info(&s, "dxt_files_other_layer_only_first", v, sizeof(v)), "/d/p");
	assert_non_null(dxt_layer_warning(&s, wb, sizeof(wb)));
	assert_non_null(strstr(wb, "1 file has segments only in the DXT_POSIX layer, none in the"
				   " replayed DXT_MPIIO layer (280 bytes there; /d/p): it is not"
				   " replayed; use --dxt-layer posix"));
	opstream_close(&s);
	unlink(path);
	/* every file in the layer: 0, no warning */
	load(FIX "ior_hdf5_example.dxt.txt", "mpiio", &s);
	assert_int_equal(info_u64(&s, "dxt_files_other_layer_only"), 0);
	assert_null(opstream_info(&s, "dxt_files_other_layer_only_first", v, sizeof(v)));
	assert_null(dxt_layer_warning(&s, wb, sizeof(wb)));
	opstream_close(&s);
	/* the real case: rank 0's romio-hints, 80 bytes, POSIX only */
	load(FIX "jlbez_8a_benchmark_write_parallel.dxt.txt.gz", "mpiio", &s);
	assert_int_equal(info_u64(&s, "dxt_files_other_layer_only"), 1);
	assert_int_equal(info_u64(&s, "dxt_files_other_layer_only_bytes"), 80);
	opstream_close(&s);
}

/* Records without a name ("(null)" in the dump): a file per record id,
 * never one file for all (audit C, 3) */
/* A file name ends where the line does, blanks and all (darshan-dxt-parser
 * prints it so); other lines' trailing blanks and a CRLF's \r are none of
 * them. */
static void t_name_trailing_blank(void **st)
{
	(void)st;
	char path[512];
	struct opstream s;

	write_dump(path, sizeof(path), "blank.dxt.txt", both_head,
		   "# DXT, file_id: 7, file_name: /d/trail \r\n# DXT, rank: 0, hostname: n1  \r\n"
		   "# DXT, write_count: 1, read_count: 0\t\r\n"
		   " X_POSIX       0  write        0               0             100      0.0010      0.0020  \r\n"
		   "# DXT, file_id: 8, file_name: /d/plain\r\n# DXT, rank: 0, hostname: n1\r\n"
		   "# DXT, write_count: 1, read_count: 0\r\n"
		   " X_POSIX       0  write        0               0              50      0.0010      0.0020\r\n");
	load(path, NULL, &s);
	uint64_t n, seen = 0;
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	for (uint64_t i = 0; i < n; i++) {
		if (o[i].kind != OP_WRITE)
			continue;
		const char *p = opstream_path(&s, o[i].file);
		if (o[i].len == 100)
			assert_string_equal(p, "/d/trail ");
		else
			assert_string_equal(p, "/d/plain");
		seen++;
	}
	assert_int_equal(seen, 2);
	opstream_close(&s);
	unlink(path);
}

static void t_unnamed_records(void **st)
{
	(void)st;
	char path[512], wb[512], v[64];
	struct opstream s;
	struct counts c;

	write_dump(path, sizeof(path), "null.dxt.txt", both_head,
		   "# DXT, file_id: 1001, file_name: (null)\n# DXT, rank: 0, hostname: n1\n"
		   "# DXT, write_count: 1, read_count: 0\n"
		   " X_POSIX       0  write        0               0             100      0.0010      0.0020\n"
		   "# DXT, file_id: 1000, file_name: (null)\n# DXT, rank: 0, hostname: n1\n"
		   "# DXT, write_count: 1, read_count: 0\n"
		   " X_POSIX       0  write        0               0             200      0.0010      0.0020\n"
		   "# DXT, file_id: 1001, file_name: (null)\n# DXT, rank: 1, hostname: n1\n"
		   "# DXT, write_count: 1, read_count: 0\n"
		   " X_POSIX       1  write        0             100             100      0.0010      0.0020\n");
	load(path, NULL, &s);
	count(&s, &c);
	assert_int_equal(c.opens, 3);           /* rank 0: two files; rank 1: one */
	assert_int_equal(c.wbytes, 400);
	assert_int_equal(info_u64(&s, "dxt_unnamed_records"), 2);
	uint64_t n;
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(n, 6);
	assert_int_equal(o[1].kind, OP_WRITE);
	assert_int_equal(o[3].kind, OP_WRITE);
	assert_int_not_equal(o[1].file, o[3].file);
	uint64_t b1001 = 0, b1000 = 0;
	for (uint32_t r = 0; r < s.nranks; r++) {
		o = opstream_rank_ops(&s, r, &n);
		for (uint64_t i = 0; i < n; i++) {
			if (o[i].kind != OP_WRITE)
				continue;
			const char *p = opstream_path(&s, o[i].file);
			if (strstr(p, "darshan-record-1001"))
				b1001 += o[i].len;
			else if (strstr(p, "darshan-record-1000"))
				b1000 += o[i].len;
			else
				fail_msg("write to %s", p);
		}
	}
	assert_int_equal(b1001, 200);
	assert_int_equal(b1000, 200);
	assert_non_null(dxt_unnamed_warning(&s, wb, sizeof(wb)));
	assert_non_null(strstr(wb, "2 Darshan records have no file name"));
	opstream_close(&s);
	unlink(path);
	/* named files: no key, no warning */
	load(FIX "ior_hdf5_example.dxt.txt", NULL, &s);
	assert_null(opstream_info(&s, "dxt_unnamed_records", v, sizeof(v)));
	assert_null(dxt_unnamed_warning(&s, wb, sizeof(wb)));
	opstream_close(&s);
}

/* Segment times, "%.4f" as the parsers print them (read at once) and any
 * other spelling (the long way): the ticks of 0.1 ms each one gives. */
static void t_times(void **st)
{
	(void)st;
	static const struct { const char *end; uint64_t ticks; } c[] = {
		{ "0.0001", 1 }, { "12.3456", 123456 }, { "99999.9999", 999999999 },
		{ "123456.7890", 1234567890 }, { "1.23456", 12345 }, { "1.2", 12000 },
		{ "429496.7295", 4294967295ull },
	};
	size_t nc = sizeof(c) / sizeof(c[0]);
	char path[512], line[200];
	struct opstream s;

	snprintf(path, sizeof(path), "%s/times.dxt.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "# darshan log version: 3.21\n# nprocs: 1\n\n# DXT_POSIX module data\n\n"
		"# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
		"# DXT, write_count: %zu, read_count: 0\n", nc);
	for (size_t k = 0; k < nc; k++) {
		snprintf(line, sizeof(line), " X_POSIX       0  write %8zu %15zu %15d      0.0000 %11s\n",
			 k, k * 100, 100, c[k].end);
		fputs(line, f);
	}
	fclose(f);
	load(path, NULL, &s);
	assert_int_equal(s.nops, nc + 2);               /* open, the writes, close */
	for (size_t k = 0; k < nc; k++) {
		assert_int_equal(s.ops[k + 1].kind, OP_WRITE);
		assert_int_equal(s.ops[k + 1].offset, k * 100);
		assert_true(s.ops[k + 1].dur_ns == c[k].ticks * 100000ull);
	}
	opstream_close(&s);
	unlink(path);
}

/* Random blanks or tabs, 1 to 3 of them, into b at *n. */
static void seps(char *b, size_t *n, unsigned *seed)
{
	for (int k = 1 + rand_r(seed) % 3; k > 0; k--)
		b[(*n)++] = rand_r(seed) % 3 ? ' ' : '\t';
}

/* The decimal digits of v, zero-padded to at least w of them. */
static size_t digits(char *b, uint64_t v, int w)
{
	return (size_t)sprintf(b, "%0*llu", w, (unsigned long long)v);
}

/* Op k + 1 of s (after the open): segment k, a write or a read at off of
 * len bytes, starting `start` ticks after segment 0 and lasting `dur`. */
static void expect_seg(const struct opstream *s, int k, bool w, uint64_t off, uint64_t len,
		       uint64_t start, uint64_t dur)
{
	const struct op *o = &s->ops[k + 1];
	if (o->kind != (w ? OP_WRITE : OP_READ) || o->offset != off || o->len != len ||
	    o->dur_ns != dur * 100000ull || o->t_ns - s->ops[1].t_ns != start * 100000ull)
		fail_msg("line %d: got offset %llu length %llu start %llu dur %llu", k,
			 (unsigned long long)o->offset, (unsigned long long)o->len,
			 (unsigned long long)(o->t_ns - s->ops[1].t_ns), (unsigned long long)o->dur_ns);
}

/*
 * Segment lines of every shape read the same, whether dxt.c's fast path
 * (the canonical "X_POSIX  R  write  S  OFF  LEN  S.FFFF  S.FFFF  [N]...
 * N/A|TID" with 1-15 digit numbers, 1-5 digits of seconds) takes them or
 * leaves them to the general reader: tabs, CRs, long gaps, 16+ digit
 * numbers, 4-6 digits of seconds, more than 4 decimals, signs, OSTs as
 * "[  5]", lines past 128 and 240 bytes, a thread id of 25 digits.  Then
 * near-canonical lines the fast path must refuse, with the general
 * reader's messages.
 */
static void t_fast_path(void **st)
{
	(void)st;
	static const struct {
		const char *fmt;        /* %d: the segment number */
		uint64_t off, len, t0, t1;
	} g[] = {
		{ " X_POSIX       0  write        %d               0         1048576      0.0100      0.0116   [100]   N/A",
		  0, 1048576, 100, 116 },
		{ "\tX_POSIX\t0\twrite\t%d\t4096\t512\t0.0200\t0.0300", 4096, 512, 200, 300 },
		{ "X_POSIX 0 write %d 1 2 0.0300 0.0301", 1, 2, 300, 301 },
		{ " X_POSIX 0 write %d 123456789012345 7 0.0400 0.0401 [1] [2] [3]", 123456789012345ull, 7, 400, 401 },
		{ " X_POSIX 0 write %d 1234567890123456 12345678 0.0500 0.0501 140737353971456",
		  1234567890123456ull, 12345678, 500, 501 },
		{ " X_POSIX 0 write %d 12345678901234567 123456789 0.0600 0.0601 1407373539714561407373539",
		  12345678901234567ull, 123456789, 600, 601 },
		{ " X_POSIX 0 write %d 0000000000000042 00042 0.0700 0.0701  N/A\r", 42, 42, 700, 701 },
		{ " X_POSIX                                        0 write %d                                        9 "
		  "                 10 0.0800                                  0.0801", 9, 10, 800, 801 },
		{ " X_POSIX 0 write %d 11 12 0.0900 0.0901 [  5] [ 12]", 11, 12, 900, 901 },
		{ " X_POSIX 0 write %d 13 14 0.1000 0.10010 [1] [2] [3] [4] [5] [6] [7] [8] [9] [10] [11] [12] [13] "
		  "[14] [15] [16] [17] [18] [19] [20] [21] [22] [23] [24] [25] [26] [27] [28] [29] [30] [31] [32] "
		  "[33] [34] [35] [36] [37] [38] [39] [40] N/A", 13, 14, 1000, 1001 },
		{ " X_POSIX 0 write %d 15 16 0.1100 0.1101N/A", 15, 16, 1100, 1101 },
		{ " X_POSIX -0 write %d 17 18 0.1200 0.1201", 17, 18, 1200, 1201 },
		{ " X_POSIX 0 write %d 19 20 0.13009 0.1301", 19, 20, 1300, 1301 },
		{ " X_POSIX 0 write %d 21 22 0.1400 0.1401 [1234567] [12345678] 7", 21, 22, 1400, 1401 },
		{ " X_POSIX 0 write %d 23 24 0.1500 0.1501 [9]", 23, 24, 1500, 1501 },
		{ " X_POSIX 0 write %d 25 26 1234.5678 1234.5679", 25, 26, 12345678, 12345679 },
		{ " X_POSIX 0 write %d 27 28 12345.6789 12345.6790   N/A", 27, 28, 123456789, 123456790 },
		{ " X_POSIX 0 write %d 29 30 100000.0000 429496.7295", 29, 30, 1000000000, 4294967295u },
	};
	enum { N = sizeof(g) / sizeof(g[0]) };
	char path[512];
	struct opstream s;

	snprintf(path, sizeof(path), "%s/fast.dxt.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "# darshan log version: 3.21\n# nprocs: 1\n\n# DXT_POSIX module data\n\n"
		"# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
		"# DXT, write_count: %d, read_count: 0\n", (int)N);
	for (int k = 0; k < N; k++) {
		const char *d = strstr(g[k].fmt, "%d");
		fprintf(f, "%.*s%d%s\n", (int)(d - g[k].fmt), g[k].fmt, k, d + 2);
	}
	fclose(f);
	load(path, NULL, &s);
	assert_int_equal(s.nops, N + 2);
	for (int k = 0; k < N; k++)
		expect_seg(&s, k, true, g[k].off, g[k].len, g[k].t0 - g[0].t0, g[k].t1 - g[k].t0);
	opstream_close(&s);
	unlink(path);

	/* near the canonical shape: left to the general reader, its messages */
#define W " X_POSIX       0  write        0               0             100      0.0010      0.0020"
	bad_case(W "   [5\n", 13, "expected an OST index as '[N]'");
	bad_case(W "   [5]x\n", 13, "unexpected 'x' after the end time");
	bad_case(W "   [12345678901234567890]\n", 13, "expected an OST index as '[N]'");
	bad_case(W "   N/A N/A\n", 13, "unexpected 'N/A' after the end time");
	bad_case(W "   12x\n", 13, "unexpected 'x' after the end time");
	bad_case(W "   [5] N/A [6]\n", 13, "unexpected '[6]' after the end time");
	bad_case(W "\r   [5]\n", 13, "unexpected '[5]' after the end time");
	bad_case(W "\t[3]\t[4]\t[\n", 13, "expected an OST index as '[N]'");
#undef W
	bad_case(" X_POSIX       0  write        0               0             100      0.0010\r     0.0020\n",
		 13, "X_POSIX line with 6 fields where 7 were expected");
	bad_case(" X_POSIX       0  writex       0               0             100      0.0010      0.0020\n",
		 13, "expected 'write' or 'read' after the rank");
	bad_case(" X_POSIX       0  write        0               0          -00100      0.0010      0.0020\n",
		 13, "negative length -100");
	bad_case(" X_POSIX       0  write        0               0             100      0.0010.5    0.0020\n",
		 13, "expected start and end times in seconds (S.FFFF)");
	bad_case(" X_POSIX       0  write        0               0             100      0.0010 429496.7296\n",
		 13, "time beyond 429496 s");
	bad_case(" X_POSIX      +0  write        0               0             100      0.0010      0.0020\n",
		 13, "expected a rank after X_POSIX");
	bad_case(" X_POSIX       0  write      1.5               0             100      0.0010      0.0020\n",
		 13, "expected a segment number");
	bad_case(" X_POSIX       0  write        0               0             100      0.\n",
		 13, "X_POSIX line with 6 fields where 7 were expected");
}

/* A number of n digits (n <= 19) whose value is below 10^n: random, zeros
 * in front at times. */
static uint64_t rnd_digits(unsigned *seed, int n)
{
	uint64_t v = (uint64_t)rand_r(seed) << 42 ^ (uint64_t)rand_r(seed) << 21 ^ (uint64_t)rand_r(seed);

	return v % scan_pow10[n];
}

/*
 * dxt.c's column path (seg_cols) keeps the columns of the last segment
 * line it read and reads the next line against them: lines in columns of
 * every width (right-aligned in spans of 1 to 24 bytes), the columns
 * changing every few lines, fields across 16- and 64-byte boundaries,
 * numbers of 1 to 15 digits (16 and more: the other paths), seconds of 1
 * to 6 digits, rank and segment wider than 8 digits, write and read,
 * lines of 63, 64, 127 and 128 bytes, tails of 0 to 70 bytes (16 and 17,
 * 64 and 65), the same tail again with other digits, a tab or a line that
 * fits no columns in between: each line reads as written.
 */
static void t_columns(void **st)
{
	(void)st;
	enum { N = 4000 };
	static uint64_t off[N], len[N], t0[N], t1[N];
	static bool isw[N];
	char path[512], *text = malloc((size_t)N * 300 + 1024), line[400];
	unsigned seed = 4242;
	size_t n = 0;
	int w[8] = { 8, 8, 7, 9, 16, 16, 12, 12 }, nw = 0, nr = 0;
	struct opstream s;

	assert_non_null(text);
	/* writes first, then reads: the text's order */
	for (int k = 0; k < N; k++)
		isw[k] = k < N / 2;
	for (int k = 0; k < N; k++) {
		if (k % 37 == 0) {      /* new columns, or back to darshan's */
			for (int i = 0; i < 8; i++)
				w[i] = rand_r(&seed) % 3 ? (int)(1 + rand_r(&seed) % 24) : (int[]){ 8, 8, 7, 9, 16, 16, 12, 12 }[i];
		}
		int ow = 1 + rand_r(&seed) % (rand_r(&seed) % 4 ? 10 : 16);
		int lw = 1 + rand_r(&seed) % (rand_r(&seed) % 4 ? 9 : 16);
		off[k] = rnd_digits(&seed, ow);
		len[k] = rnd_digits(&seed, lw < 9 ? lw : 9);   /* an op's length: 31 bits */
		/* start times rise with k: the order of the ops is the text's */
		t0[k] = (uint64_t)k * 200000 + (uint64_t)rand_r(&seed) % 2000;
		if (k >= N - 100)       /* 6 digits of seconds */
			t0[k] = 1000000000 + (uint64_t)k * 1000;
		if (k % 5 == 0)
			t0[k] = (uint64_t)k * 25 + (uint64_t)rand_r(&seed) % 20;   /* short seconds */
		if (k && t0[k] <= t0[k - 1])
			t0[k] = t0[k - 1] + 1;
		t1[k] = t0[k] + (uint64_t)rand_r(&seed) % (rand_r(&seed) % 2 ? 100 : 20000000);
		int seg = isw[k] ? nw++ : nr++;
		size_t l = 0;
		if (rand_r(&seed) % 8 == 0)
			line[l++] = ' ';
		l += (size_t)snprintf(line + l, sizeof(line) - l, "%*s", w[0] - 1, "X_POSIX");
		/* rank 0 and the segment, zeros in front at times */
		int rz = rand_r(&seed) % 6 ? 1 : 1 + rand_r(&seed) % 15;
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %*s", w[1] - 1 > rz ? w[1] - 1 : rz, "");
		l -= (size_t)rz;
		for (int i = 0; i < rz; i++)
			line[l++] = '0';
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %*s", w[2] - 1, isw[k] ? "write" : "read");
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %*d", w[3] - 1, seg);
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %*llu", w[4] - 1, (unsigned long long)off[k]);
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %*s%0*llu", w[5] - 1 > lw ? w[5] - 1 - lw : 0, "", lw,
				      (unsigned long long)len[k]);
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %*llu.%04llu", w[6] > 6 ? w[6] - 6 : 1, (unsigned long long)(t0[k] / 10000),
				     (unsigned long long)(t0[k] % 10000));
		l += (size_t)snprintf(line + l, sizeof(line) - l, " %*llu.%04llu", w[7] > 6 ? w[7] - 6 : 1, (unsigned long long)(t1[k] / 10000),
				     (unsigned long long)(t1[k] % 10000));
		switch (rand_r(&seed) % 12) {
		case 0: case 1: case 2:
			break;
		case 3: case 4: case 5:
			l += (size_t)snprintf(line + l, sizeof(line) - l, "   [%d]   N/A", 100 + k / 300);
			break;
		case 6:
			l += (size_t)snprintf(line + l, sizeof(line) - l, "   [%d]   N/A", rand_r(&seed) % 1000);
			break;
		case 7:
			for (int i = rand_r(&seed) % 12; i >= 0; i--)
				l += (size_t)snprintf(line + l, sizeof(line) - l, "%*s[%d]", 1 + rand_r(&seed) % 3, "",
						     rand_r(&seed) % 10000000);
			break;
		case 8:
			l += (size_t)snprintf(line + l, sizeof(line) - l, " %d", rand_r(&seed));
			break;
		case 9: {               /* the line exactly 63, 64, 127 or 128 bytes */
			size_t want = (size_t)(int[]){ 63, 64, 127, 128, 80, 81, 96, 97 }[rand_r(&seed) % 8];
			size_t lead = line[0] == ' ' ? 1 : 0;
			if (l - lead + 2 <= want) {
				line[l++] = ' ';
				while (l - lead < want)
					line[l++] = (char)('0' + rand_r(&seed) % 10);
			}
			break;
		}
		case 10:                /* a tail of 16 or 17 bytes, 64 or 65 */
			l += (size_t)snprintf(line + l, sizeof(line) - l, "%s",
					     (const char *[]){ "   [12]  [3] N/A", "    [12]  [3] N/A",
							       "  [1] [2] [3] [4] [5] [6] [7] [8] [9] [10] [11] [1] [2] [3] N/A",
							       "  [1] [2] [3] [4] [5] [6] [7] [8] [9] [10] [11] [1] [2] [3]  N/A" }
						     [rand_r(&seed) % 4]);
			break;
		default:                /* a tab: no columns */
			l += (size_t)snprintf(line + l, sizeof(line) - l, "\t[7]");
			break;
		}
		if (rand_r(&seed) % 10 == 0)
			l += (size_t)snprintf(line + l, sizeof(line) - l, "  ");
		line[l++] = '\n';
		memcpy(text + n, line, l);
		n += l;
	}
	snprintf(path, sizeof(path), "%s/columns.dxt.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "# darshan log version: 3.21\n# nprocs: 1\n\n# DXT_POSIX module data\n\n"
		"# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
		"# DXT, write_count: %d, read_count: %d\n", nw, nr);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
	free(text);
	load(path, NULL, &s);
	assert_int_equal(s.nops, N + 2);
	for (int k = 0; k < N; k++)
		expect_seg(&s, k, isw[k], off[k], len[k], t0[k] - t0[0], t1[k] - t0[k]);
	opstream_close(&s);
	unlink(path);

	/* after a line that sets the columns, lines that fit them but for a
	 * byte: the general reader's messages */
#define C " X_POSIX       0  write        0               0             100      0.0010      0.0020   [5]   N/A\n"
	bad_case(C " X_POSIX       0   read        0               0             1x0      0.0030      0.0040   [5]   N/A\n",
		 14, "expected a length");
	bad_case(C " X_POSIX       0   rEad        0               0             100      0.0030      0.0040   [5]   N/A\n",
		 14, "expected 'write' or 'read' after the rank");
	bad_case(C " X_POSIX       0   read        0               0             100      0.0030      0.0040   [5]   N/B\n",
		 14, "unexpected 'N/B' after the end time");
	bad_case(C " X_POSIX       0   read        0               0             100      0.0030      0.0040   [5    N/A\n",
		 14, "expected an OST index as '[N]'");
	bad_case(C " X_POSIX       1   read        0               0             100      0.0030      0.0040   [5]   N/A\n",
		 14, "segment of rank 1 in the block of rank 0");
	bad_case(C " X_POSIX       0   read        0               0             100      0.0030      0.0.40   [5]   N/A\n",
		 14, "unexpected '.40   [5]   N/A' after the end time");
	bad_case(C " X_POSIX       0   read        0               0            -100      0.0030      0.0040   [5]   N/A\n",
		 14, "negative length -100");
	bad_case(C " X_POSIX       0   read        0      1 0                    100      0.0030      0.0040   [5]   N/A\n",
		 14, "expected start and end times in seconds (S.FFFF) as the last fields");
	bad_case(C " X_POSIX       0   read        0               0             100      0.0030      0.0040   [5]   N/A\r\n"
		 " X_POSIX       0   read        1               0             100      0.0030      0.0040   [5]x  N/A\n",
		 15, "unexpected 'x  N/A' after the end time");
#undef C
}

/*
 * Segment fields of every width (1 to 20 digits, zeros in front), between
 * blanks and tabs, read right: offsets, lengths, times (1 to 5 digits of
 * seconds); then each integer or time field of a line with one of its
 * digits replaced by another byte: refused at that line, naming the field.
 */
static void t_field_widths(void **st)
{
	(void)st;
	enum { N = 400 };
	static uint64_t off[N], len[N], t0[N], t1[N];
	char path[512], *text = malloc(N * 200 + 1024);
	unsigned seed = 77;
	size_t n = 0;
	struct opstream s;

	assert_non_null(text);
	snprintf(path, sizeof(path), "%s/widths.dxt.txt", dir);
	n += (size_t)sprintf(text, "# darshan log version: 3.21\n# nprocs: 1\n\n# DXT_POSIX module data\n\n"
			     "# DXT, file_id: 42, file_name: /d/f\n# DXT, rank: 0, hostname: n1\n"
			     "# DXT, write_count: %d, read_count: 0\n", N);
	for (int k = 0; k < N; k++) {
		int wo = 1 + rand_r(&seed) % 18;
		off[k] = ((uint64_t)rand_r(&seed) << 31 | (uint64_t)rand_r(&seed)) % scan_pow10[wo];
		len[k] = (uint64_t)rand_r(&seed) % scan_pow10[1 + rand_r(&seed) % 9];
		t0[k] = (uint64_t)k * 2500 + (uint64_t)rand_r(&seed) % 2000;   /* rising: the order kept */
		t1[k] = t0[k] + (uint64_t)rand_r(&seed) % 500000;
		n += (size_t)sprintf(text + n, " X_POSIX");
		seps(text, &n, &seed);
		n += digits(text + n, 0, 1 + rand_r(&seed) % 20);
		seps(text, &n, &seed);
		n += (size_t)sprintf(text + n, "write");
		seps(text, &n, &seed);
		n += digits(text + n, (uint64_t)k, 1 + rand_r(&seed) % 20);
		seps(text, &n, &seed);
		n += digits(text + n, off[k], rand_r(&seed) % 4 ? 1 : 1 + rand_r(&seed) % 20);
		seps(text, &n, &seed);
		n += digits(text + n, len[k], rand_r(&seed) % 4 ? 1 : 1 + rand_r(&seed) % 20);
		seps(text, &n, &seed);
		n += (size_t)sprintf(text + n, "%llu.%04llu", (unsigned long long)(t0[k] / 10000),
				     (unsigned long long)(t0[k] % 10000));
		seps(text, &n, &seed);
		n += (size_t)sprintf(text + n, "%llu.%04llu\n", (unsigned long long)(t1[k] / 10000),
				     (unsigned long long)(t1[k] % 10000));
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
	load(path, NULL, &s);
	assert_int_equal(s.nops, N + 2);
	for (int k = 0; k < N; k++) {
		const struct op *o = &s.ops[k + 1];
		if (o->kind != OP_WRITE || o->offset != off[k] || o->len != len[k] ||
		    o->dur_ns != (t1[k] - t0[k]) * 100000ull)
			fail_msg("segment %d: got offset %llu length %llu dur %llu, want %llu %llu %llu",
				 k, (unsigned long long)o->offset, (unsigned long long)o->len,
				 (unsigned long long)o->dur_ns, (unsigned long long)off[k],
				 (unsigned long long)len[k], (unsigned long long)((t1[k] - t0[k]) * 100000));
	}
	opstream_close(&s);
	unlink(path);

	/* one byte of a field replaced: rank, segment, offset, length, start, end */
	static const char *const want[] = { "expected a rank after X_POSIX", "expected a segment number",
					    "expected an offset", "expected a length",
					    "expected start and end times", "" };
	static const char bad[] = "x:/!aZ";
	for (int it = 0; it < 600; it++) {
		char fld[6][40], line[300], *w;
		int fi = it % 6, wd = 1 + rand_r(&seed) % 20;
		digits(fld[0], 0, wd);
		digits(fld[1], 0, 1 + rand_r(&seed) % 20);
		digits(fld[2], (uint64_t)rand_r(&seed), 1 + rand_r(&seed) % 20);
		digits(fld[3], (uint64_t)rand_r(&seed) % 1000, 1 + rand_r(&seed) % 20);
		sprintf(fld[4], "%d.%04d", rand_r(&seed) % 1000, rand_r(&seed) % 10000);
		sprintf(fld[5], "%d.%04d", 1000 + rand_r(&seed) % 1000, rand_r(&seed) % 10000);
		w = fld[fi];
		size_t wl = strlen(w), at;
		do
			at = (size_t)rand_r(&seed) % wl;
		while (w[at] == '.');
		w[at] = bad[rand_r(&seed) % (sizeof(bad) - 1)];
		snprintf(line, sizeof(line), " X_POSIX %s%swrite\t%s %s  %s\t%s %s\n", fld[0],
			 rand_r(&seed) % 2 ? "\t" : "  ", fld[1], fld[2], fld[3], fld[4], fld[5]);
		bad_case(line, 13, want[fi]);
	}
	free(text);
}

/* Broken compressed input: gzip's own complaint is the error. */
static void t_gzip_broken(void **st)
{
	(void)st;
	char path[512], cmd[1200];
	struct rerr e;

	snprintf(path, sizeof(path), "%s/cut.dxt.txt.gz", dir);
	/* the first half of a compressed dump */
	snprintf(cmd, sizeof(cmd), "head -c 20000 " FIX "unet3d_a100.dxt.txt.gz > %s", path);
	assert_int_equal(system(cmd), 0);
	assert_int_not_equal(load_rc(path, NULL, &e), 0);
	/* either the last block is short, or gzip fails first */
	assert_true(strstr(e.msg, "'gzip' failed reading") || strstr(e.msg, "its header says") ||
		    strstr(e.msg, "truncated"));
	assert_int_equal(access(ops_path, F_OK), -1);
	unlink(path);
}

/* ---- a binary .darshan log: the tool as a child ------------------------------------- */

static char bindir[512];
static char *old_path;

static void fake_tool(const char *script)
{
	char p[600];
	FILE *f;

	snprintf(bindir, sizeof(bindir), "%s/bin", dir);
	mkdir(bindir, 0755);
	snprintf(p, sizeof(p), "%s/" DXT_PARSER_TOOL, bindir);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	assert_int_equal(chmod(p, 0755), 0);
	setenv("PATH", bindir, 1);
}

/* A copy of a real log in dir, its format version string set to ver
 * (same name): a version replay does not decode goes to the tool. */
static void log_as_version(const char *src, const char *ver, char *out, size_t len)
{
	char cmd[1600];

	snprintf(out, len, "%s/%s", dir, strrchr(src, '/') + 1);
	snprintf(cmd, sizeof(cmd), "{ printf '%s\\0\\0\\0\\0'; tail -c +9 '%s'; } > '%s'", ver,
		 src, out);
	assert_int_equal(system(cmd), 0);
}

/* Both loads' ops, record for record. */
static void assert_same_ops(const char *x, const char *y)
{
	struct opstream a, b;
	char ref[512];

	load(x, NULL, &b);
	snprintf(ref, sizeof(ref), "%s/b.ops", dir);
	opstream_close(&b);
	assert_int_equal(rename(ops_path, ref), 0);
	assert_int_equal(opstream_open(&b, ref, NULL), 0);
	load(y, NULL, &a);
	assert_int_equal(a.nops, b.nops);
	assert_memory_equal(a.ops, b.ops, a.nops * sizeof(struct op));
	opstream_close(&a);
	opstream_close(&b);
	unlink(ref);
}

static void t_darshan_log(void **st)
{
	(void)st;
	struct opstream a;
	struct rerr e;
	char newer[512], newer2[512];

	log_as_version(FIX "ior_hdf5_example.darshan", "3.51", newer, sizeof(newer));
	log_as_version(FIX "mpi-io-test-x86_64-3.1.6.darshan", "3.51", newer2, sizeof(newer2));
	old_path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	/* no tool on PATH: replay reads the log itself, as the tool would */
	setenv("PATH", "/nonexistent", 1);
	assert_same_ops(FIX "ior_hdf5_example.darshan", FIX "ior_hdf5_example.dxt.txt");
	assert_same_ops(FIX "mpi-io-test-x86_64-3.1.6.darshan", FIX "mpi-io-test-x86_64-3.1.6.dxt.txt");
	assert_same_ops(FIX "mpi_io_test_with_dxt.darshan", FIX "mpi_io_test_with_dxt.dxt.txt");

	/* a format version replay does not read: the tool, which is not there */
	assert_int_equal(load_rc(newer, NULL, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "binary Darshan log of format version '3.51'"));
	assert_non_null(strstr(e.msg, "'darshan-dxt-parser' is not on PATH"));
	assert_non_null(strstr(e.msg, "darshan-dxt-parser --show-incomplete"));

	/* A FAKE darshan-dxt-parser (Darshan is not in Debian): it checks it
	 * got --show-incomplete and the log, and prints the dump that the
	 * real 3.5.0 parser made from that log. */
	fake_tool("#!/bin/sh\n"
		  "[ \"$1\" = --show-incomplete ] || { echo 'Usage: fake [options] <filename>' >&2; exit 1; }\n"
		  "case \"$2\" in *ior_hdf5_example.darshan) exec /bin/cat " FIX "ior_hdf5_example.dxt.txt;; esac\n"
		  "echo \"Error: unable to open $2\" >&2; exit 255\n");
	assert_same_ops(newer, FIX "ior_hdf5_example.dxt.txt");
	/* a log of a version replay reads is not given to the tool */
	assert_same_ops(FIX "mpi-io-test-x86_64-3.1.6.darshan", FIX "mpi-io-test-x86_64-3.1.6.dxt.txt");

	/* the tool fails: exit status and its first stderr line */
	assert_int_equal(load_rc(newer2, NULL, &e), -EIO);
	assert_non_null(strstr(e.msg, "'darshan-dxt-parser' failed reading"));
	assert_non_null(strstr(e.msg, "(exit status 255): Error: unable to open"));
	assert_int_equal(access(ops_path, F_OK), -1);

	/* an old parser (<= 3.2) knows no --show-incomplete: run again without */
	fake_tool("#!/bin/sh\n"
		  "[ $# -eq 1 ] || { echo \"Usage: $0 <filename>\" >&2; exit 1; }\n"
		  "exec /bin/cat " FIX "parser-versions/mpi-io-test-x86_64-3.1.6.util-3.1.8.dxt.txt\n");
	load(newer2, NULL, &a);
	assert_int_equal(a.nops, 16);
	opstream_close(&a);

	/* killed half-way */
	fake_tool("#!/bin/sh\nhead -n 90 " FIX "ior_hdf5_example.dxt.txt\nkill -9 $$\n");
	assert_int_not_equal(load_rc(newer, NULL, &e), 0);
	assert_non_null(strstr(e.msg, "killed by signal 9"));
	setenv("PATH", old_path, 1);
	free(old_path);
	unlink(newer);
	unlink(newer2);
}

/* replay's own reader of a binary log: a log cut short is an error naming
 * the log and why, as a failed tool is (no ops file left) */
static void t_darshan_log_bad(void **st)
{
	(void)st;
	struct rerr e;
	char cut[512], cmd[1200];

	snprintf(cut, sizeof(cut), "%s/cut.darshan", dir);
	snprintf(cmd, sizeof(cmd), "head -c 2000 '%s' > '%s'", FIX "mpi_io_test_with_dxt.darshan", cut);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(load_rc(cut, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "cut.darshan: cannot read this Darshan log: a region runs past"
				      " the end of the log"));
	assert_non_null(strstr(e.msg, "truncated"));
	assert_int_equal(access(ops_path, F_OK), -1);
	unlink(cut);
}

/* darshan_log.c prints the segment lines' numbers by hand: exactly what
 * printf prints, for random values of every magnitude, exact ties at the
 * fourth decimal (k/32: 0.03125 rounds to even, 0.0312), subnormals, and
 * the values it hands to snprintf (negative zero, 1e12 and more). */
static void t_darshan_fix4(void **st)
{
	(void)st;
	char a[64], b[64], *e;
	uint64_t x = 88172645463325252ull;
	static const double fixed[] = { 0, 5e-324, 2.2e-308, 0.00005, 0.00015, 0.03125, 0.09375,
					1.00005, 2.5, 0.5e-4, 123456.78905, 999999999999.99995,
					1e12, 3e15, -0.0, 0.0312500001, 7.6944, 75.7759 };

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		snprintf(a, sizeof(a), "%12.4f", fixed[i]);
		e = darshan_put_fix4(b, fixed[i], 12);
		*e = 0;
		assert_string_equal(b, a);
	}
	for (int i = 0; i < 2000000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double v;
		switch (i % 4) {
		case 0: v = (double)(x >> 11) / (double)(1ull << 53) * 100.0; break; /* [0, 100) */
		case 1: v = (double)(x % 100000000ull) / 100000.0; break;          /* on the grid */
		case 2: v = (double)(x % 1000000ull) / 32.0; break;                /* ties */
		default: v = (double)(x >> 11) * 1e-4; break;                      /* large */
		}
		snprintf(a, sizeof(a), "%12.4f", v);
		e = darshan_put_fix4(b, v, 12);
		*e = 0;
		if (strcmp(a, b))
			fail_msg("%.17g: printf '%s', ours '%s'", v, a, b);
	}
	static const int64_t ints[] = { 0, -1, 7, 16777216, INT64_MAX, INT64_MIN, -123456789 };
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		snprintf(a, sizeof(a), "%16" PRId64, ints[i]);
		e = darshan_put_i64(b, ints[i], 16);
		*e = 0;
		assert_string_equal(b, a);
	}
}

/* ---- detection --------------------------------------------------------------------- */

static void t_detect(void **st)
{
	(void)st;
	const struct trace_format *f = trace_format_find("dxt");
	char buf[8192];
	FILE *in = fopen(FIX "ior_hdf5_example.dxt.txt", "r");
	size_t n;

	assert_non_null(f);
	assert_true(f->flags & TRACE_F_GZIP);
	assert_non_null(in);
	n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	assert_int_equal(f->probe(buf, n), 100);
	/* no other format claims it */
	for (size_t i = 0; trace_formats[i]; i++)
		if (trace_formats[i] != f)
			assert_true(trace_formats[i]->probe(buf, n) < 20);
	/* a dump without its job header: blocks and segments */
	const char *cut = strstr(buf, "# DXT, file_id:");
	assert_true(f->probe(cut, n - (size_t)(cut - buf)) >= 60);
	/* the binary log */
	in = fopen(FIX "mpi-io-test-x86_64-3.1.6.darshan", "rb");
	n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	assert_int_equal(f->probe(buf, n), 100);
	assert_true(dxt_is_darshan_log(buf, n));
	assert_false(dxt_is_darshan_log("3.21", 4));
	/* a compressed strace trace is refused: only DXT reads gzip */
	char path[512], cmd[1200];
	struct rerr e;
	snprintf(path, sizeof(path), "%s/s.txt.gz", dir);
	snprintf(cmd, sizeof(cmd), "gzip -c %s/strace/s_f_tt_T.txt > %s", TEST_DATA, path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(load_rc(path, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "is gzip-compressed: the strace reader takes it uncompressed"));
	unlink(path);
	/* more than one dump */
	char *two[] = { FIX "ior_hdf5_example.dxt.txt", FIX "treddy_h5d_no_h5f.dxt.txt" };
	struct load_opts o = { .format = "dxt" };
	struct load_result res;
	assert_int_equal(trace_load(two, 2, &o, ops_path, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "2 files given"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_fixtures),
		cmocka_unit_test(t_parser_versions),
		cmocka_unit_test(t_merge_order),
		cmocka_unit_test(t_synth),
		cmocka_unit_test(t_sharing),
		cmocka_unit_test(t_hosts_osts),
		cmocka_unit_test(t_ops_host),
		cmocka_unit_test(t_incomplete),
		cmocka_unit_test(t_mpiio),
		cmocka_unit_test(t_bad_input),
		cmocka_unit_test(t_cut_dump),
		cmocka_unit_test(t_concatenated),
		cmocka_unit_test(t_cut_last_line),
		cmocka_unit_test(t_glued_offset),
		cmocka_unit_test(t_rank_beyond_nprocs),
		cmocka_unit_test(t_offset_overflow),
		cmocka_unit_test(t_longer_than_one_call),
		cmocka_unit_test(t_other_layer_files),
		cmocka_unit_test(t_unnamed_records),
		cmocka_unit_test(t_name_trailing_blank),
		cmocka_unit_test(t_times),
		cmocka_unit_test(t_field_widths),
		cmocka_unit_test(t_fast_path),
		cmocka_unit_test(t_columns),
		cmocka_unit_test(t_gzip_broken),
		cmocka_unit_test(t_darshan_log),
		cmocka_unit_test(t_darshan_log_bad),
		cmocka_unit_test(t_darshan_fix4),
		cmocka_unit_test(t_detect),
		cmocka_unit_test(t_spilled_runs),
		cmocka_unit_test(t_pass2),
	};
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
