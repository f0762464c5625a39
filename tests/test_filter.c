/*
 * test_filter.c - plan/filter: which paths and ranks of a trace are the
 * application's I/O.  Streams come from strace text through the real
 * reader (strace_text.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "plan/filter.h"

#define TMPDIR_TEMPLATE "/tmp/replay-test-filterXXXXXX"
#include "tmpdir_fixture.h"
#include "strace_text.h"

/* Rank 0 (pid 10): a shared library, an MPI shared-memory segment, an Open
 * MPI session file, data; rank 1 (pid 11): only runtime noise; rank 2
 * (pid 12): data and a log. */
static const char mpi_like[] =
	"10 10:00:00.000001 openat(AT_FDCWD, \"/usr/lib/libmpi.so.40\", O_RDONLY|O_CLOEXEC) = 3\n"
	"10 10:00:00.000002 read(3, \"\\177ELF\"..., 832) = 832\n"
	"10 10:00:00.000003 close(3) = 0\n"
	"10 10:00:00.000004 openat(AT_FDCWD, \"/dev/shm/vader_segment.n1.0\", O_RDWR|O_CREAT, 0600) = 4\n"
	"10 10:00:00.000005 ftruncate(4, 4194304) = 0\n"
	"10 10:00:00.000006 close(4) = 0\n"
	"10 10:00:00.000007 openat(AT_FDCWD, \"/tmp/ompi.n1.0/jf.1/0/sm\", O_RDWR|O_CREAT, 0600) = 5\n"
	"10 10:00:00.000008 close(5) = 0\n"
	"10 10:00:00.000009 openat(AT_FDCWD, \"/scratch/job/out.dat\", O_WRONLY|O_CREAT, 0644) = 6\n"
	"10 10:00:00.000010 pwrite64(6, \"x\"..., 4096, 0) = 4096\n"
	"10 10:00:00.000011 close(6) = 0\n"
	"11 10:00:00.000012 openat(AT_FDCWD, \"/etc/hosts\", O_RDONLY) = 3\n"
	"11 10:00:00.000013 read(3, \"127\"..., 4096) = 120\n"
	"11 10:00:00.000014 close(3) = 0\n"
	"11 10:00:00.000015 openat(AT_FDCWD, \"/home/u/.openmpi/mca-params.conf\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
	"12 10:00:00.000016 openat(AT_FDCWD, \"/scratch/job/out.dat\", O_WRONLY, 0644) = 3\n"
	"12 10:00:00.000017 pwrite64(3, \"y\"..., 4096, 4096) = 4096\n"
	"12 10:00:00.000018 close(3) = 0\n"
	"12 10:00:00.000019 openat(AT_FDCWD, \"/scratch/job/run.log\", O_WRONLY|O_CREAT|O_APPEND, 0644) = 3\n"
	"12 10:00:00.000020 write(3, \"step 1\\n\", 7) = 7\n"
	"12 10:00:00.000021 close(3) = 0\n";

static const struct filter_rule *rule(const struct filter *f, const char *what)
{
	for (size_t i = 0; i < f->nrules; i++)
		if (!strcmp(f->rules[i].what, what))
			return &f->rules[i];
	return NULL;
}

static uint64_t kept_ops_of(const struct opstream *s, const struct filter *f, uint32_t r)
{
	uint64_t n, k = 0;
	const struct op *o = opstream_rank_ops(s, r, &n);
	for (uint64_t i = 0; i < n; i++)
		k += filter_op_kept(f, &o[i]);
	return k;
}

static void test_defaults(void **state)
{
	(void)state;
	struct opstream s;
	struct filter f;
	struct filter_opts o = { 0 };
	struct rerr e = { .msg = "" };
	strace_text_open(&s, "defaults", mpi_like);
	assert_int_equal(s.nranks, 3);
	assert_int_equal(filter_build(&f, &s, &o, &e), 0);

	assert_false(filter_path_kept(&f, strace_text_path(&s, "/usr/lib/libmpi.so.40")));
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/dev/shm/vader_segment.n1.0")));
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/tmp/ompi.n1.0/jf.1/0/sm")));
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/etc/hosts")));
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/home/u/.openmpi/mca-params.conf")));
	assert_true(filter_path_kept(&f, strace_text_path(&s, "/scratch/job/out.dat")));
	assert_true(filter_path_kept(&f, strace_text_path(&s, "/scratch/job/run.log")));

	/* each rule counts what it removed: /usr 3 ops (open, read, close) */
	const struct filter_rule *u = rule(&f, "/usr");
	assert_non_null(u);
	assert_int_equal(u->ops, 3);
	assert_int_equal(u->files, 1);
	assert_non_null(rule(&f, "/dev"));
	assert_int_equal(rule(&f, "/dev")->ops, 3);
	assert_int_equal(rule(&f, "/tmp/ompi.*")->ops, 2);
	assert_int_equal(rule(&f, "*/.openmpi")->ops, 1);

	/* rank 1 (pid 11) had only noise: dropped; ranks 0 and 2 kept in order */
	assert_int_equal(f.nkept, 2);
	assert_int_equal(f.kept[0], 0);
	assert_int_equal(f.kept[1], 2);
	assert_false(f.rank_kept[1]);
	assert_int_equal(f.ranks_empty, 1);
	assert_int_equal(kept_ops_of(&s, &f, 0), 3);
	assert_int_equal(kept_ops_of(&s, &f, 2), 6);
	assert_int_equal(f.ops_kept, 9);
	assert_int_equal(f.ops_kept + f.ops_removed, s.nops);
	char buf[512];
	assert_non_null(strstr(filter_summary(&f, buf, sizeof(buf)), "1 rank"));
	filter_release(&f);
	opstream_close(&s);
}

/* The session files of the other launchers: srun --mpi=pmix (Slurm's
 * PMIx plugin, under TmpFS or a site's local tmp) and PRRTE (Open MPI 5);
 * names that only resemble them stay. */
static const char launchers[] =
	"20 10:00:00.000001 openat(AT_FDCWD, \"/tmp/spmix_appdir_0_7.0/out.dat_cid-0-1.sm\", O_RDWR|O_CREAT, 0600) = 17\n"
	"20 10:00:00.000002 write(17, \"abcd\", 40) = 40\n"
	"20 10:00:00.000003 mkdir(\"/local/tmp/spmix_appdir_1000_12.0\", 0700) = 0\n"
	"20 10:00:00.000004 openat(AT_FDCWD, \"/tmp/prte.n1.0/dvm.1/contact.txt\", O_RDONLY) = 3\n"
	"20 10:00:00.000005 openat(AT_FDCWD, \"/tmp/prterun.n1.42.0/pmix.sock\", O_RDONLY) = 4\n"
	"20 10:00:00.000006 openat(AT_FDCWD, \"/scratch/spmix_results.h5\", O_WRONLY|O_CREAT, 0644) = 5\n"
	"20 10:00:00.000007 pwrite64(5, \"x\"..., 4096, 0) = 4096\n"
	"20 10:00:00.000008 openat(AT_FDCWD, \"/tmp/prte_input.dat\", O_RDONLY) = 6\n"
	"20 10:00:00.000009 openat(AT_FDCWD, \"/local/slurm/spool/pmix.1.0//pmix_dstor_ds12_22262/dstore_sm.lock\", O_RDWR) = 7\n"
	/* the session directories in a batch job's $TMPDIR */
	"20 10:00:00.000010 openat(AT_FDCWD, \"/scratch/job42/ompi.n1.1000/pid.77/1/shared.dat_cid--1-0.sm\", O_RDWR|O_CREAT, 0600) = 8\n"
	"20 10:00:00.000011 mkdir(\"/scratch/job42/prte.n1.1000/dvm.77\", 0700) = 0\n"
	"20 10:00:00.000012 openat(AT_FDCWD, \"/scratch/ompi.results/run.dat\", O_RDONLY) = 9\n"
	"20 10:00:00.000013 openat(AT_FDCWD, \"/scratch/w/ompi.results.1/out.dat\", O_RDONLY) = 10\n";

static void test_launchers(void **state)
{
	(void)state;
	struct opstream s;
	struct filter f;
	struct filter_opts o = { 0 };
	struct rerr e = { .msg = "" };
	strace_text_open(&s, "launchers", launchers);
	assert_int_equal(filter_build(&f, &s, &o, &e), 0);
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/tmp/spmix_appdir_0_7.0/out.dat_cid-0-1.sm")));
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/local/tmp/spmix_appdir_1000_12.0")));
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/tmp/prte.n1.0/dvm.1/contact.txt")));
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/tmp/prterun.n1.42.0/pmix.sock")));
	assert_true(filter_path_kept(&f, strace_text_path(&s, "/scratch/spmix_results.h5")));
	assert_true(filter_path_kept(&f, strace_text_path(&s, "/tmp/prte_input.dat")));
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/local/slurm/spool/pmix.1.0/pmix_dstor_ds12_22262/dstore_sm.lock")));
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/scratch/job42/ompi.n1.1000/pid.77/1/shared.dat_cid--1-0.sm")));
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/scratch/job42/prte.n1.1000/dvm.77")));
	assert_true(filter_path_kept(&f, strace_text_path(&s, "/scratch/ompi.results/run.dat")));
	assert_true(filter_path_kept(&f, strace_text_path(&s, "/scratch/w/ompi.results.1/out.dat")));
	assert_int_equal(rule(&f, "*/spmix_appdir_*")->ops, 3);
	assert_int_equal(rule(&f, "*/spmix_appdir_*")->files, 2);
	char buf[512];
	assert_non_null(strstr(filter_summary(&f, buf, sizeof(buf)), "*/spmix_appdir_*: 3 ops on 2 files"));
	assert_non_null(strstr(filter_summary(&f, buf, sizeof(buf)), "/tmp/prte.*: 1 op on 1 file"));
	filter_release(&f);
	opstream_close(&s);
}

static void test_include_exclude(void **state)
{
	(void)state;
	struct opstream s;
	struct filter f;
	struct filter_opts o = { .include = { "/dev/shm" }, .ninclude = 1,
				 .exclude = { "*.log" }, .nexclude = 1 };
	struct rerr e = { .msg = "" };
	strace_text_open(&s, "incl", mpi_like);
	assert_int_equal(filter_build(&f, &s, &o, &e), 0);
	/* --include undoes the /dev default below it, nothing else */
	assert_true(filter_path_kept(&f, strace_text_path(&s, "/dev/shm/vader_segment.n1.0")));
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/usr/lib/libmpi.so.40")));
	/* --exclude matches anywhere ('*' crosses '/') */
	assert_false(filter_path_kept(&f, strace_text_path(&s, "/scratch/job/run.log")));
	const struct filter_rule *x = rule(&f, "--exclude '*.log'");
	assert_non_null(x);
	assert_int_equal(x->ops, 3);
	assert_int_equal(rule(&f, "/dev")->ops, 0);      /* it removed nothing now */
	filter_release(&f);

	/* --no-default-excludes: everything, every rank */
	struct filter_opts all = { .no_defaults = true };
	assert_int_equal(filter_build(&f, &s, &all, &e), 0);
	assert_int_equal(f.nkept, 3);
	assert_int_equal(f.ops_removed, 0);
	assert_int_equal(f.ops_kept, s.nops);
	filter_release(&f);
	opstream_close(&s);
}

static void test_ranks(void **state)
{
	(void)state;
	struct opstream s;
	struct filter f;
	struct filter_opts o = { .no_defaults = true };
	struct rerr e = { .msg = "" };
	strace_text_open(&s, "ranks", mpi_like);
	assert_int_equal(ranklist_parse("1-2", &o.ranks), 0);
	assert_int_equal(filter_build(&f, &s, &o, &e), 0);
	assert_int_equal(f.nkept, 2);
	assert_int_equal(f.kept[0], 1);
	assert_int_equal(f.kept[1], 2);
	assert_int_equal(f.ranks_unselected, 1);
	filter_release(&f);
	filter_opts_release(&o);

	/* a rank the trace does not have is an error naming it */
	struct filter_opts bad = { 0 };
	assert_int_equal(ranklist_parse("0,7", &bad.ranks), 0);
	assert_int_equal(filter_build(&f, &s, &bad, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "7"));
	filter_opts_release(&bad);
	opstream_close(&s);
}

/* A rename out of a kept directory into an excluded one: the op names an
 * excluded path, so it is not replayed (it would write outside what the
 * run prepares). */
static void test_two_paths(void **state)
{
	(void)state;
	struct opstream s;
	struct filter f;
	struct filter_opts o = { 0 };
	struct rerr e = { .msg = "" };
	strace_text_open(&s, "two",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/data/a\", O_WRONLY|O_CREAT, 0644) = 3\n"
		"1 10:00:00.000002 close(3) = 0\n"
		"1 10:00:00.000003 rename(\"/data/a\", \"/var/tmp/a\") = 0\n"
		"1 10:00:00.000004 rename(\"/data/a\", \"/data/b\") = -1 ENOENT (No such file or directory)\n");
	assert_int_equal(filter_build(&f, &s, &o, &e), 0);
	uint64_t n;
	const struct op *ops = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(n, 4);
	assert_true(filter_op_kept(&f, &ops[0]));
	assert_false(filter_op_kept(&f, &ops[2]));
	assert_true(filter_op_kept(&f, &ops[3]));
	filter_release(&f);
	opstream_close(&s);
}

/* run -n fewer than the kept ranks: filter_limit cuts the filter to the
 * first n, and its counts (ops kept and removed, the rules') become those
 * of the ranks replayed; before, they stayed the whole trace's. */
static void test_limit(void **state)
{
	(void)state;
	struct opstream s;
	struct filter f;
	struct filter_opts o = { 0 };
	struct rerr e = { .msg = "" };
	char buf[512];
	strace_text_open(&s, "limit", mpi_like);
	assert_int_equal(filter_build(&f, &s, &o, &e), 0);
	assert_int_equal(f.nkept, 2);
	filter_limit(&f, &s, 2);                 /* as many as kept: nothing */
	filter_limit(&f, &s, 0);
	assert_int_equal(f.nkept, 2);
	assert_int_equal(f.ranks_beyond, 0);
	assert_int_equal(f.ops_kept, 9);

	filter_limit(&f, &s, 1);                 /* rank 0 only; rank 2 past -n */
	assert_int_equal(f.nkept, 1);
	assert_int_equal(f.kept[0], 0);
	assert_true(f.rank_kept[0]);
	assert_false(f.rank_kept[2]);
	assert_int_equal(f.ranks_beyond, 1);
	assert_int_equal(f.ranks_empty, 1);      /* rank 1, still said */
	assert_int_equal(f.ops_kept, kept_ops_of(&s, &f, 0));
	assert_int_equal(f.ops_kept, 3);
	assert_int_equal(filter_rank_ops(&f, 0, 0), 3);
	/* removed: rank 0's noise (8 ops) and rank 1's (4), not rank 2's log */
	uint64_t n2;
	opstream_rank_ops(&s, 2, &n2);
	assert_int_equal(f.ops_kept + f.ops_removed, s.nops - n2);
	assert_int_equal(rule(&f, "/usr")->ops, 3);
	assert_int_equal(rule(&f, "/etc")->ops, 3);
	assert_int_equal(rule(&f, "/etc")->files, 1);
	assert_int_equal(f.files_kept, 1);       /* out.dat; run.log was rank 2's */
	assert_non_null(strstr(filter_summary(&f, buf, sizeof(buf)), "1 rank past the 1 replayed (-n)"));
	filter_release(&f);

	/* --ranks then -n: counted among the selected ranks */
	struct filter_opts sel = { .no_defaults = true };
	assert_int_equal(ranklist_parse("1-2", &sel.ranks), 0);
	assert_int_equal(filter_build(&f, &s, &sel, &e), 0);
	filter_limit(&f, &s, 1);
	assert_int_equal(f.nkept, 1);
	assert_int_equal(f.kept[0], 1);
	assert_int_equal(f.ranks_unselected, 1);
	assert_int_equal(f.ranks_beyond, 1);
	assert_int_equal(f.ops_removed, 0);
	assert_int_equal(f.ops_kept, kept_ops_of(&s, &f, 1));
	filter_release(&f);
	filter_opts_release(&sel);
	opstream_close(&s);
}

/* The strace reader learns a process's program from its successful execve
 * (a thread's: its process's; a forked child's: its own): a rank running
 * a launcher is recorded as one and left out by default, not counting for
 * -n; a thread's rank says whose thread it is. */
static int note_launcher(void *arg, uint32_t rank, int64_t pid, const char *prog)
{
	char *out = arg;
	sprintf(out + strlen(out), "%u %lld %s;", rank, (long long)pid, prog);
	return 0;
}

static void test_launcher_ranks(void **state)
{
	(void)state;
	struct opstream s;
	strace_text_open(&s, "launch",
		"100 10:00:00.000001 execve(\"/usr/bin/mpirun\", [\"mpirun\", \"-np\", \"1\", \"./prog\"],"
		" 0x7ffc /* 4 vars */) = 0\n"
		"100 10:00:00.000002 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|"
		"CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 101\n"
		"101 10:00:00.000003 execve(\"/usr/bin/srun\", [\"srun\"], 0x55 /* 9 vars */) ="
		" -1 ENOENT (No such file or directory)\n"
		"101 10:00:00.000004 execve(\"./prog\", [\"./prog\"], 0x55 /* 9 vars */) = 0\n"
		"101 10:00:00.000005 openat(AT_FDCWD, \"/d/out\", O_WRONLY|O_CREAT, 0644) = 3\n"
		"101 10:00:00.000006 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|"
		"CLONE_THREAD|CLONE_SYSVSEM, child_tid=0x7f, parent_tid=0x7f, exit_signal=0,"
		" stack=0x7f, stack_size=0x7f, tls=0x7f} => {parent_tid=[102]}, 88) = 102\n"
		"102 10:00:00.000007 pwrite64(3</d/out>, \"x\", 1, 0) = 1\n"
		"100 10:00:00.000008 write(1</d/job.out>, \"hello\\n\", 6) = 6\n"
		"101 10:00:00.000009 close(3</d/out>) = 0\n");
	assert_int_equal(s.nranks, 3);
	assert_int_equal(s.ranks[0].pid, 101);
	assert_int_equal(s.ranks[1].pid, 102);
	assert_int_equal(s.ranks[2].pid, 100);
	char got[256] = "";
	assert_int_equal(opstream_launchers(&s, note_launcher, got), 0);
	assert_string_equal(got, "2 100 mpirun;");
	int64_t tgid[3];
	opstream_thread_of(&s, tgid);
	assert_int_equal(tgid[0], -1);
	assert_int_equal(tgid[1], 101);
	assert_int_equal(tgid[2], -1);

	/* by default the launcher's rank is left out, its ops counted */
	struct filter f;
	struct filter_opts o = { 0 };
	struct rerr e = { .msg = "" };
	char t[512];
	assert_int_equal(filter_build(&f, &s, &o, &e), 0);
	assert_int_equal(f.nkept, 2);
	assert_int_equal(f.kept[0], 0);
	assert_int_equal(f.kept[1], 1);
	assert_int_equal(f.ranks_launcher, 1);
	assert_int_equal(f.ranks_empty, 0);
	assert_string_equal(filter_launchers_text(&f, t, sizeof(t)),
			    "launcher processes: 2 ops of mpirun (pid 100) left out"
			    " (a launcher's I/O: the job's output it forwards, its own files)");
	filter_limit(&f, &s, 1);        /* -n 1: the launcher is no rank to cut */
	assert_int_equal(f.ranks_beyond, 1);
	assert_int_equal(f.launchers[0].ops, 2);
	filter_release(&f);
	/* --no-default-excludes: replayed as any other rank */
	o.no_defaults = true;
	assert_int_equal(filter_build(&f, &s, &o, &e), 0);
	assert_int_equal(f.nkept, 3);
	assert_int_equal(f.ranks_launcher, 0);
	filter_release(&f);
	opstream_close(&s);
}

/* Launchers by the names distributions give them (Debian's alternatives:
 * mpiexec.mpich, mpirun.openmpi), and a job script's child that opens the
 * redirect of `mpirun ... > out` before it executes mpirun: both left out;
 * a program whose name only begins like one (srunner) is not. */
static void test_launcher_late_and_suffixed(void **state)
{
	(void)state;
	struct opstream s;
	strace_text_open(&s, "launch2",
		"200 10:00:00.000001 openat(AT_FDCWD, \"/d/job4.out\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\n"
		"200 10:00:00.000002 dup2(3, 1) = 1\n"
		"200 10:00:00.000003 close(3) = 0\n"
		"200 10:00:00.000004 execve(\"/usr/bin/mpirun\", [\"mpirun\"], 0x55 /* 9 vars */) = 0\n"
		"200 10:00:00.000005 write(1, \"rank 0 done\\n\", 12) = 12\n"
		"300 10:00:00.000006 execve(\"/usr/bin/mpiexec.mpich\", [\"mpiexec.mpich\"], 0x55 /* 9 vars */) = 0\n"
		"300 10:00:00.000007 write(1</d/mp.out>, \"x\\n\", 2) = 2\n"
		"400 10:00:00.000008 execve(\"/usr/bin/mpirun.openmpi\", [\"mpirun.openmpi\"], 0x55 /* 9 vars */) = 0\n"
		"400 10:00:00.000009 write(1</d/om.out>, \"x\\n\", 2) = 2\n"
		"500 10:00:00.000010 execve(\"/home/u/srunner\", [\"srunner\"], 0x55 /* 9 vars */) = 0\n"
		"500 10:00:00.000011 openat(AT_FDCWD, \"/d/data\", O_WRONLY|O_CREAT, 0644) = 3\n"
		"500 10:00:00.000012 write(3, \"x\", 1) = 1\n");
	char got[256] = "";
	assert_int_equal(opstream_launchers(&s, note_launcher, got), 0);
	assert_non_null(strstr(got, " 200 mpirun;"));
	assert_non_null(strstr(got, " 300 mpiexec.mpich;"));
	assert_non_null(strstr(got, " 400 mpirun.openmpi;"));
	assert_null(strstr(got, "srunner"));
	struct filter f;
	struct filter_opts o = { 0 };
	struct rerr e = { .msg = "" };
	assert_int_equal(filter_build(&f, &s, &o, &e), 0);
	assert_int_equal(f.ranks_launcher, 3);
	assert_int_equal(f.nkept, 1);
	assert_int_equal(s.ranks[f.kept[0]].pid, 500);
	filter_release(&f);
	opstream_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_launchers),
		cmocka_unit_test(test_include_exclude),
		cmocka_unit_test(test_ranks),
		cmocka_unit_test(test_two_paths),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_launcher_ranks),
		cmocka_unit_test(test_launcher_late_and_suffixed),
	};
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
