/*
 * fake_builder.h - a recording stand-in for the builder, for parser unit
 * tests (test_lanl.c, test_sandia.c).
 *
 * A test that includes this defines builder_rank() and builder_event()
 * itself, so the static library's builder.o is never linked in: the parser
 * is tested on exactly the sc_events it produces, independently of the
 * builder's fd/position logic (which has its own tests).
 */
#ifndef REPLAY_FAKE_BUILDER_H
#define REPLAY_FAKE_BUILDER_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace/trace.h"

struct builder {
	int unused;
};

struct rec {
	struct sc_event ev;
	char name[64], path[512], path2[512];
};

#define FB_MAXREC  8192
#define FB_MAXRANK 64
static struct rec fb_recs[FB_MAXREC];
static size_t fb_nrec;
static struct {
	int64_t pid;
	char name[128];
	char host[64];
} fb_ranks[FB_MAXRANK];
static size_t fb_nranks;
static struct builder fb_builder;

int builder_rank(struct builder *b, int64_t pid, const char *name, uint32_t *rank)
{
	(void)b;
	for (size_t i = 0; i < fb_nranks; i++)
		if (fb_ranks[i].pid == pid) {
			*rank = (uint32_t)i;
			return 0;
		}
	if (fb_nranks == FB_MAXRANK)
		return -ENOSPC;
	fb_ranks[fb_nranks].pid = pid;
	snprintf(fb_ranks[fb_nranks].name, sizeof(fb_ranks[0].name), "%s", name);
	*rank = (uint32_t)fb_nranks++;
	return 0;
}

int builder_rank_host(struct builder *b, uint32_t rank, const char *host)
{
	(void)b;
	if (rank >= fb_nranks)
		return -EINVAL;
	snprintf(fb_ranks[rank].host, sizeof(fb_ranks[0].host), "%s", host);
	return 0;
}

int builder_event(struct builder *b, const struct sc_event *ev, struct rerr *e)
{
	(void)b;
	(void)e;
	if (fb_nrec == FB_MAXREC)
		return -ENOSPC;
	struct rec *r = &fb_recs[fb_nrec++];
	r->ev = *ev;
	snprintf(r->name, sizeof(r->name), "%s", ev->name ? ev->name : "");
	r->ev.name = r->name;
	if (ev->path) {
		snprintf(r->path, sizeof(r->path), "%s", ev->path);
		r->ev.path = r->path;
	}
	if (ev->path2) {
		snprintf(r->path2, sizeof(r->path2), "%s", ev->path2);
		r->ev.path2 = r->path2;
	}
	r->ev.src = NULL;
	r->ev.fdpath = NULL;
	r->ev.retpath = NULL;
	return 0;
}

/* The captures a parser named (builder_captures), "NAME\n" each. */
static char fb_caps[4096];

int builder_captures(struct builder *b, char *const *names, size_t n)
{
	(void)b;
	fb_caps[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(fb_caps);
		snprintf(fb_caps + l, sizeof(fb_caps) - l, "%s\n", names[i]);
	}
	return 0;
}

/* The info keys a parser recorded: "key=value\n" each, as the .ops
 * file's info blob holds them. */
static char fb_info[4096];

int builder_info(struct builder *b, const char *key, const char *value)
{
	(void)b;
	size_t n = strlen(fb_info);
	if (n + strlen(key) + strlen(value) + 3 > sizeof(fb_info))
		return -ENOSPC;
	snprintf(fb_info + n, sizeof(fb_info) - n, "%s=%s\n", key, value);
	return 0;
}

static __attribute__((unused)) void fb_reset(void)
{
	fb_nrec = 0;
	fb_nranks = 0;
	fb_info[0] = 0;
}

/* Parse files with fmt into the fake builder. */
static __attribute__((unused)) int fb_parse(const struct trace_format *fmt, char **files, size_t n, bool skip_bad,
		    struct trace_input *in, struct rerr *e)
{
	fb_reset();
	memset(in, 0, sizeof(*in));
	in->files = files;
	in->nfiles = n;
	in->skip_bad = skip_bad;
	e->msg[0] = '\0';
	return fmt->parse(in, &fb_builder, e);
}

/* Events of pid with call c (c < 0: any). */
static __attribute__((unused)) size_t fb_count(int64_t pid, int c)
{
	size_t n = 0;
	for (size_t i = 0; i < fb_nrec; i++)
		if (fb_recs[i].ev.pid == pid && (c < 0 || fb_recs[i].ev.call == (enum sc_call)c))
			n++;
	return n;
}

/* k-th event of pid with call c, NULL if none. */
static __attribute__((unused)) const struct sc_event *fb_nth(int64_t pid, enum sc_call c, size_t k)
{
	for (size_t i = 0; i < fb_nrec; i++)
		if (fb_recs[i].ev.pid == pid && fb_recs[i].ev.call == c && k-- == 0)
			return &fb_recs[i].ev;
	return NULL;
}

static __attribute__((unused)) uint64_t fb_bytes(int64_t pid, enum sc_call c)
{
	uint64_t n = 0;
	for (size_t i = 0; i < fb_nrec; i++)
		if (fb_recs[i].ev.pid == pid && fb_recs[i].ev.call == c)
			n += fb_recs[i].ev.len;
	return n;
}

/* Write content to DIR/name; returns a malloc'd path. */
static __attribute__((unused)) char *fb_write(const char *dir, const char *name, const char *content)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	FILE *f = fopen(p, "w");
	if (!f) {
		free(p);
		return NULL;
	}
	fputs(content, f);
	fclose(f);
	return p;
}

/* A fresh temporary directory (removed by fb_rmdir). */
static __attribute__((unused)) char *fb_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *p = NULL;
	if (asprintf(&p, "%s/replay-test-XXXXXX", t && *t ? t : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(p)) {
		free(p);
		return NULL;
	}
	return p;
}

static __attribute__((unused)) void fb_rmdir(char *dir)
{
	char *cmd = NULL;
	if (dir && asprintf(&cmd, "rm -rf '%s'", dir) >= 0) {
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", dir);
	}
	free(cmd);
	free(dir);
}

/* Write text to DIR/name and parse it with fmt (a failure fails the
 * test); returns the malloc'd path. */
static __attribute__((unused)) char *fb_parse_text(const struct trace_format *fmt, const char *dir,
						   const char *name, const char *text)
{
	struct trace_input in;
	struct rerr e;
	char *f = fb_write(dir, name, text);
	char *files[] = { f };
	if (fb_parse(fmt, files, 1, false, &in, &e))
		fail_msg("parse %s: %s", name, e.msg);
	return f;
}

#endif
