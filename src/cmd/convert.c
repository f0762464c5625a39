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
#include "plan/filter.h"
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

/* The iolog export's part of the summary line: what was written and
 * what was left out. */
static void iolog_summary(const struct fio_export_stats *st, const struct filter *f)
{
	char sum[1024];

	printf("; wrote %" PRIu32 " iolog%s (%" PRIu64 " lines); filter: %s; left out %" PRIu64
	       " ops fio cannot replay (directory and O_PATH opens, calls on them)",
	       st->ranks, st->ranks == 1 ? "" : "s", st->lines, filter_summary(f, sum, sizeof(sum)),
	       st->unfit_ops);
	if (st->ranks_no_io)
		printf(", %" PRIu32 " rank%s with no read or write (no iolog: fio refuses one)",
		       st->ranks_no_io, st->ranks_no_io == 1 ? "" : "s");
	if (st->fallocate_ops)
		printf(", %" PRIu64 " fallocate%s (an iolog has none: the holes, preallocation and"
		       " size changes they made are not replayed by fio)",
		       st->fallocate_ops, st->fallocate_ops == 1 ? "" : "s");
	if (st->stale_removed)
		printf(", removed %" PRIu32 " iolog%s of an earlier export", st->stale_removed,
		       st->stale_removed == 1 ? "" : "s");
}

static void summary(const struct loaded_trace *lt, const char *out,
		    const struct fio_export_stats *st, const struct filter *f)
{
	const struct load_result *r = &lt->res;
	double secs = (double)lt->load_ns / 1e9;
	double mbps = secs > 0 ? (double)r->bytes / 1e6 / secs : 0;

	if (r->format && !strcmp(r->format, "ops")) {
		printf("%s: %" PRIu32 " ranks, %" PRIu64 " ops (%s from an .ops file)", out,
		       lt->s.nranks, lt->s.nops, st ? "read" : "copied");
	} else {
		printf("%s: %" PRIu32 " ranks, %" PRIu64 " ops from %" PRIu64 " lines (%.1f MB) of %s"
		       " in %.3f s (%.1f MB/s); skipped %" PRIu64 " non-I/O calls, %" PRIu64
		       " bad lines", out, lt->s.nranks, lt->s.nops, r->lines, (double)r->bytes / 1e6,
		       r->format ? r->format : "?", secs, mbps, skipped_calls(&lt->s), r->bad_lines);
	}
	if (st)
		iolog_summary(st, f);
	putchar('\n');
}

struct convert_cli {
	struct load_opts lo;
	struct filter_opts fo;
	const char *out, *to, *target;
	const char *filter_opt;  /* the first filter option given (its long
				    name), refused with --to ops */
	int quiet;
	unsigned iolog_version;
	const char *iolog_opt;   /* --target or --iolog-version given: refused
				    with --to ops, which has no use for them */
};

static int convert_option(void *ctx, int id, const char *arg)
{
	struct convert_cli *c = ctx;
	int f = filter_option(&c->fo, id, arg);
	if (f < 0)
		return -1;
	if (f) {
		if (!c->filter_opt)
			c->filter_opt = opt_long_name(id);
		return 0;
	}
	switch (id) {
	case 'o': c->out = arg; break;
	case 't': c->to = arg; break;
	case OPT_TARGET: c->target = arg; c->iolog_opt = "target"; break;
	case OPT_QUIET: c->quiet = 1; break;
	case OPT_IOLOG_VERSION:
		if (strcmp(arg, "2") && strcmp(arg, "3")) {
			die_msg("convert: unknown iolog version '%s' (2, 3)", arg);
			return -1;
		}
		c->iolog_version = (unsigned)(arg[0] - '0');
		c->iolog_opt = "iolog-version";
		break;
	}
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_cli cli = { .to = "ops", .iolog_version = 2 };
	struct loaded_trace lt;
	struct filter filt;
	struct fio_export_stats st = { 0 };
	struct rerr e = { { 0 } };
	int rc, ret = 1, iolog, have_filter = 0;

	memset(&lt, 0, sizeof(lt));
	rc = trace_cmd_args(CMD_CONVERT, argc, argv, &cli.lo, convert_option, &cli);
	if (rc) {
		filter_opts_release(&cli.fo);
		return rc == 1 ? 0 : 2;
	}
	struct load_opts lo = cli.lo;
	const char *out = cli.out, *to = cli.to, *target = cli.target;
	int quiet = cli.quiet;
	if (strcmp(to, "ops") && strcmp(to, "fio-iolog")) {
		fprintf(stderr, "replay: convert: unknown output kind '%s' (ops, fio-iolog)\n", to);
		ret = 2;
		goto out_opts;
	}
	iolog = !strcmp(to, "fio-iolog");
	if (!iolog && cli.filter_opt) {
		/* an .ops file holds the whole trace: run and stat filter it */
		fprintf(stderr, "replay: convert: --%s applies to --to fio-iolog only (an .ops file"
			" keeps every op: give it to run or stat)\n", cli.filter_opt);
		goto usage;
	}
	if (!iolog && cli.iolog_opt) {
		fprintf(stderr, "replay: convert: --%s applies to --to fio-iolog only (an .ops file"
			" names the traced paths as they are, in replay's own format)\n", cli.iolog_opt);
		goto usage;
	}
	if (target && !*target) {
		/* (not the root: an empty "$T" would send fio to / ) */
		fprintf(stderr, "replay: convert: --target '': an empty directory name (the default"
			" is '.')\n");
		goto usage;
	}
	if (target && target[strcspn(target, " \t\r\n\v\f")]) {
		/* an iolog line is blank-separated: fio would read the name cut */
		fprintf(stderr, "replay: convert: --target '%s': fio iologs cannot name files with"
			" blanks\n", target);
		goto usage;
	}
	if (!out) {
		fprintf(stderr, "replay: convert: -o %s is required\n", iolog ? "DIR" : "FILE.ops");
		cmd_short_usage(CMD_CONVERT);
		ret = 2;
		goto out_opts;
	}
	if (load_opts_check(&lo, &e) < 0) {
		die_msg("%s", e.msg);
		ret = 2;
		goto out_opts;
	}

	if (!iolog && (check_output_file(out, "output file", false) ||
		       check_output_not_input(out, argv + optind, argc - optind, "output file"))) {
		ret = 2;
		goto out_opts;
	}
	rc = cmd_load_trace(&lt, argv + optind, argc - optind, &lo, iolog ? NULL : out);
	if (rc < 0)
		goto out;
	if (iolog) {
		/* the ops `replay run` would replay: the same filter, built the same way */
		rc = filter_build(&filt, &lt.s, &cli.fo, &e);
		if (rc < 0) {
			die_msg("%s", e.msg);
			goto out;
		}
		have_filter = 1;
		filter_note_rank_numbers(&filt, &lt.s);
		if (!filt.nkept) {
			char sum[512];
			fprintf(stderr, "replay: nothing left to export: %s (see --include and "
				"--no-default-excludes)\n", filter_summary(&filt, sum, sizeof(sum)));
			goto out;
		}
		struct fio_export_opts fo = { .target = target, .nranks = 0,
					      .version = cli.iolog_version, .filter = &filt };
		rc = fio_iolog_export(&lt.s, out, &fo, &st, &e);
		if (rc < 0) {
			if (e.msg[0])
				die_msg("%s", e.msg);
			else
				fprintf(stderr, "replay: cannot export to '%s': %s\n", out, strerror(-rc));
			goto out;
		}
	} else if (strcmp(lt.res.ops_path, out)) {
		/* the input was already an .ops file: trace_load used it as is */
		rc = copy_file(lt.res.ops_path, out, &e);
		if (rc < 0) {
			die_msg("%s", e.msg);
			goto out;
		}
	}
	if (!quiet)
		summary(&lt, out, iolog ? &st : NULL, have_filter ? &filt : NULL);
	ret = 0;
out:
	if (have_filter)
		filter_release(&filt);
	loaded_trace_close(&lt);
out_opts:
	filter_opts_release(&cli.fo);
	return ret;
usage:
	cmd_short_usage(CMD_CONVERT);
	filter_opts_release(&cli.fo);
	return 2;
}
