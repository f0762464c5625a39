/*
 * main.c - dispatch.  `run` is the default subcommand, so the first word
 * is read as follows: a subcommand's name runs it; an option or an
 * existing path starts `replay run`; a word close to a subcommand's name
 * (edit distance <= 2, or a prefix) is a mistyped command: an error with a
 * suggestion; any other word that is no file and has no '/' or '.' is an
 * unknown command (an error naming `replay help`); anything else goes to
 * `replay run`, which says what is missing.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cmd/cmds.h"
#include "cmd/options.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: replay [run] [OPTIONS] TRACE... TARGET_DIR\n"
		   "       replay COMMAND [ARGS]\n"
		   "       replay --help | --version | help COMMAND\n\ncommands:\n");
	for (size_t i = 0; i < cmd_ninfos; i++)
		fprintf(f, "  %-10s %s\n", cmd_infos[i].name, cmd_infos[i].summary);
	fprintf(f, "\nSee 'replay help COMMAND' and replay(1).\n");
}

static int help(int argc, char **argv)
{
	if (argc < 3) {
		usage(stdout);
		return 0;
	}
	const struct cmd_info *c = cmd_info_find(argv[2]);
	if (!c) {
		char s[128];
		cmd_suggest(argv[2], s, sizeof(s));
		fprintf(stderr, "replay: unknown command '%s'%s%s%s\n", argv[2],
			*s ? "; did you mean " : "", s, *s ? "?" : "");
		return 2;
	}
	cmd_usage(stdout, c->bit);
	return 0;
}

/* The file descriptors replay may open: the hard limit (strace -ff
 * captures have a file per process, a replay a file per traced file). */
static void raise_nofile(void)
{
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	struct stat st;
	char s[128];
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
	if (!strcmp(argv[1], "help"))
		return help(argc, argv);
	raise_nofile();
	const struct cmd_info *c = cmd_info_find(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	if (argv[1][0] != '-' && stat(argv[1], &st) && !strpbrk(argv[1], "/.")) {
		if (*cmd_suggest(argv[1], s, sizeof(s)))
			fprintf(stderr, "replay: '%s' is not a replay command (nor a file); did you mean %s?\n",
				argv[1], s);
		else
			fprintf(stderr, "replay: '%s' is not a replay command (nor a file); the commands"
				" are listed by 'replay help'\n", argv[1]);
		return 2;
	}
	/* `run` is the default subcommand: replay -m parallel -n 32 trace /mnt/ssd */
	return cmd_run(argc, argv);
}
