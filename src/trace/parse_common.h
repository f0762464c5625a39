/*
 * parse_common.h - small helpers the LANL and Sandia parsers share.
 * Header-only (static inline): included by src/trace/lanl.c and
 * src/trace/sandia.c, no module of its own.
 */
#ifndef REPLAY_TRACE_PARSE_COMMON_H
#define REPLAY_TRACE_PARSE_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/trace.h"
#include "util/scan.h"

/* Room for `need` elements of `sz` bytes in *p, whose capacity *cap
 * starts at `first` and doubles.  0, or -ENOMEM with *p unchanged. */
static inline int trace_grow(void **p, size_t *cap, size_t need, size_t sz, size_t first)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : first;
	while (nc < need)
		nc *= 2;
	void *q = realloc(*p, nc * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}

/* A malformed line, counted in in->bad_lines.  Without --skip-bad:
 * -EINVAL with e "src:line: what"; with it: 0, and the first such line
 * kept in in->first_bad. */
static inline int trace_bad_line(struct trace_input *in, struct rerr *e, const char *src,
				 unsigned long line, const char *what)
{
	in->bad_lines++;
	if (!in->skip_bad)
		return rerr_at(e, -EINVAL, src, line, "%s", what);
	if (!in->first_bad[0])
		snprintf(in->first_bad, sizeof(in->first_bad), "%s:%lu: %s", src, line, what);
	return 0;
}

/* ---- table-free lexing for the hot loops (no locale, no libc calls) ---- */

static inline bool tx_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

static inline bool tx_space(char c)  /* isspace() in the C locale */
{
	return c == ' ' || (unsigned char)(c - '\t') < 5;
}

/* Exactly n decimal digits (n <= 19: no overflow) -> *v; false when a
 * byte is not a digit or n is 0 or over 19. */
static inline bool tx_dec(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	if (!n || n > 19)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!tx_digit(s[i]))
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return true;
}

/* Exactly n hex digits (n <= 16) -> *v; false otherwise. */
static inline bool tx_hex(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	if (!n || n > 16)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i], d;
		if (c >= '0' && c <= '9')
			d = (unsigned char)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (unsigned char)((c | 0x20) - 'a' + 10);
		else
			return false;
		x = x << 4 | d;
	}
	*v = x;
	return true;
}

/* The clock every -tt trace prints, "HH:MM:SS.uuuuuu" (15 bytes, hours
 * below 24, minutes and seconds below 60), as ns since midnight; p is
 * NUL-terminated or has 15 bytes.  false for anything else (the caller's
 * general parser then decides). */
static inline bool tx_clock15(const char *p, uint64_t *ns)
{
	uint64_t h = 0, m = 0, s = 0, us = 0;
	/* left to right: a NUL stops it before any byte past the string */
	if (!tx_dec(p, 2, &h) || p[2] != ':' || !tx_dec(p + 3, 2, &m) || p[5] != ':' ||
	    !tx_dec(p + 6, 2, &s) || p[8] != '.' || !tx_dec(p + 9, 6, &us) ||
	    h >= 24 || m >= 60 || s >= 60)
		return false;
	*ns = ((h * 60 + m) * 60 + s) * 1000000000ull + us * 1000;
	return true;
}

/* tx_clock15 for a p with at least 15 readable bytes: two overlapping
 * 8-byte loads, "HH:MM:SS" and "S.uuuuuu", each checked and converted at
 * once (the same answer as tx_clock15, a fifth of the instructions). */
static inline bool tx_clock15n(const char *p, uint64_t *ns)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t zeros = 0x3030303030303030ull;
	uint64_t a, b;
	memcpy(&a, p, 8);               /* H H : M M : S S */
	memcpy(&b, p + 7, 8);           /* S . u u u u u u */
	/* the separators in place, then as '0' so every byte is a digit */
	const uint64_t sa = 0x0000ff0000ff0000ull, sb = 0xffffull;
	if ((a & sa) != 0x00003a00003a0000ull || (b & 0xff00ull) != 0x2e00ull)
		return false;
	a = (a & ~sa) | (zeros & sa);
	b = (b & ~sb) | (zeros & sb);   /* "00uuuuuu": S is checked in a */
	if (scan_first_nondigit8(a) | scan_first_nondigit8(b))
		return false;
	/* each byte ten times itself plus the next (at most 99: no carry):
	 * bytes 0, 3 and 6 are then HH, MM and SS */
	a &= 0x0f0f0f0f0f0f0f0full;
	a = a * 10 + (a >> 8);
	uint64_t h = a & 0xff, m = a >> 24 & 0xff, sec = a >> 48 & 0xff;
	if (h >= 24 || m >= 60 || sec >= 60)
		return false;
	*ns = ((h * 60 + m) * 60 + sec) * 1000000000ull + scan_value8(b) * 1000;
	return true;
#else
	return tx_clock15(p, ns);
#endif
}

/* The last "HH:MM:SS" tx_clock15c read and found valid: its 8 bytes as
 * loaded (0 none yet: a clock's hold two ':'), and their value in ns. */
struct tx_hms {
	uint64_t a;
	uint64_t ns;
};

/* tx_clock15n of a -tt clock at p (15 bytes readable), whose "HH:MM:SS"
 * is nearly always the line before's: those 8 bytes are compared with
 * k's and only "S.uuuuuu" is checked and added then (the strace and LANL
 * readers: most lines fall in the second of the one before). */
static inline bool tx_clock15c(const char *p, struct tx_hms *k, uint64_t *ns)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t a, b;
	memcpy(&a, p, 8);
	if (a != k->a) {
		if (!tx_clock15n(p, ns))
			return false;
		k->a = a;
		k->ns = *ns - *ns % 1000000000ull;   /* the microseconds: below 1 s */
		return true;
	}
	/* "S.uuuuuu": its S is the last of the bytes compared; the '.', then
	 * six digits (as "00uuuuuu") */
	memcpy(&b, p + 7, 8);
	if ((b & 0xff00ull) != 0x2e00ull)
		return false;
	b = (b & ~0xffffull) | 0x3030ull;
	if (scan_first_nondigit8(b))
		return false;
	*ns = k->ns + scan_value8(b) * 1000;
	return true;
#else
	(void)k;
	return tx_clock15n(p, ns);
#endif
}

/* "S.uuuuuu" (8 bytes: one digit of seconds, six of microseconds), the
 * duration strace -T prints for nearly every call, as ns; false for
 * anything else.  p has 8 readable bytes. */
static inline bool tx_dur8(const char *p, uint64_t *ns)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t b;
	memcpy(&b, p, 8);
	if ((b & 0xff00ull) != 0x2e00ull)
		return false;
	b = (b & ~0xff00ull) | 0x3000ull;       /* "S0uuuuuu": every byte a digit */
	if (scan_first_nondigit8(b))
		return false;
	*ns = ((b & 0xff) - '0') * 1000000000ull + scan_value8(b & ~0xffffull) * 1000;
	return true;
#else
	uint64_t s, us;
	if (!tx_dec(p, 1, &s) || p[1] != '.' || !tx_dec(p + 2, 6, &us))
		return false;
	*ns = s * 1000000000ull + us * 1000;
	return true;
#endif
}

#endif
