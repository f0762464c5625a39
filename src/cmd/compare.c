/* cmd_compare.c - `replay compare`: results side by side, normalized to the first. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmds.h"
#include "report/compare.h"

const char usage_compare[] =
	"usage: replay compare [--json | --markdown] [-L LABELS] RESULT...\n"
	"\n"
	"Compare `replay run -o` results; the first is the baseline (1.00).\n"
	"A RESULT is a result file (one JSON object, or an array of them) or a\n"
	"directory of *.json result files.  Rows match by trace set, mode and\n"
	"process count; each row shows the median completion time of the runs,\n"
	"normalized to the baseline, with [min-max] over the runs, and '~' where\n"
	"the difference is within that spread; then p50/p99 latency per op class.\n"
	"\n"
	"  -j, --json          print the comparison as JSON\n"
	"  -M, --markdown      print Markdown tables (and a table of the targets)\n"
	"  -L, --labels LIST   comma-separated names of the results (default: file\n"
	"                      or directory name without .json)\n"
	"  -h, --help          show this help\n";

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'M' },
		{ "labels", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct compare c;
	struct rerr e = { "" };
	int json = 0, ret = 1, rc, opt;
	enum cmp_style style = CMP_TEXT;
	char *labels = NULL, **lab = NULL;
	size_t nlab = 0;

	compare_init(&c);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:jML:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 'M':
			style = CMP_MARKDOWN;
			break;
		case 'L':
			free(labels);
			labels = strdup(optarg);
			if (!labels) {
				die_msg("out of memory");
				goto out;
			}
			break;
		case 'h':
			fputs(usage_compare, stdout);
			ret = 0;
			goto out;
		case ':':
			die_msg("compare: option '%s' needs a value", argv[optind - 1]);
			ret = 2;
			goto out;
		default:
			die_msg("compare: unknown option '%s'", argv[optind - 1]);
			fputs(usage_compare, stderr);
			ret = 2;
			goto out;
		}
	}
	if (optind >= argc) {
		die_msg("compare: no result file given");
		fputs(usage_compare, stderr);
		ret = 2;
		goto out;
	}
	if (labels) {
		if (cmp_split_labels(labels, &lab, &nlab) < 0) {
			die_msg("out of memory");
			goto out;
		}
		if (nlab != (size_t)(argc - optind)) {
			die_msg("compare: %zu labels given for %d results", nlab, argc - optind);
			ret = 2;
			goto out;
		}
	}
	rc = compare_load(&c, argv + optind, (size_t)(argc - optind), lab, &e);
	if (rc < 0) {
		die_msg("%s", e.msg[0] ? e.msg : strerror(-rc));
		goto out;
	}
	if (json) {
		json_t *j = compare_json(&c);
		if (!j || json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) < 0) {
			json_decref(j);
			die_msg("cannot write the JSON output");
			goto out;
		}
		json_decref(j);
		fputc('\n', stdout);
	} else {
		rc = compare_print(&c, stdout, style);
		if (rc < 0) {
			die_msg("cannot write the comparison: %s", strerror(-rc));
			goto out;
		}
	}
	if (fflush(stdout) != 0) {
		die_msg("cannot write the output: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	compare_release(&c);
	free(lab);
	free(labels);
	return ret;
}
