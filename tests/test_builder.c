/* test_builder.c - fd tables, positions and counters of the op builder. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ops/builder.h"
#include "ops/opstream.h"

#define TMPDIR_TEMPLATE "/tmp/replay-test-builderXXXXXX"
#include "tmpdir_fixture.h"
#include "strace_text.h"

struct fx {
	char path[256];
	struct ops_writer *w;
	struct builder *b;
	struct opstream s;
	int opened;
	unsigned long line;
	uint64_t ts;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	const char *td = getenv("TMPDIR");
	snprintf(f->path, sizeof(f->path), "%s/test_builder_XXXXXX", td && *td ? td : "/tmp");
	int fd = mkstemp(f->path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(opsw_open(&f->w, f->path), 0);
	assert_int_equal(builder_new(&f->b, f->w), 0);
	f->ts = 1000000000;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (f->opened)
		opstream_close(&f->s);
	if (f->w)
		opsw_abort(f->w);
	builder_free(f->b);
	unlink(f->path);
	free(f);
	return 0;
}

static struct sc_event ev0(struct fx *f, int64_t pid, enum sc_call c)
{
	struct sc_event ev;
	sc_event_init(&ev);
	ev.src = "t";
	ev.line = ++f->line;
	ev.pid = pid;
	ev.call = c;
	ev.ts_ns = (f->ts += 1000);
	ev.name = "x";
	return ev;
}

static void feed(struct fx *f, const struct sc_event *ev)
{
	struct rerr e = { "" };
	int rc = builder_event(f->b, ev, &e);
	if (rc)
		fail_msg("builder_event: %s", e.msg);
}

static void op_open(struct fx *f, int64_t pid, const char *path, int64_t flags, int64_t ret)
{
	struct sc_event ev = ev0(f, pid, SC_OPEN);
	ev.path = path;
	ev.flags = flags;
	ev.mode = 0644;
	ev.ret = ret;
	feed(f, &ev);
}

static void op_rw(struct fx *f, int64_t pid, enum sc_call c, int64_t fd, uint64_t len, int64_t off, int64_t ret)
{
	struct sc_event ev = ev0(f, pid, c);
	ev.fd = fd;
	ev.len = len;
	ev.offset = off;
	ev.ret = ret;
	feed(f, &ev);
}

static void op_fd(struct fx *f, int64_t pid, enum sc_call c, int64_t fd, int64_t ret)
{
	struct sc_event ev = ev0(f, pid, c);
	ev.fd = fd;
	ev.ret = ret;
	feed(f, &ev);
}

/* dup2(from, to) = to by pid */
static void op_dup2(struct fx *f, int64_t pid, int64_t from, int64_t to)
{
	struct sc_event ev = ev0(f, pid, SC_DUP2);
	ev.fd = from;
	ev.fd2 = to;
	ev.ret = to;
	feed(f, &ev);
}

static void finish(struct fx *f)
{
	struct rerr e = { "" };
	assert_int_equal(builder_finish(f->b, &e), 0);
	assert_int_equal(opsw_finish(f->w, NULL), 0);
	f->w = NULL;
	const char *why = NULL;
	assert_int_equal(opstream_open(&f->s, f->path, &why), 0);
	f->opened = 1;
}

static const struct op *rank_ops(struct fx *f, uint32_t r, uint64_t *n)
{
	assert_true(r < f->s.nranks);
	return opstream_rank_ops(&f->s, r, n);
}

static void test_dup_shares_position(void **state)
{
	struct fx *f = *state;
	op_open(f, 10, "/d/a", O_RDWR, 3);
	op_rw(f, 10, SC_READ, 3, 100, SC_NOOFF, 100);
	struct sc_event ev = ev0(f, 10, SC_DUP);
	ev.fd = 3;
	ev.ret = 4;
	feed(f, &ev);
	op_rw(f, 10, SC_READ, 4, 100, SC_NOOFF, 50);     /* short read */
	op_rw(f, 10, SC_READ, 3, 100, SC_NOOFF, 100);
	op_rw(f, 10, SC_READ, 3, 10, 7000, 10);          /* pread: no move */
	op_rw(f, 10, SC_WRITE, 4, 10, SC_NOOFF, 10);
	op_fd(f, 10, SC_CLOSE, 3, 0);                     /* fd 4 still open */
	op_rw(f, 10, SC_READ, 4, 1, SC_NOOFF, 1);
	op_fd(f, 10, SC_CLOSE, 4, 0);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 8);
	assert_int_equal(o[0].kind, OP_OPEN);
	assert_string_equal(opstream_path(&f->s, o[0].file), "/d/a");
	assert_int_equal(o[1].offset, 0);
	assert_int_equal(o[2].offset, 100);
	assert_int_equal(o[2].handle, o[1].handle);      /* one description */
	assert_int_equal(o[3].offset, 150);
	assert_int_equal(o[4].offset, 7000);
	assert_int_equal(o[5].kind, OP_WRITE);
	assert_int_equal(o[5].offset, 250);
	assert_int_equal(o[6].offset, 260);               /* close(3) emitted nothing */
	assert_int_equal(o[7].kind, OP_CLOSE);
	assert_int_equal(o[7].handle, o[0].handle);
	assert_string_equal(opstream_rank_name(&f->s, 0), "pid 10");
	assert_int_equal(o[0].t_ns, 0);
	assert_int_equal(o[1].t_ns, 1000);
}

static void test_threads_share_fork_copies(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/d/a", O_RDWR | O_CREAT | O_TRUNC, 3);
	op_rw(f, 1, SC_WRITE, 3, 4096, SC_NOOFF, 4096);
	struct sc_event ev = ev0(f, 1, SC_CLONE);
	ev.flags = CLONE_VM | CLONE_FILES | CLONE_THREAD;
	ev.ret = 2;
	feed(f, &ev);
	ev = ev0(f, 1, SC_CLONE);
	ev.flags = 0;              /* fork */
	ev.ret = 3;
	feed(f, &ev);
	/* thread 2 writes on fd 3: same description, position 4096 */
	op_rw(f, 2, SC_WRITE, 3, 100, SC_NOOFF, 100);
	/* the child closes its copy of fd 3 and opens another file as fd 3 */
	op_fd(f, 3, SC_CLOSE, 3, 0);
	op_open(f, 3, "/d/b", O_RDONLY, 3);
	op_rw(f, 3, SC_READ, 3, 10, SC_NOOFF, 10);
	/* the parent's fd 3 is still /d/a, at 4196 (thread moved it) */
	op_rw(f, 1, SC_WRITE, 3, 4, SC_NOOFF, 4);
	/* thread opens fd 5; parent sees it (shared table) */
	op_open(f, 2, "/d/c", O_WRONLY, 5);
	op_rw(f, 1, SC_WRITE, 5, 1, SC_NOOFF, 1);
	finish(f);
	assert_int_equal(f->s.nranks, 3);
	uint64_t n;
	const struct op *p = rank_ops(f, 0, &n);          /* pid 1 */
	assert_int_equal(n, 5);
	assert_int_equal(p[2].kind, OP_WRITE);
	assert_int_equal(p[2].offset, 4196);
	assert_int_equal(p[3].kind, OP_OPEN);               /* implicit: thread's fd 5 */
	assert_true(p[3].flags & OPF_IMPLICIT_OPEN);
	assert_string_equal(opstream_path(&f->s, p[3].file), "/d/c");
	assert_int_equal(p[4].offset, 0);
	const struct op *t = rank_ops(f, 1, &n);          /* pid 2 */
	assert_string_equal(opstream_rank_name(&f->s, 1), "pid 2");
	assert_int_equal(n, 3);
	assert_int_equal(t[0].kind, OP_OPEN);
	assert_true(t[0].flags & OPF_IMPLICIT_OPEN);
	assert_int_equal(t[0].oflags & (O_CREAT | O_TRUNC), 0);
	assert_int_equal(t[1].offset, 4096);
	assert_int_equal(t[2].kind, OP_OPEN);
	assert_false(t[2].flags & OPF_IMPLICIT_OPEN);
	const struct op *c = rank_ops(f, 2, &n);          /* pid 3 */
	assert_int_equal(n, 2);                               /* close of inherited: no handle, no op */
	assert_int_equal(c[0].kind, OP_OPEN);
	assert_string_equal(opstream_path(&f->s, c[0].file), "/d/b");
	assert_int_equal(c[1].offset, 0);
	char buf[32];
	assert_string_equal(opstream_info(&f->s, "inherited_opens", buf, sizeof(buf)), "2");
}

static void test_seek_end_append(void **state)
{
	struct fx *f = *state;
	op_open(f, 7, "/f", O_RDWR | O_CREAT | O_TRUNC, 3);
	op_rw(f, 7, SC_WRITE, 3, 1000, SC_NOOFF, 1000);
	struct sc_event ev = ev0(f, 7, SC_LSEEK);
	ev.fd = 3;
	ev.offset = 0;
	ev.whence = SEEK_END;
	ev.ret = 5000;             /* traced result wins (file was bigger) */
	feed(f, &ev);
	op_rw(f, 7, SC_READ, 3, 10, SC_NOOFF, 0);
	ev = ev0(f, 7, SC_LSEEK);
	ev.fd = 3;
	ev.offset = -10;
	ev.whence = SEEK_END;
	ev.ret = SC_RET_UNKNOWN;   /* fallback: the size the last SEEK_END showed */
	feed(f, &ev);
	ev = ev0(f, 7, SC_LSEEK);
	ev.fd = 3;
	ev.offset = 7;
	ev.whence = SEEK_CUR;
	ev.ret = -EINVAL;          /* failed: position unchanged */
	feed(f, &ev);
	op_rw(f, 7, SC_WRITE, 3, 10, SC_NOOFF, 10);
	ev = ev0(f, 7, SC_FTRUNCATE);
	ev.fd = 3;
	ev.len = 20000;
	ev.ret = 0;
	feed(f, &ev);
	op_open(f, 7, "/f", O_WRONLY | O_APPEND, 4);
	op_rw(f, 7, SC_WRITE, 4, 100, SC_NOOFF, 100);
	op_rw(f, 7, SC_WRITE, 4, 100, SC_NOOFF, 100);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 11);
	assert_int_equal(o[2].kind, OP_SEEK);
	assert_int_equal(o[2].offset, 5000);
	assert_true(o[2].flags & OPF_STAT_SIZE); /* the size it showed */
	assert_int_equal(o[2].len, 5000);
	assert_int_equal(o[3].offset, 5000);
	assert_int_equal(o[4].offset, 4990);    /* 5000 (the size shown) - 10 */
	assert_false(o[4].flags & OPF_STAT_SIZE); /* no result: shows nothing */
	assert_int_equal(o[5].offset, 4990);
	assert_false(o[5].flags & OPF_STAT_SIZE);
	assert_int_equal(o[5].result, -EINVAL);
	assert_int_equal(o[6].offset, 4990);
	assert_int_equal(o[7].kind, OP_FTRUNCATE);
	assert_int_equal(o[7].len, 20000);
	assert_int_equal(o[9].offset, 20000);  /* append at the tracked end */
	assert_true(o[9].flags & OPF_APPEND);
	assert_int_equal(o[10].offset, 20100);
	char buf[32];
	assert_string_equal(opstream_info(&f->s, "failed_calls", buf, sizeof(buf)), "1");
}

/* truncate(path, len): an ftruncate op on the path's file, without a
 * handle, and the tracked size it sets (an O_APPEND write after it lands
 * there); a failed one keeps its result and changes no size; a special
 * file's is dropped.  Before: counted as a skipped call, no op. */
static void test_truncate_by_path(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/d/a", O_RDWR | O_CREAT, 3);
	op_rw(f, 1, SC_WRITE, 3, 8000, SC_NOOFF, 8000);
	op_fd(f, 1, SC_CLOSE, 3, 0);
	struct sc_event ev = ev0(f, 1, SC_CHDIR);
	ev.path = "/d";
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_TRUNCATE);
	ev.path = "a";                  /* relative: resolved like any path */
	ev.len = 5000;
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_TRUNCATE);
	ev.path = "/d/a";
	ev.len = 1;
	ev.ret = -EACCES;               /* failed: the size stays 5000 */
	feed(f, &ev);
	ev = ev0(f, 1, SC_TRUNCATE);
	ev.path = "/dev/null";
	ev.len = 0;
	ev.ret = 0;
	feed(f, &ev);
	op_open(f, 1, "/d/a", O_WRONLY | O_APPEND, 3);
	op_rw(f, 1, SC_WRITE, 3, 10, SC_NOOFF, 10);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 7);
	assert_int_equal(o[3].kind, OP_FTRUNCATE);
	assert_int_equal(o[3].handle, OP_NOHANDLE);
	assert_int_equal(o[3].file, o[0].file);
	assert_int_equal(o[3].len, 5000);
	assert_int_equal(o[3].result, 0);
	assert_int_equal(o[4].kind, OP_FTRUNCATE);
	assert_int_equal(o[4].result, -EACCES);
	assert_int_equal(o[6].kind, OP_WRITE);
	assert_int_equal(o[6].offset, 5000);    /* appended at the truncated end */
	char buf[32];
	assert_null(opstream_info(&f->s, "skipped.x", buf, sizeof(buf)));
	assert_string_equal(opstream_info(&f->s, "special_file_ops", buf, sizeof(buf)), "1");
}

static void test_fd_reuse_unknown_fds(void **state)
{
	struct fx *f = *state;
	op_open(f, 5, "/a", O_RDONLY, 3);
	op_fd(f, 5, SC_CLOSE, 3, 0);
	op_open(f, 5, "/b", O_WRONLY, 3);
	op_rw(f, 5, SC_WRITE, 3, 8, SC_NOOFF, 8);
	op_rw(f, 5, SC_WRITE, 1, 8, SC_NOOFF, 8);           /* stdout: dropped */
	op_rw(f, 5, SC_WRITE, 9, 8, SC_NOOFF, 8);           /* unknown: dropped */
	struct sc_event ev = ev0(f, 5, SC_WRITE);
	ev.fd = 12;
	ev.fdpath = "/pre/opened";                          /* -y: implicit open */
	ev.len = 8;
	ev.ret = 8;
	feed(f, &ev);
	ev = ev0(f, 5, SC_WRITE);
	ev.fd = 2;
	ev.fdpath = "/dev/pts/0";                           /* terminal: dropped */
	ev.len = 8;
	ev.ret = 8;
	feed(f, &ev);
	op_open(f, 5, "/missing", O_RDONLY, -ENOENT);       /* failed, kept */
	ev = ev0(f, 5, SC_SKIP);
	ev.name = "futex";
	feed(f, &ev);
	feed(f, &ev);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 7);
	assert_string_equal(opstream_path(&f->s, o[2].file), "/b");
	assert_int_equal(o[3].kind, OP_WRITE);
	assert_int_equal(o[3].handle, o[2].handle);
	assert_int_not_equal(o[2].handle, o[0].handle);
	assert_int_equal(o[4].kind, OP_OPEN);
	assert_true(o[4].flags & OPF_IMPLICIT_OPEN);
	assert_string_equal(opstream_path(&f->s, o[4].file), "/pre/opened");
	assert_int_equal(o[5].kind, OP_WRITE);
	assert_int_equal(o[5].handle, o[4].handle);
	assert_int_equal(o[6].kind, OP_OPEN);
	assert_int_equal(o[6].result, -ENOENT);
	assert_int_equal(o[6].handle, OP_NOHANDLE);
	const struct build_stats *st = builder_stats(f->b);
	assert_int_equal(st->unknown_fd_ops, 2);
	assert_int_equal(st->stdio_ops, 1);
	assert_int_equal(st->special_ops, 1);      /* the terminal */
	assert_int_equal(st->implicit_opens, 1);
	assert_int_equal(st->failed_calls, 1);
	assert_int_equal(st->skipped_calls, 2);
	char buf[32];
	assert_string_equal(opstream_info(&f->s, "skipped.futex", buf, sizeof(buf)), "2");
	assert_string_equal(opstream_info(&f->s, "unknown_fd_ops", buf, sizeof(buf)), "2");
	assert_string_equal(opstream_info(&f->s, "stdio_ops", buf, sizeof(buf)), "1");
	assert_string_equal(opstream_info(&f->s, "special_file_ops", buf, sizeof(buf)), "1");
}

static void test_paths_vectors_meta(void **state)
{
	struct fx *f = *state;
	struct sc_event ev = ev0(f, 1, SC_OPEN);
	ev.path = "/data/dir";
	ev.flags = O_RDONLY | O_DIRECTORY;
	ev.ret = 3;
	feed(f, &ev);
	ev = ev0(f, 1, SC_OPEN);                 /* openat(3, "sub/../f") */
	ev.dirfd = 3;
	ev.path = "sub/../f";
	ev.flags = O_RDWR;
	ev.ret = 4;
	feed(f, &ev);
	ev = ev0(f, 1, SC_WRITE);                /* writev: total + count */
	ev.fd = 4;
	ev.len = 300;
	ev.iovcnt = 2;
	ev.ret = 300;
	feed(f, &ev);
	ev = ev0(f, 1, SC_OPEN);                 /* relative to AT_FDCWD, -y cwd */
	ev.path = "rel.txt";
	ev.fdpath = "/home/u";
	ev.flags = O_RDONLY;
	ev.ret = 5;
	feed(f, &ev);
	ev = ev0(f, 1, SC_RENAME);
	ev.path = "/data/dir/f";
	ev.path2 = "/data/dir/g";
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_MKDIR);
	ev.path = "/m";
	ev.mode = 0755;
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_STAT);
	ev.fd = 4;
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_MMAP);
	ev.fd = 4;
	ev.len = 4096;
	ev.offset = 0;
	ev.ret = 0x7f0000;
	feed(f, &ev);
	op_fd(f, 1, SC_FSYNC, 4, 0);
	op_fd(f, 1, SC_FDATASYNC, 4, 0);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 10);
	assert_string_equal(opstream_path(&f->s, o[1].file), "/data/dir/f");
	assert_int_equal(o[2].len, 300);
	assert_int_equal(o[2].iovcnt, 2);
	assert_string_equal(opstream_path(&f->s, o[3].file), "/home/u/rel.txt");
	assert_int_equal(o[4].kind, OP_RENAME);
	assert_string_equal(opstream_path(&f->s, o[4].aux), "/data/dir/g");
	assert_int_equal(o[5].kind, OP_MKDIR);
	assert_int_equal(o[5].aux, 0755);
	assert_int_equal(o[6].kind, OP_STAT);
	assert_int_equal(o[6].handle, o[1].handle);
	assert_int_equal(o[7].kind, OP_MMAP);
	assert_int_equal(o[8].kind, OP_FSYNC);
	assert_int_equal(o[9].kind, OP_FDATASYNC);
	assert_int_equal(builder_stats(f->b)->mmaps, 1);
}

static void test_async_barrier_ranks(void **state)
{
	struct fx *f = *state;
	uint32_t r;
	assert_int_equal(builder_rank(f->b, 77, "host.77", &r), 0);
	assert_int_equal(r, 0);
	op_open(f, 77, "/x", O_RDWR, 3);
	struct sc_event ev = ev0(f, 77, SC_AWRITE);
	ev.fd = 3;
	ev.len = 65536;
	ev.async_id = 0xdead;
	feed(f, &ev);
	ev = ev0(f, 77, SC_AREAD);
	ev.fd = 3;
	ev.len = 100;
	ev.offset = 0;
	ev.async_id = 0xbeef;
	feed(f, &ev);
	ev = ev0(f, 77, SC_AWAIT);
	ev.async_id = 0xbeef;
	ev.ret = 100;
	feed(f, &ev);
	ev = ev0(f, 77, SC_AWAIT);
	ev.async_id = 0xdead;
	ev.ret = 65536;
	feed(f, &ev);
	ev = ev0(f, 77, SC_BARRIER);
	feed(f, &ev);
	ev = ev0(f, 77, SC_BARRIER);
	feed(f, &ev);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_string_equal(opstream_rank_name(&f->s, 0), "host.77");
	assert_int_equal(n, 7);
	assert_int_equal(o[1].kind, OP_AWRITE);
	assert_int_equal(o[1].aux, 0);
	assert_int_equal(o[2].kind, OP_AREAD);
	assert_int_equal(o[2].aux, 1);
	assert_int_equal(o[3].kind, OP_AWAIT);
	assert_int_equal(o[3].aux, 1);
	assert_int_equal(o[3].result, 100);
	assert_int_equal(o[4].aux, 0);
	assert_int_equal(o[5].kind, OP_BARRIER);
	assert_int_equal(o[6].aux, 1);
}

static void test_close_by_other_thread(void **state)
{
	struct fx *f = *state;
	/* pid 1 opens, its thread 2 writes, pid 1 closes: 2's handle closes too */
	struct sc_event ev = ev0(f, 1, SC_CLONE);
	ev.flags = CLONE_VM | CLONE_FILES | CLONE_THREAD;
	ev.ret = 2;
	feed(f, &ev);
	op_open(f, 1, "/t", O_RDWR, 3);
	op_rw(f, 2, SC_WRITE, 3, 10, SC_NOOFF, 10);
	op_fd(f, 1, SC_CLOSE, 3, 0);
	op_rw(f, 2, SC_WRITE, 3, 10, SC_NOOFF, -EBADF);   /* fd gone: dropped */
	finish(f);
	uint64_t n;
	const struct op *t = rank_ops(f, 1, &n);
	assert_int_equal(n, 3);
	assert_int_equal(t[0].kind, OP_OPEN);
	assert_int_equal(t[1].kind, OP_WRITE);
	assert_int_equal(t[2].kind, OP_CLOSE);
	assert_int_equal(t[2].handle, t[0].handle);
	assert_true(t[2].t_ns >= t[1].t_ns);
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 2);
	assert_int_equal(o[1].kind, OP_CLOSE);
	assert_int_equal(builder_stats(f->b)->unknown_fd_ops, 1);
}

static void test_child_before_clone_returns(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/in", O_RDONLY, 3);
	/* thread 2 runs (and opens /own as fd 4) before clone3 returns in 1 */
	op_open(f, 2, "/own", O_WRONLY, 4);
	struct sc_event ev = ev0(f, 1, SC_CLONE);
	ev.flags = CLONE_VM | CLONE_FILES | CLONE_THREAD;
	ev.ret = 2;
	feed(f, &ev);
	op_rw(f, 2, SC_READ, 3, 10, SC_NOOFF, 10);    /* inherited fd 3 */
	op_rw(f, 1, SC_WRITE, 4, 5, SC_NOOFF, 5);     /* thread's fd 4, shared */
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);      /* pid 1 */
	assert_int_equal(n, 3);
	assert_string_equal(opstream_path(&f->s, o[2].file), "/own");
	const struct op *t = rank_ops(f, 1, &n);      /* pid 2 */
	assert_int_equal(n, 3);
	assert_int_equal(t[2].kind, OP_READ);
	assert_string_equal(opstream_path(&f->s, t[2].file), "/in");
	assert_int_equal(builder_stats(f->b)->unknown_fd_ops, 0);
}

/* traced_processes counts the pids with lines of their own: strace
 * without -f shows the clones of one process, whose children it never
 * traced; a child seen before its clone returns is counted once. */
static void test_traced_processes_own_lines(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/d/a", O_RDONLY, 3);
	op_rw(f, 7, SC_READ, 0, 1, SC_NOOFF, 1);      /* pid 7 before its clone */
	for (int64_t child = 5; child <= 7; child++) {
		struct sc_event ev = ev0(f, 1, SC_CLONE);
		ev.flags = child == 5 ? 0 : CLONE_VM | CLONE_FILES | CLONE_THREAD;
		ev.ret = child;
		feed(f, &ev);
	}
	op_rw(f, 1, SC_READ, 3, 10, SC_NOOFF, 10);
	op_rw(f, 6, SC_READ, 3, 10, SC_NOOFF, 10);    /* thread 6: its own line */
	finish(f);
	char buf[32];
	/* pids 1, 6 and 7; 5 never had a line */
	assert_string_equal(opstream_info(&f->s, "traced_processes", buf, sizeof(buf)), "3");
}

static void test_special_files(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/dev/null", O_WRONLY, 3);            /* not storage */
	op_dup2(f, 1, 3, 1);
	op_rw(f, 1, SC_WRITE, 1, 100, SC_NOOFF, 100);
	op_rw(f, 1, SC_WRITE, 3, 100, SC_NOOFF, 100);
	op_fd(f, 1, SC_CLOSE, 3, 0);
	op_open(f, 1, "/proc/self/status", O_RDONLY, 4);
	op_rw(f, 1, SC_READ, 4, 4096, SC_NOOFF, 1200);
	op_open(f, 1, "/dev/shm/seg", O_RDWR | O_CREAT, 5); /* a real file */
	op_rw(f, 1, SC_WRITE, 5, 10, SC_NOOFF, 10);
	op_open(f, 1, "/dev/nvme0n1", O_RDWR | O_DIRECT, 6); /* a block device */
	op_rw(f, 1, SC_READ, 6, 4096, 0, 4096);
	struct sc_event ev = ev0(f, 1, SC_STAT);
	ev.path = "/sys/block/sda/queue/rotational";
	feed(f, &ev);
	/* memfd_create's file, which -y names "/memfd:NAME (deleted)": its
	 * open is the memfd_create the trace skips, and it is memory */
	ev = ev0(f, 1, SC_WRITE);
	ev.fd = 8;
	ev.fdpath = "/memfd:m";
	ev.len = 3;
	ev.ret = 3;
	ev.offset = SC_NOOFF;
	feed(f, &ev);
	finish(f);
	char ib[32];
	assert_null(opstream_info(&f->s, "implicit_open_first", ib, sizeof(ib)));
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 4);
	assert_string_equal(opstream_path(&f->s, o[0].file), "/dev/shm/seg");
	assert_int_equal(o[1].kind, OP_WRITE);
	assert_string_equal(opstream_path(&f->s, o[2].file), "/dev/nvme0n1");
	assert_int_equal(o[3].kind, OP_READ);
	const struct build_stats *st = builder_stats(f->b);
	assert_int_equal(st->special_ops, 7);   /* 2 opens, 4 reads/writes, 1 stat */
	assert_int_equal(st->unknown_fd_ops, 0);
}

/* A sync read or write never records more moved than its length: a
 * vector whose iovecs strace showed in part moved its result; a length
 * over one call's maximum (a DXT segment of 16 GB) moves that maximum
 * (the .ops reader refuses a record moving more than its length) */
static void test_result_within_length(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/a", O_RDWR, 3);
	op_rw(f, 1, SC_WRITE, 3, 220, SC_NOOFF, 300);                 /* fast path */
	op_rw(f, 1, SC_WRITE, 3, 16777216216ull, 0, 16777216216ll);
	op_rw(f, 1, SC_READ, 3, 4096, 0, 100);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 4);
	assert_int_equal(o[1].len, 300);
	assert_int_equal(o[1].result, 300);
	assert_int_equal(o[2].len, OP_MAX_DATA_LEN);
	assert_int_equal(o[2].result, OP_MAX_DATA_LEN);
	assert_int_equal(o[3].len, 4096);
	assert_int_equal(o[3].result, 100);
}

static void test_close_range_cwd(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/a", O_RDONLY, 3);
	op_open(f, 1, "/b", O_RDONLY, 4);
	op_open(f, 1, "/c", O_RDONLY, 7);
	struct sc_event ev = ev0(f, 1, SC_CLOSE_RANGE);
	ev.fd = 4;
	ev.fd2 = UINT32_MAX;
	ev.ret = 0;
	feed(f, &ev);                               /* closes 4 and 7 */
	op_rw(f, 1, SC_READ, 3, 1, SC_NOOFF, 1);
	op_rw(f, 1, SC_READ, 7, 1, SC_NOOFF, 1);    /* unknown now */
	ev = ev0(f, 1, SC_CHDIR);
	ev.path = "/work/dir";
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_CHDIR);
	ev.path = "../other";
	ev.ret = 0;
	feed(f, &ev);
	op_open(f, 1, "rel.txt", O_RDONLY, 5);
	ev = ev0(f, 1, SC_CLONE);
	ev.ret = 2;                                 /* fork: cwd inherited */
	feed(f, &ev);
	op_open(f, 2, "x", O_RDONLY, 6);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 7);
	assert_int_equal(o[3].kind, OP_CLOSE);
	assert_int_equal(o[4].kind, OP_CLOSE);
	assert_int_equal(o[5].kind, OP_READ);
	assert_string_equal(opstream_path(&f->s, o[5].file), "/a");
	assert_string_equal(opstream_path(&f->s, o[6].file), "/work/other/rel.txt");
	o = rank_ops(f, 1, &n);
	assert_string_equal(opstream_path(&f->s, o[0].file), "/work/other/x");
	assert_int_equal(builder_stats(f->b)->unknown_fd_ops, 1);
}

/* dbench (real capture, tests/data/strace/dbench_cwd.txt): the cwd is only
 * ever seen as a decoration, "AT_FDCWD</tmp/x>"; a later plain
 * mkdir("./clients") must name the same file as the openat of "./clients". */
static void test_cwd_from_at_fdcwd_decoration(void **state)
{
	struct fx *f = *state;
	struct sc_event ev = ev0(f, 1, SC_STAT);
	ev.dirfd = SC_AT_FDCWD;
	ev.fdpath = "/tmp/x";
	ev.path = "./clients";
	ev.ret = -ENOENT;
	feed(f, &ev);
	ev = ev0(f, 1, SC_MKDIR);
	ev.path = "./clients";
	ev.mode = 0777;
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_OPEN);
	ev.dirfd = SC_AT_FDCWD;
	ev.fdpath = "/tmp/x";
	ev.path = "./clients";
	ev.flags = O_RDONLY | O_DIRECTORY;
	ev.ret = 5;
	feed(f, &ev);
	op_open(f, 1, "clients/f", O_WRONLY | O_CREAT, 6);
	ev = ev0(f, 1, SC_CHDIR);                   /* a real chdir still wins */
	ev.path = "/y";
	ev.ret = 0;
	feed(f, &ev);
	op_open(f, 1, "g", O_RDONLY, 7);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 5);
	assert_int_equal(o[1].kind, OP_MKDIR);
	assert_string_equal(opstream_path(&f->s, o[0].file), "/tmp/x/clients");
	assert_string_equal(opstream_path(&f->s, o[1].file), "/tmp/x/clients");
	assert_string_equal(opstream_path(&f->s, o[2].file), "/tmp/x/clients");
	assert_string_equal(opstream_path(&f->s, o[3].file), "/tmp/x/clients/f");
	assert_string_equal(opstream_path(&f->s, o[4].file), "/y/g");
}

/* cat (coreutils 9.1, real capture tests/data/strace/edge_f_tt_T_y.txt)
 * asks copy_file_range for 9223372035781033984 bytes; a failing call keeps
 * that request, which no call can move (Linux MAX_RW_COUNT 0x7ffff000). */
static void test_huge_request_clamped(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/a", O_RDWR, 3);
	op_rw(f, 1, SC_READ, 3, 9223372035781033984ull, SC_NOOFF, -EBADF);
	op_rw(f, 1, SC_WRITE, 3, 9223372035781033984ull, SC_NOOFF, 8792);
	op_rw(f, 1, SC_READ, 3, 100, SC_NOOFF, 100);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 4);
	assert_int_equal(o[1].len, 0x7ffff000);
	assert_int_equal(o[1].result, -EBADF);
	assert_int_equal(o[2].len, 0x7ffff000);
	assert_int_equal(o[2].result, 8792);
	assert_int_equal(o[3].offset, 8792);
	assert_int_equal(o[3].len, 100);
}

/* strace -f without -y (real capture tests/data/strace/edge_f_plain.txt):
 * the first working directory is never named, yet chdir("d") must move
 * the relative paths after it, and a dirfd opened relatively still counts. */
static void test_relative_cwd(void **state)
{
	struct fx *f = *state;
	struct sc_event ev = ev0(f, 1, SC_CHDIR);
	ev.path = "d";
	ev.ret = 0;
	feed(f, &ev);
	op_open(f, 1, "a.dat", O_RDWR | O_CREAT, 3);          /* d/a.dat */
	op_open(f, 1, "sub", O_RDONLY | O_DIRECTORY, 4);      /* d/sub */
	ev = ev0(f, 1, SC_OPEN);
	ev.dirfd = 4;
	ev.path = "b.dat";
	ev.flags = O_WRONLY | O_CREAT;
	ev.ret = 5;
	feed(f, &ev);                                         /* d/sub/b.dat */
	ev = ev0(f, 1, SC_CHDIR);
	ev.path = "sub/../sub";
	ev.ret = 0;
	feed(f, &ev);
	op_open(f, 1, "c.dat", O_RDONLY, 6);                  /* d/sub/c.dat */
	ev = ev0(f, 1, SC_CHDIR);
	ev.path = "../..";
	ev.ret = 0;
	feed(f, &ev);
	op_open(f, 1, "x", O_RDONLY, 7);                      /* x */
	ev = ev0(f, 1, SC_CHDIR);
	ev.path = "..";
	ev.ret = 0;
	feed(f, &ev);                                         /* above the start */
	op_open(f, 1, "y", O_RDONLY, 8);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 6);
	assert_string_equal(opstream_path(&f->s, o[0].file), "d/a.dat");
	assert_string_equal(opstream_path(&f->s, o[1].file), "d/sub");
	assert_string_equal(opstream_path(&f->s, o[2].file), "d/sub/b.dat");
	assert_string_equal(opstream_path(&f->s, o[3].file), "d/sub/c.dat");
	assert_string_equal(opstream_path(&f->s, o[4].file), "x");
	assert_string_equal(opstream_path(&f->s, o[5].file), "y");
}

/* pwritev2(fd, ..., -1, RWF_APPEND) (python os.pwritev, real capture
 * edge_f_tt_T_y.txt) appends at the end and moves the position there; a
 * pwrite on an O_APPEND file appends too but leaves the position alone. */
static void test_rwf_append(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/a", O_RDWR | O_CREAT, 3);
	op_rw(f, 1, SC_WRITE, 3, 5000, SC_NOOFF, 5000);
	op_rw(f, 1, SC_WRITE, 3, 300, 8192, 300);             /* size 8492, pos 5000 */
	struct sc_event ev = ev0(f, 1, SC_WRITE);
	ev.fd = 3;
	ev.len = 300;
	ev.offset = SC_NOOFF;
	ev.flags = O_APPEND;
	ev.ret = 300;
	feed(f, &ev);                                         /* at 8492, pos 8792 */
	op_rw(f, 1, SC_WRITE, 3, 333, SC_NOOFF, 333);         /* at 8792 */
	op_open(f, 1, "/b", O_RDWR | O_APPEND | O_CREAT, 4);
	op_rw(f, 1, SC_WRITE, 4, 10, SC_NOOFF, 10);           /* at 0, pos 10 */
	op_rw(f, 1, SC_WRITE, 4, 10, 0, 10);                  /* pwrite: at 10 */
	op_rw(f, 1, SC_READ, 4, 5, SC_NOOFF, 5);              /* at 10, not 20 */
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 9);
	assert_int_equal(o[3].offset, 8492);
	assert_true(o[3].flags & OPF_APPEND);
	assert_int_equal(o[4].offset, 8792);
	assert_false(o[4].flags & OPF_APPEND);
	assert_int_equal(o[6].offset, 0);
	assert_int_equal(o[7].offset, 10);
	assert_true(o[7].flags & OPF_APPEND);
	assert_int_equal(o[8].kind, OP_READ);
	assert_int_equal(o[8].offset, 10);
}

/* An O_APPEND write lands where the trace last showed the file to end, not
 * at the largest size written: an fstat's st_size (a file that existed
 * with 10000 bytes, appended to by Python's open('a')), an lseek SEEK_END's
 * result minus its offset, a short read's end (which may also be less than
 * what was written: another process truncated it).  Without a result a
 * SEEK_END uses that size too.  (Fails on the "largest size written" rule:
 * appends at 0, 0 and 20.) */
static void test_append_at_size_shown(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/log", O_WRONLY | O_CREAT | O_APPEND, 3);
	struct sc_event ev = ev0(f, 1, SC_STAT);
	ev.fd = 3;
	ev.opflags = OPF_STAT_SIZE;
	ev.len = 10000;
	ev.ret = 0;
	feed(f, &ev);                                         /* fstat: 10000 */
	op_rw(f, 1, SC_WRITE, 3, 100, SC_NOOFF, 100);         /* at 10000 */
	op_open(f, 1, "/h", O_RDWR | O_APPEND, 4);
	ev = ev0(f, 1, SC_LSEEK);
	ev.fd = 4;
	ev.offset = -5;
	ev.whence = SEEK_END;
	ev.ret = 995;                                         /* size 1000 */
	feed(f, &ev);
	op_rw(f, 1, SC_WRITE, 4, 10, SC_NOOFF, 10);           /* at 1000 */
	op_open(f, 1, "/g", O_RDWR | O_CREAT, 5);
	op_rw(f, 1, SC_WRITE, 5, 20, SC_NOOFF, 20);           /* size 20 */
	op_rw(f, 1, SC_READ, 5, 4096, 0, 7);                  /* short: now 7 */
	op_open(f, 1, "/g", O_WRONLY | O_APPEND, 6);
	op_rw(f, 1, SC_WRITE, 6, 3, SC_NOOFF, 3);             /* at 7 */
	ev = ev0(f, 1, SC_LSEEK);
	ev.fd = 5;
	ev.offset = 0;
	ev.whence = SEEK_END;
	ev.ret = SC_RET_UNKNOWN;                              /* at 10 */
	feed(f, &ev);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 12);
	assert_int_equal(o[2].kind, OP_WRITE);
	assert_true(o[2].flags & OPF_APPEND);
	assert_int_equal(o[2].offset, 10000);
	assert_int_equal(o[4].kind, OP_SEEK);
	assert_true(o[4].flags & OPF_STAT_SIZE);
	assert_int_equal(o[4].len, 1000);
	assert_int_equal(o[5].offset, 1000);
	assert_int_equal(o[8].kind, OP_READ);
	assert_int_equal(o[10].kind, OP_WRITE);
	assert_int_equal(o[10].offset, 7);
	assert_int_equal(o[11].kind, OP_SEEK);
	assert_int_equal(o[11].offset, 10);
	assert_false(o[11].flags & OPF_STAT_SIZE);
}

/* fcntl(F_SETFL) on an open file description (through a dup of it too):
 * a setfl op with the changeable flags it set; from a successful one on,
 * writes append (or not) as it says; a failed one is kept as traced but
 * changes nothing; an implicit open in another rank carries the flags. */
static void test_setfl(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/a", O_RDWR | O_CREAT | O_DIRECT, 3);
	op_rw(f, 1, SC_WRITE, 3, 1000, SC_NOOFF, 1000);       /* at 0, pos 1000 */
	op_rw(f, 1, SC_WRITE, 3, 100, 5000, 100);             /* size 5100 */
	op_dup2(f, 1, 3, 5);
	struct sc_event ev = ev0(f, 1, SC_SETFL);
	ev.fd = 5;
	ev.flags = O_RDWR | O_APPEND | O_LARGEFILE;           /* O_DIRECT cleared */
	ev.ret = 0;
	feed(f, &ev);
	op_rw(f, 1, SC_WRITE, 3, 10, SC_NOOFF, 10);           /* appends: at 5100 */
	ev = ev0(f, 1, SC_SETFL);
	ev.fd = 3;
	ev.flags = 0;
	ev.ret = -EBADF;                                      /* failed: still O_APPEND */
	feed(f, &ev);
	op_rw(f, 1, SC_WRITE, 3, 10, SC_NOOFF, 10);           /* at 5110 */
	ev = ev0(f, 1, SC_SETFL);
	ev.fd = 3;
	ev.flags = O_RDWR;
	ev.ret = 0;
	feed(f, &ev);
	op_rw(f, 1, SC_WRITE, 3, 10, SC_NOOFF, 10);           /* at the position: 5120 */
	op_rw(f, 1, SC_WRITE, 3, 10, 0, 10);                  /* pwrite: at 0 */
	/* a socket's O_NONBLOCK, a descriptor never seen: counted calls */
	ev = ev0(f, 1, SC_SETFL);
	ev.fd = 7;
	ev.fdpath = "socket:[4242]";
	ev.flags = O_RDWR | O_NONBLOCK;
	ev.ret = 0;
	ev.name = "fcntl";
	feed(f, &ev);
	ev.fd = 9;
	ev.fdpath = NULL;
	feed(f, &ev);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 10);
	assert_int_equal(o[3].kind, OP_SETFL);
	assert_int_equal(o[3].handle, o[0].handle);           /* the dup's description */
	assert_int_equal(o[3].oflags, O_APPEND);
	assert_int_equal(o[3].result, 0);
	assert_int_equal(o[4].offset, 5100);
	assert_true(o[4].flags & OPF_APPEND);
	assert_int_equal(o[5].kind, OP_SETFL);
	assert_int_equal(o[5].oflags, 0);
	assert_int_equal(o[5].result, -EBADF);
	assert_int_equal(o[6].offset, 5110);
	assert_true(o[6].flags & OPF_APPEND);
	assert_int_equal(o[7].kind, OP_SETFL);
	assert_int_equal(o[8].offset, 5120);
	assert_false(o[8].flags & OPF_APPEND);
	assert_int_equal(o[9].offset, 0);
	assert_false(o[9].flags & OPF_APPEND);
	char buf[32];
	assert_string_equal(opstream_info(&f->s, "skipped_calls", buf, sizeof(buf)), "2");
	assert_string_equal(opstream_info(&f->s, "skipped.fcntl", buf, sizeof(buf)), "2");
	assert_string_equal(opstream_info(&f->s, "unknown_fd_ops", buf, sizeof(buf)), "0");
}

/* A descriptor another rank uses is reopened there as the file it is now:
 * where the trace's renames took it (a child given a rotated log's fd
 * opens the rotated name, not the new file at the old one), with the
 * flags an F_SETFL gave it, also when that rank opened it before (the
 * F_SETFL is repeated there, flagged synthesized). */
static void test_shared_description_now(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/d/app.log", O_WRONLY | O_CREAT | O_TRUNC, 3);
	op_rw(f, 1, SC_WRITE, 3, 6, SC_NOOFF, 6);
	struct sc_event ev = ev0(f, 1, SC_CLONE);
	ev.flags = CLONE_VM | CLONE_FILES | CLONE_THREAD;
	ev.ret = 2;
	feed(f, &ev);
	op_rw(f, 2, SC_WRITE, 3, 10, SC_NOOFF, 10);         /* the thread: at 6 */
	ev = ev0(f, 1, SC_RENAME);
	ev.path = "/d/app.log";
	ev.path2 = "/d/app.log.1";
	ev.ret = 0;
	feed(f, &ev);
	op_open(f, 1, "/d/app.log", O_WRONLY | O_CREAT | O_TRUNC, 4);
	ev = ev0(f, 1, SC_CLONE);
	ev.flags = 0;                                         /* fork */
	ev.ret = 3;
	feed(f, &ev);
	ev = ev0(f, 1, SC_SETFL);
	ev.fd = 3;
	ev.flags = O_WRONLY | O_APPEND;
	ev.ret = 0;
	feed(f, &ev);
	op_rw(f, 3, SC_WRITE, 3, 100, SC_NOOFF, 100);       /* the child: appends */
	finish(f);
	assert_int_equal(f->s.nranks, 3);
	uint64_t n;
	const struct op *t = rank_ops(f, 1, &n);            /* the thread */
	assert_int_equal(n, 3);
	assert_true(t[0].flags & OPF_IMPLICIT_OPEN);
	assert_string_equal(opstream_path(&f->s, t[0].file), "/d/app.log");
	assert_int_equal(t[2].kind, OP_SETFL);               /* its open takes the flags */
	assert_int_equal(t[2].handle, t[0].handle);
	assert_int_equal(t[2].oflags, O_APPEND);
	assert_true(t[2].flags & OPF_SYNTH);
	const struct op *o = rank_ops(f, 0, &n);            /* the main thread */
	assert_int_equal(o[n - 1].kind, OP_SETFL);
	assert_false(o[n - 1].flags & OPF_SYNTH);
	const struct op *c = rank_ops(f, 2, &n);            /* the child */
	assert_int_equal(n, 2);
	assert_true(c[0].flags & OPF_IMPLICIT_OPEN);
	assert_string_equal(opstream_path(&f->s, c[0].file), "/d/app.log.1");
	assert_int_equal(c[0].oflags & O_APPEND, O_APPEND);
	assert_int_equal(c[1].offset, 16);
	assert_true(c[1].flags & OPF_APPEND);
}

/* An F_SETFL is not repeated in a rank whose process has exited (an op
 * after its end would stretch its time). */
static void test_setfl_exited_rank(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/d/s", O_WRONLY | O_CREAT | O_TRUNC, 3);
	struct sc_event ev = ev0(f, 1, SC_CLONE);
	ev.flags = CLONE_VM | CLONE_FILES | CLONE_THREAD;
	ev.ret = 2;
	feed(f, &ev);
	op_rw(f, 2, SC_WRITE, 3, 10, SC_NOOFF, 10);
	ev = ev0(f, 2, SC_EXIT);
	feed(f, &ev);
	ev = ev0(f, 1, SC_SETFL);
	ev.fd = 3;
	ev.flags = O_WRONLY | O_APPEND;
	ev.ret = 0;
	feed(f, &ev);
	finish(f);
	uint64_t n;
	const struct op *t = rank_ops(f, 1, &n);            /* the thread */
	assert_int_equal(n, 2);                               /* open, write: no setfl */
	assert_int_equal(t[1].kind, OP_WRITE);
}

/* A rank's first use of a description whose file has no name by then
 * (unlinked since it came to be at its path, or O_TMPFILE) is counted,
 * with the first's place; one renamed, or unlinked only after the use,
 * is not. */
static void test_shared_unnamed(void **state)
{
	struct fx *f = *state;
	op_open(f, 1, "/d/kept", O_RDWR | O_CREAT, 3);
	op_open(f, 1, "/d/gone", O_RDWR | O_CREAT, 4);
	op_open(f, 1, "/d/moved", O_RDWR | O_CREAT, 5);
	struct sc_event ev = ev0(f, 1, SC_UNLINK);
	ev.path = "/d/gone";
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_RENAME);
	ev.path = "/d/moved";
	ev.path2 = "/d/kept2";
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_CLONE);
	ev.flags = CLONE_VM | CLONE_FILES | CLONE_THREAD;
	ev.ret = 2;
	feed(f, &ev);
	op_rw(f, 2, SC_WRITE, 3, 10, SC_NOOFF, 10);
	op_rw(f, 2, SC_WRITE, 5, 10, SC_NOOFF, 10);
	char buf[300];
	op_rw(f, 2, SC_WRITE, 4, 10, SC_NOOFF, 10);         /* unnamed: counted */
	ev = ev0(f, 1, SC_UNLINK);
	ev.path = "/d/kept";
	ev.ret = 0;
	feed(f, &ev);
	finish(f);
	assert_string_equal(opstream_info(&f->s, "unnamed_shared_opens", buf, sizeof(buf)), "1");
	assert_non_null(strstr(opstream_info(&f->s, "unnamed_shared_first", buf, sizeof(buf)),
			       "(/d/gone)"));
	uint64_t n;
	const struct op *t = rank_ops(f, 1, &n);
	assert_string_equal(opstream_path(&f->s, t[2].file), "/d/kept2");
}

/* strace -y: the file the kernel opened is the identity, and a directory
 * reached through a symlink is learnt as an alias for the calls that only
 * name paths (issue 11); an open found where it is spelled undoes an alias
 * that was a file's symlink. */
/* symlink: the link's path resolved like any (cwd, dirfd), its content kept
 * as spelled in the path table; failed calls kept with their result; no
 * content, no op; the link's path is the op's file, the content no file */
static void test_symlink(void **state)
{
	struct fx *f = *state;
	struct sc_event ev = ev0(f, 1, SC_SYMLINK);
	ev.path = "/r/.git/tXY";
	ev.path2 = "testing";
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_SYMLINK);               /* symlinkat(.., AT_FDCWD</w>, "l") */
	ev.path = "l";
	ev.path2 = "../data/./f";
	ev.fdpath = "/w";
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_SYMLINK);               /* symlinkat(.., 3</d>, "m") = EEXIST */
	ev.path = "m";
	ev.dirfd = 3;
	ev.fdpath = "/d";
	ev.path2 = "/abs/t";
	ev.ret = -EEXIST;
	feed(f, &ev);
	ev = ev0(f, 1, SC_SYMLINK);               /* names not shown: left out */
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_SYMLINK);               /* in /proc: special, left out */
	ev.path = "/proc/self/x";
	ev.path2 = "y";
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_STAT);
	ev.path = "/r/.git/tXY";
	ev.ret = 0;
	feed(f, &ev);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 4);
	assert_int_equal(o[0].kind, OP_SYMLINK);
	assert_string_equal(opstream_path(&f->s, o[0].file), "/r/.git/tXY");
	assert_string_equal(opstream_path(&f->s, o[0].aux), "testing");
	assert_int_equal(o[0].handle, OP_NOHANDLE);
	assert_int_equal(o[0].result, 0);
	assert_string_equal(op_kind_name(o[0].kind), "symlink");
	assert_int_equal(o[1].kind, OP_SYMLINK);
	assert_string_equal(opstream_path(&f->s, o[1].file), "/w/l");
	assert_string_equal(opstream_path(&f->s, o[1].aux), "../data/./f");
	assert_int_equal(o[2].kind, OP_SYMLINK);
	assert_string_equal(opstream_path(&f->s, o[2].file), "/d/m");
	assert_string_equal(opstream_path(&f->s, o[2].aux), "/abs/t");
	assert_int_equal(o[2].result, -EEXIST);
	assert_int_equal(o[3].kind, OP_STAT);
	assert_int_equal(o[3].file, o[0].file);
	assert_false(op_has_path2(OP_SYMLINK));
	assert_true(op_aux_is_path(OP_SYMLINK));
}

static void test_resolved_identity(void **state)
{
	struct fx *f = *state;
	struct sc_event ev = ev0(f, 1, SC_OPEN);
	ev.path = "/w/link/ckpt.dat";
	ev.retpath = "/w/real/ckpt.dat";
	ev.flags = O_WRONLY | O_CREAT;
	ev.ret = 3;
	feed(f, &ev);
	ev = ev0(f, 1, SC_UNLINK);               /* by path, through the link */
	ev.path = "/w/link/other.dat";
	ev.ret = 0;
	feed(f, &ev);
	ev = ev0(f, 1, SC_OPEN);                 /* another file through it */
	ev.path = "/w/link/x";
	ev.flags = O_RDONLY;
	ev.ret = -ENOENT;
	feed(f, &ev);
	/* /f/file.txt is a symlink to /g/file.txt: learnt, then undone */
	ev = ev0(f, 1, SC_OPEN);
	ev.path = "/f/file.txt";
	ev.retpath = "/g/file.txt";
	ev.flags = O_RDONLY;
	ev.ret = 4;
	feed(f, &ev);
	ev = ev0(f, 1, SC_OPEN);
	ev.path = "/f/plain.txt";
	ev.retpath = "/f/plain.txt";
	ev.flags = O_RDONLY;
	ev.ret = 5;
	feed(f, &ev);
	ev = ev0(f, 1, SC_STAT);
	ev.path = "/f/more.txt";
	ev.ret = 0;
	feed(f, &ev);
	finish(f);
	uint64_t n;
	const struct op *ops = rank_ops(f, 0, &n);
	assert_int_equal(n, 6);
	assert_string_equal(opstream_path(&f->s, ops[0].file), "/w/real/ckpt.dat");
	assert_string_equal(opstream_path(&f->s, ops[1].file), "/w/real/other.dat");
	assert_string_equal(opstream_path(&f->s, ops[2].file), "/w/real/x");
	assert_string_equal(opstream_path(&f->s, ops[3].file), "/g/file.txt");
	assert_string_equal(opstream_path(&f->s, ops[4].file), "/f/plain.txt");
	assert_string_equal(opstream_path(&f->s, ops[5].file), "/f/more.txt");
}

/* O_TMPFILE names a directory and makes an unnamed file in it: the file
 * is strace -y's "DIR/#INODE" (a later O_TMPFILE file may get the same
 * name: each starts empty), or DIR/#tmpfile without -y (before: the
 * directory itself, so its I/O went to the directory's path). */
static void test_tmpfile_open(void **state)
{
	struct fx *f = *state;
	const int64_t fl = O_RDWR | O_EXCL | O_NOFOLLOW | O_TMPFILE;
	struct sc_event ev = ev0(f, 1, SC_OPEN);
	ev.path = "/w/v3/.";
	ev.retpath = "/w/v3/#12575779";
	ev.flags = fl;
	ev.mode = 0600;
	ev.ret = 3;
	feed(f, &ev);
	op_rw(f, 1, SC_WRITE, 3, 70000, SC_NOOFF, 70000);
	op_fd(f, 1, SC_CLOSE, 3, 0);
	ev = ev0(f, 1, SC_OPEN);                 /* the same name, a new file */
	ev.path = "/w/v3";
	ev.retpath = "/w/v3/#12575779";
	ev.flags = O_WRONLY | O_TMPFILE;
	ev.ret = 3;
	feed(f, &ev);
	ev = ev0(f, 1, SC_LSEEK);
	ev.fd = 3;
	ev.offset = 0;
	ev.whence = SEEK_END;
	ev.ret = 0;
	feed(f, &ev);
	op_rw(f, 1, SC_WRITE, 3, 9999, SC_NOOFF, 9999);
	op_fd(f, 1, SC_CLOSE, 3, 0);
	op_open(f, 1, "/w/v4/", fl, 4);          /* no -y */
	op_rw(f, 1, SC_WRITE, 4, 10, SC_NOOFF, 10);
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 9);                  /* (the lseek an OP_SEEK) */
	assert_int_equal(o[0].kind, OP_OPEN);
	assert_true(op_oflags_tmpfile(o[0].oflags));
	assert_string_equal(opstream_path(&f->s, o[0].file), "/w/v3/#12575779");
	assert_int_equal(o[1].file, o[0].file);
	assert_int_equal(o[1].len, 70000);
	assert_int_equal(o[3].file, o[0].file);
	assert_true(op_oflags_tmpfile(o[3].oflags));
	assert_int_equal(o[5].kind, OP_WRITE);
	assert_int_equal(o[5].offset, 0);        /* SEEK_END of a new, empty file */
	assert_int_equal(o[7].kind, OP_OPEN);
	assert_string_equal(opstream_path(&f->s, o[7].file), "/w/v4/#tmpfile");
	assert_int_equal(o[8].file, o[7].file);
}

/* ---- the fast paths against the general ones ------------------------------ */

/* A sink gets no slot from opsw_slot, so every op of a builder over one
 * takes the general path (do_data, emit, opsw_append); over a file the
 * common reads and writes are built in place by data_fast. */
struct sunk {
	struct op *ops[8];
	uint64_t n[8];
};

static int sunk_op(void *arg, uint32_t rank, const struct op *op)
{
	struct sunk *k = arg;
	assert_true(rank < 8);
	k->ops[rank] = realloc(k->ops[rank], (k->n[rank] + 1) * sizeof(*op));
	assert_non_null(k->ops[rank]);
	k->ops[rank][k->n[rank]++] = *op;
	return 0;
}

/* Reads and writes of every shape the fast path takes or turns away. */
static void fast_scenario(struct fx *f)
{
	struct sc_event ev;
	op_open(f, 10, "/d/a", O_RDWR | O_CREAT, 3);
	op_open(f, 10, "/d/log", O_WRONLY | O_APPEND, 4);
	op_open(f, 20, "/d/b", O_RDWR, 5);
	/* pid 10 + 64 and 10 share pseen's slot: distinct processes */
	op_open(f, 74, "/d/c", O_RDWR, 3);
	ev = ev0(f, 10, SC_CLONE);
	ev.flags = CLONE_VM | CLONE_FILES | CLONE_THREAD;
	ev.ret = 11;
	feed(f, &ev);
	for (int i = 0; i < 700; i++) {
		int64_t pid = i % 7 == 3 ? 20 : i % 11 == 5 ? 11 : i % 13 == 7 ? 74 : 10;
		int64_t fd = pid == 20 ? 5 : 3;
		enum sc_call c = i % 3 ? SC_WRITE : SC_READ;
		int64_t off = i % 4 == 1 ? (int64_t)i * 100 : SC_NOOFF;
		int64_t ret = i % 17 == 2 ? -EIO : i % 19 == 4 ? SC_RET_UNKNOWN :
			      i % 23 == 6 ? 0 : (int64_t)(i % 5) * 512 + 1;
		ev = ev0(f, pid, c);
		ev.fd = fd;
		ev.len = i % 29 == 8 ? (uint64_t)1 << 40 : (uint64_t)(i % 5) * 512 + 7;
		ev.offset = off;
		ev.ret = ret;
		ev.iovcnt = i % 31 == 9 ? 0 : i % 37 == 10 ? 70000 : (uint32_t)(i % 3) + 1;
		ev.dur_ns = (uint64_t)i * 3;
		if (i % 41 == 11)
			ev.ts_ns -= 500000;         /* time going back: clamped */
		if (i % 43 == 12)
			ev.ts_ns = 1;               /* before the rank's t0 */
		if (i % 47 == 13)
			ev.opflags = OPF_SYNTH;
		if (i % 53 == 14)
			ev.fdpath = "/d/a";         /* -y agreeing */
		if (i % 59 == 15)
			ev.name = "io_submit";
		if (i % 61 == 16 && c == SC_WRITE)
			ev.flags = O_APPEND;        /* pwritev2 RWF_APPEND: general path */
		feed(f, &ev);
		if (i % 67 == 17)                   /* O_APPEND file: general path, */
			op_rw(f, 10, SC_WRITE, 4, 100, SC_NOOFF, 100); /* uses sizes */
		if (i % 71 == 18) {                 /* the size the writes left */
			ev = ev0(f, 10, SC_LSEEK);
			ev.fd = 3;
			ev.whence = SEEK_END;
			ev.offset = 0;
			ev.ret = SC_RET_UNKNOWN;
			feed(f, &ev);
		}
		if (i % 5 == 2) {                   /* seeks of every kind */
			static const int whence[] = { SEEK_SET, SEEK_CUR, SEEK_END };
			ev = ev0(f, pid, SC_LSEEK);
			ev.fd = fd;
			ev.whence = whence[i % 3];
			ev.offset = i % 9 == 2 ? -100000000 : (int64_t)i * 10 - 300;
			ev.ret = i % 4 == 0 ? SC_RET_UNKNOWN : i % 4 == 1 ? -EINVAL :
				 (int64_t)i * 7;
			feed(f, &ev);
		}
		if (i % 73 == 19) {                 /* skipped calls between */
			ev = ev0(f, pid, SC_SKIP);
			ev.name = i % 2 ? "futex" : "clock_gettime";
			feed(f, &ev);
		}
	}
	/* an fd the table does not know, one -y says is a socket, a
	 * special file */
	op_rw(f, 10, SC_READ, 9, 10, SC_NOOFF, 10);
	ev = ev0(f, 10, SC_WRITE);
	ev.fd = 3;
	ev.len = 5;
	ev.ret = 5;
	ev.fdpath = "socket:[123]";
	feed(f, &ev);
	op_open(f, 10, "/dev/null", O_WRONLY, 6);
	op_rw(f, 10, SC_WRITE, 6, 10, SC_NOOFF, 10);
	op_fd(f, 10, SC_CLOSE, 4, 0);
	op_fd(f, 20, SC_CLOSE, 5, 0);
}

/* scenario fed to f (over a file: the fast paths) and to a builder over a
 * sink (the general paths): the same records, stats and info, byte for
 * byte; the ops in all (ranks: f->s) */
static uint64_t same_as_general(struct fx *f, void (*scenario)(struct fx *))
{
	scenario(f);
	finish(f);

	struct fx g = { .ts = 1000000000 };
	struct sunk k = { 0 };
	struct ops_sink sink = { .op = sunk_op, .arg = &k };
	assert_int_equal(opsw_open_sink(&g.w, &sink), 0);
	assert_int_equal(builder_new(&g.b, g.w), 0);
	scenario(&g);
	struct rerr e = { "" };
	assert_int_equal(builder_finish(g.b, &e), 0);
	struct opstream t;
	const char *why = NULL;
	assert_int_equal(opsw_finish_tables(g.w, &t, &why), 0);

	assert_int_equal(f->s.nranks, t.nranks);
	assert_int_equal(f->s.npaths, t.npaths);
	assert_string_equal(f->s.info, t.info);
	uint64_t total = 0;
	for (uint32_t r = 0; r < f->s.nranks; r++) {
		uint64_t n;
		const struct op *o = rank_ops(f, r, &n);
		assert_int_equal(n, k.n[r]);
		for (uint64_t i = 0; i < n; i++)
			if (memcmp(&o[i], &k.ops[r][i], sizeof(*o)))
				fail_msg("rank %u op %llu (line %u) differs: kind %u/%u t %llu/%llu "
					 "off %llu/%llu len %llu/%llu res %lld/%lld iov %u/%u fl %u/%u",
					 r, (unsigned long long)i, o[i].line, o[i].kind,
					 k.ops[r][i].kind, (unsigned long long)o[i].t_ns,
					 (unsigned long long)k.ops[r][i].t_ns,
					 (unsigned long long)o[i].offset,
					 (unsigned long long)k.ops[r][i].offset,
					 (unsigned long long)o[i].len,
					 (unsigned long long)k.ops[r][i].len,
					 (long long)o[i].result, (long long)k.ops[r][i].result,
					 o[i].iovcnt, k.ops[r][i].iovcnt, o[i].flags,
					 k.ops[r][i].flags);
		total += n;
		free(k.ops[r]);
	}
	const struct build_stats *a = builder_stats(f->b), *z = builder_stats(g.b);
	assert_memory_equal(a, z, sizeof(*a));
	for (uint32_t r = 0; r < f->s.nranks; r++)
		assert_string_equal(opstream_rank_name(&f->s, r), opstream_rank_name(&t, r));
	opstream_close(&t);
	builder_free(g.b);
	return total;
}

static void test_fast_path_same_ops(void **state)
{
	struct fx *f = *state;
	assert_true(same_as_general(f, fast_scenario) > 700);
	assert_int_equal(f->s.nranks, 4);
	/* the ranks: pid 10, 20, 74, 11 in order of first op */
	assert_string_equal(opstream_rank_name(&f->s, 2), "pid 74");
}

static void rw(struct fx *f, int64_t pid, enum sc_call c, int64_t fd, uint64_t len, int64_t ret)
{
	op_rw(f, pid, c, fd, len, SC_NOOFF, ret);
}

static void async_ev(struct fx *f, int64_t pid, enum sc_call c, int64_t fd, int64_t off,
		     uint64_t len, uint64_t id, int64_t ret)
{
	struct sc_event ev = ev0(f, pid, c);
	ev.fd = fd;
	ev.offset = off;
	ev.len = len;
	ev.async_id = id;
	ev.ret = ret;
	feed(f, &ev);
}

/*
 * What the fast paths remember of a (pid, fd) must not outlive a change
 * of it: an fd closed, reopened, dup2'd over, closed by another thread or
 * by close_range, contradicted by -y, a process exited and its pid
 * reused, a new rank, (pid, fd) pairs sharing a slot; async submits and
 * waits (known, unknown, before a rank starts, on an O_APPEND file).
 */
static void cache_scenario(struct fx *f)
{
	struct sc_event ev;
	op_open(f, 2, "/c/a", O_RDWR | O_CREAT, 3);
	op_open(f, 36, "/c/b", O_RDWR | O_CREAT, 3);   /* (2,3), (36,3): one slot of fdc_slot() */
	for (int i = 0; i < 40; i++) {
		rw(f, i % 3 ? 2 : 36, i % 2 ? SC_WRITE : SC_READ, 3, 100 + (uint64_t)i,
		   i % 9 == 4 ? -EBADF : i % 11 == 5 ? SC_RET_UNKNOWN : 100 + i);
		if (i % 7 == 3) {
			ev = ev0(f, 2, SC_LSEEK);
			ev.fd = 3;
			ev.whence = i % 2 ? SEEK_CUR : SEEK_SET;
			ev.offset = i * 3;
			ev.ret = i % 2 ? SC_RET_UNKNOWN : i * 3;
			feed(f, &ev);
		}
	}
	/* closed: unknown; reopened as another file at the same number */
	op_fd(f, 2, SC_CLOSE, 3, 0);
	rw(f, 2, SC_READ, 3, 10, 10);
	op_open(f, 2, "/c/c", O_RDWR, 3);
	rw(f, 2, SC_WRITE, 3, 10, 10);
	rw(f, 2, SC_WRITE, 3, 10, 10);
	/* dup2 3 -> 6, 3 closed, 6 still the file; another dup2'd over 6 */
	op_dup2(f, 2, 3, 6);
	rw(f, 2, SC_READ, 6, 7, 7);
	op_fd(f, 2, SC_CLOSE, 3, 0);
	rw(f, 2, SC_READ, 6, 7, 7);
	op_open(f, 2, "/c/d", O_RDWR, 7);
	rw(f, 2, SC_READ, 7, 7, 7);
	op_dup2(f, 2, 7, 6);
	rw(f, 2, SC_READ, 6, 7, 7);
	/* a thread (shared table): its own handle by an implicit open; the
	 * fd closed by the other thread */
	ev = ev0(f, 2, SC_CLONE);
	ev.flags = CLONE_VM | CLONE_FILES | CLONE_THREAD;
	ev.ret = 31;
	feed(f, &ev);
	rw(f, 31, SC_READ, 6, 5, 5);
	rw(f, 31, SC_READ, 6, 5, 5);
	rw(f, 2, SC_READ, 6, 5, 5);
	op_fd(f, 2, SC_CLOSE, 6, 0);
	rw(f, 31, SC_READ, 6, 5, 5);
	/* a forked child keeps its copy when the parent closes */
	ev = ev0(f, 2, SC_CLONE);
	ev.flags = 0;
	ev.ret = 32;
	feed(f, &ev);
	rw(f, 32, SC_WRITE, 7, 9, 9);
	rw(f, 2, SC_WRITE, 7, 9, 9);
	op_fd(f, 2, SC_CLOSE, 7, 0);
	rw(f, 32, SC_WRITE, 7, 9, 9);
	rw(f, 2, SC_WRITE, 7, 9, 9);
	/* the child exits, its pid comes back with an empty table */
	ev = ev0(f, 32, SC_EXIT);
	feed(f, &ev);
	rw(f, 32, SC_WRITE, 7, 9, 9);
	op_open(f, 32, "/c/e", O_RDWR, 7);
	rw(f, 32, SC_WRITE, 7, 9, 9);
	/* -y says fd 3 is a socket now: the entry is stale */
	rw(f, 2, SC_READ, 3, 4, 4);
	ev = ev0(f, 2, SC_READ);
	ev.fd = 3;
	ev.len = 4;
	ev.ret = 4;
	ev.fdpath = "socket:[9]";
	feed(f, &ev);
	rw(f, 2, SC_READ, 3, 4, 4);
	/* close_range */
	op_open(f, 36, "/c/f", O_RDWR, 4);
	rw(f, 36, SC_READ, 4, 4, 4);
	rw(f, 36, SC_READ, 3, 4, 4);
	ev = ev0(f, 36, SC_CLOSE_RANGE);
	ev.fd = 3;
	ev.fd2 = -1;
	ev.ret = 0;
	feed(f, &ev);
	rw(f, 36, SC_READ, 4, 4, 4);
	rw(f, 36, SC_READ, 3, 4, 4);
	/* a new rank: its first op a wait (unknown), then submits and waits */
	async_ev(f, 40, SC_AWAIT, -1, SC_NOOFF, 0, 1, 10);
	op_open(f, 40, "/c/g", O_RDWR, 3);
	op_open(f, 40, "/c/log", O_WRONLY | O_APPEND, 4);
	for (int i = 0; i < 30; i++) {
		uint64_t id = (uint64_t)i % 4 + 1;
		async_ev(f, 40, i % 2 ? SC_AWRITE : SC_AREAD, i % 5 == 4 ? 4 : 3,
			 i % 3 ? (int64_t)i * 4096 : SC_NOOFF, 4096 + (uint64_t)i, id,
			 i % 7 == 6 ? -EAGAIN : SC_RET_UNKNOWN);
		if (i % 2)
			async_ev(f, 40, SC_AWAIT, -1, SC_NOOFF, 0, id,
				 i % 3 == 1 ? SC_RET_UNKNOWN : 4000);
		if (i % 10 == 9)
			async_ev(f, 40, SC_AWAIT, -1, SC_NOOFF, 0, 99, 1);   /* unknown id */
	}
	async_ev(f, 40, SC_AREAD, 9, 0, 10, 7, SC_RET_UNKNOWN);    /* unknown fd */
	async_ev(f, 40, SC_AWAIT, -1, SC_NOOFF, 0, 7, 10);
	ev = ev0(f, 40, SC_BARRIER);
	ev.ret = 0;
	feed(f, &ev);
	rw(f, 40, SC_READ, 3, 1, 1);
}

static void test_fd_cache_same_ops(void **state)
{
	struct fx *f = *state;
	assert_true(same_as_general(f, cache_scenario) > 100);
	const struct build_stats *st = builder_stats(f->b);
	assert_true(st->unknown_fd_ops >= 6);
	assert_true(st->failed_calls > 0);
	char v[32];
	assert_non_null(opstream_info(&f->s, "unknown_async_waits", v, sizeof(v)));
	assert_string_equal(v, "5");
}

/* An fsync whose -y shows its fd is no longer the file's drops the fd
 * (lookup_fd_slow): what the fast paths remembered of it goes too, while
 * a plain fsync keeps it. */
static void test_fd_cache_fsync_stale(void **state)
{
	struct fx *f = *state;
	op_open(f, 2, "/c/a", O_RDWR | O_CREAT, 3);
	rw(f, 2, SC_WRITE, 3, 10, 10);
	op_fd(f, 2, SC_FSYNC, 3, 0);
	rw(f, 2, SC_WRITE, 3, 10, 10);
	struct sc_event ev = ev0(f, 2, SC_FSYNC);
	ev.fd = 3;
	ev.fdpath = "socket:[4242]";
	ev.ret = 0;
	feed(f, &ev);
	rw(f, 2, SC_WRITE, 3, 10, 10);  /* an fd not known to be a file now */
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 4);         /* open, write, fsync, write */
	assert_int_equal(o[1].kind, OP_WRITE);
	assert_int_equal(o[2].kind, OP_FSYNC);
	assert_int_equal(o[3].kind, OP_WRITE);
	assert_int_equal(o[3].offset, 10);
	assert_true(builder_stats(f->b)->unknown_fd_ops >= 1);
}

/* A read or write by pid 2 on fd with -y's path: SC_NOOFF, ret = len. */
static void rw_y(struct fx *f, enum sc_call c, int64_t fd, const char *fdpath, uint64_t len)
{
	struct sc_event ev = ev0(f, 2, c);
	ev.fd = fd;
	ev.len = len;
	ev.ret = (int64_t)len;
	ev.fdpath = fdpath;
	feed(f, &ev);
}

static void rename_ev(struct fx *f, const char *from, const char *to)
{
	struct sc_event ev = ev0(f, 2, SC_RENAME);
	ev.path = from;
	ev.path2 = to;
	ev.ret = 0;
	feed(f, &ev);
}

/* Rank 0's ops o[0..n) are want's: kind, path, offset of reads and
 * writes, the implicit-open and synth flags. */
struct want_op {
	uint8_t kind;
	const char *path;
	uint64_t off;
	uint8_t flags;
};

static void expect_ops(struct fx *f, const struct op *o, uint64_t n, const struct want_op *want,
		       size_t nwant)
{
	assert_int_equal(n, nwant);
	for (uint64_t i = 0; i < n; i++) {
		if (o[i].kind != want[i].kind || strcmp(opstream_path(&f->s, o[i].file), want[i].path) ||
		    ((o[i].kind == OP_READ || o[i].kind == OP_WRITE) && o[i].offset != want[i].off) ||
		    (o[i].flags & (OPF_IMPLICIT_OPEN | OPF_SYNTH)) != want[i].flags)
			fail_msg("op %llu: kind %u %s off %llu flags %u, expected kind %u %s off %llu flags %u",
				 (unsigned long long)i, o[i].kind, opstream_path(&f->s, o[i].file),
				 (unsigned long long)o[i].offset, o[i].flags, want[i].kind, want[i].path,
				 (unsigned long long)want[i].off, want[i].flags);
	}
}

/* strace -y -e trace=read,write (or -P, or an exec) hides the closes and
 * opens: the decoration of fd 3 turning from /d/a to /d/b means fd 3 is
 * another file now.  A rename the trace shows is not such a change. */
static void decor_scenario(struct fx *f)
{
	rw_y(f, SC_READ, 3, "/d/a", 10);        /* implicit open of /d/a */
	rw_y(f, SC_READ, 3, "/d/a", 10);
	rw_y(f, SC_READ, 3, "/d/b", 10);        /* close /d/a, implicit /d/b */
	rw_y(f, SC_WRITE, 3, "/d/b", 10);
	rw_y(f, SC_WRITE, 3, "/dev/null", 10);  /* close /d/b; special */
	rw_y(f, SC_WRITE, 3, "/d/b", 10);       /* implicit /d/b again */
	struct sc_event ev = ev0(f, 2, SC_OPEN);
	ev.path = "c";
	ev.flags = O_RDWR | O_CREAT;
	ev.ret = 4;
	ev.fdpath = "/d";                       /* AT_FDCWD</d> */
	ev.retpath = "/d/c";
	feed(f, &ev);
	rw_y(f, SC_WRITE, 4, "/d/c", 5);
	rename_ev(f, "/d/c", "/d/e");           /* renamed while open */
	rw_y(f, SC_WRITE, 4, "/d/e", 5);
	op_open(f, 2, "/d/sub/f", O_RDWR | O_CREAT, 5);
	rw_y(f, SC_WRITE, 5, "/d/sub/f", 7);
	rename_ev(f, "/d/sub", "/d/s2");        /* its directory renamed */
	rw_y(f, SC_WRITE, 5, "/d/s2/f", 7);
	rw_y(f, SC_WRITE, 4, "/d/e", 5);
}

static void test_fd_decoration_names_another_file(void **state)
{
	struct fx *f = *state;
	assert_int_equal(same_as_general(f, decor_scenario), 19);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	static const struct want_op want[] = {
		{ OP_OPEN, "/d/a", 0, OPF_IMPLICIT_OPEN }, { OP_READ, "/d/a", 0, 0 },
		{ OP_READ, "/d/a", 10, 0 }, { OP_CLOSE, "/d/a", 0, OPF_SYNTH },
		{ OP_OPEN, "/d/b", 0, OPF_IMPLICIT_OPEN }, { OP_READ, "/d/b", 0, 0 },
		{ OP_WRITE, "/d/b", 10, 0 }, { OP_CLOSE, "/d/b", 0, OPF_SYNTH },
		{ OP_OPEN, "/d/b", 0, OPF_IMPLICIT_OPEN }, { OP_WRITE, "/d/b", 0, 0 },
		{ OP_OPEN, "/d/c", 0, 0 }, { OP_WRITE, "/d/c", 0, 0 },
		{ OP_RENAME, "/d/c", 0, 0 }, { OP_WRITE, "/d/c", 5, 0 },
		{ OP_OPEN, "/d/sub/f", 0, 0 }, { OP_WRITE, "/d/sub/f", 0, 0 },
		{ OP_RENAME, "/d/sub", 0, 0 }, { OP_WRITE, "/d/sub/f", 7, 0 },
		{ OP_WRITE, "/d/c", 10, 0 },
	};
	expect_ops(f, o, n, want, sizeof(want) / sizeof(want[0]));
	/* each close is of the handle the open before it gave */
	assert_int_equal(o[3].handle, o[0].handle);
	assert_int_equal(o[7].handle, o[4].handle);
	assert_int_equal(o[13].handle, o[10].handle);
	assert_int_equal(builder_stats(f->b)->implicit_opens, 3);
}

/* An open whose result -y did not decorate (an older strace) keeps the
 * path as the program spelled it, through a symlinked directory perhaps:
 * the first -y of the fd is the file's real name, not another file; once
 * a decoration named it, another name is another file (a hidden close and
 * open).  An open with a decorated result is -y's name from the start. */
static void test_fd_decoration_symlinked_open(void **state)
{
	struct fx *f = *state;
	op_open(f, 2, "/link/f", O_RDWR | O_CREAT, 3);   /* no retpath */
	rw_y(f, SC_WRITE, 3, "/real/f", 10);              /* same file */
	rw_y(f, SC_WRITE, 3, "/real/f", 10);
	rw_y(f, SC_WRITE, 3, "/real/g", 10);              /* another one */
	struct sc_event ev = ev0(f, 2, SC_OPEN);
	ev.path = "/link/h";
	ev.flags = O_RDWR | O_CREAT;
	ev.ret = 4;
	ev.retpath = "/real/h";
	feed(f, &ev);
	rw_y(f, SC_WRITE, 4, "/real/h2", 10);             /* another file */
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	static const struct want_op want[] = {
		{ OP_OPEN, "/link/f", 0, 0 }, { OP_WRITE, "/link/f", 0, 0 },
		{ OP_WRITE, "/link/f", 10, 0 }, { OP_CLOSE, "/link/f", 0, OPF_SYNTH },
		{ OP_OPEN, "/real/g", 0, OPF_IMPLICIT_OPEN }, { OP_WRITE, "/real/g", 0, 0 },
		{ OP_OPEN, "/real/h", 0, 0 }, { OP_CLOSE, "/real/h", 0, OPF_SYNTH },
		{ OP_OPEN, "/real/h2", 0, OPF_IMPLICIT_OPEN }, { OP_WRITE, "/real/h2", 0, 0 },
	};
	expect_ops(f, o, n, want, sizeof(want) / sizeof(want[0]));
}

/* Only the last 4096 renames are kept (the builder's memory stays bounded
 * whatever the trace renames): a file renamed before them whose fd -y
 * shows under the new name counts as reopened there; one renamed among
 * them keeps its description and position. */
static void test_fd_decoration_renames_bounded(void **state)
{
	struct fx *f = *state;
	op_open(f, 2, "/d/x", O_RDWR | O_CREAT, 3);
	rw_y(f, SC_WRITE, 3, "/d/x", 5);
	rename_ev(f, "/d/x", "/d/y");
	char a[32], b[32];
	for (int i = 0; i < 4100; i++) {
		if (i == 4090) {
			op_open(f, 2, "/d/p", O_RDWR | O_CREAT, 4);
			rw_y(f, SC_WRITE, 4, "/d/p", 5);
			rename_ev(f, "/d/p", "/d/q");
		}
		snprintf(a, sizeof(a), "/d/r%d", i);
		snprintf(b, sizeof(b), "/d/s%d", i);
		rename_ev(f, a, b);
	}
	rw_y(f, SC_WRITE, 4, "/d/q", 5);        /* 11 renames ago: followed */
	rw_y(f, SC_WRITE, 3, "/d/y", 5);        /* 4101 ago: reopened */
	finish(f);
	uint64_t n;
	const struct op *o = rank_ops(f, 0, &n);
	assert_int_equal(n, 2 + 4101 + 2 + 1 + 4);
	const struct op *t = &o[n - 4];
	assert_int_equal(t[0].kind, OP_WRITE);  /* fd 4, same description */
	assert_string_equal(opstream_path(&f->s, t[0].file), "/d/p");
	assert_int_equal(t[0].offset, 5);
	assert_int_equal(t[1].kind, OP_CLOSE);  /* fd 3: closed, opened on /d/y */
	assert_true(t[1].flags & OPF_SYNTH);
	assert_int_equal(t[1].handle, o[0].handle);
	assert_int_equal(t[2].kind, OP_OPEN);
	assert_true(t[2].flags & OPF_IMPLICIT_OPEN);
	assert_string_equal(opstream_path(&f->s, t[2].file), "/d/y");
	assert_int_equal(t[3].kind, OP_WRITE);
	assert_int_equal(t[3].offset, 0);
}

/* Two processes' fd 3 in one slot of the fast paths' cache (fdc_slot):
 * each one's reads and writes stay on its own file, rank and position. */
static void test_fd_cache_slot_shared(void **state)
{
	struct fx *f = *state;
	op_open(f, 2, "/c/a", O_RDWR | O_CREAT, 3);
	op_open(f, 36, "/c/b", O_RDWR | O_CREAT, 3);
	for (int i = 0; i < 6; i++) {
		rw(f, 36, i % 2 ? SC_READ : SC_WRITE, 3, 100, 100);
		rw(f, 2, i % 2 ? SC_READ : SC_WRITE, 3, 200, 200);
		rw(f, 2, SC_WRITE, 3, 200, 200);
	}
	finish(f);
	for (uint32_t r = 0; r < 2; r++) {
		uint64_t n, pos = 0;
		const struct op *o = rank_ops(f, r, &n);
		uint64_t len = r ? 100 : 200;
		assert_int_equal(n, r ? 7 : 13);
		for (uint64_t i = 1; i < n; i++) {
			assert_int_equal(o[i].file, o[0].file);
			assert_int_equal(o[i].len, len);
			assert_int_equal(o[i].offset, pos);
			pos += len;
		}
	}
	assert_string_equal(opstream_path(&f->s, rank_ops(f, 0, &(uint64_t){ 0 })[0].file), "/c/a");
	assert_string_equal(opstream_path(&f->s, rank_ops(f, 1, &(uint64_t){ 0 })[0].file), "/c/b");
}

/* count_skip remembers where a name was: the same address holding
 * another name later must count under that one. */
static void test_skip_names_same_address(void **state)
{
	struct fx *f = *state;
	char buf[32];
	const char *names[] = { "futex", "clock_gettime", "futex", "futex", "getpid",
				"clock_gettime", "a_much_longer_skipped_name", "futex" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		strcpy(buf, names[i]);
		struct sc_event ev = ev0(f, 1, SC_SKIP);
		ev.name = buf;
		feed(f, &ev);
		ev = ev0(f, 1, SC_SKIP);
		ev.name = names[i];
		feed(f, &ev);
	}
	struct sc_event ev = ev0(f, 1, SC_SKIP);
	ev.name = NULL;
	feed(f, &ev);
	finish(f);
	char v[32];
	assert_non_null(opstream_info(&f->s, "skipped.futex", v, sizeof(v)));
	assert_string_equal(v, "8");
	assert_non_null(opstream_info(&f->s, "skipped.clock_gettime", v, sizeof(v)));
	assert_string_equal(v, "4");
	assert_non_null(opstream_info(&f->s, "skipped.getpid", v, sizeof(v)));
	assert_string_equal(v, "2");
	assert_non_null(opstream_info(&f->s, "skipped.a_much_longer_skipped_name", v, sizeof(v)));
	assert_string_equal(v, "2");
	assert_non_null(opstream_info(&f->s, "skipped.?", v, sizeof(v)));
	assert_string_equal(v, "1");
	assert_int_equal(builder_stats(f->b)->skipped_calls, 17);
	/* first seen, first listed */
	assert_true(strstr(f->s.info, "skipped.futex=") < strstr(f->s.info, "skipped.clock_gettime="));
	assert_true(strstr(f->s.info, "skipped.getpid=") <
		    strstr(f->s.info, "skipped.a_much_longer_skipped_name="));
}

/* The renames and links of strace text (the real reader and builder), one
 * "KIND FROM -> TO" line each, in the traced order. */
static void two_path_ops(const char *name, const char *text, char *out, size_t cap)
{
	struct opstream s;
	strace_text_open(&s, name, text);
	size_t used = 0;
	out[0] = '\0';
	for (uint32_t r = 0; r < s.nranks; r++) {
		uint64_t n;
		const struct op *o = opstream_rank_ops(&s, r, &n);
		for (uint64_t k = 0; k < n; k++) {
			if (o[k].kind != OP_RENAME && o[k].kind != OP_LINK)
				continue;
			int w = snprintf(out + used, cap - used, "%s %s -> %s\n",
					 o[k].kind == OP_RENAME ? "rename" : "link",
					 opstream_path(&s, o[k].file), opstream_path(&s, o[k].aux));
			assert_true(w > 0 && (size_t)w < cap - used);
			used += (size_t)w;
		}
	}
	opstream_close(&s);
}

/* renameat, renameat2, linkat without -y (real `mv copy1 d1/` of coreutils:
 * renameat2(AT_FDCWD, "copy1", 3, "copy1")): each name is resolved against
 * its own dirfd, the directory that fd was opened on, or the working
 * directory for AT_FDCWD; never the other name's. */
static void test_two_dirfds_plain(void **state)
{
	(void)state;
	char got[1024];
	two_path_ops("dirfd_plain",
		"100 10:00:00.000001 chdir(\"/data/tx\") = 0 <0.000007>\n"
		"100 10:00:00.000002 openat(AT_FDCWD, \"copy1\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3 <0.000036>\n"
		"100 10:00:00.000003 write(3, \"abc\", 3) = 3 <0.000010>\n"
		"100 10:00:00.000004 close(3) = 0 <0.000005>\n"
		"100 10:00:00.000005 openat(AT_FDCWD, \"d1/\", O_RDONLY|O_PATH|O_DIRECTORY) = 3 <0.000007>\n"
		"100 10:00:00.000006 renameat2(AT_FDCWD, \"copy1\", 3, \"copy1\", RENAME_NOREPLACE) = 0 <0.000031>\n"
		"100 10:00:00.000007 openat(AT_FDCWD, \"d2/\", O_RDONLY|O_DIRECTORY) = 4 <0.000007>\n"
		"100 10:00:00.000008 openat(4, \"x\", O_WRONLY|O_CREAT, 0666) = 5 <0.000007>\n"
		"100 10:00:00.000009 linkat(4, \"x\", 3, \"hl\", 0) = 0 <0.000031>\n"
		"100 10:00:00.000010 renameat(AT_FDCWD, \"d2/x\", 3, \"y\") = 0 <0.000031>\n"
		"100 10:00:00.000011 renameat(4, \"z\", AT_FDCWD, \"zz\") = -1 ENOENT (No such file or directory) <0.000031>\n"
		"100 10:00:00.000012 rename(\"d1/y\", \"d2/w\") = 0 <0.000031>\n"
		"100 10:00:00.000013 link(\"d2/w\", \"d1/v\") = 0 <0.000031>\n",
		got, sizeof(got));
	assert_string_equal(got,
		"rename /data/tx/copy1 -> /data/tx/d1/copy1\n"
		"link /data/tx/d2/x -> /data/tx/d1/hl\n"
		"rename /data/tx/d2/x -> /data/tx/d1/y\n"
		"rename /data/tx/d2/z -> /data/tx/zz\n"
		"rename /data/tx/d1/y -> /data/tx/d2/w\n"
		"link /data/tx/d2/w -> /data/tx/d1/v\n");
}

/* The same calls with -y: both dirfds decorated, or one of them only (the
 * other is resolved from what the trace showed); the decorations name the
 * directories even when the trace never showed their opens. */
static void test_two_dirfds_y(void **state)
{
	(void)state;
	char got[1024];
	two_path_ops("dirfd_y",
		"100 10:00:00.000006 renameat2(AT_FDCWD</data/tx>, \"copy1\", 3</data/tx/d1>, \"copy1\", RENAME_NOREPLACE) = 0 <0.000031>\n"
		"100 10:00:00.000009 linkat(4</data/tx/d2>, \"x\", 3</data/tx/d1>, \"hl\", 0) = 0 <0.000031>\n"
		"100 10:00:00.000010 renameat(AT_FDCWD</data/tx>, \"d2/x\", 3</data/tx/d1>, \"y\") = 0 <0.000031>\n"
		"100 10:00:00.000011 renameat(4</data/tx/d2>, \"z\", AT_FDCWD</data/tx>, \"zz\") = -1 ENOENT (No such file or directory) <0.000031>\n",
		got, sizeof(got));
	assert_string_equal(got,
		"rename /data/tx/copy1 -> /data/tx/d1/copy1\n"
		"link /data/tx/d2/x -> /data/tx/d1/hl\n"
		"rename /data/tx/d2/x -> /data/tx/d1/y\n"
		"rename /data/tx/d2/z -> /data/tx/zz\n");
	two_path_ops("dirfd_y_one",
		"100 10:00:00.000001 chdir(\"/data/tx\") = 0 <0.000007>\n"
		"100 10:00:00.000002 openat(AT_FDCWD, \"d1\", O_RDONLY|O_DIRECTORY) = 3 <0.000007>\n"
		"100 10:00:00.000003 openat(AT_FDCWD, \"d2\", O_RDONLY|O_DIRECTORY) = 4 <0.000007>\n"
		/* the old dirfd decorated only, then the new one only */
		"100 10:00:00.000004 renameat(4</data/tx/d2>, \"x\", 3, \"y\") = 0 <0.000031>\n"
		"100 10:00:00.000005 linkat(4, \"y0\", 3</data/tx/d1>, \"hl\", 0) = 0 <0.000031>\n"
		"100 10:00:00.000006 renameat(3, \"a\", AT_FDCWD</data/tx>, \"b\") = 0 <0.000031>\n"
		"100 10:00:00.000007 renameat(AT_FDCWD</data/tx>, \"c\", 4, \"d\") = 0 <0.000031>\n",
		got, sizeof(got));
	assert_string_equal(got,
		"rename /data/tx/d2/x -> /data/tx/d1/y\n"
		"link /data/tx/d2/y0 -> /data/tx/d1/hl\n"
		"rename /data/tx/d1/a -> /data/tx/b\n"
		"rename /data/tx/c -> /data/tx/d2/d\n");
}

/* AT_FDCWD in either place is the working directory of that moment
 * (chdir, fchdir); a dirfd the trace never opened (open before the trace
 * started) is not guessed: its name stays relative, as for a one-dirfd
 * call, whatever the other dirfd is. */
static void test_two_dirfds_cwd_unknown(void **state)
{
	(void)state;
	char got[1024];
	two_path_ops("dirfd_cwd",
		"100 10:00:00.000001 chdir(\"/data/tx\") = 0 <0.000007>\n"
		"100 10:00:00.000002 openat(AT_FDCWD, \"d1\", O_RDONLY|O_DIRECTORY) = 3 <0.000007>\n"
		"100 10:00:00.000003 openat(AT_FDCWD, \"d2\", O_RDONLY|O_DIRECTORY) = 4 <0.000007>\n"
		"100 10:00:00.000004 fchdir(3) = 0 <0.000007>\n"
		"100 10:00:00.000005 renameat(AT_FDCWD, \"p\", 4, \"q\") = 0 <0.000031>\n"
		"100 10:00:00.000006 renameat2(4, \"r\", AT_FDCWD, \"s\", 0) = 0 <0.000031>\n"
		"100 10:00:00.000007 chdir(\"/other\") = 0 <0.000007>\n"
		"100 10:00:00.000008 linkat(3, \"t\", AT_FDCWD, \"u\", 0) = 0 <0.000031>\n"
		"100 10:00:00.000009 renameat(3, \"a\", 9, \"b\") = 0 <0.000031>\n"
		"100 10:00:00.000010 linkat(9, \"c\", 4, \"d\", 0) = 0 <0.000031>\n",
		got, sizeof(got));
	assert_string_equal(got,
		"rename /data/tx/d1/p -> /data/tx/d2/q\n"
		"rename /data/tx/d2/r -> /data/tx/d1/s\n"
		"link /data/tx/d1/t -> /other/u\n"
		"rename /data/tx/d1/a -> b\n"
		"link c -> /data/tx/d2/d\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dup_shares_position, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_share_fork_copies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seek_end_append, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncate_by_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_reuse_unknown_fds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_vectors_meta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_async_barrier_ranks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_by_other_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_child_before_clone_returns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_traced_processes_own_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_within_length, setup, teardown),
		cmocka_unit_test_setup_teardown(test_special_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_range_cwd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cwd_from_at_fdcwd_decoration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_request_clamped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative_cwd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rwf_append, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_at_size_shown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setfl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_description_now, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_unnamed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setfl_exited_rank, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolved_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_same_ops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_cache_same_ops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_cache_slot_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_cache_fsync_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_decoration_names_another_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_decoration_symlinked_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_decoration_renames_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skip_names_same_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tmpfile_open, setup, teardown),
		cmocka_unit_test(test_two_dirfds_plain),
		cmocka_unit_test(test_two_dirfds_y),
		cmocka_unit_test(test_two_dirfds_cwd_unknown),
	};
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
