/*
 * engine/uring.c - io_uring through liburing.
 *
 * queue() fills an SQE, commit() submits everything prepared, reap()
 * waits for CQEs (io_uring_wait_cqes with a timeout) and then takes what
 * else is ready without waiting.  The ring has at least `depth` SQ entries
 * and the default 2x CQ entries, so with at most `depth` requests
 * outstanding the CQ cannot overflow.
 *
 * probe() does a real io_uring_queue_init(): containers and hardened
 * kernels block io_uring (seccomp, kernel.io_uring_disabled) and answer
 * -ENOSYS, -EPERM or -EINVAL; that is reported, never papered over.
 *
 * The worker's ring is set up as fio sets up its own: completion work runs
 * when the worker enters the kernel for it (DEFER_TASKRUN, the worker the
 * only issuer) rather than interrupting it; TASKRUN_FLAG marks the ring
 * when such work waits, so a peek (liburing enters to run it) still finds
 * every completion a poll could.  Kernels without these (before 6.1) get
 * COOP_TASKRUN, then a plain ring.
 */
#include <errno.h>
#include <stdio.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"

/* the kernel's values, for liburing headers older than the flags */
#ifndef IORING_SETUP_COOP_TASKRUN
#define IORING_SETUP_COOP_TASKRUN (1U << 8)
#endif
#ifndef IORING_SETUP_TASKRUN_FLAG
#define IORING_SETUP_TASKRUN_FLAG (1U << 9)
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif

/* Setup flags, the first the kernel takes (it answers -EINVAL to flags it
 * does not know). */
static const unsigned uring_setup_flags[] = {
	IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
	IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
	0,
};

struct uring_priv {
	struct io_uring ring;
	int ring_ok;
	unsigned depth;
	unsigned npending;       /* SQEs prepared, not yet submitted           */
	unsigned inflight;       /* submitted, not yet reaped                  */
	struct io_req **done;    /* completions taken from the CQ, not returned */
	unsigned ndone;
};

static int uring_probe(const char **why)
{
	struct io_uring ring;
	int ret = io_uring_queue_init(4, &ring, 0);

	if (ret < 0) {
		if (why) {
			if (ret == -ENOSYS || ret == -EPERM || ret == -EINVAL)
				*why = "io_uring is blocked here (kernel or seccomp); use -e sync or -e libaio";
			else if (ret == -ENOMEM)
				*why = "io_uring: cannot allocate a ring (locked memory limit?); use -e sync or -e libaio";
			else
				*why = "io_uring: io_uring_queue_init failed; use -e sync or -e libaio";
		}
		return ret;
	}
	io_uring_queue_exit(&ring);
	return 0;
}

static void uring_free(struct uring_priv *p)
{
	if (!p)
		return;
	if (p->ring_ok)
		io_uring_queue_exit(&p->ring);
	free(p->done);
	free(p);
}

static int uring_init(struct engine *e, const struct engine_opts *o)
{
	struct uring_priv *p = NULL;
	unsigned depth = o && o->depth ? o->depth : 1;
	int ret = -ENOMEM;

	p = calloc(1, sizeof(*p));
	if (!p)
		goto out;
	p->depth = depth;
	p->done = calloc(depth, sizeof(*p->done));
	if (!p->done)
		goto out;
	for (size_t i = 0; i < sizeof(uring_setup_flags) / sizeof(uring_setup_flags[0]); i++) {
		struct io_uring_params prm;

		memset(&prm, 0, sizeof(prm));
		prm.flags = uring_setup_flags[i];
		ret = io_uring_queue_init_params(depth, &p->ring, &prm);
		if (ret != -EINVAL)
			break;
	}
	if (ret < 0)
		goto out;
	p->ring_ok = 1;
	e->priv = p;
	e->depth = depth;
	p = NULL;
	ret = 0;
out:
	uring_free(p);
	return ret;
}

/* The kernel's ring size limit (IORING_MAX_ENTRIES, 32768 since 5.4): a
 * deeper -q fails io_uring_setup with EINVAL. */
#define URING_MAX_DEPTH 32768u

static int uring_check_depth(unsigned depth, unsigned procs, char *why, size_t len)
{
	(void)procs;
	if (depth <= URING_MAX_DEPTH)
		return 0;
	snprintf(why, len, "-q %u: an io_uring ring holds at most %u requests (the kernel's"
		 " IORING_MAX_ENTRIES); use -q %u or less, or -e libaio", depth, URING_MAX_DEPTH,
		 URING_MAX_DEPTH);
	return -EINVAL;
}

static int uring_queue(struct engine *e, struct io_req *r)
{
	struct uring_priv *p = e->priv;
	struct io_uring_sqe *sqe;
	/* SQE lengths are 32-bit; Linux moves at most MAX_RW_COUNT per call
	 * anyway, so a longer request is a (counted) short transfer */
	unsigned len = r->len > 0x7ffff000u ? 0x7ffff000u : (unsigned)r->len;

	if (r->dir != IO_READ && r->dir != IO_WRITE && r->dir != IO_FSYNC && r->dir != IO_FDATASYNC)
		return -EINVAL;
	if (p->inflight + p->npending + p->ndone >= p->depth)
		return ENGINE_BUSY;
	sqe = io_uring_get_sqe(&p->ring);
	if (!sqe)
		return ENGINE_BUSY;
	switch (r->dir) {
	case IO_READ:
		io_uring_prep_read(sqe, r->fd, r->buf, len, r->offset);
		break;
	case IO_WRITE:
		io_uring_prep_write(sqe, r->fd, r->buf, len, r->offset);
		sqe->rw_flags = r->rw_flags;    /* RWF_DSYNC, RWF_SYNC */
		break;
	case IO_FSYNC:
		io_uring_prep_fsync(sqe, r->fd, 0);
		break;
	case IO_FDATASYNC:
		io_uring_prep_fsync(sqe, r->fd, IORING_FSYNC_DATASYNC);
		break;
	}
	io_uring_sqe_set_data(sqe, r);
	p->npending++;
	return ENGINE_QUEUED;
}

/* Take every ready CQE into done[]. */
static unsigned uring_drain(struct engine *e, struct uring_priv *p)
{
	struct io_uring_cqe *cqe;
	unsigned n = 0;

	while (io_uring_peek_cqe(&p->ring, &cqe) == 0) {
		struct io_req *r = io_uring_cqe_get_data(cqe);

		p->inflight--;
		if (r) {
			r->res = cqe->res;
			if (cqe->res >= 0 && (r->dir == IO_READ || r->dir == IO_WRITE) &&
			    (uint64_t)cqe->res < r->len)
				e->short_ios++;
			p->done[p->ndone++] = r;
			n++;
		}
		io_uring_cqe_seen(&p->ring, cqe);
	}
	return n;
}

static int uring_commit(struct engine *e)
{
	struct uring_priv *p = e->priv;

	while (p->npending) {
		int ret = io_uring_submit(&p->ring);

		if (ret >= 0) {
			p->inflight += (unsigned)ret;
			p->npending -= (unsigned)ret < p->npending ? (unsigned)ret : p->npending;
			if (ret > 0)
				continue;
		}
		if (ret == -EINTR)
			continue;
		if (ret == -EAGAIN || ret == -EBUSY || ret == 0) {
			struct io_uring_cqe *cqe;

			e->eagain++;
			if (!p->inflight)
				return -EAGAIN;
			ret = io_uring_wait_cqe(&p->ring, &cqe);
			if (ret < 0 && ret != -EINTR)
				return ret;
			uring_drain(e, p);
			continue;
		}
		return ret;
	}
	return 0;
}

static int uring_reap(struct engine *e, unsigned min, unsigned max, struct io_req **out,
		      const struct timespec *timeout)
{
	struct uring_priv *p = e->priv;

	uring_drain(e, p);
	while (p->ndone < min && p->inflight) {
		struct io_uring_cqe *cqe;
		struct __kernel_timespec kts;
		unsigned want = min - p->ndone;
		int ret;

		if (want > p->inflight)
			want = p->inflight;
		if (timeout) {
			kts.tv_sec = timeout->tv_sec;
			kts.tv_nsec = timeout->tv_nsec;
		}
		ret = io_uring_wait_cqes(&p->ring, &cqe, want, timeout ? &kts : NULL, NULL);
		if (ret == -ETIME || ret == -EINTR) {
			uring_drain(e, p);
			if (ret == -ETIME)
				break;
			continue;
		}
		if (ret < 0)
			return ret;
		uring_drain(e, p);
	}
	return (int)engine_take_done(p->done, &p->ndone, out, max);
}

static void uring_exit(struct engine *e)
{
	struct uring_priv *p = e->priv;

	if (!p)
		return;
	/* let the kernel finish with our buffers before the caller frees them */
	while (p->inflight) {
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe(&p->ring, &cqe) < 0)
			break;
		p->ndone = 0;
		uring_drain(e, p);
	}
	uring_free(p);
	e->priv = NULL;
}

const struct engine_ops engine_uring = {
	.name = "io_uring",
	.flags = ENGINE_F_ASYNC,
	.probe = uring_probe,
	.check_depth = uring_check_depth,
	.init = uring_init,
	.queue = uring_queue,
	.commit = uring_commit,
	.reap = uring_reap,
	.exit = uring_exit,
};
