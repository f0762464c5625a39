/*
 * compare.c - load result files, pool their numbers, match configurations.
 *
 * Everything is read from the JSON that `replay run -o` writes; nothing
 * here knows how the numbers were measured.  Loading is strict about the
 * few fields a comparison needs (options.mode, options.trace, runs[] with
 * completion_ns) and lenient about the rest, so results of older or newer
 * versions still compare.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "report/compare.h"
#include "report/jsontext.h"
#include "run/hist.h"

const char *const cmp_class_names[CMP_NCLASS] = {
	"read", "write", "sync", "open", "close", "meta",
};

void compare_init(struct compare *c)
{
	memset(c, 0, sizeof(*c));
}

static void class_release(struct cmp_class *k)
{
	free(k->jobs);
	free(k->bins);
	k->jobs = NULL;
	k->bins = NULL;
	k->njobs = 0;
	k->nobins = false;
}

static void config_release(struct cmp_config *g)
{
	free(g->trace);
	free(g->mode);
	free(g->src);
	free(g->format);
	free(g->engine);
	free(g->completion);
	free(g->setup);
	free(g->differs);
	for (int i = 0; i < CMP_NCLASS; i++)
		class_release(&g->cls[i]);
	for (size_t i = 0; i < g->ntl; i++)
		free(g->tl[i].bytes);
	free(g->tl);
	memset(g, 0, sizeof(*g));
}

static char *xfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void set_release(struct cmp_set *s)
{
	free(s->label);
	free(s->path);
	free(s->fstype);
	free(s->device);
	free(s->dir);
	free(s->scheduler);
	free(s->mixed);
	for (size_t i = 0; i < s->ncfg; i++)
		config_release(&s->cfg[i]);
	free(s->cfg);
	memset(s, 0, sizeof(*s));
}

void compare_release(struct compare *c)
{
	for (size_t i = 0; i < c->nsets; i++)
		set_release(&c->sets[i]);
	free(c->sets);
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i].cell);
	free(c->rows);
	compare_init(c);
}

char *cmp_safe_name(const char *s)
{
	size_t n = strlen(s);
	char *o = malloc(n + 1);
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			 (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '_';
		o[i] = ok ? ch : '_';
	}
	o[n] = '\0';
	return o;
}

/* ---- small JSON accessors ------------------------------------------- */

static int jnum(const json_t *v, double *out)
{
	if (json_is_integer(v)) {
		*out = (double)json_integer_value(v);
		return 1;
	}
	if (json_is_real(v)) {
		*out = json_real_value(v);
		return 1;
	}
	return 0;
}

static double jnum_or(const json_t *obj, const char *key, double dflt)
{
	double d;
	return jnum(json_object_get(obj, key), &d) ? d : dflt;
}

static int jtrue(const json_t *v)
{
	if (json_is_true(v))
		return 1;
	if (json_is_integer(v))
		return json_integer_value(v) != 0;
	return 0;
}

/* The last component of path, trailing slashes left out: path[*b, *n). */
static void base_span(const char *path, size_t *b, size_t *n)
{
	*n = strlen(path);
	while (*n > 1 && path[*n - 1] == '/')
		(*n)--;
	*b = *n;
	while (*b > 0 && path[*b - 1] != '/')
		(*b)--;
}

/* basename without trailing slashes, appended to *buf */
static int append_base(char **buf, size_t *len, const char *path)
{
	size_t b, n;
	base_span(path, &b, &n);
	size_t add = n - b + (*len ? 1 : 0);
	char *nb = realloc(*buf, *len + add + 1);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	if (*len)
		nb[(*len)++] = '+';
	memcpy(nb + *len, path + b, n - b);
	*len += n - b;
	nb[*len] = '\0';
	return 0;
}

/* ---- latency pooling ------------------------------------------------- */

struct pctpt {
	double p, x;
};

static int pct_cmp(const void *a, const void *b)
{
	const struct pctpt *x = a, *y = b;
	return (x->p > y->p) - (x->p < y->p);
}

/* The rank (1-based) of the sample at percentile p of n, nearest-rank as
 * run/hist.c computes it: the same expression, so the same rank. */
static double pct_rank(double p, double n)
{
	if (p >= 100.0)
		return n;
	double r = ceil(p / 100.0 * n);
	return r < 1 ? 1 : r;
}

/* Read one job's class object into a CDF; 0 = nothing usable (skip).
 * Each listed percentile is the sample of rank ceil(p/100 N) (the
 * histogram's nearest rank), min the sample of rank 1, max of rank N.
 * Points of equal x keep their lowest and highest rank (all of them are at
 * x: a step of the distribution stays a step); the ops of the ranks not
 * listed are placed evenly between the values of their listed neighbours
 * (job_count). */
static int job_cdf(const json_t *cls, struct cmp_jobcdf *j)
{
	const json_t *lat = json_object_get(cls, "lat_ns");
	if (!json_is_object(lat))
		return 0;
	double n = jnum_or(lat, "N", -1);
	if (n < 0)
		n = jnum_or(cls, "total_ios", 0);
	if (!(n > 0))
		return 0;

	struct pctpt pt[CMP_MAXPTS];
	unsigned np = 0;
	double v, mn = NAN, mx = NAN;
	jnum(json_object_get(lat, "min"), &mn);
	jnum(json_object_get(lat, "max"), &mx);
	if (isfinite(mn))
		pt[np++] = (struct pctpt){ 0.0, mn };
	const json_t *pc = json_object_get(lat, "percentile");
	const char *key;
	const json_t *val;
	unsigned body = np;
	json_object_foreach((json_t *)pc, key, val) {
		char *end;
		double p = strtod(key, &end);
		if (end == key || *end || !(p > 0 && p < 100) || !jnum(val, &v))
			continue;
		if (np >= CMP_MAXPTS - 1)
			break;
		pt[np++] = (struct pctpt){ p, v };
	}
	qsort(pt + body, np - body, sizeof(pt[0]), pct_cmp);
	/* min is rank 1 and max rank N too, but the list's own value of a
	 * rank (the bucket's middle) is what the summary shows: min and max
	 * only add ranks the list does not name */
	unsigned from = 0;
	if (body && np > body && pct_rank(pt[body].p, n) == 1)
		from = body;
	if (isfinite(mx) && (np == body || pct_rank(pt[np - 1].p, n) < n))
		pt[np++] = (struct pctpt){ 100.0, mx };
	if (np == from)
		return 0;

	/* Monotone x and rank; equal x: one point, ranks lo..hi. */
	j->n = n;
	j->npts = 0;
	for (unsigned i = from; i < np; i++) {
		double x = pt[i].x, r = pct_rank(pt[i].p, n);
		if (!(x >= 0) || !isfinite(x))
			x = 0;
		if (j->npts && x < j->x[j->npts - 1])
			x = j->x[j->npts - 1];
		if (j->npts && r < j->chi[j->npts - 1])
			r = j->chi[j->npts - 1];
		if (j->npts && x == j->x[j->npts - 1]) {
			j->chi[j->npts - 1] = r;
			continue;
		}
		j->x[j->npts] = x;
		j->clo[j->npts] = r;
		j->chi[j->npts] = r;
		j->npts++;
	}
	j->min = isfinite(mn) && mn <= j->x[0] ? mn : j->x[0];
	j->max = isfinite(mx) && mx >= j->x[j->npts - 1] ? mx : j->x[j->npts - 1];
	return 1;
}

/* Ops between two listed points a < b (ranks chi[a]+1 .. clo[b]-1), or 0. */
static double seg_ops(const struct cmp_jobcdf *j, unsigned a)
{
	double m = j->clo[a + 1] - j->chi[a] - 1;
	return m > 0 ? m : 0;
}

/* Where the k-th (1..m) of the m unlisted ops after point a sits: evenly
 * spaced strictly between x[a] and x[a+1]. */
static double seg_pos(const struct cmp_jobcdf *j, unsigned a, double m, double k)
{
	double x0 = j->x[a], x1 = j->x[a + 1];
	if (x0 > 0)             /* evenly on a log scale, as latencies spread */
		return x0 * exp(log(x1 / x0) * k / (m + 1));
	return x0 + (x1 - x0) * k / (m + 1);
}

/* The last point at or below x (x >= x[0]). */
static unsigned point_at(const struct cmp_jobcdf *j, double x)
{
	unsigned lo = 0, hi = j->npts;          /* x[lo] <= x < x[hi] */
	while (hi - lo > 1) {
		unsigned mid = (lo + hi) / 2;
		if (j->x[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The unlisted ops of the segment after a at or below x (x in [x[a], x[a+1])). */
static double seg_count(const struct cmp_jobcdf *j, unsigned a, double x)
{
	double m = seg_ops(j, a);
	if (!m)
		return 0;
	double x0 = j->x[a], x1 = j->x[a + 1];
	double k = floor((x0 > 0 ? log(x / x0) / log(x1 / x0) : (x - x0) / (x1 - x0)) * (m + 1));
	if (k > m)
		k = m;
	if (k < 0)
		k = 0;
	/* the same positions as seg_pos() places, whatever the rounding */
	while (k < m && seg_pos(j, a, m, k + 1) <= x)
		k++;
	while (k > 0 && seg_pos(j, a, m, k) > x)
		k--;
	return k;
}

/* The job's ops <= x. */
static double job_count(const struct cmp_jobcdf *j, double x)
{
	if (x < j->x[0])
		return 0;
	unsigned a = point_at(j, x);
	if (x == j->x[a] || a + 1 == j->npts)
		return j->chi[a];
	return j->chi[a] + seg_count(j, a, x);
}

/* The job's smallest op value above x; INFINITY when none. */
static double job_next(const struct cmp_jobcdf *j, double x)
{
	if (x < j->x[0])
		return j->x[0];
	unsigned a = point_at(j, x);
	if (a + 1 == j->npts)
		return INFINITY;
	double m = seg_ops(j, a), k = seg_count(j, a, x) + 1;
	return k <= m ? seg_pos(j, a, m, k) : j->x[a + 1];
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The pooled ops <= x. */
static double mix_count(const struct cmp_class *k, double x)
{
	double c = 0;
	for (size_t i = 0; i < k->njobs; i++)
		c += job_count(&k->jobs[i], x);
	return c;
}

/* From the pooled bins: what the run's summary computes (hist.c). */
static double bins_quantile(const struct hist *h, double q)
{
	if (q <= 0)
		return (double)h->min;
	return (double)hist_percentile(h, q);
}

bool cmp_exact(const struct cmp_class *k)
{
	return k->bins && !k->nobins && k->bins->n == k->n && k->n;
}

double cmp_quantile(const struct cmp_class *k, double q)
{
	if (!k->njobs)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 100)
		q = 100;
	if (cmp_exact(k))
		return bins_quantile(k->bins, q);
	double W = 0, lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < k->njobs; i++) {
		const struct cmp_jobcdf *j = &k->jobs[i];
		W += j->n;
		if (j->x[0] < lo)
			lo = j->x[0];
		if (j->x[j->npts - 1] > hi)
			hi = j->x[j->npts - 1];
	}
	if (!(W > 0))
		return 0;
	if (q <= 0 || q >= 100) {          /* the least min, the greatest max */
		double e = k->jobs[0].min;
		for (size_t i = 0; i < k->njobs; i++)
			e = q <= 0 ? fmin(e, k->jobs[i].min) : fmax(e, k->jobs[i].max);
		return e;
	}
	/* The pooled op of rank T (nearest rank, as hist.c): the smallest x
	 * where the pooled count reaches T. */
	double T = pct_rank(q, W);
	if (mix_count(k, lo) >= T)
		return lo;
	if (mix_count(k, hi) < T)           /* a job without its max */
		return hi;
	/* count(lo) < T <= count(hi): halve, then step op by op */
	for (int it = 0; it < 200; it++) {
		double mid = lo + (hi - lo) / 2;
		if (mid <= lo || mid >= hi)
			break;
		if (mix_count(k, mid) >= T)
			hi = mid;
		else
			lo = mid;
	}
	for (;;) {
		double x = INFINITY;
		for (size_t i = 0; i < k->njobs; i++) {
			double nx = job_next(&k->jobs[i], lo);
			if (nx < x)
				x = nx;
		}
		if (!(x < INFINITY) || mix_count(k, x) >= T)
			return x < INFINITY ? x : hi;
		lo = x;
	}
}

bool cmp_within_spread(const struct cmp_config *a, const struct cmp_config *b)
{
	if (!a || !b || !a->ncomplete || !b->ncomplete)
		return false;
	return a->min <= b->max && b->min <= a->max;
}

/* ---- loading --------------------------------------------------------- */

/* Merge one job's histogram bins (json+: lat_ns.bins {"<bucket's middle
 * ns>": count}) into the class's pool.  A job without them, or whose bins
 * are not hist.h's buckets or do not add up to its N, makes the class
 * approximate (k->nobins).  0 or -ENOMEM. */
static int add_bins(struct cmp_class *k, const json_t *lat, double n)
{
	const json_t *bins = json_object_get(lat, "bins");
	double mn, mx;
	if (k->nobins)
		return 0;
	if (!json_is_object(bins) || !jnum(json_object_get(lat, "min"), &mn) ||
	    !jnum(json_object_get(lat, "max"), &mx) || !(mn >= 0) || mx < mn || mx >= 0x1p63)
		goto none;
	struct hist h;
	hist_init(&h);
	const char *key;
	const json_t *val;
	json_object_foreach((json_t *)bins, key, val) {
		char *end;
		errno = 0;
		unsigned long long ns = strtoull(key, &end, 10);
		double cnt;
		if (end == key || *end || errno || !jnum(val, &cnt) || !(cnt >= 0) ||
		    cnt != floor(cnt) || cnt > 4e9)
			goto none;
		unsigned idx = hist_bucket(ns);
		if (hist_bucket_mid(idx) != ns || (double)h.b[idx] + cnt > 4e9)
			goto none;
		h.b[idx] += (uint32_t)cnt;
		h.n += (uint64_t)cnt;
	}
	if ((double)h.n != n || !h.n)
		goto none;
	h.min = (uint64_t)mn;
	h.max = (uint64_t)mx;
	if (!k->bins) {
		if (!(k->bins = malloc(sizeof(*k->bins))))
			return -ENOMEM;
		hist_init(k->bins);
	}
	hist_merge(k->bins, &h);
	return 0;
none:
	k->nobins = true;
	free(k->bins);
	k->bins = NULL;
	return 0;
}

static int add_job_classes(struct cmp_config *g, const json_t *job)
{
	for (int c = 0; c < CMP_NCLASS; c++) {
		const json_t *cls = json_object_get(job, cmp_class_names[c]);
		if (!json_is_object(cls))
			continue;
		struct cmp_jobcdf jc;
		if (!job_cdf(cls, &jc))
			continue;
		struct cmp_class *k = &g->cls[c];
		struct cmp_jobcdf *nj = realloc(k->jobs, (k->njobs + 1) * sizeof(*nj));
		if (!nj)
			return -ENOMEM;
		k->jobs = nj;
		k->jobs[k->njobs++] = jc;
		k->n += (uint64_t)jc.n;
		int rc = add_bins(k, json_object_get(cls, "lat_ns"), jc.n);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A job's failed ops and mismatches (older results: the classes' errors). */
static void add_failures(struct cmp_config *g, const json_t *job)
{
	const json_t *errs = json_object_get(job, "errors");
	if (json_is_object(errs)) {
		const char *key;
		const json_t *v;
		json_object_foreach((json_t *)errs, key, v) {
			double d;
			if (jnum(v, &d) && d > 0)
				g->failed_ops += d;
		}
	} else {
		for (int c = 0; c < CMP_NCLASS; c++)
			g->failed_ops += jnum_or(json_object_get(job, cmp_class_names[c]), "errors", 0);
	}
	g->mismatches += jnum_or(json_object_get(job, "mismatches"), "total", 0);
}

const char *cmp_failure_note(const struct cmp_config *g, char *buf, size_t n)
{
	int k = 0;
	buf[0] = '\0';
	if (g->failed_ops > 0)
		k = snprintf(buf, n, "%.0f failed op%s", g->failed_ops, g->failed_ops == 1 ? "" : "s");
	if (g->mismatches > 0 && k >= 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, "%s%.0f mismatch%s", k ? ", " : "", g->mismatches,
			 g->mismatches == 1 ? "" : "es");
	return buf;
}

static int add_timelines(struct cmp_config *g, const json_t *jobs)
{
	size_t nj = json_array_size(jobs);
	/* sequential: each process's samples from its own start, after the
	 * processes before it (in job order) completed */
	bool seq = !strcmp(g->mode, "sequential");
	double before = 0;
	if (!nj)
		return 0;
	g->tl = calloc(nj, sizeof(*g->tl));
	if (!g->tl)
		return -ENOMEM;
	for (size_t i = 0; i < nj; i++) {
		const json_t *job = json_array_get(jobs, i);
		const json_t *tl = json_object_get(job, "timeline");
		struct cmp_timeline *t = &g->tl[g->ntl];
		const json_t *b = json_object_get(tl, "bytes");
		double iv = jnum_or(tl, "interval_ns", 0), start = before;
		if (seq)
			before += jnum_or(job, "completion_ns", 0);
		if (!json_is_array(b) || !(iv > 0))
			continue;
		t->shift = seq && start > 0 && start / iv < 1e9 ? (size_t)(start / iv + 0.5) : 0;
		t->rank = (int)jnum_or(job, "rank", (double)i);
		t->copy = (int)jnum_or(job, "copy", 0);
		t->interval_ns = iv;
		t->n = json_array_size(b);
		t->bytes = calloc(t->n ? t->n : 1, sizeof(double));
		if (!t->bytes)
			return -ENOMEM;
		for (size_t s = 0; s < t->n; s++)
			jnum(json_array_get(b, s), &t->bytes[s]);
		g->ntl++;
	}
	return 0;
}

static char *jstr_dup(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);
	return strdup(json_is_string(v) ? json_string_value(v) : "");
}

/* What the workload is: format, engine, ranks, filtered ops, and the op mix
 * of one complete run (every job's total_ios and io_bytes per class). */
static int load_workload(struct cmp_config *g, const json_t *root, const json_t *jobs)
{
	const json_t *opt = json_object_get(root, "options");
	if (!(g->format = jstr_dup(opt, "format")) || !(g->engine = jstr_dup(opt, "engine")))
		return -ENOMEM;
	g->ranks = (unsigned)jnum_or(opt, "ranks", 0);
	g->filtered = jnum_or(json_object_get(root, "filtered"), "ops_removed", 0);
	size_t k;
	const json_t *job;
	json_array_foreach(jobs, k, job)
		for (int c = 0; c < CMP_NCLASS; c++) {
			const json_t *cls = json_object_get(job, cmp_class_names[c]);
			g->ops[c] += jnum_or(cls, "total_ios", 0);
			g->bytes[c] += jnum_or(cls, "io_bytes", 0);
		}
	return 0;
}

/* v as text: a string as it is, a number, true/false; "?" otherwise. */
static void jtext(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	else
		snprintf(buf, len, "?");
}

/* g->setup: what must be alike for two results to compare the storage
 * alone (see struct cmp_config). */
static int load_setup(struct cmp_config *g, const json_t *opt, const json_t *runs)
{
	static const char *const keys[] = { "engine", "depth", "direct", "overlap", "drop_caches",
					    "timing", "speed", "order", "bind" };
	char *buf = NULL, v[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	const json_t *tr = json_object_get(opt, "trace"), *x;
	size_t i;
	fputs("trace=", f);
	if (json_is_string(tr))
		fputs(json_string_value(tr), f);
	json_array_foreach(tr, i, x)
		fprintf(f, "%s%s", i ? "," : "", json_is_string(x) ? json_string_value(x) : "?");
	fputs("\nranks=", f);
	json_array_foreach(json_object_get(json_array_get(runs, 0), "jobs"), i, x) {
		jtext(json_object_get(x, "rank"), v, sizeof(v));
		fprintf(f, "%s%s", i ? "," : "", v);
	}
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		jtext(json_object_get(opt, keys[k]), v, sizeof(v));
		fprintf(f, "\n%s=%s", keys[k], v);
	}
	if (fclose(f) || !buf) {
		free(buf);
		return -ENOMEM;
	}
	g->setup = buf;
	return 0;
}

/* What of g's setup differs from base's, malloc'ed ("engine: sync, here
 * libaio; ..."); NULL when alike (or out of memory). */
static char *setup_diff(const char *base, const char *g)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool any = false;
	if (!f)
		return NULL;
	while (*base && *g) {
		size_t bl = strcspn(base, "\n"), gl = strcspn(g, "\n"), kl = strcspn(base, "=");
		if (bl != gl || memcmp(base, g, bl)) {
			fprintf(f, "%s%.*s: %.*s, here %.*s", any ? "; " : "", (int)kl, base,
				(int)(bl - kl - 1), base + kl + 1, (int)(gl - kl - 1), g + kl + 1);
			any = true;
		}
		base += bl + (base[bl] == '\n');
		g += gl + (g[gl] == '\n');
	}
	if (fclose(f) || !any) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int load_config(struct cmp_config *g, const json_t *root, const char *file, struct rerr *e)
{
	if (!json_is_object(root))
		return rerr_set(e, -EINVAL, "%s: not a replay result (expected a JSON object)", file);
	const json_t *opt = json_object_get(root, "options");
	if (!json_is_object(opt))
		return rerr_set(e, -EINVAL, "%s: not a replay result: missing \"options\" object", file);
	const json_t *mode = json_object_get(opt, "mode");
	if (!json_is_string(mode))
		return rerr_set(e, -EINVAL, "%s: missing \"options\".\"mode\" string", file);
	const json_t *runs = json_object_get(root, "runs");
	if (!json_is_array(runs))
		return rerr_set(e, -EINVAL, "%s: not a replay result: missing \"runs\" array", file);

	int rc = -ENOMEM;
	g->mode = strdup(json_string_value(mode));
	g->src = strdup(file);
	if (!g->mode || !g->src || load_setup(g, opt, runs) < 0)
		return rc;

	const json_t *tr = json_object_get(opt, "trace");
	size_t tlen = 0;
	if (json_is_string(tr)) {
		if ((rc = append_base(&g->trace, &tlen, json_string_value(tr))) < 0)
			return rc;
	} else if (json_is_array(tr) && json_array_size(tr)) {
		size_t i;
		const json_t *v;
		json_array_foreach(tr, i, v) {
			if (!json_is_string(v))
				return rerr_set(e, -EINVAL, "%s: \"options\".\"trace\"[%zu] is not a string", file, i);
			if ((rc = append_base(&g->trace, &tlen, json_string_value(v))) < 0)
				return rc;
		}
	} else {
		return rerr_set(e, -EINVAL, "%s: missing \"options\".\"trace\" (a list of trace paths)", file);
	}

	double procs = jnum_or(opt, "processes", -1);
	if (procs < 0) {
		const json_t *r0 = json_array_get(runs, 0);
		procs = (double)json_array_size(json_object_get(r0, "jobs"));
	}
	g->procs = (unsigned)procs;

	g->nruns = json_array_size(runs);
	g->completion = calloc(g->nruns ? g->nruns : 1, sizeof(double));
	if (!g->completion)
		return -ENOMEM;
	size_t i;
	const json_t *run;
	json_array_foreach(runs, i, run) {
		double cns;
		if (!json_is_object(run) || !jnum(json_object_get(run, "completion_ns"), &cns))
			return rerr_set(e, -EINVAL, "%s: \"runs\"[%zu]: missing \"completion_ns\" number", file, i);
		if (jtrue(json_object_get(run, "incomplete")))
			continue;
		g->completion[g->ncomplete++] = cns;
		const json_t *jobs = json_object_get(run, "jobs");
		size_t k;
		const json_t *job;
		json_array_foreach(jobs, k, job) {
			if ((rc = add_job_classes(g, job)) < 0)
				return rc;
			add_failures(g, job);
		}
		if (g->ncomplete == 1 && ((rc = add_timelines(g, jobs)) < 0 ||
					   (rc = load_workload(g, root, jobs)) < 0))
			return rc;
	}
	/* a series stopped between two runs (replay interrupted) holds fewer
	 * runs than it asked for, each complete: counted as the ones missing */
	double asked = jnum_or(opt, "repeats", 0);
	if (asked > (double)g->nruns && asked < 1e9)
		g->nruns = (size_t)asked;
	if (g->ncomplete) {
		qsort(g->completion, g->ncomplete, sizeof(double), dbl_cmp);
		size_t n = g->ncomplete;
		g->min = g->completion[0];
		g->max = g->completion[n - 1];
		g->median = n % 2 ? g->completion[n / 2]
				  : (g->completion[n / 2 - 1] + g->completion[n / 2]) / 2;
	}
	return 0;
}

/* Append one zeroed element of sz bytes to the array *arr of *n: the new
 * element (*n counts it), or NULL when out of memory (*arr unchanged). */
static void *push_zeroed(void **arr, size_t *n, size_t sz)
{
	char *na = realloc(*arr, (*n + 1) * sz);
	if (!na)
		return NULL;
	*arr = na;
	memset(na + *n * sz, 0, sz);
	return na + (*n)++ * sz;
}

static int add_root(struct cmp_set *s, const json_t *root, const char *file, struct rerr *e)
{
	size_t n = json_is_array(root) ? json_array_size(root) : 1;
	if (json_is_array(root) && n == 0)
		return rerr_set(e, -EINVAL, "%s: empty array, no result in it", file);
	for (size_t i = 0; i < n; i++) {
		const json_t *r = json_is_array(root) ? json_array_get(root, i) : root;
		struct cmp_config *g = push_zeroed((void **)&s->cfg, &s->ncfg, sizeof(*g));
		if (!g)
			return -ENOMEM;
		int rc = load_config(g, r, file, e);
		if (rc < 0)
			return rc;
		for (size_t k = 0; k + 1 < s->ncfg; k++) {
			struct cmp_config *o = &s->cfg[k];
			if (!strcmp(o->trace, g->trace) && !strcmp(o->mode, g->mode) && o->procs == g->procs)
				return rerr_set(e, -EINVAL, "%s: configuration (%s, %s, %u processes) also in '%s'",
						file, g->trace, g->mode, g->procs, o->src);
		}
		const json_t *tg = json_object_get(r, "target");
		if (s->fstype && !s->mixed) {
			const char *fs = json_string_value(json_object_get(tg, "fstype")),
				   *dev = json_string_value(json_object_get(tg, "device"));
			if (strcmp(fs ? fs : "", s->fstype) || strcmp(dev ? dev : "", s->device)) {
				s->mixed = xfmt("%s on %s (%s)", fs ? fs : "?", dev ? dev : "?", file);
				if (!s->mixed)
					return -ENOMEM;
			}
		}
		if (!s->fstype) {
			const json_t *t = tg;
			s->fstype = jstr_dup(t, "fstype");
			s->device = jstr_dup(t, "device");
			s->dir = jstr_dup(t, "dir");
			s->scheduler = jstr_dup(t, "scheduler");
			s->rotational = (int)jnum_or(t, "rotational", -1);
			if (!s->fstype || !s->device || !s->dir || !s->scheduler)
				return -ENOMEM;
		}
	}
	return 0;
}

static int load_file(struct cmp_set *s, const char *file, struct rerr *e)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return rerr_set(e, -errno, "cannot open '%s': %s", file, strerror(errno));
	json_error_t je;
	json_t *root = json_loadf(f, 0, &je);
	int err = ferror(f);
	fclose(f);
	if (!root) {
		if (err)
			return rerr_set(e, -EIO, "cannot read '%s'", file);
		return rerr_set(e, -EINVAL, "%s:%d:%d: invalid JSON: %s", file, je.line, je.column, je.text);
	}
	int rc = add_root(s, root, file, e);
	json_decref(root);
	return rc;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(struct cmp_set *s, const char *dir, struct rerr *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return rerr_set(e, -errno, "cannot open '%s': %s", dir, strerror(errno));
	char **names = NULL;
	size_t n = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 5, ".json") || de->d_name[0] == '.')
			continue;
		char **nn = realloc(names, (n + 1) * sizeof(*nn));
		if (!nn) {
			rc = -ENOMEM;
			goto out;
		}
		names = nn;
		if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (!n) {
		rc = rerr_set(e, -ENOENT, "'%s': no *.json result file in this directory", dir);
		goto out;
	}
	qsort(names, n, sizeof(*names), str_cmp);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = load_file(s, names[i], e);
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return rc;
}

static char *default_label(const char *path)
{
	size_t b, n;
	base_span(path, &b, &n);
	if (n - b > 5 && !strncmp(path + n - 5, ".json", 5))
		n -= 5;
	return strndup(path + b, n - b);
}

int compare_add(struct compare *c, const char *path, const char *label, struct rerr *e)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return rerr_set(e, -errno, "cannot open '%s': %s", path, strerror(errno));
	struct cmp_set *s = push_zeroed((void **)&c->sets, &c->nsets, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->path = strdup(path);
	s->label = label ? strdup(label) : default_label(path);
	if (!s->path || !s->label)
		return -ENOMEM;
	/* Same label twice (a.json in two directories): suffix #2, #3 ... */
	for (unsigned k = 2;; k++) {
		size_t i;
		for (i = 0; i + 1 < c->nsets; i++)
			if (!strcmp(c->sets[i].label, s->label))
				break;
		if (i + 1 >= c->nsets)
			break;
		char *nl;
		size_t bl = strcspn(s->label, "#");
		if (asprintf(&nl, "%.*s#%u", (int)bl, s->label, k) < 0)
			return -ENOMEM;
		free(s->label);
		s->label = nl;
	}
	if (S_ISDIR(st.st_mode))
		return load_dir(s, path, e);
	return load_file(s, path, e);
}

int cmp_split_labels(char *list, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char **nl = realloc(*names, (*n + 1) * sizeof(*nl));
		if (!nl) {
			free(*names);
			*names = NULL;
			*n = 0;
			return -ENOMEM;
		}
		*names = nl;
		(*names)[(*n)++] = tok;
	}
	return 0;
}

int compare_load(struct compare *c, char *const *paths, size_t n, char *const *labels,
		 struct rerr *e)
{
	for (size_t i = 0; i < n; i++) {
		int rc = compare_add(c, paths[i], labels ? labels[i] : NULL, e);
		if (rc < 0)
			return rc;
	}
	return compare_build(c, e);
}

static int mode_rank(const char *m)
{
	if (!strcmp(m, "sequential"))
		return 0;
	if (!strcmp(m, "parallel"))
		return 1;
	return 2;
}

static int row_cmp(const void *a, const void *b)
{
	const struct cmp_row *x = a, *y = b;
	int r = strcmp(x->trace, y->trace);
	if (r)
		return r;
	r = mode_rank(x->mode) - mode_rank(y->mode);
	if (r)
		return r;
	r = strcmp(x->mode, y->mode);
	if (r)
		return r;
	return (x->procs > y->procs) - (x->procs < y->procs);
}

int compare_build(struct compare *c, struct rerr *e)
{
	if (!c->nsets)
		return rerr_set(e, -EINVAL, "no result to compare");
	for (size_t s = 0; s < c->nsets; s++) {
		for (size_t k = 0; k < c->sets[s].ncfg; k++) {
			struct cmp_config *g = &c->sets[s].cfg[k];
			size_t r;
			for (r = 0; r < c->nrows; r++)
				if (!strcmp(c->rows[r].trace, g->trace) && !strcmp(c->rows[r].mode, g->mode) &&
				    c->rows[r].procs == g->procs)
					break;
			if (r == c->nrows) {
				struct cmp_row *nr = realloc(c->rows, (c->nrows + 1) * sizeof(*nr));
				if (!nr)
					return -ENOMEM;
				c->rows = nr;
				nr[r].trace = g->trace;
				nr[r].mode = g->mode;
				nr[r].procs = g->procs;
				nr[r].cell = calloc(c->nsets, sizeof(*nr[r].cell));
				if (!nr[r].cell)
					return -ENOMEM;
				c->nrows++;
			}
			c->rows[r].cell[s] = g;
		}
	}
	qsort(c->rows, c->nrows, sizeof(*c->rows), row_cmp);
	/* results paired but not run alike: their ratio is not the storage's
	 * alone (the notes say what differs) */
	for (size_t r = 0; r < c->nrows; r++) {
		const struct cmp_config *base = c->rows[r].cell[0];
		for (size_t s = 1; base && s < c->nsets; s++)
			if (c->rows[r].cell[s])
				c->rows[r].cell[s]->differs = setup_diff(base->setup, c->rows[r].cell[s]->setup);
	}
	return 0;
}

/* "not run alike" notes, one per result that differs from its row's
 * baseline. */
static void print_differs(const struct compare *c, FILE *f, enum cmp_style style)
{
	bool head = false;
	for (size_t r = 0; r < c->nrows; r++)
		for (size_t s = 1; s < c->nsets; s++) {
			const struct cmp_config *g = c->rows[r].cell[s];
			if (!g || !g->differs)
				continue;
			if (!head)
				fputs(style == CMP_MARKDOWN ?
				      "\n**Not run alike** (their ratio is not the storage's alone):\n\n" :
				      "\nnot run alike (their ratio is not the storage's alone):\n", f);
			head = true;
			fprintf(f, "%s%s %s %u, %s against %s: %s\n", style == CMP_MARKDOWN ? "- " : "  ",
				c->rows[r].trace, c->rows[r].mode, c->rows[r].procs, c->sets[s].label,
				c->sets[0].label, g->differs);
		}
}

/* ---- output ---------------------------------------------------------- */

/* A text table: cells kept until printing so columns can be aligned. */
struct tbl {
	size_t n;
	char **cells;
};

static int tbl_add(struct tbl *t, char *cell)
{
	if (!cell)
		return -ENOMEM;
	char **nc = realloc(t->cells, (t->n + 1) * sizeof(*nc));
	if (!nc) {
		free(cell);
		return -ENOMEM;
	}
	t->cells = nc;
	t->cells[t->n++] = cell;
	return 0;
}

static char *xfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* Aligned text, or a Markdown table (header row, then the rule). */
/* The bytes Markdown reads as its own: '|' ends a cell, '~' strikes
 * through, '*' and '_' emphasize, '\\' escapes; each is written escaped. */
static bool md_special(char c)
{
	return c == '|' || c == '~' || c == '\\' || c == '*' || c == '_';
}

/* A cell's width as printed: in Markdown with its escapes. */
static size_t cell_width(const char *cell, enum cmp_style style)
{
	size_t l = text_width(cell);
	for (const char *p = cell; style == CMP_MARKDOWN && *p; p++)
		l += md_special(*p);
	return l;
}

static int tbl_print(const struct tbl *t, size_t ncols, enum cmp_style style, FILE *f)
{
	size_t *w = calloc(ncols, sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t l = cell_width(t->cells[i], style);
		if (l > w[i % ncols])
			w[i % ncols] = l;
	}
	for (size_t i = 0; i < t->n; i++) {
		size_t col = i % ncols;
		bool last = col + 1 == ncols || i + 1 == t->n;
		if (style == CMP_MARKDOWN) {
			size_t l = cell_width(t->cells[i], style);
			fputs(col ? "" : "| ", f);
			for (const char *p = t->cells[i]; *p; p++) {
				if (md_special(*p))
					fputc('\\', f);
				fputc(*p, f);
			}
			fprintf(f, "%*s%s", (int)(w[col] - l), "", last ? " |\n" : " | ");
			if (last && i + 1 == ncols) {
				for (size_t k = 0; k < ncols; k++)
					fputs("|---", f);
				fprintf(f, "|\n");
			}
		} else if (last) {
			fprintf(f, "%s\n", t->cells[i]);
		} else {
			fprintf(f, "%-*s  ", pad_width((int)w[col], t->cells[i]), t->cells[i]);
		}
	}
	free(w);
	return 0;
}

static void tbl_free(struct tbl *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->n = 0;
}

static char *completion_cell(const struct cmp_config *base, const struct cmp_config *g, bool is_base)
{
	char b[32];
	if (!g)
		return strdup("-");
	if (!g->ncomplete)
		return strdup("incomplete");
	if (!base || !base->ncomplete || !(base->median > 0)) {
		char note[80];
		cmp_failure_note(g, note, sizeof(note));
		return xfmt("(%s)%s%s%s", fmt_ns(b, sizeof(b), g->median), *note ? " (" : "", note,
			    *note ? ")" : "");
	}
	double m = base->median;
	char runs[80] = "";
	char note[80], fail[100] = "";
	if (g->ncomplete < g->nruns)
		snprintf(runs, sizeof(runs), " (%zu/%zu runs)", g->ncomplete, g->nruns);
	if (*cmp_failure_note(g, note, sizeof(note)))
		snprintf(fail, sizeof(fail), " (%s)", note);
	char r0[24], r1[24], r2[24];
	cmp_fmt_ratio(r1, sizeof(r1), g->min / m);
	cmp_fmt_ratio(r2, sizeof(r2), g->max / m);
	if (is_base)
		return xfmt("1.00 [%s-%s] %s%s%s", r1, r2, fmt_ns(b, sizeof(b), g->median), runs, fail);
	return xfmt("%s [%s-%s]%s%s%s", cmp_fmt_ratio(r0, sizeof(r0), g->median / m), r1, r2,
		    cmp_within_spread(base, g) ? " ~" : "", runs, fail);
}

const char *cmp_fmt_ratio(char *buf, size_t len, double r)
{
	/* (a target 50 times faster: 0.0189 [0.0165-0.0249] read as 0.02 [0.02-0.02]) */
	snprintf(buf, len, r > 0 && r < 0.095 ? "%.2g" : "%.2f", r);
	return buf;
}

static const char *rot_name(int r)
{
	return r > 0 ? "yes" : r == 0 ? "no" : "unknown";
}

/* Literal cells, in order; -ENOMEM. */
static int tbl_add_strs(struct tbl *t, size_t n, const char *const *s)
{
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = tbl_add(t, strdup(s[i]));
	return rc;
}

/* A row's key cells: trace, mode, processes. */
static int tbl_add_key(struct tbl *t, const struct cmp_row *row)
{
	int rc;
	if ((rc = tbl_add(t, strdup(row->trace))) || (rc = tbl_add(t, strdup(row->mode))))
		return rc;
	return tbl_add(t, xfmt("%u", row->procs));
}

/* Markdown: the table of targets, then the completion heading. */
static int print_targets_md(const struct compare *c, FILE *f)
{
	static const char *const hd[] = { "result", "directory", "file system", "device",
					  "rotational", "scheduler" };
	struct tbl t = { 0 };
	int rc = tbl_add_strs(&t, 6, hd);

	fprintf(f, "### Targets\n\n");
	for (size_t s = 0; s < c->nsets && !rc; s++) {
		const struct cmp_set *st = &c->sets[s];
		const char *cells[] = { st->label, *st->dir ? st->dir : st->path,
					*st->fstype ? st->fstype : "?", *st->device ? st->device : "?",
					rot_name(st->rotational), *st->scheduler ? st->scheduler : "?" };
		rc = tbl_add_strs(&t, 6, cells);
	}
	if (!rc)
		rc = tbl_print(&t, 6, CMP_MARKDOWN, f);
	tbl_free(&t);
	if (rc)
		return rc;
	for (size_t s = 0; s < c->nsets; s++)
		if (c->sets[s].mixed)
			fprintf(f, "\n**%s is not one target**: it also holds results on %s.\n",
				c->sets[s].label, c->sets[s].mixed);
	fprintf(f, "\n### Completion time relative to %s\n\n"
		   "Median of the runs, normalized to %s (1.00; lower is faster); [min-max] over the runs; "
		   "`~` marks a difference within that spread (the min-max ranges overlap). "
		   "The baseline's absolute median follows its ratio.\n\n",
		c->sets[0].label, c->sets[0].label);
	return 0;
}

/* Text: what the sets are, then the completion heading. */
static void print_targets_text(const struct compare *c, FILE *f)
{
	fprintf(f, "Completion time relative to '%s' (median of the runs; [min-max] over the runs; "
		   "lower is faster)\n", c->sets[0].label);
	fprintf(f, "  ~ = difference within the spread over the runs (the min-max ranges overlap)\n");
	for (size_t s = 0; s < c->nsets; s++) {
		const struct cmp_set *st = &c->sets[s];
		fprintf(f, "  %s: %s", st->label, st->path);
		if (*st->fstype || *st->device)
			fprintf(f, " (%s%s%s)", st->fstype, *st->fstype && *st->device ? " on " : "",
				st->device);
		if (st->mixed)
			fprintf(f, "; NOT one target: also %s", st->mixed);
		fputc('\n', f);
	}
	fputc('\n', f);
}

/* Completion: one line per row, the normalized median per set. */
static int print_completion(const struct compare *c, FILE *f, enum cmp_style style)
{
	static const char *const hd[] = { "TRACE", "MODE", "PROCS" };
	struct tbl t = { 0 };
	int rc = tbl_add_strs(&t, 3, hd);

	for (size_t s = 0; s < c->nsets && !rc; s++)
		rc = tbl_add(&t, s ? strdup(c->sets[s].label) : xfmt("%s (baseline)", c->sets[s].label));
	for (size_t r = 0; r < c->nrows && !rc; r++) {
		const struct cmp_row *row = &c->rows[r];
		rc = tbl_add_key(&t, row);
		for (size_t s = 0; s < c->nsets && !rc; s++)
			rc = tbl_add(&t, completion_cell(row->cell[0], row->cell[s], s == 0));
	}
	if (!rc)
		rc = tbl_print(&t, 3 + c->nsets, style, f);
	tbl_free(&t);
	return rc;
}

/* One latency line: a row's class k, p50 and p99 per set; 0 when no set
 * has ops of that class (nothing added). */
/* A percentile's cell: "*" after it when it is read from the jobs'
 * percentiles (approximate), not from their bins. */
static char *pct_cell(const struct cmp_class *k, double p, bool *approx)
{
	char b[32];
	bool exact = cmp_exact(k);
	if (!exact)
		*approx = true;
	return xfmt("%s%s", fmt_ns(b, sizeof(b), cmp_quantile(k, p)), exact ? "" : "*");
}

static int latency_line(const struct compare *c, const struct cmp_row *row, int k, struct tbl *t,
			size_t *lines, bool *approx)
{
	bool any = false;
	int rc;

	for (size_t s = 0; s < c->nsets; s++)
		if (row->cell[s] && row->cell[s]->cls[k].n)
			any = true;
	if (!any)
		return 0;
	++*lines;
	if ((rc = tbl_add_key(t, row)) || (rc = tbl_add(t, strdup(cmp_class_names[k]))))
		return rc;
	for (size_t s = 0; s < c->nsets && !rc; s++) {
		const struct cmp_config *g = row->cell[s];
		if (!g || !g->cls[k].n) {
			if (!(rc = tbl_add(t, strdup("-"))))
				rc = tbl_add(t, strdup("-"));
		} else if (!(rc = tbl_add(t, pct_cell(&g->cls[k], 50, approx)))) {
			rc = tbl_add(t, pct_cell(&g->cls[k], 99, approx));
		}
	}
	return rc;
}

/* Latency: one line per (row, class with ops), p50/p99 per set. */
static int print_latency(const struct compare *c, FILE *f, enum cmp_style style)
{
	static const char *const hd[] = { "TRACE", "MODE", "PROCS", "CLASS" };
	struct tbl t = { 0 };
	size_t lines = 0;
	bool approx = false;
	int rc;

	if (style == CMP_MARKDOWN)
		fprintf(f, "\n### Latency percentiles per op class\n\n"
			   "Pooled over all processes and runs.\n\n");
	else
		fprintf(f, "\nLatency percentiles per op class (pooled over all processes and runs)\n\n");
	rc = tbl_add_strs(&t, 4, hd);
	for (size_t s = 0; s < c->nsets && !rc; s++)
		if (!(rc = tbl_add(&t, xfmt("%s p50", c->sets[s].label))))
			rc = tbl_add(&t, xfmt("%s p99", c->sets[s].label));
	for (size_t r = 0; r < c->nrows && !rc; r++)
		for (int k = 0; k < CMP_NCLASS && !rc; k++)
			rc = latency_line(c, &c->rows[r], k, &t, &lines, &approx);
	if (!rc && lines)
		rc = tbl_print(&t, 4 + 2 * c->nsets, style, f);
	else if (!rc)
		fprintf(f, "(no latency data in the results)\n");
	if (!rc && approx)
		fprintf(f, "\n%s: approximate, pooled from each job's own percentiles (results "
			"written with --output-format json+ carry bins: exact)\n",
			style == CMP_MARKDOWN ? "\\*" : "*");
	tbl_free(&t);
	return rc;
}

int compare_print(const struct compare *c, FILE *f, enum cmp_style style)
{
	int rc = 0;

	if (!c->nsets)
		return 0;
	if (style == CMP_MARKDOWN)
		rc = print_targets_md(c, f);
	else
		print_targets_text(c, f);
	if (!rc)
		rc = print_completion(c, f, style);
	if (!rc)
		rc = print_latency(c, f, style);
	if (!rc)
		print_differs(c, f, style);
	if (!rc && ferror(f))
		rc = -EIO;
	return rc;
}

static json_t *config_json(const struct cmp_config *base, const struct cmp_config *g,
			   const char *label, bool is_base)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "label", json_text_str(label));
	json_object_set_new(o, "file", json_text_str(g->src));
	json_object_set_new(o, "runs", json_integer((json_int_t)g->nruns));
	json_object_set_new(o, "complete_runs", json_integer((json_int_t)g->ncomplete));
	if (g->ncomplete) {
		json_t *cn = json_object();
		json_object_set_new(cn, "median", json_real(g->median));
		json_object_set_new(cn, "min", json_real(g->min));
		json_object_set_new(cn, "max", json_real(g->max));
		json_object_set_new(o, "completion_ns", cn);
	} else {
		json_object_set_new(o, "completion_ns", json_null());
	}
	if (g->ncomplete && base && base->ncomplete && base->median > 0) {
		json_t *nm = json_object();
		json_object_set_new(nm, "median", json_real(g->median / base->median));
		json_object_set_new(nm, "min", json_real(g->min / base->median));
		json_object_set_new(nm, "max", json_real(g->max / base->median));
		json_object_set_new(o, "normalized", nm);
		json_object_set_new(o, "within_spread",
				    is_base ? json_null() : json_boolean(cmp_within_spread(base, g)));
	} else {
		json_object_set_new(o, "normalized", json_null());
		json_object_set_new(o, "within_spread", json_null());
	}
	json_object_set_new(o, "failed_ops", json_integer((json_int_t)g->failed_ops));
	json_object_set_new(o, "mismatches", json_integer((json_int_t)g->mismatches));
	json_object_set_new(o, "differs", g->differs ? json_text_str(g->differs) : json_null());
	json_t *lat = json_object();
	for (int k = 0; k < CMP_NCLASS; k++) {
		if (!g->cls[k].n)
			continue;
		json_t *l = json_object();
		json_object_set_new(l, "N", json_integer((json_int_t)g->cls[k].n));
		json_object_set_new(l, "p50", json_real(cmp_quantile(&g->cls[k], 50)));
		json_object_set_new(l, "p99", json_real(cmp_quantile(&g->cls[k], 99)));
		json_object_set_new(l, "exact", json_boolean(cmp_exact(&g->cls[k])));
		json_object_set_new(lat, cmp_class_names[k], l);
	}
	json_object_set_new(o, "lat_ns", lat);
	return o;
}

json_t *compare_json(const struct compare *c)
{
	json_t *root = json_object();
	json_t *sets = json_array();
	json_t *rows = json_array();
	if (!root || !sets || !rows) {
		json_decref(root);
		json_decref(sets);
		json_decref(rows);
		return NULL;
	}
	json_object_set_new(root, "baseline", c->nsets ? json_text_str(c->sets[0].label) : json_null());
	for (size_t s = 0; s < c->nsets; s++) {
		json_t *o = json_object();
		json_object_set_new(o, "label", json_text_str(c->sets[s].label));
		json_object_set_new(o, "path", json_text_str(c->sets[s].path));
		json_object_set_new(o, "fstype", json_string(c->sets[s].fstype ? c->sets[s].fstype : ""));
		json_object_set_new(o, "mixed", c->sets[s].mixed ? json_text_str(c->sets[s].mixed) : json_null());
		json_object_set_new(o, "device", json_string(c->sets[s].device ? c->sets[s].device : ""));
		json_object_set_new(o, "dir", json_string(c->sets[s].dir ? c->sets[s].dir : ""));
		json_object_set_new(o, "scheduler", json_string(c->sets[s].scheduler ? c->sets[s].scheduler : ""));
		json_object_set_new(o, "rotational", c->sets[s].rotational >= 0 ? json_boolean(c->sets[s].rotational)
									   : json_null());
		json_object_set_new(o, "configurations", json_integer((json_int_t)c->sets[s].ncfg));
		json_array_append_new(sets, o);
	}
	json_object_set_new(root, "sets", sets);
	for (size_t r = 0; r < c->nrows; r++) {
		const struct cmp_row *row = &c->rows[r];
		json_t *o = json_object();
		json_object_set_new(o, "trace", json_string(row->trace));
		json_object_set_new(o, "mode", json_string(row->mode));
		json_object_set_new(o, "processes", json_integer(row->procs));
		json_t *res = json_array();
		for (size_t s = 0; s < c->nsets; s++) {
			json_t *cj = row->cell[s] ? config_json(row->cell[0], row->cell[s], c->sets[s].label, s == 0)
						  : json_null();
			json_array_append_new(res, cj ? cj : json_null());
		}
		json_object_set_new(o, "results", res);
		json_array_append_new(rows, o);
	}
	json_object_set_new(root, "rows", rows);
	return root;
}
