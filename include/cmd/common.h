/* common.h - small helpers the subcommands share (src/cmd/common.c). */
#ifndef REPLAY_CMD_COMMON_H
#define REPLAY_CMD_COMMON_H

#include <stdbool.h>
#include <stdint.h>

/* A number from lo to hi in arg, or "replay: invalid WHAT 'ARG': expected
 * a number from LO to HI" and -1. */
int arg_count(const char *what, const char *arg, uint64_t lo, uint64_t hi, uint64_t *v);

/* While a trace is loaded: SIGINT/SIGTERM/SIGHUP end the process at once
 * with "replay: interrupted by signal N (...) while loading the trace",
 * status 128+N, and no temporary file left (util.h tmpfile_*). */
void cmd_guard_loading(void);

/* Can `path` be written as a result file (its directory exists and is
 * writable; it is not a directory, nor, unless stream_ok, a device, FIFO
 * or socket)?  0, or -1 after saying why. */
int check_output_file(const char *path, const char *what, bool stream_ok);
/* -o names a file the command reads as its trace (convert a.strace -o
 * a.strace): said, -1; else 0. */
int check_output_not_input(const char *out, char *const *args, int nargs, const char *what);

/* The options of the commands that read result files (compare, plot). */
struct results_cli {
	int json, markdown, render;
	const char *dir;         /* plot -o DIR                           */
	const char *html;        /* compare --html FILE                   */
	char *labels;            /* -L LIST (copied)                      */
	char **lab;              /* labels split, one per result          */
	size_t nlab;
};
/* Options and operands (at least one RESULT; one label per result).
 * 0 go on, 1 --help printed, 2 usage error (said), -ENOMEM; release with
 * results_cli_release(). */
int results_args(unsigned cmd, int argc, char **argv, struct results_cli *c);
void results_cli_release(struct results_cli *c);

struct load_opts;
struct filter_opts;
/* --include, --exclude, --no-default-excludes, --ranks into fo: 1 when id
 * is one of them, 0 when not, -1 after saying why (a bad rank list, too
 * many rules). */
int filter_option(struct filter_opts *fo, int id, const char *arg);
struct opstream;
/* --dxt-layer L: 0, or -1 after the message (an unknown layer). */
int  dxt_layer_option(struct load_opts *lo, const char *arg);
/* Warn (to stderr) when the trace says it is incomplete (DXT). */
void trace_warn_incomplete(const struct opstream *s, const char *name);
/* stat, dump, convert: load TRACE... (a signal ends the command cleanly,
 * cmd_guard_loading), into `out` when not NULL; say a failure on stderr,
 * warn when the trace is incomplete.  0, or -errno after the message. */
struct loaded_trace;
int  cmd_load_trace(struct loaded_trace *lt, char *const *args, int nargs,
		    const struct load_opts *lo, const char *out);
/* The same without writing anything: the ops go to sink, lt->s holds the
 * tables (loaded_trace_stream).  0; 1 when the trace is an .ops file,
 * mapped in lt->s and not fed; or -errno after the message. */
struct ops_sink;
int  cmd_stream_trace(struct loaded_trace *lt, char *const *args, int nargs,
		      const struct load_opts *lo, const struct ops_sink *sink);

/* The options of the commands that read traces (-f, --skip-bad, --dxt-layer, -h), the
 * others through own(ctx, id, optarg) (0, or -1 after the message); then
 * at least one TRACE.  0 go on, 1 --help printed, 2 usage error (said). */
int trace_cmd_args(unsigned cmd, int argc, char **argv, struct load_opts *lo,
		   int (*own)(void *ctx, int id, const char *arg), void *ctx);

#endif
