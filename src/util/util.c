/* util.c - error buffers, the bounded line reader, small parsers/formatters. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

int rerr_set(struct rerr *e, int code, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

int rerr_at(struct rerr *e, int code, const char *file, unsigned long line, const char *fmt, ...)
{
	if (e) {
		int n = snprintf(e->msg, sizeof(e->msg), "%s:%lu: ", file ? file : "?", line);
		if (n < 0 || (size_t)n >= sizeof(e->msg))
			n = 0;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg + n, sizeof(e->msg) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return code;
}

static const char *msg_prefix = "replay";

void msg_set_prefix(const char *prefix)
{
	msg_prefix = prefix;
}

/* s into out (at most len - 1 bytes and a NUL), control bytes as C
 * escapes (and a backslash as two, with bs); the bytes written. */
static size_t esc_into(const char *s, char *out, size_t len, bool bs)
{
	size_t o = 0;
	for (; *s && o + 5 <= len - 1; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '\\' && bs) {
			out[o++] = '\\';
			out[o++] = '\\';
		} else if (ch >= 0x20 && ch != 0x7f) {
			out[o++] = (char)ch;
		} else if (ch == '\n' || ch == '\t' || ch == '\r') {
			out[o++] = '\\';
			out[o++] = ch == '\n' ? 'n' : ch == '\t' ? 't' : 'r';
		} else {
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", ch);
		}
	}
	out[o] = '\0';
	return o;
}

const char *text_esc(const char *s, char *buf, size_t len)
{
	const char *c = s;
	while (*c && (unsigned char)*c >= 0x20 && *c != 0x7f && *c != '\\')
		c++;
	if (!*c || !len)
		return s;
	esc_into(s, buf, len, true);   /* a real "\\n" apart from a newline */
	return buf;
}

/* One line, one write(2): the lines of several processes sharing a
 * stderr (MPI ranks under mpirun or srun) do not interleave mid-line. */
__attribute__((format(printf, 2, 0)))
static void msg_line(const char *kind, const char *fmt, va_list ap)
{
	char buf[8192];
	int n = snprintf(buf, sizeof(buf), "%s: %s", msg_prefix, kind);
	if (n < 0 || (size_t)n >= sizeof(buf))
		n = 0;
	int m = vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	size_t len = m < 0 ? (size_t)n : (size_t)n + (size_t)m;
	if (len > sizeof(buf) - 1)
		len = sizeof(buf) - 1;
	buf[len] = '\0';
	/* control bytes (a file name with a newline in it) as C escapes:
	 * one message, one line */
	char out[sizeof(buf) + 8];
	size_t o = esc_into(buf, out, sizeof(out) - 1, false);
	out[o++] = '\n';
	fflush(stderr);
	for (size_t off = 0; off < o;) {
		ssize_t w = write(STDERR_FILENO, out + off, o - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
}

void die_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	msg_line("", fmt, ap);
	va_end(ap);
}

void warn_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	msg_line("warning: ", fmt, ap);
	va_end(ap);
}

int path_rebase(const char *p, const char *from, const char *to, char **out)
{
	size_t fl = strlen(from);

	*out = NULL;
	if (strncmp(p, from, fl) || (p[fl] && p[fl] != '/'))
		return 0;
	size_t tl = strlen(to), rl = strlen(p + fl);
	char *n = malloc(tl + rl + 1);
	if (!n)
		return -ENOMEM;
	memcpy(n, to, tl);
	memcpy(n + tl, p + fl, rl + 1);
	*out = n;
	return 1;
}

int file_is_stream(const char *path)
{
	struct stat st;

	if (!strcmp(path, "-"))
		return 1;
	return !stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) &&
	       !S_ISBLK(st.st_mode);
}

long long file_number(const char *path)
{
	FILE *f = fopen(path, "re");
	long long v = -1;
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

#define LR_CHUNK (256u * 1024u)
#define LR_FIRST (64u * 1024u)     /* first buffer; grows for long lines */

int lr_open(struct linereader *lr, const char *path)
{
	memset(lr, 0, sizeof(*lr));
	lr->fd = -1;
	lr->name = path;
	if (!strcmp(path, "-")) {
		lr->fd = 0;
	} else {
		lr->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (lr->fd < 0)
			return -errno;
		lr->own_fd = 1;
		posix_fadvise(lr->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	}
	lr->cap = LR_FIRST;
	lr->buf = malloc(lr->cap + 1 + LR_PAD);
	if (!lr->buf) {
		lr_close(lr);
		return -ENOMEM;
	}
	return 0;
}

int lr_open_at(struct linereader *lr, const char *path, uint64_t off, unsigned long lineno)
{
	int rc = lr_open(lr, path);
	if (rc)
		return rc;
	if (off && lseek(lr->fd, (off_t)off, SEEK_SET) < 0) {
		rc = -errno;
		lr_close(lr);
		return rc;
	}
	lr->base = off;
	lr->lineno = lineno;
	return 0;
}

uint64_t lr_tell(const struct linereader *lr)
{
	return lr->base + lr->start;
}

int lr_fdopen(struct linereader *lr, int fd, const char *name)
{
	memset(lr, 0, sizeof(*lr));
	lr->fd = fd;
	lr->name = name;
	lr->cap = LR_FIRST;
	lr->buf = malloc(lr->cap + 1 + LR_PAD);
	return lr->buf ? 0 : -ENOMEM;
}

void lr_close(struct linereader *lr)
{
	if (lr->own_fd && lr->fd >= 0)
		close(lr->fd);
	lr->fd = -1;
	free(lr->buf);
	lr->buf = NULL;
}

/* Read more data after compacting (the buffer doubles, up to a line of
 * LR_MAX plus a chunk, when a line fills it); bytes read, 0 EOF, -errno. */
const char *lr_saw_compressed;

const char *compressed_magic(const void *head, size_t n)
{
	const unsigned char *m = head;
	static const unsigned char xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	static const unsigned char zst[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const unsigned char bzblk[6] = { 0x31, 0x41, 0x59, 0x26, 0x53, 0x59 },
				   bzend[6] = { 0x17, 0x72, 0x45, 0x38, 0x50, 0x90 };

	if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
		return "gzip";
	/* "BZh", the block size, then a block's or the end's magic */
	if (n >= 10 && m[0] == 'B' && m[1] == 'Z' && m[2] == 'h' && m[3] >= '1' && m[3] <= '9' &&
	    (!memcmp(m + 4, bzblk, 6) || !memcmp(m + 4, bzend, 6)))
		return "bzip2";
	if (n >= 6 && !memcmp(m, xz, 6))
		return "xz";
	if (n >= 4 && !memcmp(m, zst, 4))
		return "zstd";
	return NULL;
}

static ssize_t lr_fill(struct linereader *lr)
{
	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->base += lr->start;
		lr->start = 0;
	}
	if (lr->end >= lr->cap) {
		if (lr->cap >= LR_MAX + LR_CHUNK)
			return -E2BIG;
		size_t nc = lr->cap * 2 < LR_MAX + LR_CHUNK ? lr->cap * 2 : LR_MAX + LR_CHUNK;
		char *nb = realloc(lr->buf, nc + 1 + LR_PAD);
		if (!nb)
			return -ENOMEM;
		lr->buf = nb;
		lr->cap = nc;
	}
	for (;;) {
		ssize_t n = read(lr->fd, lr->buf + lr->end, lr->cap - lr->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!lr->base && !lr->end && n > 0) {
			const char *z = compressed_magic(lr->buf, (size_t)n);
			if (z)
				lr_saw_compressed = z;
			/* a UTF-8 byte order mark (an editor's) before the first
			 * line: not part of it */
			if (n >= 3 && !memcmp(lr->buf, UTF8_BOM, 3))
				lr->start = 3;
		}
		lr->end += (size_t)n;
		return n;
	}
}

#if REPLAY_SSE2

/* The bytes of m (bit k: buf[i + k]) in order: the index of a '\n', or
 * SIZE_MAX after noting the first other one but '\t' in *bad. */
static inline size_t ctrl_bits(const char *buf, size_t i, uint64_t m, size_t *bad)
{
	for (; m; m &= m - 1) {
		size_t k = i + (size_t)__builtin_ctzll(m);
		if (buf[k] == '\n')
			return k;
		if (buf[k] != '\t' && *bad == LR_NOCTRL)
			*bad = k;
	}
	return SIZE_MAX;
}
#endif

/* The first '\n' of buf[i..end) (end when none), and in *bad, when it is
 * still LR_NOCTRL, the first byte before it that lr_next_ctrl reports: a
 * control byte other than '\t' and '\n', or DEL.  32 bytes a step where
 * there is SSE2; the last step may load bytes past end (in the buffer's
 * LR_PAD) and drops their bits. */
static size_t scan_nl_ctrl(const char *buf, size_t i, size_t end, size_t *bad)
{
#if REPLAY_SSE2
	size_t k;
	while (i + 32 <= end) {
		uint64_t m = lr_ctrl16(buf + i) | (uint64_t)lr_ctrl16(buf + i + 16) << 16;
		if (m && (k = ctrl_bits(buf, i, m, bad)) != SIZE_MAX)
			return k;
		i += 32;
	}
	for (; i < end; i += 16) {
		uint64_t m = lr_ctrl16(buf + i);
		if (end - i < 16)
			m &= (1u << (end - i)) - 1;
		if (m && (k = ctrl_bits(buf, i, m, bad)) != SIZE_MAX)
			return k;
	}
	return end;
#else
	for (; i < end; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\n')
			return i;
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			if (*bad == LR_NOCTRL)
				*bad = i;
	}
	return end;
#endif
}

/* lr_next, and with ctrl the index of the line's first control byte (as
 * scan_nl_ctrl) in *ctrl, *len when there is none. */
static inline __attribute__((always_inline)) int next_line(struct linereader *lr, char **line,
							   size_t *len, size_t *ctrl)
{
	int skipping = 0;
	size_t scan = lr->start, bad = LR_NOCTRL;     /* bad: from lr->start */
	uint64_t from = 0;              /* an over-long line's offset, skipping */

	for (;;) {
		char *nl;
		if (ctrl) {
			size_t b = LR_NOCTRL;
			size_t k = scan_nl_ctrl(lr->buf, scan, lr->end, &b);
			if (b != LR_NOCTRL && bad == LR_NOCTRL)
				bad = b - lr->start;
			nl = k < lr->end ? lr->buf + k : NULL;
		} else {
			nl = memchr(lr->buf + scan, '\n', lr->end - scan);
		}
		if (nl) {
			size_t pos = (size_t)(nl - lr->buf);
			lr->lineno++;
			if (skipping) {
				*len = (size_t)(lr->base + pos - from);
				lr->start = pos + 1;
				return -E2BIG;
			}
			*nl = '\0';
			*line = lr->buf + lr->start;
			*len = pos - lr->start;
			if (ctrl)
				*ctrl = bad == LR_NOCTRL ? *len : bad;
			lr->start = pos + 1;
			return 1;
		}
		if (lr->eof) {
			if (lr->end > lr->start && !skipping) {
				lr->lineno++;
				lr->nonl = 1;
				lr->buf[lr->end] = '\0';
				*line = lr->buf + lr->start;
				*len = lr->end - lr->start;
				if (ctrl)
					*ctrl = bad == LR_NOCTRL ? *len : bad;
				lr->start = lr->end;
				return 1;
			}
			if (skipping) {
				lr->lineno++;
				*len = (size_t)(lr->base + lr->end - from);
				lr->start = lr->end;
				return -E2BIG;
			}
			return 0;
		}
		if (lr->end - lr->start >= LR_MAX) {
			/* over-long line: drop what we have and skip to the next '\n' */
			if (!skipping)
				from = lr->base + lr->start;
			skipping = 1;
			lr->start = lr->end;
		}
		size_t keep = lr->end - lr->start;
		ssize_t n = lr_fill(lr);
		if (n < 0)
			return (int)n;
		if (n == 0)
			lr->eof = 1;
		scan = lr->start + keep;
	}
}

/* lr_next_ctrl_inline's look-ahead forgotten: start moved by another way. */
static inline void lr_forget(struct linereader *lr)
{
	lr->cnext = lr->start;
	lr->cbits = 0;
}

int lr_next(struct linereader *lr, char **line, size_t *len)
{
	int rc = next_line(lr, line, len, NULL);
	lr_forget(lr);
	return rc;
}

int lr_next_ctrl(struct linereader *lr, char **line, size_t *len, size_t *ctrl)
{
	int rc = next_line(lr, line, len, ctrl);
	lr_forget(lr);
	return rc;
}

int lr_next_block(struct linereader *lr, char **block, size_t *len)
{
	if (lr->end > lr->start) {
		char *nl = memrchr(lr->buf + lr->start, '\n', lr->end - lr->start);
		if (nl) {
			*block = lr->buf + lr->start;
			*len = (size_t)(nl - *block);
			lr->start = (size_t)(nl - lr->buf) + 1;
			lr_forget(lr);
			return 1;
		}
	}
	return lr_next(lr, block, len);
}

int parse_i64(const char *s, size_t n, int64_t *out)
{
	char tmp[64];
	if (n == 0 || n >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	char *end;
	errno = 0;
	long long v = strtoll(tmp, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_u64(const char *s, size_t n, uint64_t *out)
{
	char tmp[64];
	if (n == 0 || n >= sizeof(tmp) || s[0] == '-')
		return -EINVAL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	char *end;
	errno = 0;
	unsigned long long v = strtoull(tmp, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

const char *fmt_bytes(char *buf, size_t len, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned u = 0;
	while (bytes >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		snprintf(buf, len, "%.1f %s", bytes, units[u]);
	return buf;
}

/* Code point c's columns (c >= 0x80). */
static int cp_width(uint32_t c)
{
	if ((c >= 0x300 && c <= 0x36f) || (c >= 0x1ab0 && c <= 0x1aff) ||
	    (c >= 0x1dc0 && c <= 0x1dff) || (c >= 0x20d0 && c <= 0x20ff) ||
	    (c >= 0xfe20 && c <= 0xfe2f) || c == 0x200b || c == 0x200c || c == 0x200d)
		return 0;
	if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0x303e) ||
	    (c >= 0x3041 && c <= 0x33ff) || (c >= 0x3400 && c <= 0x4dbf) ||
	    (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xa000 && c <= 0xa4cf) ||
	    (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
	    (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
	    (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
	    (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd))
		return 2;
	return 1;
}

size_t text_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0;

	while (*p) {
		unsigned n = *p >= 0xf0 && *p <= 0xf4 ? 3 : *p >= 0xe0 && *p < 0xf0 ? 2 :
			     *p >= 0xc2 && *p < 0xe0 ? 1 : 0;
		uint32_t c = n == 3 ? *p & 0x07u : n == 2 ? *p & 0x0fu : *p & 0x1fu;
		unsigned k;

		if (*p < 0x80 || !n) {          /* ASCII, or not a lead byte */
			w++;
			p++;
			continue;
		}
		for (k = 1; k <= n && (p[k] & 0xc0) == 0x80; k++)
			c = c << 6 | (p[k] & 0x3fu);
		if (k <= n || (n == 2 && c < 0x800) || (n == 3 && (c < 0x10000 || c > 0x10ffff)) ||
		    (c >= 0xd800 && c <= 0xdfff)) {
			w++;                    /* invalid: its lead byte a column */
			p++;
			continue;
		}
		w += (size_t)cp_width(c);
		p += n + 1;
	}
	return w;
}

int pad_width(int w, const char *s)
{
	return w + (int)(strlen(s) - text_width(s));
}

const char *fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f \xc2\xb5s", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

const char *fmt_utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	if (!gmtime_r(&now, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
	return buf;
}

/* ---- files to remove when a signal ends the process ------------------- */
#define NTRACKED 8
static char tracked[NTRACKED][4096];
static volatile sig_atomic_t tracked_used[NTRACKED];

void tmpfile_track(const char *path)
{
	for (int i = 0; i < NTRACKED; i++)
		if (!tracked_used[i] && strlen(path) < sizeof(tracked[i])) {
			strcpy(tracked[i], path);
			tracked_used[i] = 1;
			return;
		}
}

int tmpfile_make(char *tmpl, int suffixlen, bool track)
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	int fd = mkostemps(tmpl, suffixlen, O_CLOEXEC);
	int err = errno;
	if (fd >= 0) {
		if (track)
			tmpfile_track(tmpl);
		else
			unlink(tmpl);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return fd;
}

void tmpfile_untrack(const char *path)
{
	for (int i = 0; i < NTRACKED; i++)
		if (tracked_used[i] && !strcmp(tracked[i], path))
			tracked_used[i] = 0;
}

void tmpfile_remove_all(void)
{
	for (int i = 0; i < NTRACKED; i++)
		if (tracked_used[i]) {
			unlink(tracked[i]);
			tracked_used[i] = 0;
		}
}

/* ---- rank lists --------------------------------------------------------- */
int ranklist_parse(const char *s, struct ranklist *rl)
{
	memset(rl, 0, sizeof(*rl));
	const char *p = s;
	if (!*p)
		return -EINVAL;
	while (*p) {
		char *end;
		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		unsigned long long lo = strtoull(p, &end, 10), hi = lo;
		if (errno || lo > UINT32_MAX)
			goto bad;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				goto bad;
			hi = strtoull(p, &end, 10);
			if (errno || hi > UINT32_MAX || hi < lo)
				goto bad;
			p = end;
		}
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
		void *n = realloc(rl->r, (rl->n + 1) * sizeof(*rl->r));
		if (!n) {
			ranklist_free(rl);
			return -ENOMEM;
		}
		rl->r = n;
		rl->r[rl->n][0] = (uint32_t)lo;
		rl->r[rl->n][1] = (uint32_t)hi;
		rl->n++;
	}
	return 0;
bad:
	ranklist_free(rl);
	return -EINVAL;
}

bool ranklist_has(const struct ranklist *rl, uint32_t rank)
{
	if (!rl || !rl->n)
		return true;
	for (size_t i = 0; i < rl->n; i++)
		if (rank >= rl->r[i][0] && rank <= rl->r[i][1])
			return true;
	return false;
}

uint32_t ranklist_max(const struct ranklist *rl)
{
	uint32_t m = 0;
	for (size_t i = 0; rl && i < rl->n; i++)
		if (rl->r[i][1] > m)
			m = rl->r[i][1];
	return m;
}

void ranklist_free(struct ranklist *rl)
{
	free(rl->r);
	rl->r = NULL;
	rl->n = 0;
}

/* ---- paths ---------------------------------------------------------------- */

size_t path_join_general(char *out, const char *dir, const char *rel)
{
	size_t n = 0;
	int absolute = dir ? dir[0] == '/' : rel[0] == '/';
	if (absolute)
		out[n++] = '/';
	for (int part = 0; part < 2; part++) {
		const char *s = part == 0 ? dir : rel;
		if (!s)
			continue;
		while (*s) {
			while (*s == '/')
				s++;
			const char *c = s;
			while (*s && *s != '/')
				s++;
			size_t l = (size_t)(s - c);
			if (!l || (l == 1 && c[0] == '.'))
				continue;
			if (l == 2 && c[0] == '.' && c[1] == '.' && absolute) {
				while (n > 1 && out[n - 1] != '/')
					n--;
				if (n > 1)
					n--;    /* the '/' before the dropped part */
				continue;
			}
			if (l == 2 && c[0] == '.' && c[1] == '.' && n &&
			    !(n == 2 && out[0] == '.' && out[1] == '.') &&
			    !(n > 2 && !memcmp(out + n - 3, "/..", 3))) {
				/* relative "d/.." folds too, "../.." does not */
				while (n && out[n - 1] != '/')
					n--;
				if (n)
					n--;
				continue;
			}
			if (n && out[n - 1] != '/')
				out[n++] = '/';
			memcpy(out + n, c, l);
			n += l;
		}
	}
	if (!n)
		out[n++] = '.';
	out[n] = 0;
	return n;
}

/* s[0..l) already as path_join_general would write it: not empty, no
 * empty, "." or ".." component, no '/' at the end (but "/" itself).  One
 * memchr per component. */
static bool path_plain(const char *s, size_t l)
{
	const char *e = s + l, *c = s;

	if (!l || (l > 1 && s[l - 1] == '/'))
		return false;
	for (;;) {
		if (c == e)
			return true;                    /* "/" */
		if (*c == '/' && c != s)
			return false;                   /* "//" */
		if (c[0] == '.' && (c + 1 == e || c[1] == '/' ||
				    (c[1] == '.' && (c + 2 == e || c[2] == '/'))))
			return false;
		const char *sl = memchr(c, '/', (size_t)(e - c));
		if (!sl)
			return true;
		c = sl + 1;
	}
}

size_t path_join_buf(char *out, const char *dir, const char *rel)
{
	size_t rl = strlen(rel);

	if (!dir) {
		if (path_plain(rel, rl)) {
			memcpy(out, rel, rl + 1);
			return rl;
		}
	} else if (rel[0] != '/') {
		size_t dl = strlen(dir);
		if (path_plain(dir, dl) && path_plain(rel, rl)) {
			if (dl == 1 && dir[0] == '/')
				dl = 0;                 /* "/" + "a": "/a" */
			memcpy(out, dir, dl);
			out[dl] = '/';
			memcpy(out + dl + 1, rel, rl + 1);
			return dl + 1 + rl;
		}
	}
	return path_join_general(out, dir, rel);
}
