/*
 * fuzz_common.h - what the libFuzzer harnesses share: a private temporary
 * directory (made once, removed at exit; $TMPDIR points into it so spill
 * and temporary .ops files stay there too), the input written to a file
 * in it, and a walk over every record of a loaded .ops stream so the
 * reader's output is read back (paths, names, hosts, info).
 *
 * Each harness is one LLVMFuzzerTestOneInput; fuzz/standalone.c gives the
 * same file a main() that feeds it files, for the normal (non-fuzzer)
 * build's regression tests.
 */
#ifndef REPLAY_FUZZ_COMMON_H
#define REPLAY_FUZZ_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/opstream.h"
#include "plan/filter.h"
#include "trace/trace.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir[4096];

/* Remove every file of the temporary directory (it holds no subdirectory),
 * and the directory itself when rmdir_too. */
static inline void fuzz_clean(int rmdir_too)
{
	if (!fuzz_dir[0])
		return;
	DIR *d = opendir(fuzz_dir);
	if (d) {
		struct dirent *de;
		char p[4400];
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				snprintf(p, sizeof(p), "%s/%s", fuzz_dir, de->d_name);
				unlink(p);
			}
		closedir(d);
	}
	if (rmdir_too)
		rmdir(fuzz_dir);
}

static void fuzz_atexit(void)
{
	fuzz_clean(1);
}

/* The private directory, made on first use. */
static inline const char *fuzz_tmpdir(void)
{
	if (fuzz_dir[0])
		return fuzz_dir;
	const char *t = getenv("TMPDIR");
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/replay-fuzz-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(fuzz_dir)) {
		perror("replay fuzz: mkdtemp");
		abort();
	}
	setenv("TMPDIR", fuzz_dir, 1);
	atexit(fuzz_atexit);
	return fuzz_dir;
}

/* data written to <dir>/name; the path in path. */
static inline void fuzz_write(const char *name, const uint8_t *data, size_t size, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", fuzz_tmpdir(), name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror("replay fuzz: open");
		abort();
	}
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			perror("replay fuzz: write");
			abort();
		}
		done += (size_t)n;
	}
	close(fd);
}

/* Read back everything an opened stream holds; what is read is checked
 * against the counts the stream claims (a reader must never hand out an
 * index beyond them). */
static inline void fuzz_walk(const struct opstream *s)
{
	volatile size_t sink = 0;
	char buf[256];
	uint64_t total = 0;
	for (uint32_t r = 0; r < s->nranks; r++) {
		uint64_t n;
		const struct op *ops = opstream_rank_ops(s, r, &n);
		total += n;
		sink += strlen(opstream_rank_name(s, r)) + strlen(opstream_rank_host(s, r));
		for (uint64_t i = 0; i < n; i++) {
			const struct op *op = &ops[i];
			if (op->file != OP_NOFILE && op->file >= s->npaths)
				abort();        /* an op naming a path the table lacks */
			sink += strlen(opstream_path(s, op->file)) + op->kind + op->len;
			if (op_aux_is_path(op->kind))
				sink += strlen(opstream_path(s, op->aux));
		}
	}
	if (total != s->nops)
		abort();
	sink += opstream_info(s, "format", buf, sizeof(buf)) != NULL;
	(void)sink;
}

/* Load the file at path as format (NULL: detect) into an .ops file in the
 * temporary directory, read it back, and remove it.  Errors are expected
 * (most inputs are bad): only crashes, leaks and UB are findings. */
static inline void fuzz_load(const char *path, const char *format, int skip_bad)
{
	char out[4200];
	snprintf(out, sizeof(out), "%s/out.ops", fuzz_tmpdir());
	char *args[1] = { (char *)path };
	struct load_opts lo = { .format = format, .skip_bad = skip_bad != 0 };
	struct load_result res;
	struct rerr e;
	memset(&res, 0, sizeof(res));
	if (trace_load(args, 1, &lo, out, &res, &e) == 0) {
		struct opstream s;
		const char *why = NULL;
		if (opstream_open(&s, res.ops_path, &why) != 0) {
			/* an input with the .ops magic is taken as is: refusing it
			 * is opstream_open's job (fuzz_ops) */
			if (res.format && !strcmp(res.format, "ops"))
				goto out;
			fprintf(stderr, "replay fuzz: the reader wrote an .ops file that does not"
				" open: %s\n", why ? why : "?");
			abort();
		}
		fuzz_walk(&s);
		struct filter f;
		struct filter_opts fo;
		memset(&fo, 0, sizeof(fo));
		if (filter_build(&f, &s, &fo, &e) == 0)
			filter_release(&f);
		opstream_close(&s);
	}
out:
	if (res.temporary || !strcmp(res.ops_path, out))
		unlink(res.ops_path);
}

/* A reader harness: the input as one trace file named name, loaded as
 * format (NULL: detected), strictly or with --skip-bad as one input bit
 * (the last byte's low bit) chooses. */
static inline int fuzz_reader(const uint8_t *data, size_t size, const char *name, const char *format)
{
	char path[4200];
	fuzz_write(name, data, size, path, sizeof(path));
	fuzz_load(path, format, size && (data[size - 1] & 1));
	fuzz_clean(0);
	return 0;
}

#endif
