/* cmd_plot.c - `replay plot`: figures of result files with gnuplot. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd/cmds.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "report/compare.h"
#include "report/plot.h"


int cmd_plot(int argc, char **argv)
{
	struct compare c;
	struct plot_list pl = { 0 };
	struct rerr e = { "" };
	struct results_cli cli = { 0 };
	const char *dir;
	int ret = 1, rc;

	compare_init(&c);
	rc = results_args(CMD_PLOT, argc, argv, &cli);
	if (rc) {
		if (rc < 0)
			die_msg("out of memory");
		ret = rc == 1 ? 0 : rc == 2 ? 2 : 1;
		goto out;
	}
	dir = cli.dir;
	if ((rc = compare_load(&c, argv + optind, (size_t)(argc - optind), cli.lab, &e)) < 0) {
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
		if (cli.render && (rc = plot_render(dir, pl.names[i], &e)) < 0) {
			die_msg("%s", e.msg[0] ? e.msg : strerror(-rc));
			goto out;
		}
		if (cli.render)
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
	results_cli_release(&cli);
	return ret;
}
