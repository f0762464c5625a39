/* main.c - the command table and dispatch; each command lives in cmd_*.c. */
#include <stdio.h>
#include <string.h>
#include "cmd/cmds.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

static const struct cmd commands[] = {
	{ "run",     cmd_run,     usage_run,     "replay a trace on a target directory (the default)" },
	{ "stat",    cmd_stat,    usage_stat,    "analyze a trace: ranks, files, ops, bytes, patterns, sizes" },
	{ "convert", cmd_convert, usage_convert, "convert traces to a binary .ops file or fio iologs" },
	{ "dump",    cmd_dump,    usage_dump,    "print an .ops file (or any trace) one op per line" },
	{ "gen",     cmd_gen,     usage_gen,     "generate synthetic traces in the real formats" },
	{ "compare", cmd_compare, usage_compare, "compare result files against a baseline" },
	{ "plot",    cmd_plot,    usage_plot,    "plot result files with gnuplot (PNG and SVG)" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: replay [run] [OPTIONS] TRACE... TARGET_DIR\n"
		   "       replay COMMAND [ARGS]\n"
		   "       replay --help | --version | help COMMAND\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nSee 'replay help COMMAND' and replay(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("replay %s\n", REPLAY_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		const struct cmd *c = find_cmd(argv[2]);
		if (!c) {
			fprintf(stderr, "replay: unknown command '%s'\n", argv[2]);
			return 2;
		}
		fputs(c->usage, stdout);
		return 0;
	}
	const struct cmd *c = find_cmd(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	/* `run` is the default subcommand: replay -m parallel -n 32 trace /mnt/ssd */
	return cmd_run(argc, argv);
}
