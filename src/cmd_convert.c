/* cmd_convert.c - placeholder until the subcommand lands (not a feature). */
#include <stdio.h>
#include "cmds.h"

const char usage_convert[] = "usage: replay convert (not yet available)\n";

int cmd_convert(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "replay: 'convert' is not available yet\n");
	return 2;
}
