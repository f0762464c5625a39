/*
 * util.h - small helpers shared by all modules: error buffers, a bounded
 * line reader, time helpers.
 *
 * Internal functions return 0 or -errno and never print; when they have
 * more to say, they fill a `struct rerr` which cmd_* prints.
 */
#ifndef REPLAY_UTIL_H
#define REPLAY_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "util/clock.h"
#include "util/simd.h"

struct rerr {
	char msg[1024];
};

/* Format into e (when e != NULL) and return `code` (a negative errno). */
int rerr_set(struct rerr *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "FILE:LINE: " + message; returns `code`. */
int rerr_at(struct rerr *e, int code, const char *file, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Print "replay: " + message to stderr (only cmd_* and main call this). */
/* What die_msg/warn_msg start with ("replay"; replay-mpi names its rank). */
void msg_set_prefix(const char *prefix);
void die_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Bounded line reader: lines longer than LR_MAX are reported, not grown. */
#define LR_MAX (1u << 20)
/* Bytes after a returned line's terminating NUL that may be read (their
 * contents unspecified): a reader may load 16 bytes at any place up to
 * and including the NUL without checking for the buffer's end. */
#define LR_PAD 16
struct linereader {
	int fd;
	const char *name;        /* for messages                          */
	unsigned long lineno;    /* number of the line last returned      */
	char *buf;
	size_t cap, start, end;
	uint64_t base;           /* file offset of buf[0]                 */
	int eof;
	int own_fd;
	int nonl;                /* the line last returned ended the input
	                          * without its '\n' (a cut capture)      */
	/* lr_next_ctrl_inline's look-ahead: bit k of cbits is set when
	 * buf[cnext - 64 + k] is a byte lr_ctrl16 reports and lies at or after
	 * start; no such byte in [start, cnext - 64) when cbits has bits, in
	 * [start, cnext) when it is 0.  Every other call that moves start
	 * or the bytes (lr_next, lr_next_ctrl, lr_next_block, a refill) sets
	 * cnext = start and cbits = 0: nothing known. */
	size_t cnext;
	uint64_t cbits;
};
int  lr_open(struct linereader *lr, const char *path);  /* -errno */
/* Set when a linereader's first bytes were a compressor's magic
 * (compressed_magic's name): a trace reader then met compressed bytes,
 * which only a stream can give it (a compressed file is refused, or
 * decompressed, before it is read); the loader's message says so.
 * A UTF-8 byte order mark before a file's first line is skipped. */
extern const char *lr_saw_compressed;
#define UTF8_BOM "\xef\xbb\xbf"
/* "gzip", "bzip2", "xz" or "zstd" when head (n bytes of a file's start)
 * begins as that compressor's output, else NULL. */
const char *compressed_magic(const void *head, size_t n);
/* 1 when path is "-" or names a pipe, socket or character device: its
 * bytes can be read once only, so nothing may look at them before the
 * reader (a probe would take them away from it). */
int  file_is_stream(const char *path);
/* The number a /proc or /sys file starts with (fs.aio-nr, kernel.pid_max,
 * a cgroup's pids.current); -1 when it cannot be read or is no number
 * (a cgroup's "max"). */
long long file_number(const char *path);
/* p after a rename of `from` to `to`: when p is `from` or lies beneath it,
 * *out is `to` with p's rest (malloc'ed) and 1 is returned; 0 when p is
 * elsewhere; -ENOMEM. */
int  path_rebase(const char *p, const char *from, const char *to, char **out);
/* Open and start at byte off, the next line being number lineno + 1
 * (reopening a file closed at lr_tell(), to bound open files). */
int  lr_open_at(struct linereader *lr, const char *path, uint64_t off, unsigned long lineno);
/* Offset of the first byte not yet returned. */
uint64_t lr_tell(const struct linereader *lr);
/* Read lines from an fd the caller owns (a pipe from a child process);
 * `name` is for messages.  lr_close does not close fd. */
int  lr_fdopen(struct linereader *lr, int fd, const char *name);
void lr_close(struct linereader *lr);
/* Next line, NUL-terminated, without '\n'; *len its length; LR_PAD
 * readable bytes follow the NUL.
 * Returns 1 line, 0 EOF, -E2BIG over-long line (skipped; *len its length,
 * for the reader's byte count), -errno read error.
 * A final line without '\n' is returned too (and sets lr->nonl).  The
 * pointer stays valid until the next call. */
int  lr_next(struct linereader *lr, char **line, size_t *len);
/* lr_next, and in *ctrl the index in the line of its first byte below
 * 0x20 other than a tab, or DEL (0x7f); *len when it has none.  One pass
 * finds the line's end and that byte. */
int  lr_next_ctrl(struct linereader *lr, char **line, size_t *len, size_t *ctrl);
#define LR_NOCTRL ((size_t)-1)
#if REPLAY_SSE2
/* Bit k: s[k] is below 0x20 or DEL (k < 16): the bytes lr_next_ctrl looks
 * for, the '\n' among them. */
static inline unsigned lr_ctrl16(const char *s)
{
	const __m128i c1f = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f);
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
	return (unsigned)_mm_movemask_epi8(
		_mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, c1f), x), _mm_cmpeq_epi8(x, del)));
}
#endif
/* lr_next_ctrl, its usual case inline: a line with no control byte but
 * its '\n' (nor a tab).  The buffer's bytes are looked at once, 64 at a
 * time (the 16-byte compares of lr_next_ctrl), and the bits of a window
 * not used up by one line are kept for the next (cbits): the first byte
 * below 0x20 or DEL must be the '\n'; any other line, and the last 64
 * bytes read, lr_next_ctrl. */
static inline __attribute__((always_inline)) int
lr_next_ctrl_inline(struct linereader *lr, char **line, size_t *len, size_t *ctrl)
{
#if REPLAY_SSE2
	char *b = lr->buf;
	size_t nx = lr->cnext, st = lr->start, end = lr->end;
	uint64_t m = lr->cbits;
	while (!m) {
		if (end - nx < 64)
			goto slow;
		m = (uint64_t)lr_ctrl16(b + nx) | (uint64_t)lr_ctrl16(b + nx + 16) << 16 |
		    (uint64_t)lr_ctrl16(b + nx + 32) << 32 | (uint64_t)lr_ctrl16(b + nx + 48) << 48;
		nx += 64;
	}
	size_t k = nx - 64 + (size_t)__builtin_ctzll(m);
	if (b[k] != '\n')
		goto slow;
	b[k] = '\0';
	*line = b + st;
	*len = *ctrl = k - st;
	lr->start = k + 1;
	lr->cnext = nx;
	lr->cbits = m & (m - 1);
	lr->lineno++;
	return 1;
slow:
#endif
	return lr_next_ctrl(lr, line, len, ctrl);
}
/* The whole lines buffered, at once (for a pass that looks at most lines
 * only in bulk): *block points at them and *len spans them without the
 * last '\n' (the lines inside are separated by '\n'); block[*len], that
 * '\n', may be overwritten, and LR_PAD readable bytes follow it.  When no
 * whole line is buffered, lr_next's next line (NUL-terminated).  Returns
 * as lr_next; lineno counts only the lines lr_next returned. */
int  lr_next_block(struct linereader *lr, char **block, size_t *len);

/* Temporary files to remove if a signal ends the process while they
 * exist (the trace loader's .ops, the writer's temporaries): up to 8.
 * tmpfile_remove_all() is async-signal-safe. */
void tmpfile_track(const char *path);
/* mkostemps(tmpl, suffixlen, O_CLOEXEC) with every catchable signal held
 * until the new file is tracked (track) or already unlinked (!track), so
 * that no signal can leave it behind.  The fd, or -1 with errno. */
int  tmpfile_make(char *tmpl, int suffixlen, bool track);
void tmpfile_untrack(const char *path);
void tmpfile_remove_all(void);
/* Parse decimal/hex/octal (strtoll base 0 rules, but "010" is decimal if dec_only) */
int parse_i64(const char *s, size_t n, int64_t *out);
int parse_u64(const char *s, size_t n, uint64_t *out);
/* A rank list "3", "0-3,7" (0-based, ranges inclusive).  Empty: all. */
struct ranklist {
	uint32_t (*r)[2];        /* [lo, hi] ranges, as given              */
	size_t n;
};
int  ranklist_parse(const char *s, struct ranklist *rl);   /* -EINVAL, -ENOMEM */
bool ranklist_has(const struct ranklist *rl, uint32_t rank); /* NULL or empty: true */
uint32_t ranklist_max(const struct ranklist *rl);
void ranklist_free(struct ranklist *rl);

/* Human formats into caller buffers */
const char *fmt_bytes(char *buf, size_t len, double bytes);   /* "1.5 MiB" */
const char *fmt_ns(char *buf, size_t len, double ns);         /* "850 ns", "12.5 µs", "12.30 ms", "1.234 s" */
const char *fmt_utc_now(char *buf, size_t len);              /* "2026-11-25T08:40:01Z" */

/* Columns s takes on a terminal: UTF-8 decoded, a combining mark 0, an East
 * Asian wide or emoji character 2, any other character 1, a byte that is
 * not valid UTF-8 1 (a name as the kernel gave it). */
size_t text_width(const char *s);
/* s with its control bytes as C escapes (\n, \t, \r, \xNN) and a backslash
 * as two (a name holding "\\n" is not one with a newline), so that a
 * name with a newline or an escape sequence in it prints as one line and
 * leaves the terminal alone: s itself when it has none, else buf (len
 * bytes; cut short when too small). */
const char *text_esc(const char *s, char *buf, size_t len);
/* The printf field width ("%*s", "%-*s") that pads s to w columns: w plus
 * the bytes s has beyond its columns ("2.4 µs" is 7 bytes, 6 columns). */
int pad_width(int w, const char *s);

/* dir (NULL: none) and rel joined into out, which has room for
 * strlen(dir) + strlen(rel) + 3 bytes: empty and "." components dropped,
 * ".." folded lexically ("/.." is "/"; a relative path keeps its leading
 * ".."s), "." for nothing; absolute when dir (else rel) starts with '/'.
 * Returns the length.  path_join_buf takes paths already in that form at
 * once (what the kernel shows with -y, what it joined before);
 * path_join_general is the long way, for any input. */
size_t path_join_buf(char *out, const char *dir, const char *rel);
size_t path_join_general(char *out, const char *dir, const char *rel);

/* A slot of a table of 1 << (64 - shift) slots for key: the top bits of
 * key times 2^64 / phi (one multiply; small or regularly spaced keys
 * spread evenly).  0 < shift < 64. */
static inline size_t hash_fib(uint64_t key, unsigned shift)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> shift);
}

/* A hash of the n bytes at s, for tables of names (files, call names):
 * 8 bytes at a time, the last 8 overlapping what came before (every byte
 * counts: names often differ only in the middle, "/scratch/rank0001/
 * out.dat"), then a final mix.  Reads those n bytes only. */
static inline uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__builtin_memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	if (i < n) {
		w = 0;
		if (n >= 8)
			__builtin_memcpy(&w, s + n - 8, 8);
		else
			for (size_t k = 0; k < n; k++)
				w |= (uint64_t)(unsigned char)s[k] << (8 * k);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	h ^= h >> 32;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

#endif
