/* cmd_run.c - placeholder until the subcommand lands (not a feature). */
#include <stdio.h>
#include "cmds.h"

const char usage_run[] = "usage: replay run (not yet available)\n";

int cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "replay: 'run' is not available yet\n");
	return 2;
}
