/* test_engine_aio.c - the libaio engine on real files (tests in engine_check.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define ENGINE_UNDER_TEST engine_libaio
#include "engine_check.h"

static void t_warn_buffered(void **state)
{
	(void)state;
	assert_int_equal(engine_warn_buffered(&engine_libaio, 0), 1);
	assert_int_equal(engine_warn_buffered(&engine_libaio, 1), 0);
	assert_int_equal(engine_warn_buffered(&engine_uring, 0), 0);
}

/* A sync the kernel refuses through AIO (EINVAL at submit: a pipe has no
 * fsync) falls back to fsync(2), counted; later syncs of this engine are
 * then done synchronously (COMPLETED at queue time) and still land. */
static void t_fsync_fallback(void **state)
{
	(void)state;
	struct engine e = { .ops = &engine_libaio };
	struct engine_opts o = { .depth = 4 };
	struct io_req w, s1, s2, *done[4];
	unsigned char b[4096];
	char path[300];
	int p[2];
	int fd = open_tmp("fb", O_RDWR | O_TRUNC, path, sizeof(path));

	assert_true(fd >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(e.ops->init(&e, &o), 0);
	/* a write in flight, then the refused sync: the write completes first */
	fill(b, sizeof(b), 4);
	w = (struct io_req){ .fd = fd, .dir = IO_WRITE, .buf = b, .len = sizeof(b), .offset = 0 };
	s1 = (struct io_req){ .fd = p[1], .dir = IO_FSYNC, .res = 1 };
	assert_int_equal(e.ops->queue(&e, &w), ENGINE_QUEUED);
	assert_int_equal(e.ops->queue(&e, &s1), ENGINE_QUEUED);
	assert_int_equal(e.ops->commit(&e), 0);
	reap_all(&e, 2, done);
	assert_int_equal(w.res, (int64_t)sizeof(b));
	assert_int_equal(s1.res, -EINVAL);      /* fsync(2) on a pipe says the same */
	assert_int_equal(e.sync_fallback, 1);
	/* from now on syncs are synchronous */
	s2 = (struct io_req){ .fd = fd, .dir = IO_FDATASYNC, .res = 1 };
	assert_int_equal(e.ops->queue(&e, &s2), ENGINE_COMPLETED);
	assert_int_equal(s2.res, 0);
	assert_int_equal(e.sync_fallback, 2);
	e.ops->exit(&e);
	close(p[0]);
	close(p[1]);
	close(fd);
	unlink(path);
}

int main(void)
{
	const char *why = NULL;
	int ret = engine_libaio.probe(&why);

	if (ret < 0) {
		printf("SKIP: %s\n", why ? why : "libaio unavailable");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		ENGINE_CHECK_TESTS,
		cmocka_unit_test(t_warn_buffered),
		cmocka_unit_test(t_fsync_fallback),
	};
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
