/*
 * lanl.c - LANL-Trace (MPI_IO_TEST) parser: ltrace -S style per-rank files
 * plus a `timing` file of barrier lines.
 *
 * Why two passes: the rank of a per-rank file is only known once every file
 * was looked at (timing file, in-file barrier lines, file names), and whether
 * truncated names are the one N-to-1 shared file is only said by the traced
 * command line, which may sit in any file.  Pass 1 reads comment and barrier
 * lines only; pass 2 parses calls and feeds the builder, rank by rank.
 *
 * The grammar is partly INFERRED (see formats/README.md §2): calls we do not
 * model are fed as SC_SKIP (counted by name), never guessed at.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"
#include "util/scan.h"
#include "parse_common.h"

#define NS_PER_S   1000000000ull
#define DAY_NS     (86400ull * NS_PER_S)
#define LMAXARGS   8
#define LMAXPEND   4096
#define LMAXNAME   127            /* longer call names are cut */
#define SYNTH_PID  0x40000000LL   /* above any Linux pid_max */
#define I386_O_LARGEFILE 0100000

/* ------------------------------------------------------------------ */
/* small lexical helpers                                              */

/* strtoll base-0 rules on exactly n bytes: [-]dec, 0x hex, 0 octal. */
static int num_parse(const char *s, size_t n, int64_t *out)
{
	uint64_t dv;
	/* the common case, a plain decimal (no sign, no leading 0, at most 18
	 * digits: no overflow), decodes at once; the rest as below */
	if (n && n <= 18 && s[0] != '0' && tx_dec(s, n, &dv)) {
		*out = (int64_t)dv;
		return 0;
	}
	/* and a plain 0x of at most 15 hex digits (the i386 range as below) */
	if (n > 2 && n <= 17 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && tx_hex(s + 2, n - 2, &dv)) {
		*out = dv <= UINT32_MAX && dv > 0xfffff000u ? (int64_t)(int32_t)(uint32_t)dv : (int64_t)dv;
		return 0;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	bool neg = false;
	if (n && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		s++, n--;
	}
	if (!n)
		return -EINVAL;
	unsigned base = 10;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2, n -= 2;
	} else if (n > 1 && s[0] == '0') {
		base = 8;
		s++, n--;
	}
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d;
		char c = s[i];
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
		if (d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	/* raw i386 values print as unsigned hex: 0xffffff9c is AT_FDCWD and
	 * 0xfffffffe is -ENOENT; read the -4095..-1 range as negative */
	if (base == 16 && !neg && v <= UINT32_MAX && v > 0xfffff000u)
		*out = (int64_t)(int32_t)(uint32_t)v;
	else if (neg)   /* -2^63 is a value; one more is out of range */
		*out = v > (uint64_t)INT64_MAX + 1 ? 0 : v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	else            /* hex: two's complement, as raw values print */
		*out = (int64_t)v;
	if ((neg && v > (uint64_t)INT64_MAX + 1) || (!neg && base != 16 && v > INT64_MAX))
		return -ERANGE;
	return 0;
}

/* num_parse for a field with 8 readable bytes at s and at s + n - 8 (a
 * field of a line from lr_next, or of a buffer padded as one: LR_PAD
 * bytes after its NUL): up to 16 plain decimal digits at once. */
static inline int num_parse_p(const char *s, size_t n, int64_t *out)
{
	uint64_t dv;
	/* one digit (an fd, a whence, a 0) is most arguments: no load of 8 */
	if (n == 1 && tx_digit(s[0])) {
		*out = s[0] - '0';
		return 0;
	}
	if (n - 1 < 16 && s[0] != '0' && scan_dec16(s, n, &dv)) {
		*out = (int64_t)dv;
		return 0;
	}
	return num_parse(s, n, out);
}

/* "SECS[.frac]" (any size) -> ns. */
static int parse_secs(const char *s, size_t n, uint64_t *ns)
{
	uint64_t secs = 0, frac = 0, scale = NS_PER_S;
	size_t i = 0;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (i < n && tx_digit(s[i])) {
		if (i > 12)
			return -EINVAL;
		secs = secs * 10 + (uint64_t)(s[i++] - '0');
	}
	if (!i)
		return -EINVAL;
	if (i < n && s[i] == '.') {
		size_t st = ++i;
		for (; i < n && tx_digit(s[i]); i++)
			if (scale >= 10) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
		if (i == st)
			return -EINVAL;
	}
	if (i != n)
		return -EINVAL;
	*ns = secs * NS_PER_S + frac;
	return 0;
}

/* "HH:MM:SS[.frac]" (-tt) or "SECS.frac" (-ttt) -> ns. */
static int parse_clock(const char *s, size_t n, uint64_t *ns)
{
	uint64_t secs = 0, frac = 0, scale = NS_PER_S;
	size_t i = 0;
	unsigned fields = 0;
	for (;;) {
		size_t st = i;
		uint64_t v = 0;
		while (i < n && tx_digit(s[i])) {
			if (i - st > 12)
				return -EINVAL;
			v = v * 10 + (uint64_t)(s[i] - '0');
			i++;
		}
		if (i == st)
			return -EINVAL;
		if (fields && v >= 60)
			return -EINVAL;
		secs = fields ? secs * 60 + v : v;
		fields++;
		if (i < n && s[i] == ':' && fields < 3) {
			i++;
			continue;
		}
		break;
	}
	if (fields == 2)
		return -EINVAL;
	if (fields == 3 && secs >= 86400)
		return -EINVAL;
	if (i < n && s[i] == '.') {
		i++;
		size_t st = i;
		while (i < n && tx_digit(s[i])) {
			if (scale >= 10) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
			i++;
		}
		if (i == st)
			return -EINVAL;
	}
	if (i != n)
		return -EINVAL;
	if (fields == 1 && secs < 1000000) /* a bare small number is a pid */
		return -EINVAL;
	*ns = secs * NS_PER_S + frac;
	return 0;
}

struct larg {
	const char *s;
	size_t n;
};

/* Byte classes of argument text: what ends a run of plain bytes. */
enum { AC_QUOTE = 1, AC_OPEN = 2, AC_CLOSE = 4, AC_COMMA = 8, AC_LT = 16, AC_NUL = 32,
       AC_NAME = 64 /* of a call name: alnum, '_', '@', '.' */, AC_WS = 128 /* skip_ws's */,
       AC_SPACE = 256 /* tx_space's: isspace() in the C locale */ };
#define AN_ AC_NAME
static const uint16_t arg_class[256] = {
	[' '] = AC_WS | AC_SPACE, ['\t'] = AC_WS | AC_SPACE, ['\r'] = AC_WS | AC_SPACE,
	['\n'] = AC_SPACE, ['\v'] = AC_SPACE, ['\f'] = AC_SPACE,
	['\0'] = AC_NUL, ['"'] = AC_QUOTE, ['\''] = AC_QUOTE, ['<'] = AC_LT,
	['('] = AC_OPEN, ['['] = AC_OPEN, ['{'] = AC_OPEN,
	[')'] = AC_CLOSE, [']'] = AC_CLOSE, ['}'] = AC_CLOSE, [','] = AC_COMMA,
	['_'] = AN_, ['@'] = AN_, ['.'] = AN_,
	['0'] = AN_, ['1'] = AN_, ['2'] = AN_, ['3'] = AN_, ['4'] = AN_, ['5'] = AN_, ['6'] = AN_,
	['7'] = AN_, ['8'] = AN_, ['9'] = AN_,
	['a'] = AN_, ['b'] = AN_, ['c'] = AN_, ['d'] = AN_, ['e'] = AN_, ['f'] = AN_, ['g'] = AN_,
	['h'] = AN_, ['i'] = AN_, ['j'] = AN_, ['k'] = AN_, ['l'] = AN_, ['m'] = AN_, ['n'] = AN_,
	['o'] = AN_, ['p'] = AN_, ['q'] = AN_, ['r'] = AN_, ['s'] = AN_, ['t'] = AN_, ['u'] = AN_,
	['v'] = AN_, ['w'] = AN_, ['x'] = AN_, ['y'] = AN_, ['z'] = AN_,
	['A'] = AN_, ['B'] = AN_, ['C'] = AN_, ['D'] = AN_, ['E'] = AN_, ['F'] = AN_, ['G'] = AN_,
	['H'] = AN_, ['I'] = AN_, ['J'] = AN_, ['K'] = AN_, ['L'] = AN_, ['M'] = AN_, ['N'] = AN_,
	['O'] = AN_, ['P'] = AN_, ['Q'] = AN_, ['R'] = AN_, ['S'] = AN_, ['T'] = AN_, ['U'] = AN_,
	['V'] = AN_, ['W'] = AN_, ['X'] = AN_, ['Y'] = AN_, ['Z'] = AN_,
};
#undef AN_
#define ACLASS(c) arg_class[(unsigned char)(c)]

/* Past ' ', '\t' and '\r'. */
static inline const char *skip_ws(const char *p)
{
	while (ACLASS(*p) & AC_WS)
		p++;
	return p;
}

/* Does the '<' at p start "<unfinished ...>" or "<no return ...>"?  p
 * is in a line from lr_next (16 bytes readable); a NUL among them ends
 * the line and differs from both, as strncmp would find. */
static inline bool cut_mark(const char *p)
{
	return !memcmp(p, "<unfinished ...>", 16) || !memcmp(p, "<no return ...>", 15);
}

/* Scan from p (inside an argument list at depth 1) to the closing ')'.
 * Quotes ("..." and '...') with backslash escapes never end anything.
 * Returns a pointer to the ')' or, when the list is cut by
 * "<unfinished ...>" / "<no return ...>", to its '<' with *cut set. */
static const char *scan_args(const char *p, bool *cut)
{
	int depth = 1;
	*cut = false;
	for (;; p++) {
		while (!(ACLASS(*p) & (AC_NUL | AC_QUOTE | AC_LT | AC_OPEN | AC_CLOSE)))
			p++;
		char c = *p;
		if (!c)
			return NULL;
		if (c == '"' || c == '\'') {
			for (p++; *p && *p != c; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return NULL;
			continue;
		}
		if (c == '<') {
			if (cut_mark(p)) {
				*cut = true;
				return p;
			}
		} else if (ACLASS(c) & AC_OPEN) {
			depth++;
		} else if (--depth == 0) {
			return c == ')' ? p : NULL;
		}
	}
}

/* Split "a, "b,c", {d, e}" into top-level arguments (trimmed). */
static int split_args(const char *s, size_t n, struct larg *a, int max)
{
	int na = 0, depth = 0;
	size_t st = 0;
	for (size_t i = 0; i <= n; i++) {
		while (i < n && !(ACLASS(s[i]) & (AC_QUOTE | AC_OPEN | AC_CLOSE | AC_COMMA)))
			i++;
		char c = i < n ? s[i] : ',';
		if (i < n && (c == '"' || c == '\'')) {
			/* to the closing quote; a backslash takes the next byte */
			for (i = scan_any2(s, n, i + 1, c, '\\'); i < n && s[i] != c;
			     i = scan_any2(s, n, i + 2, c, '\\'))
				;
			continue;
		}
		if (ACLASS(c) & AC_OPEN)
			depth++;
		else if (ACLASS(c) & AC_CLOSE)
			depth--;
		else if (depth <= 0) {
			const char *b = s + st;
			size_t len = i - st;
			while (len && tx_space(*b))
				b++, len--;
			while (len && tx_space(b[len - 1]))
				len--;
			st = i + 1;
			if (!len && i == n && na == 0)
				break;          /* "()" */
			if (na < max)
				a[na] = (struct larg){ b, len };
			na++;
		}
	}
	return na;
}

/* The top-level argument [st, e) trimmed, as split_args stores it.  st
 * follows the '(' or ',' before it and e is at the stop after it, so
 * st[-1] and *e are readable.  Nearly every argument is "N" or " N" (one
 * blank after the comma): its first and last bytes above ' ' (no
 * AC_SPACE byte is) take it at once, even the empty one (st == e: the
 * stop and the byte before st are both above ' '). */
static inline struct larg arg_trim(const char *st, const char *e)
{
	const char *b = st + (*st == ' ');
	if ((unsigned char)*b > ' ' && (unsigned char)e[-1] > ' ')
		return (struct larg){ b, (size_t)(e - b) };
	while (st < e && (ACLASS(*st) & AC_SPACE))
		st++;
	while (e > st && (ACLASS(e[-1]) & AC_SPACE))
		e--;
	return (struct larg){ st, (size_t)(e - st) };
}

/* The end of a quoted run: from q (just past the opening quote c) to the
 * closing quote, a backslash taking the next byte unless that is the NUL
 * (scan_args's rule); NULL when the line (NUL at lend, or an embedded
 * one) ends first. */
static inline const char *quote_end(const char *q, const char *lend, char c)
{
	for (;;) {
		q += scan_any3(q, (size_t)(lend - q), 0, c, '\\', '\0');
		if (*q == c)
			return q;
		if (!*q || !q[1])
			return NULL;
		q += 2;
	}
}

#if REPLAY_SSE2
/* Bit i set: p[i] is one of the bytes scan_split stops at (NUL, quotes,
 * brackets, ',' and '<'; ',' only when commas). */
static inline unsigned arg_stops16(const char *p, bool commas)
{
	const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	const __m128i lo = _mm_or_si128(x, _mm_set1_epi8(0x20));   /* '[' ']' as '{' '}' */
	__m128i m = _mm_cmpeq_epi8(x, _mm_setzero_si128());
	m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('"')));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('\'')));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(_mm_and_si128(x, _mm_set1_epi8((char)0xfe)),
					   _mm_set1_epi8('(')));            /* '(' ')' */
	if (commas)
		m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8(',')));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('<')));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(lo, _mm_set1_epi8('{')));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(lo, _mm_set1_epi8('}')));
	return (unsigned)_mm_movemask_epi8(m);
}
#endif

/* The first '(' among the 32 bytes at p, NULL when there is none or a
 * NUL comes first; p is in a line from lr_next (the second 16 are loaded
 * only when the first hold no NUL: within LR_PAD of it). */
static inline const char *paren32(const char *p)
{
#if REPLAY_SSE2
	const __m128i po = _mm_set1_epi8('('), z = _mm_setzero_si128();
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, po), _mm_cmpeq_epi8(x, z)));
	if (!m) {
		p += 16;
		x = _mm_loadu_si128((const __m128i *)(const void *)p);
		m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, po), _mm_cmpeq_epi8(x, z)));
		if (!m)
			return NULL;
	}
	p += __builtin_ctz(m);
	return *p == '(' ? p : NULL;
#else
	for (int i = 0; i < 32 && p[i]; i++)
		if (p[i] == '(')
			return p + i;
	return NULL;
#endif
}

/* Past the bytes of a call name (AC_NAME: alnum, '_', '@', '.') at p, in
 * a line from lr_next; with SSE2 16 at a time (a load starts only after
 * name bytes, none of them the NUL: within LR_PAD of it). */
static inline const char *name_end(const char *p)
{
#if REPLAY_SSE2
	for (;;) {
		const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
		const __m128i lc = _mm_or_si128(x, _mm_set1_epi8(0x20));      /* A-Z as a-z */
		/* signed compares: bytes from 0x80 are negative, never inside */
		__m128i m = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
					  _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
		m = _mm_or_si128(m, _mm_and_si128(_mm_cmpgt_epi8(lc, _mm_set1_epi8('a' - 1)),
						  _mm_cmplt_epi8(lc, _mm_set1_epi8('z' + 1))));
		m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('_')));
		m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('@')));
		m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('.')));
		unsigned out = ~(unsigned)_mm_movemask_epi8(m) & 0xffffu;
		if (out)
			return p + __builtin_ctz(out);
		p += 16;
	}
#else
	while (ACLASS(*p) & AC_NAME)
		p++;
	return p;
#endif
}

/* The bytes scan_split stops at (NUL, quotes, brackets, ',' when it
 * splits, and '<'), from `at` on: with SSE2 those of 16 bytes at once,
 * kept as a mask until taken; elsewhere one byte at a time. */
struct stops {
	const char *at;
#if REPLAY_SSE2
	unsigned m;             /* stops among the 16 bytes at `at` not taken */
#endif
};

static inline void stops_from(struct stops *s, const char *p, bool commas)
{
	s->at = p;
#if REPLAY_SSE2
	s->m = arg_stops16(p, commas);
#else
	(void)commas;
#endif
}

/* The next stop (a NUL at the latest). */
static inline const char *stops_next(struct stops *s, bool commas)
{
#if REPLAY_SSE2
	while (!s->m) {
		s->at += 16;    /* no NUL among those: still within LR_PAD of it */
		s->m = arg_stops16(s->at, commas);
	}
	const char *c = s->at + __builtin_ctz(s->m);
	s->m &= s->m - 1;
	return c;
#else
	const char *c = s->at;
	while (!(ACLASS(*c) & (AC_NUL | AC_QUOTE | AC_LT | AC_OPEN | AC_CLOSE | (commas ? AC_COMMA : 0))))
		c++;
	s->at = c + 1;
	return c;
#endif
}

/* scan_args and split_args in one pass, for a call line read by lr_next
 * (lend: its terminating NUL, LR_PAD readable bytes after it; an
 * embedded NUL still ends the line).  Returns what scan_args returns;
 * when that is the closing ')', a[0..LMAXARGS) and *na are what
 * split_args gives for the text before it.  Loads never start past lend
 * (a stop after a quoted string is looked for from the byte after its
 * closing quote, at most lend).  Without split, only what scan_args
 * returns (its commas are no stops) and *na = -1: for a call whose
 * arguments are not read (inlined with split a constant). */
static inline __attribute__((always_inline)) const char *
scan_split(const char *p, const char *lend, bool *cut, struct larg *a, int *na, bool split)
{
	const char *st = p;
	int depth = 1, k = 0;
	struct stops s;

	*cut = false;
	stops_from(&s, p, split);
	for (;;) {
		const char *c = stops_next(&s, split);
		char ch = *c;
		if (ch == ',') {
			if (depth == 1) {
				if (k < LMAXARGS)
					a[k] = arg_trim(st, c);
				k++;
				st = c + 1;
			}
			continue;
		}
		if (!ch)
			return NULL;
		if (ch == '"' || ch == '\'') {
			c = quote_end(c + 1, lend, ch);
			if (!c)
				return NULL;
			stops_from(&s, c + 1, split);
			continue;
		}
		if (ch == '<') {
			if (cut_mark(c)) {
				*cut = true;
				return c;
			}
		} else if (ch == '(' || ch == '[' || ch == '{') {
			depth++;
		} else if (--depth == 0) {
			p = c;
			break;
		}
	}
	if (*p != ')')
		return NULL;
	if (!split) {
		*na = -1;
		return p;
	}
	struct larg last = arg_trim(st, p);
	if (!k && !last.n) {
		*na = 0;        /* "()" */
	} else {
		if (k < LMAXARGS)
			a[k] = last;
		*na = k + 1;
	}
	return p;
}

/* split_args for text padded as a line (its NUL at s[n], LR_PAD readable
 * bytes after it: a pending call's copy, a joined call), its stops found
 * 16 bytes at a time (stops_next); the rest (no NUL at s[n], one before
 * it) by split_args itself.  Its rules kept: commas split at depth <= 0
 * (a stray closing bracket makes it negative), a quote runs to its
 * closing one with a backslash taking the next byte, and an unclosed
 * quote ends the list without a last argument. */
static int split_padded(const char *s, size_t n, struct larg *a, int max)
{
	const char *end = s + n, *st = s;
	int na = 0, depth = 0;
	struct stops t;
	if (*end)
		return split_args(s, n, a, max);
	stops_from(&t, s, true);
	for (;;) {
		const char *c = stops_next(&t, true);
		char ch = *c;
		if (ch == ',' || !ch) {
			if (!ch && c != end)
				return split_args(s, n, a, max);
			if (depth > 0) {
				if (!ch)
					return na;
				continue;
			}
			struct larg g = c > st ? arg_trim(st, c) : (struct larg){ st, 0 };
			if (!ch && !g.n && !na)
				return 0;       /* "()" */
			if (na < max)
				a[na] = g;
			na++;
			if (!ch)
				return na;
			st = c + 1;
		} else if (ch == '"' || ch == '\'') {
			size_t i = (size_t)(c - s);
			for (i = scan_any2(s, n, i + 1, ch, '\\'); i < n && s[i] != ch;
			     i = scan_any2(s, n, i + 2, ch, '\\'))
				;
			if (i >= n)
				return na;
			stops_from(&t, s + i + 1, true);
		} else if (ch == '(' || ch == '[' || ch == '{') {
			depth++;
		} else if (ch != '<') {
			depth--;
		}
	}
}

/* Decode a quoted argument into out.  *trunc: printed cut ("..."). */
static int arg_string(const struct larg *a, char *out, size_t cap, bool *trunc)
{
	*trunc = false;
	if (a->n < 2 || a->s[0] != '"')
		return -EINVAL;
	size_t o = 0, i = 1;
	for (; i < a->n && a->s[i] != '"'; i++) {
		char c = a->s[i];
		if (c == '\\' && i + 1 < a->n) {
			c = a->s[++i];
			if (c >= '0' && c <= '7') {
				unsigned v = 0, k = 0;
				while (k < 3 && i < a->n && a->s[i] >= '0' && a->s[i] <= '7')
					v = v * 8 + (unsigned)(a->s[i++] - '0'), k++;
				i--;
				c = (char)v;
			} else if (c == 'n') {
				c = '\n';
			} else if (c == 't') {
				c = '\t';
			}
		}
		if (o + 1 < cap)
			out[o++] = c;
	}
	if (i >= a->n)
		return -EINVAL;
	out[o] = '\0';
	const char *rest = a->s + i + 1;
	size_t rn = a->n - i - 1;
	if (rn >= 3 && !strncmp(rest, "...", 3))
		*trunc = true;
	else if (o >= 3 && !strcmp(out + o - 3, "...")) {
		*trunc = true;
		out[o - 3] = '\0';
	}
	return 0;
}

/* Argument i as a number; every argument text is padded (a line, the
 * joined buffer, a pending call's copy): num_parse_p. */
static inline __attribute__((always_inline)) int arg_num(const struct larg *a, int na, int i, int64_t *v)
{
	if (i >= na || i >= LMAXARGS)
		return -EINVAL;
	return num_parse_p(a[i].s, a[i].n, v);
}

/* ------------------------------------------------------------------ */
/* line shapes                                                        */

enum lkind { LL_CALL, LL_UNFINISHED, LL_RESUMED };

struct lline {
	bool has_pid;
	int64_t pid;
	uint64_t tod;               /* clock value as printed (ns)      */
	enum lkind kind;
	const char *name;
	size_t namelen;
	const char *args;           /* argument text (continuation for LL_RESUMED) */
	size_t argslen;
	bool has_ret;
	int64_t ret;
	uint64_t dur;
	int na;                     /* LL_CALL: its arguments, split; -1 not split */
	struct larg a[LMAXARGS];
	size_t cix;                 /* LL_CALL, LL_UNFINISHED: the name's count entry, SIZE_MAX none yet */
};

struct fstate;
static inline __attribute__((always_inline)) size_t count_find(const struct fstate *s, const char *name,
							       size_t nl, bool *args, bool *plain);

/* The clock token at p ("HH:MM:SS.uuuuuu" decoded at once, anything else
 * by parse_clock).  Returns what follows it, or NULL. */
static const char *clock_token(const char *p, struct lline *l, const char **why)
{
	if (tx_clock15(p, &l->tod) && (p[15] == ' ' || p[15] == '\t' || !p[15]))
		return skip_ws(p + 15);
	const char *q = p;
	while (*q && *q != ' ' && *q != '\t')
		q++;
	if (parse_clock(p, (size_t)(q - p), &l->tod)) {
		*why = "expected a time 'HH:MM:SS.uuuuuu'";
		return NULL;
	}
	return skip_ws(q);
}

/* After a clock at p: NULL unless a blank or the line's end follows it,
 * else what follows the blanks (the usual one taken at once: p[16] is
 * then in the line). */
static inline const char *clock_blank(const char *p)
{
	if (!(p[15] == ' ' || p[15] == '\t' || !p[15]))
		return NULL;
	return p[15] && !(ACLASS(p[16]) & AC_WS) ? p + 16 : skip_ws(p + 15);
}

/* A line starting "HH:MM:SS.uuuuuu" and a blank or its end (nearly every
 * call line): its clock in *tod, and what follows the blanks; NULL for
 * anything else.  p has 15 readable bytes (a line from lr_next).  Most
 * lines fall in the same second as the one before (tx_clock15c). */
static inline const char *clock15_first(const char *p, uint64_t *tod, struct tx_hms *k)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	/* (tx_clock15n's little-endian way checks these bytes itself) */
	if (!tx_digit(p[0]) || !tx_digit(p[1]) || p[2] != ':')
		return NULL;
#endif
	if (!tx_clock15c(p, k, tod))
		return NULL;
	return clock_blank(p);
}

/* Optional "PID " or "[pid PID] " and the clock.  Returns the rest or NULL. */
static const char *parse_prefix(const char *p, struct lline *l, const char **why)
{
	l->has_pid = false;
	if (tx_digit(p[0]) && tx_digit(p[1]) && p[2] == ':')  /* no pid column: the clock */
		return clock_token(p, l, why);
	if (!strncmp(p, "[pid", 4)) {
		p = skip_ws(p + 4);
		const char *q = p;
		while (tx_digit(*q))
			q++;
		if (q == p || *q != ']' || num_parse(p, (size_t)(q - p), &l->pid)) {
			*why = "expected '[pid N]'";
			return NULL;
		}
		l->has_pid = true;
		p = skip_ws(q + 1);
	}
	const char *q = p;
	while (*q && *q != ' ' && *q != '\t')
		q++;
	if (!l->has_pid && q > p && !memchr(p, ':', (size_t)(q - p)) && !memchr(p, '.', (size_t)(q - p))) {
		/* a leading pid column (ltrace -f) */
		if (num_parse(p, (size_t)(q - p), &l->pid) || l->pid < 0) {
			*why = "expected a time 'HH:MM:SS.uuuuuu'";
			return NULL;
		}
		l->has_pid = true;
		p = skip_ws(q);
	}
	return clock_token(p, l, why);
}

/* After the ')' of a call: "= RET <SECS>"; p is in a line from lr_next
 * (padded).  The general reading; parse_result takes the usual line
 * first.  <SECS> is required: LANL-Trace runs ltrace with -T, which
 * prints it on every finished call, so a line without it is damaged
 * (its call's time would be a guess). */
static __attribute__((noinline)) int parse_result_gen(const char *p, struct lline *l, const char **why)
{
	/* the blanks of the usual ") = N <S.uuuuuu>" tested at once, any
	 * others skipped */
	p = p[0] == ' ' && p[1] == '=' ? p + 1 : skip_ws(p);
	l->has_ret = false;
	l->dur = 0;
	if (*p != '=') {
		*why = "expected '=' after ')'";
		return -EINVAL;
	}
	p = p[1] == ' ' && !(ACLASS(p[2]) & AC_WS) ? p + 2 : skip_ws(p + 1);
	const char *q = p;
	uint64_t v;
	/* the usual result: 1 to 15 decimal digits (no leading 0) then the
	 * token's end, its value 8 digits at a time (what num_parse gives) */
	unsigned k = scan_dec8(p, 8, &v);
	if (k == 8) {           /* an offset: 8 more, at most 15 in all */
		uint64_t v2;
		unsigned k2 = scan_dec8(p + 8, 8, &v2);
		v = v * scan_pow10[k2] + v2;
		k += k2;
	}
	if (k && k < 16 && (p[0] != '0' || k == 1) &&
	    (p[k] == ' ' || p[k] == '\t' || p[k] == '<' || !p[k])) {
		l->ret = (int64_t)v;
		l->has_ret = true;
		q = p + k;
		goto dur;
	}
	while (*q && *q != ' ' && *q != '\t' && *q != '<')
		q++;
	if (q == p) {
		*why = "expected a result after '='";
		return -EINVAL;
	}
	if (!(q - p == 1 && *p == '?')) {
		if (num_parse_p(p, (size_t)(q - p), &l->ret)) {
			*why = "expected a number after '='";
			return -EINVAL;
		}
		l->has_ret = true;
	}
dur:
	p = q[0] == ' ' && q[1] == '<' ? q + 1 : skip_ws(q);
	if (*p == '<') {
		uint64_t d;
		/* "<S.uuuuuu>": no blank to skip, no '>' before the one after it */
		if (tx_dur8(p + 1, &d) && p[9] == '>') {
			l->dur = d;
			return 0;
		}
		p = skip_ws(p + 1);
		q = strchr(p, '>');
		/* -T's usual "S.uuuuuu" at once, anything else the long way */
		if (!q || (!(q - p == 8 && tx_dur8(p, &l->dur)) &&
			   parse_secs(p, (size_t)(q - p), &l->dur))) {
			*why = "expected '<SECS>' after the result";
			return -EINVAL;
		}
		return 0;
	}
	*why = "expected '<SECS>' after the result (a LANL-Trace / ltrace -T line ends with"
	       " the call's duration)";
	return -EINVAL;
}

/* parse_result_gen's answer for the usual " = N <S.uuuuuu>" (N 1 to 15
 * digits, no leading 0), and for the "  = N <S.uuuuuu>" of a resumed
 * call, without the registers its other ways need; anything else is left
 * to it. */
static inline __attribute__((flatten)) int parse_result(const char *p, struct lline *l, const char **why)
{
	const char *r = p + (p[0] == ' ' && p[1] == ' ');    /* skip_ws's answer */
	if (r[0] == ' ' && r[1] == '=' && r[2] == ' ' && !(ACLASS(r[3]) & AC_WS)) {
		const char *n = r + 3;
		uint64_t v, d;
		unsigned k = scan_dec8(n, 8, &v);
		if (k == 8) {
			uint64_t v2;
			unsigned k2 = scan_dec8(n + 8, 8, &v2);
			v = v * scan_pow10[k2] + v2;
			k += k2;
		}
		const char *q = n + k;
		if (k && k < 16 && (n[0] != '0' || k == 1) && q[0] == ' ' && q[1] == '<' &&
		    tx_dur8(q + 2, &d) && q[10] == '>') {
			l->has_ret = true;
			l->ret = (int64_t)v;
			l->dur = d;
			return 0;
		}
	}
	return parse_result_gen(p, l, why);
}

/* The shape of a call line after its prefix (p), in a line from lr_next
 * whose NUL is at lend.  Returns 1 call, 0 nothing to do (signal/exit
 * line), -EINVAL + *why. */
static inline __attribute__((always_inline)) int call_body(const struct fstate *s, const char *p,
							    const char *lend, struct lline *l, const char **why)
{
	/* p is in a line (LR_PAD readable bytes after its NUL): the fixed
	 * words are compared with memcmp, a NUL in the line differing from
	 * them as it would for strncmp.  None of them starts with a byte of
	 * a name, as nearly every line does after its clock. */
	bool cut;
	if (!(ACLASS(*p) & AC_NAME)) {
		if (!*p || (*p == '-' && !memcmp(p, "---", 3)) || (*p == '+' && !memcmp(p, "+++", 3)))
			return 0;
		if (*p == '<' && !memcmp(p, "<...", 4)) {
			p = skip_ws(p + 4);
			const char *n = p;
			p += scan_any3(p, (size_t)(lend - p), 0, ' ', '>', '\0');
			l->name = n;
			l->namelen = (size_t)(p - n);
			p = skip_ws(p);
			if (memcmp(p, "resumed>", 8) || !l->namelen) {
				*why = "expected '<... NAME resumed>'";
				return -EINVAL;
			}
			p += 8;
			const char *end = scan_args(p, &cut);
			if (!end || cut) {
				*why = "expected ')' closing the resumed call";
				return -EINVAL;
			}
			l->kind = LL_RESUMED;
			l->args = p;
			l->argslen = (size_t)(end - p);
			return parse_result(end + 1, l, why) ? -EINVAL : 1;
		}
	}
	/* A name seen before up to the line's first '(' is what name_end
	 * would find, its bytes all AC_NAME (every name counted was read by
	 * name_end, a resumed call's by its start's: plain tests it all the
	 * same): its end and count entry at once.  Else the name's bytes are
	 * walked, and its entry looked up.  The arguments are split only for
	 * a call that reads them: one whose name is not known yet, or whose
	 * kind does (an unfinished call's are split again when it is
	 * resumed). */
	const char *n = p;
	bool args = true, plain = false;
	const char *q = paren32(n);
	if (q && q > n && (l->cix = count_find(s, n, (size_t)(q - n), &args, &plain)) != SIZE_MAX && plain) {
		p = q;
		l->name = n;
		l->namelen = (size_t)(p - n);
	} else {
		p = name_end(n);
		if (p == n || *p != '(') {
			*why = "expected 'NAME(' after the time";
			return -EINVAL;
		}
		l->name = n;
		l->namelen = (size_t)(p - n);
		args = true;
		l->cix = count_find(s, n, l->namelen < LMAXNAME ? l->namelen : LMAXNAME, &args, &plain);
	}
	p++;
	const char *end = args ? scan_split(p, lend, &cut, l->a, &l->na, true) :
				 scan_split(p, lend, &cut, l->a, &l->na, false);
	if (!end) {
		*why = "expected ')' closing the argument list";
		return -EINVAL;
	}
	l->args = p;
	l->argslen = (size_t)(end - p);
	/* end[-1] is the '(' when there are none: above ' ', as is the last
	 * byte of nearly every list; a blank (tx_space) is not */
	if ((unsigned char)end[-1] <= ' ')
		while (l->argslen && tx_space(p[l->argslen - 1]))
			l->argslen--;
	if (cut) {
		l->kind = LL_UNFINISHED;
		l->has_ret = false;
		return 1;
	}
	l->kind = LL_CALL;
	return parse_result(end + 1, l, why) ? -EINVAL : 1;
}

/* The shape of a call line (after comments/barriers were handled): a
 * line not starting with its clock, its own copy of call_body (the one
 * of clock-first lines is inlined in p2_line). */
static __attribute__((noinline)) int call_shape(const struct fstate *s, const char *line, const char *lend,
						struct lline *l, const char **why)
{
	const char *p = parse_prefix(skip_ws(line), l, why);
	if (!p)
		return -EINVAL;
	return call_body(s, p, lend, l, why);
}

/* l->name made a string in place (cut at LMAXNAME bytes; what follows
 * the name is not read again). */
static void name_terminate(char *line, struct lline *l, int k)
{
	if (k > 0) {
		size_t nl = l->namelen < LMAXNAME ? l->namelen : LMAXNAME;
		line[(size_t)(l->name - line) + nl] = '\0';
	}
}

/* "R: host (pid) Entered|Exited barrier at S.U" */
static bool parse_barrier_line(const char *p, int *rank, char *host, size_t hcap, int64_t *pid)
{
	const char *q = p;
	while (tx_digit(*q))
		q++;
	if (q == p || *q != ':' || q - p > 9)
		return false;
	const char *r = p;
	const char *h = skip_ws(q + 1);
	q = h + strcspn(h, " \t");
	if (q == h)
		return false;
	size_t hl = (size_t)(q - h);
	p = skip_ws(q);
	if (*p != '(')          /* a call line, not a barrier: nothing copied */
		return false;
	q = ++p;
	while (tx_digit(*q))
		q++;
	if (q == p || *q != ')' || num_parse(p, (size_t)(q - p), pid))
		return false;
	p = skip_ws(q + 1);
	if (strncmp(p, "Entered barrier", 15) && strncmp(p, "Exited barrier", 14))
		return false;
	*rank = atoi(r);
	if (hl >= hcap)
		hl = hcap - 1;
	memcpy(host, h, hl);
	host[hl] = '\0';
	return true;
}

/* ------------------------------------------------------------------ */
/* probe                                                              */

static int lanl_probe(const char *head, size_t len)
{
	int score = 0;
	size_t i = 0;
	char buf[512];
	for (int nl = 0; i < len && nl < 40; nl++) {
		size_t st = i;
		while (i < len && head[i] != '\n')
			i++;
		size_t n = i - st;
		bool complete = i < len;
		i++;
		if (!complete && nl > 0)
			break;
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, head + st, n);
		buf[n] = '\0';
		const char *p = skip_ws(buf);
		if (!*p || *p == '#')
			continue;
		int r;
		int64_t pid;
		char host[64];
		if (parse_barrier_line(p, &r, host, sizeof(host), &pid)) {
			if (score < 80)
				score = 80;
			continue;
		}
		struct lline l;
		const char *why;
		const char *rest = parse_prefix(p, &l, &why);
		if (!rest)
			continue;
		if (!strncmp(rest, "<... ", 5))
			rest += 5;
		if (!strncmp(rest, "SYS_", 4) || !strncmp(rest, "MPI_", 4) || !strncmp(rest, "MPIO_", 5))
			return 90;
	}
	return score;
}

/* ------------------------------------------------------------------ */
/* pass 1: classify files, find ranks                                 */

struct tentry {
	int rank;
	int64_t pid;
	char host[64];
	const char *src;
	unsigned long line;
};

struct lfile {
	const char *path;
	bool timing;                /* barrier lines only             */
	int inrank;                 /* rank from in-file barrier lines, -1; -2 several */
	int64_t colpid;             /* first pid column, -1           */
	bool has_tod;
	uint64_t first_tod;
	uint64_t calls;
	int rank;                   /* MPI rank, -1 unknown           */
	int64_t pid;                /* rank pid                       */
	char name[128];
	char host[64];              /* from the timing file's barrier lines, "" */
	uint32_t brank;
	unsigned day0;
};

struct lanl {
	struct trace_input *in;
	struct builder *b;
	struct rerr *e;
	struct tentry *t;
	size_t nt, tcap;
	struct lfile *f;
	size_t nf;
	int nto1;                   /* -1 unknown, 0 N-to-N, 1 N-to-1 (traced -type) */
	uint64_t next_id;
	uint64_t made_distinct;
	uint64_t shared_by_comm;    /* truncated names kept: MPI_COMM_WORLD open */
	uint64_t summary_mismatch;
	char summary_first[160];
};

static int bad_line(struct lanl *L, const char *src, unsigned long line, const char *what)
{
	return trace_bad_line(L->in, L->e, src, line, what);
}

static int add_tentry(struct lanl *L, int rank, const char *host, int64_t pid, const char *src, unsigned long line)
{
	for (size_t i = 0; i < L->nt; i++) {
		struct tentry *t = &L->t[i];
		if (t->rank != rank)
			continue;
		if (t->pid != pid || strcmp(t->host, host))
			return rerr_at(L->e, -EINVAL, src, line,
				       "rank %d is '%s (%" PRId64 ")' here but '%s (%" PRId64 ")' at %s:%lu",
				       rank, host, pid, t->host, t->pid, t->src, t->line);
		return 0;
	}
	if (L->nt == L->tcap) {
		size_t nc = L->tcap ? L->tcap * 2 : 32;
		void *p = realloc(L->t, nc * sizeof(*L->t));
		if (!p)
			return -ENOMEM;
		L->t = p;
		L->tcap = nc;
	}
	struct tentry *t = &L->t[L->nt++];
	*t = (struct tentry){ .rank = rank, .pid = pid, .src = src, .line = line };
	snprintf(t->host, sizeof(t->host), "%s", host);
	return 0;
}

/* "-type N" in a traced mpi_io_test command line (quoted or not). */
static void scan_type_option(struct lanl *L, const char *p)
{
	const char *q = strstr(p, "-type");
	if (!q)
		return;
	q += 5;
	while (*q == '"' || *q == '\'' || *q == ' ' || *q == '\t')
		q++;
	if (*q == '2')
		L->nto1 = 1;
	else if (*q == '1' && L->nto1 < 0)
		L->nto1 = 0;
}

/* Does p start "DD:" then 12 bytes above ' ' (no blank, no NUL), one ' '
 * or '\t', and a byte that is neither a blank skip_ws skips nor '('?
 * Then parse_barrier_line reads "DD" as a rank and the 12 bytes as a host
 * and finds no "(PID)" after them: not a barrier line (every -tt call
 * line of a LANL trace, its clock not even decoded).  p is in a line from
 * lr_next (LR_PAD readable bytes after its NUL): the two loads end 14
 * bytes past p, after p[0..2] were found to be no NUL. */
static inline bool clock_call_shape(const char *p)
{
	if (!tx_digit(p[0]) || !tx_digit(p[1]) || p[2] != ':')
		return false;
	uint64_t a, b;
	memcpy(&a, p + 3, 8);           /* bytes 3..10 */
	memcpy(&b, p + 7, 8);           /* bytes 7..14 */
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	/* a byte below 0x21 in either: a blank, a control byte or the NUL */
	if (((a - 0x21 * ones) & ~a & high) | ((b - 0x21 * ones) & ~b & high))
		return false;
	return (p[15] == ' ' || p[15] == '\t') && p[16] != ' ' && p[16] != '\t' && p[16] != '\r' &&
	       p[16] != '(';
}

/* One line of pass 1 (NUL-terminated, LR_PAD readable bytes after it):
 * 0 go on, 1 the summary table starts (stop), -errno. */
static int p1_line(struct lanl *L, struct lfile *f, const char *line, unsigned long lineno,
		   uint64_t *barriers)
{
	const char *p = skip_ws(line);
	if (*p == '#') {
		if (strstr(p, "SUMMARY COUNT OF TRACED CALL"))
			return 1;
		scan_type_option(L, p);
		return 0;
	}
	int r;
	int64_t pid;
	char host[64];
	/* a clock-first call line is no barrier line, and adds nothing
	 * once a call and a time are known */
	if (f->calls && f->has_tod && clock_call_shape(p))
		return 0;
	if (parse_barrier_line(p, &r, host, sizeof(host), &pid)) {
		int rc = add_tentry(L, r, host, pid, f->path, lineno);
		if (rc)
			return rc;
		(*barriers)++;
		if (f->inrank == -1)
			f->inrank = r;
		else if (f->inrank != r)
			f->inrank = -2;
		return 0;
	}
	/* a clock-first line (no pid column) once a call and a time
	 * are known adds nothing: calls is only tested for 0 */
	if (f->calls && f->has_tod && tx_digit(p[0]) && tx_digit(p[1]) && p[2] == ':')
		return 0;
	struct lline l;
	const char *why;
	if (*p && parse_prefix(p, &l, &why)) {
		f->calls++;
		if (l.has_pid && f->colpid < 0)
			f->colpid = l.pid;
		if (!f->has_tod) {
			f->has_tod = true;
			f->first_tod = l.tod;
		}
	}
	return 0;
}

/* The '\n's of a block from lr_next_block (its last byte is one), in
 * order.  With SSE2 from a mask of 64 bytes at a time, taken a bit at a
 * time: four compares per 64 bytes where memchr was a call per line; the
 * block's last bytes (under 64 after the mask's), and other CPUs, by
 * memchr.  The readers write a NUL only over a '\n' taken and inside the
 * line before it, never over one still in the mask. */
struct nlscan {
	char *at;               /* the mask's 64 bytes start here */
	char *end;              /* the block's last '\n' */
#if REPLAY_SSE2
	uint64_t m;             /* the '\n's among them not yet taken */
#endif
};

#if REPLAY_SSE2
static inline uint64_t nl_mask64(const char *p)
{
	const __m128i nl = _mm_set1_epi8('\n');
	uint64_t m[4];
	for (int i = 0; i < 4; i++)
		m[i] = (uint64_t)_mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i)), nl));
	return m[0] | m[1] << 16 | m[2] << 32 | m[3] << 48;
}
#endif

static inline void nl_start(struct nlscan *s, char *blk, char *end)
{
	s->at = blk;
	s->end = end;
#if REPLAY_SSE2
	s->m = end - blk >= 63 ? nl_mask64(blk) : 0;
#endif
}

/* The next '\n' of the block, from `from` (just past the last one
 * taken, or the block's start). */
static inline char *nl_next(struct nlscan *s, char *from)
{
#if REPLAY_SSE2
	while (!s->m) {
		if (s->end - s->at < 127)       /* no 64 bytes after these */
			return memchr(from, '\n', (size_t)(s->end - from) + 1);
		s->at += 64;
		s->m = nl_mask64(s->at);
	}
	char *nl = s->at + __builtin_ctzll(s->m);
	s->m &= s->m - 1;
	return nl;
#else
	return memchr(from, '\n', (size_t)(s->end - from) + 1);
#endif
}

/* Pass 1 reads the lines buffered a block at a time (lr_next_block: the
 * same lines lr_next would give, without a call per line); each is cut
 * at its '\n' in place.  lr.lineno counts only the lines lr_next gave
 * (at a refill, or an over-long line), inblocks the others. */
static int pass1_file(struct lanl *L, struct lfile *f)
{
	struct linereader lr;
	int rc = lr_open(&lr, f->path);
	if (rc)
		return rerr_set(L->e, rc, "cannot open '%s': %s", f->path, strerror(-rc));
	uint64_t barriers = 0;
	unsigned long inblocks = 0;
	f->inrank = -1;
	f->colpid = -1;
	f->rank = -1;
	char *blk;
	size_t len;
	while ((rc = lr_next_block(&lr, &blk, &len)) != 0) {
		if (rc == -E2BIG)
			continue;
		if (rc < 0) {
			rerr_set(L->e, rc, "cannot read '%s': %s", f->path, strerror(-rc));
			goto out;
		}
		if (blk[len] != '\n') {        /* one line from lr_next */
			rc = p1_line(L, f, blk, inblocks + lr.lineno, &barriers);
		} else {
			char *e = blk + len;
			struct nlscan ns;
			nl_start(&ns, blk, e);
			rc = 0;
			for (char *ln = blk; !rc; ln++) {
				char *nl = nl_next(&ns, ln);
				*nl = '\0';
				inblocks++;
				/* p1_line's first test, without the call */
				if (f->calls && f->has_tod && clock_call_shape(ln))
					rc = 0;
				else
					rc = p1_line(L, f, ln, inblocks + lr.lineno, &barriers);
				if (nl == e)
					break;
				ln = nl;
			}
		}
		if (rc > 0)
			break;
		if (rc < 0)
			goto out;
	}
	rc = 0;
	f->timing = barriers && !f->calls;
out:
	lr_close(&lr);
	return rc;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Does the file name carry pid (as a '.'/'_'/'-' separated token)? */
static bool name_has_pid(const char *path, int64_t pid)
{
	const char *s = base_name(path);
	while (*s) {
		while (*s && !tx_digit(*s))
			s++;
		const char *q = s;
		while (tx_digit(*q))
			q++;
		if (q > s) {
			bool lsep = s == base_name(path) || strchr("._-", s[-1]);
			bool rsep = !*q || strchr("._-", *q);
			int64_t v;
			if (lsep && rsep && !num_parse(s, (size_t)(q - s), &v) && v == pid)
				return true;
		}
		s = q;
	}
	return false;
}

static bool name_has_host(const char *path, const char *host)
{
	size_t hl = strcspn(host, ".");
	return hl && !strncmp(base_name(path), host, hl);
}

static void rank_name(char *out, size_t cap, const char *host, int64_t pid)
{
	int hl = (int)strcspn(host, ".");
	snprintf(out, cap, "%.*s.%" PRId64, hl, host, pid);
}

static int cmp_file_rank(const void *a, const void *b)
{
	const struct lfile *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void note_add(struct trace_input *in, const char *s)
{
	size_t n = strlen(in->note);
	if (n + 3 >= sizeof(in->note))
		return;
	snprintf(in->note + n, sizeof(in->note) - n, "%s%s", n ? "; " : "", s);
}

static bool rank_used(const struct lanl *L, int r)
{
	for (size_t i = 0; i < L->nt; i++)
		if (L->t[i].rank == r)
			return true;
	for (size_t i = 0; i < L->nf; i++)
		if (L->f[i].rank == r)
			return true;
	return false;
}

/* Rank name and pid from a file name "<host>[.domain].<pid>[.suffix]"
 * (the last all-digit '.'-separated token after the first is the pid),
 * else the file's base name with its pid column or a synthetic pid. */
static void name_from_file(struct lanl *L, struct lfile *f, size_t idx)
{
	const char *bn = base_name(f->path);
	const char *dot = strchr(bn, '.');
	const char *pidtok = NULL;
	int64_t pid = -1;
	while (dot) {
		const char *t = dot + 1;
		size_t tl = strcspn(t, ".");
		int64_t v;
		if (tl && strspn(t, "0123456789") == tl && (t[0] != '0' || tl == 1) &&
		    !num_parse(t, tl, &v)) {
			pidtok = dot;
			pid = v;
		}
		dot = strchr(t, '.');
	}
	if (pidtok) {
		int hl = (int)strcspn(bn, ".");
		snprintf(f->name, sizeof(f->name), "%.*s.%" PRId64, hl, bn, pid);
	} else {
		pid = f->colpid >= 0 ? f->colpid : SYNTH_PID + (int64_t)idx;
		snprintf(f->name, sizeof(f->name), "%s", bn);
	}
	f->pid = pid;
	for (size_t j = 0; j < L->nf; j++)
		if (&L->f[j] != f && L->f[j].rank >= 0 && L->f[j].pid == pid && L->f[j].name[0]) {
			f->pid = SYNTH_PID + (int64_t)idx;
			break;
		}
	for (size_t j = 0; j < L->nt; j++)
		if (L->t[j].pid == f->pid)
			f->pid = SYNTH_PID + (int64_t)idx;
}

/* Give every trace file a rank; drop timing files from the list. */
/* Keep only files with LANL-Trace call lines (one file: its lines say
 * what is wrong).  -EINVAL when none is left. */
static int keep_trace_files(struct lanl *L, bool *have_tfile)
{
	size_t k = 0, ignored = 0;
	*have_tfile = false;
	for (size_t i = 0; i < L->nf; i++)
		if (L->f[i].calls || (L->nf == 1 && !L->f[i].timing))
			L->f[k++] = L->f[i];
		else if (L->f[i].timing)
			*have_tfile = true;
		else {
			ignored++;      /* e.g. a README next to the traces */
			int rc = trace_skipped_file(L->in, L->f[i].path, L->e);
			if (rc)
				return rc;
		}
	if (ignored && k) {
		char buf[96];
		snprintf(buf, sizeof(buf), "%zu files without LANL-Trace lines ignored", ignored);
		note_add(L->in, buf);
	}
	L->nf = k;
	if (!L->nf)
		return rerr_set(L->e, -EINVAL, "'%s'%s: expected LANL-Trace call lines "
				"('HH:MM:SS.uuuuuu SYS_...')%s", L->in->files[0],
				L->in->nfiles > 1 ? " and the other files" : "",
				*have_tfile ? ", found only barrier lines" : "");
	return 0;
}

/* The timing-file entry of f: by its in-file rank, by host and pid in its
 * name, by pid alone, by its pid column.  *nfound: how many matched. */
static int timing_entry(const struct lanl *L, const struct lfile *f, int *nfound)
{
	int found = -1;
	*nfound = 0;
	if (f->inrank >= 0)
		for (size_t j = 0; j < L->nt; j++)
			if (L->t[j].rank == f->inrank)
				found = (int)j, *nfound = 1;
	for (int pass = 0; pass < 2 && *nfound != 1; pass++) {
		*nfound = 0;
		for (size_t j = 0; j < L->nt; j++)
			if (name_has_pid(f->path, L->t[j].pid) &&
			    (pass || name_has_host(f->path, L->t[j].host)))
				found = (int)j, (*nfound)++;
	}
	if (*nfound != 1 && f->colpid >= 0) {
		*nfound = 0;
		for (size_t j = 0; j < L->nt; j++)
			if (L->t[j].pid == f->colpid)
				found = (int)j, (*nfound)++;
	}
	return found;
}

/* No timing file, some files without barrier lines: the free rank
 * numbers, in file-name order. */
static void number_unmatched(struct lanl *L)
{
	size_t unmatched = 0;
	int next = 0;
	for (size_t i = 0; i < L->nf; i++) {
		struct lfile *f = &L->f[i];
		if (f->rank >= 0)
			continue;
		while (rank_used(L, next))
			next++;
		f->rank = next++;
		name_from_file(L, f, i);
		unmatched++;
	}
	if (unmatched) {
		char buf[160];
		snprintf(buf, sizeof(buf), "no LANL timing file: %zu trace files without barrier lines "
			 "numbered in file-name order", unmatched);
		note_add(L->in, buf);
	}
}

/* The ranks the timing file lists that no trace file was given for (an
 * admin may give a subset on purpose): info keys, which every command
 * that loads the trace turns into a warning (lanl_missing_warning).  The
 * files are sorted by rank; every one matched a listed rank. */
static int missing_ranks(struct lanl *L)
{
	char v[600], num[32];
	size_t n = 0, listed = 0, missing = 0;
	v[0] = 0;
	for (size_t j = 0; j < L->nt; j++) {
		size_t lo = 0, hi = L->nf;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (L->f[mid].rank < L->t[j].rank)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < L->nf && L->f[lo].rank == L->t[j].rank)
			continue;
		missing++;
		if (n + 100 < sizeof(v)) {      /* the rest counted */
			n += (size_t)snprintf(v + n, sizeof(v) - n, "%srank %d (%s, pid %" PRId64 ")",
					      n ? ", " : "", L->t[j].rank, L->t[j].host, L->t[j].pid);
			listed++;
		}
	}
	if (missing > listed)
		snprintf(v + n, sizeof(v) - n, ", and %zu more", missing - listed);
	int rc = builder_info(L->b, "lanl_timing_file", L->t[0].src);
	snprintf(num, sizeof(num), "%zu", L->nt);
	if (!rc)
		rc = builder_info(L->b, "lanl_timing_ranks", num);
	snprintf(num, sizeof(num), "%zu", missing);
	if (!rc)
		rc = builder_info(L->b, "lanl_ranks_missing", num);
	if (!rc)
		rc = builder_info(L->b, "lanl_missing", v);
	return rc ? rerr_set(L->e, rc, "cannot record trace info: %s", strerror(-rc)) : 0;
}

/* Ranks from the barrier lines (a timing file, or the files' own). */
static int ranks_from_barriers(struct lanl *L, bool have_tfile)
{
	for (size_t i = 0; i < L->nf; i++) {
		struct lfile *f = &L->f[i];
		int nfound;
		int found = timing_entry(L, f, &nfound);
		if (nfound != 1 && !have_tfile) {
			f->rank = -1;   /* only in-file barrier lines: numbered below */
			continue;
		}
		if (nfound != 1)
			return rerr_set(L->e, -EINVAL,
					"cannot match '%s' to a rank of the timing file: %s",
					f->path, nfound ? "its pid matches several ranks"
							: "no rank's pid in its name, pid column or barrier lines");
		f->rank = L->t[found].rank;
		f->pid = L->t[found].pid;
		rank_name(f->name, sizeof(f->name), L->t[found].host, f->pid);
		snprintf(f->host, sizeof(f->host), "%s", L->t[found].host);
	}
	number_unmatched(L);
	qsort(L->f, L->nf, sizeof(*L->f), cmp_file_rank);
	for (size_t i = 1; i < L->nf; i++)
		if (L->f[i].rank == L->f[i - 1].rank)
			return rerr_set(L->e, -EINVAL, "'%s' and '%s' are both rank %d",
					L->f[i - 1].path, L->f[i].path, L->f[i].rank);
	return L->nf < L->nt ? missing_ranks(L) : 0;
}

static int assign_ranks(struct lanl *L)
{
	bool have_tfile;
	int rc = keep_trace_files(L, &have_tfile);
	if (rc)
		return rc;
	if (L->nt) {
		rc = ranks_from_barriers(L, have_tfile);
		if (rc)
			return rc;
	} else {
		/* documented recovery: no timing file -> file-name order */
		for (size_t i = 0; i < L->nf; i++) {
			L->f[i].rank = (int)i;
			name_from_file(L, &L->f[i], i);
		}
		if (L->nf > 1)
			note_add(L->in, "no LANL timing file: ranks numbered in file-name order");
	}
	/* runs crossing midnight: a file starting more than 12 h before the
	 * latest start began the next day */
	uint64_t maxt = 0;
	for (size_t i = 0; i < L->nf; i++)
		if (L->f[i].has_tod && L->f[i].first_tod > maxt)
			maxt = L->f[i].first_tod;
	for (size_t i = 0; i < L->nf; i++)
		L->f[i].day0 = L->f[i].has_tod && L->f[i].first_tod + DAY_NS / 2 < maxt && maxt < DAY_NS;
	return 0;
}

/* ------------------------------------------------------------------ */
/* pass 2: calls                                                      */

struct areq {                   /* async submit waiting for MPIO_Wait */
	int64_t pid;
	int64_t addr;               /* request address, -1 not yet known */
	uint64_t id;
	int64_t bytes;              /* SC_RET_UNKNOWN when not traced    */
	bool pending;               /* nested in an unfinished MPI call  */
};

struct lpend {                  /* an <unfinished ...> call          */
	int64_t pid;
	char *name;
	char *args;
	size_t argslen;             /* strlen(args)                      */
	size_t cap;                 /* of the block name and args are in */
	uint64_t ts;
	unsigned long line;
	uint64_t nested;            /* async submits made inside it      */
	size_t cix;                 /* its name's count entry (as struct call's) */
};

struct scall;
enum { CK_NEW = 0, CK_SYS, CK_MPI, CK_OTHER };
/* What sys_rw and do_mpi test of a call's name, found at its first call */
enum { NF_RD = 1, NF_VEC = 2,                           /* SYS_ read/write */
       NF_IREAD = 4, NF_IWRITE = 8, NF_AT = 16, NF_WAIT = 32, NF_BARRIER = 64 };  /* MPI */

struct fstate {
	struct lanl *L;
	struct lfile *f;
	const char *src;
	uint64_t last_tod, day, last_emit;
	bool clock_started;
	struct lpend *pend;
	size_t npend, pcap;
	char *spare;                /* a dropped call's block, for the next */
	size_t sparecap;
	struct areq *rq;
	size_t nrq, rqcap;
	int64_t *mpifds;            /* fds opened inside MPI_File_open   */
	size_t nmpifds, mfcap;
	int64_t fh_addr, fh_fd;     /* last fh -> fd association          */
	struct scount {         /* calls by name (the summary cross-check) */
		char name[128];
		size_t len;         /* strlen(name)                        */
		uint64_t w[2];      /* scan_words16(name, len)             */
		uint64_t n;
		int kind;           /* CK_*, found at the name's first call */
		int (*sys)(struct scall *x);    /* CK_SYS: its handler, NULL none */
		unsigned flags;     /* NF_*: what the handlers test of the name */
		bool args;          /* its handler reads the arguments (CK_NEW: may) */
		bool plain;         /* every byte of name is AC_NAME (name_end's) */
	} *cnt;
	size_t ncnt, ccap;
	uint32_t *chash;            /* cnt index + 1 by name, open addressing */
	size_t chcap;
	char path[4096], path2[4096], tmp[4096];   /* decoded names of one call */
};

static int grow(void **p, size_t *cap, size_t need, size_t sz)
{
	return trace_grow(p, cap, need, sz, 16);
}

static uint64_t clock_ts(struct fstate *s, uint64_t tod)
{
	if (tod >= DAY_NS)          /* epoch seconds (-ttt) */
		return tod;
	if (!s->clock_started) {
		s->clock_started = true;
		s->day = s->f->day0;
	} else if (tod + DAY_NS / 2 < s->last_tod) {
		s->day++;           /* crossed midnight */
	}
	s->last_tod = tod;
	return s->day * DAY_NS + tod;
}

/* The index slot of a call name from its first 16 bytes as two words
 * (scan_words16: most names, SYS_pwrite64 or MPI_File_read_at, are whole
 * in them, so a name is looked up by two compares and its length, not a
 * hash of its bytes and a memcmp; a longer one is told from others with
 * its first 16 bytes by memcmp) and its length. */
static inline size_t name_slot(const uint64_t w[2], size_t n, size_t cap)
{
	uint64_t h = (w[0] ^ (w[1] * 0x9e3779b97f4a7c15ull) ^ n) * 0xff51afd7ed558ccdull;
	return (size_t)(h ^ h >> 32) & (cap - 1);
}

/* Rebuild the name index at twice the size. */
static int count_rehash(struct fstate *s)
{
	size_t cap = s->chcap ? s->chcap * 2 : 64;
	uint32_t *h = calloc(cap, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < s->ncnt; i++) {
		size_t j = name_slot(s->cnt[i].w, s->cnt[i].len, cap);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = (uint32_t)i + 1;
	}
	free(s->chash);
	s->chash = h;
	s->chcap = cap;
	return 0;
}

/* The entry of a call name (nl bytes, no NUL among them; LR_PAD readable
 * bytes after them, as in a line) in s->cnt without counting it,
 * SIZE_MAX when it has none; *args: whether its calls' arguments are
 * read, *plain: whether its bytes are all AC_NAME (both left as they are
 * when it has none). */
static inline __attribute__((always_inline)) size_t count_find(const struct fstate *s, const char *name,
							       size_t nl, bool *args, bool *plain)
{
	if (!s->chcap)
		return SIZE_MAX;
	uint64_t w[2];
	scan_words16(name, nl, w);
	for (size_t j = name_slot(w, nl, s->chcap); s->chash[j]; j = (j + 1) & (s->chcap - 1)) {
		const struct scount *c = &s->cnt[s->chash[j] - 1];
		if (c->len == nl && c->w[0] == w[0] && c->w[1] == w[1] &&
		    (nl <= 16 || !memcmp(c->name + 16, name + 16, nl - 16))) {
			*args = c->args;
			*plain = c->plain;
			return s->chash[j] - 1;
		}
	}
	return SIZE_MAX;
}

/* Count a call by name (nl bytes, its strlen); *ix: its entry in s->cnt. */
static int count_call(struct fstate *s, const char *name, size_t nl, size_t *ix)
{
	if (s->ncnt * 2 >= s->chcap) {
		int rc = count_rehash(s);
		if (rc)
			return rc;
	}
	uint64_t w[2];
	scan_words16(name, nl, w);
	size_t j = name_slot(w, nl, s->chcap);
	for (; s->chash[j]; j = (j + 1) & (s->chcap - 1)) {
		struct scount *c = &s->cnt[s->chash[j] - 1];
		if (c->len == nl && c->w[0] == w[0] && c->w[1] == w[1] &&
		    (nl <= 16 || !memcmp(c->name + 16, name + 16, nl - 16))) {
			*ix = s->chash[j] - 1;
			c->n++;
			return 0;
		}
	}
	int rc = grow((void **)&s->cnt, &s->ccap, s->ncnt + 1, sizeof(*s->cnt));
	if (rc)
		return rc;
	struct scount *c = &s->cnt[s->ncnt];
	*c = (struct scount){ .n = 1, .kind = CK_NEW, .args = true };
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->len = strlen(c->name);
	scan_words16(c->name, c->len, c->w);
	c->plain = c->len > 0;
	for (size_t i = 0; i < c->len; i++)
		c->plain &= (ACLASS(c->name[i]) & AC_NAME) != 0;
	s->chash[j] = (uint32_t)s->ncnt + 1;
	*ix = s->ncnt++;
	return 0;
}

static int emit(struct fstate *s, struct sc_event *ev)
{
	if (ev->ts_ns < s->last_emit)
		ev->ts_ns = s->last_emit;
	s->last_emit = ev->ts_ns;
	return builder_event(s->L->b, ev, s->L->e);
}

struct call {
	int64_t pid;
	const char *name;           /* as traced                         */
	size_t namelen;             /* strlen(name)                      */
	const char *args;
	size_t argslen;
	bool has_ret;
	int64_t ret;
	uint64_t ts, dur;
	unsigned long line;
	struct lpend *pend;         /* its <unfinished> record, or NULL  */
	const struct larg *a;       /* its arguments split (a line's), or NULL */
	int na;
	size_t cix;                 /* its name's count entry, SIZE_MAX not looked up */
};

/* The innermost pending call of pid whose name starts with prefix (a
 * literal, shorter than LR_PAD: the names' blocks have that many bytes
 * after their NUL, where a shorter name differs from it as strncmp would
 * find). */
static inline struct lpend *pend_find_mpi(struct fstate *s, int64_t pid, const char *prefix)
{
	for (size_t i = s->npend; i-- > 0;)
		if (s->pend[i].pid == pid && !memcmp(s->pend[i].name, prefix, strlen(prefix)))
			return &s->pend[i];
	return NULL;
}

/* Path for an open: quoted arg i, else the path of an enclosing libc
 * open() of the same pid (ltrace -S on x86_64 prints SYS_openat's path as
 * an address). */
static bool open_path(struct fstate *s, const struct call *c, const struct larg *a, int na, int i,
		      char *out, size_t cap, bool *trunc)
{
	if (i < na && i < LMAXARGS && !arg_string(&a[i], out, cap, trunc))
		return true;
	for (size_t k = s->npend; k-- > 0;) {
		struct lpend *p = &s->pend[k];
		if (p->pid != c->pid || !strncmp(p->name, "SYS_", 4) || !strstr(p->name, "open"))
			continue;
		if (!strncmp(p->name, "MPI_", 4))
			break;
		struct larg pa[LMAXARGS];
		int pn = split_padded(p->args, strlen(p->args), pa, LMAXARGS);
		for (int j = 0; j < pn && j < LMAXARGS; j++)
			if (!arg_string(&pa[j], out, cap, trunc))
				return true;
	}
	return false;
}

static void mpifd_del(struct fstate *s, int64_t fd)
{
	for (size_t i = 0; i < s->nmpifds; i++)
		if (s->mpifds[i] == fd) {
			s->mpifds[i] = s->mpifds[--s->nmpifds];
			break;
		}
	if (s->fh_fd == fd)
		s->fh_addr = s->fh_fd = -1;
}

/* Is a truncated name opened by this call the N-to-1 shared file?  Yes
 * when the traced command line said -type 2; no when it said -type 1;
 * else yes when the open is inside an MPI_File_open on MPI_COMM_WORLD
 * (91 in MPICH-1, 0x44000000 in MPICH-2 and later); else no. */
static bool truncated_shared(struct fstate *s, const struct call *c)
{
	if (s->L->nto1 >= 0)
		return s->L->nto1 == 1;
	struct lpend *m = pend_find_mpi(s, c->pid, "MPI_File_open");
	if (!m)
		return false;
	struct larg a[LMAXARGS];
	int64_t comm;
	int na = split_padded(m->args, strlen(m->args), a, LMAXARGS);
	if (arg_num(a, na, 0, &comm))
		return false;
	if (comm == 91 || comm == 0x44000000) {
		s->L->shared_by_comm++;
		return true;
	}
	return false;
}

static int add_req(struct fstate *s, int64_t pid, int64_t addr, uint64_t id, int64_t bytes, bool pending)
{
	int rc = grow((void **)&s->rq, &s->rqcap, s->nrq + 1, sizeof(*s->rq));
	if (rc)
		return rc;
	s->rq[s->nrq++] = (struct areq){ pid, addr, id, bytes, pending };
	return 0;
}

static int bad_args(struct fstate *s, const struct call *c)
{
	char msg[160];
	snprintf(msg, sizeof(msg), "expected the arguments of %.40s in '%.40s(%.*s)'", c->name, c->name,
		 (int)(c->argslen > 60 ? 60 : c->argslen), c->args);
	return bad_line(s->L, s->src, c->line, msg);
}

/* ---- SYS_ calls: a row per name, a small handler per kind of call ------ */

/* One SYS_ call being decoded. */
struct scall {
	struct fstate *s;
	const struct call *c;
	struct sc_event *ev;
	const char *n;           /* the name without "SYS_"                */
	unsigned flags;          /* NF_* of the name                       */
	const struct larg *a;    /* its arguments (the line's split, or own) */
	int na;
	struct larg own[LMAXARGS];
};

enum { SYS_EMIT = 0, SYS_ARGS = 1, SYS_SKIP = 2 };  /* handler results >= 0 */

static inline __attribute__((always_inline)) int num_at(const struct scall *x, int k, int64_t *v)
{
	return arg_num(x->a, x->na, k, v);
}

/* open/open64/creat/openat(path, flags, mode): a truncated N-to-N name is
 * made distinct per rank; an fd opened inside MPI_File_open is noted. */
static int sys_open(struct scall *x)
{
	struct fstate *s = x->s;
	struct sc_event *ev = x->ev;
	char *path = s->path, *tmp = s->tmp;
	int pi = !strcmp(x->n, "openat") ? 1 : 0;
	bool tr = false;
	int64_t v;
	ev->call = SC_OPEN;
	if (pi && !num_at(x, 0, &v) && v != SC_AT_FDCWD)
		ev->dirfd = v;
	if (!strcmp(x->n, "creat")) {
		ev->flags = O_CREAT | O_WRONLY | O_TRUNC;
		if (!num_at(x, 1, &v))
			ev->mode = v;
	} else {
		if (!num_at(x, pi + 1, &v))
			ev->flags = v & ~(int64_t)I386_O_LARGEFILE;
		if (!num_at(x, pi + 2, &v))
			ev->mode = v;
	}
	if (open_path(s, x->c, x->a, x->na, pi, path, sizeof(s->path), &tr)) {
		if (tr && !truncated_shared(s, x->c)) {
			int k = snprintf(tmp, sizeof(s->tmp), "%s.rank%d", path, s->f->rank);
			if (k < 0 || (size_t)k >= sizeof(s->tmp))
				return SYS_ARGS;
			memcpy(path, tmp, sizeof(s->path));
			ev->path_flags = OPSP_TRUNCATED_NAME;
			s->L->made_distinct++;
		}
		ev->path = path;
	}
	if (x->c->has_ret && x->c->ret >= 0 && pend_find_mpi(s, x->c->pid, "MPI_File_open")) {
		int rc = grow((void **)&s->mpifds, &s->mfcap, s->nmpifds + 1, sizeof(int64_t));
		if (rc)
			return rc;
		s->mpifds[s->nmpifds++] = x->c->ret;
	}
	return emit(s, ev);
}

static int sys_close(struct scall *x)
{
	x->ev->call = SC_CLOSE;
	if (num_at(x, 0, &x->ev->fd))
		return SYS_ARGS;
	if (!x->c->has_ret || x->c->ret == 0)
		mpifd_del(x->s, x->ev->fd);
	return emit(x->s, x->ev);
}

/* The I/O behind a nonblocking MPI call: an async submit whose bytes the
 * MPIO_Wait reports. */
static int as_mpi_submit(struct scall *x, struct lpend *m, bool rd)
{
	struct sc_event *ev = x->ev;
	ev->call = rd ? SC_AREAD : SC_AWRITE;
	ev->async_id = ++x->s->L->next_id;
	int64_t bytes = ev->ret;
	ev->ret = SC_RET_UNKNOWN;
	m->nested++;
	return add_req(x->s, x->c->pid, -1, ev->async_id, bytes, true);
}

/* read/write[64], readv/writev, pread/pwrite[64], preadv/pwritev */
static int sys_rw(struct scall *x)
{
	struct sc_event *ev = x->ev;
	const char *n = x->n;
	bool rd = x->flags & NF_RD, vec = x->flags & NF_VEC;
	int64_t v, v2;
	if (num_at(x, 0, &ev->fd) || num_at(x, 2, &v))
		return SYS_ARGS;
	if (vec) {
		ev->iovcnt = v > 0 && v < UINT32_MAX ? (uint32_t)v : 1;
		ev->len = x->c->has_ret && x->c->ret > 0 ? (uint64_t)x->c->ret : 0;
	} else {
		if (v < 0)
			return SYS_ARGS;
		ev->len = (uint64_t)v;
		if (x->c->has_ret && x->c->ret > v) {
			/* a transfer never returns more than its count: the
			 * position would move by a number nothing did */
			char msg[160];
			snprintf(msg, sizeof(msg), "SYS_%.40s returned %" PRId64 ", more than the %"
				 PRId64 " bytes it was asked for", n, x->c->ret, v);
			return bad_line(x->s->L, x->s->src, x->c->line, msg);
		}
	}
	if (n[0] == 'p') {
		if (num_at(x, 3, &v))
			return SYS_ARGS;
		/* i386 raw pread64: offset as two 32-bit halves */
		if (x->na == 5 && !num_at(x, 4, &v2) && v2 >= 0 && v2 <= UINT32_MAX)
			v = (int64_t)((uint64_t)v2 << 32 | (uint32_t)v);
		if (v < 0 && x->c->has_ret && x->c->ret >= 0)
			return SYS_ARGS;        /* succeeded at a negative offset? */
		ev->offset = v;
	}
	ev->call = rd ? SC_READ : SC_WRITE;
	struct lpend *m = rd ? pend_find_mpi(x->s, x->c->pid, "MPI_File_iread") :
			       pend_find_mpi(x->s, x->c->pid, "MPI_File_iwrite");
	if (m) {
		int rc = as_mpi_submit(x, m, rd);
		if (rc)
			return rc;
	}
	return emit(x->s, ev);
}

static int sys_lseek(struct scall *x)
{
	int64_t v;
	x->ev->call = SC_LSEEK;
	if (num_at(x, 0, &x->ev->fd) || num_at(x, 1, &x->ev->offset) || num_at(x, 2, &v))
		return SYS_ARGS;
	x->ev->whence = (int)v;
	return emit(x->s, x->ev);
}

/* _llseek(fd, hi, lo, &result, whence) = 0: the result is behind a
 * pointer, the builder computes the position */
static int sys_llseek(struct scall *x)
{
	int64_t hi, lo, v;
	x->ev->call = SC_LSEEK;
	if (num_at(x, 0, &x->ev->fd) || num_at(x, 1, &hi) || num_at(x, 2, &lo) ||
	    num_at(x, x->na - 1, &v))
		return SYS_ARGS;
	x->ev->offset = (int64_t)((uint64_t)hi << 32 | (uint32_t)lo);
	x->ev->whence = (int)v;
	if (!x->c->has_ret || x->c->ret == 0)
		x->ev->ret = SC_RET_UNKNOWN;
	return emit(x->s, x->ev);
}

static int sys_ftruncate(struct scall *x)
{
	int64_t v, v2;
	x->ev->call = SC_FTRUNCATE;
	if (num_at(x, 0, &x->ev->fd) || num_at(x, 1, &v))
		return SYS_ARGS;
	if (!strcmp(x->n, "ftruncate64") && x->na == 3 && !num_at(x, 2, &v2) && v2 >= 0 &&
	    v2 <= UINT32_MAX)
		v = (int64_t)((uint64_t)v2 << 32 | (uint32_t)v);
	x->ev->len = (uint64_t)v;
	return emit(x->s, x->ev);
}

static int sys_sync(struct scall *x)
{
	x->ev->call = x->n[1] == 's' ? SC_FSYNC : SC_FDATASYNC;
	if (num_at(x, 0, &x->ev->fd))
		return SYS_ARGS;
	return emit(x->s, x->ev);
}

static int sys_dup(struct scall *x)
{
	bool two = x->n[3] != 0;
	x->ev->call = two ? SC_DUP2 : SC_DUP;
	if (num_at(x, 0, &x->ev->fd) || (two && num_at(x, 1, &x->ev->fd2)))
		return SYS_ARGS;
	return emit(x->s, x->ev);
}

/* unlink, rmdir, mkdir, rename: a path printed as an address, or cut by
 * ltrace (which file?), is counted, not guessed */
static int sys_path(struct scall *x)
{
	char *path = x->s->path, *path2 = x->s->path2;
	struct sc_event *ev = x->ev;
	bool tr = false, tr2 = false;
	int64_t v;
	if (x->na < 1 || arg_string(&x->a[0], path, sizeof(x->s->path), &tr))
		return SYS_SKIP;
	ev->path = path;
	if (x->n[0] == 'u') {
		ev->call = SC_UNLINK;
	} else if (x->n[1] == 'm') {
		ev->call = SC_RMDIR;
	} else if (x->n[0] == 'm') {
		ev->call = SC_MKDIR;
		if (!num_at(x, 1, &v))
			ev->mode = v;
	} else {
		if (x->na < 2 || arg_string(&x->a[1], path2, sizeof(x->s->path2), &tr2))
			return SYS_SKIP;
		ev->call = SC_RENAME;
		ev->path2 = path2;
	}
	return tr || tr2 ? SYS_SKIP : emit(x->s, ev);
}

static int sys_clone(struct scall *x)
{
	int64_t v;
	x->ev->call = SC_CLONE;
	if (!num_at(x, 0, &v))
		x->ev->flags = v;
	return emit(x->s, x->ev);
}

static const struct {
	const char *name;
	int (*fn)(struct scall *x);
} syscalls[] = {
	{ "open", sys_open }, { "open64", sys_open }, { "creat", sys_open }, { "openat", sys_open },
	{ "close", sys_close },
	{ "read", sys_rw }, { "read64", sys_rw }, { "readv", sys_rw }, { "pread", sys_rw },
	{ "pread64", sys_rw }, { "preadv", sys_rw },
	{ "write", sys_rw }, { "write64", sys_rw }, { "writev", sys_rw }, { "pwrite", sys_rw },
	{ "pwrite64", sys_rw }, { "pwritev", sys_rw },
	{ "lseek", sys_lseek }, { "lseek64", sys_lseek },
	{ "_llseek", sys_llseek }, { "llseek", sys_llseek },
	{ "ftruncate", sys_ftruncate }, { "ftruncate64", sys_ftruncate },
	{ "fsync", sys_sync }, { "fdatasync", sys_sync },
	{ "dup", sys_dup }, { "dup2", sys_dup },
	{ "unlink", sys_path }, { "rmdir", sys_path }, { "mkdir", sys_path }, { "rename", sys_path },
	{ "clone", sys_clone },
	/* anything else (statfs64, fcntl64, mmap, ...): counted by name */
};

/* The handler of a SYS_ call name (without "SYS_"), NULL: counted only. */
static int (*sys_handler(const char *n))(struct scall *x)
{
	for (size_t i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (!strcmp(n, syscalls[i].name))
			return syscalls[i].fn;
	return NULL;
}

/* nm: c->name as the counts keep it (the same string at an address the
 * builder sees again: its count of a skipped call is then found at once) */
static int do_sys(struct fstate *s, const struct call *c, const char *nm, struct sc_event *ev,
		  int (*fn)(struct scall *x), unsigned flags)
{
	struct scall x;
	x.s = s;
	x.c = c;
	x.ev = ev;
	x.n = c->name + 4;
	x.flags = flags;
	x.a = c->a;
	x.na = c->na;
	if (fn && !c->a) {          /* a call only counted needs no arguments */
		x.na = split_padded(c->args, c->argslen, x.own, LMAXARGS);
		x.a = x.own;
	}
	ev->name = x.n;
	ev->ret = c->has_ret ? c->ret : SC_RET_UNKNOWN;
	int rc = fn ? fn(&x) : SYS_SKIP;
	if (rc == SYS_ARGS)
		return bad_args(s, c);
	if (rc == SYS_SKIP) {
		ev->call = SC_SKIP;
		ev->name = nm;
		ev->path = ev->path2 = NULL;
		return emit(s, ev);
	}
	return rc;
}

static int do_mpi(struct fstate *s, const struct call *c, const char *n, struct sc_event *ev,
		  unsigned flags)
{
	struct larg own[LMAXARGS];
	const struct larg *a = own;
	int na = 0;
	int64_t v;
	ev->name = n;
	ev->ret = c->has_ret ? c->ret : SC_RET_UNKNOWN;
	bool rd = flags & NF_IREAD, wr = flags & NF_IWRITE, wait = flags & NF_WAIT;
	if (rd || wr || wait) {     /* the only MPI calls whose arguments are read */
		if (c->a) {
			na = c->na;
			a = c->a;
		} else {
			na = split_padded(c->args, c->argslen, own, LMAXARGS);
		}
	}
	if (rd || wr) {
		/* MPI_File_iwrite(fh, buf, count, datatype, &request)
		 * MPI_File_iwrite_at(fh, offset, buf, count, datatype, &request) */
		bool at = flags & NF_AT;
		int64_t req, count, fh, off = SC_NOOFF;
		if (arg_num(a, na, 0, &fh) || arg_num(a, na, na - 1, &req) ||
		    arg_num(a, na, at ? 3 : 2, &count) || (at && arg_num(a, na, 1, &off)))
			return bad_args(s, c);
		if (c->pend && c->pend->nested) {
			for (size_t i = 0; i < s->nrq; i++)
				if (s->rq[i].pid == c->pid && s->rq[i].pending) {
					s->rq[i].pending = false;
					s->rq[i].addr = req;
				}
			return 0;       /* the nested SYS_ calls carried it */
		}
		/* no nested syscall: count elements of MPI_BYTE (documented
		 * assumption) on the fd this fh was opened as */
		int64_t fd = -1;
		if (s->fh_addr == fh)
			fd = s->fh_fd;
		else if (s->nmpifds) {
			fd = s->mpifds[s->nmpifds - 1];
			s->fh_addr = fh;
			s->fh_fd = fd;
		}
		if (fd < 0 || count < 0) {
			ev->call = SC_SKIP;
			return emit(s, ev);
		}
		ev->call = rd ? SC_AREAD : SC_AWRITE;
		ev->fd = fd;
		ev->offset = off;
		ev->len = (uint64_t)count;
		ev->async_id = ++s->L->next_id;
		ev->ret = SC_RET_UNKNOWN;
		int rc = add_req(s, c->pid, req, ev->async_id, SC_RET_UNKNOWN, false);
		return rc ? rc : emit(s, ev);
	}
	if (wait) {
		if (arg_num(a, na, 0, &v))
			return bad_args(s, c);
		bool any = false;
		for (size_t i = 0; i < s->nrq;) {
			struct areq r = s->rq[i];
			if (r.pid != c->pid || r.pending || r.addr != v) {
				i++;
				continue;
			}
			s->rq[i] = s->rq[--s->nrq];
			struct sc_event w = *ev;
			w.call = SC_AWAIT;
			w.async_id = r.id;
			w.ret = r.bytes;
			int rc = emit(s, &w);
			if (rc)
				return rc;
			any = true;
		}
		if (any)
			return 0;
		ev->call = SC_SKIP;     /* MPI_REQUEST_NULL or untraced submit */
		return emit(s, ev);
	}
	if (flags & NF_BARRIER) {
		ev->call = SC_BARRIER;
		return emit(s, ev);
	}
	ev->call = SC_SKIP;
	return emit(s, ev);
}

/* Kind, handler and NF_* flags of a call name (its first call). */
static void classify(struct scount *k, const char *name)
{
	k->flags = 0;
	if (!strncmp(name, "SYS_", 4)) {
		const char *n = name + 4;
		k->kind = CK_SYS;
		k->sys = sys_handler(n);
		k->args = k->sys != NULL;
		bool rd = n[0] == 'r' || !strncmp(n, "pread", 5);
		const char *base = n + (n[0] == 'p');
		k->flags = (rd ? NF_RD : 0) | (!strcmp(base, rd ? "readv" : "writev") ? NF_VEC : 0);
		return;
	}
	if (!strncmp(name, "MPI_", 4) || !strncmp(name, "MPIO_", 5)) {
		k->kind = CK_MPI;
		bool rd = !strncmp(name, "MPI_File_iread", 14), wr = !strncmp(name, "MPI_File_iwrite", 15);
		k->flags = (rd ? NF_IREAD : 0) | (wr ? NF_IWRITE : 0) |
			   (strstr(name, "_at") ? NF_AT : 0) |
			   (!rd && !wr && (!strcmp(name, "MPIO_Wait") || !strcmp(name, "MPI_Wait")) ? NF_WAIT : 0) |
			   (!strcmp(name, "MPI_Barrier") ? NF_BARRIER : 0);
		k->args = (k->flags & (NF_IREAD | NF_IWRITE | NF_WAIT)) != 0;
		return;
	}
	k->kind = CK_OTHER;
	k->args = false;
}

static int do_call(struct fstate *s, const struct call *c)
{
	struct sc_event ev;
	sc_event_init(&ev);
	ev.src = s->src;
	ev.line = c->line;
	ev.pid = c->pid;
	ev.ts_ns = c->ts;
	ev.dur_ns = c->dur;
	size_t ix = c->cix;
	if (ix != SIZE_MAX) {           /* found when its line was read */
		s->cnt[ix].n++;
	} else {
		int rc = count_call(s, c->name, c->namelen, &ix);
		if (rc)
			return rc;
	}
	struct scount *k = &s->cnt[ix];
	if (k->kind == CK_NEW)          /* the name's first call: classify it once */
		classify(k, c->name);
	if (k->kind == CK_SYS)
		return do_sys(s, c, k->name, &ev, k->sys, k->flags);
	if (k->kind == CK_MPI)
		return do_mpi(s, c, k->name, &ev, k->flags);
	ev.call = SC_SKIP;          /* a library call around a SYS_ call */
	ev.name = k->name;          /* c->name's string (see do_sys) */
	return emit(s, &ev);
}

/* One row of the summary table: " NAME COUNT SECS". */
static void summary_row(struct fstate *s, const char *p)
{
	p = skip_ws(p);
	const char *ne = p;
	while (*ne && *ne != ' ' && *ne != '\t')
		ne++;
	const char *cs = skip_ws(ne), *ce = cs;
	while (tx_digit(*ce))
		ce++;
	int64_t want;
	if (ne == p || ce == cs || num_parse(cs, (size_t)(ce - cs), &want))
		return;
	uint64_t got = 0;
	for (size_t i = 0; i < s->ncnt; i++)
		if (strlen(s->cnt[i].name) == (size_t)(ne - p) && !strncmp(s->cnt[i].name, p, (size_t)(ne - p)))
			got = s->cnt[i].n;
	if (got == (uint64_t)want)
		return;
	s->L->summary_mismatch++;
	if (!s->L->summary_first[0])
		snprintf(s->L->summary_first, sizeof(s->L->summary_first),
			 "%s: summary counts %.*s %" PRId64 ", parsed %" PRIu64,
			 base_name(s->src), (int)(ne - p), p, want, got);
}

static void fstate_release(struct fstate *s)
{
	for (size_t i = 0; i < s->npend; i++)
		free(s->pend[i].name);     /* args are in the same block */
	free(s->spare);
	free(s->pend);
	free(s->rq);
	free(s->mpifds);
	free(s->cnt);
	free(s->chash);
}

/* "NAME(ARGS <unfinished ...>": kept until its "resumed" line. */
static int pend_start(struct fstate *s, int64_t pid, const char *name, const struct lline *l,
		      uint64_t ts, unsigned long lineno)
{
	if (s->npend >= LMAXPEND)
		return rerr_at(s->L->e, -EINVAL, s->src, lineno,
			       "more than %d calls <unfinished ...> at once", LMAXPEND);
	int rc = grow((void **)&s->pend, &s->pcap, s->npend + 1, sizeof(*s->pend));
	if (rc)
		return rc;
	struct lpend *pe = &s->pend[s->npend];
	*pe = (struct lpend){ .pid = pid, .ts = ts, .line = lineno, .cix = l->cix };
	/* name and arguments in one block; the arguments padded as a line
	 * (num_parse_p may read LR_PAD bytes past their NUL).  The name was
	 * cut at LMAXNAME in place. */
	size_t nl = l->namelen < LMAXNAME ? l->namelen : LMAXNAME;
	size_t need = nl + 1 + l->argslen + 1 + LR_PAD;
	if (s->spare && s->sparecap >= need) {
		/* nearly every call is resumed before the next starts */
		pe->name = s->spare;
		pe->cap = s->sparecap;
		s->spare = NULL;
	} else {
		pe->name = malloc(need);
		if (!pe->name)
			return -ENOMEM;
		pe->cap = need;
	}
	memcpy(pe->name, name, nl + 1);
	pe->args = pe->name + nl + 1;
	memcpy(pe->args, l->args, l->argslen);
	memset(pe->args + l->argslen, 0, 1 + LR_PAD);
	pe->argslen = l->argslen;
	s->npend++;
	return 0;
}

/* The pending start of a resumed call, SIZE_MAX when none. */
static size_t pend_find(const struct fstate *s, int64_t pid, const char *name)
{
	for (size_t i = s->npend; i-- > 0;)
		if (s->pend[i].pid == pid && !strcmp(s->pend[i].name, name))
			return i;
	return SIZE_MAX;
}

static void pend_drop(struct fstate *s, size_t i)
{
	/* the larger block kept for the next start */
	if (!s->spare || s->sparecap < s->pend[i].cap) {
		if (s->spare)
			free(s->spare);
		s->spare = s->pend[i].name;
		s->sparecap = s->pend[i].cap;
	} else {
		free(s->pend[i].name);
	}
	if (i + 1 < s->npend)   /* nearly always the last one started */
		memmove(&s->pend[i], &s->pend[i + 1], (s->npend - i - 1) * sizeof(*s->pend));
	s->npend--;
}

/* Join the start's arguments and the resumed line's into *joined (grown
 * as needed): c then reads as the whole call, at the start's time.  A
 * resumed line with no arguments of its own (the usual ") = R") joins
 * nothing: the start's copy is the text, padded as the join would be
 * (and kept until the call is done: pend_drop comes after). */
static int pend_join(struct lpend *pe, const struct lline *l, char **joined, size_t *jcap,
		     struct call *c)
{
	const char *cont = skip_ws(l->args);
	size_t cl = l->argslen - (size_t)(cont - l->args);
	size_t hl = pe->argslen, jl = hl;
	c->ts = pe->ts;
	c->line = pe->line;
	c->pend = pe;
	c->cix = pe->cix;       /* the same name: strcmp found it */
	if (!cl) {
		c->args = pe->args;
		c->argslen = hl;
		return 0;
	}
	int rc = trace_grow((void **)joined, jcap, hl + cl + 3 + LR_PAD, 1, 256);
	if (rc)
		return rc;
	char *j = *joined;
	memcpy(j, pe->args, hl);
	if (hl && cl && *cont != ',') {
		j[jl++] = ',';
		j[jl++] = ' ';
	}
	memcpy(j + jl, cont, cl);
	jl += cl;
	memset(j + jl, 0, 1 + LR_PAD);  /* padded as a line: num_parse_p */
	c->args = j;
	c->argslen = jl;
	return 0;
}

/* "<... NAME resumed>" without its start: ltrace -f shows a forked child
 * "resuming" the library call (fork) its parent entered: counted; a
 * syscall or MPI call without a start is malformed. */
static int orphan_resume(struct fstate *s, const struct call *c, uint64_t dur)
{
	if (strncmp(c->name, "SYS_", 4) && strncmp(c->name, "MPI", 3)) {
		struct sc_event ev;
		sc_event_init(&ev);
		ev.src = s->src;
		ev.line = c->line;
		ev.pid = c->pid;
		ev.ts_ns = c->ts;
		ev.dur_ns = dur;
		ev.name = c->name;
		return emit(s, &ev);
	}
	char msg[200];
	snprintf(msg, sizeof(msg), "'<... %.40s resumed>' without a matching '%.40s(... <unfinished ...>'",
		 c->name, c->name);
	return bad_line(s->L, s->src, c->line, msg);
}

/* Per-file reading state of pass 2. */
struct p2 {
	int64_t mainpid;            /* pid column value that is this rank */
	bool summary;               /* in the "# SUMMARY" table            */
	char *joined;
	size_t jcap;
	struct tx_hms clk;          /* the last line's second              */
};

/* One call line (l) of the file: pending, resumed, or complete. */
static int call_line(struct fstate *s, struct p2 *st, const struct lline *l, unsigned long lineno)
{
	int64_t cpid = s->f->pid;
	if (l->has_pid) {
		if (st->mainpid < 0)
			st->mainpid = l->pid;
		if (l->pid != st->mainpid)
			cpid = l->pid;
	}
	uint64_t ts = clock_ts(s, l->tod);
	if (l->kind == LL_UNFINISHED)
		return pend_start(s, cpid, l->name, l, ts, lineno);
	struct call c = { .pid = cpid, .name = l->name,
			  .namelen = l->namelen < LMAXNAME ? l->namelen : LMAXNAME, .args = l->args, .argslen = l->argslen,
			  .has_ret = l->has_ret, .ret = l->ret, .ts = ts, .dur = l->dur,
			  .line = lineno, .a = l->kind == LL_CALL && l->na >= 0 ? l->a : NULL,
			  .na = l->kind == LL_CALL && l->na >= 0 ? l->na : 0,
			  .cix = l->kind == LL_CALL ? l->cix : SIZE_MAX };
	size_t pi = SIZE_MAX;
	if (l->kind == LL_RESUMED) {
		pi = pend_find(s, cpid, l->name);
		if (pi == SIZE_MAX)
			return orphan_resume(s, &c, l->dur);
		int rc = pend_join(&s->pend[pi], l, &st->joined, &st->jcap, &c);
		if (rc)
			return rc;
	}
	int rc = do_call(s, &c);
	if (pi != SIZE_MAX)
		pend_drop(s, pi);
	return rc;
}

/* One line of the file (len bytes, from lr_next); 0 or -errno. */
static int p2_line(struct fstate *s, struct p2 *st, char *line, size_t len, unsigned long lineno)
{
	const char *p = skip_ws(line);
	if (st->summary) {
		if (*p && *p != '#')
			summary_row(s, p);
		return 0;
	}
	if (!*p)
		return 0;
	if (*p == '#') {
		if (strstr(p, "SUMMARY COUNT OF TRACED CALL"))
			st->summary = true;
		return 0;
	}
	int r;
	int64_t pid;
	char host[64];
	struct lline l;
	const char *why = NULL;
	int k;
	const char *q = clock15_first(p, &l.tod, &st->clk);
	if (q) {
		/* what parse_barrier_line would read as "R: HOST" is the clock:
		 * a barrier line only if a '(' follows; the prefix is the clock */
		if (*q == '(' && parse_barrier_line(p, &r, host, sizeof(host), &pid))
			return 0;
		l.has_pid = false;
		k = call_body(s, q, line + len, &l, &why);
	} else {
		if (parse_barrier_line(p, &r, host, sizeof(host), &pid))
			return 0;       /* the tracer's own barrier, not the app's */
		k = call_shape(s, line, line + len, &l, &why);
	}
	name_terminate(line, &l, k);
	if (k < 0)
		return bad_line(s->L, s->src, lineno, why);
	return k ? call_line(s, st, &l, lineno) : 0;
}

/* Calls still '<unfinished ...>' when the file ends: the rank was killed
 * mid-call (no resumed line will come).  As the strace reader does,
 * each is counted as skipped.unfinished:NAME (its result unknown: not
 * replayed); the first one's FILE:LINE is kept for the warning. */
static int unfinished_at_end(struct fstate *s)
{
	struct trace_input *in = s->L->in;
	int rc = 0;
	for (size_t i = 0; i < s->npend && !rc; i++) {
		struct lpend *pe = &s->pend[i];
		struct sc_event ev;
		char name[LMAXNAME + 16];
		sc_event_init(&ev);
		ev.src = s->src;
		ev.line = pe->line;
		ev.pid = pe->pid;
		ev.ts_ns = pe->ts;
		ev.call = SC_SKIP;
		snprintf(name, sizeof(name), "unfinished:%s", pe->name);
		ev.name = name;
		if (!in->unfinished++)
			snprintf(in->first_unfinished, sizeof(in->first_unfinished), "%s:%lu (%s)",
				 s->src, pe->line, pe->name);
		rc = emit(s, &ev);
	}
	return rc;
}

static int pass2_file(struct lanl *L, struct lfile *f)
{
	struct fstate s = { .L = L, .f = f, .src = f->path, .fh_addr = -1, .fh_fd = -1 };
	struct p2 st = { .mainpid = -1 };
	struct linereader lr;
	char *blk;
	size_t blen, len = 0;       /* len: the last line's */
	unsigned long inblocks = 0; /* lines read in blocks: lr.lineno counts lr_next's */
	int rc = lr_open(&lr, f->path);
	if (rc)
		return rerr_set(L->e, rc, "cannot open '%s': %s", f->path, strerror(-rc));
	/* the lines buffered, a block at a time (as in pass 1) */
	while ((rc = lr_next_block(&lr, &blk, &blen)) != 0) {
		if (rc > 0 && blk[blen] == '\n') {
			char *e = blk + blen;
			struct nlscan ns;
			nl_start(&ns, blk, e);
			for (char *ln = blk;; ln++) {
				char *nl = nl_next(&ns, ln);
				*nl = '\0';
				len = (size_t)(nl - ln);
				inblocks++;
				L->in->lines++;
				L->in->bytes += len + 1;
				rc = p2_line(&s, &st, ln, len, inblocks + lr.lineno);
				if (rc || nl == e)
					break;
				ln = nl;
			}
			if (rc)
				break;
			continue;
		}
		if (rc > 0 || rc == -E2BIG)
			len = blen;     /* one line from lr_next (or its length, skipped) */
		L->in->lines++;
		L->in->bytes += len + 1;
		if (rc == -E2BIG)
			rc = bad_line(L, f->path, inblocks + lr.lineno, "line too long");
		else if (rc < 0)
			rc = rerr_set(L->e, rc, "cannot read '%s': %s", f->path, strerror(-rc));
		else
			rc = p2_line(&s, &st, blk, len, inblocks + lr.lineno);
		if (rc)
			break;
	}
	if (!rc)
		rc = unfinished_at_end(&s);
	free(st.joined);
	fstate_release(&s);
	lr_close(&lr);
	return rc;
}

static int lanl_parse(struct trace_input *in, struct builder *b, struct rerr *e)
{
	struct lanl L = { .in = in, .b = b, .e = e, .nto1 = -1 };
	int rc = 0;
	if (!in->nfiles)
		return rerr_set(e, -EINVAL, "no LANL-Trace files given");
	for (size_t i = 0; i < in->nfiles; i++)
		if (file_is_stream(in->files[i]))
			return rerr_set(e, -EINVAL, "LANL-Trace files are read twice (ranks from the "
					"barrier lines, then the calls): give the files, not "
					"standard input or a pipe ('%s')", in->files[i]);
	L.f = calloc(in->nfiles, sizeof(*L.f));
	if (!L.f)
		return -ENOMEM;
	L.nf = in->nfiles;
	for (size_t i = 0; i < in->nfiles; i++) {
		L.f[i].path = in->files[i];
		rc = pass1_file(&L, &L.f[i]);
		if (rc)
			goto out;
	}
	rc = assign_ranks(&L);
	if (rc)
		goto out;
	for (size_t i = 0; i < L.nf; i++) {
		rc = builder_rank(b, L.f[i].pid, L.f[i].name, &L.f[i].brank);
		if (rc) {
			rerr_set(e, rc, "cannot add rank '%s': %s", L.f[i].name, strerror(-rc));
			goto out;
		}
		/* the node it ran on (replay-mpi --placement hosts) */
		if (L.f[i].host[0] && (rc = builder_rank_host(b, L.f[i].brank, L.f[i].host)) < 0) {
			rerr_set(e, rc, "cannot add rank '%s': %s", L.f[i].name, strerror(-rc));
			goto out;
		}
	}
	for (size_t i = 0; i < L.nf; i++) {
		rc = pass2_file(&L, &L.f[i]);
		if (rc)
			goto out;
	}
	char buf[256];
	if (L.made_distinct) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " opens of truncated names made distinct per rank (.rankN)",
			 L.made_distinct);
		note_add(in, buf);
	}
	if (L.nto1 == 1)
		note_add(in, "traced mpi_io_test -type 2 (N-to-1): truncated names kept shared");
	if (L.shared_by_comm) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " opens of truncated names kept shared "
			 "(MPI_File_open on MPI_COMM_WORLD)", L.shared_by_comm);
		note_add(in, buf);
	}
	if (L.summary_mismatch) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " summary-table counts differ from the parsed calls (first: %s)",
			 L.summary_mismatch, L.summary_first);
		note_add(in, buf);
	}
out:
	free(L.t);
	free(L.f);
	return rc;
}

const struct trace_format trace_lanl = {
	.name = "lanl",
	.desc = "LANL-Trace (MPI_IO_TEST): ltrace -S per-rank files + timing file",
	.probe = lanl_probe,
	.parse = lanl_parse,
};
