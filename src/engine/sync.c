/*
 * sync.c - the synchronous engine: pread/pwrite/fsync/fdatasync issued in
 * queue(), so every request completes before queue() returns.  A short
 * transfer is reported as is (res < len), never retried into a full one:
 * the runner counts it.
 */
#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>
#include "engine/engine.h"

static int sync_probe(const char **why)
{
	*why = NULL;
	return 0;
}

static int sync_init(struct engine *e, const struct engine_opts *o)
{
	e->priv = NULL;
	e->depth = 1;
	(void)o;
	return 0;
}

static int sync_queue(struct engine *e, struct io_req *r)
{
	ssize_t n;

	switch (r->dir) {
	case IO_READ:
	case IO_WRITE:
		if (r->rw_flags && r->dir == IO_WRITE) {        /* RWF_DSYNC, RWF_SYNC */
			struct iovec iov = { r->buf, (size_t)r->len };
			do
				n = pwritev2(r->fd, &iov, 1, (off_t)r->offset, r->rw_flags);
			while (n < 0 && errno == EINTR);
			if (n >= 0 && (uint64_t)n < r->len)
				e->short_ios++;
			break;
		}
		r->res = engine_sync_rw(e, r->fd, r->dir == IO_WRITE, r->buf, r->len, r->offset);
		return ENGINE_COMPLETED;
	case IO_FSYNC:
		do
			n = fsync(r->fd);
		while (n < 0 && errno == EINTR);
		break;
	case IO_FDATASYNC:
		do
			n = fdatasync(r->fd);
		while (n < 0 && errno == EINTR);
		break;
	default:
		errno = EINVAL;
		n = -1;
	}
	r->res = n < 0 ? -errno : n;
	return ENGINE_COMPLETED;
}

static int sync_commit(struct engine *e)
{
	(void)e;
	return 0;
}

static int sync_reap(struct engine *e, unsigned min, unsigned max,
		     struct io_req **out, const struct timespec *timeout)
{
	(void)e; (void)min; (void)max; (void)out; (void)timeout;
	return 0;
}

static void sync_exit(struct engine *e)
{
	e->priv = NULL;
}

const struct engine_ops engine_sync = {
	.name = "sync",
	.flags = ENGINE_F_SYNC,
	.probe = sync_probe,
	.init = sync_init,
	.queue = sync_queue,
	.commit = sync_commit,
	.reap = sync_reap,
	.exit = sync_exit,
};
