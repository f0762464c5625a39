/*
 * engine/libaio.c - Linux native AIO (io_setup/io_submit/io_getevents).
 *
 * queue() only prepares an iocb; commit() submits the batch.  The submit
 * loop is fio's: -EAGAIN -> reap into our own completion list, then retry;
 * -EINTR -> retry.  Completions are kept in `done` so commit() can reap on
 * -EAGAIN without losing them: reap() hands them out first.
 *
 * fsync through AIO (IOCB_CMD_FSYNC) is refused with -EINVAL by kernels or
 * file systems that lack it.  The first refusal switches this engine to
 * synchronous fsync()/fdatasync() for the rest of its life, counted in
 * e->sync_fallback: a sync fallback is never silent.
 *
 * Buffered (non-O_DIRECT) AIO is accepted by the kernel but submission
 * then blocks until the I/O is done: see engine_warn_buffered().
 */
#include <errno.h>
#include <stdio.h>
#include <libaio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "util/util.h"

#define AIO_EAGAIN_TRIES 10000 /* x 100 us with nothing in flight: 1 s */

struct aio_priv {
	io_context_t ctx;
	unsigned depth;
	struct iocb *iocbs;      /* depth iocbs                                */
	unsigned *free;          /* stack of free iocb indices                 */
	unsigned nfree;
	struct iocb **pending;   /* prepared, not yet submitted                */
	unsigned npending;
	unsigned inflight;       /* submitted to the kernel, not yet reaped    */
	struct io_event *events; /* depth                                      */
	struct io_req **done;    /* completed, not yet returned by reap()      */
	unsigned ndone;
	int no_aio_fsync;        /* the kernel refused IOCB_CMD_FSYNC          */
};

static int aio_probe(const char **why)
{
	io_context_t ctx = 0;
	int ret = io_setup(1, &ctx);

	if (ret < 0) {
		if (why)
			*why = ret == -ENOSYS ? "libaio: the kernel has no AIO support (io_setup: ENOSYS)"
			     : ret == -EAGAIN ? "libaio: AIO context limit reached (/proc/sys/fs/aio-max-nr)"
			     : "libaio: io_setup failed";
		return ret;
	}
	io_destroy(ctx);
	return 0;
}

/* io_setup(depth) counts depth against the system-wide fs.aio-max-nr,
 * with what other contexts hold (fs.aio-nr): every worker running at once
 * takes its depth, and the last ones would fail with EAGAIN. */
static int aio_check_depth(unsigned depth, unsigned procs, char *why, size_t len)
{
	long long max = file_number("/proc/sys/fs/aio-max-nr");
	long long used = file_number("/proc/sys/fs/aio-nr");
	long long need = (long long)depth * procs;
	if (max < 0 || used < 0 || need + used <= max)
		return 0;
	snprintf(why, len, "-q %u with %u process%s at once needs %lld AIO requests, and"
		 " fs.aio-max-nr allows %lld (%lld in use): lower -q, or raise the limit"
		 " (sysctl -w fs.aio-max-nr=%lld)", depth, procs, procs == 1 ? "" : "es",
		 need, max, used, need + used);
	return -EAGAIN;
}

static void aio_free(struct aio_priv *p)
{
	if (!p)
		return;
	if (p->ctx)
		io_destroy(p->ctx);
	free(p->iocbs);
	free(p->free);
	free(p->pending);
	free(p->events);
	free(p->done);
	free(p);
}

static int aio_init(struct engine *e, const struct engine_opts *o)
{
	struct aio_priv *p = NULL;
	unsigned depth = o && o->depth ? o->depth : 1;
	int ret = -ENOMEM;

	p = calloc(1, sizeof(*p));
	if (!p)
		goto out;
	p->depth = depth;
	p->iocbs = calloc(depth, sizeof(*p->iocbs));
	p->free = calloc(depth, sizeof(*p->free));
	p->pending = calloc(depth, sizeof(*p->pending));
	p->events = calloc(depth, sizeof(*p->events));
	p->done = calloc(depth, sizeof(*p->done));
	if (!p->iocbs || !p->free || !p->pending || !p->events || !p->done)
		goto out;
	for (unsigned i = 0; i < depth; i++)
		p->free[i] = depth - 1 - i;
	p->nfree = depth;
	ret = io_setup((int)depth, &p->ctx);
	if (ret < 0) {
		p->ctx = 0;
		goto out;
	}
	e->priv = p;
	e->depth = depth;
	p = NULL;
	ret = 0;
out:
	aio_free(p);
	return ret;
}

static void aio_put_iocb(struct aio_priv *p, struct iocb *cb)
{
	p->free[p->nfree++] = (unsigned)(cb - p->iocbs);
}

static void aio_complete(struct engine *e, struct aio_priv *p, struct io_req *r, int64_t res)
{
	r->res = res;
	if (res >= 0 && (r->dir == IO_READ || r->dir == IO_WRITE) && (uint64_t)res < r->len)
		e->short_ios++;
	p->done[p->ndone++] = r;
}

static void aio_sync_now(struct engine *e, struct aio_priv *p, struct io_req *r)
{
	int ret = r->dir == IO_FDATASYNC ? fdatasync(r->fd) : fsync(r->fd);

	e->sync_fallback++;
	aio_complete(e, p, r, ret < 0 ? -errno : 0);
}

static int aio_queue(struct engine *e, struct io_req *r)
{
	struct aio_priv *p = e->priv;
	struct iocb *cb;

	if ((r->dir == IO_FSYNC || r->dir == IO_FDATASYNC) && p->no_aio_fsync) {
		/* done here, in order: the runner drains the handle first */
		int ret = r->dir == IO_FDATASYNC ? fdatasync(r->fd) : fsync(r->fd);

		e->sync_fallback++;
		r->res = ret < 0 ? -errno : 0;
		return ENGINE_COMPLETED;
	}
	/* done[] must be able to hold every outstanding request */
	if (!p->nfree || p->inflight + p->npending + p->ndone >= p->depth)
		return ENGINE_BUSY;
	cb = &p->iocbs[p->free[--p->nfree]];
	switch (r->dir) {
	case IO_READ:
		io_prep_pread(cb, r->fd, r->buf, (size_t)r->len, (long long)r->offset);
		break;
	case IO_WRITE:
		io_prep_pwrite(cb, r->fd, r->buf, (size_t)r->len, (long long)r->offset);
		cb->aio_rw_flags = (unsigned)r->rw_flags;       /* RWF_DSYNC, RWF_SYNC */
		break;
	case IO_FSYNC:
		io_prep_fsync(cb, r->fd);
		break;
	case IO_FDATASYNC:
		io_prep_fdsync(cb, r->fd);
		break;
	default:
		aio_put_iocb(p, cb);
		return -EINVAL;
	}
	cb->data = r;
	p->pending[p->npending++] = cb;
	return ENGINE_QUEUED;
}

/* Move up to `max` kernel completions into done[]; waits for `min`. */
static int aio_getevents(struct engine *e, struct aio_priv *p, unsigned min, unsigned max,
			 const struct timespec *timeout)
{
	struct timespec ts, *tsp = NULL;
	int n;

	if (max > p->inflight)
		max = p->inflight;
	if (min > max)
		min = max;
	if (!max)
		return 0;
	if (timeout) {
		ts = *timeout;
		tsp = &ts;
	}
	do
		n = io_getevents(p->ctx, (long)min, (long)max, p->events, tsp);
	while (n == -EINTR);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct iocb *cb = p->events[i].obj;
		struct io_req *r = cb->data;
		/* res is unsigned long carrying -errno: read it signed */
		int64_t res = (int64_t)(long)p->events[i].res;

		p->inflight--;
		aio_put_iocb(p, cb);
		aio_complete(e, p, r, res);
	}
	return n;
}

static int aio_commit(struct engine *e)
{
	struct aio_priv *p = e->priv;
	unsigned idle_tries = 0;

	while (p->npending) {
		int ret = io_submit(p->ctx, (long)p->npending, p->pending);

		if (ret > 0) {
			p->inflight += (unsigned)ret;
			p->npending -= (unsigned)ret;
			if (p->npending)
				memmove(p->pending, p->pending + ret,
					p->npending * sizeof(*p->pending));
			idle_tries = 0;
			continue;
		}
		if (ret == -EINTR)
			continue;
		if (ret == -EAGAIN || ret == 0) {
			e->eagain++;
			if (p->inflight) {
				int n = aio_getevents(e, p, 1, p->inflight, NULL);

				if (n < 0)
					return n;
			} else {
				struct timespec nap = { 0, 100000 };

				if (++idle_tries > AIO_EAGAIN_TRIES)
					return -EAGAIN;
				nanosleep(&nap, NULL);
			}
			continue;
		}
		/* The first pending iocb was refused: it completes with the
		 * error (or, for a refused fsync, synchronously) and the rest
		 * of the batch goes on. */
		{
			struct iocb *cb = p->pending[0];
			struct io_req *r = cb->data;

			p->npending--;
			memmove(p->pending, p->pending + 1, p->npending * sizeof(*p->pending));
			aio_put_iocb(p, cb);
			if (ret == -EINVAL && (r->dir == IO_FSYNC || r->dir == IO_FDATASYNC)) {
				p->no_aio_fsync = 1;
				/* keep order: what was submitted before lands first */
				if (p->inflight) {
					int n = aio_getevents(e, p, p->inflight, p->inflight, NULL);

					if (n < 0)
						return n;
				}
				aio_sync_now(e, p, r);
			} else {
				aio_complete(e, p, r, ret);
			}
		}
	}
	return 0;
}

static int aio_reap(struct engine *e, unsigned min, unsigned max, struct io_req **out,
		    const struct timespec *timeout)
{
	struct aio_priv *p = e->priv;

	if (p->ndone < min && p->inflight) {
		unsigned want = min - p->ndone;
		int n = aio_getevents(e, p, want, p->inflight, timeout);

		if (n < 0)
			return n;
	} else if (p->inflight) {
		/* opportunistic, non-blocking */
		struct timespec zero = { 0, 0 };
		int n = aio_getevents(e, p, 0, p->inflight, &zero);

		if (n < 0)
			return n;
	}
	return (int)engine_take_done(p->done, &p->ndone, out, max);
}

static void aio_exit(struct engine *e)
{
	struct aio_priv *p = e->priv;

	if (!p)
		return;
	/* never free iocbs the kernel may still write into */
	while (p->inflight) {
		p->ndone = 0;
		if (aio_getevents(e, p, p->inflight, p->inflight, NULL) < 0)
			break;
	}
	aio_free(p);
	e->priv = NULL;
}

const struct engine_ops engine_libaio = {
	.name = "libaio",
	.flags = ENGINE_F_ASYNC,
	.probe = aio_probe,
	.check_depth = aio_check_depth,
	.init = aio_init,
	.queue = aio_queue,
	.commit = aio_commit,
	.reap = aio_reap,
	.exit = aio_exit,
};

int engine_warn_buffered(const struct engine_ops *ops, int direct)
{
	return ops == &engine_libaio && !direct;
}
