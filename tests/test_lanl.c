/*
 * test_lanl.c - LANL-Trace parser: line shapes, rank assignment, truncated
 * names, MPI async pairs, malformed input.  Events are checked as the
 * parser feeds them (fake_builder.h); the whole pipeline is covered by
 * tests/e2e/lanl_convert.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>

#include "fake_builder.h"

#define D TEST_DATA "/lanl"

static const struct sc_event *ev_at(size_t i)
{
	return i < fb_nrec ? &fb_recs[i].ev : NULL;
}

static void test_probe(void **st)
{
	(void)st;
	const char *lt = "10:59:47.092996 MPI_File_open(92, 0x80675c0, 37, 0x80675a8, 0xbfdfe5e4  <unfinished ...>\n"
			 "10:59:47.093718 SYS_statfs64(0x80675c0, 84, 0xbfdfe410, 0xbfdfe410, 0xbd3ff4)  = 0 <0.011131>\n";
	assert_int_equal(trace_lanl.probe(lt, strlen(lt)), 90);
	const char *ltf = "8539 21:23:25.188901 SYS_brk(0)                  = 0x558de96c9000 <0.000085>\n";
	assert_int_equal(trace_lanl.probe(ltf, strlen(ltf)), 90);
	const char *tm = "# timing\n7: host13.lanl.gov (10378) Entered barrier at 1159808385.170918\n";
	assert_int_equal(trace_lanl.probe(tm, strlen(tm)), 80);
	const char *st1 = "8468  21:23:21.435589 openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3 <0.000045>\n";
	assert_int_equal(trace_lanl.probe(st1, strlen(st1)), 0);
	const char *sn = "tracetype(ENTER)time:(1235106190)time:(4148)str(iwritev)fd(3)\n";
	assert_int_equal(trace_lanl.probe(sn, strlen(sn)), 0);
	assert_int_equal(trace_lanl.probe("", 0), 0);
}

/* N-to-N: timing file gives ranks (not in file-name order), truncated names
 * made distinct, MPI iwrite with nested pwrite64, MPIO_Wait, a run crossing
 * midnight, _llseek, split lines, irregular spacing, negative results. */
static void test_nton(void **st)
{
	(void)st;
	char *files[] = { D "/nton/host12.10377.trace", D "/nton/host13.10378.trace", D "/nton/timing" };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 3, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_nranks, 2);
	assert_int_equal(fb_ranks[0].pid, 10378);
	assert_string_equal(fb_ranks[0].name, "host13.10378");
	assert_int_equal(fb_ranks[1].pid, 10377);
	assert_string_equal(fb_ranks[1].name, "host12.10377");
	/* the timing file's hosts are kept (replay-mpi --placement hosts) */
	assert_string_equal(fb_ranks[0].host, "host13.lanl.gov");
	assert_string_equal(fb_ranks[1].host, "host12.lanl.gov");

	/* rank 0: two nested pwrite64 -> async submits, awaited by MPIO_Wait */
	const int64_t r0 = 10378, r1 = 10377;
	const struct sc_event *o = fb_nth(r0, SC_OPEN, 0);
	assert_non_null(o);
	assert_string_equal(o->path, "/scratch/mpi_io_test.out.000.rank0");
	assert_int_equal(o->path_flags, OPSP_TRUNCATED_NAME);
	assert_int_equal(o->flags, O_RDWR | O_CREAT);   /* 32834 minus i386 O_LARGEFILE */
	assert_int_equal(o->mode, 0600);
	assert_int_equal(o->ret, 3);
	assert_int_equal(fb_count(r0, SC_AWRITE), 2);
	assert_int_equal(fb_count(r0, SC_WRITE), 0);
	assert_int_equal(fb_bytes(r0, SC_AWRITE), 131072);
	const struct sc_event *w1 = fb_nth(r0, SC_AWRITE, 1);
	assert_int_equal(w1->offset, 65536);
	assert_int_equal(w1->fd, 3);
	const struct sc_event *a0 = fb_nth(r0, SC_AWAIT, 0), *a1 = fb_nth(r0, SC_AWAIT, 1);
	assert_non_null(a1);
	assert_int_equal(a0->async_id, fb_nth(r0, SC_AWRITE, 0)->async_id);
	assert_int_equal(a1->async_id, w1->async_id);
	assert_int_equal(a1->ret, 65536);
	assert_int_equal(fb_count(r0, SC_BARRIER), 1);
	assert_int_equal(fb_count(r0, SC_READ), 2);
	assert_int_equal(fb_bytes(r0, SC_READ), 131072);
	/* the split read keeps its start time and line */
	const struct sc_event *rd = fb_nth(r0, SC_READ, 0);
	assert_int_equal(rd->line, 19);
	assert_int_equal(rd->ts_ns, (23 * 3600 + 59 * 60 + 58) * 1000000000ull + 109300000ull);
	assert_int_equal(rd->dur_ns, 600000);
	assert_int_equal(fb_count(r0, SC_CLOSE), 1);
	assert_int_equal(fb_count(r0, SC_LSEEK), 1);
	/* statfs64, fcntl64, MPI_File_open, MPI_File_close */
	assert_int_equal(fb_count(r0, SC_SKIP), 4);

	/* rank 1: pid column, MPI_File_iwrite without nested syscall */
	o = fb_nth(r1, SC_OPEN, 0);
	assert_string_equal(o->path, "/scratch/mpi_io_test.out.000.rank1");
	assert_int_equal(o->flags, 66);
	const struct sc_event *aw = fb_nth(r1, SC_AWRITE, 0);
	assert_non_null(aw);
	assert_int_equal(aw->fd, 4);
	assert_int_equal(aw->len, 1024);   /* count x MPI_BYTE */
	assert_int_equal(aw->offset, SC_NOOFF);
	const struct sc_event *aa = fb_nth(r1, SC_AWAIT, 0);
	assert_int_equal(aa->async_id, aw->async_id);
	assert_true(aa->ret == SC_RET_UNKNOWN);
	/* after midnight: the clock keeps going */
	assert_true(aa->ts_ns == 86400100000000ull);
	const struct sc_event *ls = fb_nth(r1, SC_LSEEK, 0);
	assert_int_equal(ls->offset, 4096);
	assert_int_equal(ls->whence, 0);
	assert_true(ls->ret == SC_RET_UNKNOWN);   /* _llseek returns 0 */
	ls = fb_nth(r1, SC_LSEEK, 1);
	assert_int_equal(ls->offset, -1000);
	assert_int_equal(ls->whence, 1);
	assert_int_equal(ls->ret, 6096);
	const struct sc_event *wv = fb_nth(r1, SC_WRITE, 0);
	assert_int_equal(wv->len, 3000);
	assert_int_equal(wv->iovcnt, 3);
	const struct sc_event *bad = fb_nth(r1, SC_OPEN, 1);
	assert_string_equal(bad->path, "/scratch/missing");
	assert_int_equal(bad->ret, -2);
	assert_int_equal(bad->path_flags, 0);
	assert_int_equal(fb_nth(r1, SC_FTRUNCATE, 0)->len, 65536);
	assert_int_equal(fb_count(r1, SC_FSYNC), 1);
	assert_int_equal(fb_count(r1, -1), 12);
	/* time never goes backwards within a rank */
	uint64_t last = 0;
	for (size_t i = 0; i < fb_nrec; i++)
		if (ev_at(i)->pid == r1) {
			assert_true(ev_at(i)->ts_ns >= last);
			last = ev_at(i)->ts_ns;
		}
	assert_non_null(strstr(in.note, "2 opens of truncated names made distinct"));
	assert_null(strstr(in.note, "summary"));
	assert_int_equal(in.bad_lines, 0);
}

/* N-to-1 (traced -type 2): no timing file -> file-name order; the
 * truncated name is the shared file. */
static void test_nto1_no_timing(void **st)
{
	(void)st;
	char *files[] = { D "/nto1/node1.2001.trace", D "/nto1/node2.2002.trace" };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 2, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_nranks, 2);
	assert_string_equal(fb_ranks[0].name, "node1.2001");
	assert_string_equal(fb_ranks[1].name, "node2.2002");
	for (int r = 0; r < 2; r++) {
		int64_t pid = 2001 + r;
		const struct sc_event *o = fb_nth(pid, SC_OPEN, 0);
		assert_string_equal(o->path, "/scratch/mpi_io_test.out.shared");
		assert_int_equal(o->path_flags, 0);
		assert_int_equal(fb_bytes(pid, SC_WRITE), 131072);
		assert_int_equal(fb_bytes(pid, SC_READ), 131072);
		assert_int_equal(fb_count(pid, SC_BARRIER), 1);
	}
	assert_int_equal(fb_nth(2002, SC_LSEEK, 0)->offset, 131072);
	assert_non_null(strstr(in.note, "no LANL timing file: ranks numbered in file-name order"));
	assert_non_null(strstr(in.note, "N-to-1"));
}

/* The same N-to-N shape without the -type line: truncated names of two
 * ranks must not merge. */
static void test_truncated_collision(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	assert_non_null(dir);
	const char *body = "10:00:00.000001 SYS_open(\"/scratch/mpi_io_test.out.00\"..., 66, 0600) = 3 <0.000010>\n"
			   "10:00:00.000002 SYS_write(3, \"aaaa\"..., 4096) = 4096 <0.000010>\n"
			   "10:00:00.000003 SYS_open(\"/scratch/short\", 0, 0) = 4 <0.000010>\n";
	char *files[] = { fb_write(dir, "a.100.trace", body), fb_write(dir, "b.200.trace", body) };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 2, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	const struct sc_event *o1 = fb_nth(100, SC_OPEN, 0), *o2 = fb_nth(200, SC_OPEN, 0);
	assert_non_null(o1);
	assert_non_null(o2);
	assert_string_not_equal(o1->path, o2->path);
	assert_string_equal(o2->path, "/scratch/mpi_io_test.out.00.rank1");
	/* untruncated names stay as they are (and may be shared) */
	assert_string_equal(fb_nth(100, SC_OPEN, 1)->path, fb_nth(200, SC_OPEN, 1)->path);
	assert_non_null(strstr(in.note, "2 opens of truncated names"));
	/* strings printed with the dots inside the quotes count as truncated too */
	free(files[0]);
	files[0] = fb_write(dir, "a.100.trace",
			    "10:00:00.000001 SYS_open(\"/scratch/mpi_io_test.out.00...\", 66, 0600) = 3 <0.000010>\n");
	rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
	assert_int_equal(rc, 0);
	assert_string_equal(fb_recs[0].ev.path, "/scratch/mpi_io_test.out.00.rank0");
	/* no -type line: an open inside MPI_File_open on MPI_COMM_WORLD (MPICH-1
	 * 91, MPICH-2 0x44000000) is the shared file; on MPI_COMM_SELF (92) it
	 * is per rank */
	static const struct {
		const char *comm;
		bool shared;
	} cm[] = { { "91", true }, { "0x44000000", true }, { "92", false }, { "0x44000001", false } };
	for (size_t i = 0; i < sizeof(cm) / sizeof(cm[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text),
			 "10:00:00.000001 MPI_File_open(%s, 0x80675c0, 37, 0x80675a8, 0xbfdfe5e4 <unfinished ...>\n"
			 "10:00:00.000002 SYS_open(\"/scratch/mpi_io_test.out.00\"..., 66, 0600) = 3 <0.000010>\n"
			 "10:00:00.000003 <... MPI_File_open resumed> ) = 0 <0.000010>\n", cm[i].comm);
		free(files[0]);
		free(files[1]);
		files[0] = fb_write(dir, "a.100.trace", text);
		files[1] = fb_write(dir, "b.200.trace", text);
		rc = fb_parse(&trace_lanl, files, 2, false, &in, &e);
		if (rc)
			fail_msg("parse: %s", e.msg);
		o1 = fb_nth(100, SC_OPEN, 0);
		o2 = fb_nth(200, SC_OPEN, 0);
		if (cm[i].shared) {
			assert_string_equal(o1->path, "/scratch/mpi_io_test.out.00");
			assert_string_equal(o2->path, "/scratch/mpi_io_test.out.00");
			assert_int_equal(o1->path_flags, 0);
			assert_non_null(strstr(in.note, "2 opens of truncated names kept shared (MPI_File_open on MPI_COMM_WORLD)"));
		} else {
			assert_string_equal(o2->path, "/scratch/mpi_io_test.out.00.rank1");
			assert_int_equal(o2->path_flags, OPSP_TRUNCATED_NAME);
		}
	}
	free(files[0]);
	free(files[1]);
	fb_rmdir(dir);
}

static void test_missing_timing_rank(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	char *files[] = {
		fb_write(dir, "timing", "0: host1.x (111) Entered barrier at 1.5\n"),
		fb_write(dir, "host2.222.trace", "10:00:00.000001 SYS_close(3) = 0 <0.000010>\n"),
	};
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 2, false, &in, &e);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(e.msg, "cannot match"));
	assert_non_null(strstr(e.msg, "host2.222.trace"));
	/* a timing file alone */
	rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(e.msg, "found only barrier lines"));
	/* a file without any LANL-Trace line is not a rank */
	char *rd = fb_write(dir, "README", "LANL MPI_IO_TEST traces, 2006\n\nsee timing\n");
	char *three[] = { rd, files[1], files[0] };
	rc = fb_parse(&trace_lanl, three, 3, false, &in, &e);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(e.msg, "cannot match"));
	rc = fb_parse(&trace_lanl, three, 1, false, &in, &e);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(e.msg, "README:1: expected a time"));
	char *two[] = { rd, files[0] };
	rc = fb_parse(&trace_lanl, two, 2, false, &in, &e);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(e.msg, "README' and the other files: expected LANL-Trace call lines"));
	free(rd);
	/* the rank of a file from its pid column */
	free(files[1]);
	files[1] = fb_write(dir, "trace-b", "111 10:00:00.000001 SYS_close(3) = 0 <0.000010>\n");
	rc = fb_parse(&trace_lanl, files, 2, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_string_equal(fb_ranks[0].name, "host1.111");
	assert_int_equal(fb_count(111, SC_CLOSE), 1);
	rd = fb_write(dir, "README", "notes\n");
	char *withreadme[] = { rd, files[1], files[0] };
	rc = fb_parse(&trace_lanl, withreadme, 3, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_nranks, 1);
	assert_non_null(strstr(in.note, "1 files without LANL-Trace lines ignored"));
	free(rd);
	free(files[0]);
	free(files[1]);
	fb_rmdir(dir);

	/* no timing file: in-file barrier lines name host13's rank, host12
	 * (none) takes the next free rank */
	char *nt[] = { D "/nton/host12.10377.trace", D "/nton/host13.10378.trace" };
	rc = fb_parse(&trace_lanl, nt, 2, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_nranks, 2);
	assert_string_equal(fb_ranks[0].name, "host13.10378");
	assert_string_equal(fb_ranks[1].name, "host12.10377");
	assert_non_null(strstr(in.note, "1 trace files without barrier lines numbered in file-name order"));
}

/* A timing file listing more ranks than the rank files given (one left
 * out, by mistake or on purpose): read, the missing ranks recorded as the
 * timing file lists them, for the warning every command prints; all the
 * files given: nothing recorded. */
static void test_timing_ranks_missing(void **st)
{
	(void)st;
	char *files[] = { D "/nton/host12.10377.trace", D "/nton/timing" };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 2, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_nranks, 1);
	assert_string_equal(fb_ranks[0].name, "host12.10377");
	if (!strstr(fb_info, "lanl_timing_file=" D "/nton/timing\nlanl_timing_ranks=2\n"
		    "lanl_ranks_missing=1\nlanl_missing=rank 0 (host13.lanl.gov, pid 10378)\n"))
		fail_msg("info: %s", fb_info);
	char *all[] = { D "/nton/host12.10377.trace", D "/nton/host13.10378.trace", D "/nton/timing" };
	rc = fb_parse(&trace_lanl, all, 3, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_null(strstr(fb_info, "lanl_"));
	/* many missing: the first ones named, the others counted */
	char *dir = fb_tmpdir(), t[16384];
	size_t n = 0;
	for (int r = 0; r < 40; r++)
		n += (size_t)snprintf(t + n, sizeof(t) - n,
				      "%d: node%02d.example.org (%d) Entered barrier at 1.5\n", r, r, 5000 + r);
	char *some[] = { fb_write(dir, "timing", t),
			 fb_write(dir, "node07.example.org.5007.trace",
				  "10:00:00.000001 SYS_close(3) = 0 <0.000010>\n") };
	rc = fb_parse(&trace_lanl, some, 2, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_non_null(strstr(fb_info, "lanl_timing_ranks=40\nlanl_ranks_missing=39\n"
			       "lanl_missing=rank 0 (node00.example.org, pid 5000), rank 1 ("));
	assert_null(strstr(fb_info, "rank 7 ("));
	assert_non_null(strstr(fb_info, " more\n"));
	free(some[0]);
	free(some[1]);
	fb_rmdir(dir);
}

/* i386 raw arguments: hex halves of 64-bit offsets, AT_FDCWD and -errno
 * printed unsigned */
static void test_raw_i386(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	char *f = fb_write(dir, "r.5.trace",
			   "10:00:00.000001 SYS_openat(0xffffff9c, \"/d/f\", 0x8042, 0644) = 3 <0.000010>\n"
			   "10:00:00.000002 SYS_pread64(3, 0xb7d5e008, 4096, 0xfffff000, 0) = 4096 <0.000010>\n"
			   "10:00:00.000003 SYS_pwrite64(3, 0xb7d5e008, 4096, 0, 1) = 4096 <0.000010>\n"
			   "10:00:00.000004 SYS_ftruncate64(3, 0, 2) = 0 <0.000010>\n"
			   "10:00:00.000005 SYS_open(\"/d/none\", 0, 0) = 0xfffffffe <0.000010>\n"
			   "10:00:00.000006 SYS__llseek(3, 1, 0x10, 0xbfdfe400, 1) = 0 <0.000010>\n");
	char *files[] = { f };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	const struct sc_event *o = fb_nth(5, SC_OPEN, 0);
	assert_int_equal(o->dirfd, SC_AT_FDCWD);
	assert_int_equal(o->flags, O_RDWR | O_CREAT);
	assert_int_equal(fb_nth(5, SC_READ, 0)->offset, 0xfffff000LL);
	assert_int_equal(fb_nth(5, SC_WRITE, 0)->offset, 1LL << 32);
	assert_int_equal(fb_nth(5, SC_FTRUNCATE, 0)->len, 2ULL << 32);
	assert_int_equal(fb_nth(5, SC_OPEN, 1)->ret, -2);
	const struct sc_event *ls = fb_nth(5, SC_LSEEK, 0);
	assert_int_equal(ls->offset, (1LL << 32) + 16);
	assert_int_equal(ls->whence, 1);
	free(f);
	f = files[0] = fb_write(dir, "r.6.trace",
				"10:00:00.000001 SYS_lseek(3, -9223372036854775808, 1) = -22 <0.000010>\n");
	rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_true(fb_nth(6, SC_LSEEK, 0)->offset == INT64_MIN);
	free(f);
	fb_rmdir(dir);
}

/* Argument text the scanners must walk exactly: quoted commas, parens and
 * brackets, escaped quotes, "<unfinished ...>" inside a string, nested
 * braces, blanks around arguments, numbers in hex, octal and decimal, a
 * clock that is not "HH:MM:SS.uuuuuu" (-ttt epoch seconds). */
static void test_argument_scan(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	char *f = fb_parse_text(&trace_lanl, dir, "a.7.trace",
				"10:00:00.000001 SYS_open(\"/d/a,b)(c]\\\"<unfinished ...>\", 0102, 0644) = 3 <0.000010>\n"
				"10:00:00.000002 SYS_write(3, \"x, y)\"..., 4096) = 4096 <0.000010>\n"
				"10:00:00.000003 SYS_pwrite64( 3 , {a, (b, c)}, 0x1000 ,  8192 ) = 4096 <0.000010>\n"
				"10:00:00.000004 SYS_lseek(3, 010, 0) = 8 <0.000010>\n"
				"1000000000.000005 SYS_read(3, \"'\\\\\", 7) = 7 <0.000010>\n");
	const struct sc_event *o = fb_nth(7, SC_OPEN, 0);
	assert_string_equal(o->path, "/d/a,b)(c]\"<unfinished ...>");
	assert_int_equal(o->flags, 0102);
	assert_int_equal(o->mode, 0644);
	assert_int_equal(o->ts_ns, 36000000001000ull);
	assert_int_equal(fb_nth(7, SC_WRITE, 0)->len, 4096);
	const struct sc_event *w = fb_nth(7, SC_WRITE, 1);
	assert_int_equal(w->fd, 3);
	assert_int_equal(w->len, 0x1000);
	assert_int_equal(w->offset, 8192);
	assert_int_equal(fb_nth(7, SC_LSEEK, 0)->offset, 8);
	const struct sc_event *r = fb_nth(7, SC_READ, 0);
	assert_int_equal(r->len, 7);
	assert_true(r->ts_ns == 1000000000000005000ull);
	free(f);
	fb_rmdir(dir);
}

static void test_bad_lines(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	char *f = fb_write(dir, "x.1.trace",
			   "10:00:00.000001 SYS_close(3) = 0 <0.000010>\n"
			   "# a comment\n"
			   "10:00:0x.000002 SYS_close(4) = 0 <0.000010>\n"
			   "10:00:00.000003 SYS_close(5 = 0 <0.000010>\n"
			   "10:00:00.000004 <... SYS_write resumed> ) = 5 <0.000010>\n"
			   "10:00:00.000005 SYS_write(5, \"a)b\", 3) = 3 <0.000010>\n"
			   "10:00:00.000006 SYS_lseek(5) = 0 <0.000010>\n"
			   "10:00:00.000007 SYS_close(6) 0\n");
	char *files[] = { f };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(e.msg, "x.1.trace:3: expected a time 'HH:MM:SS.uuuuuu'"));
	rc = fb_parse(&trace_lanl, files, 1, true, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(in.bad_lines, 5);
	assert_non_null(strstr(in.first_bad, ":3: expected a time"));
	assert_int_equal(fb_count(1, SC_CLOSE), 1);
	/* the quoted ')' did not end the argument list */
	assert_int_equal(fb_nth(1, SC_WRITE, 0)->len, 3);
	assert_int_equal(in.lines, 8);

	/* each malformed shape alone, with its message */
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{ "10:00:00.000003 SYS_close(5 = 0 <0.000010>\n", "expected ')' closing the argument list" },
		{ "10:00:00.000004 <... SYS_write resumed> ) = 5 <0.000010>\n", "without a matching" },
		{ "10:00:00.000006 SYS_lseek(5) = 0 <0.000010>\n", "expected the arguments of SYS_lseek" },
		{ "10:00:00.000007 SYS_close(6) 0\n", "expected '=' after ')'" },
		{ "10:00:00.000007 SYS_close(6) = 0 <abc>\n", "expected '<SECS>'" },
		{ "25:00:00.000007 SYS_close(6) = 0\n", "expected a time" },
		{ "10:00:00.000007 = 0\n", "expected 'NAME('" },
		/* numbers at the int64 edges, negative offsets (issue 15) */
		{ "10:00:00.000007 SYS_lseek(5, -9223372036854775809, 0) = 0 <0.000010>\n",
		  "expected the arguments of SYS_lseek" },
		{ "10:00:00.000007 SYS_lseek(5, 9223372036854775808, 0) = 0 <0.000010>\n",
		  "expected the arguments of SYS_lseek" },
		{ "10:00:00.000007 SYS_pwrite(5, 0xb7d5e008, 4096, -5) = 4096 <0.000010>\n",
		  "expected the arguments of SYS_pwrite" },
		{ "10:00:00.000007 SYS_read(5, 0xb7d5e008, -1) = 10 <0.000010>\n",
		  "expected the arguments of SYS_read" },
		/* LANL-Trace runs ltrace -T: a finished call without its
		 * duration is a damaged line (audit D, F4) */
		{ "10:00:00.000007 SYS_lseek(3, 4096, 0) = 4096\n", "expected '<SECS>'" },
		{ "10:00:00.000007 SYS_close(6) = 0 \n", "expected '<SECS>'" },
		/* more bytes than asked for: impossible (F5) */
		{ "10:00:00.000007 SYS_write(3, \"a\"..., 5) = 50000 <0.000009>\n",
		  "SYS_write returned 50000, more than the 5 bytes" },
		{ "10:00:00.000007 SYS_pread64(3, 0xb7d5e008, 10, 0) = 11 <0.000009>\n",
		  "SYS_pread64 returned 11, more than the 10 bytes" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		free(f);
		f = files[0] = fb_write(dir, "y.2.trace", cases[i].line);
		rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
		assert_int_equal(rc, -EINVAL);
		if (!strstr(e.msg, cases[i].msg) || !strstr(e.msg, "y.2.trace:1: "))
			fail_msg("case %zu: got '%s', want '%s'", i, e.msg, cases[i].msg);
	}
	free(f);
	fb_rmdir(dir);
}

/* A rank killed mid-call: its file ends in "<unfinished ...>".  The call
 * is counted as skipped.unfinished:NAME (as strace's reader does) and
 * its FILE:LINE kept for the warning, never dropped silently (audit D,
 * F3). */
static void test_unfinished_at_end(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	char *f = fb_write(dir, "u.7.trace",
			   "10:00:00.000001 SYS_open(\"/d/f\", 66, 0644) = 3 <0.000010>\n"
			   "10:00:00.000002 SYS_write(3, \"a\"..., 5) = 5 <0.000010>\n"
			   "10:00:00.000003 SYS_write(3, \"a\"..., 5 <unfinished ...>\n");
	char *files[] = { f };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_count(7, SC_WRITE), 1);
	assert_int_equal(in.unfinished, 1);
	assert_non_null(strstr(in.first_unfinished, "u.7.trace:3 (SYS_write)"));
	const struct sc_event *sk = NULL;
	for (size_t k = 0; (sk = fb_nth(7, SC_SKIP, k)); k++)
		if (!strcmp(sk->name, "unfinished:SYS_write"))
			break;
	assert_non_null(sk);
	assert_int_equal(sk->line, 3);
	free(f);
	fb_rmdir(dir);
}

/* A README beside the rank files: left out, and named (F2). */
static void test_readme_named(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	char *r = fb_write(dir, "README", "These traces were taken on 2006-10-02\n");
	char *f = fb_write(dir, "h.8.trace", "10:00:00.000001 SYS_close(3) = 0 <0.000010>\n");
	char *files[] = { r, f };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 2, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(in.skipped_files, 1);
	assert_non_null(strstr(in.skipped_names, "README"));
	assert_int_equal(fb_count(8, SC_CLOSE), 1);
	free(r);
	free(f);
	fb_rmdir(dir);
}

static void test_summary_crosscheck(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	char *f = fb_write(dir, "s.1.trace",
			   "10:00:00.000001 SYS_close(3) = 0 <0.000010>\n"
			   "# SUMMARY COUNT OF TRACED CALL(S)\n"
			   "# Function Name Number of Calls Total time (s)\n"
			   " SYS_close 2 0.000020\n"
			   "10:00:00.000001 not a call after the summary\n");
	char *files[] = { f };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_nrec, 1);
	assert_non_null(strstr(in.note, "summary counts SYS_close 2, parsed 1"));
	free(f);
	fb_rmdir(dir);
}

/* Real ltrace -S -tt -T -f output (x86_64, formats/samples): three pids
 * with interleaved <unfinished>/<resumed>; SYS_openat prints its path as an
 * address, the enclosing libc open() names it.  Expected byte sums come
 * from awk over the sample:  SYS_(write|pwrite|writev) results per pid. */
static void test_ltrace_sample(void **st)
{
	(void)st;
	char *files[] = { D "/ltrace_S_tt_T_f.txt" };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_nranks, 1);
	assert_int_equal(fb_ranks[0].pid, 8539);
	static const struct {
		int64_t pid;
		int64_t wr, rd;
		size_t opens;
	} want[] = { { 8539, 70956, 11404, 5 }, { 8540, 70956, 9004, 3 }, { 8541, 70956, 9004, 3 } };
	for (size_t k = 0; k < 3; k++) {
		int64_t w = 0, r = 0;
		for (size_t i = 0; i < fb_nrec; i++) {
			const struct sc_event *ev = &fb_recs[i].ev;
			if (ev->pid != want[k].pid)
				continue;
			if (ev->call == SC_WRITE)
				w += ev->ret;
			if (ev->call == SC_READ)
				r += ev->ret;
		}
		assert_int_equal(w, want[k].wr);
		assert_int_equal(r, want[k].rd);
		assert_int_equal(fb_count(want[k].pid, SC_OPEN), want[k].opens);
	}
	/* the path of a SYS_openat comes from the libc open() around it */
	const struct sc_event *o = fb_nth(8540, SC_OPEN, 0);
	assert_non_null(o->path);
	assert_string_equal(o->path, "/tmp/fmtprobe/child.dat");
	assert_int_equal(o->flags, 577);
	assert_int_equal(o->ret, 3);
	const struct sc_event *c = fb_nth(8539, SC_CLONE, 0);
	assert_non_null(c);
	assert_int_equal(c->ret, 8540);
	assert_int_equal(in.bad_lines, 0);
}

static unsigned split_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

/* A "..." argument of random bytes (commas, brackets, quotes, escapes). */
static void split_quoted(char *out, size_t cap, unsigned *seed)
{
	static const char alpha[] = "ab,()[]{}<>' x.";
	size_t o = 0, n = split_rand(seed) % 41;
	out[o++] = '"';
	for (size_t i = 0; i < n && o + 4 < cap; i++) {
		unsigned r = split_rand(seed) % 20;
		if (r == 0) {
			out[o++] = '\\';
			out[o++] = '"';
		} else if (r == 1) {
			out[o++] = '\\';
			out[o++] = '\\';
		} else {
			out[o++] = alpha[split_rand(seed) % (sizeof(alpha) - 1)];
		}
	}
	out[o++] = '"';
	if (split_rand(seed) % 3 == 0 && o + 4 < cap)
		memcpy(out + o, "...", 3), o += 3;
	out[o] = '\0';
}

/* A whole call line has its arguments split as they are scanned (16 bytes
 * at a time with SSE2); a call resumed after <unfinished ...> has them
 * split by split_padded from the pending copy.  Both must give the same
 * events for any argument list: random lists of numbers, blanks, quoted
 * strings (escapes, commas and brackets inside, across 16-byte windows),
 * nested brackets, empty arguments. */
static void test_split_scan_agrees(void **st)
{
	(void)st;
	static const char *const names[] = { "SYS_pwrite64", "SYS_lseek", "SYS__llseek", "SYS_open", "SYS_read",
					     "SYS_ftruncate64", "SYS_rename", "SYS_writev", "SYS_dup2", "SYS_mkdir",
					     "SYS_openat", "MPIO_Wait" };
	static const char *const pieces[] = { "3", " 4", "5 ", "\t6\t", "0x1000", "010", "-1", "+7", "", " ",
					      "{1, 2}", "(a, [b, c])", "[1,2]", "'q,)'", "0xffffff9c", "-0",
					      "1234567890123456", "12345678901234567", "99999999999999999999",
					      "<x>", "a b", "0", "65536", "2097152", "17330864128" };
	char *dir = fb_tmpdir();
	unsigned seed = 2026;
	for (int it = 0; it < 600; it++) {
		char args[1024] = "", q[128];
		int n = (int)(split_rand(&seed) % 11);
		for (int i = 0; i < n; i++) {
			if (i)
				strcat(args, split_rand(&seed) % 4 ? ", " : ",");
			if (split_rand(&seed) % 4 == 0) {
				split_quoted(q, sizeof(q), &seed);
				strcat(args, q);
			} else {
				strcat(args, pieces[split_rand(&seed) % (sizeof(pieces) / sizeof(pieces[0]))]);
			}
		}
		const char *nm = names[split_rand(&seed) % (sizeof(names) / sizeof(names[0]))];
		char text[4096];
		snprintf(text, sizeof(text),
			 "10:00:00.000001 %s(%s) = 5 <0.000010>\n"
			 "10:00:00.000002 %s(%s <unfinished ...>\n"
			 "10:00:00.000003 <... %s resumed> ) = 5 <0.000010>\n", nm, args, nm, args, nm);
		char *f = fb_write(dir, "r.3.trace", text);
		char *files[] = { f };
		struct trace_input in;
		struct rerr e;
		int rc = fb_parse(&trace_lanl, files, 1, true, &in, &e);
		if (rc)
			fail_msg("parse '%s': %s", text, e.msg);
		if (in.bad_lines != 0 && in.bad_lines != 2)
			fail_msg("'%s': %lu bad lines", text, (unsigned long)in.bad_lines);
		if (fb_nrec % 2)
			fail_msg("'%s': %zu events", text, fb_nrec);
		size_t h = fb_nrec / 2;
		for (size_t i = 0; i < h; i++) {
			const struct sc_event *a = &fb_recs[i].ev, *b = &fb_recs[h + i].ev;
			if (a->call != b->call || a->fd != b->fd || a->fd2 != b->fd2 || a->offset != b->offset ||
			    a->len != b->len || a->ret != b->ret || a->flags != b->flags || a->mode != b->mode ||
			    a->whence != b->whence || a->iovcnt != b->iovcnt || a->dirfd != b->dirfd ||
			    strcmp(a->name, b->name) || !a->path != !b->path ||
			    (a->path && strcmp(a->path, b->path)) || !a->path2 != !b->path2 ||
			    (a->path2 && strcmp(a->path2, b->path2)))
				fail_msg("'%s': event %zu differs", text, i);
		}
		free(f);
	}
	fb_rmdir(dir);
}

/* The readings taken at once and their neighbours that must fall back to
 * the general ones, with the events and counts both give:
 * - " N" / "N" arguments trimmed at once, other blanks around them (a
 *   '\v', '\f' too) the long way;
 * - ")  = R <S>" (a resumed call's spacing) read at once, ")   = R" not;
 * - a name seen before, up to the first '(' within 32 bytes, found with
 *   its count entry at once; a longer one, or one with a blank before its
 *   '(', walked;
 * - the arguments of a call only counted (SYS_fcntl64, MPI_Barrier) not
 *   split once its name is known, those of one read (MPIO_Wait, SYS_lseek)
 *   still split, an unclosed list still rejected;
 * - a resumed call with nothing after "resumed>" reads its start's copy,
 *   one with arguments there the joined text;
 * - a clock in the second of the line before has only ".uuuuuu" read
 *   (and checked: a bad one is still a bad time), one in another second
 *   all of it; one blank after it taken at once, two walked;
 * - an argument list ending in a byte above ' ' kept whole, one ending in
 *   blanks cut (as an error message shows it). */
static void test_fast_paths(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	const char *text =
		"10:00:00.000001 SYS_open(\"/d/f\", 66, 0600) = 3 <0.000010>\n"
		"10:00:00.000002 SYS_lseek(3, 4096, 0)  = 4096 <0.000020>\n"
		"10:00:00.000003 SYS_lseek(3,\t8192 ,  1)   = 12288 <0.000030>\n"
		"10:00:00.000004 SYS_fcntl64(3, 2, 1, 0, 0xbd3ff4) = 0 <0.000010>\n"
		"10:00:00.000005 SYS_fcntl64(3, \"a)b,<unfinished ...>\", {1, (2)}) = 0 <0.000010>\n"
		"10:00:00.000006 SYS_fcntl64(3, \"x) = 0 <0.000010>\n"
		"10:00:00.000007 SYS_fcntl64 (3) = 0 <0.000010>\n"
		"10:00:00.000008 MPI_Barrier(0x44000000) = 0 <0.000010>\n"
		"10:00:00.000009 MPI_Barrier(0x44000000) = 0 <0.000010>\n"
		"10:00:00.000010 MPI_File_write_at(0xbfdfe5e4, 0, 0x9a3c008, 16, 0x44000004, 0xbfdfe4f0 <unfinished ...>\n"
		"10:00:00.000011 SYS_pwrite64(3, \"aaaa\"..., 16, 0) = 16 <0.000010>\n"
		"10:00:00.000012 <... MPI_File_write_at resumed> )  = 0 <0.000040>\n"
		"10:00:00.000013 MPI_File_write_at(0xbfdfe5e4, 16, 0x9a3c008, 16, 0x44000004, 0xbfdfe4f0 <unfinished ...>\n"
		"10:00:00.000014 SYS_pwrite64(3, \"aaaa\"..., 16, 16) = 16 <0.000010>\n"
		"10:00:00.000015 <... MPI_File_write_at resumed> )  = 0 <0.000010>\n"
		"10:00:00.000016 MPI_File_iwrite_at(0xbfdfe5e4, 32, 0x9a3c008, 16, 0x44000004, 0xbfdfe4ec <unfinished ...>\n"
		"10:00:00.000017 SYS_pwrite64(3, \"aaaa\"..., 16, 32) = 16 <0.000010>\n"
		"10:00:00.000018 <... MPI_File_iwrite_at resumed> )  = 0 <0.000010>\n"
		"10:00:00.000019 MPIO_Wait(0xbfdfe4ec, 0xbfdfe4d0) = 0 <0.000010>\n"
		"10:00:00.000020 MPI_File_iwrite_at(0xbfdfe5e4, 48, 0x9a3c008, 16, 0x44000004, 0xbfdfe4e8 <unfinished ...>\n"
		"10:00:00.000021 SYS_pwrite64(3, \"aaaa\"..., 16, 48) = 16 <0.000010>\n"
		"10:00:00.000022 <... MPI_File_iwrite_at resumed> )  = 0 <0.000010>\n"
		"10:00:00.000023 MPIO_Wait(0xbfdfe4e8, 0xbfdfe4d0) = 0 <0.000010>\n"
		"10:00:00.000024 SYS_pwrite64(3, 0x9a3c008, 32 <unfinished ...>\n"
		"10:00:00.000025 <... SYS_pwrite64 resumed> 64) = 32 <0.000010>\n"
		"10:00:00.000026 SYS_pwrite64(3, 0x9a3c008, 32, 96 <unfinished ...>\n"
		"10:00:00.000027 <... SYS_pwrite64 resumed> ) = 32 <0.000010>\n"
		"10:00:00.000028 MPI_Type_get_envelope_and_contents_x(1, 2) = 0 <0.000010>\n"
		"10:00:00.000029 MPI_Type_get_envelope_and_contents_x(1, 2) = 0 <0.000010>\n"
		"10:00:00.000030 SYS_openat(0xffffff9c, \"/d/g\", 0, 0) = 4 <0.000010>\n"
		"10:00:00.000031 SYS_openat(0xffffff9c,\v\"/d/h\"\f, 0, 0) = 5 <0.000010>\n"
		"10:00:00.000032 SYS_lseek(4, 16384\f, 0) = 16384 <0.000010>\n"
		"10:00:00.000033 SYS_openat(0xffffff9c,\t\"/d/i\", 0, 0) = 6 <0.000010>\n"
		"10:00:00.0000x4 SYS_lseek(4, 1, 0) = 1 <0.000010>\n"
		"10:00:00,000035 SYS_lseek(4, 2, 0) = 2 <0.000010>\n"
		"10:00:01.000036 SYS_lseek(4, 3, 0) = 3 <0.000010>\n"
		"10:00:01.000037 SYS_lseek(4, 4, 0) = 4 <0.000010>\n"
		"10:00:01.000038  SYS_lseek(4, 5, 0) = 5 <0.000010>\n"
		"10:00:01.000039\tSYS_lseek(4, 6, 0) = 6 <0.000010>\n"
		"# SUMMARY COUNT OF TRACED CALL(S)\n"
		" SYS_lseek 7 0.1\n"
		" SYS_openat 3 0.1\n"
		" SYS_fcntl64 2 0.1\n"
		" MPI_Barrier 2 0.1\n"
		" MPI_File_write_at 2 0.1\n"
		" MPI_File_iwrite_at 2 0.1\n"
		" MPIO_Wait 2 0.1\n"
		" SYS_pwrite64 6 0.1\n"
		" MPI_Type_get_envelope_and_contents_x 2 0.1\n";
	char *f = fb_write(dir, "p.9.trace", text);
	char *files[] = { f };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
	assert_int_equal(rc, -EINVAL);
	if (!strstr(e.msg, "p.9.trace:6: expected ')' closing the argument list"))
		fail_msg("got '%s'", e.msg);
	rc = fb_parse(&trace_lanl, files, 1, true, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(in.bad_lines, 4);
	/* every call counted as the summary says: no note of a difference */
	assert_null(strstr(in.note, "summary"));
	const struct sc_event *ls = fb_nth(9, SC_LSEEK, 0);
	assert_int_equal(ls->offset, 4096);
	assert_int_equal(ls->ret, 4096);
	assert_int_equal(ls->dur_ns, 20000);
	ls = fb_nth(9, SC_LSEEK, 1);
	assert_int_equal(ls->offset, 8192);
	assert_int_equal(ls->whence, 1);
	assert_int_equal(ls->ret, 12288);
	assert_int_equal(ls->dur_ns, 30000);
	/* fcntl64 x2, MPI_File_write_at x2, MPI_Type_... x2 */
	assert_int_equal(fb_count(9, SC_SKIP), 6);
	assert_string_equal(fb_nth(9, SC_SKIP, 1)->name, "SYS_fcntl64");
	assert_int_equal(fb_count(9, SC_BARRIER), 2);
	assert_int_equal(fb_count(9, SC_WRITE), 4);
	assert_int_equal(fb_count(9, SC_AWRITE), 2);
	assert_int_equal(fb_count(9, SC_AWAIT), 2);
	assert_int_equal(fb_nth(9, SC_AWAIT, 1)->async_id, fb_nth(9, SC_AWRITE, 1)->async_id);
	assert_int_equal(fb_nth(9, SC_AWAIT, 1)->ret, 16);
	/* the resumed pwrite64 with its offset after "resumed>", and without */
	const struct sc_event *w = fb_nth(9, SC_WRITE, 2);
	assert_int_equal(w->offset, 64);
	assert_int_equal(w->len, 32);
	assert_int_equal(w->ts_ns, 36000000024000ull);
	w = fb_nth(9, SC_WRITE, 3);
	assert_int_equal(w->offset, 96);
	assert_int_equal(w->len, 32);
	assert_non_null(strstr(in.first_bad, ":6: expected ')' closing the argument list"));
	assert_string_equal(fb_nth(9, SC_OPEN, 1)->path, "/d/g");
	assert_string_equal(fb_nth(9, SC_OPEN, 2)->path, "/d/h");
	assert_string_equal(fb_nth(9, SC_OPEN, 3)->path, "/d/i");
	assert_int_equal(fb_nth(9, SC_LSEEK, 2)->offset, 16384);
	assert_int_equal(fb_nth(9, SC_LSEEK, 2)->ts_ns, 36000000032000ull);
	assert_int_equal(fb_nth(9, SC_LSEEK, 3)->offset, 3);
	assert_int_equal(fb_nth(9, SC_LSEEK, 3)->ts_ns, 36001000036000ull);
	assert_int_equal(fb_nth(9, SC_LSEEK, 4)->ts_ns, 36001000037000ull);
	assert_int_equal(fb_nth(9, SC_LSEEK, 5)->offset, 5);
	assert_int_equal(fb_nth(9, SC_LSEEK, 5)->ts_ns, 36001000038000ull);
	assert_int_equal(fb_nth(9, SC_LSEEK, 6)->offset, 6);
	assert_int_equal(fb_count(9, SC_LSEEK), 7);
	free(f);
	/* a wrong summary count still shows what was parsed */
	f = files[0] = fb_write(dir, "p.9.trace",
				"10:00:00.000001 SYS_fcntl64(3, 2) = 0 <0.000010>\n"
				"10:00:00.000002 SYS_fcntl64(3, 2) = 0 <0.000010>\n"
				"10:00:00.000003 SYS_fcntl64(3, 2) = 0 <0.000010>\n"
				"# SUMMARY COUNT OF TRACED CALL(S)\n"
				" SYS_fcntl64 2 0.1\n");
	rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_non_null(strstr(in.note, "summary counts SYS_fcntl64 2, parsed 3"));
	free(f);
	static const char *const lists[][2] = {
		{ "10:00:00.000001 SYS_lseek(5 \t) = 0 <0.000010>\n", "in 'SYS_lseek(5)'" },
		{ "10:00:00.000001 SYS_lseek(5\v) = 0 <0.000010>\n", "in 'SYS_lseek(5)'" },
		{ "10:00:00.000001 SYS_lseek(5 ,x) = 0 <0.000010>\n", "in 'SYS_lseek(5 ,x)'" },
		{ "10:00:00.000001 SYS_lseek( ) = 0 <0.000010>\n", "in 'SYS_lseek()'" },
	};
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		f = files[0] = fb_write(dir, "p.9.trace", lists[i][0]);
		rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
		assert_int_equal(rc, -EINVAL);
		if (!strstr(e.msg, lists[i][1]))
			fail_msg("case %zu: got '%s', want '%s'", i, e.msg, lists[i][1]);
		free(f);
	}
	fb_rmdir(dir);
}

/* Pass 1 reads whole buffered blocks of lines: a barrier line far into a
 * file (past the first buffer and a refill) is still reported with its
 * own line number, and the one it contradicts with its. */
static void test_pass1_line_numbers(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	size_t cap = 6000 * 80 + 256, o = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	for (int i = 0; i < 5000; i++)
		o += (size_t)snprintf(text + o, cap - o, "10:00:00.%06d SYS_lseek(3, %d, 0) = %d <0.000001>\n",
				      i, i * 4096, i * 4096);
	o += (size_t)snprintf(text + o, cap - o, "0: hostA (11) Entered barrier at 1.000000\n");
	for (int i = 0; i < 900; i++)
		o += (size_t)snprintf(text + o, cap - o, "10:00:01.%06d SYS_write(3, \"abc\", 3) = 3 <0.000001>\n", i);
	snprintf(text + o, cap - o, "0: hostB (12) Entered barrier at 2.000000\n");
	char *f = fb_write(dir, "deep.11.trace", text);
	char *files[] = { f };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_lanl, files, 1, false, &in, &e);
	assert_int_equal(rc, -EINVAL);
	if (!strstr(e.msg, "deep.11.trace:5902: rank 0 is 'hostB (12)' here but 'hostA (11)'") ||
	    !strstr(e.msg, "deep.11.trace:5001"))
		fail_msg("got '%s'", e.msg);
	free(text);
	free(f);
	fb_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_nton),
		cmocka_unit_test(test_nto1_no_timing),
		cmocka_unit_test(test_truncated_collision),
		cmocka_unit_test(test_missing_timing_rank),
		cmocka_unit_test(test_timing_ranks_missing),
		cmocka_unit_test(test_raw_i386),
		cmocka_unit_test(test_argument_scan),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_unfinished_at_end),
		cmocka_unit_test(test_readme_named),
		cmocka_unit_test(test_summary_crosscheck),
		cmocka_unit_test(test_ltrace_sample),
		cmocka_unit_test(test_split_scan_agrees),
		cmocka_unit_test(test_fast_paths),
		cmocka_unit_test(test_pass1_line_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
