/*
 * test_trace.c - the loader: argument expansion, format detection, and
 * whole samples converted and read back.
 *
 * Expected numbers come from reading the samples (tests/data/strace, real
 * strace 6.1 output of a probe program): every process writes its .dat
 * file with write 65536 + write 1024 + pwrite64 4096 + writev 300 = 70956
 * bytes in 4 writes, then reads it back with read 8192 + pread64 512 +
 * readv 300 = 9004 bytes in 3 reads; the main process also reads libc
 * (read 832 + pread64 784 + pread64 784), so 6 reads and 11404 bytes.
 */
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
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "ops/opstream.h"
#include "trace/trace.h"

static char tmpdir[256];

static int group_setup(void **state)
{
	(void)state;
	const char *td = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_trace_XXXXXX", td && *td ? td : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tmpdir, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *tp(const char *rel)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", tmpdir, rel);
	return p[k];
}

static const char *sample(const char *name)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/strace/%s", TEST_DATA, name);
	return p[k];
}

static void test_expand(void **state)
{
	(void)state;
	struct rerr e = { "" };
	char **files;
	size_t n;
	char d[512];
	snprintf(d, sizeof(d), "%s/dir", tmpdir);
	assert_int_equal(mkdir(d, 0755), 0);
	put("dir/b.txt", "x");
	put("dir/a.txt", "x");
	put("dir/.hidden", "x");
	snprintf(d, sizeof(d), "%s/dir/sub", tmpdir);
	assert_int_equal(mkdir(d, 0755), 0);
	char *arg[1] = { (char *)tp("dir") };
	assert_int_equal(trace_expand(arg, 1, &files, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(files[0], tp("dir/a.txt"));
	assert_string_equal(files[1], tp("dir/b.txt"));
	trace_files_free(files, n);

	/* strace -ff prefix: numeric order of pids, other suffixes ignored */
	put("p.10", "x");
	put("p.9", "x");
	put("p.x", "x");
	arg[0] = (char *)tp("p");
	assert_int_equal(trace_expand(arg, 1, &files, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(files[0], tp("p.9"));
	assert_string_equal(files[1], tp("p.10"));
	trace_files_free(files, n);

	arg[0] = (char *)tp("dir/*.txt");
	assert_int_equal(trace_expand(arg, 1, &files, &n, &e), 0);
	assert_int_equal(n, 2);
	trace_files_free(files, n);

	arg[0] = (char *)tp("nope");
	assert_int_equal(trace_expand(arg, 1, &files, &n, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "cannot open '"));
	assert_non_null(strstr(e.msg, "No such file or directory"));
	arg[0] = (char *)tp("nope*");
	assert_int_equal(trace_expand(arg, 1, &files, &n, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "no file matches"));
}

struct sums {
	uint64_t reads, rbytes, writes, wbytes, seeks;
};

static struct sums rank_sums(const struct opstream *s, const char *name)
{
	struct sums x = { 0 };
	for (uint32_t r = 0; r < s->nranks; r++) {
		if (strcmp(opstream_rank_name(s, r), name))
			continue;
		uint64_t n;
		const struct op *o = opstream_rank_ops(s, r, &n);
		for (uint64_t i = 0; i < n; i++) {
			if (o[i].kind == OP_READ && o[i].result >= 0) {
				x.reads++;
				x.rbytes += (uint64_t)o[i].result;
			} else if (o[i].kind == OP_WRITE && o[i].result >= 0) {
				x.writes++;
				x.wbytes += (uint64_t)o[i].result;
			} else if (o[i].kind == OP_SEEK) {
				x.seeks++;
			}
		}
		return x;
	}
	fail_msg("no rank named '%s'", name);
	return x;
}

static void load(char **args, int nargs, const char *format, bool skip_bad,
		 struct load_result *res, struct opstream *s)
{
	struct rerr e = { "" };
	struct load_opts o = { .format = format, .skip_bad = skip_bad };
	int rc = trace_load(args, nargs, &o, NULL, res, &e);
	if (rc)
		fail_msg("trace_load: %s", e.msg);
	assert_true(res->temporary);
	const char *why = NULL;
	assert_int_equal(opstream_open(s, res->ops_path, &why), 0);
}

static void done(struct load_result *res, struct opstream *s)
{
	opstream_close(s);
	unlink(res->ops_path);
}

static void expect(const struct opstream *s, const char *rank, uint64_t reads, uint64_t rbytes,
		   uint64_t writes, uint64_t wbytes)
{
	struct sums x = rank_sums(s, rank);
	if (x.reads != reads || x.rbytes != rbytes || x.writes != writes || x.wbytes != wbytes)
		fail_msg("%s: reads %lu/%lu B writes %lu/%lu B, expected %lu/%lu B %lu/%lu B", rank,
			 (unsigned long)x.reads, (unsigned long)x.rbytes, (unsigned long)x.writes,
			 (unsigned long)x.wbytes, (unsigned long)reads, (unsigned long)rbytes,
			 (unsigned long)writes, (unsigned long)wbytes);
}

static void test_samples_f(void **state)
{
	(void)state;
	const char *names[][4] = {
		/* file, main, fork child, thread */
		{ "s_f_tt_T.txt", "pid 8474", "pid 8475", "pid 8476" },
		{ "s_f_tt_T_y.txt", "pid 8468", "pid 8469", "pid 8470" },
		{ "s_f_ttt_T_stderr.txt", "pid 8486", "pid 8487", "pid 8488" },
	};
	for (size_t i = 0; i < 3; i++) {
		struct load_result res;
		struct opstream s;
		char *arg[1] = { (char *)sample(names[i][0]) };
		load(arg, 1, NULL, false, &res, &s);
		assert_string_equal(res.format, "strace");
		assert_int_equal(s.nranks, 3);
		expect(&s, names[i][1], 6, 11404, 4, 70956);
		expect(&s, names[i][2], 3, 9004, 4, 70956);
		expect(&s, names[i][3], 3, 9004, 4, 70956);
		assert_int_equal(res.stats.failed_calls, 3);   /* /nonexistent x3 */
		assert_int_equal(res.stats.unknown_fd_ops, 0);
		char buf[32];
		assert_string_equal(opstream_info(&s, "skipped.wait4", buf, sizeof(buf)), "1");
		assert_string_equal(opstream_info(&s, "format", buf, sizeof(buf)), "strace");
		done(&res, &s);
	}
}

static void test_samples_ff_r_32(void **state)
{
	(void)state;
	struct load_result res;
	struct opstream s;
	char *arg[1] = { (char *)sample("s_ff") };
	load(arg, 1, NULL, false, &res, &s);
	assert_int_equal(s.nranks, 3);
	expect(&s, "pid 8480", 6, 11404, 4, 70956);
	expect(&s, "pid 8481", 3, 9004, 4, 70956);
	expect(&s, "pid 8482", 3, 9004, 4, 70956);
	done(&res, &s);

	arg[0] = (char *)sample("s_r_T.txt");
	load(arg, 1, NULL, false, &res, &s);
	assert_int_equal(s.nranks, 1);
	expect(&s, "main", 6, 11404, 4, 70956);
	/* -r: the trace time is the running sum; last op (openat /nonexistent
	 * at +0.000038 after close) ends the stream */
	uint64_t n;
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	assert_true(o[n - 1].t_ns > o[0].t_ns);
	done(&res, &s);

	arg[0] = (char *)sample("s32_tt_T.txt");
	load(arg, 1, "strace", false, &res, &s);
	expect(&s, "main", 0, 0, 4, 70956);
	o = opstream_rank_ops(&s, 0, &n);
	/* _llseek(3, 3221225472, [3221225472], SEEK_SET) then write 1024 */
	int found = 0;
	for (uint64_t i = 0; i < n; i++)
		if (o[i].kind == OP_WRITE && o[i].len == 1024) {
			assert_int_equal(o[i].offset, 3221225472ull);
			found = 1;
		}
	assert_true(found);
	assert_int_equal(rank_sums(&s, "main").seeks, 2);
	done(&res, &s);
}

static void test_ops_passthrough_and_errors(void **state)
{
	(void)state;
	struct rerr e = { "" };
	struct load_result res, res2;
	struct load_opts o = { 0 };
	char *arg[1] = { (char *)sample("s_f_tt_T.txt") };
	const char *out = tp("x.ops");
	assert_int_equal(trace_load(arg, 1, &o, out, &res, &e), 0);
	assert_false(res.temporary);
	arg[0] = (char *)out;
	assert_int_equal(trace_load(arg, 1, &o, NULL, &res2, &e), 0);
	assert_string_equal(res2.format, "ops");
	assert_string_equal(res2.ops_path, out);

	o.format = "nosuch";
	arg[0] = (char *)sample("s_f_tt_T.txt");
	assert_int_equal(trace_load(arg, 1, &o, NULL, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "unknown trace format 'nosuch'"));
	assert_non_null(strstr(e.msg, "strace"));
	assert_non_null(strstr(e.msg, "lanl"));
	o.format = NULL;

	put("garbage.txt", "hello world\nthis is not a trace\n");
	arg[0] = (char *)tp("garbage.txt");
	assert_int_equal(trace_load(arg, 1, &o, NULL, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "cannot tell the trace format"));

	/* strace -c alone (real capture of dd): only the summary table.
	 * Before: "cannot tell the trace format" */
	put("c_only.txt", "% time     seconds  usecs/call     calls    errors syscall\n"
			  "------ ----------- ----------- --------- --------- ----------------\n"
			  " 34.65    0.001256         157         8           read\n"
			  " 29.57    0.001072         268         4           write\n"
			  " 14.29    0.000518          16        32        13 openat\n"
			  "------ ----------- ----------- --------- --------- ----------------\n"
			  "100.00    0.003625          36        99        15 total\n");
	arg[0] = (char *)tp("c_only.txt");
	assert_int_equal(trace_load(arg, 1, &o, NULL, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "c_only.txt: no syscalls found (only the summary table of strace -c"));

	put("empty.txt", "");
	arg[0] = (char *)tp("empty.txt");
	o.format = "strace";
	assert_int_equal(trace_load(arg, 1, &o, NULL, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "no syscalls found"));

	put("bad.txt", "1 open(\"/a\", O_RDONLY) = 3\n"
		       "1 write(3, \"abc\", 3) = 3\n"
		       "1 write(3, \"ab\n"
		       "1 write(3, \"abc\", 3) = 3\n");
	arg[0] = (char *)tp("bad.txt");
	assert_int_equal(trace_load(arg, 1, &o, NULL, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "bad.txt:3: expected closing '\"'"));
	struct opstream s;
	load(arg, 1, "strace", true, &res, &s);
	assert_int_equal(res.bad_lines, 1);
	assert_non_null(strstr(res.first_bad, "bad.txt:3:"));
	expect(&s, "pid 1", 0, 0, 2, 6);
	done(&res, &s);

	put("bin.txt", "1 open(\"/a\", O_RDONLY) = 3\n\x01\x02\x03\x7f\n");
	arg[0] = (char *)tp("bin.txt");
	assert_int_equal(trace_load(arg, 1, &o, NULL, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "bin.txt:2: expected text"));
}

/* strace -ff with time stamps: files are merged by time.  The thread uses
 * fd 3, which the main thread opens only after creating it: reading the
 * thread's file at the clone (the unmerged walk) would lose its write. */
static void test_ff_merge_by_time(void **state)
{
	(void)state;
	put("m.100", "10:00:00.000001 clone3({flags=CLONE_VM|CLONE_FILES|CLONE_THREAD}, 88) = 101\n"
		     "10:00:00.000010 openat(AT_FDCWD, \"/x\", O_RDWR|O_CREAT, 0644) = 3\n"
		     "10:00:00.000030 write(3, \"a\", 100) = 100\n"
		     "10:00:00.000040 close(3) = 0\n");
	put("m.101", "10:00:00.000020 write(3, \"a\", 7) = 7\n"
		     "10:00:00.000035 pwrite64(3, \"a\", 5, 1000) = 5\n");
	struct load_result res;
	struct opstream s;
	char *arg[1] = { (char *)tp("m") };
	load(arg, 1, NULL, false, &res, &s);
	assert_int_equal(s.nranks, 2);
	expect(&s, "pid 100", 0, 0, 1, 100);
	expect(&s, "pid 101", 0, 0, 2, 12);
	/* shared position: the thread's 7 bytes at 0, the main's 100 at 7 */
	uint64_t n;
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(o[1].kind, OP_WRITE);
	assert_int_equal(o[1].offset, 7);
	assert_int_equal(res.stats.unknown_fd_ops, 0);
	done(&res, &s);
}

/* -ff of many threads writing at a shared file position, their clocks
 * often equal: the merge takes lines by time, ties in file order (the
 * pids' numeric order), so each write lands where a model says. */
static void test_ff_merge_many_ties(void **state)
{
	(void)state;
	enum { NT = 37, NW = 40 };
	static char text[NT][NW * 64];
	struct { unsigned t, file, k, len; } w[NT * NW], x;
	size_t nw = 0;
	unsigned seed = 12345;
	char main_text[NT * 96 + 200], *m = main_text;

	for (unsigned t = 0; t < NT; t++)
		m += sprintf(m, "10:00:00.000001 clone3({flags=CLONE_VM|CLONE_FILES|CLONE_THREAD}, 88)"
			     " = %u\n", 101 + t);
	sprintf(m, "10:00:00.000005 openat(AT_FDCWD, \"/x\", O_RDWR|O_CREAT, 0644) = 3\n");
	put("tie.100", main_text);
	for (unsigned t = 0; t < NT; t++) {
		char *q = text[t], name[32];
		unsigned us = 10;
		for (unsigned k = 0; k < NW; k++) {
			seed = seed * 1103515245u + 12345u;
			us += (seed >> 16) % 3;         /* 0: a tie with the line before */
			unsigned len = 1 + (seed >> 20) % 50;
			q += sprintf(q, "10:00:00.%06u write(3, \"a\", %u) = %u\n", us, len, len);
			w[nw++] = (typeof(x)){ us, t, k, len };
		}
		snprintf(name, sizeof(name), "tie.%u", 101 + t);
		put(name, text[t]);
	}
	/* the model: by time, then file (pid) order, then line order */
	for (size_t i = 1; i < nw; i++)
		for (size_t j = i; j > 0; j--) {
			bool less = w[j].t < w[j - 1].t ||
				    (w[j].t == w[j - 1].t && w[j].file < w[j - 1].file);
			if (!less)
				break;
			x = w[j], w[j] = w[j - 1], w[j - 1] = x;
		}
	static uint64_t want[NT][NW];
	uint64_t pos = 0;
	for (size_t i = 0; i < nw; i++) {
		want[w[i].file][w[i].k] = pos;
		pos += w[i].len;
	}
	struct load_result res;
	struct opstream s;
	char *arg[1] = { (char *)tp("tie") };
	load(arg, 1, NULL, false, &res, &s);
	assert_int_equal(s.nranks, NT + 1);
	for (unsigned t = 0; t < NT; t++) {
		char rank[32];
		snprintf(rank, sizeof(rank), "pid %u", 101 + t);
		uint32_t r = 0;
		while (r < s.nranks && strcmp(opstream_rank_name(&s, r), rank))
			r++;
		assert_true(r < s.nranks);
		uint64_t n, k = 0;
		const struct op *o = opstream_rank_ops(&s, r, &n);
		for (uint64_t i = 0; i < n; i++)
			if (o[i].kind == OP_WRITE) {
				assert_true(k < NW);
				if (o[i].offset != want[t][k])
					fail_msg("pid %u write %lu at %lu, expected %lu", 101 + t,
						 (unsigned long)k, (unsigned long)o[i].offset,
						 (unsigned long)want[t][k]);
				k++;
			}
		assert_int_equal(k, NW);
	}
	done(&res, &s);
}

/* -f to stderr: the main's clone3 is cut by "strace: Process 201 attached"
 * and its thread prints first: the main is still found to be 200 */
static void test_stderr_cut_clone(void **state)
{
	(void)state;
	put("err.txt", "1795299574.000001 openat(AT_FDCWD, \"/f\", O_RDWR) = 3\n"
		       "1795299574.000002 clone3({flags=CLONE_VM|CLONE_FILES|CLONE_THREAD, child_tid=0x1}strace: Process 201 attached\n"
		       " <unfinished ...>\n"
		       "[pid   201] 1795299574.000003 write(3, \"x\", 5) = 5\n"
		       "[pid   200] 1795299574.000004 <... clone3 resumed> => {parent_tid=[201]}, 88) = 201\n"
		       "[pid   200] 1795299574.000005 write(3, \"y\", 7) = 7\n");
	struct load_result res;
	struct opstream s;
	char *arg[1] = { (char *)tp("err.txt") };
	load(arg, 1, NULL, false, &res, &s);
	assert_int_equal(s.nranks, 2);
	expect(&s, "pid 200", 0, 0, 1, 7);
	expect(&s, "pid 201", 0, 0, 1, 5);
	assert_int_equal(res.stats.unknown_fd_ops, 0);
	/* the shared position: 5 bytes by the thread, then the main's at 5 */
	uint64_t n;
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(o[n - 1].offset, 5);
	done(&res, &s);
}

/* The last write of rank (by name) on its files: its offset. */
static uint64_t last_write_at(const struct opstream *s, const char *rank)
{
	for (uint32_t r = 0; r < s->nranks; r++) {
		if (strcmp(opstream_rank_name(s, r), rank))
			continue;
		uint64_t n;
		const struct op *o = opstream_rank_ops(s, r, &n);
		while (n && o[n - 1].kind != OP_WRITE)
			n--;
		assert_true(n > 0);
		return o[n - 1].offset;
	}
	fail_msg("no rank %s", rank);
	return 0;
}

/* Two ranks start a thread each at once (MPI ranks do): the threads' first
 * writes, on descriptors they share with their process, come before
 * either clone returns.  Which process each thread belongs to shows in
 * -y's path of the descriptor: each writes at its file's shared position,
 * not at 0 of a descriptor never opened.  Without -y nothing tells them
 * apart: they wait for their clones as before. */
static void test_clones_in_flight(void **state)
{
	(void)state;
	static const char *flags = "{flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|"
				   "CLONE_SYSVSEM|CLONE_SETTLS, exit_signal=0, stack=0x7f0, stack_size=0x7ff}";
	char text[4096];
	for (int y = 1; y >= 0; y--) {
		const char *a = y ? "</d/a>" : "", *b = y ? "</d/b>" : "";
		snprintf(text, sizeof(text),
			 "100 10:00:00.000001 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0644) = 3%s\n"
			 "200 10:00:00.000002 openat(AT_FDCWD, \"/d/b\", O_WRONLY|O_CREAT, 0644) = 3%s\n"
			 "100 10:00:00.000003 write(3%s, \"x\"..., 1000) = 1000\n"
			 "200 10:00:00.000004 write(3%s, \"x\"..., 500) = 500\n"
			 "100 10:00:00.000005 clone3(%s, 88 <unfinished ...>\n"
			 "200 10:00:00.000006 clone3(%s, 88 <unfinished ...>\n"
			 "201 10:00:00.000007 rseq(0x7f, 32, 0, 0x53053053) = 0\n"
			 "201 10:00:00.000008 write(3%s, \"y\"..., 50) = 50\n"
			 "101 10:00:00.000009 write(3%s, \"y\"..., 100) = 100\n"
			 "100 10:00:00.000010 <... clone3 resumed>) = 101\n"
			 "200 10:00:00.000011 <... clone3 resumed>) = 201\n"
			 "100 10:00:00.000012 write(3%s, \"z\"..., 10) = 10\n"
			 "200 10:00:00.000013 write(3%s, \"z\"..., 10) = 10\n",
			 a, b, a, b, flags, flags, b, a, a, b);
		put("inflight.txt", text);
		struct load_result res;
		struct opstream s;
		char *arg[1] = { (char *)tp("inflight.txt") };
		load(arg, 1, NULL, false, &res, &s);
		if (y) {
			assert_int_equal(s.nranks, 4);
			expect(&s, "pid 101", 0, 0, 1, 100);
			expect(&s, "pid 201", 0, 0, 1, 50);
			assert_int_equal(last_write_at(&s, "pid 101"), 1000);
			assert_int_equal(last_write_at(&s, "pid 201"), 500);
			assert_int_equal(last_write_at(&s, "pid 100"), 1100);
			assert_int_equal(last_write_at(&s, "pid 200"), 550);
			assert_int_equal(res.stats.unknown_fd_ops, 0);
		} else {
			/* a descriptor never opened, unnamed: its ops dropped */
			assert_int_equal(s.nranks, 2);
			assert_int_equal(res.stats.unknown_fd_ops, 2);
			assert_int_equal(last_write_at(&s, "pid 100"), 1000);
		}
		done(&res, &s);
	}
	/* two threads of one process cloning at once: either is the parent
	 * (one table), the new thread writes at the shared position */
	snprintf(text, sizeof(text),
		 "100 10:00:00.000001 openat(AT_FDCWD, \"/d/a\", O_WRONLY|O_CREAT, 0644) = 3</d/a>\n"
		 "100 10:00:00.000002 write(3</d/a>, \"x\"..., 1000) = 1000\n"
		 "100 10:00:00.000003 clone3(%s, 88) = 102\n"
		 "100 10:00:00.000004 clone3(%s, 88 <unfinished ...>\n"
		 "102 10:00:00.000005 clone3(%s, 88 <unfinished ...>\n"
		 "103 10:00:00.000006 write(3</d/a>, \"y\"..., 7) = 7\n"
		 "100 10:00:00.000007 <... clone3 resumed>) = 103\n"
		 "102 10:00:00.000008 <... clone3 resumed>) = 104\n"
		 "100 10:00:00.000009 write(3</d/a>, \"z\"..., 10) = 10\n",
		 flags, flags, flags);
	put("inflight.txt", text);
	struct load_result res;
	struct opstream s;
	char *arg[1] = { (char *)tp("inflight.txt") };
	load(arg, 1, NULL, false, &res, &s);
	assert_int_equal(last_write_at(&s, "pid 103"), 1000);
	assert_int_equal(last_write_at(&s, "pid 100"), 1007);
	assert_int_equal(res.stats.implicit_opens, 0);
	done(&res, &s);
}

/* -tt is a time of day: a trace running past midnight keeps counting */
static void test_midnight(void **state)
{
	(void)state;
	put("night.txt", "1 23:59:59.999000 openat(AT_FDCWD, \"/x\", O_RDONLY) = 3\n"
			 "1 00:00:00.001000 read(3, \"a\", 10) = 10\n");
	struct load_result res;
	struct opstream s;
	char *arg[1] = { (char *)tp("night.txt") };
	load(arg, 1, NULL, false, &res, &s);
	uint64_t n;
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(n, 2);
	assert_int_equal(o[1].t_ns, 2000000);
	done(&res, &s);
}

/* ltrace -S output is LANL-Trace's, not strace's */
static void test_detect_ltrace(void **state)
{
	(void)state;
	struct load_result res;
	struct opstream s;
	char *arg[1] = { (char *)sample("l_S_tt_T_f.txt") };
	load(arg, 1, NULL, false, &res, &s);
	assert_string_equal(res.format, "lanl");
	done(&res, &s);
}

/* strace -ff -r: a line's delta counts from the line strace printed
 * before it in any file, so one file's deltas add up to no clock (a
 * parent's clock summed from them fell behind its children's and put a
 * later child before the file an earlier one wrote).  They are left out:
 * every op at time 0, the child's file read where its clone returned
 * (after the parent's first write), and the info says there is no common
 * clock. */
static void test_ff_relative_child_clock(void **state)
{
	(void)state;
	put("r.300", "     0.000000 openat(AT_FDCWD, \"/x\", O_RDWR|O_CREAT, 0644) = 3\n"
		     "     0.500000 write(3, \"a\", 10) = 10\n"
		     "     1.000000 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 301\n"
		     "     0.250000 write(3, \"a\", 20) = 20\n");
	put("r.301", "     0.000100 write(3, \"b\", 5) = 5\n"
		     "     0.000200 close(3) = 0\n");
	struct load_result res;
	struct opstream s;
	char *arg[1] = { (char *)tp("r") };
	load(arg, 1, NULL, false, &res, &s);
	assert_int_equal(s.nranks, 2);
	expect(&s, "pid 300", 0, 0, 2, 30);
	expect(&s, "pid 301", 0, 0, 1, 5);
	assert_int_equal(s.ranks[0].t0_ns, 0);
	assert_int_equal(s.ranks[1].t0_ns, 0);
	for (uint32_t r = 0; r < 2; r++) {
		uint64_t m;
		const struct op *q = opstream_rank_ops(&s, r, &m);
		for (uint64_t k = 0; k < m; k++)
			assert_int_equal(q[k].t_ns, 0);
	}
	char buf[64];
	assert_non_null(opstream_info(&s, "no_common_clock", buf, sizeof(buf)));
	assert_string_equal(buf, "strace -ff -r");
	/* the child inherited the position: its write follows the 10 bytes */
	uint64_t n;
	const struct op *o = opstream_rank_ops(&s, 1, &n);
	uint64_t i = 0;
	while (i < n && o[i].kind != OP_WRITE)
		i++;
	assert_true(i < n);
	assert_int_equal(o[i].offset, 10);
	done(&res, &s);
}

/* strace of a program reading a Sandia .sanitized file (tar, cat): the
 * bytes it read, in quotes, hold "tracetype(" and "str(", but no line
 * starts with them: strace, not Sandia.  And the Sandia lines themselves,
 * indented, still are Sandia. */
static void test_detect_strace_of_sandia_bytes(void **state)
{
	(void)state;
	put("cat.tr", "6140  20:53:31.183945 openat(AT_FDCWD</tmp>, \"cth.sanitized\", O_RDONLY) = 6</tmp/cth.sanitized> <0.000020>\n"
		      "6140  20:53:31.184000 read(6</tmp/cth.sanitized>, \"header app(cth)nprocs(2)rank(0)headernode(1.2)\\ntracetype(ENTER)time:(1)time:(2)str(open)\"..., 10240) = 10240 <0.000354>\n"
		      "6140  20:53:31.184339 write(1</dev/pts/0>, \"(0)whence(0)\\ntracetype(EXIT)time\"..., 10240) = 10240 <0.000021>\n"
		      "6140  20:53:31.184400 close(6</tmp/cth.sanitized>) = 0 <0.000005>\n");
	struct load_result res;
	struct opstream s;
	char *arg[1] = { (char *)tp("cat.tr") };
	load(arg, 1, NULL, false, &res, &s);
	assert_string_equal(res.format, "strace");
	expect(&s, "pid 6140", 1, 10240, 0, 0);
	done(&res, &s);

	put("ind.sanitized", "header app(x)nprocs(1)rank(0)headernode(1.2)\n"
			     "  tracetype(ENTER)time:(1)time:(2)str(open)path(/a)flags(0)mode(0)\n"
			     "  tracetype(EXIT)time:(1)time:(3)str(open)ret(3)\n");
	arg[0] = (char *)tp("ind.sanitized");
	load(arg, 1, NULL, false, &res, &s);
	assert_string_equal(res.format, "sandia");
	done(&res, &s);
}

static void put_bytes(const char *rel, const void *b, size_t n)
{
	FILE *f = fopen(tp(rel), "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
}

static int load_err(char **args, int nargs, const char *format, struct rerr *e)
{
	struct load_result res;
	struct load_opts o = { .format = format };
	e->msg[0] = 0;
	int rc = trace_load(args, nargs, &o, NULL, &res, e);
	if (!rc)
		unlink(res.ops_path);
	return rc;
}

#define HAS(msg, want) do { if (!strstr((msg), (want))) fail_msg("expected '%s' in '%s'", (want), (msg)); } while (0)

/* bzip2, xz and zstd output, by its magic: "cannot tell the trace format"
 * before, now what it is and the command that decompresses it, alone, in
 * a directory after a README (whose own message it was), and with
 * --format. */
static void test_compressed_named(void **state)
{
	(void)state;
	static const struct { const char *name, *tool; unsigned char m[16]; size_t n; } z[] = {
		{ "t.bz2", "bzip2", { 'B', 'Z', 'h', '9', 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0x12, 0x34 }, 12 },
		{ "t.xz", "xz", { 0xfd, '7', 'z', 'X', 'Z', 0, 0, 4, 0xe6, 0xd6, 0xb4, 0x46 }, 12 },
		{ "t.zst", "zstd", { 0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x0b, 0x59, 0, 0 }, 9 },
	};
	struct rerr e;
	mkdir(tp("zdir"), 0755);
	put("zdir/00README", "notes on these traces\n");
	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		char rel[64], want[600];
		snprintf(rel, sizeof(rel), "zdir/%s", z[i].name);
		put_bytes(rel, z[i].m, z[i].n);
		snprintf(want, sizeof(want), "'%s' is %s-compressed: replay reads traces uncompressed"
			 " (and a DXT dump gzip-compressed too); decompress it first (%s -dk '%s')",
			 tp(rel), z[i].tool, z[i].tool, tp(rel));
		char *one[1] = { (char *)tp(rel) }, *dir[1] = { (char *)tp("zdir") };
		assert_int_equal(load_err(one, 1, NULL, &e), -EINVAL);
		HAS(e.msg, want);
		assert_int_equal(load_err(one, 1, "strace", &e), -EINVAL);
		HAS(e.msg, want);
		assert_int_equal(load_err(dir, 1, NULL, &e), -EINVAL);
		HAS(e.msg, want);
		unlink(tp(rel));
	}
	/* "BZh" text is no bzip2 file */
	put("bzh.txt", "BZh9 is how a bzip2 stream starts\n");
	char *t[1] = { (char *)tp("bzh.txt") };
	assert_int_equal(load_err(t, 1, NULL, &e), -EINVAL);
	HAS(e.msg, "cannot tell the trace format of");
}

/* A UTF-8 byte order mark before the first line (an editor's): skipped
 * by every text reader, so the trace reads as without it (it was
 * "FILE:1: expected a syscall name in '\xef\xbb\xbf8468 ...'"). */
static void test_utf8_bom(void **state)
{
	(void)state;
	static const char *const texts[][2] = {
		{ "bom.strace", "20 10:00:00.000001 openat(AT_FDCWD, \"/a\", O_WRONLY|O_CREAT, 0644) = 3\n"
				"20 10:00:00.000002 pwrite64(3, \"ab\", 2, 0) = 2\n20 10:00:00.000003 close(3) = 0\n" },
		{ "bom.sanitized", "header app(x)nprocs(1)rank(0)headernode(1.2)\n"
				   "tracetype(ENTER)time:(1)time:(2)str(open)path(/a)flags(0)mode(0)\n"
				   "tracetype(EXIT)time:(1)time:(3)str(open)ret(3)\n" },
		{ "bom.iolog", "fio version 2 iolog\n/a add\n/a open\n/a write 0 4096\n/a close\n" },
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char rel[64], with[1024];
		snprintf(rel, sizeof(rel), "plain-%s", texts[i][0]);
		put(rel, texts[i][1]);
		snprintf(with, sizeof(with), "\xef\xbb\xbf%s", texts[i][1]);
		put(texts[i][0], with);
		struct load_result r1, r2;
		struct opstream s1, s2;
		char *a1[1] = { (char *)tp(rel) }, *a2[1] = { (char *)tp(texts[i][0]) };
		load(a1, 1, NULL, false, &r1, &s1);
		load(a2, 1, NULL, false, &r2, &s2);
		assert_string_equal(r1.format, r2.format);
		assert_int_equal(s1.nops, s2.nops);
		assert_true(s1.nops > 0);
		assert_memory_equal(s1.ops, s2.ops, s1.nops * sizeof(*s1.ops));
		done(&r1, &s1);
		done(&r2, &s2);
	}
	/* a DXT dump, and a LANL rank file and timing file */
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "cd '%s' && printf '\\357\\273\\277' > bom.dxt && cat '%s/dxt/ior_hdf5_example.dxt.txt'"
		 " >> bom.dxt && mkdir bomlanl && cp '%s/lanl/nton/'* bomlanl && for f in bomlanl/*; do"
		 " printf '\\357\\273\\277' > x; cat \"$f\" >> x; mv x \"$f\"; done", tmpdir, TEST_DATA,
		 TEST_DATA);
	assert_int_equal(system(cmd), 0);
	char dxt[512], lanl[512];
	snprintf(dxt, sizeof(dxt), "%s/dxt/ior_hdf5_example.dxt.txt", TEST_DATA);
	snprintf(lanl, sizeof(lanl), "%s/lanl/nton", TEST_DATA);
	const char *pairs[][2] = { { dxt, tp("bom.dxt") }, { lanl, tp("bomlanl") } };
	for (size_t i = 0; i < 2; i++) {
		struct load_result r1, r2;
		struct opstream s1, s2;
		char *a1[1] = { (char *)pairs[i][0] }, *a2[1] = { (char *)pairs[i][1] };
		load(a1, 1, NULL, false, &r1, &s1);
		load(a2, 1, NULL, false, &r2, &s2);
		assert_string_equal(r1.format, r2.format);
		assert_int_equal(s1.nops, s2.nops);
		assert_memory_equal(s1.ops, s2.ops, s1.nops * sizeof(*s1.ops));
		done(&r1, &s1);
		done(&r2, &s2);
	}
}

/* A NUL byte in the first 64 KiB of a file no probe takes: where it is,
 * and that the file is binary (it was "cannot tell the trace format"
 * alone); UTF-16 text said as such. */
static void test_binary_bytes(void **state)
{
	(void)state;
	struct rerr e;
	char want[600];
	put_bytes("bin.dat", "first line\nsecond\0line\n", 24);
	char *a[1] = { (char *)tp("bin.dat") };
	assert_int_equal(load_err(a, 1, NULL, &e), -EINVAL);
	snprintf(want, sizeof(want), "%s:2: a NUL byte (byte 18 of the file): it holds binary bytes,"
		 " so it is no text trace, nor a binary one replay reads (a .darshan log, an .ops file);"
		 " cannot tell its trace format (supported: strace, lanl, sandia, dxt, fio-iolog)",
		 tp("bin.dat"));
	HAS(e.msg, want);
	put_bytes("u16.txt", "\xff\xfe" "1\0 \0w\0r\0i\0t\0e\0(\0\n\0", 20);
	a[0] = (char *)tp("u16.txt");
	assert_int_equal(load_err(a, 1, NULL, &e), -EINVAL);
	HAS(e.msg, "is UTF-16 text (it begins with a UTF-16 byte order mark): the readers take UTF-8"
		   " or ASCII text; convert it first (iconv -f UTF-16 -t UTF-8 ");
	/* a text file no probe takes: the message as before */
	put("prose.txt", "just some words\n");
	a[0] = (char *)tp("prose.txt");
	assert_int_equal(load_err(a, 1, NULL, &e), -EINVAL);
	HAS(e.msg, "cannot tell the trace format of");
}

/* Among a directory's traces, a file that is a trace of another format is
 * an error naming both (it was left out with the README, "holds no sandia
 * lines"); a README is still left out, and the format chosen by the first
 * trace as before. */
static void test_foreign_trace_in_dir(void **state)
{
	(void)state;
	struct rerr e;
	char cmd[2048], want[1400];
	snprintf(cmd, sizeof(cmd), "cd '%s' && mkdir mixs mixl && cp '%s/sandia/cth_like.sanitized'"
		 " '%s/strace/s_f_tt_T.txt' mixs && cp '%s/lanl/nton/'* '%s/strace/s_f_tt_T.txt' mixl"
		 " && echo 'see the paper' > mixs/README && cp mixs/README mixl/README",
		 tmpdir, TEST_DATA, TEST_DATA, TEST_DATA, TEST_DATA);
	assert_int_equal(system(cmd), 0);
	char *d[1] = { (char *)tp("mixs") };
	assert_int_equal(load_err(d, 1, NULL, &e), -EINVAL);
	snprintf(want, sizeof(want), "'%s/s_f_tt_T.txt' is a strace trace among sandia traces: give"
		 " traces of one format at a time (only a file that is no trace, such as a README, is"
		 " left out)", tp("mixs"));
	HAS(e.msg, want);
	assert_int_equal(load_err(d, 1, "sandia", &e), -EINVAL);
	HAS(e.msg, want);
	d[0] = (char *)tp("mixl");
	assert_int_equal(load_err(d, 1, NULL, &e), -EINVAL);
	/* LANL takes a strace capture's lines for calls of a rank whose file
	 * matches no rank of the timing file: that error, with the hint */
	snprintf(want, sizeof(want), "cannot match '%s/mixl/s_f_tt_T.txt' to a rank of the timing"
		 " file: no rank's pid in its name, pid column or barrier lines ('%s/mixl/s_f_tt_T.txt'"
		 " looks like a strace trace, '%s/mixl/host12.10377.trace' like lanl", tmpdir, tmpdir,
		 tmpdir);
	HAS(e.msg, want);
	HAS(e.msg, "' like lanl, which chose the reader: give traces of one format at a time)");
	/* a Sandia trace there: no LANL line, the error of another format */
	snprintf(cmd, sizeof(cmd), "cd '%s' && rm mixl/s_f_tt_T.txt && cp '%s/sandia/cth_like.sanitized' mixl/zz.sanitized",
		 tmpdir, TEST_DATA);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(load_err(d, 1, NULL, &e), -EINVAL);
	snprintf(want, sizeof(want), "'%s/mixl/zz.sanitized' is a sandia trace among lanl traces:"
		 " give traces of one format at a time (only a file that is no trace, such as a README,"
		 " is left out)", tmpdir);
	HAS(e.msg, want);
	/* without it: the README left out, the traces read */
	snprintf(cmd, sizeof(cmd), "rm '%s/mixs/s_f_tt_T.txt' '%s/mixl/zz.sanitized'", tmpdir, tmpdir);
	assert_int_equal(system(cmd), 0);
	for (int i = 0; i < 2; i++) {
		struct load_result r;
		struct opstream s;
		char *a[1] = { (char *)tp(i ? "mixl" : "mixs") };
		load(a, 1, NULL, false, &r, &s);
		assert_string_equal(r.format, i ? "lanl" : "sandia");
		char v[64];
		assert_non_null(opstream_info(&s, "skipped_files", v, sizeof(v)));
		assert_string_equal(v, "1");
		done(&r, &s);
	}
}

/* strace writing to the program's stderr ("[pid N]" lines): the program's
 * own output splices into a line, which does not parse; the error says
 * what probably happened and what to do.  A bad line of an -o capture
 * (pid columns) that is no write to fd 1/2 gets no such hint. */
static void test_bad_line_hint(void **state)
{
	(void)state;
	struct rerr e = { "" };
	struct load_result res;
	struct load_opts o = { .format = "strace" };
	put("mixed.txt", "[pid 20] 10:00:00.000001 openat(AT_FDCWD, \"/a\", O_WRONLY|O_CREAT, 0644) = 3\n"
			 "[pid 21] 10:00:00.000002 write(2</dev/pts/0>, \"rank warning\\n\", 13rank warning\n"
			 ") = 13 <0.000010>\n");
	char *arg[1] = { (char *)tp("mixed.txt") };
	assert_int_equal(trace_load(arg, 1, &o, NULL, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "mixed.txt:2: "));
	assert_non_null(strstr(e.msg, "own output mixed into strace's lines"));
	assert_non_null(strstr(e.msg, "strace -o FILE"));
	put("bad.txt", "20 10:00:00.000001 openat(AT_FDCWD, \"/a\", O_WRONLY|O_CREAT, 0644) = 3\n"
		       "20 10:00:00.000002 pwrite64(3, \"ab\", 2, 0 = 2\n");
	arg[0] = (char *)tp("bad.txt");
	e.msg[0] = 0;
	assert_int_equal(trace_load(arg, 1, &o, NULL, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "bad.txt:2: "));
	assert_null(strstr(e.msg, "own output"));
}

/* A capture cut mid-line (strace killed by SIGKILL, as at a batch job's
 * time limit): a last line without its '\n' is dropped and counted, the
 * rest loads; the same line with its '\n', or a bad line elsewhere, is
 * still an error.  Before: every such trace failed ("expected closing
 * '"'"), and one cut where it still parsed (in its result, "= 655" of
 * "= 65536", or in its -T duration) was replayed as the cut text said. */
static void test_cut_last_line(void **state)
{
	(void)state;
	struct rerr e = { "" };
	struct load_result res;
	struct load_opts o = { .format = "strace" };
	struct opstream s;
	char buf[600], want[600];
	const char *head = "1 open(\"/a\", O_WRONLY) = 3\n1 write(3, \"abc\", 3) = 3\n";

	snprintf(buf, sizeof(buf), "%s1 write(3, \"ab", head);
	put("cut.txt", buf);
	char *arg[1] = { (char *)tp("cut.txt") };
	for (int sb = 0; sb < 2; sb++) {
		load(arg, 1, "strace", sb, &res, &s);
		expect(&s, "pid 1", 0, 0, 1, 3);
		assert_int_equal(res.bad_lines, 0);
		assert_string_equal(opstream_info(&s, "cut_lines", buf, sizeof(buf)), "1");
		snprintf(want, sizeof(want), "%s:3", tp("cut.txt"));
		assert_string_equal(opstream_info(&s, "cut_line", buf, sizeof(buf)), want);
		done(&res, &s);
	}
	/* a whole trace has no such key */
	put("whole.txt", head);
	arg[0] = (char *)tp("whole.txt");
	load(arg, 1, "strace", false, &res, &s);
	assert_null(opstream_info(&s, "cut_lines", buf, sizeof(buf)));
	done(&res, &s);

	/* the last line, with its newline: a bad line as before */
	snprintf(buf, sizeof(buf), "%s1 write(3, \"ab\n", head);
	put("cutnl.txt", buf);
	arg[0] = (char *)tp("cutnl.txt");
	assert_int_equal(trace_load(arg, 1, &o, NULL, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "cutnl.txt:3: expected closing '\"'"));

	/* a bad line before the cut one is still an error */
	put("cutmid.txt", "1 open(\"/a\", O_WRONLY) = 3\n1 write(3, \"ab\n1 write(3, \"ab");
	arg[0] = (char *)tp("cutmid.txt");
	assert_int_equal(trace_load(arg, 1, &o, NULL, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "cutmid.txt:2: expected closing '\"'"));

	/* a last line without its newline that parses is cut all the same:
	 * in its result, in its duration, or after it */
	static const char *const tails[] = {
		"1 write(3, \"ab\", 65536) = 655",
		"1 write(3, \"ab\", 2) = 2",
		"1 write(3, \"ab\", 2) = 2 <0.00",
		"1 write(3, \"ab\", 2) = 2 <0.000010>",
	};
	for (size_t k = 0; k < sizeof(tails) / sizeof(tails[0]); k++) {
		snprintf(buf, sizeof(buf), "%s%s", head, tails[k]);
		put("cutok.txt", buf);
		arg[0] = (char *)tp("cutok.txt");
		load(arg, 1, "strace", false, &res, &s);
		expect(&s, "pid 1", 0, 0, 1, 3);
		assert_string_equal(opstream_info(&s, "cut_lines", buf, sizeof(buf)), "1");
		snprintf(want, sizeof(want), "%s:3", tp("cutok.txt"));
		assert_string_equal(opstream_info(&s, "cut_line", buf, sizeof(buf)), want);
		done(&res, &s);
	}
	/* with its newline, the same line is read */
	snprintf(buf, sizeof(buf), "%s1 write(3, \"ab\", 2) = 2\n", head);
	put("cutok.txt", buf);
	arg[0] = (char *)tp("cutok.txt");
	load(arg, 1, "strace", false, &res, &s);
	expect(&s, "pid 1", 0, 0, 2, 5);
	assert_null(opstream_info(&s, "cut_lines", buf, sizeof(buf)));
	done(&res, &s);
}

/* A process's clock that goes back by less than a night (21:23 then 11:23):
 * its op is timed as the one before it and counted (clock_back_steps,
 * clock_back_first: FILE:LINE), for the loader's warning; the trace does
 * not last a day.  Processes whose lines come one after the other in a
 * file (the file's clock goes back, no process's does) are no such
 * thing; nor is midnight. */
static void test_clock_back(void **state)
{
	(void)state;
	struct load_result res;
	struct opstream s;
	char buf[600], want[600];
	put("back.txt", "1 21:23:21.000001 openat(AT_FDCWD, \"/a\", O_WRONLY|O_CREAT, 0644) = 3\n"
			"1 21:23:21.000002 write(3, \"ab\", 2) = 2\n"
			"1 11:23:21.000003 write(3, \"ab\", 2) = 2\n"
			"1 21:23:21.000004 write(3, \"ab\", 2) = 2\n"
			"1 21:23:21.000003 write(3, \"ab\", 2) = 2\n");
	char *arg[1] = { (char *)tp("back.txt") };
	load(arg, 1, "strace", false, &res, &s);
	assert_string_equal(opstream_info(&s, "clock_back_steps", buf, sizeof(buf)), "2");
	snprintf(want, sizeof(want), "%s:3", tp("back.txt"));
	assert_string_equal(opstream_info(&s, "clock_back_first", buf, sizeof(buf)), want);
	uint64_t n;
	const struct op *o = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(n, 5);
	assert_int_equal(o[4].t_ns, 3000);
	done(&res, &s);
	put("splice.txt", "1 10:00:00.000001 openat(AT_FDCWD, \"/a\", O_WRONLY|O_CREAT, 0644) = 3\n"
			  "1 10:00:00.000009 write(3, \"ab\", 2) = 2\n"
			  "2 10:00:00.000002 openat(AT_FDCWD, \"/b\", O_WRONLY|O_CREAT, 0644) = 3\n"
			  "2 10:00:00.000003 write(3, \"ab\", 2) = 2\n"
			  "2 23:59:59.000003 write(3, \"ab\", 2) = 2\n"
			  "2 00:00:00.000003 write(3, \"ab\", 2) = 2\n");
	arg[0] = (char *)tp("splice.txt");
	load(arg, 1, "strace", false, &res, &s);
	assert_null(opstream_info(&s, "clock_back_steps", buf, sizeof(buf)));
	done(&res, &s);
}

/* strace -ff writes a file for every process it follows: a child whose
 * pid a clone, fork or vfork of an -ff file returned and that has no file
 * is named in the info blob (ff_missing, ff_missing_files: the file
 * expected, the pid, where it was forked), for the loader's warning.
 * Before: its rank vanished without a word.  Whole captures, and a file
 * whose clone made a thread that has its file, have no such key. */
static void test_ff_missing(void **state)
{
	(void)state;
	struct load_result res;
	struct opstream s;
	char buf[600], want[600];
	put("ffm.100", "10:00:00.000001 openat(AT_FDCWD, \"/a\", O_WRONLY|O_CREAT, 0644) = 3\n"
		       "10:00:00.000002 clone(child_stack=NULL, flags=SIGCHLD) = 101\n"
		       "10:00:00.000003 vfork() = 102\n"
		       "10:00:00.000004 write(3, \"ab\", 2) = 2\n");
	put("ffm.101", "10:00:00.000005 write(3, \"abc\", 3) = 3\n");
	char *arg[1] = { (char *)tp("ffm") };
	load(arg, 1, "strace", false, &res, &s);
	assert_string_equal(opstream_info(&s, "ff_missing", buf, sizeof(buf)), "1");
	snprintf(want, sizeof(want), "%s.102 (pid 102, forked at %s.100:3)", tp("ffm"), tp("ffm"));
	assert_string_equal(opstream_info(&s, "ff_missing_files", buf, sizeof(buf)), want);
	/* no "+++ exited" line anywhere (strace -qq): said, for the warning */
	assert_string_equal(opstream_info(&s, "ff_no_exit_lines", buf, sizeof(buf)), "1");
	assert_int_equal(s.nranks, 2);
	done(&res, &s);
	/* its file there but empty (a thread that made no traced call): not
	 * missing */
	put("ffm.102", "");
	load(arg, 1, "strace", false, &res, &s);
	assert_null(opstream_info(&s, "ff_missing", buf, sizeof(buf)));
	done(&res, &s);
	/* missing again, with exit lines: no -qq */
	unlink(tp("ffm.102"));
	put("ffm.101", "10:00:00.000005 write(3, \"abc\", 3) = 3\n10:00:00.000007 +++ exited with 0 +++\n");
	load(arg, 1, "strace", false, &res, &s);
	assert_string_equal(opstream_info(&s, "ff_missing", buf, sizeof(buf)), "1");
	assert_null(opstream_info(&s, "ff_no_exit_lines", buf, sizeof(buf)));
	done(&res, &s);
	put("ffm.102", "10:00:00.000006 write(3, \"abcd\", 4) = 4\n");
	load(arg, 1, "strace", false, &res, &s);
	assert_null(opstream_info(&s, "ff_missing", buf, sizeof(buf)));
	assert_int_equal(s.nranks, 3);
	done(&res, &s);
}

/* strace -ff across midnight: a child whose first line is 00:00:01, its
 * parent's 23:59:59, is a day later, not first (each file's clock began
 * on day 0) */
static void test_ff_midnight(void **state)
{
	(void)state;
	struct load_result res;
	struct opstream s;
	put("ffn.100", "23:59:59.000001 openat(AT_FDCWD, \"/a\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
		       "23:59:59.000002 clone(child_stack=NULL, flags=SIGCHLD) = 101\n"
		       "23:59:59.000003 write(3, \"ab\", 2) = 2\n"
		       "00:00:02.000000 write(3, \"ab\", 2) = 2\n");
	put("ffn.101", "00:00:01.000000 openat(AT_FDCWD, \"/b\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
		       "00:00:01.000001 write(3, \"abc\", 3) = 3\n");
	char *arg[1] = { (char *)tp("ffn") };
	load(arg, 1, "strace", false, &res, &s);
	assert_int_equal(s.nranks, 2);
	assert_string_equal(opstream_rank_name(&s, 0), "pid 100");
	assert_string_equal(opstream_rank_name(&s, 1), "pid 101");
	/* the child starts 2 s after the parent, not 86398 s before it */
	assert_true(s.ranks[1].t0_ns - s.ranks[0].t0_ns == 1999999ull * 1000);
	done(&res, &s);
}

/* strace -ff killed: every process's file may end mid-line (where what
 * is left parses too).  With the
 * descriptor limit at 48 the reader keeps 8 files open and closes the
 * others, keeping their current line: a cut line held by a closed file
 * is known as cut too.  Run in a child (the hard limit cannot come back). */
static void test_cut_last_line_ff(void **state)
{
	(void)state;
	enum { NF = 20 };
	for (unsigned i = 0; i < NF; i++) {
		char name[32], text[400];
		snprintf(name, sizeof(name), "ffcut.%u", 300 + i);
		snprintf(text, sizeof(text),
			 "10:00:00.%06u openat(AT_FDCWD, \"/f%u\", O_WRONLY|O_CREAT, 0644) = 3\n"
			 "10:00:00.%06u write(3, \"abcd\", %u) = %u\n"
			 "10:00:01.000000 write(3, \"abcd\", 4%s",
			 10 + i, i, 100 + (i * 7) % NF, i + 1, i + 1,
			 i % 2 ? ") = 4" : "");  /* parses, but is cut all the same */
		put(name, text);
	}
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct rlimit rl = { 48, 48 };
		struct rerr e = { "" };
		struct load_result res;
		struct load_opts o = { 0 };
		struct opstream s;
		char buf[64], *arg[1] = { (char *)tp("ffcut") };
		const char *why = NULL;
		if (setrlimit(RLIMIT_NOFILE, &rl) || trace_load(arg, 1, &o, NULL, &res, &e) ||
		    opstream_open(&s, res.ops_path, &why)) {
			fprintf(stderr, "load: %s\n", e.msg);
			_exit(2);
		}
		unlink(res.ops_path);
		const char *v = opstream_info(&s, "cut_lines", buf, sizeof(buf));
		if (!v || strcmp(v, "20") || s.nranks != NF) {
			fprintf(stderr, "cut_lines %s, %u ranks\n", v ? v : "none", s.nranks);
			_exit(3);
		}
		for (unsigned i = 0; i < NF; i++) {
			char rank[32];
			snprintf(rank, sizeof(rank), "pid %u", 300 + i);
			struct sums x = rank_sums(&s, rank);
			if (x.writes != 1 || x.wbytes != i + 1)
				_exit(4);
		}
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_samples_f),
		cmocka_unit_test(test_samples_ff_r_32),
		cmocka_unit_test(test_ff_relative_child_clock),
		cmocka_unit_test(test_ops_passthrough_and_errors),
		cmocka_unit_test(test_ff_merge_by_time),
		cmocka_unit_test(test_ff_merge_many_ties),
		cmocka_unit_test(test_midnight),
		cmocka_unit_test(test_stderr_cut_clone),
		cmocka_unit_test(test_clones_in_flight),
		cmocka_unit_test(test_detect_ltrace),
		cmocka_unit_test(test_detect_strace_of_sandia_bytes),
		cmocka_unit_test(test_cut_last_line),
		cmocka_unit_test(test_bad_line_hint),
		cmocka_unit_test(test_cut_last_line_ff),
		cmocka_unit_test(test_compressed_named),
		cmocka_unit_test(test_utf8_bom),
		cmocka_unit_test(test_binary_bytes),
		cmocka_unit_test(test_foreign_trace_in_dir),
		cmocka_unit_test(test_ff_missing),
		cmocka_unit_test(test_ff_midnight),
		cmocka_unit_test(test_clock_back),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
