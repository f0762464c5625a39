/*
 * darshan_text.c - print what replay's own reader of binary Darshan logs
 * makes of a log (darshan_log_print: the text darshan-dxt-parser
 * --show-incomplete prints), for tests/e2e/dxt_binary.sh to compare with
 * the real tool's output.  Exit 1 with the reason on stderr when the log
 * cannot be read.
 *
 *   darshan_text LOG
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace/dxt.h"

int main(int argc, char **argv)
{
	char why[1024];
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: darshan_text LOG\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (darshan_log_print(fd, stdout, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", argv[1], why);
		return 1;
	}
	close(fd);
	return fflush(stdout) ? 1 : 0;
}
