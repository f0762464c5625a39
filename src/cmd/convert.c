/*
 * cmd_convert.c - `replay convert`: traces to a binary .ops file, or to
 * fio iologs (one per rank) with --to fio-iolog.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd/cmds.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "trace/fioiolog.h"
#include "report/stat.h"
#include "trace/trace.h"


/* Copy an .ops file given as input to the requested output (atomic). */
static int copy_file(const char *src, const char *dst, struct rerr *e)
{
	char tmp[4200];
	char buf[1 << 16];
	int in = -1, out = -1, rc = 0;
	ssize_t n;

	snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", dst);
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		rc = rerr_set(e, -errno, "cannot open '%s': %s", src, strerror(errno));
		goto out;
	}
	out = mkostemp(tmp, O_CLOEXEC);
	if (out < 0) {
		rc = rerr_set(e, -errno, "cannot create '%s': %s", tmp, strerror(errno));
		tmp[0] = 0;
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = rerr_set(e, -errno, "cannot read '%s': %s", src, strerror(errno));
			goto out;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0) {
				if (errno == EINTR)
					continue;
				rc = rerr_set(e, -errno, "cannot write '%s': %s", tmp, strerror(errno));
				goto out;
			}
			off += w;
		}
	}
	if (fchmod(out, 0644) < 0 || fsync(out) < 0) {
		rc = rerr_set(e, -errno, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (close(out) < 0) {
		out = -1;
		rc = rerr_set(e, -errno, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	out = -1;
	if (rename(tmp, dst) < 0) {
		rc = rerr_set(e, -errno, "cannot rename '%s' to '%s': %s", tmp, dst, strerror(errno));
		goto out;
	}
	tmp[0] = 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (rc < 0 && tmp[0])
		unlink(tmp);
	return rc;
}

static uint64_t skipped_calls(const struct opstream *s)
{
	uint64_t total = 0;
	const char *p = s->info;

	/* sum of the skipped.NAME=N info lines */
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n > 8 && !strncmp(p, "skipped.", 8)) {
			const char *eq = memchr(p, '=', n);
			if (eq)
				total += strtoull(eq + 1, NULL, 10);
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return total;
}

static void summary(const struct loaded_trace *lt, const char *out)
{
	const struct load_result *r = &lt->res;
	double secs = (double)lt->load_ns / 1e9;
	double mbps = secs > 0 ? (double)r->bytes / 1e6 / secs : 0;

	if (r->format && !strcmp(r->format, "ops")) {
		printf("%s: %" PRIu32 " ranks, %" PRIu64 " ops (copied from an .ops file)\n", out,
		       lt->s.nranks, lt->s.nops);
		return;
	}
	printf("%s: %" PRIu32 " ranks, %" PRIu64 " ops from %" PRIu64 " lines (%.1f MB) of %s"
	       " in %.3f s (%.1f MB/s); skipped %" PRIu64 " non-I/O calls, %" PRIu64 " bad lines\n",
	       out, lt->s.nranks, lt->s.nops, r->lines, (double)r->bytes / 1e6,
	       r->format ? r->format : "?", secs, mbps, skipped_calls(&lt->s), r->bad_lines);
}

struct convert_cli {
	struct load_opts lo;
	const char *out, *to, *target;
	int quiet;
	unsigned iolog_version;
};

static int convert_option(void *ctx, int id, const char *arg)
{
	struct convert_cli *c = ctx;
	switch (id) {
	case 'o': c->out = arg; break;
	case 't': c->to = arg; break;
	case OPT_TARGET: c->target = arg; break;
	case OPT_QUIET: c->quiet = 1; break;
	case OPT_IOLOG_VERSION:
		if (strcmp(arg, "2") && strcmp(arg, "3")) {
			die_msg("convert: unknown iolog version '%s' (2, 3)", arg);
			return -1;
		}
		c->iolog_version = (unsigned)(arg[0] - '0');
		break;
	}
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_cli cli = { .to = "ops", .iolog_version = 2 };
	struct loaded_trace lt;
	struct rerr e = { { 0 } };
	int rc, ret = 1, iolog;

	memset(&lt, 0, sizeof(lt));
	rc = trace_cmd_args(CMD_CONVERT, argc, argv, &cli.lo, convert_option, &cli);
	if (rc)
		return rc == 1 ? 0 : 2;
	struct load_opts lo = cli.lo;
	const char *out = cli.out, *to = cli.to, *target = cli.target;
	int quiet = cli.quiet;
	if (strcmp(to, "ops") && strcmp(to, "fio-iolog")) {
		fprintf(stderr, "replay: convert: unknown output kind '%s' (ops, fio-iolog)\n", to);
		return 2;
	}
	iolog = !strcmp(to, "fio-iolog");
	if (!out) {
		fprintf(stderr, "replay: convert: -o %s is required\n", iolog ? "DIR" : "FILE.ops");
		cmd_short_usage(CMD_CONVERT);
		return 2;
	}
	if (load_opts_check(&lo, &e) < 0) {
		fprintf(stderr, "replay: %s\n", e.msg);
		return 2;
	}

	if (!iolog && check_output_file(out, "output file"))
		return 2;
	rc = cmd_load_trace(&lt, argv + optind, argc - optind, &lo, iolog ? NULL : out);
	if (rc < 0)
		goto out;
	if (iolog) {
		struct fio_export_opts fo = { .target = target, .nranks = 0,
					      .version = cli.iolog_version };
		if (mkdir(out, 0777) < 0 && errno != EEXIST) {
			fprintf(stderr, "replay: cannot create '%s': %s\n", out, strerror(errno));
			goto out;
		}
		rc = fio_iolog_export(&lt.s, out, &fo, &e);
		if (rc < 0) {
			if (e.msg[0])
				fprintf(stderr, "replay: %s\n", e.msg);
			else
				fprintf(stderr, "replay: cannot export to '%s': %s\n", out, strerror(-rc));
			goto out;
		}
	} else if (strcmp(lt.res.ops_path, out)) {
		/* the input was already an .ops file: trace_load used it as is */
		rc = copy_file(lt.res.ops_path, out, &e);
		if (rc < 0) {
			fprintf(stderr, "replay: %s\n", e.msg);
			goto out;
		}
	}
	if (!quiet)
		summary(&lt, out);
	ret = 0;
out:
	loaded_trace_close(&lt);
	return ret;
}
