/* cmds.h - one entry point per subcommand (src/cmd_*.c). */
#ifndef REPLAY_CMDS_H
#define REPLAY_CMDS_H

int cmd_run(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* Usage text of each subcommand (printed by `replay help CMD`). */
extern const char usage_run[], usage_stat[], usage_convert[], usage_dump[],
	usage_gen[], usage_compare[], usage_plot[];

#endif
