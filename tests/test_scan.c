/* test_scan.c - the byte scanners and the 8-digit reader (util/scan.h),
 * checked against plain loops on random text; the line reader (lr_next)
 * on lines across its buffer boundaries, without a final newline, and
 * over its length bound. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "util/scan.h"
#include "util/util.h"

static size_t ref_skip(const char *s, size_t n, size_t i, const char *set)
{
	for (; i < n; i++)
		if (!memchr(set, s[i], strlen(set)))
			return i;
	return n;
}

static size_t ref_any(const char *s, size_t n, size_t i, const char *set)
{
	for (; i < n; i++)
		if (memchr(set, s[i], strlen(set)))
			return i;
	return n;
}

/* Random text over a small alphabet, so the wanted bytes come at every
 * distance from the start, inside and across 16-byte blocks. */
static void fill(char *s, size_t n, unsigned *seed)
{
	static const char abc[] = "ab\"\\<>x0 ,";
	for (size_t i = 0; i < n; i++)
		s[i] = rand_r(seed) % 8 ? 'a' + (char)(rand_r(seed) % 3) :
					  abc[rand_r(seed) % (sizeof(abc) - 1)];
}

static void t_scan_any(void **state)
{
	(void)state;
	unsigned seed = 7;
	char s[80];
	for (int it = 0; it < 200000; it++) {
		size_t n = (size_t)(rand_r(&seed) % 70), i = (size_t)(rand_r(&seed) % 75);
		fill(s, sizeof(s), &seed);
		assert_int_equal(scan_any2(s, n, i, '"', '\\'), ref_any(s, n, i, "\"\\"));
		assert_int_equal(scan_any3(s, n, i, '\\', '<', '>'), ref_any(s, n, i, "\\<>"));
		assert_int_equal(scan_skip2(s, n, i, 'a', 'b'), ref_skip(s, n, i, "ab"));
		/* runs of padding of every length, as in aligned columns */
		size_t run = (size_t)(rand_r(&seed) % 70);
		memset(s, ' ', run < n ? run : n);
		if (rand_r(&seed) % 2 && run + 1 < n)
			s[run / 2] = '\t';
		assert_int_equal(scan_skip2(s, n, i, ' ', '\t'), ref_skip(s, n, i, " \t"));
	}
	/* nothing past n is looked at, even when it matches */
	memset(s, 'a', sizeof(s));
	s[40] = '"';
	assert_int_equal(scan_any2(s, 40, 0, '"', '\\'), 40);
	assert_int_equal(scan_any2(s, 41, 0, '"', '\\'), 40);
	assert_int_equal(scan_any2(s, 41, 41, '"', '\\'), 41);
	s[3] = '>';
	assert_int_equal(scan_any3(s, 41, 4, '\\', '<', '>'), 41);
	assert_int_equal(scan_any3(s, 41, 3, '\\', '<', '>'), 3);
	memset(s, ' ', sizeof(s));
	s[40] = 'x';
	assert_int_equal(scan_skip2(s, 40, 0, ' ', '\t'), 40);
	assert_int_equal(scan_skip2(s, 41, 0, ' ', '\t'), 40);
	assert_int_equal(scan_skip2(s, 41, 41, ' ', '\t'), 41);
}

static void t_dec8(void **state)
{
	(void)state;
	unsigned seed = 11;
	char s[16];
	for (int it = 0; it < 500000; it++) {
		for (size_t i = 0; i < sizeof(s); i++) {
			int r = rand_r(&seed) % 16;
			s[i] = r < 12 ? (char)('0' + r % 10) : "/:a\xff"[r - 12];
		}
		if (it % 5 == 0)         /* any byte at all */
			for (size_t i = 0; i < sizeof(s); i++)
				s[i] = (char)(rand_r(&seed) & 0xff);
		size_t n = (size_t)(rand_r(&seed) % 13);
		uint64_t want = 0, got = 99;
		unsigned k = 0;
		while (k < n && k < 8 && s[k] >= '0' && s[k] <= '9')
			want = want * 10 + (uint64_t)(s[k] - '0'), k++;
		assert_int_equal(scan_dec8(s, n, &got), k);
		assert_int_equal(got, want);
		/* eight bytes readable: scan_dec8w reads them as scan_dec8 */
		uint64_t w8 = 99;
		assert_int_equal(scan_dec8w(s, &w8), scan_dec8(s, 8, &got));
		assert_int_equal(w8, got);
		/* scan_first_nondigit8 marks the first byte scan_nondigits8
		 * does, and nothing before it; scan_value8 is the sum of the
		 * low nibbles, each ten times the next */
		uint64_t x, y = 0;
		memcpy(&x, s, 8);
		uint64_t all = scan_nondigits8(x), first = scan_first_nondigit8(x);
		assert_true((all == 0) == (first == 0));
		if (all)
			assert_int_equal(__builtin_ctzll(all) / 8, __builtin_ctzll(first) / 8);
		for (int j = 0; j < 8; j++)
			y = y * 10 + ((unsigned char)s[j] & 0x0f);
		assert_int_equal(scan_value8(x), y);
	}
	uint64_t v;
	assert_int_equal(scan_dec8("99999999", 8, &v), 8);
	assert_int_equal(v, 99999999);
	assert_int_equal(scan_dec8("00000012x", 9, &v), 8);
	assert_int_equal(v, 12);
	assert_int_equal(scan_dec8("1234567", 7, &v), 7);   /* short span: bytewise */
	assert_int_equal(v, 1234567);
	assert_int_equal(scan_dec8("x2345678", 8, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(scan_pow10[19], 10000000000000000000ull);
}

/* A file of the given bytes, opened with lr_open. */
static char *tmpfile_with(const char *data, size_t n)
{
	char *path = strdup("/tmp/test_scan.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, data + off, n - off);
		assert_true(w > 0);
		off += (size_t)w;
	}
	close(fd);
	return path;
}

/* scan_decn against a digit-at-a-time loop with its own overflow test:
 * runs of every length up to 30 (zeros in front, values at 2^64 - 1 and
 * just past it), cut by the span's end or a non-digit. */
static void t_decn(void **state)
{
	(void)state;
	unsigned seed = 29;
	char s[40];
	for (int it = 0; it < 300000; it++) {
		size_t run = (size_t)(rand_r(&seed) % 31), n = (size_t)(rand_r(&seed) % 36);
		for (size_t i = 0; i < sizeof(s); i++)
			s[i] = i < run ? (char)('0' + (it % 3 ? rand_r(&seed) % 10 : 0)) : "x /9"[rand_r(&seed) % 4];
		if (it % 7 == 0 && run > 2)
			s[rand_r(&seed) % run] = 'a';
		uint64_t want = 0, got = 7;
		bool wovf = false, ovf = true;
		size_t k = 0;
		for (; k < n && s[k] >= '0' && s[k] <= '9'; k++)
			if (__builtin_mul_overflow(want, 10, &want) ||
			    __builtin_add_overflow(want, (uint64_t)(s[k] - '0'), &want))
				wovf = true;
		assert_int_equal(scan_decn(s, n, &got, &ovf), k);
		assert_int_equal(ovf, wovf);
		if (!wovf)
			assert_int_equal(got, want);
	}
	uint64_t v;
	bool ovf;
	assert_int_equal(scan_decn("18446744073709551615", 20, &v, &ovf), 20);
	assert_false(ovf);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(scan_decn("18446744073709551616", 20, &v, &ovf), 20);
	assert_true(ovf);
	assert_int_equal(scan_decn("000000000000000000000000042 ", 28, &v, &ovf), 27);
	assert_false(ovf);
	assert_int_equal(v, 42);
	assert_int_equal(scan_decn("", 0, &v, &ovf), 0);
	assert_int_equal(v, 0);
}

/* scan_dec16 against a byte loop: fields of 0 to 20 bytes, digits with
 * now and then one other byte, followed by digits or anything (what
 * follows the field must not count). */
static void t_dec16(void **state)
{
	(void)state;
	unsigned seed = 31;
	char s[48];
	for (int it = 0; it < 300000; it++) {
		size_t n = (size_t)(rand_r(&seed) % 21);
		for (size_t i = 0; i < sizeof(s); i++)
			s[i] = (char)(rand_r(&seed) % 3 ? '0' + rand_r(&seed) % 10 : rand_r(&seed) % 256);
		for (size_t i = 0; i < n; i++)
			s[i] = (char)('0' + rand_r(&seed) % 10);
		if (n && it % 5 == 0)
			s[rand_r(&seed) % n] = "x /:\0a9"[rand_r(&seed) % 7];
		bool want = n >= 1 && n <= 16;
		uint64_t wv = 0, got = 0;
		for (size_t i = 0; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				want = false;
			wv = wv * 10 + (uint64_t)(s[i] - '0');
		}
		bool ok = scan_dec16(s, n, &got);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (ok != want || (ok && got != wv))
			fail_msg("'%.*s' (%zu bytes): got %d %llu, want %d %llu", (int)n, s, n, ok,
				 (unsigned long long)got, want, (unsigned long long)wv);
#else
		assert_false(ok);
#endif
	}
}

static void t_lines_across_blocks(void **state)
{
	(void)state;
	/* lines of every length from 0 to 300 repeated past several reads
	 * (the first buffer is 64 KiB): each comes back whole, in order */
	size_t cap = 1u << 21, n = 0, want_lines = 0;
	char *data = malloc(cap);
	assert_non_null(data);
	for (size_t len = 0; n + len + 1 < cap - 400; len = (len + 1) % 301) {
		for (size_t k = 0; k < len; k++)
			data[n + k] = (char)('a' + (len + k) % 26);
		n += len;
		data[n++] = '\n';
		want_lines++;
	}
	memcpy(data + n, "tail", 4);            /* last line without '\n' */
	n += 4;
	want_lines++;
	char *path = tmpfile_with(data, n);
	struct linereader lr;
	assert_int_equal(lr_open(&lr, path), 0);
	char *line;
	size_t len, pos = 0, lines = 0;
	int rc;
	while ((rc = lr_next(&lr, &line, &len)) == 1) {
		lines++;
		assert_int_equal(lr.lineno, lines);
		assert_memory_equal(line, data + pos, len);
		assert_int_equal(line[len], '\0');
		pos += len;
		if (pos < n) {
			assert_int_equal(data[pos], '\n');
			pos++;
		}
	}
	assert_int_equal(rc, 0);
	assert_int_equal(lines, want_lines);
	assert_int_equal(pos, n);
	lr_close(&lr);
	unlink(path);
	free(path);
	free(data);
}

/* lr_next_ctrl over 2 MiB of random lines (lengths 0 to 300, one over
 * LR_MAX) in which a byte now and then is a control byte, a tab, DEL or
 * above 0x7f: each line comes back as lr_next returns it, and *ctrl is
 * the index a plain loop finds (the first byte below 0x20 but a tab, or
 * DEL; len when none), also when it lies in a part read before a refill. */
static void t_lines_ctrl(void **state)
{
	(void)state;
	static const unsigned char odd[] = { 0, 1, '\t', '\r', 0x0b, 0x1f, 0x7f, 0x80, 0xc3, 0xff, ' ' };
	size_t cap = (1u << 21) + 2 * (LR_MAX + 16), n = 0;
	char *data = malloc(cap);
	assert_non_null(data);
	unsigned seed = 12345;
	for (size_t i = 0; n < (1u << 21); i++) {
		seed = seed * 1103515245u + 12345u;
		size_t len = (seed >> 8) % 301;
		if (i == 3000)
			len = LR_MAX + 5;               /* reported as too long */
		for (size_t k = 0; k < len; k++) {
			seed = seed * 1103515245u + 12345u;
			unsigned r = seed >> 16;
			data[n + k] = r % 97 == 0 ? (char)odd[(r / 97) % sizeof(odd)] : (char)('a' + r % 26);
		}
		n += len;
		data[n++] = '\n';
	}
	memcpy(data + n, "t\001il", 5);           /* last line without '\n' */
	n += 5;
	char *path = tmpfile_with(data, n);
	struct linereader a, b, li;
	assert_int_equal(lr_open(&a, path), 0);
	assert_int_equal(lr_open(&b, path), 0);
	assert_int_equal(lr_open(&li, path), 0);
	char *la, *lb, *lc;
	size_t na, nb, nc, ctrl, cc, lines = 0, with = 0, toolong = 0, calls = 0;
	int ra, rb, rc;
	do {
		ra = lr_next(&a, &la, &na);
		ctrl = 12345;
		rb = lr_next_ctrl(&b, &lb, &nb, &ctrl);
		assert_int_equal(ra, rb);
		assert_int_equal(a.lineno, b.lineno);
		/* lr_next_ctrl_inline, now and then lr_next_ctrl or lr_next on
		 * the same reader (each must forget the look-ahead the inline
		 * one keeps): the same lines, control bytes and line numbers */
		cc = 54321;
		++calls;
		rc = calls % 11 == 0 ? lr_next(&li, &lc, &nc) :
		     calls % 7 == 0  ? lr_next_ctrl(&li, &lc, &nc, &cc) :
				       lr_next_ctrl_inline(&li, &lc, &nc, &cc);
		assert_int_equal(rc, rb);
		assert_int_equal(li.lineno, b.lineno);
		if (rb == 1) {
			assert_int_equal(nc, nb);
			assert_memory_equal(lc, lb, nb);
			assert_int_equal(lc[nc], 0);
			if (calls % 11)
				assert_int_equal(cc, ctrl);
		}
		if (rb == -E2BIG)
			toolong++;
		if (rb != 1)
			continue;
		lines++;
		assert_int_equal(na, nb);
		assert_memory_equal(la, lb, nb);
		size_t want = nb;
		for (size_t k = 0; k < nb; k++) {
			unsigned char c = (unsigned char)lb[k];
			if ((c < 0x20 && c != '\t') || c == 0x7f) {
				want = k;
				break;
			}
		}
		assert_int_equal(ctrl, want);
		with += want < nb;
	} while (ra != 0);
	assert_true(lines > 5000);
	assert_true(with > 1000 && with < lines);       /* both kinds seen */
	assert_true(toolong > 0);
	lr_close(&a);
	lr_close(&b);
	lr_close(&li);
	unlink(path);
	free(path);
	free(data);
}

/* lr_next_block, alternating with lr_next, over the lines of
 * t_lines_across_blocks and an over-long one: every line comes back once,
 * in order, split from the blocks at their '\n's; LR_PAD bytes after each
 * line's end are read (AddressSanitizer checks they are the buffer's). */
static void t_blocks(void **state)
{
	(void)state;
	size_t cap = (1u << 21) + LR_MAX + 64, n = 0, want_lines = 0, blocks = 0;
	char *data = malloc(cap);
	assert_non_null(data);
	for (size_t len = 0; n < (1u << 21); len = (len + 7) % 301) {
		for (size_t k = 0; k < len; k++)
			data[n + k] = (char)('a' + (len + k) % 26);
		n += len;
		data[n++] = '\n';
		want_lines++;
		if (want_lines == 5000) {       /* one line over LR_MAX */
			memset(data + n, 'L', LR_MAX + 10);
			n += LR_MAX + 10;
			data[n++] = '\n';
		}
	}
	memcpy(data + n, "tail", 4);
	n += 4;
	want_lines++;
	char *path = tmpfile_with(data, n);
	struct linereader lr;
	assert_int_equal(lr_open(&lr, path), 0);
	char *b;
	size_t len, pos = 0, lines = 0, toolong = 0;
	int rc;
	volatile unsigned sum = 0;
	for (int k = 0; (rc = k % 3 ? lr_next_block(&lr, &b, &len) : lr_next(&lr, &b, &len)) != 0; k++) {
		if (rc == -E2BIG) {
			toolong++;
			assert_int_equal(data[pos], 'L');
			pos += LR_MAX + 11;
			continue;
		}
		assert_int_equal(rc, 1);
		blocks++;
		for (char *p = b, *end = b + len;; p++) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				nl = end;
			*nl = '\0';
			for (int i = 1; i <= LR_PAD; i++)
				sum += (unsigned char)nl[i];
			assert_memory_equal(p, data + pos, (size_t)(nl - p));
			pos += (size_t)(nl - p);
			lines++;
			if (pos < n) {
				assert_int_equal(data[pos], '\n');
				pos++;
			}
			if (nl == end)
				break;
			p = nl;
		}
	}
	(void)sum;
	assert_int_equal(toolong, 1);
	assert_int_equal(lines, want_lines);
	assert_int_equal(pos, n);
	assert_true(blocks < lines / 50);       /* most come many to a block */
	lr_close(&lr);
	unlink(path);
	free(path);
	free(data);
}

static void t_line_too_long(void **state)
{
	(void)state;
	size_t big = LR_MAX + 100, n = 0;
	char *data = malloc(big + 64);
	assert_non_null(data);
	memcpy(data, "first\n", 6);
	n = 6;
	memset(data + n, 'x', big);
	n += big;
	data[n++] = '\n';
	memcpy(data + n, "after\n", 6);
	n += 6;
	char *path = tmpfile_with(data, n);
	struct linereader lr;
	char *line;
	size_t len;
	assert_int_equal(lr_open(&lr, path), 0);
	assert_int_equal(lr_next(&lr, &line, &len), 1);
	assert_string_equal(line, "first");
	assert_int_equal(lr_next(&lr, &line, &len), -E2BIG);   /* reported, skipped */
	assert_int_equal(len, big);                            /* its length */
	assert_int_equal(lr.lineno, 2);
	assert_int_equal(lr_next(&lr, &line, &len), 1);
	assert_string_equal(line, "after");
	assert_int_equal(lr.lineno, 3);
	assert_int_equal(lr_next(&lr, &line, &len), 0);
	lr_close(&lr);
	unlink(path);
	free(path);
	/* the same line last, with no '\n': its length too */
	path = tmpfile_with(data, 6 + big);
	assert_int_equal(lr_open(&lr, path), 0);
	assert_int_equal(lr_next(&lr, &line, &len), 1);
	assert_int_equal(lr_next(&lr, &line, &len), -E2BIG);
	assert_int_equal(len, big);
	assert_int_equal(lr_next(&lr, &line, &len), 0);
	lr_close(&lr);
	unlink(path);
	free(path);
	/* a line of several times the limit: its whole length */
	free(data);
	big = 3 * LR_MAX + 12345;
	data = malloc(big + 64);
	assert_non_null(data);
	memset(data, 'x', big);
	data[big] = '\n';
	memcpy(data + big + 1, "after\n", 6);
	path = tmpfile_with(data, big + 7);
	assert_int_equal(lr_open(&lr, path), 0);
	assert_int_equal(lr_next(&lr, &line, &len), -E2BIG);
	assert_int_equal(len, big);
	assert_int_equal(lr_next(&lr, &line, &len), 1);
	assert_string_equal(line, "after");
	lr_close(&lr);
	unlink(path);
	free(path);
	free(data);
}

/* path_join_buf: the usual paths at once, the same result as the long
 * way for any input (random paths of "a", "bc", ".", "..", "...", ".x",
 * "x." and empty components, absolute or not, with and without a dir) */
static void t_path_join(void **state)
{
	(void)state;
	static const struct { const char *dir, *rel, *want; } fixed[] = {
		{ NULL, "/lus/scratch/run/img_0001.npz", "/lus/scratch/run/img_0001.npz" },
		{ "/lus/scratch", "run/out.0", "/lus/scratch/run/out.0" },
		{ "/", "a", "/a" },
		{ NULL, "/", "/" },
		{ "/a/b", "../c", "/a/c" },
		{ "/a", "./b/", "/a/b" },
		{ NULL, "//a//b/.", "/a/b" },
		{ NULL, "/..", "/" },
		{ "d", "..", "." },
		{ NULL, "../../x", "../../x" },
		{ NULL, "", "." },
		{ "/a", "...", "/a/..." },
		{ "/a", ".hidden/x.", "/a/.hidden/x." },
	};
	char out[600], ref[600];
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		size_t n = path_join_buf(out, fixed[i].dir, fixed[i].rel);
		if (strcmp(out, fixed[i].want) || n != strlen(out))
			fail_msg("join('%s', '%s') = '%s' (%zu), expected '%s'",
				 fixed[i].dir ? fixed[i].dir : "(none)", fixed[i].rel, out, n, fixed[i].want);
	}
	static const char *parts[] = { "a", "bc", ".", "..", "...", ".x", "x.", "", "d.e" };
	unsigned seed = 12345;
	for (int it = 0; it < 200000; it++) {
		char dir[256], rel[256];
		char *ps[2] = { dir, rel };
		for (int k = 0; k < 2; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t n = 0, np = (seed >> 16) % 6;
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 16) & 1)
				ps[k][n++] = '/';
			for (size_t j = 0; j < np; j++) {
				seed = seed * 1103515245u + 12345u;
				const char *q = parts[(seed >> 16) % 9];
				if (j)
					ps[k][n++] = '/';
				memcpy(ps[k] + n, q, strlen(q));
				n += strlen(q);
			}
			seed = seed * 1103515245u + 12345u;
			if (((seed >> 16) & 7) == 0)
				ps[k][n++] = '/';
			ps[k][n] = 0;
		}
		seed = seed * 1103515245u + 12345u;
		const char *d = (seed >> 16) & 1 ? dir : NULL;
		size_t n = path_join_buf(out, d, rel), m = path_join_general(ref, d, rel);
		if (strcmp(out, ref) || n != m)
			fail_msg("join('%s', '%s'): '%s', the long way '%s'", d ? d : "(none)", rel, out, ref);
	}
}

/* The first of " / < ( ) [ ] { } , from i, byte by byte. */
static size_t args_spec_slow(const char *s, size_t n, size_t i)
{
	while (i < n && !strchr("\"/<()[]{},", s[i] ? s[i] : 'a'))
		i++;
	return i;
}

/* scan_args_spec from a fresh walk */
static size_t scan_args_spec(const char *s, size_t n, size_t i)
{
	struct scan_cur c = SCAN_CUR_INIT;
	return scan_args_next(s, n, i, &c);
}

/* scan_args_next finds the first of " / < ( ) [ ] { } , as a byte-by-byte
 * search does: every byte value at every place in spans of every length
 * up to 40, random spans, and walks that step past each find or jump. */
static void t_args_spec(void **state)
{
	(void)state;
	char buf[64];
	for (int c = 0; c < 256; c++)
		for (size_t n = 1; n <= 40; n++)
			for (size_t at = 0; at < n; at += 3) {
				memset(buf, 'a', sizeof(buf));
				buf[at] = (char)c;
				size_t want = args_spec_slow(buf, n, 0) < n ? at : n;
				for (size_t i = 0; i <= at; i += 5)
					if (scan_args_spec(buf, n, i) != want)
						fail_msg("byte 0x%02x at %zu of %zu from %zu: %zu, expected %zu",
							 c, at, n, i, scan_args_spec(buf, n, i), want);
			}
	unsigned seed = 7;
	for (int it = 0; it < 100000; it++) {
		size_t n = 0;
		seed = seed * 1103515245u + 12345u;
		n = (seed >> 16) % 64;
		for (size_t k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			unsigned r = (seed >> 16) & 0xff;
			buf[k] = (char)((r & 7) ? 'A' + (r % 60) : r);   /* mostly letters */
		}
		seed = seed * 1103515245u + 12345u;
		size_t i = n ? (seed >> 16) % (n + 1) : 0;
		assert_int_equal(scan_args_spec(buf, n, i), args_spec_slow(buf, n, i));
	}
	/* scan_args_next: the same answers on a walk that steps past each
	 * find or jumps ahead (as split() does past a quoted string) */
	for (int it = 0; it < 100000; it++) {
		char w[200];
		seed = seed * 1103515245u + 12345u;
		size_t n = (seed >> 16) % sizeof(w);
		for (size_t k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			unsigned r = (seed >> 16) & 0xff;
			w[k] = (char)((r & 3) ? 'a' + (r % 26) : r);
		}
		struct scan_cur cur = SCAN_CUR_INIT;
		size_t i = 0;
		for (;;) {
			size_t got = scan_args_next(w, n, i, &cur), want = args_spec_slow(w, n, i);
			if (got != want)
				fail_msg("walk %d: from %zu of %zu: %zu, expected %zu", it, i, n, got, want);
			if (got >= n)
				break;
			seed = seed * 1103515245u + 12345u;
			i = got + 1 + ((seed >> 16) % 4 == 0 ? (seed >> 20) % 40 : 0);
			if (i > n)
				break;
		}
	}
	/* the set itself */
	const char *set = "\"/<()[]{},";
	for (int c = 0; c < 256; c++)
		assert_int_equal(scan_is_args_spec((char)c), c && strchr(set, c) != NULL);
}

/* scan_nest against a plain loop over scan_is_nest, on text where the
 * bytes it stops at (and the comma it must not) come at every distance;
 * the set is scan_is_args_spec's without the comma. */
static void t_nest(void **state)
{
	(void)state;
	static const char abc[] = "\"/<()[]{},a x_\\>*";
	unsigned seed = 5;
	char s[80];
	for (int it = 0; it < 200000; it++) {
		size_t n = (size_t)(rand_r(&seed) % 70), i = (size_t)(rand_r(&seed) % 75);
		for (size_t k = 0; k < sizeof(s); k++)
			s[k] = rand_r(&seed) % 6 ? 'a' + (char)(rand_r(&seed) % 3) :
						   abc[rand_r(&seed) % (sizeof(abc) - 1)];
		size_t want = i;
		while (want < n && !scan_is_nest(s[want]))
			want++;
		if (want > n)
			want = n;
		assert_int_equal(scan_nest(s, n, i), want);
	}
	for (int c = 0; c < 256; c++)
		assert_int_equal(scan_is_nest((char)c), c && c != ',' && strchr("\"/<()[]{}", c) != NULL);
}

/* scan_name16: how many bytes from the first are [A-Za-z0-9_], at most
 * 16, for every byte in every position. */
static void t_name16(void **state)
{
	(void)state;
	char s[16];
	for (int c = 0; c < 256; c++) {
		bool name = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || c == '_';
		for (unsigned at = 0; at < 16; at++) {
			memcpy(s, "pwrite64_Z09azAZ", 16);
			s[at] = (char)c;
			assert_int_equal(scan_name16(s), name ? 16 : at);
		}
	}
	assert_int_equal(scan_name16("getpid()\0\0\0\0\0\0\0"), 6);
	assert_int_equal(scan_name16("(x\0\0\0\0\0\0\0\0\0\0\0\0\0"), 0);
}

/* scan_words16 equals the words of a NUL-padded copy of the first n
 * bytes, whatever follows them. */
static void t_words16(void **state)
{
	(void)state;
	const char text[] = "MPI_File_read_at_all(xyz, 0123456789";
	for (size_t n = 0; n <= 16; n++) {
		char pad[16] = { 0 };
		uint64_t want[2], got[2];
		memcpy(pad, text, n);
		memcpy(want, pad, 16);
		scan_words16(text, n, got);
		assert_true(got[0] == want[0] && got[1] == want[1]);
	}
}

/* file_is_stream: "-", FIFOs and character devices are read once; files,
 * directories and missing paths are not (a missing one fails later, at
 * its open, with its own message). */
static void t_file_is_stream(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_scan_fifo.XXXXXX", fifo[64], file[64];
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/f", dir);
	snprintf(file, sizeof(file), "%s/r", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(file_is_stream("-"), 1);
	assert_int_equal(file_is_stream(fifo), 1);
	assert_int_equal(file_is_stream("/dev/null"), 1);
	assert_int_equal(file_is_stream(file), 0);
	assert_int_equal(file_is_stream(dir), 0);
	assert_int_equal(file_is_stream("/nonexistent/x"), 0);
	unlink(fifo);
	unlink(file);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_scan_any),
		cmocka_unit_test(t_dec8),
		cmocka_unit_test(t_decn),
		cmocka_unit_test(t_dec16),
		cmocka_unit_test(t_lines_across_blocks),
		cmocka_unit_test(t_line_too_long),
		cmocka_unit_test(t_blocks),
		cmocka_unit_test(t_lines_ctrl),
		cmocka_unit_test(t_path_join),
		cmocka_unit_test(t_args_spec),
		cmocka_unit_test(t_file_is_stream),
		cmocka_unit_test(t_words16),
		cmocka_unit_test(t_nest),
		cmocka_unit_test(t_name16),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
