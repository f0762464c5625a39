/*
 * bench-floor.c - the physical floor for scripts/bench-overhead: the
 * syscalls `replay run` issues for a trace of OPS 1-byte pwrite64 calls at
 * consecutive offsets to one file, with no replay logic around them.
 *
 *   bench-floor sync|libaio|io_uring DEPTH OPS FILE [timed|timed-tsc]
 *
 * Each engine issues what replay's engine of that name issues for such a
 * trace (src/engine/ *.c and src/run/runner.c):
 *   sync      one pwrite64() per op;
 *   libaio    one io_submit() of one iocb per op; when DEPTH requests are
 *             in flight, one io_getevents(min 1, max in flight) (DEPTH 1:
 *             submit, then wait for it, as replay without --overlap);
 *   io_uring  one io_uring_submit() of one SQE per op; when DEPTH are in
 *             flight, the ready CQEs are taken (waiting for one if none).
 * The ring and the AIO context have DEPTH entries, as replay's.  The file
 * is opened O_WRONLY|O_CREAT|O_TRUNC before and closed after the timed
 * loop.  Every completion must have written its 1 byte, and the file must
 * end OPS bytes long, or the program fails.
 *
 * With "timed", it also reads CLOCK_MONOTONIC where replay does to time its
 * ops: before every submission and after every completion (sync) or
 * every reap (libaio, io_uring): the floor of a replayer that reports
 * per-op latencies.  "timed-tsc" reads the TSC there instead (x86-64), as
 * replay does with --clock tsc (util/clock.h: an rdtsc and a multiply).
 *
 * Prints one line: engine depth ops cpu_ns (user+sys of the loop,
 * getrusage) wall_ns (CLOCK_MONOTONIC).  Compiled by bench-overhead with
 * cc -O2 at run time: it is a measuring stick, not part of replay.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static char byte = 'x';
static int timed;
static volatile uint64_t stamp_sink;

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* A latency timestamp, as replay takes one, when timed (2: the TSC scaled
 * to ns, with a multiply and a shift as replay maps it). */
static inline void stamp(void)
{
#if defined(__x86_64__)
	if (timed == 2) {
		stamp_sink = (uint64_t)(((unsigned __int128)__rdtsc() * 2045222520u) >> 32);
		return;
	}
#endif
	if (timed)
		stamp_sink = mono_ns();
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static int floor_sync(int fd, uint64_t ops)
{
	for (uint64_t i = 0; i < ops; i++) {
		ssize_t n;

		stamp();
		n = pwrite(fd, &byte, 1, (off_t)i);
		stamp();

		if (n != 1)
			return n < 0 ? -errno : -EIO;
	}
	return 0;
}

/* Reap at least one AIO completion (its iocb back on the free stack);
 * every one must have written 1 byte. */
static int aio_reap(io_context_t ctx, struct io_event *ev, struct iocb **free_cb,
		    unsigned *inflight)
{
	int n;

	do
		n = io_getevents(ctx, 1, (long)*inflight, ev, NULL);
	while (n == -EINTR);
	if (n < 0)
		return n;
	stamp();
	for (int k = 0; k < n; k++) {
		if ((long)ev[k].res != 1)
			return (long)ev[k].res < 0 ? (int)(long)ev[k].res : -EIO;
		(*inflight)--;
		free_cb[*inflight] = ev[k].obj;
	}
	return 0;
}

static int floor_libaio(int fd, unsigned depth, uint64_t ops)
{
	io_context_t ctx = 0;
	struct iocb *cbs = calloc(depth, sizeof(*cbs));
	struct io_event *ev = calloc(depth, sizeof(*ev));
	struct iocb **free_cb = calloc(depth, sizeof(*free_cb));
	unsigned inflight = 0;  /* free_cb[inflight..depth) are free */
	int ret = -ENOMEM;

	if (!cbs || !ev || !free_cb)
		goto out;
	for (unsigned k = 0; k < depth; k++)
		free_cb[k] = &cbs[k];
	ret = io_setup((int)depth, &ctx);
	if (ret < 0) {
		ctx = 0;
		goto out;
	}
	for (uint64_t i = 0; i < ops; i++) {
		struct iocb *cb;

		if (inflight == depth && (ret = aio_reap(ctx, ev, free_cb, &inflight)) < 0)
			goto out;
		cb = free_cb[inflight];
		io_prep_pwrite(cb, fd, &byte, 1, (long long)i);
		stamp();
		do
			ret = io_submit(ctx, 1, &cb);
		while (ret == -EINTR);
		if (ret != 1) {
			ret = ret < 0 ? ret : -EAGAIN;
			goto out;
		}
		inflight++;
	}
	ret = 0;
	while (inflight && (ret = aio_reap(ctx, ev, free_cb, &inflight)) == 0)
		;
out:
	if (ctx)
		io_destroy(ctx);
	free(cbs);
	free(ev);
	free(free_cb);
	return ret;
}

/* Take the ready CQEs (waiting for one if none is); each wrote 1 byte. */
static int uring_reap(struct io_uring *ring, unsigned *inflight)
{
	struct io_uring_cqe *cqe;
	int ret = io_uring_peek_cqe(ring, &cqe);

	if (ret == -EAGAIN)
		ret = io_uring_wait_cqe(ring, &cqe);
	if (ret < 0)
		return ret;
	stamp();
	while (io_uring_peek_cqe(ring, &cqe) == 0) {
		int res = cqe->res;

		io_uring_cqe_seen(ring, cqe);
		(*inflight)--;
		if (res != 1)
			return res < 0 ? res : -EIO;
	}
	return 0;
}

static int floor_uring(int fd, unsigned depth, uint64_t ops)
{
	struct io_uring ring;
	unsigned inflight = 0;
	int ret = io_uring_queue_init(depth, &ring, 0);

	if (ret < 0)
		return ret;
	for (uint64_t i = 0; i < ops; i++) {
		struct io_uring_sqe *sqe;

		while (inflight >= depth)
			if ((ret = uring_reap(&ring, &inflight)) < 0)
				goto out;
		sqe = io_uring_get_sqe(&ring);
		if (!sqe) {
			ret = -EBUSY;
			goto out;
		}
		io_uring_prep_write(sqe, fd, &byte, 1, i);
		stamp();
		ret = io_uring_submit(&ring);
		if (ret != 1) {
			ret = ret < 0 ? ret : -EAGAIN;
			goto out;
		}
		inflight++;
	}
	ret = 0;
	while (inflight && (ret = uring_reap(&ring, &inflight)) == 0)
		;
out:
	io_uring_queue_exit(&ring);
	return ret;
}

int main(int argc, char **argv)
{
	const char *engine, *path;
	unsigned long depth;
	unsigned long long ops;
	uint64_t c0, c1, t0, t1;
	struct stat st;
	int fd, ret;

	if (argc == 6 && !strcmp(argv[5], "timed"))
		timed = 1;
	else if (argc == 6 && !strcmp(argv[5], "timed-tsc"))
		timed = 2;
	else if (argc != 5) {
		fprintf(stderr, "usage: bench-floor sync|libaio|io_uring DEPTH OPS FILE [timed|timed-tsc]\n");
		return 2;
	}
	engine = argv[1];
	depth = strtoul(argv[2], NULL, 10);
	ops = strtoull(argv[3], NULL, 10);
	path = argv[4];
	if (depth < 1 || depth > 65536 || ops < 1) {
		fprintf(stderr, "bench-floor: DEPTH must be 1..65536 and OPS >= 1\n");
		return 2;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "bench-floor: cannot open '%s': %s\n", path, strerror(errno));
		return 1;
	}
	t0 = mono_ns();
	c0 = cpu_ns();
	if (!strcmp(engine, "sync"))
		ret = floor_sync(fd, ops);
	else if (!strcmp(engine, "libaio"))
		ret = floor_libaio(fd, (unsigned)depth, ops);
	else if (!strcmp(engine, "io_uring"))
		ret = floor_uring(fd, (unsigned)depth, ops);
	else {
		fprintf(stderr, "bench-floor: engine '%s': expected sync, libaio or io_uring\n", engine);
		return 2;
	}
	c1 = cpu_ns();
	t1 = mono_ns();
	if (ret < 0) {
		fprintf(stderr, "bench-floor: %s: %s\n", engine, strerror(-ret));
		return 1;
	}
	if (fstat(fd, &st) < 0 || (unsigned long long)st.st_size != ops) {
		fprintf(stderr, "bench-floor: '%s' is %lld bytes, expected %llu\n", path,
			(long long)st.st_size, ops);
		return 1;
	}
	close(fd);
	printf("%s %lu %llu %llu %llu\n", engine, depth, ops, (unsigned long long)(c1 - c0),
	       (unsigned long long)(t1 - t0));
	return 0;
}
