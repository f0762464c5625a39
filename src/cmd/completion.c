/* completion.c - `replay completion bash`: the bash completion, printed
 * from the option table (options.c). */
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/options.h"

int cmd_completion(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		cmd_usage(stdout, CMD_COMPLETION);
		return 0;
	}
	if (argc != 2 || strcmp(argv[1], "bash")) {
		fprintf(stderr, "replay: completion: expected 'bash'\n");
		cmd_short_usage(CMD_COMPLETION);
		return 2;
	}
	opts_print_bash_completion(stdout);
	return 0;
}
