/* common.c - helpers the subcommands share (common.h). */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/common.h"
#include "cmd/options.h"
#include "util/util.h"

int arg_count(const char *what, const char *arg, uint64_t lo, uint64_t hi, uint64_t *v)
{
	if (parse_u64(arg, strlen(arg), v) < 0 || *v < lo || *v > hi) {
		die_msg("invalid %s '%s': expected a number from %llu to %llu", what, arg,
			(unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	return 0;
}

static void on_loading_signal(int sig)
{
	char msg[160];
	tmpfile_remove_all();
	int n = snprintf(msg, sizeof(msg), "replay: interrupted by signal %d (%s) while loading the trace\n",
			 sig, sig == SIGINT ? "Interrupt" : sig == SIGTERM ? "Terminated" : "Hangup");
	if (n > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)n);
	_exit(128 + sig);
}

void cmd_guard_loading(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_loading_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	for (int s = 0, sigs[] = { SIGINT, SIGTERM, SIGHUP }; s < 3; s++) {
		struct sigaction old;
		/* a signal the caller ignores (`&` in a script) stays ignored */
		if (!sigaction(sigs[s], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[s], &sa, NULL);
	}
}

int check_output_file(const char *path, const char *what)
{
	struct stat st;
	if (!*path) {
		die_msg("%s: an empty file name", what);
		return -1;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		die_msg("%s '%s' is a directory, expected a file name", what, path);
		return -1;
	}
	char *copy = strdup(path);
	if (!copy) {
		die_msg("out of memory");
		return -1;
	}
	const char *dir = dirname(copy);
	int rc = 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		die_msg("cannot write %s '%s': directory '%s' does not exist", what, path, dir);
		rc = -1;
	} else if (access(dir, W_OK | X_OK)) {
		die_msg("cannot write %s '%s': %s", what, path, strerror(errno));
		rc = -1;
	}
	free(copy);
	return rc;
}

int results_args(unsigned cmd, int argc, char **argv, struct results_cli *c)
{
	struct optparse op;
	int id;
	c->render = 1;
	optparse_init(&op, cmd, cmd == CMD_PLOT ? "plot" : "compare", true);
	while ((id = optparse_next(&op, argc, argv)) != -1) {
		switch (id) {
		case -2:
			return 2;
		case 'j':
			c->json = 1;
			break;
		case 'M':
			c->markdown = 1;
			break;
		case 'o':
			c->dir = optarg;
			break;
		case OPT_NO_RENDER:
			c->render = 0;
			break;
		case 'L':
			free(c->labels);
			if (!(c->labels = strdup(optarg))) {
				die_msg("out of memory");
				return 2;
			}
			break;
		case 'h':
			cmd_usage(stdout, cmd);
			return 1;
		}
	}
	return 0;
}
