/*
 * strace.c - strace text output -> sc_events (see strace.h, and
 * /work/shared/formats/README.md section 1 for the grammar).
 *
 * A line is: [pid column | "[pid N] "] [timestamp] then one of
 *   NAME(ARGS) = RET [<DUR>]
 *   NAME(ARGS <unfinished ...>             (kept per pid until resumed)
 *   <... NAME resumed>ARGS) = RET [<DUR>]
 *   --- SIGNAL ... ---  |  +++ exited with N +++  |  +++ killed by SIG +++
 *   strace: Process N attached
 * Arguments are split on top-level commas only: quoted strings (with
 * escapes), (), [], {}, -y decorations <...> and comments never split.
 * Only calls in the table below are decoded; everything else is reported
 * to the builder as SC_SKIP under its name.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/imap.h"
#include "util/scan.h"
#include "trace/strace.h"
#include "trace/trace.h"
#include "parse_common.h"

/* ---- call table ----------------------------------------------------------- */
/*
 * One row per syscall name: what it becomes (enum sc_call), where its
 * arguments are (index, -1 when absent), and a shape for what the generic
 * fields cannot say.  Adding a syscall is one row (and a test); a new shape
 * only when its arguments need decoding of their own.
 */
enum shape {
	SH_PLAIN,      /* the generic fields say it all                         */
	SH_CREAT,      /* creat(): flags are O_CREAT|O_WRONLY|O_TRUNC            */
	SH_OPENAT2,    /* flags and mode inside struct open_how                  */
	SH_IOV,        /* readv family: iovec sum, count, -1 offset, RWF_APPEND  */
	SH_LSEEK,      /* whence; _llseek's result is in the [N] argument       */
	SH_FALLOCATE,  /* symbolic mode                                          */
	SH_FCNTL,      /* only F_DUPFD[_CLOEXEC] is a dup                        */
	SH_UNLINKAT,   /* AT_REMOVEDIR makes it rmdir                            */
	SH_RENAMEAT,   /* the new name's own dirfd (newdirfd)                    */
	SH_FSTATAT,    /* "" path (AT_EMPTY_PATH) is an fstat of dirfd           */
	SH_MMAP,       /* only a mapping of a file counts                        */
	SH_CLONE,      /* clone flags from the text; fork/vfork fixed            */
	SH_IO_SUBMIT,  /* one event per queued iocb                              */
	SH_DUP2,       /* dup2/dup3: the second fd                               */
	SH_GETEVENTS,  /* io_getevents: the waits of submitted iocbs             */
	SH_COPY,       /* copy_file_range/sendfile: a read, then a write         */
	SH_CLOSE_RANGE,/* "~0" upper bound, symbolic flags                       */
};

struct callspec {
	const char *name;
	uint8_t call;            /* enum sc_call                                */
	uint8_t shape;           /* enum shape                                  */
	int8_t fd, dirfd, path, path2, len, off, flags, mode;  /* argument index */
	bool rw;                 /* rw_args() reads it (made by ROW)            */
	bool fdw;                /* fd_args() reads it (made by ROW)            */
};

#define NO -1
/* A name has at most 16 bytes (a longer one does not compile): lookup()
 * tells names apart as two words. */
#define NAME16(n) ((n) + 0 * sizeof(char[sizeof(n) <= 17 ? 1 : -1]))
/* A call whose arguments are fd, buffer, length and maybe offset, nothing
 * else: read, write, pread64, pwrite64 (rw_args). */
#define RW(s, fd, dir, pa, p2, ln, of, fl, md)                                               \
	((s) == SH_PLAIN && (fd) == 0 && (ln) == 2 && ((of) < 0 || (of) == 3) && (dir) < 0 && \
	 (pa) < 0 && (p2) < 0 && (fl) < 0 && (md) < 0)
/* Any other call whose only fd, path or buffer is its fd, first, and
 * whose shape reads nothing but the columns (lseek: whence), not a stat
 * (its struct is read from the text): close, fsync, ftruncate, lseek...
 * (fd_args). */
#define FDW(c, s, fd, dir, pa, p2, ln, of, fl, md)                                       \
	(((s) == SH_PLAIN || (s) == SH_LSEEK) && (c) != SC_STAT && (fd) == 0 && (dir) < 0 && \
	 (pa) < 0 && (p2) < 0 && !RW(s, fd, dir, pa, p2, ln, of, fl, md))
/*                name            call          shape        fd dir path p2 len off flg mode */
#define ROW(n, c, s, fd, dir, pa, p2, ln, of, fl, md)                                          \
	{ NAME16(n), c, s, fd, dir, pa, p2, ln, of, fl, md, RW(s, fd, dir, pa, p2, ln, of, fl, md), \
	  FDW(c, s, fd, dir, pa, p2, ln, of, fl, md) }
static const struct callspec calls[] = {
	ROW("open",            SC_OPEN,      SH_PLAIN,     NO, NO, 0,  NO, NO, NO, 1,  2),
	ROW("creat",           SC_OPEN,      SH_CREAT,     NO, NO, 0,  NO, NO, NO, NO, 1),
	ROW("openat",          SC_OPEN,      SH_PLAIN,     NO, 0,  1,  NO, NO, NO, 2,  3),
	ROW("openat2",         SC_OPEN,      SH_OPENAT2,   NO, 0,  1,  NO, NO, NO, NO, NO),
	ROW("close",           SC_CLOSE,     SH_PLAIN,     0,  NO, NO, NO, NO, NO, NO, NO),
	ROW("read",            SC_READ,      SH_PLAIN,     0,  NO, NO, NO, 2,  NO, NO, NO),
	ROW("write",           SC_WRITE,     SH_PLAIN,     0,  NO, NO, NO, 2,  NO, NO, NO),
	ROW("pread64",         SC_READ,      SH_PLAIN,     0,  NO, NO, NO, 2,  3,  NO, NO),
	ROW("pread",           SC_READ,      SH_PLAIN,     0,  NO, NO, NO, 2,  3,  NO, NO),
	ROW("pwrite64",        SC_WRITE,     SH_PLAIN,     0,  NO, NO, NO, 2,  3,  NO, NO),
	ROW("pwrite",          SC_WRITE,     SH_PLAIN,     0,  NO, NO, NO, 2,  3,  NO, NO),
	ROW("readv",           SC_READ,      SH_IOV,       0,  NO, NO, NO, NO, NO, NO, NO),
	ROW("writev",          SC_WRITE,     SH_IOV,       0,  NO, NO, NO, NO, NO, NO, NO),
	ROW("preadv",          SC_READ,      SH_IOV,       0,  NO, NO, NO, NO, 3,  NO, NO),
	ROW("pwritev",         SC_WRITE,     SH_IOV,       0,  NO, NO, NO, NO, 3,  NO, NO),
	ROW("preadv2",         SC_READ,      SH_IOV,       0,  NO, NO, NO, NO, 3,  NO, NO),
	ROW("pwritev2",        SC_WRITE,     SH_IOV,       0,  NO, NO, NO, NO, 3,  4,  NO),
	ROW("lseek",           SC_LSEEK,     SH_LSEEK,     0,  NO, NO, NO, NO, 1,  2,  NO),
	ROW("_llseek",         SC_LSEEK,     SH_LSEEK,     0,  NO, NO, NO, NO, 1,  3,  NO),
	ROW("llseek",          SC_LSEEK,     SH_LSEEK,     0,  NO, NO, NO, NO, 1,  3,  NO),
	ROW("ftruncate",       SC_FTRUNCATE, SH_PLAIN,     0,  NO, NO, NO, 1,  NO, NO, NO),
	ROW("ftruncate64",     SC_FTRUNCATE, SH_PLAIN,     0,  NO, NO, NO, 1,  NO, NO, NO),
	ROW("truncate",        SC_TRUNCATE,  SH_PLAIN,     NO, NO, 0,  NO, 1,  NO, NO, NO),
	ROW("truncate64",      SC_TRUNCATE,  SH_PLAIN,     NO, NO, 0,  NO, 1,  NO, NO, NO),
	ROW("fsync",           SC_FSYNC,     SH_PLAIN,     0,  NO, NO, NO, NO, NO, NO, NO),
	ROW("fdatasync",       SC_FDATASYNC, SH_PLAIN,     0,  NO, NO, NO, NO, NO, NO, NO),
	/* sync_file_range is replayed as fdatasync (see replay(1)) */
	ROW("sync_file_range", SC_FDATASYNC, SH_PLAIN,     0,  NO, NO, NO, NO, NO, NO, NO),
	ROW("fallocate",       SC_FALLOCATE, SH_FALLOCATE, 0,  NO, NO, NO, 3,  2,  NO, 1),
	ROW("dup",             SC_DUP,       SH_PLAIN,     0,  NO, NO, NO, NO, NO, NO, NO),
	ROW("dup2",            SC_DUP2,      SH_DUP2,      0,  NO, NO, NO, NO, NO, NO, NO),
	ROW("dup3",            SC_DUP2,      SH_DUP2,      0,  NO, NO, NO, NO, NO, NO, NO),
	ROW("fcntl",           SC_DUP,       SH_FCNTL,     NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("fcntl64",         SC_DUP,       SH_FCNTL,     NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("unlink",          SC_UNLINK,    SH_PLAIN,     NO, NO, 0,  NO, NO, NO, NO, NO),
	ROW("unlinkat",        SC_UNLINK,    SH_UNLINKAT,  NO, 0,  1,  NO, NO, NO, NO, NO),
	ROW("rmdir",           SC_RMDIR,     SH_PLAIN,     NO, NO, 0,  NO, NO, NO, NO, NO),
	ROW("rename",          SC_RENAME,    SH_PLAIN,     NO, NO, 0,  1,  NO, NO, NO, NO),
	ROW("renameat",        SC_RENAME,    SH_RENAMEAT,  NO, 0,  1,  3,  NO, NO, NO, NO),
	ROW("renameat2",       SC_RENAME,    SH_RENAMEAT,  NO, 0,  1,  3,  NO, NO, NO, NO),
	ROW("link",            SC_LINK,      SH_PLAIN,     NO, NO, 0,  1,  NO, NO, NO, NO),
	ROW("linkat",          SC_LINK,      SH_RENAMEAT,  NO, 0,  1,  3,  NO, NO, NO, NO),
	/* symlink(content, link), symlinkat(content, dirfd, link): the
	 * content is path2, kept as spelled (the builder resolves nothing) */
	ROW("symlink",         SC_SYMLINK,   SH_PLAIN,     NO, NO, 1,  0,  NO, NO, NO, NO),
	ROW("symlinkat",       SC_SYMLINK,   SH_PLAIN,     NO, 1,  2,  0,  NO, NO, NO, NO),
	ROW("mkdir",           SC_MKDIR,     SH_PLAIN,     NO, NO, 0,  NO, NO, NO, NO, 1),
	ROW("mkdirat",         SC_MKDIR,     SH_PLAIN,     NO, 0,  1,  NO, NO, NO, NO, 2),
	ROW("stat",            SC_STAT,      SH_PLAIN,     NO, NO, 0,  NO, NO, NO, NO, NO),
	ROW("lstat",           SC_STAT,      SH_PLAIN,     NO, NO, 0,  NO, NO, NO, NO, NO),
	ROW("stat64",          SC_STAT,      SH_PLAIN,     NO, NO, 0,  NO, NO, NO, NO, NO),
	ROW("lstat64",         SC_STAT,      SH_PLAIN,     NO, NO, 0,  NO, NO, NO, NO, NO),
	ROW("oldstat",         SC_STAT,      SH_PLAIN,     NO, NO, 0,  NO, NO, NO, NO, NO),
	ROW("oldlstat",        SC_STAT,      SH_PLAIN,     NO, NO, 0,  NO, NO, NO, NO, NO),
	ROW("newfstatat",      SC_STAT,      SH_FSTATAT,   NO, 0,  1,  NO, NO, NO, NO, NO),
	ROW("fstatat64",       SC_STAT,      SH_FSTATAT,   NO, 0,  1,  NO, NO, NO, NO, NO),
	ROW("statx",           SC_STAT,      SH_FSTATAT,   NO, 0,  1,  NO, NO, NO, NO, NO),
	ROW("fstat",           SC_STAT,      SH_PLAIN,     0,  NO, NO, NO, NO, NO, NO, NO),
	ROW("fstat64",         SC_STAT,      SH_PLAIN,     0,  NO, NO, NO, NO, NO, NO, NO),
	ROW("oldfstat",        SC_STAT,      SH_PLAIN,     0,  NO, NO, NO, NO, NO, NO, NO),
	ROW("mmap",            SC_MMAP,      SH_MMAP,      NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("mmap2",           SC_MMAP,      SH_MMAP,      NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("clone",           SC_CLONE,     SH_CLONE,     NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("clone3",          SC_CLONE,     SH_CLONE,     NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("fork",            SC_CLONE,     SH_CLONE,     NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("vfork",           SC_CLONE,     SH_CLONE,     NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("io_submit",       SC_SKIP,      SH_IO_SUBMIT, NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("io_getevents",    SC_SKIP,      SH_GETEVENTS, NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("io_pgetevents",   SC_SKIP,      SH_GETEVENTS, NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("copy_file_range", SC_READ,      SH_COPY,      NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("sendfile",        SC_READ,      SH_COPY,      NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("sendfile64",      SC_READ,      SH_COPY,      NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("splice",          SC_READ,      SH_COPY,      NO, NO, NO, NO, NO, NO, NO, NO),
	ROW("close_range",     SC_CLOSE_RANGE, SH_CLOSE_RANGE, 0, NO, NO, NO, NO, NO, NO, NO),
	ROW("chdir",           SC_CHDIR,     SH_PLAIN,     NO, NO, 0,  NO, NO, NO, NO, NO),
	ROW("fchdir",          SC_CHDIR,     SH_PLAIN,     0,  NO, NO, NO, NO, NO, NO, NO),
	/* the program a process runs (launchers: see builder_is_launcher) */
	ROW("execve",          SC_EXEC,      SH_PLAIN,     NO, NO, 0,  NO, NO, NO, NO, NO),
};
#undef ROW
#undef FDW
#undef RW
#undef NAME16
#undef NO

#define NCALLS (sizeof(calls) / sizeof(calls[0]))
#define CALLHASH 256

/* A call name's slot, from its 16 bytes NUL-padded as two words (which
 * tell it from any other name: names have no NUL): their sum's top bits
 * after a multiply, enough to spread the table's names (a clash costs a
 * probe; a name not in it, nearly always one). */
static inline uint32_t words_slot(const uint64_t w[2])
{
	return (uint32_t)(((w[0] + w[1]) * 0x9e3779b97f4a7c15ull) >> 56);
}

/* An errno name's slot (see strace_errno): from its length and three of
 * its bytes (n >= 1), enough to spread the names; a clash costs a probe. */
static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = (uint32_t)n * 0x9e3779b1u ^ (uint8_t)s[0] * 0x85ebca6bu ^
		     (uint8_t)s[n - 1] * 0xc2b2ae35u ^ (uint8_t)s[n / 2] * 0x27d4eb2fu;
	return h ^ h >> 15;
}

/* ---- parser state --------------------------------------------------------- */
struct pend {
	char *text;             /* arguments so far (after the '('); for
				 * the rest's, from text + len, at the resume */
	size_t len, cap;
	uint64_t ts;
	unsigned long line;
	const char *src;
	const struct callspec *cs; /* the call's table entry, NULL unknown */
	uint64_t w[2];          /* the name's words (name_words)      */
	char name[64];
	size_t nlen;
	int active;
	int is_clone;
	/* a call the table does not know, whose arguments so far nest
	 * nowhere (no quote, bracket, '<' or '/': "CLOCK_MONOTONIC, "): its
	 * text is not kept, only its last byte (0: none), for its resume
	 * decodes the rest alone (see resume) */
	bool plain;
	char last;
};

#define NAMES 256       /* slots for names of unknown calls (half used at most) */

struct strace_parser {
	strace_emit_fn emit;
	void *arg;
	uint8_t callidx[CALLHASH];      /* index + 1 into calls[], 0 empty */
	uint64_t call_w[128][2];        /* calls[i].name, NUL-padded        */
	struct imap pend;               /* pid -> struct pend*             */
	struct imap seen;               /* pid -> SEEN | CHILD bits        */
	int64_t seen_fast[16];          /* pids known SEEN, by pid & 15    */
	int64_t pend_pid[16];           /* pend_of's last answers, by pid & 15 */
	struct pend *pend_pe[16];       /* (NULL: none)                     */
	int64_t *clones;                /* pids with an unfinished clone   */
	size_t nclones, ccap;
	/* pids first seen while several clones were in flight (whose child
	 * each is, is not known until a clone returns it), and the probe
	 * that may tell it sooner (strace_parser_probe) */
	int64_t *orphans;
	size_t norphans, corphans;
	/* data calls whose start is not in the trace ("<... write resumed>"
	 * first: strace -p attached mid-call, or the start's lines lost):
	 * how many, and the first's place (clock_orphan_notes) */
	uint64_t orphan_data;
	const char *orphan_src;
	unsigned long orphan_line;
	/* calls whose result strace's fault injection made up (-e inject=
	 * SET:retval=N: "= N (INJECTED)"): they did not run.  The line
	 * decode() reads is one (parse_result), how many, the first's place */
	bool injected_now;
	uint64_t injected;
	const char *injected_src;
	unsigned long injected_line;
	strace_fd_probe_fn probe;
	char *scratch;                  /* decoded strings of one line     */
	size_t scap, sused;
	char procfd[40];                /* linkat(fd, "", AT_EMPTY_PATH)'s source */
	uint64_t exits;                 /* "+++ exited/killed" lines (none: -qq) */
	uint64_t syscalls;
	int bad;                        /* last error was a malformed line */
	struct imap aio;                /* pid -> struct aioq*: iocbs in flight */
	uint64_t aio_next;              /* async ids given to iocbs        */
	bool general_only;              /* REPLAY_STRACE_GENERAL: no hot_line */
	bool summary_seen;              /* a -c/-C summary table was read  */
	struct tx_hms hms;              /* the last "HH:MM:SS" tx_clock15c read */
	/* an event as sc_event_init() makes it, which decode() copies: a
	 * copy is a dozen 16-byte moves, where sc_event_init() in place
	 * zeroes the event a word at a time (rep stos) */
	struct sc_event ev0;
	/* the names of calls the table does not know, one copy each (see
	 * skip_name), by the slot of their words */
	struct kept_name {
		uint64_t w[2];
		char s[17];             /* "": a free slot */
	} names[NAMES];
	size_t nnames;
};

/* A process's libaio iocbs submitted and not yet reaped, oldest first:
 * (aio_data, async id); id 0 for a sync iocb (nothing to await). */
struct aioq {
	uint64_t *data, *id;
	size_t n, cap;
};

#define SEEN  1u   /* has had a line of its own                    */
#define CHILD 2u   /* a clone/fork returned it, or strace attached it */
static unsigned pidbits(const struct strace_parser *p, int64_t pid)
{
	return (unsigned)(uintptr_t)imap_get(&p->seen, pid);
}

struct span {
	const char *s;
	size_t n;
};

#define MAXARGS 8

static int bad_line(struct strace_parser *p, struct rerr *e, const struct strace_src *src,
		    unsigned long lineno, const char *line, size_t len, const char *what)
{
	char ex[64];
	size_t n = 0;
	for (size_t i = 0; i < len && n < 40; i++) {
		unsigned char c = (unsigned char)line[i];
		ex[n++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c; /* never echo raw bytes to a terminal */
	}
	ex[n] = 0;
	p->bad = 1;
	return rerr_at(e, -EINVAL, src->name, lineno, "expected %s in '%s%s'", what, ex,
		       len > 40 ? "..." : "");
}

static int reserve_slow(char **buf, size_t *cap, size_t need)
{
	size_t ncap = *cap ? *cap : 4096;
	while (ncap < need)
		ncap *= 2;
	char *n = realloc(*buf, ncap);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = ncap;
	return 0;
}

/* Room for need bytes in *buf (capacity *cap): nearly always there. */
static inline int reserve(char **buf, size_t *cap, size_t need)
{
	return need <= *cap ? 0 : reserve_slow(buf, cap, need);
}

/* Copy into scratch (reserved large enough for the whole line). */
static char *sdup(struct strace_parser *p, const char *s, size_t n)
{
	char *d = p->scratch + p->sused;
	memcpy(d, s, n);
	d[n] = 0;
	p->sused += n + 1;
	return d;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unescape C escapes of s[0..n) into scratch. */
static char *sunescape(struct strace_parser *p, const char *s, size_t n)
{
	if (scan_any2(s, n, 0, '\\', '\\') == n)
		return sdup(p, s, n);           /* nothing escaped: a copy */
	char *d = p->scratch + p->sused, *o = d;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\' || i + 1 >= n) {
			*o++ = s[i];
			continue;
		}
		char c = s[++i];
		switch (c) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'v': *o++ = '\v'; break;
		case 'f': *o++ = '\f'; break;
		case 'a': *o++ = '\a'; break;
		case 'b': *o++ = '\b'; break;
		case 'x': {
			int v = 0, k = 0;
			while (k < 2 && i + 1 < n && hexval(s[i + 1]) >= 0)
				v = v * 16 + hexval(s[++i]), k++;
			*o++ = (char)v;
			break;
		}
		default:
			if (c >= '0' && c <= '7') {
				int v = c - '0', k = 1;
				while (k < 3 && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7')
					v = v * 8 + (s[++i] - '0'), k++;
				*o++ = (char)v;
			} else {
				*o++ = c;
			}
		}
	}
	*o = 0;
	p->sused += (size_t)(o - d) + 1;
	return d;
}

static inline __attribute__((always_inline)) struct span trim(struct span a)
{
	if (a.n && a.s[0] != ' ' && a.s[0] != '\t' && a.s[a.n - 1] != ' ' && a.s[a.n - 1] != '\t')
		return a;               /* nearly every argument */
	while (a.n && (a.s[0] == ' ' || a.s[0] == '\t'))
		a.s++, a.n--;
	while (a.n && (a.s[a.n - 1] == ' ' || a.s[a.n - 1] == '\t'))
		a.n--;
	return a;
}

/*
 * Split s[0..n) on top-level commas until a top-level ')' (when
 * stop_paren) or the end.  *end = offset of that ')' (n when none).
 * Returns 0, or a static "what was expected" string.
 */
/* Character classes for the hot loops. */
#define CL_BAD  1   /* control bytes: binary garbage */
#define CL_NAME 4   /* [A-Za-z0-9_]: syscall, errno and argument names */
#define CL_WORD 8   /* those and '|', '-': fd_args' words ("O_RDONLY|O_CLOEXEC", "-1") */
static const uint8_t cls[256] = {
	[0 ... 8] = CL_BAD, [10 ... 31] = CL_BAD, [127] = CL_BAD,
	['a' ... 'z'] = CL_NAME | CL_WORD, ['A' ... 'Z'] = CL_NAME | CL_WORD,
	['0' ... '9'] = CL_NAME | CL_WORD, ['_'] = CL_NAME | CL_WORD,
	['|'] = CL_WORD, ['-'] = CL_WORD,
};

static inline int is_name_char(int c)
{
	return cls[(uint8_t)c] & CL_NAME;
}

/* Index of the first control byte (not tab) or DEL in s, n when none;
 * eight bytes at a time (the classic "has a byte less than" test). */
static size_t first_ctrl(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t i = 0;
#if REPLAY_SSE2
	const __m128i c1f = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f);
	/* bytes <= 0x1f or 0x7f among the 16 at p */
#define CTRL16(p) _mm_movemask_epi8(_mm_or_si128(                                      \
		_mm_cmpeq_epi8(_mm_min_epu8(_mm_loadu_si128((const __m128i *)(const void *)(p)), c1f), \
			       _mm_loadu_si128((const __m128i *)(const void *)(p))),                   \
		_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p)), del)))
	while (i + 16 <= n) {
		if (!CTRL16(s + i)) {
			i += 16;
			continue;
		}
		for (size_t k = i; k < i + 16; k++)
			if (cls[(uint8_t)s[k]] & CL_BAD)
				return k;
		i += 16;
	}
	/* the last 16 bytes at once (overlapping what was checked) */
	if (i < n && n >= 16 && !CTRL16(s + n - 16))
		return n;
#undef CTRL16
#endif
	while (i + 8 <= n) {
		uint64_t x, y;
		memcpy(&x, s + i, 8);
		y = x ^ (0x7f * ones);
		if (!(((x - 0x20 * ones) & ~x & highs) | ((y - ones) & ~y & highs))) {
			i += 8;
			continue;
		}
		for (size_t k = i; k < i + 8; k++)
			if (cls[(uint8_t)s[k]] & CL_BAD)
				return k;
		i += 8;
	}
	for (; i < n; i++)
		if (cls[(uint8_t)s[i]] & CL_BAD)
			return i;
	return n;
}

/* The closing '"' of the string whose opening '"' is at s[i] (a backslash
 * escapes the next byte); n when there is none.  Inline where a read's or
 * write's buffer is skipped (rw_args), a call elsewhere. */
static inline __attribute__((always_inline)) size_t quote_end_inline(const char *s, size_t n,
								      size_t i)
{
	for (i = scan_any2(s, n, i + 1, '"', '\\'); i < n && s[i] == '\\';)
		i = scan_any2(s, n, i + 2, '"', '\\');
	return i;
}

static size_t quote_end(const char *s, size_t n, size_t i)
{
	return quote_end_inline(s, n, i);
}

/* The '>' closing the -y decoration whose '<' is at s[i]: one not part of
 * "->" (-yy nests one: </dev/null<char 1:3>>); n when there is none. */
static size_t deco_end(const char *s, size_t n, size_t i)
{
	int dd = 1;
	for (i = scan_any3(s, n, i + 1, '\\', '<', '>'); i < n;
	     i = scan_any3(s, n, i + 1, '\\', '<', '>')) {
		if (s[i] == '\\') {
			i++;
			continue;
		}
		if (s[i] == '<')
			dd++;
		if (s[i] == '>' && s[i - 1] != '-' && !--dd)
			return i;
	}
	return n;
}

/*
 * Split s[0..n) at its top-level commas into args (up to max; *nargs all
 * of them), past quoted strings, comments, -y decorations and brackets;
 * with stop_paren at the ')' closing the call (*end).  Without commas
 * (split_end) only where the arguments end: a comma changes nothing but
 * the arguments, so the walk stops only where it nests (scan_nest).  Two
 * copies of one walk, commas a constant in each.
 */
static inline __attribute__((always_inline)) const char *
split_walk(const char *s, size_t n, int stop_paren, struct span *args, int max, int *nargs,
	   size_t *end, const bool commas)
{
	int depth = 0, na = 0;
	size_t start = 0, i = 0;
	struct scan_cur cur = SCAN_CUR_INIT;
	*end = n;
	while ((i = commas ? scan_args_next(s, n, i, &cur) : scan_nest(s, n, i)) < n) {
		char c = s[i];
		if (commas && c == ',') {       /* the most frequent */
			if (depth == 0) {
				if (na < max)
					args[na] = trim((struct span){ s + start, i - start });
				na++;
				start = i + 1;
			}
			i++;
			continue;
		}
		if (c == '"') {
			if ((i = quote_end(s, n, i)) >= n)
				return "closing '\"'";
			i++;
			continue;
		}
		if (c == '/') {
			if (i + 1 < n && s[i + 1] == '*') {
				const char *ce = memmem(s + i + 2, n - i - 2, "*/", 2);
				if (!ce)
					return "'*/'";
				i = (size_t)(ce - s) + 2;
				continue;
			}
		} else if (c == '<') {
			/* -y decoration: <path> */
			if (i > 0 && is_name_char((unsigned char)s[i - 1]) &&
			    (i = deco_end(s, n, i)) >= n)
				return "'>' closing a path decoration";
		} else if (c == '(' || c == '[' || c == '{') {
			depth++;
		} else if (depth) {     /* ) ] } */
			depth--;
		} else if (c == ')' && stop_paren) {
			if (commas) {
				struct span last = trim((struct span){ s + start, i - start });
				if (na > 0 || last.n) {
					if (na < max)
						args[na] = last;
					na++;
				}
				*nargs = na;
			}
			*end = i;
			return NULL;
		} else {
			return "balanced brackets";
		}
		i++;
	}
	if (stop_paren)
		return "')'";
	if (depth)
		return "balanced brackets";
	struct span last = trim((struct span){ s + start, n - start });
	if (na > 0 || last.n) {
		if (na < max)
			args[na] = last;
		na++;
	}
	*nargs = na;
	return NULL;
}

static const char *split(const char *s, size_t n, int stop_paren, struct span *args,
			 int max, int *nargs, size_t *end)
{
	return split_walk(s, n, stop_paren, args, max, nargs, end, true);
}

/* split() of a call's arguments (stop_paren) for their end only: the same
 * answer and *end, without the arguments (a call the table does not know,
 * which is only counted). */
static const char *split_end(const char *s, size_t n, size_t *end)
{
	return split_walk(s, n, 1, NULL, 0, NULL, end, false);
}

/* Digits of s[*i..n) in base (8, 10, 16) into *x; -ERANGE past 2^64-1. */
static int digits(const char *s, size_t n, size_t *i, unsigned base, uint64_t *x)
{
	uint64_t v = 0;
	if (base == 10) {
		bool ovf;
		*i += scan_decn(s + *i, n - *i, x, &ovf);
		return ovf ? -ERANGE : 0;
	}
	for (; *i < n; (*i)++) {
		int d = hexval((unsigned char)s[*i]);
		if (d < 0 || (unsigned)d >= base)
			break;
		if (v > (UINT64_MAX - (unsigned)d) / base)
			return -ERANGE;
		v = v * base + (unsigned)d;
	}
	*x = v;
	return 0;
}

/* The usual number argument, read at once: "0", or 1 to 17 digits without
 * a leading zero (below 2^63: no overflow); num() reads it the same way.
 * Its length, 0 when the text does not start with one.  Inline: it is
 * most of what a read or write line costs to read. */
static inline __attribute__((always_inline)) size_t plain_dec(const char *s, size_t n,
							      int64_t *v)
{
	uint64_t x, y;
	bool ovf;
	size_t k;
	if (n >= 8) {
		/* up to 7 digits (nearly every fd, length and result): one
		 * 8-byte word; 8 to 17 (offsets), the next words from where
		 * the first ended, as scan_decn of the first 18 bytes reads */
		k = scan_dec8w(s, &x);
		if (k == 8 && n > 8 && (unsigned)(s[8] - '0') < 10) {
			size_t m = n < 18 ? n : 18;
			unsigned k2 = m >= 16 ? scan_dec8w(s + 8, &y) : scan_dec8(s + 8, m - 8, &y);
			x = x * scan_pow10[k2] + y;
			k += k2;
			if (k2 == 8) {
				k2 = scan_dec8(s + 16, m - 16, &y);
				x = x * scan_pow10[k2] + y;
				k += k2;
			}
		}
	} else {
		k = scan_decn(s, n, &x, &ovf);  /* 7 digits at most: no overflow */
	}
	if (!k || k == 18 || (s[0] == '0' && k > 1))
		return 0;
	*v = (int64_t)x;
	return k;
}

/* plain_dec of the one or two digits an fd nearly always has, at once
 * (n >= 3: the digits and what ends them); 0 when the number is not that
 * (plain_dec then reads it, or refuses it). */
static inline size_t small_dec(const char *s, size_t n, int64_t *v)
{
	unsigned d0 = (unsigned)(unsigned char)s[0] - '0', d1, d2;
	if (n < 3 || d0 >= 10)
		return 0;
	d1 = (unsigned)(unsigned char)s[1] - '0';
	if (d1 >= 10) {
		*v = d0;
		return 1;
	}
	d2 = (unsigned)(unsigned char)s[2] - '0';
	if (d2 < 10 || !d0)
		return 0;
	*v = d0 * 10 + d1;
	return 2;
}

/* Integer: decimal, -decimal, 0x hex, 0 octal; trailing decoration/comment
 * allowed when rest != NULL (set to what follows).  -ERANGE when it does
 * not fit an int64_t (a hex value up to 2^64-1 is taken as its two's
 * complement, as strace prints addresses and -1 masks). */
static int num(struct span a, int64_t *v, struct span *rest)
{
	a = trim(a);
	size_t k;
	int64_t pv;
	/* the usual case (not "0", which may start "0x"), nothing after it
	 * or rest wanted */
	if (a.n && a.s[0] != '0' && (k = plain_dec(a.s, a.n, &pv)) && (rest || k == a.n)) {
		*v = pv;
		if (rest)
			*rest = (struct span){ a.s + k, a.n - k };
		return 0;
	}
	if (!rest && a.n > 4 && a.s[a.n - 1] == '/' && a.s[a.n - 2] == '*') {
		/* "4096, then a comment" (strace -X verbose) */
		const char *cm = memmem(a.s, a.n, "/*", 2);
		if (cm)
			a = trim((struct span){ a.s, (size_t)(cm - a.s) });
	}
	size_t i = 0;
	int neg = 0;
	if (i < a.n && a.s[i] == '-')
		neg = 1, i++;
	if (i >= a.n || a.s[i] < '0' || a.s[i] > '9')
		return -EINVAL;
	uint64_t x = 0;
	int hex = a.s[i] == '0' && i + 1 < a.n && (a.s[i + 1] == 'x' || a.s[i + 1] == 'X');
	if (hex) {
		i += 2;
		size_t st = i;
		if (digits(a.s, a.n, &i, 16, &x))
			return -ERANGE;
		if (i == st)
			return -EINVAL;
	} else if (digits(a.s, a.n, &i, a.s[i] == '0' ? 8 : 10, &x)) {
		return -ERANGE;
	}
	if (neg ? x > (uint64_t)INT64_MAX + 1 : (!hex && x > (uint64_t)INT64_MAX))
		return -ERANGE;
	*v = neg ? (x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x) : (int64_t)x;
	if (rest) {
		*rest = (struct span){ a.s + i, a.n - i };
		return 0;
	}
	return i == a.n ? 0 : -EINVAL;
}

/* A -y decoration: unescaped, without the " (deleted)" strace appends
 * for unlinked files, nor the device part -yy nests (<char 1:3>). */
static char *decoration(struct strace_parser *p, const char *s, size_t n)
{
	if (n && s[n - 1] == '>') {
		const char *lt = memrchr(s, '<', n);
		if (lt)
			n = (size_t)(lt - s);
	}
	size_t used = p->sused, l = n;
	char *d;
	if (scan_any2(s, n, 0, '\\', '\\') == n) {
		d = sdup(p, s, n);      /* nothing escaped (and a line has no NUL) */
	} else {
		d = sunescape(p, s, n);
		l = strnlen(d, p->sused - used - 1);   /* an escaped NUL ends it */
	}
	if (l > 10 && !memcmp(d + l - 10, " (deleted)", 10))
		d[l - 10] = 0;
	return d;
}

/* fd argument: N, N<path>, AT_FDCWD, AT_FDCWD<path>; -X verbose: -100, a comment, <path>. */
static int fdarg(struct strace_parser *p, struct span a, int64_t *fd, const char **deco)
{
	struct span rest;
	a = trim(a);
	*deco = NULL;
	if (a.n >= 8 && !memcmp(a.s, "AT_FDCWD", 8)) {
		*fd = SC_AT_FDCWD;
		rest = (struct span){ a.s + 8, a.n - 8 };
	} else if (num(a, fd, &rest)) {
		return -EINVAL;
	}
	/* -X verbose: "-100 (comment AT_FDCWD)</dir>": skip the comment */
	rest = trim(rest);
	if (rest.n >= 4 && rest.s[0] == '/' && rest.s[1] == '*') {
		const char *end = memmem(rest.s + 2, rest.n - 2, "*/", 2);
		if (!end)
			return -EINVAL;
		rest = trim((struct span){ end + 2, rest.n - (size_t)(end + 2 - rest.s) });
	}
	/* strace 6.1 prints an unlinked file as "5</a/b>(deleted)" */
	if (rest.n > 11 && !memcmp(rest.s + rest.n - 10, ">(deleted)", 10))
		rest.n -= 9;
	if (rest.n >= 2 && rest.s[0] == '<' && rest.s[rest.n - 1] == '>')
		*deco = decoration(p, rest.s + 1, rest.n - 2);
	else if (rest.n)
		return -EINVAL;
	return 0;
}

/* Quoted path: NULL for NULL/addresses. */
static const char *strarg(struct strace_parser *p, struct span a, uint32_t *trunc, bool *nul)
{
	a = trim(a);
	if (!a.n || a.s[0] != '"')
		return NULL;
	size_t i = quote_end(a.s, a.n, 0);
	if (i >= a.n)
		return NULL;
	if (trunc && a.n >= i + 4 && !memcmp(a.s + i + 1, "...", 3))
		*trunc = OPSP_TRUNCATED_NAME;
	size_t used = p->sused;
	const char *d = sunescape(p, a.s + 1, i - 1);
	/* the kernel takes a name up to its NUL and strace prints it so: an
	 * escaped \0 inside one is no real capture's (flagged, refused) */
	if (strlen(d) != p->sused - used - 1)
		*nul = true;
	return d;
}

struct sym {
	const char *name;
	size_t len;
	int64_t val;
};
#define SYM(name, val) { name, sizeof(name) - 1, val }

/* the flags programs open with most often first: a name is looked for
 * from the start (each name is in the table once) */
static const struct sym oflag_syms[] = {
	SYM("O_RDONLY", 0), SYM("O_CLOEXEC", 02000000), SYM("O_WRONLY", 01), SYM("O_RDWR", 02),
	SYM("O_CREAT", 0100), SYM("O_TRUNC", 01000), SYM("O_DIRECTORY", 0200000),
	SYM("O_NONBLOCK", 04000), SYM("O_APPEND", 02000), SYM("O_EXCL", 0200),
	SYM("O_LARGEFILE", 0100000), SYM("O_NOFOLLOW", 0400000), SYM("O_DIRECT", 040000),
	SYM("O_ACCMODE", 03), SYM("O_NOCTTY", 0400), SYM("O_NDELAY", 04000),
	SYM("O_DSYNC", 010000), SYM("O_ASYNC", 020000), SYM("FASYNC", 020000),
	SYM("O_NOATIME", 01000000), SYM("O_SYNC", 04010000), SYM("O_RSYNC", 04010000),
	SYM("__O_SYNC", 04000000), SYM("O_PATH", 010000000), SYM("O_TMPFILE", 020200000),
	SYM("__O_TMPFILE", 020000000),
};

/* The first "ab" in s[0..n), or NULL. */
static const char *find2(const char *s, size_t n, char a, char b)
{
	const char *e = s + n, *q = s;

	while ((q = memchr(q, a, (size_t)(e - q))) && q + 1 < e && q[1] != b)
		q++;
	return q && q + 1 < e ? q : NULL;
}

static int symflags(const struct sym *tab, size_t ntab, const char *s, size_t n, int64_t *out)
{
	const char *cm = find2(s, n, '/', '*');     /* -X verbose: a number, then a comment */
	if (cm)
		n = (size_t)(cm - s);
	struct span a = trim((struct span){ s, n });
	int64_t v = 0;
	if (!a.n)
		return -EINVAL;
	size_t i = 0;
	while (i < a.n) {
		size_t j = i;
		while (j < a.n && a.s[j] != '|')
			j++;
		struct span part = trim((struct span){ a.s + i, j - i });
		int64_t x;
		bool word = part.n && (is_name_char((unsigned char)part.s[0]) &&
				       !(part.s[0] >= '0' && part.s[0] <= '9'));
		if (!word && !num(part, &x, NULL)) {
			v |= x;
		} else {
			size_t k;
			for (k = 0; k < ntab; k++)
				if (tab[k].len == part.n && tab[k].name[part.n - 1] == part.s[part.n - 1] &&
				    !memcmp(tab[k].name, part.s, part.n))
					break;
			if (k == ntab)
				return -EINVAL;
			v |= tab[k].val;
		}
		i = j + 1;
	}
	*out = v;
	return 0;
}

int strace_oflags(const char *s, size_t len, int64_t *flags)
{
	return symflags(oflag_syms, sizeof(oflag_syms) / sizeof(oflag_syms[0]), s, len, flags);
}

static int whencearg(struct span a, int *w)
{
	static const struct sym ws[] = {
		SYM("SEEK_SET", SEEK_SET), SYM("SEEK_CUR", SEEK_CUR), SYM("SEEK_END", SEEK_END),
		SYM("SEEK_DATA", 3), SYM("SEEK_HOLE", 4),
	};
	int64_t v;
	/* nearly always one of the three, alone: what symflags makes of it */
	if (a.n == 8 && !memcmp(a.s, "SEEK_", 5)) {
		for (int k = 0; k < 3; k++)
			if (!memcmp(a.s + 5, ws[k].name + 5, 3)) {
				*w = (int)ws[k].val;
				return 0;
			}
	}
	if (symflags(ws, 5, a.s, a.n, &v))
		return -EINVAL;
	*w = (int)v;
	return 0;
}

/* errno names: the C library's for 1..199 (strerrorname_np), then the
 * kernel's own that strace prints; a hash of them made at the first use
 * (one thread parses), 512 slots for at most 207 names. */
#define ERRNO_SLOTS 512
static struct { const char *name; size_t len; int val; } errno_tab[ERRNO_SLOTS];

static uint32_t errno_slot(const char *s, size_t n)
{
	return name_hash(s, n) & (ERRNO_SLOTS - 1);
}

static void errno_put(const char *name, size_t len, int val)
{
	uint32_t h = errno_slot(name, len);
	while (errno_tab[h].name) {
		if (errno_tab[h].len == len && !memcmp(errno_tab[h].name, name, len))
			return;         /* the first number for a name stays */
		h = (h + 1) & (ERRNO_SLOTS - 1);
	}
	errno_tab[h].name = name;
	errno_tab[h].len = len;
	errno_tab[h].val = val;
}

int strace_errno(const char *name, size_t len)
{
	static const struct sym extra[] = {
		SYM("ERESTARTSYS", 512), SYM("ERESTARTNOINTR", 513), SYM("ERESTARTNOHAND", 514),
		SYM("ENOIOCTLCMD", 515), SYM("ERESTART_RESTARTBLOCK", 516),
		SYM("EWOULDBLOCK", EAGAIN), SYM("EDEADLOCK", EDEADLK), SYM("ENOTSUP", EOPNOTSUPP),
	};
	static bool made;
	if (!made) {
		for (int i = 1; i < 200; i++) {
			const char *n = strerrorname_np(i);
			if (n)
				errno_put(n, strlen(n), i);
		}
		for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
			errno_put(extra[i].name, extra[i].len, (int)extra[i].val);
		made = true;
	}
	if (!len)
		return 0;
	for (uint32_t h = errno_slot(name, len); errno_tab[h].name; h = (h + 1) & (ERRNO_SLOTS - 1))
		if (errno_tab[h].len == len && !memcmp(errno_tab[h].name, name, len))
			return errno_tab[h].val;
	return 0;
}

/* Sum of iov_len over an iovec array; *trunc when strace cut the array. */
static int iovsum(struct span a, uint64_t *sum, int *trunc)
{
	a = trim(a);
	*sum = 0;
	*trunc = 0;
	if (a.n < 2 || a.s[0] != '[' || a.s[a.n - 1] != ']')
		return -EINVAL;
	struct span el[1];
	int ne;
	size_t end;
	/* walk elements one by one (arrays may be long) */
	const char *s = a.s + 1;
	size_t n = a.n - 2, i = 0;
	while (i < n) {
		/* find the end of this element: next top-level comma */
		size_t j = i;
		int depth = 0;
		while (j < n) {
			char c = s[j];
			if (c == '"') {
				for (j++; j < n && s[j] != '"'; j++)
					if (s[j] == '\\')
						j++;
			} else if (c == '{' || c == '[' || c == '(') {
				depth++;
			} else if (c == '}' || c == ']' || c == ')') {
				depth--;
			} else if (c == ',' && depth == 0) {
				break;
			}
			j++;
		}
		struct span e = trim((struct span){ s + i, (j < n ? j : n) - i });
		i = j + 1;
		if (e.n == 3 && !memcmp(e.s, "...", 3)) {
			*trunc = 1;
			continue;
		}
		if (e.n < 2 || e.s[0] != '{' || e.s[e.n - 1] != '}')
			return -EINVAL;
		struct span f[4];
		if (split(e.s + 1, e.n - 2, 0, f, 4, &ne, &end) || ne < 2)
			return -EINVAL;
		struct span lenf = f[ne < 4 ? ne - 1 : 3];
		for (int k = 0; k < ne && k < 4; k++)
			if (f[k].n > 8 && !memcmp(f[k].s, "iov_len=", 8))
				lenf = (struct span){ f[k].s + 8, f[k].n - 8 };
		int64_t v;
		if (num(lenf, &v, NULL) || v < 0)
			return -EINVAL;
		*sum += (uint64_t)v;
	}
	(void)el;
	return 0;
}

/* Find "flags=VALUE" in s and decode CLONE_THREAD / CLONE_FILES. */
static int64_t cloneflags(const char *s, size_t n)
{
	const char *f = memmem(s, n, "flags=", 6);
	while (f && f > s && is_name_char((unsigned char)f[-1]))
		f = memmem(f + 6, n - (size_t)(f + 6 - s), "flags=", 6);
	if (!f)
		return 0;
	f += 6;
	size_t m = 0;
	while (f + m < s + n && f[m] != ',' && f[m] != '}' && f[m] != ')')
		m++;
	int64_t v = 0;
	if (!num((struct span){ f, m }, &v, NULL))
		return v;
	v = 0;
	if (memmem(f, m, "CLONE_THREAD", 12))
		v |= CLONE_THREAD;
	if (memmem(f, m, "CLONE_FILES", 11))
		v |= CLONE_FILES;
	if (memmem(f, m, "CLONE_VM", 8))
		v |= CLONE_VM;
	return v;
}

/* ---- timestamps ----------------------------------------------------------- */
enum { TS_NONE, TS_TOD, TS_EPOCH, TS_REL };

/* The most seconds secfrac() takes: their ns, fraction included, below 2^63. */
#define SECFRAC_MAX 9223372035ull

/* Parse "D+[.D+]" at s; returns chars used, 0 none (or more seconds than
 * SECFRAC_MAX).  Value in ns. */
static size_t secfrac(const char *s, size_t n, uint64_t *ns, uint64_t *ipart)
{
	size_t i = 0;
	uint64_t ip = 0, fr = 0, c;
	for (unsigned k = 8; k == 8 && i < n; i += k) {
		k = scan_dec8(s + i, n - i, &c);
		ip = ip * scan_pow10[k] + c;    /* wraps past 20 digits: refused below */
	}
	/* seconds whose nanoseconds do not fit 63 bits (beyond 2262, or a
	 * duration of 292 years) are no time: they would wrap */
	if (!i || i > 10 || ip > SECFRAC_MAX)
		return 0;
	if (i < n && s[i] == '.') {
		unsigned kept = 0;              /* the first 9 digits are the ns */
		i++;
		for (unsigned k = 8; k == 8 && i < n; i += k) {
			k = scan_dec8(s + i, n - i, &c);
			unsigned take = k < 9 - kept ? k : 9 - kept;
			fr = fr * scan_pow10[take] + (take < k ? c / scan_pow10[k - take] : c);
			kept += take;
		}
		fr *= scan_pow10[9 - kept];
	}
	*ipart = ip;
	*ns = ip * 1000000000ull + fr;
	return i;
}

#define TS_EXPECTED "a timestamp (HH:MM:SS[.frac], epoch or -r seconds)"

/* "[pid N] " (stderr output of -f); -Y adds "<comm>" after N. */
static const char *bracket_pid(const char *l, size_t len, size_t *ip, int64_t *pid)
{
	size_t i = 5;
	uint64_t v = 0;
	while (i < len && l[i] == ' ')
		i++;
	size_t st = i;
	if (digits(l, len, &i, 10, &v) || v > INT64_MAX)
		return "a pid that fits 64 bits";
	if (i > st && i < len && l[i] == '<')        /* -Y: N<comm> */
		while (i < len && l[i] != ']')
			i++;
	if (i == st || i >= len || l[i] != ']')
		return "'[pid N]'";
	*pid = (int64_t)v;
	*ip = i + 1;
	return NULL;
}

/* The timestamp whose digits start at st and run to i: -tt "HH:MM:SS.frac",
 * -ttt epoch or -r seconds "S.frac".  *ip after it and its blanks. */
static const char *timestamp(const char *l, size_t len, size_t st, size_t *ip, int *kind,
			     uint64_t *ts)
{
	size_t i = *ip;
	uint64_t ns, ipart;
	if (i < len && l[i] == ':') {
		uint64_t h = 0, m = 0;
		for (size_t k = st; k < i; k++)
			h = h * 10 + (uint64_t)(l[k] - '0');
		size_t j = i + 1, ms = j;
		while (j < len && l[j] >= '0' && l[j] <= '9')
			m = m * 10 + (uint64_t)(l[j++] - '0');
		if (j == ms || j >= len || l[j] != ':' || i - st > 2 || j - ms > 2 || h > 23 ||
		    m > 59)
			return TS_EXPECTED;
		size_t u = secfrac(l + j + 1, len - j - 1, &ns, &ipart);
		if (!u || ipart > 60)
			return TS_EXPECTED;
		*ts = (h * 3600 + m * 60) * 1000000000ull + ns;
		*kind = TS_TOD;
		i = j + 1 + u;
	} else if (i < len && l[i] == '.') {
		size_t u = secfrac(l + st, len - st, &ns, &ipart);
		if (!u)
			return TS_EXPECTED;
		*ts = ns;
		*kind = ipart >= 100000000 ? TS_EPOCH : TS_REL;
		i = st + u;
	} else if (i > st && i - st <= 19 && i < len && l[i] == ' ') {
		/* whole seconds (precision:s), after a pid column */
		uint64_t sec = 0;
		for (size_t k = st; k < i; k++)
			sec = sec * 10 + (uint64_t)(l[k] - '0');
		if (sec > UINT64_MAX / 1000000000ull)
			return TS_EXPECTED;
		*ts = sec * 1000000000ull;
		*kind = sec >= 100000000 ? TS_EPOCH : TS_REL;
	} else {
		return TS_EXPECTED;
	}
	if (i >= len || l[i] != ' ')
		return TS_EXPECTED;
	while (i < len && l[i] == ' ')
		i++;
	*ip = i;
	return NULL;
}

/* -i: "[00007f3c2a1b2c3d] " instruction pointer ("[????????????????] "
 * where strace does not know it: a process's "+++ exited" line); -n:
 * "[  59] " syscall number (right-aligned); both may be given.  Returns
 * the position after. */
static size_t skip_ip_and_number(const char *l, size_t len, size_t i)
{
	for (int k = 0; k < 2 && i + 2 < len && l[i] == '['; k++) {
		size_t j = i + 1;
		while (j < len && l[j] == ' ')
			j++;
		size_t d = j;
		while (j < len && (hexval((unsigned char)l[j]) >= 0 || l[j] == '?'))
			j++;
		if (j == d || j + 1 >= len || l[j] != ']' || l[j + 1] != ' ')
			break;
		i = j + 1;
		while (i < len && l[i] == ' ')
			i++;
	}
	return i;
}

/*
 * Parse the prefix: pid ("N  " column or "[pid N] "), then a timestamp.
 * On return *pos is at the event text.  Returns NULL or what was expected.
 */
static const char *prefix(const char *l, size_t len, size_t *pos, int64_t *pid, int *bracketed,
			  int *kind, uint64_t *ts)
{
	size_t i = 0;
	const char *why;
	*pid = STRACE_NOPID;
	*bracketed = 0;
	*kind = TS_NONE;
	*ts = 0;
	if (len >= 5 && !memcmp(l, "[pid ", 5)) {
		if ((why = bracket_pid(l, len, &i, pid)))
			return why;
		*bracketed = 1;
	}
	while (i < len && l[i] == ' ')
		i++;
	size_t st = i;
	uint64_t v = 0;
	bool ovf;
	i += scan_decn(l + i, len - i, &v, &ovf);
	if (i > st && i < len && l[i] == '<' && !*bracketed) {   /* -Y: N<comm> */
		const char *gt = memchr(l + i, '>', len - i);
		if (gt && (size_t)(gt - l) + 1 < len && gt[1] == ' ')
			i = (size_t)(gt - l) + 1;
	}
	/* a first number no pid can be (PID_MAX_LIMIT is 4194304), digits
	 * only, with no number after it: epoch seconds without a pid column
	 * (--absolute-timestamps=unix,precision:s), timestamp() reads it */
	bool epoch_s = i > st && i < len && l[i] == ' ' && !*bracketed && !ovf &&
		       v >= 100000000 && v <= UINT64_MAX / 1000000000ull &&
		       (unsigned)(l[i - 1] - '0') < 10 &&
		       !(i + 1 < len && l[i + 1] >= '0' && l[i + 1] <= '9');
	if (!epoch_s && i > st && i < len && l[i] == ' ' && !*bracketed) {
		/* a pid column */
		if (ovf || v > INT64_MAX)
			return "a pid that fits 64 bits";
		*pid = (int64_t)v;
		while (i < len && l[i] == ' ')
			i++;
		st = i;
		while (i < len && l[i] >= '0' && l[i] <= '9')
			i++;
	}
	if (i == st + 2 && len - st > 15 && l[st + 15] == ' ' && tx_clock15n(l + st, ts)) {
		/* -tt's "HH:MM:SS.uuuuuu ", the usual case, at once */
		*kind = TS_TOD;
		for (i = st + 16; i < len && l[i] == ' '; i++)
			;
	} else if (i > st) {
		if ((why = timestamp(l, len, st, &i, kind, ts)))
			return why;
	} else {
		i = st;
	}
	if (*kind != TS_NONE && i + 1 < len && l[i] == '(' && l[i + 1] == '+') {
		/* -r with -t, -tt or -ttt: "(+     0.000194) " after the time
		 * of day or epoch, which is kept */
		size_t j = i + 2;
		while (j < len && (l[j] == ' ' || l[j] == '.' || (l[j] >= '0' && l[j] <= '9')))
			j++;
		if (j + 1 >= len || l[j] != ')' || l[j + 1] != ' ')
			return TS_EXPECTED;
		for (i = j + 1; i < len && l[i] == ' '; i++)
			;
	}
	*pos = skip_ip_and_number(l, len, i);
	return NULL;
}

/* A line's prefix as prefix() read it, kept by the -ff merge (which reads
 * it for the line's timestamp) so that the parse does not read it again:
 * valid for that line and length only. */
struct sprefix {
	const char *line;
	size_t len;
	const char *why;
	size_t pos;
	int64_t pid;
	int bracketed, kind;
	uint64_t ts;
};

static void prefix_read(struct sprefix *x, const char *l, size_t len)
{
	x->line = l;
	x->len = len;
	x->why = prefix(l, len, &x->pos, &x->pid, &x->bracketed, &x->kind, &x->ts);
}

/*
 * A -tt clock that went back (ts, the time of day with the days already
 * passed, below src->last_ts, the file's time before).  Past midnight it
 * starts again from 00:00: a step back of more than 12 hours is taken for
 * a new day (a night job's parent silent in wait4 from 22:00 to 01:30 is
 * one).  A smaller step back (a clock set back, an edited capture, or
 * lines of processes spliced one after the other) keeps its time: the
 * builder times a process's op that comes out earlier than its op before
 * as that one, and counts it (clock_orphan_notes says so).  The time to use.
 */
static __attribute__((noinline, cold)) uint64_t tod_back(struct strace_src *src, uint64_t ts)
{
	const uint64_t day = 86400ull * 1000000000ull;
	if (ts + day / 2 < src->last_ts) {
		src->day_off += day;
		return ts + day;
	}
	return ts;
}

static inline uint64_t norm_ts(struct strace_src *src, int kind, uint64_t ts)
{
	switch (kind) {
	case TS_TOD:
		ts += src->day_off;
		if (__builtin_expect(ts < src->last_ts, 0))
			ts = tod_back(src, ts);
		src->last_ts = ts;
		return ts;
	case TS_EPOCH:
		src->last_ts = ts;
		return ts;
	case TS_REL:
		if (src->no_rel)
			return 0;
		src->rel_acc += ts;
		return src->rel_acc;
	default:
		return 0;
	}
}

/* ---- API ------------------------------------------------------------------ */
int strace_parser_new(struct strace_parser **out, strace_emit_fn emit, void *arg)
{
	struct strace_parser *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->emit = emit;
	p->arg = arg;
	sc_event_init(&p->ev0);
	/* every line the general way: for tests that compare the two */
	const char *g = getenv("REPLAY_STRACE_GENERAL");
	p->general_only = g && *g && strcmp(g, "0");
	for (int i = 0; i < 16; i++)
		p->seen_fast[i] = i + 1;        /* in no pid's slot: empty */
	_Static_assert(NCALLS < sizeof(p->call_w) / sizeof(p->call_w[0]), "call_w too small");
	for (size_t i = 0; i < NCALLS; i++) {
		memcpy(p->call_w[i], calls[i].name, strlen(calls[i].name));
		uint32_t h = words_slot(p->call_w[i]);
		while (p->callidx[h])
			h = (h + 1) % CALLHASH;
		p->callidx[h] = (uint8_t)(i + 1);
	}
	*out = p;
	return 0;
}

/* The name of a call the table does not know, whose words are w (n <= 16
 * bytes), as the event gives it to the builder: always at the same
 * address (which the builder's count of skipped calls by name remembers,
 * so that the next one is counted at once), not copied for each line.
 * NULL when the parser has more such names than it keeps. */
static const char *skip_name(struct strace_parser *p, const uint64_t w[2])
{
	for (uint32_t h = words_slot(w) % NAMES;; h = (h + 1) % NAMES) {
		struct kept_name *x = &p->names[h];
		if (x->w[0] == w[0] && x->w[1] == w[1] && x->s[0])
			return x->s;
		if (!x->s[0]) {
			if (p->nnames >= NAMES / 2)
				return NULL;
			p->nnames++;
			x->w[0] = w[0];
			x->w[1] = w[1];
			memcpy(x->s, w, 16);
			x->s[16] = 0;
			return x->s;
		}
	}
}

/* The words of the name s[0..n) (no NUL in it): its first 16 bytes,
 * NUL-padded. */
static inline void name_words(const char *s, size_t n, uint64_t w[2])
{
	w[0] = w[1] = 0;
	memcpy(w, s, n < 16 ? n : 16);
}

/* The table's entry for a name given as its words (words_slot()), NULL
 * when it has none. */
static inline const struct callspec *lookup_words(const struct strace_parser *p,
						  const uint64_t w[2])
{
	uint32_t h = words_slot(w);
	while (p->callidx[h]) {
		size_t i = p->callidx[h] - 1u;
		if (p->call_w[i][0] == w[0] && p->call_w[i][1] == w[1])
			return &calls[i];
		h = (h + 1) % CALLHASH;
	}
	return NULL;
}

/* The entry for the name s[0..n) (no NUL in it); no name in the table is
 * longer than 16 bytes. */
static const struct callspec *lookup(const struct strace_parser *p, const char *s, size_t n)
{
	uint64_t w[2];
	if (n > 16)
		return NULL;
	name_words(s, n, w);
	return lookup_words(p, w);
}

void strace_src_init(struct strace_src *src, const char *name, int64_t pid)
{
	*src = (struct strace_src){ .name = name, .pid = pid, .main_pid = -1, .main_alias = -1,
				    .main0 = -1 };
}

void strace_src_release(struct strace_src *src)
{
	free(src->carry);
	src->carry = NULL;
	src->carry_len = src->carry_cap = 0;
}

uint64_t strace_parser_syscalls(const struct strace_parser *p)
{
	return p->syscalls;
}

static void clones_del(struct strace_parser *p, int64_t pid)
{
	for (size_t i = 0; i < p->nclones; i++)
		if (p->clones[i] == pid) {
			p->clones[i] = p->clones[--p->nclones];
			return;
		}
}

static int mark_child(struct strace_parser *p, int64_t pid)
{
	return imap_put(&p->seen, pid, (void *)(uintptr_t)(pidbits(p, pid) | CHILD));
}

/* The clone in flight in `parent` returned `child` (the trace shows the
 * child's lines before it does): the builder hears of the clone now,
 * with the flags of the call as far as strace printed it. */
static int child_of(struct strace_parser *p, const char *src, int64_t parent, int64_t child,
		    struct rerr *e)
{
	struct pend *pe = imap_get(&p->pend, parent);
	if (!pe || !pe->active)
		return 0;
	struct sc_event ev;
	sc_event_init(&ev);
	ev.src = src;
	ev.line = pe->line;
	ev.pid = parent;
	ev.ts_ns = pe->ts;
	ev.call = SC_CLONE;
	ev.name = "clone";
	ev.flags = cloneflags(pe->text, pe->len);
	ev.ret = child;
	int rc = mark_child(p, child);
	if (rc)
		return rc;
	return p->emit(p->arg, &ev, e);
}

/* pid at the end of the array *v of *n (room for *cap). */
static int pids_push(int64_t **v, size_t *n, size_t *cap, int64_t pid)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		int64_t *nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = pid;
	return 0;
}

/*
 * An event of a pid first seen while several clones were in flight
 * (threads of several MPI ranks starting at once): on a descriptor that
 * -y names with an absolute path, the child's parent is the one process
 * among those cloning whose table holds that descriptor on that file,
 * when exactly one table does (and the child did not open it itself).  Else,
 * as before, the child waits for its clone to return, and what it did on
 * inherited descriptors until then is replayed as on descriptors never
 * opened.  A clone's return takes its child off the list.
 */
static __attribute__((noinline)) int orphan_event(struct strace_parser *p,
						  const struct sc_event *ev, struct rerr *e)
{
	int64_t child = ev->call == SC_CLONE ? ev->ret : ev->pid;
	size_t i = 0;
	while (i < p->norphans && p->orphans[i] != child)
		i++;
	if (i == p->norphans)
		return 0;
	if (ev->call == SC_CLONE || ev->call == SC_EXIT) {
		p->orphans[i] = p->orphans[--p->norphans];
		return 0;
	}
	if (ev->fd < 0 || !ev->fdpath || ev->fdpath[0] != '/' || ev->call == SC_OPEN ||
	    p->probe(p->arg, child, ev->fd, NULL))
		return 0;
	int64_t parent = -1;
	uintptr_t table = 0;
	for (size_t c = 0; c < p->nclones; c++) {
		uintptr_t t = p->probe(p->arg, p->clones[c], ev->fd, ev->fdpath);
		if (!t || t == table)
			continue;       /* (threads of one process: one table) */
		if (parent >= 0)
			return 0;       /* two could be: none is taken */
		parent = p->clones[c];
		table = t;
	}
	if (parent < 0)
		return 0;
	p->orphans[i] = p->orphans[--p->norphans];
	return child_of(p, ev->src, parent, child, e);
}

/* Every event leaves the parser here. */
static inline int emit_ev(struct strace_parser *p, const struct sc_event *ev, struct rerr *e)
{
	if (__builtin_expect(p->norphans != 0, 0)) {
		int rc = orphan_event(p, ev, e);
		if (rc)
			return rc;
	}
	return p->emit(p->arg, ev, e);
}

void strace_parser_probe(struct strace_parser *p, strace_fd_probe_fn probe)
{
	p->probe = probe;
}

/* First line of pid: while exactly one clone is in flight, pid is its child. */
static __attribute__((noinline)) int note_pid_slow(struct strace_parser *p,
						    const struct strace_src *src, int64_t pid,
						    unsigned long lineno, struct rerr *e)
{
	unsigned bits = pidbits(p, pid);
	if (bits & SEEN) {
		p->seen_fast[(uint64_t)pid & 15] = pid;
		return 0;
	}
	int rc = imap_put(&p->seen, pid, (void *)(uintptr_t)(bits | SEEN));
	if (rc)
		return rc;
	p->seen_fast[(uint64_t)pid & 15] = pid;
	if (!p->nclones || (p->nclones == 1 && p->clones[0] == pid))
		return 0;
	if (p->nclones > 1) {
		for (size_t i = 0; i < p->nclones; i++)
			if (p->clones[i] == pid)
				return 0;
		return p->probe ? pids_push(&p->orphans, &p->norphans, &p->corphans, pid) : 0;
	}
	return child_of(p, src->name, p->clones[0], pid, e);
}

/* SEEN, once set, stays: most lines are of a pid the cache knows. */
static inline __attribute__((always_inline)) int note_pid(struct strace_parser *p,
							  const struct strace_src *src,
							  int64_t pid, unsigned long lineno,
							  struct rerr *e)
{
	if (p->seen_fast[(uint64_t)pid & 15] == pid)
		return 0;
	return note_pid_slow(p, src, pid, lineno, e);
}

static int emit_skip(struct strace_parser *p, const struct strace_src *src, int64_t pid,
		     unsigned long line, uint64_t ts, const char *name, struct rerr *e)
{
	struct sc_event ev;
	sc_event_init(&ev);
	ev.src = src->name;
	ev.line = line;
	ev.pid = pid;
	ev.ts_ns = ts;
	ev.call = SC_SKIP;
	ev.name = name;
	return emit_ev(p, &ev, e);
}

static int drop_pending(struct strace_parser *p, const struct strace_src *src, int64_t pid,
			struct rerr *e)
{
	struct pend *pe = imap_get(&p->pend, pid);
	if (!pe || !pe->active)
		return 0;
	pe->active = 0;
	clones_del(p, pid);
	char name[80];
	snprintf(name, sizeof(name), "unfinished:%s", pe->name);
	return emit_skip(p, src, pid, pe->line, pe->ts, name, e);
}

static struct aioq *aioq_of(struct strace_parser *p, int64_t pid)
{
	struct aioq *q = imap_get(&p->aio, pid);
	if (q)
		return q;
	q = calloc(1, sizeof(*q));
	if (q && imap_put(&p->aio, pid, q)) {
		free(q);
		q = NULL;
	}
	return q;
}

static int aioq_push(struct strace_parser *p, int64_t pid, uint64_t data, uint64_t id)
{
	struct aioq *q = aioq_of(p, pid);
	if (!q)
		return -ENOMEM;
	if (q->n == q->cap) {
		size_t nc = q->cap ? q->cap * 2 : 16;
		uint64_t *nd = realloc(q->data, nc * sizeof(*nd));
		if (!nd)
			return -ENOMEM;
		q->data = nd;
		uint64_t *ni = realloc(q->id, nc * sizeof(*ni));
		if (!ni)
			return -ENOMEM;
		q->id = ni;
		q->cap = nc;
	}
	q->data[q->n] = data;
	q->id[q->n++] = id;
	return 0;
}

/* The oldest iocb in flight with that aio_data (any, when !match): its
 * async id (0: a sync one), removed; -1 when none. */
static int64_t aioq_pop(struct strace_parser *p, int64_t pid, uint64_t data, bool match)
{
	struct aioq *q = imap_get(&p->aio, pid);
	if (!q)
		return -1;
	for (size_t k = 0; k < q->n; k++) {
		if (match && q->data[k] != data)
			continue;
		int64_t id = (int64_t)q->id[k];
		memmove(&q->data[k], &q->data[k + 1], (q->n - k - 1) * sizeof(*q->data));
		memmove(&q->id[k], &q->id[k + 1], (q->n - k - 1) * sizeof(*q->id));
		q->n--;
		return id;
	}
	return -1;
}

/* The fields of one strace struct "{k=v, k=v, ...}" by name; the values
 * of absent fields stay as they were. */
struct kv {
	const char *key;
	struct span *val;
};

static int struct_fields(struct span el, struct kv *want, int nwant)
{
	struct span f[12];
	int ne;
	size_t end;
	if (el.n < 2 || el.s[0] != '{' || el.s[el.n - 1] != '}' ||
	    split(el.s + 1, el.n - 2, 0, f, 12, &ne, &end))
		return -EINVAL;
	for (int k = 0; k < ne && k < 12; k++) {
		const char *eq = memchr(f[k].s, '=', f[k].n);
		if (!eq)
			continue;
		size_t kl = (size_t)(eq - f[k].s);
		for (int w = 0; w < nwant; w++)
			if (strlen(want[w].key) == kl && !memcmp(f[k].s, want[w].key, kl))
				*want[w].val = trim((struct span){ eq + 1, f[k].n - kl - 1 });
	}
	return 0;
}

/* The elements of an array "[a, b, ...]" one by one: *i is the position in
 * it; 1 and *el for the next one, 0 at the end, -EINVAL malformed. */
static int array_next(struct span arr, size_t *i, struct span *el)
{
	const char *s = arr.s + 1;
	size_t n = arr.n - 2, end;
	int ne;
	while (*i < n && (s[*i] == ',' || s[*i] == ' '))
		(*i)++;
	if (*i >= n)
		return 0;
	if (split(s + *i, n - *i, 0, el, 1, &ne, &end) || !ne)
		return -EINVAL;
	*i = (size_t)(el->s + el->n - s);
	return 1;
}

static int64_t span_num(struct span v, int64_t dflt)
{
	int64_t x;
	return v.n && !num(v, &x, NULL) ? x : dflt;
}

/* A write's per-call sync flags (pwritev2's flags, an iocb's
 * aio_rw_flags), symbolic or a number: OPF_RWF_DSYNC, OPF_RWF_SYNC.  The
 * others change nothing a replay keeps (RWF_HIPRI polls, RWF_NOWAIT may
 * fail with EAGAIN where the traced call did not block; RWF_APPEND: the
 * caller). */
static uint8_t rwf_opflags(struct span fl)
{
	int64_t v;
	if (!num(fl, &v, NULL))
		return (uint8_t)((v & 0x2 ? OPF_RWF_DSYNC : 0) | (v & 0x4 ? OPF_RWF_SYNC : 0));
	return (uint8_t)((memmem(fl.s, fl.n, "RWF_DSYNC", 9) ? OPF_RWF_DSYNC : 0) |
			 (memmem(fl.s, fl.n, "RWF_SYNC", 8) ? OPF_RWF_SYNC : 0));
}

/* One iocb of io_submit: an async read or write (its wait comes with
 * io_getevents), or a sync done at once. */
static int one_iocb(struct strace_parser *p, const struct sc_event *ev, struct span el,
		    struct rerr *e)
{
	struct span op = { "", 0 }, fd = { "", 0 }, nb = { "", 0 }, off = { "", 0 }, buf = { "", 0 },
		    data = { "", 0 }, rwf = { "", 0 };
	struct kv want[] = { { "aio_lio_opcode", &op }, { "aio_fildes", &fd }, { "aio_nbytes", &nb },
			     { "aio_offset", &off }, { "aio_buf", &buf }, { "aio_data", &data },
			     { "aio_rw_flags", &rwf } };
	struct sc_event x = *ev;
	int trunc;
	uint64_t sum;
	if (struct_fields(el, want, 7) || fdarg(p, fd, &x.fd, &x.fdpath))
		return 1;
	int64_t nbytes = span_num(nb, 0);
	x.offset = span_num(off, 0);
	x.len = nbytes > 0 ? (uint64_t)nbytes : 0;
	x.async_id = 0;
#define OPIS(lit) (op.n == sizeof(lit) - 1 && !memcmp(op.s, lit, op.n))
	/* the opcode by name, or as a number (-X raw "1", -X verbose "1" and
	 * a comment): PREAD 0, PWRITE 1, FSYNC 2, FDSYNC 3, PREADV 7, PWRITEV 8 */
	int64_t opv = -1;
	if (OPIS("IOCB_CMD_PREAD"))
		opv = 0;
	else if (OPIS("IOCB_CMD_PWRITE"))
		opv = 1;
	else if (OPIS("IOCB_CMD_FSYNC"))
		opv = 2;
	else if (OPIS("IOCB_CMD_FDSYNC"))
		opv = 3;
	else if (OPIS("IOCB_CMD_PREADV"))
		opv = 7;
	else if (OPIS("IOCB_CMD_PWRITEV"))
		opv = 8;
	else if (num(op, &opv, NULL))
		opv = -1;
	if (opv == 0 || opv == 1) {
		x.call = opv == 0 ? SC_AREAD : SC_AWRITE;
	} else if (opv == 7 || opv == 8) {
		x.call = opv == 7 ? SC_AREAD : SC_AWRITE;
		x.iovcnt = nbytes > 0 ? (uint32_t)nbytes : 1;
		x.len = !iovsum(buf, &sum, &trunc) ? sum : 0;
	} else if (opv == 2 || opv == 3) {
		x.call = opv == 2 ? SC_FSYNC : SC_FDATASYNC;
		x.offset = SC_NOOFF;
	} else {
		x.call = SC_SKIP;
		x.name = "io_submit:other";
	}
#undef OPIS
	if (x.call == SC_AWRITE && rwf.n)
		x.opflags |= rwf_opflags(rwf);
	if (x.call == SC_AREAD || x.call == SC_AWRITE) {
		x.async_id = ++p->aio_next;
		x.ret = SC_RET_UNKNOWN;         /* its wait says how much moved */
	} else {
		x.ret = 0;
	}
	int rc = aioq_push(p, ev->pid, (uint64_t)span_num(data, 0), x.async_id);
	if (rc)
		return rerr_set(e, rc, "out of memory");
	return emit_ev(p, &x, e);
}

/*
 * io_submit(ctx, nr, [{aio_data=.., aio_lio_opcode=IOCB_CMD_PREAD,
 * aio_fildes=6</f>, aio_buf=.., aio_nbytes=4096, aio_offset=12288}, ...])
 * = N: the first N iocbs were queued, each an async submit (syncs done at
 * once), so the traced overlap is replayed by the async engines.  strace
 * does not print an iocb's address, so io_getevents' completions are
 * matched by aio_data to the oldest iocb in flight with it (fio and most
 * programs leave aio_data 0: then simply the oldest).
 */
static int io_submit_events(struct strace_parser *p, struct sc_event *ev, struct span arr,
			    int64_t nr, struct rerr *e)
{
	arr = trim(arr);
	if (arr.n < 2 || arr.s[0] != '[' || arr.s[arr.n - 1] != ']')
		return ev->ret < 0 ? 0 : 1;    /* an address: nothing known */
	int64_t limit = ev->ret < 0 || ev->ret == SC_RET_UNKNOWN ? 0 : ev->ret;
	if (limit > nr)
		limit = nr;
	size_t i = 0;
	struct span el;
	for (int64_t done = 0; done < limit; done++) {
		int r = array_next(arr, &i, &el);
		if (r < 0)
			return 1;
		if (!r || (el.n == 3 && !memcmp(el.s, "...", 3)))
			break;
		r = one_iocb(p, ev, el, e);
		if (r)
			return r;
	}
	return 0;
}

/* ---- decoding: one generic pass over the row, then the row's shape ------- */
struct dec {
	struct strace_parser *p;
	int64_t ns;             /* the line's capture's pids (strace_src.ns) */
	const struct callspec *cs;
	struct span a[MAXARGS];
	int na;
	const char *body;       /* text after '(' and its top-level ')'   */
	size_t close;
	struct span len_text;   /* rw_args: the length's digits (up to 8) */
	struct sc_event ev;
	struct rerr *e;
};

enum { DEC_EMIT = 0, DEC_DONE = 1, DEC_BAD = 2, DEC_BAD_IOCB = 3, DEC_BAD_RAW = 4, DEC_BAD_NEG = 5,
       DEC_BAD_FALLOC = 6, DEC_BAD_MORE = 7, DEC_BAD_END = 8, DEC_BAD_NUL = 9 };

/* What a DEC_BAD* line was expected to hold (bad_line's "expected ..."). */
static const char *const dec_why[] = {
	[DEC_BAD] = "arguments of the form strace prints",
	[DEC_BAD_IOCB] = "an iocb array",
	[DEC_BAD_RAW] = "a path in quotes, not an address (a capture made with strace -e raw=..."
			" has no file names: capture without it)",
	[DEC_BAD_NEG] = "a length and offset >= 0 (the call succeeded)",
	[DEC_BAD_FALLOC] = "a fallocate mode of FALLOC_FL_* names strace prints or numbers",
	[DEC_BAD_MORE] = "a result no larger than the count asked for",
	[DEC_BAD_END] = "an offset plus length within 2^63-1 bytes (the call succeeded)",
	[DEC_BAD_NUL] = "a file name without a NUL byte (\\0) in it",
};

static struct span arg(const struct dec *d, int k)
{
	return k >= 0 && d->na > k ? d->a[k] : (struct span){ "", 0 };
}

static int fd_at(struct dec *d, int k, int64_t *fd, const char **deco)
{
	return fdarg(d->p, arg(d, k), fd, deco) ? DEC_BAD : 0;
}

static int num_at(const struct dec *d, int k, int64_t *v)
{
	return num(arg(d, k), v, NULL) ? DEC_BAD : 0;
}

/* The row's argument columns into the event (but the fd when fd_read:
 * fd_args() read it). */
static int fill_generic(struct dec *d, bool fd_read)
{
	const struct callspec *cs = d->cs;
	struct sc_event *ev = &d->ev;
	int64_t v;
	bool nul = false;       /* a name held an escaped \0 */
	if (cs->fd >= 0 && !fd_read && fd_at(d, cs->fd, &ev->fd, &ev->fdpath))
		return DEC_BAD;
	if (cs->dirfd >= 0 && fd_at(d, cs->dirfd, &ev->dirfd, &ev->fdpath))
		return DEC_BAD;
	if (cs->path >= 0) {
		struct span pa = trim(arg(d, cs->path));
		ev->path = strarg(d->p, pa, &ev->path_flags, &nul);
		/* a file opened by an address, not a name: strace -e raw= */
		if (!ev->path && cs->call == SC_OPEN && ev->ret >= 0 && pa.n > 2 &&
		    pa.s[0] == '0' && pa.s[1] == 'x')
			return DEC_BAD_RAW;
	}
	if (cs->path2 >= 0)
		ev->path2 = strarg(d->p, arg(d, cs->path2), NULL, &nul);
	if (nul)
		return DEC_BAD_NUL;
	if (cs->len >= 0) {
		if (num_at(d, cs->len, &v))
			return DEC_BAD;
		ev->len = (uint64_t)v;
	}
	if (cs->off >= 0 && num_at(d, cs->off, &ev->offset))
		return DEC_BAD;
	if (cs->flags >= 0 && cs->call == SC_OPEN &&
	    strace_oflags(arg(d, cs->flags).s, arg(d, cs->flags).n, &ev->flags))
		return DEC_BAD;
	/* a mode is optional (open without O_CREAT prints none) */
	if (cs->mode >= 0 && cs->shape != SH_FALLOCATE && d->na > cs->mode &&
	    num_at(d, cs->mode, &ev->mode))
		return DEC_BAD;
	return 0;
}

static int sh_creat(struct dec *d)
{
	d->ev.flags = O_CREAT | O_WRONLY | O_TRUNC;
	return DEC_EMIT;
}

/* openat2(dirfd, path, {flags=..., mode=..., resolve=...}, size) */
static int sh_openat2(struct dec *d)
{
	struct span f[4];
	int nf = 0;
	size_t end;
	struct span s = trim(arg(d, 2));
	if (s.n < 2 || s.s[0] != '{' || split(s.s + 1, s.n - 2, 0, f, 4, &nf, &end))
		return DEC_BAD;
	for (int k = 0; k < nf && k < 4; k++) {
		if (f[k].n > 6 && !memcmp(f[k].s, "flags=", 6)) {
			if (strace_oflags(f[k].s + 6, f[k].n - 6, &d->ev.flags))
				return DEC_BAD;
		} else if (f[k].n > 5 && !memcmp(f[k].s, "mode=", 5)) {
			if (num((struct span){ f[k].s + 5, f[k].n - 5 }, &d->ev.mode, NULL))
				return DEC_BAD;
		}
	}
	return DEC_EMIT;
}

/* readv/writev(fd, iov, cnt), preadv/pwritev(fd, iov, cnt, off),
 * preadv2/pwritev2(fd, iov, cnt, off, flags): one transfer of the sum. */
static int sh_iov(struct dec *d)
{
	struct sc_event *ev = &d->ev;
	int64_t cnt = 1, fv = 0;
	int trunc;
	uint64_t sum = 0;
	if (num_at(d, 2, &cnt))
		return DEC_BAD;
	ev->iovcnt = cnt > 0 ? (uint32_t)cnt : 1;
	if (ev->offset < 0)
		ev->offset = SC_NOOFF;     /* preadv2 with -1: current position */
	if (d->cs->flags >= 0 && d->na > d->cs->flags) {
		/* RWF_APPEND (0x10): appended like a write on O_APPEND */
		struct span fl = trim(arg(d, d->cs->flags));
		if (memmem(fl.s, fl.n, "RWF_APPEND", 10) || (!num(fl, &fv, NULL) && (fv & 0x10)))
			ev->flags = O_APPEND;
		if (ev->call == SC_WRITE)
			ev->opflags |= rwf_opflags(fl);
	}
	if (!iovsum(arg(d, 1), &sum, &trunc)) {
		if (trunc && ev->ret > 0 && (uint64_t)ev->ret > sum)
			sum = (uint64_t)ev->ret;
	} else {
		/* an address: strace could not read the array */
		sum = ev->ret > 0 ? (uint64_t)ev->ret : 0;
	}
	ev->len = sum;
	return DEC_EMIT;
}

/* lseek(fd, off, whence) = pos; _llseek(fd, hi|off, [result], whence) = 0 */
static int sh_lseek(struct dec *d)
{
	struct sc_event *ev = &d->ev;
	int64_t v;
	if (whencearg(arg(d, d->cs->flags), &ev->whence))
		return DEC_BAD;
	if (d->cs->flags == 3 && ev->ret == 0) {
		struct span r = trim(arg(d, 2));
		if (r.n >= 2 && r.s[0] == '[' && r.s[r.n - 1] == ']' &&
		    !num((struct span){ r.s + 1, r.n - 2 }, &v, NULL))
			ev->ret = v;
		else
			ev->ret = SC_RET_UNKNOWN;
	}
	return DEC_EMIT;
}

/* fallocate's mode: every name strace prints (linux/falloc.h), and bits
 * it has no name for as numbers ("FALLOC_FL_KEEP_SIZE|0x100"), kept */
static const struct sym falloc_syms[] = {
	SYM("FALLOC_FL_KEEP_SIZE", 0x01), SYM("FALLOC_FL_PUNCH_HOLE", 0x02),
	SYM("FALLOC_FL_NO_HIDE_STALE", 0x04), SYM("FALLOC_FL_COLLAPSE_RANGE", 0x08),
	SYM("FALLOC_FL_ZERO_RANGE", 0x10), SYM("FALLOC_FL_INSERT_RANGE", 0x20),
	SYM("FALLOC_FL_UNSHARE_RANGE", 0x40), SYM("FALLOC_FL_WRITE_ZEROES", 0x80),
};

int strace_falloc_mode(const char *s, size_t len, int64_t *mode)
{
	int64_t v;
	if (symflags(falloc_syms, sizeof(falloc_syms) / sizeof(falloc_syms[0]), s, len, &v) ||
	    v < 0 || v > (int64_t)UINT32_MAX)
		return -EINVAL;
	*mode = v;
	return 0;
}

static int sh_fallocate(struct dec *d)
{
	struct span m = arg(d, d->cs->mode);
	return strace_falloc_mode(m.s, m.n, &d->ev.mode) ? DEC_BAD_FALLOC : DEC_EMIT;
}

static int sh_dup2(struct dec *d)
{
	const char *deco;
	return fd_at(d, 1, &d->ev.fd2, &deco) ? DEC_BAD : DEC_EMIT;
}

static int sh_fcntl(struct dec *d)
{
	struct span c = trim(arg(d, 1));
	int64_t v;
	/* -X raw / -X verbose print the command as a number: F_DUPFD is 0,
	 * F_DUPFD_CLOEXEC 1030 */
	if ((c.n == 7 && !memcmp(c.s, "F_DUPFD", 7)) ||
	    (c.n == 15 && !memcmp(c.s, "F_DUPFD_CLOEXEC", 15)) ||
	    (!num(c, &v, NULL) && (v == 0 || v == 1030)))
		return fd_at(d, 0, &d->ev.fd, &d->ev.fdpath) ? DEC_BAD : DEC_EMIT;
	/* F_SETFL (4): the new file status flags, symbolic or a number
	 * ("O_WRONLY|O_SYNC|O_LARGEFILE", "0x101001"); the builder keeps
	 * what Linux lets it change (O_APPEND, O_DIRECT, ...) */
	if (((c.n == 7 && !memcmp(c.s, "F_SETFL", 7)) || (!num(c, &v, NULL) && v == 4)) &&
	    !strace_oflags(arg(d, 2).s, arg(d, 2).n, &d->ev.flags)) {
		d->ev.call = SC_SETFL;
		return fd_at(d, 0, &d->ev.fd, &d->ev.fdpath) ? DEC_BAD : DEC_EMIT;
	}
	d->ev.call = SC_SKIP;
	return DEC_EMIT;
}

static int sh_unlinkat(struct dec *d)
{
	struct span f = arg(d, 2);
	int64_t v;
	/* -X raw: AT_REMOVEDIR is 0x200 */
	if (memmem(f.s, f.n, "AT_REMOVEDIR", 12) || (!num(f, &v, NULL) && (v & 0x200)))
		d->ev.call = SC_RMDIR;
	return DEC_EMIT;
}

/* renameat(olddirfd, old, newdirfd, new[, flags]), linkat(...): the new
 * name's own directory, newdirfd (and its -y decoration), for the builder
 * to resolve the new name against, as it does the old one against
 * olddirfd. */
static int sh_renameat(struct dec *d)
{
	struct sc_event *ev = &d->ev;
	if (fd_at(d, 2, &ev->dirfd2, &ev->fdpath2))
		return DEC_BAD;
	if (ev->call == SC_RENAME && d->na > 4) {
		/* renameat2's flags: RENAME_EXCHANGE, by name or (-X raw) as
		 * a number with its bit */
		struct span fl = trim(arg(d, 4));
		int64_t v;
		struct span rest;
		if (memmem(fl.s, fl.n, "RENAME_EXCHANGE", 15) ||
		    (!num(fl, &v, &rest) && (v & SC_RENAME_EXCHANGE)))
			ev->flags |= SC_RENAME_EXCHANGE;
	}
	if (ev->call == SC_LINK && ev->path && !ev->path[0] && ev->dirfd >= 0) {
		/* linkat(fd, "", ..., AT_EMPTY_PATH): a name for what fd is (an
		 * O_TMPFILE file) as linkat("/proc/self/fd/N", AT_SYMLINK_FOLLOW)
		 * gives it, and replayed the same way (left out with its /proc
		 * source, the name prepared when read) */
		snprintf(d->p->procfd, sizeof d->p->procfd, "/proc/self/fd/%" PRId64, ev->dirfd);
		ev->path = d->p->procfd;
		ev->dirfd = SC_AT_FDCWD;
		ev->fdpath = NULL;
	}
	return DEC_EMIT;
}

static int sh_fstatat(struct dec *d)
{
	struct sc_event *ev = &d->ev;
	if (ev->path && !ev->path[0]) {      /* AT_EMPTY_PATH: fstat */
		ev->path = NULL;
		ev->fd = ev->dirfd;
		ev->dirfd = SC_AT_FDCWD;
	}
	return DEC_EMIT;
}

static const struct sym prot_syms[] = {
	SYM("PROT_READ", 1), SYM("PROT_WRITE", 2), SYM("PROT_EXEC", 4), SYM("PROT_NONE", 0),
	SYM("PROT_SEM", 8), SYM("PROT_GROWSDOWN", 0x01000000), SYM("PROT_GROWSUP", 0x02000000),
};

/* Does the span hold the word w (a flag name between '|'s)? */
static bool has_flag(struct span a, const char *w)
{
	size_t n = strlen(w);
	for (const char *q = a.s, *e = a.s + a.n; (q = memmem(q, (size_t)(e - q), w, n)); q += n)
		if ((q == a.s || q[-1] == '|' || q[-1] == ' ') &&
		    (q + n == e || q[n] == '|' || q[n] == ' ' || q[n] == ','))
			return true;
	return false;
}

/* mmap(addr, len, prot, flags, fd, off): only a file mapping counts; its
 * mode is OP_MMAP_* (ops.h): the protection, shared or not, and a mapping
 * by the dynamic loader (MAP_DENYWRITE, which glibc's ld.so passes) */
static int sh_mmap(struct dec *d)
{
	struct sc_event *ev = &d->ev;
	int64_t fd = -1, v, prot;
	if (d->na >= 6 && fd_at(d, 4, &fd, &ev->fdpath))
		return DEC_BAD;
	if (fd < 0) {
		ev->call = SC_SKIP;
		return DEC_EMIT;
	}
	ev->fd = fd;
	if (num_at(d, 1, &v))
		return DEC_BAD;
	ev->len = (uint64_t)v;
	if (num(arg(d, 5), &ev->offset, NULL))
		ev->offset = 0;
	struct span pr = arg(d, 2), fl = trim(arg(d, 3));
	if (!symflags(prot_syms, sizeof(prot_syms) / sizeof(prot_syms[0]), pr.s, pr.n, &prot)) {
		ev->mode = OP_MMAP_KNOWN | (prot & (OP_MMAP_READ | OP_MMAP_WRITE | OP_MMAP_EXEC));
		if (has_flag(fl, "MAP_SHARED") || has_flag(fl, "MAP_SHARED_VALIDATE"))
			ev->mode |= OP_MMAP_SHARED;
		if (has_flag(fl, "MAP_DENYWRITE"))
			ev->mode |= OP_MMAP_LOADER;
	}
	return DEC_EMIT;
}

static int sh_clone(struct dec *d)
{
	struct sc_event *ev = &d->ev;
	const char *n = d->cs->name;
	ev->flags = !strcmp(n, "vfork") ? CLONE_VM | CLONE_VFORK :
		    !strcmp(n, "fork") ? 0 : cloneflags(d->body, d->close);
	if (ev->ret > 0 && ev->ret != SC_RET_UNKNOWN) {
		ev->ret += d->ns;       /* the child's pid, in its capture */
		int rc = mark_child(d->p, ev->ret);
		if (rc)
			return rc;
	}
	return DEC_EMIT;
}

static int sh_io_submit(struct dec *d)
{
	int64_t nr = 0;
	if (num_at(d, 1, &nr))
		return DEC_BAD;
	int rc = io_submit_events(d->p, &d->ev, arg(d, 2), nr, d->e);
	if (rc == 1)
		return DEC_BAD_IOCB;
	if (rc)
		return rc;
	return d->ev.ret <= 0 ? DEC_EMIT : DEC_DONE;   /* nothing queued: counted */
}

/*
 * copy_file_range(in, off_in, out, off_out, len, flags), splice (the same
 * arguments; one side is a pipe, whose op the builder drops), sendfile(out,
 * in, offset, count): a read of what was moved from `in`, then a write of
 * it to `out`.  An offset given as [N] (or [N] => [M]) is explicit; NULL
 * uses the position.  One that moved nothing (= 0) is the read alone.
 */
static int sh_copy(struct dec *d)
{
	int cfr = strncmp(d->cs->name, "sendfile", 8) != 0;  /* copy_file_range, splice */
	struct sc_event rd = d->ev, wr = d->ev;
	int64_t v;
	rd.call = SC_READ;
	wr.call = SC_WRITE;
	if (fd_at(d, cfr ? 0 : 1, &rd.fd, &rd.fdpath) || fd_at(d, cfr ? 2 : 0, &wr.fd, &wr.fdpath))
		return DEC_BAD;
	struct span offs[2] = { arg(d, cfr ? 1 : 2), cfr ? arg(d, 3) : (struct span){ "NULL", 4 } };
	int64_t *dst[2] = { &rd.offset, &wr.offset };
	for (int k = 0; k < 2; k++) {
		struct span o = trim(offs[k]);
		const char *rb = o.n > 2 && o.s[0] == '[' ? memchr(o.s, ']', o.n) : NULL;
		if (!rb)
			*dst[k] = SC_NOOFF;
		else if (num((struct span){ o.s + 1, (size_t)(rb - o.s - 1) }, dst[k], NULL))
			return DEC_BAD;
	}
	if (num_at(d, cfr ? 4 : 3, &v))
		return DEC_BAD;
	rd.len = (uint64_t)v;
	/* the request may be "as much as there is": the moved bytes are
	 * what the call returned */
	if (d->ev.ret >= 0 && d->ev.ret != SC_RET_UNKNOWN)
		rd.len = (uint64_t)d->ev.ret;
	wr.len = rd.len;
	int rc = emit_ev(d->p, &rd, d->e);
	/* = 0: the source was at its end (cp's and shutil's last probe);
	 * nothing was written, so no write op */
	if (!rc && d->ev.ret != 0)
		rc = emit_ev(d->p, &wr, d->e);
	return rc ? rc : DEC_DONE;
}

static int sh_close_range(struct dec *d)
{
	struct sc_event *ev = &d->ev;
	const char *d2 = NULL;
	struct span l = trim(arg(d, 1));
	if (l.n == 2 && !memcmp(l.s, "~0", 2))      /* strace's way of saying UINT_MAX */
		ev->fd2 = UINT32_MAX;
	else if (fd_at(d, 1, &ev->fd2, &d2))
		return DEC_BAD;
	struct span fl = trim(arg(d, 2));
	if (num(fl, &ev->flags, NULL)) {
		ev->flags = 0;
		if (memmem(fl.s, fl.n, "CLOSE_RANGE_UNSHARE", 19))
			ev->flags |= 2;
		if (memmem(fl.s, fl.n, "CLOSE_RANGE_CLOEXEC", 19))
			ev->flags |= 4;
	}
	return DEC_EMIT;
}

/* io_getevents(ctx, min, nr, [{data=D, obj=.., res=R, res2=..}, ...], ts)
 * = N: the waits of N iocbs in flight (see io_submit_events); an array
 * strace could not show completes the N oldest. */
static int sh_getevents(struct dec *d)
{
	struct strace_parser *p = d->p;
	struct sc_event w = d->ev;
	struct span arr = trim(arg(d, 3)), el;
	int64_t n = d->ev.ret == SC_RET_UNKNOWN ? 0 : d->ev.ret;
	bool shown = arr.n >= 2 && arr.s[0] == '[' && arr.s[arr.n - 1] == ']';
	size_t i = 0;
	int emitted = 0;
	w.call = SC_AWAIT;
	for (int64_t k = 0; k < n; k++) {
		struct span data = { "", 0 }, res = { "", 0 };
		struct kv want[] = { { "data", &data }, { "res", &res } };
		int r = shown ? array_next(arr, &i, &el) : 0;
		if (r < 0 || (r > 0 && struct_fields(el, want, 2)))
			return DEC_BAD;
		int64_t id = aioq_pop(p, d->ev.pid, (uint64_t)span_num(data, 0), r > 0);
		if (id < 0 && r > 0)
			id = aioq_pop(p, d->ev.pid, 0, false);
		if (id <= 0)
			continue;               /* a sync iocb, or none known */
		w.async_id = (uint64_t)id;
		w.ret = r > 0 ? span_num(res, SC_RET_UNKNOWN) : SC_RET_UNKNOWN;
		int rc = emit_ev(p, &w, d->e);
		if (rc)
			return rc;
		emitted++;
	}
	return emitted ? DEC_DONE : DEC_EMIT;  /* no wait of ours: counted */
}

static int sh_plain(struct dec *d)
{
	(void)d;
	return DEC_EMIT;
}

typedef int (*shape_fn)(struct dec *d);
static const shape_fn shapes[] = {
	[SH_PLAIN] = sh_plain, [SH_CREAT] = sh_creat, [SH_OPENAT2] = sh_openat2,
	[SH_IOV] = sh_iov, [SH_LSEEK] = sh_lseek, [SH_FALLOCATE] = sh_fallocate,
	[SH_DUP2] = sh_dup2, [SH_FCNTL] = sh_fcntl, [SH_UNLINKAT] = sh_unlinkat,
	[SH_RENAMEAT] = sh_renameat, [SH_FSTATAT] = sh_fstatat, [SH_MMAP] = sh_mmap,
	[SH_CLONE] = sh_clone, [SH_IO_SUBMIT] = sh_io_submit, [SH_COPY] = sh_copy,
	[SH_CLOSE_RANGE] = sh_close_range, [SH_GETEVENTS] = sh_getevents,
};

/* A read or write that succeeded cannot have had a negative length or an
 * explicit negative offset (preadv2's -1, "the position", is turned into
 * SC_NOOFF by its shape), nor an offset and a length that end beyond
 * 2^63 - 1 (the kernel refuses them: EINVAL): the line is corrupt.
 * DEC_BAD_NEG, DEC_BAD_END or 0. */
static int bad_transfer(const struct dec *d)
{
	const struct sc_event *ev = &d->ev;
	if (ev->call != SC_READ && ev->call != SC_WRITE)
		return 0;
	if (ev->ret < 0 || ev->ret == SC_RET_UNKNOWN)
		return 0;
	bool neg_off = d->cs->off >= 0 && ev->offset < 0 && ev->offset != SC_NOOFF;
	bool neg_off1 = d->cs->off >= 0 && d->cs->shape == SH_PLAIN && ev->offset == SC_NOOFF;
	if (neg_off || neg_off1 || (int64_t)ev->len < 0)
		return DEC_BAD_NEG;
	if (d->cs->off >= 0 && ev->offset > INT64_MAX - (int64_t)ev->len)
		return DEC_BAD_END;
	return 0;
}

/* A read or write of COUNT bytes that says it moved more: impossible
 * (the position would move by a number nothing did). */
static bool more_than_asked(const struct dec *d)
{
	const struct sc_event *ev = &d->ev;
	if ((ev->call != SC_READ && ev->call != SC_WRITE) || d->cs->len < 0)
		return false;
	if (ev->ret < 0 || ev->ret == SC_RET_UNKNOWN || (int64_t)ev->len < 0)
		return false;
	return (uint64_t)ev->ret > ev->len;
}

/* The value after `key` in the call's text, when it follows '{' or ' '. */
static const char *field_after(const char *s, size_t n, const char *key)
{
	size_t kl = strlen(key);
	/* at each '=', whether the key ends there (cheaper than memmem: a
	 * stat's text has a dozen '=' and few keys) */
	for (const char *q = s + kl - 1; q < s + n && (q = memchr(q, '=', (size_t)(s + n - q)));
	     q++) {
		const char *k = q + 1 - kl;
		if (k > s && (k[-1] == '{' || k[-1] == ' ') && !memcmp(k, key, kl))
			return q + 1;
	}
	return NULL;
}

/* A successful stat of a regular file shows its size ("st_mode=S_IFREG|0644,
 * st_size=1234", statx: "stx_mode=S_IFREG|0644, ... stx_size=1234"): the
 * op carries it (OPF_STAT_SIZE), so the plan knows the size of a file the
 * trace only reads part of, or only looks at.  A stat that found a
 * directory ("S_IFDIR", octal 040000) says so (OPF_STAT_DIR): the plan
 * makes a directory there, not an empty file. */
static void stat_size(struct dec *d)
{
	struct sc_event *ev = &d->ev;
	if (ev->call != SC_STAT || ev->ret != 0 || !d->body)
		return;
	const char *s = d->body;
	size_t n = d->close;
	const char *mode = field_after(s, n, "st_mode=");
	const char *size = field_after(s, n, "st_size=");
	if (!mode) {
		mode = field_after(s, n, "stx_mode=");
		size = field_after(s, n, "stx_size=");
	}
	if (!mode || !size)
		return;
	if ((size_t)(s + n - mode) > 7 && !strncmp(mode, "S_IFDIR", 7)) {
		ev->opflags |= OPF_STAT_DIR;
		return;
	}
	if (strncmp(mode, "S_IFREG", 7)) {
		/* -X raw and -X verbose: the octal number ("0100644") */
		int64_t m = 0;
		size_t j = 0;
		while (mode + j < s + n && mode[j] >= '0' && mode[j] <= '7')
			j++;
		if (!j || mode[0] != '0' || num((struct span){ mode, j }, &m, NULL))
			return;
		if ((m & 0170000) == 0040000)
			ev->opflags |= OPF_STAT_DIR;
		if ((m & 0170000) != 0100000)
			return;
	}
	size_t k = 0;
	while (size + k < s + n && size[k] >= '0' && size[k] <= '9')
		k++;
	int64_t v;
	if (!k || num((struct span){ size, k }, &v, NULL) || v < 0)
		return;
	ev->len = (uint64_t)v;
	ev->opflags |= OPF_STAT_SIZE;
}

/* A -y decoration of the result ("= 3</a/b>"): its text; *rest after it.
 * NULL when the '>' is missing. */
static const char *result_decoration(struct strace_parser *p, struct span *rest)
{
	const char *gt = NULL;
	int dd = 1;
	for (size_t k = 1; k < rest->n; k++) {
		if (rest->s[k] == '\\') {
			k++;
			continue;
		}
		if (rest->s[k] == '<')
			dd++;
		if (rest->s[k] == '>' && rest->s[k - 1] != '-' && !--dd) {
			gt = rest->s + k;
			break;
		}
	}
	if (!gt)
		return NULL;
	const char *deco = decoration(p, rest->s + 1, (size_t)(gt - rest->s - 1));
	*rest = (struct span){ gt + 1, rest->n - (size_t)(gt + 1 - rest->s) };
	return deco;
}

/* The duration " <S.frac>" at the end of rs, removed from it: 0 when
 * absent; -1 when malformed. */
static int take_duration(struct span *rs, uint64_t *dur)
{
	*dur = 0;
	if (!rs->n || rs->s[rs->n - 1] != '>')
		return 0;
	const char *lt;
	uint64_t ns = 0, ip;
	if (rs->n >= 11 && rs->s[rs->n - 10] == '<' && rs->s[rs->n - 11] == ' ' &&
	    tx_dur8(rs->s + rs->n - 9, &ns)) {
		/* -T's usual " <S.uuuuuu>": no other '<' in it, so the last */
		lt = rs->s + rs->n - 10;
		*dur = ns;
		rs->n = (size_t)(lt - rs->s);
		return 0;
	}
	lt = memrchr(rs->s, '<', rs->n);
	if (!lt || lt == rs->s || lt[-1] != ' ')
		return 0;    /* a decoration, not a duration */
	size_t dn = (size_t)(rs->s + rs->n - lt - 2);
	if (dn == 11 && !memcmp(lt + 1, "unavailable", 11)) {
		/* "= ? <unavailable>": a call that never returned */
		rs->n = (size_t)(lt - rs->s);
		return 0;
	}
	if (!dn || secfrac(lt + 1, dn, &ns, &ip) != dn)
		return -1;
	*dur = ns;
	rs->n = (size_t)(lt - rs->s);
	return 0;
}

/* Whether the n <= 8 bytes at a and b are the same; 8 bytes readable at
 * each. */
static inline bool same8(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return !((x ^ y) << (8 * (8 - n)));
#else
	return !((x ^ y) >> (8 * (8 - n)));
#endif
}

#define DUR_EXPECTED "a duration ' <seconds>' (below 2^63 ns) at the end of the line"

/*
 * What strace prints after a result's number (and its -y "<path>", with
 * "(deleted)" after it for an O_TMPFILE file), the duration taken away:
 * nothing, or blank-separated an errno name or
 * number (err: the result is negative: "-1 ENOENT"), a comment
 * ("/\* 5 in strace's PID NS *\/"), a --secontext "[...]", and text in
 * parentheses, which runs to the end ("(No such file or directory)",
 * "(flags O_RDONLY)", "([{fd=3, revents=POLLIN}])", "(Timeout)",
 * "(INJECTED)").  Anything else ("= 40x96", "= 4096abc", "= 4096.5",
 * "= 4096 garbage", a duration not at the end or without its '>') was not
 * written by strace, and the number before it may be wrong.  NULL, or
 * what was expected.
 */
static __attribute__((noinline)) const char *result_tail(struct span r, bool err)
{
	static const char why[] = "a result strace prints: a number, then nothing but ' ERRNO',"
				  " ' (text)', a comment or the duration ' <seconds>'";
	size_t i = 0;
	if (r.n >= 9 && !memcmp(r.s, "(deleted)", 9))
		i = 9;          /* "= 3</tmp/#10953388>(deleted)": an O_TMPFILE file */
	while (i < r.n) {
		if (r.s[i] != ' ')
			return why;
		while (i < r.n && r.s[i] == ' ')
			i++;
		char c = r.s[i];
		if (c == '(')
			return r.s[r.n - 1] == ')' ? NULL : why;
		if (c == '<')
			return DUR_EXPECTED;
		const char *end;
		if (c == '/' && i + 1 < r.n && r.s[i + 1] == '*' &&
		    (end = memmem(r.s + i + 2, r.n - i - 2, "*/", 2))) {
			i = (size_t)(end - r.s) + 2;
			continue;
		}
		if (c == '[' && (end = memchr(r.s + i, ']', r.n - i))) {
			i = (size_t)(end - r.s) + 1;
			continue;
		}
		if (err && ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
			while (i < r.n && ((r.s[i] >= 'A' && r.s[i] <= 'Z') ||
					   (r.s[i] >= '0' && r.s[i] <= '9') || r.s[i] == '_'))
				i++;
			continue;
		}
		return why;
	}
	return NULL;
}

/* "= RET [<DUR>]" after the arguments: into ev (ret, retpath, dur_ns).
 * same: NULL, or the digits of a number read before (a read's length, in
 * ev->len; 1 to 8 bytes with 8 readable), which the result, when it
 * repeats them, has as its value (what plain_dec would read of them).
 * NULL, or what was expected. */
static const char *parse_result(struct strace_parser *p, const char *body, size_t blen,
				size_t close, struct sc_event *ev, const struct span *same)
{
	size_t i = close + 1;
	/* the usual " = N <S.uuuuuu>" (N "0" or a plain decimal) at once: what
	 * the general way below makes of it */
	if (blen - i >= 15 && body[i] == ' ' && body[i + 1] == '=' && body[i + 2] == ' ' &&
	    body[blen - 11] == ' ' && body[blen - 10] == '<' && body[blen - 1] == '>') {
		size_t ds = i + 3, dn = blen - 11 - ds;   /* dn >= 1 */
		int64_t v = 0;
		uint64_t ns;
		/* the number ends at the blank before '<': read with what
		 * follows, so that plain_dec has 8 bytes at once */
		if ((body[ds] == '0' ? (dn == 1 && (v = 0, true)) :
		     same && same->n == dn && same8(body + ds, same->s, dn) ? (v = (int64_t)ev->len, true) :
		     plain_dec(body + ds, blen - ds, &v) == dn) &&
		    tx_dur8(body + blen - 9, &ns)) {
			ev->ret = v;
			ev->dur_ns = ns;
			return NULL;
		}
	}
	while (i < blen && (body[i] == ' ' || body[i] == '\t'))
		i++;
	if (i >= blen || body[i] != '=')
		return "'=' after ')'";
	i++;
	while (i < blen && (body[i] == ' ' || body[i] == '\t'))
		i++;
	struct span rs = { body + i, blen - i }, rest;
	if (take_duration(&rs, &ev->dur_ns))
		return DUR_EXPECTED;
	rs = trim(rs);
	if (!rs.n)
		return "a result after '='";
	if (rs.s[0] == '?') {
		ev->ret = SC_RET_UNKNOWN;
		return NULL;
	}
	int64_t v;
	if (num(rs, &v, &rest))
		return "a number or '?' after '='";
	if (rest.n && rest.s[0] == '<' && !(ev->retpath = result_decoration(p, &rest)))
		return "'>' closing a path decoration";
	if (v == -1 && rest.n > 1 && rest.s[0] == ' ' && rest.s[1] == 'E') {
		size_t k = 1;
		while (k < rest.n && is_name_char((unsigned char)rest.s[k]))
			k++;
		int en = strace_errno(rest.s + 1, k - 1);
		v = en ? -en : -EIO;
	}
	if (rest.n) {
		const char *why = result_tail(rest, v < 0);
		if (why)
			return why;
		/* a result strace made up, the call not made (an error it made
		 * up is a failed call: not replayed either) */
		if (v >= 0 && memmem(rest.s, rest.n, "(INJECTED)", 10))
			p->injected_now = true;
	}
	ev->ret = v;
	return NULL;
}

/* Whether the 32 bytes at s have no '"' and no '\\': a buffer's text as
 * strace shows it (-s 32), ending where the '"' after them is (quote_end's
 * answer, two compares of 16 bytes). */
static inline bool plain32(const char *s)
{
#if REPLAY_SSE2
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
	__m128i e = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, b)),
				 _mm_or_si128(_mm_cmpeq_epi8(y, q), _mm_cmpeq_epi8(y, b)));
	return !_mm_movemask_epi8(e);
#else
	return scan_any2(s, 32, 0, '"', '\\') == 32;
#endif
}

/*
 * The first argument of a call rw_args() or fd_args() reads, "FD[<path>]",
 * into d->ev (fd, fdpath) as split() and fdarg() make of it.  A path with
 * nothing to undo is left where it is, *end then its closing '>' (to
 * become its NUL when the whole call is read; else NULL).  The index
 * after it, 0 when the text is not such.
 */
static inline __attribute__((always_inline)) size_t fd_deco(struct dec *d, char *s, size_t n,
							     char **end)
{
	struct sc_event *ev = &d->ev;
	size_t i;

	*end = NULL;
	if (!(i = small_dec(s, n, &ev->fd)) && !(i = plain_dec(s, n, &ev->fd)))
		return 0;
	ev->fdpath = NULL;
	if (i < n && s[i] == '<') {
		/* "<path>": the first '>' after, when no '<', '\\' or "->" comes
		 * before it, is deco_end()'s, and the path is the bytes between
		 * (decoration() has nothing to undo) unless they end in
		 * " (deleted)" */
		size_t gt = scan_any3(s, n, i + 1, '\\', '<', '>'), pn = gt - i - 1;
		if (gt < n && s[gt] == '>' && s[gt - 1] != '-' &&
		    (pn < 10 || memcmp(s + gt - 10, " (deleted)", 10))) {
			/* the bytes themselves, not a copy */
			ev->fdpath = s + i + 1;
			*end = s + gt;
		} else {
			gt = deco_end(s, n, i);
			if (gt >= n)
				return 0;
			ev->fdpath = decoration(d->p, s + i + 1, gt - i - 1);
		}
		i = gt + 1;
	}
	return i;
}

/*
 * The arguments of read, write, pread64 and pwrite64 as strace prints them
 * nearly always, "FD[<path>], "data"[...], LEN[, OFF])", read in one pass
 * into d->ev (fd, fdpath, len, offset) and d->close: exactly what split()
 * and fill_generic() make of such text.  A path with nothing to undo is
 * left where it is, its closing '>' made its NUL: *cut is then that byte,
 * for the caller to put back.  false for anything else (no
 * decoration of the fd's text or a different shape, numbers num() reads
 * the long way, blanks other than one after each comma...): the general
 * path then reads it, and reports it when it is bad.
 */
static bool rw_args(struct dec *d, char *s, size_t n, char **cut)
{
	struct sc_event *ev = &d->ev;
	size_t i, k;
	int64_t v;
	char *end;

	if (!(i = fd_deco(d, s, n, &end)))
		return false;
	if (n - i < 3 || s[i] != ',' || s[i + 1] != ' ' || s[i + 2] != '"')
		return false;
	i += 2;
	if (n - i > 33 && s[i + 33] == '"' && plain32(s + i + 1))
		i += 33;        /* the 32 bytes strace shows by default */
	else if ((i = quote_end_inline(s, n, i)) >= n)
		return false;
	i++;
	if (n - i >= 3 && !memcmp(s + i, "...", 3))
		i += 3;
	if (n - i < 3 || s[i] != ',' || s[i + 1] != ' ' || !(k = plain_dec(s + i + 2, n - i - 2, &v)))
		return false;
	ev->len = (uint64_t)v;
	d->len_text = (struct span){ s + i + 2, k <= 8 ? k : 0 };
	i += 2 + k;
	if (d->cs->off >= 0) {
		if (n - i < 3 || s[i] != ',' || s[i + 1] != ' ' ||
		    !(k = plain_dec(s + i + 2, n - i - 2, &ev->offset)))
			return false;
		i += 2 + k;
	}
	if (i >= n || s[i] != ')')
		return false;
	d->close = i;
	d->na = 0;
	if (end) {
		*end = 0;
		*cut = end;
	}
	return true;
}

/* A byte of an argument fd_args() takes whole: of a name, a number or
 * flags ("SEEK_SET", "-1", "O_RDONLY|O_CLOEXEC"), none that split() stops
 * at or trim() takes away. */
static inline bool is_word_char(int c)
{
	return cls[(uint8_t)c] & CL_WORD;
}

/*
 * The arguments of a call whose first is its fd and the others words or
 * numbers (lseek, fsync, close, ftruncate... as strace prints them nearly
 * always, "FD[<path>][, WORD]...)"), read in one pass: the fd into d->ev
 * and *cut as rw_args() reads them, the arguments into d->a and d->na and
 * their ')' into d->close, exactly what split() makes of such text (for
 * fill_generic() to read the other columns from).  false for anything
 * else (a blank other than one after each comma, a quote, a bracket, a
 * comment...): the general path then reads it.
 */
static bool fd_args(struct dec *d, char *s, size_t n, char **cut)
{
	char *end;
	size_t i = fd_deco(d, s, n, &end), j;
	int na = 1;

	if (!i)
		return false;
	d->a[0] = (struct span){ s, i };
	while (i < n && s[i] == ',') {
		if (na == MAXARGS || n - i < 3 || s[i + 1] != ' ')
			return false;
		for (j = i + 2; j < n && is_word_char((unsigned char)s[j]); j++)
			;
		if (j == i + 2)
			return false;
		d->a[na++] = (struct span){ s + i + 2, j - i - 2 };
		i = j;
	}
	if (i >= n || s[i] != ')')
		return false;
	d->close = i;
	d->na = na;
	if (end) {
		*end = 0;
		*cut = end;
	}
	return true;
}

/*
 * Decode a complete call: name (w: its words, NULL when not at hand), its
 * table entry cs (lookup()'s, NULL for a call the table does not know), and
 * body = text after '(' (args, ')', '= RET', optional <DUR>).  Fills and
 * emits the event(s).
 */
static int decode(struct strace_parser *p, const struct callspec *cs, struct strace_src *src,
		  int64_t pid, uint64_t ts, unsigned long lineno, const char *name, size_t nlen,
		  const uint64_t *w, char *body, size_t blen, const char *line, size_t len,
		  struct rerr *e)
{
	static const char killed[] = "<unfinished ...>) = ?";
	const size_t kn = sizeof(killed) - 1;
	if (__builtin_expect(blen >= kn && body[blen - 1] == '?', 0) &&
	    !memcmp(body + blen - kn, killed, kn)) {
		/* a call another thread's exit_group ended mid-way (strace
		 * -f: "<... read resumed> <unfinished ...>) = ?", -ff: one
		 * line): it never returned, so it is not replayed */
		char un[80];
		snprintf(un, sizeof(un), "unfinished:%.*s", (int)(nlen < 60 ? nlen : 60), name);
		p->syscalls++;
		return emit_skip(p, src, pid, lineno, ts, sdup(p, un, strlen(un)), e);
	}
	struct dec d;           /* d.a[k] is read only below d.na */
	d.p = p;
	d.ns = src->ns;
	d.cs = cs;
	d.body = body;
	d.e = e;
	d.len_text.n = 0;
	d.ev = p->ev0;
	bool fast = false;
	const char *why;
	char *cut = NULL;       /* rw_args' or fd_args' NUL in the text: '>'
				 * again before the line is shown or the event
				 * done with */
	if (d.cs && (d.cs->rw || d.cs->fdw)) {
		size_t sused = p->sused;
		fast = d.cs->rw ? rw_args(&d, body, blen, &cut) : fd_args(&d, body, blen, &cut);
		if (!fast) {    /* undo what it read before it gave up */
			p->sused = sused;
			d.ev = p->ev0;
		}
	} else if (!d.cs) {
		/* a call the table does not know is only counted: where its
		 * arguments end ("getpid()", "futex(0x7f0, FUTEX_WAKE_PRIVATE,
		 * 1)": at the first ')'), as split() finds it; at once when
		 * there are none ("getpid()") */
		if (blen && body[0] == ')') {
			d.close = 0;
		} else if ((why = split_end(body, blen, &d.close))) {
			return bad_line(p, e, src, lineno, line, len, why);
		}
		d.na = 0;
		fast = true;
	}
	if (!fast) {            /* the general way */
		why = split(body, blen, 1, d.a, MAXARGS, &d.na, &d.close);
		if (why)
			return bad_line(p, e, src, lineno, line, len, why);
	}
	d.ev.src = src->name;
	d.ev.line = lineno;
	d.ev.pid = pid;
	d.ev.ts_ns = ts;
	/* a read's or write's result is nearly always its length again */
	why = parse_result(p, body, blen, d.close, &d.ev,
			   fast && d.cs && d.len_text.n ? &d.len_text : NULL);
	if (why) {
		if (cut)
			*cut = '>';
		return bad_line(p, e, src, lineno, line, len, why);
	}
	p->syscalls++;
	if (__builtin_expect(p->injected_now, 0)) {
		/* faked by strace (-e inject=...:retval=): the call did not
		 * run, so nothing it names changed; counted, not replayed */
		p->injected_now = false;
		if (!p->injected++) {
			p->injected_src = src->name;
			p->injected_line = lineno;
		}
		d.ev.call = SC_SKIP;
		d.ev.name = "(injected)";
		return emit_ev(p, &d.ev, e);
	}

	if (!d.cs) {
		const char *kept = NULL;
		uint64_t nw[2];
		if (nlen <= 16) {
			if (!w) {
				name_words(name, nlen, nw);
				w = nw;
			}
			kept = skip_name(p, w);
		}
		d.ev.call = SC_SKIP;
		d.ev.name = kept ? kept : sdup(p, name, nlen);
		return emit_ev(p, &d.ev, e);
	}
	d.ev.name = d.cs->name;
	d.ev.call = (enum sc_call)d.cs->call;
	/* rw_args read every column, fd_args the fd only */
	int rc = fast && d.cs->rw ? 0 : fill_generic(&d, fast);
	if (!rc)
		rc = shapes[d.cs->shape](&d);
	if (!rc)
		stat_size(&d);
	if (!rc)
		rc = bad_transfer(&d);
	if (!rc && more_than_asked(&d))
		rc = DEC_BAD_MORE;
	if (rc == DEC_EMIT)
		rc = emit_ev(p, &d.ev, e);
	if (cut)
		*cut = '>';
	if (rc >= DEC_BAD && rc <= DEC_BAD_NUL)
		return bad_line(p, e, src, lineno, line, len, dec_why[rc]);
	return rc == DEC_DONE ? 0 : rc;         /* emitted: 0 or -errno */
}

static int strip_unfinished(const char *s, size_t n, size_t *keep)
{
	static const char mark[] = "<unfinished ...>";
	size_t ml = sizeof(mark) - 1;
	uint64_t x[2], m[2];
	if (n < ml)
		return 0;
	memcpy(x, s + n - ml, 16);      /* two words against the mark's */
	memcpy(m, mark, 16);
	if (x[0] != m[0] || x[1] != m[1])
		return 0;
	n -= ml;
	if (n && s[n - 1] == ' ')
		n--;
	*keep = n;
	return 1;
}

/* A line cut by strace's "Process N attached" message: its head waits in
 * src->carry for the rest (the next line).  1 when the line was one. */
static int cut_line(struct strace_parser *p, struct strace_src *src, char *line, size_t len)
{
	const char *cut = NULL;
	if (len > 25 && (!memcmp(line + len - 9, " attached", 9) ||
			 !memcmp(line + len - 9, " detached", 9)))
		cut = memmem(line, len, "strace: Process ", 16);
	if (!cut)
		return 0;
	size_t head = (size_t)(cut - line);
	int64_t pid;
	struct span rest;
	if (!num((struct span){ cut + 16, len - head - 16 }, &pid, &rest)) {
		int rc = mark_child(p, pid + src->ns);
		if (rc)
			return rc;
	}
	int rc = reserve(&src->carry, &src->carry_cap, head + 1);
	if (rc)
		return rc;
	memmove(src->carry, line, head);
	src->carry[head] = 0;
	src->carry_len = head;
	return 1;
}

/*
 * Everything a line can be before it is a call: binary garbage (an error),
 * the rest of a cut line (joined), blank, a -k frame, the -c/-C summary
 * table, strace's own messages.  0: parse *line as a call line; 1: done
 * with it; -errno.
 */
/* -e read=SET / -e write=SET: the bytes of each read or write dumped
 * after the call, " | 00010  03 00 3e 00 ...  ..>..... |", for a vector
 * each buffer's after " * 100 bytes in buffer 0" (t after the blanks). */
static bool hexdump_line(const char *t, size_t n)
{
	if (n >= 4 && t[0] == '*' && t[1] == ' ' && t[2] >= '0' && t[2] <= '9')
		return memmem(t, n, " bytes in buffer ", 17) != NULL;
	if (n < 9 || t[0] != '|' || t[1] != ' ' || t[7] != ' ')
		return false;
	for (int k = 2; k < 7; k++)
		if (hexval((unsigned char)t[k]) < 0)
			return false;
	return true;
}

static int line_preamble(struct strace_parser *p, struct strace_src *src, char **linep,
			 size_t *lenp, size_t bad, unsigned long lineno, struct rerr *e)
{
	char *line = *linep;
	size_t len = *lenp;
	if (bad == LR_NOCTRL)
		bad = first_ctrl(line, len);
	if (bad < len && !(line[bad] == '\r' && bad == len - 1))
		return bad_line(p, e, src, lineno, line, len, "text (found a binary byte)");
	if (len && line[len - 1] == '\r')
		line[--len] = 0;
	if (src->carry_len) {
		int rc = reserve(&src->carry, &src->carry_cap, src->carry_len + len + 1);
		if (rc)
			return rc;
		memcpy(src->carry + src->carry_len, line, len + 1);
		len += src->carry_len;
		src->carry_len = 0;
		line = src->carry;
	}
	*linep = line;
	*lenp = len;
	size_t nb = 0;
	while (nb < len && (line[nb] == ' ' || line[nb] == '\t'))
		nb++;
	if (nb == len)
		return 1;
	if (len - nb >= 2 && line[nb] == '>' && line[nb + 1] == ' ')
		return 1;                                /* -k backtrace frame */
	if ((line[nb] == '|' || line[nb] == '*') && hexdump_line(line + nb, len - nb))
		return 1;                                /* -e read=/-e write= */
	/* -C: the summary table after the calls ("% time     seconds ...",
	 * "------ ----", " 45.12    0.002567   12   200    3 pread64") */
	if (len - nb >= 6 && !memcmp(line + nb, "% time", 6)) {
		src->summary = true;
		p->summary_seen = true;
		return 1;
	}
	if (src->summary) {
		if (strspn(line, "- ") == len ||
		    ((line[nb] >= '0' && line[nb] <= '9') && !memchr(line, '(', len)))
			return 1;
		src->summary = false;
	}
	if (len >= 8 && !memcmp(line, "strace: ", 8)) {
		int64_t pid;
		if (len > 16 && !memcmp(line + 8, "Process ", 8) &&
		    !num((struct span){ line + 16, len - 16 }, &pid, &(struct span){ 0 }))
			return mark_child(p, pid + src->ns) ? -ENOMEM : 1;
		return 1;
	}
	return cut_line(p, src, line, len);
}

/* Whose line it is: the prefixed pid, or for unprefixed lines the -ff
 * file's pid or the main process of "[pid N]" output. */
static inline __attribute__((always_inline)) int line_pid(struct strace_parser *p,
							   struct strace_src *src, int64_t rawpid,
							   int bracketed, unsigned long lineno,
							   int64_t *pidp, struct rerr *e)
{
	int64_t pid;
	int rc;
	if (rawpid == STRACE_NOPID) {
		pid = src->pid != STRACE_NOPID ? src->pid : src->main_pid;
	} else {
		rawpid += src->ns;      /* the pid in its capture */
		rc = note_pid(p, src, rawpid, lineno, e);
		if (rc)
			return rc;
		pid = rawpid;
		if (bracketed && src->pid == STRACE_NOPID) {
			if (rawpid == src->main_alias) {
				pid = src->main_pid;
			} else if (!src->main_known && src->main_pid == src->main0 &&
				   !(pidbits(p, rawpid) & CHILD) && imap_get(&p->seen, src->main0)) {
				/* first prefixed pid that is nobody's child: the
				 * main process, whose early lines had no prefix */
				src->main_known = true;
				src->main_alias = rawpid;
				pid = src->main_pid;
			}
		}
	}
	if (rawpid == STRACE_NOPID && !(pidbits(p, pid) & SEEN)) {
		/* a -ff file's pid seen for the first time: maybe a child */
		rc = src->pid != STRACE_NOPID ?
			     note_pid(p, src, pid, lineno, e) :
			     imap_put(&p->seen, pid, (void *)(uintptr_t)(pidbits(p, pid) | SEEN));
		if (rc)
			return rc;
	}
	*pidp = pid;
	return 0;
}

static int exit_line(struct strace_parser *p, struct strace_src *src, int64_t pid,
		     unsigned long lineno, uint64_t ts, struct rerr *e)
{
	p->exits++;
	int rc = drop_pending(p, src, pid, e);
	if (rc)
		return rc;
	struct sc_event ev;
	sc_event_init(&ev);
	ev.src = src->name;
	ev.line = lineno;
	ev.pid = pid;
	ev.ts_ns = ts;
	ev.call = SC_EXIT;
	ev.name = "exit";
	return emit_ev(p, &ev, e);
}

/* imap_get(&p->pend, pid), its answer for a pid of the last ones kept: a
 * pid's struct pend, once made, stays where it is until the parser is
 * freed. */
static inline struct pend *pend_of(struct strace_parser *p, int64_t pid)
{
	unsigned h = (unsigned)((uint64_t)pid & 15);
	if (p->pend_pe[h] && p->pend_pid[h] == pid)
		return p->pend_pe[h];
	struct pend *pe = imap_get(&p->pend, pid);
	if (pe) {
		p->pend_pid[h] = pid;
		p->pend_pe[h] = pe;
	}
	return pe;
}

/* The rest of pid's pending call (name: what the line says it is, w its
 * words; or NULL for a bare continuation), joined to its start and
 * decoded.  Inline: a fifth of a trace's lines can be such rests (strace
 * -f), and a call with this many arguments costs them. */
static inline __attribute__((always_inline)) int resume(struct strace_parser *p,
							struct strace_src *src, int64_t pid,
							unsigned long lineno, uint64_t ts,
							const char *name, size_t nlen,
							const uint64_t w[2], char *rest, size_t rn,
							const char *line, size_t len, struct rerr *e)
{
	size_t keep;
	struct pend *pe = pend_of(p, pid);
	if (!pe || !pe->active ||
	    (name && (pe->nlen != nlen || pe->w[0] != w[0] || pe->w[1] != w[1] ||
		      (nlen > 16 && memcmp(pe->name + 16, name + 16, nlen - 16))))) {
		/* no start (attached mid-call): nothing to decode; a data
		 * call's bytes are lost, which the loader says */
		p->syscalls++;
		const struct callspec *cs = name && nlen <= 16 ? lookup_words(p, w) : NULL;
		if (cs && (cs->call == SC_READ || cs->call == SC_WRITE) && !p->orphan_data++) {
			p->orphan_src = src->name;
			p->orphan_line = lineno;
		}
		return emit_skip(p, src, pid, lineno, !name && pe ? pe->ts : ts,
				 "resumed-without-start", e);
	}
	pe->active = 0;
	if (pe->is_clone)
		clones_del(p, pid);
	if (strip_unfinished(rest, rn, &keep))
		return bad_line(p, e, src, lineno, line, len, "a result, not a second '<unfinished ...>'");
	char *j = rest;
	size_t jl = rn;
	int rc;
	if (pe->plain && !(rn && rest[0] == '<' && is_name_char((unsigned char)pe->last))) {
		/* a start that nests nowhere changes nothing in split_end()'s
		 * walk of the joined text but the one '<' it may make a
		 * decoration (after a name's byte): the rest alone ends where
		 * that text does, and decode() reads nothing else of a call
		 * the table does not know */
	} else {
		if (pe->plain) {        /* that '<': after the byte before it */
			rc = reserve(&pe->text, &pe->cap, 2);
			if (rc)
				return rc;
			pe->text[0] = pe->last;
			pe->len = 1;
		}
		/* the start's text, then the rest (it stays the start's: its
		 * length is pe->len) */
		jl = pe->len + rn;
		rc = reserve(&pe->text, &pe->cap, jl + 1);
		if (rc)
			return rc;
		memcpy(pe->text + pe->len, rest, rn);
		pe->text[jl] = 0;
		j = pe->text;
	}
	rc = reserve(&p->scratch, &p->scap, 2 * jl + 1024);
	if (rc)
		return rc;
	/* pe stays as it is until the pid's next unfinished call */
	return decode(p, pe->cs, src, pid, pe->ts, pe->line, pe->name, pe->nlen, pe->w, j, jl,
		      line, len, e);
}

/* "<... NAME resumed>REST": joined to the pending start and decoded. */
static int resumed_line(struct strace_parser *p, struct strace_src *src, int64_t pid,
			unsigned long lineno, uint64_t ts, char *t, size_t tn, const char *line,
			size_t len, struct rerr *e)
{
	size_t i = 5, ns = 5;
	uint64_t w[2];
	while (i < tn && is_name_char((unsigned char)t[i]))
		i++;
	if (i == ns || tn - i < 9 || memcmp(t + i, " resumed>", 9))
		return bad_line(p, e, src, lineno, line, len, "'<... NAME resumed>'");
	name_words(t + ns, i - ns, w);
	return resume(p, src, pid, lineno, ts, t + ns, i - ns, w, t + i + 9, tn - i - 9, line, len,
		      e);
}

/* "NAME(ARGS <unfinished ...>": kept per pid until its "resumed" line;
 * cs is the call's table entry (NULL unknown), w the name's words. */
static int unfinished_line(struct strace_parser *p, struct strace_src *src, int64_t pid,
			   unsigned long lineno, uint64_t ts, const struct callspec *cs,
			   const char *name, size_t nlen, const uint64_t w[2], const char *body,
			   size_t keep, struct rerr *e)
{
	struct pend *pe = pend_of(p, pid);
	int rc;
	if (!pe) {
		pe = calloc(1, sizeof(*pe));
		if (!pe)
			return -ENOMEM;
		rc = imap_put(&p->pend, pid, pe);
		if (rc) {
			free(pe);
			return rc;
		}
	}
	if (pe->active && (rc = drop_pending(p, src, pid, e)))
		return rc;
	pe->plain = !cs && scan_nest(body, keep, 0) == keep;
	if (pe->plain) {
		pe->last = keep ? body[keep - 1] : 0;
		pe->len = 0;
	} else {
		rc = reserve(&pe->text, &pe->cap, keep + 1);
		if (rc)
			return rc;
		memcpy(pe->text, body, keep);
		pe->text[keep] = 0;
		pe->len = keep;
	}
	/* the name as its words, then any bytes past 16 (nlen < 64) */
	pe->w[0] = w[0];
	pe->w[1] = w[1];
	memcpy(pe->name, w, 16);
	if (nlen >= 16)
		memcpy(pe->name + 16, name + 16, nlen - 16);
	pe->name[nlen] = 0;
	pe->nlen = nlen;
	pe->cs = cs;
	pe->ts = ts;
	pe->line = lineno;
	pe->src = src->name;
	pe->active = 1;
	src->cont_line = lineno;
	src->cont_pid = pid;
	pe->is_clone = cs && cs->shape == SH_CLONE;
	return pe->is_clone ? pids_push(&p->clones, &p->nclones, &p->ccap, pid) : 0;
}

/* A line whose prefix did not read but looks like one: "[pid" or a time
 * after a blank ("HH:MM:SS" or 9+ digits and '.') in its first 48 bytes:
 * a corrupt line of its own, not the bare rest of a call. */
static bool prefix_like(const char *l, size_t len)
{
	size_t n = len < 48 ? len : 48;

	if (memmem(l, n, "[pid", 4))
		return true;
	for (size_t i = 1; i < n; i++) {
		if (l[i - 1] != ' ' || l[i] < '0' || l[i] > '9')
			continue;
		size_t d = i;
		while (d < len && l[d] >= '0' && l[d] <= '9')
			d++;
		if ((d - i == 2 && d < len && l[d] == ':') || (d - i >= 9 && d < len && l[d] == '.'))
			return true;
	}
	return false;
}

/* strace -z/-Z prints the rest of a call it left unfinished on the next
 * line, bare: no prefix, no "<... NAME resumed>".  A line without a pid
 * or time that does not read as an event, right after an unfinished one,
 * is that rest: 0 or -errno as resume() returns; 1 when it is not (the
 * line is bad). */
static int continuation(struct strace_parser *p, struct strace_src *src, char *line, size_t len,
			unsigned long lineno, struct rerr *e)
{
	if (!src->cont_line || src->cont_line + 1 != lineno || prefix_like(line, len))
		return 1;
	int rc = reserve(&p->scratch, &p->scap, 2 * len + 1024);
	if (rc)
		return rc;
	p->sused = 0;
	src->cont_line = 0;
	return resume(p, src, src->cont_pid, lineno, 0, NULL, 0, NULL, line, len, line, len, e);
}

/* The text after the prefix: signal, exit, resumed, unfinished or a call. */
static int event_text(struct strace_parser *p, struct strace_src *src, int64_t pid,
		      unsigned long lineno, uint64_t ts, char *t, size_t tn, const char *line,
		      size_t len, struct rerr *e)
{
	if (tn >= 4 && !memcmp(t, "--- ", 4))
		return 0;                               /* signal */
	if (tn >= 4 && !memcmp(t, "+++ ", 4)) {
		if (memmem(t, tn, "exited", 6) || memmem(t, tn, "killed", 6))
			return exit_line(p, src, pid, lineno, ts, e);
		return 0;
	}
	if (tn >= 5 && !memcmp(t, "<... ", 5))
		return resumed_line(p, src, pid, lineno, ts, t, tn, line, len, e);
	size_t i = 0, keep;
	while (i < tn && is_name_char((unsigned char)t[i]))
		i++;
	if (!i || i >= tn || t[i] != '(') {
		/* only a line with no prefix at all may be a bare rest */
		int rc = t == line ? continuation(p, src, t, len, lineno, e) : 1;
		if (rc != 1)
			return rc;
		return bad_line(p, e, src, lineno, line, len,
				!i ? "a syscall name" : "'(' after the syscall name");
	}
	char *body = t + i + 1;
	size_t bn = tn - i - 1;
	if (bn >= 14 && !memcmp(body + bn - 14, "<detached ...>", 14)) {
		/* strace -p let go in the middle of the call */
		char dn[80];
		snprintf(dn, sizeof(dn), "detached:%.*s", (int)(i < 60 ? i : 60), t);
		p->syscalls++;
		return emit_skip(p, src, pid, lineno, ts, sdup(p, dn, strlen(dn)), e);
	}
	if (bn >= 20 && body[bn - 1] == '>' && !memcmp(body + bn - 5, " ...>", 5)) {
		/* strace -ff: a thread's execve goes on as its thread group
		 * leader, "execve(...) <pid changed to N ...>", resumed in N's
		 * file (there a resumed half without its start) */
		const char *pc = memmem(body, bn, "<pid changed to ", 16);
		if (pc) {
			char dn[80];
			snprintf(dn, sizeof(dn), "pid-changed:%.*s", (int)(i < 60 ? i : 60), t);
			p->syscalls++;
			return emit_skip(p, src, pid, lineno, ts, sdup(p, dn, strlen(dn)), e);
		}
	}
	if (strip_unfinished(body, bn, &keep)) {
		uint64_t w[2];
		if (i >= sizeof(((struct pend *)0)->name))
			return bad_line(p, e, src, lineno, line, len, "a syscall name (too long)");
		name_words(t, i, w);
		return unfinished_line(p, src, pid, lineno, ts, i > 16 ? NULL : lookup_words(p, w),
				       t, i, w, body, keep, e);
	}
	return decode(p, lookup(p, t, i), src, pid, ts, lineno, t, i, NULL, body, bn, line, len, e);
}


/*
 * The usual call line, read straight through: "PID  HH:MM:SS.uuuuuu " (or,
 * in a -ff file, no pid), then a call complete on the line (to decode(),
 * with its table entry), one left "<unfinished ...>" or a "<... NAME
 * resumed>" rest.  What the
 * general way (line_preamble, prefix, event_text) does with such a line,
 * without its many checks for other kinds of line: the same calls after
 * the same line_pid().  1 when it took the line
 * (*rcp what the general way would return), 0 when the general way must
 * read it: nothing changed but the scratch, and *x holds the line's
 * prefix as prefix_read() reads it when that much was read (else x->line
 * is NULL), so that the general way does not read it again.  The line
 * has no control byte (ctrl from lr_next_ctrl).
 */
static int hot_line(struct strace_parser *p, struct strace_src *src, char *line, size_t len,
		    unsigned long lineno, struct rerr *e, int *rcp, struct sprefix *x)
{
	size_t i = 0, st = 0;
	int64_t rawpid = STRACE_NOPID, pid;
	uint64_t v = 0, ts, w[2];

	if (src->carry_len || src->summary || len < 24)
		return 0;
	/* up to 10 digits: 8 in a word (len >= 24), the rest one by one */
	i = scan_dec8w(line, &v);
	if (!i)
		return 0;
	if (i == 8)
		while (i < 10 && (unsigned)(line[i] - '0') < 10)
			v = v * 10 + (uint64_t)(line[i++] - '0');
	if (line[i] == ' ') {           /* the pid column */
		rawpid = (int64_t)v;
		for (st = i + 1; line[st] == ' '; st++)   /* the NUL at len ends it */
			;
	}
	if (len - st <= 16 || line[st + 15] != ' ' || !tx_clock15c(line + st, &p->hms, &ts))
		return 0;
	for (i = st + 16; line[i] == ' '; i++)
		;
	if (i < len && line[i] == '[')
		return 0;               /* -i/-n: prefix() reads "[...]" too */
	/* no call, or a cut line ("... strace: Process N attached") */
	if (i >= len || (line[len - 1] == 'd' && (!memcmp(line + len - 9, " attached", 9) ||
						  !memcmp(line + len - 9, " detached", 9))))
		goto general;
	char *t = line + i;
	size_t tn = len - i, k = 0, keep;
	if (reserve(&p->scratch, &p->scap, 2 * len + 1024))
		goto general;
	p->sused = 0;
	if (t[0] == '<' && tn >= 5 && t[1] == '.' && t[2] == '.' && t[3] == '.' && t[4] == ' ') {
		/* "<... NAME resumed>": the rest of an unfinished call, joined
		 * and decoded; resumed_line() when the name is longer */
		ts = norm_ts(src, TS_TOD, ts);
		if ((*rcp = line_pid(p, src, rawpid, 0, lineno, &pid, e)))
			return 1;
		k = scan_name16(t + 5);
		if (k && k < 16 && tn - 5 - k >= 9 && !memcmp(t + 5 + k, " resumed", 8) &&
		    t[5 + k + 8] == '>') {
			scan_words16(t + 5, k, w);
			*rcp = resume(p, src, pid, lineno, ts, t + 5, k, w, t + 5 + k + 9,
				      tn - 5 - k - 9, line, len, e);
		} else {
			*rcp = resumed_line(p, src, pid, lineno, ts, t, tn, line, len, e);
		}
		return 1;
	}
	/* the name: its first 16 bytes at once (the line's NUL ends it
	 * before tn), as words for the call table */
	if ((k = scan_name16(t)) == 16)
		while (k < tn && is_name_char((unsigned char)t[k]))
			k++;
	if (!k || k >= tn || t[k] != '(')
		goto general;
	char *body = t + k + 1;
	size_t bn = tn - k - 1;
	const struct callspec *cs = NULL;
	if (k <= 16) {
		scan_words16(t, k, w);
		cs = lookup_words(p, w);
	}
	/* a line ending in '>' ends in -T's " <S.uuuuuu>" (never in
	 * "<unfinished ...>" too: its 10th byte from the end is an 'i'), in
	 * "<unfinished ...>", or in something for the general way */
	if (bn && body[bn - 1] == '>' &&
	    (bn < 12 || body[bn - 10] != '<' || body[bn - 11] != ' ')) {
		if (k >= sizeof(((struct pend *)0)->name) || !strip_unfinished(body, bn, &keep))
			goto general;
		/* kept until its "<... NAME resumed>" (a name of 64 bytes or
		 * more went to the general way, which refuses it) */
		ts = norm_ts(src, TS_TOD, ts);
		if (k > 16)
			name_words(t, k, w);
		if (!(*rcp = line_pid(p, src, rawpid, 0, lineno, &pid, e)))
			*rcp = unfinished_line(p, src, pid, lineno, ts, cs, t, k, w, body, keep, e);
		return 1;
	}

	/* a complete call: decode() reads it, as event_text() hands it over */
	ts = norm_ts(src, TS_TOD, ts);
	if (!(*rcp = line_pid(p, src, rawpid, 0, lineno, &pid, e)))
		*rcp = decode(p, cs, src, pid, ts, lineno, t, k, k <= 16 ? w : NULL, body, bn, line,
			      len, e);
	return 1;
general:
	if (line[i] == '(')
		return 0;       /* -r with -tt: prefix() reads "(+ S.uuuuuu)" */
	/* for the general way: the prefix as prefix_read() reads it */
	*x = (struct sprefix){ .line = line, .len = len, .why = NULL, .pos = i, .pid = rawpid,
			       .bracketed = 0, .kind = TS_TOD, .ts = ts };
	return 0;
}

/* strace_parser_line, given the line's prefix when the caller read it
 * (pre: NULL, or prefix_read() of this line) and its first control byte
 * as lr_next_ctrl found it (ctrl: LR_NOCTRL when not looked for). */
static int parser_line(struct strace_parser *p, struct strace_src *src, char *line, size_t len,
		       size_t ctrl, unsigned long lineno, const struct sprefix *pre, struct rerr *e)
{
	p->bad = 0;
	int rc;
	struct sprefix x;
	if (ctrl != LR_NOCTRL && ctrl >= len && !p->general_only) {
		x.line = NULL;
		if (hot_line(p, src, line, len, lineno, e, &rc, &x))
			return rc;
		if (x.line)
			pre = &x;       /* its prefix, read */
	}
	rc = line_preamble(p, src, &line, &len, ctrl, lineno, e);
	if (rc)
		return rc > 0 ? 0 : rc;
	if (!pre || pre->line != line || pre->len != len) {  /* none, or the line changed */
		prefix_read(&x, line, len);
		pre = &x;
	}
	size_t pos = pre->pos;
	int64_t rawpid = pre->pid, pid;
	int bracketed = pre->bracketed;
	uint64_t ts;
	if (pre->why) {
		/* a pid column read: a corrupt line, not a bare rest */
		rc = pre->pid == STRACE_NOPID && !bracketed ?
			     continuation(p, src, line, len, lineno, e) : 1;
		return rc != 1 ? rc : bad_line(p, e, src, lineno, line, len, pre->why);
	}
	ts = norm_ts(src, pre->kind, pre->ts);
	/* scratch for decoded strings of this line (never longer) */
	rc = reserve(&p->scratch, &p->scap, 2 * len + 1024);
	if (rc)
		return rc;
	p->sused = 0;
	rc = line_pid(p, src, rawpid, bracketed, lineno, &pid, e);
	if (rc)
		return rc;
	return event_text(p, src, pid, lineno, ts, line + pos, len - pos, line, len, e);
}

int strace_parser_line(struct strace_parser *p, struct strace_src *src, char *line, size_t len,
		       unsigned long lineno, struct rerr *e)
{
	return parser_line(p, src, line, len, LR_NOCTRL, lineno, NULL, e);
}

int strace_parser_finish(struct strace_parser *p, struct rerr *e)
{
	struct strace_src s;
	strace_src_init(&s, "(end of trace)", STRACE_NOPID);
	for (size_t i = 0; i < p->pend.cap; i++) {
		struct pend *pe = p->pend.vals ? p->pend.vals[i] : NULL;
		if (!pe || !pe->active)
			continue;
		s.name = pe->src;
		int rc = drop_pending(p, &s, p->pend.keys[i], e);
		if (rc)
			return rc;
	}
	return 0;
}

void strace_parser_free(struct strace_parser *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->pend.cap; i++) {
		struct pend *pe = p->pend.vals ? p->pend.vals[i] : NULL;
		if (pe) {
			free(pe->text);
			free(pe);
		}
	}
	imap_release(&p->pend);
	imap_release(&p->seen);
	for (size_t i = 0; i < p->aio.cap; i++) {
		struct aioq *q = p->aio.vals ? p->aio.vals[i] : NULL;
		if (q) {
			free(q->data);
			free(q->id);
			free(q);
		}
	}
	imap_release(&p->aio);
	free(p->clones);
	free(p->orphans);
	free(p->scratch);
	free(p);
}

/* ---- files ---------------------------------------------------------------- */
/*
 * The input files of one trace.  An strace -ff capture may have more
 * per-pid files than the process may open (or than memory should hold
 * buffers for): at most `maxopen` are open at once, the least recently
 * read one is closed (its position and current line kept) when another
 * must be opened, and reopened where it stopped.
 */
struct sfile {
	struct linereader lr;   /* valid while open                        */
	struct strace_src src;
	char *line;             /* current line: in lr's buffer, or in own */
	size_t len;
	size_t ctrl;            /* its first control byte (lr_next_ctrl)    */
	char *own;
	size_t owncap;
	int have, open;
	uint64_t off;           /* where to reopen a closed file           */
	unsigned long lineno;   /* number of the current line              */
	uint64_t key;           /* timestamp of the current line (merge)   */
	struct sprefix pre;     /* its prefix, read for the key (merge)    */
	uint64_t used;          /* last read, for the choice of a file to close */
	int kind0;              /* time stamps of its first call line (TS_*) */
	bool ff;                /* a -ff file: the pid from its name        */
	bool classified;        /* files_classify found a call line          */
};

struct sfiles {
	struct sfile *f;
	size_t n;
	size_t *open;           /* indexes of the open files               */
	size_t nopen, maxopen;
	uint64_t tick;
	char **capnames;        /* the captures' names (files_captures)    */
	size_t ncap;
};

/* Files open at once: half the descriptors the process may have left
 * after raising its soft limit to the hard one, at most 256 (memory:
 * each open file has a buffer of 64 KiB or more). */
static size_t files_maxopen(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 16;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	rlim_t n = rl.rlim_cur > 48 ? (rl.rlim_cur - 32) / 2 : 8;
	return n > 256 ? 256 : (size_t)n;
}

/* Close the least recently read open file, keeping its current line. */
static int files_evict(struct sfiles *fs)
{
	size_t v = 0;
	for (size_t k = 1; k < fs->nopen; k++)
		if (fs->f[fs->open[k]].used < fs->f[fs->open[v]].used)
			v = k;
	struct sfile *g = &fs->f[fs->open[v]];
	if (g->have && g->line) {
		/* kept as the line reader gives a line: LR_PAD readable
		 * bytes after its NUL (the readers load words near the end) */
		if (g->len + 1 + LR_PAD > g->owncap) {
			char *n = realloc(g->own, g->len + 1 + LR_PAD);
			if (!n)
				return -ENOMEM;
			g->own = n;
			g->owncap = g->len + 1 + LR_PAD;
		}
		memcpy(g->own, g->line, g->len + 1);
		memset(g->own + g->len + 1, 0, LR_PAD);
		g->line = g->own;
	}
	g->off = lr_tell(&g->lr);
	lr_close(&g->lr);
	g->open = 0;
	fs->open[v] = fs->open[--fs->nopen];
	return 0;
}

static int files_open(struct sfiles *fs, size_t i, struct rerr *e)
{
	struct sfile *f = &fs->f[i];
	f->used = ++fs->tick;
	if (f->open)
		return 0;
	if (fs->nopen == fs->maxopen) {
		int rc = files_evict(fs);
		if (rc)
			return rerr_set(e, rc, "out of memory");
	}
	int rc = lr_open_at(&f->lr, f->src.name, f->off, f->lineno);
	if (rc)
		return rerr_set(e, rc, "cannot open '%s': %s", f->src.name, strerror(-rc));
	f->open = 1;
	fs->open[fs->nopen++] = i;
	return 0;
}

static void capnames_free(struct sfiles *fs)
{
	for (size_t i = 0; fs->capnames && i < fs->ncap; i++)
		free(fs->capnames[i]);
	free(fs->capnames);
	fs->capnames = NULL;
	fs->ncap = 0;
}

static void files_release(struct sfiles *fs)
{
	for (size_t i = 0; fs->f && i < fs->n; i++) {
		if (fs->f[i].open)
			lr_close(&fs->f[i].lr);
		free(fs->f[i].own);
		strace_src_release(&fs->f[i].src);
	}
	capnames_free(fs);
	free(fs->f);
	free(fs->open);
}

/* Min-heap of the files by next timestamp (ties: file order), for the
 * timestamp merge of -ff files.  An entry holds its file's key, so that a
 * step down compares neighbours in the heap, not records far apart. */
struct hent {
	uint64_t key;
	size_t i;
};

static inline bool hent_less(struct hent a, struct hent b)
{
	return a.key < b.key || (a.key == b.key && a.i < b.i);
}

/* The entry at c moved down to its place (a hole carried down, one
 * store per level). */
static void sift_down(struct hent *heap, size_t nh, size_t c)
{
	struct hent x = heap[c];

	for (;;) {
		size_t l = 2 * c + 1, m;
		if (l >= nh)
			break;
		m = l + 1 < nh && hent_less(heap[l + 1], heap[l]) ? l + 1 : l;
		if (!hent_less(heap[m], x))
			break;
		heap[c] = heap[m];
		c = m;
	}
	heap[c] = x;
}

/* pid from an strace -ff name PREFIX.<digits>, or STRACE_NOPID */
static int64_t suffix_pid(const char *name)
{
	const char *dot = strrchr(name, '.');
	if (!dot || !dot[1] || strchr(dot, '/'))
		return STRACE_NOPID;
	int64_t v = 0;
	for (const char *c = dot + 1; *c; c++) {
		if (*c < '0' || *c > '9' || v > (int64_t)1 << 40)
			return STRACE_NOPID;
		v = v * 10 + (*c - '0');
	}
	return v;
}

/* Does the line carry its own pid (column or [pid N])? -1 unknown line */
static int line_has_pid(const char *l, size_t len)
{
	size_t pos;
	int64_t pid;
	int br, kind;
	uint64_t ts;
	if (!len || (len >= 8 && !memcmp(l, "strace: ", 8)))
		return -1;
	if (prefix(l, len, &pos, &pid, &br, &kind, &ts))
		return -1;
	return pid != STRACE_NOPID;
}
/*
 * "[pid N]" output to stderr: the main process's lines have no prefix until
 * its first child exists.  Look ahead (bounded) for the first prefixed pid
 * that no clone returned: that is the main pid.
 */
static void prescan_main(struct strace_src *src)
{
	struct linereader lr;
	struct imap kids = { 0 };
	char *l;
	size_t n;
	if (lr_open(&lr, src->name))
		return;
	for (int k = 0; k < 200000 && lr_next(&lr, &l, &n) == 1; k++) {
		int64_t v;
		struct span rest;
		/* "strace: Process N attached", alone or cutting a line */
		const char *sp = n > 16 ? memmem(l, n, "strace: Process ", 16) : NULL;
		if (sp) {
			size_t off = (size_t)(sp - l) + 16;
			if (!num((struct span){ l + off, n - off }, &v, &rest))
				imap_put(&kids, v, (void *)(uintptr_t)SEEN);
			if (sp == l)
				continue;
		}
		if (n > 5 && !memcmp(l, "[pid ", 5)) {
			size_t i = 5;
			while (i < n && l[i] == ' ')
				i++;
			if (!num((struct span){ l + i, n - i }, &v, &rest) && !imap_get(&kids, v)) {
				src->main_pid = v + src->ns;
				src->main_known = true;
				break;
			}
			continue;
		}
		if (memmem(l, n, "clone", 5) || memmem(l, n, "fork(", 5)) {
			const char *eq = NULL;
			for (const char *q = l; (q = memmem(q, n - (size_t)(q - l), ") = ", 4)); q += 4)
				eq = q;
			if (eq && !num((struct span){ eq + 4, n - (size_t)(eq + 4 - l) }, &v, &rest) && v > 0)
				imap_put(&kids, v, (void *)(uintptr_t)SEEN);
		}
	}
	imap_release(&kids);
	lr_close(&lr);
}

/* Feeds the builder; remembers the children clone/fork returned so the
 * unmerged -ff walk can read a child's file where it was created. */
struct sink {
	struct builder *b;
	int64_t *kids;
	size_t nkids, ckids;
	struct born {           /* every child, for the -ff files' check */
		int64_t pid;
		const char *src;        /* the file of its clone, and line */
		unsigned long line;
		size_t seq;             /* (ff_missing: order met) */
	} *born;
	size_t nborn, cborn;
};

/* A clone's child, remembered (out of emit_builder: every other event then
 * goes straight on to builder_event). */
static __attribute__((noinline)) int sink_kid(struct sink *k, const struct sc_event *ev,
					      int64_t kid, struct rerr *e)
{
	if (k->nkids == k->ckids) {
		size_t nc = k->ckids ? k->ckids * 2 : 16;
		int64_t *n = realloc(k->kids, nc * sizeof(*n));
		if (!n)
			return rerr_set(e, -ENOMEM, "out of memory");
		k->kids = n;
		k->ckids = nc;
	}
	k->kids[k->nkids++] = kid;
	if (k->nborn == k->cborn) {
		size_t nc = k->cborn ? k->cborn * 2 : 16;
		struct born *n = realloc(k->born, nc * sizeof(*n));
		if (!n)
			return rerr_set(e, -ENOMEM, "out of memory");
		k->born = n;
		k->cborn = nc;
	}
	k->born[k->nborn++] = (struct born){ kid, ev->src, ev->line, 0 };
	return 0;
}

/* strace_parser_probe's question, put to the builder. */
static uintptr_t sink_probe(void *arg, int64_t pid, int64_t fd, const char *path)
{
	return builder_fd_on(((struct sink *)arg)->b, pid, fd, path);
}

static int emit_builder(void *arg, const struct sc_event *ev, struct rerr *e)
{
	struct sink *k = arg;
	int rc;
	if (ev->call == SC_CLONE && ev->ret > 0 && ev->ret != SC_RET_UNKNOWN &&
	    (rc = sink_kid(k, ev, ev->ret, e)))
		return rc;
	return builder_event(k->b, ev, e);
}

/* f's current line is the last of its file and has no '\n': strace ends
 * every line it writes with one, so the capture was cut while it wrote
 * this line (strace killed by SIGKILL, as at a batch job's time limit),
 * whether or not what is there parses (a result cut to "= 655" of
 * "= 65536" does).  The line is dropped and counted in in->cut_lines,
 * whatever --skip-bad says; the file ends before it.  0. */
static __attribute__((noinline, cold)) int cut_at_end(struct sfile *f, struct trace_input *in)
{
	if (!in->cut_lines++)
		snprintf(in->first_cut, sizeof(in->first_cut), "%s:%lu", f->src.name, f->lineno);
	in->lines++;
	in->bytes += f->len;
	f->have = 0;
	f->line = NULL;
	return 0;
}

/* Next line of file i into f->line (NULL: over-long, reported by
 * handle()); sets f->key for merging.  1, 0 at the end (a last line cut
 * mid-line, dropped, too), -errno + e. */
static inline __attribute__((always_inline)) int files_next(struct sfiles *fs, size_t i,
								 struct trace_input *in, int want_key,
								 struct rerr *e)
{
	struct sfile *f = &fs->f[i];
	int rc;
	if (f->open)
		f->used = ++fs->tick;   /* what files_open does for an open file */
	else if ((rc = files_open(fs, i, e)))
		return rc;
	f->pre.line = NULL;             /* read again below only for a key */
	rc = lr_next_ctrl_inline(&f->lr, &f->line, &f->len, &f->ctrl);
	f->lineno = f->lr.lineno;
	if (rc == 0) {
		f->have = 0;
		return 0;
	}
	if (__builtin_expect(f->lr.nonl, 0) && rc == 1)
		return cut_at_end(f, in);
	if (rc == -E2BIG) {     /* a line all the same (f->len: its length) */
		f->line = NULL;
		f->have = 1;
		in->lines++;
		in->bytes += f->len + 1;
		return 1;
	}
	if (rc < 0)
		return rerr_set(e, rc, "cannot read '%s': %s", f->src.name, strerror(-rc));
	f->have = 1;
	in->lines++;
	in->bytes += f->len + 1;
	if (!want_key)
		return 1;
	prefix_read(&f->pre, f->line, f->len);
	if (!f->pre.why && (f->pre.kind == TS_TOD || f->pre.kind == TS_EPOCH)) {
		/* same normalization the parse applies (idempotent) */
		struct strace_src tmp = f->src;
		tmp.carry = NULL;
		f->key = norm_ts(&tmp, f->pre.kind, f->pre.ts);
		f->src.day_off = tmp.day_off;
	}
	return 1;
}

/* A line that does not parse in strace's stderr form ("[pid N]"
 * prefixes), or a write to the program's stdout/stderr: most likely the
 * program's own output spliced into strace's (strace without -o, both on
 * one terminal or job log).  Say so after the error. */
static void bad_hint(const struct sfile *f, struct rerr *e)
{
	size_t pos, n = strlen(e->msg);
	int64_t pid;
	int br, kind;
	uint64_t ts;
	if (!f->line || prefix(f->line, f->len, &pos, &pid, &br, &kind, &ts))
		return;
	const char *t = f->line + pos;
	size_t tn = f->len - pos;
	bool out = false;
	for (size_t k = 0; k < 2 && !out; k++) {
		const char *c = k ? "writev(" : "write(";
		size_t cl = strlen(c);
		out = tn > cl + 1 && !memcmp(t, c, cl) && (t[cl] == '1' || t[cl] == '2') &&
		      (t[cl + 1] == ',' || t[cl + 1] == '<');
	}
	if ((br || out) && n + 1 < sizeof(e->msg))
		snprintf(e->msg + n, sizeof(e->msg) - n,
			 " (the traced program's own output mixed into strace's lines? That happens"
			 " when strace writes to the program's stderr: capture with strace -o FILE,"
			 " or pass --skip-bad to skip such lines)");
}

/* f's current line did not parse (e says why): counted with --skip-bad,
 * else the error it is.  (A last line cut mid-line never gets here:
 * files_next drops it.) */
static __attribute__((noinline, cold)) int handle_bad(struct sfile *f, struct trace_input *in,
						      int rc, struct rerr *e)
{
	if (!in->skip_bad) {
		bad_hint(f, e);
		return rc;
	}
	if (!in->bad_lines++) {
		size_t l = strnlen(e->msg, sizeof(in->first_bad) - 1);
		memcpy(in->first_bad, e->msg, l);
		in->first_bad[l] = 0;
	}
	return 0;
}

/* Parse f's current line; a malformed one: handle_bad. */
static inline __attribute__((always_inline)) int handle(struct strace_parser *p, struct sfile *f,
							     struct trace_input *in, struct rerr *e)
{
	int rc;
	if (!f->line) {
		p->bad = 1;
		rc = rerr_at(e, -EINVAL, f->src.name, f->lineno,
			     "expected a line shorter than %u bytes (strace -s N shows N bytes of"
			     " each buffer: capture with a smaller -s; the default, 32, is enough"
			     " for replay)", LR_MAX);
	} else {
		rc = parser_line(p, &f->src, f->line, f->len, f->ctrl, f->lineno,
				 f->pre.line == f->line ? &f->pre : NULL, e);
	}
	if (rc && p->bad)
		return handle_bad(f, in, rc, e);
	return rc;
}

/*
 * Read file i up to its first call line (parsing blank and "strace:" lines
 * before it), and tell from that line whose calls it holds: lines without
 * a pid are a -ff file's (pid from the name) or the main process's of
 * "[pid N]" output.  *merge is cleared when the line has no absolute time.
 */
static int files_classify(struct strace_parser *p, struct sfiles *fs, size_t i,
			  struct trace_input *in, int *merge, struct rerr *e)
{
	struct sfile *f = &fs->f[i];
	int has = -1, rc;
	for (;;) {
		rc = files_next(fs, i, in, *merge, e);
		if (rc <= 0 || !f->line)
			break;
		has = line_has_pid(f->line, f->len);
		if (has >= 0) {
			size_t pos;
			int64_t pid;
			int br, kind;
			uint64_t key;
			if (prefix(f->line, f->len, &pos, &pid, &br, &kind, &key))
				kind = TS_NONE;
			if (kind != TS_TOD && kind != TS_EPOCH)
				*merge = 0;
			f->kind0 = kind;
			break;
		}
		rc = handle(p, f, in, e);
		if (rc)
			return rc;
	}
	if (rc < 0)
		return rc;
	f->classified = has >= 0;
	if (has == 0) {
		int64_t sp = suffix_pid(in->files[i]);
		if (sp != STRACE_NOPID) {
			f->src.pid = sp + f->src.ns;
			f->ff = true;
		} else
			prescan_main(&f->src);
	}
	return 0;
}

/*
 * The files of one strace -ff without absolute time stamps: nothing says
 * how the processes' calls interleave (they are read one after the other,
 * children at their clone; the plan orders them that way).  With -r, a
 * line's delta counts from the line strace printed before it in any of
 * the files (a parent's first line after a 0.3 s wait4 says +0.0002 s),
 * so one file's deltas add up to no clock at all: they are dropped (time
 * 0), which leaves the order of the walk.  Several -f files (one strace
 * each, a pid column) keep their own -r clocks.
 */
static void no_clock(struct sfiles *fs, struct trace_input *in)
{
	size_t nff = 0;
	bool rel = false;
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].ff) {
			nff++;
			rel |= fs->f[i].kind0 == TS_REL;
		}
	if (nff < 2)
		return;
	if (rel)
		for (size_t i = 0; i < fs->n; i++)
			if (fs->f[i].ff)
				fs->f[i].src.no_rel = true;
	in->no_clock = rel ? "strace -ff -r" : "strace -ff without time stamps";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * -ff files with a -tt clock each start on day 0: a child whose first
 * line is 00:10 while its parent began at 23:50 would come first.  The
 * first lines' times of day on a 24-hour circle: the capture began after
 * the largest gap between them (it lasts less than the day that gap
 * leaves out), so a file whose first line is earlier in the day than that
 * begins a day later.
 */
static void files_first_day(struct sfiles *fs)
{
	const uint64_t day = 86400ull * 1000000000ull;
	uint64_t *t = malloc((fs->n ? fs->n : 1) * sizeof(*t));
	size_t n = 0;
	if (!t)
		return;         /* (as before: each file on day 0) */
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].have && fs->f[i].pre.kind == TS_TOD && fs->f[i].key < day)
			t[n++] = fs->f[i].key;
	if (n >= 2) {
		qsort(t, n, sizeof(*t), cmp_u64);
		uint64_t start = t[0], gap = t[0] + day - t[n - 1];
		for (size_t k = 1; k < n; k++)
			if (t[k] - t[k - 1] > gap) {
				gap = t[k] - t[k - 1];
				start = t[k];
			}
		for (size_t i = 0; i < fs->n; i++) {
			struct sfile *f = &fs->f[i];
			if (f->have && f->pre.kind == TS_TOD && f->key < start) {
				f->key += day;
				f->src.day_off += day;
			}
		}
	}
	free(t);
}

/* The name of the capture file i is of, as its first `*len` bytes: an
 * strace -ff file's PREFIX (ff: as files_classify found, or as the name
 * says before, or for a file without a call line), any other file's whole
 * name. */
static const char *capture_key(const struct sfile *f, bool known, size_t *len)
{
	const char *name = f->src.name;
	bool ff = known && f->classified ? f->ff : suffix_pid(name) != STRACE_NOPID;
	*len = ff ? (size_t)(strrchr(name, '.') - name) : strlen(name);
	return name;
}

/* A file with no call line whose name is no -ff file's (an empty
 * strace.err beside the capture): no capture of its own. */
static bool capture_none(const struct sfile *f, bool known)
{
	return known && !f->classified && suffix_pid(f->src.name) == STRACE_NOPID;
}

struct capsort {                /* by_capture's context */
	const struct sfile *f;
	bool known;
};

static int by_capture(const void *x, const void *y, void *arg)
{
	const struct capsort *cs = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y, la, lb;
	const char *ka = capture_key(&cs->f[a], cs->known, &la);
	const char *kb = capture_key(&cs->f[b], cs->known, &lb);
	int c = memcmp(ka, kb, la < lb ? la : lb);
	if (c)
		return c;
	if (la != lb)
		return la < lb ? -1 : 1;
	return (a > b) - (a < b);
}

/*
 * The captures the files are of: the files of one strace -ff (PREFIX.PID)
 * are one capture, any other file is one of its own (known: whether a
 * file is of -ff as files_classify found, else as its name says).  Each
 * capture's pids are its own: the nodes of a job, or the runs of strace
 * that each rank of an MPI job was started under, hand out the same pids
 * (and a file without -f has no pid column at all).  So with several
 * captures the k-th one's pids get k << 32 (strace_src.ns), and its main
 * process, until known, is -1 - k; with one nothing changes.  The names
 * of the captures, in order, in *names (the files' names, the -ff ones'
 * as PREFIX; the caller frees them: capnames_free), *ncap of them.
 * -ENOMEM or 0.
 */
static int files_captures(struct sfiles *fs, bool known, char ***names, size_t *ncap)
{
	size_t n = fs->n, k = 0;
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	int64_t *cap = malloc((n ? n : 1) * sizeof(*cap));
	char **nm = calloc(n ? n : 1, sizeof(*nm));
	if (!order || !cap || !nm) {
		free(order);
		free(cap);
		free(nm);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), by_capture, &(struct capsort){ fs->f, known });
	size_t prev = SIZE_MAX;         /* the last file of a capture */
	for (size_t j = 0; j < n; j++) {
		size_t la, lb;
		if (capture_none(&fs->f[order[j]], known)) {
			cap[order[j]] = 0;      /* no line: any pids will do */
			continue;
		}
		const char *a = capture_key(&fs->f[order[j]], known, &la);
		if (prev != SIZE_MAX) {
			const char *b = capture_key(&fs->f[prev], known, &lb);
			if (la != lb || memcmp(a, b, la))
				k++;
		}
		prev = order[j];
		cap[order[j]] = (int64_t)k;
		if (!nm[k])
			nm[k] = strndup(a, la);
		if (!nm[k]) {
			for (size_t i = 0; i < n; i++)
				free(nm[i]);
			free(nm);
			free(order);
			free(cap);
			return -ENOMEM;
		}
	}
	size_t nc = prev == SIZE_MAX ? 0 : k + 1;
	for (size_t i = 0; i < n; i++) {
		struct strace_src *src = &fs->f[i].src;
		int64_t ns = nc > 1 ? cap[i] << 32 : 0, old = src->ns;
		if (ns == old)
			continue;
		src->ns = ns;
		src->main0 = nc > 1 ? -1 - cap[i] : -1;
		if (src->pid != STRACE_NOPID)
			src->pid += ns - old;
		if (src->main_known)
			src->main_pid += ns - old;
		else
			src->main_pid = src->main0;
	}
	free(order);
	free(cap);
	*names = nm;
	*ncap = nc;
	return 0;
}

static int files_init(struct strace_parser *p, struct sfiles *fs, struct trace_input *in,
		      int *merge, struct rerr *e)
{
	size_t n = in->nfiles ? in->nfiles : 1;
	fs->n = in->nfiles;
	fs->maxopen = files_maxopen();
	fs->f = calloc(n, sizeof(*fs->f));
	fs->open = calloc(fs->maxopen, sizeof(*fs->open));
	if (!fs->f || !fs->open)
		return rerr_set(e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < in->nfiles; i++)
		strace_src_init(&fs->f[i].src, in->files[i], STRACE_NOPID);
	*merge = in->nfiles > 1;
	/* as the names say, for the lines read before a file is known */
	int rc = files_captures(fs, false, &fs->capnames, &fs->ncap);
	if (rc)
		return rerr_set(e, rc, "out of memory");
	for (size_t i = 0; i < in->nfiles; i++) {
		rc = files_classify(p, fs, i, in, merge, e);
		if (rc)
			return rc;
	}
	capnames_free(fs);
	rc = files_captures(fs, true, &fs->capnames, &fs->ncap);
	if (rc)
		return rerr_set(e, rc, "out of memory");
	if (!*merge)
		no_clock(fs, in);
	else
		files_first_day(fs);
	return 0;
}

/* k-way merge by timestamp: the builder sees the processes' calls in time
 * order, as a -f trace would show them. */
static int merge_by_time(struct strace_parser *p, struct sfiles *fs, struct trace_input *in,
			 struct rerr *e)
{
	struct hent *heap = malloc((fs->n ? fs->n : 1) * sizeof(*heap));
	size_t nh = 0;
	int rc = 0;

	if (!heap)
		return rerr_set(e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].have)
			heap[nh++] = (struct hent){ fs->f[i].key, i };
	for (size_t k = nh / 2; k-- > 0;)
		sift_down(heap, nh, k);
	while (nh) {
		size_t i = heap[0].i;
		rc = handle(p, &fs->f[i], in, e);
		if (!rc)
			rc = files_next(fs, i, in, 1, e);
		if (rc < 0)
			break;
		if (rc)
			heap[0].key = fs->f[i].key;
		else
			heap[0] = heap[--nh];
		rc = 0;
		sift_down(heap, nh, 0);
	}
	free(heap);
	return rc;
}

/* files by -ff pid (no pid first), then by position: a stable order */
static int by_pid(const void *x, const void *y, void *arg)
{
	const struct sfile *fs = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int64_t pa = fs[a].src.pid, pb = fs[b].src.pid;
	if (pa != pb)
		return pa < pb ? -1 : 1;
	return (a > b) - (a < b);
}

/* Push onto the stack the unread files of the children f's last line made. */
static void push_children(struct sfiles *fs, const struct sfile *f, struct sink *sink,
			  char *done, size_t *stack, size_t *sp)
{
	for (size_t k = 0; k < sink->nkids; k++)
		for (size_t j = 0; j < fs->n; j++)
			if (!done[j] && fs->f[j].src.pid == sink->kids[k]) {
				/* -r: the child's deltas start where its clone
				 * returned, not at the parent's time 0 */
				fs->f[j].src.rel_acc = f->src.rel_acc;
				stack[(*sp)++] = j;
				done[j] = 1;
			}
	sink->nkids = 0;
}

/*
 * No common clock: read the files one after the other, but a child's file
 * (strace -ff) right where its clone/fork returned in the parent's file,
 * so it starts from the fd table it inherited (a thread's calls then all
 * come before the parent's later ones).  Roots go in pid order (a parent's
 * pid is usually the smaller), so a child is met at its parent's clone.
 */
static int walk_by_clone(struct strace_parser *p, struct sfiles *fs, struct trace_input *in,
			 size_t *stack, struct sink *sink, struct rerr *e)
{
	size_t n = fs->n ? fs->n : 1;
	char *done = calloc(n, 1);
	size_t *order = calloc(n, sizeof(*order));
	int rc = 0;
	if (!done || !order) {
		rc = rerr_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < fs->n; i++)
		order[i] = i;
	qsort_r(order, fs->n, sizeof(*order), by_pid, fs->f);
	for (size_t oi = 0; oi < fs->n && !rc; oi++) {
		size_t sp = 0;
		if (done[order[oi]])
			continue;
		stack[sp++] = order[oi];
		done[order[oi]] = 1;
		sink->nkids = 0;
		while (sp && !rc) {
			size_t i = stack[sp - 1];
			struct sfile *f = &fs->f[i];
			if (!f->have) {
				sp--;
				continue;
			}
			/* the file's lines one after the other, until one makes
			 * children (whose files come first) */
			do {
				rc = handle(p, f, in, e);
				if (!rc)
					rc = files_next(fs, i, in, 0, e);
				if (rc > 0)
					rc = 0;
			} while (!rc && f->have && !sink->nkids);
			push_children(fs, f, sink, done, stack, &sp);
		}
	}
out:
	free(done);
	free(order);
	return rc;
}

/* A line strace could have printed: its prefix (pid, time), then a call
 * "NAME(", a signal "--- ", an exit "+++ ", a resumed "<... ", or one of
 * strace's own messages.  A file of several with none (a README in a
 * directory of strace -ff -o files) is no trace. */
static bool strace_line(const char *l, size_t n)
{
	size_t pos, k = 0;
	int64_t pid;
	int br, kind;
	uint64_t ts;
	if ((n >= 8 && !memcmp(l, "strace: ", 8)) ||
	    (n >= 30 && !memcmp(l, "% time     seconds  usecs/call", 30)))
		return true;
	if (prefix(l, n, &pos, &pid, &br, &kind, &ts))
		return false;
	const char *t = l + pos;
	size_t tn = n - pos;
	if (tn >= 4 && (!memcmp(t, "--- ", 4) || !memcmp(t, "+++ ", 4) || !memcmp(t, "<... ", 4)))
		return true;
	while (k < tn && is_name_char((unsigned char)t[k]))
		k++;
	return k && k < tn && t[k] == '(';
}

/* How many of something (key_n = n) and the first's place (key_first =
 * "SRC:LINE") in the info blob, for the loader's warning; nothing when
 * n is 0. */
static int count_notes(struct builder *b, const char *key_n, uint64_t n, const char *key_first,
		       const char *src, uint64_t line, struct rerr *e)
{
	char v[600];
	int rc;
	if (!n)
		return 0;
	snprintf(v, sizeof(v), "%" PRIu64, n);
	rc = builder_info(b, key_n, v);
	snprintf(v, sizeof(v), "%s:%" PRIu64, src ? src : "?", line);
	if (!rc)
		rc = builder_info(b, key_first, v);
	return rc ? rerr_set(e, rc, "out of memory") : 0;
}

/* A process's clock that went back (not at midnight, see clock_back):
 * its ops were timed as the one before them by the builder, which counted
 * them (clock_back_steps, clock_back_first); data calls seen only by
 * their "<... NAME resumed>" (resume(): orphan_data_calls,
 * orphan_data_first). */
static int clock_orphan_notes(const struct strace_parser *p, struct builder *b, struct rerr *e)
{
	const struct build_stats *st = builder_stats(b);
	int rc = count_notes(b, "clock_back_steps", st->clock_back, "clock_back_first",
			     st->clock_back_src, st->clock_back_line, e);
	if (!rc)
		rc = count_notes(b, "orphan_data_calls", p->orphan_data, "orphan_data_first",
				 p->orphan_src, p->orphan_line, e);
	if (!rc)
		rc = count_notes(b, "injected_calls", p->injected, "injected_first",
				 p->injected_src, p->injected_line, e);
	return rc;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

static int cmp_born(const void *x, const void *y)
{
	const struct born *a = x, *b = y;
	if (a->pid != b->pid)
		return (a->pid > b->pid) - (a->pid < b->pid);
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/*
 * strace -ff writes a file for every process and thread it follows, named
 * PREFIX.PID: a child whose pid a clone, fork or vfork of an -ff file
 * returned, and which has no file among the inputs (deleted, not copied,
 * not matched), is a process whose calls are missing from the trace.  Said
 * in the info blob (ff_missing, ff_missing_files: the names expected, the
 * pid and the clone's place) for the loader's warning, and whether the
 * capture shows no exit line at all (-qq: then a process that made no
 * call -e trace= lets through has no file either: ff_no_exit_lines).
 * A pid the clones of -ff files returned more than once (pid reuse) has
 * one file for all those processes, which strace truncated when the next
 * one began (its calls alone are there; with -A all of them, read as one
 * process): ff_pid_reused, ff_pid_reused_files.
 */
static const struct sfile *ff_parent(const struct sfiles *fs, const char *src)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].ff && fs->f[i].src.name == src)
			return &fs->f[i];
	return NULL;
}

/* "PREFIX.PID" of a child of the -ff file src: at most the first v of n */
static int ff_name(char *v, size_t n, const char *src, int64_t pid)
{
	pid = builder_pid_shown(pid);
	const char *dot = strrchr(src, '.');
	int pl = dot ? (int)(dot - src) : (int)strlen(src);
	return snprintf(v, n, "%.*s.%" PRId64, pl, src, pid);
}

/* Append to the list v (at: its length) the item fmt makes, or ", .."
 * once it is full. */
static void list_add(char *v, size_t n, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void list_add(char *v, size_t n, size_t *at, const char *fmt, ...)
{
	va_list ap;
	if (*at >= n - 1)
		return;
	va_start(ap, fmt);
	int w = vsnprintf(v + *at, n - *at, fmt, ap);
	va_end(ap);
	*at = w < 0 ? n : *at + (size_t)w;
	if (*at >= n)
		strcpy(v + n - 5, ", ..");
}

static int ff_reused(const struct sfiles *fs, struct sink *k, const int64_t *pids, size_t nff,
		     struct rerr *e)
{
	size_t nre = 0, at = 0;
	char v[600], name[300];
	int rc = 0;
	v[0] = 0;
	for (size_t j = 0, m; j < k->nborn; j = m) {
		const struct born *c = &k->born[j];
		size_t ff = 0;
		for (m = j; m < k->nborn && k->born[m].pid == c->pid; m++)
			ff += ff_parent(fs, k->born[m].src) != NULL;
		if (m - j < 2 || ff < 2 || !bsearch(&c->pid, pids, nff, sizeof(*pids), cmp_i64))
			continue;
		ff_name(name, sizeof(name), c->src, c->pid);
		list_add(v, sizeof(v), &at, "%s%s (pid %" PRId64 ", forked %zu times: at %s:%lu, %s:%lu%s)",
			 nre ? ", " : "", name, builder_pid_shown(c->pid), m - j, c->src, c->line, k->born[j + 1].src,
			 k->born[j + 1].line, m - j > 2 ? ", ..." : "");
		nre++;
	}
	if (nre) {
		char num[32];
		snprintf(num, sizeof(num), "%zu", nre);
		rc = builder_info(k->b, "ff_pid_reused", num);
		if (!rc)
			rc = builder_info(k->b, "ff_pid_reused_files", v);
		if (rc)
			rc = rerr_set(e, rc, "out of memory");
	}
	return rc;
}

static int ff_missing(const struct sfiles *fs, struct sink *k, bool quiet, struct rerr *e)
{
	size_t nff = 0, nmiss = 0, at = 0;
	int64_t *pids = malloc((fs->n ? fs->n : 1) * sizeof(*pids));
	char v[600], name[300];
	int rc = 0;

	if (!pids)
		return rerr_set(e, -ENOMEM, "out of memory");
	bool any_ff = false;
	for (size_t i = 0; i < fs->n; i++) {
		/* (a file without a call line is no -ff file here, but its
		 * name says whose it is: a thread that made no traced call) */
		int64_t sp = fs->f[i].ff ? fs->f[i].src.pid : suffix_pid(fs->f[i].src.name);
		if (!fs->f[i].ff && sp != STRACE_NOPID)
			sp += fs->f[i].src.ns;
		any_ff |= fs->f[i].ff;
		if (sp != STRACE_NOPID)
			pids[nff++] = sp;
	}
	if (!any_ff || !k->nborn)
		goto out;
	qsort(pids, nff, sizeof(*pids), cmp_i64);
	/* (stable for equal pids: the clones in the order they were met) */
	for (size_t j = 0; j < k->nborn; j++)
		k->born[j].seq = j;
	qsort(k->born, k->nborn, sizeof(*k->born), cmp_born);
	v[0] = 0;
	for (size_t j = 0; j < k->nborn; j++) {
		const struct born *c = &k->born[j];
		if (j && c->pid == k->born[j - 1].pid)
			continue;               /* a pid used again */
		if (bsearch(&c->pid, pids, nff, sizeof(*pids), cmp_i64))
			continue;
		if (!ff_parent(fs, c->src))
			continue;               /* not an -ff file's child */
		ff_name(name, sizeof(name), c->src, c->pid);
		list_add(v, sizeof(v), &at, "%s%s (pid %" PRId64 ", forked at %s:%lu)",
			 nmiss ? ", " : "", name, builder_pid_shown(c->pid), c->src, c->line);
		nmiss++;
	}
	rc = ff_reused(fs, k, pids, nff, e);
	if (!rc && nmiss) {
		char num[32];
		snprintf(num, sizeof(num), "%zu", nmiss);
		rc = builder_info(k->b, "ff_missing", num);
		if (!rc)
			rc = builder_info(k->b, "ff_missing_files", v);
		/* no exit line anywhere (strace -qq): a process that made no
		 * call -e trace= shows gets no file either */
		if (!rc && quiet)
			rc = builder_info(k->b, "ff_no_exit_lines", "1");
		if (rc)
			rc = rerr_set(e, rc, "out of memory");
	}
out:
	free(pids);
	return rc;
}

static int strace_parse(struct trace_input *in, struct builder *b, struct rerr *e)
{
	struct strace_parser *p = NULL;
	struct sfiles fs = { 0 };
	struct sink sink = { .b = b };
	size_t *heap = NULL;
	int merge = 0;
	int rc = trace_drop_foreign(in, strace_line, "strace", e);
	if (rc)
		return rc;
	rc = strace_parser_new(&p, emit_builder, &sink);
	if (rc)
		goto out;
	strace_parser_probe(p, sink_probe);
	heap = calloc(in->nfiles ? in->nfiles : 1, sizeof(*heap));
	if (!heap) {
		rc = -ENOMEM;
		goto out;
	}
	rc = files_init(p, &fs, in, &merge, e);
	if (!rc && fs.ncap > 1 && (rc = builder_captures(b, fs.capnames, fs.ncap)))
		rc = rerr_set(e, rc, "out of memory");
	if (!rc && in->nfiles > 1)
		builder_rank_sources(b);
	if (!rc)
		rc = merge ? merge_by_time(p, &fs, in, e) :
			     walk_by_clone(p, &fs, in, heap, &sink, e);
	if (!rc)
		rc = strace_parser_finish(p, e);
	if (!rc)
		rc = clock_orphan_notes(p, b, e);
	if (!rc)
		rc = ff_missing(&fs, &sink, p->exits == 0, e);
	if (!rc && !strace_parser_syscalls(p))
		rc = rerr_set(e, -EINVAL, "%s: no syscalls found%s",
			      in->nfiles ? in->files[0] : "(no files)",
			      in->bad_lines ? " (all lines were malformed)" :
			      p->summary_seen ?
					      " (only the summary table of strace -c: capture without"
					      " -c, or with -C for both)" :
					      "");
out:
	files_release(&fs);
	free(heap);
	free(sink.kids);
	free(sink.born);
	strace_parser_free(p);
	return rc;
}

/* ---- probe ---------------------------------------------------------------- */
static int strace_probe(const char *head, size_t len)
{
	size_t i = 0;
	int total = 0, good = 0, results = 0;
	/* strace -c alone: only its summary table; claimed, so that the
	 * parse says what it is */
	while (i < len && head[i] == '\n')
		i++;
	if (len - i >= 30 && !memcmp(head + i, "% time     seconds  usecs/call", 30))
		return 60;
	while (i < len && total < 40) {
		const char *nl = memchr(head + i, '\n', len - i);
		if (!nl)
			break;          /* partial last line */
		const char *l = head + i;
		size_t n = (size_t)(nl - l);
		i += n + 1;
		if (!n || (n >= 8 && !memcmp(l, "strace: ", 8)) || (n >= 2 && !memcmp(l, " > ", n < 3 ? 2 : 3)) ||
		    (n >= 10 && l[0] == ' ' && hexdump_line(l + 1, n - 1)))
			continue;       /* blank, strace message, -k frame, -e read= dump */
		for (size_t k = 0; k < n; k++)
			if ((unsigned char)l[k] < 0x09 || l[k] == 0x7f)
				return 0;
		total++;
		size_t pos;
		int64_t pid;
		int br, kind;
		uint64_t ts;
		if (prefix(l, n, &pos, &pid, &br, &kind, &ts))
			continue;
		const char *t = l + pos;
		size_t tn = n - pos;
		if (tn >= 4 && (!memcmp(t, "SYS_", 4)))
			return 0;       /* ltrace -S (LANL-Trace) */
		if (tn >= 4 && (!memcmp(t, "--- ", 4) || !memcmp(t, "+++ ", 4) || !memcmp(t, "<... ", 4))) {
			good++;
			continue;
		}
		size_t k = 0;
		while (k < tn && is_name_char((unsigned char)t[k]))
			k++;
		if (k && k < tn && t[k] == '(') {
			good++;
			if (memmem(t, tn, ") = ", 4) || memmem(t, tn, "<unfinished ...>", 16) ||
			    memmem(t, tn, ")  = ", 5))
				results++;
		}
	}
	if (!total || !results)
		return 0;
	return good * 90 / total;
}

const struct trace_format trace_strace = {
	.name = "strace",
	.desc = "strace text output (-f, -ff, -tt/-ttt/-r, -T, -y)",
	.probe = strace_probe,
	.parse = strace_parse,
};
