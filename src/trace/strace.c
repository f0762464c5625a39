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
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/imap.h"
#include "trace/strace.h"
#include "trace/trace.h"

/* ---- call table ----------------------------------------------------------- */
enum handler {
	H_SKIP, H_OPEN, H_OPENAT, H_OPENAT2, H_CREAT, H_CLOSE, H_READ, H_WRITE,
	H_PREAD, H_PWRITE, H_READV, H_WRITEV, H_PREADV, H_PWRITEV, H_PREADV2,
	H_PWRITEV2, H_LSEEK, H_LLSEEK, H_FTRUNCATE, H_FSYNC, H_FDATASYNC, H_SFR,
	H_FALLOCATE, H_DUP, H_DUP2, H_DUP3, H_FCNTL, H_UNLINK, H_UNLINKAT, H_RMDIR,
	H_RENAME, H_RENAMEAT, H_MKDIR, H_MKDIRAT, H_STAT, H_FSTATAT, H_STATX,
	H_FSTAT, H_MMAP, H_CLONE, H_CLONE3, H_FORK, H_VFORK, H_IO_SUBMIT,
	H_COPY_FILE_RANGE, H_SENDFILE, H_CLOSE_RANGE, H_CHDIR, H_FCHDIR,
};

struct callspec {
	const char *name;
	enum handler h;
};


static const struct callspec calls[] = {
	{ "open", H_OPEN }, { "openat", H_OPENAT }, { "openat2", H_OPENAT2 },
	{ "creat", H_CREAT }, { "close", H_CLOSE },
	{ "read", H_READ }, { "write", H_WRITE },
	{ "pread64", H_PREAD }, { "pread", H_PREAD },
	{ "pwrite64", H_PWRITE }, { "pwrite", H_PWRITE },
	{ "readv", H_READV }, { "writev", H_WRITEV },
	{ "preadv", H_PREADV }, { "pwritev", H_PWRITEV },
	{ "preadv2", H_PREADV2 }, { "pwritev2", H_PWRITEV2 },
	{ "lseek", H_LSEEK }, { "_llseek", H_LLSEEK }, { "llseek", H_LLSEEK },
	{ "ftruncate", H_FTRUNCATE }, { "ftruncate64", H_FTRUNCATE },
	{ "fsync", H_FSYNC }, { "fdatasync", H_FDATASYNC },
	{ "sync_file_range", H_SFR }, { "fallocate", H_FALLOCATE },
	{ "dup", H_DUP }, { "dup2", H_DUP2 }, { "dup3", H_DUP3 },
	{ "fcntl", H_FCNTL }, { "fcntl64", H_FCNTL },
	{ "unlink", H_UNLINK }, { "unlinkat", H_UNLINKAT }, { "rmdir", H_RMDIR },
	{ "rename", H_RENAME }, { "renameat", H_RENAMEAT }, { "renameat2", H_RENAMEAT },
	{ "mkdir", H_MKDIR }, { "mkdirat", H_MKDIRAT },
	{ "stat", H_STAT }, { "lstat", H_STAT }, { "stat64", H_STAT }, { "lstat64", H_STAT },
	{ "oldstat", H_STAT }, { "oldlstat", H_STAT },
	{ "newfstatat", H_FSTATAT }, { "fstatat64", H_FSTATAT }, { "statx", H_STATX },
	{ "fstat", H_FSTAT }, { "fstat64", H_FSTAT }, { "oldfstat", H_FSTAT },
	{ "mmap", H_MMAP }, { "mmap2", H_MMAP },
	{ "clone", H_CLONE }, { "clone3", H_CLONE3 }, { "fork", H_FORK }, { "vfork", H_VFORK },
	{ "io_submit", H_IO_SUBMIT },
	{ "copy_file_range", H_COPY_FILE_RANGE }, { "sendfile", H_SENDFILE },
	{ "sendfile64", H_SENDFILE }, { "close_range", H_CLOSE_RANGE },
	{ "chdir", H_CHDIR }, { "fchdir", H_FCHDIR },
};

#define NCALLS (sizeof(calls) / sizeof(calls[0]))
#define CALLHASH 256

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/* ---- parser state --------------------------------------------------------- */
struct pend {
	char *text;             /* arguments so far (after the '(')   */
	size_t len, cap;
	uint64_t ts;
	unsigned long line;
	const char *src;
	char name[64];
	int active;
	int is_clone;
};

struct strace_parser {
	strace_emit_fn emit;
	void *arg;
	uint8_t callidx[CALLHASH];      /* index + 1 into calls[], 0 empty */
	uint8_t call_len[64];           /* strlen(calls[i].name)           */
	struct imap pend;               /* pid -> struct pend*             */
	struct imap seen;               /* pid -> SEEN | CHILD bits        */
	int64_t *clones;                /* pids with an unfinished clone   */
	size_t nclones, ccap;
	char *scratch;                  /* decoded strings of one line     */
	size_t scap, sused;
	char *join;                     /* joined unfinished + resumed     */
	size_t jcap;
	uint64_t syscalls;
	int bad;                        /* last error was a malformed line */
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

static int reserve(char **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
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

static int is_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static struct span trim(struct span a)
{
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
#define CL_SPEC 2   /* what split() has to look at   */
static const uint8_t cls[256] = {
	[0 ... 8] = CL_BAD, [10 ... 31] = CL_BAD, [127] = CL_BAD,
	['"'] = CL_SPEC, ['/'] = CL_SPEC, ['<'] = CL_SPEC, ['('] = CL_SPEC,
	['['] = CL_SPEC, ['{'] = CL_SPEC, [')'] = CL_SPEC, [']'] = CL_SPEC,
	['}'] = CL_SPEC, [','] = CL_SPEC,
};

/* Index of the first control byte (not tab) or DEL in s, n when none;
 * eight bytes at a time (the classic "has a byte less than" test). */
static size_t first_ctrl(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t i = 0;
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

static const char *split(const char *s, size_t n, int stop_paren, struct span *args,
			 int max, int *nargs, size_t *end)
{
	int depth = 0, na = 0;
	size_t start = 0, i = 0;
	*end = n;
	while (i < n) {
		if (!(cls[(uint8_t)s[i]] & CL_SPEC)) {
			i++;
			continue;
		}
		char c = s[i];
		if (c == '"') {
			for (i++; i < n && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			if (i >= n)
				return "closing '\"'";
			i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			const char *ce = memmem(s + i + 2, n - i - 2, "*/", 2);
			if (!ce)
				return "'*/'";
			i = (size_t)(ce - s) + 2;
			continue;
		}
		if (c == '<' && i > 0 && is_name_char((unsigned char)s[i - 1])) {
			/* -y decoration: <path>, ends at a '>' not part of "->";
			 * -yy nests one: </dev/null<char 1:3>> */
			int dd = 1;
			for (i++; i < n; i++) {
				if (s[i] == '\\') {
					i++;
					continue;
				}
				if (s[i] == '<')
					dd++;
				if (s[i] == '>' && s[i - 1] != '-' && !--dd)
					break;
			}
			if (i >= n)
				return "'>' closing a path decoration";
			i++;
			continue;
		}
		if (c == '(' || c == '[' || c == '{') {
			depth++;
		} else if (c == ')' || c == ']' || c == '}') {
			if (depth == 0) {
				if (c == ')' && stop_paren) {
					if (na < max && (na > 0 || trim((struct span){ s + start, i - start }).n))
						args[na] = trim((struct span){ s + start, i - start });
					if (na > 0 || trim((struct span){ s + start, i - start }).n)
						na++;
					*nargs = na;
					*end = i;
					return NULL;
				}
				return "balanced brackets";
			}
			depth--;
		} else if (c == ',' && depth == 0) {
			if (na < max)
				args[na] = trim((struct span){ s + start, i - start });
			na++;
			start = i + 1;
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

/* Integer: decimal, -decimal, 0x hex, 0 octal; trailing decoration/comment
 * allowed when rest != NULL (set to what follows). */
static int num(struct span a, int64_t *v, struct span *rest)
{
	a = trim(a);
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
	if (a.s[i] == '0' && i + 1 < a.n && (a.s[i + 1] == 'x' || a.s[i + 1] == 'X')) {
		i += 2;
		size_t st = i;
		while (i < a.n && hexval(a.s[i]) >= 0)
			x = x * 16 + (uint64_t)hexval(a.s[i++]);
		if (i == st)
			return -EINVAL;
	} else if (a.s[i] == '0') {
		while (i < a.n && a.s[i] >= '0' && a.s[i] <= '7')
			x = x * 8 + (uint64_t)(a.s[i++] - '0');
	} else {
		while (i < a.n && a.s[i] >= '0' && a.s[i] <= '9')
			x = x * 10 + (uint64_t)(a.s[i++] - '0');
	}
	*v = neg ? -(int64_t)x : (int64_t)x;
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
	char *d = sunescape(p, s, n);
	size_t l = strlen(d);
	if (l > 10 && !strcmp(d + l - 10, " (deleted)"))
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
static const char *strarg(struct strace_parser *p, struct span a, uint32_t *trunc)
{
	a = trim(a);
	if (!a.n || a.s[0] != '"')
		return NULL;
	size_t i = 1;
	while (i < a.n && a.s[i] != '"') {
		if (a.s[i] == '\\')
			i++;
		i++;
	}
	if (i >= a.n)
		return NULL;
	if (trunc && a.n >= i + 4 && !memcmp(a.s + i + 1, "...", 3))
		*trunc = OPSP_TRUNCATED_NAME;
	return sunescape(p, a.s + 1, i - 1);
}

struct sym {
	const char *name;
	int64_t val;
};

static const struct sym oflag_syms[] = {
	{ "O_RDONLY", 0 }, { "O_WRONLY", 01 }, { "O_RDWR", 02 }, { "O_ACCMODE", 03 },
	{ "O_CREAT", 0100 }, { "O_EXCL", 0200 }, { "O_NOCTTY", 0400 },
	{ "O_TRUNC", 01000 }, { "O_APPEND", 02000 }, { "O_NONBLOCK", 04000 },
	{ "O_NDELAY", 04000 }, { "O_DSYNC", 010000 }, { "O_ASYNC", 020000 },
	{ "FASYNC", 020000 }, { "O_DIRECT", 040000 }, { "O_LARGEFILE", 0100000 },
	{ "O_DIRECTORY", 0200000 }, { "O_NOFOLLOW", 0400000 }, { "O_NOATIME", 01000000 },
	{ "O_CLOEXEC", 02000000 }, { "O_SYNC", 04010000 }, { "O_RSYNC", 04010000 },
	{ "__O_SYNC", 04000000 }, { "O_PATH", 010000000 }, { "O_TMPFILE", 020200000 },
	{ "__O_TMPFILE", 020000000 },
};

static int symflags(const struct sym *tab, size_t ntab, const char *s, size_t n, int64_t *out)
{
	const char *cm = memmem(s, n, "/*", 2);     /* -X verbose: a number, then a comment */
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
		if (!num(part, &x, NULL)) {
			v |= x;
		} else {
			size_t k;
			for (k = 0; k < ntab; k++)
				if (strlen(tab[k].name) == part.n && !memcmp(tab[k].name, part.s, part.n))
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
		{ "SEEK_SET", SEEK_SET }, { "SEEK_CUR", SEEK_CUR }, { "SEEK_END", SEEK_END },
		{ "SEEK_DATA", 3 }, { "SEEK_HOLE", 4 },
	};
	int64_t v;
	if (symflags(ws, 5, a.s, a.n, &v))
		return -EINVAL;
	*w = (int)v;
	return 0;
}

int strace_errno(const char *name, size_t len)
{
	static const struct sym extra[] = {
		{ "ERESTARTSYS", 512 }, { "ERESTARTNOINTR", 513 }, { "ERESTARTNOHAND", 514 },
		{ "ENOIOCTLCMD", 515 }, { "ERESTART_RESTARTBLOCK", 516 },
		{ "EWOULDBLOCK", EAGAIN }, { "EDEADLOCK", EDEADLK }, { "ENOTSUP", EOPNOTSUPP },
	};
	for (int i = 1; i < 200; i++) {
		const char *n = strerrorname_np(i);
		if (n && strlen(n) == len && !memcmp(n, name, len))
			return i;
	}
	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		if (strlen(extra[i].name) == len && !memcmp(extra[i].name, name, len))
			return (int)extra[i].val;
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

/* Parse "D+[.D+]" at s; returns chars used, 0 none.  Value in ns. */
static size_t secfrac(const char *s, size_t n, uint64_t *ns, uint64_t *ipart)
{
	size_t i = 0;
	uint64_t ip = 0, fr = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		ip = ip * 10 + (uint64_t)(s[i++] - '0');
	if (!i)
		return 0;
	if (i < n && s[i] == '.') {
		i++;
		int k = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			if (k < 9)
				fr = fr * 10 + (uint64_t)(s[i] - '0'), k++;
			i++;
		}
		while (k++ < 9)
			fr *= 10;
	}
	*ipart = ip;
	*ns = ip * 1000000000ull + fr;
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
	*pid = STRACE_NOPID;
	*bracketed = 0;
	*kind = TS_NONE;
	*ts = 0;
	if (len >= 5 && !memcmp(l, "[pid ", 5)) {
		i = 5;
		while (i < len && l[i] == ' ')
			i++;
		int64_t v = 0;
		size_t st = i;
		while (i < len && l[i] >= '0' && l[i] <= '9')
			v = v * 10 + (l[i++] - '0');
		if (i > st && i < len && l[i] == '<')        /* -Y: N<comm> */
			while (i < len && l[i] != ']')
				i++;
		if (i == st || i >= len || l[i] != ']')
			return "'[pid N]'";
		i++;
		*pid = v;
		*bracketed = 1;
	}
	while (i < len && l[i] == ' ')
		i++;
	size_t st = i;
	while (i < len && l[i] >= '0' && l[i] <= '9')
		i++;
	size_t pe = i;
	if (i > st && i < len && l[i] == '<' && !*bracketed) {   /* -Y: N<comm> */
		const char *gt = memchr(l + i, '>', len - i);
		if (gt && (size_t)(gt - l) + 1 < len && gt[1] == ' ')
			i = (size_t)(gt - l) + 1;
	}
	if (i > st && i < len && l[i] == ' ' && !*bracketed) {
		int64_t v = 0;
		for (size_t k = st; k < pe; k++)
			v = v * 10 + (l[k] - '0');
		*pid = v;
		while (i < len && l[i] == ' ')
			i++;
		st = i;
		while (i < len && l[i] >= '0' && l[i] <= '9')
			i++;
	}
	if (i > st) {
		/* a timestamp */
		uint64_t ns, ip;
		if (i < len && l[i] == ':') {
			uint64_t h = 0, m = 0;
			for (size_t k = st; k < i; k++)
				h = h * 10 + (uint64_t)(l[k] - '0');
			size_t j = i + 1, ms = j;
			while (j < len && l[j] >= '0' && l[j] <= '9')
				m = m * 10 + (uint64_t)(l[j++] - '0');
			if (j == ms || j >= len || l[j] != ':' || h > 23 || m > 59)
				return "a timestamp (HH:MM:SS[.frac], epoch or -r seconds)";
			size_t u = secfrac(l + j + 1, len - j - 1, &ns, &ip);
			if (!u || ip > 60)
				return "a timestamp (HH:MM:SS[.frac], epoch or -r seconds)";
			*ts = (h * 3600 + m * 60) * 1000000000ull + ns;
			*kind = TS_TOD;
			i = j + 1 + u;
		} else if (i < len && l[i] == '.') {
			size_t u = secfrac(l + st, len - st, &ns, &ip);
			*ts = ns;
			*kind = ip >= 100000000 ? TS_EPOCH : TS_REL;
			i = st + u;
		} else {
			return "a timestamp (HH:MM:SS[.frac], epoch or -r seconds)";
		}
		if (i >= len || l[i] != ' ')
			return "a timestamp (HH:MM:SS[.frac], epoch or -r seconds)";
		while (i < len && l[i] == ' ')
			i++;
	} else {
		i = st;
	}
	/* -i: "[00007f3c2a1b2c3d] " instruction pointer; -n: "[  59] " syscall
	 * number (right-aligned); both may be given */
	for (int k = 0; k < 2 && i + 2 < len && l[i] == '['; k++) {
		size_t j = i + 1;
		while (j < len && l[j] == ' ')
			j++;
		size_t d = j;
		while (j < len && hexval((unsigned char)l[j]) >= 0)
			j++;
		if (j == d || j + 1 >= len || l[j] != ']' || l[j + 1] != ' ')
			break;
		i = j + 1;
		while (i < len && l[i] == ' ')
			i++;
	}
	*pos = i;
	return NULL;
}

static uint64_t norm_ts(struct strace_src *src, int kind, uint64_t ts)
{
	const uint64_t day = 86400ull * 1000000000ull;
	switch (kind) {
	case TS_TOD:
		ts += src->day_off;
		if (ts + day / 2 < src->last_ts) {    /* clock passed midnight */
			src->day_off += day;
			ts += day;
		}
		src->last_ts = ts;
		return ts;
	case TS_EPOCH:
		src->last_ts = ts;
		return ts;
	case TS_REL:
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
	_Static_assert(NCALLS <= sizeof(p->call_len), "call_len too small");
	for (size_t i = 0; i < NCALLS; i++) {
		p->call_len[i] = (uint8_t)strlen(calls[i].name);
		uint32_t h = name_hash(calls[i].name, p->call_len[i]) % CALLHASH;
		while (p->callidx[h])
			h = (h + 1) % CALLHASH;
		p->callidx[h] = (uint8_t)(i + 1);
	}
	*out = p;
	return 0;
}

static const struct callspec *lookup(const struct strace_parser *p, const char *s, size_t n)
{
	uint32_t h = name_hash(s, n) % CALLHASH;
	while (p->callidx[h]) {
		const struct callspec *c = &calls[p->callidx[h] - 1];
		if (p->call_len[c - calls] == n && !memcmp(c->name, s, n))
			return c;
		h = (h + 1) % CALLHASH;
	}
	return NULL;
}

void strace_src_init(struct strace_src *src, const char *name, int64_t pid)
{
	*src = (struct strace_src){ .name = name, .pid = pid, .main_pid = -1, .main_alias = -1 };
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

/* First line of pid: while exactly one clone is in flight, pid is its child. */
static int note_pid(struct strace_parser *p, const struct strace_src *src, int64_t pid,
		    unsigned long lineno, struct rerr *e)
{
	unsigned bits = pidbits(p, pid);
	if (bits & SEEN)
		return 0;
	int rc = imap_put(&p->seen, pid, (void *)(uintptr_t)(bits | SEEN));
	if (rc || p->nclones != 1 || p->clones[0] == pid)
		return rc;
	struct pend *pe = imap_get(&p->pend, p->clones[0]);
	if (!pe || !pe->active)
		return 0;
	struct sc_event ev;
	sc_event_init(&ev);
	ev.src = src->name;
	ev.line = pe->line;
	ev.pid = p->clones[0];
	ev.ts_ns = pe->ts;
	ev.call = SC_CLONE;
	ev.name = "clone";
	ev.flags = cloneflags(pe->text, pe->len);
	ev.ret = pid;
	rc = mark_child(p, pid);
	if (rc)
		return rc;
	return p->emit(p->arg, &ev, e);
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
	return p->emit(p->arg, &ev, e);
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

/*
 * io_submit(ctx, nr, [{aio_data=.., aio_lio_opcode=IOCB_CMD_PREAD,
 * aio_fildes=6</f>, aio_buf=.., aio_nbytes=4096, aio_offset=12288}, ...])
 * = N: the first N iocbs were queued.  strace does not show which
 * io_getevents completion belongs to which iocb (aio_data is often 0 and
 * the iocb address is not printed), so the iocbs become positioned reads,
 * writes and syncs at submit time with the requested length as result;
 * the overlap is not kept (engines can queue again with -q).
 */
static int io_submit_events(struct strace_parser *p, struct sc_event *ev, struct span arr,
			    int64_t nr, struct rerr *e)
{
	arr = trim(arr);
	if (arr.n < 2 || arr.s[0] != '[' || arr.s[arr.n - 1] != ']')
		return ev->ret < 0 ? 0 : 1;    /* an address: nothing known */
	const char *s = arr.s + 1;
	size_t n = arr.n - 2, i = 0;
	int64_t done = 0;
	int64_t limit = ev->ret < 0 || ev->ret == SC_RET_UNKNOWN ? 0 : ev->ret;
	if (limit > nr)
		limit = nr;
	while (i < n && done < limit) {
		struct span el[1];
		int ne;
		size_t end;
		/* one element: split on the top-level comma after it */
		if (split(s + i, n - i, 0, el, 1, &ne, &end) || !ne)
			return 1;
		struct span e1 = el[0];
		i = (size_t)(e1.s + e1.n - s);
		while (i < n && (s[i] == ',' || s[i] == ' '))
			i++;
		if (e1.n == 3 && !memcmp(e1.s, "...", 3))
			break;
		if (e1.n < 2 || e1.s[0] != '{' || e1.s[e1.n - 1] != '}')
			return 1;
		struct span f[10];
		if (split(e1.s + 1, e1.n - 2, 0, f, 10, &ne, &end))
			return 1;
		struct sc_event x = *ev;
		struct span op = { "", 0 }, buf = { "", 0 };
		int64_t fd = -1, nbytes = 0, off = 0;
		const char *deco = NULL;
		for (int k = 0; k < ne && k < 10; k++) {
			const char *eq = memchr(f[k].s, '=', f[k].n);
			if (!eq)
				continue;
			size_t kl = (size_t)(eq - f[k].s);
			struct span val = { eq + 1, f[k].n - kl - 1 };
			if (kl == 14 && !memcmp(f[k].s, "aio_lio_opcode", 14))
				op = trim(val);
			else if (kl == 10 && !memcmp(f[k].s, "aio_fildes", 10) && fdarg(p, val, &fd, &deco))
				return 1;
			else if (kl == 10 && !memcmp(f[k].s, "aio_nbytes", 10) && num(val, &nbytes, NULL))
				return 1;
			else if (kl == 10 && !memcmp(f[k].s, "aio_offset", 10) && num(val, &off, NULL))
				return 1;
			else if (kl == 7 && !memcmp(f[k].s, "aio_buf", 7))
				buf = val;
		}
		x.fd = fd;
		x.fdpath = deco;
		x.offset = off;
		x.len = nbytes > 0 ? (uint64_t)nbytes : 0;
		int trunc;
		uint64_t sum;
#define OPIS(lit) (op.n == sizeof(lit) - 1 && !memcmp(op.s, lit, op.n))
		if (OPIS("IOCB_CMD_PREAD") || OPIS("IOCB_CMD_PWRITE")) {
			x.call = OPIS("IOCB_CMD_PREAD") ? SC_READ : SC_WRITE;
		} else if (OPIS("IOCB_CMD_PREADV") || OPIS("IOCB_CMD_PWRITEV")) {
			x.call = OPIS("IOCB_CMD_PREADV") ? SC_READ : SC_WRITE;
			x.iovcnt = nbytes > 0 ? (uint32_t)nbytes : 1;
			x.len = !iovsum(buf, &sum, &trunc) ? sum : 0;
		} else if (OPIS("IOCB_CMD_FSYNC") || OPIS("IOCB_CMD_FDSYNC")) {
			x.call = OPIS("IOCB_CMD_FSYNC") ? SC_FSYNC : SC_FDATASYNC;
			x.offset = SC_NOOFF;
		} else {
			x.call = SC_SKIP;
			x.name = "io_submit:other";
		}
#undef OPIS
		x.ret = x.call == SC_READ || x.call == SC_WRITE ? (int64_t)x.len : 0;
		int rc = p->emit(p->arg, &x, e);
		if (rc)
			return rc;
		done++;
	}
	return 0;
}

/*
 * Decode a complete call: name, and body = text after '(' (args, ')',
 * '= RET', optional <DUR>).  Fills and emits the event.
 */
static int decode(struct strace_parser *p, struct strace_src *src, int64_t pid, uint64_t ts,
		  unsigned long lineno, const char *name, size_t nlen, const char *body,
		  size_t blen, const char *line, size_t len, struct rerr *e)
{
	struct span a[MAXARGS];
	int na = 0;
	size_t close;
	memset(a, 0, sizeof(a));
	const char *why = split(body, blen, 1, a, MAXARGS, &na, &close);
	if (why)
		return bad_line(p, e, src, lineno, line, len, why);
	/* "= RET [<DUR>]" */
	size_t i = close + 1;
	while (i < blen && (body[i] == ' ' || body[i] == '\t'))
		i++;
	if (i >= blen || body[i] != '=')
		return bad_line(p, e, src, lineno, line, len, "'=' after ')'");
	i++;
	while (i < blen && (body[i] == ' ' || body[i] == '\t'))
		i++;
	struct span rs = { body + i, blen - i };
	uint64_t dur = 0;
	if (rs.n && rs.s[rs.n - 1] == '>') {
		const char *lt = memrchr(rs.s, '<', rs.n);
		uint64_t ns, ip;
		if (lt && lt > rs.s && lt[-1] == ' ' &&
		    secfrac(lt + 1, (size_t)(rs.s + rs.n - lt - 2), &ns, &ip) ==
			    (size_t)(rs.s + rs.n - lt - 2)) {
			dur = ns;
			rs.n = (size_t)(lt - rs.s);
		}
	}
	rs = trim(rs);
	if (!rs.n)
		return bad_line(p, e, src, lineno, line, len, "a result after '='");

	struct sc_event ev;
	sc_event_init(&ev);
	ev.src = src->name;
	ev.line = lineno;
	ev.pid = pid;
	ev.ts_ns = ts;
	ev.dur_ns = dur;
	/* result */
	if (rs.s[0] == '?') {
		ev.ret = SC_RET_UNKNOWN;
	} else {
		struct span rest;
		int64_t v;
		if (num(rs, &v, &rest))
			return bad_line(p, e, src, lineno, line, len, "a number or '?' after '='");
		if (rest.n && rest.s[0] == '<') {
			const char *gt = NULL;
			int dd = 1;
			for (size_t k = 1; k < rest.n; k++) {
				if (rest.s[k] == '\\') {
					k++;
					continue;
				}
				if (rest.s[k] == '<')
					dd++;
				if (rest.s[k] == '>' && rest.s[k - 1] != '-' && !--dd) {
					gt = rest.s + k;
					break;
				}
			}
			if (!gt)
				return bad_line(p, e, src, lineno, line, len, "'>' closing a path decoration");
			ev.retpath = decoration(p, rest.s + 1, (size_t)(gt - rest.s - 1));
			rest = (struct span){ gt + 1, rest.n - (size_t)(gt + 1 - rest.s) };
		}
		if (v == -1 && rest.n > 1 && rest.s[0] == ' ' && rest.s[1] == 'E') {
			size_t k = 1;
			while (k < rest.n && is_name_char((unsigned char)rest.s[k]))
				k++;
			int en = strace_errno(rest.s + 1, k - 1);
			v = en ? -en : -EIO;
		}
		ev.ret = v;
	}
	p->syscalls++;

	const struct callspec *cs = lookup(p, name, nlen);
	enum handler h = cs ? cs->h : H_SKIP;
	ev.name = cs ? cs->name : sdup(p, name, nlen);
	int ok = 1;
	int64_t v = 0;
	const char *deco = NULL;
	int trunc;
#define ARG(k) (na > (k) ? a[k] : (struct span){ "", 0 })
#define FD(k, dst, dp) (ok = ok && !fdarg(p, ARG(k), &(dst), &(dp)))
#define NUM(k, dst) (ok = ok && !num(ARG(k), &v, NULL), (dst) = v)
	switch (h) {
	case H_SKIP:
		ev.call = SC_SKIP;
		break;
	case H_CLOSE_RANGE: {
		ev.call = SC_CLOSE_RANGE;
		FD(0, ev.fd, ev.fdpath);
		const char *d2 = NULL;
		struct span l = trim(ARG(1));
		if (l.n == 2 && !memcmp(l.s, "~0", 2))      /* strace's way of saying UINT_MAX */
			ev.fd2 = UINT32_MAX;
		else
			FD(1, ev.fd2, d2);
		struct span fl = trim(ARG(2));
		if (num(fl, &ev.flags, NULL)) {
			ev.flags = 0;
			if (memmem(fl.s, fl.n, "CLOSE_RANGE_UNSHARE", 19))
				ev.flags |= 2;
			if (memmem(fl.s, fl.n, "CLOSE_RANGE_CLOEXEC", 19))
				ev.flags |= 4;
		}
		break;
	}
	case H_CHDIR:
		ev.call = SC_CHDIR;
		ev.path = strarg(p, ARG(0), NULL);
		break;
	case H_FCHDIR:
		ev.call = SC_CHDIR;
		FD(0, ev.fd, ev.fdpath);
		break;
	case H_COPY_FILE_RANGE:
	case H_SENDFILE: {
		/* copy_file_range(in, off_in, out, off_out, len, flags),
		 * sendfile(out, in, offset, count): a read of what was moved
		 * from `in`, then a write of it to `out`.  An offset given as
		 * [N] (or [N] => [M]) is explicit; NULL uses the position. */
		int cfr = h == H_COPY_FILE_RANGE;
		struct sc_event rd = ev, wr = ev;
		rd.call = SC_READ;
		wr.call = SC_WRITE;
		FD(cfr ? 0 : 1, rd.fd, rd.fdpath);
		FD(cfr ? 2 : 0, wr.fd, wr.fdpath);
		struct span offs[2] = { ARG(cfr ? 1 : 2), cfr ? ARG(3) : (struct span){ "NULL", 4 } };
		int64_t *dst[2] = { &rd.offset, &wr.offset };
		for (int k = 0; k < 2 && ok; k++) {
			struct span o = trim(offs[k]);
			const char *rb = o.n > 2 && o.s[0] == '[' ? memchr(o.s, ']', o.n) : NULL;
			if (rb)
				ok = !num((struct span){ o.s + 1, (size_t)(rb - o.s - 1) }, dst[k], NULL);
			else
				*dst[k] = SC_NOOFF;
		}
		NUM(cfr ? 4 : 3, rd.len);
		if (!ok)
			break;
		/* the request may be "as much as there is": the moved bytes are
		 * what the call returned */
		if (ev.ret >= 0 && ev.ret != SC_RET_UNKNOWN)
			rd.len = (uint64_t)ev.ret;
		wr.len = rd.len;
		int rc = p->emit(p->arg, &rd, e);
		if (rc)
			return rc;
		return p->emit(p->arg, &wr, e);
	}
	case H_IO_SUBMIT: {
		int64_t nr = 0;
		NUM(1, nr);
		if (!ok)
			break;
		int rc = io_submit_events(p, &ev, ARG(2), nr, e);
		if (rc == 1)
			return bad_line(p, e, src, lineno, line, len, "an iocb array");
		if (rc)
			return rc;
		if (ev.ret <= 0)
			ev.call = SC_SKIP;      /* nothing queued: count the call */
		else
			return 0;
		break;
	}
	case H_OPEN:
	case H_CREAT:
		ev.call = SC_OPEN;
		ev.path = strarg(p, ARG(0), &ev.path_flags);
		if (h == H_CREAT) {
			ev.flags = O_CREAT | O_WRONLY | O_TRUNC;
			NUM(1, ev.mode);
		} else {
			ok = ok && !strace_oflags(ARG(1).s, ARG(1).n, &ev.flags);
			if (na > 2)
				NUM(2, ev.mode);
		}
		break;
	case H_OPENAT:
	case H_OPENAT2:
		ev.call = SC_OPEN;
		FD(0, ev.dirfd, ev.fdpath);
		ev.path = strarg(p, ARG(1), &ev.path_flags);
		if (h == H_OPENAT) {
			ok = ok && !strace_oflags(ARG(2).s, ARG(2).n, &ev.flags);
			if (na > 3)
				NUM(3, ev.mode);
		} else {
			struct span f[4];
			int nf = 0;
			size_t end;
			struct span s2 = trim(ARG(2));
			if (s2.n < 2 || s2.s[0] != '{' || split(s2.s + 1, s2.n - 2, 0, f, 4, &nf, &end)) {
				ok = 0;
				break;
			}
			for (int k = 0; k < nf && k < 4; k++) {
				if (f[k].n > 6 && !memcmp(f[k].s, "flags=", 6))
					ok = ok && !strace_oflags(f[k].s + 6, f[k].n - 6, &ev.flags);
				else if (f[k].n > 5 && !memcmp(f[k].s, "mode=", 5))
					ok = ok && !num((struct span){ f[k].s + 5, f[k].n - 5 }, &ev.mode, NULL);
			}
		}
		break;
	case H_CLOSE:
		ev.call = SC_CLOSE;
		FD(0, ev.fd, ev.fdpath);
		break;
	case H_READ:
	case H_WRITE:
	case H_PREAD:
	case H_PWRITE:
		ev.call = (h == H_READ || h == H_PREAD) ? SC_READ : SC_WRITE;
		FD(0, ev.fd, ev.fdpath);
		NUM(2, ev.len);
		if (h == H_PREAD || h == H_PWRITE)
			NUM(3, ev.offset);
		break;
	case H_READV:
	case H_WRITEV:
	case H_PREADV:
	case H_PWRITEV:
	case H_PREADV2:
	case H_PWRITEV2: {
		int rd = h == H_READV || h == H_PREADV || h == H_PREADV2;
		ev.call = rd ? SC_READ : SC_WRITE;
		FD(0, ev.fd, ev.fdpath);
		int64_t cnt = 1;
		NUM(2, cnt);
		ev.iovcnt = cnt > 0 ? (uint32_t)cnt : 1;
		if (h != H_READV && h != H_WRITEV)
			NUM(3, ev.offset);
		if (ev.offset < 0)
			ev.offset = SC_NOOFF;     /* preadv2 with -1: current position */
		if (h == H_PWRITEV2 && na >= 5) {
			/* RWF_APPEND (0x10): appended like a write on O_APPEND */
			struct span fl = trim(ARG(4));
			int64_t fv = 0;
			if (memmem(fl.s, fl.n, "RWF_APPEND", 10) ||
			    (!num(fl, &fv, NULL) && (fv & 0x10)))
				ev.flags = O_APPEND;
		}
		if (!ok)
			break;
		uint64_t sum = 0;
		if (!iovsum(ARG(1), &sum, &trunc)) {
			if (trunc && ev.ret > 0 && (uint64_t)ev.ret > sum)
				sum = (uint64_t)ev.ret;
		} else {
			/* an address: strace could not read the array */
			sum = ev.ret > 0 ? (uint64_t)ev.ret : 0;
		}
		ev.len = sum;
		break;
	}
	case H_LSEEK:
	case H_LLSEEK:
		ev.call = SC_LSEEK;
		FD(0, ev.fd, ev.fdpath);
		NUM(1, ev.offset);
		ok = ok && !whencearg(ARG(h == H_LSEEK ? 2 : 3), &ev.whence);
		if (ok && h == H_LLSEEK && ev.ret == 0) {
			struct span r = trim(ARG(2));
			if (r.n >= 2 && r.s[0] == '[' && r.s[r.n - 1] == ']' &&
			    !num((struct span){ r.s + 1, r.n - 2 }, &v, NULL))
				ev.ret = v;
			else
				ev.ret = SC_RET_UNKNOWN;
		}
		break;
	case H_FTRUNCATE:
		ev.call = SC_FTRUNCATE;
		FD(0, ev.fd, ev.fdpath);
		NUM(1, ev.len);
		break;
	case H_FSYNC:
	case H_FDATASYNC:
		ev.call = h == H_FSYNC ? SC_FSYNC : SC_FDATASYNC;
		FD(0, ev.fd, ev.fdpath);
		break;
	case H_SFR:
		/* sync_file_range is replayed as fdatasync (see strace.roff) */
		ev.call = SC_FDATASYNC;
		FD(0, ev.fd, ev.fdpath);
		break;
	case H_FALLOCATE:
		ev.call = SC_FALLOCATE;
		FD(0, ev.fd, ev.fdpath);
		if (num(ARG(1), &ev.mode, NULL)) {
			/* symbolic mode: FALLOC_FL_KEEP_SIZE|... */
			struct span m = trim(ARG(1));
			ev.mode = memmem(m.s, m.n, "KEEP_SIZE", 9) ? 1 : 0;
			if (memmem(m.s, m.n, "PUNCH_HOLE", 10))
				ev.mode |= 2;
		}
		NUM(2, ev.offset);
		NUM(3, ev.len);
		break;
	case H_DUP:
		ev.call = SC_DUP;
		FD(0, ev.fd, ev.fdpath);
		break;
	case H_DUP2:
	case H_DUP3:
		ev.call = SC_DUP2;
		FD(0, ev.fd, ev.fdpath);
		FD(1, ev.fd2, deco);
		break;
	case H_FCNTL: {
		struct span c = trim(ARG(1));
		if ((c.n == 7 && !memcmp(c.s, "F_DUPFD", 7)) ||
		    (c.n == 15 && !memcmp(c.s, "F_DUPFD_CLOEXEC", 15))) {
			ev.call = SC_DUP;
			FD(0, ev.fd, ev.fdpath);
		} else {
			ev.call = SC_SKIP;
		}
		break;
	}
	case H_UNLINK:
	case H_RMDIR:
		ev.call = h == H_UNLINK ? SC_UNLINK : SC_RMDIR;
		ev.path = strarg(p, ARG(0), &ev.path_flags);
		break;
	case H_UNLINKAT: {
		FD(0, ev.dirfd, ev.fdpath);
		ev.path = strarg(p, ARG(1), &ev.path_flags);
		struct span f = ARG(2);
		ev.call = memmem(f.s, f.n, "AT_REMOVEDIR", 12) ? SC_RMDIR : SC_UNLINK;
		break;
	}
	case H_RENAME:
		ev.call = SC_RENAME;
		ev.path = strarg(p, ARG(0), &ev.path_flags);
		ev.path2 = strarg(p, ARG(1), NULL);
		break;
	case H_RENAMEAT: {
		ev.call = SC_RENAME;
		FD(0, ev.dirfd, ev.fdpath);
		ev.path = strarg(p, ARG(1), &ev.path_flags);
		int64_t d2 = 0;
		FD(2, d2, deco);
		ev.path2 = strarg(p, ARG(3), NULL);
		(void)d2;
		/* a relative new name under a decorated dirfd: resolve here */
		if (ok && ev.path2 && ev.path2[0] != '/' && deco && deco[0] == '/') {
			size_t l1 = strlen(deco), l2 = strlen(ev.path2);
			char *j = p->scratch + p->sused;
			memcpy(j, deco, l1);
			j[l1] = '/';
			memcpy(j + l1 + 1, ev.path2, l2 + 1);
			p->sused += l1 + l2 + 2;
			ev.path2 = j;
		}
		break;
	}
	case H_MKDIR:
		ev.call = SC_MKDIR;
		ev.path = strarg(p, ARG(0), &ev.path_flags);
		NUM(1, ev.mode);
		break;
	case H_MKDIRAT:
		ev.call = SC_MKDIR;
		FD(0, ev.dirfd, ev.fdpath);
		ev.path = strarg(p, ARG(1), &ev.path_flags);
		NUM(2, ev.mode);
		break;
	case H_STAT:
		ev.call = SC_STAT;
		ev.path = strarg(p, ARG(0), &ev.path_flags);
		break;
	case H_FSTATAT:
	case H_STATX: {
		ev.call = SC_STAT;
		FD(0, ev.dirfd, ev.fdpath);
		ev.path = strarg(p, ARG(1), &ev.path_flags);
		if (ok && ev.path && !ev.path[0]) {      /* AT_EMPTY_PATH: fstat */
			ev.path = NULL;
			ev.fd = ev.dirfd;
			ev.dirfd = SC_AT_FDCWD;
		}
		break;
	}
	case H_FSTAT:
		ev.call = SC_STAT;
		FD(0, ev.fd, ev.fdpath);
		break;
	case H_MMAP: {
		int64_t fd = -1;
		if (na >= 6)
			FD(4, fd, ev.fdpath);
		if (ok && fd >= 0) {
			ev.call = SC_MMAP;
			ev.fd = fd;
			NUM(1, ev.len);
			if (num(ARG(5), &ev.offset, NULL))
				ev.offset = 0;
		} else {
			ev.call = SC_SKIP;
		}
		break;
	}
	case H_CLONE:
	case H_CLONE3:
	case H_FORK:
	case H_VFORK:
		ev.call = SC_CLONE;
		ev.flags = (h == H_CLONE || h == H_CLONE3) ? cloneflags(body, close) :
			   h == H_VFORK ? CLONE_VM | CLONE_VFORK : 0;
		if (ev.ret > 0 && ev.ret != SC_RET_UNKNOWN) {
			int rc = mark_child(p, ev.ret);
			if (rc)
				return rc;
		}
		break;
	}
#undef ARG
#undef FD
#undef NUM
	if (!ok)
		return bad_line(p, e, src, lineno, line, len, "arguments of the form strace prints");
	return p->emit(p->arg, &ev, e);
}

static int strip_unfinished(const char *s, size_t n, size_t *keep)
{
	static const char mark[] = "<unfinished ...>";
	size_t ml = sizeof(mark) - 1;
	if (n < ml || memcmp(s + n - ml, mark, ml))
		return 0;
	n -= ml;
	if (n && s[n - 1] == ' ')
		n--;
	*keep = n;
	return 1;
}

int strace_parser_line(struct strace_parser *p, struct strace_src *src, char *line, size_t len,
		       unsigned long lineno, struct rerr *e)
{
	p->bad = 0;
	/* binary garbage */
	size_t bad = first_ctrl(line, len);
	if (bad < len && !(line[bad] == '\r' && bad == len - 1))
		return bad_line(p, e, src, lineno, line, len, "text (found a binary byte)");
	if (len && line[len - 1] == '\r')
		line[--len] = 0;
	/* a line cut by an interleaved "strace: Process N attached" message */
	if (src->carry_len) {
		int rc = reserve(&src->carry, &src->carry_cap, src->carry_len + len + 1);
		if (rc)
			return rc;
		memcpy(src->carry + src->carry_len, line, len + 1);
		len += src->carry_len;
		src->carry_len = 0;
		line = src->carry;
	}
	size_t nb = 0;
	while (nb < len && (line[nb] == ' ' || line[nb] == '\t'))
		nb++;
	if (nb == len)
		return 0;
	if (len - nb >= 2 && line[nb] == '>' && line[nb + 1] == ' ')
		return 0;                                /* -k backtrace frame */
	/* -C: the summary table after the calls ("% time     seconds ...",
	 * "------ ----", " 45.12    0.002567   12   200    3 pread64") */
	if (len - nb >= 6 && !memcmp(line + nb, "% time", 6)) {
		src->summary = true;
		return 0;
	}
	if (src->summary) {
		if (strspn(line, "- ") == len ||
		    ((line[nb] >= '0' && line[nb] <= '9') && !memchr(line, '(', len)))
			return 0;
		src->summary = false;
	}
	if (len >= 8 && !memcmp(line, "strace: ", 8)) {
		int64_t pid;
		if (len > 16 && !memcmp(line + 8, "Process ", 8) &&
		    !num((struct span){ line + 16, len - 16 }, &pid, &(struct span){ 0 }))
			return mark_child(p, pid);
		return 0;
	}
	const char *cut = NULL;
	if (len > 25 && (!memcmp(line + len - 9, " attached", 9) ||
			 !memcmp(line + len - 9, " detached", 9)))
		cut = memmem(line, len, "strace: Process ", 16);
	if (cut) {
		size_t head = (size_t)(cut - line);
		int64_t pid;
		struct span rest;
		if (!num((struct span){ cut + 16, len - head - 16 }, &pid, &rest)) {
			int rc = mark_child(p, pid);
			if (rc)
				return rc;
		}
		int rc = reserve(&src->carry, &src->carry_cap, head + 1);
		if (rc)
			return rc;
		memmove(src->carry, line, head);
		src->carry[head] = 0;
		src->carry_len = head;
		return 0;
	}

	size_t pos;
	int64_t rawpid;
	int bracketed, kind;
	uint64_t ts;
	const char *why = prefix(line, len, &pos, &rawpid, &bracketed, &kind, &ts);
	if (why)
		return bad_line(p, e, src, lineno, line, len, why);
	ts = norm_ts(src, kind, ts);

	/* reserve scratch for decoded strings of this line (never longer) */
	int rc = reserve(&p->scratch, &p->scap, 2 * len + 1024);
	if (rc)
		return rc;
	p->sused = 0;

	int64_t pid;
	if (rawpid == STRACE_NOPID) {
		pid = src->pid != STRACE_NOPID ? src->pid : src->main_pid;
	} else {
		rc = note_pid(p, src, rawpid, lineno, e);
		if (rc)
			return rc;
		pid = rawpid;
		if (bracketed && src->pid == STRACE_NOPID) {
			if (rawpid == src->main_alias) {
				pid = src->main_pid;
			} else if (!src->main_known && src->main_pid == -1 &&
				   !(pidbits(p, rawpid) & CHILD) &&
				   imap_get(&p->seen, -1)) {
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
	char *t = line + pos;
	size_t tn = len - pos;

	if (tn >= 4 && !memcmp(t, "--- ", 4))
		return 0;                               /* signal */
	if (tn >= 4 && !memcmp(t, "+++ ", 4)) {
		if (memmem(t, tn, "exited", 6) || memmem(t, tn, "killed", 6)) {
			rc = drop_pending(p, src, pid, e);
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
			return p->emit(p->arg, &ev, e);
		}
		return 0;
	}
	if (tn >= 5 && !memcmp(t, "<... ", 5)) {
		size_t i = 5, ns = 5;
		while (i < tn && is_name_char((unsigned char)t[i]))
			i++;
		if (i == ns || tn - i < 9 || memcmp(t + i, " resumed>", 9))
			return bad_line(p, e, src, lineno, line, len, "'<... NAME resumed>'");
		const char *name = t + ns;
		size_t nlen = i - ns;
		char *rest = t + i + 9;
		size_t rn = tn - i - 9;
		struct pend *pe = imap_get(&p->pend, pid);
		if (!pe || !pe->active || strlen(pe->name) != nlen || memcmp(pe->name, name, nlen)) {
			/* no start (attached mid-call): nothing to decode */
			p->syscalls++;
			return emit_skip(p, src, pid, lineno, ts, "resumed-without-start", e);
		}
		pe->active = 0;
		if (pe->is_clone)
			clones_del(p, pid);
		size_t keep;
		if (strip_unfinished(rest, rn, &keep))
			return bad_line(p, e, src, lineno, line, len, "a result, not a second '<unfinished ...>'");
		size_t jl = pe->len + rn;
		rc = reserve(&p->join, &p->jcap, jl + 1);
		if (rc)
			return rc;
		char *j = p->join;
		memcpy(j + pe->len, rest, rn);
		memcpy(j, pe->text, pe->len);
		j[jl] = 0;
		rc = reserve(&p->scratch, &p->scap, 2 * jl + 1024);
		if (rc)
			return rc;
		char nm[64];
		memcpy(nm, pe->name, nlen + 1);
		return decode(p, src, pid, pe->ts, pe->line, nm, nlen, j, jl, line, len, e);
	}
	/* NAME( */
	size_t i = 0;
	while (i < tn && is_name_char((unsigned char)t[i]))
		i++;
	if (!i)
		return bad_line(p, e, src, lineno, line, len, "a syscall name");
	if (i >= tn || t[i] != '(')
		return bad_line(p, e, src, lineno, line, len, "'(' after the syscall name");
	const char *name = t;
	size_t nlen = i;
	char *body = t + i + 1;
	size_t bn = tn - i - 1;
	size_t keep;
	if (bn >= 14 && !memcmp(body + bn - 14, "<detached ...>", 14)) {
		/* strace -p let go in the middle of the call */
		char dn[80];
		snprintf(dn, sizeof(dn), "detached:%.*s", (int)(nlen < 60 ? nlen : 60), name);
		p->syscalls++;
		return emit_skip(p, src, pid, lineno, ts, sdup(p, dn, strlen(dn)), e);
	}
	if (strip_unfinished(body, bn, &keep)) {
		if (nlen >= sizeof(((struct pend *)0)->name))
			return bad_line(p, e, src, lineno, line, len, "a syscall name (too long)");
		struct pend *pe = imap_get(&p->pend, pid);
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
		if (pe->active) {
			rc = drop_pending(p, src, pid, e);
			if (rc)
				return rc;
		}
		rc = reserve(&pe->text, &pe->cap, keep + 1);
		if (rc)
			return rc;
		memcpy(pe->text, body, keep);
		pe->text[keep] = 0;
		pe->len = keep;
		memcpy(pe->name, name, nlen);
		pe->name[nlen] = 0;
		pe->ts = ts;
		pe->line = lineno;
		pe->src = src->name;
		pe->active = 1;
		const struct callspec *cs = lookup(p, name, nlen);
		pe->is_clone = cs && (cs->h == H_CLONE || cs->h == H_CLONE3 || cs->h == H_FORK ||
				      cs->h == H_VFORK);
		if (pe->is_clone) {
			if (p->nclones == p->ccap) {
				size_t nc = p->ccap ? p->ccap * 2 : 8;
				int64_t *n = realloc(p->clones, nc * sizeof(*n));
				if (!n)
					return -ENOMEM;
				p->clones = n;
				p->ccap = nc;
			}
			p->clones[p->nclones++] = pid;
		}
		return 0;
	}
	return decode(p, src, pid, ts, lineno, name, nlen, body, bn, line, len, e);
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
	free(p->clones);
	free(p->scratch);
	free(p->join);
	free(p);
}

/* ---- files ---------------------------------------------------------------- */
struct sfile {
	struct linereader lr;
	struct strace_src src;
	char *line;
	size_t len;
	int have, open;
	uint64_t key;
};

/* Min-heap of file indexes by next timestamp (ties: file order), for the
 * timestamp merge of -ff files. */
static bool sfile_less(const struct sfile *fs, size_t x, size_t y)
{
	return fs[x].key < fs[y].key || (fs[x].key == fs[y].key && x < y);
}

static void sift_down(size_t *heap, size_t nh, size_t c, const struct sfile *fs)
{
	for (;;) {
		size_t l = 2 * c + 1, r = l + 1, m = c;
		if (l < nh && sfile_less(fs, heap[l], heap[m]))
			m = l;
		if (r < nh && sfile_less(fs, heap[r], heap[m]))
			m = r;
		if (m == c)
			return;
		size_t t = heap[c];
		heap[c] = heap[m];
		heap[m] = t;
		c = m;
	}
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
				src->main_pid = v;
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
};

static int emit_builder(void *arg, const struct sc_event *ev, struct rerr *e)
{
	struct sink *k = arg;
	if (ev->call == SC_CLONE && ev->ret > 0 && ev->ret != SC_RET_UNKNOWN) {
		if (k->nkids == k->ckids) {
			size_t nc = k->ckids ? k->ckids * 2 : 16;
			int64_t *n = realloc(k->kids, nc * sizeof(*n));
			if (!n)
				return rerr_set(e, -ENOMEM, "out of memory");
			k->kids = n;
			k->ckids = nc;
		}
		k->kids[k->nkids++] = ev->ret;
	}
	return builder_event(k->b, ev, e);
}

/* Peek the next line of f (skipping nothing); sets f->key for merging. */
static int sfile_next(struct sfile *f, struct trace_input *in, int want_key)
{
	int rc = lr_next(&f->lr, &f->line, &f->len);
	if (rc == 0) {
		f->have = 0;
		return 0;
	}
	if (rc == -E2BIG) {
		f->line = NULL;
		f->have = 1;
		return 1;
	}
	if (rc < 0)
		return rc;
	f->have = 1;
	in->lines++;
	in->bytes += f->len + 1;
	if (!want_key)
		return 1;
	size_t pos;
	int64_t pid;
	int br, kind;
	uint64_t ts;
	if (!prefix(f->line, f->len, &pos, &pid, &br, &kind, &ts) &&
	    (kind == TS_TOD || kind == TS_EPOCH)) {
		/* same normalization the parse applies (idempotent) */
		struct strace_src tmp = f->src;
		tmp.carry = NULL;
		f->key = norm_ts(&tmp, kind, ts);
		f->src.day_off = tmp.day_off;
	}
	return 1;
}

static int handle(struct strace_parser *p, struct sfile *f, struct trace_input *in, struct rerr *e)
{
	int rc;
	if (!f->line) {
		p->bad = 1;
		rc = rerr_at(e, -EINVAL, f->src.name, f->lr.lineno,
			     "expected a line shorter than %u bytes", LR_MAX);
	} else {
		rc = strace_parser_line(p, &f->src, f->line, f->len, f->lr.lineno, e);
	}
	if (rc && p->bad && in->skip_bad) {
		if (!in->bad_lines++) {
			size_t l = strnlen(e->msg, sizeof(in->first_bad) - 1);
			memcpy(in->first_bad, e->msg, l);
			in->first_bad[l] = 0;
		}
		return 0;
	}
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

static int strace_parse(struct trace_input *in, struct builder *b, struct rerr *e)
{
	struct strace_parser *p = NULL;
	struct sfile *fs = NULL;
	size_t *heap = NULL;
	char *done = NULL;
	size_t *order = NULL;
	struct sink sink = { .b = b };
	int rc = strace_parser_new(&p, emit_builder, &sink);
	if (rc)
		goto out;
	fs = calloc(in->nfiles ? in->nfiles : 1, sizeof(*fs));
	heap = calloc(in->nfiles ? in->nfiles : 1, sizeof(*heap));
	if (!fs || !heap) {
		rc = -ENOMEM;
		goto out;
	}
	int merge = in->nfiles > 1 && in->nfiles <= 512;
	for (size_t i = 0; i < in->nfiles; i++) {
		struct sfile *f = &fs[i];
		strace_src_init(&f->src, in->files[i], STRACE_NOPID);
		rc = lr_open(&f->lr, in->files[i]);
		if (rc) {
			rc = rerr_set(e, rc, "cannot open '%s': %s", in->files[i], strerror(-rc));
			goto out;
		}
		f->open = 1;
		/* classify from the first meaningful line */
		int has = -1;
		uint64_t key = 0;
		for (;;) {
			rc = sfile_next(f, in, merge);
			if (rc < 0) {
				rc = rerr_set(e, rc, "cannot read '%s': %s", in->files[i], strerror(-rc));
				goto out;
			}
			if (!rc)
				break;
			if (!f->line)
				break;
			has = line_has_pid(f->line, f->len);
			if (has >= 0) {
				size_t pos;
				int64_t pid;
				int br, kind;
				if (prefix(f->line, f->len, &pos, &pid, &br, &kind, &key) ||
				    (kind != TS_TOD && kind != TS_EPOCH))
					merge = 0;
				break;
			}
			/* a blank or "strace:" line before any call: parse it now */
			rc = handle(p, f, in, e);
			if (rc)
				goto out;
		}
		if (has == 0) {
			int64_t sp = suffix_pid(in->files[i]);
			if (sp != STRACE_NOPID)
				f->src.pid = sp;
			else
				prescan_main(&f->src);
		}
	}
	if (merge) {
		/* k-way merge by timestamp: the builder sees the processes'
		 * calls in time order, as a -f trace would show them */
		size_t nh = 0;
		for (size_t i = 0; i < in->nfiles; i++)
			if (fs[i].have)
				heap[nh++] = i;
		for (size_t k = nh / 2; k-- > 0;)
			sift_down(heap, nh, k, fs);
		while (nh) {
			struct sfile *f = &fs[heap[0]];
			rc = handle(p, f, in, e);
			if (rc)
				goto out;
			rc = sfile_next(f, in, 1);
			if (rc < 0) {
				rc = rerr_set(e, rc, "cannot read '%s': %s", f->src.name, strerror(-rc));
				goto out;
			}
			if (!rc)
				heap[0] = heap[--nh];
			sift_down(heap, nh, 0, fs);
		}
	} else {
		/*
		 * No common clock: read the files one after the other, but
		 * a child's file (strace -ff) right where its clone/fork
		 * returned in the parent's file, so it starts from the fd
		 * table it inherited (a thread's calls then all come before
		 * the parent's later ones).  heap[] is the stack of files.
		 */
		done = calloc(in->nfiles ? in->nfiles : 1, 1);
		if (!done) {
			rc = -ENOMEM;
			goto out;
		}
		/* roots in pid order (a parent's pid is usually the smaller), so a
		 * child is met at its parent's clone, not before */
		order = calloc(in->nfiles ? in->nfiles : 1, sizeof(*order));
		if (!order) {
			rc = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < in->nfiles; i++)
			order[i] = i;
		qsort_r(order, in->nfiles, sizeof(*order), by_pid, fs);
		for (size_t oi = 0; oi < in->nfiles; oi++) {
			size_t i = order[oi];
			if (done[i])
				continue;
			size_t sp = 0;
			heap[sp++] = i;
			done[i] = 1;
			sink.nkids = 0;
			while (sp) {
				struct sfile *f = &fs[heap[sp - 1]];
				if (!f->have) {
					sp--;
					continue;
				}
				rc = handle(p, f, in, e);
				if (rc)
					goto out;
				rc = sfile_next(f, in, 0);
				if (rc < 0) {
					rc = rerr_set(e, rc, "cannot read '%s': %s", f->src.name,
						      strerror(-rc));
					goto out;
				}
				for (size_t k = 0; k < sink.nkids; k++)
					for (size_t j = 0; j < in->nfiles; j++)
						if (!done[j] && fs[j].src.pid == sink.kids[k]) {
							/* -r: the child's deltas start
							 * where its clone returned, not
							 * at the parent's time 0 */
							fs[j].src.rel_acc = f->src.rel_acc;
							heap[sp++] = j;
							done[j] = 1;
						}
				sink.nkids = 0;
			}
		}
	}
	rc = strace_parser_finish(p, e);
	if (rc)
		goto out;
	if (!strace_parser_syscalls(p)) {
		rc = rerr_set(e, -EINVAL, "%s: no syscalls found%s",
			      in->nfiles ? in->files[0] : "(no files)",
			      in->bad_lines ? " (all lines were malformed)" : "");
		goto out;
	}
	rc = 0;
out:
	if (fs) {
		for (size_t i = 0; i < in->nfiles; i++) {
			if (fs[i].open)
				lr_close(&fs[i].lr);
			strace_src_release(&fs[i].src);
		}
	}
	free(fs);
	free(heap);
	free(done);
	free(order);
	free(sink.kids);
	strace_parser_free(p);
	return rc;
}

/* ---- probe ---------------------------------------------------------------- */
static int strace_probe(const char *head, size_t len)
{
	size_t i = 0;
	int total = 0, good = 0, results = 0;
	while (i < len && total < 40) {
		const char *nl = memchr(head + i, '\n', len - i);
		if (!nl)
			break;          /* partial last line */
		const char *l = head + i;
		size_t n = (size_t)(nl - l);
		i += n + 1;
		if (!n || (n >= 8 && !memcmp(l, "strace: ", 8)) || (n >= 2 && !memcmp(l, " > ", n < 3 ? 2 : 3)))
			continue;       /* blank, strace message, -k frame */
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
