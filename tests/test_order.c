/*
 * test_order.c - plan/order: the initial state of every path and the
 * cross-rank dependencies of parallel mode, from strace text through the
 * real reader (strace_text.h).  The last test checks the dependencies of a
 * random multi-process trace against an independent byte-level model.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plan/order.h"

#define TMPDIR_TEMPLATE "/tmp/replay-test-orderXXXXXX"
#include "tmpdir_fixture.h"
#include "strace_text.h"

static uint32_t all_ranks[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

static void build(struct order *o, const struct opstream *s)
{
	struct rerr e = { .msg = "" };
	struct order_opts oo = { .ranks = all_ranks, .nranks = s->nranks,
				 .deps = true, .alone = true };
	int rc = order_build(o, s, &oo, &e);
	if (rc)
		fail_msg("order_build: %s", e.msg);
}

/* The strongest need rank position `b` has on `a` for its ops <= op. */
static uint64_t need_upto(const struct order *o, uint32_t b, uint64_t op, uint32_t a)
{
	uint64_t need = 0;
	for (uint64_t k = 0; k < o->ndeps[b]; k++) {
		const struct dep *d = &o->deps[b][k];
		if (d->op <= op && d->rank == a && d->need > need)
			need = d->need;
	}
	return need;
}

/* Rank 0 creates and writes; rank 1 later reads those bytes, and bytes
 * nobody wrote in a second file. */
static void test_raw(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "raw",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/shared.dat\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
		"1 10:00:00.000002 pwrite64(3, \"x\"..., 4096, 0) = 4096\n"
		"1 10:00:00.000003 pwrite64(3, \"x\"..., 4096, 8192) = 4096\n"
		"1 10:00:00.000004 close(3) = 0\n"
		"2 10:00:00.000005 openat(AT_FDCWD, \"/d/shared.dat\", O_RDONLY) = 3\n"
		"2 10:00:00.000006 pread64(3, \"x\"..., 4096, 8192) = 4096\n"
		"2 10:00:00.000007 pread64(3, \"x\"..., 100, 5000) = 100\n"
		"2 10:00:00.000008 close(3) = 0\n"
		"2 10:00:00.000009 openat(AT_FDCWD, \"/d/input.dat\", O_RDONLY) = 4\n"
		"2 10:00:00.000010 read(4, \"x\"..., 65536) = 1000\n"
		"2 10:00:00.000011 close(4) = 0\n");
	build(&o, &s);
	assert_int_equal(o.nranks, 2);
	assert_true(o.by_line);
	assert_int_equal(o.ndeps[0], 0);
	/* rank 1's open needs the create (rank 0's op 0 done) and its read of
	 * [8192, 12288) needs the second pwrite (op 2): need 3 by op 1 */
	assert_true(need_upto(&o, 1, 0, 0) >= 1);
	assert_int_equal(need_upto(&o, 1, 1, 0), 3);
	/* every edge points back: no need beyond what rank 0 did before */
	for (uint64_t k = 0; k < o.ndeps[1]; k++)
		assert_true(o.deps[1][k].need <= 4);

	uint32_t sh = strace_text_path(&s, "/d/shared.dat");
	uint32_t in = strace_text_path(&s, "/d/input.dat");
	assert_true(o.paths[sh].bits & PS_CREATED);
	assert_false(o.paths[sh].bits & PS_EXISTED);
	assert_true(o.paths[sh].bits & PS_WRITTEN);
	/* input.dat: existed; a short read at 0 pins its size */
	assert_true(o.paths[in].bits & PS_EXISTED);
	assert_true(o.paths[in].bits & PS_SIZED);
	assert_int_equal(o.paths[in].size0, 1000);
	order_release(&o);
	opstream_close(&s);
}

/* fallocate by mode: three processes one after the other on one file
 * (util-linux fallocate -z, -z -n, -c): the collapse moves the data and
 * the size, so it waits for the others' last ops, and every later op of
 * another rank waits for it; a size-extending fallocate is data readers
 * wait for, as a write; a KEEP_SIZE preallocation is not; a hole punched
 * waits for the allocation of its range by another rank. */
static void test_fallocate_modes(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "falloc",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/w/z.bin\", O_RDWR|O_CREAT, 0644) = 3\n"
		"1 10:00:00.000002 fallocate(3, FALLOC_FL_ZERO_RANGE, 500000, 2000000) = 0\n"
		"1 10:00:00.000003 close(3) = 0\n"
		"2 10:00:00.000004 openat(AT_FDCWD, \"/w/z.bin\", O_RDWR) = 3\n"
		"2 10:00:00.000005 fallocate(3, FALLOC_FL_KEEP_SIZE|FALLOC_FL_ZERO_RANGE, 4000000, 1000000) = 0\n"
		"2 10:00:00.000006 close(3) = 0\n"
		"3 10:00:00.000007 openat(AT_FDCWD, \"/w/z.bin\", O_RDWR) = 3\n"
		"3 10:00:00.000008 fallocate(3, FALLOC_FL_COLLAPSE_RANGE, 0, 4096) = 0\n"
		"3 10:00:00.000009 close(3) = 0\n"
		"4 10:00:00.000010 openat(AT_FDCWD, \"/w/z.bin\", O_RDONLY) = 3\n"
		"4 10:00:00.000011 fstat(3, {st_mode=S_IFREG|0644, st_size=2495904, ...}) = 0\n"
		"4 10:00:00.000012 close(3) = 0\n"
		"5 10:00:00.000013 openat(AT_FDCWD, \"/w/p.bin\", O_RDWR|O_CREAT|O_EXCL, 0644) = 3\n"
		"5 10:00:00.000014 fallocate(3, 0, 0, 8192) = 0\n"
		"5 10:00:00.000015 fallocate(3, FALLOC_FL_KEEP_SIZE, 8192, 8192) = 0\n"
		"5 10:00:00.000016 close(3) = 0\n"
		"6 10:00:00.000017 openat(AT_FDCWD, \"/w/p.bin\", O_RDONLY) = 3\n"
		"6 10:00:00.000018 pread64(3, \"\"..., 100, 4096) = 100\n"
		"6 10:00:00.000019 pread64(3, \"\"..., 100, 8192) = 0\n"
		"6 10:00:00.000020 close(3) = 0\n"
		"7 10:00:00.000021 openat(AT_FDCWD, \"/w/p.bin\", O_RDWR) = 3\n"
		"7 10:00:00.000022 fallocate(3, FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE, 0, 4096) = 0\n"
		"7 10:00:00.000023 close(3) = 0\n");
	build(&o, &s);
	assert_int_equal(o.nranks, 7);
	/* the collapse (rank 2, op 1) after ranks 0 and 1 closed the file */
	assert_int_equal(need_upto(&o, 2, 1, 0), 3);
	assert_int_equal(need_upto(&o, 2, 1, 1), 3);
	/* rank 3 opens it after the collapse */
	assert_true(need_upto(&o, 3, 0, 2) >= 2);
	/* the plain fallocate that extends p.bin is the data rank 5 reads
	 * (op 1 of rank 4: need 2); the KEEP_SIZE one is nothing to wait for */
	assert_int_equal(need_upto(&o, 5, 1, 4), 2);
	assert_true(need_upto(&o, 5, 2, 4) <= 2);
	/* rank 1's zero range of [4000000, 5000000) needs nothing of rank 0's
	 * [500000, 2500000); rank 0's close is not needed by rank 1's open */
	assert_true(need_upto(&o, 1, 1, 0) <= 1);      /* (the create: op 0) */
	/* a hole punched in what rank 4 allocated: after the allocation */
	assert_int_equal(need_upto(&o, 6, 1, 4), 2);
	uint32_t z = strace_text_path(&s, "/w/z.bin");
	assert_true(o.paths[z].bits & PS_WRITTEN);
	order_release(&o);
	opstream_close(&s);
}

/* A hole made by a write past the end is data its readers wait for: a
 * rank's pread of it, replayed before the write, found the file shorter
 * (audit R: "0 bytes where the trace moved 1000", 9 runs in 10).  The
 * hole that an ftruncate makes was one already (the truncate waits for
 * nothing, the readers after it wait for it). */
static void test_hole_read(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "hole",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/h.dat\", O_RDWR|O_CREAT, 0644) = 3\n"
		"1 10:00:00.000002 pwrite64(3, \"x\"..., 10, 0) = 10\n"
		"1 10:00:00.000003 pwrite64(3, \"x\"..., 10, 100000) = 10\n"
		"1 10:00:00.000004 pwrite64(3, \"x\"..., 10, 200000) = 10\n"
		"2 10:00:00.000005 openat(AT_FDCWD, \"/d/h.dat\", O_RDONLY) = 3\n"
		"2 10:00:00.000006 pread64(3, \"\"..., 1000, 50000) = 1000\n"
		"2 10:00:00.000007 pread64(3, \"\"..., 1000, 150000) = 1000\n"
		"2 10:00:00.000008 pread64(3, \"\"..., 5, 2) = 5\n"
		"2 10:00:00.000009 close(3) = 0\n"
		"1 10:00:00.000010 close(3) = 0\n");
	build(&o, &s);
	assert_int_equal(o.nranks, 2);
	/* [50000, 51000): the hole of the write at 100000 (rank 0's op 2;
	 * a rank's adjacent ranges are merged, so at most its latest write
	 * before the read, op 3) */
	assert_true(need_upto(&o, 1, 1, 0) >= 3);
	/* [150000, 151000): the hole of the write at 200000 (op 3) */
	assert_int_equal(need_upto(&o, 1, 2, 0), 4);
	/* nothing waits for rank 0's close */
	for (uint64_t k = 0; k < o.ndeps[1]; k++)
		assert_true(o.deps[1][k].need <= 4);
	order_release(&o);
	opstream_close(&s);
}

/* A write placed past the end waits for the other ranks' appends the
 * trace shows before it: replayed after it, an append would land past
 * its end (2131 bytes for 2001). */
static void test_extend_after_append(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "extapp",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/s.dat\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
		"1 10:00:00.000002 write(3, \"x\"..., 1000) = 1000\n"
		"1 10:00:00.000003 fcntl(3, F_SETFL, O_WRONLY|O_APPEND) = 0\n"
		"1 10:00:00.000004 write(3, \"a\"..., 130) = 130\n"
		"1 10:00:00.000005 clone(child_stack=NULL, flags=SIGCHLD) = 2\n"
		"2 10:00:00.000006 fcntl(3, F_SETFL, O_WRONLY) = 0\n"
		"2 10:00:00.000007 pwrite64(3, \"c\", 1, 2000) = 1\n"
		"1 10:00:00.000008 close(3) = 0\n");
	build(&o, &s);
	assert_int_equal(o.nranks, 2);
	/* rank 1's pwrite (its op 2: after the implicit open and its setfl)
	 * waits for rank 0's append (op 3, need 4) */
	assert_true(need_upto(&o, 1, 2, 0) >= 4);
	order_release(&o);
	opstream_close(&s);
}

/* Two ranks on disjoint ranges of one pre-existing file: no edge between
 * their data ops. */
static void test_disjoint(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "disjoint",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/f\", O_RDWR) = 3\n"
		"2 10:00:00.000002 openat(AT_FDCWD, \"/d/f\", O_RDWR) = 3\n"
		"1 10:00:00.000003 pwrite64(3, \"x\"..., 4096, 0) = 4096\n"
		"2 10:00:00.000004 pwrite64(3, \"x\"..., 4096, 4096) = 4096\n"
		"1 10:00:00.000005 pread64(3, \"x\"..., 4096, 0) = 4096\n"
		"2 10:00:00.000006 pread64(3, \"x\"..., 4096, 4096) = 4096\n"
		"1 10:00:00.000007 close(3) = 0\n"
		"2 10:00:00.000008 close(3) = 0\n");
	build(&o, &s);
	assert_int_equal(o.ndeps[0], 0);
	assert_int_equal(o.ndeps[1], 0);
	uint32_t f = strace_text_path(&s, "/d/f");
	assert_true(o.paths[f].bits & PS_EXISTED);
	/* both ranks read only what they wrote: nothing pins the size */
	assert_int_equal(o.paths[f].nranks, 2);
	order_release(&o);
	opstream_close(&s);
}

/* O_EXCL: the file did not exist, whatever comes later (git, sqlite). */
static void test_excl(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "excl",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/db-journal\", O_RDWR|O_CREAT|O_EXCL, 0644) = 3\n"
		"1 10:00:00.000002 pread64(3, \"\", 512, 0) = 0\n"
		"1 10:00:00.000003 pwrite64(3, \"x\"..., 512, 0) = 512\n"
		"1 10:00:00.000004 close(3) = 0\n"
		"1 10:00:00.000005 openat(AT_FDCWD, \"/d/db\", O_RDWR|O_CREAT, 0644) = 3\n"
		"1 10:00:00.000006 pread64(3, \"x\"..., 100, 0) = 100\n"
		"1 10:00:00.000007 close(3) = 0\n");
	build(&o, &s);
	uint32_t j = strace_text_path(&s, "/d/db-journal");
	uint32_t d = strace_text_path(&s, "/d/db");
	assert_true(o.paths[j].bits & PS_CREATED);
	assert_false(o.paths[j].bits & PS_EXISTED);
	/* O_CREAT alone then a read of 100 bytes nobody wrote: it existed */
	assert_true(o.paths[d].bits & PS_EXISTED);
	assert_int_equal(o.paths[d].size0, 100);
	/* sequential mode prepares db (100 bytes), not the journal */
	const struct rank_prep *rp = &o.alone[0];
	int found_db = 0;
	for (uint32_t i = 0; i < rp->n; i++) {
		assert_int_not_equal(rp->path[i], j);
		if (rp->path[i] == d) {
			found_db = 1;
			assert_int_equal(rp->size[i], 100);
		}
	}
	assert_true(found_db);
	order_release(&o);
	opstream_close(&s);
}

/* A stat size before any write is the initial size (the planner must
 * prepare a file as large as the traced program saw it); a directory's
 * stat says nothing about a size. */
static void test_stat_size(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "statsize",
		"1 10:00:00.000001 newfstatat(AT_FDCWD, \"/d/big.h5\", {st_mode=S_IFREG|0644, st_size=1048576, ...}, 0) = 0\n"
		"1 10:00:00.000002 openat(AT_FDCWD, \"/d/big.h5\", O_RDONLY) = 3\n"
		"1 10:00:00.000003 pread64(3, \"x\"..., 4096, 0) = 4096\n"
		"1 10:00:00.000004 close(3) = 0\n"
		"1 10:00:00.000005 newfstatat(AT_FDCWD, \"/d/sub\", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0\n");
	uint64_t n;
	const struct op *ops = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(n, 5);
	assert_int_equal(ops[0].kind, OP_STAT);
	assert_true(ops[0].flags & OPF_STAT_SIZE);
	assert_int_equal(ops[0].len, 1048576);
	assert_int_equal(ops[4].kind, OP_STAT);
	assert_false(ops[4].flags & OPF_STAT_SIZE);
	build(&o, &s);
	uint32_t b = strace_text_path(&s, "/d/big.h5");
	assert_true(o.paths[b].bits & PS_EXISTED);
	assert_int_equal(o.paths[b].size0, 1048576);
	order_release(&o);
	opstream_close(&s);
}

/* Sequential mode, each rank alone: rank 1 statted the shared file empty
 * before rank 0 wrote it, then read rank 0's 64 KiB.  Alone, it must find
 * them prepared (the stat is a lower bound, not a pin). */
static void test_stat_alone(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "statalone",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/shared\", O_RDWR|O_CREAT, 0644) = 3\n"
		"2 10:00:00.000002 newfstatat(AT_FDCWD, \"/d/shared\", {st_mode=S_IFREG|0644, st_size=0, ...}, 0) = 0\n"
		"1 10:00:00.000003 pwrite64(3, \"x\"..., 65536, 0) = 65536\n"
		"2 10:00:00.000004 openat(AT_FDCWD, \"/d/shared\", O_RDONLY) = 3\n"
		"2 10:00:00.000005 pread64(3, \"x\"..., 65536, 0) = 65536\n"
		"2 10:00:00.000006 close(3) = 0\n"
		"1 10:00:00.000007 close(3) = 0\n");
	build(&o, &s);
	uint32_t f = strace_text_path(&s, "/d/shared");
	const struct rank_prep *rp = &o.alone[1];
	assert_int_equal(rp->n, 1);
	assert_int_equal(rp->path[0], f);
	assert_int_equal(rp->size[0], 65536);
	/* parallel: rank 1's read waits for the write */
	assert_int_equal(need_upto(&o, 1, 2, 0), 2);
	order_release(&o);
	opstream_close(&s);
}

/* An append to a file that existed: the op's real offset is the initial
 * size plus what was appended before it. */
static void test_append(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "append",
		"1 10:00:00.000001 newfstatat(AT_FDCWD, \"/d/run.log\", {st_mode=S_IFREG|0644, st_size=5000, ...}, 0) = 0\n"
		"1 10:00:00.000002 openat(AT_FDCWD, \"/d/run.log\", O_WRONLY|O_APPEND) = 3\n"
		"1 10:00:00.000003 write(3, \"step 1\\n\", 7) = 7\n"
		"1 10:00:00.000004 write(3, \"step 2\\n\", 7) = 7\n"
		"1 10:00:00.000005 close(3) = 0\n");
	build(&o, &s);
	uint32_t l = strace_text_path(&s, "/d/run.log");
	assert_int_equal(o.paths[l].size0, 5000);
	assert_non_null(o.true_off[0]);
	assert_int_equal(o.true_off[0][2], 5000);
	assert_int_equal(o.true_off[0][3], 5007);
	assert_int_equal(o.true_off[0][1], UINT64_MAX);
	order_release(&o);
	opstream_close(&s);
}

/* Python's open('a') of a log that existed: O_CREAT|O_APPEND, then the
 * fstat and lseek SEEK_END show 10000 bytes before the append, and the
 * file is read back.  The O_CREAT open says nothing, the size shown does:
 * the file existed with 10000 bytes, and the append lands there (it was
 * taken as made by the run, the append at 0). */
static void test_append_size_shown(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "appendshown",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/log.txt\", O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC, 0666) = 3\n"
		"1 10:00:00.000002 newfstatat(3, \"\", {st_mode=S_IFREG|0644, st_size=10000, ...}, AT_EMPTY_PATH) = 0\n"
		"1 10:00:00.000003 lseek(3, 0, SEEK_END) = 10000\n"
		"1 10:00:00.000004 write(3, \"x\"..., 100) = 100\n"
		"1 10:00:00.000005 close(3) = 0\n"
		"1 10:00:00.000006 openat(AT_FDCWD, \"/d/log.txt\", O_RDONLY|O_CLOEXEC) = 3\n"
		"1 10:00:00.000007 lseek(3, 10000, SEEK_SET) = 10000\n"
		"1 10:00:00.000008 read(3, \"x\"..., 101) = 100\n"
		"1 10:00:00.000009 close(3) = 0\n"
		"1 10:00:00.000010 openat(AT_FDCWD, \"/d/seek.txt\", O_RDWR|O_CREAT|O_APPEND, 0666) = 4\n"
		"1 10:00:00.000011 lseek(4, -10, SEEK_END) = 290\n"
		"1 10:00:00.000012 write(4, \"x\"..., 5) = 5\n"
		"1 10:00:00.000013 close(4) = 0\n");
	uint64_t n;
	const struct op *ops = opstream_rank_ops(&s, 0, &n);
	assert_int_equal(ops[3].kind, OP_WRITE);
	assert_int_equal(ops[3].offset, 10000);         /* the builder's too */
	build(&o, &s);
	uint32_t l = strace_text_path(&s, "/d/log.txt");
	uint32_t k = strace_text_path(&s, "/d/seek.txt");
	assert_true(o.paths[l].bits & PS_EXISTED);
	assert_false(o.paths[l].bits & PS_CREATED);
	assert_int_equal(o.paths[l].size0, 10000);
	assert_int_equal(o.true_off[0][3], 10000);
	assert_true(o.paths[k].bits & PS_EXISTED);
	assert_int_equal(o.paths[k].size0, 300);        /* 290 + 10 */
	assert_int_equal(o.true_off[0][11], 300);
	assert_int_equal(o.alone[0].n, 2);
	for (uint32_t i = 0; i < 2; i++)
		assert_int_equal(o.alone[0].size[i], o.alone[0].path[i] == l ? 10000 : 300);
	order_release(&o);
	opstream_close(&s);
}

/* `echo x >> log; cat log`: the shell appends 2 bytes before anything
 * shows the size; cat's fstat (10002) and short read (10002) come later.
 * The appends' base is the size then less what was appended: 10000 (it
 * was 10002, the end cat read, and the replay left 10004).  Without the
 * fstat the short read says the same; a full read only bounds it. */
static void test_append_size_later(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "appendlater",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/log\", O_WRONLY|O_CREAT|O_APPEND, 0666) = 3\n"
		"1 10:00:00.000002 write(3, \"x\\n\", 2) = 2\n"
		"1 10:00:00.000003 close(3) = 0\n"
		"2 10:00:00.000004 openat(AT_FDCWD, \"/d/log\", O_RDONLY) = 3\n"
		"2 10:00:00.000005 newfstatat(3, \"\", {st_mode=S_IFREG|0644, st_size=10002, ...}, AT_EMPTY_PATH) = 0\n"
		"2 10:00:00.000006 read(3, \"x\"..., 131072) = 10002\n"
		"2 10:00:00.000007 read(3, \"\", 131072) = 0\n"
		"2 10:00:00.000008 close(3) = 0\n"
		"1 10:00:00.000009 openat(AT_FDCWD, \"/d/log2\", O_WRONLY|O_CREAT|O_APPEND, 0666) = 4\n"
		"1 10:00:00.000010 write(4, \"x\\n\", 2) = 2\n"
		"1 10:00:00.000011 write(4, \"y\\n\", 2) = 2\n"
		"1 10:00:00.000012 close(4) = 0\n"
		"2 10:00:00.000013 openat(AT_FDCWD, \"/d/log2\", O_RDONLY) = 4\n"
		"2 10:00:00.000014 read(4, \"x\"..., 131072) = 504\n"
		"2 10:00:00.000015 close(4) = 0\n"
		"1 10:00:00.000016 openat(AT_FDCWD, \"/d/log3\", O_WRONLY|O_APPEND) = 5\n"
		"1 10:00:00.000017 write(5, \"x\\n\", 2) = 2\n"
		"1 10:00:00.000018 close(5) = 0\n"
		"2 10:00:00.000019 openat(AT_FDCWD, \"/d/log3\", O_RDONLY) = 5\n"
		"2 10:00:00.000020 pread64(5, \"x\"..., 100, 0) = 100\n"
		"2 10:00:00.000021 close(5) = 0\n");
	build(&o, &s);
	uint32_t l = strace_text_path(&s, "/d/log");
	uint32_t l2 = strace_text_path(&s, "/d/log2");
	uint32_t l3 = strace_text_path(&s, "/d/log3");
	assert_true(o.paths[l].bits & PS_EXISTED);
	assert_int_equal(o.paths[l].size0, 10000);
	assert_true(o.paths[l2].bits & PS_EXISTED);
	assert_int_equal(o.paths[l2].size0, 500);
	/* a full read of 100: at least 98 before the 2 appended */
	assert_true(o.paths[l3].bits & PS_EXISTED);
	assert_int_equal(o.paths[l3].size0, 98);
	/* cat alone (sequential mode) finds all it read */
	const struct rank_prep *rp = &o.alone[1];
	for (uint32_t i = 0; i < rp->n; i++)
		if (rp->path[i] == l)
			assert_int_equal(rp->size[i], 10002);
	/* parallel: cat's read waits for the append */
	assert_int_equal(need_upto(&o, 1, 2, 0), 2);
	order_release(&o);
	opstream_close(&s);
}

/* Two processes append to a log that existed (python's open('a') in a
 * parent and a forked child): strace writes a call's line when it starts,
 * so a size one shows can lag the other's append in flight (the SEEK_END
 * of 321 while the parent's 200 bytes land), or lead one that starts after
 * it (the fstat begun before the child's 10 bytes shows 60).  The pass took
 * the next larger size for data from before the trace (621 and 60); the
 * file was what the trace showed before any write. */
static void test_append_interleaved(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "appendinter",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/shared.log\", O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC, 0666) = 3\n"
		"1 10:00:00.000002 newfstatat(3, \"\", {st_mode=S_IFREG|0644, st_size=321, ...}, AT_EMPTY_PATH) = 0\n"
		"2 10:00:00.000003 openat(AT_FDCWD, \"/d/shared.log\", O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC, 0666) = 3\n"
		"2 10:00:00.000004 newfstatat(3, \"\", {st_mode=S_IFREG|0644, st_size=321, ...}, AT_EMPTY_PATH) = 0\n"
		"1 10:00:00.000005 write(3, \"p\"..., 200 <unfinished ...>\n"
		"2 10:00:00.000006 lseek(3, 0, SEEK_END) = 321\n"
		"1 10:00:00.000007 <... write resumed>) = 200\n"
		"2 10:00:00.000008 write(3, \"c\"..., 100) = 100\n"
		"1 10:00:00.000009 close(3) = 0\n"
		"2 10:00:00.000010 newfstatat(3, \"\", {st_mode=S_IFREG|0644, st_size=621, ...}, AT_EMPTY_PATH) = 0\n"
		"2 10:00:00.000011 close(3) = 0\n"
		"1 10:00:00.000012 openat(AT_FDCWD, \"/d/log2\", O_WRONLY|O_CREAT|O_APPEND, 0666) = 4\n"
		"1 10:00:00.000013 newfstatat(4, \"\", {st_mode=S_IFREG|0644, st_size=50, ...}, AT_EMPTY_PATH) = 0\n"
		"2 10:00:00.000014 openat(AT_FDCWD, \"/d/log2\", O_WRONLY|O_APPEND) = 4\n"
		"1 10:00:00.000015 newfstatat(4, \"\",  <unfinished ...>\n"
		"2 10:00:00.000016 write(4, \"c\"..., 10) = 10\n"
		"1 10:00:00.000017 <... newfstatat resumed>{st_mode=S_IFREG|0644, st_size=60, ...}, AT_EMPTY_PATH) = 0\n"
		"1 10:00:00.000018 write(4, \"p\"..., 20) = 20\n"
		"1 10:00:00.000019 close(4) = 0\n"
		"2 10:00:00.000020 close(4) = 0\n");
	uint64_t n;
	const struct op *ops = opstream_rank_ops(&s, 1, &n);
	assert_int_equal(ops[3].kind, OP_WRITE);
	assert_int_equal(ops[3].offset, 521);           /* the builder's */
	assert_int_equal(ops[3].line, 8);               /* a call's line: its start */
	build(&o, &s);
	uint32_t l = strace_text_path(&s, "/d/shared.log");
	uint32_t l2 = strace_text_path(&s, "/d/log2");
	assert_true(o.paths[l].bits & PS_EXISTED);
	assert_int_equal(o.paths[l].size0, 321);
	assert_int_equal(o.true_off[0][2], 321);        /* the parent's 200 */
	assert_int_equal(o.true_off[1][3], 521);        /* the child's 100 */
	assert_true(o.paths[l2].bits & PS_EXISTED);
	assert_int_equal(o.paths[l2].size0, 50);
	/* sequential mode: each alone finds the file as its first append did
	 * (the child's 100 bytes at 521, after the parent's 200) */
	for (uint32_t b = 0; b < 2; b++)
		for (uint32_t i = 0; i < o.alone[b].n; i++)
			if (o.alone[b].path[i] == l)
				assert_int_equal(o.alone[b].size[i], b ? 521 : 321);
	order_release(&o);
	opstream_close(&s);
}

/* A read of 0 bytes at an offset says the file ends there or before, not
 * that it has that much data: sqlite's header probe pread(16, 24) = 0 of
 * a database it has just created, a read at 4096 = 0 of a file then
 * written 1 byte (both were prepared with the offset's size). */
static void test_eof_read(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "eof",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/f\", O_RDWR|O_CREAT, 0644) = 3\n"
		"1 10:00:00.000002 pread64(3, \"\", 100, 0) = 0\n"
		"1 10:00:00.000003 pread64(3, \"\", 16, 4096) = 0\n"
		"1 10:00:00.000004 pwrite64(3, \"a\", 1, 0) = 1\n"
		"1 10:00:00.000005 close(3) = 0\n"
		"1 10:00:00.000006 openat(AT_FDCWD, \"/d/db.sqlite\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
		"1 10:00:00.000007 openat(AT_FDCWD, \"/d/db.sqlite\", O_RDWR|O_CREAT|O_NOFOLLOW|O_CLOEXEC, 0644) = 4\n"
		"1 10:00:00.000008 newfstatat(4, \"\", {st_mode=S_IFREG|0644, st_size=0, ...}, AT_EMPTY_PATH) = 0\n"
		"1 10:00:00.000009 pread64(4, \"\", 100, 0) = 0\n"
		"1 10:00:00.000010 pread64(4, \"\", 16, 24) = 0\n"
		"1 10:00:00.000011 pwrite64(4, \"x\"..., 4096, 0) = 4096\n"
		"1 10:00:00.000012 close(4) = 0\n"
		"1 10:00:00.000013 openat(AT_FDCWD, \"/d/old\", O_RDONLY) = 5\n"
		"1 10:00:00.000014 pread64(5, \"\", 512, 4096) = 0\n"
		"1 10:00:00.000015 close(5) = 0\n");
	build(&o, &s);
	uint32_t f = strace_text_path(&s, "/d/f");
	uint32_t db = strace_text_path(&s, "/d/db.sqlite");
	uint32_t old = strace_text_path(&s, "/d/old");
	assert_true(o.paths[f].bits & PS_CREATED);
	assert_false(o.paths[f].bits & PS_EXISTED);
	assert_true(o.paths[db].bits & PS_CREATED);
	assert_false(o.paths[db].bits & PS_EXISTED);
	assert_true(o.paths[old].bits & PS_EXISTED);    /* opened without O_CREAT */
	assert_int_equal(o.paths[old].size0, 0);
	for (uint32_t i = 0; i < o.alone[0].n; i++) {
		assert_int_not_equal(o.alone[0].path[i], f);
		assert_int_not_equal(o.alone[0].path[i], db);
	}
	order_release(&o);
	opstream_close(&s);
}

/* A log written under a temporary name, renamed into place, then appended
 * to: the append lands at the end of what was renamed (the target's
 * tracked size was read after the rename had emptied the source: 0). */
static void test_rename_then_append(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "renameappend",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/log.tmp\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n"
		"1 10:00:00.000002 write(3, \"x\"..., 100) = 100\n"
		"1 10:00:00.000003 close(3) = 0\n"
		"1 10:00:00.000004 rename(\"/d/log.tmp\", \"/d/log\") = 0\n"
		"1 10:00:00.000005 openat(AT_FDCWD, \"/d/log\", O_WRONLY|O_APPEND) = 3\n"
		"1 10:00:00.000006 write(3, \"y\"..., 10) = 10\n"
		"1 10:00:00.000007 close(3) = 0\n");
	build(&o, &s);
	uint32_t l = strace_text_path(&s, "/d/log");
	assert_false(o.paths[l].bits & PS_EXISTED);
	assert_non_null(o.true_off[0]);
	assert_int_equal(o.true_off[0][5], 100);
	order_release(&o);
	opstream_close(&s);
}

/* A directory there before the trace, renamed, then a file beneath it read
 * under its new name: the file was there under the old name (pstate.start),
 * the rename's source is a directory, nothing existed under the new name. */
static void test_renamed_dir_start_name(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "renstart",
		"1 10:00:00.000001 rename(\"/d/old\", \"/d/new\") = 0\n"
		"1 10:00:00.000002 openat(AT_FDCWD, \"/d/new/x/y/file\", O_RDONLY) = 3\n"
		"1 10:00:00.000003 read(3, \"x\"..., 5000) = 4444\n"
		"1 10:00:00.000004 close(3) = 0\n"
		"1 10:00:00.000005 rename(\"/d/new/x\", \"/d/new/x2\") = 0\n"
		"1 10:00:00.000006 openat(AT_FDCWD, \"/d/new/x2/y/g\", O_RDONLY) = 3\n"
		"1 10:00:00.000007 read(3, \"x\"..., 100) = 10\n"
		"1 10:00:00.000008 close(3) = 0\n");
	build(&o, &s);
	uint32_t old = strace_text_path(&s, "/d/old"), nw = strace_text_path(&s, "/d/new");
	uint32_t f = strace_text_path(&s, "/d/new/x/y/file");
	uint32_t x = strace_text_path(&s, "/d/new/x"), g = strace_text_path(&s, "/d/new/x2/y/g");
	assert_true(o.paths[old].bits & PS_EXISTED);
	assert_true(o.paths[old].bits & PS_DIR);
	assert_null(o.paths[old].start);
	assert_false(o.paths[nw].bits & PS_EXISTED);
	assert_true(o.paths[f].bits & PS_EXISTED);
	assert_int_equal(o.paths[f].size0, 4444);
	assert_string_equal(o.paths[f].start, "/d/old/x/y/file");
	assert_true(o.paths[x].bits & PS_EXISTED);
	assert_string_equal(o.paths[x].start, "/d/old/x");
	/* through both renames, the last first */
	assert_true(o.paths[g].bits & PS_EXISTED);
	assert_int_equal(o.paths[g].size0, 10);
	assert_string_equal(o.paths[g].start, "/d/old/x/y/g");
	/* each rank alone sees the same */
	assert_int_equal(o.alone[0].n, 4);
	order_release(&o);
	opstream_close(&s);
}

/* Checkpoint rotation: ckpt.2 removed, ckpt.1 -> ckpt.2, ckpt.0 -> ckpt.1,
 * then both read back under their new names: what is read was there under
 * the old names (ckpt.1/r0/d 2000 bytes, ckpt.0/r0/d 1000), not created by
 * the renames. */
static void test_rotation_sizes(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "rotation",
		"1 10:00:00.000001 unlink(\"/d/ckpt.2/r0/d\") = 0\n"
		"1 10:00:00.000002 rmdir(\"/d/ckpt.2/r0\") = 0\n"
		"1 10:00:00.000003 rmdir(\"/d/ckpt.2\") = 0\n"
		"1 10:00:00.000004 rename(\"/d/ckpt.1\", \"/d/ckpt.2\") = 0\n"
		"1 10:00:00.000005 rename(\"/d/ckpt.0\", \"/d/ckpt.1\") = 0\n"
		"1 10:00:00.000006 mkdir(\"/d/ckpt.0\", 0777) = 0\n"
		"1 10:00:00.000007 mkdir(\"/d/ckpt.0/r0\", 0777) = 0\n"
		"1 10:00:00.000008 openat(AT_FDCWD, \"/d/ckpt.0/r0/d\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\n"
		"1 10:00:00.000009 write(3, \"c\"..., 5000) = 5000\n"
		"1 10:00:00.000010 close(3) = 0\n"
		"1 10:00:00.000011 openat(AT_FDCWD, \"/d/ckpt.1/r0/d\", O_RDONLY) = 3\n"
		"1 10:00:00.000012 read(3, \"a\"..., 1001) = 1000\n"
		"1 10:00:00.000013 close(3) = 0\n"
		"1 10:00:00.000014 openat(AT_FDCWD, \"/d/ckpt.2/r0/d\", O_RDONLY) = 3\n"
		"1 10:00:00.000015 read(3, \"b\"..., 2001) = 2000\n"
		"1 10:00:00.000016 close(3) = 0\n");
	build(&o, &s);
	uint32_t d0 = strace_text_path(&s, "/d/ckpt.0/r0/d");
	uint32_t d1 = strace_text_path(&s, "/d/ckpt.1/r0/d");
	uint32_t d2 = strace_text_path(&s, "/d/ckpt.2/r0/d");
	assert_true(o.paths[d0].bits & PS_EXISTED);
	assert_int_equal(o.paths[d0].size0, 1000);
	assert_true(o.paths[d1].bits & PS_EXISTED);
	assert_int_equal(o.paths[d1].size0, 2000);
	assert_true(o.paths[d2].bits & PS_EXISTED);   /* unlinked: there */
	assert_int_equal(o.paths[d2].size0, 0);
	assert_null(o.paths[d0].start);
	assert_null(o.paths[d1].start);
	for (uint32_t k = 0; k < o.alone[0].n; k++) {
		if (o.alone[0].path[k] == d0)
			assert_int_equal(o.alone[0].size[k], 1000);
		if (o.alone[0].path[k] == d1)
			assert_int_equal(o.alone[0].size[k], 2000);
	}
	order_release(&o);
	opstream_close(&s);
}

/* Hard links of files there before the trace, read through the new name
 * (ln a b; cat b): the link shares the inode, so what is read through b
 * was a's data when the trace began: a is there with it, b is made by the
 * link (before: a 0 bytes, the replayed read of b got nothing).  Also a
 * link into another directory (link(2)), a link of a file renamed before
 * (prepared under its first name's size), and a link of a file the trace
 * wrote: nothing was there. */
static void test_link_sizes(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "links",
		"1 10:00:00.000001 linkat(AT_FDCWD, \"/d/a\", AT_FDCWD, \"/d/b\", 0) = 0\n"
		"1 10:00:00.000002 link(\"/d/a2\", \"/d/sub/b2\") = 0\n"
		"2 10:00:00.000003 openat(AT_FDCWD, \"/d/b\", O_RDONLY) = 3\n"
		"2 10:00:00.000004 read(3, \"0123456789\", 4096) = 10\n"
		"2 10:00:00.000005 close(3) = 0\n"
		"2 10:00:00.000006 openat(AT_FDCWD, \"/d/sub/b2\", O_RDONLY) = 3\n"
		"2 10:00:00.000007 pread64(3, \"z\"..., 5000, 0) = 5000\n"
		"2 10:00:00.000008 close(3) = 0\n"
		"3 10:00:00.000009 rename(\"/d/x\", \"/d/y\") = 0\n"
		"3 10:00:00.000010 linkat(AT_FDCWD, \"/d/y\", AT_FDCWD, \"/d/z\", 0) = 0\n"
		"3 10:00:00.000011 openat(AT_FDCWD, \"/d/z\", O_RDONLY) = 3\n"
		"3 10:00:00.000012 pread64(3, \"x\"..., 300, 0) = 300\n"
		"3 10:00:00.000013 close(3) = 0\n"
		"3 10:00:00.000014 openat(AT_FDCWD, \"/d/w\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
		"3 10:00:00.000015 write(3, \"w\"..., 700) = 700\n"
		"3 10:00:00.000016 close(3) = 0\n"
		"3 10:00:00.000017 linkat(AT_FDCWD, \"/d/w\", AT_FDCWD, \"/d/v\", 0) = 0\n"
		"3 10:00:00.000018 openat(AT_FDCWD, \"/d/v\", O_RDONLY) = 3\n"
		"3 10:00:00.000019 pread64(3, \"w\"..., 700, 0) = 700\n"
		"3 10:00:00.000020 close(3) = 0\n");
	build(&o, &s);
	uint32_t a = strace_text_path(&s, "/d/a"), b = strace_text_path(&s, "/d/b");
	uint32_t a2 = strace_text_path(&s, "/d/a2"), b2 = strace_text_path(&s, "/d/sub/b2");
	uint32_t x = strace_text_path(&s, "/d/x"), y = strace_text_path(&s, "/d/y");
	uint32_t z = strace_text_path(&s, "/d/z"), w = strace_text_path(&s, "/d/w");
	uint32_t v = strace_text_path(&s, "/d/v");
	assert_true(o.paths[a].bits & PS_EXISTED);
	assert_int_equal(o.paths[a].size0, 10);
	assert_false(o.paths[b].bits & PS_EXISTED);
	assert_true(o.paths[b].bits & PS_CREATED);
	assert_true(o.paths[a2].bits & PS_EXISTED);
	assert_int_equal(o.paths[a2].size0, 5000);
	assert_false(o.paths[b2].bits & PS_EXISTED);
	/* through the rename and the link: under x, its first name */
	assert_true(o.paths[x].bits & PS_EXISTED);
	assert_int_equal(o.paths[x].size0, 300);
	assert_false(o.paths[y].bits & PS_EXISTED);
	assert_false(o.paths[z].bits & PS_EXISTED);
	/* written by the trace before the link: nothing there before */
	assert_false(o.paths[w].bits & PS_EXISTED);
	assert_false(o.paths[v].bits & PS_EXISTED);
	/* the reader waits for the link */
	assert_int_equal(need_upto(&o, 1, 0, 0), 1);
	/* each rank alone: the linker finds a there, the reader (the link
	 * absent) finds b there with its data, the third rank as above */
	for (uint32_t k = 0; k < o.alone[1].n; k++)
		if (o.alone[1].path[k] == b)
			assert_int_equal(o.alone[1].size[k], 10);
	bool seen_x = false;
	for (uint32_t k = 0; k < o.alone[2].n; k++) {
		uint32_t q = o.alone[2].path[k];
		assert_true(q != y && q != z && q != w && q != v);
		if (q == x) {
			seen_x = true;
			assert_int_equal(o.alone[2].size[k], 300);
		}
	}
	assert_true(seen_x);
	order_release(&o);
	opstream_close(&s);
}

/* What changes the size orders the other ranks' later ops: an ftruncate
 * (Open MPI's MPI_File_preallocate truncates on every rank) and an O_TRUNC
 * open come before the other ranks' later ops on the file, and an append
 * lands after the other rank's write that grew the file (`prog > f;
 * prog2 >> f`); appends after appends need no wait. */
static void test_truncate_append(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "trunc",
		"1 10:00:00.000001 openat(AT_FDCWD, \"/d/f\", O_RDWR|O_CREAT, 0644) = 3\n"
		"2 10:00:00.000002 openat(AT_FDCWD, \"/d/f\", O_RDWR) = 3\n"
		"2 10:00:00.000003 ftruncate(3, 4096) = 0\n"
		"1 10:00:00.000004 pwrite64(3, \"a\"..., 16384, 1024) = 16384\n"
		"1 10:00:00.000005 close(3) = 0\n"
		"2 10:00:00.000006 close(3) = 0\n"
		"3 10:00:00.000007 openat(AT_FDCWD, \"/d/h\", O_RDWR|O_CREAT, 0644) = 3\n"
		"4 10:00:00.000008 openat(AT_FDCWD, \"/d/h\", O_WRONLY|O_TRUNC) = 3\n"
		"3 10:00:00.000009 pwrite64(3, \"a\"..., 16384, 0) = 16384\n"
		"5 10:00:00.000010 openat(AT_FDCWD, \"/d/g\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
		"5 10:00:00.000011 write(3, \"a\"..., 3000) = 3000\n"
		"5 10:00:00.000012 close(3) = 0\n"
		"6 10:00:00.000013 openat(AT_FDCWD, \"/d/g\", O_WRONLY|O_APPEND) = 3\n"
		"6 10:00:00.000014 write(3, \"b\"..., 100) = 100\n"
		"7 10:00:00.000015 openat(AT_FDCWD, \"/d/g\", O_WRONLY|O_APPEND) = 3\n"
		"7 10:00:00.000016 write(3, \"c\"..., 100) = 100\n");
	build(&o, &s);
	/* rank 0's write waits for rank 1's truncate (its op 1) */
	assert_int_equal(need_upto(&o, 0, 1, 1), 2);
	/* rank 2's write waits for rank 3's O_TRUNC open (its op 0) */
	assert_int_equal(need_upto(&o, 2, 1, 3), 1);
	/* both appenders wait for rank 4's write (its op 1), not for the
	 * other appender */
	assert_int_equal(need_upto(&o, 5, 1, 4), 2);
	assert_int_equal(need_upto(&o, 6, 1, 4), 2);
	assert_int_equal(need_upto(&o, 6, 1, 5), 0);
	order_release(&o);
	opstream_close(&s);
}

/* Metadata across ranks: a create beneath a directory another rank made,
 * an unlink after another rank's use, a rename of another's file. */
static void test_metadata_deps(void **state)
{
	(void)state;
	struct opstream s;
	struct order o;
	strace_text_open(&s, "meta",
		"1 10:00:00.000001 mkdir(\"/d/out\", 0755) = 0\n"
		"2 10:00:00.000002 openat(AT_FDCWD, \"/d/out/part.1\", O_WRONLY|O_CREAT, 0644) = 3\n"
		"2 10:00:00.000003 pwrite64(3, \"x\"..., 4096, 0) = 4096\n"
		"2 10:00:00.000004 close(3) = 0\n"
		"1 10:00:00.000005 openat(AT_FDCWD, \"/d/out/tmp\", O_WRONLY|O_CREAT, 0644) = 3\n"
		"1 10:00:00.000006 close(3) = 0\n"
		"2 10:00:00.000007 unlink(\"/d/out/tmp\") = 0\n"
		"1 10:00:00.000008 rename(\"/d/out/part.1\", \"/d/out/final\") = 0\n");
	build(&o, &s);
	uint32_t out = strace_text_path(&s, "/d/out");
	assert_true(o.paths[out].bits & PS_DIR);
	assert_true(o.paths[out].bits & PS_CREATED);
	/* rank 1's create needs the mkdir (rank 0 op 0) */
	assert_true(need_upto(&o, 1, 0, 0) >= 1);
	/* rank 1's unlink (op 3) needs rank 0's create of tmp and its close
	 * (ops 1, 2): need 3 */
	assert_int_equal(need_upto(&o, 1, 3, 0), 3);
	/* rank 0's rename (op 3) needs rank 1's close of part.1 (op 2) */
	assert_true(need_upto(&o, 0, 3, 1) >= 3);
	/* and no edge of rank 0 before it */
	assert_int_equal(need_upto(&o, 0, 2, 1), 0);
	order_release(&o);
	opstream_close(&s);
}

/* Random traces: 4 processes, positioned reads and writes of one shared
 * file at arbitrary offsets, interleaved at random.  An independent model
 * (the last writer of every byte) gives each read's required edges; the
 * planner's must cover them, point back in the traced order, and let a
 * simulated execution finish. */
#define NP     4
#define FSIZE  16384
#define NOPS   300

struct line_ref { uint32_t pid; uint64_t idx; };

static void check_random(unsigned seed)
{
	srand(seed);
	size_t cap = 200 * (NOPS + 16), len = 0;
	char *text = malloc(cap);
	struct line_ref *lines = calloc(NOPS + 16, sizeof(*lines));
	uint64_t count[NP] = { 0 };
	size_t nlines = 0;
	unsigned usec = 1;
#define LINE(P_, ...) do { \
		len += (size_t)snprintf(text + len, cap - len, "%u 10:00:00.%06u ", 100u + (unsigned)(P_), usec++); \
		len += (size_t)snprintf(text + len, cap - len, __VA_ARGS__); \
		lines[nlines].pid = (uint32_t)(P_); lines[nlines].idx = count[(P_)]++; nlines++; \
	} while (0)

	/* process 0 creates the file and writes it whole */
	LINE(0, "openat(AT_FDCWD, \"/d/shared\", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3\n");
	LINE(0, "pwrite64(3, \"x\"..., %d, 0) = %d\n", FSIZE, FSIZE);
	for (int p = 1; p < NP; p++)
		LINE(p, "openat(AT_FDCWD, \"/d/shared\", O_RDWR) = 3\n");
	for (int i = 0; i < NOPS; i++) {
		int p = rand() % NP;
		unsigned l = 1 + (unsigned)rand() % 3000;
		unsigned off = (unsigned)rand() % (FSIZE - l);
		if (rand() % 2)
			LINE(p, "pwrite64(3, \"x\"..., %u, %u) = %u\n", l, off, l);
		else
			LINE(p, "pread64(3, \"x\"..., %u, %u) = %u\n", l, off, l);
	}
	for (int p = 0; p < NP; p++)
		LINE(p, "close(3) = 0\n");
#undef LINE

	char name[32];
	snprintf(name, sizeof(name), "random%u", seed);
	struct opstream s;
	struct order o;
	strace_text_open(&s, name, text);
	assert_int_equal(s.nranks, NP);
	build(&o, &s);

	/* line number (1-based) of each rank's ops, from the stream */
	uint64_t *pos_of[NP];
	for (uint32_t r = 0; r < NP; r++) {
		uint64_t n;
		const struct op *ops = opstream_rank_ops(&s, r, &n);
		assert_int_equal(n, count[r]);
		pos_of[r] = calloc(n, sizeof(uint64_t));
		for (uint64_t i = 0; i < n; i++)
			pos_of[r][i] = ops[i].line;
	}
	for (size_t k = 0; k < nlines; k++)
		assert_int_equal(pos_of[lines[k].pid][lines[k].idx], k + 1);

	/* the model: replay the lines, remember each byte's last writer */
	struct line_ref *writer = calloc(FSIZE, sizeof(*writer));
	for (size_t b = 0; b < FSIZE; b++)
		writer[b].pid = UINT32_MAX;
	uint64_t required = 0;
	for (size_t k = 0; k < nlines; k++) {
		uint32_t r = lines[k].pid;
		uint64_t n;
		const struct op *op = &opstream_rank_ops(&s, r, &n)[lines[k].idx];
		if (op->kind != OP_READ && op->kind != OP_WRITE)
			continue;
		for (uint64_t b = op->offset; b < op->offset + op->len; b++) {
			if (op->kind == OP_WRITE) {
				writer[b] = lines[k];
			} else if (writer[b].pid != r) {
				uint64_t got = need_upto(&o, r, lines[k].idx, writer[b].pid);
				if (got < writer[b].idx + 1)
					fail_msg("seed %u line %zu: rank %u reads byte %lu written by "
						 "rank %u op %lu, but waits only for %lu ops", seed, k + 1,
						 r, (unsigned long)b, writer[b].pid,
						 (unsigned long)writer[b].idx, (unsigned long)got);
				required++;
			}
		}
	}
	assert_true(required > 0);

	/* every edge points back in the traced order */
	for (uint32_t r = 0; r < NP; r++)
		for (uint64_t k = 0; k < o.ndeps[r]; k++) {
			const struct dep *d = &o.deps[r][k];
			assert_true(d->rank < NP && d->rank != r);
			assert_true(d->need >= 1 && d->need <= count[d->rank]);
			assert_true(pos_of[d->rank][d->need - 1] < pos_of[r][d->op]);
		}

	/* simulated execution: each round, every rank runs its next op if its
	 * deps are met; it must end with every op done */
	uint64_t done[NP] = { 0 }, total = 0, all = 0;
	for (uint32_t r = 0; r < NP; r++)
		all += count[r];
	for (int progress = 1; progress;) {
		progress = 0;
		for (uint32_t r = 0; r < NP; r++) {
			if (done[r] == count[r])
				continue;
			int ok = 1;
			for (uint64_t k = 0; k < o.ndeps[r]; k++)
				if (o.deps[r][k].op == done[r] && done[o.deps[r][k].rank] < o.deps[r][k].need)
					ok = 0;
			if (ok) {
				done[r]++;
				total++;
				progress = 1;
			}
		}
	}
	assert_int_equal(total, all);

	for (uint32_t r = 0; r < NP; r++)
		free(pos_of[r]);
	free(writer);
	free(lines);
	free(text);
	order_release(&o);
	opstream_close(&s);
}

static void test_random(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 20; seed++)
		check_random(seed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_fallocate_modes),
		cmocka_unit_test(test_hole_read),
		cmocka_unit_test(test_extend_after_append),
		cmocka_unit_test(test_disjoint),
		cmocka_unit_test(test_excl),
		cmocka_unit_test(test_stat_size),
		cmocka_unit_test(test_stat_alone),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_append_size_shown),
		cmocka_unit_test(test_append_size_later),
		cmocka_unit_test(test_append_interleaved),
		cmocka_unit_test(test_eof_read),
		cmocka_unit_test(test_rename_then_append),
		cmocka_unit_test(test_renamed_dir_start_name),
		cmocka_unit_test(test_rotation_sizes),
		cmocka_unit_test(test_link_sizes),
		cmocka_unit_test(test_truncate_append),
		cmocka_unit_test(test_metadata_deps),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
