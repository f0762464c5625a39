/*
 * scan.h - find the next of two or three bytes in a span, 16 bytes at a
 * time where the CPU has SSE2 (every x86-64), one at a time elsewhere;
 * read decimal digits 8 at a time; and measure a short name and take it
 * as two words.  The text readers spend most of
 * their time skipping quoted strings and path decorations and reading
 * numbers; these make that a few instructions per 16 bytes or 8 digits.
 */
#ifndef REPLAY_UTIL_SCAN_H
#define REPLAY_UTIL_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/simd.h"

/* Index of the first byte of s[i..n) equal to a or b; n when none (also
 * when i >= n). */
static inline size_t scan_any2(const char *s, size_t n, size_t i, char a, char b)
{
#if REPLAY_SSE2
	const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
	while (i + 16 <= n) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)));
		if (m)
			return i + (size_t)__builtin_ctz(m);
		i += 16;
	}
	if (i < n && n >= 16) {
		/* the last 16 bytes, overlapping what was seen: drop those bits */
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)));
		m &= ~0u << (i - (n - 16));
		return m ? n - 16 + (size_t)__builtin_ctz(m) : n;
	}
#endif
	for (; i < n; i++)
		if (s[i] == a || s[i] == b)
			return i;
	return n;
}

/* The same for three bytes. */
static inline size_t scan_any3(const char *s, size_t n, size_t i, char a, char b, char c)
{
#if REPLAY_SSE2
	const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c);
	while (i + 16 <= n) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i e = _mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(e, _mm_cmpeq_epi8(x, vc)));
		if (m)
			return i + (size_t)__builtin_ctz(m);
		i += 16;
	}
	if (i < n && n >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
		__m128i e = _mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(e, _mm_cmpeq_epi8(x, vc)));
		m &= ~0u << (i - (n - 16));
		return m ? n - 16 + (size_t)__builtin_ctz(m) : n;
	}
#endif
	for (; i < n; i++)
		if (s[i] == a || s[i] == b || s[i] == c)
			return i;
	return n;
}

/* Index of the first byte of s[i..n) that is neither a nor b (padding
 * skipped 16 bytes at a time); n when none. */
static inline size_t scan_skip2(const char *s, size_t n, size_t i, char a, char b)
{
#if REPLAY_SSE2
	const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
	while (i + 16 <= n) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned m = ~(unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb))) & 0xffffu;
		if (m)
			return i + (size_t)__builtin_ctz(m);
		i += 16;
	}
#endif
	for (; i < n; i++)
		if (s[i] != a && s[i] != b)
			return i;
	return n;
}

/* Whether c is one of the bytes that structure a syscall's arguments as
 * strace prints them: " / < ( ) [ ] { } , */
static inline bool scan_is_args_spec(char c)
{
	return c == '"' || c == '/' || c == '<' || c == '(' || c == ')' || c == '[' ||
	       c == ']' || c == '{' || c == '}' || c == ',';
}

/* Index of the first byte of s[i..n) that scan_is_args_spec() takes; n
 * when none.  For a left-to-right walk that asks again from just past what
 * it found (or from further on): 16 bytes a compare ('(' and ')' as
 * (x | 1) == ')', '[' '{' and ']' '}' as (x & ~0x20) == '[' or ']', the
 * other four one by one), the mask of the 16 bytes last compared kept in
 * *c, so that a byte is compared once.  Start a walk with SCAN_CUR_INIT;
 * s and n the same for every call of a walk, i never going back. */
struct scan_cur {
	size_t blk;             /* the 16 bytes at blk were compared ...    */
	unsigned m;             /* ... and gave this mask                   */
};
#define SCAN_CUR_INIT { SIZE_MAX / 2, 0 }

static inline size_t scan_args_next(const char *s, size_t n, size_t i, struct scan_cur *c)
{
#if REPLAY_SSE2
	if (i - c->blk < 16) {
		unsigned m = c->m & (~0u << (i - c->blk));
		if (m)
			return c->blk + (size_t)__builtin_ctz(m);
		i = c->blk + 16;
	}
	const __m128i one = _mm_set1_epi8(1), n20 = _mm_set1_epi8((char)0xdf),
		      rp = _mm_set1_epi8(')'), lb = _mm_set1_epi8('['), rb = _mm_set1_epi8(']'),
		      q = _mm_set1_epi8('"'), sl = _mm_set1_epi8('/'), lt = _mm_set1_epi8('<'),
		      cm = _mm_set1_epi8(',');
	while (i + 16 <= n) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i b = _mm_and_si128(x, n20);
		__m128i e = _mm_or_si128(_mm_cmpeq_epi8(_mm_or_si128(x, one), rp),
					 _mm_or_si128(_mm_cmpeq_epi8(b, lb), _mm_cmpeq_epi8(b, rb)));
		e = _mm_or_si128(e, _mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, sl)));
		e = _mm_or_si128(e, _mm_or_si128(_mm_cmpeq_epi8(x, lt), _mm_cmpeq_epi8(x, cm)));
		unsigned m = (unsigned)_mm_movemask_epi8(e);
		if (m) {
			c->blk = i;
			c->m = m;
			return i + (size_t)__builtin_ctz(m);
		}
		i += 16;
	}
#else
	(void)c;
#endif
	for (; i < n; i++)
		if (scan_is_args_spec(s[i]))
			return i;
	return n;
}

/* Whether c is one of the bytes that nest a syscall's arguments as strace
 * prints them (scan_is_args_spec without the comma): " / < ( ) [ ] { } */
static inline bool scan_is_nest(char c)
{
	return c != ',' && scan_is_args_spec(c);
}

#if REPLAY_SSE2
/* The bits of the 16 bytes at p that scan_is_nest() takes. */
static inline unsigned scan_nest16(const char *p)
{
	const __m128i one = _mm_set1_epi8(1), n20 = _mm_set1_epi8((char)0xdf),
		      rp = _mm_set1_epi8(')'), lb = _mm_set1_epi8('['), rb = _mm_set1_epi8(']'),
		      q = _mm_set1_epi8('"'), sl = _mm_set1_epi8('/'), lt = _mm_set1_epi8('<');
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i b = _mm_and_si128(x, n20);
	__m128i e = _mm_or_si128(_mm_cmpeq_epi8(_mm_or_si128(x, one), rp),
				 _mm_or_si128(_mm_cmpeq_epi8(b, lb), _mm_cmpeq_epi8(b, rb)));
	e = _mm_or_si128(e, _mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, sl)));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(e, _mm_cmpeq_epi8(x, lt)));
}
#endif

/* Index of the first byte of s[i..n) that scan_is_nest() takes; n when
 * none.  For text whose commas do not matter (a call whose arguments are
 * only checked for balance): scan_args_next's compares but the comma's,
 * the last 16 bytes at once (overlapping what was seen). */
static inline size_t scan_nest(const char *s, size_t n, size_t i)
{
#if REPLAY_SSE2
	while (i + 16 <= n) {
		unsigned m = scan_nest16(s + i);
		if (m)
			return i + (size_t)__builtin_ctz(m);
		i += 16;
	}
	if (i < n && n >= 16) {
		unsigned m = scan_nest16(s + n - 16) & (~0u << (i - (n - 16)));
		return m ? n - 16 + (size_t)__builtin_ctz(m) : n;
	}
#endif
	for (; i < n; i++)
		if (scan_is_nest(s[i]))
			return i;
	return n;
}

/* How many of the 16 bytes at s, from the first, are [A-Za-z0-9_] (the
 * bytes of a syscall's name): 16 when all are.  s has 16 readable bytes
 * (a name in a line from the line reader: LR_PAD bytes follow it).  Each
 * range is one signed compare, after an add that moves its first byte
 * to -128. */
static inline unsigned scan_name16(const char *s)
{
#if REPLAY_SSE2
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i l = _mm_or_si128(x, _mm_set1_epi8(0x20));     /* 'A'..'Z' as 'a'..'z' */
	__m128i d = _mm_cmplt_epi8(_mm_add_epi8(x, _mm_set1_epi8((char)(0x80 - '0'))),
				   _mm_set1_epi8((char)(0x80 + 10)));
	__m128i a = _mm_cmplt_epi8(_mm_add_epi8(l, _mm_set1_epi8((char)(0x80 - 'a'))),
				   _mm_set1_epi8((char)(0x80 + 26)));
	__m128i u = _mm_cmpeq_epi8(x, _mm_set1_epi8('_'));
	unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(d, a), u));
	return (unsigned)__builtin_ctz(~m);     /* bit 16 of ~m is set */
#else
	unsigned k = 0;
	while (k < 16 && ((unsigned)(s[k] - '0') < 10 || (unsigned)((s[k] | 0x20) - 'a') < 26 ||
			  s[k] == '_'))
		k++;
	return k;
#endif
}

/* Powers of ten up to 10^19. */
static const uint64_t scan_pow10[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* The 16 bytes at s as two words, those past the first n zero: a name of
 * up to 16 bytes is then told from others by two compares and its length
 * (the words equal a NUL-padded copy's).  s has 16 readable bytes (a
 * name in a line from the line reader: LR_PAD bytes follow it).  The mask
 * is 16 bytes of a table in memory order, so any byte order takes it. */
static inline void scan_words16(const char *s, size_t n, uint64_t w[2])
{
	static const unsigned char keep[32] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
						0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	memcpy(w, s, 16);
	if (n < 16) {
		uint64_t m[2];
		memcpy(m, keep + 16 - n, 16);
		w[0] &= m[0];
		w[1] &= m[1];
	}
}

/* Eight bytes loaded little endian (s[0] lowest): a mask with a bit set in
 * each byte that is not an ASCII digit (a digit's high nibble is 3 and its
 * low one plus 6 stays below 16; no carry crosses bytes either way). */
static inline uint64_t scan_nondigits8(uint64_t x)
{
	return ((x & 0xf0f0f0f0f0f0f0f0ull) ^ 0x3030303030303030ull) |
	       (((x & 0x0f0f0f0f0f0f0f0full) + 0x0606060606060606ull) & 0x1010101010101010ull);
}

/* scan_nondigits8 for where the digits end: a mask whose lowest set bit
 * is in the first byte that is not an ASCII digit, 0 when all eight are
 * (bytes after that first one may be marked or not).  A digit byte minus
 * '0' borrows nothing and plus 0x46 carries nothing, and keeps bit 7
 * clear in both; any other byte sets it in one (below '0': the
 * subtraction; ':' to 0xb9: the addition; 0xb0 up: the subtraction). */
static inline uint64_t scan_first_nondigit8(uint64_t x)
{
	return ((x - 0x3030303030303030ull) | (x + 0x4646464646464646ull)) & 0x8080808080808080ull;
}

/* The number eight digit bytes spell (loaded as above: s[0] the most
 * significant digit; only each byte's low nibble is read): combined into
 * pairs, fours and the eight, each step one multiply that adds a lane to
 * ten, a hundred or ten thousand times its neighbour (no lane overflows,
 * even for nibbles above 9: the value is the exact sum). */
static inline uint64_t scan_value8(uint64_t x)
{
	x = ((x & 0x0f0f0f0f0f0f0f0full) * (10 * 256 + 1)) >> 8;
	x = ((x & 0x00ff00ff00ff00ffull) * (100 * 65536 + 1)) >> 16;
	return ((x & 0x0000ffff0000ffffull) * (10000ull * (1ull << 32) + 1)) >> 32;
}

/*
 * The decimal digits at the start of s[0..n), at most 8 of them: their
 * count, and their value in *v.  With 8 bytes readable (little endian) it
 * converts them at once (one load, scan_first_nondigit8, scan_value8); byte by
 * byte otherwise.  scan_dec8w is that with 8 bytes readable at s, always
 * inlined (for a reader's hottest numbers, where scan_dec8 called many
 * times over may not be).
 */
static inline __attribute__((always_inline)) unsigned scan_dec8w(const char *s, uint64_t *v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x;
	memcpy(&x, s, 8);
	uint64_t bad = scan_first_nondigit8(x);
	unsigned k = bad ? (unsigned)__builtin_ctzll(bad) / 8 : 8;
	if (!k) {
		*v = 0;
		return 0;
	}
	*v = scan_value8(x << (8 * (8 - k)));           /* leading zeros */
	return k;
#else
	uint64_t r = 0;
	unsigned k = 0;
	while (k < 8 && (unsigned)(s[k] - '0') < 10)
		r = r * 10 + (uint64_t)(s[k] - '0'), k++;
	*v = r;
	return k;
#endif
}

static inline unsigned scan_dec8(const char *s, size_t n, uint64_t *v)
{
	if (n >= 8)
		return scan_dec8w(s, v);
	uint64_t r = 0;
	unsigned k = 0;
	while (k < n && k < 8 && (unsigned)(s[k] - '0') < 10)
		r = r * 10 + (uint64_t)(s[k] - '0'), k++;
	*v = r;
	return k;
}

/*
 * s[0..n) as 1 to 16 decimal digits, every byte of it: true and the value
 * in *v; false when n is 0 or over 16 or a byte is not a digit (callers
 * then read it the long way).  Loads 8 bytes at s, and 8 at s + n - 8 when
 * n > 8: 8 bytes must be readable at s (a field of a line from lr_next
 * is: LR_PAD bytes follow the line).  Little endian only (false elsewhere).
 */
/* Eight bytes xor '0' (a digit byte is then its value): bit 7 set in each
 * byte above 9, that is in each byte that was not a digit (the low seven
 * bits plus 0x76 reach bit 7 from 10 up, and carry no further). */
static inline uint64_t scan_over9(uint64_t t)
{
	return (((t & 0x7f7f7f7f7f7f7f7full) + 0x7676767676767676ull) | t) &
	       0x8080808080808080ull;
}

static inline bool scan_dec16(const char *s, size_t n, uint64_t *v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* each byte xor '0' before the shift that drops what follows the
	 * digits: the bytes shifted in then read as leading zeros and need
	 * no mask of their own */
	const uint64_t zeros = 0x3030303030303030ull;
	uint64_t x, y;

	if (n - 1 >= 16)
		return false;
	memcpy(&x, s, 8);
	if (n <= 8) {
		x = (x ^ zeros) << (8 * (8 - n));
		if (scan_over9(x))
			return false;
		*v = scan_value8(x);
		return true;
	}
	memcpy(&y, s + n - 8, 8);
	x = (x ^ zeros) << (8 * (16 - n));
	y ^= zeros;
	if (scan_over9(x) | scan_over9(y))
		return false;
	*v = scan_value8(x) * 100000000ull + scan_value8(y);
	return true;
#else
	(void)s, (void)n, (void)v;
	return false;
#endif
}

/*
 * All the decimal digits at the start of s[0..n), any number of them, 8 at
 * a step: their count, their value in *v, and *ovf set when that value
 * does not fit 64 bits (*v then means nothing).  The first step needs no
 * overflow check; each further one is checked.
 */
static inline size_t scan_decn(const char *s, size_t n, uint64_t *v, bool *ovf)
{
	uint64_t x, d;
	unsigned k = scan_dec8(s, n, &x);
	size_t i = k;

	*ovf = false;
	while (k == 8 && i < n && (k = scan_dec8(s + i, n - i, &d)) > 0) {
		if (__builtin_mul_overflow(x, scan_pow10[k], &x) || __builtin_add_overflow(x, d, &x))
			*ovf = true;
		i += k;
	}
	*v = x;
	return i;
}

#endif
