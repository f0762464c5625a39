/*
 * engine.h - how ops reach the kernel.  fio's engine contract, small.
 *
 * The runner turns an op into a struct io_req and calls queue():
 *   ENGINE_COMPLETED  done synchronously, req->res filled
 *   ENGINE_QUEUED     accepted; it completes through reap() after commit()
 *   ENGINE_BUSY       no room: reap first, then queue again
 * reap(min, max, timeout) returns the number of completed reqs stored in
 * out[] (>= min unless the timeout expired), or -errno.
 * Engines never print; they return -errno.  Engine-private state lives
 * behind e->priv.
 */
#ifndef REPLAY_ENGINE_H
#define REPLAY_ENGINE_H

#include <errno.h>
#include <stdint.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum io_dir { IO_READ, IO_WRITE, IO_FSYNC, IO_FDATASYNC };

struct io_req {
	int fd;
	enum io_dir dir;
	void *buf;            /* aligned buffer of at least len bytes     */
	uint64_t len;
	uint64_t offset;
	int64_t res;          /* bytes or -errno, set on completion       */
	uint64_t t_start_ns;  /* set by the runner before queue()         */
	uint32_t op_index;    /* the runner's tag                         */
	uint32_t slot;        /* the runner's tag                         */
	int rw_flags;         /* a write's per-call RWF_DSYNC / RWF_SYNC
	                       * (pwritev2, aio_rw_flags, sqe rw_flags)   */
};

enum { ENGINE_COMPLETED = 0, ENGINE_QUEUED = 1, ENGINE_BUSY = 2 };

#define ENGINE_F_SYNC   0x1u  /* every queue() completes synchronously  */
#define ENGINE_F_ASYNC  0x2u  /* real in-flight I/O                      */

struct engine_opts {
	unsigned depth;       /* max in flight (>= 1)                      */
	int direct;           /* files opened O_DIRECT                     */
};

struct engine {
	const struct engine_ops *ops;
	void *priv;
	unsigned depth;
	uint64_t short_ios;   /* transfers shorter than asked, counted     */
	uint64_t eagain;      /* EAGAIN retries                            */
	uint64_t sync_fallback; /* syncs done synchronously because the
	                         * kernel refused them async (libaio)      */
};

struct engine_ops {
	const char *name;
	unsigned flags;
	/* Is the engine usable here?  0, or -errno (e.g. -ENOSYS/-EPERM for
	 * io_uring blocked by the kernel or seccomp); why: static text. */
	int (*probe)(const char **why);
	/* Can `procs` workers at once each have `depth` requests in flight?
	 * 0, or -errno with the limit said in why[len] (NULL: no limit). */
	int (*check_depth)(unsigned depth, unsigned procs, char *why, size_t len);
	int (*init)(struct engine *e, const struct engine_opts *o);
	int (*queue)(struct engine *e, struct io_req *r);
	int (*commit)(struct engine *e);
	int (*reap)(struct engine *e, unsigned min, unsigned max,
		    struct io_req **out, const struct timespec *timeout);
	void (*exit)(struct engine *e);
};

/* The sync engine's transfer: one pread (write 0) or pwrite, retried on
 * EINTR; bytes done or -errno, and a short one counted in e->short_ios.
 * Inline: the runner calls it directly for a sync run's reads and writes,
 * without building an io_req for queue(). */
static inline int64_t engine_sync_rw(struct engine *e, int fd, int write, void *buf,
				     uint64_t len, uint64_t off)
{
	ssize_t n;

	do
		n = write ? pwrite(fd, buf, len, (off_t)off) : pread(fd, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((uint64_t)n < len)
		e->short_ios++;
	return n;
}

/* Explicit registry: sync, null, libaio, io_uring. */
extern const struct engine_ops engine_sync, engine_null, engine_libaio, engine_uring;
const struct engine_ops *engine_find(const char *name);
/* "sync, libaio, io_uring, null" for messages */
const char *engine_names(void);
/* 1 when `ops` with this O_DIRECT setting degrades to synchronous
 * submission in the kernel (libaio without --direct): cmd_run warns. */
int engine_warn_buffered(const struct engine_ops *ops, int direct);
/* For async engines' reap(): move up to max requests from done[0..*ndone)
 * to out[], keep the rest in order at the front of done[]; the count moved. */
unsigned engine_take_done(struct io_req **done, unsigned *ndone, struct io_req **out,
			  unsigned max);

#endif
