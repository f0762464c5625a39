/*
 * engine_check.h - engine tests shared by test_engine_aio.c and
 * test_engine_uring.c: real files, real I/O, results read back with pread.
 * Each test includes it after setting ENGINE_UNDER_TEST.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/direct.h"
#include "engine/engine.h"

static char tdir[256];

static int setup_dir(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR");

	snprintf(tdir, sizeof(tdir), "%s/replay-engine-XXXXXX", base && *base ? base : "/var/tmp");
	return mkdtemp(tdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	(void)state;
	return rmdir(tdir);
}

static int open_tmp(const char *name, int flags, char *path, size_t plen)
{
	snprintf(path, plen, "%s/%s", tdir, name);
	return open(path, flags | O_CREAT, 0644);
}

static void fill(unsigned char *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(seed * 31u + i * 7u + (i >> 8));
}

/* Reap until `n` completions arrived; returns how many reap calls it took. */
static unsigned reap_all(struct engine *e, unsigned n, struct io_req **done)
{
	unsigned got = 0, calls = 0;
	struct timespec ts = { 5, 0 };

	while (got < n) {
		int r = e->ops->reap(e, 1, n - got, done + got, &ts);

		assert_true(r >= 1);
		got += (unsigned)r;
		calls++;
	}
	return calls;
}

/* depth 8: eight writes in flight at once, then read back with pread. */
static void t_write_depth_readback(void **state)
{
	(void)state;
	enum { N = 8, SZ = 4096 };
	struct engine e = { .ops = &ENGINE_UNDER_TEST };
	struct engine_opts o = { .depth = N };
	struct io_req reqs[N + 1], *done[N];
	unsigned char *bufs[N], chk[SZ];
	char path[300];
	int fd = open_tmp("w8", O_RDWR | O_TRUNC, path, sizeof(path));

	assert_true(fd >= 0);
	assert_int_equal(e.ops->init(&e, &o), 0);
	for (unsigned i = 0; i < N; i++) {
		bufs[i] = malloc(SZ);
		fill(bufs[i], SZ, i + 1);
		reqs[i] = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = bufs[i], .len = SZ,
					   .offset = (uint64_t)(N - 1 - i) * SZ, .op_index = i };
		assert_int_equal(e.ops->queue(&e, &reqs[i]), ENGINE_QUEUED);
	}
	/* the ninth does not fit */
	reqs[N] = reqs[0];
	assert_int_equal(e.ops->queue(&e, &reqs[N]), ENGINE_BUSY);
	assert_int_equal(e.ops->commit(&e), 0);
	reap_all(&e, N, done);
	unsigned seen = 0;
	for (unsigned i = 0; i < N; i++) {
		assert_true(done[i] >= reqs && done[i] < reqs + N);
		assert_int_equal(done[i]->res, SZ);
		seen |= 1u << done[i]->op_index;
	}
	assert_int_equal(seen, (1u << N) - 1);
	assert_int_equal(e.short_ios, 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, N * SZ);
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(pread(fd, chk, SZ, (off_t)(N - 1 - i) * SZ), SZ);
		assert_memory_equal(chk, bufs[i], SZ);
		free(bufs[i]);
	}
	e.ops->exit(&e);
	close(fd);
	unlink(path);
}

/* reads past EOF are short (and one returns 0): counted, not hidden. */
static void t_short_reads(void **state)
{
	(void)state;
	struct engine e = { .ops = &ENGINE_UNDER_TEST };
	struct engine_opts o = { .depth = 4 };
	struct io_req r[3], *done[3];
	unsigned char data[6000], b0[4096], b1[4096], b2[4096];
	char path[300];
	int fd = open_tmp("short", O_RDWR | O_TRUNC, path, sizeof(path));

	assert_true(fd >= 0);
	fill(data, sizeof(data), 9);
	assert_int_equal(pwrite(fd, data, sizeof(data), 0), (ssize_t)sizeof(data));
	assert_int_equal(e.ops->init(&e, &o), 0);
	r[0] = (struct io_req){ .fd = fd, .dir = IO_READ, .buf = b0, .len = 4096, .offset = 0 };
	r[1] = (struct io_req){ .fd = fd, .dir = IO_READ, .buf = b1, .len = 4096, .offset = 4096 };
	r[2] = (struct io_req){ .fd = fd, .dir = IO_READ, .buf = b2, .len = 4096, .offset = 8192 };
	for (int i = 0; i < 3; i++)
		assert_int_equal(e.ops->queue(&e, &r[i]), ENGINE_QUEUED);
	assert_int_equal(e.ops->commit(&e), 0);
	reap_all(&e, 3, done);
	assert_int_equal(r[0].res, 4096);
	assert_int_equal(r[1].res, 6000 - 4096);
	assert_int_equal(r[2].res, 0);
	assert_int_equal(e.short_ios, 2);
	assert_memory_equal(b0, data, 4096);
	assert_memory_equal(b1, data + 4096, 6000 - 4096);
	e.ops->exit(&e);
	close(fd);
	unlink(path);
}

/* depth 2, 300 requests: BUSY -> commit -> reap -> queue again, as the
 * runner does; every byte must land in place. */
static void t_tiny_depth_many(void **state)
{
	(void)state;
	enum { N = 300, SZ = 512, D = 2 };
	struct engine e = { .ops = &ENGINE_UNDER_TEST };
	struct engine_opts o = { .depth = D };
	struct io_req *reqs = calloc(N, sizeof(*reqs)), *done[D];
	unsigned char *buf = malloc((size_t)N * SZ), chk[SZ];
	char path[300];
	unsigned busy = 0, completed = 0, maxq = 0, q = 0;
	int fd = open_tmp("many", O_RDWR | O_TRUNC, path, sizeof(path));

	assert_true(fd >= 0 && reqs && buf);
	assert_int_equal(e.ops->init(&e, &o), 0);
	for (unsigned i = 0; i < N; i++) {
		fill(buf + (size_t)i * SZ, SZ, i);
		reqs[i] = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = buf + (size_t)i * SZ,
					   .len = SZ, .offset = (uint64_t)i * SZ, .op_index = i };
		for (;;) {
			int ret = e.ops->queue(&e, &reqs[i]);

			if (ret == ENGINE_QUEUED) {
				q++;
				if (q > maxq)
					maxq = q;
				break;
			}
			assert_int_equal(ret, ENGINE_BUSY);
			busy++;
			assert_int_equal(e.ops->commit(&e), 0);
			int n = e.ops->reap(&e, 1, D, done, NULL);
			assert_true(n >= 1);
			for (int k = 0; k < n; k++)
				assert_int_equal(done[k]->res, SZ);
			completed += (unsigned)n;
			q -= (unsigned)n;
		}
	}
	assert_int_equal(e.ops->commit(&e), 0);
	while (completed < N) {
		int n = e.ops->reap(&e, 1, D, done, NULL);
		assert_true(n >= 1);
		completed += (unsigned)n;
	}
	assert_int_equal(completed, N);
	assert_int_equal(maxq, D);
	assert_true(busy >= N / D - 1);
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(pread(fd, chk, SZ, (off_t)i * SZ), SZ);
		assert_memory_equal(chk, buf + (size_t)i * SZ, SZ);
	}
	e.ops->exit(&e);
	close(fd);
	unlink(path);
	free(reqs);
	free(buf);
}

/* write + fsync + fdatasync; a request on a bad handle fails alone. */
static void t_sync_and_errors(void **state)
{
	(void)state;
	struct engine e = { .ops = &ENGINE_UNDER_TEST };
	struct engine_opts o = { .depth = 4 };
	struct io_req r[4], *done[4];
	unsigned char b[1024], rb[1024];
	char path[300];
	int fd = open_tmp("sync", O_RDWR | O_TRUNC, path, sizeof(path));
	int wfd = open(path, O_WRONLY);

	assert_true(fd >= 0 && wfd >= 0);
	fill(b, sizeof(b), 3);
	assert_int_equal(e.ops->init(&e, &o), 0);
	r[0] = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = b, .len = sizeof(b), .offset = 0 };
	assert_int_equal(e.ops->queue(&e, &r[0]), ENGINE_QUEUED);
	assert_int_equal(e.ops->commit(&e), 0);
	reap_all(&e, 1, done);
	assert_int_equal(r[0].res, (int64_t)sizeof(b));
	/* syncs (libaio may do them synchronously: COMPLETED or QUEUED) */
	r[1] = (struct io_req){ .fd = fd, .dir = IO_FSYNC, .res = 1 };
	r[2] = (struct io_req){ .fd = fd, .dir = IO_FDATASYNC, .res = 1 };
	unsigned queued = 0;
	for (int i = 1; i <= 2; i++) {
		int ret = e.ops->queue(&e, &r[i]);
		assert_true(ret == ENGINE_QUEUED || ret == ENGINE_COMPLETED);
		queued += ret == ENGINE_QUEUED;
		assert_int_equal(e.ops->commit(&e), 0);
	}
	if (queued)
		reap_all(&e, queued, done);
	assert_int_equal(r[1].res, 0);
	assert_int_equal(r[2].res, 0);
	/* a read on a write-only fd: -EBADF for it, the good one succeeds */
	r[0] = (struct io_req){ .fd = wfd, .dir = IO_READ, .buf = rb, .len = sizeof(rb), .offset = 0 };
	r[3] = (struct io_req){ .fd = fd, .dir = IO_READ, .buf = rb, .len = 512, .offset = 512 };
	assert_int_equal(e.ops->queue(&e, &r[0]), ENGINE_QUEUED);
	assert_int_equal(e.ops->queue(&e, &r[3]), ENGINE_QUEUED);
	assert_int_equal(e.ops->commit(&e), 0);
	reap_all(&e, 2, done);
	assert_int_equal(r[0].res, -EBADF);
	assert_int_equal(r[3].res, 512);
	assert_memory_equal(rb, b + 512, 512);
	/* nothing in flight: a zero-minimum reap returns at once */
	struct timespec zero = { 0, 0 };
	assert_int_equal(e.ops->reap(&e, 0, 4, done, &zero), 0);
	e.ops->exit(&e);
	close(wfd);
	close(fd);
	unlink(path);
}

/* A write's per-call sync flags reach the kernel: RWF_DSYNC writes (and
 * reads back), a flag Linux does not know is refused (EOPNOTSUPP) for
 * that request alone, which only a flag passed on can be.  Before: the
 * flags were dropped and both writes succeeded as plain ones. */
static void t_rw_flags(void **state)
{
	(void)state;
	struct engine e = { .ops = &ENGINE_UNDER_TEST };
	struct engine_opts o = { .depth = 4 };
	struct io_req r[3], *done[3];
	unsigned char b[512], rb[512];
	char path[300];
	int fd = open_tmp("rwf", O_RDWR | O_TRUNC, path, sizeof(path));

	assert_true(fd >= 0);
	fill(b, sizeof(b), 5);
	assert_int_equal(e.ops->init(&e, &o), 0);
	r[0] = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = b, .len = sizeof(b), .offset = 0,
				.rw_flags = RWF_DSYNC };
	r[1] = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = b, .len = sizeof(b), .offset = 4096,
				.rw_flags = RWF_SYNC };
	r[2] = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = b, .len = sizeof(b), .offset = 8192,
				.rw_flags = 0x40000000 };
	unsigned queued = 0;
	for (int i = 0; i < 3; i++) {
		int ret = e.ops->queue(&e, &r[i]);
		assert_true(ret == ENGINE_QUEUED || ret == ENGINE_COMPLETED);
		queued += ret == ENGINE_QUEUED;
		assert_int_equal(e.ops->commit(&e), 0);
	}
	if (queued)
		reap_all(&e, queued, done);
	assert_int_equal(r[0].res, (int64_t)sizeof(b));
	assert_int_equal(r[1].res, (int64_t)sizeof(b));
	assert_int_equal(r[2].res, -EOPNOTSUPP);
	assert_int_equal(pread(fd, rb, sizeof(rb), 4096), (ssize_t)sizeof(rb));
	assert_memory_equal(rb, b, sizeof(b));
	e.ops->exit(&e);
	close(fd);
	unlink(path);
}

/* O_DIRECT with the alignment policy: an odd traced write (10444 bytes at
 * offset 1000) is rounded, succeeds, and maps back to the traced bytes. */
static void t_direct_rounded(void **state)
{
	(void)state;
	struct engine e = { .ops = &ENGINE_UNDER_TEST };
	struct engine_opts o = { .depth = 2, .direct = 1 };
	struct io_req r, *done[1];
	uint64_t ooff, olen, extra;
	uint32_t oal, mal;
	void *buf = NULL;
	char path[300];
	int fd = open_tmp("direct", O_RDWR | O_TRUNC | O_DIRECT, path, sizeof(path));

	if (fd < 0 && errno == EINVAL)
		skip(); /* file system without O_DIRECT (tmpfs) */
	assert_true(fd >= 0);
	assert_int_equal(direct_query_align(fd, 0, &oal, &mal), 0);
	assert_int_equal(direct_buf_alloc(&buf, direct_buf_len(10444, oal), mal > oal ? mal : oal), 0);
	fill(buf, (size_t)direct_buf_len(10444, oal), 5);
	assert_int_equal(e.ops->init(&e, &o), 0);
	r = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = buf, .len = 10444, .offset = 1000 };
	extra = direct_adjust(&r, oal, &ooff, &olen);
	assert_true(extra > 0);
	assert_int_equal(r.offset % oal, 0);
	assert_int_equal(r.len % oal, 0);
	assert_int_equal(r.len, 10444 + extra);
	assert_int_equal(e.ops->queue(&e, &r), ENGINE_QUEUED);
	assert_int_equal(e.ops->commit(&e), 0);
	reap_all(&e, 1, done);
	assert_int_equal(r.res, (int64_t)r.len);
	assert_int_equal(direct_result(r.res, r.offset, ooff, olen), 10444);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal((uint64_t)st.st_size, r.offset + r.len);
	e.ops->exit(&e);
	free(buf);
	close(fd);
	unlink(path);
}

#define ENGINE_CHECK_TESTS                                     \
	cmocka_unit_test(t_write_depth_readback),              \
	cmocka_unit_test(t_short_reads),                       \
	cmocka_unit_test(t_tiny_depth_many),                   \
	cmocka_unit_test(t_sync_and_errors),                   \
	cmocka_unit_test(t_rw_flags),                          \
	cmocka_unit_test(t_direct_rounded)
