/* test_strace.c - the strace line parser, one variant per test. */
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
#include <cmocka.h>

#include "ops/ops.h"
#include "trace/strace.h"
#include "trace/trace.h"

#define MAXEV 64

struct cap {
	struct sc_event ev[MAXEV];
	char *strs[MAXEV][6];
	const char *name_at[MAXEV];     /* where the parser had the name */
	int n;
};

static char *dupn(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int capture(void *arg, const struct sc_event *ev, struct rerr *e)
{
	struct cap *c = arg;
	(void)e;
	assert_true(c->n < MAXEV);
	c->ev[c->n] = *ev;
	c->name_at[c->n] = ev->name;
	c->strs[c->n][0] = dupn(ev->name);
	c->strs[c->n][1] = dupn(ev->path);
	c->strs[c->n][2] = dupn(ev->path2);
	c->strs[c->n][3] = dupn(ev->fdpath);
	c->strs[c->n][4] = dupn(ev->retpath);
	c->strs[c->n][5] = dupn(ev->fdpath2);
	c->ev[c->n].name = c->strs[c->n][0];
	c->ev[c->n].path = c->strs[c->n][1];
	c->ev[c->n].path2 = c->strs[c->n][2];
	c->ev[c->n].fdpath = c->strs[c->n][3];
	c->ev[c->n].retpath = c->strs[c->n][4];
	c->ev[c->n].fdpath2 = c->strs[c->n][5];
	c->n++;
	return 0;
}

struct fx {
	struct strace_parser *p;
	struct strace_src src;
	struct cap cap;
	struct rerr e;
	unsigned long lineno;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	assert_int_equal(strace_parser_new(&f->p, capture, &f->cap), 0);
	strace_src_init(&f->src, "t.txt", STRACE_NOPID);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	for (int i = 0; i < f->cap.n; i++)
		for (int k = 0; k < 6; k++)
			free(f->cap.strs[i][k]);
	strace_src_release(&f->src);
	strace_parser_free(f->p);
	free(f);
	return 0;
}

static int feed(struct fx *f, const char *line)
{
	char buf[4096];
	size_t n = strlen(line);
	assert_true(n < sizeof(buf));
	memcpy(buf, line, n + 1);
	return strace_parser_line(f->p, &f->src, buf, n, ++f->lineno, &f->e);
}

#define FEED_OK(f, l) assert_int_equal(feed((f), (l)), 0)
#define TOD(h, m, s, us) ((((uint64_t)(h) * 3600 + (m) * 60 + (s)) * 1000000ull + (us)) * 1000ull)

static void test_pid_column_tt_T_y(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "8470  21:23:21.436287 pwrite64(4</tmp/fmtprobe/t.dat>, \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"..., 4096, 1048576) = 4096 <0.000009>");
	assert_int_equal(f->cap.n, 1);
	struct sc_event *ev = &f->cap.ev[0];
	assert_int_equal(ev->pid, 8470);
	assert_int_equal(ev->call, SC_WRITE);
	assert_string_equal(ev->name, "pwrite64");
	assert_int_equal(ev->fd, 4);
	assert_string_equal(ev->fdpath, "/tmp/fmtprobe/t.dat");
	assert_int_equal(ev->len, 4096);
	assert_int_equal(ev->offset, 1048576);
	assert_int_equal(ev->ret, 4096);
	assert_int_equal(ev->dur_ns, 9000);
	assert_int_equal(ev->ts_ns, TOD(21, 23, 21, 436287));
	assert_int_equal(ev->line, 1);
}

/* Feed each pair's two lines (one call spelled two ways): the events they
 * make must be the same, field for field (the second a line later). */
static void feed_pairs_same(struct fx *f, const char *const pairs[][2], size_t np)
{
	for (size_t i = 0; i < np; i++) {
		FEED_OK(f, pairs[i][0]);
		FEED_OK(f, pairs[i][1]);
	}
	assert_int_equal(f->cap.n, 2 * (int)np);
	for (size_t i = 0; i < np; i++) {
		const struct sc_event *a = &f->cap.ev[2 * i], *b = &f->cap.ev[2 * i + 1];
		assert_int_equal(a->call, b->call);
		assert_string_equal(a->name, b->name);
		assert_int_equal(a->fd, b->fd);
		if (a->fdpath || b->fdpath)
			assert_string_equal(a->fdpath, b->fdpath);
		assert_int_equal(a->len, b->len);
		assert_int_equal(a->offset, b->offset);
		assert_int_equal(a->whence, b->whence);
		assert_int_equal(a->ret, b->ret);
		assert_int_equal(a->dur_ns, b->dur_ns);
		assert_int_equal(a->ts_ns, b->ts_ns);
		assert_int_equal(a->line + 1, b->line);
	}
}

/* read/write/pread64/pwrite64 as strace usually prints them are read in one
 * pass (rw_args); the same calls spelled a little differently take the
 * general path.  Both must give the same event, field for field. */
static void test_rw_one_pass_matches_general(void **state)
{
	struct fx *f = *state;
	static const char *const pairs[][2] = {
		{ "9 10:00:00.000001 pread64(3</a/b.dat>, \"xy\"..., 4096, 8192) = 4096 <0.000010>",
		  "9 10:00:00.000001 pread64(3</a/b.dat> ,  \"xy\"...,\t4096 , 8192 ) = 4096 <0.000010>" },
		{ "9 10:00:00.000002 write(0</dev/pts/0<char 136:0>>, \"a\\\"b\\\\\", 5) = 5",
		  "9 10:00:00.000002 write(0</dev/pts/0<char 136:0>>, \"a\\\"b\\\\\" , 5) = 5" },
		{ "9 10:00:00.000003 read(12</x->y>, \"\\x41\\x42\", 2) = 2 <1.000001>",
		  "9 10:00:00.000003 read( 12</x->y>, \"\\x41\\x42\", 2) = 2 <1.000001>" },
		{ "9 10:00:00.000004 pwrite64(7</s p\\x41ce>, \"\"..., 0, 0) = 0",
		  "9 10:00:00.000004 pwrite64(7</s p\\x41ce>, \"\"..., 0,  0) = 0" },
		{ "9 10:00:00.000005 read(4, \"q\", 99999999999999999) = -1 EIO (Input/output error)",
		  "9 10:00:00.000005 read(4, \"q\",  99999999999999999) = -1 EIO (Input/output error)" },
		{ "9 10:00:00.000006 pread64(5</f>, \"z\", 1, 12345678901234567) = 1",
		  "9 10:00:00.000006 pread64(5</f>, \"z\", 1, 12345678901234567 ) = 1" },
	};
	feed_pairs_same(f, pairs, sizeof(pairs) / sizeof(pairs[0]));
	const struct sc_event *e = f->cap.ev;
	assert_string_equal(e[0].fdpath, "/a/b.dat");
	assert_int_equal(e[0].offset, 8192);
	assert_string_equal(e[2].fdpath, "/dev/pts/0");
	assert_int_equal(e[2].fd, 0);
	assert_string_equal(e[4].fdpath, "/x->y");
	assert_int_equal(e[4].dur_ns, 1000001000ull);
	assert_string_equal(e[6].fdpath, "/s pAce");
	assert_int_equal(e[6].len, 0);
	assert_null(e[8].fdpath);
	assert_int_equal(e[8].len, 99999999999999999ull);
	assert_int_equal(e[8].ret, -EIO);
	assert_int_equal(e[10].offset, 12345678901234567ll);
	/* what the one pass leaves alone is still read, or refused, as before */
	FEED_OK(f, "9 10:00:00.000007 read(3, \"x\", 010) = 8");           /* octal */
	assert_int_equal(f->cap.ev[f->cap.n - 1].len, 8);
	FEED_OK(f, "9 10:00:00.000008 write(3, \"x\", 1, 7) = 1");         /* extra argument */
	assert_int_equal(f->cap.ev[f->cap.n - 1].len, 1);
	FEED_OK(f, "9 10:00:00.000009 read(3</d>(deleted), \"x\", 1) = 1");
	assert_string_equal(f->cap.ev[f->cap.n - 1].fdpath, "/d");
	assert_int_equal(feed(f, "9 10:00:00.000010 pread64(3</a>, \"x\", 1) = 1"), -EINVAL);
	assert_int_equal(feed(f, "9 10:00:00.000011 write(3</a, \"x\", 1) = 1"), -EINVAL);
	assert_int_equal(feed(f, "9 10:00:00.000012 write(3</a>, \"x, 1) = 1"), -EINVAL);
	assert_int_equal(feed(f, "9 10:00:00.000013 write(3</a>, \"x\", 123456789012345678901) = 1"), -EINVAL);
	/* a name with an escaped NUL in it: no real capture's */
	assert_int_equal(feed(f, "9 10:00:00.000014 openat(AT_FDCWD, \"/x/a\\0/../../etc/n\", O_RDONLY) = 3"),
			 -EINVAL);
	assert_int_equal(feed(f, "9 10:00:00.000015 rename(\"/x/a\", \"/b\\0c\") = 0"), -EINVAL);
	FEED_OK(f, "9 10:00:00.000016 rename(\"/x/a\\t\", \"/b\\x41\") = 0");
	assert_string_equal(f->cap.ev[f->cap.n - 1].path2, "/bA");
}

/* lseek, fsync, ftruncate, close... as strace usually prints them are read
 * in one pass too (fd_args); spelled a little differently, the general
 * path: the same event, field for field. */
static void test_fd_one_pass_matches_general(void **state)
{
	struct fx *f = *state;
	static const char *const pairs[][2] = {
		{ "9 10:00:00.000001 lseek(3</a/b.dat>, 8192, SEEK_SET) = 8192 <0.000010>",
		  "9 10:00:00.000001 lseek(3</a/b.dat> , 8192,  SEEK_SET ) = 8192 <0.000010>" },
		{ "9 10:00:00.000002 lseek(12</x->y>, -5, SEEK_CUR) = 95",
		  "9 10:00:00.000002 lseek( 12</x->y>, -5, SEEK_CUR) = 95" },
		{ "9 10:00:00.000003 lseek(4</s p\\x41ce>, 0, SEEK_END) = -1 ESPIPE (Illegal seek)",
		  "9 10:00:00.000003 lseek(4</s p\\x41ce>, 0,\tSEEK_END) = -1 ESPIPE (Illegal seek)" },
		{ "9 10:00:00.000004 lseek(5, 7, SEEK_DATA|SEEK_CUR) = 7",
		  "9 10:00:00.000004 lseek(5, 7, SEEK_DATA | SEEK_CUR) = 7" },
		{ "9 10:00:00.000005 fsync(6</d/e>) = 0 <1.000001>",
		  "9 10:00:00.000005 fsync(6</d/e> ) = 0 <1.000001>" },
		{ "9 10:00:00.000006 ftruncate(7</f,g>, 4096) = 0",
		  "9 10:00:00.000006 ftruncate(7</f,g>,  4096) = 0" },
		{ "9 10:00:00.000007 close(8</dev/pts/0<char 136:0>>) = 0",
		  "9 10:00:00.000007 close( 8</dev/pts/0<char 136:0>>) = 0" },
	};
	feed_pairs_same(f, pairs, sizeof(pairs) / sizeof(pairs[0]));
	const struct sc_event *e = f->cap.ev;
	assert_string_equal(e[0].fdpath, "/a/b.dat");
	assert_int_equal(e[0].offset, 8192);
	assert_int_equal(e[0].whence, SEEK_SET);
	assert_string_equal(e[2].fdpath, "/x->y");
	assert_int_equal(e[2].offset, -5);
	assert_string_equal(e[4].fdpath, "/s pAce");
	assert_int_equal(e[4].whence, SEEK_END);
	assert_null(e[6].fdpath);
	assert_int_equal(e[6].whence, 3 | SEEK_CUR);
	assert_int_equal(e[8].call, SC_FSYNC);
	assert_int_equal(e[8].dur_ns, 1000001000ull);
	assert_string_equal(e[10].fdpath, "/f,g");
	assert_int_equal(e[10].len, 4096);
	assert_string_equal(e[12].fdpath, "/dev/pts/0");
	/* what the one pass leaves alone is still read, or refused, as before */
	FEED_OK(f, "9 10:00:00.000008 lseek(3, 010, SEEK_SET) = 8");            /* octal */
	assert_int_equal(f->cap.ev[f->cap.n - 1].offset, 8);
	FEED_OK(f, "9 10:00:00.000009 lseek(3, 1, SEEK_SET /* x */) = 1");      /* comment */
	assert_int_equal(f->cap.ev[f->cap.n - 1].whence, SEEK_SET);
	FEED_OK(f, "9 10:00:00.000010 fsync(3</d>(deleted)) = 0");
	assert_string_equal(f->cap.ev[f->cap.n - 1].fdpath, "/d");
	assert_int_equal(feed(f, "9 10:00:00.000011 lseek(3</a>, 1) = 1"), -EINVAL);
	assert_int_equal(feed(f, "9 10:00:00.000012 lseek(3</a>, , SEEK_SET) = 1"), -EINVAL);
	assert_int_equal(feed(f, "9 10:00:00.000013 lseek(3</a>, 1, SEEK_SETX) = 1"), -EINVAL);
	assert_int_equal(feed(f, "9 10:00:00.000014 fsync(3</a) = 0"), -EINVAL);
}

static void test_open_decorations(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "8468  21:23:21.420378 openat(AT_FDCWD</tmp/fmtprobe>, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3</etc/ld.so.cache> <0.000054>");
	FEED_OK(f, "8468  21:23:21.420379 open(\"rel/x\", O_WRONLY|O_CREAT|O_APPEND|0x400000, 0644) = 5");
	FEED_OK(f, "8468  21:23:21.420380 openat(7, \"y\", 0101) = 6");
	FEED_OK(f, "8468  21:23:21.420381 creat(\"/c\", 0600) = 8");
	FEED_OK(f, "8468  21:23:21.420382 openat(AT_FDCWD, \"/nonexistent/file\", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000011>");
	assert_int_equal(f->cap.n, 5);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_OPEN);
	assert_int_equal(e[0].dirfd, SC_AT_FDCWD);
	assert_string_equal(e[0].fdpath, "/tmp/fmtprobe");
	assert_string_equal(e[0].path, "/etc/ld.so.cache");
	assert_string_equal(e[0].retpath, "/etc/ld.so.cache");
	assert_int_equal(e[0].flags, O_RDONLY | O_CLOEXEC);
	assert_int_equal(e[0].ret, 3);
	assert_int_equal(e[1].flags, O_WRONLY | O_CREAT | O_APPEND | 0x400000);
	assert_int_equal(e[1].mode, 0644);
	assert_int_equal(e[1].dirfd, SC_AT_FDCWD);
	assert_int_equal(e[2].dirfd, 7);
	assert_int_equal(e[2].flags, 0101);    /* numeric (octal) flags */
	assert_int_equal(e[3].flags, O_CREAT | O_WRONLY | O_TRUNC);
	assert_int_equal(e[3].mode, 0600);
	assert_int_equal(e[4].ret, -ENOENT);
}

static void test_stderr_pid_prefix_ttt(void **state)
{
	struct fx *f = *state;
	/* main thread unprefixed until a child exists */
	FEED_OK(f, "1795296201.591982 read(3, \"\\177ELF\\2\\1\"..., 832) = 832 <0.000012>");
	FEED_OK(f, "1795296201.592767 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f1d6b380a10) = 8487 <0.000105>");
	FEED_OK(f, "strace: Process 8487 attached");
	FEED_OK(f, "[pid  8487] 1795296201.593049 write(3, \"x\", 1) = 1");
	FEED_OK(f, "[pid  8486] 1795296201.593100 write(3, \"y\", 1) = 1");
	FEED_OK(f, "1795296201.593200 write(3, \"z\", 1) = 1");
	assert_int_equal(f->cap.n, 5);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].pid, -1);        /* main, pid unknown yet */
	assert_int_equal(e[0].ts_ns, 1795296201591982000ull);
	assert_int_equal(e[1].call, SC_CLONE);
	assert_int_equal(e[1].ret, 8487);
	assert_int_equal(e[1].flags & (CLONE_THREAD | CLONE_FILES), 0);
	assert_int_equal(e[2].pid, 8487);
	assert_int_equal(e[3].pid, -1);        /* 8486 recognised as the main */
	assert_int_equal(e[4].pid, -1);
}

/* Clocks of the -tt shape read at once and every other spelling of a
 * time of day (other fraction widths, one-digit hours, a leap second)
 * give the same nanoseconds; an hour of 24 is refused either way. */
static void test_time_of_day_spellings(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "1  09:05:07.000001 close(3) = 0");
	FEED_OK(f, "1  10:00:00.1234567 close(3) = 0");
	FEED_OK(f, "1  10:00:00.12345 close(3) = 0");
	FEED_OK(f, "1  11:00:00 close(3) = 0");
	FEED_OK(f, "1  23:59:60.500000 close(3) = 0");
	assert_int_equal(f->cap.n, 5);
	assert_int_equal(f->cap.ev[0].ts_ns, TOD(9, 5, 7, 1));
	assert_int_equal(f->cap.ev[1].ts_ns, TOD(10, 0, 0, 123456) + 700);
	assert_int_equal(f->cap.ev[2].ts_ns, TOD(10, 0, 0, 123450));
	assert_int_equal(f->cap.ev[3].ts_ns, TOD(11, 0, 0, 0));
	assert_int_equal(f->cap.ev[4].ts_ns, TOD(23, 59, 60, 500000));
	assert_int_equal(feed(f, "1  24:00:00.000000 close(3) = 0"), -EINVAL);
	assert_non_null(strstr(f->e.msg, "timestamp"));
}

static void test_relative_and_none(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "     0.000100 close(3)                  = 0 <0.000011>");
	FEED_OK(f, "     0.000036 close(4)                  = 0 <0.000011>");
	FEED_OK(f, "close(5) = 0");
	assert_int_equal(f->cap.n, 3);
	assert_int_equal(f->cap.ev[0].ts_ns, 100000);
	assert_int_equal(f->cap.ev[1].ts_ns, 136000);   /* -r: cumulative */
	assert_int_equal(f->cap.ev[2].ts_ns, 0);
	assert_int_equal(f->cap.ev[2].fd, 5);
	assert_int_equal(f->cap.ev[2].dur_ns, 0);
}

/* -r with -t, -tt or -ttt (strace 6: both printed, "(+ S.uuuuuu)" after
 * the absolute time; real captures of perl, sh and dd): the absolute time
 * is kept.  Before: "expected a syscall name", and the format was not
 * detected. */
static void test_absolute_with_relative(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "6378  03:04:06.527408 (+     0.000036) write(3</tmp/rb/work/perl2.out>, \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"..., 5000) = 5000 <0.000029>");
	FEED_OK(f, "7311  03:04:37 (+     0.000132) [  58] [00007fe8101213b8] vfork( <unfinished ...>");
	FEED_OK(f, "7311  03:04:37 (+     0.000121) [  58] [00007fe8101213b8] <... vfork resumed>) = 7312");
	FEED_OK(f, "1795921477.293250 (+     0.002291) write(1</tmp/rb/work/dd3.out>, \"18034063 line xxxx\\n08470054 line\"..., 262144) = 262144 <0.000152>");
	FEED_OK(f, "[pid  7312] 03:04:38.428377 (+     0.000114) close(3) = 0 <0.000052>");
	assert_int_equal(f->cap.n, 4);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].pid, 6378);
	assert_int_equal(e[0].call, SC_WRITE);
	assert_int_equal(e[0].len, 5000);
	assert_string_equal(e[0].fdpath, "/tmp/rb/work/perl2.out");
	assert_int_equal(e[0].ts_ns, TOD(3, 4, 6, 527408));
	assert_int_equal(e[1].call, SC_CLONE);
	assert_int_equal(e[1].ret, 7312);
	assert_int_equal(e[1].ts_ns, TOD(3, 4, 37, 0));
	assert_int_equal(e[2].ret, 262144);
	assert_int_equal(e[2].ts_ns, 1795921477293250000ull);
	assert_int_equal(e[3].pid, 7312);
	assert_int_equal(e[3].call, SC_CLOSE);
	assert_int_equal(feed(f, "1  03:04:39.000001 (+ 0.000001 close(3) = 0"), -EINVAL);
	assert_non_null(strstr(f->e.msg, "timestamp"));
	const char *t = "6378  03:04:06.522098 (+     0.000000) execve(\"/usr/bin/perl\", [\"perl\"], 0x7ffc /* 37 vars */) = 0 <0.000306>\n"
			"6378  03:04:06.522394 (+     0.000194) brk(NULL) = 0x55dfc1f30000 <0.000003>\n"
			"6378  03:04:06.527408 (+     0.000036) write(3</tmp/p.out>, \"xx\"..., 5000) = 5000 <0.000029>\n";
	assert_true(trace_strace.probe(t, strlen(t)) >= 60);
}

/* --absolute-timestamps=unix,precision:s prints whole epoch seconds (real
 * captures of dd, with and without -f).  Before: with -f "expected a
 * timestamp"; without, the seconds were taken for a pid column (one rank
 * per second, named "pid 1795921836", every op at time 0). */
static void test_epoch_whole_seconds(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "1795921836 read(0</tmp/rb/work/big.txt>, \"0591785 line\"..., 524288) = 524288 <0.000065>");
	FEED_OK(f, "1795921837 write(1</tmp/rb/work/dd9.out>, \"0591785 line\"..., 524288) = 524288 <0>");
	FEED_OK(f, "30727 1795921829 close(3</tmp/rb/work/big.txt>) = 0 <0>");
	FEED_OK(f, "30727      2 close(4) = 0");
	FEED_OK(f, "4194304 close(5) = 0");
	assert_int_equal(f->cap.n, 5);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].pid, -1);
	assert_int_equal(e[0].ts_ns, 1795921836000000000ull);
	assert_int_equal(e[0].dur_ns, 65000);
	assert_int_equal(e[1].pid, -1);
	assert_int_equal(e[1].ts_ns, 1795921837000000000ull);
	assert_int_equal(e[2].pid, 30727);
	assert_int_equal(e[2].ts_ns, 1795921829000000000ull);
	assert_int_equal(e[3].pid, 30727);          /* -r, whole seconds */
	assert_int_equal(e[4].pid, 4194304);        /* a pid column */
	assert_int_equal(e[4].ts_ns, 0);
	/* with -r too: the epoch kept, the relative part skipped */
	FEED_OK(f, "1795921838 (+     1.000000) close(6) = 0");
	assert_int_equal(f->cap.n, 6);
	assert_int_equal(f->cap.ev[5].pid, -1);
	assert_int_equal(f->cap.ev[5].ts_ns, 1795921838000000000ull);
}

static void test_ff_file_pid(void **state)
{
	struct fx *f = *state;
	f->src.pid = 8481;
	FEED_OK(f, "21:23:21.584220 write(3, \"xxxxxxxx\"..., 65536) = 65536 <0.001750>");
	assert_int_equal(f->cap.ev[0].pid, 8481);
}

static void test_unfinished_resumed_interleaved(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "8468  21:23:21.437357 read(4</tmp/fmtprobe/parent.dat>,  <unfinished ...>");
	FEED_OK(f, "8470  21:23:21.437369 read(3</tmp/fmtprobe/t.dat>,  <unfinished ...>");
	FEED_OK(f, "8471  21:23:21.437370 fsync(9 <unfinished ...>");
	assert_int_equal(f->cap.n, 0);
	FEED_OK(f, "8468  21:23:21.437380 <... read resumed>\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"..., 8192) = 8192 <0.000017>");
	FEED_OK(f, "8471  21:23:21.437381 <... fsync resumed>) = 0 <0.000826>");
	/* old strace: a space after resumed> */
	FEED_OK(f, "8470  21:23:21.437391 <... read resumed> \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"..., 4096) = 100 <0.000016>");
	assert_int_equal(f->cap.n, 3);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].pid, 8468);
	assert_int_equal(e[0].fd, 4);
	assert_int_equal(e[0].len, 8192);
	assert_int_equal(e[0].ret, 8192);
	assert_int_equal(e[0].ts_ns, TOD(21, 23, 21, 437357));   /* entry time */
	assert_int_equal(e[0].dur_ns, 17000);
	assert_int_equal(e[0].line, 1);
	assert_int_equal(e[1].call, SC_FSYNC);
	assert_int_equal(e[1].fd, 9);
	assert_int_equal(e[1].pid, 8471);
	assert_int_equal(e[2].pid, 8470);
	assert_int_equal(e[2].len, 4096);
	assert_int_equal(e[2].ret, 100);
	assert_string_equal(e[2].fdpath, "/tmp/fmtprobe/t.dat");
}

/* Pids whose pending calls share a slot of the parser's cache (pid & 15):
 * each resume finds its own. */
static void test_unfinished_same_slot(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "3  10:00:00.000001 read(4</a>,  <unfinished ...>");
	FEED_OK(f, "19 10:00:00.000002 write(5</b>, \"xy\", 2 <unfinished ...>");
	FEED_OK(f, "35 10:00:00.000003 fsync(6 <unfinished ...>");
	FEED_OK(f, "19 10:00:00.000004 <... write resumed>) = 2");
	FEED_OK(f, "3  10:00:00.000005 <... read resumed>\"x\", 1) = 1");
	FEED_OK(f, "19 10:00:00.000006 <... write resumed>) = 2");    /* none pending */
	FEED_OK(f, "35 10:00:00.000007 <... fsync resumed>) = 0");
	assert_int_equal(f->cap.n, 4);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].pid, 19);
	assert_int_equal(e[0].call, SC_WRITE);
	assert_int_equal(e[0].fd, 5);
	assert_int_equal(e[0].len, 2);
	assert_int_equal(e[1].pid, 3);
	assert_int_equal(e[1].call, SC_READ);
	assert_string_equal(e[1].fdpath, "/a");
	assert_string_equal(e[2].name, "resumed-without-start");
	assert_int_equal(e[3].pid, 35);
	assert_int_equal(e[3].call, SC_FSYNC);
	assert_int_equal(e[3].fd, 6);
}

/* strace -z / -Z (real capture of a shell's $(pwd), strace 6.1): the
 * rest of a call left unfinished comes on the next line, bare; a call
 * name on that line is a call of its own */
static void test_bare_continuation(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "13097 20:56:24.727970 +++ exited with 0 +++");
	FEED_OK(f, "13095 20:56:24.727840 read(3</tmp/p.dat>,  <unfinished ...>");
	FEED_OK(f, "\"\", 4096)                               = 0 <0.000130>");
	FEED_OK(f, "13302 20:56:26.984525 pread64(4</tmp/q.dat>, \"ab\"..., 8192, 100 <unfinished ...>");
	FEED_OK(f, "0) = 8192 <0.000197>");
	/* not after an unfinished line: a bad line, as before */
	assert_int_equal(feed(f, "0) = 8192 <0.000197>"), -EINVAL);
	FEED_OK(f, "13302 20:56:26.985000 write(4</tmp/q.dat>,  <unfinished ...>");
	FEED_OK(f, "13303 20:56:26.985100 close(5</tmp/r.dat>) = 0 <0.000010>");
	assert_int_equal(f->cap.n, 4);
	/* a corrupt prefixed line after an unfinished one is a bad line of
	 * its own (its own message), and the call is still resumed later */
	FEED_OK(f, "13304 20:56:26.986000 pwrite64(6</tmp/s.dat>, \"ab\", 2, 7 <unfinished ...>");
	assert_int_equal(feed(f, "4008  10:050:00.035830 getpid() = 4000 <0.000828>"), -EINVAL);
	assert_non_null(strstr(f->e.msg, "timestamp"));
	assert_int_equal(feed(f, "4i09  10:00:00.009247 getpid() = 4000 <0.000828>"), -EINVAL);
	assert_non_null(strstr(f->e.msg, "timestamp"));
	FEED_OK(f, "13304 20:56:26.986100 <... pwrite64 resumed>) = 2 <0.000010>");
	assert_int_equal(f->cap.n, 5);
	assert_int_equal(f->cap.ev[4].offset, 7);
	assert_int_equal(f->cap.ev[4].ret, 2);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[1].pid, 13095);
	assert_int_equal(e[1].call, SC_READ);
	assert_int_equal(e[1].fd, 3);
	assert_int_equal(e[1].len, 4096);
	assert_int_equal(e[1].ret, 0);
	assert_int_equal(e[1].ts_ns, TOD(20, 56, 24, 727840));
	assert_int_equal(e[2].pid, 13302);
	assert_int_equal(e[2].offset, 1000);
	assert_int_equal(e[2].len, 8192);
	assert_int_equal(e[3].pid, 13303);
	assert_int_equal(e[3].call, SC_CLOSE);
}

/* -e read=all -e write=all: the hex dumps after a transfer are skipped */
static void test_hexdump_lines(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "12953 20:56:23.477778 pwritev2(3</tmp/p.bin>, [{iov_base=\"aaaa\"..., iov_len=100}, {iov_base=\"bbbb\"..., iov_len=200}], 2, 4096, 0) = 300 <0.000013>");
	FEED_OK(f, " * 100 bytes in buffer 0");
	FEED_OK(f, " | 00000  61 61 61 61 61 61 61 61  61 61 61 61 61 61 61 61  aaaaaaaaaaaaaaaa |");
	FEED_OK(f, " | 00060  61 61 61 61                                       aaaa             |");
	FEED_OK(f, " * 200 bytes in buffer 1");
	FEED_OK(f, " | 000c0  62 62 62 62 62 62 62 62                           bbbbbbbb         |");
	FEED_OK(f, "12953 20:56:23.477800 fsync(3</tmp/p.bin>) = 0 <0.000013>");
	assert_int_equal(f->cap.n, 2);
	assert_int_equal(f->cap.ev[0].call, SC_WRITE);
	assert_int_equal(f->cap.ev[0].ret, 300);
	assert_int_equal(f->cap.ev[1].call, SC_FSYNC);
	/* a bar and a word is not a dump */
	assert_int_equal(feed(f, " | 0000x  61"), -EINVAL);
}

/* strace -e raw=all: no file names to replay; said so at the first
 * open that succeeded (a failed one with an address is EFAULT's) */
static void test_raw_capture(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "12578 20:56:19.064800 openat(AT_FDCWD, 0x7ffd00000000, O_RDONLY) = -1 EFAULT (Bad address) <0.000010>");
	assert_int_equal(feed(f, "12578 20:56:19.064900 openat(0xffffff9c, 0x7fbcb84030b1, 0x80000, 0) = 0x3 <0.000022>"),
			 -EINVAL);
	assert_non_null(strstr(f->e.msg, "strace -e raw="));
}

static void test_unfinished_never_resumed(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "100   write(1, \"x\", 1 <unfinished ...>");
	FEED_OK(f, "100   +++ killed by SIGKILL +++");
	FEED_OK(f, "101   <... read resumed>\"x\", 1) = 1");
	assert_int_equal(f->cap.n, 3);
	assert_int_equal(f->cap.ev[0].call, SC_SKIP);
	assert_string_equal(f->cap.ev[0].name, "unfinished:write");
	assert_int_equal(f->cap.ev[1].call, SC_EXIT);
	assert_int_equal(f->cap.ev[2].call, SC_SKIP);
	assert_string_equal(f->cap.ev[2].name, "resumed-without-start");
}

static void test_quoted_buffers(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "1 write(3, \"a\\\"b),(c, d) = 5 <0.1>\"..., 10) = 10");
	FEED_OK(f, "1 write(3, \"\\\\\", 1) = 1");
	FEED_OK(f, "1 open(\"/tmp/we\\\"ird, (name)\", O_RDONLY) = 4");
	assert_int_equal(f->cap.n, 3);
	assert_int_equal(f->cap.ev[0].len, 10);
	assert_int_equal(f->cap.ev[0].ret, 10);
	assert_int_equal(f->cap.ev[0].dur_ns, 0);
	assert_int_equal(f->cap.ev[1].len, 1);
	assert_string_equal(f->cap.ev[2].path, "/tmp/we\"ird, (name)");
}

static void test_iovecs(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "1 writev(4, [{iov_base=\"xx,}\"..., iov_len=100}, {iov_base=\"xxxx\"..., iov_len=200}], 2) = 300");
	FEED_OK(f, "1 readv(4, [{\"ab\", 100}, {\"cd\", 28}], 2) = 128");
	FEED_OK(f, "1 preadv(4, [{iov_base=\"\", iov_len=512}], 1, 4096) = 512");
	FEED_OK(f, "1 pwritev2(4, [{iov_base=\"\", iov_len=10}, {iov_base=\"\", iov_len=20}], 2, -1, RWF_DSYNC) = 30");
	FEED_OK(f, "1 readv(4, 0x7ffd1234, 3) = -1 EFAULT (Bad address)");
	/* per-call sync flags of a write, by name or number (-X raw); a
	 * read's, and the flags a replay does not keep, mark nothing */
	FEED_OK(f, "1 pwritev2(4, [{iov_base=\"\", iov_len=10}], 1, 100, RWF_SYNC|RWF_HIPRI) = 10");
	FEED_OK(f, "1 pwritev2(4, [{iov_base=\"\", iov_len=10}], 1, 100, 0x6) = 10");
	FEED_OK(f, "1 pwritev2(4, [{iov_base=\"\", iov_len=10}], 1, 100, RWF_NOWAIT|RWF_APPEND) = 10");
	FEED_OK(f, "1 preadv2(4, [{iov_base=\"\", iov_len=10}], 1, 100, RWF_DSYNC) = 10");
	FEED_OK(f, "1 io_submit(0x7f66d67e3000, 2, [{aio_data=0, aio_rw_flags=RWF_DSYNC, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=6, aio_buf=\"\", aio_nbytes=10, aio_offset=0}, {aio_data=0, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=6, aio_buf=\"\", aio_nbytes=10, aio_offset=0}]) = 2");
	assert_int_equal(f->cap.n, 11);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_WRITE);
	assert_int_equal(e[0].len, 300);
	assert_int_equal(e[0].iovcnt, 2);
	assert_int_equal(e[0].offset, SC_NOOFF);
	assert_int_equal(e[1].call, SC_READ);
	assert_int_equal(e[1].len, 128);
	assert_int_equal(e[2].offset, 4096);
	assert_int_equal(e[2].len, 512);
	assert_int_equal(e[3].offset, SC_NOOFF);
	assert_int_equal(e[3].len, 30);
	assert_int_equal(e[4].ret, -EFAULT);
	assert_int_equal(e[4].len, 0);
	assert_int_equal(e[4].iovcnt, 3);
	/* before: RWF_DSYNC and RWF_SYNC were dropped */
	assert_int_equal(e[3].opflags & OPF_RWF, OPF_RWF_DSYNC);
	assert_int_equal(e[0].opflags & OPF_RWF, 0);
	assert_int_equal(e[5].opflags & OPF_RWF, OPF_RWF_SYNC);
	assert_int_equal(e[6].opflags & OPF_RWF, OPF_RWF_DSYNC | OPF_RWF_SYNC);
	assert_int_equal(e[7].opflags & OPF_RWF, 0);
	assert_int_equal(e[7].flags, O_APPEND);
	assert_int_equal(e[8].call, SC_READ);
	assert_int_equal(e[8].opflags & OPF_RWF, 0);
	assert_int_equal(e[9].call, SC_AWRITE);
	assert_int_equal(e[9].opflags & OPF_RWF, OPF_RWF_DSYNC);
	assert_int_equal(e[10].call, SC_AWRITE);
	assert_int_equal(e[10].opflags & OPF_RWF, 0);
}

static void test_seeks(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "21:24:48.810151 _llseek(3, 3221225472, [3221225472], SEEK_SET) = 0 <0.000009>");
	FEED_OK(f, "21:24:48.810152 lseek(4, -10, SEEK_END) = 2097142");
	FEED_OK(f, "21:24:48.810153 lseek(4, 5, SEEK_CUR) = -1 EINVAL (Invalid argument)");
	FEED_OK(f, "21:24:48.810646 ftruncate64(3, 131072)  = 0 <0.000061>");
	assert_int_equal(f->cap.n, 4);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_LSEEK);
	assert_int_equal(e[0].offset, 3221225472LL);
	assert_int_equal(e[0].ret, 3221225472LL);     /* result from [..] */
	assert_int_equal(e[0].whence, SEEK_SET);
	assert_int_equal(e[0].pid, -1);
	assert_int_equal(e[1].whence, SEEK_END);
	assert_int_equal(e[1].offset, -10);
	assert_int_equal(e[1].ret, 2097142);
	assert_int_equal(e[2].ret, -EINVAL);
	assert_int_equal(e[3].call, SC_FTRUNCATE);
	assert_int_equal(e[3].len, 131072);
}

static void test_dups(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "1 dup(3) = 4");
	FEED_OK(f, "1 dup2(3</a (deleted)>, 7</b>) = 7</a (deleted)>");
	FEED_OK(f, "1 dup3(3, 8, O_CLOEXEC) = 8");
	FEED_OK(f, "1 fcntl(3, F_DUPFD, 10) = 10");
	FEED_OK(f, "1 fcntl(3, F_DUPFD_CLOEXEC, 0) = 11");
	FEED_OK(f, "1 fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)");
	assert_int_equal(f->cap.n, 6);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_DUP);
	assert_int_equal(e[0].ret, 4);
	assert_int_equal(e[1].call, SC_DUP2);
	assert_int_equal(e[1].fd2, 7);
	assert_string_equal(e[1].fdpath, "/a");
	assert_string_equal(e[1].retpath, "/a");
	assert_int_equal(e[2].call, SC_DUP2);
	assert_int_equal(e[2].fd2, 8);
	assert_int_equal(e[3].call, SC_DUP);
	assert_int_equal(e[3].ret, 10);
	assert_int_equal(e[4].call, SC_DUP);
	assert_int_equal(e[5].call, SC_SKIP);
	assert_string_equal(e[5].name, "fcntl");
	assert_int_equal(e[5].ret, 0x8002);
}

/* -X raw and -X verbose print fcntl's command and unlinkat's flags as
 * numbers (real captures: python3 os.dup, bash, rm -r).  Before: the dup
 * was skipped (writes on the new fd dropped as unknown_fd_ops) and the
 * directory removal was an unlink. */
static void test_numeric_consts(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "15835 03:01:14.132011 fcntl(4, 0x406, 0) = 7 <0.000007>");
	FEED_OK(f, "18033 03:02:10.117560 fcntl(4, 0x406 /* F_DUPFD_CLOEXEC */, 0) = 7 <0.000004>");
	FEED_OK(f, "17898 03:02:10.117560 fcntl(2, 0 /* F_DUPFD */, 10) = 11 <0.000004>");
	FEED_OK(f, "17898 03:02:10.117561 fcntl(2, 0, 10) = 12");
	FEED_OK(f, "17898 03:02:10.117562 fcntl(3, 0x3) = 0x38800 (flags O_RDONLY|O_NONBLOCK|O_LARGEFILE|O_NOFOLLOW|O_DIRECTORY)");
	FEED_OK(f, "17898 03:02:10.117563 fcntl(3, 0x2 /* F_SETFD */, 0x1 /* FD_CLOEXEC */) = 0");
	FEED_OK(f, "18053 03:02:10.489768 unlinkat(4, \"d2\", 0x200) = 0 <0.000185>");
	FEED_OK(f, "18053 03:02:10.489769 unlinkat(4, \"f1\", 0) = 0 <0.000185>");
	FEED_OK(f, "18053 03:02:10.489770 unlinkat(-100 /* AT_FDCWD */, \"d3\", 0x200 /* AT_REMOVEDIR */) = 0");
	assert_int_equal(f->cap.n, 9);
	struct sc_event *e = f->cap.ev;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(e[i].call, SC_DUP);
		assert_int_equal(e[i].ret, i < 2 ? 7 : 11 + i - 2);
	}
	assert_int_equal(e[0].fd, 4);
	assert_int_equal(e[2].fd, 2);
	assert_int_equal(e[4].call, SC_SKIP);
	assert_int_equal(e[5].call, SC_SKIP);
	assert_int_equal(e[6].call, SC_RMDIR);
	assert_int_equal(e[7].call, SC_UNLINK);
	assert_int_equal(e[8].call, SC_RMDIR);
}

/* fcntl(F_SETFL) with its flags, symbolic (dd oflag=direct before its
 * last, partial block), -X raw and -X verbose; F_GETFL and a flag word
 * that cannot be read stay counted calls */
static void test_setfl(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "4242  10:00:00.000001 fcntl(1</t/out>, F_SETFL, O_WRONLY|O_SYNC|O_LARGEFILE) = 0 <0.000004>");
	FEED_OK(f, "4242  10:00:00.000002 fcntl(3, 0x4, 0x4c02) = 0");
	FEED_OK(f, "4242  10:00:00.000003 fcntl(3, 0x4 /* F_SETFL */, 0x400 /* O_APPEND */) = -1 EBADF (Bad file descriptor)");
	FEED_OK(f, "4242  10:00:00.000004 fcntl(3, F_GETFL) = 0x8401 (flags O_WRONLY|O_APPEND|O_LARGEFILE)");
	FEED_OK(f, "4242  10:00:00.000005 fcntl(3, F_SETFL, O_BOGUS) = 0");
	assert_int_equal(f->cap.n, 5);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_SETFL);
	assert_int_equal(e[0].fd, 1);
	assert_string_equal(e[0].fdpath, "/t/out");
	assert_int_equal(e[0].flags, 01 | 04010000 | 0100000);
	assert_int_equal(e[0].ret, 0);
	assert_int_equal(e[1].call, SC_SETFL);
	assert_int_equal(e[1].fd, 3);
	assert_int_equal(e[1].flags, 0x4c02);
	assert_int_equal(e[2].call, SC_SETFL);
	assert_int_equal(e[2].flags, 0x400);
	assert_int_equal(e[2].ret, -EBADF);
	assert_int_equal(e[3].call, SC_SKIP);
	assert_int_equal(e[4].call, SC_SKIP);
}

/* symlink(content, link), symlinkat(content, dirfd, link): the link is the
 * path (with its dirfd), the content path2 as spelled, never joined to the
 * dirfd's decoration */
static void test_symlink_calls(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "77 10:00:00.000001 symlink(\"testing\", \"/r/.git/tXY\") = 0 <0.000015>");
	FEED_OK(f, "77 10:00:00.000002 symlinkat(\"../data/f\", AT_FDCWD</w>, \"l\") = 0");
	FEED_OK(f, "77 10:00:00.000003 symlinkat(\"/abs/t\", 3</d>, \"m\") = -1 EEXIST (File exists)");
	FEED_OK(f, "77 10:00:00.000004 symlink(0x5555, 0x6666) = 0");
	assert_int_equal(f->cap.n, 4);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_SYMLINK);
	assert_string_equal(e[0].path, "/r/.git/tXY");
	assert_string_equal(e[0].path2, "testing");
	assert_int_equal(e[0].dirfd, SC_AT_FDCWD);
	assert_int_equal(e[0].ret, 0);
	assert_int_equal(e[1].call, SC_SYMLINK);
	assert_string_equal(e[1].path, "l");
	assert_string_equal(e[1].path2, "../data/f");
	assert_int_equal(e[1].dirfd, SC_AT_FDCWD);
	assert_string_equal(e[1].fdpath, "/w");
	assert_int_equal(e[2].call, SC_SYMLINK);
	assert_int_equal(e[2].dirfd, 3);
	assert_string_equal(e[2].fdpath, "/d");
	assert_string_equal(e[2].path, "m");
	assert_string_equal(e[2].path2, "/abs/t");
	assert_int_equal(e[2].ret, -EEXIST);
	/* -e raw: no names, nothing to make (the builder leaves it out) */
	assert_int_equal(e[3].call, SC_SYMLINK);
	assert_null(e[3].path);
	assert_null(e[3].path2);
}

/* linkat(fd, "", ..., AT_EMPTY_PATH) names what fd is, as a link from
 * /proc/self/fd/N does (how an O_TMPFILE file gets its name) */
static void test_linkat_empty_path(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "12049 18:19:53.598397 linkat(3</t/#11134732>(deleted), \"\", AT_FDCWD</t>, "
		   "\"named.txt\", AT_EMPTY_PATH) = 0");
	FEED_OK(f, "12049 18:19:53.598398 linkat(AT_FDCWD</t>, \"a\", AT_FDCWD</t>, \"b\", 0) = 0");
	assert_int_equal(f->cap.n, 2);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_LINK);
	assert_string_equal(e[0].path, "/proc/self/fd/3");
	assert_int_equal(e[0].dirfd, SC_AT_FDCWD);
	assert_null(e[0].fdpath);
	assert_string_equal(e[0].path2, "named.txt");
	assert_string_equal(e[0].fdpath2, "/t");
	assert_string_equal(e[1].path, "a");
	assert_string_equal(e[1].fdpath, "/t");
}

static void test_other_lines(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "8468  21:23:21.483773 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=8469} ---");
	FEED_OK(f, "8469  21:23:21.483528 exit_group(0)     = ?");
	FEED_OK(f, "8469  21:23:21.483707 +++ exited with 0 +++");
	FEED_OK(f, "strace: Process 8469 attached");
	FEED_OK(f, "");
	FEED_OK(f, "1 futex(0x7f, FUTEX_WAIT_PRIVATE, 2, NULL) = 0");
	FEED_OK(f, "1 restart_syscall(<... resuming interrupted read ...>) = 0");
	assert_int_equal(f->cap.n, 4);
	assert_int_equal(f->cap.ev[0].call, SC_SKIP);
	assert_string_equal(f->cap.ev[0].name, "exit_group");
	assert_int_equal(f->cap.ev[0].ret, SC_RET_UNKNOWN);
	assert_int_equal(f->cap.ev[1].call, SC_EXIT);
	assert_int_equal(f->cap.ev[1].pid, 8469);
	assert_string_equal(f->cap.ev[2].name, "futex");
	assert_string_equal(f->cap.ev[3].name, "restart_syscall");
}

static void test_line_cut_by_attached(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "[pid  8486] 1795296201.593365 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD, child_tid=0x7f1d6b37f990, tls=0x7f1d6b37f6c0}strace: Process 8488 attached");
	assert_int_equal(f->cap.n, 0);
	FEED_OK(f, " => {parent_tid=[8488]}, 88) = 8488 <0.000053>");
	assert_int_equal(f->cap.n, 1);
	assert_int_equal(f->cap.ev[0].call, SC_CLONE);
	assert_int_equal(f->cap.ev[0].pid, 8486);
	assert_int_equal(f->cap.ev[0].ret, 8488);
	assert_int_equal(f->cap.ev[0].dur_ns, 53000);
	assert_true(f->cap.ev[0].flags & CLONE_THREAD);
	assert_true(f->cap.ev[0].flags & CLONE_FILES);
}

static void test_clone_adoption(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "500   clone3({flags=CLONE_VM|CLONE_FILES|CLONE_THREAD, child_tid=0x1} <unfinished ...>");
	FEED_OK(f, "501   write(3, \"x\", 1) = 1");
	FEED_OK(f, "500   <... clone3 resumed> => {parent_tid=[501]}, 88) = 501");
	FEED_OK(f, "500   fork() = 502");
	FEED_OK(f, "500   vfork() = 503");
	assert_int_equal(f->cap.n, 5);
	struct sc_event *e = f->cap.ev;
	/* the child showed up before the clone returned: adopted first */
	assert_int_equal(e[0].call, SC_CLONE);
	assert_int_equal(e[0].pid, 500);
	assert_int_equal(e[0].ret, 501);
	assert_true(e[0].flags & CLONE_THREAD);
	assert_int_equal(e[1].pid, 501);
	assert_int_equal(e[2].call, SC_CLONE);
	assert_int_equal(e[2].ret, 501);
	assert_int_equal(e[3].ret, 502);
	assert_int_equal(e[3].flags, 0);
	assert_int_equal(e[4].flags & CLONE_FILES, 0);
}

/* The same adoption after 32 other pids had lines (every slot of the
 * parser's small cache of pids already seen holds one): a pid new to the
 * trace is still told from the ones seen. */
static void test_clone_adoption_after_many(void **state)
{
	struct fx *f = *state;
	char l[128];
	for (int pid = 1000; pid < 1032; pid++) {
		snprintf(l, sizeof(l), "%d   getpid() = %d", pid, pid);
		FEED_OK(f, l);
	}
	int n0 = f->cap.n;
	FEED_OK(f, "1000  clone3({flags=CLONE_VM|CLONE_FILES|CLONE_THREAD, child_tid=0x1} <unfinished ...>");
	FEED_OK(f, "1048  write(3, \"x\", 1) = 1");   /* 1048 & 15 == 1000 & 15 */
	FEED_OK(f, "1000  <... clone3 resumed> => {parent_tid=[1048]}, 88) = 1048");
	assert_int_equal(f->cap.n, n0 + 3);
	struct sc_event *e = f->cap.ev + n0;
	assert_int_equal(e[0].call, SC_CLONE);
	assert_int_equal(e[0].pid, 1000);
	assert_int_equal(e[0].ret, 1048);
	assert_int_equal(e[1].pid, 1048);
	assert_int_equal(e[1].call, SC_WRITE);
}

/* renameat, renameat2 and linkat name two directories: each name keeps
 * its own dirfd and decoration (strace without -y, with -y, and -y on one
 * of the two only), whatever the other is. */
static void test_two_dirfds(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "100 10:00:00.000006 renameat2(AT_FDCWD, \"copy1\", 3, \"copy1\", RENAME_NOREPLACE) = 0 <0.000031>");
	FEED_OK(f, "100 10:00:00.000009 renameat(4, \"z\", AT_FDCWD, \"zz\") = -1 ENOENT (No such file or directory) <0.000031>");
	FEED_OK(f, "100 10:00:00.000009 linkat(4, \"x\", 3, \"hl\", 0) = 0 <0.000031>");
	FEED_OK(f, "100 10:00:00.000009 renameat(4</data/tx/d2>, \"x\", AT_FDCWD</data/tx>, \"zz\") = 0 <0.000031>");
	FEED_OK(f, "100 10:00:00.000009 linkat(AT_FDCWD, \"zz\", 4</data/tx/d2>, \"hl\", 0) = 0 <0.000031>");
	FEED_OK(f, "100 10:00:00.000009 renameat(-100 /* AT_FDCWD */</w>, \"a\", 7 /* d */, \"b\") = 0");
	assert_int_equal(f->cap.n, 6);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_RENAME);
	assert_string_equal(e[0].path, "copy1");
	assert_int_equal(e[0].dirfd, SC_AT_FDCWD);
	assert_string_equal(e[0].path2, "copy1");
	assert_int_equal(e[0].dirfd2, 3);
	assert_null(e[0].fdpath);
	assert_null(e[0].fdpath2);
	assert_int_equal(e[1].dirfd, 4);
	assert_int_equal(e[1].dirfd2, SC_AT_FDCWD);
	assert_int_equal(e[1].ret, -ENOENT);
	assert_int_equal(e[2].call, SC_LINK);
	assert_int_equal(e[2].dirfd, 4);
	assert_string_equal(e[2].path2, "hl");
	assert_int_equal(e[2].dirfd2, 3);
	assert_int_equal(e[3].dirfd, 4);
	assert_string_equal(e[3].fdpath, "/data/tx/d2");
	assert_int_equal(e[3].dirfd2, SC_AT_FDCWD);
	assert_string_equal(e[3].fdpath2, "/data/tx");
	assert_string_equal(e[3].path2, "zz");
	/* -y on one dirfd only */
	assert_int_equal(e[4].dirfd, SC_AT_FDCWD);
	assert_null(e[4].fdpath);
	assert_int_equal(e[4].dirfd2, 4);
	assert_string_equal(e[4].fdpath2, "/data/tx/d2");
	assert_string_equal(e[5].fdpath, "/w");
	assert_int_equal(e[5].dirfd2, 7);
	assert_null(e[5].fdpath2);
}

static void test_metadata_calls(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "1 stat(\"/a\", {st_mode=S_IFREG|0644, st_size=1, ...}) = 0");
	FEED_OK(f, "1 newfstatat(3</d>, \"\", {st_mode=S_IFREG|0644, st_size=832, ...}, AT_EMPTY_PATH) = 0");
	FEED_OK(f, "1 statx(AT_FDCWD, \"/b\", AT_STATX_SYNC_AS_STAT, STATX_ALL, {stx_mask=STATX_ALL}) = 0");
	FEED_OK(f, "1 fstat(4, {st_mode=S_IFREG|0644, st_size=0, ...}) = 0");
	FEED_OK(f, "1 unlinkat(AT_FDCWD, \"/c\", AT_REMOVEDIR) = 0");
	FEED_OK(f, "1 unlink(\"/e\") = -1 ENOENT (No such file or directory)");
	FEED_OK(f, "1 renameat2(AT_FDCWD, \"/x\", 5</dir>, \"y\", RENAME_NOREPLACE) = 0");
	FEED_OK(f, "1 rename(\"/p\", \"/q\") = 0");
	FEED_OK(f, "1 mkdirat(AT_FDCWD, \"/m\", 0755) = 0");
	FEED_OK(f, "1 mkdir(\"/n\", 0700) = 0");
	FEED_OK(f, "1 rmdir(\"/r\") = 0");
	/* truncate by path (was a skipped call), its 64-bit name too */
	FEED_OK(f, "1 truncate(\"/t\", 5000) = 0");
	FEED_OK(f, "1 truncate64(\"u\", 0) = -1 EACCES (Permission denied)");
	assert_int_equal(f->cap.n, 13);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_STAT);
	assert_string_equal(e[0].path, "/a");
	assert_int_equal(e[1].call, SC_STAT);
	assert_null(e[1].path);
	assert_int_equal(e[1].fd, 3);
	assert_string_equal(e[2].path, "/b");
	assert_int_equal(e[3].fd, 4);
	assert_null(e[3].path);
	assert_int_equal(e[4].call, SC_RMDIR);
	assert_int_equal(e[5].call, SC_UNLINK);
	assert_int_equal(e[5].ret, -ENOENT);
	assert_int_equal(e[6].call, SC_RENAME);
	/* the new name stays as traced, with its own dirfd (the builder
	 * resolves it) */
	assert_string_equal(e[6].path2, "y");
	assert_int_equal(e[6].dirfd, SC_AT_FDCWD);
	assert_int_equal(e[6].dirfd2, 5);
	assert_string_equal(e[6].fdpath2, "/dir");
	assert_string_equal(e[7].path2, "/q");
	assert_int_equal(e[7].dirfd2, SC_AT_FDCWD);
	assert_null(e[7].fdpath2);
	assert_int_equal(e[8].call, SC_MKDIR);
	assert_int_equal(e[8].mode, 0755);
	assert_int_equal(e[9].mode, 0700);
	assert_int_equal(e[10].call, SC_RMDIR);
	assert_int_equal(e[11].call, SC_TRUNCATE);
	assert_string_equal(e[11].path, "/t");
	assert_int_equal(e[11].len, 5000);
	assert_int_equal(e[11].ret, 0);
	assert_int_equal(e[12].call, SC_TRUNCATE);
	assert_string_equal(e[12].path, "u");
	assert_int_equal(e[12].len, 0);
	assert_int_equal(e[12].ret, -EACCES);
}

static void test_sync_alloc_mmap(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "1 sync_file_range(3, 0, 4096, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE) = 0");
	FEED_OK(f, "1 fallocate(3, 0, 4096, 1048576) = 0");
	FEED_OK(f, "1 fallocate(3, FALLOC_FL_KEEP_SIZE, 0, 10) = 0");
	FEED_OK(f, "1 fdatasync(3) = 0");
	FEED_OK(f, "1 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f1beb91e000");
	FEED_OK(f, "1 mmap(NULL, 36379, PROT_READ, MAP_PRIVATE, 3</etc/ld.so.cache>, 0) = 0x7f1beb915000");
	/* -yy decorations nest */
	FEED_OK(f, "1 write(1</dev/null<char 1:3>>, \"cnt\\ne1.ops\"..., 150) = 150 <0.000007>");
	FEED_OK(f, "1 read(5<TCP:[127.0.0.1:80->127.0.0.1:5000]>, \"GET\", 3) = 3");
	FEED_OK(f, "1 openat(AT_FDCWD</x>, \"/dev/null\", O_WRONLY) = 3</dev/null<char 1:3>>");
	assert_int_equal(f->cap.n, 9);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_FDATASYNC);
	assert_string_equal(e[0].name, "sync_file_range");
	assert_int_equal(e[1].call, SC_FALLOCATE);
	assert_int_equal(e[1].offset, 4096);
	assert_int_equal(e[1].len, 1048576);
	assert_int_equal(e[2].mode, 1);
	assert_int_equal(e[3].call, SC_FDATASYNC);
	assert_int_equal(e[4].call, SC_SKIP);
	assert_string_equal(e[4].name, "mmap");
	assert_int_equal(e[6].call, SC_WRITE);
	assert_string_equal(e[6].fdpath, "/dev/null");
	assert_int_equal(e[6].len, 150);
	assert_int_equal(e[7].call, SC_READ);
	assert_string_equal(e[7].fdpath, "TCP:[127.0.0.1:80->127.0.0.1:5000]");
	assert_int_equal(e[8].call, SC_OPEN);
	assert_string_equal(e[8].retpath, "/dev/null");
	assert_int_equal(e[5].call, SC_MMAP);
	assert_int_equal(e[5].fd, 3);
	assert_int_equal(e[5].len, 36379);
	assert_string_equal(e[5].fdpath, "/etc/ld.so.cache");
	assert_int_equal(e[5].mode, OP_MMAP_KNOWN | OP_MMAP_READ);
	assert_true(op_mmap_data((uint32_t)e[5].mode));
}

/* What the trace shows of a file mapping: protection, shared, the loader's */
static void test_mmap_modes(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "1 mmap(NULL, 800000, PROT_READ|PROT_WRITE, MAP_SHARED, 4</w/mm.dat>, 0) = 0x7f21da042000");
	FEED_OK(f, "1 mmap(0x7f21e743b000, 475136, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE, 3</usr/lib/libm.so.6>, 0x10000) = 0x7f21e743b000");
	FEED_OK(f, "1 mmap(NULL, 913680, PROT_READ, MAP_PRIVATE|MAP_DENYWRITE, 3</usr/lib/libm.so.6>, 0) = 0x7f21e742b000");
	FEED_OK(f, "1 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_SHARED_VALIDATE|MAP_SYNC, 5</pmem/x>, 0) = 0x7f21e742b000");
	FEED_OK(f, "1 mmap(NULL, 4096, 0x3 /* PROT_READ|PROT_WRITE */, 0x1 /* MAP_SHARED */, 6, 0) = 0x7f21e742b000");
	assert_int_equal(f->cap.n, 5);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].mode, OP_MMAP_KNOWN | OP_MMAP_READ | OP_MMAP_WRITE | OP_MMAP_SHARED);
	assert_true(op_mmap_data((uint32_t)e[0].mode));
	assert_int_equal(e[1].mode, OP_MMAP_KNOWN | OP_MMAP_READ | OP_MMAP_EXEC | OP_MMAP_LOADER);
	assert_false(op_mmap_data((uint32_t)e[1].mode));
	assert_int_equal(e[2].mode, OP_MMAP_KNOWN | OP_MMAP_READ | OP_MMAP_LOADER);
	assert_false(op_mmap_data((uint32_t)e[2].mode));
	assert_int_equal(e[3].mode, OP_MMAP_KNOWN | OP_MMAP_READ | OP_MMAP_WRITE | OP_MMAP_SHARED);
	/* -X verbose: the numbers are read, the names in comments are not */
	assert_int_equal(e[4].mode & (OP_MMAP_KNOWN | OP_MMAP_READ | OP_MMAP_WRITE),
			 OP_MMAP_KNOWN | OP_MMAP_READ | OP_MMAP_WRITE);
}

static void test_more_flags(void **state)
{
	struct fx *f = *state;
	/* -Y (pid<comm>), -i (instruction pointer), -X verbose, -k frames */
	FEED_OK(f, "8468<app> 21:23:21.420378 [00007f3c2a1b2c3d] openat(AT_FDCWD, \"/a\", 0x80000 /* O_RDONLY|O_CLOEXEC */) = 3");
	FEED_OK(f, " > /usr/lib/x86_64-linux-gnu/libc.so.6(__open64+0x5b) [0x10f77b]");
	FEED_OK(f, "[pid  8470<worker>] 21:23:21.420379 read(3, \"x\", 4096 /* 4 KiB */) = 1");
	FEED_OK(f, "8471  21:23:21.420380 read(3, <detached ...>");
	assert_int_equal(f->cap.n, 3);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].pid, 8468);
	assert_int_equal(e[0].flags, O_RDONLY | O_CLOEXEC);
	assert_int_equal(e[0].ts_ns, TOD(21, 23, 21, 420378));
	assert_int_equal(e[1].pid, 8470);
	assert_int_equal(e[1].len, 4096);
	assert_int_equal(e[2].call, SC_SKIP);
	assert_string_equal(e[2].name, "detached:read");
}

static void test_copy_calls(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "1 copy_file_range(4</etc/hostname>, NULL, 1</o>, NULL, 9223372035781033984, 0) = 3");
	FEED_OK(f, "1 copy_file_range(4, [100] => [150], 5, [0] => [50], 50, 0) = 50");
	FEED_OK(f, "1 sendfile(6, 4</i>, NULL, 4096) = 4096");
	FEED_OK(f, "1 sendfile64(6, 4, [8192] => [8200], 4096) = 8");
	/* fio --ioengine=splice: file to pipe at an offset, pipe to file */
	FEED_OK(f, "30635 splice(8</tmp/sw/fw/j.0.0>, [45056], 7<pipe:[7212588]>, NULL, 4096, 0) = 4096");
	FEED_OK(f, "30635 splice(7<pipe:[7212588]>, NULL, 8</tmp/sw/fw/j.0.0>, [8192], 4096, SPLICE_F_MOVE) = 1000");
	/* cp's and shutil's last probe: the source's end, no write */
	FEED_OK(f, "1 copy_file_range(3</a>, NULL, 4</b>, NULL, 9223372035781033984, 0) = 0");
	FEED_OK(f, "1 sendfile(4</b>, 3</a>, NULL, 8388608) = 0");
	assert_int_equal(f->cap.n, 14);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_READ);
	assert_int_equal(e[0].fd, 4);
	assert_string_equal(e[0].fdpath, "/etc/hostname");
	assert_int_equal(e[0].len, 3);
	assert_int_equal(e[0].offset, SC_NOOFF);
	assert_int_equal(e[1].call, SC_WRITE);
	assert_int_equal(e[1].fd, 1);
	assert_string_equal(e[1].fdpath, "/o");
	assert_int_equal(e[1].len, 3);
	assert_int_equal(e[1].ret, 3);
	assert_int_equal(e[2].offset, 100);
	assert_int_equal(e[3].offset, 0);
	assert_int_equal(e[3].fd, 5);
	assert_int_equal(e[4].call, SC_READ);
	assert_int_equal(e[4].fd, 4);
	assert_int_equal(e[5].call, SC_WRITE);
	assert_int_equal(e[5].fd, 6);
	assert_int_equal(e[5].offset, SC_NOOFF);
	assert_int_equal(e[6].offset, 8192);
	assert_int_equal(e[6].len, 8);
	assert_string_equal(e[7].name, "sendfile64");
	assert_int_equal(e[8].call, SC_READ);
	assert_string_equal(e[8].fdpath, "/tmp/sw/fw/j.0.0");
	assert_int_equal(e[8].offset, 45056);
	assert_int_equal(e[8].len, 4096);
	assert_int_equal(e[9].call, SC_WRITE);
	assert_string_equal(e[9].fdpath, "pipe:[7212588]");
	assert_int_equal(e[10].fd, 7);
	assert_int_equal(e[11].call, SC_WRITE);
	assert_int_equal(e[11].fd, 8);
	assert_int_equal(e[11].offset, 8192);
	assert_int_equal(e[11].len, 1000);
	assert_string_equal(e[11].name, "splice");
	assert_int_equal(e[12].call, SC_READ);
	assert_string_equal(e[12].fdpath, "/a");
	assert_int_equal(e[12].len, 0);
	assert_int_equal(e[13].call, SC_READ);
	assert_string_equal(e[13].fdpath, "/a");
	assert_int_equal(e[13].ret, 0);
}

static void test_close_range_chdir(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "1 close_range(3, ~0, 0) = 0");
	FEED_OK(f, "1 close_range(5, 9, CLOSE_RANGE_UNSHARE) = 0");
	FEED_OK(f, "1 chdir(\"/scratch/run\") = 0");
	FEED_OK(f, "1 fchdir(4</data>) = 0");
	assert_int_equal(f->cap.n, 4);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_CLOSE_RANGE);
	assert_int_equal(e[0].fd, 3);
	assert_int_equal(e[0].fd2, UINT32_MAX);
	assert_int_equal(e[1].fd2, 9);
	assert_int_equal(e[1].flags, 2);
	assert_int_equal(e[2].call, SC_CHDIR);
	assert_string_equal(e[2].path, "/scratch/run");
	assert_int_equal(e[3].call, SC_CHDIR);
	assert_int_equal(e[3].fd, 4);
	assert_null(e[3].path);
	assert_string_equal(e[3].fdpath, "/data");
}

/* -X raw and -X verbose print st_mode as a number (real captures of
 * python3): a regular file's size is still carried.  Before: not. */
static void test_stat_size_numeric_mode(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "1 newfstatat(3, \"\", {st_mode=0100644, st_size=49959, ...}, 0x1000) = 0 <0.000003>");
	FEED_OK(f, "1 newfstatat(3, \"\", {st_mode=0100644 /* S_IFREG|0644 */, st_size=832, ...}, 0x1000 /* AT_EMPTY_PATH */) = 0");
	FEED_OK(f, "1 newfstatat(-100, \"rmt\", {st_mode=040755, st_size=4096, ...}, 0x100) = 0");
	FEED_OK(f, "1 newfstatat(3, \"\", {st_mode=S_IFREG|0644, st_size=7, ...}, AT_EMPTY_PATH) = 0");
	assert_int_equal(f->cap.n, 4);
	struct sc_event *e = f->cap.ev;
	assert_true(e[0].opflags & OPF_STAT_SIZE);
	assert_int_equal(e[0].len, 49959);
	assert_true(e[1].opflags & OPF_STAT_SIZE);
	assert_int_equal(e[1].len, 832);
	assert_false(e[2].opflags & OPF_STAT_SIZE);     /* a directory */
	assert_true(e[2].opflags & OPF_STAT_DIR);
	assert_true(e[3].opflags & OPF_STAT_SIZE);
	assert_int_equal(e[3].len, 7);
	for (int k = 0; k < 4; k++)
		if (k != 2)
			assert_false(e[k].opflags & OPF_STAT_DIR);
	/* the symbolic form, and a failed stat says nothing */
	FEED_OK(f, "1 newfstatat(AT_FDCWD, \"/w/g\", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0");
	FEED_OK(f, "1 statx(AT_FDCWD, \"/w/h\", AT_STATX_SYNC_AS_STAT, STATX_ALL, {stx_mask=STATX_ALL, stx_mode=S_IFDIR|0755, stx_size=4096, ...}) = 0");
	FEED_OK(f, "1 newfstatat(AT_FDCWD, \"/w/x\", 0x7ffd, 0) = -1 ENOENT (No such file or directory)");
	assert_int_equal(f->cap.n, 7);
	assert_true(f->cap.ev[4].opflags & OPF_STAT_DIR);
	assert_true(f->cap.ev[5].opflags & OPF_STAT_DIR);
	assert_false(f->cap.ev[6].opflags & OPF_STAT_DIR);
}

/* io_submit under -X raw and -X verbose (real captures of fio --ioengine=
 * libaio): the opcode is a number.  Before: every iocb was skipped as
 * "io_submit:other" (1 MiB of writes lost). */
static void test_io_submit_numeric_opcode(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "28299 03:06:15.093397 io_submit(0x7f012a3db000, 1, [{aio_data=0, aio_lio_opcode=1, aio_fildes=6</tmp/rb/work/fio/a.0.0>, aio_buf=\"\\0\\340\\0\\0\"..., aio_nbytes=8192, aio_offset=57344}]) = 1 <0.000021>");
	FEED_OK(f, "28915 03:06:36.982609 io_submit(0x7f31bca15000, 1, [{aio_data=0, aio_lio_opcode=0 /* IOCB_CMD_PREAD */, aio_fildes=6</tmp/rb/work/fio/a.0.0>, aio_buf=0x55aab66817e0, aio_nbytes=8192, aio_offset=57344}]) = 1 <0.000273>");
	FEED_OK(f, "28915 03:06:36.982610 io_submit(0x7f31bca15000, 2, [{aio_data=0, aio_lio_opcode=0x3, aio_fildes=6}, {aio_data=0, aio_lio_opcode=6 /* IOCB_CMD_NOOP */, aio_fildes=6}]) = 2");
	assert_int_equal(f->cap.n, 4);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_AWRITE);
	assert_int_equal(e[0].len, 8192);
	assert_int_equal(e[0].offset, 57344);
	assert_string_equal(e[0].fdpath, "/tmp/rb/work/fio/a.0.0");
	assert_int_equal(e[1].call, SC_AREAD);
	assert_int_equal(e[1].len, 8192);
	assert_int_equal(e[2].call, SC_FDATASYNC);
	assert_int_equal(e[3].call, SC_SKIP);
}

static void test_io_submit(void **state)
{
	struct fx *f = *state;
	/* two iocbs, only the first queued (= 1) */
	FEED_OK(f, "13849 io_submit(0x7f66d67e3000, 2, [{aio_data=0, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=6</f/fiof>, aio_buf=\"\\364\\231, ]\"..., aio_nbytes=4096, aio_offset=122880}, {aio_data=0, aio_lio_opcode=IOCB_CMD_PREAD, aio_fildes=6</f/fiof>, aio_buf=0x5602700e6000, aio_nbytes=512, aio_offset=0}]) = 1");
	FEED_OK(f, "13849 io_submit(0x7f66d67e3000, 2, [{aio_data=0, aio_lio_opcode=IOCB_CMD_PREAD, aio_fildes=6, aio_buf=0x56, aio_nbytes=8192, aio_offset=4096}, {aio_data=7, aio_lio_opcode=IOCB_CMD_FDSYNC, aio_fildes=6}]) = 2");
	FEED_OK(f, "13849 io_getevents(0x7f66d67e3000, 1, 1, [{data=0, obj=0x5602700e2708, res=4096, res2=0}], NULL) = 1");
	FEED_OK(f, "13849 io_submit(0x7f66d67e3000, 1, 0x7ffd) = -1 EAGAIN (Resource temporarily unavailable)");
	/* each iocb is an async submit, its wait comes with io_getevents (the
	 * oldest in flight with that aio_data); a sync iocb is done at once */
	assert_int_equal(f->cap.n, 5);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_AWRITE);
	assert_int_equal(e[0].fd, 6);
	assert_string_equal(e[0].fdpath, "/f/fiof");
	assert_int_equal(e[0].len, 4096);
	assert_int_equal(e[0].offset, 122880);
	assert_true(e[0].ret == SC_RET_UNKNOWN);
	assert_int_equal(e[1].call, SC_AREAD);
	assert_int_equal(e[1].offset, 4096);
	assert_int_equal(e[1].len, 8192);
	assert_true(e[1].async_id != e[0].async_id && e[0].async_id && e[1].async_id);
	assert_int_equal(e[2].call, SC_FDATASYNC);
	assert_int_equal(e[3].call, SC_AWAIT);
	assert_int_equal(e[3].async_id, e[0].async_id);
	assert_int_equal(e[3].ret, 4096);
	assert_int_equal(e[4].call, SC_SKIP);
	assert_int_equal(e[4].ret, -EAGAIN);
	/* data=7 is the fdatasync (nothing to await); an array strace did not
	 * show completes the oldest: the read */
	FEED_OK(f, "13849 io_getevents(0x7f66d67e3000, 1, 1, [{data=7, obj=0x1, res=0, res2=0}], NULL) = 1");
	assert_int_equal(f->cap.n, 6);
	assert_int_equal(f->cap.ev[5].call, SC_SKIP);
	FEED_OK(f, "13849 io_getevents(0x7f66d67e3000, 1, 1, 0x7ffe, NULL) = 1");
	assert_int_equal(f->cap.n, 7);
	assert_int_equal(f->cap.ev[6].call, SC_AWAIT);
	assert_int_equal(f->cap.ev[6].async_id, e[1].async_id);
	assert_true(f->cap.ev[6].ret == SC_RET_UNKNOWN);
	assert_int_equal(feed(f, "1 io_submit(0x7f, 1, [{aio_fildes=zz}]) = 1"), -EINVAL);
	assert_non_null(strstr(f->e.msg, "iocb"));
}

static void expect_bad(struct fx *f, const char *line, const char *what)
{
	int rc = feed(f, line);
	assert_int_equal(rc, -EINVAL);
	if (!strstr(f->e.msg, what))
		fail_msg("message '%s' lacks '%s'", f->e.msg, what);
	assert_non_null(strstr(f->e.msg, "t.txt:"));
}

/* A call the table does not know is only counted; decode() takes words and
 * commas up to the first ')' without split(), and anything split() reads
 * as more than a comma (quotes, brackets, a decoration, a comment) still
 * goes through split(): what it says of the line is split()'s. */
static void test_unknown_call_args(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "9 10:00:00.000001 getpid() = 9 <0.000001>");
	FEED_OK(f, "9 10:00:00.000002 futex(0x7f0, FUTEX_WAKE_PRIVATE, 1) = 0 <0.000002>");
	/* a ')' inside a comment, a string, brackets: not the call's end */
	FEED_OK(f, "9 10:00:00.000003 getppid(/* ) = 1 */) = 7 <0.000001>");
	FEED_OK(f, "9 10:00:00.000004 uname({sysname=\"Linux\", release=\")\"}) = 0");
	FEED_OK(f, "9 10:00:00.000005 poll([{fd=3, events=POLLIN}], 1, 0) = 0 (Timeout)");
	FEED_OK(f, "9 10:00:00.000006 fgetxattr(3<anon_inode:x)y>, NULL, NULL, 0) = 0");
	assert_int_equal(f->cap.n, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(f->cap.ev[i].call, SC_SKIP);
	assert_string_equal(f->cap.ev[1].name, "futex");
	assert_int_equal(f->cap.ev[2].ret, 7);  /* split() found the ')' after the comment */
	assert_int_equal(f->cap.ev[2].dur_ns, 1000);
	/* split()'s messages */
	expect_bad(f, "9 10:00:00.000007 getpid(/* ) = 1 <0.000001>", "'*/'");
	expect_bad(f, "9 10:00:00.000008 getpid(\") = 1", "closing '\"'");
	expect_bad(f, "9 10:00:00.000009 getpid(0x1, 2", "')'");
	expect_bad(f, "9 10:00:00.000010 getpid(0x1) 2", "'=' after ')'");
}

/* The names of calls the table does not know are kept once each (the
 * builder counts skipped calls by name and remembers where it was given
 * one): the same name at the same address every time, and right when
 * there are more names than are kept, or longer ones. */
static void test_unknown_call_names(void **state)
{
	struct fx *f = *state;
	char line[128];
	FEED_OK(f, "9 10:00:00.000001 getpid() = 9");
	FEED_OK(f, "9 10:00:00.000002 futex(0x7f0, FUTEX_WAKE_PRIVATE, 1) = 0");
	FEED_OK(f, "9 10:00:00.000003 getpid() = 9");
	FEED_OK(f, "9 10:00:00.000004 sched_getaffinity(7, 8, [0 1]) = 8");
	FEED_OK(f, "9 10:00:00.000005 sched_getaffinity(7, 8, [0 1]) = 8");
	assert_string_equal(f->cap.ev[0].name, "getpid");
	assert_string_equal(f->cap.ev[1].name, "futex");
	assert_ptr_equal(f->cap.name_at[0], f->cap.name_at[2]);
	assert_ptr_not_equal(f->cap.name_at[0], f->cap.name_at[1]);
	assert_string_equal(f->cap.ev[3].name, "sched_getaffinity");   /* 17 bytes */
	assert_string_equal(f->cap.ev[4].name, "sched_getaffinity");
	/* more names than are kept: each event still has its own */
	for (int i = 0; i < 300; i++) {
		snprintf(line, sizeof(line), "9 10:00:01.%06d call_%d_x() = %d", i, i, i);
		FEED_OK(f, line);
		char want[32];
		snprintf(want, sizeof(want), "call_%d_x", i);
		assert_string_equal(f->cap.ev[f->cap.n - 1].name, want);
		assert_int_equal(f->cap.ev[f->cap.n - 1].ret, i);
		for (int k = 0; k < 5; k++)
			free(f->cap.strs[f->cap.n - 1][k]);
		f->cap.n--;
	}
	FEED_OK(f, "9 10:00:02.000000 futex(0x7f0, FUTEX_WAKE_PRIVATE, 1) = 0");
	assert_string_equal(f->cap.ev[f->cap.n - 1].name, "futex");
	assert_ptr_equal(f->cap.name_at[1], f->cap.name_at[f->cap.n - 1]);
}

/* A read's or write's fd path is handed over where it is in the line (its
 * '>' made its NUL): the line is as it was afterwards, and a message about
 * the line shows it whole. */
static void test_rw_path_in_place(void **state)
{
	struct fx *f = *state;
	const char *l = "9 10:00:00.000001 pread64(3</a/b>, \"xy\"..., 4096, 8192) = 4096 <0.000010>";
	char buf[256];
	strcpy(buf, l);
	assert_int_equal(strace_parser_line(f->p, &f->src, buf, strlen(buf), 1, &f->e), 0);
	assert_string_equal(buf, l);
	assert_string_equal(f->cap.ev[0].fdpath, "/a/b");
	/* refused after the arguments were read: the result, the sign */
	strcpy(buf, "1 read(3</a>, \"x\", 1) 1");
	assert_int_equal(strace_parser_line(f->p, &f->src, buf, strlen(buf), 2, &f->e), -EINVAL);
	assert_non_null(strstr(f->e.msg, "'1 read(3</a>, \"x\", 1) 1'"));
	assert_string_equal(buf, "1 read(3</a>, \"x\", 1) 1");
	strcpy(buf, "1 pwrite64(3</b>, \"x\", 1, -5) = 1");
	assert_int_equal(strace_parser_line(f->p, &f->src, buf, strlen(buf), 3, &f->e), -EINVAL);
	assert_non_null(strstr(f->e.msg, "offset >= 0"));
	assert_non_null(strstr(f->e.msg, "pwrite64(3</b>, "));
	/* a path with something to undo is a copy, the line as it was */
	strcpy(buf, "1 read(3</a\\x41>, \"x\", 1) = 1");
	assert_int_equal(strace_parser_line(f->p, &f->src, buf, strlen(buf), 4, &f->e), 0);
	assert_string_equal(f->cap.ev[1].fdpath, "/aA");
	assert_string_equal(buf, "1 read(3</a\\x41>, \"x\", 1) = 1");
}

/* A read's or write's result is taken from its length when it repeats
 * the length's digits, and read when it does not. */
static void test_rw_result_repeats_length(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *line;
		uint64_t len;
		int64_t ret;
	} t[] = {
		{ "1 10:00:00.000001 read(3, \"x\", 4096) = 4096 <0.000001>", 4096, 4096 },
		{ "1 10:00:00.000002 read(3, \"x\", 4096) = 4095 <0.000001>", 4096, 4095 },
		{ "1 10:00:00.000004 read(3, \"x\", 40960) = 4096 <0.000001>", 40960, 4096 },
		{ "1 10:00:00.000005 read(3, \"x\", 7) = 7 <0.000001>", 7, 7 },
		{ "1 10:00:00.000007 read(3, \"x\", 12345678) = 12345678 <0.000001>", 12345678, 12345678 },
		{ "1 10:00:00.000009 pread64(3, \"x\", 123456789, 0) = 123456789 <0.000001>", 123456789,
		  123456789 },
		{ "1 10:00:00.000010 write(3, \"x\", 5) = 0 <0.000001>", 5, 0 },
		{ "1 10:00:00.000011 write(3, \"x\", 5) = 5", 5, 5 },
	};
	size_t n = sizeof(t) / sizeof(t[0]);
	for (size_t i = 0; i < n; i++) {
		FEED_OK(f, t[i].line);
		assert_int_equal(f->cap.n, (int)i + 1);
		assert_int_equal(f->cap.ev[i].len, t[i].len);
		assert_int_equal(f->cap.ev[i].ret, t[i].ret);
	}
	assert_int_equal(f->cap.ev[0].dur_ns, 1000);
	/* a result that only starts like its count is read whole: more than
	 * the count, it is impossible, a bad line (audit D, F5) */
	assert_int_equal(feed(f, "1 10:00:00.000012 read(3, \"x\", 4096) = 40960 <0.000001>"), -EINVAL);
	assert_int_equal(feed(f, "1 10:00:00.000013 read(3, \"x\", 7) = 8 <0.000001>"), -EINVAL);
	assert_int_equal(feed(f, "1 10:00:00.000014 read(3, \"x\", 12345678) = 12345679 <0.000001>"),
			 -EINVAL);
	assert_int_equal(feed(f, "1 10:00:00.000015 pwrite64(3, \"x\", 3, 0) = 50000 <0.000001>"),
			 -EINVAL);
	assert_int_equal(f->cap.n, (int)n);
}

/* A read's or write's buffer as strace shows it by default (32 bytes, no
 * quote or backslash in them) is skipped at once; any other is read to
 * its closing quote. */
static void test_rw_buffer_32(void **state)
{
	struct fx *f = *state;
	static const char *const bufs[] = {
		"0123456789abcdef0123456789abcdef",             /* 32 */
		"0123456789abcdef0123456789abcde",              /* 31 */
		"0123456789abcdef0123456789abcdef0",            /* 33 */
		"0123456789abcdef0123456789abc\\\"",         /* ends in \" */
		"\\\"23456789abcdef0123456789abcdef",        /* \" first */
		"0123456789abcdef\\\\23456789abcdef",       /* \\ inside */
	};
	static const int64_t lens[] = { 4096, 31, 33, 7, 8, 9 };
	char line[256];
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		snprintf(line, sizeof(line), "1 10:00:00.%06zu pwrite64(3</f>, \"%s\"..., %lld, 8) = 7",
			 i, bufs[i], (long long)lens[i]);
		FEED_OK(f, line);
		assert_int_equal(f->cap.n, (int)i + 1);
		assert_int_equal(f->cap.ev[i].len, lens[i]);
		assert_int_equal(f->cap.ev[i].offset, 8);
		assert_int_equal(f->cap.ev[i].ret, 7);
		assert_string_equal(f->cap.ev[i].fdpath, "/f");
	}
	/* an escaped quote where the closing one would be after 32 bytes */
	FEED_OK(f, "1 10:00:00.000008 pwrite64(3</f>, \"0123456789abcdef0123456789abcde\\\", 99, 1) = 0\", 15, 8) = 7");
	assert_int_equal(f->cap.ev[f->cap.n - 1].len, 15);
	assert_int_equal(f->cap.ev[f->cap.n - 1].offset, 8);
	assert_int_equal(f->cap.ev[f->cap.n - 1].ret, 7);
	/* 32 bytes, then no closing quote: refused */
	expect_bad(f, "1 10:00:00.000009 pwrite64(3</f>, \"0123456789abcdef0123456789abcdef, 1, 8) = 1",
		   "closing '\"'");
}

static void test_malformed(void **state)
{
	struct fx *f = *state;
	expect_bad(f, "8468  21:23:21.436181 write(4, \"xxxx", "closing '\"'");
	expect_bad(f, "8468  21:23:21.436181 write(4, 5, 6", "')'");
	expect_bad(f, "8468  21:23:21.436181 write(4, 5, 6)", "'=' after ')'");
	expect_bad(f, "8468  21:23 write(4, \"x\", 1) = 1", "timestamp");
	expect_bad(f, "8468  21:23:21.436181 write(4, \"x\", 1) = ", "result");
	expect_bad(f, "8468  21:23:21.436181 lseek(4, 0, SEEK_WHAT) = 0", "arguments");
	expect_bad(f, "8468  21:23:21.436181 hello world", "'(' after the syscall name");
	char bin[] = "8468  21:23:21.436181 wr\x01te(4) = 0";
	expect_bad(f, bin, "binary");
	char del[] = "8468  21:23:21.436181 write(4, \"x\", 1) = 1 <0.0000\x7f" "1>";
	expect_bad(f, del, "binary");
	char esc[] = "8468  21:23:21.436181 write(4, \"\x1b[0m\", 1) = 1";
	expect_bad(f, esc, "binary");
	/* a control byte anywhere in a long line (16-byte blocks, the
	 * overlapping last block, the bytes after it), a tab nowhere */
	char longl[] = "8468  21:23:21.436181 write(4</a/b/c/d/e/f>, \"0123456789abcdef0123\", 20) = 20 <0.000001>";
	for (size_t k = 22; k < sizeof(longl) - 1; k++) {
		char c = longl[k];
		longl[k] = (char)(k % 2 ? 0x1f : 0x7f);
		expect_bad(f, longl, "binary");
		longl[k] = c;
	}
	/* a tab and a CRLF line end are text */
	FEED_OK(f, "8468  21:23:21.436181 close(4)\t= 0 <0.000001>\r");
	assert_int_equal(f->cap.n, 1);
	assert_int_equal(f->cap.ev[0].dur_ns, 1000);
	f->cap.n = 0;
	free(f->cap.strs[0][0]);
	f->cap.strs[0][0] = NULL;
	/* NUL in the middle of a line */
	char nul[] = "1 close(3) = 0";
	nul[3] = 0;
	assert_int_equal(strace_parser_line(f->p, &f->src, nul, sizeof(nul) - 1, 99, &f->e), -EINVAL);
	assert_non_null(strstr(f->e.msg, "t.txt:99:"));
	assert_int_equal(f->cap.n, 0);
}

/* What strace prints after a result (errno names and texts, the flags of
 * fcntl, poll's fds, a timeout, -e inject's marks, --pidns-translation's
 * comment, a -y path, a call that never returned) is read; anything else
 * after the number was not printed by strace, and the number before it
 * may be wrong (before: "= 40x96" was 40, "= 4096abc", "= 4096.5",
 * "= 4096 garbage" and "<0.000009>xyz" 4096, a duration without its '>'
 * 0): each is an error naming the line and what was expected. */
static void test_result_tail(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *line;
		int64_t ret;
		uint64_t dur;
	} ok[] = {
		{ "1 10:00:00.000001 openat(AT_FDCWD, \"/x\", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000005>", -ENOENT, 5000 },
		{ "1 10:00:00.000002 openat(AT_FDCWD, \"/x\", O_RDONLY) = -1 ENOENT (No such file or directory) (INJECTED) <0.000008>", -ENOENT, 8000 },
		{ "1 10:00:00.000003 read(3, \"\\0\\0\", 4096) = 5 (INJECTED) <0.000007>", 5, 7000 },
		{ "1 10:00:00.000004 fcntl(3, F_GETFL) = 0x8000 (flags O_RDONLY|O_LARGEFILE) <0.000002>", 0x8000, 2000 },
		{ "1 10:00:00.000005 fcntl(3, F_GETFD) = 0x1 (flags 0x1 /* FD_CLOEXEC */)", 1, 0 },
		{ "1 10:00:00.000006 poll([{fd=3, events=POLLIN}], 1, 10) = 1 ([{fd=3, revents=POLLIN}]) <0.000003>", 1, 3000 },
		{ "1 10:00:00.000007 poll([{fd=3, events=POLLIN}], 1, 10) = 0 (Timeout) <0.010072>", 0, 10072000 },
		{ "1 10:00:00.000008 getpid() = 1234 /* 5 in strace's PID NS */", 1234, 0 },
		{ "1 10:00:00.000009 openat(AT_FDCWD, \"/x\", O_RDONLY) = 3</x> <0.000010>", 3, 10000 },
		{ "1 10:00:00.000010 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f1beb91e000", 0x7f1beb91e000, 0 },
		{ "1 10:00:00.000011 close(3)                                = 0", 0, 0 },
		{ "1 10:00:00.000012 read(3, 0x7ffc, 10) = -1 EINTR (Interrupted system call) <0.000968>", -EINTR, 968000 },
		{ "1 10:00:00.000013 read(3, 0x7ffc, 10) = -1 530 (Unknown error 530)", -1, 0 },
		{ "1 10:00:00.000014 select(4, [3], NULL, NULL, {tv_sec=1, tv_usec=0}) = 1 (in [3], left {tv_sec=0, tv_usec=999})", 1, 0 },
		{ "1 10:00:00.000015 exit_group(0) = ? <unavailable>", SC_RET_UNKNOWN, 0 },
		{ "1 10:00:00.000016 openat(AT_FDCWD</tmp>, \"/tmp\", O_RDWR|O_CLOEXEC|O_TMPFILE, 0600) = 3</tmp/#10953388>(deleted) <0.000011>", 3, 11000 },
	};
	for (size_t k = 0; k < sizeof(ok) / sizeof(ok[0]); k++) {
		if (feed(f, ok[k].line))
			fail_msg("%s: %s", ok[k].line, f->e.msg);
		assert_int_equal(f->cap.n, (int)k + 1);
		assert_int_equal(f->cap.ev[k].ret, ok[k].ret);
		assert_int_equal(f->cap.ev[k].dur_ns, ok[k].dur);
	}
	static const char *const number[] = {
		"= 40x96 <0.000009>", "= 4096abc <0.000009>", "= 4096.5 <0.000009>",
		"= 4096 garbage <0.000009>", "= 4096 garbage", "= 4096 ENOENT (x)", "= 4096 (x",
		"= 4096</p> x", "= 4096 /* x",
	};
	static const char *const dur[] = {
		"= 4096 <0.000009>xyz", "= 4096 <0.000009", "= 4096 <99999999999.000009>",
		"= 4096 <9223372036.000000>",
	};
	char line[256];
	for (size_t k = 0; k < sizeof(number) / sizeof(number[0]); k++) {
		snprintf(line, sizeof(line), "1 10:00:01.000000 pwrite64(3</f>, \"x\"..., 4096, 1048576) %s",
			 number[k]);
		expect_bad(f, line, "expected a result strace prints: a number, then nothing but");
	}
	for (size_t k = 0; k < sizeof(dur) / sizeof(dur[0]); k++) {
		snprintf(line, sizeof(line), "1 10:00:01.000000 pwrite64(3</f>, \"x\"..., 4096, 1048576) %s",
			 dur[k]);
		expect_bad(f, line, "expected a duration ' <seconds>' (below 2^63 ns) at the end");
	}
	/* the longest duration taken */
	FEED_OK(f, "1 10:00:01.000000 close(3) = 0 <9223372035.999999>");
	assert_true(f->cap.ev[f->cap.n - 1].dur_ns == 9223372035999999000ull);
	/* a successful transfer that ends beyond 2^63 - 1 (the kernel says
	 * EINVAL): refused; up to it, and a failed one, read */
	expect_bad(f, "1 10:00:01.000000 pwrite64(3</f>, \"x\"..., 4096, 9223372036854775807) = 4096",
		   "t.txt:");
	assert_non_null(strstr(f->e.msg, "expected an offset plus length within 2^63-1 bytes"));
	expect_bad(f, "1 10:00:01.000000 pread64(3</f>, \"x\"..., 4096, 9223372036854771713) = 0",
		   "an offset plus length");
	expect_bad(f, "1 10:00:01.000000 preadv(3</f>, [{iov_base=\"x\", iov_len=4096}], 1, 9223372036854771713) = 0",
		   "an offset plus length");
	int n = f->cap.n;
	FEED_OK(f, "1 10:00:01.000000 pwrite64(3</f>, \"x\"..., 4096, 9223372036854771711) = 4096");
	FEED_OK(f, "1 10:00:01.000000 pwrite64(3</f>, \"x\"..., 4096, 9223372036854775807) = -1 EINVAL (Invalid argument)");
	assert_int_equal(f->cap.n, n + 2);
}

/* A call another thread's exit_group ended mid-way: never returned, so
 * no op, counted as skipped unfinished:NAME (it failed the whole trace) */
static void test_killed_mid_call(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "25452 19:08:29.120000 read(3<pipe:[1608489]>,  <unfinished ...>");
	FEED_OK(f, "25450 19:08:29.173458 exit_group(0)     = ?");
	FEED_OK(f, "25452 19:08:29.173646 <... read resumed> <unfinished ...>) = ?");
	FEED_OK(f, "25455 19:08:29.173650 read(3</d/f>,  <unfinished ...>) = ?");
	FEED_OK(f, "25455 19:08:29.173660 read(3</d/f>, \"a?\", 2) = 2");
	size_t n = f->cap.n;
	assert_int_equal(f->cap.ev[n - 3].call, SC_SKIP);
	assert_string_equal(f->cap.ev[n - 3].name, "unfinished:read");
	assert_int_equal(f->cap.ev[n - 2].call, SC_SKIP);
	assert_string_equal(f->cap.ev[n - 2].name, "unfinished:read");
	assert_int_equal(f->cap.ev[n - 1].call, SC_READ);
	assert_int_equal(f->cap.ev[n - 1].len, 2);
	/* -ff: a thread's execve goes on as its leader, in the leader's file */
	FEED_OK(f, "8713 19:20:09.996448 execve(\"/usr/bin/sh\", [\"sh\"], 0x7ffd /* 37 vars */ <pid changed to 8711 ...>");
	assert_int_equal(f->cap.n, n + 1);
	assert_int_equal(f->cap.ev[n].call, SC_SKIP);
	assert_string_equal(f->cap.ev[n].name, "pid-changed:execve");
}

/* A -tt clock that goes back: a new day when it goes back by more than
 * 12 hours (a night: 22:30 then 00:20 too, a job silent over midnight);
 * a smaller step back keeps its time (the builder then clamps the op and
 * counts it: test_trace's test_clock_back). */
static void test_clock_back(void **state)
{
	struct fx *f = *state;
	const uint64_t day = 86400ull * 1000000000ull;
	FEED_OK(f, "1 23:59:59.900000 close(3) = 0");
	FEED_OK(f, "1 00:00:00.100000 close(3) = 0");          /* midnight */
	assert_true(f->cap.ev[1].ts_ns == TOD(0, 0, 0, 100000) + day);
	FEED_OK(f, "1 00:40:00.000000 close(3) = 0");
	FEED_OK(f, "1 21:23:21.437000 close(3) = 0");
	FEED_OK(f, "1 11:23:21.337000 close(3) = 0");          /* 10 hours back */
	assert_true(f->cap.ev[4].ts_ns == TOD(11, 23, 21, 337000) + day);
	FEED_OK(f, "1 21:23:21.437100 close(3) = 0");          /* forward again */
	assert_true(f->cap.ev[5].ts_ns == TOD(21, 23, 21, 437100) + day);
	FEED_OK(f, "1 21:23:21.437000 close(3) = 0");          /* 100 us back */
	assert_true(f->cap.ev[6].ts_ns == TOD(21, 23, 21, 437000) + day);
	FEED_OK(f, "1 22:30:00.000000 close(3) = 0");
	FEED_OK(f, "1 00:20:00.000000 close(3) = 0");          /* a night over 22:30-00:20 */
	assert_true(f->cap.ev[8].ts_ns == TOD(0, 20, 0, 0) + 2 * day);
	FEED_OK(f, "1 23:10:00.000000 close(3) = 0");
	FEED_OK(f, "1 00:50:00.000000 close(3) = 0");          /* midnight */
	assert_true(f->cap.ev[10].ts_ns == TOD(0, 50, 0, 0) + 3 * day);
}

/* Numbers at the edges of int64 (issue 15): never undefined behaviour,
 * never a silent wrap; a malformed duration is an error, not garbage. */
static void test_number_edges(void **state)
{
	struct fx *f = *state;
	/* the most negative offset is a value, not a negation overflow */
	FEED_OK(f, "1 lseek(3, -9223372036854775808, SEEK_CUR) = -1 EINVAL (Invalid argument)");
	assert_int_equal(f->cap.n, 1);
	assert_true(f->cap.ev[0].offset == INT64_MIN);
	FEED_OK(f, "1 lseek(3, 9223372036854775807, SEEK_SET) = 9223372036854775807");
	assert_true(f->cap.ev[1].offset == INT64_MAX);
	assert_true(f->cap.ev[1].ret == INT64_MAX);
	/* one more, or twenty digits: out of range, said so */
	expect_bad(f, "1 lseek(3, 9223372036854775808, SEEK_SET) = 0", "arguments");
	expect_bad(f, "1 pwrite64(3, \"x\", 1, 123456789012345678901) = 1", "arguments");
	expect_bad(f, "1 lseek(3, -9223372036854775809, SEEK_CUR) = 0", "arguments");
	expect_bad(f, "1 close(3) = 99999999999999999999", "a number");
	/* pid columns beyond int64 */
	expect_bad(f, "99999999999999999999 close(3) = 0", "pid");
	expect_bad(f, "[pid 99999999999999999999] close(3) = 0", "pid");
	/* durations: empty or not a number */
	expect_bad(f, "1 close(3) = 0 <>", "duration");
	expect_bad(f, "1 close(3) = 0 <abc>", "duration");
	expect_bad(f, "1 close(3) = 0 <1.2.3>", "duration");
	/* timestamps whose fields do not fit */
	expect_bad(f, "1 123:00:01.000000 close(3) = 0", "timestamp");
	expect_bad(f, "1 999999999999999999999.000001 close(3) = 0", "timestamp");
	/* a transfer that succeeded at a negative offset or length */
	expect_bad(f, "1 pwrite64(3, \"x\", 1, -5) = 1", "offset >= 0");
	expect_bad(f, "1 pread64(3, \"x\", -1, 0) = 1", "offset >= 0");
	FEED_OK(f, "1 pwrite64(3, \"x\", 1, -5) = -1 EINVAL (Invalid argument)");
	assert_int_equal(f->cap.n, 3);
}

static void test_errno_and_flags(void **state)
{
	(void)state;
	assert_int_equal(strace_errno("ENOENT", 6), ENOENT);
	assert_int_equal(strace_errno("EAGAIN", 6), EAGAIN);
	assert_int_equal(strace_errno("ERESTARTSYS", 11), 512);
	assert_int_equal(strace_errno("EBOGUS", 6), 0);
	assert_int_equal(strace_errno("", 0), 0);
	assert_int_equal(strace_errno("EWOULDBLOCK", 11), EAGAIN);
	assert_int_equal(strace_errno("ERESTART_RESTARTBLOCK", 21), 516);
	assert_int_equal(strace_errno("ENOENTX", 7), 0);
	assert_int_equal(strace_errno("ENOEN", 5), 0);
	/* every name of the C library back to its first number */
	for (int i = 1; i < 200; i++) {
		const char *n = strerrorname_np(i);
		int first = i;
		if (!n)
			continue;
		for (int k = 1; k < i; k++)
			if (strerrorname_np(k) && !strcmp(strerrorname_np(k), n)) {
				first = k;
				break;
			}
		if (strace_errno(n, strlen(n)) != first)
			fail_msg("%s: %d, expected %d", n, strace_errno(n, strlen(n)), first);
	}
	int64_t fl;
	assert_int_equal(strace_oflags("O_RDWR|O_DIRECT|O_SYNC", 22, &fl), 0);
	assert_int_equal(fl, O_RDWR | O_DIRECT | O_SYNC);
	assert_int_equal(strace_oflags("0x8002", 6, &fl), 0);
	assert_int_equal(fl, 0x8002);
	/* -X verbose: the number, its comment ignored; a lone '/' is no comment */
	assert_int_equal(strace_oflags("0x80241 /* O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC */", 47, &fl), 0);
	assert_int_equal(fl, 0x80241);
	assert_int_equal(strace_oflags("O_RDONLY/", 9, &fl), -EINVAL);
	assert_int_equal(strace_oflags("O_TMPFILE|O_RDWR", 16, &fl), 0);
	assert_int_equal(fl, 020200000 | O_RDWR);
	assert_int_equal(strace_oflags("O_BOGUS", 7, &fl), -EINVAL);
}

/* every fallocate mode name strace prints, to its bit (linux/falloc.h),
 * alone and combined; numbers kept; an unknown name refused with the line */
static void test_falloc_modes(void **state)
{
	struct fx *f = *state;
	static const struct { const char *name; int64_t bit; } m[] = {
		{ "FALLOC_FL_KEEP_SIZE", 0x01 }, { "FALLOC_FL_PUNCH_HOLE", 0x02 },
		{ "FALLOC_FL_NO_HIDE_STALE", 0x04 }, { "FALLOC_FL_COLLAPSE_RANGE", 0x08 },
		{ "FALLOC_FL_ZERO_RANGE", 0x10 }, { "FALLOC_FL_INSERT_RANGE", 0x20 },
		{ "FALLOC_FL_UNSHARE_RANGE", 0x40 }, { "FALLOC_FL_WRITE_ZEROES", 0x80 },
	};
	int64_t v;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		assert_int_equal(strace_falloc_mode(m[i].name, strlen(m[i].name), &v), 0);
		assert_int_equal(v, m[i].bit);
		/* the name the op stream's printer gives the bit is the same */
		char b[64];
		assert_string_equal(op_falloc_mode_str((uint32_t)m[i].bit, b, sizeof(b)), m[i].name);
	}
	assert_int_equal(strace_falloc_mode("0", 1, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(strace_falloc_mode("FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE", 40, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(strace_falloc_mode("FALLOC_FL_KEEP_SIZE|FALLOC_FL_ZERO_RANGE", 40, &v), 0);
	assert_int_equal(v, 0x11);
	/* a bit strace has no name for: printed as a number, kept */
	assert_int_equal(strace_falloc_mode("FALLOC_FL_KEEP_SIZE|0x100", 25, &v), 0);
	assert_int_equal(v, 0x101);
	/* -X raw / -X verbose */
	assert_int_equal(strace_falloc_mode("0x3 /* FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE */", 50, &v),
			 0);
	assert_int_equal(v, 3);
	assert_int_equal(strace_falloc_mode("FALLOC_FL_BOGUS", 15, &v), -EINVAL);
	char b[256];
	assert_string_equal(op_falloc_mode_str(0x109, b, sizeof(b)),
			    "FALLOC_FL_KEEP_SIZE|FALLOC_FL_COLLAPSE_RANGE|0x100");
	assert_string_equal(op_falloc_mode_str(0, b, sizeof(b)), "0");

	FEED_OK(f, "1 fallocate(3</w/z.bin>, FALLOC_FL_ZERO_RANGE, 500000, 2000000) = 0");
	FEED_OK(f, "1 fallocate(3</w/z.bin>, FALLOC_FL_KEEP_SIZE|FALLOC_FL_ZERO_RANGE, 4000000, 1000000) = 0");
	FEED_OK(f, "1 fallocate(3</w/z.bin>, FALLOC_FL_COLLAPSE_RANGE, 0, 4096) = 0");
	FEED_OK(f, "1 fallocate(3</w/z.bin>, FALLOC_FL_INSERT_RANGE, 4096, 8192) = 0");
	FEED_OK(f, "1 fallocate(3</w/z.bin>, FALLOC_FL_UNSHARE_RANGE, 0, 8192) = -1 EOPNOTSUPP (Operation not supported)");
	FEED_OK(f, "1 fallocate(3</w/z.bin>, FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE|FALLOC_FL_NO_HIDE_STALE, 0, 1) = -1 EOPNOTSUPP (Operation not supported)");
	assert_int_equal(f->cap.n, 6);
	assert_int_equal(f->cap.ev[0].mode, 0x10);
	assert_int_equal(f->cap.ev[0].offset, 500000);
	assert_int_equal(f->cap.ev[0].len, 2000000);
	assert_int_equal(f->cap.ev[1].mode, 0x11);
	assert_int_equal(f->cap.ev[2].mode, 0x08);
	assert_int_equal(f->cap.ev[3].mode, 0x20);
	assert_int_equal(f->cap.ev[4].mode, 0x40);
	assert_int_equal(f->cap.ev[5].mode, 0x07);
	/* a mode name it does not know: the line is refused, file:line */
	assert_int_equal(feed(f, "1 fallocate(3</w/z.bin>, FALLOC_FL_FUTURE, 0, 1) = 0"), -EINVAL);
	assert_non_null(strstr(f->e.msg, "fallocate mode"));
}

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/strace/%s", TEST_DATA, name);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	char *buf = malloc(1 << 16);
	*len = fread(buf, 1, 1 << 16, fp);
	fclose(fp);
	return buf;
}

static void test_probe(void **state)
{
	(void)state;
	const char *yes[] = { "s_f_tt_T.txt", "s_f_tt_T_y.txt", "s_f_ttt_T_stderr.txt", "s_ff.8480",
			      "s_r_T.txt", "s32_tt_T.txt",
			      "sysbench_k_head.txt" /* -k: 5 frame lines per call */ };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		size_t n;
		char *b = slurp(yes[i], &n);
		int s = trace_strace.probe(b, n);
		if (s < 60)
			fail_msg("%s scored %d", yes[i], s);
		free(b);
	}
	size_t n;
	char *b = slurp("l_S_tt_T_f.txt", &n);
	assert_int_equal(trace_strace.probe(b, n), 0);     /* ltrace is LANL's */
	free(b);
	assert_int_equal(trace_strace.probe("hello\nworld\n", 12), 0);
	assert_int_equal(trace_strace.probe("", 0), 0);
	/* a pid column beyond int64 is not strace (and not undefined behaviour) */
	const char *big = "99999999999999999999 close(3) = 0\n[pid 99999999999999999999] close(3) = 0\n";
	assert_int_equal(trace_strace.probe(big, strlen(big)), 0);
}

/* strace -X verbose -y (real capture, tests/data/strace/py_X_stderr.txt):
 * AT_FDCWD is printed as a number, a comment, then the decoration. */
static void test_verbose_at_fdcwd(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "[pid 21269] 22:44:54.952408 openat(-100 /* AT_FDCWD */</tmp/r2/cap/w>, \"th0.dat\", 0x80241 /* O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC */, 0666 <unfinished ...>");
	FEED_OK(f, "[pid 21269] 22:44:54.952500 <... openat resumed>) = 3</tmp/r2/cap/w/th0.dat> <0.000040>");
	FEED_OK(f, "22:44:54.861070 newfstatat(-100 /* AT_FDCWD */</tmp/r2/cap/w>, \"/usr/bin/Modules/Setup.local\", 0x7ffc4d212a20, 0) = -1 ENOENT (No such file or directory) <0.000022>");
	FEED_OK(f, "22:44:54.861080 unlinkat(7 /* what */</tmp/d>, \"x\", 0) = 0");
	assert_int_equal(f->cap.n, 3);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_OPEN);
	assert_int_equal(e[0].dirfd, SC_AT_FDCWD);
	assert_string_equal(e[0].fdpath, "/tmp/r2/cap/w");
	assert_string_equal(e[0].path, "th0.dat");
	assert_int_equal(e[0].flags, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
	assert_int_equal(e[0].ret, 3);
	assert_int_equal(e[1].call, SC_STAT);
	assert_int_equal(e[1].ret, -ENOENT);
	assert_string_equal(e[1].fdpath, "/tmp/r2/cap/w");
	assert_int_equal(e[2].call, SC_UNLINK);
	assert_int_equal(e[2].dirfd, 7);
	assert_string_equal(e[2].fdpath, "/tmp/d");
	/* sqlite3 WAL (tests/data/strace/sqlite_wal_efile.txt): strace 6.1
	 * closes an unlinked file as "5</x>(deleted)" */
	FEED_OK(f, "21262 22:44:54.803879 close(5</tmp/r2/cap/w/db.sqlite-shm>(deleted)) = 0 <0.000050>");
	assert_int_equal(f->cap.n, 4);
	assert_int_equal(e[3].call, SC_CLOSE);
	assert_int_equal(e[3].fd, 5);
	assert_string_equal(e[3].fdpath, "/tmp/r2/cap/w/db.sqlite-shm");
	/* python os.pwritev(fd, [...], -1, os.RWF_APPEND) (edge_f_tt_T_y.txt):
	 * the current position, and appended */
	FEED_OK(f, "25281 22:46:40.150289 pwritev2(3</tmp/r2/cap/w2/d/a.dat>, [{iov_base=\"qqqq\"..., iov_len=300}], 1, -1, RWF_APPEND) = 300 <0.000011>");
	FEED_OK(f, "25281 22:46:40.150290 pwritev2(3, [{iov_base=\"q\", iov_len=1}], 1, 7, 0x10 /* RWF_APPEND */) = 1");
	FEED_OK(f, "25281 22:46:40.150291 pwritev2(3, [{iov_base=\"q\", iov_len=1}], 1, 7, RWF_HIPRI) = 1");
	assert_int_equal(f->cap.n, 7);
	assert_int_equal(e[4].call, SC_WRITE);
	assert_int_equal(e[4].offset, SC_NOOFF);
	assert_int_equal(e[4].len, 300);
	assert_int_equal(e[4].flags, O_APPEND);
	assert_int_equal(e[5].offset, 7);
	assert_int_equal(e[5].flags, O_APPEND);
	assert_int_equal(e[6].flags, 0);
	/* an unterminated comment is still malformed */
	assert_int_equal(feed(f, "22:44:54.861090 unlinkat(-100 /* AT_FDCWD</tmp/d>, \"x\", 0) = 0"), -EINVAL);
}


/* strace -n (syscall numbers, real capture tests/data/strace/sysbench_n.txt)
 * and -n with -i: "[  59] " and "[00007f..] " before the call */
static void test_syscall_numbers(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "8869  23:04:55.840000 [  17] pread64(3</tmp/r2/sb/test_file.1>, \"x\"..., 16384, 655360) = 16384");
	FEED_OK(f, "8869  23:04:55.840001 [  18] [00007f3c2a1b2c3d] pwrite64(3, \"x\", 1, 0) = 1");
	FEED_OK(f, "[pid  8868] 23:04:55.840002 [   3] close(3) = 0");
	assert_int_equal(f->cap.n, 3);
	struct sc_event *e = f->cap.ev;
	assert_int_equal(e[0].call, SC_READ);
	assert_int_equal(e[0].pid, 8869);
	assert_int_equal(e[0].offset, 655360);
	assert_int_equal(e[0].ret, 16384);
	assert_int_equal(e[1].call, SC_WRITE);
	assert_int_equal(e[1].len, 1);
	assert_int_equal(e[2].call, SC_CLOSE);
	assert_int_equal(e[2].pid, 8868);
	/* an empty bracket is not a syscall number */
	assert_int_equal(feed(f, "8869  23:04:55.840003 [ ] close(3) = 0"), -EINVAL);
	/* -i where strace does not know the address (real capture of dd) */
	FEED_OK(f, "8869  23:04:55.840004 [????????????????] +++ exited with 0 +++");
	FEED_OK(f, "8868  23:04:55.840005 [????????????????] write(1, \"ab\", 2) = 2");
	assert_int_equal(f->cap.n, 5);
	assert_int_equal(f->cap.ev[3].pid, 8869);
	assert_int_equal(f->cap.ev[4].call, SC_WRITE);
	assert_int_equal(f->cap.ev[4].len, 2);
}

/* strace -C (real capture tests/data/strace/sysbench_C.txt): the summary
 * table after the calls is not made of malformed lines */
static void test_summary_table(void **state)
{
	struct fx *f = *state;
	FEED_OK(f, "8869  23:04:55.840000 close(3</tmp/x>) = 0");
	FEED_OK(f, "% time     seconds  usecs/call     calls    errors syscall");
	FEED_OK(f, "------ ----------- ----------- --------- --------- ----------------");
	FEED_OK(f, " 45.12    0.002567          12       200           pread64");
	FEED_OK(f, "  0.00    0.000000           0         1         1 access");
	FEED_OK(f, "100.00    0.005690          13       421         3 total");
	assert_int_equal(f->cap.n, 1);
	/* a call line after it is parsed again */
	FEED_OK(f, "8869  23:04:55.840001 close(4</tmp/y>) = 0");
	assert_int_equal(f->cap.n, 2);
	assert_int_equal(f->cap.ev[1].fd, 4);
	/* without the header, a row is still malformed */
	assert_int_equal(feed(f, " 45.12    0.002567          12       200           pread64"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pid_column_tt_T_y, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rw_one_pass_matches_general, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_one_pass_matches_general, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_decorations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stderr_pid_prefix_ttt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative_and_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absolute_with_relative, setup, teardown),
		cmocka_unit_test_setup_teardown(test_epoch_whole_seconds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ff_file_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unfinished_resumed_interleaved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unfinished_never_resumed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bare_continuation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hexdump_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_capture, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quoted_buffers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iovecs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seeks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_numeric_consts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setfl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_linkat_empty_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_mid_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_cut_by_attached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clone_adoption, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clone_adoption_after_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metadata_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_dirfds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_alloc_mmap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_falloc_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_io_submit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_io_submit_numeric_opcode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stat_size_numeric_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_range_chdir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_more_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verbose_at_fdcwd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syscall_numbers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_call_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_call_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rw_path_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unfinished_same_slot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rw_buffer_32, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rw_result_repeats_length, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_of_day_spellings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_number_edges, setup, teardown),
		cmocka_unit_test(test_errno_and_flags),
		cmocka_unit_test(test_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
