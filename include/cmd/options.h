/*
 * options.h - the one option table of every subcommand.
 *
 * A row is one option of one or more subcommands: its id (what the parser
 * returns: the short letter, or an OPT_* value for a long-only option),
 * short letter, long name, argument name (NULL for a flag), the
 * subcommands that take it (CMD_* bits) and its help text.  The same long
 * name may have several rows (one help text per group of subcommands);
 * a letter means one thing everywhere (tests/test_options.c checks it).
 * --help, the getopt tables and the bash completion are all printed from
 * this table, so they cannot disagree.
 */
#ifndef REPLAY_CMD_OPTIONS_H
#define REPLAY_CMD_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum cmd_bit {
	CMD_RUN = 1u << 0, CMD_STAT = 1u << 1, CMD_CONVERT = 1u << 2, CMD_DUMP = 1u << 3,
	CMD_GEN = 1u << 4, CMD_COMPARE = 1u << 5, CMD_PLOT = 1u << 6, CMD_COMPLETION = 1u << 7,
	CMD_MPI = 1u << 8,        /* replay-mpi's own (with CMD_RUN's)      */
};

/* Long-only options (letters are their own ids). */
enum opt_id {
	OPT_OVERLAP = 256, OPT_DIRECT, OPT_BIND, OPT_DRY, OPT_FORCE, OPT_KEEP, OPT_NODROP,
	OPT_CONT, OPT_SAMPLE, OPT_QUIET, OPT_SKIP_BAD, OPT_TARGET, OPT_RANKS, OPT_SEED,
	OPT_STRIDED, OPT_NTON, OPT_OBJSIZE, OPT_OBJECTS, OPT_LIST, OPT_NO_RENDER,
	OPT_INCLUDE, OPT_EXCLUDE, OPT_NO_DEFAULTS, OPT_ORDER, OPT_NO_BARRIERS, OPT_ON_MISMATCH,
	OPT_DXT_LAYER, OPT_IOLOG_VERSION, OPT_TIMING, OPT_SPEED, OPT_PLACEMENT,
	OPT_HTML, OPT_OUTPUT_FORMAT, OPT_STATUS_INTERVAL, OPT_CLOCK,
	OPT__LAST
};

struct optdef {
	int id;
	char letter;             /* 0: long only                          */
	const char *name;
	const char *arg;         /* NULL: a flag                          */
	unsigned cmds;           /* CMD_* bits                            */
	const char *help;        /* lines separated by '\n'               */
};

extern const struct optdef opt_table[];
extern const size_t opt_count;
/* The long name of option id ("exclude"), NULL when none. */
const char *opt_long_name(int id);

#define OPT_MAX 48               /* options of one subcommand, at most    */

/* One subcommand's getopt_long state, built from the table. */
struct optparse {
	unsigned cmd;
	const char *cmdname;         /* "run", for "see 'replay help run'"     */
	struct option lo[OPT_MAX + 1];
	char so[3 * OPT_MAX + 3];
};

/* stop_at_operand: options end at the first operand ("+" of getopt). */
void optparse_init(struct optparse *p, unsigned cmd, const char *cmdname, bool stop_at_operand);
/* The next option's id (its argument in optarg); -1 at the end of the
 * options; -2 after printing why the command line is wrong (exit 2). */
int  optparse_next(struct optparse *p, int argc, char **argv);

/* Every option of cmd's command line to fn(ctx, id, optarg) (0, or -1
 * after saying why); --help prints the usage.  0: the options are read
 * (operands from optind); 1: --help printed; 2: a usage error (said). */
int  opts_parse(unsigned cmd, bool stop_at_operand, int argc, char **argv,
		int (*fn)(void *ctx, int id, const char *arg), void *ctx);

/* The help lines of cmd's options ("  -m, --mode MODE   ..."). */
void opts_print(FILE *f, unsigned cmd);

/* Subcommands: name, bit, usage lines and description (src/cmd/main.c). */
struct cmd_info {
	const char *name;
	unsigned bit;
	int (*fn)(int argc, char **argv);
	const char *synopsis;        /* usage lines, '\n' between them        */
	const char *description;     /* paragraphs after the usage            */
	const char *summary;         /* one line for `replay help`             */
};
extern const struct cmd_info cmd_infos[];
extern const size_t cmd_ninfos;
const struct cmd_info *cmd_info_find(const char *name);
const struct cmd_info *cmd_info_of(unsigned bit);
/* "usage: ..." + description + options, as `replay help CMD` prints it. */
void cmd_usage(FILE *f, unsigned bit);
/* "usage: replay CMD ... (see 'replay help CMD')" on stderr. */
void cmd_short_usage(unsigned bit);
/* The bash completion script, from the command list and the table. */
void opts_print_bash_completion(FILE *f);
/* The closest command names to a mistyped word (edit distance <= 2),
 * comma-separated into buf; "" when none. */
const char *cmd_suggest(const char *word, char *buf, size_t len);

#endif
