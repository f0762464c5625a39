/* test_engine_sync.c - the sync and null engines on real files, and the registry. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/engine.h"

#define TMPDIR_TEMPLATE "/tmp/replay-test-esyncXXXXXX"
#include "tmpdir_fixture.h"

static int open_file(const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	return fd;
}

static void test_registry(void **state)
{
	(void)state;
	assert_ptr_equal(engine_find("sync"), &engine_sync);
	assert_ptr_equal(engine_find("null"), &engine_null);
	assert_ptr_equal(engine_find("libaio"), &engine_libaio);
	assert_ptr_equal(engine_find("io_uring"), &engine_uring);
	assert_null(engine_find("psync"));
	assert_null(engine_find(""));
	assert_non_null(strstr(engine_names(), "io_uring"));
	assert_true(engine_sync.flags & ENGINE_F_SYNC);
	assert_true(engine_null.flags & ENGINE_F_SYNC);
}

static void test_sync_rw(void **state)
{
	(void)state;
	struct engine e = { .ops = &engine_sync };
	struct engine_opts o = { .depth = 4 };
	char wbuf[4096], rbuf[4096];
	struct io_req r;
	struct stat st;
	const char *why = "x";
	int fd = open_file("rw");

	assert_int_equal(engine_sync.probe(&why), 0);
	assert_int_equal(engine_sync.init(&e, &o), 0);
	assert_int_equal(e.depth, 1);
	for (size_t i = 0; i < sizeof(wbuf); i++)
		wbuf[i] = (char)(i * 7 + 1);

	r = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = wbuf, .len = 4096, .offset = 8192 };
	assert_int_equal(engine_sync.queue(&e, &r), ENGINE_COMPLETED);
	assert_int_equal(r.res, 4096);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 12288);

	memset(rbuf, 0, sizeof(rbuf));
	r = (struct io_req){ .fd = fd, .dir = IO_READ, .buf = rbuf, .len = 4096, .offset = 8192 };
	assert_int_equal(engine_sync.queue(&e, &r), ENGINE_COMPLETED);
	assert_int_equal(r.res, 4096);
	assert_memory_equal(rbuf, wbuf, 4096);
	assert_int_equal(e.short_ios, 0);

	/* a read across EOF is short: reported, counted, not retried */
	r = (struct io_req){ .fd = fd, .dir = IO_READ, .buf = rbuf, .len = 4096, .offset = 10240 };
	assert_int_equal(engine_sync.queue(&e, &r), ENGINE_COMPLETED);
	assert_int_equal(r.res, 2048);
	assert_int_equal(e.short_ios, 1);

	/* a write's per-call sync flags (pwritev2): RWF_DSYNC and RWF_SYNC
	 * write; a flag Linux does not know is refused, which only a flag
	 * passed on can be (before: dropped, a plain pwrite) */
	r = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = wbuf, .len = 100, .offset = 0,
			     .rw_flags = RWF_DSYNC };
	assert_int_equal(engine_sync.queue(&e, &r), ENGINE_COMPLETED);
	assert_int_equal(r.res, 100);
	r = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = wbuf, .len = 100, .offset = 100,
			     .rw_flags = RWF_SYNC };
	assert_int_equal(engine_sync.queue(&e, &r), ENGINE_COMPLETED);
	assert_int_equal(r.res, 100);
	r = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = wbuf, .len = 100, .offset = 200,
			     .rw_flags = 0x40000000 };
	assert_int_equal(engine_sync.queue(&e, &r), ENGINE_COMPLETED);
	assert_int_equal(r.res, -EOPNOTSUPP);
	memset(rbuf, 0, sizeof(rbuf));
	assert_int_equal(pread(fd, rbuf, 200, 0), 200);
	assert_memory_equal(rbuf, wbuf, 100);
	assert_memory_equal(rbuf + 100, wbuf, 100);

	r = (struct io_req){ .fd = fd, .dir = IO_FSYNC };
	assert_int_equal(engine_sync.queue(&e, &r), ENGINE_COMPLETED);
	assert_int_equal(r.res, 0);
	r = (struct io_req){ .fd = fd, .dir = IO_FDATASYNC };
	assert_int_equal(engine_sync.queue(&e, &r), ENGINE_COMPLETED);
	assert_int_equal(r.res, 0);
	assert_int_equal(engine_sync.commit(&e), 0);
	assert_int_equal(engine_sync.reap(&e, 0, 1, NULL, NULL), 0);
	engine_sync.exit(&e);
	close(fd);
}

static void test_sync_errors(void **state)
{
	(void)state;
	struct engine e = { .ops = &engine_sync };
	struct engine_opts o = { .depth = 1 };
	char buf[16] = "abc";
	struct io_req r;
	int fd;
	char p[256];

	assert_int_equal(engine_sync.init(&e, &o), 0);
	r = (struct io_req){ .fd = -1, .dir = IO_WRITE, .buf = buf, .len = 3 };
	assert_int_equal(engine_sync.queue(&e, &r), ENGINE_COMPLETED);
	assert_int_equal(r.res, -EBADF);
	/* writing a read-only fd */
	close(open_file("ro"));
	snprintf(p, sizeof(p), "%s/ro", dir);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	r = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = buf, .len = 3 };
	engine_sync.queue(&e, &r);
	assert_int_equal(r.res, -EBADF);
	close(fd);
	engine_sync.exit(&e);
}

static void test_null(void **state)
{
	(void)state;
	struct engine e = { .ops = &engine_null };
	struct engine_opts o = { .depth = 8 };
	char buf[64];
	struct io_req r;
	struct stat st;
	int fd = open_file("null");

	assert_int_equal(engine_null.init(&e, &o), 0);
	r = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = buf, .len = 64, .offset = 1 << 20 };
	assert_int_equal(engine_null.queue(&e, &r), ENGINE_COMPLETED);
	assert_int_equal(r.res, 64);
	r = (struct io_req){ .fd = fd, .dir = IO_FSYNC };
	assert_int_equal(engine_null.queue(&e, &r), ENGINE_COMPLETED);
	assert_int_equal(r.res, 0);
	/* nothing reached the file */
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	engine_null.exit(&e);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_sync_rw),
		cmocka_unit_test(test_sync_errors),
		cmocka_unit_test(test_null),
	};
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
