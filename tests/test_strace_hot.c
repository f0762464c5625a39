/*
 * test_strace_hot.c - the strace reader's hot path (hot_line(): lines as
 * the line reader gives them, read straight through) against its general
 * way (REPLAY_STRACE_GENERAL=1, every line through prefix() and
 * event_text()).  A trace file goes through trace_strace.parse into a
 * recording builder both ways: the same result, message and events, field
 * for field; and each line at the edge of a shortcut gives the event
 * expected of it (a shortcut shared by both ways must not be wrong in
 * both).  test_strace.c feeds single lines, which take the general way.
 */
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

#include "trace/strace.h"
#include "trace/trace.h"

/* ---- a builder that records what it is fed -------------------------------- */
struct builder {
	int unused;
};

#define MAXREC 256
struct rec {
	struct sc_event ev;
	char *s[5];             /* name, path, path2, fdpath, retpath */
};
static struct rec recs[2][MAXREC];
static size_t nrec[2];
static int way;                 /* 0: hot path, 1: general way */
static struct builder fake;

static char *dupn(const char *s)
{
	return s ? strdup(s) : NULL;
}

int builder_event(struct builder *b, const struct sc_event *ev, struct rerr *e)
{
	(void)b;
	(void)e;
	assert_true(nrec[way] < MAXREC);
	struct rec *r = &recs[way][nrec[way]++];
	r->ev = *ev;
	r->s[0] = dupn(ev->name);
	r->s[1] = dupn(ev->path);
	r->s[2] = dupn(ev->path2);
	r->s[3] = dupn(ev->fdpath);
	r->s[4] = dupn(ev->retpath);
	r->ev.name = r->s[0];
	r->ev.path = r->s[1];
	r->ev.path2 = r->s[2];
	r->ev.fdpath = r->s[3];
	r->ev.retpath = r->s[4];
	r->ev.src = NULL;
	return 0;
}

int builder_rank(struct builder *b, int64_t pid, const char *name, uint32_t *rank)
{
	(void)b, (void)pid, (void)name;
	*rank = 0;
	return 0;
}

int builder_rank_host(struct builder *b, uint32_t rank, const char *host)
{
	(void)b, (void)rank, (void)host;
	return 0;
}

int builder_info(struct builder *b, const char *key, const char *value)
{
	(void)b, (void)key, (void)value;
	return 0;
}

int builder_captures(struct builder *b, char *const *names, size_t n)
{
	(void)b, (void)names, (void)n;
	return 0;
}

void builder_rank_sources(struct builder *b)
{
	(void)b;
}

uintptr_t builder_fd_on(struct builder *b, int64_t pid, int64_t fd, const char *path)
{
	(void)b, (void)pid, (void)fd, (void)path;
	return 0;
}

const struct build_stats *builder_stats(const struct builder *b)
{
	static const struct build_stats none;
	(void)b;
	return &none;
}

static void forget(void)
{
	for (int w = 0; w < 2; w++) {
		for (size_t i = 0; i < nrec[w]; i++)
			for (int k = 0; k < 5; k++)
				free(recs[w][i].s[k]);
		nrec[w] = 0;
	}
}

static void same_str(const char *a, const char *b)
{
	if (a || b) {
		assert_non_null(a);
		assert_non_null(b);
		assert_string_equal(a, b);
	}
}

/*
 * The trace text through trace_strace.parse, the hot way and the general
 * way: the same return, message, counts and events.  The hot way's rc
 * (and message in *e); its events stay in recs[0].
 */
static int parse_both(const char *text, bool skip_bad, struct rerr *e)
{
	char dir[] = "/tmp/test_strace_hot.XXXXXX", path[64];
	int rc[2];
	struct rerr er[2];
	struct trace_input in[2];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/trace", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	forget();
	for (way = 0; way < 2; way++) {
		char *files[1] = { path };
		if (way)
			setenv("REPLAY_STRACE_GENERAL", "1", 1);
		else
			unsetenv("REPLAY_STRACE_GENERAL");
		memset(&in[way], 0, sizeof(in[way]));
		in[way].files = files;
		in[way].nfiles = 1;
		in[way].skip_bad = skip_bad;
		er[way].msg[0] = 0;
		rc[way] = trace_strace.parse(&in[way], &fake, &er[way]);
	}
	unsetenv("REPLAY_STRACE_GENERAL");
	way = 0;
	unlink(path);
	rmdir(dir);
	assert_int_equal(rc[0], rc[1]);
	if (rc[0])
		assert_string_equal(er[0].msg, er[1].msg);
	assert_int_equal(in[0].bad_lines, in[1].bad_lines);
	assert_string_equal(in[0].first_bad, in[1].first_bad);
	assert_int_equal(nrec[0], nrec[1]);
	for (size_t i = 0; i < nrec[0]; i++) {
		const struct sc_event *a = &recs[0][i].ev, *b = &recs[1][i].ev;
		assert_int_equal(a->line, b->line);
		assert_int_equal(a->pid, b->pid);
		assert_int_equal(a->ts_ns, b->ts_ns);
		assert_int_equal(a->dur_ns, b->dur_ns);
		assert_int_equal(a->call, b->call);
		assert_int_equal(a->fd, b->fd);
		assert_int_equal(a->fd2, b->fd2);
		assert_int_equal(a->dirfd, b->dirfd);
		assert_int_equal(a->flags, b->flags);
		assert_int_equal(a->mode, b->mode);
		assert_int_equal(a->offset, b->offset);
		assert_int_equal(a->whence, b->whence);
		assert_int_equal(a->len, b->len);
		assert_int_equal(a->iovcnt, b->iovcnt);
		assert_int_equal(a->ret, b->ret);
		assert_int_equal(a->async_id, b->async_id);
		assert_int_equal(a->path_flags, b->path_flags);
		assert_int_equal(a->opflags, b->opflags);
		for (int k = 0; k < 5; k++)
			same_str(recs[0][i].s[k], recs[1][i].s[k]);
	}
	if (e)
		*e = er[0];
	return rc[0];
}

/* The event of trace line `line`, which must be there. */
static const struct sc_event *at_line(unsigned long line)
{
	for (size_t i = 0; i < nrec[0]; i++)
		if (recs[0][i].ev.line == line)
			return &recs[0][i].ev;
	fail_msg("no event of line %lu", line);
	return NULL;
}

#define TS(s, us) ((10ull * 3600 + (s)) * 1000000000ull + (us) * 1000ull)

/* Pids of 1 to 10 digits (8 read as a word, the rest one by one) and
 * longer (the general way's), names of 16 bytes (the table's words) and
 * longer (the one-by-one rest of a name), offsets of 8 to 17 digits (the
 * word reads of plain_dec) and of 18 (num()'s). */
static void test_numbers_and_names(void **state)
{
	(void)state;
	const char *text =
		"7 10:00:00.000001 close(3) = 0 <0.000001>\n"
		"12345678 10:00:00.000002 close(3) = 0 <0.000001>\n"
		"123456789 10:00:00.000003 close(3) = 0 <0.000001>\n"
		"1234567890 10:00:00.000004 close(3) = 0 <0.000001>\n"
		"12345678901 10:00:00.000005 close(3) = 0 <0.000001>\n"
		"7 10:00:00.000006 process_vm_readv(1, 0x1, 1, 0x2, 1, 0) = 0 <0.000001>\n"
		"7 10:00:00.000007 sched_getaffinity(7, 8, [0 1]) = 8 <0.000001>\n"
		"7 10:00:00.000008 sync_file_range(3, 0, 0, 0) = 0 <0.000001>\n"
		"7 10:00:00.000009 pread64(3</f>, \"x\"..., 12345678, 87654321) = 12345678 <0.000001>\n"
		"7 10:00:00.000010 pread64(3</f>, \"x\"..., 1, 1234567890123456) = 1 <0.000001>\n"
		"7 10:00:00.000011 pread64(3</f>, \"x\"..., 1, 12345678901234567) = 1 <0.000001>\n"
		"7 10:00:00.000012 pread64(3</f>, \"x\"..., 1, 123456789012345678) = 1 <0.000001>\n"
		"7 10:00:00.000013 pwrite64(3</f>, \"x\"..., 1, 01234567) = 1 <0.000001>\n"
		"7 10:00:00.000014 pwrite64(3</f>, \"x\"..., 1, 0) = 1 <0.000001>\n";
	assert_int_equal(parse_both(text, false, NULL), 0);
	assert_int_equal(nrec[0], 14);
	assert_int_equal(at_line(1)->pid, 7);
	assert_int_equal(at_line(2)->pid, 12345678);
	assert_int_equal(at_line(3)->pid, 123456789);
	assert_int_equal(at_line(4)->pid, 1234567890);
	assert_int_equal(at_line(4)->ts_ns, TS(0, 4));
	assert_int_equal(at_line(5)->pid, 12345678901);
	assert_int_equal(at_line(6)->call, SC_SKIP);
	assert_string_equal(at_line(6)->name, "process_vm_readv");
	assert_int_equal(at_line(7)->call, SC_SKIP);
	assert_string_equal(at_line(7)->name, "sched_getaffinity");
	assert_int_equal(at_line(7)->ret, 8);
	assert_int_equal(at_line(8)->call, SC_FDATASYNC);
	assert_int_equal(at_line(9)->len, 12345678);
	assert_int_equal(at_line(9)->offset, 87654321);
	assert_int_equal(at_line(9)->ret, 12345678);
	assert_string_equal(at_line(9)->fdpath, "/f");
	assert_int_equal(at_line(10)->offset, 1234567890123456);
	assert_int_equal(at_line(11)->offset, 12345678901234567);
	assert_int_equal(at_line(12)->offset, 123456789012345678);
	assert_int_equal(at_line(13)->offset, 01234567);      /* octal, as num() reads it */
	assert_int_equal(at_line(14)->offset, 0);
}

/* Junk after a result or in its duration, and a transfer that ends
 * beyond 2^63 - 1, mid-file: the same error both ways, naming the line
 * (before: read as some number, or a duration of 0 or wrapped). */
static void test_result_junk(void **state)
{
	(void)state;
	static const struct {
		const char *tail, *want;
	} bad[] = {
		{ "4096, 1048576) = 40x96 <0.000009>", "trace:2: expected a result strace prints" },
		{ "4096, 1048576) = 4096abc <0.000009>", "trace:2: expected a result strace prints" },
		{ "4096, 1048576) = 4096.5 <0.000009>", "trace:2: expected a result strace prints" },
		{ "4096, 1048576) = 4096 garbage <0.000009>", "trace:2: expected a result strace prints" },
		{ "4096, 1048576) = 4096 <0.000009>xyz", "trace:2: expected a duration" },
		{ "4096, 1048576) = 4096 <0.000009", "trace:2: expected a duration" },
		{ "4096, 1048576) = 4096 <99999999999.000009>", "trace:2: expected a duration" },
		{ "4096, 9223372036854775807) = 4096 <0.000009>", "trace:2: expected an offset plus length" },
	};
	char text[512];
	struct rerr e;
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		snprintf(text, sizeof(text),
			 "7 10:00:00.000001 close(3) = 0 <0.000001>\n"
			 "7 10:00:00.000002 pwrite64(4</tmp/t.dat>, \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"..., %s\n"
			 "7 10:00:00.000003 close(4) = 0 <0.000001>\n",
			 bad[k].tail);
		assert_int_equal(parse_both(text, false, &e), -EINVAL);
		if (!strstr(e.msg, bad[k].want))
			fail_msg("'%s': '%s' lacks '%s'", bad[k].tail, e.msg, bad[k].want);
	}
}

/* A call the table does not know, left unfinished: when its text so far
 * nests nowhere it is not kept, and the rest is read alone, unless the
 * rest starts with a '<' that the byte before makes a decoration. */
static void test_unfinished_unknown(void **state)
{
	(void)state;
	struct rerr e;
	const char *text =
		"7 10:00:00.000001 futex(0x7f0, FUTEX_WAIT_PRIVATE, 2, NULL <unfinished ...>\n"
		"8 10:00:00.000002 fgetxattr(3 <unfinished ...>\n"
		"9 10:00:00.000003 clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=1000},  <unfinished ...>\n"
		"10 10:00:00.000004 sched_getaffinity(7, 8,  <unfinished ...>\n"
		"11 10:00:00.000005 fgetxattr(3</a> <unfinished ...>\n"
		"12 10:00:00.000006 fgetxattr(3  <unfinished ...>\n"
		"7 10:00:00.000007 <... futex resumed>) = 0 <0.000002>\n"
		/* the decoration holds a ')': it is not the call's end */
		"8 10:00:00.000008 <... fgetxattr resumed><anon_inode:x)y>, NULL, NULL, 0) = 5 <0.000002>\n"
		"9 10:00:00.000009 <... clock_nanosleep resumed>NULL) = 0 <0.000003>\n"
		"10 10:00:00.000010 <... sched_getaffinity resumed>[0 1]) = 8 <0.000004>\n"
		"11 10:00:00.000011 <... fgetxattr resumed>, NULL, NULL, 0) = 6\n"
		/* after a blank, '<' is no decoration: the ')' in it ends the call */
		"12 10:00:00.000012 <... fgetxattr resumed><x) = 7 <0.000002>\n"
		"7 10:00:00.000013 futex(0x7f0, FUTEX_WAKE_PRIVATE, 1 <unfinished ...>\n"
		"7 10:00:00.000014 <... futex resumed>) = 1 <0.000002>\n";
	assert_int_equal(parse_both(text, false, NULL), 0);
	assert_int_equal(nrec[0], 7);
	const struct sc_event *ev = at_line(1);
	assert_int_equal(ev->call, SC_SKIP);
	assert_string_equal(ev->name, "futex");
	assert_int_equal(ev->ret, 0);
	assert_int_equal(ev->dur_ns, 2000);
	assert_int_equal(ev->ts_ns, TS(0, 1));
	assert_string_equal(at_line(2)->name, "fgetxattr");
	assert_int_equal(at_line(2)->ret, 5);
	assert_string_equal(at_line(3)->name, "clock_nanosleep");
	assert_int_equal(at_line(3)->dur_ns, 3000);
	assert_string_equal(at_line(4)->name, "sched_getaffinity");
	assert_int_equal(at_line(4)->ret, 8);
	assert_string_equal(at_line(5)->name, "fgetxattr");
	assert_int_equal(at_line(5)->ret, 6);
	assert_int_equal(at_line(6)->ret, 7);
	assert_int_equal(at_line(13)->ret, 1);

	/* the '<' made a decoration, and it is not closed: split()'s message */
	const char *bad =
		"8 10:00:00.000001 fgetxattr(3 <unfinished ...>\n"
		"8 10:00:00.000002 <... fgetxattr resumed><anon) = 0\n";
	assert_int_equal(parse_both(bad, false, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'>' closing a path decoration"));
	assert_non_null(strstr(e.msg, ":1:"));       /* the call's line, the rest's text */
	assert_non_null(strstr(e.msg, "resumed"));
	const char *bad2 =
		"8 10:00:00.000001 futex(0x1, 2 <unfinished ...>\n"
		"8 10:00:00.000002 <... futex resumed>) 2\n";
	assert_int_equal(parse_both(bad2, false, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'=' after ')'"));
	assert_int_equal(parse_both(bad2, true, &e), -EINVAL);   /* no syscall left */
}

/* Resumed calls the table knows: the start's text and the rest joined in
 * the pid's own buffer, again and again; a name that is not the
 * pending one's; a rest that is bare (strace -z). */
static void test_resumed_known(void **state)
{
	(void)state;
	const char *text =
		"7 10:00:00.000001 pread64(3</tmp/a.dat>,  <unfinished ...>\n"
		"8 10:00:00.000002 openat(AT_FDCWD</w>, \"/w/some/longer/name\", O_RDONLY <unfinished ...>\n"
		"7 10:00:00.000003 <... pread64 resumed>\"xy\"..., 4096, 8192) = 4096 <0.000010>\n"
		"8 10:00:00.000004 <... openat resumed>) = 4</w/some/longer/name> <0.000003>\n"
		"7 10:00:00.000005 pwrite64(3</tmp/a.dat>, \"a much longer buffer than before\"..., 65536, 12345678 <unfinished ...>\n"
		"7 10:00:00.000006 <... pwrite64 resumed>) = 65536 <0.000010>\n"
		"7 10:00:00.000007 read(3</tmp/a.dat>,  <unfinished ...>\n"
		"7 10:00:00.000008 <... write resumed>\"x\", 1) = 1 <0.000010>\n"
		"9 10:00:00.000009 <... pread64 resumed>\"x\", 1, 0) = 1 <0.000010>\n";
	assert_int_equal(parse_both(text, false, NULL), 0);
	const struct sc_event *ev = at_line(1);
	assert_int_equal(ev->call, SC_READ);
	assert_int_equal(ev->fd, 3);
	assert_string_equal(ev->fdpath, "/tmp/a.dat");
	assert_int_equal(ev->len, 4096);
	assert_int_equal(ev->offset, 8192);
	assert_int_equal(ev->dur_ns, 10000);
	ev = at_line(2);
	assert_int_equal(ev->call, SC_OPEN);
	assert_string_equal(ev->path, "/w/some/longer/name");
	assert_string_equal(ev->retpath, "/w/some/longer/name");
	assert_int_equal(ev->ret, 4);
	ev = at_line(5);
	assert_int_equal(ev->call, SC_WRITE);
	assert_int_equal(ev->len, 65536);
	assert_int_equal(ev->offset, 12345678);
	/* "write" is not the pending "read": a resume without its start */
	assert_string_equal(at_line(8)->name, "resumed-without-start");
	assert_string_equal(at_line(9)->name, "resumed-without-start");
}

/* The -tt clock: its "HH:MM:SS" read once while lines repeat it, the
 * microseconds every line; a line whose microseconds are not digits is
 * the general way's (and refused there) even after a second read before;
 * the next second, minute, hour and day.  The fds of reads: one or two
 * digits at once, others (three digits, a leading zero) the long way. */
static void test_clock_and_fds(void **state)
{
	(void)state;
	struct rerr e;
	const char *text =
		"7 10:00:00.000001 read(0</a>, \"x\", 1) = 1 <0.000001>\n"
		"7 10:00:00.000002 read(9</a>, \"x\", 1) = 1 <0.000001>\n"
		"7 10:00:00.999999 read(10</a>, \"x\", 1) = 1 <0.000001>\n"
		"7 10:00:01.000000 read(99</a>, \"x\", 1) = 1 <0.000001>\n"
		"7 10:01:01.000003 read(100</a>, \"x\", 1) = 1 <0.000001>\n"
		"7 10:01:01.000004 read(05</a>, \"x\", 1) = 1 <0.000001>\n"
		"7 10:01:01.000005 read(5, \"x\", 1) = 1 <0.000001>\n"
		"7 11:01:01.000006 read(12, \"x\", 1) = 1 <0.000001>\n"
		"7 23:59:59.999999 read(3, \"x\", 1) = 1 <0.000001>\n"
		"7 00:00:00.000001 read(3, \"x\", 1) = 1 <0.000001>\n"
		"7 00:00:00.000002 read(3, \"x\", 1) = 1 <0.000001>\n";
	assert_int_equal(parse_both(text, false, NULL), 0);
	assert_int_equal(nrec[0], 11);
	static const int64_t fds[] = { 0, 9, 10, 99, 100, 5, 5, 12, 3, 3, 3 };
	static const uint64_t us[] = { 1, 2, 999999, 1000000, 61000003, 61000004, 61000005,
				       3661000006ull, 50399999999ull, 50400000001ull,
				       50400000002ull };
	for (unsigned long i = 0; i < 11; i++) {
		assert_int_equal(at_line(i + 1)->fd, fds[i]);
		assert_int_equal(at_line(i + 1)->ts_ns, TS(0, 0) + us[i] * 1000);
	}
	static const char *const bad[] = {
		"7 10:00:00.000001 close(3) = 0\n7 10:00:00.00000x close(3) = 0\n",
		"7 10:00:00.000001 close(3) = 0\n7 10:00:00,000002 close(3) = 0\n",
		"7 10:00:00.000001 close(3) = 0\n7 10:00:00.0000 1 close(3) = 0\n",
		/* octal, as num() reads a leading zero: no 8 */
		"7 10:00:00.000001 close(3) = 0\n7 10:00:00.000002 read(08</a>, \"x\", 1) = 1\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse_both(bad[i], false, &e), -EINVAL);
		assert_non_null(strstr(e.msg, ":2:"));
		assert_int_equal(parse_both(bad[i], true, &e), 0);
		assert_int_equal(nrec[0], 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers_and_names),
		cmocka_unit_test(test_result_junk),
		cmocka_unit_test(test_unfinished_unknown),
		cmocka_unit_test(test_resumed_known),
		cmocka_unit_test(test_clock_and_fds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
