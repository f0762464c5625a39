/* test_gen.c - `replay gen`: determinism, the formulas, Table I ratios, the
 * output rules.  Every figure is recomputed here from the written text,
 * never taken from the generator's own summary. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/gen.h"

static char tmpdir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_gen.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static void rm_rf(const char *p)
{
	struct stat st;
	if (lstat(p, &st))
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(p);
		struct dirent *de;
		char q[1024];
		while (d && (de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			snprintf(q, sizeof(q), "%s/%s", p, de->d_name);
			rm_rf(q);
		}
		if (d)
			closedir(d);
		rmdir(p);
	} else {
		unlink(p);
	}
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(tmpdir);
	return 0;
}

static const char *tpath(const char *name)
{
	static char buf[8][512];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static struct gen_params P(const char *wl)
{
	return (struct gen_params){ .workload = wl, .scale = 1.0, .seed = 1 };
}

static void gen_ok(const struct gen_params *p, const char *path)
{
	struct gen_summary s;
	struct rerr e = { { 0 } };
	int rc = gen_write(p, path, false, &s, &e);
	if (rc)
		fail_msg("gen_write %s: %s", p->workload, e.msg);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Sorted names of the regular files in dir. */
static int list_dir(const char *dir, char names[][256], int max)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && n < max)
			snprintf(names[n++], 256, "%s", de->d_name);
	closedir(d);
	qsort(names, (size_t)n, 256, (int (*)(const void *, const void *))strcmp);
	return n;
}

/* ------------------------------------------------------------ determinism */

static int same_tree(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) || stat(b, &sb))
		return 0;
	if (S_ISDIR(sa.st_mode)) {
		static char na[128][256], nb[128][256];
		int n = list_dir(a, na, 128), m = list_dir(b, nb, 128);
		if (n != m)
			return 0;
		for (int i = 0; i < n; i++) {
			char pa[600], pb[600];
			if (strcmp(na[i], nb[i]))
				return 0;
			snprintf(pa, sizeof(pa), "%.300s/%.255s", a, na[i]);
			snprintf(pb, sizeof(pb), "%.300s/%.255s", b, nb[i]);
			if (!same_tree(pa, pb))
				return 0;
		}
		return 1;
	}
	size_t la, lb;
	char *x = slurp(a, &la), *y = slurp(b, &lb);
	int same = la == lb && !memcmp(x, y, la);
	free(x);
	free(y);
	return same;
}

static void test_determinism(void **state)
{
	(void)state;
	const char *wls[] = { "lanl-64k", "alegra", "writers-32", "zipf-reads" };
	for (size_t i = 0; i < sizeof(wls) / sizeof(wls[0]); i++) {
		struct gen_params p = P(wls[i]);
		p.ranks = 3;
		p.scale = 0.02;
		p.seed = 42;
		char a[64], b[64], c[64];
		snprintf(a, sizeof(a), "det-%zu-a", i);
		snprintf(b, sizeof(b), "det-%zu-b", i);
		snprintf(c, sizeof(c), "det-%zu-c", i);
		gen_ok(&p, tpath(a));
		gen_ok(&p, tpath(b));
		p.seed = 43;
		gen_ok(&p, tpath(c));
		assert_true(same_tree(tpath(a), tpath(b)));
		assert_false(same_tree(tpath(a), tpath(c)));
	}
}

/* ------------------------------------------------------------------- LANL */

struct lanl_count {
	uint64_t rbytes, wbytes, reads, writes;
	uint64_t woff[256], roff[256];      /* offsets of the lseeks before them */
	char open_arg[128];
	uint64_t calls[16];
	char names[16][32];
	int nnames;
	uint64_t table[16];                 /* summary table counts, by names[] */
	int unfinished, resumed;
};

static int name_idx(struct lanl_count *c, const char *n, size_t len)
{
	for (int i = 0; i < c->nnames; i++)
		if (strlen(c->names[i]) == len && !strncmp(c->names[i], n, len))
			return i;
	assert_true(c->nnames < 16);
	snprintf(c->names[c->nnames], 32, "%.*s", (int)len, n);
	return c->nnames++;
}

static void lanl_scan(const char *path, struct lanl_count *c)
{
	memset(c, 0, sizeof(*c));
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[1024];
	uint64_t last_seek = UINT64_MAX;
	int in_table = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "# SUMMARY", 9)) {
			in_table = 1;
			continue;
		}
		if (line[0] == '#')
			continue;
		if (in_table) {
			char nm[64];
			unsigned long long n;
			if (sscanf(line, " %63s %llu", nm, &n) == 2)
				c->table[name_idx(c, nm, strlen(nm))] = n;
			continue;
		}
		char *call = strchr(line, ' ');
		assert_non_null(call);
		call++;
		if (strstr(call, "<unfinished ...>"))
			c->unfinished++;
		if (!strncmp(call, "<... ", 5)) {
			c->resumed++;
			char *nm = call + 5, *sp = strchr(nm, ' ');
			c->calls[name_idx(c, nm, (size_t)(sp - nm))]++;
			continue;
		}
		char *par = strchr(call, '(');
		assert_non_null(par);
		if (!strstr(call, "<unfinished ...>"))
			c->calls[name_idx(c, call, (size_t)(par - call))]++;
		char *eq = strstr(call, ") = ");
		if (!eq)
			eq = strstr(call, ")  = ");
		unsigned long long ret = eq ? strtoull(strchr(eq, '=') + 1, NULL, 10) : 0;
		if (!strncmp(call, "SYS_lseek(3, ", 13)) {
			last_seek = strtoull(call + 13, NULL, 10);
		} else if (!strncmp(call, "SYS__llseek(3, ", 15)) {
			char *q;
			unsigned long long hi = strtoull(call + 15, &q, 10);
			unsigned long long lo = strtoull(q + 2, NULL, 0);
			last_seek = hi << 32 | lo;
		} else if (!strncmp(call, "SYS_write(3, ", 13)) {
			if (c->writes < 256)
				c->woff[c->writes] = last_seek;
			c->writes++;
			c->wbytes += ret;
		} else if (!strncmp(call, "SYS_read(3, ", 12)) {
			if (c->reads < 256)
				c->roff[c->reads] = last_seek;
			c->reads++;
			c->rbytes += ret;
		} else if (!strncmp(call, "SYS_open(", 9) && strncmp(call, "SYS_open(\"/etc", 14)) {
			snprintf(c->open_arg, sizeof(c->open_arg), "%.*s", (int)(strchr(call, ',') - call - 9), call + 9);
		}
	}
	fclose(f);
}

/* rank of each trace file, from the timing file's "Entered" lines */
static void lanl_dir(const char *dir, int nranks, char files[][256], int *rank_of_file)
{
	static char names[128][256];
	int n = list_dir(dir, names, 128);
	assert_int_equal(n, nranks + 1);
	assert_string_equal(names[n - 1], "timing");
	char tp[600];
	snprintf(tp, sizeof(tp), "%s/timing", dir);
	FILE *f = fopen(tp, "r");
	assert_non_null(f);
	char line[512];
	int entered = 0, exited = 0;
	for (int i = 0; i < nranks; i++) {
		snprintf(files[i], 256, "%.255s", names[i]);
		rank_of_file[i] = -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned r, pid;
		char host[64], what[16];
		if (sscanf(line, "%u: %63s (%u) %15s barrier at", &r, host, &pid, what) != 4)
			continue;
		if (!strcmp(what, "Entered"))
			entered++;
		else
			exited++;
		char want[256];
		snprintf(want, sizeof(want), "%s.%u.trace", host, pid);
		for (int i = 0; i < nranks; i++)
			if (!strcmp(files[i], want))
				rank_of_file[i] = (int)r;
	}
	fclose(f);
	assert_int_equal(entered, 2 * nranks);   /* barrier before and after */
	assert_int_equal(exited, 2 * nranks);
	for (int i = 0; i < nranks; i++)
		assert_true(rank_of_file[i] >= 0 && rank_of_file[i] < nranks);
}

static void check_lanl(const char *name, int strided, int nton, uint64_t nobj, uint64_t size,
		       uint64_t expect_rereads)
{
	const int N = 4;
	struct gen_params p = P(name);
	p.ranks = N;
	p.objects = nobj;
	p.strided = strided;
	p.n_to_n = nton;
	char out[64];
	snprintf(out, sizeof(out), "%s-%d%d-%" PRIu64, name, strided, nton, nobj);
	gen_ok(&p, tpath(out));
	static char files[8][256];
	int rank_of[8];
	lanl_dir(tpath(out), N, files, rank_of);
	char first_open[128] = "";
	for (int i = 0; i < N; i++) {
		char fp[700];
		struct lanl_count c;
		snprintf(fp, sizeof(fp), "%.400s/%.255s", tpath(out), files[i]);
		lanl_scan(fp, &c);
		uint64_t r = (uint64_t)rank_of[i];
		/* the formula: nobj objects written, read back (+ re-reads) */
		assert_int_equal(c.writes, nobj);
		assert_int_equal(c.wbytes, nobj * size);
		assert_int_equal(c.reads, nobj + expect_rereads);
		assert_int_equal(c.rbytes, (nobj + expect_rereads) * size);
		for (uint64_t k = 0; k < nobj && k < 256; k++) {
			uint64_t off = nton ? k * size : strided ? (k * N + r) * size : (r * nobj + k) * size;
			assert_int_equal(c.woff[k], off);
			assert_int_equal(c.roff[k], off);
		}
		/* the summary table counts what the file holds */
		for (int k = 0; k < c.nnames; k++)
			if (c.table[k] || c.calls[k])
				assert_int_equal(c.table[k], c.calls[k]);
		assert_true(c.unfinished >= 2);
		assert_int_equal(c.unfinished, c.resumed);
		/* N-to-N names are longer than 32 and print truncated, identical */
		if (nton) {
			assert_non_null(strstr(c.open_arg, "\"..."));
			assert_int_equal(strchr(c.open_arg + 1, '"') - c.open_arg - 1, 32);
		} else {
			assert_null(strstr(c.open_arg, "..."));
			assert_true(strlen(c.open_arg) - 2 < 32);
		}
		if (i == 0)
			snprintf(first_open, sizeof(first_open), "%s", c.open_arg);
		else
			assert_string_equal(first_open, c.open_arg);
	}
}

static void test_lanl_formulas(void **state)
{
	(void)state;
	check_lanl("lanl-64k", 0, 0, 8, 65536, 0);
	check_lanl("lanl-64k", 1, 0, 8, 65536, 0);
	check_lanl("lanl-64k", 0, 1, 8, 65536, 0);
	check_lanl("lanl-1024k", 0, 0, 5, 1048576, 0);
	/* 64 KiB with 50 objects: 50/25 = 2 objects re-read (Table I 0.51/0.49) */
	check_lanl("lanl-64k", 0, 0, 50, 65536, 2);
	assert_true(fabs(52.0 / 102.0 - 0.51) < 0.005);
}

static void test_lanl_large_offsets(void **state)
{
	(void)state;
	/* 4 ranks x 600 objects x 1 MiB: offsets beyond 2 GiB use SYS__llseek */
	struct gen_params p = P("lanl-1024k");
	p.ranks = 4;
	p.objects = 600;
	gen_ok(&p, tpath("lanl-big"));
	static char files[8][256];
	int rank_of[8];
	lanl_dir(tpath("lanl-big"), 4, files, rank_of);
	for (int i = 0; i < 4; i++) {
		char fp[700];
		struct lanl_count c;
		snprintf(fp, sizeof(fp), "%.400s/%.255s", tpath("lanl-big"), files[i]);
		lanl_scan(fp, &c);
		uint64_t r = (uint64_t)rank_of[i];
		assert_int_equal(c.wbytes, 600ull << 20);
		for (uint64_t k = 0; k < 256; k++)
			assert_int_equal(c.woff[k], (r * 600 + k) << 20);
	}
}

/* ----------------------------------------------------------------- Sandia */

struct sandia_count {
	unsigned sections;
	uint64_t rbytes, wbytes, reads, writes;
	uint64_t sizes_lt1k, sizes_ge1m, max_size;
	uint64_t seq, jumps;
};

static uint64_t field(const char *line, const char *name)
{
	const char *p = strstr(line, name);
	return p ? strtoull(p + strlen(name), NULL, 0) : UINT64_MAX;
}

static void sandia_scan(const char *path, struct sandia_count *c)
{
	memset(c, 0, sizeof(*c));
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[2048];
	/* ioid -> direction (1 read, 2 write) of the submit; ids are unique in
	 * a rank, a small ring is plenty */
	uint64_t ids[64] = { 0 };
	int dir[64] = { 0 };
	uint64_t lastend[16] = { 0 };
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "header", 6)) {
			assert_non_null(strstr(line, "headernode("));
			c->sections++;
			memset(lastend, 0, sizeof(lastend));
			continue;
		}
		assert_int_equal(strncmp(line, "tracetype(", 10), 0);
		int enter = !strncmp(line, "tracetype(ENTER)", 16);
		const char *str = strstr(line, "str(");
		assert_non_null(str);
		int rd = !strncmp(str, "str(ireadv)", 11) || !strncmp(str, "str(ireadx)", 11);
		int wr = !strncmp(str, "str(iwritev)", 12) || !strncmp(str, "str(iwritex)", 12);
		if ((rd || wr) && !enter) {
			uint64_t id = field(line, "ioid(");
			ids[id % 64] = id;
			dir[id % 64] = rd ? 1 : 2;
		}
		if (!strncmp(str, "str(iowait)", 11) && !enter) {
			uint64_t id = field(line, "ioid("), n = field(line, "cc(");
			assert_true(ids[id % 64] == id);
			if (dir[id % 64] == 1) {
				c->reads++;
				c->rbytes += n;
			} else {
				c->writes++;
				c->wbytes += n;
			}
			if (n < 1024)
				c->sizes_lt1k++;
			if (n >= 1048576)
				c->sizes_ge1m++;
			if (n > c->max_size)
				c->max_size = n;
		}
		if ((rd || wr) && enter && strstr(line, "xtvec(")) {
			uint64_t fd = field(line, "fd("), off = field(line, "off("), len = field(line, "xtvec(off(");
			(void)len;
			const char *l = strstr(line, "xtvec(");
			len = field(l, ")len(");
			if (off == lastend[fd % 16])
				c->seq++;
			else
				c->jumps++;
			lastend[fd % 16] = off + len;
		}
	}
	fclose(f);
}

static void test_sandia_ratios(void **state)
{
	(void)state;
	struct { const char *wl; double ratio; } t[] = { { "alegra", 0.14 }, { "cth", 0.67 }, { "s3d", 0.0 } };
	for (int i = 0; i < 3; i++) {
		struct gen_params p = P(t[i].wl);
		p.ranks = 3;
		p.scale = 0.1;
		gen_ok(&p, tpath(t[i].wl));
		struct sandia_count c;
		sandia_scan(tpath(t[i].wl), &c);
		assert_int_equal(c.sections, 3);
		double tot = (double)(c.rbytes + c.wbytes);
		assert_true(tot > 0);
		double rr = (double)c.rbytes / tot;
		if (fabs(rr - t[i].ratio) > 0.005)
			fail_msg("%s: read share %.4f, want %.2f", t[i].wl, rr, t[i].ratio);
		assert_true(c.max_size <= 2097152);
		if (t[i].ratio > 0) {
			/* irregular: sizes from under 1 KiB to over 1 MiB, and the
			 * explicit extents both continue and jump */
			assert_true(c.sizes_lt1k > 0);
			assert_true(c.sizes_ge1m > 0);
			assert_true(c.seq > 0 && c.jumps > 0);
		} else {
			/* S3D: write-only, 4 checkpoints at scale 1 -> here 1 (>= 1), 8 x 1 MiB each */
			assert_int_equal(c.reads, 0);
			assert_int_equal(c.rbytes, 0);
			assert_int_equal(c.wbytes, c.writes * 1048576);
			assert_int_equal(c.writes % 8, 0);
		}
	}
}

/* ----------------------------------------------------------------- strace */

struct strace_count {
	uint64_t lines, writes, wbytes, reads, rbytes;
	uint64_t unfinished, resumed, exited;
	int pids;
	int nonmono;
	int64_t pid[64];
};

static void strace_scan(const char *path, struct strace_count *c, uint64_t *offs, uint64_t noffs)
{
	memset(c, 0, sizeof(*c));
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[4096];
	char prev[32] = "";
	uint64_t no = 0;
	while (fgets(line, sizeof(line), f)) {
		long long pid;
		char ts[32];
		int used;
		assert_int_equal(sscanf(line, "%lld %31s %n", &pid, ts, &used), 2);
		c->lines++;
		if (strcmp(ts, prev) < 0)
			c->nonmono++;
		snprintf(prev, sizeof(prev), "%s", ts);
		int known = 0;
		for (int i = 0; i < c->pids; i++)
			known |= c->pid[i] == pid;
		if (!known && c->pids < 64)
			c->pid[c->pids++] = pid;
		const char *call = line + used;
		if (strstr(call, "<unfinished ...>"))
			c->unfinished++;
		if (!strncmp(call, "<... ", 5))
			c->resumed++;
		if (!strncmp(call, "+++ exited", 10))
			c->exited++;
		const char *eq = strrchr(call, '=');
		unsigned long long ret = eq && !strstr(call, "<unfinished") ? strtoull(eq + 1, NULL, 10) : 0;
		int w = !strncmp(call, "write(", 6) || !strncmp(call, "<... write resumed>", 19);
		int r = !strncmp(call, "read(", 5) || !strncmp(call, "pread64(", 8) ||
			!strncmp(call, "<... read resumed>", 18) || !strncmp(call, "<... pread64 resumed>", 21);
		if (strstr(call, "<unfinished"))
			continue;
		if (w) {
			c->writes++;
			c->wbytes += ret;
		}
		if (r) {
			c->reads++;
			c->rbytes += ret;
		}
		if (offs && !strncmp(call, "lseek(3, ", 9) && no < noffs)
			offs[no++] = strtoull(call + 9, NULL, 10);
		if (offs && r && strstr(call, "pread64") && no < noffs) {
			/* last argument before ')' */
			const char *cp = strstr(call, ") = ");
			const char *q = cp;
			while (q > call && q[-1] != ' ')
				q--;
			offs[no++] = strtoull(q, NULL, 10);
		}
	}
	fclose(f);
}

static void test_strace_workloads(void **state)
{
	(void)state;
	struct strace_count c;

	/* seq-writer: llround(65536 * scale) writes of 1 KiB */
	struct gen_params p = P("seq-writer");
	p.scale = 0.01;
	gen_ok(&p, tpath("seqw"));
	strace_scan(tpath("seqw"), &c, NULL, 0);
	assert_int_equal(c.writes, 655);
	assert_int_equal(c.wbytes, 655 * 1024);
	assert_int_equal(c.pids, 1);
	assert_int_equal(c.nonmono, 0);

	/* seek-chain: every entry 0..N read exactly once, N = 262144 * scale */
	p = P("seek-chain");
	p.scale = 0.01;
	gen_ok(&p, tpath("chain"));
	uint64_t n = 2621 + 1;
	uint64_t *offs = calloc(n + 10, sizeof(*offs));
	assert_non_null(offs);
	strace_scan(tpath("chain"), &c, offs, n + 10);
	assert_int_equal(c.reads, n);
	assert_int_equal(c.rbytes, n * 1024);
	char *seen = calloc(n, 1);
	assert_non_null(seen);
	assert_int_equal(offs[0], 0);
	for (uint64_t i = 0; i < n; i++) {
		assert_int_equal(offs[i] % 1024, 0);
		assert_true(offs[i] / 1024 < n);
		assert_false(seen[offs[i] / 1024]);
		seen[offs[i] / 1024] = 1;
	}
	free(seen);
	free(offs);

	/* writers-32 with 5 writers: each writes llround(64 * scale) files of
	 * 16 x 64 KiB; the parent is traced too */
	p = P("writers-32");
	p.ranks = 5;
	p.scale = 0.05;   /* 3 files each */
	gen_ok(&p, tpath("writers"));
	strace_scan(tpath("writers"), &c, NULL, 0);
	assert_int_equal(c.pids, 6);
	assert_int_equal(c.writes, 5 * 3 * 16);
	assert_int_equal(c.wbytes, 5ull * 3 * 1048576);
	assert_int_equal(c.unfinished, c.resumed);
	assert_true(c.unfinished > 0);   /* concurrent processes interleave */
	assert_int_equal(c.exited, 6);
	assert_int_equal(c.nonmono, 0);

	/* zipf-reads: 3 threads x llround(16384 * scale) reads of 1 KiB items
	 * of a file of llround(1048576 * scale) items, skewed */
	p = P("zipf-reads");
	p.ranks = 3;
	p.scale = 0.05;
	gen_ok(&p, tpath("zipf"));
	uint64_t nr = 3 * 819, items = 52429;
	offs = calloc(nr + 10, sizeof(*offs));
	assert_non_null(offs);
	strace_scan(tpath("zipf"), &c, offs, nr + 10);
	assert_int_equal(c.pids, 4);
	assert_int_equal(c.reads, nr);
	assert_int_equal(c.rbytes, nr * 1024);
	assert_int_equal(c.unfinished, c.resumed);
	assert_int_equal(c.nonmono, 0);
	uint32_t *hits = calloc(items, sizeof(*hits));
	assert_non_null(hits);
	uint32_t top = 0;
	for (uint64_t i = 0; i < nr; i++) {
		assert_int_equal(offs[i] % 1024, 0);
		assert_true(offs[i] / 1024 < items);
		if (++hits[offs[i] / 1024] > top)
			top = hits[offs[i] / 1024];
	}
	/* uniform would give ~1 hit per item; Zipf(0.99) puts > 5 % on the top one */
	assert_true(top * 100 > nr * 5);
	free(hits);
	free(offs);
}

/* ------------------------------------------------------- every workload */

static void test_every_workload(void **state)
{
	(void)state;
	size_t n;
	const struct gen_workload *w = gen_workloads(&n);
	assert_true(n >= 9);
	for (size_t i = 0; i < n; i++) {
		struct gen_params p = P(w[i].name);
		p.scale = 0.01;
		if (!w[i].fixed_ranks)
			p.ranks = 2;
		struct gen_summary s;
		struct rerr e = { { 0 } };
		char name[64];
		snprintf(name, sizeof(name), "all-%s", w[i].name);
		int rc = gen_write(&p, tpath(name), false, &s, &e);
		if (rc)
			fail_msg("%s: %s", w[i].name, e.msg);
		struct stat st;
		assert_int_equal(stat(tpath(name), &st), 0);
		assert_true(w[i].is_dir ? S_ISDIR(st.st_mode) : (S_ISREG(st.st_mode) && st.st_size > 0));
		assert_true(s.lines > 0);
		assert_true(s.bytes_read + s.bytes_written > 0);
	}
}

/* ---------------------------------------------------------- output rules */

static void test_output_rules(void **state)
{
	(void)state;
	struct gen_params p = P("s3d");
	p.ranks = 1;
	p.scale = 0.25;
	struct gen_summary s;
	struct rerr e = { { 0 } };
	gen_ok(&p, tpath("o-s3d"));
	/* refused without force, nothing changed */
	assert_int_equal(gen_write(&p, tpath("o-s3d"), false, &s, &e), -EEXIST);
	assert_non_null(strstr(e.msg, "--force"));
	/* replaced with force (another seed: other bytes) */
	size_t l1, l2;
	char *a = slurp(tpath("o-s3d"), &l1);
	p.seed = 99;
	assert_int_equal(gen_write(&p, tpath("o-s3d"), true, &s, &e), 0);
	char *b = slurp(tpath("o-s3d"), &l2);
	assert_false(l1 == l2 && !memcmp(a, b, l1));
	free(a);
	free(b);

	/* a directory that is not ours is never replaced, even with force */
	mkdir(tpath("o-mine"), 0755);
	FILE *f = fopen(tpath("o-mine/precious.txt"), "w");
	assert_non_null(f);
	fputs("keep\n", f);
	fclose(f);
	p = P("lanl-64k");
	p.ranks = 2;
	p.objects = 2;
	assert_int_equal(gen_write(&p, tpath("o-mine"), true, &s, &e), -EEXIST);
	assert_int_equal(access(tpath("o-mine/precious.txt"), F_OK), 0);
	/* our own previous output is replaced with force */
	gen_ok(&p, tpath("o-lanl"));
	p.objects = 3;
	assert_int_equal(gen_write(&p, tpath("o-lanl"), true, &s, &e), 0);
	assert_int_equal(s.bytes_written, 2 * 3 * 65536);

	/* nothing but the outputs in tmpdir: no temporaries left behind */
	static char names[64][256];
	int k = list_dir(tmpdir, names, 64);
	for (int i = 0; i < k; i++)
		assert_null(strstr(names[i], ".tmp"));

	/* a missing parent directory: an error, nothing created */
	p = P("cth");
	assert_true(gen_write(&p, tpath("no/such/dir/cth"), false, &s, &e) < 0);
	assert_non_null(strstr(e.msg, "No such file"));
}

static void test_bad_params(void **state)
{
	(void)state;
	struct rerr e;
	struct gen_params p = P("nope");
	assert_int_equal(gen_check(&p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "nope"));
	p = P("seq-writer");
	p.ranks = 2;
	assert_int_equal(gen_check(&p, &e), -EINVAL);
	p = P("lanl-64k");
	p.strided = p.n_to_n = true;
	assert_int_equal(gen_check(&p, &e), -EINVAL);
	p = P("alegra");
	p.objects = 3;
	assert_int_equal(gen_check(&p, &e), -EINVAL);
	p = P("cth");
	p.scale = 0;
	assert_int_equal(gen_check(&p, &e), -EINVAL);
	p = P("lanl-64k");
	p.object_size = 1ull << 31;
	assert_int_equal(gen_check(&p, &e), -EINVAL);
	p = P("lanl-64k");
	assert_int_equal(gen_check(&p, &e), 0);
	assert_non_null(gen_find("zipf-reads"));
	assert_null(gen_find("zipf"));
	/* objects from scale: 64 at scale 1, rereads objects / 25 */
	assert_int_equal(gen_lanl_objects(&p), 64);
	assert_int_equal(gen_lanl_rereads(&p), 2);
	p = P("lanl-1024k");
	assert_int_equal(gen_lanl_objects(&p), 16);
	assert_int_equal(gen_lanl_rereads(&p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_lanl_formulas),
		cmocka_unit_test(test_lanl_large_offsets),
		cmocka_unit_test(test_sandia_ratios),
		cmocka_unit_test(test_strace_workloads),
		cmocka_unit_test(test_every_workload),
		cmocka_unit_test(test_output_rules),
		cmocka_unit_test(test_bad_params),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
