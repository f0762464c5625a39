/* cmd_plot.c - placeholder until the subcommand lands (not a feature). */
#include <stdio.h>
#include "cmds.h"

const char usage_plot[] = "usage: replay plot (not yet available)\n";

int cmd_plot(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "replay: 'plot' is not available yet\n");
	return 2;
}
