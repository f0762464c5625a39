/* cmd_compare.c - `replay compare`: results side by side, normalized to the first. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmds.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "report/compare.h"


int cmd_compare(int argc, char **argv)
{
	struct compare c;
	struct rerr e = { "" };
	struct results_cli cli = { 0 };
	int json, ret = 1, rc;
	enum cmp_style style;
	char *labels, **lab = NULL;
	size_t nlab = 0;

	compare_init(&c);
	rc = results_args(CMD_COMPARE, argc, argv, &cli);
	labels = cli.labels;
	json = cli.json;
	style = cli.markdown ? CMP_MARKDOWN : CMP_TEXT;
	if (rc) {
		ret = rc == 1 ? 0 : 2;
		goto out;
	}
	if (optind >= argc) {
		die_msg("compare: no result file given");
		cmd_short_usage(CMD_COMPARE);
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
