/*
 * dxt_input.c - where the DXT text comes from: the file itself, a `gzip
 * -dc` child for compressed dumps, or a `darshan-dxt-parser` child for a
 * binary Darshan log.  Children write into a pipe we read line by line (so
 * nothing is decompressed or converted to disk first) and their stderr into
 * an unlinked temporary file, whose first line explains a failure.
 *
 * A binary log of a format version replay decodes itself (3.10 to 3.41:
 * every version that can hold DXT; darshan_log.c) is printed by a forked
 * child of ours, into the same pipe, so darshan-util is not needed; the
 * tool is run only for a version replay does not know.
 *
 * darshan-dxt-parser: from 3.3.0 on it takes --show-incomplete (without
 * it, a log whose DXT buffer filled up is an error, exit 255); 3.2.x and
 * older take exactly one argument and print such logs with a warning
 * anyway.  So --show-incomplete is tried first, and when the tool answers
 * with nothing on stdout, exit status 1 and "Usage:" on stderr, it is run
 * again without the flag.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace/dxt.h"

extern char **environ;

int trace_is_gzip(const char *head, size_t n)
{
	return n >= 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b;
}

int trace_file_is_gzip(const char *path)
{
	char m[2];
	ssize_t n;
	int fd;

	if (file_is_stream(path))
		return 0;       /* not probed: the reader gets every byte */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, m, sizeof(m));
	close(fd);
	return n == 2 && trace_is_gzip(m, 2);
}

/* A binary Darshan log: an 8-byte version string ("3.21", NUL padded)
 * then the 64-bit magic number 6567223 in the writer's byte order. */
int dxt_is_darshan_log(const char *head, size_t n)
{
	static const unsigned char le[8] = { 0x37, 0x35, 0x64, 0, 0, 0, 0, 0 };
	static const unsigned char be[8] = { 0, 0, 0, 0, 0, 0x64, 0x35, 0x37 };

	if (n < 16 || head[0] < '1' || head[0] > '9' || head[1] != '.')
		return 0;
	return !memcmp(head + 8, le, 8) || !memcmp(head + 8, be, 8);
}

/* The full path of `tool` on PATH, into buf; -ENOENT when not there. */
static int find_on_path(const char *tool, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *c = strchr(path, ':');
		size_t dl = c ? (size_t)(c - path) : strlen(path);

		if (dl && (size_t)snprintf(buf, len, "%.*s/%s", (int)dl, path, tool) < len &&
		    access(buf, X_OK) == 0)
			return 0;
		path += dl + (c ? 1 : 0);
	}
	return -ENOENT;
}

/* Start argv[0] (a full path) with stdout into a pipe and stderr into an
 * unlinked temporary file. */
static int spawn(struct dxt_input *in, char *const argv[])
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def, none;
	char tmpl[4096];
	const char *td = getenv("TMPDIR");
	int p[2] = { -1, -1 }, rc;

	snprintf(tmpl, sizeof(tmpl), "%s/replay-child-XXXXXX", td && *td ? td : "/tmp");
	in->errfd = tmpfile_make(tmpl, 0, false);      /* unlinked at once */
	if (in->errfd < 0)
		return -errno;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, in->errfd, 2);
	posix_spawnattr_init(&at);
	/* the child gets default dispositions (we may ignore SIGPIPE) and no
	 * blocked signals */
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawn(&in->pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[1]);
	if (rc) {
		close(p[0]);
		in->pid = 0;
		return -rc;
	}
	in->outfd = p[0];
	return 0;
}

/* The first non-blank line the child wrote on stderr, into buf. */
static const char *child_stderr(const struct dxt_input *in, char *buf, size_t len)
{
	char raw[2048];
	ssize_t n = in->errfd >= 0 ? pread(in->errfd, raw, sizeof(raw) - 1, 0) : -1;
	const char *p = raw;

	buf[0] = 0;
	if (n <= 0)
		return buf;
	raw[n] = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		size_t s = 0;

		while (s < l && (p[s] == ' ' || p[s] == '\t' || p[s] == '\r'))
			s++;
		if (s < l) {
			while (l > s && (p[l - 1] == ' ' || p[l - 1] == '\r'))
				l--;
			snprintf(buf, len, "%.*s", (int)(l - s), p + s);
			return buf;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return buf;
}

/* Wait for the child; *status as waitpid's. */
static int child_wait(struct dxt_input *in, int *status)
{
	pid_t r;

	do
		r = waitpid(in->pid, status, 0);
	while (r < 0 && errno == EINTR);
	in->pid = 0;
	return r < 0 ? -errno : 0;
}

static void child_release(struct dxt_input *in)
{
	if (in->lr_open)
		lr_close(&in->lr);
	in->lr_open = 0;
	if (in->outfd >= 0)
		close(in->outfd);
	in->outfd = -1;
	if (in->pid > 0) {
		int st;

		kill(in->pid, SIGTERM);
		child_wait(in, &st);
	}
	if (in->errfd >= 0)
		close(in->errfd);
	in->errfd = -1;
}

static const char *tool_name(const struct dxt_input *in)
{
	return in->src == DXT_SRC_GZIP ? "gzip"
	       : in->src == DXT_SRC_NATIVE ? "replay's Darshan log reader" : DXT_PARSER_TOOL;
}

/* A child of ours printing the log's text into a pipe (darshan_log.c):
 * its reason for failing goes to the stderr file, as a tool's would. */
static int start_native(struct dxt_input *in, struct rerr *e)
{
	char tmpl[4096];
	const char *td = getenv("TMPDIR");
	int p[2], logfd;

	logfd = open(in->path, O_RDONLY | O_CLOEXEC);
	if (logfd < 0)
		return rerr_set(e, -errno, "cannot open '%s': %s", in->path, strerror(errno));
	snprintf(tmpl, sizeof(tmpl), "%s/replay-child-XXXXXX", td && *td ? td : "/tmp");
	in->errfd = tmpfile_make(tmpl, 0, false);      /* unlinked at once */
	if (in->errfd < 0 || pipe2(p, O_CLOEXEC) < 0) {
		int rc = -errno;
		close(logfd);
		return rerr_set(e, rc, "cannot read '%s': %s", in->path, strerror(-rc));
	}
	fflush(NULL);
	in->pid = fork();
	if (in->pid == 0) {
		static char buf[1 << 16];
		char why[1024];
		sigset_t none;

		signal(SIGPIPE, SIG_DFL);       /* the reader stopped: just end */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(p[0]);
		FILE *out = fdopen(p[1], "w");
		if (!out)
			_exit(2);
		setvbuf(out, buf, _IOFBF, sizeof(buf));
		int rc = darshan_log_print(logfd, out, why, sizeof(why));
		if (fflush(out) && !rc)
			rc = -1, snprintf(why, sizeof(why), "cannot write: %s", strerror(errno));
		if (rc)
			dprintf(in->errfd, "%s\n", why);
		_exit(rc ? 1 : 0);
	}
	int fe = errno;
	close(p[1]);
	close(logfd);
	if (in->pid < 0) {
		close(p[0]);
		in->pid = 0;
		return rerr_set(e, -fe, "cannot start a process to read '%s': %s", in->path,
				strerror(fe));
	}
	in->outfd = p[0];
	int rc = lr_fdopen(&in->lr, in->outfd, in->path);
	if (rc < 0)
		return rerr_set(e, rc, "out of memory");
	in->lr_open = 1;
	return 0;
}

static int start_child(struct dxt_input *in, struct rerr *e)
{
	char exe[4096];
	char *argv[5];
	int n = 0, rc;

	rc = find_on_path(tool_name(in), exe, sizeof(exe));
	if (rc < 0) {
		if (in->src == DXT_SRC_GZIP)
			return rerr_set(e, -ENOENT, "cannot read '%s': it is gzip-compressed and"
					" 'gzip' is not on PATH", in->path);
		return rerr_set(e, -ENOENT,
				"'%s' is a binary Darshan log of format version '%s', which"
				" replay does not read itself (it reads 3.10 to 3.41), and '"
				DXT_PARSER_TOOL "' is not on PATH: install a darshan-util that"
				" knows that version, or on a machine that has it run '"
				DXT_PARSER_TOOL " --show-incomplete %s > %s.txt' and give replay"
				" the text", in->path, in->version, in->path, in->path);
	}
	argv[n++] = exe;
	if (in->src == DXT_SRC_GZIP) {
		argv[n++] = (char *)"-dc";
		argv[n++] = (char *)"--";
	} else if (in->show_incomplete) {
		argv[n++] = (char *)"--show-incomplete";
	}
	argv[n++] = (char *)in->path;
	argv[n] = NULL;
	rc = spawn(in, argv);
	if (rc < 0)
		return rerr_set(e, rc, "cannot run '%s' to read '%s': %s", exe, in->path,
				strerror(-rc));
	rc = lr_fdopen(&in->lr, in->outfd, in->path);
	if (rc < 0)
		return rerr_set(e, rc, "out of memory");
	in->lr_open = 1;
	return 0;
}

int dxt_input_open(struct dxt_input *in, const char *path, struct rerr *e)
{
	char head[16];
	ssize_t n = 0;
	int rc;

	memset(in, 0, sizeof(*in));
	in->path = path;
	in->outfd = in->errfd = -1;
	if (!file_is_stream(path)) {    /* a pipe is read as text, as stdin */
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return rerr_set(e, -errno, "cannot open '%s': %s", path, strerror(errno));
		n = read(fd, head, sizeof(head));
		close(fd);
		if (n < 0)
			return rerr_set(e, -errno, "cannot read '%s': %s", path, strerror(errno));
	}
	if (trace_is_gzip(head, (size_t)n))
		in->src = DXT_SRC_GZIP;
	else if (dxt_is_darshan_log(head, (size_t)n))
		in->src = DXT_SRC_DARSHAN;
	if (in->src == DXT_SRC_TEXT) {
		rc = lr_open(&in->lr, path);
		if (rc < 0)
			return rerr_set(e, rc, "cannot open '%s': %s", path, strerror(-rc));
		in->lr_open = 1;
		return 0;
	}
	if (in->src == DXT_SRC_DARSHAN && darshan_log_version(head, (size_t)n)) {
		in->src = DXT_SRC_NATIVE;
		rc = start_native(in, e);
		if (rc < 0)
			child_release(in);
		return rc;
	}
	if (in->src == DXT_SRC_DARSHAN)
		snprintf(in->version, sizeof(in->version), "%.8s", head);
	in->show_incomplete = in->src == DXT_SRC_DARSHAN;
	rc = start_child(in, e);
	if (rc < 0)
		child_release(in);
	return rc;
}

/* The child's output ended: was it a success? */
static int child_done(struct dxt_input *in, struct rerr *e)
{
	char first[512];
	int st, rc;

	rc = child_wait(in, &st);
	if (rc < 0)
		return rerr_set(e, rc, "cannot wait for '%s' reading '%s': %s", tool_name(in),
				in->path, strerror(-rc));
	child_stderr(in, first, sizeof(first));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (in->src == DXT_SRC_NATIVE) {
		if (WIFSIGNALED(st))
			return rerr_set(e, -EIO, "%s: replay's Darshan log reader was killed by"
					" signal %d", in->path, WTERMSIG(st));
		return rerr_set(e, -EINVAL, "%s: cannot read this Darshan log: %s", in->path,
				first[0] ? first : "(no reason given)");
	}
	/* an old darshan-dxt-parser (<= 3.2) knows no --show-incomplete */
	if (in->src == DXT_SRC_DARSHAN && in->show_incomplete && in->bytes == 0 &&
	    WIFEXITED(st) && WEXITSTATUS(st) == 1 && !strncmp(first, "Usage:", 6))
		return 1;
	if (WIFSIGNALED(st))
		return rerr_set(e, -EIO, "'%s' failed reading '%s' (killed by signal %d)%s%s",
				tool_name(in), in->path, WTERMSIG(st), first[0] ? ": " : "", first);
	return rerr_set(e, -EIO, "'%s' failed reading '%s' (exit status %d)%s%s", tool_name(in),
			in->path, WEXITSTATUS(st), first[0] ? ": " : "",
			first[0] ? first : "(nothing on stderr)");
}

/* The child's output read to its end: closed, and its exit judged
 * (child_done). */
static int output_end(struct dxt_input *in, struct rerr *e)
{
	if (in->lr_open)
		lr_close(&in->lr);
	in->lr_open = 0;
	close(in->outfd);
	in->outfd = -1;
	return child_done(in, e);
}

int dxt_input_next(struct dxt_input *in, char **line, size_t *len, struct rerr *e)
{
	for (;;) {
		int rc = lr_next(&in->lr, line, len);

		if (rc == 1) {
			in->bytes += *len + 1;
			return 1;
		}
		if (rc == -E2BIG)
			return rerr_at(e, rc, in->path, in->lr.lineno, "line longer than %u bytes",
				       LR_MAX);
		if (rc < 0)
			return rerr_set(e, rc, "cannot read '%s': %s", in->path, strerror(-rc));
		if (in->src == DXT_SRC_TEXT)
			return 0;
		/* end of the child's output */
		rc = output_end(in, e);
		if (rc <= 0) {
			if (in->errfd >= 0)
				close(in->errfd);
			in->errfd = -1;
			return rc;
		}
		/* retry without --show-incomplete */
		close(in->errfd);
		in->errfd = -1;
		in->show_incomplete = 0;
		rc = start_child(in, e);
		if (rc < 0)
			return rc;
	}
}

int dxt_input_verdict(struct dxt_input *in, struct rerr *e)
{
	char buf[65536];
	if (in->src == DXT_SRC_TEXT || in->src == DXT_SRC_NATIVE || in->outfd < 0)
		return 0;
	for (;;) {               /* the rest of its output, unread */
		ssize_t r = read(in->outfd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
	}
	int rc = output_end(in, e);
	return rc < 0 ? rc : 0;
}

void dxt_input_close(struct dxt_input *in)
{
	child_release(in);
}

/* ---- a compressed file's first bytes, for format detection ----------- */

int trace_gunzip_head(const char *path, char *buf, size_t cap, size_t *n, struct rerr *e)
{
	struct dxt_input in;
	int rc;

	memset(&in, 0, sizeof(in));
	in.path = path;
	in.src = DXT_SRC_GZIP;
	in.outfd = in.errfd = -1;
	*n = 0;
	rc = start_child(&in, e);
	if (rc < 0)
		goto out;
	/* read straight from the pipe: the line reader is not needed */
	while (*n < cap) {
		ssize_t r = read(in.outfd, buf + *n, cap - *n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = rerr_set(e, -errno, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		*n += (size_t)r;
	}
	if (*n < cap) {
		/* all of it: gzip's verdict matters (a corrupt file) */
		close(in.outfd);
		in.outfd = -1;
		rc = child_done(&in, e);
		if (rc < 0)
			goto out;
	}
	if (*n == 0)
		rc = rerr_set(e, -EINVAL, "%s: empty once decompressed", path);
out:
	child_release(&in);
	return rc < 0 ? rc : 0;
}
