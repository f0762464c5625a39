/* cmd_dump.c - placeholder until the subcommand lands (not a feature). */
#include <stdio.h>
#include "cmds.h"

const char usage_dump[] = "usage: replay dump (not yet available)\n";

int cmd_dump(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "replay: 'dump' is not available yet\n");
	return 2;
}
