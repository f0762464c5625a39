/*
 * util.h - small helpers shared by all modules: error buffers, a bounded
 * line reader, time helpers.
 *
 * Internal functions return 0 or -errno and never print; when they have
 * more to say, they fill a `struct rerr` which cmd_* prints.
 */
#ifndef REPLAY_UTIL_H
#define REPLAY_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rerr {
	char msg[1024];
};

/* Format into e (when e != NULL) and return `code` (a negative errno). */
int rerr_set(struct rerr *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "FILE:LINE: " + message; returns `code`. */
int rerr_at(struct rerr *e, int code, const char *file, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Print "replay: " + message to stderr (only cmd_* and main call this). */
void die_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Bounded line reader: lines longer than LR_MAX are reported, not grown. */
#define LR_MAX (1u << 20)
struct linereader {
	int fd;
	const char *name;        /* for messages                          */
	unsigned long lineno;    /* number of the line last returned      */
	char *buf;
	size_t cap, start, end;
	int eof;
	int own_fd;
};
int  lr_open(struct linereader *lr, const char *path);  /* -errno */
/* Read lines from an fd the caller owns (a pipe from a child process);
 * `name` is for messages.  lr_close does not close fd. */
int  lr_fdopen(struct linereader *lr, int fd, const char *name);
void lr_close(struct linereader *lr);
/* Next line, NUL-terminated, without '\n'; *len its length.
 * Returns 1 line, 0 EOF, -E2BIG over-long line (skipped), -errno read error.
 * A final line without '\n' is returned too.  The pointer stays valid until
 * the next call. */
int  lr_next(struct linereader *lr, char **line, size_t *len);

uint64_t now_ns(void);                 /* CLOCK_MONOTONIC */
/* Parse decimal/hex/octal (strtoll base 0 rules, but "010" is decimal if dec_only) */
int parse_i64(const char *s, size_t n, int64_t *out);
int parse_u64(const char *s, size_t n, uint64_t *out);
/* Human formats into caller buffers */
const char *fmt_bytes(char *buf, size_t len, double bytes);   /* "1.5 MiB" */
const char *fmt_ns(char *buf, size_t len, double ns);         /* "12.3 ms" */

#endif
