/* test_compare.c - result loading, normalization, spread marks, pooled percentiles. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "report/compare.h"
#include "report/report.h"
#include "run/hist.h"

#define TMPDIR_TEMPLATE "/tmp/replay-test-compareXXXXXX"
#include "tmpdir_fixture.h"

#define RES TEST_DATA "/results/"

static void near(double got, double want, double tol)
{
	if (fabs(got - want) > tol) {
		print_error("got %.9g, want %.9g (+-%g)\n", got, want, tol);
		fail();
	}
}

/* hdd-all.json holds both configurations; ssd/ is a directory of results */
static void load_pair(struct compare *c)
{
	struct rerr e = { "" };
	compare_init(c);
	assert_int_equal(compare_add(c, RES "hdd-all.json", NULL, &e), 0);
	assert_int_equal(compare_add(c, RES "ssd", NULL, &e), 0);
	assert_int_equal(compare_build(c, &e), 0);
}

static void test_rows_and_normalization(void **state)
{
	(void)state;
	struct compare c;
	load_pair(&c);
	assert_int_equal(c.nsets, 2);
	assert_string_equal(c.sets[0].label, "hdd-all");
	assert_string_equal(c.sets[1].label, "ssd");
	assert_string_equal(c.sets[0].fstype, "ext4");
	assert_string_equal(c.sets[1].device, "/dev/nvme0n1");
	assert_int_equal(c.nrows, 2);

	/* sorted: sequential before parallel */
	const struct cmp_row *seq = &c.rows[0], *par = &c.rows[1];
	assert_string_equal(seq->trace, "s3d.strace");
	assert_string_equal(seq->mode, "sequential");
	assert_int_equal(seq->procs, 3);
	assert_string_equal(par->mode, "parallel");
	assert_int_equal(par->procs, 2);

	/* hdd sequential runs 2.2e9 1.9e9 2.0e9: median 2.0e9 */
	const struct cmp_config *b = seq->cell[0], *s = seq->cell[1];
	assert_non_null(b);
	assert_non_null(s);
	assert_int_equal(b->nruns, 3);
	assert_int_equal(b->ncomplete, 3);
	near(b->median, 2.0e9, 0.5);
	near(b->min, 1.9e9, 0.5);
	near(b->max, 2.2e9, 0.5);
	/* ssd: 1.0e9 / 2.0e9 = 0.50, ranges 0.9-1.1 vs 1.9-2.2 do not overlap */
	near(s->median / b->median, 0.50, 1e-12);
	near(s->min / b->median, 0.45, 1e-12);
	near(s->max / b->median, 0.55, 1e-12);
	assert_false(cmp_within_spread(b, s));

	/* parallel: 3.0e9 / 3.1e9 = 0.9677; 2.9-3.2 overlaps 3.0-3.3 */
	near(par->cell[1]->median / par->cell[0]->median, 3.0 / 3.1, 1e-12);
	assert_true(cmp_within_spread(par->cell[0], par->cell[1]));
	compare_release(&c);
}

/* noinline: once inlined, gcc 12 -O2 takes the memstream's result for a
 * pointer to the local that held it (-Wdangling-pointer) */
static __attribute__((noinline)) char *print_to_string(const struct compare *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(compare_print(c, f, CMP_TEXT), 0);
	fclose(f);
	return buf;
}

/* the line of the table that starts with trace + mode */
static const char *line_with(const char *text, const char *needle, char *out, size_t n)
{
	const char *p = strstr(text, needle);
	assert_non_null(p);
	const char *end = strchr(p, '\n');
	size_t l = end ? (size_t)(end - p) : strlen(p);
	if (l >= n)
		l = n - 1;
	memcpy(out, p, l);
	out[l] = '\0';
	return out;
}

static void test_text_table(void **state)
{
	(void)state;
	struct compare c;
	char line[512];
	load_pair(&c);
	char *t = print_to_string(&c);

	line_with(t, "s3d.strace  sequential", line, sizeof(line));
	assert_non_null(strstr(line, "1.00 [0.95-1.10] 2.000 s"));
	assert_non_null(strstr(line, "0.50 [0.45-0.55]"));
	assert_null(strstr(line, "~"));

	line_with(t, "s3d.strace  parallel", line, sizeof(line));
	assert_non_null(strstr(line, "1.00 [0.97-1.06] 3.100 s"));
	assert_non_null(strstr(line, "0.97 [0.94-1.03] ~"));

	/* latency: write p50 200 us / p99 298 us on hdd, a quarter on ssd */
	line_with(t, "s3d.strace  sequential  3      write", line, sizeof(line));
	assert_non_null(strstr(line, "200.0 \xc2\xb5s"));
	assert_non_null(strstr(line, "298.0 \xc2\xb5s"));
	assert_non_null(strstr(line, "50.0 \xc2\xb5s"));
	assert_non_null(strstr(line, "74.5 \xc2\xb5s"));
	free(t);
	compare_release(&c);
}

static void test_json(void **state)
{
	(void)state;
	struct compare c;
	load_pair(&c);
	json_t *j = compare_json(&c);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "baseline")), "hdd-all");
	assert_int_equal(json_array_size(json_object_get(j, "sets")), 2);
	json_t *rows = json_object_get(j, "rows");
	assert_int_equal(json_array_size(rows), 2);

	json_t *r0 = json_array_get(rows, 0);
	assert_string_equal(json_string_value(json_object_get(r0, "mode")), "sequential");
	assert_int_equal(json_integer_value(json_object_get(r0, "processes")), 3);
	json_t *res = json_object_get(r0, "results");
	json_t *base = json_array_get(res, 0), *ssd = json_array_get(res, 1);
	assert_true(json_is_null(json_object_get(base, "within_spread")));
	near(json_real_value(json_object_get(json_object_get(base, "normalized"), "median")), 1.0, 1e-12);
	near(json_real_value(json_object_get(json_object_get(ssd, "normalized"), "median")), 0.5, 1e-12);
	near(json_real_value(json_object_get(json_object_get(ssd, "normalized"), "max")), 0.55, 1e-12);
	near(json_real_value(json_object_get(json_object_get(ssd, "completion_ns"), "median")), 1e9, 0.5);
	assert_true(json_is_false(json_object_get(ssd, "within_spread")));
	json_t *w = json_object_get(json_object_get(ssd, "lat_ns"), "write");
	assert_int_equal(json_integer_value(json_object_get(w, "N")), 3 * 3 * 400);
	near(json_real_value(json_object_get(w, "p50")), 50000, 1e-3);
	near(json_real_value(json_object_get(w, "p99")), 74500, 1e-3);

	json_t *r1 = json_array_get(rows, 1);
	ssd = json_array_get(json_object_get(r1, "results"), 1);
	assert_true(json_is_true(json_object_get(ssd, "within_spread")));
	json_decref(j);
	compare_release(&c);
}

/* parallel read: rank 0 spans 0.5-100 us, rank 1 200.5-300 us, same N:
 * pooled p50 = rank 0's op of rank 100 (its list says p99.5, the first
 * percentile of rank 100 of 100: 99.5 us), pooled p99 = rank 1's op of
 * rank 98 (not listed: 3 ops between p95 = 295 us and p99 = 299 us,
 * spread evenly on a log scale). */
static void test_pooled_percentiles_from_files(void **state)
{
	(void)state;
	struct compare c;
	load_pair(&c);
	const struct cmp_class *rd = &c.rows[1].cell[0]->cls[0];
	assert_int_equal(rd->n, 3 * 2 * 100);
	near(cmp_quantile(rd, 50), 99500, 0);
	near(cmp_quantile(rd, 99), 295000 * pow(299.0 / 295, 3.0 / 4), 1e-3);
	near(cmp_quantile(rd, 25), 50000, 1e-3);
	near(cmp_quantile(rd, 0), 500, 1e-9);
	near(cmp_quantile(rd, 100), 300000, 1e-9);
	compare_release(&c);
}

/* A job's points by hand: x[i] holds the ops of ranks lo[i]..hi[i]. */
static void set_points(struct cmp_jobcdf *j, double n, unsigned np, const double *x,
		       const double *lo, const double *hi)
{
	j->n = n;
	j->npts = np;
	for (unsigned i = 0; i < np; i++) {
		j->x[i] = x[i];
		j->clo[i] = lo[i];
		j->chi[i] = hi[i];
	}
	j->min = x[0];
	j->max = x[np - 1];
}

static void test_quantile_mixture(void **state)
{
	(void)state;
	struct cmp_jobcdf jobs[2];
	struct cmp_class k = { .n = 5, .njobs = 2, .jobs = jobs };

	/* every rank listed: ops 10, 20, 20 and 15, 25; pooled 10 15 20 20 25 */
	set_points(&jobs[0], 3, 2, (double[]){ 10, 20 }, (double[]){ 1, 2 }, (double[]){ 1, 3 });
	set_points(&jobs[1], 2, 2, (double[]){ 15, 25 }, (double[]){ 1, 2 }, (double[]){ 1, 2 });
	near(cmp_quantile(&k, 0), 10, 0);
	near(cmp_quantile(&k, 20), 10, 0);        /* rank 1 */
	near(cmp_quantile(&k, 40), 15, 0);        /* rank 2 */
	near(cmp_quantile(&k, 50), 20, 0);        /* rank 3 */
	near(cmp_quantile(&k, 80), 20, 0);        /* rank 4 */
	near(cmp_quantile(&k, 99), 25, 0);        /* rank 5 */
	near(cmp_quantile(&k, 100), 25, 0);

	/* ranks 2 and 3 not listed: evenly on a log scale between 100 and
	 * 10000, i.e. at 100 * 100^(1/3) and 100 * 100^(2/3) */
	struct cmp_jobcdf g;
	struct cmp_class one = { .n = 4, .njobs = 1, .jobs = &g };
	set_points(&g, 4, 2, (double[]){ 100, 10000 }, (double[]){ 1, 4 }, (double[]){ 1, 4 });
	near(cmp_quantile(&one, 25), 100, 0);
	near(cmp_quantile(&one, 50), 100 * pow(100, 1.0 / 3), 1e-6);
	near(cmp_quantile(&one, 75), 100 * pow(100, 2.0 / 3), 1e-6);
	near(cmp_quantile(&one, 75.1), 10000, 0);

	/* a point mass (min == every percentile == max) */
	struct cmp_jobcdf pm1;
	set_points(&pm1, 5, 1, (double[]){ 42 }, (double[]){ 1 }, (double[]){ 5 });
	struct cmp_class pm = { .n = 5, .njobs = 1, .jobs = &pm1 };
	near(cmp_quantile(&pm, 0), 42, 0);
	near(cmp_quantile(&pm, 50), 42, 0);
	near(cmp_quantile(&pm, 100), 42, 0);

	struct cmp_class empty = { 0 };
	near(cmp_quantile(&empty, 50), 0, 0);
}

/* ---- results written the way `replay run -o` writes them ------------- */

/* A heavy-tailed latency (ns) from a small LCG: mostly 5-12 us, a few
 * ops 50 us - 2 ms, so tail percentiles of small jobs tie at the max. */
static uint64_t lat_sample(uint64_t *seed, unsigned shape)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	uint64_t r = *seed >> 33;
	if (r % 97 < 3 + shape)
		return 50000 + r % (2000000 - 50000);
	return 5000 + (r % 7000) * (1 + shape) / 2;
}

/* Write a result: nruns runs of njobs jobs, job j of run r with n[j] read
 * ops made by lat_sample(), or (when vals) exactly vals[j][0..n[j]).
 * bins: json+'s lat_ns.bins in every job but job nobins_job (-1: all).
 * *all gets every op (the run summary's histogram). */
static void write_result(const char *path, unsigned nruns, unsigned njobs, const unsigned *n,
			 const uint64_t *const *vals, bool bins, int nobins_job, struct hist *all)
{
	json_t *runs = json_array();
	uint64_t seed = 7;
	hist_init(all);
	for (unsigned r = 0; r < nruns; r++) {
		json_t *jobs = json_array();
		for (unsigned j = 0; j < njobs; j++) {
			struct hist h;
			hist_init(&h);
			for (unsigned i = 0; i < n[j]; i++)
				hist_add(&h, vals ? vals[j][i] : lat_sample(&seed, j % 3));
			hist_merge(all, &h);
			json_t *cls = json_pack("{s:I,s:o}", "total_ios", (json_int_t)n[j], "lat_ns",
						report_lat_json(&h, LAT_PCT_ALWAYS,
								bins && (int)j != nobins_job));
			json_array_append_new(jobs, json_pack("{s:i,s:o}", "rank", (int)j, "read", cls));
		}
		json_array_append_new(runs, json_pack("{s:i,s:b,s:o}", "completion_ns", 1000 + r,
						      "incomplete", 0, "jobs", jobs));
	}
	json_t *root = json_pack("{s:{s:s,s:[s],s:i},s:o}", "options", "mode", "parallel", "trace",
				 "t", "processes", (int)njobs, "runs", runs);
	assert_int_equal(json_dump_file(root, path, 0), 0);
	json_decref(root);
}

static const struct cmp_class *load_read(struct compare *c, const char *path)
{
	struct rerr e = { "" };
	compare_init(c);
	assert_int_equal(compare_add(c, path, NULL, &e), 0);
	assert_int_equal(compare_build(c, &e), 0);
	return &c->rows[0].cell[0]->cls[0];
}

/* Without bins, one job gives back each of its own percentiles exactly,
 * ties in the tail included (p99 .. p99.99 all the max of 52 ops). */
static void test_single_job_exact(void **state)
{
	(void)state;
	static const unsigned sizes[] = { 1, 2, 7, 52, 300, 100000 };
	char path[300];
	snprintf(path, sizeof(path), "%s/one.json", dir);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct hist all;
		struct compare c;
		write_result(path, 1, 1, &sizes[s], NULL, false, -1, &all);
		const struct cmp_class *k = load_read(&c, path);
		assert_false(cmp_exact(k));
		for (int i = 0; i < HIST_NPCT; i++) {
			double want = (double)hist_percentile(&all, hist_pcts[i]);
			if (cmp_quantile(k, hist_pcts[i]) != want) {
				print_error("N %u p%g: ", sizes[s], hist_pcts[i]);
				near(cmp_quantile(k, hist_pcts[i]), want, 0);
			}
		}
		near(cmp_quantile(k, 0), (double)all.min, 0);
		near(cmp_quantile(k, 100), (double)all.max, 0);
		compare_release(&c);
	}
}

/* Without bins, jobs whose lists name every rank (N <= 10) pool exactly. */
static void test_every_rank_listed_exact(void **state)
{
	(void)state;
	static const unsigned n[] = { 3, 5, 7, 10 };
	uint64_t v[4][10];
	const uint64_t *vp[4];
	for (unsigned j = 0; j < 4; j++) {
		for (unsigned i = 0; i < n[j]; i++)   /* bucket middles: exact in a hist */
			v[j][i] = hist_bucket_mid(600 + (j * 37 + i * 53) % 300);
		vp[j] = v[j];
	}
	char path[300];
	snprintf(path, sizeof(path), "%s/ranks.json", dir);
	struct hist all;
	struct compare c;
	write_result(path, 1, 4, n, vp, false, -1, &all);
	const struct cmp_class *k = load_read(&c, path);
	assert_int_equal(k->n, 25);
	for (double p = 0.5; p <= 100; p += 0.5)
		if (cmp_quantile(k, p) != (double)hist_percentile(&all, p)) {
			print_error("p%g: ", p);
			near(cmp_quantile(k, p), (double)hist_percentile(&all, p), 0);
		}
	compare_release(&c);
}

/* json+: the jobs' bins pooled give the run summary's percentiles (the
 * histogram of every op of every run), at any p; one job without bins
 * makes the class approximate. */
static void test_bins_pool_exactly(void **state)
{
	(void)state;
	static const unsigned n[] = { 52, 52, 400, 3, 1000 };
	char path[300];
	snprintf(path, sizeof(path), "%s/bins.json", dir);
	struct hist all;
	struct compare c;
	write_result(path, 3, 5, n, NULL, true, -1, &all);
	const struct cmp_class *k = load_read(&c, path);
	assert_true(cmp_exact(k));
	assert_int_equal(k->n, all.n);
	for (int i = 0; i < HIST_NPCT; i++)
		near(cmp_quantile(k, hist_pcts[i]), (double)hist_percentile(&all, hist_pcts[i]), 0);
	near(cmp_quantile(k, 37.5), (double)hist_percentile(&all, 37.5), 0);
	near(cmp_quantile(k, 0), (double)all.min, 0);
	near(cmp_quantile(k, 100), (double)all.max, 0);
	compare_release(&c);

	write_result(path, 3, 5, n, NULL, true, 2, &all);
	k = load_read(&c, path);
	assert_false(cmp_exact(k));
	assert_int_equal(k->n, all.n);
	compare_release(&c);
}

/* Failed ops (--continue-on-error) and mismatches (--on-mismatch warn) of
 * the complete runs mark the result in text, JSON and HTML. */
static void test_failed_ops_marked(void **state)
{
	(void)state;
	char path[300], html[300];
	snprintf(path, sizeof(path), "%s/fail.json", dir);
	snprintf(html, sizeof(html), "%s/fail.html", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	const char *job = "{\"rank\":0,\"errors\":{\"ENOTEMPTY\":1,\"EIO\":2},"
			  "\"mismatches\":{\"total\":1}}";
	fprintf(f, "{\"options\":{\"mode\":\"parallel\",\"trace\":[\"t\"],\"processes\":1},"
		   "\"runs\":[{\"completion_ns\":1000,\"jobs\":[%s]},"
		   "{\"completion_ns\":1000,\"jobs\":[%s]},"
		   "{\"completion_ns\":9,\"incomplete\":true,\"jobs\":[%s]}]}\n", job, job, job);
	fclose(f);
	struct compare c;
	struct rerr e = { "" };
	compare_init(&c);
	assert_int_equal(compare_add(&c, RES "hdd-seq.json", NULL, &e), 0);
	assert_int_equal(compare_add(&c, path, NULL, &e), 0);
	assert_int_equal(compare_build(&c, &e), 0);
	char *t = print_to_string(&c);
	if (!strstr(t, "(6 failed ops, 2 mismatches)"))
		print_error("%s", t);
	assert_non_null(strstr(t, "(6 failed ops, 2 mismatches)"));
	assert_null(strstr(t, "s3d.strace  sequential  3  1.00 [0.95-1.10] 2.000 s ("));
	free(t);
	json_t *j = compare_json(&c);
	json_t *r = json_array_get(json_object_get(json_array_get(json_object_get(j, "rows"), 1),
						     "results"), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "failed_ops")), 6);
	assert_int_equal(json_integer_value(json_object_get(r, "mismatches")), 2);
	json_decref(j);
	compare_release(&c);
}

/* Sequential mode: each process's throughput samples start where the
 * processes before it ended (the page drew them all from 0, summed, as if
 * they had run at once); parallel mode: all from 0. */
static void test_timeline_sequential(void **state)
{
	(void)state;
	for (int seq = 1; seq >= 0; seq--) {
		char path[300];
		snprintf(path, sizeof(path), "%s/tl%d.json", dir, seq);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		const char *tl = "\"timeline\":{\"interval_ns\":1000000,\"bytes\":[100,200]}";
		fprintf(f, "{\"options\":{\"mode\":\"%s\",\"trace\":[\"t\"],\"processes\":3},"
			   "\"runs\":[{\"completion_ns\":9000000,\"jobs\":["
			   "{\"rank\":0,\"completion_ns\":2000000,%s},"
			   "{\"rank\":1,\"completion_ns\":3000000,%s},"
			   "{\"rank\":2,\"completion_ns\":2000000,%s}]}]}\n",
			seq ? "sequential" : "parallel", tl, tl, tl);
		fclose(f);
		struct compare c;
		struct rerr e = { "" };
		compare_init(&c);
		assert_int_equal(compare_add(&c, path, NULL, &e), 0);
		assert_int_equal(compare_build(&c, &e), 0);
		const struct cmp_config *g = c.rows[0].cell[0];
		assert_int_equal(g->ntl, 3);
		assert_int_equal(g->tl[0].shift, 0);
		assert_int_equal(g->tl[1].shift, seq ? 2 : 0);
		assert_int_equal(g->tl[2].shift, seq ? 5 : 0);
		compare_release(&c);
	}
}

static void test_incomplete_runs(void **state)
{
	(void)state;
	struct compare c;
	struct rerr e = { "" };
	compare_init(&c);
	assert_int_equal(compare_add(&c, RES "hdd-seq.json", NULL, &e), 0);
	assert_int_equal(compare_add(&c, RES "ssd-seq-incomplete.json", NULL, &e), 0);
	assert_int_equal(compare_build(&c, &e), 0);
	const struct cmp_config *g = c.rows[0].cell[1];
	/* runs 0.9e9, 0.1e9 (incomplete, ignored), 1.1e9 */
	assert_int_equal(g->nruns, 3);
	assert_int_equal(g->ncomplete, 2);
	near(g->median, 1.0e9, 0.5);
	near(g->min, 0.9e9, 0.5);
	char *t = print_to_string(&c);
	assert_non_null(strstr(t, "0.50 [0.45-0.55] (2/3 runs)"));
	free(t);
	compare_release(&c);
}

static void test_missing_cells(void **state)
{
	(void)state;
	struct compare c;
	struct rerr e = { "" };
	char line[512];
	compare_init(&c);
	assert_int_equal(compare_add(&c, RES "hdd-seq.json", NULL, &e), 0);
	assert_int_equal(compare_add(&c, RES "ssd-par.json", NULL, &e), 0);
	assert_int_equal(compare_build(&c, &e), 0);
	assert_int_equal(c.nrows, 2);
	assert_null(c.rows[0].cell[1]);
	assert_null(c.rows[1].cell[0]);
	char *t = print_to_string(&c);
	/* no baseline for the parallel row: the absolute median instead */
	line_with(t, "s3d.strace  parallel", line, sizeof(line));
	assert_non_null(strstr(line, "(3.000 s)"));
	assert_non_null(strstr(line, "-"));
	free(t);
	compare_release(&c);
}

static void expect_error(const char *path, int code, const char *part)
{
	struct compare c;
	struct rerr e = { "" };
	compare_init(&c);
	int rc = compare_add(&c, path, NULL, &e);
	if (rc != code || !strstr(e.msg, part)) {
		print_error("%s: rc %d (want %d), message '%s' (want '%s')\n", path, rc, code, e.msg, part);
		fail();
	}
	compare_release(&c);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error(RES "nonexistent.json", -ENOENT, "cannot open '" RES "nonexistent.json': No such file");
	/* jansson's line:column of the syntax error */
	expect_error(RES "bad-syntax.json", -EINVAL, "bad-syntax.json:4:8: invalid JSON:");
	expect_error(RES "no-runs.json", -EINVAL, "no-runs.json: not a replay result: missing \"runs\" array");

	char edir[] = "/tmp/test_compare.XXXXXX";
	assert_non_null(mkdtemp(edir));
	char path[128];
	snprintf(path, sizeof(path), "%s/dup.json", edir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	const char *one = "{\"options\":{\"mode\":\"parallel\",\"processes\":2,\"trace\":[\"/a/t\"]},"
			  "\"runs\":[{\"completion_ns\":5,\"jobs\":[]}]}";
	fprintf(f, "[%s,\n%s]\n", one, one);
	fclose(f);
	expect_error(path, -EINVAL, "configuration (t, parallel, 2 processes) also in");

	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"options\":{\"mode\":\"parallel\",\"trace\":[\"t\"]},\"runs\":[{\"jobs\":[]}]}\n");
	fclose(f);
	expect_error(path, -EINVAL, "\"runs\"[0]: missing \"completion_ns\" number");

	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "[]\n");
	fclose(f);
	expect_error(path, -EINVAL, "empty array");
	unlink(path);

	/* an empty directory */
	expect_error(edir, -ENOENT, "no *.json result file");
	rmdir(edir);

	struct compare c;
	struct rerr e = { "" };
	compare_init(&c);
	assert_int_equal(compare_build(&c, &e), -EINVAL);
	compare_release(&c);
}

static void test_labels(void **state)
{
	(void)state;
	struct compare c;
	struct rerr e = { "" };
	compare_init(&c);
	assert_int_equal(compare_add(&c, RES "hdd-seq.json", NULL, &e), 0);
	assert_int_equal(compare_add(&c, RES "hdd-seq.json", NULL, &e), 0);
	assert_int_equal(compare_add(&c, RES "ssd/", NULL, &e), 0);
	assert_int_equal(compare_add(&c, RES "ssd-seq.json", "intel", &e), 0);
	assert_string_equal(c.sets[0].label, "hdd-seq");
	assert_string_equal(c.sets[1].label, "hdd-seq#2");
	assert_string_equal(c.sets[2].label, "ssd");
	assert_string_equal(c.sets[3].label, "intel");
	compare_release(&c);

	char *s = cmp_safe_name("a b/c+d.txt");
	assert_string_equal(s, "a_b_c_d.txt");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_normalization),
		cmocka_unit_test(test_text_table),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_pooled_percentiles_from_files),
		cmocka_unit_test(test_quantile_mixture),
		cmocka_unit_test(test_single_job_exact),
		cmocka_unit_test(test_every_rank_listed_exact),
		cmocka_unit_test(test_bins_pool_exactly),
		cmocka_unit_test(test_failed_ops_marked),
		cmocka_unit_test(test_timeline_sequential),
		cmocka_unit_test(test_incomplete_runs),
		cmocka_unit_test(test_missing_cells),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_labels),
	};
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
