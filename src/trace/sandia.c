/*
 * sandia.c - Sandia libsysio trace parser (`.sanitized` files of the
 * alegra / CTH / S3D traces, SNL_Trace_Data).
 *
 * Only one event line and the header pattern were ever SEEN (formats/
 * README.md §3); field names beyond fd() and ziovec(base()len()) are
 * INFERRED.  So every line is parsed generically as name(value) pairs with
 * nested parentheses, the call's fields are looked up under a few plausible
 * names, and unknown fields and calls are ignored (calls: fed as SC_SKIP so
 * they are counted by name).
 *
 * ENTER and EXIT lines pair by call name within a process (the innermost
 * open ENTER of that name); the event is fed at EXIT with the ENTER's time
 * and the traced duration.  Async submits (ireadv, iwritev, ireadx,
 * iwritex, ifsync, ifdatasync) are paired with the iowait that names their
 * I/O id, or, when ids are not traced, with the oldest outstanding one.
 *
 * Speed: an ENTER line is read in a copy (with LR_PAD bytes after it,
 * like lr_next's) in its rank's next free ENTER slot, so it keeps it as
 * it is.  Lines of the usual shape take a quick way (fields_fast: the
 * tracetype/time/time/str start read at once, with the times; a field per
 * 16-byte window; iovec_plain for base()len() values); anything else goes
 * the general way (fields_parse_gen and the checks after it), which
 * decides every error.  The quick way gives what the general one would.
 * The commonest lines after their call's name are read whole (fp_ioid: a
 * submit's EXIT, an iowait's ENTER and EXIT; fp_fdiov: a submit's or an
 * lseek's ENTER), their values noted with their fields, so that do_call,
 * iovec_total, h_lseek and iowait_done need not look them up.  An EXIT is
 * read in the line reader's buffer, an ENTER in its copy.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "trace/trace.h"
#include "parse_common.h"
#include "util/scan.h"

#define NS_PER_S  1000000000ull
#define SYNTH_PID 0x50000000LL
#define SMAXPEND  4096
#define PATH_BUF  4096
#define CCACHE    64            /* call names remembered (direct-mapped;
                                 * call_index's hash has 6 bits) */
#define NIDS      128           /* field name ids: 0 (a name no list
                                 * holds) and one per name the lists hold */
#define NSLOTS_LOG 10           /* name_tab has 1 << NSLOTS_LOG slots     */

struct sfield {                 /* a field's value (its name is known by
	                             * its id alone: nothing reads it)    */
	const char *val;
	size_t vlen;
	unsigned id;                /* name_id() of the name               */
};

struct sfields {
	struct sfield *f;
	size_t n, cap;
	uint64_t have[NIDS / 64];   /* bit id: a field of that name is here */
	uint8_t first[NIDS];        /* for an id in have: the index of the
	                             * first field of that name (0 when that
	                             * index is over 255: a lookup starts
	                             * there) */
	bool pre;                   /* fp_prefix made fields 0 to 3: tracetype,
	                             * time, time, str                   */
	bool ts_ok;                 /* fp_prefix read the two time:() values */
	uint64_t ts;                /* and this is event_time's answer      */
	/* fp_prefix's memory of the last seconds it read (they change
	 * seldom): tn digits and ')' in tb (tn 0: none), their value in
	 * tv, and whether fp_dec reads them (tok) */
	char tb[16];
	unsigned char tn;
	bool tok;
	uint64_t tv;
	/* fp_ioid's shapes (SH_NONE: another line, or the general way):
	 * after the call's name, the line holds ioid(0xHEX) alone
	 * (SH_IOID: a submit's EXIT, an iowait's ENTER) or with cc(DIGITS)
	 * (SH_IOID_CC: an iowait's EXIT), and ioid and cc hold those values
	 * as val_num reads them; or fp_fdiov's fd(N), ziovecs and xtvecs
	 * (SH_FDIOV: a submit's ENTER), and fd, iov_total and iov_cnt hold
	 * what field_num(F_FD) and iovec_total make of them; or fd(N),
	 * offset(N) and whence(N) (SH_FDSEEK: an lseek's ENTER), fd, off
	 * and whence what field_num and whence_of make of them */
	unsigned char shape;
	int64_t ioid, cc, fd, off;
	int whence;
	uint64_t iov_total;
	uint32_t iov_cnt;
};

enum { SH_NONE, SH_IOID, SH_IOID_CC, SH_FDIOV, SH_FDSEEK };

/* A field name's first 8 bytes, A-Z folded to a-z (strncasecmp's folding
 * in the C locale), packed into a word: most names compare in one step.
 * With `avail` >= 8 bytes readable at s, one load and no loop: the bytes
 * past the name masked off, A-Z given 0x20 (a byte's 0x80 bit is set by
 * adding 0x80-'A' but not by adding 0x80-'Z'-1; names are ASCII). */
static inline uint64_t name_key(const char *s, size_t n, size_t avail)
{
	uint64_t k = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (avail >= 8 && n) {
		memcpy(&k, s, 8);
		if (n < 8)
			k &= (1ull << (8 * n)) - 1;
		uint64_t lo = k & 0x7f7f7f7f7f7f7f7full;
		uint64_t up = ((lo + 0x3f3f3f3f3f3f3f3full) ^ (lo + 0x2525252525252525ull)) &
			      ~k & 0x8080808080808080ull;
		return k | up >> 2;
	}
#endif
	(void)avail;
	for (size_t i = 0; i < n && i < 8; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c + 32);
		k |= (uint64_t)c << (8 * i);
	}
	return k;
}

/* The names the lookup lists hold, each with an id (1 up), and a
 * field's name is given the id of the list name it equals (as
 * strncasecmp() in the C locale compares; 0 when none), so that a lookup
 * is a bit test and an index.  Every list name has 16 bytes at most: the
 * key of the first 8 and name_key2[id] of the next ones tell them apart.
 * name_tab holds them by name_key() of their first 8 bytes, hashed with a
 * multiplier fnames_init picks so that no two share a slot: one probe. */
static struct nslot {
	uint64_t key;               /* 0: free slot                        */
	uint32_t n, id;
} name_tab[1u << NSLOTS_LOG];
static uint64_t name_key2[NIDS], name_mul;
static unsigned name_ids;       /* ids given                           */

/* fnames_init gives the lists' names ids in the order of fname_lists:
 * those of fp_prefix's fields come first, and are constants. */
enum { ID_TRACETYPE = 1, ID_TIME, ID_STR };

static inline unsigned name_slot(uint64_t key, uint64_t mul)
{
	return (unsigned)((key * mul) >> (64 - NSLOTS_LOG));
}

/* The id of an n-byte name (n <= 16) by name_key() of its first 8 bytes
 * and, when n > 8, of the next ones (key2). */
static inline unsigned name_id_key(uint64_t key, uint64_t key2, size_t n)
{
	const struct nslot *t = &name_tab[name_slot(key, name_mul)];
	if (t->key != key)
		return 0;
	/* under 8 bytes the key holds the length too (no name has a NUL) */
	if (n >= 8 && (t->n != n || (n > 8 && key2 != name_key2[t->id])))
		return 0;
	return t->id;
}

/* The id of the n-byte name at s (avail bytes readable there; with n > 8,
 * 8 more are readable at s + 8: a name lies in a line with LR_PAD bytes
 * after it). */
static inline unsigned name_id(const char *s, size_t n, size_t avail)
{
	if (n > 16)
		return 0;
	return name_id_key(name_key(s, n, avail), n > 8 ? name_key(s + 8, n - 8, 8) : 0, n);
}

static inline bool fields_has(const struct sfields *fs, unsigned id)
{
	return fs->have[id / 64] >> (id % 64) & 1;
}

/* Field k (its name's id) added to a set: have and first[]. */
static inline void fields_note(struct sfields *out, size_t k, unsigned id)
{
	if (!fields_has(out, id)) {
		out->first[id] = k <= UINT8_MAX ? (uint8_t)k : 0;
		out->have[id / 64] |= 1ull << (id % 64);
	}
}

/* Bytes of a field name: alnum, '_', '-', '.' */
static const unsigned char name_byte[256] = {
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
	['8'] = 1, ['9'] = 1, ['_'] = 1, ['-'] = 1, ['.'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
	['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
	['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
	['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
	['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
};

/* The ')' that closes a '(' just before s[i], parentheses nesting in
 * between; len when there is none. */
static size_t paren_close(const char *s, size_t len, size_t i)
{
	unsigned long depth = 1;
	for (; (i = scan_any2(s, len, i, '(', ')')) < len; i++)
		if (s[i] == '(')
			depth++;
		else if (--depth == 0)
			return i;
	return len;
}

/* Parse "name(value)name:(value) ..." with nested parentheses in values.
 * Returns 0 or -EINVAL with *why.  (The general way; fields_parse tries
 * fields_fast first.) */
static int fields_parse_gen(const char *s, size_t len, struct sfields *out, const char **why)
{
	out->n = 0;
	out->have[0] = out->have[1] = 0;
	out->pre = out->ts_ok = false;
	out->shape = SH_NONE;
	size_t i = 0;
	for (;;) {
		while (i < len && tx_space(s[i]))
			i++;
		if (i >= len)
			return 0;
		size_t ns = i;
		while (i < len && name_byte[(unsigned char)s[i]])
			i++;
		size_t ne = i;
		if (i < len && s[i] == ':')
			i++;
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (ne == ns || i >= len || s[i] != '(') {
			*why = "expected 'name(value)'";
			return -EINVAL;
		}
		size_t vs = ++i;
		i = paren_close(s, len, i);
		if (i >= len) {
			*why = "expected ')' closing a field value";
			return -EINVAL;
		}
		if (out->n == out->cap) {
			size_t nc = out->cap ? out->cap * 2 : 32;
			void *p = realloc(out->f, nc * sizeof(*out->f));
			if (!p) {
				*why = "out of memory";
				return -ENOMEM;
			}
			out->f = p;
			out->cap = nc;
		}
		unsigned id = name_id(s + ns, ne - ns, len - ns);
		fields_note(out, out->n, id);
		out->f[out->n++] = (struct sfield){ s + vs, i - vs, id };
		i++;
	}
}

/* Field names looked up, in lists (the first present wins); their ids
 * are given once (fnames_init). */
struct fname {
	const char *s;
	size_t n;
	unsigned id;
	uint64_t rest[NIDS / 64];   /* ids of this name and those after it */
	bool rising;                /* the ids rise from here to the list's
	                             * end: its order is theirs */
};
#define FN(x) { x, sizeof(x) - 1, 0, { 0, 0 }, false }
#define FN_END { NULL, 0, 0, { 0, 0 }, false }

/* Whether a set has a field named as one of the ids in ids. */
static inline bool fields_any(const struct sfields *fs, const uint64_t ids[NIDS / 64])
{
	return (fs->have[0] & ids[0]) | (fs->have[1] & ids[1]);
}

/* Where the first field called by one of the NULL-terminated names may
 * be: no field before this index is. */
static inline size_t fields_start(const struct sfields *fs, const struct fname *names)
{
	size_t i = fs->n;
	for (; names->s; names++)
		if (fields_has(fs, names->id) && fs->first[names->id] < i)
			i = fs->first[names->id];
	return i;
}

/* k-th field called n->s (k from 0), NULL when absent. */
static const struct sfield *field_nth(const struct sfields *fs, const struct fname *n, unsigned k)
{
	if (!fields_has(fs, n->id))
		return NULL;
	for (size_t i = fs->first[n->id]; i < fs->n; i++)
		if (fs->f[i].id == n->id && k-- == 0)
			return &fs->f[i];
	return NULL;
}

/* The first byte at or after p of s[0..len) that is not a digit (len
 * when none), 8 bytes a step; p <= len. */
static inline size_t fp_digits(const char *s, size_t len, size_t p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (;;) {
		uint64_t x, bad;
		memcpy(&x, s + p, 8);
		bad = scan_nondigits8(x);
		size_t k = bad ? (size_t)__builtin_ctzll(bad) / 8 : 8;
		p += k;
		if (p >= len)
			return len;
		if (k < 8)
			return p;
	}
#else
	while (p < len && tx_digit(s[p]))
		p++;
	return p;
#endif
}

/* fp_digits, and the value of those digits in *v with *ok when they
 * are what fp_dec reads (1 to 16 digits, no leading 0). */
static inline size_t fp_digits_val(const char *s, size_t len, size_t p, uint64_t *v, bool *ok)
{
	size_t p0 = p;
	uint64_t acc = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (int step = 0;; step++) {
		uint64_t x, bad;
		memcpy(&x, s + p, 8);
		bad = scan_nondigits8(x);
		size_t k = bad ? (size_t)__builtin_ctzll(bad) / 8 : 8;
		if (k > len - p)
			k = len - p;
		if (k && step < 2)      /* 16 digits at most are read */
			acc = acc * scan_pow10[k] + scan_value8(x << (8 * (8 - k)));
		p += k;
		if (k < 8 || p >= len)
			break;
	}
#else
	for (; p < len && tx_digit(s[p]); p++)
		if (p - p0 < 16)
			acc = acc * 10 + (uint64_t)(s[p] - '0');
#endif
	size_t n = p - p0;
	*ok = n - 1 < 16 && (s[p0] != '0' || n == 1);
	*v = acc;
	return p;
}

/* fp_digits_val in one step for 1 to 7 digits that end before len (the
 * microseconds of a time); else fp_digits_val itself. */
static inline size_t fp_digits_val7(const char *s, size_t len, size_t p, uint64_t *v, bool *ok)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x, bad;
	memcpy(&x, s + p, 8);
	bad = scan_nondigits8(x);
	size_t k = bad ? (size_t)__builtin_ctzll(bad) / 8 : 0;
	if (k && p + k < len) {
		*v = scan_value8(x << (8 * (8 - k)));
		*ok = s[p] != '0' || k == 1;
		return p + k;
	}
#endif
	return fp_digits_val(s, len, p, v, ok);
}

/* s[0..n), all digits: as val_num reads it in one step (1 to 16 digits,
 * no leading 0) into *v; false otherwise. */
static inline bool fp_dec(const char *s, size_t n, uint64_t *v)
{
	return n - 1 < 16 && (s[0] != '0' || n == 1) && scan_dec16(s, n, v);
}

/* 0x and at most 15 hex digits (no overflow) -> *d */
static inline bool val_hex(const char *s, size_t n, uint64_t *d)
{
	return n > 2 && n <= 17 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && tx_hex(s + 2, n - 2, d);
}

static int val_num(const char *s, size_t n, int64_t *v)
{
	uint64_t d;
	/* 1 to 16 digits without a leading 0, in one step (scan_dec16 loads
	 * 8 bytes at s: a value lies in a line with LR_PAD bytes after it);
	 * then the I/O ids libsysio prints in hex, which have no blank to
	 * trim and are no decimal below */
	if (fp_dec(s, n, &d) || val_hex(s, n, &d)) {
		*v = (int64_t)d;
		return 0;
	}
	size_t n0 = n;
	while (n && tx_space(*s))
		s++, n--;
	while (n && tx_space(s[n - 1]))
		n--;
	/* a plain decimal (no sign, no leading 0: strtoll's base 0 would read
	 * octal) of at most 18 digits decodes at once; hex again when blanks
	 * were trimmed; the rest by strtoll */
	if ((n && n <= 18 && (s[0] != '0' || n == 1) && tx_dec(s, n, &d)) || (n != n0 && val_hex(s, n, &d))) {
		*v = (int64_t)d;
		return 0;
	}
	return parse_i64(s, n, v);
}

/* First field among the NULL-terminated names that holds a number. */
static inline bool field_num(const struct sfields *fs, const struct fname *names, int64_t *v)
{
	if (names->rising) {
		/* the names present, in the list's order: their ids, rising
		 * (most lists are so: fnames_init numbers names as it meets
		 * them, and the first lists are the ones looked up most) */
		uint64_t m0 = fs->have[0] & names->rest[0], m1 = fs->have[1] & names->rest[1];
		while (m0 | m1) {
			unsigned id;
			if (m0) {
				id = (unsigned)__builtin_ctzll(m0);
				m0 &= m0 - 1;
			} else {
				id = 64 + (unsigned)__builtin_ctzll(m1);
				m1 &= m1 - 1;
			}
			size_t i = fs->first[id];
			while (fs->f[i].id != id)
				i++;
			if (!val_num(fs->f[i].val, fs->f[i].vlen, v))
				return true;
		}
		return false;
	}
	for (; names->s && fields_any(fs, names->rest); names++) {
		const struct sfield *f = field_nth(fs, names, 0);
		if (f && !val_num(f->val, f->vlen, v))
			return true;
	}
	return false;
}

static struct fname F_FD[] = { FN("fd"), FN("fildes"), FN_END };
static struct fname F_RET[] = { FN("ret"), FN("rc"), FN("retval"), FN("result"), FN("return"),
	FN("rv"), FN("cc"), FN_END };
static struct fname F_BYTES[] = { FN("ret"), FN("rc"), FN("retval"), FN("result"), FN("return"),
	FN("rv"), FN("cc"), FN("size"), FN("count"), FN("bytes"),
	FN("nbytes"), FN_END };
static struct fname F_ERR[] = { FN("errno"), FN("err"), FN("error"), FN_END };
static struct fname F_IOID[] = { FN("ioid"), FN("iod"), FN("id"), FN("ioctx"), FN("handle"),
				       FN_END };
static struct fname F_OFF[] = { FN("offset"), FN("off"), FN("pos"), FN("position"), FN_END };
static struct fname F_LEN[] = { FN("length"), FN("len"), FN("size"), FN("count"), FN("nbytes"),
				       FN_END };
static struct fname F_FLAGS[] = { FN("flags"), FN("flag"), FN("oflag"), FN("oflags"), FN_END };
static struct fname F_MODE[] = { FN("mode"), FN_END };
static struct fname F_HI[] = { FN("hi"), FN("high"), FN("offset_high"), FN("off_hi"),
	FN("offhi"), FN_END };
static struct fname F_LO[] = { FN("lo"), FN("low"), FN("offset_low"), FN("off_lo"), FN("offlo"),
				       FN_END };
static struct fname F_FD2[] = { FN("fd2"), FN("newfd"), FN("new_fd"), FN("nfd"), FN_END };
static struct fname F_PATH[] = { FN("path"), FN("pathname"), FN("name"), FN("file"),
	FN("filename"), FN("fname"), FN_END };
static struct fname F_PATH2[] = { FN("newpath"), FN("new"), FN("to"), FN("path2"), FN("target"),
				       FN_END };
static struct fname F_PATH1[] = { FN("oldpath"), FN("old"), FN("from"), FN("path"), FN("path1"),
				       FN_END };
static struct fname N_TIME[] = { FN("time"), FN_END };
static struct fname N_STR[] = { FN("str"), FN_END };
static struct fname N_TRACETYPE[] = { FN("tracetype"), FN_END };
static struct fname N_WHENCE[] = { FN("whence"), FN_END };
static struct fname N_IOVEC[] = { FN("ziovec"), FN("iovec"), FN("iov"), FN_END };
static struct fname N_LEN[] = { FN("len"), FN_END };
static struct fname N_IOV_LEN[] = { FN("iov_len"), FN_END };
static struct fname N_XT[] = { FN("xtvec"), FN("zxtvec"), FN("xtv"), FN("extent"), FN("xtent"),
				       FN_END };
static struct fname N_XOFF[] = { FN("off"), FN("offset"), FN("xtv_off"), FN("pos"), FN_END };
static struct fname N_XLEN[] = { FN("len"), FN("length"), FN("xtv_len"), FN("size"), FN_END };

static struct fname *const fname_lists[] = { N_TRACETYPE, N_TIME, N_STR, F_FD, F_RET, F_BYTES,
	F_ERR, F_IOID, F_OFF, F_LEN, F_FLAGS, F_MODE, F_HI, F_LO, F_FD2, F_PATH, F_PATH2, F_PATH1,
	N_WHENCE, N_IOVEC, N_LEN, N_IOV_LEN, N_XT, N_XOFF, N_XLEN, NULL };

/* The id of a list name: the one an equal name got before, else the next
 * (the lists' names are lower case, of 16 bytes at most). */
static unsigned name_add(const struct fname **names, const struct fname *f)
{
	for (unsigned id = 1; id <= name_ids; id++)
		if (names[id]->n == f->n && !memcmp(names[id]->s, f->s, f->n))
			return id;
	names[++name_ids] = f;
	name_key2[name_ids] = f->n > 8 ? name_key(f->s + 8, f->n - 8, 0) : 0;
	return name_ids;
}

/* The names' ids and name_tab, once (the same every time: the lists are
 * constant, and so is the first multiplier that spreads them). */
static void fnames_init(void)
{
	const struct fname *names[NIDS];
	if (name_ids)
		return;
	for (size_t i = 0; fname_lists[i]; i++) {
		struct fname *f = fname_lists[i];
		for (; f->s; f++)
			f->id = name_add(names, f);
		uint64_t rest[NIDS / 64] = { 0, 0 };
		for (unsigned next = NIDS; f-- != fname_lists[i]; next = f->id) {
			rest[f->id / 64] |= 1ull << (f->id % 64);
			memcpy(f->rest, rest, sizeof(rest));
			f->rising = f->id < next && (next == NIDS || f[1].rising);
		}
	}
	/* multipliers from the golden ratio's on (a 64-bit LCG, kept odd),
	 * until every name has a slot of its own: for 76 names in 1024 slots
	 * about one in 16 spreads them (the tenth does) */
	for (uint64_t mul = 0x9E3779B97F4A7C15ull;;
	     mul = (mul * 6364136223846793005ull + 1442695040888963407ull) | 1) {
		bool clash = false;
		memset(name_tab, 0, sizeof(name_tab));
		for (unsigned id = 1; id <= name_ids && !clash; id++) {
			uint64_t key = name_key(names[id]->s, names[id]->n, 0);
			struct nslot *t = &name_tab[name_slot(key, mul)];
			clash = t->key != 0;
			*t = (struct nslot){ key, (uint32_t)names[id]->n, id };
		}
		if (!clash) {
			name_mul = mul;
			return;
		}
	}
}

/*
 * The fast way for the common shape, each field from one 16-byte window
 * at its start (SSE2; byte by byte elsewhere): the name runs to the first
 * byte that is not a name byte, an optional ':', '(' right after, and the
 * value to the first ')' when no '(' comes before it (else the depth
 * count of fields_parse_gen).  Anything else (a name of 16 bytes or more,
 * a blank or tab between name and '(', no '(' there, an unclosed value,
 * no memory) returns false, and fields_parse_gen does it all again (and
 * words the error).  When it returns true, out is what fields_parse_gen
 * would have made.  Loads 16 bytes at s + i for i < len, and 8 at s:
 * a span lies in a line with LR_PAD bytes after its NUL.
 */

/* One field at s[ns..len) (s[ns] not a blank): its name's end *ne, its
 * value's start *vs and the ')' closing it *e, and the name's id in *id;
 * false when it is not of the common shape or not closed. */
static inline bool fp_field(const char *s, size_t len, size_t ns, size_t *ne, size_t *vs, size_t *e,
			    unsigned *id)
{
	size_t rem = len - ns, j;
#if REPLAY_SSE2
	const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + ns));
	/* name bytes: (c | 0x20) - 'a' < 26, or c - '-' < 13 but not '/'
	 * (digits, '-', '.'), or '_'; unsigned, as signed compares of the
	 * values less 128 */
	const __m128i al = _mm_cmplt_epi8(_mm_sub_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)),
						       _mm_set1_epi8((char)('a' + 128))),
					  _mm_set1_epi8((char)(26 - 128)));
	const __m128i dg = _mm_andnot_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('/')),
					    _mm_cmplt_epi8(_mm_sub_epi8(x, _mm_set1_epi8((char)('-' + 128))),
							   _mm_set1_epi8((char)(13 - 128))));
	const __m128i nb = _mm_or_si128(_mm_or_si128(al, dg), _mm_cmpeq_epi8(x, _mm_set1_epi8('_')));
	unsigned in = rem < 16 ? (1u << rem) - 1 : 0xffffu;
	unsigned names = (unsigned)_mm_movemask_epi8(nb) & in;
	unsigned k = (unsigned)__builtin_ctz(~names);   /* <= rem; 16: longer */
	if (k == 0 || k == 16)
		return false;
	j = k;
	if (j < rem && s[ns + j] == ':')
		j++;
	if (j >= rem || s[ns + j] != '(')
		return false;
	*ne = ns + k;
	*vs = ns + j + 1;
	{
		/* the name's key from the bytes at hand: letters given 0x20 (as
		 * name_key folds them), the bytes past the name masked off */
		uint64_t w[2];
		const __m128i low = _mm_or_si128(x, _mm_and_si128(al, _mm_set1_epi8(0x20)));
		_mm_storeu_si128((__m128i *)(void *)w, low);
		if (k <= 8)
			*id = name_id_key(k < 8 ? w[0] & ((1ull << (8 * k)) - 1) : w[0], 0, k);
		else
			*id = name_id_key(w[0], w[1] & ((1ull << (8 * (k - 8))) - 1), k);
	}
	if (j + 1 < 16) {
		unsigned after = in & (0xffffu << (j + 1));
		unsigned po = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('('))) & after;
		unsigned pc = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(')'))) & after;
		unsigned c1 = pc & -pc;                 /* the first ')' ... */
		if (c1 && !(po & (c1 - 1))) {           /* ... and no '(' before it */
			*e = ns + (size_t)__builtin_ctz(pc);
			return true;
		}
	}
	/* nested: 16 bytes at a time, the depth after each byte at once (+1
	 * at '(', -1 at ')', summed left to right in four shifted adds); the
	 * closing ')' is the first byte where it comes to 0, which it cannot
	 * within 16 bytes from over 16 */
	unsigned long depth = 1;
	for (size_t q = *vs; q < len; q += 16) {
		const __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(s + q));
		unsigned lim = len - q < 16 ? (1u << (len - q)) - 1 : 0xffffu;
		__m128i d = _mm_sub_epi8(_mm_cmpeq_epi8(y, _mm_set1_epi8(')')),
					 _mm_cmpeq_epi8(y, _mm_set1_epi8('(')));
		d = _mm_add_epi8(d, _mm_slli_si128(d, 1));
		d = _mm_add_epi8(d, _mm_slli_si128(d, 2));
		d = _mm_add_epi8(d, _mm_slli_si128(d, 4));
		d = _mm_add_epi8(d, _mm_slli_si128(d, 8));
		if (depth <= 16) {
			unsigned z = (unsigned)_mm_movemask_epi8(
				_mm_cmpeq_epi8(d, _mm_set1_epi8((char)-(int)depth))) & lim;
			if (z) {
				*e = q + (size_t)__builtin_ctz(z);
				return true;
			}
		}
		/* the block's sum (bytes past len count only in the last) */
		depth += (unsigned long)(long)(signed char)(_mm_extract_epi16(d, 7) >> 8);
	}
	return false;
#else
	j = 0;
	while (j < rem && name_byte[(unsigned char)s[ns + j]])
		j++;
	*ne = ns + j;
	if (j == 0)
		return false;
	if (j < rem && s[ns + j] == ':')
		j++;
	if (j >= rem || s[ns + j] != '(')
		return false;
	*vs = ns + j + 1;
	size_t i = paren_close(s, len, *vs);
	*e = i;
	*id = name_id(s + ns, *ne - ns, rem);
	return i < len;
#endif
}

/* The first n (1 to 16) bytes of a and b are the same; 16 bytes can be
 * read at each. */
static inline bool fp_same(const char *a, const char *b, unsigned n)
{
#if REPLAY_SSE2
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)a);
	__m128i y = _mm_loadu_si128((const __m128i *)(const void *)b);
	unsigned need = (unsigned)((2ull << (n - 1)) - 1);
	return ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) & need) == need;
#else
	return !memcmp(a, b, n);
#endif
}

/* The fields of the usual line start, "tracetype(ENTER)" or
 * "tracetype(EXIT)", "time:(DIGITS)" twice and "str(CALL)": 4 added to out
 * (with room for them) and the index past them; 0 when s does not start
 * so. */
static size_t fp_prefix(const char *s, size_t len, struct sfields *out)
{
	size_t p, tl, d[2], de[2];
	uint64_t dv[2];
	bool dok[2];
	if (len < 36 || memcmp(s, "tracetype(", 10))
		return 0;
	if (!memcmp(s + 10, "ENTER)", 6))
		tl = 5;
	else if (!memcmp(s + 10, "EXIT)", 5))
		tl = 4;
	else
		return 0;
	p = 11 + tl;
	for (int t = 0; t < 2; t++) {
		if (p + 6 > len || memcmp(s + p, "time:(", 6))
			return 0;
		p += 6;
		d[t] = p;
		if (t == 0 && out->tn && p + out->tn < len && fp_same(s + p, out->tb, out->tn + 1u)) {
			p += out->tn;           /* the seconds of the line before */
			dv[0] = out->tv;
			dok[0] = out->tok;
		} else {
			p = fp_digits_val7(s, len, p, &dv[t], &dok[t]);
			if (p >= len || s[p] != ')')
				return 0;
			if (t == 0 && p - d[0] - 1 < 14) {
				memcpy(out->tb, s + d[0], 16);
				out->tn = (unsigned char)(p - d[0]);
				out->tv = dv[0];
				out->tok = dok[0];
			}
		}
		de[t] = p++;
	}
	if (p + 4 > len || memcmp(s + p, "str(", 4))
		return 0;
	size_t cs = p + 4, ce = scan_any2(s, len, cs, '(', ')');
	if (ce >= len || s[ce] != ')')
		return 0;
	if (out->cap < 4) {
		void *q = realloc(out->f, 32 * sizeof(*out->f));
		if (!q)
			return 0;
		out->f = q;
		out->cap = 32;
	}
	out->f[0] = (struct sfield){ s + 10, tl, ID_TRACETYPE };
	out->f[3] = (struct sfield){ s + cs, ce - cs, ID_STR };
	out->have[0] = 1ull << ID_TRACETYPE | 1ull << ID_TIME | 1ull << ID_STR;   /* the set was empty */
	out->first[ID_TRACETYPE] = 0;
	out->first[ID_TIME] = 1;
	out->first[ID_STR] = 3;
	out->n = 4;
	out->pre = true;
	/* event_time's answer when both are plain; else it works it out
	 * from the time fields, whose values only it reads (the lookups read
	 * ids) */
	out->f[1].id = out->f[2].id = ID_TIME;
	if (dok[0] && dok[1] && dv[1] < 1000000) {
		out->ts = dv[0] * NS_PER_S + dv[1] * 1000;
		out->ts_ok = true;
	} else {
		out->f[1] = (struct sfield){ s + d[0], de[0] - d[0], ID_TIME };
		out->f[2] = (struct sfield){ s + d[1], de[1] - d[1], ID_TIME };
	}
	return ce + 1;
}

/* 0x and 1 to 15 hex digits from s[p], up to a ')' before len: the index
 * of that ')' and the value in *v (val_hex's; a value it reads is no
 * decimal to fp_dec); 0 when the bytes are not so.  Up to 7 digits in one
 * step of 8 bytes (8 can be read at s + p + 2: a value lies in a line with
 * LR_PAD bytes after it), byte by byte past them. */
static inline size_t fp_hex(const char *s, size_t len, size_t p, uint64_t *v)
{
	uint64_t x = 0;
	if (p + 3 > len || s[p] != '0' || s[p + 1] != 'x')
		return 0;
	size_t q = p + 2;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	{
		/* per byte, on its low 7 bits (a byte with the high bit is no
		 * digit): b - K sets the 0x80 bit of (b + 0x80 - K) when b >= K */
		uint64_t w;
		memcpy(&w, s + q, 8);
		const uint64_t hi = 0x8080808080808080ull, ones = 0x0101010101010101ull;
		uint64_t lo = w & ~hi, lc = lo | 0x2020202020202020ull;
		uint64_t dig = (lo + (0x80 - '0') * ones) & ~(lo + (0x80 - '9' - 1) * ones);
		uint64_t let = (lc + (0x80 - 'a') * ones) & ~(lc + (0x80 - 'f' - 1) * ones);
		uint64_t bad = ~((dig | let) & ~w) & hi;
		size_t k = bad ? (size_t)__builtin_ctzll(bad) / 8 : 8;
		if (k && k < 8 && q + k < len && s[q + k] == ')') {
			/* each digit's value in its byte (a letter's low 4 bits
			 * plus 9), the k bytes moved to the top, then bytes paired
			 * into ever wider lanes, the first the most significant */
			uint64_t n = (w & 0x0f0f0f0f0f0f0f0full) + (let >> 7 & ones) * 9;
			n <<= 8 * (8 - k);
			n = (n & 0x00ff00ff00ff00ffull) << 4 | (n >> 8 & 0x00ff00ff00ff00ffull);
			n = (n & 0x0000ffff0000ffffull) << 8 | (n >> 16 & 0x0000ffff0000ffffull);
			*v = (n & 0xffffffffull) << 16 | n >> 32;
			return q + k;
		}
	}
#endif
	for (; q < len && q - p < 17; q++) {
		unsigned c = (unsigned char)s[q], d = c - '0';
		if (d > 9) {
			d = (c | 0x20) - 'a';
			if (d > 5)
				break;
			d += 10;
		}
		x = x << 4 | d;
	}
	if (q == p + 2 || q >= len || s[q] != ')')
		return 0;
	*v = x;
	return q;
}

/* Lines whose fields after the call's name (fp_prefix read up to i) are
 * "ioid(0xHEX)" alone or "ioid(0xHEX)cc(N)" (HEX 1 to 15 digits, N as
 * fp_dec reads it), nothing after: the EXIT of a submit, the ENTER and
 * EXIT of an iowait.  Their fields added to out as fields_fast's loop
 * would add them, and their values and shape noted for do_call, which
 * then looks those up no more; false (out as fp_prefix left it) for
 * anything else. */
static bool fp_ioid(const char *s, size_t len, size_t i, struct sfields *out)
{
	uint64_t id, cc;
	if (i + 9 > len || memcmp(s + i, "ioid(", 5))
		return false;
	size_t he = fp_hex(s, len, i + 5, &id);
	if (!he)
		return false;
	out->f[4] = (struct sfield){ s + i + 5, he - i - 5, F_IOID[0].id };
	if (he + 1 != len) {
		bool ok;
		size_t ce = he + 4;     /* past "cc(" */
		if (ce >= len || memcmp(s + he + 1, "cc(", 3))
			return false;
		size_t de = fp_digits_val(s, len, ce, &cc, &ok);
		if (!ok || de + 1 != len || s[de] != ')')
			return false;
		out->f[5] = (struct sfield){ s + ce, de - ce, F_RET[6].id };
		out->cc = (int64_t)cc;
	}
	/* fp_prefix made room for 32 fields */
	fields_note(out, 4, F_IOID[0].id);
	out->n = 5;
	out->shape = SH_IOID;
	if (he + 1 != len) {
		fields_note(out, 5, F_RET[6].id);
		out->n = 6;
		out->shape = SH_IOID_CC;
	}
	out->ioid = (int64_t)id;
	return true;
}

/* Lines whose fields after the call's name (fp_prefix read up to i) are
 * "fd(N)", one or more "ziovec(base(ANY)len(N))" and any number of
 * "xtvec(off(D)len(D))" (N as fp_dec reads it, ANY without parentheses,
 * D digits), in that order and nothing else: the ENTER of a submit.  Their
 * fields added to out as fields_fast's loop would add them, the fd and
 * the iovecs' sum and count (iovec_plain's for each) noted for do_call and
 * iovec_total; or "fd(N)offset(N)whence(N)", the ENTER of an lseek, its
 * three values noted for do_call and h_lseek.  False for anything else,
 * out's fields as fp_prefix left them (or too many for its room:
 * fields_fast's loop grows it). */
static bool fp_fdiov(const char *s, size_t len, size_t i, struct sfields *out)
{
	uint64_t fd, l, total = 0;
	uint32_t cnt = 0;
	bool ok;
	size_t n = 4, de;
	if (i + 4 > len || memcmp(s + i, "fd(", 3))
		return false;
	de = fp_digits_val(s, len, i + 3, &fd, &ok);
	if (!ok || de >= len || s[de] != ')')
		return false;
	out->f[n++] = (struct sfield){ s + i + 3, de - i - 3, F_FD[0].id };
	i = de + 1;
	if (i + 7 <= len && !memcmp(s + i, "offset(", 7)) {
		/* "offset(N)whence(N)" and nothing after: offset() is the first
		 * of F_OFF, and no name of F_HI or F_LO is there */
		uint64_t off, wh;
		de = fp_digits_val(s, len, i + 7, &off, &ok);
		if (!ok || de + 9 > len || memcmp(s + de, ")whence(", 8))
			return false;
		out->f[n++] = (struct sfield){ s + i + 7, de - i - 7, F_OFF[0].id };
		i = de + 8;
		de = fp_digits_val(s, len, i, &wh, &ok);
		if (!ok || de + 1 != len || s[de] != ')')
			return false;
		out->f[n++] = (struct sfield){ s + i, de - i, N_WHENCE[0].id };
		fields_note(out, 4, F_FD[0].id);
		fields_note(out, 5, F_OFF[0].id);
		fields_note(out, 6, N_WHENCE[0].id);
		out->n = n;
		out->fd = (int64_t)fd;
		out->off = (int64_t)off;
		out->whence = (int)(int64_t)wh;
		out->shape = SH_FDSEEK;
		return true;
	}
	/* the value runs from after "ziovec(" to the ')' closing len( */
	while (i + 19 <= len && !memcmp(s + i, "ziovec(base(", 12)) {
		size_t q = scan_any2(s, len, i + 12, '(', ')');
		if (q + 6 > len || s[q] != ')' || memcmp(s + q + 1, "len(", 4))
			return false;
		de = fp_digits_val(s, len, q + 5, &l, &ok);
		if (!ok || de + 2 > len || s[de] != ')' || s[de + 1] != ')' || n == out->cap)
			return false;
		out->f[n++] = (struct sfield){ s + i + 7, de + 1 - (i + 7), N_IOVEC[0].id };
		total += l;
		cnt++;
		i = de + 2;
	}
	if (!cnt)
		return false;
	size_t x0 = n;
	while (i < len) {
		if (i + 20 > len || memcmp(s + i, "xtvec(off(", 10))
			return false;
		de = fp_digits(s, len, i + 10);
		if (de + 6 > len || memcmp(s + de, ")len(", 5))
			return false;
		de = fp_digits(s, len, de + 5);
		if (de + 2 > len || s[de] != ')' || s[de + 1] != ')' || n == out->cap)
			return false;
		out->f[n++] = (struct sfield){ s + i + 6, de + 1 - (i + 6), N_XT[0].id };
		i = de + 2;
	}
	fields_note(out, 4, F_FD[0].id);
	fields_note(out, 5, N_IOVEC[0].id);
	if (n > x0)
		fields_note(out, x0, N_XT[0].id);
	out->n = n;
	out->fd = (int64_t)fd;
	out->iov_total = total;
	out->iov_cnt = cnt;
	out->shape = SH_FDIOV;
	return true;
}

static bool fields_fast(const char *s, size_t len, struct sfields *out)
{
	out->n = 0;
	out->have[0] = out->have[1] = 0;
	out->pre = out->ts_ok = false;
	out->shape = SH_NONE;
	size_t i = fp_prefix(s, len, out);
	if (i && (fp_ioid(s, len, i, out) || fp_fdiov(s, len, i, out)))
		return true;
	for (;;) {
		while (i < len && tx_space(s[i]))
			i++;
		if (i >= len)
			return true;
		size_t ns = i, ne, vs, e;
		unsigned id;
		if (!fp_field(s, len, ns, &ne, &vs, &e, &id))
			return false;
		if (out->n == out->cap) {
			size_t nc = out->cap ? out->cap * 2 : 32;
			void *p = realloc(out->f, nc * sizeof(*out->f));
			if (!p)
				return false;
			out->f = p;
			out->cap = nc;
		}
		fields_note(out, out->n, id);
		out->f[out->n++] = (struct sfield){ s + vs, e - vs, id };
		i = e + 1;
	}
}

static int fields_parse(const char *s, size_t len, struct sfields *out, const char **why)
{
	if (fields_fast(s, len, out))
		return 0;
	return fields_parse_gen(s, len, out, why);
}

/* String field: first of names, else the k-th str() field after the call
 * name (libsysio prints strings as str(...)). */
static bool field_str(const struct sfields *fs, const struct fname *names, unsigned k, char *out,
		      size_t cap)
{
	const struct sfield *f = NULL;
	for (; names && names->s && !f; names++)
		f = field_nth(fs, names, 0);
	if (!f)
		f = field_nth(fs, N_STR, k + 1);
	if (!f || !f->vlen)
		return false;
	size_t n = f->vlen < cap - 1 ? f->vlen : cap - 1;
	const char *v = f->val;
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		v++;
		n -= 2;
	}
	memcpy(out, v, n);
	out[n] = '\0';
	return true;
}

/* An iovec value of the usual shape, "base(ANY)len(DIGITS)" (ANY without
 * parentheses, DIGITS as fp_dec reads them): true and the length in *len
 * (what the general loop below makes of it: one iovec of that length). */
static bool iovec_plain(const char *v, size_t n, uint64_t *len)
{
	if (n < 11 || memcmp(v, "base(", 5))
		return false;
	size_t q = scan_any2(v, n, 5, '(', ')');
	if (q + 6 > n || v[q] != ')' || memcmp(v + q + 1, "len(", 4))
		return false;
	size_t ds = q + 5, de = fp_digits(v, n, ds);
	return de == n - 1 && v[de] == ')' && fp_dec(v + ds, de - ds, len);
}

/* Sum of len() over all iovec fields (ziovec, iovec, iov), and their count. */
static void iovec_total(const struct sfields *fs, uint64_t *total, uint32_t *cnt, struct sfields *tmp)
{
	if (fs->shape == SH_FDIOV) {    /* fp_fdiov summed them */
		*total = fs->iov_total;
		*cnt = fs->iov_cnt;
		return;
	}
	*total = 0;
	*cnt = 0;
	const uint64_t *ids = N_IOVEC[0].rest;
	if (!fields_any(fs, ids))
		return;
	for (size_t i = fields_start(fs, N_IOVEC); i < fs->n; i++) {
		const struct sfield *f = &fs->f[i];
		if (!(ids[f->id / 64] >> (f->id % 64) & 1))
			continue;
		uint64_t len;
		if (iovec_plain(f->val, f->vlen, &len)) {
			*total += len;
			(*cnt)++;
			continue;
		}
		const char *why;
		if (fields_parse(f->val, f->vlen, tmp, &why))
			continue;
		/* one iovec per field, or several base()len() pairs in one */
		for (unsigned k = 0;; k++) {
			const struct sfield *l = field_nth(tmp, N_LEN, k);
			if (!l)
				l = field_nth(tmp, N_IOV_LEN, k);
			int64_t v;
			if (!l)
				break;
			if (!val_num(l->val, l->vlen, &v) && v > 0)
				*total += (uint64_t)v;
			(*cnt)++;
		}
	}
}

struct xt {
	int64_t off;
	uint64_t len;
};

/* An extent value of the usual shape, "off(DIGITS)len(DIGITS)" (DIGITS as
 * fp_dec reads them): true, and what the general loop below makes of it
 * (off() and len() are the first names its lists look for). */
static bool xtvec_plain(const char *v, size_t n, uint64_t *off, uint64_t *len)
{
	if (n < 12 || memcmp(v, "off(", 4))
		return false;
	size_t de = fp_digits(v, n, 4);
	if (de + 6 > n || v[de] != ')' || memcmp(v + de + 1, "len(", 4) || !fp_dec(v + 4, de - 4, off))
		return false;
	size_t ls = de + 5, le = fp_digits(v, n, ls);
	return le == n - 1 && v[le] == ')' && fp_dec(v + ls, le - ls, len);
}

/* Extents of ireadx/iwritex: xtvec(off()len()) style fields, in *out
 * (room for *cap, kept from call to call). */
static int extents(const struct sfields *fs, struct xt **out, size_t *cap, size_t *n,
		   struct sfields *tmp)
{
	*n = 0;
	const uint64_t *ids = N_XT[0].rest;
	if (!fields_any(fs, ids))
		return 0;
	for (size_t i = fields_start(fs, N_XT); i < fs->n; i++) {
		const struct sfield *f = &fs->f[i];
		if (!(ids[f->id / 64] >> (f->id % 64) & 1))
			continue;
		int64_t o, l;
		uint64_t xo, xl;
		if (xtvec_plain(f->val, f->vlen, &xo, &xl)) {
			o = (int64_t)xo;        /* 16 digits at most: no overflow */
			l = (int64_t)xl;
		} else {
			const char *why;
			if (fields_parse(f->val, f->vlen, tmp, &why))
				continue;
			if (!field_num(tmp, N_XOFF, &o) || !field_num(tmp, N_XLEN, &l) || l < 0)
				continue;
		}
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 4;
			void *p = realloc(*out, nc * sizeof(**out));
			if (!p)
				return -ENOMEM;
			*out = p;
			*cap = nc;
		}
		(*out)[(*n)++] = (struct xt){ o, (uint64_t)l };
	}
	return 0;
}

/* ------------------------------------------------------------------ */

struct sub {                    /* outstanding async submit            */
	int64_t ioid;               /* traced I/O id, -1 unknown           */
	bool data;                  /* false: ifsync/ifdatasync            */
	size_t first, n;            /* async ids first .. first+n-1        */
	uint64_t *lens;             /* per async id requested bytes (NULL
	                             * when n is 1: len1)                 */
	uint64_t len1;
};

struct spend {                  /* an ENTER waiting for its EXIT       */
	char *line;                 /* a copy of the ENTER line (the slot's own
	                             * buffer, kept for the slot's next use) */
	size_t cap;
	struct sfields f;           /* its fields, pointing into line      */
	int parsed;                 /* 0, or fields_parse's error          */
	char call[64];
	uint64_t ts;
	const char *src;
	unsigned long lineno;
};

struct srank {
	char name[64];
	int64_t pid;
	uint32_t brank;
	uint64_t last_emit;
	struct spend *pend;
	size_t npend, pcap;
	struct sub *subs;
	size_t nsubs, scap;
	uint64_t next_id;
	const char *hdr_src;        /* the file of its last header section, */
	unsigned long hdr_line;     /* and that header's line               */
};

struct sandia {
	struct trace_input *in;
	struct builder *b;
	struct rerr *e;
	struct srank *r;
	size_t nr, rcap;
	struct sfields tmp;         /* iovec/extent scratch                  */
	struct ccache {             /* call name -> scalls[] index          */
		char name[64];
		size_t ix;
		bool set;
	} calls[CCACHE];
	struct xt *xts;
	size_t xcap;
	uint64_t iovec_guess;       /* waits without a byte count           */
	char path[PATH_BUF], path2[PATH_BUF];   /* decoded path fields of a call */
};

static int grow(void **p, size_t *cap, size_t need, size_t sz)
{
	return trace_grow(p, cap, need, sz, 8);
}

static int bad_line(struct sandia *S, const char *src, unsigned long line, const char *what)
{
	return trace_bad_line(S->in, S->e, src, line, what);
}

static int rank_get(struct sandia *S, const char *name, int64_t pid, struct srank **out)
{
	for (size_t i = 0; i < S->nr; i++)
		if (!strcmp(S->r[i].name, name)) {
			*out = &S->r[i];
			return 0;
		}
	int rc = grow((void **)&S->r, &S->rcap, S->nr + 1, sizeof(*S->r));
	if (rc)
		return rc;
	struct srank *r = &S->r[S->nr];
	*r = (struct srank){ .pid = pid };
	snprintf(r->name, sizeof(r->name), "%s", name);
	for (size_t i = 0; i < S->nr; i++)
		if (S->r[i].pid == pid)
			r->pid = SYNTH_PID + (int64_t)S->nr;
	rc = builder_rank(S->b, r->pid, r->name, &r->brank);
	if (rc)
		return rerr_set(S->e, rc, "cannot add rank '%s': %s", name, strerror(-rc));
	S->nr++;
	*out = r;
	return 0;
}

/* "header ... headernode(NODE.PID) ..." -> rank */
static int header_line(struct sandia *S, const char *src, unsigned long lineno, const char *line,
		       struct srank **cur)
{
	const char *p = strstr(line, "headernode(");
	int64_t node, pid;
	if (!p)
		return bad_line(S, src, lineno, "expected 'headernode(NODE.PID)' in the header line");
	p += 11;
	const char *dot = p;
	while (tx_digit(*dot))
		dot++;
	const char *end = dot + 1;
	while (tx_digit(*end))
		end++;
	if (dot == p || *dot != '.' || end == dot + 1 || *end != ')' ||
	    parse_i64(p, (size_t)(dot - p), &node) || parse_i64(dot + 1, (size_t)(end - dot - 1), &pid))
		return bad_line(S, src, lineno, "expected 'headernode(NODE.PID)' in the header line");
	char name[64];
	snprintf(name, sizeof(name), "%.*s", (int)(end - p), p);
	int64_t v = pid < 1000000 && node < 1000000000000LL ? node * 1000000 + pid : SYNTH_PID;
	int rc = rank_get(S, name, v, cur);
	if (rc)
		return rc;
	/* a file holds one section per process: a second for the same one
	 * is another copy of the trace put after it (cat t t: its calls
	 * twice, its time going back) */
	struct srank *r = *cur;
	if (r->hdr_src == src)
		return rerr_at(S->e, -EINVAL, src, lineno,
			       "a second header section for headernode(%s) in this file (the first"
			       " at line %lu): a trace file holds one section per process, so the"
			       " file looks like traces put together (cat A A?); give each trace"
			       " once", name, r->hdr_line);
	r->hdr_src = src;
	r->hdr_line = lineno;
	return 0;
}

static int emit(struct sandia *S, struct srank *r, struct sc_event *ev)
{
	ev->pid = r->pid;
	if (ev->ts_ns < r->last_emit)
		ev->ts_ns = r->last_emit;
	r->last_emit = ev->ts_ns;
	return builder_event(S->b, ev, S->e);
}

static int whence_of(const struct sfields *fs, int *w)
{
	const struct sfield *f = field_nth(fs, N_WHENCE, 0);
	int64_t v;
	if (!f)
		return -EINVAL;
	if (!val_num(f->val, f->vlen, &v)) {
		*w = (int)v;
		return 0;
	}
	if (f->vlen >= 8 && !strncmp(f->val, "SEEK_", 5)) {
		*w = !strncmp(f->val, "SEEK_SET", 8) ? SEEK_SET : !strncmp(f->val, "SEEK_CUR", 8) ? SEEK_CUR
			: SEEK_END;
		return 0;
	}
	return -EINVAL;
}

static int add_sub(struct srank *r, int64_t ioid, bool data, size_t first, size_t n, uint64_t *lens,
		   uint64_t len1)
{
	int rc = grow((void **)&r->subs, &r->scap, r->nsubs + 1, sizeof(*r->subs));
	if (rc)
		return rc;
	r->subs[r->nsubs++] = (struct sub){ ioid, data, first, n, lens, len1 };
	return 0;
}

/* ---- calls: a row per name, a small handler per kind of call ---------- */

/* One paired call being decoded: ENTER fields in en, EXIT in ex. */
struct scall {
	struct sandia *S;
	struct srank *r;
	const char *call;
	const struct sfields *en, *ex;
	struct sc_event ev;
	int64_t ret;
	bool has_ret, hasfd;
	const char *src;
	unsigned long lineno;
	char *path, *path2;     /* S->path, S->path2 (PATH_BUF bytes each)  */
	size_t cn;              /* strlen(call)                            */
};

#define BAD_FIELDS 1    /* a handler's "the fields are not there" */

static int h_open(struct scall *c)
{
	int64_t v;
	if (!field_str(c->en, F_PATH, 0, c->path, PATH_BUF))
		return BAD_FIELDS;
	c->ev.call = SC_OPEN;
	c->ev.path = c->path;
	if (field_num(c->en, F_FLAGS, &v))
		c->ev.flags = v;
	if (!strcmp(c->call, "creat"))
		c->ev.flags = 01101;   /* O_CREAT|O_WRONLY|O_TRUNC */
	if (field_num(c->en, F_MODE, &v))
		c->ev.mode = v;
	if (!c->has_ret && field_num(c->ex, F_FD, &v))
		c->ev.ret = v;
	return emit(c->S, c->r, &c->ev);
}

static int h_close(struct scall *c)
{
	if (!c->hasfd)
		return BAD_FIELDS;
	c->ev.call = SC_CLOSE;
	return emit(c->S, c->r, &c->ev);
}

/* The I/O id a submit returned (its id field, else its result), -1. */
static int64_t submit_ioid(const struct scall *c)
{
	int64_t ioid = -1;
	if (c->ex->shape == SH_IOID || c->ex->shape == SH_IOID_CC)
		/* fp_ioid read the first of F_IOID */
		return c->ex->ioid;
	if (!field_num(c->ex, F_IOID, &ioid) && c->has_ret)
		ioid = c->ret;
	return ioid;
}

/* ireadv/iwritev (file position), ireadx/iwritex/ipread... (explicit
 * extents): one async submit per extent, all waited for by one iowait. */
static int h_isubmit(struct scall *c, bool rd)
{
	struct sandia *S = c->S;
	uint64_t total;
	uint32_t cnt;
	size_t nx = 0;
	int64_t v;
	if (!c->hasfd)
		return BAD_FIELDS;
	iovec_total(c->en, &total, &cnt, &S->tmp);
	int rc = extents(c->en, &S->xts, &S->xcap, &nx, &S->tmp);
	if (rc)
		return rc;
	if (!cnt && field_num(c->en, F_LEN, &v) && v >= 0)
		total = (uint64_t)v, cnt = 1;
	if (c->has_ret && c->ret < 0 && !field_num(c->ex, F_IOID, &v)) {
		c->ev.call = SC_SKIP;      /* the submit failed: nothing to replay */
		return emit(S, c->r, &c->ev);
	}
	int64_t ioid = submit_ioid(c);
	bool explicit_off = c->call[c->cn - 1] == 'x' || c->call[1] == 'p';
	struct xt one = { SC_NOOFF, total };
	if (!nx && explicit_off && field_num(c->en, F_OFF, &v)) {
		if (v < 0)
			return BAD_FIELDS;      /* an explicit offset is >= 0 */
		one.off = v;
	}
	for (size_t i = 0; i < nx; i++)
		if (S->xts[i].off < 0)
			return BAD_FIELDS;      /* so is an extent's */
	const struct xt *xs = nx ? S->xts : &one;
	if (!nx)
		nx = 1;
	uint64_t len1 = 0, *lens = NULL;
	if (nx > 1 && !(lens = calloc(nx, sizeof(*lens))))
		return -ENOMEM;
	uint64_t *ls = lens ? lens : &len1;
	size_t first = (size_t)c->r->next_id + 1;
	for (size_t i = 0; i < nx && !rc; i++) {
		/* c->ev itself, no copy: each event sets the same members, and
		 * emit's clamp to the rank's last time gives the same again */
		struct sc_event *a = &c->ev;
		a->call = rd ? SC_AREAD : SC_AWRITE;
		a->offset = xs[i].off;
		a->len = xs[i].len;
		a->iovcnt = cnt ? cnt : 1;
		a->async_id = ++c->r->next_id;
		a->ret = SC_RET_UNKNOWN;
		ls[i] = xs[i].len;
		rc = emit(S, c->r, a);
	}
	if (!rc)
		rc = add_sub(c->r, ioid, true, first, nx, lens, len1);
	if (rc)
		free(lens);
	return rc;
}

static int h_iread(struct scall *c) { return h_isubmit(c, true); }
static int h_iwrite(struct scall *c) { return h_isubmit(c, false); }

static int h_sync(struct scall *c)
{
	if (!c->hasfd)
		return BAD_FIELDS;
	c->ev.call = strstr(c->call, "data") ? SC_FDATASYNC : SC_FSYNC;
	if (c->call[0] == 'i') {
		c->ev.ret = c->has_ret && c->ret < 0 ? c->ret : 0;
		int rc = add_sub(c->r, submit_ioid(c), false, 0, 0, NULL, 0);
		if (rc)
			return rc;
	}
	return emit(c->S, c->r, &c->ev);
}

/* iowait: the submit with that I/O id (or the oldest when ids are not
 * traced) completes; its byte count is spread over the submit's extents. */
static int iowait_done(struct scall *c, bool hasid, int64_t ioid, bool known, int64_t bytes)
{
	struct srank *r = c->r;
	size_t k = SIZE_MAX;
	char msg[160];
	if (!hasid) {
		if (r->nsubs)
			k = 0;
	} else {
		for (size_t i = 0; i < r->nsubs; i++)
			if (r->subs[i].ioid == ioid || r->subs[i].ioid < 0) {
				k = i;
				break;
			}
	}
	if (k == SIZE_MAX) {
		snprintf(msg, sizeof(msg), "iowait without a pending submit (ireadv, iwritev, ireadx, "
			 "iwritex, ifsync)%s", hasid ? " of that I/O id" : "");
		return bad_line(c->S, c->src, c->lineno, msg);
	}
	struct sub sb = r->subs[k];
	memmove(&r->subs[k], &r->subs[k + 1], (r->nsubs - k - 1) * sizeof(*r->subs));
	r->nsubs--;
	if (!known)
		c->S->iovec_guess += sb.data;
	int rc = 0;
	const uint64_t *ls = sb.lens ? sb.lens : &sb.len1;
	uint64_t asked = 0;
	for (size_t i = 0; i < sb.n; i++)
		asked += ls[i];
	if (known && sb.data && bytes > 0 && (uint64_t)bytes > asked) {
		/* more than the submit asked for: a damaged line, whose bytes
		 * would move the file position where nothing went */
		snprintf(msg, sizeof(msg), "iowait completed %" PRId64 " bytes, more than the %" PRIu64
			 " its submit asked for", bytes, asked);
		free(sb.lens);
		return bad_line(c->S, c->src, c->lineno, msg);
	}
	for (size_t i = 0; i < sb.n && !rc; i++) {
		struct sc_event *w = &c->ev;   /* no copy: as in h_isubmit */
		w->call = SC_AWAIT;
		w->async_id = sb.first + i;
		if (!known) {
			w->ret = SC_RET_UNKNOWN;
		} else if (bytes < 0) {
			w->ret = bytes;
		} else {
			w->ret = (int64_t)(ls[i] < (uint64_t)bytes ? ls[i] : (uint64_t)bytes);
			bytes -= w->ret;
			if (i + 1 == sb.n)
				w->ret += bytes;
		}
		rc = emit(c->S, r, w);
	}
	free(sb.lens);
	return rc;
}

static int h_iowait(struct scall *c)
{
	int64_t ioid = -1, bytes = 0;
	bool hasid = field_num(c->en, F_IOID, &ioid);
	bool known = field_num(c->ex, F_BYTES, &bytes);
	return iowait_done(c, hasid, ioid, known, bytes);
}

static int h_rw(struct scall *c, bool rd)
{
	uint64_t total;
	uint32_t cnt;
	int64_t v;
	if (!c->hasfd)
		return BAD_FIELDS;
	iovec_total(c->en, &total, &cnt, &c->S->tmp);
	if (!cnt && field_num(c->en, F_LEN, &v) && v >= 0)
		total = (uint64_t)v, cnt = 1;
	c->ev.call = rd ? SC_READ : SC_WRITE;
	c->ev.len = total;
	c->ev.iovcnt = cnt ? cnt : 1;
	if (c->call[0] == 'p' && field_num(c->en, F_OFF, &v)) {
		if (v < 0)
			return BAD_FIELDS;      /* an explicit offset is >= 0 */
		c->ev.offset = v;
	}
	if (!c->has_ret && field_num(c->ex, F_BYTES, &v))
		c->ev.ret = v;
	if (c->ev.ret > 0 && (uint64_t)c->ev.ret > total && (cnt || total)) {
		char msg[128];
		snprintf(msg, sizeof(msg), "%s returned %" PRId64 " bytes, more than the %" PRIu64
			 " it was asked for", c->call, c->ev.ret, total);
		return bad_line(c->S, c->src, c->lineno, msg);
	}
	return emit(c->S, c->r, &c->ev);
}

static int h_read(struct scall *c) { return h_rw(c, true); }
static int h_write(struct scall *c) { return h_rw(c, false); }

static int h_lseek(struct scall *c)
{
	int64_t hi, lo;
	if (c->en->shape == SH_FDSEEK) {        /* fp_fdiov read them, and the fd */
		c->ev.whence = c->en->whence;
		c->ev.offset = c->en->off;
	} else {
		if (!c->hasfd || whence_of(c->en, &c->ev.whence))
			return BAD_FIELDS;
		if (field_num(c->en, F_HI, &hi) && field_num(c->en, F_LO, &lo))
			c->ev.offset = (int64_t)((uint64_t)hi << 32 | (uint32_t)lo);
		else if (!field_num(c->en, F_OFF, &c->ev.offset))
			return BAD_FIELDS;
	}
	c->ev.call = SC_LSEEK;
	/* llseek's result is not traced (it returns 0) */
	if (strstr(c->call, "llseek") && (!c->has_ret || c->ret == 0))
		c->ev.ret = SC_RET_UNKNOWN;
	return emit(c->S, c->r, &c->ev);
}

static int h_ftruncate(struct scall *c)
{
	int64_t v;
	if (!c->hasfd || !field_num(c->en, F_LEN, &v) || v < 0)
		return BAD_FIELDS;
	c->ev.call = SC_FTRUNCATE;
	c->ev.len = (uint64_t)v;
	return emit(c->S, c->r, &c->ev);
}

static int h_dup(struct scall *c)
{
	if (!c->hasfd)
		return BAD_FIELDS;
	c->ev.call = SC_DUP;
	if (c->call[3]) {
		c->ev.call = SC_DUP2;
		if (!field_num(c->en, F_FD2, &c->ev.fd2))
			return BAD_FIELDS;
	}
	return emit(c->S, c->r, &c->ev);
}

static int h_fstat(struct scall *c)
{
	if (!c->hasfd)
		return BAD_FIELDS;
	c->ev.call = SC_STAT;
	return emit(c->S, c->r, &c->ev);
}

/* stat, unlink, rmdir, mkdir by path */
static int h_path(struct scall *c)
{
	int64_t v;
	if (!field_str(c->en, F_PATH, 0, c->path, PATH_BUF))
		return BAD_FIELDS;
	c->ev.path = c->path;
	c->ev.call = c->call[0] == 'u' ? SC_UNLINK : c->call[0] == 'r' ? SC_RMDIR :
		     c->call[0] == 'm' ? SC_MKDIR : SC_STAT;
	if (c->ev.call == SC_MKDIR && field_num(c->en, F_MODE, &v))
		c->ev.mode = v;
	return emit(c->S, c->r, &c->ev);
}

static int h_rename(struct scall *c)
{
	if (!field_str(c->en, F_PATH1, 0, c->path, PATH_BUF) ||
	    !field_str(c->en, F_PATH2, 1, c->path2, PATH_BUF))
		return BAD_FIELDS;
	c->ev.call = SC_RENAME;
	c->ev.path = c->path;
	c->ev.path2 = c->path2;
	return emit(c->S, c->r, &c->ev);
}

static const struct {
	const char *name;
	int (*fn)(struct scall *c);
} scalls[] = {
	{ "open", h_open }, { "creat", h_open }, { "close", h_close },
	{ "ireadv", h_iread }, { "ireadx", h_iread }, { "iread", h_iread },
	{ "ipreadv", h_iread }, { "ipread", h_iread },
	{ "iwritev", h_iwrite }, { "iwritex", h_iwrite }, { "iwrite", h_iwrite },
	{ "ipwritev", h_iwrite }, { "ipwrite", h_iwrite },
	{ "ifsync", h_sync }, { "ifdatasync", h_sync }, { "fsync", h_sync }, { "fdatasync", h_sync },
	{ "iowait", h_iowait },
	{ "read", h_read }, { "readv", h_read }, { "pread", h_read }, { "preadv", h_read },
	{ "readx", h_read }, { "pread64", h_read },
	{ "write", h_write }, { "writev", h_write }, { "pwrite", h_write }, { "pwritev", h_write },
	{ "writex", h_write }, { "pwrite64", h_write },
	{ "lseek", h_lseek }, { "lseek64", h_lseek }, { "llseek", h_lseek }, { "_llseek", h_lseek },
	{ "ftruncate", h_ftruncate }, { "dup", h_dup }, { "dup2", h_dup },
	{ "fxstat", h_fstat }, { "fstat", h_fstat },
	{ "xstatnd", h_path }, { "stat", h_path }, { "unlink", h_path }, { "rmdir", h_path },
	{ "mkdir", h_path }, { "rename", h_rename },
	/* iodone, truncate, getdirentries, vfcntl and anything unknown: counted */
};

/* strcmp(a, b) == 0 for two call names in 64-byte buffers whose first 16
 * bytes are zero after the string when it is shorter (bn: strlen(b)):
 * 16 bytes at once, and strcmp only for longer names. */
static inline bool call_same(const char *a, const char *b, size_t bn)
{
	uint64_t x[2], y[2];
	memcpy(x, a, 16);
	memcpy(y, b, 16);
	if ((x[0] ^ y[0]) | (x[1] ^ y[1]))
		return false;
	return bn < 16 || !strcmp(a + 16, b + 16);
}

/* scalls[] index of a call name (the table's size: none), remembered
 * per name in a small direct-mapped cache.  call is event_line's 64-byte
 * buffer (cn its strlen), its first 16 bytes zero after the name. */
static size_t call_index(struct sandia *S, const char *call, size_t cn)
{
	uint64_t w;
	memcpy(&w, call, 8);
	struct ccache *k = &S->calls[((w ^ cn) * 0x9E3779B97F4A7C15ull) >> 58];
	if (k->set && call_same(k->name, call, cn))
		return k->ix;
	size_t i = 0, n = sizeof(scalls) / sizeof(scalls[0]);
	while (i < n && strcmp(call, scalls[i].name))
		i++;
	memset(k->name, 0, sizeof(k->name));    /* for call_same */
	snprintf(k->name, sizeof(k->name), "%s", call);
	k->ix = i;
	k->set = true;
	return i;
}

/* The paired call: ENTER fields in en, EXIT fields in ex. */
static int do_call(struct sandia *S, struct srank *r, const struct sfields *en, const struct sfields *ex,
		   const char *call, size_t cn, uint64_t ts, uint64_t dur, const char *src,
		   unsigned long lineno)
{
	struct scall cs;                /* every member set: ev once, not twice */
	struct scall *c = &cs;
	c->S = S;
	c->r = r;
	c->call = call;
	c->en = en;
	c->ex = ex;
	c->ret = 0;
	c->src = src;
	c->lineno = lineno;
	c->path = S->path;
	c->path2 = S->path2;
	c->cn = cn;
	sc_event_init(&c->ev);
	c->ev.src = src;
	c->ev.line = lineno;
	c->ev.ts_ns = ts;
	c->ev.dur_ns = dur;
	c->ev.name = call;
	int64_t err;
	if (ex->shape == SH_IOID || ex->shape == SH_IOID_CC) {
		/* fp_ioid's EXIT: cc() is the first of F_RET there when it is
		 * in it, and there is no F_ERR */
		c->has_ret = ex->shape == SH_IOID_CC;
		c->ret = c->has_ret ? ex->cc : 0;
		if (en->shape == SH_IOID && c->has_ret && cn == 6 && !memcmp(call, "iowait", 6)) {
			/* and the iowait's ENTER: ioid() the first of F_IOID,
			 * no F_FD; cc() the first of F_BYTES */
			c->hasfd = false;
			c->ev.ret = c->ret;
			return iowait_done(c, true, en->ioid, true, ex->cc);
		}
	} else {
		c->has_ret = field_num(c->ex, F_RET, &c->ret);
		if (field_num(c->ex, F_ERR, &err) && err > 0 && (!c->has_ret || c->ret < 0)) {
			c->ret = -err;
			c->has_ret = true;
		}
	}
	c->ev.ret = c->has_ret ? c->ret : SC_RET_UNKNOWN;
	if (en->shape == SH_FDIOV || en->shape == SH_FDSEEK) {
		/* fd() is its first field of F_FD */
		c->hasfd = true;
		c->ev.fd = en->fd;
	} else {
		c->hasfd = field_num(c->en, F_FD, &c->ev.fd);
	}
	int rc = 0;
	size_t i = call_index(S, call, cn), n = sizeof(scalls) / sizeof(scalls[0]);
	if (i < n) {
		rc = scalls[i].fn(c);
	} else {
		c->ev.call = SC_SKIP;
		rc = emit(S, r, &c->ev);
	}
	if (rc == BAD_FIELDS) {
		char msg[160];
		snprintf(msg, sizeof(msg), "expected the fields of '%.40s' (e.g. fd(N)%s)", call,
			 !strcmp(call, "open") ? ", path" : "");
		rc = bad_line(S, src, lineno, msg);
	}
	return rc;
}

/* time:(SECS)time:(USECS) (microseconds not zero-padded), or one
 * time(SECS.frac). */
static int event_time(const struct sfields *fs, uint64_t *ns)
{
	if (fs->ts_ok) {                /* fp_prefix read them */
		*ns = fs->ts;
		return 0;
	}
	const struct sfield *a = field_nth(fs, N_TIME, 0), *b = field_nth(fs, N_TIME, 1);
	int64_t s, us;
	if (!a)
		return -EINVAL;
	if (!b) {
		const char *dot = memchr(a->val, '.', a->vlen);
		if (!dot) {
			if (val_num(a->val, a->vlen, &s) || s < 0)
				return -EINVAL;
			*ns = (uint64_t)s * NS_PER_S;
			return 0;
		}
		size_t fl = a->vlen - (size_t)(dot - a->val) - 1;
		if (val_num(a->val, (size_t)(dot - a->val), &s) || s < 0 || !fl || fl > 9)
			return -EINVAL;
		uint64_t frac = 0;
		for (size_t i = 0; i < 9; i++) {
			char c = i < fl ? dot[1 + i] : '0';
			if (!tx_digit(c))
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(c - '0');
		}
		*ns = (uint64_t)s * NS_PER_S + frac;
		return 0;
	}
	/* the usual: both 1 to 16 digits, no leading 0 (what the checks
	 * below and val_num make of them) */
	uint64_t ds, dus;
	if (fp_dec(a->val, a->vlen, &ds) && fp_dec(b->val, b->vlen, &dus) && dus < 1000000) {
		*ns = ds * NS_PER_S + dus * 1000;
		return 0;
	}
	for (size_t i = 0; i < a->vlen; i++)
		if (!tx_digit(a->val[i]))
			return -EINVAL;
	for (size_t i = 0; i < b->vlen; i++)
		if (!tx_digit(b->val[i]))
			return -EINVAL;
	if (val_num(a->val, a->vlen, &s) || val_num(b->val, b->vlen, &us) || us >= 1000000)
		return -EINVAL;
	*ns = (uint64_t)s * NS_PER_S + (uint64_t)us * 1000;
	return 0;
}

static void spend_free(struct spend *p)
{
	free(p->line);
	free(p->f.f);
	p->line = NULL;
	p->f.f = NULL;
}

/* Drop pending entry k of r; its slot (buffers kept) goes past the end. */
static void pend_drop(struct srank *r, size_t k)
{
	if (k + 1 == r->npend) {        /* the innermost: nothing moves */
		r->npend--;
		return;
	}
	struct spend t = r->pend[k];
	memmove(&r->pend[k], &r->pend[k + 1], (r->npend - k - 1) * sizeof(*r->pend));
	r->pend[--r->npend] = t;
}

/* A copy of the line (len bytes, NULs and all) in slot p's buffer, with
 * LR_PAD bytes after its NUL as lr_next's lines have them (the fields of
 * the copy are read by fields_fast and scan_dec16).  Every event line is
 * read from the copy in its rank's next free slot: an ENTER line then
 * keeps it, and its fields, as they are. */
static int line_copy(struct spend *p, const char *line, size_t len)
{
	if (len + 1 > p->cap) {
		char *nb = realloc(p->line, len + 1 + LR_PAD);
		if (!nb)
			return -ENOMEM;
		memset(nb + len + 1, 0, LR_PAD);
		p->line = nb;
		p->cap = len + 1;
	}
	memcpy(p->line, line, len);
	p->line[len] = '\0';
	return 0;
}

static void trim(const char **s, size_t *n)
{
	while (*n && tx_space(**s))
		(*s)++, (*n)--;
	while (*n && tx_space((*s)[*n - 1]))
		(*n)--;
}

/* One event line, len bytes; ctl: it may hold a control byte (a NUL
 * among them). */
static int event_line(struct sandia *S, struct srank *r, const char *src, unsigned long lineno,
		      const char *line, size_t len, bool ctl)
{
	const char *why = NULL;
	size_t cap0 = r->pcap;
	int rc = grow((void **)&r->pend, &r->pcap, r->npend + 1, sizeof(*r->pend));
	if (rc)
		return rc;
	if (r->pcap != cap0)
		memset(r->pend + cap0, 0, (r->pcap - cap0) * sizeof(*r->pend));
	struct spend *p = &r->pend[r->npend];          /* free: this line's */
	struct sfields *fs = &p->f;
	if (len >= 15 && !memcmp(line, "tracetype(EXIT)", 15)) {
		/* an EXIT (its first tracetype says so) is read where it is:
		 * nothing keeps its fields past this call, and its bytes, the
		 * NUL after them and the LR_PAD bytes after that are the copy's */
		rc = fields_parse(line, len, fs, &why);
	} else {
		rc = line_copy(p, line, len);
		if (rc)
			return rc;
		rc = fields_parse(p->line, len, fs, &why);
	}
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		return bad_line(S, src, lineno, why);
	/* after fp_prefix, the first tracetype and str are fields 0 and 3 */
	const struct sfield *tt = fs->pre ? &fs->f[0] : field_nth(fs, N_TRACETYPE, 0);
	const struct sfield *cs = fs->pre ? &fs->f[3] : field_nth(fs, N_STR, 0);
	if (!tt)
		return bad_line(S, src, lineno, "expected 'tracetype(ENTER|EXIT)'");
	const char *tv = tt->val, *cv = cs ? cs->val : NULL;
	size_t tl = tt->vlen, cl = cs ? cs->vlen : 0;
	if (!fs->pre)                   /* else exactly ENTER or EXIT */
		trim(&tv, &tl);
	if (cs)
		trim(&cv, &cl);
	bool enter = tl == 5 && (!memcmp(tv, "ENTER", 5) || !strncasecmp(tv, "ENTER", 5));
	bool exitl = tl == 4 && (!memcmp(tv, "EXIT", 4) || !strncasecmp(tv, "EXIT", 4));
	if (!enter && !exitl)
		return bad_line(S, src, lineno, "expected 'tracetype(ENTER)' or 'tracetype(EXIT)'");
	uint64_t ts;
	if (event_time(fs, &ts))
		return bad_line(S, src, lineno, "expected 'time:(SECS)time:(USECS)'");
	if (!cs || !cl || cl >= sizeof(r->pend[0].call))
		return bad_line(S, src, lineno, "expected 'str(CALL)'");
	/* the name as a C string (a NUL in it ends it): cn its length; when
	 * under 16, the buffer's first 16 bytes zero after it (call_same) */
	char call[64];
	size_t cn = ctl ? strnlen(cv, cl) : cl;
	if (cn < 16) {                  /* 16 bytes can be read at cv (LR_PAD) */
		uint64_t w[2];
		scan_words16(cv, cn, w);
		memcpy(call, w, 16);
	} else {
		memcpy(call, cv, cl);
	}
	call[cl] = '\0';
	if (enter) {
		if (r->npend >= SMAXPEND)
			return rerr_at(S->e, -EINVAL, src, lineno, "more than %d ENTER lines without EXIT",
				       SMAXPEND);
		p->ts = ts;
		p->src = src;
		p->lineno = lineno;
		memcpy(p->call, call, sizeof(call));
		/* a line with a NUL byte is kept up to it and parsed again, as
		 * a C string (its EXIT then fails as it did) */
		size_t n = ctl ? strnlen(p->line, len) : len;
		p->parsed = 0;
		if (n < len) {
			p->line[n] = '\0';
			p->parsed = fields_parse(p->line, n, &p->f, &why);
			if (p->parsed == -ENOMEM)
				return -ENOMEM;
		}
		r->npend++;
		return 0;
	}
	size_t k = SIZE_MAX;
	for (size_t i = r->npend; i-- > 0;)
		if (call_same(r->pend[i].call, call, cn)) {
			k = i;
			break;
		}
	if (k == SIZE_MAX) {
		char msg[128];
		snprintf(msg, sizeof(msg), "EXIT of '%s' without an ENTER", call);
		return bad_line(S, src, lineno, msg);
	}
	struct spend *en = &r->pend[k];
	rc = en->parsed;
	if (!rc)
		rc = do_call(S, r, &en->f, fs, call, cn, en->ts, ts >= en->ts ? ts - en->ts : 0, en->src,
			     en->lineno);
	pend_drop(r, k);
	return rc;
}

static int check_pending(struct sandia *S, const char *src)
{
	for (size_t i = 0; i < S->nr; i++) {
		struct srank *r = &S->r[i];
		for (size_t k = 0; k < r->npend;) {
			struct spend *p = &r->pend[k];
			if (p->src != src) {
				k++;
				continue;
			}
			char msg[256];
			snprintf(msg, sizeof(msg), "ENTER of '%s' has no EXIT (rank %s)", p->call, r->name);
			int rc = bad_line(S, src, p->lineno, msg);
			if (rc)
				return rc;
			pend_drop(r, k);
		}
	}
	return 0;
}

static int parse_file(struct sandia *S, const char *path)
{
	struct linereader lr;
	int rc = lr_open(&lr, path);
	if (rc)
		return rerr_set(S->e, rc, "cannot open '%s': %s", path, strerror(-rc));
	struct srank *cur = NULL;
	char *line;
	size_t len = 0;                 /* an over-long line leaves it as it was */
	size_t ctrl;
	uint64_t lines = 0, bytes = 0;  /* added to S->in's at out: */
	/* the control byte lr_next_ctrl finds tells event_line whether a NUL
	 * may cut its line */
	while ((rc = lr_next_ctrl_inline(&lr, &line, &len, &ctrl)) != 0) {
		lines++;
		bytes += len + 1;
		if (rc == -E2BIG) {
			rc = bad_line(S, path, lr.lineno, "line too long");
			if (rc)
				goto out;
			continue;
		}
		if (rc < 0) {
			rerr_set(S->e, rc, "cannot read '%s': %s", path, strerror(-rc));
			goto out;
		}
		const char *p = line;
		while (tx_space(*p))
			p++;
		if (!*p || *p == '#') {
			rc = 0;
			continue;
		}
		if (*p == 'h' && !strncmp(p, "header", 6)) {
			rc = header_line(S, path, lr.lineno, p, &cur);
			if (rc)
				goto out;
			continue;
		}
		if (!cur) {         /* events before any header: one rank for the file */
			const char *bn = strrchr(path, '/');
			bn = bn ? bn + 1 : path;
			rc = rank_get(S, bn, SYNTH_PID + (int64_t)S->nr, &cur);
			if (rc)
				goto out;
		}
		rc = event_line(S, cur, path, lr.lineno, p, len - (size_t)(p - line), ctrl < len);
		if (rc)
			goto out;
	}
	rc = check_pending(S, path);
out:
	S->in->lines += lines;
	S->in->bytes += bytes;
	lr_close(&lr);
	return rc;
}

/* A line (blanks skipped) that starts as a libsysio trace's do: an
 * event's "tracetype(", a section's "header".  A file with none (a README
 * beside the traces) is no trace; one with some and a bad line is a
 * damaged trace, whose bad line is an error. */
static bool sandia_line(const char *l, size_t n)
{
	return (n >= 10 && !memcmp(l, "tracetype(", 10)) || (n >= 6 && !memcmp(l, "header", 6));
}

static int sandia_parse(struct trace_input *in, struct builder *b, struct rerr *e)
{
	struct sandia S = { .in = in, .b = b, .e = e };
	int rc = 0;
	fnames_init();
	if (!in->nfiles)
		return rerr_set(e, -EINVAL, "no Sandia trace files given");
	rc = trace_drop_foreign(in, sandia_line, "Sandia libsysio ('tracetype(ENTER|EXIT)...' or"
				" 'header ... headernode(N.PID)')", e);
	if (rc)
		return rc;
	for (size_t i = 0; i < in->nfiles && !rc; i++)
		rc = parse_file(&S, in->files[i]);
	if (!rc && S.iovec_guess) {
		size_t n = strlen(in->note);
		snprintf(in->note + n, sizeof(in->note) - n,
			 "%s%" PRIu64 " iowait EXITs carried no byte count: async length from the iovecs",
			 n ? "; " : "", S.iovec_guess);
	}
	for (size_t i = 0; i < S.nr; i++) {
		for (size_t k = 0; k < S.r[i].pcap; k++)
			spend_free(&S.r[i].pend[k]);
		for (size_t k = 0; k < S.r[i].nsubs; k++)
			free(S.r[i].subs[k].lens);
		free(S.r[i].pend);
		free(S.r[i].subs);
	}
	free(S.r);
	free(S.tmp.f);
	free(S.xts);
	return rc;
}

/* Only what starts a line counts (after blanks, as the parser skips
 * them): "tracetype(" of an event line, "header ... headernode(" of a
 * section's header.  Another trace may hold those words elsewhere on its
 * lines (strace of a program reading a .sanitized file shows its bytes in
 * quotes, the newlines escaped), and is not taken for this format. */
static int sandia_probe(const char *head, size_t len)
{
	const char *end = head + (len < 65536 ? len : 65536);
	bool ev = false, ev_str = false, hdr = false;

	for (const char *p = head; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		while (p < le && (*p == ' ' || *p == '\t'))
			p++;
		size_t n = (size_t)(le - p);
		if (n >= 10 && !memcmp(p, "tracetype(", 10)) {
			ev = true;
			if (memmem(p, n, "str(", 4))
				ev_str = true;
		} else if (n >= 6 && !memcmp(p, "header", 6) && memmem(p, n, "headernode(", 11)) {
			hdr = true;
		}
		p = le + 1;
	}
	return ev_str ? 95 : hdr ? 90 : ev ? 70 : 0;
}

const struct trace_format trace_sandia = {
	.name = "sandia",
	.desc = "Sandia libsysio trace (.sanitized: header/headernode sections, tracetype ENTER/EXIT)",
	.probe = sandia_probe,
	.parse = sandia_parse,
};
