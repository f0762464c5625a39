/* cmd_gen.c - `replay gen`: write synthetic traces in the real grammars. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "trace/gen.h"
#include "util/util.h"

const char usage_gen[] =
	"usage: replay gen WORKLOAD -o PATH [--ranks N] [--scale X] [--seed S] [--force]\n"
	"                  [--strided | --n-to-n] [--object-size BYTES] [--objects N]\n"
	"       replay gen --list\n"
	"\n"
	"  -o, --output PATH     where to write (a directory for lanl-*, a file otherwise)\n"
	"  -n, --ranks N         traced processes (default: the workload's, see --list)\n"
	"  -s, --scale X         multiply objects/ops (not request sizes); default 1\n"
	"      --seed S          random seed (default 1); same seed, same bytes\n"
	"  -f, --force           replace an existing PATH written by replay gen\n"
	"      --strided         lanl-*: object i of rank r at (i*N + r)*size\n"
	"      --n-to-n          lanl-*: one file per rank\n"
	"      --object-size B   lanl-*: object size (K, M, G suffixes: KiB, MiB, GiB)\n"
	"      --objects N       lanl-*: objects per rank (overrides --scale)\n"
	"      --list            list the workloads\n";

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

int cmd_gen(int argc, char **argv)
{
	enum { O_SEED = 256, O_STRIDED, O_NTON, O_OBJSIZE, O_OBJECTS, O_LIST };
	static const struct option opts[] = {
		{ "output",      required_argument, NULL, 'o' },
		{ "ranks",       required_argument, NULL, 'n' },
		{ "scale",       required_argument, NULL, 's' },
		{ "seed",        required_argument, NULL, O_SEED },
		{ "force",       no_argument,       NULL, 'f' },
		{ "strided",     no_argument,       NULL, O_STRIDED },
		{ "n-to-n",      no_argument,       NULL, O_NTON },
		{ "object-size", required_argument, NULL, O_OBJSIZE },
		{ "objects",     required_argument, NULL, O_OBJECTS },
		{ "list",        no_argument,       NULL, O_LIST },
		{ "help",        no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gen_params p = { .scale = 1.0, .seed = 1 };
	struct gen_summary sum;
	struct rerr e = { { 0 } };
	const char *out = NULL;
	int force = 0, list = 0, c;
	uint64_t v;
	char *end;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:n:s:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'n':
			if (parse_uint(optarg, &v) || v < 1 || v > 65536) {
				die_msg("gen: --ranks expects a number from 1 to 65536, not '%s'", optarg);
				return 2;
			}
			p.ranks = (unsigned)v;
			break;
		case 's':
			errno = 0;
			p.scale = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(p.scale > 0) || p.scale > 1e6) {
				die_msg("gen: --scale expects a number > 0 and <= 1000000, not '%s'", optarg);
				return 2;
			}
			break;
		case O_SEED:
			if (parse_uint(optarg, &p.seed)) {
				die_msg("gen: --seed expects an unsigned 64-bit number, not '%s'", optarg);
				return 2;
			}
			break;
		case 'f':
			force = 1;
			break;
		case O_STRIDED:
			p.strided = true;
			break;
		case O_NTON:
			p.n_to_n = true;
			break;
		case O_OBJSIZE:
			if (parse_size(optarg, &p.object_size) || p.object_size == 0) {
				die_msg("gen: --object-size expects a size in bytes (e.g. 65536 or 64K), not '%s'", optarg);
				return 2;
			}
			break;
		case O_OBJECTS:
			if (parse_uint(optarg, &p.objects) || p.objects == 0) {
				die_msg("gen: --objects expects a number > 0, not '%s'", optarg);
				return 2;
			}
			break;
		case O_LIST:
			list = 1;
			break;
		case 'h':
			fputs(usage_gen, stdout);
			return 0;
		default:
			if (optopt)
				die_msg("gen: option '-%c' %s", optopt,
					strchr("onsf", optopt) ? "needs a value" : "is unknown");
			else
				die_msg("gen: unknown or incomplete option '%s'", argv[optind - 1]);
			fputs(usage_gen, stderr);
			return 2;
		}
	}
	if (list) {
		list_workloads(stdout);
		return 0;
	}
	if (optind >= argc) {
		die_msg("gen: which workload? (one of these)");
		list_workloads(stderr);
		return 2;
	}
	if (optind + 1 < argc) {
		die_msg("gen: one workload at a time ('%s' is extra)", argv[optind + 1]);
		return 2;
	}
	p.workload = argv[optind];
	if (!gen_find(p.workload)) {
		die_msg("gen: unknown workload '%s'; the workloads are:", p.workload);
		list_workloads(stderr);
		return 2;
	}
	if (!out) {
		die_msg("gen: -o PATH is required");
		return 2;
	}
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
