/* test_direct.c - the O_DIRECT alignment policy (direct.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "run/direct.h"
#include "engine/engine.h"

static void t_align(void **state)
{
	(void)state;
	uint64_t a, l;

	/* already aligned: unchanged */
	direct_align(8192, 4096, 4096, &a, &l);
	assert_int_equal(a, 8192);
	assert_int_equal(l, 4096);
	/* odd traced size at 0: end rounded up */
	direct_align(0, 10444, 4096, &a, &l);
	assert_int_equal(a, 0);
	assert_int_equal(l, 12288);
	/* both ends unaligned, 512-byte blocks: 1000..11444 -> 512..11776 */
	direct_align(1000, 10444, 512, &a, &l);
	assert_int_equal(a, 512);
	assert_int_equal(l, 11776 - 512);
	/* one byte straddling a block boundary: two blocks */
	direct_align(4095, 2, 4096, &a, &l);
	assert_int_equal(a, 0);
	assert_int_equal(l, 8192);
	/* zero length stays zero */
	direct_align(5000, 0, 4096, &a, &l);
	assert_int_equal(a, 4096);
	assert_int_equal(l, 0);
	/* large offsets (> 4 GiB) keep their high bits */
	direct_align((5ull << 32) + 100, 3996, 4096, &a, &l);
	assert_int_equal(a, 5ull << 32);
	assert_int_equal(l, 4096);
}

static void t_buf_len_covers_any_offset(void **state)
{
	(void)state;
	/* for every offset within a block, the rounded length fits the buffer */
	for (uint64_t len = 1; len < 3 * 512; len += 97)
		for (uint64_t off = 0; off < 512; off += 13) {
			uint64_t a, l;

			direct_align(off, len, 512, &a, &l);
			assert_true(l <= direct_buf_len(len, 512));
		}
	assert_int_equal(direct_buf_len(10444, 4096), 12288 + 4096);
}

static void t_adjust_and_result(void **state)
{
	(void)state;
	struct io_req r = { .dir = IO_READ, .offset = 1000, .len = 10444 };
	uint64_t ooff, olen;

	assert_int_equal(direct_adjust(&r, 512, &ooff, &olen), (11776 - 512) - 10444);
	assert_int_equal(r.offset, 512);
	assert_int_equal(r.len, 11776 - 512);
	assert_int_equal(ooff, 1000);
	assert_int_equal(olen, 10444);
	/* full transfer -> the traced bytes */
	assert_int_equal(direct_result((int64_t)r.len, r.offset, ooff, olen), 10444);
	/* short transfer ending inside the traced range (EOF at 6000) */
	assert_int_equal(direct_result(6000 - 512, r.offset, ooff, olen), 5000);
	/* transfer that stops before the traced range */
	assert_int_equal(direct_result(200, r.offset, ooff, olen), 0);
	/* errors pass through */
	assert_int_equal(direct_result(-EIO, r.offset, ooff, olen), -EIO);
	/* aligned requests: no extra */
	struct io_req w = { .dir = IO_WRITE, .offset = 4096, .len = 8192 };
	assert_int_equal(direct_adjust(&w, 4096, &ooff, &olen), 0);
	assert_int_equal(w.offset, 4096);
	assert_int_equal(w.len, 8192);
	/* syncs untouched */
	struct io_req s = { .dir = IO_FSYNC, .offset = 7, .len = 3 };
	assert_int_equal(direct_adjust(&s, 4096, &ooff, &olen), 0);
	assert_int_equal(s.offset, 7);
	assert_int_equal(s.len, 3);
}

static void t_query_and_alloc(void **state)
{
	(void)state;
	char path[] = "/var/tmp/replay-direct-XXXXXX";
	int fd = mkstemp(path);
	uint32_t oal = 0, mal = 0;
	void *buf = NULL;

	assert_true(fd >= 0);
	int ret = direct_query_align(fd, 0, &oal, &mal);
	if (ret == -EOPNOTSUPP) {
		unlink(path);
		close(fd);
		skip();
	}
	assert_int_equal(ret, 0);
	/* a power of two between 1 and 64 KiB */
	assert_true(oal >= 1 && oal <= 65536 && (oal & (oal - 1)) == 0);
	assert_true(mal >= 1 && mal <= 65536 && (mal & (mal - 1)) == 0);
	/* the answer really works: an aligned O_DIRECT write succeeds */
	int dfd = open(path, O_RDWR | O_DIRECT);
	if (dfd >= 0) {
		assert_int_equal(direct_buf_alloc(&buf, oal * 2, mal < 512 ? 512 : mal), 0);
		assert_int_equal(((uintptr_t)buf) % mal, 0);
		assert_int_equal(pwrite(dfd, buf, oal * 2, oal), (ssize_t)oal * 2);
		free(buf);
		close(dfd);
	}
	/* a pipe is no block device and no regular file: the fallback */
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(direct_query_align(p[0], 512, &oal, &mal), 0);
	assert_int_equal(oal, 512);
	assert_int_equal(mal, 512);
	assert_int_equal(direct_query_align(p[0], 0, &oal, &mal), 0);
	assert_int_equal(oal, DIRECT_DEFAULT_ALIGN);
	close(p[0]);
	close(p[1]);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_align),
		cmocka_unit_test(t_buf_len_covers_any_offset),
		cmocka_unit_test(t_adjust_and_result),
		cmocka_unit_test(t_query_and_alloc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
