/* cmd_compare.c - placeholder until the subcommand lands (not a feature). */
#include <stdio.h>
#include "cmds.h"

const char usage_compare[] = "usage: replay compare (not yet available)\n";

int cmd_compare(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "replay: 'compare' is not available yet\n");
	return 2;
}
