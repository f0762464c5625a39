/* test_runner.c - the runner's pieces: op -> engine request, handle mapping,
 * skipping rules, failure accounting, the replay of one rank on real files. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "run/hist.h"
#include "ops/opstream.h"
#include "plan/filter.h"
#include "plan/plan.h"
#include "report/report.h"
#include "run/overlap.h"
#include "run/runner.h"
#include "run/sched.h"

#define TMPDIR_TEMPLATE "/tmp/replay-test-runnerXXXXXX"
#include "tmpdir_fixture.h"

static void test_scan_rank(void **state)
{
	(void)state;
	struct op ops[] = {
		{ .kind = OP_OPEN, .handle = 0, .file = 0 },
		{ .kind = OP_WRITE, .handle = 0, .len = 100 },
		{ .kind = OP_OPEN, .handle = 3, .file = 1 },
		{ .kind = OP_READ, .handle = 3, .len = 70000 },
		{ .kind = OP_FTRUNCATE, .handle = 3, .len = 1 << 30 }, /* not data */
		{ .kind = OP_UNLINK, .handle = OP_NOHANDLE, .file = 1 },
		{ .kind = OP_AWRITE, .handle = 1, .len = 90000 },
	};
	uint32_t nh;
	uint64_t ml;

	runner_scan_rank(ops, sizeof(ops) / sizeof(ops[0]), &nh, &ml);
	assert_int_equal(nh, 4);
	assert_int_equal(ml, 90000);
	runner_scan_rank(ops, 0, &nh, &ml);
	assert_int_equal(nh, 0);
	assert_int_equal(ml, 0);
}

static void test_op_req(void **state)
{
	(void)state;
	char buf[16];
	struct io_req r;
	struct op rd = { .kind = OP_READ, .offset = 64, .len = 832, .result = 100 };
	struct op wr = { .kind = OP_WRITE, .offset = 1000, .len = 100, .result = 100 };
	struct op aw = { .kind = OP_AWRITE, .offset = 0, .len = 4096, .result = 0 };
	struct op fs = { .kind = OP_FDATASYNC };

	/* a traced short read replays the bytes the trace got */
	assert_int_equal(runner_op_len(&rd), 100);
	assert_int_equal(runner_op_len(&wr), 100);
	/* async submits replay their request */
	assert_int_equal(runner_op_len(&aw), 4096);

	assert_int_equal(runner_op_req(&rd, 7, buf, 0, &r), 0);
	assert_int_equal(r.fd, 7);
	assert_int_equal(r.dir, IO_READ);
	assert_int_equal(r.offset, 64);
	assert_int_equal(r.len, 100);
	assert_ptr_equal(r.buf, buf);

	assert_int_equal(runner_op_req(&wr, 8, buf, 0, &r), 0);
	assert_int_equal(r.dir, IO_WRITE);
	assert_int_equal(r.offset, 1000);
	assert_int_equal(r.len, 100);

	/* direct: [1000, 1100) widened to [512, 1536) */
	assert_int_equal(runner_op_req(&wr, 8, buf, 512, &r), 924);
	assert_int_equal(r.offset, 512);
	assert_int_equal(r.len, 1024);
	/* already aligned: nothing added */
	assert_int_equal(runner_op_req(&aw, 8, buf, 4096, &r), 0);
	assert_int_equal(r.offset, 0);
	assert_int_equal(r.len, 4096);

	assert_int_equal(runner_op_req(&fs, 9, buf, 512, &r), 0);
	assert_int_equal(r.dir, IO_FDATASYNC);
	assert_int_equal(r.fd, 9);

	/* a write's per-call sync flags become the request's (before: none) */
	assert_int_equal(r.rw_flags, 0);
	runner_op_req(&wr, 8, buf, 0, &r);
	assert_int_equal(r.rw_flags, 0);
	wr.flags = OPF_RWF_DSYNC | OPF_APPEND;
	runner_op_req(&wr, 8, buf, 0, &r);
	assert_int_equal(r.rw_flags, RWF_DSYNC);
	aw.flags = OPF_RWF_SYNC;
	runner_op_req(&aw, 8, buf, 4096, &r);
	assert_int_equal(r.rw_flags, RWF_SYNC);
	aw.flags = OPF_RWF;
	runner_op_req(&aw, 8, buf, 0, &r);
	assert_int_equal(r.rw_flags, RWF_SYNC | RWF_DSYNC);
}

/* A short read on a descriptor the trace had O_DIRECT on asks what the
 * traced call asked (the kernel stops at the same end of file); the bytes
 * it must get are still the traced ones.  Without O_DIRECT, and for
 * writes, the bytes the trace moved. */
static void test_direct_short_read_len(void **state)
{
	(void)state;
	char buf[16];
	struct io_req r;
	/* dd iflag=direct bs=1M, the last block of a 10000000-byte file */
	struct op rd = { .kind = OP_READ, .offset = 9437184, .len = 1048576, .result = 562816,
			 .oflags = O_DIRECT };
	/* and its read at the end of the file */
	struct op eof = { .kind = OP_READ, .offset = 10000000, .len = 1048576, .result = 0,
			  .oflags = O_DIRECT };
	struct op wr = { .kind = OP_WRITE, .offset = 0, .len = 1048576, .result = 4096,
			 .oflags = O_DIRECT };
	struct op fail = { .kind = OP_READ, .offset = 0, .len = 4096, .result = -EINVAL,
			   .oflags = O_DIRECT };

	assert_int_equal(runner_op_len(&rd), 1048576);
	assert_int_equal(runner_op_want(&rd), 562816);
	assert_int_equal(runner_op_len(&eof), 1048576);
	assert_int_equal(runner_op_want(&eof), 0);
	assert_int_equal(runner_op_req(&rd, 5, buf, 0, &r), 0);
	assert_int_equal(r.len, 1048576);
	assert_int_equal(r.offset, 9437184);
	/* --direct on top: aligned already, nothing added */
	assert_int_equal(runner_op_req(&rd, 5, buf, 4096, &r), 0);
	assert_int_equal(r.len, 1048576);
	/* a short write is replayed with what the trace wrote */
	assert_int_equal(runner_op_len(&wr), 4096);
	assert_int_equal(runner_op_want(&wr), 4096);
	assert_int_equal(runner_op_len(&fail), 4096);
	/* the same short read without O_DIRECT: the bytes the trace got */
	rd.oflags = 0;
	assert_int_equal(runner_op_len(&rd), 562816);
	assert_int_equal(runner_op_want(&rd), 562816);
	/* the buffer is sized for the request */
	rd.oflags = O_DIRECT;
	struct runner_opts o = { 0 };
	assert_true(runner_buf_len(&rd, 1, &o, NULL) >= 1048576);
	uint32_t nh;
	uint64_t ml;
	rd.handle = 0;
	runner_scan_rank(&rd, 1, &nh, &ml);
	assert_int_equal(ml, 1048576);
}

static void test_rclass(void **state)
{
	(void)state;
	assert_int_equal(rclass_of(OP_READ), RC_READ);
	assert_int_equal(rclass_of(OP_AREAD), RC_READ);
	assert_int_equal(rclass_of(OP_AWRITE), RC_WRITE);
	assert_int_equal(rclass_of(OP_FDATASYNC), RC_SYNC);
	assert_int_equal(rclass_of(OP_OPEN), RC_OPEN);
	assert_int_equal(rclass_of(OP_CLOSE), RC_CLOSE);
	assert_int_equal(rclass_of(OP_UNLINK), RC_META);
	assert_int_equal(rclass_of(OP_FTRUNCATE), RC_META);
	assert_string_equal(rclass_name(RC_SYNC), "sync");
	assert_string_equal(rclass_name(RC_META), "meta");
}

static void test_repeat_stats(void **state)
{
	(void)state;
	uint64_t v[] = { 50, 10, 30, 20, 40 };
	struct rstats s;

	report_stats(v, 5, &s);
	assert_true(s.min == 10 && s.max == 50 && s.median == 30 && s.mean == 30);
	/* population stddev of 10..50: sqrt(200) */
	assert_true(s.stddev > 14.1421 && s.stddev < 14.1422);
	report_stats(v, 4, &s);               /* 50 10 30 20: median of 20 and 30 */
	assert_true(s.median == 25 && s.min == 10 && s.max == 50 && s.mean == 27.5);
	report_stats(v, 0, &s);
	assert_true(s.min == 0 && s.max == 0 && s.mean == 0);
	/* the input is not reordered */
	assert_int_equal(v[0], 50);
}

/* ---- one rank on real files ------------------------------------------ */

struct fixture {
	char target[256], ops[256];
	struct opstream s;
	struct plan plan;
};

/* rank 0 of a two-path trace:
 *   0 open  out.dat O_WRONLY|O_CREAT|O_TRUNC -> h0
 *   1 write h0 4096 @0
 *   2 seek  h0 (not issued)
 *   3 write h0 100 @8192
 *   4 open  missing.dat O_RDONLY -> ENOENT (traced failure)
 *   5 read  on a descriptor the trace never opened (no handle): skipped
 *   6 fsync h0
 *   7 barrier, 8 mmap
 *   9 ftruncate h0 20000
 *  10 stat out.dat
 *  11 open in.dat O_RDONLY -> h2   (read before written: prepared)
 *  12 read h2 1000 @500
 *  13 write h2 10 @0  (the trace says it worked; on an O_RDONLY fd it cannot)
 *  14 read h2 100 @0
 *  15 close h0, 16 close h2
 */
/* A one-rank .ops of ops over paths (an op's .file is an index into
 * paths; OP_NOFILE stays), opened into f->s. */
static void write_ops(struct fixture *f, const char *const *paths, size_t np, const struct op *ops,
		      size_t n)
{
	struct ops_writer *w;
	uint32_t r, id[8];
	const char *why = NULL;

	assert_true(np <= 8);
	snprintf(f->target, sizeof(f->target), "%s/t", dir);
	snprintf(f->ops, sizeof(f->ops), "%s/trace.ops", dir);
	mkdir(f->target, 0755);
	assert_int_equal(opsw_open(&w, f->ops), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r), 0);
	for (size_t i = 0; i < np; i++)
		assert_int_equal(opsw_path(w, paths[i], 0, &id[i]), 0);
	for (size_t i = 0; i < n; i++) {
		struct op op = ops[i];

		op.t_ns = i * 1000;
		op.iovcnt = 1;
		if (op.file != OP_NOFILE)
			op.file = id[op.file];
		assert_int_equal(opsw_append(w, r, &op), 0);
	}
	assert_int_equal(opsw_finish(w, NULL), 0);
	assert_int_equal(opstream_open(&f->s, f->ops, &why), 0);
}

static void make_trace(struct fixture *f)
{
	const char *const paths[] = { "/data/out.dat", "/data/missing.dat", "/data/in.dat" };
	struct op ops[] = {
		{ .kind = OP_OPEN, .handle = 0, .oflags = O_WRONLY | O_CREAT | O_TRUNC, .aux = 0644, .result = 3 },
		{ .kind = OP_WRITE, .handle = 0, .offset = 0, .len = 4096, .result = 4096, .line = 2 },
		{ .kind = OP_SEEK, .handle = 0, .offset = 8192, .result = 8192 },
		{ .kind = OP_WRITE, .handle = 0, .offset = 8192, .len = 100, .result = 100 },
		{ .kind = OP_OPEN, .handle = 1, .oflags = O_RDONLY, .result = -ENOENT },
		{ .kind = OP_READ, .handle = OP_NOHANDLE, .offset = 0, .len = 10, .result = 10 },
		{ .kind = OP_FSYNC, .handle = 0 },
		{ .kind = OP_BARRIER, .handle = OP_NOHANDLE, .file = OP_NOFILE },
		{ .kind = OP_MMAP, .handle = 0 },
		{ .kind = OP_FTRUNCATE, .handle = 0, .len = 20000 },
		{ .kind = OP_STAT, .handle = OP_NOHANDLE },
		{ .kind = OP_OPEN, .handle = 2, .oflags = O_RDONLY, .result = 4 },
		{ .kind = OP_READ, .handle = 2, .offset = 500, .len = 1000, .result = 1000 },
		{ .kind = OP_WRITE, .handle = 2, .offset = 0, .len = 10, .result = 10, .line = 14 },
		{ .kind = OP_READ, .handle = 2, .offset = 0, .len = 100, .result = 100 },
		{ .kind = OP_CLOSE, .handle = 0 },
		{ .kind = OP_CLOSE, .handle = 2 },
	};

	/* opens name their file by handle (h0 out, h1 missing, h2 in), the
	 * stat names out.dat; nothing else has a path */
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		ops[i].file = ops[i].kind == OP_OPEN ? ops[i].handle :
			      ops[i].kind == OP_STAT ? 0 : OP_NOFILE;
	write_ops(f, paths, 3, ops, sizeof(ops) / sizeof(ops[0]));
}

static void build_plan(struct fixture *f)
{
	struct plan_opts po = { 0 };
	struct rerr e;

	memset(&f->plan, 0, sizeof(f->plan));
	assert_int_equal(plan_build(&f->plan, &f->s, f->target, &po, &e), 0);
	assert_int_equal(plan_prepare(&f->plan, &e), 0);
}

static void release(struct fixture *f)
{
	struct rerr e;
	char p[300];

	assert_int_equal(plan_cleanup(&f->plan, &e), 0);
	plan_release(&f->plan);
	opstream_close(&f->s);
	unlink(f->ops);
	/* the target is empty again */
	snprintf(p, sizeof(p), "%s/data", f->target);
	assert_int_not_equal(access(p, F_OK), 0);
	rmdir(f->target);
}

static int run_rank(struct fixture *f, const struct runner_opts *o, struct worker_result *w,
		    const uint32_t *stop)
{
	struct worker_ctx c = { .plan = &f->plan, .s = &f->s, .o = o, .rank = 0, .copy = 0,
				.w = w, .stop = stop };

	memset(w, 0, sizeof(*w));
	runner_worker_init(w);
	return runner_replay_rank(&c);
}

static void test_replay_continue(void **state)
{
	(void)state;
	struct fixture f;
	struct runner_opts o = { .engine = &engine_sync, .depth = 1, .continue_on_error = true };
	struct worker_result *w = calloc(1, sizeof(*w));
	struct stat st;
	char p[300];

	make_trace(&f);
	build_plan(&f);
	assert_int_equal(run_rank(&f, &o, w, NULL), 0);

	/* classes: 3 writes issued (4096 + 100, and 10 on the read-only fd) */
	assert_int_equal(w->cls[RC_WRITE].total_ios, 3);
	assert_int_equal(w->cls[RC_WRITE].io_bytes, 4206);
	assert_int_equal(w->cls[RC_WRITE].done_bytes, 4196);
	assert_int_equal(w->cls[RC_WRITE].errors, 1);
	assert_int_equal(w->cls[RC_WRITE].lat.n, 3);
	assert_int_equal(w->cls[RC_READ].total_ios, 2);
	assert_int_equal(w->cls[RC_READ].io_bytes, 1100);
	assert_int_equal(w->cls[RC_READ].done_bytes, 1100);
	assert_int_equal(w->cls[RC_READ].short_ios, 0);
	assert_int_equal(w->cls[RC_SYNC].total_ios, 1);
	assert_int_equal(w->cls[RC_OPEN].total_ios, 2);
	assert_int_equal(w->cls[RC_CLOSE].total_ios, 2);
	assert_int_equal(w->cls[RC_META].total_ios, 2);   /* ftruncate, stat */
	/* not issued */
	assert_int_equal(w->skipped_failed, 1);
	assert_int_equal(w->skipped_nohandle, 1);
	assert_int_equal(w->seeks, 1);
	assert_int_equal(w->barriers, 1);
	assert_int_equal(w->skipped_mmap, 1);
	/* the failure was counted by errno, not fatal */
	assert_int_equal(w->errno_counts[EBADF], 1);
	assert_int_equal(w->fail_errno, 0);
	assert_int_equal(w->ops_done, 17);
	assert_int_equal(w->ops_total, 17);
	assert_int_equal(w->bytes_done, 4196 + 1100);
	assert_true(w->completion_ns >= w->io_ns);
	assert_int_equal(w->completion_ns, w->io_ns + w->flush_ns);

	/* the real file: 4096 @0, 100 @8192, then truncated to 20000 */
	snprintf(p, sizeof(p), "%s/data/out.dat", f.target);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 20000);
	/* the prepared input holds at least what was read: 500 + 1000 */
	snprintf(p, sizeof(p), "%s/data/in.dat", f.target);
	assert_int_equal(stat(p, &st), 0);
	assert_true(st.st_size >= 1500);
	/* the file whose open failed in the trace was not created */
	snprintf(p, sizeof(p), "%s/data/missing.dat", f.target);
	assert_int_not_equal(access(p, F_OK), 0);
	release(&f);
	free(w);
}

/* An open the trace made but the replay could not (its file gone from the
 * target: under --order none, a rank ahead of the one making it): the
 * rank's ops on that descriptor are not issued, counted as open_failed
 * (as no_handle too), with their reads' and writes' lengths. */
static void test_replay_open_failed(void **state)
{
	(void)state;
	struct fixture f;
	struct runner_opts o = { .engine = &engine_sync, .depth = 1, .continue_on_error = true };
	struct worker_result *w = calloc(1, sizeof(*w));
	char p[300];

	make_trace(&f);
	build_plan(&f);
	snprintf(p, sizeof(p), "%s/data/in.dat", f.target);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(run_rank(&f, &o, w, NULL), 0);
	assert_int_equal(w->errno_counts[ENOENT], 1);
	/* read 1000, write 10, read 100, close on the in.dat handle; the
	 * traced failure's read (no handle at all) is not one of them */
	assert_int_equal(w->open_failed_ops, 4);
	assert_int_equal(w->open_failed_bytes, 1110);
	assert_int_equal(w->skipped_nohandle, 5);
	release(&f);
	free(w);

	/* all there: none */
	w = calloc(1, sizeof(*w));
	make_trace(&f);
	build_plan(&f);
	assert_int_equal(run_rank(&f, &o, w, NULL), 0);
	assert_int_equal(w->open_failed_ops, 0);
	assert_int_equal(w->open_failed_bytes, 0);
	release(&f);
	free(w);
}

/* truncate(path, len): an ftruncate op without a handle, replayed on the
 * path beneath the target.  The file it names was there before (the plan
 * prepares it, though no open says so: the first stream), and the read
 * after it finds the size it set.  Before: skipped as an op on no handle,
 * the read came back short. */
static void test_replay_truncate_path(void **state)
{
	(void)state;
	struct fixture f;
	struct runner_opts o = { .engine = &engine_sync, .depth = 1 };
	struct worker_result *w = calloc(1, sizeof(*w));
	struct stat st;
	char p[300];
	const char *const paths[] = { "/data/t.dat" };
	const struct op ops[] = {
		{ .kind = OP_FTRUNCATE, .file = 0, .handle = OP_NOHANDLE, .len = 7777 },
		{ .kind = OP_OPEN, .file = 0, .handle = 0, .oflags = O_RDONLY, .result = 3 },
		{ .kind = OP_READ, .file = OP_NOFILE, .handle = 0, .len = 7777, .result = 7777 },
		{ .kind = OP_CLOSE, .file = OP_NOFILE, .handle = 0 },
	};

	/* the truncate alone */
	write_ops(&f, paths, 1, ops, 1);
	build_plan(&f);
	snprintf(p, sizeof(p), "%s/data/t.dat", f.target);
	assert_int_equal(access(p, F_OK), 0);           /* prepared */
	assert_int_equal(run_rank(&f, &o, w, NULL), 0);
	assert_int_equal(w->cls[RC_META].total_ios, 1);
	assert_int_equal(w->cls[RC_META].errors, 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 7777);
	release(&f);

	write_ops(&f, paths, 1, ops, sizeof(ops) / sizeof(ops[0]));
	build_plan(&f);
	assert_int_equal(run_rank(&f, &o, w, NULL), 0);
	assert_int_equal(w->cls[RC_META].total_ios, 1);
	assert_int_equal(w->cls[RC_META].errors, 0);
	assert_int_equal(w->skipped_nohandle, 0);
	assert_int_equal(w->cls[RC_READ].done_bytes, 7777);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 7777);
	release(&f);
	free(w);
}

static void test_replay_stops_on_error(void **state)
{
	(void)state;
	struct fixture f;
	struct runner_opts o = { .engine = &engine_sync, .depth = 1 };
	struct worker_result *w = calloc(1, sizeof(*w));

	make_trace(&f);
	build_plan(&f);
	assert_int_equal(run_rank(&f, &o, w, NULL), -EBADF);
	assert_int_equal(w->fail_errno, EBADF);
	assert_int_equal(w->fail_op, 13);
	assert_int_equal(w->errno_counts[EBADF], 1);
	assert_non_null(strstr(w->fail_msg, "write"));
	assert_non_null(strstr(w->fail_msg, "in.dat"));
	assert_non_null(strstr(w->fail_msg, "line 14"));
	/* stopped there: the read after it never ran */
	assert_int_equal(w->ops_done, 14);
	assert_int_equal(w->cls[RC_READ].total_ios, 1);
	assert_int_equal(w->cls[RC_CLOSE].total_ios, 0);
	release(&f);
	free(w);
}

static void test_replay_null_engine_and_stop(void **state)
{
	(void)state;
	struct fixture f;
	struct runner_opts o = { .engine = &engine_null, .depth = 1, .continue_on_error = true };
	struct worker_result *w = calloc(1, sizeof(*w));
	uint32_t stop = 1;
	struct stat st;
	char p[300];

	make_trace(&f);
	build_plan(&f);
	/* stop already asked: nothing runs */
	assert_int_equal(run_rank(&f, &o, w, &stop), -EINTR);
	assert_int_equal(w->ops_done, 0);
	stop = 0;
	assert_int_equal(run_rank(&f, &o, w, &stop), 0);
	/* the null engine issues no data: the write to the O_RDONLY fd "works" */
	assert_int_equal(w->cls[RC_WRITE].total_ios, 3);
	assert_int_equal(w->cls[RC_WRITE].errors, 0);
	assert_int_equal(w->cls[RC_WRITE].done_bytes, 4206);
	/* opens and ftruncate are real: the file exists with the truncated size */
	snprintf(p, sizeof(p), "%s/data/out.dat", f.target);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 20000);
	assert_int_equal(st.st_blocks, 0);
	release(&f);
	free(w);
}

/* Can this engine run here?  When not, say why (the caller goes on with
 * the other engines, and skips when none could run). */
static bool engine_usable(const struct engine_ops *eng)
{
	const char *why = NULL;

	if (!eng->probe || eng->probe(&why) >= 0)
		return true;
	print_message("engine %s not usable here (%s): not checked with it\n", eng->name,
		      why ? why : "?");
	return false;
}

/* The size of TARGET/rel. */
static void assert_size(const struct fixture *f, const char *rel, off_t size)
{
	struct stat st;
	char p[300];

	snprintf(p, sizeof(p), "%s/%s", f->target, rel);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, size);
}

/* make_trace()'s ops run with o: the worker's results (out.dat checked). */
static struct worker_result *run_make_trace(const struct runner_opts *o)
{
	struct worker_result *w = calloc(1, sizeof(*w));
	struct fixture f;

	assert_non_null(w);
	make_trace(&f);
	build_plan(&f);
	assert_int_equal(run_rank(&f, o, w, NULL), 0);
	assert_size(&f, "data/out.dat", 20000);
	release(&f);
	return w;
}

/* Two runs of the same ops counted alike, class by class (latencies aside). */
static void assert_same_counts(const struct worker_result *x, const struct worker_result *y)
{
	for (unsigned c = 0; c < RC__COUNT; c++) {
		const struct class_stats *a = &x->cls[c], *b = &y->cls[c];

		assert_int_equal(a->total_ios, b->total_ios);
		assert_int_equal(a->io_bytes, b->io_bytes);
		assert_int_equal(a->done_bytes, b->done_bytes);
		assert_int_equal(a->short_ios, b->short_ios);
		assert_int_equal(a->errors, b->errors);
	}
	assert_memory_equal(x->errno_counts, y->errno_counts, sizeof(x->errno_counts));
	assert_memory_equal(x->mismatch, y->mismatch, sizeof(x->mismatch));
	assert_int_equal(x->bytes_done, y->bytes_done);
	assert_int_equal(x->skipped_failed, y->skipped_failed);
	assert_int_equal(x->skipped_nohandle, y->skipped_nohandle);
	assert_int_equal(x->ops_done, y->ops_done);
}

/* The same trace through the async engines, run-ahead allowed: the same
 * counts, the same file, and ops really in flight together. */
static void test_replay_async(void **state)
{
	(void)state;
	const struct engine_ops *engines[] = { &engine_uring, &engine_libaio };
	int ran = 0;

	for (size_t k = 0; k < 2; k++) {
		struct fixture f;
		struct runner_opts o = { .engine = engines[k], .depth = 4, .overlap = true,
					 .continue_on_error = true };
		struct worker_result *w;

		if (!engine_usable(engines[k]))
			continue;
		ran++;
		w = calloc(1, sizeof(*w));
		make_trace(&f);
		build_plan(&f);
		assert_int_equal(run_rank(&f, &o, w, NULL), 0);
		assert_int_equal(w->cls[RC_WRITE].total_ios, 3);
		assert_int_equal(w->cls[RC_WRITE].io_bytes, 4206);
		assert_int_equal(w->cls[RC_WRITE].done_bytes, 4196);
		assert_int_equal(w->cls[RC_WRITE].errors, 1);
		assert_int_equal(w->errno_counts[EBADF], 1);
		assert_int_equal(w->cls[RC_READ].done_bytes, 1100);
		assert_int_equal(w->cls[RC_SYNC].total_ios, 1);
		assert_int_equal(w->ops_done, 17);
		/* the first two writes do not overlap: both in flight at once */
		assert_true(w->max_inflight >= 2 && w->max_inflight <= 4);
		assert_size(&f, "data/out.dat", 20000);
		release(&f);
		free(w);
	}
	if (!ran) {
		print_message("SKIP: neither io_uring nor libaio can run here\n");
		skip();
	}
}


/* --clock none (o.no_lat): the same ops, bytes, errors and results with
 * every engine, and no latency recorded; timed, every op has one.  Think
 * timing reads the clock anyway: its ops keep their latencies. */
static void test_no_lat(void **state)
{
	(void)state;
	struct engine_ops via_queue = engine_sync;
	const struct engine_ops *engines[] = { &engine_sync, &via_queue, &engine_libaio,
					       &engine_uring };
	const int depth[] = { 1, 1, 4, 4 };
	int ran = 0;

	for (size_t k = 0; k < sizeof(engines) / sizeof(engines[0]); k++) {
		struct worker_result *w[3];

		if (!engine_usable(engines[k]))
			continue;
		ran++;
		for (int v = 0; v < 3; v++) {
			struct runner_opts o = { .engine = engines[k], .depth = depth[k],
						 .overlap = depth[k] > 1, .continue_on_error = true,
						 .no_lat = v > 0, .timing = v == 2 ? TIMING_THINK :
						 TIMING_AFAP, .speed = v == 2 ? 1000.0 : 0 };
			w[v] = run_make_trace(&o);
		}
		assert_same_counts(w[0], w[1]);
		for (unsigned c = 0; c < RC__COUNT; c++) {
			const struct class_stats *a = &w[0]->cls[c], *b = &w[1]->cls[c];

			/* timed: every op; not timed: none */
			assert_int_equal(a->lat.n, a->total_ios);
			assert_int_equal(b->lat.n, 0);
			assert_true(b->lat.max == 0 && b->lat.sum == 0.0);
			assert_int_equal(w[2]->cls[c].lat.n, w[2]->cls[c].total_ios);
		}
		assert_int_equal(w[0]->cls[RC_WRITE].total_ios, 3);
		assert_int_equal(w[1]->errno_counts[EBADF], 1);
		assert_int_equal(w[1]->bytes_done, w[0]->bytes_done);
		assert_int_equal(w[1]->ops_done, 17);
		for (int v = 0; v < 3; v++)
			free(w[v]);
	}
	assert_true(ran >= 2);      /* sync, both ways, at least */
}

/* An async engine's plain reads and writes: replay_op()'s shortcut
 * (issue_rw(), afap) and the general path (think timing takes it) give
 * the same counts, results and files. */
static void test_async_rw_path(void **state)
{
	(void)state;
	const struct engine_ops *engines[] = { &engine_libaio, &engine_uring };
	int ran = 0;

	for (size_t k = 0; k < 2; k++) {
		struct worker_result *w[2];

		if (!engine_usable(engines[k]))
			continue;
		ran++;
		for (int v = 0; v < 2; v++) {
			struct runner_opts o = { .engine = engines[k], .depth = 4, .overlap = true,
						 .continue_on_error = true, .on_mismatch = MM_WARN,
						 .timing = v ? TIMING_THINK : TIMING_AFAP,
						 .speed = v ? 1000.0 : 0 };
			w[v] = run_make_trace(&o);
		}
		assert_same_counts(w[0], w[1]);
		for (unsigned c = 0; c < RC__COUNT; c++)
			assert_int_equal(w[0]->cls[c].lat.n, w[1]->cls[c].lat.n);
		assert_int_equal(w[0]->cls[RC_WRITE].total_ios, 3);
		assert_int_equal(w[0]->cls[RC_READ].done_bytes, 1100);
		free(w[0]);
		free(w[1]);
	}
	if (!ran) {
		print_message("SKIP: neither io_uring nor libaio can run here\n");
		skip();
	}
}

/* --overlap at depth 32: writes to disjoint ranges of one file go in
 * flight together (more than OVL_LIST_MAX of them: the index's trees),
 * while writes to one range, or reads of the range a write covers, go
 * one at a time (the file's short list), and every read finds the bytes
 * the write before it wrote. */
static void test_overlap_order(void **state)
{
	(void)state;
	enum { N = 40, SAME, DISJOINT, RW };
	const char *const paths[] = { "/data/o.dat" };
	const struct engine_ops *engines[] = { &engine_uring, &engine_libaio };
	int ran = 0;

	for (size_t k = 0; k < 2; k++) {
		if (!engine_usable(engines[k]))
			continue;
		ran++;
		for (int shape = SAME; shape <= RW; shape++) {
			struct runner_opts o = { .engine = engines[k], .depth = 32, .overlap = true,
						 .on_mismatch = MM_WARN };
			struct worker_result *w = calloc(1, sizeof(*w));
			struct op ops[N + 2];
			struct fixture f;

			ops[0] = (struct op){ .kind = OP_OPEN, .file = 0, .handle = 0,
					      .oflags = O_RDWR | O_CREAT | O_TRUNC, .aux = 0644,
					      .result = 3 };
			for (unsigned i = 0; i < N; i++)
				ops[1 + i] = (struct op){
					.kind = shape == RW && i % 2 ? OP_READ : OP_WRITE,
					.file = OP_NOFILE, .handle = 0,
					.offset = shape == DISJOINT ? (uint64_t)i * 4096 : 0,
					.len = 4096, .result = 4096 };
			ops[N + 1] = (struct op){ .kind = OP_CLOSE, .file = OP_NOFILE, .handle = 0 };
			write_ops(&f, paths, 1, ops, N + 2);
			build_plan(&f);
			assert_int_equal(run_rank(&f, &o, w, NULL), 0);
			assert_int_equal(w->cls[RC_WRITE].total_ios + w->cls[RC_READ].total_ios, N);
			assert_int_equal(w->cls[RC_READ].done_bytes, w->cls[RC_READ].io_bytes);
			assert_int_equal(w->mismatch[OP_READ] + w->mismatch[OP_WRITE], 0);
			if (shape == DISJOINT) {
				assert_true(w->max_inflight > OVL_LIST_MAX && w->max_inflight <= 32);
				assert_size(&f, "data/o.dat", N * 4096);
			} else {
				assert_int_equal(w->max_inflight, 1);
				assert_size(&f, "data/o.dat", 4096);
			}
			release(&f);
			free(w);
		}
	}
	if (!ran) {
		print_message("SKIP: neither io_uring nor libaio can run here\n");
		skip();
	}
}

/* A rank's I/O buffer follows what it transfers, not what it asks for:
 * `read(3, ..., 2147483647) = 10` (the builder caps the request at
 * OP_MAX_DATA_LEN, as the kernel does) needs 10 bytes (4 KiB, the least),
 * not 2 GiB; what a rank would need beyond the bound is issued in pieces. */
static void test_buffer_bounded(void **state)
{
	(void)state;
	const char *const paths[] = { "/data/in.dat" };
	const struct op ops[] = {
		{ .kind = OP_OPEN, .file = 0, .handle = 0, .oflags = O_RDONLY, .result = 3 },
		{ .kind = OP_READ, .file = OP_NOFILE, .handle = 0, .offset = 0, .len = OP_MAX_DATA_LEN,
		  .result = 10 },
		{ .kind = OP_CLOSE, .file = OP_NOFILE, .handle = 0 },
	};
	struct runner_opts o = { .engine = &engine_sync, .depth = 1 };
	struct worker_result *w = calloc(1, sizeof(*w));
	struct fixture f;
	uint64_t nsplit = 9;

	assert_int_equal(runner_buf_len(ops, 3, &o, &nsplit), 4096);
	assert_int_equal(nsplit, 0);
	o.direct = true;      /* rounding room for any alignment up to 64 KiB */
	assert_int_equal(runner_buf_len(ops, 3, &o, NULL), 2 * 65536);
	o.direct = false;
	/* a real 2 GiB transfer: 64 MiB, the rest in pieces */
	struct op big = ops[1];
	big.result = (int64_t)OP_MAX_DATA_LEN;
	assert_int_equal(runner_buf_len(&big, 1, &o, &nsplit), RUNNER_BUF_MAX);
	assert_int_equal(nsplit, 1);
	o.buf_max = 1 << 20;
	assert_int_equal(runner_buf_len(&big, 1, &o, NULL), 1 << 20);
	o.buf_max = 0;

	write_ops(&f, paths, 1, ops, 3);
	build_plan(&f);
	assert_int_equal(run_rank(&f, &o, w, NULL), 0);
	assert_int_equal(w->buf_bytes, 4096);
	assert_int_equal(w->split_ops, 0);
	assert_int_equal(w->cls[RC_READ].done_bytes, 10);
	release(&f);
	free(w);
}

/* Transfers longer than the buffer bound (4 KiB here) go in pieces, one
 * after the other, each op counted once; a short piece ends its op. */
static void test_pieces(void **state)
{
	(void)state;
	const char *const paths[] = { "/data/big.dat" };
	const struct op ops[] = {
		{ .kind = OP_OPEN, .file = 0, .handle = 0, .oflags = O_RDWR | O_CREAT | O_TRUNC,
		  .aux = 0644, .result = 3 },
		/* 10000 bytes at 100: pieces of 4096, 4096, 1808 */
		{ .kind = OP_WRITE, .file = OP_NOFILE, .handle = 0, .offset = 100, .len = 10000,
		  .result = 10000 },
		/* the trace read 16000 bytes: the replayed file ends at 10100, so the
		 * third piece (at 8292) is short and no fourth one is issued */
		{ .kind = OP_READ, .file = OP_NOFILE, .handle = 0, .offset = 100, .len = 16000,
		  .result = 16000 },
		{ .kind = OP_READ, .file = OP_NOFILE, .handle = 0, .offset = 0, .len = 4096,
		  .result = 4096 },
		{ .kind = OP_CLOSE, .file = OP_NOFILE, .handle = 0 },
	};
	const struct engine_ops *engines[] = { &engine_sync, &engine_uring, &engine_libaio };

	for (size_t k = 0; k < 3; k++) {
		/* (the short read is a mismatch: counted, not a stop, here) */
		struct runner_opts o = { .engine = engines[k], .depth = 4, .overlap = true,
					 .buf_max = 4096, .on_mismatch = MM_WARN };
		struct worker_result *w;
		struct fixture f;

		if (!engine_usable(engines[k]))
			continue;       /* the sync engine always runs */
		w = calloc(1, sizeof(*w));
		write_ops(&f, paths, 1, ops, 5);
		build_plan(&f);
		assert_int_equal(run_rank(&f, &o, w, NULL), 0);
		assert_int_equal(w->buf_bytes, 4096);
		assert_int_equal(w->split_ops, 2);
		assert_int_equal(w->cls[RC_WRITE].total_ios, 1);
		assert_int_equal(w->cls[RC_WRITE].io_bytes, 10000);
		assert_int_equal(w->cls[RC_WRITE].done_bytes, 10000);
		assert_int_equal(w->cls[RC_WRITE].lat.n, 1);
		/* the read that came back short is a mismatch, with its example */
		assert_int_equal(w->mismatch[OP_READ], 1);
		assert_int_equal(w->nmm_ex, 1);
		assert_int_equal(w->mm_ex[0].op, 2);
		assert_int_equal(w->mm_ex[0].want, 16000);
		assert_int_equal(w->cls[RC_READ].total_ios, 2);
		assert_int_equal(w->cls[RC_READ].io_bytes, 16000 + 4096);
		assert_int_equal(w->cls[RC_READ].done_bytes, 10000 + 4096);
		assert_int_equal(w->cls[RC_READ].short_ios, 1);
		assert_int_equal(w->cls[RC_READ].errors, 0);
		assert_size(&f, "data/big.dat", 10100);
		release(&f);
		free(w);
	}
}


/* The sync engine's reads and writes skip queue() (sync_rw): every count
 * must be what queue() gives.  A copy of engine_sync's table (the same
 * functions at another address) takes the queue() path.  A short read,
 * a failing write, a read of a file the default filter leaves out and a
 * traced failure are all in the trace. */
static void test_sync_direct_path(void **state)
{
	(void)state;
	const char *const paths[] = { "/data/a.dat", "/data/in.dat", "/etc/x.conf" };
	const struct op ops[] = {
		{ .kind = OP_OPEN, .file = 0, .handle = 0, .oflags = O_RDWR | O_CREAT | O_TRUNC,
		  .aux = 0644, .result = 3 },
		{ .kind = OP_WRITE, .file = OP_NOFILE, .handle = 0, .offset = 0, .len = 4096,
		  .result = 4096 },
		{ .kind = OP_FTRUNCATE, .file = OP_NOFILE, .handle = 0, .len = 100 },
		/* the file now ends at 100: this read is short */
		{ .kind = OP_READ, .file = OP_NOFILE, .handle = 0, .offset = 0, .len = 1000,
		  .result = 1000 },
		/* traced as failed: not issued */
		{ .kind = OP_WRITE, .file = OP_NOFILE, .handle = 0, .offset = 0, .len = 10,
		  .result = -EIO },
		{ .kind = OP_OPEN, .file = 1, .handle = 1, .oflags = O_RDONLY, .result = 4 },
		/* EBADF: the replayed fd is read-only */
		{ .kind = OP_WRITE, .file = OP_NOFILE, .handle = 1, .offset = 0, .len = 10,
		  .result = 10 },
		{ .kind = OP_READ, .file = OP_NOFILE, .handle = 1, .offset = 20, .len = 50,
		  .result = 50 },
		/* the read returned fewer bytes in the trace: that many are read */
		{ .kind = OP_READ, .file = OP_NOFILE, .handle = 1, .offset = 0, .len = 64,
		  .result = 8 },
		/* /etc: left out, open and read */
		{ .kind = OP_OPEN, .file = 2, .handle = 2, .oflags = O_RDONLY, .result = 5 },
		{ .kind = OP_READ, .file = 2, .handle = 2, .offset = 0, .len = 30, .result = 30 },
		{ .kind = OP_CLOSE, .file = OP_NOFILE, .handle = 0 },
		{ .kind = OP_CLOSE, .file = OP_NOFILE, .handle = 1 },
	};
	const size_t n = sizeof(ops) / sizeof(ops[0]);
	struct engine_ops via_queue = engine_sync;
	struct worker_result *w[2];

	for (int k = 0; k < 2; k++) {
		struct runner_opts o = { .engine = k ? &via_queue : &engine_sync, .depth = 1,
					 .continue_on_error = true, .on_mismatch = MM_WARN };
		struct filter_opts fo = { 0 };
		struct filter flt;
		struct plan_opts po = { .filter = &flt };
		struct fixture f;
		struct rerr e;

		w[k] = calloc(1, sizeof(*w[k]));
		write_ops(&f, paths, 3, ops, n);
		/* the default excludes */
		assert_int_equal(filter_build(&flt, &f.s, &fo, &e), 0);
		memset(&f.plan, 0, sizeof(f.plan));
		assert_int_equal(plan_build(&f.plan, &f.s, f.target, &po, &e), 0);
		assert_int_equal(plan_prepare(&f.plan, &e), 0);
		assert_int_equal(run_rank(&f, &o, w[k], NULL), 0);
		assert_size(&f, "data/a.dat", 100);
		release(&f);
		filter_release(&flt);
	}
	for (int k = 0; k < 2; k++) {
		assert_int_equal(w[k]->cls[RC_WRITE].total_ios, 2);
		assert_int_equal(w[k]->cls[RC_WRITE].io_bytes, 4106);
		assert_int_equal(w[k]->cls[RC_WRITE].done_bytes, 4096);
		assert_int_equal(w[k]->cls[RC_WRITE].errors, 1);
		assert_int_equal(w[k]->cls[RC_READ].total_ios, 3);
		assert_int_equal(w[k]->cls[RC_READ].io_bytes, 1000 + 50 + 8);
		assert_int_equal(w[k]->cls[RC_READ].done_bytes, 100 + 50 + 8);
		assert_int_equal(w[k]->cls[RC_READ].short_ios, 1);
		assert_int_equal(w[k]->eng_short_ios, 1);
		assert_int_equal(w[k]->mismatch[OP_READ], 1);
		assert_int_equal(w[k]->errno_counts[EBADF], 1);
		assert_int_equal(w[k]->skipped_failed, 1);
		assert_int_equal(w[k]->filtered, 2);
		assert_int_equal(w[k]->max_inflight, 1);
		assert_int_equal(w[k]->bytes_done, 4096 + 158);
		assert_int_equal(w[k]->ops_done, n);
	}
	/* the two paths agree on every count (the latencies aside) */
	assert_same_counts(w[0], w[1]);
	for (unsigned c = 0; c < RC__COUNT; c++)
		assert_int_equal(w[0]->cls[c].lat.n, w[1]->cls[c].lat.n);
	assert_int_equal(w[0]->nmm_ex, w[1]->nmm_ex);
	assert_memory_equal(w[0]->mm_ex, w[1]->mm_ex, sizeof(w[0]->mm_ex));
	assert_int_equal(w[0]->eng_short_ios, w[1]->eng_short_ios);
	assert_int_equal(w[0]->filtered, w[1]->filtered);
	free(w[0]);
	free(w[1]);
}

/* The final flush cannot open a file the rank wrote (here: no descriptor
 * left, EMFILE): the rank fails, naming the file, instead of ending well. */
static void test_flush_open_error(void **state)
{
	(void)state;
	const char *const paths[] = { "/data/out.dat" };
	const struct op ops[] = {
		{ .kind = OP_OPEN, .file = 0, .handle = 0, .oflags = O_WRONLY | O_CREAT | O_TRUNC,
		  .aux = 0644, .result = 3 },
		{ .kind = OP_WRITE, .file = OP_NOFILE, .handle = 0, .offset = 0, .len = 100,
		  .result = 100 },
		/* no close: the descriptor stays open through the flush */
	};
	struct runner_opts o = { .engine = &engine_sync, .depth = 1 };
	struct worker_result *w = calloc(1, sizeof(*w));
	struct target_info ti;
	struct rlimit old, lim;
	struct fixture f;
	int a, b, ret;

	write_ops(&f, paths, 1, ops, 2);
	build_plan(&f);
	/* the walk opens a descriptor per directory: the one-descriptor limit
	 * below holds only with openat2 */
	assert_int_equal(target_info_get(f.target, &ti), 0);
	if (strcmp(ti.resolve, "openat2")) {
		release(&f);
		free(w);
		print_message("SKIP: paths are resolved by a walk here, not openat2: the "
			      "descriptor limit cannot let exactly one open through\n");
		skip();
	}
	/* the two lowest free descriptors a < b: with the limit at b, the
	 * rank's open gets a and the flush's open finds none */
	a = dup(2);
	b = dup(2);
	assert_true(a >= 0 && b > a);
	close(a);
	close(b);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)b;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
	ret = run_rank(&f, &o, w, NULL);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(w->cls[RC_OPEN].errors, 0);       /* the rank's own open worked */
	assert_int_equal(w->cls[RC_WRITE].done_bytes, 100);
	assert_int_equal(ret, -EMFILE);
	assert_int_equal(w->fail_errno, EMFILE);
	assert_int_equal(w->errno_counts[EMFILE], 1);
	assert_non_null(strstr(w->fail_msg, "flush of '/data/out.dat': cannot open it"));
	release(&f);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_rank),
		cmocka_unit_test(test_op_req),
		cmocka_unit_test(test_direct_short_read_len),
		cmocka_unit_test(test_rclass),
		cmocka_unit_test(test_repeat_stats),
		cmocka_unit_test(test_replay_continue),
		cmocka_unit_test(test_replay_open_failed),
		cmocka_unit_test(test_replay_stops_on_error),
		cmocka_unit_test(test_replay_null_engine_and_stop),
		cmocka_unit_test(test_replay_async),
		cmocka_unit_test(test_overlap_order),
		cmocka_unit_test(test_buffer_bounded),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_sync_direct_path),
		cmocka_unit_test(test_no_lat),
		cmocka_unit_test(test_async_rw_path),
		cmocka_unit_test(test_flush_open_error),
		cmocka_unit_test(test_replay_truncate_path),
	};
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
