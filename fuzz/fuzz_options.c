/*
 * fuzz_options.c - libFuzzer harness for the command line: the first byte
 * picks a subcommand, the rest is its arguments separated by NUL bytes
 * (at most 64).  run goes through its real option handler and checks
 * (cmd_run_parse: values, ranges, --include/--exclude/--ranks lists, no
 * file touched); every other subcommand through the shared table parser
 * (opts_parse) with the filter options decoded as stat and dump do.
 * getopt's state is global: each input parses twice, so a parse that
 * leaves it behind shows up on the next one.
 */
#include "fuzz_common.h"
#include "cmd/cmds.h"
#include "cmd/common.h"
#include "cmd/options.h"

#define MAX_ARGS 64

static int other_option(void *ctx, int id, const char *arg)
{
	struct filter_opts *fo = ctx;
	int f = filter_option(fo, id, arg);
	if (f < 0)
		return -1;
	if (!f && arg && id == 'n') {
		uint64_t v;
		return arg_count("count", arg, 1, 1u << 20, &v) ? -1 : 0;
	}
	return 0;
}

static void parse_once(unsigned cmd, int argc, char **argv)
{
	if (cmd == CMD_RUN) {
		(void)cmd_run_parse(argc, argv);
		return;
	}
	struct filter_opts fo;
	memset(&fo, 0, sizeof(fo));
	(void)opts_parse(cmd, cmd == CMD_GEN, argc, argv, other_option, &fo);
	filter_opts_release(&fo);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	unsigned cmd = 1u << (data[0] % 8);
	char *buf = malloc(size);           /* the argument bytes, NUL-ended */
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	char *argv[MAX_ARGS + 2];
	int argc = 0;
	argv[argc++] = (char *)"replay";
	for (size_t i = 0; i < size - 1 && argc < MAX_ARGS + 1; ) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	for (int k = 0; k < 2; k++) {
		char *copy[MAX_ARGS + 2];       /* getopt permutes argv */
		memcpy(copy, argv, sizeof(copy));
		parse_once(cmd, argc, copy);
	}
	free(buf);
	return 0;
}
