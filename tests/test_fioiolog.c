/* test_fioiolog.c - fio iolog export: exact text, path mapping, refusals,
 * and a real fio --read_iolog run that must do the exported I/O. */
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

#include "trace/fioiolog.h"
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
 * open ignored, a zero-length read dropped, the file left open closed at
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
	assert_int_equal(opsw_finish(w), 0);
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
	assert_int_equal(fio_iolog_export(&s, out, &o, &e), 0);

	path_in(f0, sizeof(f0), "logs/rank-0.iolog");
	path_in(f1, sizeof(f1), "logs/rank-1.iolog");
	char *t0 = slurp(f0), *t1 = slurp(f1);
	snprintf(want, sizeof(want),
		 "fio version 2 iolog\n"
		 "%1$s/data/missing add\n"
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
	assert_int_equal(fio_iolog_export(&s, out, &o, &e), 0);
	assert_int_equal(access(f1, F_OK), -1);
	/* no target: "." */
	o.target = NULL;
	assert_int_equal(fio_iolog_export(&s, out, &o, &e), 0);
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
	assert_int_equal(opsw_finish(w), 0);
	assert_int_equal(opstream_open(&s, ops, &why), 0);
	assert_int_equal(fio_iolog_export(&s, out, &o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'a/../../etc/passwd'"));
	assert_non_null(strstr(e.msg, "beneath the target"));
	opstream_close(&s);

	/* a path with a blank: fio would split it */
	assert_int_equal(opsw_open(&w, ops), 0);
	assert_int_equal(opsw_rank(w, "pid 1", 1, &r0), 0);
	assert_int_equal(opsw_path(w, "/my data/f", 0, &p), 0);
	add(w, r0, (struct op){ .kind = OP_OPEN, .file = p, .handle = 0, .result = 3 });
	assert_int_equal(opsw_finish(w), 0);
	assert_int_equal(opstream_open(&s, ops, &why), 0);
	assert_int_equal(fio_iolog_export(&s, out, &o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "blanks"));
	opstream_close(&s);

	/* an output directory that cannot be created */
	assert_int_equal(opstream_open(&s, ops, &why), 0);
	assert_int_equal(fio_iolog_export(&s, "/proc/no/such/dir", &o, &e), -ENOENT);
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
	assert_int_equal(opsw_finish(w), 0);
	assert_int_equal(opstream_open(&s, ops, &why), 0);
	assert_int_equal(fio_iolog_export(&s, out, &o, &e), 0);
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
	assert_int_equal(fio_iolog_export(&s, out, &o, &e), 0);
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
		cmocka_unit_test(t_refused),
		cmocka_unit_test(t_handle_reuse),
		cmocka_unit_test(t_fio_replays),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
