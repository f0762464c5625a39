/* cmds.h - one entry point per subcommand (src/cmd/<name>.c); their usage,
 * description and options are in the tables of options.h. */
#ifndef REPLAY_CMDS_H
#define REPLAY_CMDS_H

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

#endif
