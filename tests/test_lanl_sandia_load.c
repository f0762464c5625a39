/*
 * test_lanl_sandia_load.c - the LANL and Sandia fixtures through the whole
 * load path (trace_load: expand, detect, parse, builder, .ops writer) and
 * back through opstream_open: per-rank op counts, bytes, offsets and names
 * as read from the .ops file.  Expected values are worked out by hand from
 * the fixture text (comments say how).
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
#include <unistd.h>

#include "ops/opstream.h"
#include "trace/trace.h"

struct rank_sum {
	uint64_t n[OP__COUNT];
	uint64_t wbytes, rbytes;        /* len of (a)write / (a)read ops */
};

static void sum_rank(const struct opstream *s, uint32_t r, struct rank_sum *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t n;
	const struct op *ops = opstream_rank_ops(s, r, &n);
	for (uint64_t i = 0; i < n; i++) {
		out->n[ops[i].kind]++;
		if (op_is_write(ops[i].kind))
			out->wbytes += ops[i].len;
		if (op_is_read(ops[i].kind))
			out->rbytes += ops[i].len;
	}
}

static void load(char *arg, const char *format, struct opstream *s, char *ops_path, size_t cap)
{
	char *td = getenv("TMPDIR");
	snprintf(ops_path, cap, "%s/replay-load-test-%d.ops", td && *td ? td : "/tmp", (int)getpid());
	struct load_opts o = { .format = format };
	struct load_result res;
	struct rerr e = { "" };
	char *args[] = { arg };
	int rc = trace_load(args, 1, &o, ops_path, &res, &e);
	if (rc)
		fail_msg("trace_load %s: %s", arg, e.msg);
	const char *why = NULL;
	rc = opstream_open(s, ops_path, &why);
	if (rc)
		fail_msg("opstream_open: %s", why ? why : strerror(-rc));
}

static void test_lanl_nton(void **st)
{
	(void)st;
	struct opstream s;
	char path[512];
	load(TEST_DATA "/lanl/nton", NULL, &s, path, sizeof(path));   /* detected */
	char buf[64];
	assert_string_equal(opstream_info(&s, "format", buf, sizeof(buf)), "lanl");
	assert_int_equal(s.nranks, 2);
	assert_string_equal(opstream_rank_name(&s, 0), "host13.10378");
	assert_string_equal(opstream_rank_name(&s, 1), "host12.10377");
	struct rank_sum r;
	/* rank 0: open, 2 nested pwrite64 (awrite+await), barrier, lseek,
	 * 2 reads of 65536, close */
	sum_rank(&s, 0, &r);
	assert_int_equal(r.n[OP_OPEN], 1);
	assert_int_equal(r.n[OP_AWRITE], 2);
	assert_int_equal(r.n[OP_AWAIT], 2);
	assert_int_equal(r.n[OP_BARRIER], 1);
	assert_int_equal(r.n[OP_READ], 2);
	assert_int_equal(r.n[OP_CLOSE], 1);
	assert_int_equal(r.wbytes, 131072);
	assert_int_equal(r.rbytes, 131072);
	/* rank 1: iwrite of 1024 MPI_BYTEs at 0, _llseek to 4096, writev 3000,
	 * lseek(-1000, SEEK_CUR) -> 6096, read 100 there */
	sum_rank(&s, 1, &r);
	assert_int_equal(r.wbytes, 1024 + 3000);
	assert_int_equal(r.rbytes, 100);
	assert_int_equal(r.n[OP_OPEN], 2);
	assert_int_equal(r.n[OP_FSYNC], 1);
	assert_int_equal(r.n[OP_FTRUNCATE], 1);
	uint64_t n;
	const struct op *ops = opstream_rank_ops(&s, 1, &n);
	int seen = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (ops[i].kind == OP_WRITE) {
			assert_int_equal(ops[i].offset, 4096);
			seen++;
		}
		if (ops[i].kind == OP_READ) {
			assert_int_equal(ops[i].offset, 6096);
			seen++;
		}
		if (i)
			assert_true(ops[i].t_ns >= ops[i - 1].t_ns);
	}
	assert_int_equal(seen, 2);
	/* the truncated name: one flagged path per rank */
	int trunc = 0;
	for (uint32_t i = 0; i < s.npaths; i++)
		if (s.paths[i].flags & OPSP_TRUNCATED_NAME)
			trunc++;
	assert_int_equal(trunc, 2);
	opstream_close(&s);
	unlink(path);
}

static void test_lanl_nto1(void **st)
{
	(void)st;
	struct opstream s;
	char path[512];
	load(TEST_DATA "/lanl/nto1", "lanl", &s, path, sizeof(path));
	assert_int_equal(s.nranks, 2);
	assert_int_equal(s.npaths, 1);      /* one shared file */
	for (uint32_t r = 0; r < 2; r++) {
		uint64_t n;
		const struct op *ops = opstream_rank_ops(&s, r, &n);
		uint64_t want = r * 131072;  /* rank r's region [r*2*64K, (r+1)*2*64K) */
		for (uint64_t i = 0; i < n; i++)
			if (op_is_data(ops[i].kind)) {
				assert_true(ops[i].offset == want || ops[i].offset == want + 65536);
			}
	}
	opstream_close(&s);
	unlink(path);
}

static void test_sandia(void **st)
{
	(void)st;
	struct opstream s;
	char path[512];
	load(TEST_DATA "/sandia/cth_like.sanitized", NULL, &s, path, sizeof(path));
	char buf[64];
	assert_string_equal(opstream_info(&s, "format", buf, sizeof(buf)), "sandia");
	assert_int_equal(s.nranks, 2);
	assert_string_equal(opstream_rank_name(&s, 0), "12.3401");
	assert_string_equal(opstream_rank_name(&s, 1), "12.3402");
	struct rank_sum r;
	/* iwritev 10444 + iwritev 100+200; ireadx extents 2048+2048 */
	sum_rank(&s, 0, &r);
	assert_int_equal(r.wbytes, 10744);
	assert_int_equal(r.rbytes, 4096);
	assert_int_equal(r.n[OP_AWRITE], 2);
	assert_int_equal(r.n[OP_AREAD], 2);
	assert_int_equal(r.n[OP_AWAIT], 4);
	assert_int_equal(r.n[OP_FSYNC], 1);
	assert_int_equal(r.n[OP_SEEK], 1);
	uint64_t n;
	const struct op *ops = opstream_rank_ops(&s, 0, &n);
	/* the second iwritev continues at the position after the first */
	int k = 0;
	for (uint64_t i = 0; i < n; i++)
		if (ops[i].kind == OP_AWRITE)
			assert_int_equal(ops[i].offset, k++ ? 10444 : 0);
	/* rank 1: lseek to 1 MiB, ireadv of 64 KiB there, wait without count */
	sum_rank(&s, 1, &r);
	assert_int_equal(r.rbytes, 65536);
	ops = opstream_rank_ops(&s, 1, &n);
	for (uint64_t i = 0; i < n; i++) {
		if (ops[i].kind == OP_AREAD)
			assert_int_equal(ops[i].offset, 1048576);
		if (ops[i].kind == OP_AWAIT) {
			/* no traced count: the submitted length, flagged */
			assert_int_equal(ops[i].result, 65536);
			assert_true(ops[i].flags & OPF_ASYNC_BYTES);
		}
	}
	opstream_close(&s);
	unlink(path);
}

/* Empty inputs and standard input (issue 15): never an empty trace with
 * success.  A 0-byte file of any format, an empty stdin, and LANL from
 * stdin (read twice) are clear errors naming the input; Sandia from stdin
 * is read. */
static void expect_load_error(const char *path, const char *format, const char *want)
{
	struct load_opts o = { .format = format };
	struct load_result res;
	struct rerr e = { "" };
	char *args[] = { (char *)path };
	int rc = trace_load(args, 1, &o, NULL, &res, &e);
	if (rc != -EINVAL)
		fail_msg("%s as %s: rc %d (%s), expected -EINVAL", path, format, rc, e.msg);
	if (!strstr(e.msg, want))
		fail_msg("%s as %s: message '%s' lacks '%s'", path, format, e.msg, want);
	assert_false(res.temporary);
}

static void test_empty_and_stdin(void **st)
{
	(void)st;
	char *td = getenv("TMPDIR");
	char empty[512];
	snprintf(empty, sizeof(empty), "%s/replay-empty-%d.txt", td && *td ? td : "/tmp", (int)getpid());
	FILE *f = fopen(empty, "w");
	assert_non_null(f);
	fclose(f);
	expect_load_error(empty, "lanl", "no lanl calls found");
	expect_load_error(empty, "sandia", "no sandia calls found");
	expect_load_error(empty, "strace", "no syscalls found");
	/* standard input: LANL refuses it, the others read it (empty here) */
	int saved = dup(0);
	assert_true(saved >= 0);
	assert_int_equal(dup2(open(empty, O_RDONLY), 0), 0);
	expect_load_error("-", "lanl", "standard input");
	expect_load_error("-", "sandia", "-: no sandia calls found");
	dup2(saved, 0);
	close(saved);
	unlink(empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lanl_nton),
		cmocka_unit_test(test_lanl_nto1),
		cmocka_unit_test(test_sandia),
		cmocka_unit_test(test_empty_and_stdin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
