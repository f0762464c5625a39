/* cmd_plot.c - `replay plot`: figures of result files with gnuplot. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd/cmds.h"
#include "report/compare.h"
#include "report/plot.h"

const char usage_plot[] =
	"usage: replay plot -o DIR [-L LABELS] [--no-render] RESULT...\n"
	"\n"
	"Plot `replay run -o` results with gnuplot into DIR (created if needed):\n"
	"completion-sequential / completion-parallel (bars normalized to the\n"
	"first RESULT, error bars min-max over the runs), latency-TRACE-MODE-N\n"
	"(latency CDF per op class) and timeline-LABEL-TRACE-MODE-N (throughput\n"
	"per process over time), each as .png and .svg, with the .dat data and\n"
	"the .gp gnuplot script beside them.  RESULT is as for `replay compare`.\n"
	"\n"
	"  -o, --output DIR    directory for the figures (required)\n"
	"  -L, --labels LIST   comma-separated names of the results\n"
	"  -n, --no-render     write the data and scripts only, do not run gnuplot\n"
	"  -h, --help          show this help\n";

int cmd_plot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "labels", required_argument, NULL, 'L' },
		{ "no-render", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct compare c;
	struct plot_list pl = { 0 };
	struct rerr e = { "" };
	const char *dir = NULL;
	char *labels = NULL, **lab = NULL;
	size_t nlab = 0;
	int render = 1, ret = 1, rc, opt;

	compare_init(&c);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:o:L:nh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			dir = optarg;
			break;
		case 'L':
			free(labels);
			if (!(labels = strdup(optarg))) {
				die_msg("out of memory");
				goto out;
			}
			break;
		case 'n':
			render = 0;
			break;
		case 'h':
			fputs(usage_plot, stdout);
			ret = 0;
			goto out;
		case ':':
			die_msg("plot: option '%s' needs a value", argv[optind - 1]);
			ret = 2;
			goto out;
		default:
			die_msg("plot: unknown option '%s'", argv[optind - 1]);
			fputs(usage_plot, stderr);
			ret = 2;
			goto out;
		}
	}
	if (!dir || optind >= argc) {
		die_msg(!dir ? "plot: an output directory is required (-o DIR)" : "plot: no result file given");
		fputs(usage_plot, stderr);
		ret = 2;
		goto out;
	}
	if (labels) {
		if (cmp_split_labels(labels, &lab, &nlab) < 0) {
			die_msg("out of memory");
			goto out;
		}
		if (nlab != (size_t)(argc - optind)) {
			die_msg("plot: %zu labels given for %d results", nlab, argc - optind);
			ret = 2;
			goto out;
		}
	}
	if ((rc = compare_load(&c, argv + optind, (size_t)(argc - optind), lab, &e)) < 0) {
		die_msg("%s", e.msg[0] ? e.msg : strerror(-rc));
		goto out;
	}
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		die_msg("cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	if ((rc = plot_write(&c, dir, &pl, &e)) < 0) {
		die_msg("%s", e.msg[0] ? e.msg : strerror(-rc));
		goto out;
	}
	if (!pl.n) {
		die_msg("plot: nothing to plot in the results");
		goto out;
	}
	for (size_t i = 0; i < pl.n; i++) {
		if (render && (rc = plot_render(dir, pl.names[i], &e)) < 0) {
			die_msg("%s", e.msg[0] ? e.msg : strerror(-rc));
			goto out;
		}
		if (render)
			printf("%s/%s.png %s/%s.svg\n", dir, pl.names[i], dir, pl.names[i]);
		else
			printf("%s/%s.gp %s/%s.dat\n", dir, pl.names[i], dir, pl.names[i]);
	}
	if (fflush(stdout) != 0) {
		die_msg("cannot write the output: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	plot_list_release(&pl);
	compare_release(&c);
	free(lab);
	free(labels);
	return ret;
}
