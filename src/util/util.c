/* util.c - error buffers, the bounded line reader, small parsers/formatters. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

int rerr_set(struct rerr *e, int code, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

int rerr_at(struct rerr *e, int code, const char *file, unsigned long line, const char *fmt, ...)
{
	if (e) {
		int n = snprintf(e->msg, sizeof(e->msg), "%s:%lu: ", file ? file : "?", line);
		if (n < 0 || (size_t)n >= sizeof(e->msg))
			n = 0;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg + n, sizeof(e->msg) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return code;
}

void die_msg(const char *fmt, ...)
{
	va_list ap;
	fputs("replay: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void warn_msg(const char *fmt, ...)
{
	va_list ap;
	fputs("replay: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define LR_CHUNK (256u * 1024u)

int lr_open(struct linereader *lr, const char *path)
{
	memset(lr, 0, sizeof(*lr));
	lr->fd = -1;
	lr->name = path;
	if (!strcmp(path, "-")) {
		lr->fd = 0;
	} else {
		lr->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (lr->fd < 0)
			return -errno;
		lr->own_fd = 1;
		posix_fadvise(lr->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	}
	lr->cap = LR_MAX + LR_CHUNK;
	lr->buf = malloc(lr->cap + 1);
	if (!lr->buf) {
		lr_close(lr);
		return -ENOMEM;
	}
	return 0;
}

int lr_fdopen(struct linereader *lr, int fd, const char *name)
{
	memset(lr, 0, sizeof(*lr));
	lr->fd = fd;
	lr->name = name;
	lr->cap = LR_MAX + LR_CHUNK;
	lr->buf = malloc(lr->cap + 1);
	return lr->buf ? 0 : -ENOMEM;
}

void lr_close(struct linereader *lr)
{
	if (lr->own_fd && lr->fd >= 0)
		close(lr->fd);
	lr->fd = -1;
	free(lr->buf);
	lr->buf = NULL;
}

/* Read more data after compacting; returns bytes read, 0 EOF, -errno. */
static ssize_t lr_fill(struct linereader *lr)
{
	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	if (lr->end >= lr->cap)
		return -E2BIG;
	for (;;) {
		ssize_t n = read(lr->fd, lr->buf + lr->end, lr->cap - lr->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		lr->end += (size_t)n;
		return n;
	}
}

int lr_next(struct linereader *lr, char **line, size_t *len)
{
	int skipping = 0;
	size_t scan = lr->start;

	for (;;) {
		char *nl = memchr(lr->buf + scan, '\n', lr->end - scan);
		if (nl) {
			size_t pos = (size_t)(nl - lr->buf);
			lr->lineno++;
			if (skipping) {
				lr->start = pos + 1;
				return -E2BIG;
			}
			*nl = '\0';
			*line = lr->buf + lr->start;
			*len = pos - lr->start;
			lr->start = pos + 1;
			return 1;
		}
		if (lr->eof) {
			if (lr->end > lr->start && !skipping) {
				lr->lineno++;
				lr->buf[lr->end] = '\0';
				*line = lr->buf + lr->start;
				*len = lr->end - lr->start;
				lr->start = lr->end;
				return 1;
			}
			if (skipping) {
				lr->lineno++;
				lr->start = lr->end;
				return -E2BIG;
			}
			return 0;
		}
		if (lr->end - lr->start >= LR_MAX) {
			/* over-long line: drop what we have and skip to the next '\n' */
			skipping = 1;
			lr->start = lr->end;
		}
		size_t keep = lr->end - lr->start;
		ssize_t n = lr_fill(lr);
		if (n < 0)
			return (int)n;
		if (n == 0)
			lr->eof = 1;
		scan = lr->start + keep;
	}
}

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int parse_i64(const char *s, size_t n, int64_t *out)
{
	char tmp[64];
	if (n == 0 || n >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	char *end;
	errno = 0;
	long long v = strtoll(tmp, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_u64(const char *s, size_t n, uint64_t *out)
{
	char tmp[64];
	if (n == 0 || n >= sizeof(tmp) || s[0] == '-')
		return -EINVAL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	char *end;
	errno = 0;
	unsigned long long v = strtoull(tmp, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

const char *fmt_bytes(char *buf, size_t len, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned u = 0;
	while (bytes >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		snprintf(buf, len, "%.1f %s", bytes, units[u]);
	return buf;
}

const char *fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}
