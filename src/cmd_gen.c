/* cmd_gen.c - placeholder until the subcommand lands (not a feature). */
#include <stdio.h>
#include "cmds.h"

const char usage_gen[] = "usage: replay gen (not yet available)\n";

int cmd_gen(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "replay: 'gen' is not available yet\n");
	return 2;
}
