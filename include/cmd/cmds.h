/* cmds.h - one entry point per subcommand (src/cmd/<name>.c); their usage,
 * description and options are in the tables of options.h. */
#ifndef REPLAY_CMDS_H
#define REPLAY_CMDS_H

#include <stdbool.h>
#include <stdio.h>

int cmd_run(int argc, char **argv);
/* run's command line parsed (each value checked) and released, touching
 * no file: 0, 1 (--help printed) or 2 (a usage error, said).  For
 * fuzz/fuzz_options.c. */
int cmd_run_parse(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_completion(int argc, char **argv);

/*
 * `replay run` with hooks, for replay-mpi (src/mpi/): the same option
 * table, loading, plan, runner and report; the hooks add options, decide
 * what this process runs and prints, and merge the processes' results.
 * Every member may be NULL.  cmd_run() is cmd_run_ext(.., NULL).
 */
struct plan;
struct opstream;
struct runner;
struct runner_opts;
struct plan_opts;
struct run_outcome;
struct rerr;
struct run_shared;
typedef struct json_t json_t;
struct run_ext {
	void *ctx;
	unsigned cmds;           /* option table bits besides CMD_RUN       */
	bool root;               /* prints the plan, the report, the JSON   */
	bool *json_stdout;       /* set by run: the JSON is the stdout (so
	                          * anything else goes to stderr)           */
	/* an option of cmds that `replay run` does not know: 0 or -1 (said) */
	int (*option)(void *ctx, int id, const char *arg);
	/* after the options: adjust them (quiet, no output off the root) */
	int (*setup)(void *ctx, const char *target, struct runner_opts *ro,
		     struct plan_opts *po, bool *quiet, const char **output);
	/* the plan is built: place its processes (0, or -1 said) */
	int (*planned)(void *ctx, const struct plan *p, const struct opstream *s);
	/* the runner exists: install its hooks */
	int (*runner)(void *ctx, struct runner *r);
	/* one run ended (ret, e: runner_run's, which it may reword): merge
	 * into the root's results */
	int (*after_run)(void *ctx, struct runner *r, struct run_outcome *out, int ret,
			 struct rerr *e);
	/* the root's document and summary: what the hooks add */
	int (*report)(void *ctx, json_t *doc);
	void (*print)(void *ctx, FILE *f);
};
int cmd_run_ext(int argc, char **argv, const struct run_ext *x);

#endif
