/*
 * dxt.c - Darshan DXT traces (`darshan-dxt-parser` text) into ops.
 *
 * The text (what every parser version prints is described in
 * shared/formats/dxt/README.md and replay(1)): a job header, a mount table,
 * then per DXT module (DXT_POSIX, then DXT_MPIIO) one block per (file,
 * rank): "# DXT, file_id: ..., file_name: PATH", "# DXT, rank: R,
 * hostname: H", "# DXT, write_count: W, read_count: R", optional Lustre
 * lines, a column header, then W write lines and R read lines:
 *
 *    X_POSIX  RANK  write|read  SEGMENT  [OFFSET]  LENGTH  START  END  [OST]...  [THREAD]
 *
 * Pass 1 reads the text once, checks every line (file:line errors) and
 * keeps, for the chosen layer only, one 32-byte record per segment
 * (struct seg): offset, length, start and end in 0.1 ms ticks (the
 * resolution every parser version prints), block and line.  Memory is
 * therefore 32 bytes x segments of the layer (the array doubles as it
 * grows: at most 64), plus per block, file and rank a few dozen bytes, plus
 * their names; nothing per line of the other layer.
 *
 * Pass 2 sorts the records by (rank, start, line): DXT lists a block's
 * writes before its reads and blocks file by file, so this rebuilds each
 * rank's order across all its files; equal starts keep the listed order.
 * Each rank is then fed to the builder: an open of each file before its
 * first segment, the segments as positioned reads and writes, a close
 * when its last segment has ended (opens and closes are OPF_SYNTH: DXT does
 * not record them).
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/dxt.h"
#include "util/scan.h"
#include "trace/trace.h"
#include "util/imap.h"
#include "parse_common.h"

#define TICK_NS 100000ull         /* 0.1 ms: the %.4f of every parser */
#define RUN_SEGS (1u << 18)       /* records sorted in memory (8 MiB; the sort
                                   * takes 14 MiB more)                 */
#define SEG_BUF 2048u             /* records per spill buffer (64 KiB)  */
#define WRITE_BIT 0x80000000u
/* the longest segment read: one MPI-IO call's buffer is in one process's
 * memory; a longer one is replayed as ops of one Linux call each (feed_split),
 * at most 8,193 of them */
#define SEG_MAX_LEN (1ll << 44)

enum { MOD_NONE = -1, MOD_POSIX = 0, MOD_MPIIO = 1, NMOD = 2 };
static const char *const mod_name[NMOD] = { "DXT_POSIX", "DXT_MPIIO" };
static const char *const seg_name[NMOD] = { "X_POSIX", "X_MPIIO" };

struct seg {                      /* 32 bytes */
	int64_t off;              /* -1: unknown (MPIIO of old logs)   */
	uint64_t len;
	uint32_t start, end;      /* ticks since the rank's Darshan start */
	uint32_t block;           /* | WRITE_BIT for writes            */
	uint32_t line;
};
_Static_assert(sizeof(struct seg) == 32, "a segment record is 32 bytes");

struct dfile {
	uint64_t id;              /* Darshan record id                  */
	uint32_t name;            /* offset in strs                     */
	uint32_t osts;            /* offset in strs of the OST set, 0 none */
};

struct drank {
	int64_t rank;
	uint32_t host;            /* offset in strs                     */
	uint32_t host_line;
	uint64_t segs[NMOD];
	uint32_t brank;           /* builder rank                       */
};

struct dblock {
	uint32_t file, rank;      /* indexes into files, ranks          */
	uint32_t nw, nr;          /* the header's counts                */
	uint32_t seen_w, seen_r;
	uint32_t line;            /* of the file_id line                */
	int8_t module;
	uint8_t have_rank, have_counts;
	uint8_t damaged;          /* a segment line was skipped (--skip-bad) */
	uint8_t kept;             /* a segment of the layer kept        */
	uint8_t writes;           /* a write of the layer kept; then of all the
	                           * blocks of its (rank, file): see file_sums */
	/* of the segments kept (the layer's): the latest end, and the last in
	 * pass 2's order (start, then line); file_sums makes them those of all
	 * the blocks of the block's (rank, file), and lblock the line of the
	 * block that holds the last */
	uint32_t maxend, lstart, lline, lblock;
	uint64_t bytes;           /* of all its segments (other_layer_files) */
};

/* Where the fields of a segment line are, taken from a line that had
 * them there (seg_cols): bit i of a mask is byte i of the line. */
struct seg_layout {
	uint8_t keep[6][16] __attribute__((aligned(16)));  /* per window pair */
	uint64_t fix[2];          /* bytes of a fixed class ...           */
	uint64_t nb[2], dg[2];    /* ... a non-space, a digit             */
	uint64_t var[2];          /* a space or a right-aligned digit     */
	uint8_t ksec[16] __attribute__((aligned(16)));  /* pair 3's seconds (keep[3]:
	                                                 * its decimals) */
	uint64_t sec45[2];        /* 4th and 5th digits of seconds: pair 4 */
	uint8_t win[6][2];        /* window starts                        */
	uint8_t kind, dot[2];     /* "write" or " read"; the times' dots  */
	uint8_t f;                /* the fixed part's length; 0: none yet */
	bool wide;                /* pair 5 (high digits of rank, segment) */
	unsigned backoff;         /* lines not to try                     */
	unsigned misses;          /* lines in a row it did not take       */
	/* the tail (after the end time) last taken, when 16 bytes or less */
	uint8_t tail[16] __attribute__((aligned(16)));
	uint8_t tlen;
	uint16_t tsp, tdg;        /* its spaces, its digits               */
	/* the multipliers of dec8x2, read from here: a constant would be
	 * turned into shifts and adds */
	uint8_t mul[3][16] __attribute__((aligned(16)));
};

struct dxt {
	struct trace_input *in;
	struct builder *b;
	struct rerr *e;
	const char *src;
	enum dxt_layer layer;
	int want;                 /* module kept: MOD_POSIX or MOD_MPIIO */

	/* what the text said */
	int module;               /* current module, MOD_NONE before a banner */
	bool banner_data[NMOD];   /* a block followed the banner        */
	bool banner_seen[NMOD];
	bool incomplete[NMOD];
	bool no_dxt;              /* "# no DXT module data available"   */
	/* the regions list's "# DXT_MPIIO module: N bytes": N, 0 none (the
	 * parser then prints no banner for it) */
	uint64_t announced[NMOD];
	int64_t nprocs_n;         /* the header's nprocs, 0 unknown      */
	unsigned long beyond_line; /* the first rank >= nprocs: its line */
	int64_t beyond_rank;
	int64_t start_time;       /* job start (epoch s), -1 unknown     */
	char log_version[32], lib_ver[32], nprocs[32], jobid[32], run_time[32];
	int mod_ver[NMOD];
	uint64_t nsegs[NMOD], nblocks[NMOD], zero_len[NMOD], unknown_off[NMOD];
	uint64_t unnamed;         /* records named "(null)": files of their own */

	/* tables */
	struct seg *segs;
	size_t nseg, capseg;
	/* beyond RUN_SEGS records, sorted runs go to an unlinked temporary
	 * file: memory stays bounded, whatever the size of the trace */
	int spill_fd;             /* -1: none yet                        */
	uint64_t *runs;           /* record index where each run starts  */
	size_t nruns, capruns;
	uint64_t spilled;         /* records in the file's runs          */
	struct dblock *blocks;
	size_t nblock, capblock;
	struct dfile *files;
	size_t nfile, capfile;
	struct drank *ranks;
	size_t nrank, caprank;
	char *strs;
	size_t strlen_, capstr;
	struct imap file_ix, rank_ix; /* id / rank -> index + 1 */
	int64_t cur;              /* current block index, -1 none       */
	/* (file, rank) -> block index + 1, per module: the parser prints one
	 * block per file and rank in each module, so a second one is a dump
	 * put together from several (one job per replay) */
	struct imap block_ix[NMOD];
	unsigned long version_line; /* the "# darshan log version:" line, 0 none */
	/* Lustre lines of the current block, before its first segment */
	char osts[1024];
	size_t nosts;
	bool osts_mdt;
	struct seg_layout lay;    /* of the segment lines (seg_cols)    */
};

/* ---- small helpers ------------------------------------------------------ */

int dxt_layer_parse(const char *name, enum dxt_layer *layer)
{
	if (!name || !strcmp(name, "posix"))
		*layer = DXT_LAYER_POSIX;
	else if (!strcmp(name, "mpiio"))
		*layer = DXT_LAYER_MPIIO;
	else
		return -EINVAL;
	return 0;
}

const char *dxt_incomplete_warning(const struct opstream *s, char *buf, size_t len)
{
	char v[128];

	if (!opstream_info(s, "incomplete", v, sizeof(v)) || !v[0])
		return NULL;
	snprintf(buf, len, "the trace is incomplete (%s: Darshan's DXT buffer filled up, later"
		 " operations were not recorded): only what was recorded is analysed and"
		 " replayed", v);
	return buf;
}

const char *dxt_rank_warning(const struct opstream *s, char *buf, size_t len)
{
	char v[64], np[32];
	unsigned long line;
	int64_t rank;

	if (!opstream_info(s, "dxt_rank_beyond_nprocs", v, sizeof(v)) ||
	    sscanf(v, "%lu %" SCNd64, &line, &rank) != 2)
		return NULL;
	if (!opstream_info(s, "dxt_nprocs", np, sizeof(np)))
		strcpy(np, "?");
	snprintf(buf, len, ":%lu: rank %" PRId64 " is not below the header's nprocs (%s; a"
		 " binary log with it is refused as corrupt): the dump and its header disagree"
		 " (edited, or put together from several dumps?); its ranks are replayed as"
		 " they are (the first such block only is named)", line, rank, np);
	return buf;
}

const char *dxt_layer_warning(const struct opstream *s, char *buf, size_t len)
{
	char n[32], bytes[32], layer[16], first[320];

	if (!opstream_info(s, "dxt_files_other_layer_only", n, sizeof(n)) || !strcmp(n, "0") ||
	    !opstream_info(s, "dxt_layer", layer, sizeof(layer)))
		return NULL;
	if (!opstream_info(s, "dxt_files_other_layer_only_bytes", bytes, sizeof(bytes)))
		strcpy(bytes, "?");
	if (!opstream_info(s, "dxt_files_other_layer_only_first", first, sizeof(first)))
		strcpy(first, "?");
	bool mpiio = !strcmp(layer, "mpiio"), one = !strcmp(n, "1");
	snprintf(buf, len, "%s file%s ha%s segments only in the %s layer, none in the replayed %s"
		 " layer (%s bytes there; %s%s): %s not replayed; use --dxt-layer %s to replay"
		 " %s (one layer is replayed, never both)", n, one ? "" : "s", one ? "s" : "ve",
		 mpiio ? "DXT_POSIX" : "DXT_MPIIO", mpiio ? "DXT_MPIIO" : "DXT_POSIX", bytes,
		 one ? "" : "the first: ", first, one ? "it is" : "they are", mpiio ? "posix" : "mpiio",
		 one ? "it" : "them");
	return buf;
}

const char *dxt_unnamed_warning(const struct opstream *s, char *buf, size_t len)
{
	char n[32];

	if (!opstream_info(s, "dxt_unnamed_records", n, sizeof(n)) || !strcmp(n, "0"))
		return NULL;
	snprintf(buf, len, "%s Darshan record%s no file name (the dump says '(null)'): each is"
		 " replayed as a file of its own, named darshan-record-ID after its record id",
		 n, strcmp(n, "1") ? "s have" : " has");
	return buf;
}

static int bad(struct dxt *D, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct dxt *D, unsigned long line, const char *fmt, ...)
{
	char msg[480];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return trace_bad_line(D->in, D->e, D->src, line, msg);
}

static int str_add(struct dxt *D, const char *s, size_t n, uint32_t *off)
{
	int rc;

	if (D->strlen_ + n + 1 > UINT32_MAX)
		return -ENOMEM;
	rc = trace_grow((void **)&D->strs, &D->capstr, D->strlen_ + n + 1, 1, 4096);
	if (rc)
		return rc;
	if (!D->strlen_)
		D->strs[D->strlen_++] = 0;      /* offset 0: "" */
	*off = (uint32_t)D->strlen_;
	memcpy(D->strs + D->strlen_, s, n);
	D->strs[D->strlen_ + n] = 0;
	D->strlen_ += n + 1;
	return 0;
}

/* s begins with prefix (s NUL-terminated: a short s stops at its NUL). */
static inline bool starts(const char *s, const char *prefix)
{
	for (; *prefix; s++, prefix++)
		if (*s != *prefix)
			return false;
	return true;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A decimal integer (optional '-'); *end after it. */
static bool dec_i64(const char *p, const char **end, int64_t *v)
{
	bool neg = *p == '-';
	uint64_t x = 0;
	const char *s;

	if (neg)
		p++;
	s = p;
	while (*p >= '0' && *p <= '9') {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p++ - '0');
	}
	if (p == s || x > (uint64_t)INT64_MAX + neg)
		return false;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	*end = p;
	return true;
}

/* dec_i64 on a span that ends at pe (or before, at a non-digit): 8
 * digits at a time, for offsets and lengths (the byte loop is cheaper
 * for ranks and segment numbers, a digit or three). */
static bool dec_i64n(const char *p, const char *pe, const char **end, int64_t *v)
{
	bool neg = p < pe && *p == '-', ovf;
	uint64_t x;

	if (neg)
		p++;
	size_t k = scan_decn(p, (size_t)(pe - p), &x, &ovf);
	if (!k || ovf || x > (uint64_t)INT64_MAX + neg)
		return false;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	*end = p + k;
	return true;
}

/* "S.FFFF" seconds into 0.1 ms ticks (further digits dropped); the time
 * fields are short, so a byte loop (8-digit steps cost more here). */
static bool secs_ticks(const char *p, const char **end, uint32_t *t, bool *range)
{
	uint64_t whole = 0, frac = 0;
	const char *s = p;
	int nd = 0;

	*range = false;
	/* darshan-dxt-parser's "%.4f": up to 5 digits, '.', 4 digits (below
	 * 10^9 ticks: no range to check) */
	while (nd < 5 && *p >= '0' && *p <= '9')
		whole = whole * 10 + (uint64_t)(*p++ - '0'), nd++;
	if (nd && p[0] == '.' && tx_digit(p[1]) && tx_digit(p[2]) && tx_digit(p[3]) &&
	    tx_digit(p[4]) && !tx_digit(p[5])) {
		*t = (uint32_t)(whole * 10000 + (uint64_t)(p[1] - '0') * 1000 +
				(uint64_t)(p[2] - '0') * 100 + (uint64_t)(p[3] - '0') * 10 +
				(uint64_t)(p[4] - '0'));
		*end = p + 5;
		return true;
	}
	p = s;          /* anything else the long way */
	whole = 0;
	nd = 0;
	while (*p >= '0' && *p <= '9') {
		if (whole > UINT32_MAX)
			*range = true;
		else
			whole = whole * 10 + (uint64_t)(*p - '0');
		p++;
	}
	if (p == s || *p != '.')
		return false;
	p++;
	s = p;
	while (*p >= '0' && *p <= '9') {
		if (nd < 4)
			frac = frac * 10 + (uint64_t)(*p - '0');
		nd++;
		p++;
	}
	if (p == s)
		return false;
	while (nd < 4) {
		frac *= 10;
		nd++;
	}
	if (*range || whole * 10000 + frac > UINT32_MAX) {
		*range = true;
		return false;
	}
	*t = (uint32_t)(whole * 10000 + frac);
	*end = p;
	return true;
}

/* ---- tables -------------------------------------------------------------- */

static int file_get(struct dxt *D, uint64_t id, const char *name, size_t nlen,
		    unsigned long line, uint32_t *ix)
{
	void *v = imap_get(&D->file_ix, (int64_t)id);
	int rc;

	if (v) {
		*ix = (uint32_t)((uintptr_t)v - 1);
		const char *old = D->strs + D->files[*ix].name;
		if (strlen(old) != nlen || memcmp(old, name, nlen))
			return bad(D, line, "file_id %" PRIu64 " names '%.*s' here and '%s' before",
				   id, (int)nlen, name, old);
		return 0;
	}
	rc = trace_grow((void **)&D->files, &D->capfile, D->nfile + 1, sizeof(*D->files), 64);
	if (rc)
		return rc;
	struct dfile *f = &D->files[D->nfile];
	memset(f, 0, sizeof(*f));
	f->id = id;
	rc = str_add(D, name, nlen, &f->name);
	if (rc)
		return rc;
	rc = imap_put(&D->file_ix, (int64_t)id, (void *)(uintptr_t)(D->nfile + 1));
	if (rc)
		return rc;
	*ix = (uint32_t)D->nfile++;
	return 0;
}

static int rank_get(struct dxt *D, int64_t rank, uint32_t *ix)
{
	void *v = imap_get(&D->rank_ix, rank);
	int rc;

	if (v) {
		*ix = (uint32_t)((uintptr_t)v - 1);
		return 0;
	}
	rc = trace_grow((void **)&D->ranks, &D->caprank, D->nrank + 1, sizeof(*D->ranks), 64);
	if (rc)
		return rc;
	memset(&D->ranks[D->nrank], 0, sizeof(D->ranks[0]));
	D->ranks[D->nrank].rank = rank;
	rc = imap_put(&D->rank_ix, rank, (void *)(uintptr_t)(D->nrank + 1));
	if (rc)
		return rc;
	*ix = (uint32_t)D->nrank++;
	return 0;
}

/* The block that just ended: every segment its header announced? */
static int block_end(struct dxt *D)
{
	if (D->cur < 0)
		return 0;
	struct dblock *k = &D->blocks[D->cur];
	int rc = 0;

	D->cur = -1;
	/* a dump cut right after the block's file_id or rank line: its
	 * counts are not 0, they are unknown */
	if (!k->have_rank || !k->have_counts) {
		char rank[32] = "";
		if (k->have_rank)
			snprintf(rank, sizeof(rank), " (rank %" PRId64 ")", D->ranks[k->rank].rank);
		return bad(D, k->line, "block of '%s'%s ends without its '# DXT, %s' line"
			   " (truncated dump?)", D->strs + D->files[k->file].name, rank,
			   k->have_rank ? "write_count:" : "rank:");
	}
	if (k->seen_w != k->nw || k->seen_r != k->nr) {
		/* the rank line may have been skipped (--skip-bad): no rank then */
		char rank[32] = "no rank line";
		if (k->have_rank)
			snprintf(rank, sizeof(rank), "rank %" PRId64, D->ranks[k->rank].rank);
		rc = bad(D, k->line, "block of '%s' (%s) lists %u writes and %u"
			 " reads, its header says %u and %u (truncated dump?)",
			 D->strs + D->files[k->file].name, rank, k->seen_w,
			 k->seen_r, k->nw, k->nr);
	}
	return rc;
}

/* ---- header lines ---------------------------------------------------------- */

static void copy_val(char *dst, size_t cap, const char *v)
{
	size_t n = strlen(v);

	while (n && (v[n - 1] == ' ' || v[n - 1] == '\r'))
		n--;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, v, n);
	dst[n] = 0;
}

/* "# DXT_POSIX module: 848 bytes (compressed), ver=1" */
static void region_line(struct dxt *D, const char *p)
{
	for (int m = 0; m < NMOD; m++) {
		size_t n = strlen(mod_name[m]);
		if (strncmp(p, mod_name[m], n) || strncmp(p + n, " module:", 8))
			continue;
		const char *v = strstr(p, "ver=");
		int64_t x;
		const char *end;
		if (dec_i64(skip_ws(p + n + 8), &end, &x) && x > 0)
			D->announced[m] = (uint64_t)x;
		if (v && dec_i64(v + 4, &end, &x) && x >= 0 && x < 1000)
			D->mod_ver[m] = (int)x;
	}
}

static int job_line(struct dxt *D, const char *p, unsigned long line)
{
	const char *end;
	int64_t v;

	if (starts(p, "darshan log version: "))
		copy_val(D->log_version, sizeof(D->log_version), p + 21);
	else if (starts(p, "nprocs: ")) {
		copy_val(D->nprocs, sizeof(D->nprocs), p + 8);
		if (!dec_i64(D->nprocs, &end, &D->nprocs_n) || *end || D->nprocs_n < 0)
			D->nprocs_n = 0;
	}
	else if (starts(p, "jobid: "))
		copy_val(D->jobid, sizeof(D->jobid), p + 7);
	else if (starts(p, "run time: "))
		copy_val(D->run_time, sizeof(D->run_time), p + 10);
	else if (starts(p, "metadata: lib_ver = "))
		copy_val(D->lib_ver, sizeof(D->lib_ver), p + 20);
	else if (starts(p, "start_time: ")) {
		if (!dec_i64(p + 12, &end, &v) || v < 0 || *skip_ws(end))
			return bad(D, line, "expected a number of seconds after 'start_time:'");
		D->start_time = v;
	}
	return 0;
}

/* The OST indices of "OSTs: 3 7 11" (and the old lines), added to the set
 * of the current block's file. */
static int ost_list(struct dxt *D, const char *o, unsigned long line)
{
	const char *end;
	int64_t v;

	for (;;) {
		o = skip_ws(o);
		if (!*o || *o == '\r')
			return 0;
		if (!dec_i64(o, &end, &v) || v < 0)
			return bad(D, line, "expected OST indices");
		if (D->nosts + 24 < sizeof(D->osts))
			D->nosts += (size_t)snprintf(D->osts + D->nosts, sizeof(D->osts) - D->nosts,
						     "%s%" PRId64, D->nosts ? "," : "", v);
		o = end;
	}
}

/* "file_id: N, file_name: PATH": a new block of the current module. */
static int block_start(struct dxt *D, const char *p, unsigned long line)
{
	const char *q = p;
	uint64_t id = 0;
	uint32_t fix;
	int rc = block_end(D);

	if (rc)
		return rc;
	if (D->module == MOD_NONE)
		return bad(D, line, "block header before any '# DXT_POSIX module data' or"
			   " '# DXT_MPIIO module data' banner");
	/* file ids are unsigned 64-bit */
	while (*q >= '0' && *q <= '9' && id <= (UINT64_MAX - 9) / 10)
		id = id * 10 + (uint64_t)(*q++ - '0');
	if (q == p || (*q >= '0' && *q <= '9') || !starts(q, ", file_name: "))
		return bad(D, line, "expected 'file_id: N, file_name: PATH'");
	const char *name = q + 13;
	size_t nlen = strlen(name);
	while (nlen && name[nlen - 1] == '\r')
		nlen--;
	if (!nlen)
		return bad(D, line, "empty file_name");
	/* a record without a name: the parser prints "(null)" for each;
	 * each record id stays its own file */
	char own[48];
	bool unnamed = nlen == 6 && !memcmp(name, "(null)", 6);
	if (unnamed) {
		nlen = (size_t)snprintf(own, sizeof(own), "darshan-record-%" PRIu64, id);
		name = own;
	}
	size_t had = D->nfile;
	rc = file_get(D, id, name, nlen, line, &fix);
	if (!rc && unnamed && D->nfile > had)
		D->unnamed++;
	if (rc)
		return rc;
	rc = trace_grow((void **)&D->blocks, &D->capblock, D->nblock + 1, sizeof(*D->blocks), 64);
	if (rc)
		return rc;
	if (D->nblock >= WRITE_BIT)
		return bad(D, line, "more than %u blocks", WRITE_BIT);
	struct dblock *k = &D->blocks[D->nblock];
	memset(k, 0, sizeof(*k));
	k->file = fix;
	k->line = (uint32_t)line;
	k->module = (int8_t)D->module;
	D->cur = (int64_t)D->nblock++;
	D->nblocks[D->module]++;
	D->banner_data[D->module] = true;
	D->nosts = 0;
	D->osts[0] = 0;
	D->osts_mdt = false;
	return 0;
}

/* "rank: R, hostname: H" */
static int rank_line(struct dxt *D, struct dblock *k, const char *p, unsigned long line)
{
	const char *end;
	uint32_t rix;
	int64_t v;
	int rc;

	/* (an empty HOST, as gethostname() may give, leaves ", hostname:"
	 * once the line's trailing blanks are gone) */
	if (!dec_i64(p, &end, &v) || !starts(end, ", hostname:") ||
	    (end[11] != ' ' && end[11] != '\0' && end[11] != '\r'))
		return bad(D, line, "expected 'rank: R, hostname: HOST'");
	if (v < 0)
		return bad(D, line, "negative rank %" PRId64, v);
	/* a rank the job did not have: a binary log with it is refused as
	 * corrupt; the text (edited, or merged from two dumps?) is read,
	 * with a warning (write_info) */
	if (D->nprocs_n > 0 && v >= D->nprocs_n && !D->beyond_line) {
		D->beyond_line = line;
		D->beyond_rank = v;
	}
	rc = rank_get(D, v, &rix);
	if (rc)
		return rc;
	const char *h = end + 11 + (end[11] == ' ');
	size_t hl = strlen(h);
	while (hl && (h[hl - 1] == ' ' || h[hl - 1] == '\r'))
		hl--;
	struct drank *r = &D->ranks[rix];
	if (!r->host_line) {
		rc = str_add(D, h, hl, &r->host);
		if (rc)
			return rc;
		r->host_line = (uint32_t)line;
	} else if (strlen(D->strs + r->host) != hl || memcmp(D->strs + r->host, h, hl)) {
		return bad(D, line, "rank %" PRId64 " on host '%.*s' here, on '%s' at line %u", v,
			   (int)hl, h, D->strs + r->host, r->host_line);
	}
	k->rank = rix;
	k->have_rank = 1;
	/* one block per (module, file, rank): a second is another dump's */
	int64_t key = (int64_t)((uint64_t)k->file << 32 | rix);
	void *first = imap_get(&D->block_ix[k->module], key);
	if (first)
		return rerr_at(D->e, -EINVAL, D->src, k->line,
			       "a second %s block of '%s' for rank %" PRId64 " (the first at line %u):"
			       " darshan-dxt-parser prints one block per file and rank, so the file"
			       " holds more than one dump (dumps put together?); replay replays one"
			       " job at a time: give each dump as its own trace",
			       mod_name[k->module], D->strs + D->files[k->file].name, v,
			       D->blocks[(uintptr_t)first - 1].line);
	return imap_put(&D->block_ix[k->module], key, (void *)(uintptr_t)(D->cur + 1));
}

/* "# DXT, ..." lines */
static int dxt_line(struct dxt *D, const char *p, unsigned long line)
{
	const char *end;
	int64_t v, w;

	if (starts(p, "file_id: "))
		return block_start(D, p + 9, line);
	if (D->cur < 0)
		return bad(D, line, "'# DXT, %.40s' outside a block (no '# DXT, file_id:' line before)", p);
	struct dblock *k = &D->blocks[D->cur];
	if (starts(p, "rank: "))
		return rank_line(D, k, p + 6, line);
	if (starts(p, "write_count: ")) {
		if (!dec_i64(p + 13, &end, &v) || !starts(end, ", read_count: ") ||
		    !dec_i64(end + 14, &end, &w) || *skip_ws(end))
			return bad(D, line, "expected 'write_count: W, read_count: R'");
		if (v < 0 || w < 0 || v >= WRITE_BIT || w >= WRITE_BIT)
			return bad(D, line, "write_count/read_count out of range");
		k->nw = (uint32_t)v;
		k->nr = (uint32_t)w;
		k->have_counts = 1;
		return 0;
	}
	/* Lustre layouts of parsers before 3.4.6: the OST set of the file */
	if (starts(p, "Lustre OST obdidx:"))
		return ost_list(D, p + 18, line);
	if (starts(p, "Lustre OSTs:"))
		return ost_list(D, p + 12, line);
	/* number of threads, mnt_pt/fs_type, stripe sizes, "Lustre stripe
	 * components:": nothing to keep */
	return 0;
}

/* "#<TAB>[Component 1] stripe_ext: 0 - EOF, stripe_size: 1048576, stripe_count: 1, OSTs: 106" */
static int component_line(struct dxt *D, const char *p, unsigned long line)
{
	const char *c = strstr(p, "stripe_count: "), *o = strstr(p, "OSTs:"), *end;
	int64_t v;

	if (D->cur < 0)
		return bad(D, line, "Lustre component line outside a block");
	if (!c || !o)
		return bad(D, line, "expected 'stripe_count: N, OSTs: ...' in a Lustre component line");
	if (!dec_i64(c + 14, &end, &v) || v < 0)
		return bad(D, line, "expected a number after 'stripe_count:'");
	if (v == 0)
		D->osts_mdt = true;     /* data on the MDT */
	return ost_list(D, o + 5, line);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The block's first segment: its file's OST set is complete. */
static int file_osts(struct dxt *D)
{
	struct dblock *k = &D->blocks[D->cur];
	struct dfile *f = &D->files[k->file];
	int64_t v[128];
	size_t n = 0;
	char out[1100];
	size_t ol = 0;

	if (f->osts || (!D->nosts && !D->osts_mdt))
		return 0;
	for (const char *p = D->osts; *p && n < sizeof(v) / sizeof(v[0]);) {
		const char *end;
		if (!dec_i64(p, &end, &v[n]))
			break;
		n++;
		p = *end == ',' ? end + 1 : end;
	}
	qsort(v, n, sizeof(v[0]), cmp_i64);
	if (D->osts_mdt)
		ol += (size_t)snprintf(out + ol, sizeof(out) - ol, "mdt");
	for (size_t i = 0; i < n; i++) {
		if (i && v[i] == v[i - 1])
			continue;
		ol += (size_t)snprintf(out + ol, sizeof(out) - ol, "%s%" PRId64, ol ? "," : "", v[i]);
		if (ol >= sizeof(out) - 24)
			break;
	}
	return str_add(D, out, ol, &f->osts);
}

/* ---- segment lines --------------------------------------------------------- */

struct segf {                     /* the fields of one segment line */
	int64_t rank, segix, off, len;
	uint32_t t0, t1;
	bool is_w, has_off;
};
/* seg_cols stores rank and segix, off and len, t0 and t1 at once */
_Static_assert(offsetof(struct segf, segix) == offsetof(struct segf, rank) + 8 &&
	       offsetof(struct segf, len) == offsetof(struct segf, off) + 8 &&
	       offsetof(struct segf, t1) == offsetof(struct segf, t0) + 4, "segf pairs");

/* A '.' in s..e (a short token: no call). */
static inline bool has_dot(const char *s, const char *e)
{
	for (; s < e; s++)
		if (*s == '.')
			return true;
	return false;
}

/*
 * The field t[0..n) (n >= 1) as an integer when it is one of 1 to 16
 * digits after an optional '-' (every offset, length, rank and segment
 * number in practice): true and *v.  False for anything else, which the
 * callers then read the long way.  The field lies in a line from lr_next,
 * as scan_dec16 needs.
 */
static inline __attribute__((always_inline)) bool field_dec16(const char *t, size_t n, int64_t *v)
{
	bool neg = *t == '-';
	uint64_t val;

	if (!scan_dec16(t + neg, n - neg, &val))
		return false;
	*v = neg ? -(int64_t)val : (int64_t)val;
	return true;
}

/* An integer field that a blank or a tab ends, read by dec_i64n (wide)
 * or dec_i64. */
static __attribute__((noinline)) bool field_i64_long(const char *t, const char *pe, bool wide,
						     int64_t *v)
{
	const char *end;

	if (!(wide ? dec_i64n(t, pe, &end, v) : dec_i64(t, &end, v)))
		return false;
	return *end == ' ' || *end == '\t';
}

/* An integer field that a blank or a tab ends: field_dec16, else the long
 * way.  False when it is not one. */
static inline __attribute__((always_inline)) bool field_i64(const char *t, size_t n, const char *pe,
							    bool wide, int64_t *v)
{
	if (field_dec16(t, n, v))
		return t[n] == ' ' || t[n] == '\t';
	return field_i64_long(t, pe, wide, v);
}

/* The time field t[0..n): secs_ticks's "S.FFFF" with 1 to 3 digits of
 * seconds in one load of the 8 bytes that end it (the '.' then always in
 * the fourth); anything else through secs_ticks. */
static inline bool field_ticks(const char *t, size_t n, const char **end, uint32_t *ticks,
			       bool *range)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n - 6 <= 2) {
		uint64_t x, keep = (~0ull << (8 * (8 - n))) & ~(0xffull << 24);
		memcpy(&x, t + n - 8, 8);
		if (((x >> 24) & 0xff) == '.' && !(scan_nondigits8(x) & keep)) {
			uint64_t frac = scan_value8(x & ~0xffffffffull);
			uint64_t whole = scan_value8((x & keep) << 40);
			*ticks = (uint32_t)(whole * 10000 + frac);
			*range = false;
			*end = t + n;
			return true;
		}
	}
#endif
	return secs_ticks(t, end, ticks, range);
}

/* The fields of a segment line after its module token, p up to pe (the
 * line's end): at most 8, split at blanks and tabs (a CR ends a field too),
 * ending at the line's end, a CR or a '[' where a field would start, or
 * at the second of two fields in a row from the fifth holding a '.' (the
 * start and end times).  Their count. */
static size_t seg_tokens(const char *p, const char *pe, const char **tok, size_t *tl)
{
	size_t ntok = 0;
	bool dot_prev = false;

	while (ntok < 8) {
		p += scan_skip2(p, (size_t)(pe - p), 0, ' ', '\t');
		if (p == pe || *p == '[' || *p == '\r')
			break;
		tok[ntok] = p;
		p += scan_any3(p, (size_t)(pe - p), 0, ' ', '\t', '\r');
		tl[ntok] = (size_t)(p - tok[ntok]);
		ntok++;
		/* the time fields hold a '.': two of them end the fixed part
		 * (each token from the fifth looked at once) */
		bool dot = ntok >= 5 && has_dot(tok[ntok - 1], p);
		if (ntok >= 6 && dot && dot_prev)
			break;
		dot_prev = dot;
	}
	return ntok;
}

/* The kind token t[0..n): 1 "write", 0 "read", -1 neither (the token
 * ends at a blank, a tab or a CR: only the first two do). */
static int kind_token(const char *t, size_t n)
{
	if (n == 5 && !memcmp(t, "write", 5) && (t[5] == ' ' || t[5] == '\t'))
		return 1;
	if (n == 4 && !memcmp(t, "read", 4) && (t[4] == ' ' || t[4] == '\t'))
		return 0;
	return -1;
}

/*
 * darshan-dxt-parser prints the segment number and the offset as
 * "%9d%16ld": an offset of 16 or more digits (1 PB and more) follows the
 * segment number with no blank.  Such a line has one field too few; its
 * segment field is then the segment number the block expects next (the
 * index within the block per direction, which Darshan prints) followed by
 * 16 or more digits.  The length of that number's digits in the field
 * (tok[2]) when it is so, else 0 (not when --skip-bad left a gap in the
 * block's numbering: then nothing says which number is expected).
 */
static size_t glued_segment(const struct dblock *k, const char *const *tok, const size_t *tl,
			    uint32_t *expect)
{
	int w = kind_token(tok[1], tl[1]);
	char e[16];

	if (w < 0 || k->damaged)
		return 0;
	*expect = w ? k->seen_w : k->seen_r;
	size_t el = (size_t)snprintf(e, sizeof(e), "%u", *expect);
	if (tl[2] < el + 16 || memcmp(tok[2], e, el))
		return 0;
	for (size_t i = el; i < tl[2]; i++)
		if (!tx_digit(tok[2][i]))
			return 0;
	return el;
}

/* Split and parse the fields after the module token (p, up to pe, the
 * line's end), of a segment line of block k: 7 of them, or 6 for X_MPIIO
 * lines of 3.1.x parsers (no offset), or 6 with the offset glued to the
 * segment number (glued_segment); then OST tokens ("[106]", "[  5]") and a
 * thread id (N/A or a number) may follow. */
static __attribute__((noinline)) int seg_fields(struct dxt *D, const struct dblock *k, int m,
						const char *p, const char *pe, unsigned long line,
						struct segf *f)
{
	const char *tok[8], *end;
	size_t tl[8], ntok = seg_tokens(p, pe, tok, tl), glued = 0;
	uint32_t expect = 0;
	bool range;

	if (ntok == 8)
		return bad(D, line, "expected start and end times in seconds (S.FFFF) as the last"
			   " fields of the %s line", seg_name[m]);
	if (ntok == 6 && (glued = glued_segment(k, tok, tl, &expect))) {
		for (size_t j = ntok; j > 3; j--)
			tok[j] = tok[j - 1], tl[j] = tl[j - 1];
		tok[3] = tok[2] + glued;
		tl[3] = tl[2] - glued;
		tl[2] = glued;
		ntok = 7;
	}
	if (ntok < 6 || (ntok == 6 && m == MOD_POSIX)) {
		/* a segment field of 17 digits or more: an offset glued to a
		 * segment number, not the one expected */
		size_t nd = 0;
		while (ntok > 2 && nd < tl[2] && tx_digit(tok[2][nd]))
			nd++;
		return bad(D, line, "%s line with %zu fields where %s expected (rank, write|read,"
			   " segment, %slength, start and end)%s", seg_name[m], ntok,
			   m == MOD_POSIX ? "7 were" : "7 (or 6 without an offset) were",
			   m == MOD_POSIX ? "offset, " : "[offset,] ",
			   ntok > 2 && nd == tl[2] && nd >= 17
				   ? ": an offset of 16 or more digits glued to a segment number"
				     " other than the one expected?"
				   : ": a truncated line?");
	}
	/* tok: rank kind segment [offset] length start end */
	f->has_off = ntok == 7;
	f->off = -1;
	if (!field_i64(tok[0], tl[0], pe, false, &f->rank))
		return bad(D, line, "expected a rank after %s", seg_name[m]);
	int w = kind_token(tok[1], tl[1]);
	if (w < 0)
		return bad(D, line, "expected 'write' or 'read' after the rank");
	f->is_w = w;
	if (glued)
		f->segix = expect;      /* the digits glued_segment compared */
	else if (!field_i64(tok[2], tl[2], pe, false, &f->segix))
		return bad(D, line, "expected a segment number");
	if (f->has_off && !field_i64(tok[3], tl[3], pe, true, &f->off))
		return bad(D, line, "expected an offset");
	if (!field_i64(tok[3 + f->has_off], tl[3 + f->has_off], pe, true, &f->len))
		return bad(D, line, "expected a length");
	size_t i0 = 4 + f->has_off;
	if (!field_ticks(tok[i0], tl[i0], &end, &f->t0, &range) ||
	    (*end != ' ' && *end != '\t') || !field_ticks(tok[i0 + 1], tl[i0 + 1], &end, &f->t1, &range))
		return range ? bad(D, line, "time beyond %u s, more than replay keeps",
				   UINT32_MAX / 10000)
			     : bad(D, line, "expected start and end times in seconds (S.FFFF)");
	p = skip_ws(end);
	while (*p == '[') {
		const char *c = strchr(p, ']');
		int64_t ost;
		const char *q = skip_ws(p + 1);
		if (!c || !dec_i64(q, &q, &ost) || ost < 0 || skip_ws(q) != c)
			return bad(D, line, "expected an OST index as '[N]'");
		p = skip_ws(c + 1);
	}
	if (starts(p, "N/A"))
		p = skip_ws(p + 3);
	else if (*p >= '0' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	if (*p)
		return bad(D, line, "unexpected '%.20s' after the end time", p);
	return 1;
}

/* ---- segment lines: the fast path ------------------------------------------- */

/*
 * Most segment lines have one shape:
 *
 *    X_POSIX  RANK  write|read  SEG  OFF  LEN  S.FFFF  S.FFFF  [N]...  [N/A|TID]
 *
 * fields separated by blanks and tabs; rank, segment, offset and length
 * of 1 to 15 digits (no sign), 1 to 5 digits of seconds and exactly 4
 * after the '.', OSTs as "[N]" with 1 to 7 digits, a thread id of digits.
 * seg_fast reads such a line in one pass, left to right: blanks skipped
 * and digits counted 16 bytes at a time (SSE2 compares and a movemask;
 * elsewhere a byte loop, and digits 8 at a time), each number converted
 * from one or two 8-byte loads (scan_value8), a time's seconds and
 * decimals in one.  For any other line it returns false, with no side
 * effect, and segment_line reads the line the long way (seg_fields): what a line
 * means and every message stay those of seg_fields.  The fast path takes
 * only lines that seg_fields takes without a complaint, and gives the
 * same fields.  Little endian only (the 8-byte loads); elsewhere every
 * line goes the long way.
 *
 * Bounds: the line comes from lr_next, its NUL at pe and LR_PAD (16)
 * readable bytes after that.  Every load starts at or before pe (a load
 * only goes on past bytes that are blanks or digits, which the NUL is
 * not), or, for the 8 bytes that end a time, at most 3 bytes before its
 * '.'.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#if !REPLAY_SSE2
static inline __attribute__((always_inline)) bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}
#endif

/* The first byte from q that is not a blank or a tab (the NUL at the
 * line's end stops it at the latest). */
static inline __attribute__((always_inline)) const char *skip_blanks(const char *q)
{
#if REPLAY_SSE2
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');

	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab))) ^ 0xffffu;
		if (m)
			return q + __builtin_ctz(m);
		q += 16;
	}
#else
	while (is_blank(*q))
		q++;
	return q;
#endif
}

/* From q, a blank or a tab, to the first byte after the blanks and tabs
 * there; NULL when q is not a blank or a tab. */
static inline __attribute__((always_inline)) const char *skip_gap(const char *q)
{
#if REPLAY_SSE2
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
	unsigned m = (unsigned)_mm_movemask_epi8(
		_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab))) ^ 0xffffu;

	if (m & 1)
		return NULL;
	if (m)
		return q + __builtin_ctz(m);
	return skip_blanks(q + 16);
#else
	if (!is_blank(*q))
		return NULL;
	return skip_blanks(q + 1);
#endif
}

#if REPLAY_SSE2
/* Bit i set: t[i] is a digit, for i < 16 (t at most at the NUL). */
static inline __attribute__((always_inline)) unsigned digits16(const char *t)
{
	__m128i v = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)t),
				 _mm_set1_epi8('0'));
	const __m128i nine = _mm_set1_epi8(9);

	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, nine), nine));
}

/* How many digits t starts with, up to 16 (16: 16 or more). */
static inline __attribute__((always_inline)) unsigned ndigits(const char *t)
{
	return (unsigned)__builtin_ctz(~digits16(t));
}
#else
static inline __attribute__((always_inline)) unsigned ndigits(const char *t)
{
	uint64_t x, bad;

	memcpy(&x, t, 8);
	bad = scan_nondigits8(x);
	if (bad)
		return (unsigned)__builtin_ctzll(bad) >> 3;
	memcpy(&x, t + 8, 8);   /* 8 digits: t[8] is no further than the NUL */
	bad = scan_nondigits8(x);
	return 8 + (bad ? (unsigned)__builtin_ctzll(bad) >> 3 : 8);
}
#endif

/* 1 to 15 digits at t: the value, and *q after them. */
static inline __attribute__((always_inline)) bool fast_dec(const char *t, const char **q, int64_t *v)
{
	unsigned k = ndigits(t);
	uint64_t x, y;

	if (k - 1 >= 15)
		return false;   /* none, or 16 and more: the long way */
	memcpy(&x, t, 8);
	if (k <= 8) {
		*v = (int64_t)scan_value8(x << (64 - 8 * k));
	} else {
		memcpy(&y, t + k - 8, 8);
		*v = (int64_t)(scan_value8(x << (128 - 8 * k)) * 100000000ull + scan_value8(y));
	}
	*q = t + k;
	return true;
}

/* 1 to 5 digits at t, '.', 4 digits: 0.1 ms ticks (secs_ticks's value for
 * it; below 10^9, no range to check), and *q after it. */
static inline __attribute__((always_inline)) bool fast_ticks(const char *t, const char **q, uint32_t *ticks)
{
	unsigned d = ndigits(t);                /* digits of seconds */
	uint64_t x, y;

	if (d - 1 > 4 || t[d] != '.' || ndigits(t + d + 1) != 4)
		return false;
	/* the last 3 digits of seconds (fewer: bytes before t, dropped), the
	 * '.' and 4 digits */
	memcpy(&y, t + d - 3, 8);
	/* "WWW.FFFF" as the digits "0WWWFFFF": whole * 10000 + frac at once
	 * (the bytes of y before t dropped) */
	static const uint64_t whole_bytes[6] = { 0, 0xff0000, 0xffff00, 0xffffff, 0xffffff, 0xffffff };
	uint64_t v = scan_value8((y & 0xffffffff00000000ull) | ((y & whole_bytes[d]) << 8));
	if (d >= 4) {
		memcpy(&x, t, 8);
		v += (d == 4 ? (x & 0xf) : (x & 0xf) * 10 + ((x >> 8) & 0xf)) * 10000000;
	}
	*ticks = (uint32_t)v;
	*q = t + d + 5;
	return true;
}
#endif

/* The line p[0..pe) (a NUL at pe): true and the module and fields when
 * it has the shape above. */
static bool seg_fast(const char *p, const char *pe, int *mod, struct segf *f)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const char *q, *t;
	uint64_t x, y;

	if (pe - p < 8)
		return false;
	memcpy(&x, p, 8);
	y = x & 0x00ffffffffffffffull;
	if (y == 0x5849534f505f58ull)           /* "X_POSIX" */
		*mod = MOD_POSIX;
	else if (y == 0x4f4949504d5f58ull)      /* "X_MPIIO" */
		*mod = MOD_MPIIO;
	else
		return false;
	/* each field after a blank or a tab (skip_gap) */
	if (!(q = skip_gap(p + 7)) || !fast_dec(q, &q, &f->rank) || !(t = skip_gap(q)))
		return false;
	memcpy(&x, t, 8);
	if ((x & 0xffffffffffull) == 0x6574697277ull)           /* "write" */
		f->is_w = true, q = t + 5;
	else if ((x & 0xffffffffull) == 0x64616572ull)          /* "read" */
		f->is_w = false, q = t + 4;
	else
		return false;
	if (!(q = skip_gap(q)) || !fast_dec(q, &q, &f->segix) || !(q = skip_gap(q)) ||
	    !fast_dec(q, &q, &f->off) || !(q = skip_gap(q)) || !fast_dec(q, &q, &f->len) ||
	    !(q = skip_gap(q)) || !fast_ticks(q, &q, &f->t0) || !(q = skip_gap(q)) ||
	    !fast_ticks(q, &q, &f->t1))
		return false;
	f->has_off = true;
	/* a blank or the end after the end time; then "[N]"..., then N/A or a
	 * thread id, or nothing */
	for (;;) {
		if (q == pe)
			return true;
		if (!(q = skip_gap(q)))
			return false;
		if (q == pe)
			return true;
		if (*q != '[')
			break;
		unsigned k = ndigits(q + 1);
		if (!k || k > 7 || q[1 + k] != ']')
			return false;
		q += 2 + k;
	}
	memcpy(&x, q, 8);
	if ((x & 0xffffffull) == 0x412f4eull)   /* "N/A" */
		return q + 3 == pe;
	if (!tx_digit(*q))
		return false;
	for (;;) {                              /* a thread id: digits up to the end */
		memcpy(&x, q, 8);
		uint64_t bad = scan_nondigits8(x);
		if (bad)
			return q + (__builtin_ctzll(bad) >> 3) == pe;
		q += 8;
	}
#else
	(void)p, (void)pe, (void)mod, (void)f;
	return false;
#endif
}

/* ---- segment lines: the column path ------------------------------------------ */

/*
 * darshan-dxt-parser prints its numbers right-aligned in fixed widths, so
 * in the lines of a log each field of the fixed part (module to end time)
 * ends at the same byte whatever its value: the "layout" of those ends,
 * kept from the last line that had one (struct seg_layout), tells where
 * every field of the next line is before anything of it is read.
 * seg_cols reads a line of 64 to 127 bytes against it in three steps:
 *
 *  1. two masks of the fixed part, one bit a byte (up to 128 bits as two
 *     words): its spaces and its digits, from one SSE2 load and two
 *     compares per 16 bytes;
 *  2. the fixed part checked with a few word operations: each byte the
 *     layout fixes (the module, the kind, the dots, the space after each
 *     field, a field's last digit, the spaces before its longest number)
 *     of the class it says (space, digit or other), and in the rest of a
 *     field's span only spaces then digits; then the bytes of the kind
 *     and the dots themselves; then the tail (OSTs, N/A or a thread id):
 *     the same bytes as the last tail taken, or the same spaces, digits
 *     and other bytes, or else walked (cols_tail);
 *  3. the numbers from 8-byte windows ending at the known columns (a
 *     space reads as a 0 digit, bytes before the field's span are masked
 *     off), two windows per SSE2 conversion.
 *
 * A line that fails the layout gets one of its own (layout_build: the
 * first 8 token ends), kept if the line then reads with it; when it does
 * not either, the next SEG_BACKOFF lines are not tried at all, twice as
 * many after each such line in a row (up to 64 times as many: a trace
 * whose lines fit no layout pays for one line in a thousand).  Whatever
 * it returns false for goes to seg_fast, then seg_fields.
 *
 * What it takes is a subset of what seg_fast takes (only spaces separate
 * fields: a tab reads as "another byte" and fits no layout; numbers of at
 * most 15 digits, seconds of 1 to 5 digits and exactly 4 decimals, the
 * same tail), with the same values; the layout decides only where to
 * look, the checks of step 2 alone decide whether a line is taken.
 *
 * Bounds: the line comes from lr_next (LR_PAD readable bytes after its
 * NUL at pe): the mask loads start below pe, every window and compare
 * lies in the fixed part, inside the line, and the tail reads at most up
 * to pe + 2.
 */
#if REPLAY_SSE2 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SEG_BACKOFF 16u

/* Bits of the spaces (sp) and of the digits (dg) among the 16 bytes at
 * t. */
static inline __attribute__((always_inline)) void classes16(const char *t, unsigned *sp, unsigned *dg)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)t);
	/* '0'..'9' + 0x50 are the signed bytes -128..-119 */
	__m128i d = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(0x50)), _mm_set1_epi8(-118));

	*sp = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
	*dg = (unsigned)_mm_movemask_epi8(d);
}

/* classes16 of the 16 bytes at p + 16 j into bits 16 (j % 4) on of the
 * words sp, dg. */
static inline __attribute__((always_inline)) void classes_at(const char *p, unsigned j, uint64_t *sp,
							      uint64_t *dg)
{
	unsigned s, d;

	classes16(p + 16 * j, &s, &d);
	*sp |= (uint64_t)s << (16 * (j % 4));
	*dg |= (uint64_t)d << (16 * (j % 4));
}

/* The non-spaces nb and the digits dg of the first 16 x nch bytes at p
 * (4 <= nch <= 8; the bits of later bytes: in nb set, in dg clear). */
static inline __attribute__((always_inline)) void line_masks(const char *p, unsigned nch, uint64_t nb[2],
							      uint64_t dg[2])
{
	uint64_t s0 = 0, s1 = 0, d0 = 0, d1 = 0;

	for (unsigned j = 0; j < 4; j++)
		classes_at(p, j, &s0, &d0);
	for (unsigned j = 4; j < 8; j++)
		if (nch > j)
			classes_at(p, j, &s1, &d1);
	nb[0] = ~s0;
	dg[0] = d0;
	nb[1] = ~s1;
	dg[1] = d1;
}

/* The masks of the whole line p[0..n), 64 <= n <= 127 (bits from n on
 * clear). */
static void full_masks(const char *p, size_t n, uint64_t nb[2], uint64_t dg[2])
{
	line_masks(p, (unsigned)(n + 15) / 16, nb, dg);
	nb[1] &= (1ull << (n - 64)) - 1;        /* n - 64 < 64 */
	dg[1] &= (1ull << (n - 64)) - 1;
}

/* Bits [a, b) of the two-word mask m set. */
static void mask_set(uint64_t m[2], unsigned a, unsigned b)
{
	for (; a < b; a++)
		m[a >> 6] |= 1ull << (a & 63);
}

/* Byte i of the line fixed to a space (cls 0), a digit (1) or another
 * byte (2). */
static void fix_byte(struct seg_layout *c, unsigned i, int cls)
{
	mask_set(c->fix, i, i + 1);
	if (cls)
		mask_set(c->nb, i, i + 1);
	if (cls == 1)
		mask_set(c->dg, i, i + 1);
}

/* The span (prev, e] of a number of at most `most` digits (15) or of the
 * seconds of a time (5), its last digit at e: the space after prev, the
 * spaces before its longest value, then bytes that may be either
 * (right-aligned digits). */
static void span_digits(struct seg_layout *c, unsigned prev, unsigned e, unsigned most)
{
	unsigned lo = e + 1 >= prev + 2 + most ? e + 1 - most : prev + 2;

	for (unsigned i = prev + 1; i < lo; i++)
		fix_byte(c, i, 0);
	mask_set(c->var, lo, e);
	fix_byte(c, e, 1);
}

/* Window w of pair k: 8 bytes at s, those from position `from` on kept
 * (at most `to`). */
static void window(struct seg_layout *c, unsigned k, unsigned w, unsigned s, unsigned from,
		   unsigned to)
{
	c->win[k][w] = (uint8_t)s;
	for (unsigned j = 0; j < 8; j++)
		c->keep[k][8 * w + j] = s + j >= from && s + j <= to ? 0x0f : 0;
}

/* The windows of a number, span (prev, e]: its low 8 digits window w of
 * pair lo, the 8 before window w of pair hi (-1: none, the span holds at
 * most 8 digits). */
static void windows_num(struct seg_layout *c, unsigned w, unsigned prev, unsigned e, unsigned lo,
			int hi)
{
	window(c, lo, w, e - 7, prev + 1, e);
	if (hi >= 0)
		window(c, (unsigned)hi, w, e - 15, prev + 1, e);
}

/* A layout from the ends of the first 8 tokens of a line (its non-spaces
 * nb, no bits past its end): false when they cannot be one (a token too
 * short for its field, too few tokens, a fixed part of 48 bytes or less). */
static __attribute__((noinline)) bool layout_build(struct seg_layout *c, const uint64_t nb[2])
{
	uint64_t e0 = nb[0] & ~((nb[0] >> 1) | (nb[1] << 63)), e1 = nb[1] & ~(nb[1] >> 1);
	unsigned e[8], k = 1;

	if ((e0 & 0xff) != 0x40)        /* the module: bytes 0 to 6 */
		return false;
	e[0] = 6;
	for (e0 &= ~0xffull; k < 8 && e0; k++, e0 &= e0 - 1)
		e[k] = (unsigned)__builtin_ctzll(e0);
	for (; k < 8 && e1; k++, e1 &= e1 - 1)
		e[k] = 64 + (unsigned)__builtin_ctzll(e1);
	/* room for " write" after the rank's space, and for a space, a digit,
	 * '.' and 4 digits in each time's span */
	if (k < 8 || e[2] < e[1] + 6 || e[6] < e[5] + 7 || e[7] < e[6] + 7 || e[7] < 48)
		return false;
	memset(c, 0, sizeof(*c));
	_mm_store_si128((__m128i *)(void *)c->mul[0], _mm_set1_epi16(0x0a01));
	_mm_store_si128((__m128i *)(void *)c->mul[1], _mm_set1_epi32(100 | 1 << 16));
	_mm_store_si128((__m128i *)(void *)c->mul[2], _mm_set1_epi32(10000));
	c->f = (uint8_t)(e[7] + 1);
	for (unsigned i = 0; i < 7; i++)
		fix_byte(c, i, 2);
	span_digits(c, e[0], e[1], 15);                         /* rank */
	for (unsigned i = e[1] + 1; i < e[2] - 4; i++)          /* kind */
		fix_byte(c, i, 0);
	for (unsigned i = e[2] - 3; i <= e[2]; i++)
		fix_byte(c, i, 2);
	c->kind = (uint8_t)(e[2] - 4);                          /* 'w' or ' ' */
	for (unsigned i = 3; i < 6; i++)                        /* seg, off, len */
		span_digits(c, e[i - 1], e[i], 15);
	for (unsigned i = 6; i < 8; i++) {                      /* start, end */
		span_digits(c, e[i - 1], e[i] - 5, 5);
		fix_byte(c, e[i] - 4, 2);
		for (unsigned j = e[i] - 3; j <= e[i]; j++)
			fix_byte(c, j, 1);
		c->dot[i - 6] = (uint8_t)(e[i] - 4);
	}
	/* windows, in pairs of the two fields that struct segf holds side
	 * by side: rank and segment (pair 0, low 8 digits; pair 5, the
	 * digits before, when a span holds more than 8), offset and length
	 * (pair 1 the high 8 digits, pair 2 the low 8), the last 3 digits
	 * of seconds and the decimals of start and end (pair 3), the 2
	 * digits of seconds before (pair 4) */
	c->wide = e[1] - e[0] > 9 || e[3] - e[2] > 9;
	window(c, 5, 0, 0, 1, 0);
	window(c, 5, 1, 0, 1, 0);
	windows_num(c, 0, e[0], e[1], 0, e[1] - e[0] > 9 ? 5 : -1);
	windows_num(c, 1, e[2], e[3], 0, e[3] - e[2] > 9 ? 5 : -1);
	windows_num(c, 0, e[3], e[4], 2, 1);
	windows_num(c, 1, e[4], e[5], 2, 1);
	for (unsigned i = 6; i < 8; i++) {
		/* "SSS.FFFF": keep[3] the decimals, ksec the seconds (of the
		 * span) */
		window(c, 3, i - 6, e[i] - 7, e[i] - 3, e[i]);
		for (unsigned j = 0; j < 3; j++)
			c->ksec[8 * (i - 6) + j] = e[i] - 7 + j > e[i - 1] ? 0x0f : 0;
		/* the two digits before, when non-spaces */
		window(c, 4, i - 6, e[i] - 15, e[i - 1] + 1, e[i] - 8);
		for (unsigned j = e[i] - 9; j <= e[i] - 8; j++)
			if (j > e[i - 1] + 1)
				mask_set(c->sec45, j, j + 1);
	}
	return true;
}

/* The 8 bytes at a, then the 8 at b. */
static inline __attribute__((always_inline)) __m128i load8x2(const char *a, const char *b)
{
	return _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)a),
				  _mm_loadl_epi64((const __m128i *)(const void *)b));
}

/* Two 8-byte numbers, x's 64-bit lanes, one decimal digit a byte (its low
 * nibble; the higher bits clear): their values. */
static inline __attribute__((always_inline)) __m128i dec8x2v(__m128i x, const __m128i mul[3])
{
	/* a 16-bit lane holds digits h (low byte, written first) and l: times
	 * 0x0a01 it is 256 (10 h + l) + h, below 2^16 */
	x = _mm_srli_epi16(_mm_mullo_epi16(x, mul[0]), 8);
	/* 32-bit lanes: the first pair x 100 + the second */
	x = _mm_madd_epi16(x, mul[1]);
	/* 64-bit lanes: the first four digits x 10^4 + the last four */
	return _mm_add_epi64(_mm_mul_epu32(x, mul[2]), _mm_srli_epi64(x, 32));
}

/* Two 8-byte windows at a and b, digits and spaces, ANDed with keep's 16
 * bytes (0x0f, or 0 for a byte outside the field): the decimal numbers
 * they spell (a space or a dropped byte a 0 digit), as two 64-bit lanes. */
static inline __attribute__((always_inline)) __m128i dec8x2(const char *a, const char *b,
							     const uint8_t *keep, const __m128i mul[3])
{
	return dec8x2v(_mm_and_si128(load8x2(a, b), _mm_load_si128((const __m128i *)(const void *)keep)),
		       mul);
}

/* The tail q[0..t) after the end time (t <= 64; tn, td its non-spaces and
 * digits, no bits from t on), read as seg_fast reads it but with spaces
 * only: nothing, or after spaces each "[N]" (1 to 7 digits), then "N/A"
 * or a thread id up to the end.  q[t] is the line's NUL. */
static bool tail_walk(const char *q0, unsigned t, uint64_t tn, uint64_t td)
{
	unsigned pos = 0;
	uint64_t r, x;
	const char *q;

	if (!t)
		return true;
	for (;;) {                      /* pos < t: a bit of the words */
		r = tn >> pos;
		if (r & 1)
			return false;   /* no space before the token */
		if (!r)
			return true;    /* spaces to the end (text_line trims them) */
		pos += (unsigned)__builtin_ctzll(r);
		q = q0 + pos;
		if (*q != '[')
			break;
		unsigned k = (unsigned)__builtin_ctzll(~(td >> pos >> 1));
		if (k - 1 >= 7 || q[1 + k] != ']')
			return false;   /* q[1 + k]: at most the NUL */
		pos += k + 2;
		if (pos == t)
			return true;
	}
	memcpy(&x, q, 4);               /* q < q0 + t: q[0..3] readable (LR_PAD) */
	if ((x & 0xffffff) == 0x412f4eull)      /* "N/A" */
		return pos + 3 == t;
	/* a thread id: digits from pos to the end */
	return !((~td & (t == 64 ? ~0ull : (1ull << t) - 1)) >> pos);
}

/* A tail of t bytes at q, 16 < t <= 64 (t - 16 more bytes readable). */
static __attribute__((noinline)) bool tail_long(const char *q, unsigned t)
{
	uint64_t sp = 0, dg = 0, in = t == 64 ? ~0ull : (1ull << t) - 1;

	for (unsigned j = 0; j < 4 && 16 * j < t; j++)
		classes_at(q, j, &sp, &dg);
	return tail_walk(q, t, ~sp & in, dg & in);
}

/* The tail p[f..n): read once with the spaces, digits and other bytes
 * of the last 16-byte tail taken (c->tail...), else walked (and then,
 * taken, kept in c). */
static inline __attribute__((always_inline)) bool cols_tail(struct seg_layout *c, const char *p,
							     unsigned f, size_t n)
{
	unsigned t = (unsigned)n - f, sp, dg;

	if (!t)
		return true;
	if (t > 16)
		return t <= 64 && tail_long(p + f, t);
	/* p + f is below pe: 16 bytes readable */
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + f));
	unsigned in = (1u << t) - 1, eq = 0;
	if (t == c->tlen) {
		eq = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(v, _mm_load_si128((const __m128i *)(const void *)c->tail)));
		if (!(in & ~eq))        /* the same bytes */
			return true;
	}
	classes16(p + f, &sp, &dg);
	sp &= in;
	dg &= in;
	if (t == c->tlen && sp == c->tsp && dg == c->tdg && !(in & ~(sp | dg | eq))) {
		/* the same classes and other bytes (the digits differ) */
		_mm_store_si128((__m128i *)(void *)c->tail, v);
		return true;
	}
	if (!tail_walk(p + f, t, ~sp & in, dg))
		return false;
	_mm_store_si128((__m128i *)(void *)c->tail, v);
	c->tlen = (uint8_t)t;
	c->tsp = (uint16_t)sp;
	c->tdg = (uint16_t)dg;
	return true;
}

/* The line p[0..n) read with layout c: true and the fields when it fits. */
static inline __attribute__((always_inline)) bool cols_read(struct seg_layout *c, const char *p, size_t n,
							     struct segf *f)
{
	uint64_t nb[2], dg[2], k;

	if (n < c->f)
		return false;
	/* the chunks of the fixed part: no bit past it is looked at (the bit
	 * after a span's variable bytes is inside it) */
	line_masks(p, (c->f + 15u) / 16, nb, dg);
	uint64_t n0 = nb[0], n1 = nb[1], d0 = dg[0], d1 = dg[1];
	/* each fixed byte of its class; elsewhere in a span a non-space is a
	 * digit followed by a non-space */
	if ((((n0 ^ c->nb[0]) | (d0 ^ c->dg[0])) & c->fix[0]) |
	    (n0 & ~(d0 & ((n0 >> 1) | (n1 << 63))) & c->var[0]) |
	    (((n1 ^ c->nb[1]) | (d1 ^ c->dg[1])) & c->fix[1]) | (n1 & ~(d1 & (n1 >> 1)) & c->var[1]))
		return false;
	memcpy(&k, p + c->kind, 8);
	k &= 0xffffffffffull;
	if (k == 0x6574697277ull)               /* "write" */
		f->is_w = true;
	else if (k == 0x6461657220ull)          /* " read" */
		f->is_w = false;
	else
		return false;
	if (p[c->dot[0]] != '.' || p[c->dot[1]] != '.' || !cols_tail(c, p, c->f, n))
		return false;
	const __m128i *mul = (const __m128i *)(const void *)c->mul;
	const __m128i e8 = _mm_set1_epi32(100000000);
#define PAIR(i) dec8x2(p + c->win[i][0], p + c->win[i][1], c->keep[i], mul)
	__m128i rs = PAIR(0);
	if (c->wide)
		rs = _mm_add_epi64(_mm_mul_epu32(PAIR(5), e8), rs);
	/* the high parts are below 2^32 (pmuludq) */
	_mm_storeu_si128((__m128i *)(void *)&f->rank, rs);
	_mm_storeu_si128((__m128i *)(void *)&f->off, _mm_add_epi64(_mm_mul_epu32(PAIR(1), e8), PAIR(2)));
	/* the times: "SSS.FFFF" as the digits "0SSSFFFF" (the '.' dropped, the
	 * seconds one byte up), plus the 4th and 5th digits of seconds when
	 * there are some (pair 4) */
	__m128i x = load8x2(p + c->win[3][0], p + c->win[3][1]);
	x = _mm_or_si128(_mm_and_si128(x, _mm_load_si128((const __m128i *)(const void *)c->keep[3])),
			 _mm_slli_epi64(_mm_and_si128(x, _mm_load_si128((const __m128i *)(const void *)c->ksec)), 8));
	__m128i t = dec8x2v(x, mul);
	if ((n0 & c->sec45[0]) | (n1 & c->sec45[1]))
		t = _mm_add_epi64(_mm_mul_epu32(PAIR(4), _mm_set1_epi32(10000000)), t);
	_mm_storel_epi64((__m128i *)(void *)&f->t0, _mm_shuffle_epi32(t, 0x08));
#undef PAIR
	f->has_off = true;
	return true;
}

/* The line did not fit c: a layout of its own, kept when the line fits
 * it; otherwise no line is tried for a while. */
static __attribute__((noinline)) bool cols_relayout(struct seg_layout *c, const char *p, size_t n,
						   struct segf *f)
{
	struct seg_layout nl;
	uint64_t nb[2], dg[2];

	full_masks(p, n, nb, dg);
	if (layout_build(&nl, nb) && cols_read(&nl, p, n, f)) {
		*c = nl;
		return true;
	}
	c->backoff = SEG_BACKOFF << (c->misses < 6 ? c->misses : 6);
	c->misses++;
	return false;
}
#endif

/* The line p[0..pe) (a NUL at pe) through the column path: true and the
 * module and fields when it takes it. */
static inline bool seg_cols(struct seg_layout *c, const char *p, const char *pe, int *mod,
			    struct segf *f)
{
#if REPLAY_SSE2 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	size_t n = (size_t)(pe - p);
	uint64_t x;

	if (c->backoff) {
		c->backoff--;
		return false;
	}
	if (n - 64 > 127 - 64)
		return false;
	memcpy(&x, p, 8);
	x &= 0x00ffffffffffffffull;
	if (x == 0x5849534f505f58ull)           /* "X_POSIX" */
		*mod = MOD_POSIX;
	else if (x == 0x4f4949504d5f58ull)      /* "X_MPIIO" */
		*mod = MOD_MPIIO;
	else
		return false;
	if (c->f && cols_read(c, p, n, f)) {
		c->misses = 0;
		return true;
	}
	return cols_relayout(c, p, n, f);
#else
	(void)c, (void)p, (void)pe, (void)mod, (void)f;
	return false;
#endif
}

/* A bad segment line of block k: with --skip-bad the block keeps going
 * without the order checks (its numbering has a gap now). */
static int seg_bad(struct dxt *D, struct dblock *k, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int seg_bad(struct dxt *D, struct dblock *k, unsigned long line, const char *fmt, ...)
{
	char msg[480];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	k->damaged = 1;
	return trace_bad_line(D->in, D->e, D->src, line, msg);
}

static int spill_run(struct dxt *D);

/* The segment line p (up to pe, its end as lr_next gave it: a NUL may
 * come before). */
static int segment_line(struct dxt *D, const char *p, const char *pe, unsigned long line)
{
	struct segf f;
	int m = MOD_NONE;
	int rc;
	size_t pl = 0;
	bool fast = seg_cols(&D->lay, p, pe, &m, &f) || seg_fast(p, pe, &m, &f);

	if (!fast) {
		m = MOD_NONE;
		pl = strlen(p);         /* a NUL ends the line */
		for (int i = 0; i < NMOD; i++)
			if (pl > 7 && !memcmp(p, seg_name[i], 7) && (p[7] == ' ' || p[7] == '\t')) {
				m = i;
				break;
			}
	}
	if (m == MOD_NONE) {
		size_t n = strcspn(p, " \t");
		return bad(D, line, "unknown module '%.*s' (expected X_POSIX or X_MPIIO)",
			   (int)(n > 40 ? 40 : n), p);
	}
	if (D->cur < 0)
		return bad(D, line, "%s segment before any '# DXT, file_id:' block header",
			   seg_name[m]);
	struct dblock *k = &D->blocks[D->cur];
	if (k->module != m)
		return bad(D, line, "%s segment in a %s block", seg_name[m], mod_name[k->module]);
	if (!k->have_rank || !k->have_counts)
		return bad(D, line, "segment of a block without its '# DXT, %s' line",
			   k->have_rank ? "write_count:" : "rank:");
	if (!fast && (rc = seg_fields(D, k, m, p + 7, p + pl, line, &f)) <= 0) {
		k->damaged = 1;         /* a bad line (0: skipped with --skip-bad) */
		return rc;
	}
	if (f.rank != D->ranks[k->rank].rank)
		return seg_bad(D, k, line, "segment of rank %" PRId64 " in the block of rank %" PRId64,
			   f.rank, D->ranks[k->rank].rank);
	if (f.len < 0)
		return seg_bad(D, k, line, "negative length %" PRId64, f.len);
	if (f.len > SEG_MAX_LEN)
		return seg_bad(D, k, line, "length %" PRId64 " is beyond 16 TiB (2^44 bytes), more than"
			       " one call of one process moves: a corrupt log?", f.len);
	if (f.off > INT64_MAX - f.len)
		return seg_bad(D, k, line, "offset %" PRId64 " + length %" PRId64 " is beyond the"
			       " largest file offset (2^63 - 1)", f.off, f.len);
	if (f.off < -1 || (f.off == -1 && m == MOD_POSIX))
		return seg_bad(D, k, line, "negative offset %" PRId64, f.off);
	if (f.t1 < f.t0)
		return seg_bad(D, k, line, "end time before start time");
	uint32_t *seen = f.is_w ? &k->seen_w : &k->seen_r;
	/* the order of the text (writes, then reads, numbered from 0), unless
	 * --skip-bad already dropped a line of the block */
	if (!f.is_w && k->seen_w < k->nw && !k->damaged)
		return seg_bad(D, k, line, "read listed after %u of the block's %u writes",
			       k->seen_w, k->nw);
	if (*seen >= (f.is_w ? k->nw : k->nr))
		return seg_bad(D, k, line, "more %ss than the block's header announces (%u)",
			   f.is_w ? "write" : "read", f.is_w ? k->nw : k->nr);
	if (f.segix != *seen && !k->damaged)
		return seg_bad(D, k, line, "%s segment %" PRId64 " where %u was expected",
			   f.is_w ? "write" : "read", f.segix, *seen);
	if (!k->seen_w && !k->seen_r && (rc = file_osts(D)))
		return rc;
	(*seen)++;
	D->nsegs[m]++;
	D->ranks[k->rank].segs[m]++;
	k->bytes += (uint64_t)f.len;
	if (!f.len)
		D->zero_len[m]++;
	if (f.off < 0) {
		D->unknown_off[m]++;
		if (m == D->want)
			return rerr_at(D->e, -EINVAL, D->src, line,
				       "X_MPIIO offset unknown (%s): the MPI-IO layer"
				       " cannot be replayed at its offsets; use --dxt-layer posix",
				       f.has_off ? "-1: DXT_MPIIO log version 1, or a Darshan"
						   " runtime built with Open MPI"
						 : "no offset column: a darshan-dxt-parser of 3.1.x");
	}
	if (m != D->want)
		return 0;
	if (D->nseg == (D->in->dxt_run ? D->in->dxt_run : RUN_SEGS) && (rc = spill_run(D)) < 0)
		return rc;
	rc = trace_grow((void **)&D->segs, &D->capseg, D->nseg + 1, sizeof(*D->segs), 4096);
	if (rc)
		return rc;
	D->segs[D->nseg++] = (struct seg){ .off = f.off, .len = (uint64_t)f.len, .start = f.t0,
					   .end = f.t1,
					   .block = (uint32_t)D->cur | (f.is_w ? WRITE_BIT : 0),
					   .line = (uint32_t)line };
	if (f.t1 > k->maxend)           /* what pass 2 needs of the block */
		k->maxend = f.t1;
	if (f.t0 >= k->lstart) {        /* later in the text: after on equal starts */
		k->lstart = f.t0;
		k->lline = (uint32_t)line;
	}
	k->writes |= f.is_w;
	k->kept = 1;
	return 0;
}

/* ---- pass 1: the text ------------------------------------------------------ */

static int text_line(struct dxt *D, char *l, size_t n, unsigned long line)
{
	while (n && l[n - 1] == '\r')
		l[--n] = 0;
	/* blanks at a line's end are none of it, but for a block header's
	 * file name: darshan-dxt-parser prints the name to the end of the
	 * line, and a name may end in a blank */
	if (l[0] != '#' || !strstr(l, ", file_name: "))
		while (n && (l[n - 1] == ' ' || l[n - 1] == '\r' || l[n - 1] == '\t'))
			l[--n] = 0;
	if (!n)
		return 0;
	if (l[0] == '#') {
		if (l[1] == '\t')
			return starts(l + 2, "[Component") ? component_line(D, l + 2, line) : 0;
		const char *p = skip_ws(l + 1);
		if (starts(p, "DXT, "))
			return dxt_line(D, p + 5, line);
		if (strstr(p, "incomplete data!")) {
			/* "*WARNING*: The DXT_POSIX module contains incomplete
			 * data!" (or the *ERROR* of a dump that kept stderr) */
			for (int m = 0; m < NMOD; m++)
				if (strstr(p, mod_name[m]))
					D->incomplete[m] = true;
			return 0;
		}
		size_t pl = strlen(p);
		if (pl > 12 && !strcmp(p + pl - 12, " module data")) {
			int rc = block_end(D);
			if (rc)
				return rc;
			D->module = MOD_NONE;
			for (int m = 0; m < NMOD; m++)
				if (pl - 12 == strlen(mod_name[m]) && !strncmp(p, mod_name[m], pl - 12))
					D->module = m;
			if (D->module == MOD_NONE)
				return bad(D, line, "unknown module '%.*s' (expected DXT_POSIX or"
					   " DXT_MPIIO)", (int)(pl - 12 > 40 ? 40 : pl - 12), p);
			D->banner_seen[D->module] = true;
			return 0;
		}
		if (p[0] == 'd' && starts(p, "darshan log version:")) {
			/* a dump's first line: once, before any module */
			if (D->version_line)
				return rerr_at(D->e, -EINVAL, D->src, line,
					       "a second dump header ('# darshan log version:', the"
					       " first at line %lu): the file holds more than one"
					       " darshan-dxt-parser dump (dumps put together?); replay"
					       " replays one job at a time: give each dump as its own"
					       " trace", D->version_line);
			if (D->module != MOD_NONE || D->nblock)
				return rerr_at(D->e, -EINVAL, D->src, line,
					       "a dump header ('# darshan log version:') after DXT data:"
					       " the file holds more than one darshan-dxt-parser dump"
					       " (dumps put together?); replay replays one job at a"
					       " time: give each dump as its own trace");
			D->version_line = line;
		}
		if (starts(p, "no DXT module data available"))
			D->no_dxt = true;
		else if (strstr(p, " module: ") && strstr(p, "ver="))
			region_line(D, p);
		else if (D->module == MOD_NONE)
			return job_line(D, p, line);
		return 0;                 /* comments, column headers, advice */
	}
	const char *p = skip_ws(l);
	if (p[0] == 'X' && p[1] == '_')
		return segment_line(D, p, l + n, line);
	if (line == 1 && dxt_is_darshan_log(l, n))
		/* a log that came as a stream: the binary is not probed there */
		return rerr_set(D->e, -EINVAL, "%s: a binary Darshan log, read as a stream (standard"
				" input, a pipe, or a gzip-compressed log): replay reads a binary log"
				" from its own file; give the .darshan file's path (decompress a"
				" .darshan.gz first)", D->src);
	return bad(D, line, "expected a '#' line or an X_POSIX/X_MPIIO segment line");
}

/* The last line, l, has no newline.  darshan-dxt-parser ends every line
 * with one, so a segment line without it was cut (its end time, say
 * "13.1" of "13.1310", would still parse, as a shorter duration): a
 * truncated dump, refused like the others.  0 when skipped (--skip-bad),
 * 1 when it is another line (read as usual), <0. */
static int cut_line(struct dxt *D, const char *l, unsigned long line)
{
	const char *p = skip_ws(l);

	if (p[0] != 'X' || p[1] != '_')
		return 1;
	if (D->cur >= 0)
		D->blocks[D->cur].damaged = 1;
	return bad(D, line, "the dump ends inside this segment line: it has no newline, and"
		   " darshan-dxt-parser ends every line with one (truncated dump?; if the line"
		   " is whole, add the newline)");
}

static int read_text(struct dxt *D, const char *path)
{
	struct dxt_input in;
	char *l;
	size_t n;
	int rc;

	rc = dxt_input_open(&in, path, D->e);
	if (rc < 0)
		return rc;
	while ((rc = dxt_input_next(&in, &l, &n, D->e)) == 1) {
		D->in->lines++;
		if (__builtin_expect(in.lr.nonl, 0) && (rc = cut_line(D, l, in.lr.lineno)) <= 0) {
			if (rc < 0)
				break;
			continue;
		}
		rc = text_line(D, l, n, in.lr.lineno);
		if (rc < 0)
			break;
	}
	if (rc == 0)
		rc = block_end(D);
	if (rc < 0 && in.src == DXT_SRC_GZIP) {
		/* garbage from a corrupt file: gzip's verdict, not the text's */
		struct rerr z;
		int zr = dxt_input_verdict(&in, &z);
		if (zr < 0) {
			char was[sizeof(D->e->msg)];
			snprintf(was, sizeof(was), "%s", D->e->msg);
			rc = rerr_set(D->e, zr, "%s (the text it gave before that: %s)", z.msg, was);
		}
	}
	D->in->bytes += in.bytes;
	dxt_input_close(&in);
	return rc;
}

/* ---- pass 2: per rank, into the builder --------------------------------------- */

/* Pass 2 orders the records by (rank number, start, line): sort_segs within
 * a run, merge_open and seg_next across the runs. */

static const struct drank *rank_sort_ctx;

static int cmp_rank_ix(const void *a, const void *b)
{
	int64_t x = rank_sort_ctx[*(const uint32_t *)a].rank, y = rank_sort_ctx[*(const uint32_t *)b].rank;
	return (x > y) - (x < y);
}

/* Each rank's place among the rank numbers: ord[rank index]; NULL when
 * out of memory. */
static uint32_t *rank_order(const struct dxt *D)
{
	uint32_t *ord = malloc((D->nrank ? D->nrank : 1) * sizeof(*ord));
	uint32_t *rix = malloc((D->nrank ? D->nrank : 1) * sizeof(*rix));
	if (ord && rix) {
		for (uint32_t r = 0; r < D->nrank; r++)
			rix[r] = r;
		rank_sort_ctx = D->ranks;
		qsort(rix, D->nrank, sizeof(*rix), cmp_rank_ix);
		rank_sort_ctx = NULL;
		for (uint32_t r = 0; r < D->nrank; r++)
			ord[rix[r]] = r;
	} else {
		free(ord);
		ord = NULL;
	}
	free(rix);
	return ord;
}

#define SORT_DIGIT 11u            /* at most 11 key bits per radix pass */
#define SORT_PASSES 6u            /* 64 bits / SORT_DIGIT, rounded up  */

/* D->segs sorted by (rank number, start, line), by a stable LSD radix sort: the
 * records are in line order, so sorting on (rank's place among the rank
 * numbers, start) keeps equal keys by line.  The key packs the rank's place
 * just above the bits the largest start needs, and is sorted on in as few
 * passes of at most SORT_DIGIT bits as its width takes (the usual trace:
 * 3 or fewer), all counted while the keys are made; a pass whose digit
 * every record shares is skipped. */
static int sort_segs(struct dxt *D)
{
	size_t n = D->nseg;
	if (n < 2)
		return 0;
	uint32_t *ord = rank_order(D);
	uint32_t *bord = malloc((D->nblock ? D->nblock : 1) * sizeof(*bord));
	uint64_t *key = malloc(2 * n * sizeof(*key));
	uint32_t *idx = malloc(2 * n * sizeof(*idx));
	uint32_t *cnt = malloc(SORT_PASSES * ((size_t)1 << SORT_DIGIT) * sizeof(*cnt));
	struct seg *out = malloc(n * sizeof(*out));
	int rc = ord && bord && key && idx && cnt && out ? 0 : -ENOMEM;
	if (!rc) {
		const struct seg *sg = D->segs;
		uint32_t smax = 0;
		for (size_t i = 0; i < n; i++)
			smax |= sg[i].start;
		unsigned sbits = smax ? 32u - (unsigned)__builtin_clz(smax) : 0;
		uint32_t omax = 0;
		for (size_t k = 0; k < D->nblock; k++) {        /* each block's rank's place */
			bord[k] = ord[D->blocks[k].rank];
			omax |= bord[k];
		}
		unsigned hi = sbits + (omax ? 32u - (unsigned)__builtin_clz(omax) : 0);
		unsigned np = (hi + SORT_DIGIT - 1) / SORT_DIGIT;
		unsigned w = np ? (hi + np - 1) / np : 0;       /* bits per pass */
		uint32_t mask = (1u << w) - 1;
		size_t nb = (size_t)1 << w;
		uint64_t *k0 = key, *k1 = key + n;
		uint32_t *i0 = idx, *i1 = idx + n;
		memset(cnt, 0, (np > 3 ? np : 3) * nb * sizeof(*cnt));
		if (np <= 3) {          /* the usual: rank and start in 33 bits */
			uint32_t *c0 = cnt, *c1 = cnt + nb, *c2 = cnt + 2 * nb;
			for (size_t i = 0; i < n; i++) {
				uint64_t k = (uint64_t)bord[sg[i].block & ~WRITE_BIT] << sbits | sg[i].start;
				k0[i] = k;
				i0[i] = (uint32_t)i;
				c0[k & mask]++;
				c1[(k >> w) & mask]++;
				c2[(k >> 2 * w) & mask]++;
			}
		} else {
			for (size_t i = 0; i < n; i++) {
				uint64_t k = (uint64_t)bord[sg[i].block & ~WRITE_BIT] << sbits | sg[i].start;
				k0[i] = k;
				i0[i] = (uint32_t)i;
				for (unsigned p = 0; p < np; p++)
					cnt[p * nb + ((k >> (p * w)) & mask)]++;
			}
		}
		for (unsigned p = 0; p < np; p++) {
			uint32_t *c = cnt + p * nb;
			unsigned sh = p * w;
			if (c[(k0[0] >> sh) & mask] == n)
				continue;       /* one value in this digit: order unchanged */
			for (size_t b = 0, at = 0; b < nb; b++) {
				size_t v = c[b];
				c[b] = (uint32_t)at;
				at += v;
			}
			for (size_t i = 0; i < n; i++) {
				uint64_t k = k0[i];
				uint32_t j = c[(k >> sh) & mask]++;
				k1[j] = k;
				i1[j] = i0[i];
			}
			uint64_t *tk = k0;
			k0 = k1;
			k1 = tk;
			uint32_t *ti = i0;
			i0 = i1;
			i1 = ti;
		}
		for (size_t i = 0; i < n; i++)
			out[i] = sg[i0[i]];
		free(D->segs);          /* the sorted copy takes its place */
		D->segs = out;
		D->capseg = n;
		out = NULL;
	}
	free(ord);
	free(bord);
	free(key);
	free(idx);
	free(cnt);
	free(out);
	return rc;
}

/* ---- the sorted segments: in memory, or runs merged in the spill file ---- */

static int spill_io(struct dxt *D, bool wr, void *buf, size_t n, uint64_t rec)
{
	char *p = buf;
	off_t off = (off_t)(rec * sizeof(struct seg));
	while (n) {
		ssize_t k = wr ? pwrite(D->spill_fd, p, n, off) : pread(D->spill_fd, p, n, off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int err = k < 0 ? errno : EIO;
			return rerr_set(D->e, -err, "%s: cannot %s the temporary file of sorted segments:"
					" %s", D->src, wr ? "write" : "read", strerror(err));
		}
		p += k;
		n -= (size_t)k;
		off += k;
	}
	return 0;
}

/* The records in memory, sorted, appended to the spill file as one run. */
static int spill_run(struct dxt *D)
{
	if (D->spill_fd < 0) {
		const char *td = getenv("TMPDIR");
		char tmpl[4096];
		snprintf(tmpl, sizeof(tmpl), "%s/replay-dxt-XXXXXX", td && *td ? td : "/tmp");
		D->spill_fd = tmpfile_make(tmpl, 0, false);     /* unlinked at once */
		if (D->spill_fd < 0)
			return rerr_set(D->e, -errno, "%s: cannot create a temporary file in '%s': %s",
					D->src, td && *td ? td : "/tmp", strerror(errno));
	}
	int rc = trace_grow((void **)&D->runs, &D->capruns, D->nruns + 1, sizeof(*D->runs), 16);
	if (rc)
		return rc;
	rc = sort_segs(D);
	if (!rc)
		rc = spill_io(D, true, D->segs, D->nseg * sizeof(*D->segs), D->spilled);
	if (rc)
		return rc;
	D->runs[D->nruns++] = D->spilled;
	D->spilled += D->nseg;
	D->nseg = 0;
	return 0;
}

struct cursor {                   /* one sorted run being merged     */
	struct seg *buf;          /* SEG_BUF records (NULL: the run in memory) */
	uint64_t next, end;       /* records still to read: [next, end) */
	const struct seg *at, *lim; /* [at, lim) in view, not yet taken: at
	                           * is the head */
	uint64_t key;             /* the head's (rank's place, start) */
	uint32_t line;            /* and line: what the merge compares */
};

/* The head's sort key, from bord: each block's rank's place. */
static inline void cur_key(struct cursor *c, const uint32_t *bord)
{
	const struct seg *s = c->at;
	c->key = (uint64_t)bord[s->block & ~WRITE_BIT] << 32 | s->start;
	c->line = s->line;
}

/* Cursor x's head before y's: by (rank number, start, line). */
static inline bool cur_before(const struct cursor *x, const struct cursor *y)
{
	return x->key < y->key || (x->key == y->key && x->line < y->line);
}

/* The cursor's next record into view; 0 at the end (*more false). */
static int cur_fill(struct dxt *D, struct cursor *c, bool *more)
{
	if (c->at < c->lim) {
		*more = true;
		return 0;
	}
	*more = false;
	if (!c->buf || c->next >= c->end)
		return 0;
	size_t k = c->end - c->next < SEG_BUF ? (size_t)(c->end - c->next) : SEG_BUF;
	int rc = spill_io(D, false, c->buf, k * sizeof(struct seg), c->next);
	c->next += k;
	c->at = c->buf;
	c->lim = c->buf + k;
	*more = !rc;
	return rc;
}

/* The sorted segments, by index, taken in order: all in memory, or the
 * runs of the spill file and the records in memory merged as they are
 * taken (a heap of the runs' heads). */
struct segsrc {
	struct dxt *D;
	const struct seg *mem;    /* all of them, or NULL: merged    */
	struct cursor *c;         /* the runs, the one in memory last */
	struct cursor **heap;     /* of the runs not exhausted       */
	size_t nc, live;
	size_t pos;               /* index of heap[0]'s head         */
	const uint32_t *bord;     /* each block's rank's place       */
	int err;                  /* a read failed (D->e says why)    */
};

static void merge_free(struct segsrc *S)
{
	for (size_t r = 0; S->c && r < S->nc; r++)
		free(S->c[r].buf);
	free(S->c);
	free(S->heap);
	free((void *)S->bord);
	S->c = NULL;
	S->heap = NULL;
	S->bord = NULL;
}

/* Ready to merge the runs and the sorted records in memory. */
static int merge_open(struct dxt *D, struct segsrc *S)
{
	size_t nc = D->nruns + 1;
	uint32_t *ord = rank_order(D);
	uint32_t *bord = malloc((D->nblock ? D->nblock : 1) * sizeof(*bord));

	S->mem = NULL;
	S->nc = nc;
	S->live = 0;
	S->pos = 0;
	S->c = calloc(nc, sizeof(*S->c));
	S->heap = calloc(nc, sizeof(*S->heap));
	S->bord = bord;
	int rc = S->c && S->heap && ord && bord ? 0 : -ENOMEM;
	for (size_t k = 0; k < D->nblock && !rc; k++)
		bord[k] = ord[D->blocks[k].rank];
	free(ord);
	struct cursor *c = S->c;
	for (size_t r = 0; r < D->nruns && !rc; r++) {
		c[r] = (struct cursor){ .next = D->runs[r],
					.end = r + 1 < D->nruns ? D->runs[r + 1] : D->spilled };
		if (!(c[r].buf = malloc(SEG_BUF * sizeof(struct seg))))
			rc = -ENOMEM;
	}
	if (!rc)
		c[nc - 1] = (struct cursor){ .at = D->segs, .lim = D->segs + D->nseg };
	for (size_t r = 0; r < nc && !rc; r++) {
		bool more;
		rc = cur_fill(D, &c[r], &more);
		if (!rc && more) {      /* sift up into the heap of heads */
			size_t i = S->live++;
			cur_key(&c[r], bord);
			for (; i && cur_before(&c[r], S->heap[(i - 1) / 2]); i = (i - 1) / 2)
				S->heap[i] = S->heap[(i - 1) / 2];
			S->heap[i] = &c[r];
		}
	}
	return rc;
}

/* The merge's next record (index S->pos + 1); NULL on a read error. */
static inline __attribute__((always_inline)) const struct seg *seg_next(struct segsrc *S)
{
	struct cursor **heap = S->heap;
	struct cursor *h = heap[0];
	bool more;

	if (++h->at < h->lim) {
		more = true;
	} else if ((S->err = cur_fill(S->D, h, &more))) {
		return NULL;
	}
	struct cursor *x = h;
	if (more)
		cur_key(h, S->bord);
	else
		x = heap[--S->live];
	size_t i = 0, live = S->live;   /* sift x down from the root */
	for (;;) {
		size_t l = 2 * i + 1, m = l;
		if (l >= live)
			break;
		if (l + 1 < live && cur_before(heap[l + 1], heap[l]))
			m = l + 1;
		if (!cur_before(heap[m], x))
			break;
		heap[i] = heap[m];
		i = m;
	}
	S->pos++;
	if (!live) {            /* not reached: seg_at stops at the total */
		S->err = rerr_set(S->D->e, -EIO, "%s: the sorted segments end early", S->D->src);
		return NULL;
	}
	heap[i] = x;
	return heap[0]->at;
}

/* Segment i, i the last one taken or the next (from 0 up); NULL on a read
 * error. */
static inline const struct seg *seg_at(struct segsrc *S, size_t i)
{
	if (S->mem)
		return &S->mem[i];
	if (i == S->pos)
		return S->heap[0]->at;
	return seg_next(S);
}

struct fstate {                   /* one file of the rank being fed */
	uint32_t last;            /* line of its last segment        */
	uint32_t last_line;       /* its block's line (the close's)  */
	uint32_t close_t;         /* latest end of its segments      */
	uint32_t lstart;          /* start of its last segment (file_sums) */
	int32_t fd;               /* synthesized fd, -1 not open     */
	uint8_t writes, used;
};

struct pending {                  /* a close waiting for its time    */
	uint32_t t, seq, file;
};

struct feeder {
	struct dxt *D;
	struct fstate *fs;        /* per file                         */
	uint32_t *touched;
	size_t ntouched;
	struct pending *heap;
	size_t nheap;
	int32_t *freefd;
	size_t nfree;
	int32_t nextfd;
	uint64_t base_ns;
	int64_t pid;
	uint64_t synth_opens, synth_closes;
	uint64_t split, split_ops;    /* segments over one call, the ops they made */
	struct segsrc *src;       /* the sorted segments              */
};

static void heap_push(struct feeder *F, struct pending p)
{
	size_t i = F->nheap++;

	while (i) {
		size_t up = (i - 1) / 2;
		struct pending *q = &F->heap[up];
		if (q->t < p.t || (q->t == p.t && q->seq <= p.seq))
			break;
		F->heap[i] = *q;
		i = up;
	}
	F->heap[i] = p;
}

static struct pending heap_pop(struct feeder *F)
{
	struct pending top = F->heap[0], last = F->heap[--F->nheap];
	size_t i = 0, n = F->nheap;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && (F->heap[c + 1].t < F->heap[c].t ||
				  (F->heap[c + 1].t == F->heap[c].t && F->heap[c + 1].seq < F->heap[c].seq)))
			c++;
		if (last.t < F->heap[c].t || (last.t == F->heap[c].t && last.seq <= F->heap[c].seq))
			break;
		F->heap[i] = F->heap[c];
		i = c;
	}
	if (n)
		F->heap[i] = last;
	return top;
}

static int feed(struct feeder *F, struct sc_event *ev)
{
	ev->src = F->D->src;
	ev->pid = F->pid;
	return builder_event(F->D->b, ev, F->D->e);
}

static int emit_close(struct feeder *F, const struct pending *p)
{
	struct fstate *st = &F->fs[p->file];
	struct sc_event ev;

	sc_event_init(&ev);
	ev.call = SC_CLOSE;
	ev.name = "close";
	ev.fd = st->fd;
	ev.ret = 0;
	ev.ts_ns = F->base_ns + (uint64_t)p->t * TICK_NS;
	ev.line = st->last_line;
	ev.opflags = OPF_SYNTH;
	F->freefd[F->nfree++] = st->fd;
	st->fd = -1;
	F->synth_closes++;
	return feed(F, &ev);
}

static int emit_open(struct feeder *F, uint32_t file, const struct dblock *k, uint32_t t)
{
	struct fstate *st = &F->fs[file];
	struct sc_event ev;

	st->fd = F->nfree ? F->freefd[--F->nfree] : F->nextfd++;
	sc_event_init(&ev);
	ev.call = SC_OPEN;
	ev.name = "open";
	ev.path = F->D->strs + F->D->files[file].name;
	ev.flags = st->writes ? O_RDWR | O_CREAT : O_RDONLY;
	ev.mode = st->writes ? 0644 : 0;
	ev.ret = st->fd;
	ev.ts_ns = F->base_ns + (uint64_t)t * TICK_NS;
	ev.line = k->line;
	ev.opflags = OPF_SYNTH;
	F->synth_opens++;
	return feed(F, &ev);
}

/* Each block of the layer gets what pass 2 needs of all the blocks of its
 * (rank, file), which pass 1 summed block by block: the latest end, whether
 * one writes, the last segment in pass 2's order and its block's line.
 * darshan-dxt-parser writes one block per (rank, file) and module; a text
 * that repeats one still gets one open and one close per rank and file.
 * fs (one per file, all unused) is scratch, left unused. */
static int file_sums(struct dxt *D, struct fstate *fs)
{
	size_t nb = D->nblock, nr = D->nrank;
	uint32_t *at = calloc(nr + 1, sizeof(*at));
	uint32_t *bl = malloc((nb ? nb : 1) * sizeof(*bl));
	if (!at || !bl) {
		free(at);
		free(bl);
		return -ENOMEM;
	}
	for (size_t k = 0; k < nb; k++)         /* the blocks with segments, by rank */
		if (D->blocks[k].kept)
			at[D->blocks[k].rank + 1]++;
	for (size_t r = 0; r < nr; r++)
		at[r + 1] += at[r];
	for (size_t k = 0; k < nb; k++)
		if (D->blocks[k].kept)
			bl[at[D->blocks[k].rank]++] = (uint32_t)k;
	for (size_t r = 0, a = 0; r < nr; a = at[r++]) {        /* rank r: bl[a, at[r]) */
		for (size_t j = a; j < at[r]; j++) {
			const struct dblock *k = &D->blocks[bl[j]];
			struct fstate *st = &fs[k->file];
			if (!st->used) {
				*st = (struct fstate){ .used = 1, .close_t = k->maxend, .writes = k->writes,
						       .lstart = k->lstart, .last = k->lline,
						       .last_line = k->line };
				continue;
			}
			if (k->maxend > st->close_t)
				st->close_t = k->maxend;
			st->writes |= k->writes;
			if (k->lstart > st->lstart || (k->lstart == st->lstart && k->lline > st->last)) {
				st->lstart = k->lstart;
				st->last = k->lline;
				st->last_line = k->line;
			}
		}
		for (size_t j = a; j < at[r]; j++) {
			struct dblock *k = &D->blocks[bl[j]];
			struct fstate *st = &fs[k->file];
			k->maxend = st->close_t;
			k->writes = st->writes;
			k->lline = st->last;
			k->lblock = st->last_line;
			st->used = 0;
		}
	}
	free(at);
	free(bl);
	return 0;
}

/* A segment longer than one Linux call can move (an MPI-IO call of 3 GiB
 * is one segment): consecutive ops of at most OP_MAX_DATA_LEN bytes each,
 * at consecutive offsets, each moving its length, so every traced byte is
 * replayed.  They all start at the segment's start, one after the other as
 * the runner issues them, and share its duration in proportion to their
 * lengths (the last takes what rounding left). */
static int feed_split(struct feeder *F, struct sc_event *ev, const struct seg *s, uint64_t dur)
{
	uint64_t done = 0, dleft = dur;
	uint32_t flags0 = ev->opflags;
	int rc = 0;

	F->split++;
	while (done < s->len && !rc) {
		uint64_t n = s->len - done;
		if (n > OP_MAX_DATA_LEN)
			n = OP_MAX_DATA_LEN;
		uint64_t d = done + n == s->len ? dleft :
			     (uint64_t)((double)dur * (double)n / (double)s->len);
		if (d > dleft)
			d = dleft;
		ev->offset = s->off + (int64_t)done;
		ev->opflags = done ? flags0 | OPF_PIECE : flags0;  /* one traced call all the same */
		ev->len = n;
		ev->ret = (int64_t)n;
		ev->dur_ns = d;
		dleft -= d;
		done += n;
		F->split_ops++;
		rc = builder_event(F->D->b, ev, F->D->e);
	}
	ev->opflags = flags0;
	return rc;
}

/* The segments of one rank, sorted: from a to the first of another rank
 * (or the end, total); *next: where that is.  An open of each file before
 * its first segment, a close once its last has ended (file_sums says
 * which one that is). */
static int feed_rank(struct feeder *F, size_t a, size_t total, size_t *next)
{
	struct dxt *D = F->D;
	const struct dblock *blocks = D->blocks;
	int rc = 0;
	const struct seg *s = seg_at(F->src, a);

	if (!s)
		return F->src->err;
	uint32_t rank = blocks[s->block & ~WRITE_BIT].rank;
	F->ntouched = 0;
	F->nheap = 0;
	F->nfree = 0;
	F->nextfd = 3;
	F->pid = D->ranks[rank].rank;

	struct sc_event ev;             /* what every segment's event shares */
	sc_event_init(&ev);
	ev.src = D->src;
	ev.pid = F->pid;
	size_t i;
	for (i = a; i < total && !rc; i++) {
		s = seg_at(F->src, i);
		if (!s) {
			rc = F->src->err;
			break;
		}
		const struct dblock *k = &blocks[s->block & ~WRITE_BIT];
		if (k->rank != rank)
			break;          /* the next rank's first segment */
		struct fstate *st = &F->fs[k->file];
		if (!st->used) {
			*st = (struct fstate){ .used = 1, .fd = -1, .close_t = k->maxend,
					       .writes = k->writes, .last = k->lline,
					       .last_line = k->lblock };
			F->touched[F->ntouched++] = k->file;
		}

		while (F->nheap && F->heap[0].t <= s->start && !rc) {
			struct pending p = heap_pop(F);
			rc = emit_close(F, &p);
		}
		if (!rc && st->fd < 0)
			rc = emit_open(F, k->file, k, s->start);
		if (rc)
			break;
		bool w = s->block & WRITE_BIT;
		ev.call = w ? SC_WRITE : SC_READ;
		ev.name = w ? "write" : "read";
		ev.fd = st->fd;
		ev.ts_ns = F->base_ns + (uint64_t)s->start * TICK_NS;
		ev.line = s->line;
		uint64_t dur = (uint64_t)(s->end - s->start) * TICK_NS;
		if (s->len <= OP_MAX_DATA_LEN) {
			ev.offset = s->off;
			ev.len = s->len;
			ev.ret = (int64_t)s->len;
			ev.dur_ns = dur;
			rc = builder_event(D->b, &ev, D->e);
		} else {
			rc = feed_split(F, &ev, s, dur);
		}
		if (!rc && s->line == st->last)
			heap_push(F, (struct pending){ st->close_t, (uint32_t)i, k->file });
	}
	*next = i;
	while (F->nheap && !rc) {
		struct pending p = heap_pop(F);
		rc = emit_close(F, &p);
	}
	for (size_t j = 0; j < F->ntouched; j++)
		F->fs[F->touched[j]].used = 0;
	return rc;
}

static int cmp_rank_num(const void *a, const void *b)
{
	const struct drank *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int info_u64(struct dxt *D, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return builder_info(D->b, key, buf);
}

/* Files with segments only in the layer not replayed: how many, their
 * bytes there, and the first in the text (info keys, for the warning of
 * dxt_layer_warning), from the blocks (each of one file in one layer). */
static int other_layer_files(struct dxt *D)
{
	uint64_t n = 0, bytes = 0;
	const char *first = NULL;
	int o = 1 - D->want, rc;
	uint8_t *in = calloc(D->nfile ? D->nfile : 1, 1);     /* bit m: segments in layer m */
	uint64_t *ob = calloc(D->nfile ? D->nfile : 1, sizeof(*ob));

	if (!in || !ob) {
		free(in);
		free(ob);
		return -ENOMEM;
	}
	for (size_t b = 0; b < D->nblock; b++) {
		const struct dblock *k = &D->blocks[b];
		if (!(k->seen_w + k->seen_r) || (k->module != D->want && k->module != o))
			continue;
		in[k->file] |= (uint8_t)(1u << k->module);
		if (k->module == o)
			ob[k->file] = ob[k->file] > UINT64_MAX - k->bytes ? UINT64_MAX : ob[k->file] + k->bytes;
	}
	for (size_t i = 0; i < D->nfile; i++) {
		if (in[i] != (1u << o))
			continue;
		if (!n++)
			first = D->strs + D->files[i].name;
		bytes = bytes > UINT64_MAX - ob[i] ? UINT64_MAX : bytes + ob[i];
	}
	free(in);
	free(ob);
	rc = info_u64(D, "dxt_files_other_layer_only", n);
	if (!rc && n)
		rc = info_u64(D, "dxt_files_other_layer_only_bytes", bytes);
	if (!rc && n)
		rc = builder_info(D->b, "dxt_files_other_layer_only_first", first);
	return rc;
}

static int write_info(struct dxt *D, const struct feeder *F, uint64_t other_only)
{
	char buf[256];
	int rc = builder_info(D->b, "dxt_layer", D->layer == DXT_LAYER_MPIIO ? "mpiio" : "posix");
	size_t n = 0;

	for (int m = 0; m < NMOD && !rc; m++)
		if (D->incomplete[m])
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "", mod_name[m]);
	if (!rc && n)
		rc = builder_info(D->b, "incomplete", buf);
	struct { const char *k; const char *v; } sv[] = {
		{ "dxt_log_version", D->log_version }, { "dxt_lib_ver", D->lib_ver },
		{ "dxt_nprocs", D->nprocs }, { "dxt_jobid", D->jobid }, { "dxt_run_time", D->run_time },
	};
	for (size_t i = 0; i < sizeof(sv) / sizeof(sv[0]) && !rc; i++)
		if (sv[i].v[0])
			rc = builder_info(D->b, sv[i].k, sv[i].v);
	if (!rc && D->start_time >= 0)
		rc = info_u64(D, "dxt_start_time", (uint64_t)D->start_time);
	if (!rc && D->beyond_line) {
		snprintf(buf, sizeof(buf), "%lu %" PRId64, D->beyond_line, D->beyond_rank);
		rc = builder_info(D->b, "dxt_rank_beyond_nprocs", buf);
	}
	struct { const char *k; uint64_t v; } kv[] = {
		{ "dxt_segments_posix", D->nsegs[MOD_POSIX] },
		{ "dxt_segments_mpiio", D->nsegs[MOD_MPIIO] },
		{ "dxt_blocks_posix", D->nblocks[MOD_POSIX] },
		{ "dxt_blocks_mpiio", D->nblocks[MOD_MPIIO] },
		{ "dxt_zero_length", D->zero_len[D->want] },
		{ "dxt_mpiio_unknown_offsets", D->unknown_off[MOD_MPIIO] },
		{ "dxt_ranks_other_layer_only", other_only },
		{ "synthesized_opens", F->synth_opens },
		{ "synthesized_closes", F->synth_closes },
		{ "dxt_longer_than_one_call", F->split },
		{ "dxt_longer_than_one_call_ops", F->split_ops },
	};
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && !rc; i++)
		rc = info_u64(D, kv[i].k, kv[i].v);
	if (!rc)
		rc = other_layer_files(D);
	if (!rc && D->unnamed)
		rc = info_u64(D, "dxt_unnamed_records", D->unnamed);
	/* the OST set of each Lustre file, as "SET<TAB>PATH" */
	for (size_t i = 0; i < D->nfile && !rc; i++) {
		const struct dfile *f = &D->files[i];
		const char *name = D->strs + f->name;
		if (!f->osts || name[0] != '/')
			continue;
		char *v = malloc(strlen(D->strs + f->osts) + strlen(name) + 4);
		if (!v)
			return -ENOMEM;
		sprintf(v, "%s\t", D->strs + f->osts);
		path_join_buf(v + strlen(v), NULL, name);       /* as the builder keeps it */
		rc = builder_info(D->b, "lustre_osts", v);
		free(v);
	}
	return rc;
}

/* Why there is nothing to replay. */
static int nothing(struct dxt *D)
{
	int o = 1 - D->want;

	if (D->nsegs[o])
		return rerr_set(D->e, -ENODATA, "%s: no %s segment (the %s module has %" PRIu64 "):"
				" use --dxt-layer %s", D->src, seg_name[D->want], mod_name[o],
				D->nsegs[o], o == MOD_MPIIO ? "mpiio" : "posix");
	for (int m = 0; m < NMOD; m++)
		if (D->banner_seen[m] && !D->banner_data[m])
			return rerr_set(D->e, -ENODATA,
					"%s: the %s module is announced but no block follows:"
					" darshan-dxt-parser stops there when the log's DXT data is"
					" incomplete (without --show-incomplete; it says so on stderr):"
					" dump the log again with '" DXT_PARSER_TOOL
					" --show-incomplete LOG'", D->src, mod_name[m]);
	if (D->no_dxt)
		return rerr_set(D->e, -ENODATA, "%s: the Darshan log holds no DXT trace (\"no DXT module"
				" data available\"): Darshan records DXT only when it is enabled"
				" (DXT_ENABLE_IO_TRACE=1 at run time)", D->src);
	return rerr_set(D->e, -ENODATA, "%s: no DXT segment found (no '# DXT_POSIX module data'"
			" or '# DXT_MPIIO module data' section)", D->src);
}

static int feed_all(struct dxt *D)
{
	struct feeder F = { .D = D };
	uint64_t other_only = 0;
	int rc = 0;

	/* banners with no block at the end of a dump: the parser stopped */
	for (int m = 0; m < NMOD; m++)
		if (D->banner_seen[m] && !D->banner_data[m])
			D->incomplete[m] = true;
	size_t total = D->spilled + D->nseg;
	if (!total)
		return nothing(D);
	rc = sort_segs(D);
	struct segsrc src = { .D = D, .mem = D->segs };   /* sort_segs moved them */
	if (!rc && D->nruns)    /* the runs and the rest, merged as fed */
		rc = merge_open(D, &src);
	F.src = &src;
	/* declare the ranks that have segments in the layer, by rank number */
	struct drank *order = rc ? NULL : malloc((D->nrank ? D->nrank : 1) * sizeof(*order));
	if (rc)
		goto out;
	F.fs = calloc(D->nfile ? D->nfile : 1, sizeof(*F.fs));
	F.touched = malloc((D->nfile ? D->nfile : 1) * sizeof(*F.touched));
	F.heap = malloc((D->nfile ? D->nfile : 1) * sizeof(*F.heap));
	F.freefd = malloc((D->nfile ? D->nfile : 1) * sizeof(*F.freefd));
	if (!order || !F.fs || !F.touched || !F.heap || !F.freefd) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = file_sums(D, F.fs)))
		goto out;
	memcpy(order, D->ranks, D->nrank * sizeof(*order));
	qsort(order, D->nrank, sizeof(*order), cmp_rank_num);
	for (size_t i = 0; i < D->nrank && !rc; i++) {
		char name[48];
		if (!order[i].segs[D->want]) {
			other_only += order[i].segs[1 - D->want] > 0;
			continue;
		}
		snprintf(name, sizeof(name), "rank %" PRId64, order[i].rank);
		uint32_t br;
		rc = builder_rank(D->b, order[i].rank, name, &br);
		if (!rc)
			rc = builder_rank_host(D->b, br, D->strs + order[i].host);
	}
	if (rc)
		goto out;
	F.base_ns = D->start_time > 0 ? (uint64_t)D->start_time * 1000000000ull : 0;
	for (size_t a = 0; a < total && !rc;)
		rc = feed_rank(&F, a, total, &a);
	if (!rc)
		rc = write_info(D, &F, other_only);
	if (rc && !D->e->msg[0])
		rerr_set(D->e, rc, "%s: %s", D->src, strerror(-rc));
out:
	if (rc == -ENOMEM)
		rerr_set(D->e, rc, "%s: out of memory", D->src);
	free(order);
	free(F.fs);
	free(F.touched);
	free(F.heap);
	free(F.freefd);
	merge_free(&src);
	return rc;
}

/* A DXT module the regions list announces (a size above 0) with no banner
 * for it: darshan-dxt-parser prints one for each (DXT_POSIX first), so
 * the dump was cut short, unless the parser stopped at an earlier banner
 * (an incomplete log without --show-incomplete: feed_all and nothing()
 * say so). */
static int missing_module(struct dxt *D)
{
	for (int m = 0; m < NMOD; m++)
		if (D->banner_seen[m] && !D->banner_data[m])
			return 0;
	for (int m = 0; m < NMOD; m++)
		if (D->announced[m] && !D->banner_seen[m])
			return rerr_set(D->e, -EINVAL,
					"%s: the log's regions list announces the %s module (%" PRIu64
					" bytes) but the dump has no '# %s module data' section:"
					" the dump looks cut short; give replay the .darshan log"
					" itself, or dump it again ('" DXT_PARSER_TOOL
					" --show-incomplete LOG > FILE')", D->src, mod_name[m],
					D->announced[m], mod_name[m]);
	return 0;
}

static int dxt_parse(struct trace_input *in, struct builder *b, struct rerr *e)
{
	struct rerr own;
	struct dxt D = { .in = in, .b = b, .e = e ? e : &own, .module = MOD_NONE,
			 .start_time = -1, .cur = -1, .spill_fd = -1 };
	int rc;

	e = D.e;

	if (dxt_layer_parse(in->dxt_layer, &D.layer) < 0)
		return rerr_set(e, -EINVAL, "unknown DXT layer '%s' (posix, mpiio)", in->dxt_layer);
	D.want = D.layer == DXT_LAYER_MPIIO ? MOD_MPIIO : MOD_POSIX;
	if (in->nfiles != 1) {
		rc = rerr_set(e, -EINVAL, "a DXT trace is one darshan-dxt-parser dump (or one .darshan"
			      " log); %zu files given", in->nfiles);
		goto out;
	}
	D.src = in->files[0];
	e->msg[0] = 0;
	rc = read_text(&D, D.src);
	if (rc < 0) {
		if (!e->msg[0])
			rerr_set(e, rc, "%s: %s", D.src, strerror(-rc));
		goto out;
	}
	if ((rc = missing_module(&D)) < 0)
		goto out;
	rc = feed_all(&D);
out:
	free(D.segs);
	free(D.runs);
	if (D.spill_fd >= 0)
		close(D.spill_fd);
	free(D.blocks);
	free(D.files);
	free(D.ranks);
	free(D.strs);
	imap_release(&D.file_ix);
	imap_release(&D.rank_ix);
	for (int m = 0; m < NMOD; m++)
		imap_release(&D.block_ix[m]);
	return rc;
}

/* ---- detection --------------------------------------------------------------- */

static int dxt_probe(const char *head, size_t len)
{
	if (dxt_is_darshan_log(head, len))
		return 100;
	if (len >= 22 && !strncmp(head, "# darshan log version:", 22))
		return 100;
	/* a dump with its header cut off: blocks and segment lines */
	const char *end = head + len;
	int blocks = 0, segs = 0;
	for (const char *p = head; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n >= 15 && !strncmp(p, "# DXT, file_id:", 15))
			blocks++;
		else if (n >= 9 && (!strncmp(p, " X_POSIX ", 9) || !strncmp(p, " X_MPIIO ", 9)))
			segs++;
		p += n + 1;
	}
	if (blocks && segs)
		return 90;
	return blocks || segs >= 3 ? 60 : 0;
}

const struct trace_format trace_dxt = {
	.name = "dxt",
	.desc = "Darshan DXT: darshan-dxt-parser text (or .gz), or a .darshan log",
	.probe = dxt_probe,
	.parse = dxt_parse,
	.flags = TRACE_F_GZIP,
};
