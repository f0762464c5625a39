/* cmd_gen.c - `replay gen`: write synthetic traces in the real grammars. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "trace/gen.h"
#include "util/util.h"


static void list_workloads(FILE *f)
{
	size_t n;
	const struct gen_workload *w = gen_workloads(&n);
	static const char *const fmt[] = { "lanl", "sandia", "strace" };
	fprintf(f, "%-11s %-7s %-5s %s\n", "WORKLOAD", "FORMAT", "RANKS", "DESCRIPTION");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%-11s %-7s %-5u %s\n", w[i].name, fmt[w[i].format], w[i].def_ranks, w[i].desc);
}

/* Unsigned decimal with an optional K/M/G (binary) suffix. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	unsigned shift = 0;
	if (*end) {
		switch (*end) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: return -EINVAL;
		}
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
		if (*end)
			return -EINVAL;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_uint(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* One option into p; 0, or -1 after the message. */
static int gen_option(struct gen_params *p, int id, const char *arg, int *force, int *list)
{
	uint64_t v;
	char *end;
	switch (id) {
	case 'n':
		if (parse_uint(arg, &v) || v < 1 || v > 65536) {
			die_msg("gen: --processes expects a number from 1 to 65536, not '%s'", arg);
			return -1;
		}
		p->ranks = (unsigned)v;
		return 0;
	case 's':
		errno = 0;
		p->scale = strtod(arg, &end);
		if (errno || end == arg || *end || !(p->scale > 0) || p->scale > 1e6) {
			die_msg("gen: --scale expects a number > 0 and <= 1000000, not '%s'", arg);
			return -1;
		}
		return 0;
	case OPT_SEED:
		if (parse_uint(arg, &p->seed)) {
			die_msg("gen: --seed expects an unsigned 64-bit number, not '%s'", arg);
			return -1;
		}
		return 0;
	case OPT_OBJSIZE:
		if (parse_size(arg, &p->object_size) || p->object_size == 0) {
			die_msg("gen: --object-size expects a size in bytes (e.g. 65536 or 64K), not '%s'",
				arg);
			return -1;
		}
		return 0;
	case OPT_OBJECTS:
		if (parse_uint(arg, &p->objects) || p->objects == 0) {
			die_msg("gen: --objects expects a number > 0, not '%s'", arg);
			return -1;
		}
		return 0;
	case OPT_FORCE: *force = 1; return 0;
	case OPT_STRIDED: p->strided = true; return 0;
	case OPT_NTON: p->n_to_n = true; return 0;
	case OPT_LIST: *list = 1; return 0;
	default: return -1;
	}
}

/* The workload named on the command line; 0, or 2 after the message. */
static int gen_workload(int argc, char **argv, struct gen_params *p, const char *out)
{
	if (optind >= argc) {
		die_msg("gen: which workload? (one of these)");
		list_workloads(stderr);
		return 2;
	}
	if (optind + 1 < argc) {
		die_msg("gen: one workload at a time ('%s' is extra)", argv[optind + 1]);
		return 2;
	}
	p->workload = argv[optind];
	if (!gen_find(p->workload)) {
		die_msg("gen: unknown workload '%s'; the workloads are:", p->workload);
		list_workloads(stderr);
		return 2;
	}
	if (!out) {
		die_msg("gen: -o PATH is required");
		return 2;
	}
	return 0;
}

struct gen_cli {
	struct gen_params *p;
	int *force, *list;
	const char **out;
};

static int gen_opt(void *ctx, int id, const char *arg)
{
	struct gen_cli *g = ctx;
	if (id == 'o') {
		*g->out = arg;
		return 0;
	}
	return gen_option(g->p, id, arg, g->force, g->list);
}

int cmd_gen(int argc, char **argv)
{
	struct gen_params p = { .scale = 1.0, .seed = 1 };
	struct gen_summary sum;
	struct rerr e = { { 0 } };
	const char *out = NULL;
	int force = 0, list = 0, id;

	struct gen_cli g = { .p = &p, .force = &force, .list = &list, .out = &out };
	if ((id = opts_parse(CMD_GEN, false, argc, argv, gen_opt, &g)))
		return id == 1 ? 0 : 2;
	if (list) {
		list_workloads(stdout);
		return 0;
	}
	if ((id = gen_workload(argc, argv, &p, out)))
		return id;
	if (gen_check(&p, &e)) {
		die_msg("gen: %s", e.msg);
		return 2;
	}
	int err = gen_write(&p, out, force, &sum, &e);
	if (err) {
		die_msg("gen: %s", e.msg);
		return err == -EEXIST ? 2 : 1;
	}
	uint64_t tot = sum.bytes_read + sum.bytes_written;
	double rr = tot ? (double)sum.bytes_read / (double)tot : 0.0;
	printf("wrote '%s': %s, %u ranks, %u file%s, %" PRIu64 " lines\n", out, p.workload, sum.ranks,
	       sum.files, sum.files == 1 ? "" : "s", sum.lines);
	printf("  reads  %" PRIu64 " calls, %" PRIu64 " bytes\n", sum.reads, sum.bytes_read);
	printf("  writes %" PRIu64 " calls, %" PRIu64 " bytes\n", sum.writes, sum.bytes_written);
	printf("  read/write ratio (bytes) %.2f/%.2f\n", rr, tot ? 1.0 - rr : 0.0);
	return 0;
}
