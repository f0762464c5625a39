/*
 * gen.c - synthetic traces in the real grammars (see gen.h).
 *
 * Why it is built this way:
 *  - Every rank draws from its own PRNG stream (splitmix64 seeded by seed,
 *    workload and rank), so a rank's lines do not depend on how the other
 *    ranks were written, and the LANL generator can run a rank twice: a dry
 *    run (no output) to learn when it reaches each MPI_Barrier, then the
 *    real run, in which every rank leaves the barrier when the last one
 *    entered it.  Memory is O(ranks), never O(ops).
 *  - strace workloads with several processes are written by a small event
 *    scheduler: the process with the earliest next event prints next, and a
 *    call is split into `<unfinished ...>` / `<... resumed>` exactly when
 *    another process has an event before the call returns, as strace does.
 *  - Byte ratios (Table I of the study) are steered while writing (read when
 *    the running read share is below target) and made exact by a final
 *    top-up, so they hold at any --scale.
 */
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/gen.h"

/* ---------------------------------------------------------------- rng */

struct rng {
	uint64_t s;
};

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t rng_next(struct rng *r)
{
	r->s += 0x9E3779B97F4A7C15ull;
	return mix64(r->s);
}

static void rng_init(struct rng *r, uint64_t seed, uint64_t stream, uint64_t sub)
{
	r->s = mix64(seed ^ 0x5EED5EED5EED5EEDull) ^ mix64(stream * 0xD1B54A32D192ED03ull + 1)
	       ^ mix64(sub * 0x9E3779B97F4A7C15ull + 7);
}

/* Uniform in [0, n); n == 0 gives 0. */
static uint64_t rng_below(struct rng *r, uint64_t n)
{
	if (n == 0)
		return 0;
	/* rejection keeps it unbiased */
	uint64_t lim = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;
	do
		x = rng_next(r);
	while (x >= lim);
	return x % n;
}

static uint64_t rng_range(struct rng *r, uint64_t lo, uint64_t hi) /* [lo, hi] */
{
	return lo + rng_below(r, hi - lo + 1);
}

/* Per mille chance. */
static int rng_chance(struct rng *r, unsigned permille)
{
	return rng_below(r, 1000) < permille;
}

static double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* ------------------------------------------------------------- output */

struct gout {
	FILE *f;          /* NULL: dry run, nothing written */
	uint64_t lines;
	int err;          /* first -errno seen */
};

static void outf(struct gout *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void outf(struct gout *o, const char *fmt, ...)
{
	if (!o->f)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (vfprintf(o->f, fmt, ap) < 0 && !o->err)
		o->err = errno ? -errno : -EIO;
	va_end(ap);
	o->lines++;
}

/* Wall clock of the day, UTC: "HH:MM:SS.uuuuuu". */
static const char *tod(char *buf, size_t len, uint64_t us)
{
	uint64_t s = us / 1000000;
	snprintf(buf, len, "%02u:%02u:%02u.%06u", (unsigned)(s / 3600 % 24),
		 (unsigned)(s / 60 % 60), (unsigned)(s % 60), (unsigned)(us % 1000000));
	return buf;
}

static const char *secs(char *buf, size_t len, uint64_t us)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
	return buf;
}

/*
 * strace/ltrace quoting of a buffer's first n bytes: printable characters
 * as is, the usual C escapes, other bytes in octal (three digits when an
 * octal digit follows, as strace does).
 */
static void quote_bytes(char *out, size_t cap, const uint8_t *b, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 5 < cap; i++) {
		uint8_t c = b[i];
		const char *esc = NULL;
		switch (c) {
		case '\t': esc = "\\t"; break;
		case '\n': esc = "\\n"; break;
		case '\v': esc = "\\v"; break;
		case '\f': esc = "\\f"; break;
		case '\r': esc = "\\r"; break;
		case '"':  esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		default: break;
		}
		if (esc) {
			k += (size_t)snprintf(out + k, cap - k, "%s", esc);
		} else if (c >= 0x20 && c < 0x7f) {
			out[k++] = (char)c;
		} else {
			int next_digit = i + 1 < n && b[i + 1] >= '0' && b[i + 1] <= '7';
			k += (size_t)snprintf(out + k, cap - k, next_digit ? "\\%03o" : "\\%o", c);
		}
	}
	out[k] = '\0';
}

/* 32 bytes of random data, quoted. */
static void quote_random(char *out, size_t cap, struct rng *r)
{
	uint8_t b[32];
	for (size_t i = 0; i < sizeof(b); i += 8) {
		uint64_t x = rng_next(r);
		memcpy(b + i, &x, 8);
	}
	quote_bytes(out, cap, b, sizeof(b));
}

/* --------------------------------------------------------- workloads */

enum wl_id { WL_LANL64, WL_LANL1024, WL_ALEGRA, WL_CTH, WL_S3D,
	     WL_SEQWRITER, WL_SEEKCHAIN, WL_WRITERS, WL_ZIPF, WL_CHECKPOINT };

static const struct gen_workload workloads[] = {
	[WL_LANL64]   = { "lanl-64k", GEN_LANL, true, 32, false,
		"LANL MPI_IO_TEST, N-to-1 non-strided, 64 KiB objects, write then read back (LANL-Trace dir)" },
	[WL_LANL1024] = { "lanl-1024k", GEN_LANL, true, 32, false,
		"LANL MPI_IO_TEST, N-to-1 non-strided, 1024 KiB objects, write then read back (LANL-Trace dir)" },
	[WL_ALEGRA]   = { "alegra", GEN_SANDIA, false, 32, false,
		"Sandia alegra: reads/writes 0.14/0.86, irregular sizes, unrecognized pattern (libsysio text)" },
	[WL_CTH]      = { "cth", GEN_SANDIA, false, 32, false,
		"Sandia CTH: reads/writes 0.67/0.33, irregular sizes, unrecognized pattern (libsysio text)" },
	[WL_S3D]      = { "s3d", GEN_SANDIA, false, 32, false,
		"Sandia S3D I/O kernel: write-only, sequential, 1 MiB writes (libsysio text)" },
	[WL_SEQWRITER] = { "seq-writer", GEN_STRACE, false, 1, true,
		"one process writing a file in a stream of 1 KiB writes (seed 000; strace -f -tt -T)" },
	[WL_SEEKCHAIN] = { "seek-chain", GEN_STRACE, false, 1, true,
		"one process following a shuffled linked list of 1 KiB entries (seed 000; strace)" },
	[WL_WRITERS]  = { "writers-32", GEN_STRACE, false, 32, false,
		"a parent forking N writers, each writing 1 MiB files in 64 KiB writes (seed 001; strace)" },
	[WL_ZIPF]     = { "zipf-reads", GEN_STRACE, false, 8, false,
		"N threads of 1 KiB scrambled-Zipfian random reads of a preallocated file (seed 002; strace)" },
	[WL_CHECKPOINT] = { "checkpoint", GEN_STRACE, false, 4, false,
		"a parent forking N ranks that each write a 1 MiB checkpoint (64 KiB writes, fsync) then "
		"compute 50 ms (+-5), 10 times (think time known; strace -tt -T)" },
};
#define NWORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

const struct gen_workload *gen_workloads(size_t *n)
{
	*n = NWORKLOADS;
	return workloads;
}

const struct gen_workload *gen_find(const char *name)
{
	for (size_t i = 0; i < NWORKLOADS; i++)
		if (name && !strcmp(workloads[i].name, name))
			return &workloads[i];
	return NULL;
}

static enum wl_id wl_of(const struct gen_workload *w)
{
	return (enum wl_id)(w - workloads);
}

/* Base count at scale 1, scaled, at least `min`. */
static uint64_t scaled(double scale, uint64_t base, uint64_t min)
{
	double v = (double)base * scale;
	if (v > 1e15)
		v = 1e15;
	uint64_t n = (uint64_t)llround(v);
	return n < min ? min : n;
}

static unsigned ranks_of(const struct gen_params *p, const struct gen_workload *w)
{
	return p->ranks ? p->ranks : w->def_ranks;
}

uint64_t gen_lanl_objects(const struct gen_params *p)
{
	const struct gen_workload *w = gen_find(p->workload);
	if (p->objects)
		return p->objects;
	uint64_t base = w && wl_of(w) == WL_LANL1024 ? 16 : 64;
	return scaled(p->scale > 0 ? p->scale : 1.0, base, 1);
}

uint64_t gen_lanl_rereads(const struct gen_params *p)
{
	const struct gen_workload *w = gen_find(p->workload);
	if (!w || wl_of(w) != WL_LANL64)
		return 0;
	return gen_lanl_objects(p) / 25;
}

static uint64_t lanl_size(const struct gen_params *p, const struct gen_workload *w)
{
	if (p->object_size)
		return p->object_size;
	return wl_of(w) == WL_LANL1024 ? 1048576 : 65536;
}

int gen_check(const struct gen_params *p, struct rerr *e)
{
	const struct gen_workload *w = gen_find(p->workload);
	if (!w)
		return rerr_set(e, -EINVAL, "unknown workload '%s'", p->workload ? p->workload : "");
	if (!(p->scale > 0) || p->scale > 1e6)
		return rerr_set(e, -EINVAL, "--scale must be > 0 and <= 1000000, not %g", p->scale);
	unsigned n = ranks_of(p, w);
	if (w->fixed_ranks && n != 1)
		return rerr_set(e, -EINVAL, "'%s' is a single-process workload: --processes must be 1", w->name);
	unsigned maxr = w->format == GEN_STRACE ? 1024 : 4096;
	if (n < 1 || n > maxr)
		return rerr_set(e, -EINVAL, "--processes must be between 1 and %u for '%s', not %u", maxr, w->name, n);
	if (w->format != GEN_LANL && (p->strided || p->n_to_n || p->object_size || p->objects))
		return rerr_set(e, -EINVAL, "--strided, --n-to-n, --object-size and --objects apply to lanl-* workloads only");
	if (p->strided && p->n_to_n)
		return rerr_set(e, -EINVAL, "--strided and --n-to-n exclude each other (mpi_io_test -type 1 has no stride)");
	if (w->format == GEN_LANL) {
		uint64_t size = lanl_size(p, w), nobj = gen_lanl_objects(p);
		if (size < 1 || size > (1ull << 30))
			return rerr_set(e, -EINVAL, "--object-size must be between 1 and 1073741824 bytes");
		if (nobj > (1ull << 32))
			return rerr_set(e, -EINVAL, "too many objects per rank (%" PRIu64 ")", nobj);
		/* the largest offset must fit in 62 bits */
		if ((double)size * (double)nobj * (double)n > 4e18)
			return rerr_set(e, -EINVAL, "ranks x objects x size exceeds the 64-bit offset range");
	}
	return 0;
}

/* ------------------------------------------------------------- LANL */

enum lanl_call { LC_MPI_BARRIER, LC_MPI_CLOSE, LC_MPI_OPEN, LC_LLSEEK, LC_CLOSE,
		 LC_FCNTL, LC_LSEEK, LC_OPEN, LC_READ, LC_STATFS, LC_WRITE, LC_N };
/* Alphabetical (ASCII), the order of the summary table. */
static const char *const lanl_names[LC_N] = {
	"MPI_Barrier", "MPI_File_close", "MPI_File_open", "SYS__llseek", "SYS_close",
	"SYS_fcntl64", "SYS_lseek", "SYS_open", "SYS_read", "SYS_statfs64", "SYS_write",
};

#define LANL_NPHASE 3
#define LANL_EPOCH_US (1159808385ull * 1000000ull)

struct lanl {
	const struct gen_params *p;
	unsigned n;
	uint64_t size, nobj, reread;
	uint64_t *dur;          /* [rank * LANL_NPHASE + k]: time to reach barrier k */
	uint64_t *end;          /* [rank]: time the trace ends                      */
	uint64_t start_us;      /* all ranks leave the harness barrier here          */
	uint64_t bar_exit[LANL_NPHASE];
	unsigned *pid;
	struct gen_summary *sum;
};

struct lanl_rank {
	struct gout *o;
	struct rng rng;
	uint64_t t;
	uint64_t cnt[LC_N], tot[LC_N];
};

static void lanl_host(char *buf, size_t len, unsigned rank)
{
	snprintf(buf, len, "host%02u.lanl.gov", rank / 2 + 1);
}

/* One complete call line; `ret` printed after " = " (spacing as given in
 * sep, LANL-Trace's irregular "  = " and "< 0.000017>" included). */
static void lanl_line(struct lanl_rank *k, enum lanl_call c, uint64_t dur, const char *sep,
		      const char *ret, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void lanl_line(struct lanl_rank *k, enum lanl_call c, uint64_t dur, const char *sep,
		      const char *ret, const char *fmt, ...)
{
	char args[512], tb[32];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	int odd = rng_chance(&k->rng, 20);   /* "< 0.000017>" now and then */
	outf(k->o, "%s %s(%s)%s= %s <%s%" PRIu64 ".%06" PRIu64 ">\n", tod(tb, sizeof(tb), k->t),
	     lanl_names[c], args, sep, ret, odd ? " " : "", dur / 1000000, dur % 1000000);
	k->cnt[c]++;
	k->tot[c] += dur;
	k->t += dur + rng_range(&k->rng, 2, 40);
}

static uint64_t io_us(struct rng *r, uint64_t bytes, uint64_t mb_per_s)
{
	/* transfer time at mb_per_s, +-50 %, plus a few us of call overhead */
	uint64_t base = bytes / mb_per_s;  /* bytes / (MB/s) = us */
	return 5 + base / 2 + rng_below(r, base + 1);
}

/* lseek to off on fd 3: SYS_lseek below 2 GiB, SYS__llseek (raw args, i386)
 * above, as a 32-bit mpich would. */
static void lanl_seek(struct lanl_rank *k, uint64_t off)
{
	char ret[32];
	uint64_t d = rng_range(&k->rng, 2, 9);
	if (off < (1ull << 31)) {
		snprintf(ret, sizeof(ret), "%" PRIu64, off);
		lanl_line(k, LC_LSEEK, d, " ", ret, "3, %" PRIu64 ", 0", off);
	} else {
		uint32_t hi = (uint32_t)(off >> 32), lo = (uint32_t)off;
		char los[24];
		if (lo < 0x10000)
			snprintf(los, sizeof(los), "%u", lo);
		else
			snprintf(los, sizeof(los), "0x%x", lo);
		lanl_line(k, LC_LLSEEK, d, " ", "0", "3, %u, %s, 0xbfdfe3c8, 0", hi, los);
	}
}

static uint64_t lanl_offset(const struct lanl *L, unsigned r, uint64_t i)
{
	if (L->p->n_to_n)
		return i * L->size;
	if (L->p->strided)
		return (i * L->n + r) * L->size;
	return ((uint64_t)r * L->nobj + i) * L->size;
}

static void lanl_path(const struct lanl *L, char *buf, size_t len)
{
	/* N-to-1: 31 characters, under LANL-Trace's 32-character cut.
	 * N-to-N: per-rank names are longer than 32, so LANL-Trace prints
	 * them all as the same truncated string (the real data's quirk). */
	if (L->p->n_to_n)
		snprintf(buf, len, "\"%.32s\"...", "/scratch/mpi_io_test/N-to-N.out.00000");
	else
		snprintf(buf, len, "\"%s\"", "/scratch/mpi_io_test/N-to-1.out");
}

/* Phase k ends at a barrier: record when the rank got there, then leave
 * when the last rank arrived (known in the real run). */
static void lanl_barrier(struct lanl *L, struct lanl_rank *k, unsigned r, unsigned ph, uint64_t phase_start)
{
	if (!k->o->f) {
		L->dur[(size_t)r * LANL_NPHASE + ph] = k->t - phase_start;
		/* dry run: continue as if released at once; only durations matter */
		lanl_line(k, LC_MPI_BARRIER, 1, " ", "0", "0x44000000");
		return;
	}
	uint64_t exit_t = L->bar_exit[ph];
	uint64_t d = exit_t > k->t ? exit_t - k->t : 1;
	lanl_line(k, LC_MPI_BARRIER, d, " ", "0", "0x44000000");
}

/* Leave barrier ph: the draw happens in the dry run too, so both runs
 * consume the same random numbers. */
static void lanl_release(struct lanl *L, struct lanl_rank *k, unsigned ph, int dry)
{
	uint64_t j = rng_range(&k->rng, 2, 30);
	if (!dry)
		k->t = L->bar_exit[ph] + j;
}

static void lanl_rank(struct lanl *L, struct gout *o, unsigned r)
{
	struct lanl_rank K = { .o = o };
	struct lanl_rank *k = &K;
	char tb[32], path[64], data[160], ret[32];
	const int dry = !o->f;

	rng_init(&k->rng, L->p->seed, 1, r);
	k->t = L->start_us + rng_range(&k->rng, 20, 400);
	uint64_t ph_start = k->t;

	/* --- phase 0: MPI_File_open, nesting the syscalls it makes */
	uint64_t t_open = k->t;
	outf(o, "%s MPI_File_open(92, 0x80675c0, 37, 0x80675a8, 0xbfdfe5e4  <unfinished ...>\n",
	     tod(tb, sizeof(tb), k->t));
	k->t += rng_range(&k->rng, 300, 900);
	lanl_line(k, LC_STATFS, rng_range(&k->rng, 4000, 12000), "  ", "0",
		  "0x80675c0, 84, 0xbfdfe410, 0xbfdfe410, 0xbd3ff4");
	lanl_line(k, LC_OPEN, rng_range(&k->rng, 20, 60), " ", "3", "\"/etc/hosts\", 0, 0666");
	lanl_line(k, LC_FCNTL, rng_range(&k->rng, 10, 30), " ", "0", "3, 1, 0, 0, 0xbd3ff4");
	lanl_line(k, LC_CLOSE, rng_range(&k->rng, 10, 30), " ", "0", "3");
	lanl_path(L, path, sizeof(path));
	lanl_line(k, LC_OPEN, rng_range(&k->rng, 200, 3000), " ", "3", "%s, 66, 0600", path);
	lanl_line(k, LC_FCNTL, rng_range(&k->rng, 10, 30), " ", "0", "3, 2, 1, 0, 0xbd3ff4");
	{
		uint64_t d = k->t - t_open;
		outf(o, "%s <... MPI_File_open resumed> )  = 0 <%" PRIu64 ".%06" PRIu64 ">\n",
		     tod(tb, sizeof(tb), k->t), d / 1000000, d % 1000000);
		k->cnt[LC_MPI_OPEN]++;
		k->tot[LC_MPI_OPEN] += d;
		k->t += rng_range(&k->rng, 5, 50);
	}
	lanl_barrier(L, k, r, 0, ph_start);
	lanl_release(L, k, 0, dry);
	ph_start = k->t;

	/* --- phase 1: write nobj objects */
	memset(data, 'a' + (int)(r % 26), 32);
	data[32] = '\0';
	snprintf(ret, sizeof(ret), "%" PRIu64, L->size);
	for (uint64_t i = 0; i < L->nobj; i++) {
		lanl_seek(k, lanl_offset(L, r, i));
		lanl_line(k, LC_WRITE, io_us(&k->rng, L->size, 90), " ", ret,
			  "3, \"%s\"..., %" PRIu64, data, L->size);
		if (!dry) {
			L->sum->writes++;
			L->sum->bytes_written += L->size;
		}
	}
	lanl_barrier(L, k, r, 1, ph_start);
	lanl_release(L, k, 1, dry);
	ph_start = k->t;

	/* --- phase 2: read back (plus lanl-64k's re-read), close */
	uint64_t nreads = L->nobj + L->reread;
	for (uint64_t j = 0; j < nreads; j++) {
		uint64_t i = j < L->nobj ? j : j - L->nobj;
		lanl_seek(k, lanl_offset(L, r, i));
		lanl_line(k, LC_READ, io_us(&k->rng, L->size, 120), " ", ret,
			  "3, \"%s\"..., %" PRIu64, data, L->size);
		if (!dry) {
			L->sum->reads++;
			L->sum->bytes_read += L->size;
		}
	}
	{
		uint64_t t_close = k->t;
		outf(o, "%s MPI_File_close(0xbfdfe5e4 <unfinished ...>\n", tod(tb, sizeof(tb), k->t));
		k->t += rng_range(&k->rng, 20, 80);
		lanl_line(k, LC_CLOSE, rng_range(&k->rng, 20, 400), " ", "0", "3");
		uint64_t d = k->t - t_close;
		outf(o, "%s <... MPI_File_close resumed> )  = 0 <%" PRIu64 ".%06" PRIu64 ">\n",
		     tod(tb, sizeof(tb), k->t), d / 1000000, d % 1000000);
		k->cnt[LC_MPI_CLOSE]++;
		k->tot[LC_MPI_CLOSE] += d;
		k->t += rng_range(&k->rng, 5, 50);
	}
	lanl_barrier(L, k, r, 2, ph_start);
	L->end[r] = k->t;

	/* --- the summary table LANL-Trace appends */
	outf(o, "# SUMMARY COUNT OF TRACED CALL(S)\n");
	outf(o, "# Function Name Number of Calls Total time (s)\n");
	for (int c = 0; c < LC_N; c++)
		if (k->cnt[c])
			outf(o, " %s %" PRIu64 " %s\n", lanl_names[c], k->cnt[c], secs(tb, sizeof(tb), k->tot[c]));
}

static int open_out(const char *dir, const char *name, FILE **f)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	*f = fdopen(fd, "w");
	if (!*f) {
		int err = -errno;
		close(fd);
		return err;
	}
	return 0;
}

/* Flush, fsync and close; -errno on the first failure. */
static int close_out(FILE *f, int err)
{
	if (!f)
		return err;
	if (fflush(f) && !err)
		err = -errno;
	if (fsync(fileno(f)) && !err)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* Process ids, and when every rank leaves each barrier (a dry run of all
 * ranks tells when each gets there). */
static void lanl_schedule(struct lanl *L, struct rng *g)
{
	L->start_us = LANL_EPOCH_US + rng_below(g, 3600) * 1000000ull;
	/* pids grow with the rank, so file names sort in rank order */
	for (unsigned r = 0; r < L->n; r++)
		L->pid[r] = (r ? L->pid[r - 1] : 10000 + (unsigned)rng_below(g, 5000)) + 1 +
			    (unsigned)rng_below(g, 40);
	for (unsigned r = 0; r < L->n; r++) {
		struct gout dry = { 0 };
		lanl_rank(L, &dry, r);
	}
	uint64_t t = L->start_us;
	for (int ph = 0; ph < LANL_NPHASE; ph++) {
		uint64_t mx = 0;
		for (unsigned r = 0; r < L->n; r++) {
			uint64_t d = L->dur[(size_t)r * LANL_NPHASE + ph] + (ph == 0 ? 400 : 30);
			if (d > mx)
				mx = d;
		}
		t += mx + rng_range(g, 30, 200);
		L->bar_exit[ph] = t;
	}
}

/* Write dir/name with fill(ctx, o); counted in sum. */
static int lanl_file(const char *dir, const char *name, struct gen_summary *sum,
		     void (*fill)(void *ctx, struct gout *o), void *ctx, struct rerr *e)
{
	FILE *f = NULL;
	int err = open_out(dir, name, &f);

	if (err)
		return rerr_set(e, err, "cannot create '%s/%s': %s", dir, name, strerror(-err));
	struct gout o = { .f = f };
	fill(ctx, &o);
	sum->lines += o.lines;
	err = close_out(f, o.err);
	if (err)
		return rerr_set(e, err, "cannot write '%s/%s': %s", dir, name, strerror(-err));
	sum->files++;
	return 0;
}

struct lanl_fill {
	struct lanl *L;
	unsigned r;
	struct rng *g;
};

static void fill_rank(void *ctx, struct gout *o)
{
	struct lanl_fill *lf = ctx;
	lanl_rank(lf->L, o, lf->r);
}

/* One harness barrier of the timing file: every rank enters, then leaves
 * around exit_us. */
static void timing_barrier(struct lanl_fill *lf, struct gout *o, const char *when,
			   const uint64_t *in_us, uint64_t exit_us)
{
	const struct lanl *L = lf->L;
	char host[64], tb[32], tb2[32];

	outf(o, "# Barrier %s /mpi_io_test.exe \"-type\" \"%s\" \"-strided\" \"%d\" \"-size\" \"%" PRIu64
	     "\"  \"-nobj\" \"%" PRIu64 "\"\n", when, L->p->n_to_n ? "1" : "2", L->p->strided ? 1 : 0,
	     L->size, L->nobj);
	for (unsigned r = 0; r < L->n; r++) {
		uint64_t in = in_us ? in_us[r] + 10 : exit_us - rng_range(lf->g, 100, 5000);
		lanl_host(host, sizeof(host), r);
		outf(o, "%u: %s (%u) Entered barrier at %s\n", r, host, L->pid[r], secs(tb, sizeof(tb), in));
		outf(o, "%u: %s (%u) Exited barrier at %s\n", r, host, L->pid[r],
		     secs(tb2, sizeof(tb2), exit_us + rng_below(lf->g, 40)));
	}
}

/* The timing file: the harness barriers around the run. */
static void fill_timing(void *ctx, struct gout *o)
{
	struct lanl_fill *lf = ctx;
	const struct lanl *L = lf->L;
	uint64_t last = 0;

	timing_barrier(lf, o, "before", NULL, L->start_us - rng_range(lf->g, 50, 200));
	for (unsigned r = 0; r < L->n; r++)
		if (L->end[r] > last)
			last = L->end[r];
	timing_barrier(lf, o, "after", L->end, last + rng_range(lf->g, 50, 300));
}

static int gen_lanl(const struct gen_params *p, const struct gen_workload *w, const char *dir,
		    struct gen_summary *sum, struct rerr *e)
{
	struct lanl L = { .p = p, .n = ranks_of(p, w), .size = lanl_size(p, w),
			  .nobj = gen_lanl_objects(p), .reread = gen_lanl_rereads(p), .sum = sum };
	struct rng g;
	struct lanl_fill lf = { .L = &L, .g = &g };
	char name[128], host[64];
	int err = 0;

	L.dur = calloc((size_t)L.n * LANL_NPHASE, sizeof(*L.dur));
	L.end = calloc(L.n, sizeof(*L.end));
	L.pid = calloc(L.n, sizeof(*L.pid));
	if (!L.dur || !L.end || !L.pid) {
		err = rerr_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	rng_init(&g, p->seed, 0, 0);
	lanl_schedule(&L, &g);
	for (unsigned r = 0; r < L.n && !err; r++) {
		lanl_host(host, sizeof(host), r);
		snprintf(name, sizeof(name), "%s.%u.trace", host, L.pid[r]);
		lf.r = r;
		err = lanl_file(dir, name, sum, fill_rank, &lf, e);
	}
	if (err)
		goto out;
	sum->ranks = L.n;
	err = lanl_file(dir, "timing", sum, fill_timing, &lf, e);
out:
	free(L.dur);
	free(L.end);
	free(L.pid);
	return err;
}

/* ------------------------------------------------------------ Sandia */

#define SANDIA_EPOCH_US (1235106190ull * 1000000ull)

/*
 * Field names of the libsysio text.  Only fd(...), ziovec(base()len()) and
 * the ENTER/EXIT/time layout were seen in real files; the rest follow
 * libsysio's argument names and are what src/trace/sandia.c reads.
 */
#define SF_RET    "ret"      /* EXIT of open/close/lseek/ftruncate/ifsync   */
#define SF_IOID   "ioid"     /* EXIT of i*v/i*x, ENTER/EXIT of iowait        */
#define SF_BYTES  "cc"       /* EXIT of iowait: bytes transferred            */
#define SF_XTVEC  "xtvec"    /* i*x extents: xtvec(off(O)len(L))             */

struct sfile {
	int fd;
	uint64_t pos;       /* libsysio file position                      */
	uint64_t cur;       /* where the access pattern continues           */
	uint64_t end;       /* bytes written so far (readable extent)       */
	uint64_t size;      /* for read-only inputs: size of the file        */
};

struct srank {
	struct gout *o;
	struct rng rng;
	uint64_t t;
	uint64_t ioid;
	uint64_t R, W;
	struct gen_summary *sum;
};

static void s_ev(struct srank *k, int enter, const char *call, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void s_ev(struct srank *k, int enter, const char *call, const char *fmt, ...)
{
	char f[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f, sizeof(f), fmt, ap);
	va_end(ap);
	/* microseconds are not zero-padded in libsysio's text */
	outf(k->o, "tracetype(%s)time:(%" PRIu64 ")time:(%" PRIu64 ")str(%s)%s\n", enter ? "ENTER" : "EXIT",
	     k->t / 1000000, k->t % 1000000, call, f);
}

static void s_tick(struct srank *k, uint64_t lo, uint64_t hi)
{
	k->t += rng_range(&k->rng, lo, hi);
}

static void s_open(struct srank *k, struct sfile *sf, const char *path, int flags, unsigned mode)
{
	s_ev(k, 1, "open", "path(%s)flags(%d)mode(%#o)", path, flags, mode);
	s_tick(k, 30, 2000);
	s_ev(k, 0, "open", SF_RET "(%d)", sf->fd);
	s_tick(k, 5, 60);
	sf->pos = 0;
}

static void s_close(struct srank *k, struct sfile *sf)
{
	s_ev(k, 1, "close", "fd(%d)", sf->fd);
	s_tick(k, 10, 300);
	s_ev(k, 0, "close", SF_RET "(0)");
	s_tick(k, 5, 60);
}

static void s_lseek(struct srank *k, struct sfile *sf, uint64_t off)
{
	s_ev(k, 1, "lseek", "fd(%d)offset(%" PRIu64 ")whence(0)", sf->fd, off);
	s_tick(k, 2, 10);
	s_ev(k, 0, "lseek", SF_RET "(%" PRIu64 ")", off);
	s_tick(k, 2, 30);
	sf->pos = off;
}

/* Split len into 1..3 iovecs, printed as libsysio does. */
static void s_iovecs(struct srank *k, char *buf, size_t cap, uint64_t len)
{
	unsigned n = len >= 4096 && rng_chance(&k->rng, 200) ? (unsigned)rng_range(&k->rng, 2, 3) : 1;
	uint64_t left = len;
	size_t used = 0;
	for (unsigned i = 0; i < n && used < cap; i++) {
		uint64_t part = i + 1 == n ? left : rng_range(&k->rng, 1, left - (n - 1 - i));
		left -= part;
		uint64_t base = 0x30000000ull + (rng_below(&k->rng, 0x8000000) & ~0xFull);
		used += (size_t)snprintf(buf + used, cap - used, "ziovec(base(0x%08" PRIX64 ")len(%" PRIu64 "))",
					 base, part);
	}
}

/*
 * One data transfer of len bytes at off: ireadv/iwritev at the position
 * (after an lseek when off is elsewhere), or ireadx/iwritex with an
 * explicit extent (use_x), then the iowait that returns the byte count.
 */
static void s_io(struct srank *k, struct sfile *sf, int is_write, uint64_t off, uint64_t len, int use_x)
{
	char iov[256];
	const char *call;
	uint64_t id = k->ioid++;

	if (!use_x && off != sf->pos)
		s_lseek(k, sf, off);
	s_iovecs(k, iov, sizeof(iov), len);
	if (use_x) {
		call = is_write ? "iwritex" : "ireadx";
		s_ev(k, 1, call, "fd(%d)%s" SF_XTVEC "(off(%" PRIu64 ")len(%" PRIu64 "))", sf->fd, iov, off, len);
	} else {
		call = is_write ? "iwritev" : "ireadv";
		s_ev(k, 1, call, "fd(%d)%s", sf->fd, iov);
		sf->pos = off + len;
	}
	s_tick(k, 3, 40);
	s_ev(k, 0, call, SF_IOID "(0x%" PRIX64 ")", id);
	s_tick(k, 1, 20);
	s_ev(k, 1, "iowait", SF_IOID "(0x%" PRIX64 ")", id);
	k->t += io_us(&k->rng, len, is_write ? 60 : 90);
	s_ev(k, 0, "iowait", SF_IOID "(0x%" PRIX64 ")" SF_BYTES "(%" PRIu64 ")", id, len);
	s_tick(k, 5, 400);
	if (is_write) {
		k->W += len;
		if (off + len > sf->end)
			sf->end = off + len;
		if (k->o->f) {
			k->sum->writes++;
			k->sum->bytes_written += len;
		}
	} else {
		k->R += len;
		if (k->o->f) {
			k->sum->reads++;
			k->sum->bytes_read += len;
		}
	}
}

/* Irregular request sizes: from under 1 KiB up to 2 MiB, not aligned.
 * weights[i] (per mille) for buckets <1K, 1K-64K, 64K-1M, 1M-2M. */
static uint64_t irregular_size(struct rng *r, const unsigned weights[4])
{
	unsigned u = (unsigned)rng_below(r, 1000);
	unsigned lo_bit, hi_bit;
	if (u < weights[0])
		return rng_range(r, 16, 1023);
	u -= weights[0];
	if (u < weights[1]) {
		lo_bit = 10; hi_bit = 16;
	} else if (u < weights[1] + weights[2]) {
		lo_bit = 16; hi_bit = 20;
	} else {
		return rng_range(r, 1u << 20, 2u << 20);
	}
	unsigned b = (unsigned)rng_range(r, lo_bit, hi_bit - 1);
	return (1ull << b) + rng_below(r, 1ull << b);
}

struct sapp {
	const char *name;
	unsigned read_pm;        /* target read share by bytes, per mille    */
	unsigned sizes[4];       /* irregular_size weights                   */
	unsigned jump_pm;        /* chance a request breaks the sequence     */
	unsigned x_pm;           /* chance of ireadx/iwritex                 */
	unsigned readback_pm;    /* chance a read goes to the output file    */
	uint64_t base_ops;       /* requests per rank at scale 1             */
};

static const struct sapp app_alegra = { "alegra", 140, { 300, 350, 280, 70 }, 450, 300, 300, 400 };
static const struct sapp app_cth    = { "cth",    670, { 250, 400, 290, 60 }, 500, 150, 200, 400 };

/* A sequential run, a jump back, or a jump forward. */
static uint64_t s_next_off(struct srank *k, const struct sapp *a, uint64_t cur, uint64_t limit, uint64_t len)
{
	if (!rng_chance(&k->rng, a->jump_pm) || limit <= len)
		return cur + len <= limit ? cur : 0;
	uint64_t span = limit - len;
	return rng_below(&k->rng, span / 512 + 1) * 512 + (rng_chance(&k->rng, 300) ? rng_below(&k->rng, 512) : 0);
}

static void sandia_irregular(struct srank *k, const struct sapp *a, const struct gen_params *p, unsigned r)
{
	char path[128];
	uint64_t nops = scaled(p->scale, a->base_ops, 8);
	/* the shared input is big enough for all the ranks' reads to wander */
	uint64_t insize = nops * 64 * 1024;
	if (insize < (1u << 20))
		insize = 1u << 20;
	if (insize > (1ull << 30))
		insize = 1ull << 30;
	struct sfile in = { .fd = 3, .size = insize }, out = { .fd = 4 };
	const uint64_t f_pm = a->read_pm;

	snprintf(path, sizeof(path), "/scratch/%s/input.%s", a->name, a->name == app_cth.name ? "rst" : "gen");
	s_open(k, &in, path, 0, 0);
	snprintf(path, sizeof(path), "/scratch/%s/%s.out.%04u", a->name, a->name, r);
	s_open(k, &out, path, 578, 0644);   /* O_RDWR|O_CREAT|O_TRUNC */

	for (uint64_t i = 0; i < nops; i++) {
		uint64_t len = irregular_size(&k->rng, a->sizes);
		int use_x = rng_chance(&k->rng, a->x_pm);
		/* read when the running read share (by bytes) is below target */
		int do_read = k->R * 1000 < f_pm * (k->R + k->W);
		if (do_read) {
			struct sfile *sf = &in;
			uint64_t limit = in.size;
			if (out.end > len && rng_chance(&k->rng, a->readback_pm)) {
				sf = &out;
				limit = out.end;
			}
			if (len > limit)
				len = limit;
			uint64_t off = s_next_off(k, a, sf->cur, limit, len);
			s_io(k, sf, 0, off, len, use_x);
			sf->cur = off + len;
		} else {
			uint64_t off = out.cur;
			if (out.end > 4096 && rng_chance(&k->rng, a->jump_pm / 2)) {
				/* rewrite something already written: a header or a block */
				off = rng_chance(&k->rng, 500) ? rng_below(&k->rng, 8) * 512
							       : rng_below(&k->rng, out.end / 512) * 512;
			} else if (rng_chance(&k->rng, a->jump_pm / 4)) {
				off = out.end + rng_below(&k->rng, 64) * 512;   /* skip ahead */
			}
			s_io(k, &out, 1, off, len, use_x);
			out.cur = off + len;
			if (rng_chance(&k->rng, 15)) {
				s_ev(k, 1, "ifsync", "fd(%d)", out.fd);
				k->t += rng_range(&k->rng, 500, 20000);
				s_ev(k, 0, "ifsync", SF_RET "(0)");
				s_tick(k, 5, 50);
			}
		}
	}
	/* top up so that R / (R + W) is the target exactly (to a byte) */
	if (f_pm > 0) {
		/* want R * (1000 - f) == f * W */
		uint64_t lhs = k->R * (1000 - f_pm), rhs = f_pm * k->W;
		if (lhs < rhs) {
			uint64_t need = (rhs - lhs + (1000 - f_pm) - 1) / (1000 - f_pm);
			while (need > 0) {
				uint64_t len = irregular_size(&k->rng, a->sizes);
				if (len > need)
					len = need;
				if (in.cur + len > in.size)
					in.cur = 0;
				s_io(k, &in, 0, in.cur, len, 0);
				in.cur += len;
				need -= len;
			}
		} else if (lhs > rhs) {
			uint64_t need = (lhs - rhs + f_pm - 1) / f_pm;
			while (need > 0) {
				uint64_t len = irregular_size(&k->rng, a->sizes);
				if (len > need)
					len = need;
				s_io(k, &out, 1, out.end, len, 0);
				need -= len;
			}
		}
	}
	s_ev(k, 1, "ftruncate", "fd(%d)length(%" PRIu64 ")", out.fd, out.end);
	s_tick(k, 20, 200);
	s_ev(k, 0, "ftruncate", SF_RET "(0)");
	s_tick(k, 5, 50);
	s_close(k, &in);
	s_close(k, &out);
}

/* S3D I/O kernel: each checkpoint a new file per rank, written in order,
 * 1 MiB at a time. */
#define S3D_RECORD (1u << 20)
#define S3D_WRITES 8
static void sandia_s3d(struct srank *k, const struct gen_params *p, unsigned r)
{
	char path[128];
	uint64_t nckpt = scaled(p->scale, 4, 1);
	for (uint64_t c = 0; c < nckpt; c++) {
		struct sfile out = { .fd = 3 };
		snprintf(path, sizeof(path), "/scratch/s3d/data/field.%06" PRIu64 ".%05u", (c + 1) * 20, r);
		s_open(k, &out, path, 577, 0644);   /* O_WRONLY|O_CREAT|O_TRUNC */
		for (unsigned i = 0; i < S3D_WRITES; i++)
			s_io(k, &out, 1, (uint64_t)i * S3D_RECORD, S3D_RECORD, 0);
		s_close(k, &out);
		k->t += rng_range(&k->rng, 200000, 2000000);   /* compute between dumps */
	}
}

static int gen_sandia(const struct gen_params *p, const struct gen_workload *w, FILE *f,
		      struct gen_summary *sum)
{
	unsigned n = ranks_of(p, w);
	struct gout o = { .f = f };
	struct rng g;
	rng_init(&g, p->seed, 2, wl_of(w));
	uint64_t t0 = SANDIA_EPOCH_US + rng_below(&g, 86400) * 1000000ull;
	for (unsigned r = 0; r < n; r++) {
		struct srank k = { .o = &o, .sum = sum, .ioid = 0x1000 + r * 0x100000ull };
		rng_init(&k.rng, p->seed, 3 + wl_of(w), r);
		k.t = t0 + rng_range(&k.rng, 100, 50000);
		outf(&o, "header app(%s)nprocs(%u)rank(%u)headernode(%u.%u)\n", w->name, n, r,
		     1000 + r, 2000 + (unsigned)rng_below(&g, 60000));
		switch (wl_of(w)) {
		case WL_ALEGRA: sandia_irregular(&k, &app_alegra, p, r); break;
		case WL_CTH:    sandia_irregular(&k, &app_cth, p, r); break;
		default:        sandia_s3d(&k, p, r); break;
		}
		if (o.err)
			break;
	}
	sum->ranks = n;
	sum->lines += o.lines;
	return o.err;
}

/* ------------------------------------------------------------ strace */

#define STRACE_EPOCH_US (1795296201ull * 1000000ull)

struct scall {
	const char *name;
	char pre[512];      /* arguments known at entry (with ", " if more follow) */
	char post[512];     /* arguments printed at exit (read buffers, rest)     */
	char ret[64];
	uint64_t dur;
	uint64_t think;     /* compute time after the call (us; 0: a short gap)    */
	int spawn;          /* process index started by this call, or -1          */
};

enum { SP_IDLE, SP_READY, SP_INCALL, SP_WAITING, SP_EXITING, SP_DONE };

struct sproc {
	int64_t pid;
	int state;
	uint64_t t;         /* next event */
	int parent;         /* index, -1 none */
	int is_thread;
	unsigned live;      /* children not yet exited */
	uint64_t step;      /* program counter of the workload */
	uint64_t aux;
	struct rng rng;
	struct scall c;
};

struct sgen;
typedef int (*sprog_fn)(struct sgen *g, int i, struct scall *c);

struct sgen {
	const struct gen_params *p;
	struct gout *o;
	struct gen_summary *sum;
	struct sproc *pr;
	unsigned np;
	sprog_fn prog;
	/* workload data */
	uint64_t n_ops;      /* per process */
	uint64_t items;      /* seek-chain entries / zipf items */
	char path[128];
	char guid[64][33];
	/* seek-chain permutation */
	unsigned fbits;
	uint64_t fkey[4];
	/* zipf */
	double zetan, theta, alpha, eta;
};

static void sc_set(struct scall *c, const char *name, uint64_t dur, const char *ret)
{
	c->name = name;
	c->dur = dur;
	c->think = 0;
	c->spawn = -1;
	c->pre[0] = c->post[0] = '\0';
	snprintf(c->ret, sizeof(c->ret), "%s", ret);
}

static void s_line(struct sgen *g, int i, uint64_t t, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void s_line(struct sgen *g, int i, uint64_t t, const char *fmt, ...)
{
	char body[1400], tb[32];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	outf(g->o, "%-5" PRId64 " %s %s\n", g->pr[i].pid, tod(tb, sizeof(tb), t), body);
}

static void s_count(struct sgen *g, int is_write, uint64_t n)
{
	if (is_write) {
		g->sum->writes++;
		g->sum->bytes_written += n;
	} else {
		g->sum->reads++;
		g->sum->bytes_read += n;
	}
}

/* seq-writer: open, N x write 1 KiB, close, unlink (Java's temp file). */
static int prog_seqwriter(struct sgen *g, int i, struct scall *c)
{
	struct sproc *P = &g->pr[i];
	char q[200];
	uint64_t s = P->step++;
	if (s == 0) {
		sc_set(c, "openat", rng_range(&P->rng, 20, 90), "3");
		snprintf(c->pre, sizeof(c->pre), "AT_FDCWD, \"%s\", O_WRONLY|O_CREAT|O_TRUNC, 0666", g->path);
		return 1;
	}
	if (s <= g->n_ops) {
		/* page cache copy; now and then writeback throttling stalls it */
		uint64_t d = rng_chance(&P->rng, 2) ? rng_range(&P->rng, 1000, 30000) : rng_range(&P->rng, 3, 12);
		sc_set(c, "write", d, "1024");
		quote_random(q, sizeof(q), &P->rng);
		snprintf(c->pre, sizeof(c->pre), "3, \"%s\"..., 1024", q);
		s_count(g, 1, 1024);
		return 1;
	}
	if (s == g->n_ops + 1) {
		sc_set(c, "close", rng_range(&P->rng, 5, 40), "0");
		snprintf(c->pre, sizeof(c->pre), "3");
		return 1;
	}
	if (s == g->n_ops + 2) {
		sc_set(c, "unlink", rng_range(&P->rng, 50, 3000), "0");
		snprintf(c->pre, sizeof(c->pre), "\"%s\"", g->path);
		return 1;
	}
	return 0;
}

/* A keyed bijection of [0, items): a 4-round Feistel network on the next
 * even power of two, cycle-walking back into range. */
static uint64_t feistel_round(uint64_t x, uint64_t key, unsigned half)
{
	return mix64(x ^ key) & ((1ull << half) - 1);
}

static uint64_t chain_perm(const struct sgen *g, uint64_t x)
{
	unsigned half = g->fbits / 2;
	uint64_t mask = (1ull << half) - 1;
	do {
		uint64_t L = x >> half, R = x & mask;
		for (int r = 0; r < 4; r++) {
			uint64_t nl = R;
			R = L ^ feistel_round(R, g->fkey[r], half);
			L = nl;
		}
		x = (L << half) | R;
	} while (x >= g->items);
	return x;
}

/* Entry index of id k (0 .. items): id 0 is entry 0, id k >= 1 the shuffled
 * position + 1, as in the article's writeLinkedFile(). */
static uint64_t chain_entry(const struct sgen *g, uint64_t id)
{
	return id == 0 ? 0 : chain_perm(g, id - 1) + 1;
}

/* seek-chain: follow the list: lseek to the entry, read it (1 KiB). */
static int prog_seekchain(struct sgen *g, int i, struct scall *c)
{
	struct sproc *P = &g->pr[i];
	uint64_t s = P->step++;
	if (s == 0) {
		sc_set(c, "openat", rng_range(&P->rng, 20, 90), "3");
		snprintf(c->pre, sizeof(c->pre), "AT_FDCWD, \"%s\", O_RDONLY", g->path);
		return 1;
	}
	uint64_t nsteps = 2 * (g->items + 1);
	if (s <= nsteps) {
		uint64_t id = (s - 1) / 2;
		uint64_t off = chain_entry(g, id) * 1024;
		if ((s - 1) % 2 == 0) {
			sc_set(c, "lseek", rng_range(&P->rng, 2, 6), "");
			snprintf(c->ret, sizeof(c->ret), "%" PRIu64, off);
			snprintf(c->pre, sizeof(c->pre), "3, %" PRIu64 ", SEEK_SET", off);
		} else {
			/* the entry: int id, long next offset (big-endian), padding */
			uint8_t b[32] = { 0 };
			int64_t next = id == g->items ? -1 : (int64_t)(chain_entry(g, id + 1) * 1024);
			for (int j = 0; j < 4; j++)
				b[j] = (uint8_t)(id >> (24 - 8 * j));
			for (int j = 0; j < 8; j++)
				b[4 + j] = (uint8_t)((uint64_t)next >> (56 - 8 * j));
			char q[200];
			quote_bytes(q, sizeof(q), b, sizeof(b));
			uint64_t d = rng_chance(&P->rng, 50) ? rng_range(&P->rng, 2, 8) : rng_range(&P->rng, 80, 400);
			sc_set(c, "read", d, "1024");
			snprintf(c->pre, sizeof(c->pre), "3, ");
			snprintf(c->post, sizeof(c->post), "\"%s\"..., 1024", q);
			s_count(g, 0, 1024);
		}
		return 1;
	}
	if (s == nsteps + 1) {
		sc_set(c, "close", rng_range(&P->rng, 5, 40), "0");
		snprintf(c->pre, sizeof(c->pre), "3");
		return 1;
	}
	return 0;
}

/* mkdir(path, mode) */
static void sc_mkdir(struct sproc *P, struct scall *c, const char *path, const char *mode)
{
	sc_set(c, "mkdir", rng_range(&P->rng, 20, 200), "0");
	snprintf(c->pre, sizeof(c->pre), "\"%s\", %s", path, mode);
}

/* fork(): a clone of process `child`, which starts when it returns. */
static void sc_fork(struct sgen *g, struct sproc *P, struct scall *c, unsigned child)
{
	sc_set(c, "clone", rng_range(&P->rng, 80, 400), "");
	snprintf(c->ret, sizeof(c->ret), "%" PRId64, g->pr[child].pid);
	snprintf(c->pre, sizeof(c->pre),
		 "child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
		 "child_tidptr=0x7f3a9c1e2a10");
	c->spawn = (int)child;
}

/* writers-32: process 0 makes the directories and forks; each writer
 * writes files file<k % 64>.bin of 1 MiB in 64 KiB writes. */
#define WR_FILE   (1u << 20)
#define WR_BUF    65536u
#define WR_MAXF   64u
static int prog_writers(struct sgen *g, int i, struct scall *c)
{
	struct sproc *P = &g->pr[i];
	uint64_t s = P->step++;
	unsigned nw = g->np - 1;
	if (i == 0) {
		if (s == 0) {
			sc_mkdir(P, c, "/tmp/DiskPerf", "0777");
			return 1;
		}
		if (s <= nw) {
			char d[64];
			snprintf(d, sizeof(d), "/tmp/DiskPerf/%s", g->guid[(s - 1) % 64]);
			sc_mkdir(P, c, d, "0777");
			return 1;
		}
		if (s <= 2 * (uint64_t)nw) {
			sc_fork(g, P, c, (unsigned)(s - nw));
			return 1;
		}
		if (s == 2 * (uint64_t)nw + 1)
			return 2;   /* wait for the children */
		if (s <= 3 * (uint64_t)nw + 1) {
			unsigned child = (unsigned)(s - 2 * nw - 1);
			sc_set(c, "wait4", rng_range(&P->rng, 2, 20), "");
			snprintf(c->ret, sizeof(c->ret), "%" PRId64, g->pr[child].pid);
			snprintf(c->pre, sizeof(c->pre), "-1, ");
			snprintf(c->post, sizeof(c->post), "[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL");
			return 1;
		}
		return 0;
	}
	/* a writer: per file: openat, flock, 16 writes, close */
	const uint64_t per = WR_FILE / WR_BUF + 3;
	uint64_t fi = s / per, k = s % per;
	if (fi >= g->n_ops)
		return 0;
	if (k == 0) {
		sc_set(c, "openat", rng_range(&P->rng, 30, 300), "3");
		snprintf(c->pre, sizeof(c->pre), "AT_FDCWD, \"/tmp/DiskPerf/%s/file%" PRIu64 ".bin\", "
			 "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666", g->guid[(i - 1) % 64], fi % WR_MAXF);
		return 1;
	}
	if (k == 1) {
		sc_set(c, "flock", rng_range(&P->rng, 2, 10), "0");
		snprintf(c->pre, sizeof(c->pre), "3, LOCK_EX|LOCK_NB");
		return 1;
	}
	if (k < per - 1) {
		char q[200];
		quote_random(q, sizeof(q), &P->rng);
		uint64_t d = rng_chance(&P->rng, 20) ? rng_range(&P->rng, 2000, 40000) : rng_range(&P->rng, 25, 120);
		sc_set(c, "write", d, "65536");
		snprintf(c->pre, sizeof(c->pre), "3, \"%s\"..., 65536", q);
		s_count(g, 1, WR_BUF);
		return 1;
	}
	sc_set(c, "close", rng_range(&P->rng, 5, 60), "0");
	snprintf(c->pre, sizeof(c->pre), "3");
	return 1;
}

/* checkpoint: process 0 makes the directory and forks; each rank, per
 * step: open, 16 x 64 KiB writes, fsync, close of ckpt/rank<r>.<step>,
 * then 50 ms (+-5) of compute before the next step, which shows as the
 * gap after the close (think time). */
#define CK_STEPS  10u
#define CK_WRITES 16u
static int prog_checkpoint(struct sgen *g, int i, struct scall *c)
{
	struct sproc *P = &g->pr[i];
	uint64_t s = P->step++;
	unsigned nw = g->np - 1;
	if (i == 0) {
		if (s == 0) {
			sc_mkdir(P, c, "/scratch/ckpt", "0755");
			return 1;
		}
		if (s <= nw) {
			sc_fork(g, P, c, (unsigned)s);
			return 1;
		}
		if (s == nw + 1)
			return 2;
		return 0;
	}
	const uint64_t per = CK_WRITES + 3;      /* open, writes, fsync, close */
	uint64_t step = s / per, k = s % per;
	if (step >= g->n_ops)
		return 0;
	if (k == 0) {
		sc_set(c, "openat", rng_range(&P->rng, 30, 200), "3");
		snprintf(c->pre, sizeof(c->pre), "AT_FDCWD, \"/scratch/ckpt/rank%d.%" PRIu64 "\", "
			 "O_WRONLY|O_CREAT|O_TRUNC, 0644", i - 1, step);
		return 1;
	}
	if (k <= CK_WRITES) {
		char q[200];
		quote_random(q, sizeof(q), &P->rng);
		sc_set(c, "pwrite64", rng_range(&P->rng, 30, 90), "65536");
		snprintf(c->pre, sizeof(c->pre), "3, \"%s\"..., 65536, %" PRIu64, q, (k - 1) * 65536);
		s_count(g, 1, 65536);
		return 1;
	}
	if (k == CK_WRITES + 1) {
		sc_set(c, "fsync", rng_range(&P->rng, 800, 3000), "0");
		snprintf(c->pre, sizeof(c->pre), "3");
		return 1;
	}
	sc_set(c, "close", rng_range(&P->rng, 5, 40), "0");
	snprintf(c->pre, sizeof(c->pre), "3");
	c->think = rng_range(&P->rng, 45000, 55000);   /* the next step's compute */
	return 1;
}

/* zipf-reads: the main thread opens the file and starts the threads; each
 * thread reads 1 KiB items picked by a scrambled Zipfian (YCSB: Gray's
 * Zipfian, theta 0.99, then an FNV-1a hash of the rank). */
static uint64_t fnv1a64(uint64_t v)
{
	uint64_t h = 0xCBF29CE484222325ull;
	for (int i = 0; i < 8; i++) {
		h ^= v & 0xff;
		h *= 1099511628211ull;
		v >>= 8;
	}
	return h;
}

static void zipf_init(struct sgen *g)
{
	double z = 0;
	g->theta = 0.99;
	for (uint64_t i = 1; i <= g->items; i++)
		z += 1.0 / pow((double)i, g->theta);
	g->zetan = z;
	double zeta2 = 1.0 + 1.0 / pow(2.0, g->theta);
	g->alpha = 1.0 / (1.0 - g->theta);
	g->eta = (1.0 - pow(2.0 / (double)g->items, 1.0 - g->theta)) / (1.0 - zeta2 / g->zetan);
}

static uint64_t zipf_next(const struct sgen *g, struct rng *r)
{
	double u = rng_unit(r), uz = u * g->zetan;
	uint64_t v;
	if (uz < 1.0)
		v = 0;
	else if (uz < 1.0 + pow(0.5, g->theta))
		v = 1;
	else
		v = (uint64_t)((double)g->items * pow(g->eta * u - g->eta + 1.0, g->alpha));
	if (v >= g->items)
		v = g->items - 1;
	return fnv1a64(v) % g->items;
}

static int prog_zipf(struct sgen *g, int i, struct scall *c)
{
	struct sproc *P = &g->pr[i];
	uint64_t s = P->step++;
	unsigned nt = g->np - 1;
	if (i == 0) {
		if (s == 0) {
			sc_set(c, "openat", rng_range(&P->rng, 20, 90), "3");
			snprintf(c->pre, sizeof(c->pre), "AT_FDCWD, \"%s\", O_RDONLY|O_CLOEXEC", g->path);
			return 1;
		}
		if (s <= nt) {
			struct sproc *T = &g->pr[s];
			sc_set(c, "clone3", rng_range(&P->rng, 40, 120), "");
			snprintf(c->ret, sizeof(c->ret), "%" PRId64, T->pid);
			snprintf(c->pre, sizeof(c->pre),
				 "{flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|"
				 "CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f0a%08" PRIx64
				 ", parent_tid=0x7f0a%08" PRIx64 ", exit_signal=0, stack=0x7f0a%08" PRIx64
				 ", stack_size=0x7fff80, tls=0x7f0a%08" PRIx64 "} => {parent_tid=[%" PRId64 "]}, 88",
				 0x1e000990 + s * 0x800000, 0x1e000990 + s * 0x800000, 0x1d800000 + s * 0x800000,
				 0x1e0006c0 + s * 0x800000, T->pid);
			c->spawn = (int)s;
			return 1;
		}
		if (s == nt + 1)
			return 2;
		if (s == nt + 2) {
			sc_set(c, "close", rng_range(&P->rng, 5, 40), "0");
			snprintf(c->pre, sizeof(c->pre), "3");
			return 1;
		}
		return 0;
	}
	if (s >= g->n_ops)
		return 0;
	uint64_t off = zipf_next(g, &P->rng) * 1024;
	char q[200];
	quote_random(q, sizeof(q), &P->rng);
	/* hot items come from the cache, cold ones from the device */
	uint64_t d = rng_chance(&P->rng, 600) ? rng_range(&P->rng, 2, 9) : rng_range(&P->rng, 60, 500);
	sc_set(c, "pread64", d, "1024");
	snprintf(c->pre, sizeof(c->pre), "3, ");
	snprintf(c->post, sizeof(c->post), "\"%s\"..., 1024, %" PRIu64, q, off);
	s_count(g, 0, 1024);
	return 1;
}

static void s_finish(struct sgen *g, int i, uint64_t t_end)
{
	struct sproc *P = &g->pr[i];
	if (P->c.spawn >= 0) {
		struct sproc *C = &g->pr[P->c.spawn];
		C->state = SP_READY;
		C->t = t_end + rng_range(&P->rng, 20, 300);
		P->live++;
	}
	P->state = SP_READY;
	P->t = t_end + (P->c.think ? P->c.think : rng_range(&P->rng, 2, 30));
}

/* exit_group / exit at P->t; "+++ exited" comes as the process's next event. */
static void s_exit_call(struct sgen *g, int i)
{
	struct sproc *P = &g->pr[i];
	if (P->is_thread)
		s_line(g, i, P->t, "exit(0)                                 = ?");
	else
		s_line(g, i, P->t, "exit_group(0)                           = ?");
	P->t += rng_range(&P->rng, 10, 100);
	P->state = SP_EXITING;
}

static void s_exited(struct sgen *g, int i)
{
	struct sproc *P = &g->pr[i];
	s_line(g, i, P->t, "+++ exited with 0 +++");
	P->state = SP_DONE;
	if (P->parent >= 0) {
		struct sproc *Q = &g->pr[P->parent];
		if (!P->is_thread)
			s_line(g, P->parent, P->t,
			       "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=%" PRId64
			       ", si_uid=0, si_status=0, si_utime=0, si_stime=0} ---", P->pid);
		if (Q->live)
			Q->live--;
		if (Q->state == SP_WAITING && Q->live == 0) {
			Q->state = SP_READY;
			if (Q->t < P->t + 5)
				Q->t = P->t + 5;
		}
	}
}

static void s_emit_whole(struct sgen *g, int i, uint64_t t)
{
	struct scall *c = &g->pr[i].c;
	s_line(g, i, t, "%s(%s%s) = %s <%" PRIu64 ".%06" PRIu64 ">", c->name, c->pre, c->post, c->ret,
	       c->dur / 1000000, c->dur % 1000000);
}

/* The workload's program and parameters (draws from g in a fixed order). */
static void strace_setup(struct sgen *G, enum wl_id id, unsigned n, struct rng *g)
{
	const struct gen_params *p = G->p;

	switch (id) {
	case WL_SEQWRITER:
		G->np = 1;
		G->prog = prog_seqwriter;
		G->n_ops = scaled(p->scale, 65536, 1);
		snprintf(G->path, sizeof(G->path), "/tmp/tmp%019" PRIu64 ".tmp",
			 rng_next(g) % UINT64_C(10000000000000000000));
		break;
	case WL_SEEKCHAIN:
		G->np = 1;
		G->prog = prog_seekchain;
		G->items = scaled(p->scale, 262144, 2);
		for (G->fbits = 2; (1ull << G->fbits) < G->items; G->fbits += 2)
			;
		for (int k = 0; k < 4; k++)
			G->fkey[k] = rng_next(g);
		snprintf(G->path, sizeof(G->path), "/data/linked.bin");
		break;
	case WL_WRITERS:
		G->np = n + 1;
		G->prog = prog_writers;
		G->n_ops = scaled(p->scale, WR_MAXF, 1);   /* files per writer */
		for (unsigned k = 0; k < 64; k++)
			snprintf(G->guid[k], sizeof(G->guid[k]), "%016" PRIx64 "%016" PRIx64,
				 rng_next(g), rng_next(g));
		break;
	case WL_CHECKPOINT:
		G->np = n + 1;
		G->prog = prog_checkpoint;
		G->n_ops = scaled(p->scale, CK_STEPS, 1);   /* checkpoints per rank */
		break;
	default: /* WL_ZIPF */
		G->np = n + 1;
		G->prog = prog_zipf;
		G->n_ops = scaled(p->scale, 16384, 1);     /* reads per thread */
		G->items = scaled(p->scale, 1048576, 1024);
		if (G->items > (1ull << 28))
			G->items = 1ull << 28;
		zipf_init(G);
		snprintf(G->path, sizeof(G->path), "/data/zipf/values.dat");
		break;
	}
}

/* The processes (or threads): pids, parent, own PRNG stream; only the
 * first is ready at the start. */
static void strace_procs(struct sgen *G, enum wl_id id, struct rng *g)
{
	uint64_t t0 = STRACE_EPOCH_US + rng_below(g, 3600) * 1000000ull;
	int64_t pid0 = 3000 + (int64_t)rng_below(g, 20000);

	for (unsigned i = 0; i < G->np; i++) {
		struct sproc *P = &G->pr[i];
		P->pid = pid0 + i * (id == WL_ZIPF ? 1 : 1 + (int64_t)rng_below(g, 3));
		if (i > 0)
			P->pid = G->pr[i - 1].pid + 1 + (int64_t)rng_below(g, id == WL_ZIPF ? 1 : 3);
		P->parent = i == 0 ? -1 : 0;
		P->is_thread = id == WL_ZIPF && i > 0;
		P->state = i == 0 ? SP_READY : SP_IDLE;
		P->t = t0;
		rng_init(&P->rng, G->p->seed, 5 + id, i);
	}
}

static bool s_active(const struct sproc *P)
{
	return P->state == SP_READY || P->state == SP_INCALL || P->state == SP_EXITING;
}

/* The active process with the earliest next event, or -1 when none. */
static int s_earliest(const struct sgen *G)
{
	int best = -1;

	for (unsigned i = 0; i < G->np; i++)
		if (s_active(&G->pr[i]) && (best < 0 || G->pr[i].t < G->pr[best].t))
			best = (int)i;
	return best;
}

/* Does another process have an event before t_end? */
static bool s_other_before(const struct sgen *G, int best, uint64_t t_end)
{
	for (unsigned i = 0; i < G->np; i++)
		if ((int)i != best && s_active(&G->pr[i]) && G->pr[i].t < t_end)
			return true;
	return false;
}

/* The next event of process `best`: its exit, the end of its call, or
 * its next call (whole, or unfinished when another process has an event
 * before it returns, as strace prints it). */
static void strace_step(struct sgen *G, int best)
{
	struct sproc *P = &G->pr[best];

	if (P->state == SP_EXITING) {
		s_exited(G, best);
		return;
	}
	if (P->state == SP_INCALL) {
		s_line(G, best, P->t, "<... %s resumed>%s) = %s <%" PRIu64 ".%06" PRIu64 ">", P->c.name,
		       P->c.post, P->c.ret, P->c.dur / 1000000, P->c.dur % 1000000);
		s_finish(G, best, P->t);
		return;
	}
	int r = G->prog(G, best, &P->c);
	if (r == 0) {
		s_exit_call(G, best);
		return;
	}
	if (r == 2) {
		if (P->live)
			P->state = SP_WAITING;   /* else nothing to wait for: next step */
		return;
	}
	uint64_t t = P->t, t_end = t + P->c.dur;
	if (s_other_before(G, best, t_end)) {
		s_line(G, best, t, "%s(%s <unfinished ...>", P->c.name, P->c.pre);
		P->state = SP_INCALL;
		P->t = t_end;
	} else {
		s_emit_whole(G, best, t);
		s_finish(G, best, t_end);
	}
}

static int gen_strace(const struct gen_params *p, const struct gen_workload *w, FILE *f,
		      struct gen_summary *sum, struct rerr *e)
{
	struct sgen G = { .p = p, .sum = sum };
	struct gout o = { .f = f };
	struct rng g;
	enum wl_id id = wl_of(w);
	int best;

	G.o = &o;
	rng_init(&g, p->seed, 4, id);
	strace_setup(&G, id, ranks_of(p, w), &g);
	G.pr = calloc(G.np, sizeof(*G.pr));
	if (!G.pr)
		return rerr_set(e, -ENOMEM, "out of memory");
	strace_procs(&G, id, &g);
	while (!o.err && (best = s_earliest(&G)) >= 0)
		strace_step(&G, best);
	sum->ranks = G.np;
	sum->lines += o.lines;
	free(G.pr);
	return o.err;
}

/* ------------------------------------------------- output management */

/* A directory we may replace with --force: only what gen writes. */
static int dir_is_gen_output(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *de;
	int ok = 1;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		size_t l = strlen(nm);
		if (!strcmp(nm, ".") || !strcmp(nm, ".."))
			continue;
		if (!strcmp(nm, "timing") || (l > 6 && !strcmp(nm + l - 6, ".trace")))
			continue;
		ok = 0;
		break;
	}
	closedir(d);
	return ok;
}

/* Does the regular file at path begin as replay gen writes a one-file
 * workload of this format: a libsysio header line (Sandia), an strace -f
 * -tt line ("PID HH:MM:SS.UUUUUU name(")?  --force replaces only such a
 * file: never a user's data file named by mistake. */
static int file_is_gen_output(const char *path, const struct gen_workload *w)
{
	char b[256];
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(b, 1, sizeof(b) - 1, f);
	fclose(f);
	b[n] = 0;
	if (w->format == GEN_SANDIA)
		return !strncmp(b, "header app(", 11);
	const char *q = b;
	if (!isdigit((unsigned char)*q))
		return 0;
	while (isdigit((unsigned char)*q))
		q++;
	unsigned hh, mm, ss, us;
	int used = 0;
	if (*q++ != ' ' || sscanf(q, "%2u:%2u:%2u.%6u %n", &hh, &mm, &ss, &us, &used) != 4 || !used)
		return 0;
	q += used;
	while (islower((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_')
		q++;
	return *q == '(';
}

/* Remove a directory of regular files (our own temporary or old output). */
static int rm_flat_dir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	struct dirent *de;
	char p[PATH_MAX];
	int err = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		if (unlink(p) && !err)
			err = -errno;
	}
	closedir(d);
	if (rmdir(path) && !err)
		err = -errno;
	return err;
}

/* May gen write `path`?  *exists tells whether something is there (then
 * only with force, and only a previous gen output of the same kind). */
static int check_dest(const char *path, const struct gen_workload *w, bool force, int *exists,
		      struct rerr *e)
{
	struct stat st;

	*exists = lstat(path, &st) == 0;
	if (!*exists) {
		if (errno != ENOENT)
			return rerr_set(e, -errno, "cannot access '%s': %s", path, strerror(errno));
		return 0;
	}
	if (!force)
		return rerr_set(e, -EEXIST, "'%s' already exists (use --force to replace it)", path);
	if (w->is_dir && !(S_ISDIR(st.st_mode) && dir_is_gen_output(path)))
		return rerr_set(e, -EEXIST, "'%s' exists and is not a trace directory written by "
				"'replay gen': not replacing it", path);
	if (!w->is_dir && !S_ISREG(st.st_mode))
		return rerr_set(e, -EEXIST, "'%s' exists and is not a regular file: not replacing it", path);
	if (!w->is_dir && !file_is_gen_output(path, w))
		return rerr_set(e, -EEXIST, "'%s' exists and is not %s trace written by 'replay gen':"
				" not replacing it", path, w->format == GEN_SANDIA ? "a libsysio" : "an strace");
	return 0;
}

/* Write a one-file workload (Sandia, strace) into the temporary tmp. */
static int gen_one_file(const struct gen_params *p, const struct gen_workload *w, int fd,
			const char *tmp, struct gen_summary *sum, struct rerr *e)
{
	FILE *f;
	int err;

	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		err = rerr_set(e, -errno, "cannot open '%s': %s", tmp, strerror(errno));
		close(fd);
		return err;
	}
	if (w->format == GEN_SANDIA)
		err = gen_sandia(p, w, f, sum);
	else
		err = gen_strace(p, w, f, sum, e);
	if (err && e && !e->msg[0])
		rerr_set(e, err, "cannot write '%s': %s", tmp, strerror(-err));
	int cerr = close_out(f, 0);
	if (!err && cerr)
		err = rerr_set(e, cerr, "cannot write '%s': %s", tmp, strerror(-cerr));
	if (!err)
		sum->files = 1;
	return err;
}

int gen_write(const struct gen_params *p, const char *path, bool force,
	      struct gen_summary *sum, struct rerr *e)
{
	char tmp[PATH_MAX];
	int err, exists;
	const struct gen_workload *w;

	memset(sum, 0, sizeof(*sum));
	err = gen_check(p, e);
	if (err)
		return err;
	w = gen_find(p->workload);
	if (!path || !*path)
		return rerr_set(e, -EINVAL, "no output path");
	err = check_dest(path, w, force, &exists, e);
	if (err)
		return err;

	/* a sibling temporary, renamed into place when complete */
	const char *slash = strrchr(path, '/');
	int dl = slash ? (int)(slash - path) : 0;
	if (snprintf(tmp, sizeof(tmp), "%.*s%s.%s.tmpXXXXXX", dl, path, slash ? "/" : "",
		     slash ? slash + 1 : path) >= (int)sizeof(tmp))
		return rerr_set(e, -ENAMETOOLONG, "'%s': path too long", path);
	if (w->is_dir) {
		if (!mkdtemp(tmp))
			return rerr_set(e, -errno, "cannot create a directory next to '%s': %s", path, strerror(errno));
		err = gen_lanl(p, w, tmp, sum, e);
	} else {
		int fd = mkstemp(tmp);
		if (fd < 0)
			return rerr_set(e, -errno, "cannot create a file next to '%s': %s", path, strerror(errno));
		err = gen_one_file(p, w, fd, tmp, sum, e);
	}
	if (!err && exists && w->is_dir) {
		err = rm_flat_dir(path);
		if (err)
			rerr_set(e, err, "cannot remove the old '%s': %s", path, strerror(-err));
	}
	if (!err && rename(tmp, path))
		err = rerr_set(e, -errno, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
	if (err && w->is_dir)
		rm_flat_dir(tmp);
	else if (err)
		unlink(tmp);
	return err;
}
