/* test_fioiolog.c - fio iologs: the export (exact v2 and v3 text, path
 * mapping, refusals, a real fio --read_iolog run that must do the exported
 * I/O) and the reader (v2 and v3, synthesized opens/closes, errors with
 * file:line, the round trip export -> read -> export). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>

#include "plan/filter.h"
#include "trace/fioiolog.h"
#include "trace/trace.h"
#include "ops/opstream.h"

static char dir[] = "/var/tmp/replay-test-fioXXXXXX";

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void add(struct ops_writer *w, uint32_t r, struct op o)
{
	assert_int_equal(opsw_append(w, r, &o), 0);
}

/* Two ranks.  Rank 0: /data/out opened twice (one open/close in the log),
 * odd-sized writes, fsync, fdatasync, a read, metadata left out, a failed
 * open ignored (its file not even added), a zero-length read dropped, the file left open closed at
 * the end.  Rank 1: a relative path with "./" and "x/../". */
static void build(const char *ops_path)
{
	struct ops_writer *w;
	uint32_t r0, r1, pout, prel, pgone;

	assert_int_equal(opsw_open(&w, ops_path), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r0), 0);
	assert_int_equal(opsw_rank(w, "pid 2", 2, &r1), 0);
	assert_int_equal(opsw_path(w, "/data/out", 0, &pout), 0);
	assert_int_equal(opsw_path(w, "./rel/x/../in.dat", 0, &prel), 0);
	assert_int_equal(opsw_path(w, "/data/missing", 0, &pgone), 0);

	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pgone, .handle = 0, .result = -ENOENT, .oflags = 0 });
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pout, .handle = 0, .result = 3, .oflags = 0101 });
	add(w, r0, (struct op){ .kind = OP_WRITE, .handle = 0, .offset = 0, .len = 10444, .result = 10444 });
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pout, .handle = 1, .result = 4 });
	add(w, r0, (struct op){ .kind = OP_WRITE, .handle = 1, .offset = 10444, .len = 65536, .result = 65536 });
	add(w, r0, (struct op){ .kind = OP_SEEK, .handle = 0, .offset = 0 });
	add(w, r0, (struct op){ .kind = OP_FSYNC, .handle = 0 });
	add(w, r0, (struct op){ .kind = OP_CLOSE, .handle = 1 });
	add(w, r0, (struct op){ .kind = OP_READ, .handle = 0, .offset = 4096, .len = 4096, .result = 4096 });
	add(w, r0, (struct op){ .kind = OP_READ, .handle = 0, .offset = 0, .len = 0, .result = 0 });
	add(w, r0, (struct op){ .kind = OP_FDATASYNC, .handle = 0 });
	add(w, r0, (struct op){ .kind = OP_STAT, .file = pout, .handle = OP_NOHANDLE });
	add(w, r0, (struct op){ .kind = OP_AWRITE, .handle = 0, .offset = 75980, .len = 1024, .aux = 7 });
	add(w, r0, (struct op){ .kind = OP_AWAIT, .handle = 0, .aux = 7, .result = 1024 });
	/* rank 0 never closes handle 0 */
	add(w, r1, (struct op){ .kind = OP_OPEN, .file = prel, .handle = 0, .result = 3 });
	add(w, r1, (struct op){ .kind = OP_AREAD, .handle = 0, .offset = 0, .len = 8192, .aux = 1 });
	add(w, r1, (struct op){ .kind = OP_AWAIT, .handle = 0, .aux = 1, .result = 8192 });
	add(w, r1, (struct op){ .kind = OP_CLOSE, .handle = 0 });
	assert_int_equal(opsw_finish(w, NULL), 0);
}

static void t_text(void **state)
{
	(void)state;
	char ops[300], out[300], tgt[300], want[4096], f0[300], f1[300];
	struct opstream s;
	const char *why = NULL;
	struct rerr e = { "" };

	path_in(ops, sizeof(ops), "t.ops");
	path_in(out, sizeof(out), "logs");
	path_in(tgt, sizeof(tgt), "tgt");
	build(ops);
	assert_int_equal(opstream_open(&s, ops, &why), 0);
	struct fio_export_opts o = { .target = tgt };
	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), 0);

	path_in(f0, sizeof(f0), "logs/rank-0.iolog");
	path_in(f1, sizeof(f1), "logs/rank-1.iolog");
	char *t0 = slurp(f0), *t1 = slurp(f1);
	snprintf(want, sizeof(want),
		 "fio version 2 iolog\n"
		 "%1$s/data/out add\n"
		 "%1$s/data/out open\n"
		 "%1$s/data/out write 0 10444\n"
		 "%1$s/data/out write 10444 65536\n"
		 "%1$s/data/out sync 0 0\n"
		 "%1$s/data/out read 4096 4096\n"
		 "%1$s/data/out datasync 0 0\n"
		 "%1$s/data/out write 75980 1024\n"
		 "%1$s/data/out close\n", tgt);
	assert_string_equal(t0, want);
	snprintf(want, sizeof(want),
		 "fio version 2 iolog\n"
		 "%1$s/rel/in.dat add\n"
		 "%1$s/rel/in.dat open\n"
		 "%1$s/rel/in.dat read 0 8192\n"
		 "%1$s/rel/in.dat close\n", tgt);
	assert_string_equal(t1, want);
	free(t0);
	free(t1);
	unlink(f1);

	/* nranks = 1: only rank 0 */
	o.nranks = 1;
	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), 0);
	assert_int_equal(access(f1, F_OK), -1);
	/* no target: "." */
	o.target = NULL;
	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), 0);
	t0 = slurp(f0);
	assert_non_null(strstr(t0, "\n./data/out write 0 10444\n"));
	free(t0);
	opstream_close(&s);
	unlink(f0);
	rmdir(out);
	unlink(ops);
}

static void t_refused(void **state)
{
	(void)state;
	char ops[300], out[300];
	struct ops_writer *w;
	uint32_t r0, p;
	struct opstream s;
	const char *why = NULL;
	struct rerr e = { "" };
	struct fio_export_opts o = { .target = "/t" };

	path_in(ops, sizeof(ops), "bad.ops");
	path_in(out, sizeof(out), "badlogs");
	/* a path that climbs above the root */
	assert_int_equal(opsw_open(&w, ops), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r0), 0);
	assert_int_equal(opsw_path(w, "a/../../etc/passwd", 0, &p), 0);
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = p, .handle = 0, .result = 3 });
	assert_int_equal(opsw_finish(w, NULL), 0);
	assert_int_equal(opstream_open(&s, ops, &why), 0);
	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'a/../../etc/passwd'"));
	assert_non_null(strstr(e.msg, "climbs above the target"));
	opstream_close(&s);

	/* a path with a blank: fio would split it */
	assert_int_equal(opsw_open(&w, ops), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r0), 0);
	assert_int_equal(opsw_path(w, "/my data/f", 0, &p), 0);
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = p, .handle = 0, .result = 3 });
	assert_int_equal(opsw_finish(w, NULL), 0);
	assert_int_equal(opstream_open(&s, ops, &why), 0);
	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "blanks"));
	opstream_close(&s);

	/* a name longer than the 256 bytes fio reads of it */
	char lng[400];
	memset(lng, 'n', sizeof(lng));
	lng[0] = '/';
	lng[300] = '\0';
	assert_int_equal(opsw_open(&w, ops), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r0), 0);
	assert_int_equal(opsw_path(w, lng, 0, &p), 0);
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = p, .handle = 0, .result = 3 });
	assert_int_equal(opsw_finish(w, NULL), 0);
	assert_int_equal(opstream_open(&s, ops, &why), 0);
	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), -ENAMETOOLONG);
	assert_non_null(strstr(e.msg, "302 bytes, is longer than the 256 fio reads"));
	opstream_close(&s);

	/* an output directory that cannot be created */
	assert_int_equal(opstream_open(&s, ops, &why), 0);
	assert_int_equal(fio_iolog_export(&s, "/proc/no/such/dir", &o, NULL, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "cannot create '/proc/no/such/dir'"));
	opstream_close(&s);

	char f0[300];
	path_in(f0, sizeof(f0), "badlogs/rank-0.iolog");
	unlink(f0);
	rmdir(out);
	unlink(ops);
}

/* a handle opened again without a close in between (the traced fd was
 * reused): the first file is closed in the log, never left open twice */
static void t_handle_reuse(void **state)
{
	(void)state;
	char ops[300], out[300], f0[300];
	struct ops_writer *w;
	uint32_t r0, pa, pb;
	struct opstream s;
	const char *why = NULL;
	struct rerr e = { "" };
	struct fio_export_opts o = { .target = "/t" };

	path_in(ops, sizeof(ops), "reuse.ops");
	path_in(out, sizeof(out), "reuselogs");
	assert_int_equal(opsw_open(&w, ops), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r0), 0);
	assert_int_equal(opsw_path(w, "/a", 0, &pa), 0);
	assert_int_equal(opsw_path(w, "/b", 0, &pb), 0);
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pa, .handle = 0, .result = 3 });
	add(w, r0, (struct op){ .kind = OP_WRITE, .handle = 0, .offset = 0, .len = 10, .result = 10 });
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pb, .handle = 0, .result = 3 });
	add(w, r0, (struct op){ .kind = OP_READ, .handle = 0, .offset = 5, .len = 7, .result = 7 });
	add(w, r0, (struct op){ .kind = OP_CLOSE, .handle = 0 });
	/* an op on a handle never opened is left out */
	add(w, r0, (struct op){ .kind = OP_WRITE, .handle = 9, .offset = 0, .len = 1, .result = 1 });
	assert_int_equal(opsw_finish(w, NULL), 0);
	assert_int_equal(opstream_open(&s, ops, &why), 0);
	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), 0);
	opstream_close(&s);
	path_in(f0, sizeof(f0), "reuselogs/rank-0.iolog");
	char *t = slurp(f0);
	assert_string_equal(t, "fio version 2 iolog\n"
			       "/t/a add\n/t/b add\n"
			       "/t/a open\n/t/a write 0 10\n/t/a close\n"
			       "/t/b open\n/t/b read 5 7\n/t/b close\n");
	free(t);
	unlink(f0);
	rmdir(out);
	unlink(ops);
}

/* fio replays the exported log: bytes and op counts must match. */
static void t_fio_replays(void **state)
{
	(void)state;
	char ops[300], out[300], tgt[300], cmd[2048], json[300], f0[300];
	struct opstream s;
	const char *why = NULL;
	struct rerr e = { "" };

	if (system("fio --version >/dev/null 2>&1") != 0) {
		printf("SKIP: fio not installed\n");
		skip();
	}
	path_in(ops, sizeof(ops), "f.ops");
	path_in(out, sizeof(out), "flogs");
	path_in(tgt, sizeof(tgt), "ftgt");
	path_in(json, sizeof(json), "fio.json");
	build(ops);
	assert_int_equal(opstream_open(&s, ops, &why), 0);
	struct fio_export_opts o = { .target = tgt, .nranks = 1 };
	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), 0);
	opstream_close(&s);
	/* fio opens, it does not create directories */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/data", tgt);
	assert_int_equal(system(cmd), 0);
	path_in(f0, sizeof(f0), "flogs/rank-0.iolog");
	snprintf(cmd, sizeof(cmd),
		 "fio --name=r0 --read_iolog=%s --replay_no_stall=1 --ioengine=psync "
		 "--output-format=json --output=%s >/dev/null 2>&1", f0, json);
	assert_int_equal(system(cmd), 0);

	json_error_t jerr;
	json_t *root = json_load_file(json, 0, &jerr);
	assert_non_null(root);
	json_t *job = json_array_get(json_object_get(root, "jobs"), 0);
	assert_non_null(job);
	assert_int_equal(json_integer_value(json_object_get(job, "error")), 0);
	json_t *rd = json_object_get(job, "read"), *wr = json_object_get(job, "write");
	assert_int_equal(json_integer_value(json_object_get(rd, "io_bytes")), 4096);
	assert_int_equal(json_integer_value(json_object_get(wr, "io_bytes")), 10444 + 65536 + 1024);
	assert_int_equal(json_integer_value(json_object_get(wr, "total_ios")), 3);
	json_decref(root);
	/* and the file really holds what was written */
	char fp[400];
	struct stat st;
	snprintf(fp, sizeof(fp), "%s/data/out", tgt);
	assert_int_equal(stat(fp, &st), 0);
	assert_int_equal(st.st_size, 75980 + 1024);

	snprintf(cmd, sizeof(cmd), "rm -rf %s %s %s %s", tgt, out, json, ops);
	assert_int_equal(system(cmd), 0);
}


/* What glibc, Open MPI and rsync do: open "/" O_PATH|O_DIRECTORY, a
 * directory O_DIRECTORY (and fsync it), "." plainly, a file O_PATH; the
 * loader reads /etc/ld.so.cache.  None of it reaches the log (counted:
 * the opens fio cannot do and every call on their descriptors), the
 * export succeeds, and with run's filter /etc is left out, --exclude
 * takes a data file out, --include brings /etc back.  A rank left with
 * no read or write gets no log (fio refuses one). */
static void build_unfit(const char *ops_path)
{
	struct ops_writer *w;
	uint32_t r0, r1, proot, pdir, pdot, pcache, pdata, pother;

	assert_int_equal(opsw_open(&w, ops_path), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r0), 0);
	assert_int_equal(opsw_rank(w, "pid 2", 2, &r1), 0);
	assert_int_equal(opsw_path(w, "/", 0, &proot), 0);
	assert_int_equal(opsw_path(w, "/work/d", 0, &pdir), 0);
	assert_int_equal(opsw_path(w, ".", 0, &pdot), 0);
	assert_int_equal(opsw_path(w, "/etc/ld.so.cache", 0, &pcache), 0);
	assert_int_equal(opsw_path(w, "/work/d/data", 0, &pdata), 0);
	assert_int_equal(opsw_path(w, "/work/d/other", 0, &pother), 0);
	/* 2 ops on "/" (open, close) */
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = proot, .handle = 0, .result = 3,
				 .oflags = 010000000 | 0200000 | 02000000 });
	add(w, r0, (struct op){ .kind = OP_CLOSE, .handle = 0 });
	/* 3 on the directory (open, fsync, close) */
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pdir, .handle = 0, .result = 3,
				 .oflags = 0200000 });
	add(w, r0, (struct op){ .kind = OP_FSYNC, .handle = 0 });
	add(w, r0, (struct op){ .kind = OP_CLOSE, .handle = 0 });
	/* 1: "." opened without O_DIRECTORY, never closed */
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pdot, .handle = 1, .result = 4 });
	/* 2: the data file through O_PATH (open, close) */
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pdata, .handle = 2, .result = 5,
				 .oflags = 010000000 });
	add(w, r0, (struct op){ .kind = OP_CLOSE, .handle = 2 });
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pcache, .handle = 2, .result = 5 });
	add(w, r0, (struct op){ .kind = OP_READ, .handle = 2, .offset = 0, .len = 100, .result = 100 });
	add(w, r0, (struct op){ .kind = OP_CLOSE, .handle = 2 });
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pdata, .handle = 2, .result = 5, .oflags = 1 });
	add(w, r0, (struct op){ .kind = OP_WRITE, .handle = 2, .offset = 0, .len = 512, .result = 512 });
	/* a short read: exported with what it moved; one at the end: left out */
	add(w, r0, (struct op){ .kind = OP_READ, .handle = 2, .offset = 500, .len = 4096, .result = 12 });
	add(w, r0, (struct op){ .kind = OP_READ, .handle = 2, .offset = 512, .len = 4096, .result = 0 });
	add(w, r0, (struct op){ .kind = OP_CLOSE, .handle = 2 });
	/* rank 1: only an open and close of a data file */
	add(w, r1, (struct op){ .kind = OP_OPEN, .file = pother, .handle = 0, .result = 3 });
	add(w, r1, (struct op){ .kind = OP_CLOSE, .handle = 0 });
	assert_int_equal(opsw_finish(w, NULL), 0);
}

static void t_unfit_filtered(void **state)
{
	(void)state;
	char ops[300], out[300], f0[300], f1[300];
	struct opstream s;
	struct rerr e = { "" };
	struct filter filt;
	struct filter_opts fo = { .nexclude = 0 };
	struct fio_export_stats st;

	path_in(ops, sizeof(ops), "unfit.ops");
	path_in(out, sizeof(out), "unfitlogs");
	path_in(f0, sizeof(f0), "unfitlogs/rank-0.iolog");
	path_in(f1, sizeof(f1), "unfitlogs/rank-1.iolog");
	build_unfit(ops);
	assert_int_equal(opstream_open(&s, ops, NULL), 0);

	/* no filter: /etc too; the unfit ops left out, counted */
	struct fio_export_opts o = { .target = "/t" };
	assert_int_equal(fio_iolog_export(&s, out, &o, &st, &e), 0);
	char *t = slurp(f0);
	assert_string_equal(t, "fio version 2 iolog\n"
			       "/t/etc/ld.so.cache add\n/t/work/d/data add\n"
			       "/t/etc/ld.so.cache open\n/t/etc/ld.so.cache read 0 100\n"
			       "/t/etc/ld.so.cache close\n"
			       "/t/work/d/data open\n/t/work/d/data write 0 512\n"
			       "/t/work/d/data read 500 12\n/t/work/d/data close\n");
	free(t);
	assert_int_equal(st.unfit_ops, 2 + 3 + 1 + 2);
	assert_int_equal(st.ranks, 1);
	assert_int_equal(st.ranks_no_io, 1);
	assert_int_equal(st.lines, 9);
	assert_int_equal(access(f1, F_OK), -1);
	unlink(f0);

	/* run's default filter: /etc left out */
	assert_int_equal(filter_build(&filt, &s, &fo, &e), 0);
	o.filter = &filt;
	assert_int_equal(fio_iolog_export(&s, out, &o, &st, &e), 0);
	t = slurp(f0);
	assert_string_equal(t, "fio version 2 iolog\n/t/work/d/data add\n"
			       "/t/work/d/data open\n/t/work/d/data write 0 512\n"
			       "/t/work/d/data read 500 12\n/t/work/d/data close\n");
	free(t);
	assert_int_equal(st.unfit_ops, 8);
	filter_release(&filt);
	unlink(f0);

	/* --exclude the data file: no rank has I/O left, an error, nothing written */
	fo.exclude[fo.nexclude++] = "*/data";
	assert_int_equal(rmdir(out), 0);
	assert_int_equal(filter_build(&filt, &s, &fo, &e), 0);
	assert_int_equal(fio_iolog_export(&s, out, &o, &st, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "nothing fio can replay"));
	assert_int_equal(access(out, F_OK), -1);        /* the export made it, and removed it */
	filter_release(&filt);

	/* --include /etc undoes the default, --ranks 0 */
	fo.nexclude = 0;
	fo.include[fo.ninclude++] = "/etc";
	assert_int_equal(ranklist_parse("0", &fo.ranks), 0);
	assert_int_equal(filter_build(&filt, &s, &fo, &e), 0);
	assert_int_equal(fio_iolog_export(&s, out, &o, &st, &e), 0);
	t = slurp(f0);
	assert_non_null(strstr(t, "/t/etc/ld.so.cache read 0 100\n"));
	free(t);
	assert_int_equal(st.ranks_no_io, 0);            /* rank 1 not selected */
	filter_release(&filt);
	filter_opts_release(&fo);
	unlink(f0);
	rmdir(out);
	opstream_close(&s);
	unlink(ops);
}

/* A failing export leaves DIR as it was: not created when it was
 * missing; when it existed, its files untouched and no new one. */
static void t_failure_leaves_dir(void **state)
{
	(void)state;
	char ops[300], out[300], keep[300], cmd[700];
	struct ops_writer *w;
	uint32_t r0, r1, pa, pb;
	struct opstream s;
	struct rerr e = { "" };
	struct fio_export_opts o = { .target = "/t" };

	path_in(ops, sizeof(ops), "fail.ops");
	path_in(out, sizeof(out), "faillogs");
	/* rank 0 is fine; rank 1 names a file with a blank: refused */
	assert_int_equal(opsw_open(&w, ops), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r0), 0);
	assert_int_equal(opsw_rank(w, "pid 2", 2, &r1), 0);
	assert_int_equal(opsw_path(w, "/a", 0, &pa), 0);
	assert_int_equal(opsw_path(w, "/my data", 0, &pb), 0);
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pa, .handle = 0, .result = 3 });
	add(w, r0, (struct op){ .kind = OP_WRITE, .handle = 0, .offset = 0, .len = 10, .result = 10 });
	add(w, r1, (struct op){ .kind = OP_OPEN, .file = pb, .handle = 0, .result = 3 });
	add(w, r1, (struct op){ .kind = OP_WRITE, .handle = 0, .offset = 0, .len = 10, .result = 10 });
	assert_int_equal(opsw_finish(w, NULL), 0);
	assert_int_equal(opstream_open(&s, ops, NULL), 0);

	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "blanks"));
	assert_int_equal(access(out, F_OK), -1);

	assert_int_equal(mkdir(out, 0755), 0);
	path_in(keep, sizeof(keep), "faillogs/rank-0.iolog");
	FILE *f = fopen(keep, "w");
	assert_non_null(f);
	fputs("old\n", f);
	fclose(f);
	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), -EINVAL);
	char *t = slurp(keep);
	assert_string_equal(t, "old\n");
	free(t);
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A %s)\" = rank-0.iolog", out);
	assert_int_equal(system(cmd), 0);
	opstream_close(&s);
	unlink(keep);
	rmdir(out);
	unlink(ops);
}

/* ---- version 3 export ------------------------------------------------- */

/* One rank with times: 0, 1.5 us (written as 1), 2 ms, 3 ms; a file left
 * open is closed at the time of the rank's last op. */
static void build_timed(const char *ops_path)
{
	struct ops_writer *w;
	uint32_t r0, r1, pa, pb;

	assert_int_equal(opsw_open(&w, ops_path), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r0), 0);
	assert_int_equal(opsw_rank(w, "pid 2", 2, &r1), 0);
	assert_int_equal(opsw_path(w, "/d/a", 0, &pa), 0);
	assert_int_equal(opsw_path(w, "/d/b", 0, &pb), 0);
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pa, .handle = 0, .result = 3, .t_ns = 0 });
	add(w, r0, (struct op){ .kind = OP_WRITE, .handle = 0, .offset = 0, .len = 4096, .result = 4096,
				 .t_ns = 1500 });
	add(w, r0, (struct op){ .kind = OP_WRITE, .handle = 0, .offset = 4096, .len = 10, .result = -28,
				 .t_ns = 1600 });   /* ENOSPC in the trace: left out */
	add(w, r0, (struct op){ .kind = OP_FSYNC, .handle = 0, .t_ns = 2000000 });
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = pb, .handle = 1, .result = 4, .t_ns = 2500000 });
	add(w, r0, (struct op){ .kind = OP_READ, .handle = 1, .offset = 7, .len = 100, .result = 100,
				 .t_ns = 3000000 });
	add(w, r0, (struct op){ .kind = OP_CLOSE, .handle = 1, .t_ns = 3100000 });
	add(w, r0, (struct op){ .kind = OP_STAT, .file = pa, .handle = OP_NOHANDLE, .t_ns = 4000000 });
	add(w, r1, (struct op){ .kind = OP_OPEN, .file = pb, .handle = 0, .result = 3, .t_ns = 0 });
	add(w, r1, (struct op){ .kind = OP_READ, .handle = 0, .offset = 0, .len = 50, .result = 50,
				 .t_ns = 999 });
	add(w, r1, (struct op){ .kind = OP_CLOSE, .handle = 0, .t_ns = 5000 });
	assert_int_equal(opsw_finish(w, NULL), 0);
}

static void t_v3_text(void **state)
{
	(void)state;
	char ops[300], out[300], f0[300], f1[300];
	struct opstream s;
	struct rerr e = { "" };

	path_in(ops, sizeof(ops), "v3.ops");
	path_in(out, sizeof(out), "v3logs");
	build_timed(ops);
	assert_int_equal(opstream_open(&s, ops, NULL), 0);
	struct fio_export_opts o = { .target = "/t", .version = 3 };
	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), 0);
	opstream_close(&s);
	path_in(f0, sizeof(f0), "v3logs/rank-0.iolog");
	path_in(f1, sizeof(f1), "v3logs/rank-1.iolog");
	char *t = slurp(f0);
	assert_string_equal(t, "fio version 3 iolog\n"
			       "0 /t/d/a add\n0 /t/d/b add\n"
			       "0 /t/d/a open\n1 /t/d/a write 0 4096\n2000 /t/d/a sync 0 0\n"
			       "2500 /t/d/b open\n3000 /t/d/b read 7 100\n3100 /t/d/b close\n"
			       "4000 /t/d/a close\n");
	free(t);
	t = slurp(f1);
	assert_string_equal(t, "fio version 3 iolog\n0 /t/d/b add\n0 /t/d/b open\n"
			       "0 /t/d/b read 0 50\n5 /t/d/b close\n");
	free(t);
	/* an unknown version is refused */
	o.version = 4;
	assert_int_equal(opstream_open(&s, ops, NULL), 0);
	assert_int_equal(fio_iolog_export(&s, out, &o, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "version 4"));
	opstream_close(&s);
	unlink(f0);
	unlink(f1);
	rmdir(out);
	unlink(ops);
}

/* ---- the reader ------------------------------------------------------- */

static int load_log(const char *arg, const char *out, struct opstream *s, struct rerr *e)
{
	struct load_opts lo = { 0 };
	struct load_result res;
	char *args[] = { (char *)arg };
	int rc;

	unlink(out);
	e->msg[0] = 0;
	rc = trace_load(args, 1, &lo, out, &res, e);
	if (rc)
		return rc;
	assert_string_equal(res.format, "fio-iolog");
	assert_int_equal(opstream_open(s, out, NULL), 0);
	return 0;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

struct want {
	unsigned kind;
	uint64_t t_ns, offset, len;
	const char *path;
	uint8_t flags;
	uint32_t oflags;
};

static void expect_ops(const struct opstream *s, uint32_t r, const struct want *w, size_t n)
{
	uint64_t got;
	const struct op *o = opstream_rank_ops(s, r, &got);

	assert_int_equal(got, n);
	for (size_t i = 0; i < n; i++) {
		if (o[i].kind != w[i].kind || o[i].t_ns != w[i].t_ns ||
		    strcmp(opstream_path(s, o[i].file), w[i].path) || o[i].flags != w[i].flags)
			fail_msg("rank %u op %zu: got %s t=%llu %s flags %u, want %s t=%llu %s flags %u",
				 r, i, op_kind_name(o[i].kind), (unsigned long long)o[i].t_ns,
				 opstream_path(s, o[i].file), o[i].flags, op_kind_name(w[i].kind),
				 (unsigned long long)w[i].t_ns, w[i].path, w[i].flags);
		if (op_is_data(o[i].kind)) {
			assert_int_equal(o[i].offset, w[i].offset);
			assert_int_equal(o[i].len, w[i].len);
			assert_int_equal(o[i].result, (int64_t)w[i].len);
		}
		if (o[i].kind == OP_OPEN)
			assert_int_equal(o[i].oflags, w[i].oflags);
	}
}

/* Write `text` as NAME.iolog in the test directory and load it into s;
 * log and ops (300 bytes each) get the two paths, for unlink. */
static void load_text(const char *name, const char *text, char *log, char *ops,
		      struct opstream *s)
{
	struct rerr e;
	char n[64];

	snprintf(n, sizeof(n), "%s.iolog", name);
	path_in(log, 300, n);
	snprintf(n, sizeof(n), "%s.ops", name);
	path_in(ops, 300, n);
	write_text(log, text);
	if (load_log(log, ops, s, &e))
		fail_msg("%s: %s", log, e.msg);
}

static void t_read_v2(void **state)
{
	(void)state;
	char log[300], ops[300], v[64];
	struct opstream s;

	load_text("a", "fio version 2 iolog\n"
			"/x/w add\n/x/r add\n"
			"/x/w open\n"
			"/x/w write 0 4096\n"
			"/x/w wait 1500 0\n"            /* +1.5 ms */
			"/x/w sync 0 0\n"
			"\n"
			"/x/r read 8192 512\n"          /* never opened: an open is made up */
			"/x/w trim 0 4096\n"            /* not replayed */
			"/x/w datasync 0 0\n"
			"/x/w close\n"
			"/x/w close\n",                 /* not open any more: ignored */
		  log, ops, &s);
	assert_int_equal(s.nranks, 1);
	assert_string_equal(opstream_rank_name(&s, 0), "a.iolog");
	const struct want w[] = {
		{ OP_OPEN, 0, 0, 0, "/x/w", 0, O_RDWR },
		{ OP_WRITE, 0, 0, 4096, "/x/w", 0, 0 },
		{ OP_FSYNC, 1500000, 0, 0, "/x/w", 0, 0 },
		{ OP_OPEN, 1500000, 0, 0, "/x/r", OPF_SYNTH, O_RDONLY },
		{ OP_READ, 1500000, 8192, 512, "/x/r", 0, 0 },
		{ OP_FDATASYNC, 1500000, 0, 0, "/x/w", 0, 0 },
		{ OP_CLOSE, 1500000, 0, 0, "/x/w", 0, 0 },
		{ OP_CLOSE, 1500000, 0, 0, "/x/r", OPF_SYNTH, 0 },  /* left open */
	};
	expect_ops(&s, 0, w, sizeof(w) / sizeof(w[0]));
	assert_string_equal(opstream_info(&s, "skipped.trim", v, sizeof(v)), "1");
	assert_string_equal(opstream_info(&s, "synthesized_opens", v, sizeof(v)), "1");
	assert_string_equal(opstream_info(&s, "synthesized_closes", v, sizeof(v)), "1");
	assert_string_equal(opstream_info(&s, "fio_close_without_open", v, sizeof(v)), "1");
	opstream_close(&s);
	unlink(log);
	unlink(ops);
}

/* What fio 3.33 itself writes (write_iolog, times in microseconds). */
static void t_read_v3(void **state)
{
	(void)state;
	char log[300], ops[300];
	struct opstream s;

	load_text("j", "fio version 3 iolog\n"
			"14 /tmp/fiot/j.0.0 add\n"
			"18 /tmp/fiot/j.0.1 add\n"
			"111 /tmp/fiot/j.0.0 open\n"
			"115 /tmp/fiot/j.0.0 read 0 4096\n"
			"571 /tmp/fiot/j.0.1 open\n"
			"578 /tmp/fiot/j.0.1 read 20480 4096\n"
			"1273 /tmp/fiot/j.0.1 write 12288 4096\n"
			"1890 /tmp/fiot/j.0.0 sync 8192 0\n"
			"4014 /tmp/fiot/j.0.1 close\n"
			"4738 /tmp/fiot/j.0.0 close\n",
		  log, ops, &s);
	const struct want w[] = {
		{ OP_OPEN, 0, 0, 0, "/tmp/fiot/j.0.0", 0, O_RDONLY },
		{ OP_READ, 4000, 0, 4096, "/tmp/fiot/j.0.0", 0, 0 },
		{ OP_OPEN, 460000, 0, 0, "/tmp/fiot/j.0.1", 0, O_RDWR },
		{ OP_READ, 467000, 20480, 4096, "/tmp/fiot/j.0.1", 0, 0 },
		{ OP_WRITE, 1162000, 12288, 4096, "/tmp/fiot/j.0.1", 0, 0 },
		{ OP_FSYNC, 1779000, 0, 0, "/tmp/fiot/j.0.0", 0, 0 },
		{ OP_CLOSE, 3903000, 0, 0, "/tmp/fiot/j.0.1", 0, 0 },
		{ OP_CLOSE, 4627000, 0, 0, "/tmp/fiot/j.0.0", 0, 0 },
	};
	expect_ops(&s, 0, w, sizeof(w) / sizeof(w[0]));
	assert_int_equal(s.ranks[0].t0_ns, 111000);
	opstream_close(&s);
	unlink(log);
	unlink(ops);
}

static void bad_log(const char *text, unsigned line, const char *want)
{
	char log[300], ops[300], msg[700];
	struct opstream s;
	struct rerr e;

	path_in(log, sizeof(log), "bad.iolog");
	path_in(ops, sizeof(ops), "bad.ops");
	write_text(log, text);
	struct load_opts lo = { .format = "fio-iolog" };
	struct load_result res;
	char *args[] = { log };
	unlink(ops);
	int rc = trace_load(args, 1, &lo, ops, &res, &e);
	(void)s;
	if (!rc)
		fail_msg("accepted: %s", text);
	snprintf(msg, sizeof(msg), "%s:%u: %s", log, line, want);
	if (!strstr(e.msg, msg))
		fail_msg("expected '%s' in '%s'", msg, e.msg);
	assert_int_equal(access(ops, F_OK), -1);
	unlink(log);
}

/* A FIFO is refused by name (both passes would share its one stream of
 * bytes), with no output made, and before anything is read from it. */
static void t_read_fifo(void **state)
{
	(void)state;
	char fifo[300], ops[300];
	struct rerr e;

	path_in(fifo, sizeof(fifo), "j.iolog");
	path_in(ops, sizeof(ops), "fifo.ops");
	unlink(fifo);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	struct load_opts lo = { .format = "fio-iolog" };
	struct load_result res;
	char *args[] = { fifo };
	unlink(ops);
	assert_int_equal(trace_load(args, 1, &lo, ops, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not standard input or a pipe"));
	assert_int_equal(access(ops, F_OK), -1);
	unlink(fifo);
}

static void t_read_bad(void **state)
{
	(void)state;
	bad_log("fio version 1 iolog\n", 1, "expected 'fio version 2 iolog' or 'fio version 3 iolog'");
	bad_log("fio version 2 iolog\n/a add\n/a open\n/a append 0 1\n", 4, "unknown action");
	bad_log("fio version 2 iolog\n/a add\n/b open\n", 3, "file not added");
	bad_log("fio version 2 iolog\n/a add\n/a open\n/a open\n", 4, "file opened again without a close");
	bad_log("fio version 2 iolog\n/a add\n/a read 0\n", 3, "expected 'FILE ACTION' or 'FILE ACTION OFFSET LENGTH'");
	bad_log("fio version 2 iolog\n/a add\n/a read -1 10\n", 3,
		"expected OFFSET and LENGTH as unsigned decimal numbers");
	bad_log("fio version 2 iolog\n/a add\n/a open 0 0\n", 3, "add/open/close take no offset and length");
	bad_log("fio version 2 iolog\n/a add\n/a read 0 4294967296\n", 3, "LENGTH longer than one read or write can move");
	bad_log("fio version 3 iolog\n0 /a add\n5 /a wait 10 0\n", 3, "'wait' is not allowed in a version 3 iolog");
	bad_log("fio version 3 iolog\n/a add\n", 2, "expected a time in microseconds first");
	bad_log("fio version 3 iolog\n0 /a add\n1 /a read 0 1 2\n", 3, "expected 'TIME FILE ACTION'");
	bad_log("fio version 2 iolog\n/a add\n/a read 0 1 2 3 4\n", 3, "too many fields");
	/* an offset past 2^63 - 1 is none a file has (it became the position:
	 * a write at 0); times and waits past 2^63 - 1 ns wrapped */
	bad_log("fio version 2 iolog\n/a add\n/a open\n/a write 9223372036854775808 4096\n", 4,
		"expected OFFSET plus LENGTH within 2^63-1 bytes");
	bad_log("fio version 2 iolog\n/a add\n/a open\n/a write 9223372036854775807 1\n", 4,
		"expected OFFSET plus LENGTH within 2^63-1 bytes");
	bad_log("fio version 3 iolog\n0 /a add\n0 /a open\n20000000000000000 /a write 0 1\n", 4,
		"a time past 2^63-1 ns");
	bad_log("fio version 3 iolog\n0 /a add\n0 /a open\n9223372036854776 /a write 0 1\n", 4,
		"a time past 2^63-1 ns");
	bad_log("fio version 2 iolog\n/a add\n/a open\n/a wait 9223372036854776 0\n", 4,
		"a wait past 2^63-1 ns");
	bad_log("fio version 2 iolog\n/a add\n/a open\n/a wait 9223372036854775 0\n"
		"/a wait 9223372036854775 0\n", 5, "the waits add up past 2^63-1 ns");
	/* numbers of every width: past 8 digits, past 64 bits, a stray byte */
	static const char *const badnum[] = { "12a4", "1234567x", "x2345678", "123456789a",
					      "12345678a0123", "1/345678901234", "123456789012345:",
					      ":234567890123456", "12345678901234567/",
					      "18446744073709551616", "99999999999999999999999",
					      "+5", "" };
	for (size_t i = 0; i < sizeof(badnum) / sizeof(badnum[0]); i++) {
		char t[200];
		snprintf(t, sizeof(t), "fio version 2 iolog\n/a add\n/a read %s 10\n", badnum[i]);
		bad_log(t, 3, *badnum[i] ? "expected OFFSET and LENGTH as unsigned decimal numbers"
					 : "expected 'FILE ACTION' or 'FILE ACTION OFFSET LENGTH'");
		snprintf(t, sizeof(t), "fio version 2 iolog\n/a add\n/a write 0 %s\n", badnum[i]);
		bad_log(t, 3, *badnum[i] ? "expected OFFSET and LENGTH as unsigned decimal numbers"
					 : "expected 'FILE ACTION' or 'FILE ACTION OFFSET LENGTH'");
	}
}

/* --skip-bad: a line that names a file before its add line is bad, and
 * is not replayed either (once pass 2 found the file, added further on,
 * and replayed it); a line over the length bound counts once. */
static void t_read_skip_bad(void **state)
{
	(void)state;
	char log[300], ops[300];
	struct opstream s;
	struct rerr e;
	struct load_opts lo = { .format = "fio-iolog", .skip_bad = true };
	struct load_result res;
	char *args[] = { log };

	path_in(log, sizeof(log), "sb.iolog");
	path_in(ops, sizeof(ops), "sb.ops");
	size_t big = (1u << 20) + 10;
	char *text = malloc(big + 200);
	assert_non_null(text);
	int k = sprintf(text, "fio version 2 iolog\n/a read 0 10\n/a add\n/a open\n/a read 0 20\n/a ");
	memset(text + k, 'x', big);
	strcpy(text + k + big, "\n/a write 5 5\n/a close\n");
	write_text(log, text);
	free(text);
	unlink(ops);
	assert_int_equal(trace_load(args, 1, &lo, ops, &res, &e), 0);
	assert_int_equal(res.bad_lines, 2);
	assert_int_equal(opstream_open(&s, ops, NULL), 0);
	const struct want w[] = {
		{ OP_OPEN, 0, 0, 0, "/a", 0, O_RDWR },
		{ OP_READ, 0, 0, 20, "/a", 0, 0 },
		{ OP_WRITE, 0, 5, 5, "/a", 0, 0 },
		{ OP_CLOSE, 0, 0, 0, "/a", 0, 0 },
	};
	expect_ops(&s, 0, w, sizeof(w) / sizeof(w[0]));
	opstream_close(&s);
	unlink(log);
	unlink(ops);

	/* without --skip-bad the early line stops the load, naming it */
	bad_log("fio version 2 iolog\n/a add\n/a open\n/b write 0 1\n/b add\n/a close\n", 4,
		"file not added");
}

/* Numbers of any width (8 digits at a time), names alike but in the
 * middle (one hash slot each, the last-file shortcut never confused). */
static void t_read_numbers_names(void **state)
{
	(void)state;
	char log[300], ops[300];
	struct opstream s;

	load_text("n", "fio version 2 iolog\n"
			"/scratch/rank0001/out.dat add\n"
			"/scratch/rank0002/out.dat add\n"
			"/scratch/rank0001/out.dat read 0 7\n"
			"/scratch/rank0002/out.dat read 12345678 00000001\n"
			"/scratch/rank0002/out.dat read 123456789 000000000000000000004096\n"
			"/scratch/rank0001/out.dat write 9223372036854775806 1\n"
			"/scratch/rank0001/out.dat read 00000000000000000000000000000000 99999999\n"
			"/scratch/rank0002/out.dat\twrite\t1234567812345678 100000000\r\n"
			"/scratch/rank0001/out.dat read 12345678901234567 12345678\n"
			"/scratch/rank0001/out.dat read 123456789012345 123456789\n"
			"  \t /scratch/rank0001/out.dat \t read \t\t 98765432109876543 \t   "
			"  \t 1 \t \r\n"                               /* 64 bytes and more */
			"/r1/s/common/tail add\n/r2/s/common/tail add\n"   /* differ in the first 8 */
			"/r1/s/common/tail read 0 1\n/r2/s/common/tail read 0 2\n",
		  log, ops, &s);
	const struct want w[] = {
		{ OP_OPEN, 0, 0, 0, "/scratch/rank0001/out.dat", OPF_SYNTH, O_RDWR },
		{ OP_READ, 0, 0, 7, "/scratch/rank0001/out.dat", 0, 0 },
		{ OP_OPEN, 0, 0, 0, "/scratch/rank0002/out.dat", OPF_SYNTH, O_RDWR },
		{ OP_READ, 0, 12345678, 1, "/scratch/rank0002/out.dat", 0, 0 },
		{ OP_READ, 0, 123456789, 4096, "/scratch/rank0002/out.dat", 0, 0 },
		{ OP_WRITE, 0, 9223372036854775806ull, 1, "/scratch/rank0001/out.dat", 0, 0 },
		{ OP_READ, 0, 0, 99999999, "/scratch/rank0001/out.dat", 0, 0 },
		{ OP_WRITE, 0, 1234567812345678ull, 100000000, "/scratch/rank0002/out.dat", 0, 0 },
		{ OP_READ, 0, 12345678901234567ull, 12345678, "/scratch/rank0001/out.dat", 0, 0 },
		{ OP_READ, 0, 123456789012345ull, 123456789, "/scratch/rank0001/out.dat", 0, 0 },
		{ OP_READ, 0, 98765432109876543ull, 1, "/scratch/rank0001/out.dat", 0, 0 },
		{ OP_OPEN, 0, 0, 0, "/r1/s/common/tail", OPF_SYNTH, O_RDONLY },
		{ OP_READ, 0, 0, 1, "/r1/s/common/tail", 0, 0 },
		{ OP_OPEN, 0, 0, 0, "/r2/s/common/tail", OPF_SYNTH, O_RDONLY },
		{ OP_READ, 0, 0, 2, "/r2/s/common/tail", 0, 0 },
		{ OP_CLOSE, 0, 0, 0, "/scratch/rank0001/out.dat", OPF_SYNTH, 0 },
		{ OP_CLOSE, 0, 0, 0, "/scratch/rank0002/out.dat", OPF_SYNTH, 0 },
		{ OP_CLOSE, 0, 0, 0, "/r1/s/common/tail", OPF_SYNTH, 0 },
		{ OP_CLOSE, 0, 0, 0, "/r2/s/common/tail", OPF_SYNTH, 0 },
	};
	expect_ops(&s, 0, w, sizeof(w) / sizeof(w[0]));
	opstream_close(&s);
	unlink(log);
	unlink(ops);
}

/* A NUL ends a line (what follows it on the line is not read), at any
 * place in a short line or a long one. */
static void t_read_nul(void **state)
{
	(void)state;
	static const char text[] = "fio version 2 iolog\n/a add\n/a read 7 8\0 junk 9\n"
				   "/a write 1 2\0\n/a read 3 4\t\0/a x\n\0/a read 5 6\n"
				   "/a write 10 11 \0 and more than sixty-four bytes after the NUL\n";
	char log[300], ops[300];
	struct opstream s;
	struct rerr e;
	FILE *f;

	path_in(log, sizeof(log), "nul.iolog");
	path_in(ops, sizeof(ops), "nul.ops");
	f = fopen(log, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, sizeof(text) - 1, f), sizeof(text) - 1);
	fclose(f);
	if (load_log(log, ops, &s, &e))
		fail_msg("%s: %s", log, e.msg);
	const struct want w[] = {
		{ OP_OPEN, 0, 0, 0, "/a", OPF_SYNTH, O_RDWR },
		{ OP_READ, 0, 7, 8, "/a", 0, 0 },
		{ OP_WRITE, 0, 1, 2, "/a", 0, 0 },
		{ OP_READ, 0, 3, 4, "/a", 0, 0 },
		{ OP_WRITE, 0, 10, 11, "/a", 0, 0 },
		{ OP_CLOSE, 0, 0, 0, "/a", OPF_SYNTH, 0 },
	};
	expect_ops(&s, 0, w, sizeof(w) / sizeof(w[0]));
	opstream_close(&s);
	unlink(log);
	unlink(ops);
}

/* A file added and written far into a log (after every file known was
 * written, where pass 1 stops until pass 2 meets the add line; /y is
 * never written, so pass 1 then reads on to the end): opened for writing;
 * one added there and only read, read-only. */
static void t_read_late_adds_far(void **state)
{
	(void)state;
	size_t cap = 8u << 20, n = 0;
	char *text = malloc(cap), log[300], ops[300];
	struct opstream s;

	assert_non_null(text);
	n += (size_t)sprintf(text, "fio version 2 iolog\n/a add\n");
	for (int i = 0; i < 150000; i++)
		n += (size_t)sprintf(text + n, "/a write %d 1\n", i);
	n += (size_t)sprintf(text + n, "/z add\n/y add\n/z read 0 1\n/y read 0 2\n");
	for (int i = 0; i < 150000; i++)
		n += (size_t)sprintf(text + n, "/a read %d 1\n", i);
	n += (size_t)sprintf(text + n, "/z write 9 9\n");
	assert_true(n < cap);
	load_text("far", text, log, ops, &s);
	free(text);
	uint64_t got;
	const struct op *o = opstream_rank_ops(&s, 0, &got);
	assert_int_equal(got, 1 + 150000 + 2 + 2 + 150000 + 1 + 3);
	assert_int_equal(o[150001].kind, OP_OPEN);
	assert_string_equal(opstream_path(&s, o[150001].file), "/z");
	assert_int_equal(o[150001].oflags, O_RDWR);
	assert_int_equal(o[150003].kind, OP_OPEN);
	assert_string_equal(opstream_path(&s, o[150003].file), "/y");
	assert_int_equal(o[150003].oflags, O_RDONLY);
	assert_int_equal(o[got - 4].kind, OP_WRITE);
	assert_int_equal(o[got - 4].offset, 9);
	opstream_close(&s);
	unlink(log);
	unlink(ops);
}

/* Files added late, after every file before them is written (pass 1 then
 * waits for pass 2 to meet an add line of a new file): each still gets the
 * flags its own writes call for, whatever the length of its line or where
 * "add" sits. */
static void t_read_late_adds(void **state)
{
	(void)state;
	char log[300], ops[300];
	struct opstream s;

	load_text("late", "fio version 2 iolog\n"
			"/a add\n/a write 0 1\n"
			"/b add\n"                                      /* short line */
			"/b read 0 1\n"
			"/q/a/d/d/long/enough/name/to/pass/sixteen add\n"  /* "add" last */
			"/q/a/d/d/long/enough/name/to/pass/sixteen write 0 2\n"
			"/added\tadd\n"                                /* "add" twice */
			"/added read 0 3\n"
			"/b read 0 4\n",
		  log, ops, &s);
	const struct want w[] = {
		{ OP_OPEN, 0, 0, 0, "/a", OPF_SYNTH, O_RDWR },
		{ OP_WRITE, 0, 0, 1, "/a", 0, 0 },
		{ OP_OPEN, 0, 0, 0, "/b", OPF_SYNTH, O_RDONLY },
		{ OP_READ, 0, 0, 1, "/b", 0, 0 },
		{ OP_OPEN, 0, 0, 0, "/q/a/d/d/long/enough/name/to/pass/sixteen", OPF_SYNTH, O_RDWR },
		{ OP_WRITE, 0, 0, 2, "/q/a/d/d/long/enough/name/to/pass/sixteen", 0, 0 },
		{ OP_OPEN, 0, 0, 0, "/added", OPF_SYNTH, O_RDONLY },
		{ OP_READ, 0, 0, 3, "/added", 0, 0 },
		{ OP_READ, 0, 0, 4, "/b", 0, 0 },
		{ OP_CLOSE, 0, 0, 0, "/a", OPF_SYNTH, 0 },
		{ OP_CLOSE, 0, 0, 0, "/b", OPF_SYNTH, 0 },
		{ OP_CLOSE, 0, 0, 0, "/q/a/d/d/long/enough/name/to/pass/sixteen", OPF_SYNTH, 0 },
		{ OP_CLOSE, 0, 0, 0, "/added", OPF_SYNTH, 0 },
	};
	expect_ops(&s, 0, w, sizeof(w) / sizeof(w[0]));
	opstream_close(&s);
	unlink(log);
	unlink(ops);
}

/* Pass 1 stopped and called on again and again: after each new file is
 * written it stops, a file written only after its open still opens for
 * writing, an add line of a known file wakes nothing, and the last file
 * (never written) has pass 1 read to the end. */
static void t_read_late_adds_stepwise(void **state)
{
	(void)state;
	char log[300], ops[300];
	struct opstream s;

	load_text("steps", "fio version 2 iolog\n"
			 "/a add\n/a write 0 1\n/a read 0 1\n"
			 "/b add\n/b write 0 2\n/a add\n/a read 0 3\n"
			 "/c add\n/c open\n/c read 0 4\n/c write 0 5\n"
			 "/d add\n/d read 0 6\n",
		  log, ops, &s);
	const struct want w[] = {
		{ OP_OPEN, 0, 0, 0, "/a", OPF_SYNTH, O_RDWR },
		{ OP_WRITE, 0, 0, 1, "/a", 0, 0 },
		{ OP_READ, 0, 0, 1, "/a", 0, 0 },
		{ OP_OPEN, 0, 0, 0, "/b", OPF_SYNTH, O_RDWR },
		{ OP_WRITE, 0, 0, 2, "/b", 0, 0 },
		{ OP_READ, 0, 0, 3, "/a", 0, 0 },
		{ OP_OPEN, 0, 0, 0, "/c", 0, O_RDWR },
		{ OP_READ, 0, 0, 4, "/c", 0, 0 },
		{ OP_WRITE, 0, 0, 5, "/c", 0, 0 },
		{ OP_OPEN, 0, 0, 0, "/d", OPF_SYNTH, O_RDONLY },
		{ OP_READ, 0, 0, 6, "/d", 0, 0 },
		{ OP_CLOSE, 0, 0, 0, "/a", OPF_SYNTH, 0 },
		{ OP_CLOSE, 0, 0, 0, "/b", OPF_SYNTH, 0 },
		{ OP_CLOSE, 0, 0, 0, "/c", OPF_SYNTH, 0 },
		{ OP_CLOSE, 0, 0, 0, "/d", OPF_SYNTH, 0 },
	};
	expect_ops(&s, 0, w, sizeof(w) / sizeof(w[0]));
	opstream_close(&s);
	unlink(log);
	unlink(ops);
}

/* ---- pass 2 a block of lines at a time, the usual line read at once ---- */

/* trace_load of text (n bytes) as NAME.iolog into s (skip_bad as given);
 * log and ops (300 bytes each) get the paths. */
static int load_bytes(const char *name, const char *text, size_t n, bool skip_bad, char *log,
		      char *ops, struct load_result *res, struct rerr *e)
{
	struct load_opts lo = { .format = "fio-iolog", .skip_bad = skip_bad };
	char nm[64], *args[] = { log };
	FILE *f;

	snprintf(nm, sizeof(nm), "%s.iolog", name);
	path_in(log, 300, nm);
	snprintf(nm, sizeof(nm), "%s.ops", name);
	path_in(ops, 300, nm);
	f = fopen(log, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
	unlink(ops);
	e->msg[0] = 0;
	return trace_load(args, 1, &lo, ops, res, e);
}

static const char *const big_names[] = {
	"/mnt/target/job0.file0", "/mnt/target/job0.file1", "/mnt/target/job0.file2",
	"/mnt/target/job0.file3", "/s",
	"/a/rather/long/directory/name/that/makes/the/line/long/data.bin",
};

/* Line i of the big log: file, kind, offset, length, time (us). */
static void big_line(unsigned i, unsigned *file, unsigned *kind, uint64_t *off, uint64_t *len,
		     uint64_t *t_us)
{
	uint32_t h = i * 2654435761u;
	static const unsigned bits[] = { 12, 30, 40, 53 };

	*file = i % 9 == 4 ? 4 + (i / 9) % 2 : (h >> 13) % 4;
	*kind = i % 50 == 49 ? OP_FSYNC : i % 50 == 24 ? OP_FDATASYNC :
		(h >> 9) & 1 ? OP_WRITE : OP_READ;
	*off = ((uint64_t)i * 4096 * 1000003) & ((1ull << bits[i % 4]) - 1);
	if (i % 13 == 0)
		*off |= 1ull << 62;                     /* 19 digits: the long way */
	*len = i % 101 == 0 ? 0x7ffff000ull : 1 + (uint64_t)i * 7919 % 200000;
	if (*kind == OP_FSYNC || *kind == OP_FDATASYNC)
		*off = *len = 0;
	*t_us = i < 20000 ? 5 + (uint64_t)i * 37 : 123456789012ull + i;
}

/* 40,000 I/O lines (several reads of the file, lines across their
 * buffers), every 11th written another valid way (blanks doubled, a tab,
 * a CR, a leading or a trailing blank, 20-digit numbers), and names
 * short (< 8 bytes), usual and long (lines over 64 bytes): every op
 * as the line says, lines and bytes counted. */
static void read_big(unsigned version)
{
	const unsigned nlines = 40000;
	size_t cap = 8u << 20, n = 0;
	char *text = malloc(cap), log[300], ops[300];
	struct load_result res;
	struct opstream s;
	struct rerr e;

	assert_non_null(text);
	n += (size_t)sprintf(text, "fio version %u iolog\n", version);
	for (unsigned f = 0; f < 6; f++)
		n += (size_t)sprintf(text + n, "%s%s add\n", version == 3 ? "0 " : "", big_names[f]);
	for (unsigned f = 0; f < 4; f++)
		n += (size_t)sprintf(text + n, "%s%s open\n", version == 3 ? "1 " : "", big_names[f]);
	for (unsigned i = 0; i < nlines; i++) {
		unsigned file, kind;
		uint64_t off, len, t;
		const char *act;
		char ts[32] = "";

		big_line(i, &file, &kind, &off, &len, &t);
		act = kind == OP_FSYNC ? "sync" : kind == OP_FDATASYNC ? "datasync" :
		      kind == OP_WRITE ? "write" : "read";
		if (version == 3)
			snprintf(ts, sizeof(ts), "%llu ", (unsigned long long)t);
		const char *nm = big_names[file];
		unsigned long long o = (unsigned long long)off, l = (unsigned long long)len;
		if (i % 11 != 5) {
			n += (size_t)sprintf(text + n, "%s%s %s %llu %llu\n", ts, nm, act, o, l);
			continue;
		}
		switch ((i / 11) % 6) {
		case 0:
			n += (size_t)sprintf(text + n, "%s%s  %s %llu  %llu\n", ts, nm, act, o, l);
			break;
		case 1:
			n += (size_t)sprintf(text + n, "%s%s\t%s %llu %llu\n", ts, nm, act, o, l);
			break;
		case 2:
			n += (size_t)sprintf(text + n, "%s%s %s %llu %llu\r\n", ts, nm, act, o, l);
			break;
		case 3:
			n += (size_t)sprintf(text + n, "%s%s %s %020llu %020llu\n", ts, nm, act, o, l);
			break;
		case 4:
			n += (size_t)sprintf(text + n, "%s%s %s %llu %llu \n", ts, nm, act, o, l);
			break;
		default:
			n += (size_t)sprintf(text + n, " %s%s %s %llu %llu\n", ts, nm, act, o, l);
			break;
		}
	}
	assert_true(n < cap);
	if (load_bytes("big", text, n, false, log, ops, &res, &e))
		fail_msg("%s", e.msg);
	free(text);
	assert_int_equal(res.lines, 1 + 6 + 4 + nlines);
	assert_int_equal(res.bytes, n);
	assert_int_equal(res.bad_lines, 0);
	assert_int_equal(opstream_open(&s, ops, NULL), 0);

	uint64_t got, k = 0, t0 = version == 3 ? 1000 : 0;
	const struct op *o = opstream_rank_ops(&s, 0, &got);
	for (unsigned i = 0; i < nlines; i++) {
		unsigned file, kind;
		uint64_t off, len, t;

		big_line(i, &file, &kind, &off, &len, &t);
		while (k < got && (o[k].kind == OP_OPEN || o[k].kind == OP_CLOSE))
			k++;
		assert_true(k < got);
		if (o[k].kind != kind || strcmp(opstream_path(&s, o[k].file), big_names[file]) ||
		    o[k].t_ns != (version == 3 ? t * 1000 - t0 : 0) || o[k].line != i + 12 ||
		    (op_is_data(kind) && (o[k].offset != off || o[k].len != len)))
			fail_msg("v%u line %u: got %s %s t=%llu %llu %llu", version, i + 12,
				 op_kind_name(o[k].kind), opstream_path(&s, o[k].file),
				 (unsigned long long)o[k].t_ns, (unsigned long long)o[k].offset,
				 (unsigned long long)o[k].len);
		k++;
	}
	while (k < got && o[k].kind == OP_CLOSE)
		k++;
	assert_int_equal(k, got);
	opstream_close(&s);
	unlink(log);
	unlink(ops);
}

static void t_read_big(void **state)
{
	(void)state;
	read_big(2);
	read_big(3);
}

/* The log of t_read_big_lineno: nlines reads of /a, line `bad` (a number)
 * bad, a last bad line without '\n' after them when tail; the offset in
 * the file of each line's start in starts[line] when starts. */
static size_t lineno_log(char *text, unsigned nlines, unsigned bad, bool tail, size_t *starts)
{
	size_t n = (size_t)sprintf(text, "fio version 2 iolog\n/a add\n");
	unsigned line = 2;

	for (unsigned i = 0; i < nlines; i++) {
		line++;
		if (starts)
			starts[line] = n;
		n += (size_t)sprintf(text + n, line == bad ? "/a read x%u %u\n" : "/a read %u %u\n",
				     i * 7, 1 + i % 5000);
	}
	if (tail)
		n += (size_t)sprintf(text + n, "/a read 1 x");      /* no '\n' */
	return n;
}

/* A bad line anywhere (the first of the first buffer of lines, the one
 * across two reads of the file, the first after it) is reported with its
 * own number; with --skip-bad, the first of them, and every line counted.
 * A last line without '\n' is a cut one, dropped (t_read_cut). */
static void t_read_big_lineno(void **state)
{
	(void)state;
	const unsigned nlines = 30000;
	size_t cap = 4u << 20, *starts = calloc(nlines + 4, sizeof(size_t));
	char *text = malloc(cap), log[300], ops[300], want[400];
	struct load_result res;
	struct rerr e;
	unsigned at[12] = { 3, 2000 }, nat = 2;

	assert_non_null(text);
	assert_non_null(starts);
	/* the reads of the file: 64 KiB each, the part of a line left over
	 * at the end of one moved to the start of the buffer first */
	size_t n = lineno_log(text, nlines, 0, false, starts), edge = 65536;
	for (unsigned line = 3; line <= nlines + 2 && nat < 10; line++) {
		size_t end = line < nlines + 2 ? starts[line + 1] : n;
		if (starts[line] < edge && end > edge) {
			at[nat++] = line;               /* across two reads */
			at[nat++] = line + 1;           /* the next buffer's first */
			edge = starts[line] + 65536;
		}
	}
	assert_int_equal(nat, 10);
	at[nat++] = nlines + 3;                 /* the tail */
	for (unsigned a = 0; a < nat; a++) {
		bool tail = at[a] == nlines + 3;
		n = lineno_log(text, nlines, at[a], tail, NULL);
		assert_true(n < cap);
		if (tail) {
			/* cut, not bad: dropped whatever --skip-bad says */
			char v[600];
			struct opstream s;
			for (int sb = 0; sb < 2; sb++) {
				assert_int_equal(load_bytes("bl", text, n, sb, log, ops, &res, &e), 0);
				assert_int_equal(res.bad_lines, 0);
				assert_int_equal(res.lines, nlines + 3);
				assert_int_equal(opstream_open(&s, ops, NULL), 0);
				snprintf(want, sizeof(want), "%s:%u", log, nlines + 3);
				assert_string_equal(opstream_info(&s, "cut_line", v, sizeof(v)), want);
				opstream_close(&s);
			}
			unlink(log);
			unlink(ops);
			continue;
		}
		assert_int_not_equal(load_bytes("bl", text, n, false, log, ops, &res, &e), 0);
		snprintf(want, sizeof(want), "%s:%u: expected OFFSET and LENGTH as unsigned decimal numbers",
			 log, at[a]);
		if (!strstr(e.msg, want))
			fail_msg("expected '%s' in '%s'", want, e.msg);
		assert_int_equal(access(ops, F_OK), -1);
		assert_int_equal(load_bytes("bl", text, n, true, log, ops, &res, &e), 0);
		assert_int_equal(res.bad_lines, 1);
		assert_non_null(strstr(res.first_bad, want + strlen(log) - strlen("bl.iolog")));
		assert_int_equal(res.lines, nlines + 2);
		assert_int_equal(res.bytes, n);
		unlink(log);
		unlink(ops);
	}
	free(starts);

	/* a line too long counts, the lines after it keep their numbers */
	size_t big = (1u << 20) + 100;
	free(text);
	text = malloc(big + 200000);
	assert_non_null(text);
	n = (size_t)sprintf(text, "fio version 2 iolog\n/a add\n");
	for (unsigned i = 0; i < 5000; i++)
		n += (size_t)sprintf(text + n, "/a read %u 1\n", i);
	memset(text + n, 'y', big);
	n += big;
	text[n++] = '\n';
	for (unsigned i = 0; i < 5000; i++)
		n += (size_t)sprintf(text + n, "/a write %u 1\n", i);
	assert_int_equal(load_bytes("bl", text, n, true, log, ops, &res, &e), 0);
	assert_int_equal(res.bad_lines, 1);
	assert_non_null(strstr(res.first_bad, "bl.iolog:5003: line too long"));
	/* and its bytes: every byte of the log was read */
	assert_int_equal(res.lines, 2 + 5000 + 1 + 5000);
	assert_int_equal(res.bytes, n);
	struct opstream s;
	uint64_t got;
	assert_int_equal(opstream_open(&s, ops, NULL), 0);
	const struct op *o = opstream_rank_ops(&s, 0, &got);
	assert_int_equal(got, 1 + 5000 + 5000 + 1);
	for (unsigned i = 0; i < 5000; i++) {
		assert_int_equal(o[1 + i].line, 3 + i);
		assert_int_equal(o[1 + 5000 + i].line, 5004 + i);
		assert_int_equal(o[1 + 5000 + i].offset, i);
	}
	opstream_close(&s);
	free(text);
	unlink(log);
	unlink(ops);
}

/* fio killed while it wrote its log's last line (a job's time limit): a
 * last line without '\n' is dropped and counted as cut (cut_lines,
 * cut_line), whether or not what is left reads as a line ("read 512000 40"
 * of "read 512000 4096" does: before, a 40-byte read was replayed), with
 * or without --skip-bad, in version 2 and 3 logs; a write cut so does not
 * make its file written (opened O_RDWR).  The same line with its '\n' is
 * read as before. */
static void t_read_cut(void **state)
{
	(void)state;
	char log[300], ops[300], v[600], want[400];
	struct load_result res;
	struct rerr e;
	struct opstream s;
	static const char *const logs[] = {
		"fio version 2 iolog\n/x/r add\n/x/r open\n/x/r read 0 4096\n/x/r read 512000 40",
		"fio version 2 iolog\n/x/r add\n/x/r open\n/x/r read 0 4096\n/x/r read 5120",
		"fio version 2 iolog\n/x/r add\n/x/r open\n/x/r read 0 4096\n/x/r wri",
		"fio version 3 iolog\n0 /x/r add\n1 /x/r open\n2 /x/r read 0 4096\n3 /x/r read 512000 40",
		"fio version 3 iolog\n0 /x/r add\n1 /x/r open\n2 /x/r read 0 4096\n3 /x/r write 0 4096",
	};
	for (size_t k = 0; k < sizeof(logs) / sizeof(logs[0]); k++)
		for (int sb = 0; sb < 2; sb++) {
			if (load_bytes("cut", logs[k], strlen(logs[k]), sb, log, ops, &res, &e))
				fail_msg("%s: %s", logs[k], e.msg);
			assert_int_equal(res.bad_lines, 0);
			assert_int_equal(opstream_open(&s, ops, NULL), 0);
			const struct want w[] = {
				{ OP_OPEN, 0, 0, 0, "/x/r", 0, O_RDONLY },
				{ OP_READ, k < 3 ? 0 : 1000, 0, 4096, "/x/r", 0, 0 },
				{ OP_CLOSE, k < 3 ? 0 : 1000, 0, 0, "/x/r", OPF_SYNTH, 0 },
			};
			expect_ops(&s, 0, w, 3);
			assert_string_equal(opstream_info(&s, "cut_lines", v, sizeof(v)), "1");
			snprintf(want, sizeof(want), "%s:5", log);
			assert_string_equal(opstream_info(&s, "cut_line", v, sizeof(v)), want);
			opstream_close(&s);
		}
	/* with its newline: the line is read (and no cut is said) */
	const char *whole = "fio version 2 iolog\n/x/r add\n/x/r open\n/x/r read 512000 40\n";
	assert_int_equal(load_bytes("cut", whole, strlen(whole), false, log, ops, &res, &e), 0);
	assert_int_equal(opstream_open(&s, ops, NULL), 0);
	const struct want w[] = {
		{ OP_OPEN, 0, 0, 0, "/x/r", 0, O_RDONLY },
		{ OP_READ, 0, 512000, 40, "/x/r", 0, 0 },
		{ OP_CLOSE, 0, 0, 0, "/x/r", OPF_SYNTH, 0 },
	};
	expect_ops(&s, 0, w, 3);
	assert_null(opstream_info(&s, "cut_lines", v, sizeof(v)));
	opstream_close(&s);
	unlink(log);
	unlink(ops);
}

/* Pass 1 finds a late "add" wherever it falls in a buffer (its "dd" across
 * 16-, 32- or 64-byte steps, after names full of "dd"): the file added
 * and, written, opened for writing. */
static void t_read_add_anywhere(void **state)
{
	(void)state;
	char text[1024], name[300], log[300], ops[300];
	struct opstream s;
	struct rerr e;

	for (unsigned k = 1; k < 200; k++) {
		int n = snprintf(name, sizeof(name), "/dd/");
		for (unsigned j = 0; j < k; j++)
			name[n++] = j % 3 ? 'd' : 'x';
		name[n] = '\0';
		/* blanks after "add" on every other: lines of 192 bytes and more */
		snprintf(text, sizeof(text),
			 "fio version 2 iolog\n/ddd add\n/ddd write 0 1\n%s add%*s\n%s write 5 6\n",
			 name, k % 2 ? 150 : 0, "", name);
		path_in(log, sizeof(log), "aa.iolog");
		path_in(ops, sizeof(ops), "aa.ops");
		write_text(log, text);
		if (load_log(log, ops, &s, &e))
			fail_msg("k=%u: %s", k, e.msg);
		uint64_t got;
		const struct op *o = opstream_rank_ops(&s, 0, &got);
		assert_int_equal(got, 6);
		assert_int_equal(o[2].kind, OP_OPEN);
		assert_string_equal(opstream_path(&s, o[2].file), name);
		assert_int_equal(o[2].oflags, O_RDWR);
		assert_int_equal(o[3].offset, 5);
		opstream_close(&s);
		unlink(log);
		unlink(ops);
	}
}

/* Many names alike: the same last 8 bytes and lengths apart, or the same
 * length and first and last 8 bytes, the middle ones apart (the slots of
 * files found lately shared): each line's own file. */
static void t_read_names_alike(void **state)
{
	(void)state;
	char names[80][64], log[300], ops[300];
	size_t cap = 1u << 20, n = 0;
	char *text = malloc(cap);
	unsigned nn = 0;
	struct opstream s;

	assert_non_null(text);
	for (unsigned i = 1; i <= 40; i++, nn++) {
		memset(names[nn], 0, sizeof(names[nn]));
		names[nn][0] = '/';
		memset(names[nn] + 1, 'a', i);
		strcat(names[nn], "/out.dat");
	}
	for (unsigned i = 0; i < 20; i++, nn++)
		snprintf(names[nn], sizeof(names[nn]), "/mnt/xx/ra%06u/out.dat", i * 37);
	for (unsigned i = 0; i < 10; i++, nn++)
		snprintf(names[nn], sizeof(names[nn]), "/r%u/s/common/tail", i);
	n += (size_t)sprintf(text, "fio version 3 iolog\n");
	for (unsigned i = 0; i < nn; i++)
		n += (size_t)sprintf(text + n, "0 %s add\n", names[i]);
	for (unsigned i = 0; i < 3000; i++)
		n += (size_t)sprintf(text + n, "%u %s read %u 1\n", i, names[i * 2654435761u % nn], i);
	assert_true(n < cap);
	load_text("alike", text, log, ops, &s);
	free(text);
	uint64_t got;
	const struct op *o = opstream_rank_ops(&s, 0, &got);
	for (unsigned i = 0, k = 0; i < 3000; i++, k++) {
		while (k < got && o[k].kind == OP_OPEN)
			k++;
		assert_true(k < got);
		assert_int_equal(o[k].kind, OP_READ);
		assert_int_equal(o[k].offset, i);
		assert_string_equal(opstream_path(&s, o[k].file), names[i * 2654435761u % nn]);
	}
	opstream_close(&s);
	unlink(log);
	unlink(ops);
}

/* ---- round trip: export, read back, export again ------------------------ */

static char *slurp_all(const char *dirpath, unsigned nranks)
{
	char *all = calloc(1, 1 << 16), p[600];

	for (unsigned r = 0; r < nranks; r++) {
		snprintf(p, sizeof(p), "%s/rank-%u.iolog", dirpath, r);
		char *t = slurp(p);
		strcat(all, t);
		free(t);
	}
	return all;
}

static void t_roundtrip(void **state)
{
	(void)state;
	char ops[300], l1[300], l2[300], back[300], back2[300];
	struct opstream s, b, b2;
	struct rerr e = { "" };

	path_in(ops, sizeof(ops), "rt.ops");
	path_in(l1, sizeof(l1), "rt1");
	path_in(l2, sizeof(l2), "rt2");
	path_in(back, sizeof(back), "rt-back.ops");
	path_in(back2, sizeof(back2), "rt-back2.ops");
	build_timed(ops);
	for (unsigned version = 2; version <= 3; version++) {
		struct fio_export_opts o = { .target = "/", .version = version };
		assert_int_equal(opstream_open(&s, ops, NULL), 0);
		assert_int_equal(fio_iolog_export(&s, l1, &o, NULL, &e), 0);
		assert_int_equal(load_log(l1, back, &b, &e), 0);
		/* what the log can carry comes back op for op: opens, closes,
		 * data ops that succeeded, syncs; paths as traced ("//d/a" is
		 * "/d/a"); times to the microsecond in version 3 (none in 2) */
		assert_int_equal(b.nranks, s.nranks);
		for (uint32_t r = 0; r < s.nranks; r++) {
			uint64_t n, m, j = 0;
			const struct op *so = opstream_rank_ops(&s, r, &n), *bo = opstream_rank_ops(&b, r, &m);
			for (uint64_t i = 0; i < n; i++) {
				if (so[i].kind == OP_STAT || so[i].result < 0)
					continue;
				assert_true(j < m);
				assert_int_equal(bo[j].kind, so[i].kind);
				assert_string_equal(opstream_path(&b, bo[j].file),
						    opstream_path(&s, so[i].kind == OP_OPEN ? so[i].file :
								  bo[j].file));
				if (op_is_data(so[i].kind)) {
					assert_int_equal(bo[j].offset, so[i].offset);
					assert_int_equal(bo[j].len, so[i].len);
				}
				assert_int_equal(bo[j].t_ns, version == 3 ? so[i].t_ns / 1000 * 1000 : 0);
				j++;
			}
			/* rank 0 left /d/a open: the log closes it at the rank's
			 * last op (the stat at 4 ms) */
			if (r == 0) {
				assert_int_equal(m, j + 1);
				assert_int_equal(bo[j].kind, OP_CLOSE);
				assert_string_equal(opstream_path(&b, bo[j].file), "/d/a");
				assert_int_equal(bo[j].t_ns, version == 3 ? 4000000 : 0);
			} else {
				assert_int_equal(m, j);
			}
		}
		/* a fixed point: the read-back exports to the very same text,
		 * and reads back to the very same ops */
		assert_int_equal(fio_iolog_export(&b, l2, &o, NULL, &e), 0);
		char *t1 = slurp_all(l1, 2), *t2 = slurp_all(l2, 2);
		assert_string_equal(t1, t2);
		free(t1);
		free(t2);
		assert_int_equal(load_log(l2, back2, &b2, &e), 0);
		assert_int_equal(b.nops, b2.nops);
		for (uint64_t i = 0; i < b.nops; i++) {
			assert_memory_equal(&b.ops[i], &b2.ops[i], sizeof(struct op));
		}
		opstream_close(&b2);
		opstream_close(&b);
		opstream_close(&s);
		char cmd[1300];
		snprintf(cmd, sizeof(cmd), "rm -rf %s %s %s %s", l1, l2, back, back2);
		assert_int_equal(system(cmd), 0);
	}
	unlink(ops);
}

/* rank-2 before rank-10: the order convert wrote them in */
static void t_natural_order(void **state)
{
	(void)state;
	char d[300], p[700], ops[300];
	struct opstream s;
	struct rerr e;

	path_in(d, sizeof(d), "nat");
	path_in(ops, sizeof(ops), "nat.ops");
	mkdir(d, 0755);
	for (int r = 0; r < 12; r++) {
		char text[200];
		snprintf(p, sizeof(p), "%s/rank-%d.iolog", d, r);
		snprintf(text, sizeof(text), "fio version 2 iolog\n/f%d add\n/f%d open\n/f%d close\n", r, r, r);
		write_text(p, text);
	}
	assert_int_equal(load_log(d, ops, &s, &e), 0);
	assert_int_equal(s.nranks, 12);
	for (uint32_t r = 0; r < 12; r++) {
		char want[32];
		snprintf(want, sizeof(want), "rank-%u.iolog", r);
		assert_string_equal(opstream_rank_name(&s, r), want);
	}
	opstream_close(&s);
	snprintf(p, sizeof(p), "rm -rf %s %s", d, ops);
	assert_int_equal(system(p), 0);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_text),
		cmocka_unit_test(t_read_cut),
		cmocka_unit_test(t_refused),
		cmocka_unit_test(t_handle_reuse),
		cmocka_unit_test(t_fio_replays),
		cmocka_unit_test(t_unfit_filtered),
		cmocka_unit_test(t_failure_leaves_dir),
		cmocka_unit_test(t_v3_text),
		cmocka_unit_test(t_read_v2),
		cmocka_unit_test(t_read_v3),
		cmocka_unit_test(t_read_bad),
		cmocka_unit_test(t_read_numbers_names),
		cmocka_unit_test(t_read_late_adds),
		cmocka_unit_test(t_read_late_adds_far),
		cmocka_unit_test(t_read_late_adds_stepwise),
		cmocka_unit_test(t_read_nul),
		cmocka_unit_test(t_read_skip_bad),
		cmocka_unit_test(t_read_big),
		cmocka_unit_test(t_read_big_lineno),
		cmocka_unit_test(t_read_add_anywhere),
		cmocka_unit_test(t_read_names_alike),
		cmocka_unit_test(t_roundtrip),
		cmocka_unit_test(t_natural_order),
		cmocka_unit_test(t_read_fifo),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
