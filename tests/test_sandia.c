/*
 * test_sandia.c - Sandia libsysio parser: generic name(value) fields,
 * ENTER/EXIT pairing, async submits and iowait, sections as ranks,
 * malformed input.  Events are checked as the parser feeds them
 * (fake_builder.h); the pipeline is covered by tests/e2e/sandia_convert.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_builder.h"

#define D TEST_DATA "/sandia"

static void test_probe(void **st)
{
	(void)st;
	const char *a = "tracetype(ENTER)time:(1235106190)time:(4148)str(iwritev)fd(3)ziovec(base(0x34E5D9B0)len(10444))\n";
	assert_true(trace_sandia.probe(a, strlen(a)) >= 90);
	const char *h = "header version(1) headernode(12.3401)\n";
	assert_int_equal(trace_sandia.probe(h, strlen(h)), 90);
	const char *lt = "10:59:47.093718 SYS_statfs64(0x80675c0, 84, 0xbfdfe410, 0xbfdfe410, 0xbd3ff4)  = 0 <0.011131>\n";
	assert_int_equal(trace_sandia.probe(lt, strlen(lt)), 0);
	assert_int_equal(trace_sandia.probe("", 0), 0);
}

static void test_fixture(void **st)
{
	(void)st;
	char *files[] = { D "/cth_like.sanitized" };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_sandia, files, 1, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_nranks, 2);
	assert_string_equal(fb_ranks[0].name, "12.3401");
	assert_string_equal(fb_ranks[1].name, "12.3402");
	const int64_t r0 = fb_ranks[0].pid, r1 = fb_ranks[1].pid;
	assert_int_equal(r0, 12003401);
	assert_int_equal(r1, 12003402);

	/* rank 12.3401 */
	const struct sc_event *o = fb_nth(r0, SC_OPEN, 0);
	assert_string_equal(o->path, "/scratch/cth/out.0");
	assert_int_equal(o->flags, 66);
	assert_int_equal(o->mode, 420);
	assert_int_equal(o->ret, 3);
	assert_int_equal(o->ts_ns, 1235106190ull * 1000000000ull + 1000000ull);  /* time:(1000) = .001 */
	assert_int_equal(o->dur_ns, 500000);
	const struct sc_event *w0 = fb_nth(r0, SC_AWRITE, 0), *w1 = fb_nth(r0, SC_AWRITE, 1);
	assert_non_null(w1);
	assert_int_equal(w0->fd, 3);
	assert_int_equal(w0->len, 10444);
	assert_int_equal(w0->offset, SC_NOOFF);
	/* unpadded microseconds: time:(4148) is .004148 */
	assert_int_equal(w0->ts_ns, 1235106190ull * 1000000000ull + 4148000ull);
	assert_int_equal(w1->len, 300);
	assert_int_equal(w1->iovcnt, 2);
	const struct sc_event *a0 = fb_nth(r0, SC_AWAIT, 0), *a1 = fb_nth(r0, SC_AWAIT, 1);
	assert_int_equal(a0->async_id, w0->async_id);
	assert_int_equal(a0->ret, 10444);
	assert_int_equal(a1->async_id, w1->async_id);
	assert_int_equal(a1->ret, 300);
	const struct sc_event *ls = fb_nth(r0, SC_LSEEK, 0);
	assert_int_equal(ls->offset, 0);
	assert_true(ls->ret == SC_RET_UNKNOWN);     /* llseek: result not traced */
	/* ireadx: one async read per extent, the wait's count spread over them */
	assert_int_equal(fb_count(r0, SC_AREAD), 2);
	const struct sc_event *x0 = fb_nth(r0, SC_AREAD, 0), *x1 = fb_nth(r0, SC_AREAD, 1);
	assert_int_equal(x0->offset, 8192);
	assert_int_equal(x0->len, 2048);
	assert_int_equal(x1->offset, 20000);
	assert_int_equal(fb_nth(r0, SC_AWAIT, 2)->ret, 2048);
	assert_int_equal(fb_nth(r0, SC_AWAIT, 3)->ret, 952);
	assert_int_equal(fb_nth(r0, SC_AWAIT, 3)->async_id, x1->async_id);
	/* ifsync -> fsync; its iowait adds no await */
	assert_int_equal(fb_count(r0, SC_FSYNC), 1);
	assert_int_equal(fb_count(r0, SC_AWAIT), 4);
	assert_int_equal(fb_count(r0, SC_CLOSE), 1);
	/* iodone, getdirentries */
	assert_int_equal(fb_count(r0, SC_SKIP), 2);
	assert_int_equal(fb_count(r0, -1), 14);

	/* rank 12.3402: other field order, leading blank, iowait without id
	 * or count */
	o = fb_nth(r1, SC_OPEN, 0);
	assert_string_equal(o->path, "/scratch/cth/in.dat");
	assert_int_equal(o->ret, 5);
	ls = fb_nth(r1, SC_LSEEK, 0);
	assert_int_equal(ls->offset, 1048576);
	assert_int_equal(ls->ret, 1048576);
	const struct sc_event *rd = fb_nth(r1, SC_AREAD, 0);
	assert_int_equal(rd->len, 65536);
	assert_int_equal(rd->offset, SC_NOOFF);
	const struct sc_event *aw = fb_nth(r1, SC_AWAIT, 0);
	assert_int_equal(aw->async_id, rd->async_id);
	assert_true(aw->ret == SC_RET_UNKNOWN);
	assert_int_equal(fb_nth(r1, SC_FTRUNCATE, 0)->len, 2097152);
	assert_int_equal(fb_count(r1, SC_SKIP), 1);          /* vfcntl */
	assert_int_equal(fb_count(r1, -1), 7);
	assert_non_null(strstr(in.note, "1 iowait EXITs carried no byte count"));
	assert_int_equal(in.bad_lines, 0);
	assert_int_equal(in.lines, 42);
}

static int parse_text(const char *text, bool skip_bad, struct trace_input *in, struct rerr *e, char **dirp)
{
	char *dir = fb_tmpdir();
	char *f = fb_write(dir, "t.sanitized", text);
	char *files[] = { f };
	int rc = fb_parse(&trace_sandia, files, 1, skip_bad, in, e);
	free(f);
	*dirp = dir;
	return rc;
}

#define HDR "header x headernode(1.2)\n"
#define EV(type, us, rest) "tracetype(" type ")time:(100)time:(" #us ")str(" rest "\n"

static void test_errors(void **st)
{
	(void)st;
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ HDR EV("ENTER", 1, "close)fd(3)"), "t.sanitized:2: ENTER of 'close' has no EXIT" },
		{ HDR EV("ENTER", 1, "iowait)ioid(4)") EV("EXIT", 2, "iowait)ret(10)"),
		  "t.sanitized:2: iowait without a pending submit" },
		{ HDR "tracetype(ENTER)time:(100)time:(1x)str(close)fd(3)\n",
		  "t.sanitized:2: expected 'time:(SECS)time:(USECS)'" },
		{ HDR "tracetype(ENTER)time:(100)time:(1000000)str(close)fd(3)\n",
		  "t.sanitized:2: expected 'time:(SECS)time:(USECS)'" },
		{ HDR "tracetype(ENTER)str(close)fd(3)\n", "t.sanitized:2: expected 'time:(SECS)time:(USECS)'" },
		{ HDR EV("EXIT", 2, "close)ret(0)"), "t.sanitized:2: EXIT of 'close' without an ENTER" },
		{ HDR "tracetype(ENTER)time:(100)time:(1)str(close)fd(3\n", "t.sanitized:2: expected ')' closing" },
		{ HDR "tracetype(ENTER) garbage\n", "t.sanitized:2: expected 'name(value)'" },
		{ HDR "tracetype(LEAVE)time:(100)time:(1)str(close)\n", "expected 'tracetype(ENTER)'" },
		{ "header x headernode(12)\n", "t.sanitized:1: expected 'headernode(NODE.PID)'" },
		{ HDR EV("ENTER", 1, "close)") EV("EXIT", 2, "close)ret(0)"), "t.sanitized:2: expected the fields of 'close'" },
		/* negative explicit offsets (issue 15) */
		{ HDR EV("ENTER", 1, "pwrite)fd(3)len(10)offset(-5)") EV("EXIT", 2, "pwrite)ret(10)"),
		  "t.sanitized:2: expected the fields of 'pwrite'" },
		{ HDR EV("ENTER", 1, "iwritex)fd(3)ziovec(base(0x1)len(10))xtvec(off(-5)len(10))")
			  EV("EXIT", 2, "iwritex)ret(1)"),
		  "t.sanitized:2: expected the fields of 'iwritex'" },
		/* more bytes than asked for: a damaged line */
		{ HDR EV("ENTER", 1, "pwrite)fd(3)len(10)offset(5)") EV("EXIT", 2, "pwrite)ret(50000)"),
		  "t.sanitized:2: pwrite returned 50000 bytes, more than the 10 it was asked for" },
		{ HDR EV("ENTER", 1, "iwritev)fd(3)ziovec(base(0x1)len(1269))") EV("EXIT", 2, "iwritev)ioid(0x1000)")
			  EV("ENTER", 3, "iowait)ioid(0x1000)") EV("EXIT", 4, "iowait)ioid(0x1000)cc(51269)"),
		  "iowait completed 51269 bytes, more than the 1269 its submit asked for" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace_input in;
		struct rerr e;
		char *dir;
		int rc = parse_text(cases[i].text, false, &in, &e, &dir);
		fb_rmdir(dir);
		if (rc != -EINVAL || !strstr(e.msg, cases[i].msg))
			fail_msg("case %zu: rc %d '%s', want '%s'", i, rc, e.msg, cases[i].msg);
	}
}

static void test_skip_bad(void **st)
{
	(void)st;
	struct trace_input in;
	struct rerr e;
	char *dir;
	int rc = parse_text(HDR EV("ENTER", 1, "iowait)") EV("EXIT", 2, "iowait)ret(10)")
			    "tracetype(ENTER)time:(100)time:(x)str(close)fd(3)\n"
			    EV("ENTER", 3, "close)fd(3)") EV("EXIT", 4, "close)ret(0)")
			    EV("ENTER", 5, "fsync)fd(3)"),
			    true, &in, &e, &dir);
	fb_rmdir(dir);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(in.bad_lines, 3);
	assert_non_null(strstr(in.first_bad, "t.sanitized:2: iowait without"));
	assert_int_equal(fb_nrec, 1);
	assert_int_equal(fb_recs[0].ev.call, SC_CLOSE);
}

static void test_unknown_and_variants(void **st)
{
	(void)st;
	struct trace_input in;
	struct rerr e;
	char *dir;
	/* no header: the file is one rank; unknown calls are skipped by name;
	 * nested ENTERs of different calls; iowait matched by id out of order;
	 * errno on EXIT; rename/unlink/mkdir/dup2 paths */
	int rc = parse_text(EV("ENTER", 1, "frobnicate)fd(3)x(y(z))")
			    EV("ENTER", 2, "open)path(/a/b)flags(0x241)mode(0644)")
			    EV("EXIT", 3, "open)ret(-1)errno(2)")
			    EV("EXIT", 4, "frobnicate)ret(0)")
			    EV("ENTER", 5, "open)str(/a/c)flags(2)mode(0)") EV("EXIT", 6, "open)ret(4)")
			    EV("ENTER", 7, "iwritev)fd(4)ziovec(base(0x1)len(10))") EV("EXIT", 8, "iwritev)ret(21)")
			    EV("ENTER", 9, "ireadv)fd(4)ziovec(base(0x1)len(20))") EV("EXIT", 10, "ireadv)ret(22)")
			    EV("ENTER", 11, "iowait)ioid(22)") EV("EXIT", 12, "iowait)ret(20)")
			    EV("ENTER", 13, "iowait)ioid(21)") EV("EXIT", 14, "iowait)size(10)")
			    EV("ENTER", 15, "rename)old(/a/c)new(/a/d)") EV("EXIT", 16, "rename)ret(0)")
			    EV("ENTER", 17, "unlink)path(/a/d)") EV("EXIT", 18, "unlink)ret(0)")
			    EV("ENTER", 19, "mkdir)path(/a/e)mode(493)") EV("EXIT", 20, "mkdir)ret(0)")
			    EV("ENTER", 21, "dup2)fd(4)newfd(9)") EV("EXIT", 22, "dup2)ret(9)")
			    EV("ENTER", 23, "writev)fd(9)iovec(base(1)len(7))iovec(base(2)len(8))") EV("EXIT", 24, "writev)ret(15)")
			    EV("ENTER", 25, "lseek)fd(9)offset(-5)whence(SEEK_END)") EV("EXIT", 26, "lseek)ret(100)")
			    "tracetype( ENTER ) time:(100) time:(27) str( close ) fd( 9 )\n"
			    "tracetype(EXIT)time:(100)time:(28)str(close)ret(0)\n",
			    false, &in, &e, &dir);
	fb_rmdir(dir);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_nranks, 1);
	assert_string_equal(fb_ranks[0].name, "t.sanitized");
	int64_t p = fb_ranks[0].pid;
	assert_string_equal(fb_recs[0].ev.name, "open");           /* inner EXIT first */
	assert_int_equal(fb_recs[0].ev.ret, -2);
	assert_int_equal(fb_recs[0].ev.flags, 0x241);
	assert_int_equal(fb_recs[0].ev.mode, 0644);
	assert_int_equal(fb_recs[1].ev.call, SC_SKIP);
	assert_string_equal(fb_recs[1].ev.name, "frobnicate");
	/* the outer call's time never precedes what was already fed */
	assert_true(fb_recs[1].ev.ts_ns >= fb_recs[0].ev.ts_ns);
	assert_string_equal(fb_nth(p, SC_OPEN, 1)->path, "/a/c");
	const struct sc_event *w = fb_nth(p, SC_AWRITE, 0), *r = fb_nth(p, SC_AREAD, 0);
	assert_int_equal(fb_nth(p, SC_AWAIT, 0)->async_id, r->async_id);
	assert_int_equal(fb_nth(p, SC_AWAIT, 0)->ret, 20);
	assert_int_equal(fb_nth(p, SC_AWAIT, 1)->async_id, w->async_id);
	assert_int_equal(fb_nth(p, SC_AWAIT, 1)->ret, 10);
	const struct sc_event *rn = fb_nth(p, SC_RENAME, 0);
	assert_string_equal(rn->path, "/a/c");
	assert_string_equal(rn->path2, "/a/d");
	assert_string_equal(fb_nth(p, SC_UNLINK, 0)->path, "/a/d");
	assert_int_equal(fb_nth(p, SC_MKDIR, 0)->mode, 493);
	assert_int_equal(fb_nth(p, SC_DUP2, 0)->fd2, 9);
	const struct sc_event *wv = fb_nth(p, SC_WRITE, 0);
	assert_int_equal(wv->len, 15);
	assert_int_equal(wv->iovcnt, 2);
	assert_int_equal(wv->fd, 9);
	const struct sc_event *ls = fb_nth(p, SC_LSEEK, 0);
	assert_int_equal(ls->whence, SEEK_END);
	assert_int_equal(ls->offset, -5);
	assert_int_equal(ls->ret, 100);
	/* blanks inside and between fields */
	assert_int_equal(fb_nth(p, SC_CLOSE, 0)->fd, 9);
	assert_string_equal(in.note, "");
}

/* The reader takes a quick way through lines of the usual shape
 * (fields_fast, fp_prefix, the time:() and iovec shortcuts) and the
 * general one through the rest.  The same text read both ways must give
 * the same events: B is A with " zz (0)" at the end of every line (a
 * blank before '(' leaves the whole line to the general tokenizer; zz is
 * no field anything looks up).  A has the shapes at the edges of the
 * quick way: names of 15 to 17 bytes (its 16-byte window), values and
 * nesting across windows, times of 16 and 17 digits and with leading
 * zeros (octal to strtoll), iovecs it must leave alone, more than 255
 * fields, blanks, CRs and malformed lines. */
#define FP_LINES                                                                                    \
	HDR                                                                                         \
	EV("ENTER", 1, "open)path(/a/b)flags(66)mode(0644)") EV("EXIT", 2, "open)ret(3)")          \
	EV("ENTER", 3, "iwritev)fd(3)abcdefghijklmno(1)"                                            \
			"ziovec(base(0x1)len(10))ziovec(base(0x0123456789abcdef01234)len(20))")     \
	EV("EXIT", 4, "iwritev)ioid(0x10)")                                                         \
	EV("ENTER", 5, "iowait)ioid(0x10)") EV("EXIT", 6, "iowait)cc(30)")                          \
	EV("ENTER", 7, "writev)fd(3)iovec(base(1)len(010))iovec(base(2)len(0))"                     \
			"iov(base(1)len(7)base(2)iov_len(8))ziovec(base(x(y))len(5))"               \
			"ziovec(BASE(1)len(4))ziovec(base(1)len( 3))ziovec(base(1)len(12345678901234567))") \
	EV("EXIT", 8, "writev)ret(1)")                                                              \
	"tracetype(ENTER)time:(100)time:(0777)str(close)fd(3)\n"                                    \
	"tracetype(EXIT)time:(100)time:(999999)str(close)ret(0)\n"                                  \
	"tracetype(ENTER)time:(100)time:(0999999)str(close)fd(3)\n"                                 \
	EV("ENTER", 9, "lseek)fd(3)OFFSET_HIGH(1)offset_low(16)whence(SEEK_CUR)")                    \
	EV("EXIT", 10, "lseek)ret(5)")                                                              \
	EV("ENTER", 11, "pwrite)fd(3)offset_hXgh(1)len(0x10)position(0x20)")                        \
	EV("EXIT", 12, "pwrite)nbytes(16)")                                                         \
	EV("ENTER", 12, "frob)abcdefghijklmnop(2)abcdefghijklmnopq(3)fd(3)")                         \
	EV("EXIT", 12, "frob)ret(0)")                                                               \
	EV("ENTER", 13, "frob)fd(3)x(((((((((((((((((((a)))))))))))))))))))"                        \
			"y(0123456789012345678901234567890123456789)") EV("EXIT", 14, "frob)ret(0)")  \
	EV("ENTER", 15, "ireadx)fd(3)ziovec(base(0x1000)len(4096))xtvec(off(8192)len(2048))"        \
			"xtvec(off(20000)len(2048))") EV("EXIT", 16, "ireadx)ret(9)")                 \
	EV("ENTER", 17, "iowait)ioid(9)") EV("EXIT", 18, "iowait)ret(3000)")                        \
	"tracetype(ENTER) time:(100) time:(19) str(read) fd(3) len(7)\r\n"                          \
	EV("EXIT", 20, "read)ret(7)\r")                                                             \
	"tracetype(ENTER)time:(100)time:(21)str(close)fd(3\n"                                       \
	"tracetype(ENTER)time:(100)time:(22)str(close)fd:x(3)\n"                                    \
	"tracetype(ENTER)time:(100)time:(23)str(close)(3)\n"                                        \
	"tracetype(EXIT)time:(100)time:(24)str(close\n"                                             \
	"tracetype(ENTER)time:(100)time:(25)str(x)\n" "tracetype(EXIT)time:(100)time:(26)str(x)\n"    \
	/* seconds that start like the line before's (fp_prefix remembers them) */                \
	"tracetype(ENTER)time:(1000)time:(5)str(fsync)fd(3)\n"                                      \
	"tracetype(EXIT)time:(1000)time:(6)str(fsync)ret(0)\n"                                      \
	"tracetype(ENTER)time:(100)time:(7)str(fsync)fd(3)\n"                                       \
	"tracetype(EXIT)time:(10)time:(8)str(fsync)ret(0)\n"                                        \
	"tracetype(ENTER)time:(0100)time:(9)str(fsync)fd(3)\n"                                      \
	"tracetype(EXIT)time:(0100)time:(10)str(fsync)ret(0)\n"                                     \
	"tracetype(ENTER)time:(1001)time:(11)str(fsync)fd(3)\n"                                     \
	"tracetype(EXIT)time:(1001x)time:(12)str(fsync)ret(0)\n"                                    \
	"tracetype(EXIT)time:(1001)time:(12)str(fsync)ret(0)\n"                                     \
	"tracetype(ENTER)time:(1234567890123456)time:(010)str(close)fd(3)\n"                        \
	"tracetype(EXIT)time:(12345678901234567)time:(0)str(close)ret(0)\n"

static char *fp_text(bool general)
{
	/* A, with a line of 300 fields (their index, first[], stops at 255) */
	static const char head[] = FP_LINES;
	size_t cap = sizeof(head) + 8192;
	char *t = malloc(cap), *o = malloc(cap * 2);
	assert_non_null(t);
	assert_non_null(o);
	size_t n = (size_t)snprintf(t, cap, "%stracetype(ENTER)time:(100)time:(30)str(write)", head);
	for (int i = 0; i < 300; i++)
		n += (size_t)snprintf(t + n, cap - n, "f%d(%d)", i, i);
	snprintf(t + n, cap - n, "fd(3)count(12)\n" EV("EXIT", 31, "write)ret(12)"));
	if (!general) {
		free(o);
		return t;
	}
	size_t k = 0;
	for (const char *c = t, *ls = t; *c; c++) {
		if (*c == '\n') {
			if (strncmp(ls, "header", 6))
				k += (size_t)sprintf(o + k, " zz (0)");
			ls = c + 1;
		}
		o[k++] = *c;
	}
	o[k] = '\0';
	free(t);
	return o;
}

static void test_fast_and_general_agree(void **st)
{
	(void)st;
	struct trace_input in[2];
	struct rerr e[2];
	struct rec *a = NULL;
	size_t na = 0;
	for (int g = 0; g < 2; g++) {
		char *text = fp_text(g), *dir;
		int rc = parse_text(text, true, &in[g], &e[g], &dir);
		fb_rmdir(dir);
		free(text);
		if (rc)
			fail_msg("parse (%s): %s", g ? "general" : "fast", e[g].msg);
		if (!g) {
			na = fb_nrec;
			a = malloc(na * sizeof(*a));
			assert_non_null(a);
			memcpy(a, fb_recs, na * sizeof(*a));
		}
	}
	assert_int_equal(fb_nrec, na);
	assert_int_equal(in[0].bad_lines, in[1].bad_lines);
	assert_int_equal(in[0].bad_lines, 6);
	assert_non_null(strstr(in[0].first_bad, "t.sanitized:12: expected 'time:"));
	assert_string_equal(strstr(in[0].first_bad, "t.sanitized:"), strstr(in[1].first_bad, "t.sanitized:"));
	assert_string_equal(in[0].note, in[1].note);
	for (size_t i = 0; i < na; i++) {
		const struct sc_event *x = &a[i].ev, *y = &fb_recs[i].ev;
		if (x->line != y->line || x->pid != y->pid || x->ts_ns != y->ts_ns || x->dur_ns != y->dur_ns ||
		    x->call != y->call || strcmp(a[i].name, fb_recs[i].name) || x->fd != y->fd ||
		    x->fd2 != y->fd2 || !x->path != !y->path || (x->path && strcmp(a[i].path, fb_recs[i].path)) ||
		    !x->path2 != !y->path2 || (x->path2 && strcmp(a[i].path2, fb_recs[i].path2)) ||
		    x->flags != y->flags || x->mode != y->mode || x->offset != y->offset ||
		    x->whence != y->whence || x->len != y->len || x->iovcnt != y->iovcnt || x->ret != y->ret ||
		    x->async_id != y->async_id)
			fail_msg("event %zu (line %lu, %s) differs between the fast and general readers", i,
				 x->line, a[i].name);
	}
	/* and what they agree on is right */
	const int64_t p = fb_ranks[0].pid;
	const struct sc_event *w = fb_nth(p, SC_AWRITE, 0);
	assert_int_equal(w->len, 30);
	assert_int_equal(w->iovcnt, 2);
	const struct sc_event *wv = fb_nth(p, SC_WRITE, 0);
	/* 010 is 8 (strtoll's octal), 0, 7 (the iov_len after a len is not
	 * counted: the k-th len, else the k-th iov_len), 5 (x(y) nested), 4
	 * (BASE), 3 (a blank), 12345678901234567 */
	assert_int_equal(wv->len, 8 + 0 + 7 + 5 + 4 + 3 + 12345678901234567ull);
	assert_int_equal(wv->iovcnt, 7);
	/* time:(0777) is 511 us; time:(0999999) is no number (a bad line) */
	const struct sc_event *cl = fb_nth(p, SC_CLOSE, 0);
	assert_int_equal(cl->ts_ns, 100ull * 1000000000ull + 511000ull);
	assert_int_equal(cl->dur_ns, 999999000ull - 511000ull);
	/* fsync: 1000 s, 100 s (its EXIT at 10 s: no duration), 0100 (octal:
	 * 64 s, after 1000 s: fed at 1000 s), 1001 s */
	assert_int_equal(fb_count(p, SC_FSYNC), 4);
	assert_int_equal(fb_nth(p, SC_FSYNC, 0)->dur_ns, 1000);
	assert_int_equal(fb_nth(p, SC_FSYNC, 1)->dur_ns, 0);
	assert_int_equal(fb_nth(p, SC_FSYNC, 2)->dur_ns, 1000);
	assert_int_equal(fb_nth(p, SC_FSYNC, 3)->ts_ns, 1001ull * 1000000000ull + 11000ull);
	assert_int_equal(fb_nth(p, SC_LSEEK, 0)->offset, (1LL << 32) + 16);
	assert_int_equal(fb_nth(p, SC_WRITE, 1)->offset, 0x20);
	assert_int_equal(fb_nth(p, SC_READ, 0)->len, 7);
	const struct sc_event *wr = fb_nth(p, SC_WRITE, 2);
	assert_int_equal(wr->len, 12);
	assert_int_equal(wr->fd, 3);
	free(a);
}

/* Two files, the same process in both: one rank. */
/* Field names in any case, names longer than 8 bytes that differ only
 * after the 8th (offset_hXgh is not offset_high), hex and octal values. */
static void test_field_names(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	char *f = fb_parse_text(&trace_sandia, dir, "names.sanitized",
				"header app(x)nprocs(1)rank(0)headernode(7.42)\n"
				"tracetype(ENTER)time:(100)time:(1)str(open)PATH(/d/f)FLAGS(66)Mode(0644)\n"
				"tracetype(EXIT)time:(100)time:(2)str(open)RET(3)\n"
				"tracetype(ENTER)time:(100)time:(3)str(lseek)Fd(3)OFFSET_HIGH(1)offset_LOW(16)whence(SEEK_CUR)\n"
				"TraceType(Exit)time:(100)time:(4)str(lseek)ret(4294967312)\n"
				"tracetype(ENTER)time:(100)time:(5)str(lseek)fd(3)offset_hXgh(1)offset_low(16)offset(99)whence(0)\n"
				"tracetype(EXIT)time:(100)time:(6)str(lseek)ret(99)\n"
				"tracetype(ENTER)time:(100)time:(7)str(pwrite)fd(3)size(0x10)position(0x20)\n"
				"tracetype(EXIT)time:(100)time:(8)str(pwrite)NBYTES(16)\n");
	const int64_t r = 7000042;
	const struct sc_event *o = fb_nth(r, SC_OPEN, 0);
	assert_string_equal(o->path, "/d/f");
	assert_int_equal(o->flags, 66);
	assert_int_equal(o->mode, 0644);
	assert_int_equal(o->ret, 3);
	const struct sc_event *l0 = fb_nth(r, SC_LSEEK, 0), *l1 = fb_nth(r, SC_LSEEK, 1);
	assert_int_equal(l0->offset, (1LL << 32) + 16);
	assert_int_equal(l0->whence, 1);
	assert_int_equal(l1->offset, 99);
	const struct sc_event *w = fb_nth(r, SC_WRITE, 0);
	assert_int_equal(w->len, 16);
	assert_int_equal(w->offset, 32);
	assert_int_equal(w->ret, 16);
	free(f);
	fb_rmdir(dir);
}

static void test_sections_across_files(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	char *files[] = {
		fb_write(dir, "a.sanitized", "header headernode(7.70)\n" EV("ENTER", 1, "close)fd(3)") EV("EXIT", 2, "close)ret(0)")
			"header headernode(8.80)\n" EV("ENTER", 1, "close)fd(4)") EV("EXIT", 2, "close)ret(0)")),
		fb_write(dir, "b.sanitized", "header headernode(7.70)\n" EV("ENTER", 3, "close)fd(5)") EV("EXIT", 4, "close)ret(0)")),
	};
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_sandia, files, 2, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_nranks, 2);
	assert_string_equal(fb_ranks[0].name, "7.70");
	assert_string_equal(fb_ranks[1].name, "8.80");
	assert_int_equal(fb_count(fb_ranks[0].pid, SC_CLOSE), 2);
	assert_int_equal(fb_count(fb_ranks[1].pid, SC_CLOSE), 1);
	free(files[0]);
	free(files[1]);
	fb_rmdir(dir);
}

/* One file, two sections of one process: a trace put after itself
 * (cat t t), whose calls were read twice with its time going back; an
 * error at the second header, naming the first.  Sections of several
 * processes in a file, and one process's sections in two files (above),
 * are read. */
static void test_section_twice_in_file(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	const char *t = "header app(x)nprocs(2)rank(0)headernode(7.70)\n"
		EV("ENTER", 1, "close)fd(3)") EV("EXIT", 2, "close)ret(0)")
		"header app(x)nprocs(2)rank(1)headernode(8.80)\n"
		EV("ENTER", 1, "close)fd(4)") EV("EXIT", 2, "close)ret(0)");
	char twice[1024];
	snprintf(twice, sizeof(twice), "%s%s", t, t);
	char *one[] = { fb_write(dir, "t.sanitized", t) }, *two[] = { fb_write(dir, "tt.sanitized", twice) };
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_sandia, one, 1, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(fb_nranks, 2);
	rc = fb_parse(&trace_sandia, two, 1, false, &in, &e);
	assert_int_equal(rc, -EINVAL);
	char want[1024];
	snprintf(want, sizeof(want), "%s:7: a second header section for headernode(7.70) in this file"
		 " (the first at line 1): a trace file holds one section per process, so the file"
		 " looks like traces put together (cat A A?); give each trace once", two[0]);
	if (!strstr(e.msg, want))
		fail_msg("expected '%s' in '%s'", want, e.msg);
	/* --skip-bad does not make it a bad line to leave out */
	rc = fb_parse(&trace_sandia, two, 1, true, &in, &e);
	assert_int_equal(rc, -EINVAL);
	free(one[0]);
	free(two[0]);
	fb_rmdir(dir);
}

/* A README sorting first among a directory's .sanitized files is left
 * out and named; a file that is Sandia but has a bad line still fails at
 * FILE:LINE (audit D, F2). */
static void test_readme_beside(void **st)
{
	(void)st;
	char *dir = fb_tmpdir();
	char *files[] = {
		fb_write(dir, "README", "CTH traces from Red Storm\n\nsee notes\n"),
		fb_write(dir, "a.sanitized", "header headernode(7.70)\n" EV("ENTER", 1, "close)fd(3)") EV("EXIT", 2, "close)ret(0)")),
	};
	struct trace_input in;
	struct rerr e;
	int rc = fb_parse(&trace_sandia, files, 2, false, &in, &e);
	if (rc)
		fail_msg("parse: %s", e.msg);
	assert_int_equal(in.nfiles, 1);
	assert_int_equal(in.skipped_files, 1);
	assert_non_null(strstr(in.skipped_names, "/README"));
	assert_int_equal(fb_count(fb_ranks[0].pid, SC_CLOSE), 1);
	/* files[] was reordered: the trace first */
	char *bad = fb_write(dir, "b.sanitized", "header headernode(8.80)\nbogus(\n");
	char *files2[] = { files[0], files[1], bad };
	rc = fb_parse(&trace_sandia, files2, 3, false, &in, &e);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(e.msg, "b.sanitized:2: "));
	/* nothing but non-trace files: said so */
	char *notes = fb_write(dir, "notes.txt", "nothing\n");
	char *readme = fb_write(dir, "README.2", "no trace here\n");
	char *files3[] = { readme, notes };
	rc = fb_parse(&trace_sandia, files3, 2, false, &in, &e);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(e.msg, "expected Sandia libsysio"));
	free(files[0]);
	free(files[1]);
	free(bad);
	free(notes);
	free(readme);
	fb_rmdir(dir);
}

/* What the lookups must give whatever the order of a line's fields: a
 * list's first name wins (rv before cc, length before size), an I/O id in
 * hex with blanks around it, a ziovec after a value nested deeper than 16,
 * extents of the usual and other shapes, and call names that differ only
 * after their 16th byte. */
static void test_lookup_order(void **st)
{
	(void)st;
	struct trace_input in;
	struct rerr e;
	char *dir;
	int rc = parse_text(HDR
			    EV("ENTER", 1, "iwritev)fd(3)deep((((((((((((((((((((x))))))))))))))))))))"
			       "ziovec(base(0x1)len(100))")
			    EV("EXIT", 2, "iwritev)ioid( 0x10 )")
			    EV("ENTER", 3, "iowait)ioid(0x10)")
			    EV("EXIT", 4, "iowait)cc(90)rv(70)")
			    EV("ENTER", 5, "ftruncate)fd(3)size(5)length(9)")
			    EV("EXIT", 6, "ftruncate)ret(0)")
			    EV("ENTER", 7, "ireadx)fd(3)ziovec(base(0x1)len(8))xtvec(off(4096)len(8))"
			       "xtvec(LEN(4)OFF(16))xtvec(off(1)len(2)x(3))")
			    EV("EXIT", 8, "ireadx)ioid(0x11)")
			    EV("ENTER", 9, "abcdefghijklmnopq)")
			    EV("EXIT", 10, "abcdefghijklmnopz)")
			    EV("ENTER", 11, "abcdefghijklmnopqr)")
			    EV("EXIT", 12, "abcdefghijklmnopqr)"),
			    true, &in, &e, &dir);
	fb_rmdir(dir);
	if (rc)
		fail_msg("parse: %s", e.msg);
	const int64_t r = 1000002;
	const struct sc_event *w = fb_nth(r, SC_AWRITE, 0), *a = fb_nth(r, SC_AWAIT, 0);
	assert_int_equal(w->len, 100);
	assert_int_equal(a->async_id, w->async_id);
	assert_int_equal(a->ret, 70);
	assert_int_equal(fb_nth(r, SC_FTRUNCATE, 0)->len, 9);
	assert_int_equal(fb_count(r, SC_AREAD), 3);
	assert_int_equal(fb_nth(r, SC_AREAD, 0)->offset, 4096);
	assert_int_equal(fb_nth(r, SC_AREAD, 1)->offset, 16);
	assert_int_equal(fb_nth(r, SC_AREAD, 1)->len, 4);
	assert_int_equal(fb_nth(r, SC_AREAD, 2)->offset, 1);
	/* the EXIT of ...z and the ENTER of ...q left without one: 2 bad;
	 * the ...qr pair a skipped call */
	assert_int_equal(in.bad_lines, 2);
	assert_int_equal(fb_count(r, SC_SKIP), 1);
}

/* fp_ioid's lines (ioid(0xHEX) alone or with cc(N) after the call's name)
 * and those next to them that must go the general way: ids of 1 to 7 hex
 * digits (one step) and more (byte by byte), in either case of letter;
 * 0X, a cc() with a leading 0 or other fields after it; an iowait pair
 * whose ENTER has more than the id; a call of that shape that is no
 * iowait. */
static void test_ioid_shapes(void **st)
{
	(void)st;
	struct trace_input in;
	struct rerr e;
	char *dir;
	int rc = parse_text(HDR
			    EV("ENTER", 1, "iwritev)fd(3)ziovec(base(0x1)len(100))")
			    EV("EXIT", 2, "iwritev)ioid(0xaB1)")
			    EV("ENTER", 3, "ireadv)fd(3)ziovec(base(0x1)len(50))")
			    EV("EXIT", 4, "ireadv)ioid(0x123456789)")
			    EV("ENTER", 5, "iwritev)fd(3)ziovec(base(0x1)len(40))")
			    EV("EXIT", 6, "iwritev)ioid(0X7)")
			    EV("ENTER", 7, "iwritev)fd(3)ziovec(base(0x1)len(30))")
			    EV("EXIT", 8, "iwritev)ioid(0xfEdCbA9)")
			    /* out of order, by id: 0x123456789 first */
			    EV("ENTER", 9, "iowait)ioid(0x123456789)")
			    EV("EXIT", 10, "iowait)ioid(0x123456789)cc(45)")
			    EV("ENTER", 11, "iowait)ioid(0xab1)")
			    EV("EXIT", 12, "iowait)ioid(0xAB1)cc(60)")
			    EV("ENTER", 13, "iowait)ioid(0x7)")
			    EV("EXIT", 14, "iowait)ioid(0x7)cc(010)")
			    EV("ENTER", 15, "iowait)ioid(0xfedcba9)fd(3)")
			    EV("EXIT", 16, "iowait)ioid(0xfedcba9)cc(20)rv(25)")
			    EV("ENTER", 17, "frob)ioid(0x1)")
			    EV("EXIT", 18, "frob)ioid(0x1)cc(3)")
			    EV("ENTER", 19, "frob)ioid(0x1)")
			    EV("EXIT", 20, "frob)ioid(0x1)")
			    EV("ENTER", 21, "ifsync)fd(3)")
			    EV("EXIT", 22, "ifsync)ioid(0x20)")
			    EV("ENTER", 23, "iowait)ioid(0x21)")
			    EV("EXIT", 24, "iowait)ioid(0x21)cc(0)"),
			    true, &in, &e, &dir);
	fb_rmdir(dir);
	if (rc)
		fail_msg("parse: %s", e.msg);
	const int64_t r = 1000002;
	const struct sc_event *w0 = fb_nth(r, SC_AWRITE, 0), *rd = fb_nth(r, SC_AREAD, 0);
	const struct sc_event *w1 = fb_nth(r, SC_AWRITE, 1), *w2 = fb_nth(r, SC_AWRITE, 2);
	assert_int_equal(fb_count(r, SC_AWAIT), 4);
	const struct sc_event *a0 = fb_nth(r, SC_AWAIT, 0), *a1 = fb_nth(r, SC_AWAIT, 1);
	const struct sc_event *a2 = fb_nth(r, SC_AWAIT, 2), *a3 = fb_nth(r, SC_AWAIT, 3);
	assert_int_equal(a0->async_id, rd->async_id);
	assert_int_equal(a0->ret, 45);
	assert_int_equal(a0->line, 10);          /* its ENTER's */
	assert_int_equal(a0->ts_ns, 100ull * 1000000000ull + 9000ull);
	assert_int_equal(a0->dur_ns, 1000);
	assert_int_equal(a1->async_id, w0->async_id);
	assert_int_equal(a1->ret, 60);
	assert_int_equal(a2->async_id, w1->async_id);
	assert_int_equal(a2->ret, 8);           /* 010: octal, the general way */
	assert_int_equal(a3->async_id, w2->async_id);
	assert_int_equal(a3->ret, 25);          /* rv() before cc() */
	/* frob: skipped with cc() as its result, then with none */
	assert_int_equal(fb_count(r, SC_SKIP), 2);
	assert_int_equal(fb_nth(r, SC_SKIP, 0)->ret, 3);
	assert_true(fb_nth(r, SC_SKIP, 1)->ret == SC_RET_UNKNOWN);
	/* ifsync's id is 0x20: the iowait of 0x21 has no submit */
	assert_int_equal(fb_count(r, SC_FSYNC), 1);
	assert_int_equal(in.bad_lines, 1);
	assert_non_null(strstr(in.first_bad, "t.sanitized:24: iowait without a pending submit"));
}

/* fp_fdiov's lines (fd(N), ziovecs, xtvecs after the call's name) and
 * those next to them that must go the general way: an fd of 010, another
 * iovec name, an offset after the iovecs, more fields than the set has
 * room for, and an EXIT of that shape (it carries no I/O id). */
static void test_fdiov_shapes(void **st)
{
	(void)st;
	struct trace_input in;
	struct rerr e;
	char *dir;
	char many[2048];
	size_t n = (size_t)snprintf(many, sizeof(many), EV("ENTER", 13, "iwritev)fd(3)"));
	many[--n] = '\0';
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "ziovec(base(0x%x)len(1))", i);
	snprintf(many + n, sizeof(many) - n, "\n");
	char text[8192];
	snprintf(text, sizeof(text), "%s%s%s%s", HDR
		 EV("ENTER", 1, "iwritev)fd(3)ziovec(base(0x1)len(100))ziovec(base(a b)len(50))")
		 EV("EXIT", 2, "iwritev)ioid(0x10)")
		 EV("ENTER", 3, "ireadx)fd(4)ziovec(base(0x1)len(8))xtvec(off(4096)len(8))"
		    "xtvec(off(16)len(4))")
		 EV("EXIT", 4, "ireadx)ioid(0x11)")
		 EV("ENTER", 5, "iwritev)fd(010)ziovec(base(0x1)len(9))")
		 EV("EXIT", 6, "iwritev)fd(3)ziovec(base(0x1)len(10))")
		 EV("ENTER", 7, "writev)fd(5)ziovec(base(0x1)len(7))iovec(base(0x1)len(3))")
		 EV("EXIT", 8, "writev)ret(10)")
		 EV("ENTER", 9, "pwritev)fd(5)ziovec(base(0x1)len(7))offset(9)")
		 EV("EXIT", 10, "pwritev)ret(7)")
		 EV("ENTER", 11, "readv)fd(6)ziovec(base(0x1)len(12))")
		 EV("EXIT", 12, "readv)ret(12)"),
		 many, EV("EXIT", 14, "iwritev)ioid(0x12)"),
		 EV("ENTER", 15, "iowait)ioid(0x10)") EV("EXIT", 16, "iowait)ioid(0x10)cc(150)")
		 EV("ENTER", 17, "iowait)ioid(0x77)") EV("EXIT", 18, "iowait)ioid(0x77)cc(9)"));
	int rc = parse_text(text, false, &in, &e, &dir);
	fb_rmdir(dir);
	if (rc)
		fail_msg("parse: %s", e.msg);
	const int64_t r = 1000002;
	const struct sc_event *w0 = fb_nth(r, SC_AWRITE, 0), *w1 = fb_nth(r, SC_AWRITE, 1);
	const struct sc_event *w2 = fb_nth(r, SC_AWRITE, 2);
	assert_int_equal(fb_count(r, SC_AWRITE), 3);
	assert_int_equal(w0->fd, 3);
	assert_int_equal(w0->len, 150);
	assert_int_equal(w0->iovcnt, 2);
	assert_int_equal(w0->offset, SC_NOOFF);
	assert_int_equal(fb_count(r, SC_AREAD), 2);
	const struct sc_event *x0 = fb_nth(r, SC_AREAD, 0), *x1 = fb_nth(r, SC_AREAD, 1);
	assert_int_equal(x0->fd, 4);
	assert_int_equal(x0->offset, 4096);
	assert_int_equal(x0->len, 8);
	assert_int_equal(x1->offset, 16);
	assert_int_equal(x1->len, 4);
	assert_int_equal(w1->fd, 8);            /* 010: octal, the general way */
	assert_int_equal(w1->len, 9);
	assert_int_equal(w2->fd, 3);
	assert_int_equal(w2->len, 40);
	assert_int_equal(w2->iovcnt, 40);
	const struct sc_event *wv = fb_nth(r, SC_WRITE, 0), *pw = fb_nth(r, SC_WRITE, 1);
	assert_int_equal(wv->len, 10);
	assert_int_equal(wv->iovcnt, 2);
	assert_int_equal(pw->len, 7);
	assert_int_equal(pw->offset, 9);
	const struct sc_event *rv = fb_nth(r, SC_READ, 0);
	assert_int_equal(rv->fd, 6);
	assert_int_equal(rv->len, 12);
	assert_int_equal(rv->iovcnt, 1);
	/* the EXIT without an id left the submit's id unknown: the wait of
	 * 0x77 takes it (0x11, before it, is no match) */
	assert_int_equal(fb_count(r, SC_AWAIT), 2);
	assert_int_equal(fb_nth(r, SC_AWAIT, 0)->async_id, w0->async_id);
	assert_int_equal(fb_nth(r, SC_AWAIT, 0)->ret, 150);
	assert_int_equal(fb_nth(r, SC_AWAIT, 1)->async_id, w1->async_id);
	assert_int_equal(fb_nth(r, SC_AWAIT, 1)->ret, 9);
	assert_int_equal(in.bad_lines, 0);
}

/* fp_fdiov's lseek lines (fd(N)offset(N)whence(N)) and those next to
 * them that must go the general way: an offset or whence of 010, a whence
 * by name, offset_high()/offset_low() after them, an errno on the EXIT;
 * llseek's untraced result; other calls of that shape. */
static void test_fdseek_shapes(void **st)
{
	(void)st;
	struct trace_input in;
	struct rerr e;
	char *dir;
	int rc = parse_text(HDR
			    EV("ENTER", 1, "lseek)fd(3)offset(4096)whence(0)") EV("EXIT", 2, "lseek)ret(4096)")
			    EV("ENTER", 3, "llseek)fd(3)offset(16)whence(1)") EV("EXIT", 4, "llseek)ret(0)")
			    EV("ENTER", 5, "lseek)fd(3)offset(010)whence(2)") EV("EXIT", 6, "lseek)ret(8)")
			    EV("ENTER", 7, "lseek)fd(4)offset(5)whence(SEEK_CUR)") EV("EXIT", 8, "lseek)ret(9)")
			    EV("ENTER", 9, "lseek)fd(4)offset(7)whence(0)offset_high(1)offset_low(16)")
			    EV("EXIT", 10, "lseek)ret(0)")
			    EV("ENTER", 11, "lseek)fd(3)offset(7)whence(1)") EV("EXIT", 12, "lseek)ret(-1)errno(22)")
			    EV("ENTER", 13, "frob)fd(5)offset(1)whence(0)") EV("EXIT", 14, "frob)ret(0)")
			    EV("ENTER", 15, "pwrite)fd(6)offset(9)whence(0)") EV("EXIT", 16, "pwrite)ret(0)")
			    EV("ENTER", 17, "lseek)fd(3)offset(7)whence(010)") EV("EXIT", 18, "lseek)ret(7)"),
			    false, &in, &e, &dir);
	fb_rmdir(dir);
	if (rc)
		fail_msg("parse: %s", e.msg);
	const int64_t r = 1000002;
	assert_int_equal(fb_count(r, SC_LSEEK), 7);
	const struct sc_event *l0 = fb_nth(r, SC_LSEEK, 0), *l1 = fb_nth(r, SC_LSEEK, 1);
	assert_int_equal(l0->fd, 3);
	assert_int_equal(l0->offset, 4096);
	assert_int_equal(l0->whence, 0);
	assert_int_equal(l0->ret, 4096);
	assert_int_equal(l1->offset, 16);
	assert_int_equal(l1->whence, 1);
	assert_true(l1->ret == SC_RET_UNKNOWN);
	assert_int_equal(fb_nth(r, SC_LSEEK, 2)->offset, 8);
	assert_int_equal(fb_nth(r, SC_LSEEK, 2)->whence, 2);
	assert_int_equal(fb_nth(r, SC_LSEEK, 3)->fd, 4);
	assert_int_equal(fb_nth(r, SC_LSEEK, 3)->whence, 1);
	assert_int_equal(fb_nth(r, SC_LSEEK, 4)->offset, (1LL << 32) + 16);
	assert_int_equal(fb_nth(r, SC_LSEEK, 5)->ret, -22);
	assert_int_equal(fb_nth(r, SC_LSEEK, 5)->whence, 1);
	assert_int_equal(fb_nth(r, SC_LSEEK, 6)->whence, 8);    /* 010: octal */
	assert_int_equal(fb_nth(r, SC_SKIP, 0)->fd, 5);
	const struct sc_event *w = fb_nth(r, SC_WRITE, 0);
	assert_int_equal(w->fd, 6);
	assert_int_equal(w->offset, 9);
	assert_int_equal(in.bad_lines, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_skip_bad),
		cmocka_unit_test(test_unknown_and_variants),
		cmocka_unit_test(test_field_names),
		cmocka_unit_test(test_sections_across_files),
		cmocka_unit_test(test_section_twice_in_file),
		cmocka_unit_test(test_readme_beside),
		cmocka_unit_test(test_fast_and_general_agree),
		cmocka_unit_test(test_lookup_order),
		cmocka_unit_test(test_ioid_shapes),
		cmocka_unit_test(test_fdiov_shapes),
		cmocka_unit_test(test_fdseek_shapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
