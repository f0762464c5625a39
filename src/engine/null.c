/*
 * null.c - an engine that issues nothing: every request completes at once
 * with its full length.  It measures the runner's own cost and lets the
 * runner be tested without I/O.  Opens, closes and metadata ops are still
 * real (the runner issues them itself).
 */
#include "engine/engine.h"

static int null_probe(const char **why)
{
	*why = NULL;
	return 0;
}

static int null_init(struct engine *e, const struct engine_opts *o)
{
	e->priv = NULL;
	e->depth = 1;
	(void)o;
	return 0;
}

static int null_queue(struct engine *e, struct io_req *r)
{
	(void)e;
	r->res = (r->dir == IO_READ || r->dir == IO_WRITE) ? (int64_t)r->len : 0;
	return ENGINE_COMPLETED;
}

static int null_commit(struct engine *e)
{
	(void)e;
	return 0;
}

static int null_reap(struct engine *e, unsigned min, unsigned max,
		     struct io_req **out, const struct timespec *timeout)
{
	(void)e; (void)min; (void)max; (void)out; (void)timeout;
	return 0;
}

static void null_exit(struct engine *e)
{
	(void)e;
}

const struct engine_ops engine_null = {
	.name = "null",
	.flags = ENGINE_F_SYNC,
	.probe = null_probe,
	.init = null_init,
	.queue = null_queue,
	.commit = null_commit,
	.reap = null_reap,
	.exit = null_exit,
};
