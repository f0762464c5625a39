/*
 * strace_text.h - an op stream from strace text written by the test:
 * the text goes to DIR/NAME.txt, through trace_load (the real reader and
 * builder) into DIR/NAME.ops, which is opened.  Needs tmpdir_fixture.h.
 *
 *   struct opstream s;
 *   strace_text_open(&s, "raw",
 *       "1 10:00:00.000001 openat(AT_FDCWD, \"/d/f\", O_RDWR|O_CREAT, 0644) = 3\n" ...);
 */
#ifndef REPLAY_TEST_STRACE_TEXT_H
#define REPLAY_TEST_STRACE_TEXT_H

#include <stdio.h>
#include <string.h>
#include "ops/opstream.h"
#include "trace/trace.h"

static inline void strace_text_open(struct opstream *s, const char *name, const char *text)
{
	char txt[512], ops[512];
	snprintf(txt, sizeof(txt), "%s/%s.txt", dir, name);
	snprintf(ops, sizeof(ops), "%s/%s.ops", dir, name);
	FILE *f = fopen(txt, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);

	struct load_opts lo = { .format = "strace" };
	struct load_result res;
	struct rerr e = { .msg = "" };
	char *args[] = { txt };
	int rc = trace_load(args, 1, &lo, ops, &res, &e);
	if (rc)
		fail_msg("%s: %s", name, e.msg);
	const char *why = NULL;
	rc = opstream_open(s, ops, &why);
	if (rc)
		fail_msg("%s: %s", ops, why ? why : strerror(-rc));
}

/* The path id of `path` in s (fails the test when absent). */
static inline uint32_t strace_text_path(const struct opstream *s, const char *path)
{
	for (uint32_t i = 0; i < s->npaths; i++)
		if (!strcmp(opstream_path(s, i), path))
			return i;
	fail_msg("no path '%s' in the stream", path);
	return UINT32_MAX;
}

#endif
