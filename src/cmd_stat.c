/* cmd_stat.c - placeholder until the subcommand lands (not a feature). */
#include <stdio.h>
#include "cmds.h"

const char usage_stat[] = "usage: replay stat (not yet available)\n";

int cmd_stat(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "replay: 'stat' is not available yet\n");
	return 2;
}
