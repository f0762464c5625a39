/*
 * plot.c - gnuplot data and scripts for `replay plot`.
 *
 * The numbers come from struct compare (the same pooling and medians as
 * `replay compare`), so a plot never disagrees with the table.  Each
 * script renders PNG (pngcairo when gnuplot has it, else the libgd png
 * terminal) and SVG with the same body.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report/plot.h"

extern char **environ;

void plot_list_release(struct plot_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	l->names = NULL;
	l->n = 0;
}

static int list_add(struct plot_list *l, const char *name)
{
	char **nn = realloc(l->names, (l->n + 1) * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	l->names = nn;
	if (!(l->names[l->n] = strdup(name)))
		return -ENOMEM;
	l->n++;
	return 0;
}

/* A gnuplot single-quoted string: only ' needs doubling. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if (*s != '\n')
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* A data-file string column: double-quoted, no quotes or newlines inside. */
static void dat_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fputc(*s == '"' || *s == '\n' ? '\'' : *s, f);
	fputc('"', f);
}

static FILE *open_in(const char *dir, const char *name, const char *ext, struct rerr *e, int *rc)
{
	char *path;
	if (asprintf(&path, "%s/%s.%s", dir, name, ext) < 0) {
		*rc = -ENOMEM;
		return NULL;
	}
	FILE *f = fopen(path, "w");
	if (!f)
		*rc = rerr_set(e, -errno, "cannot create '%s': %s", path, strerror(errno));
	free(path);
	return f;
}

static int close_checked(FILE *f, const char *dir, const char *name, const char *ext, struct rerr *e)
{
	int bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return rerr_set(e, -EIO, "cannot write '%s/%s.%s'", dir, name, ext);
	return 0;
}

/*
 * Write NAME.gp: the preamble `pre`, then body twice (PNG, then SVG).
 */
static int write_script(const char *dir, const char *name, int w, int h, const char *body, struct rerr *e)
{
	int rc = 0;
	FILE *f = open_in(dir, name, "gp", e, &rc);
	if (!f)
		return rc;
	fprintf(f, "# %s.gp - written by `replay plot`; render with: gnuplot %s.gp\n"
		   "# data: %s.dat\n", name, name, name);
	fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		   "    set terminal pngcairo size %d,%d font 'sans,11' noenhanced\n"
		   "} else {\n"
		   "    set terminal png size %d,%d noenhanced\n"
		   "}\n"
		   "set output '%s.png'\n%s"
		   "set terminal svg size %d,%d font 'sans,11' noenhanced\n"
		   "set output '%s.svg'\n%s"
		   "unset output\n",
		w, h, w, h, name, body, w, h, name, body);
	return close_checked(f, dir, name, "gp", e);
}

/*
 * A figure: NAME.dat written by dat(), then NAME.gp from the body gp()
 * writes (it also gives the size, which may depend on the data), and name
 * listed in out.
 */
typedef void (*fig_dat_fn)(FILE *f, void *ctx);
typedef void (*fig_gp_fn)(FILE *b, void *ctx, int *w, int *h);

static int write_figure(const char *dir, const char *name, fig_dat_fn dat, fig_gp_fn gp, void *ctx,
			struct plot_list *out, struct rerr *e)
{
	int rc = 0, w = 0, h = 0;
	char *body = NULL;
	size_t blen = 0;
	FILE *f = open_in(dir, name, "dat", e, &rc);

	if (!f)
		return rc;
	dat(f, ctx);
	if ((rc = close_checked(f, dir, name, "dat", e)) < 0)
		return rc;
	FILE *b = open_memstream(&body, &blen);
	if (!b)
		return -ENOMEM;
	gp(b, ctx, &w, &h);
	rc = fclose(b) != 0 ? -ENOMEM : write_script(dir, name, w, h, body, e);
	free(body);
	if (rc < 0)
		return rc;
	return list_add(out, name);
}

/* ---- completion bars ------------------------------------------------ */

static int uint_cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

static bool has_base(const struct cmp_row *row)
{
	const struct cmp_config *b = row->cell[0];
	return b && b->ncomplete && b->median > 0;
}

/* One completion figure (a mode): its panels and scale. */
struct cfig {
	const struct compare *c;
	const char *mode;
	char name[64];
	bool par;                /* parallel: one panel per process count */
	unsigned *groups;        /* process counts, sorted (0: sequential) */
	size_t ngroups, maxtraces;
	double ymax;
};

static bool in_group(const struct cfig *fg, const struct cmp_row *row, unsigned procs)
{
	return !strcmp(row->mode, fg->mode) && (!fg->par || row->procs == procs) && has_base(row);
}

/* The panels: every process count with a row that has a complete
 * baseline (rows without one cannot be normalized: left out; `replay
 * compare` shows their absolute times). */
static int completion_groups(struct cfig *fg)
{
	const struct compare *c = fg->c;

	for (size_t r = 0; r < c->nrows; r++) {
		unsigned p = fg->par ? c->rows[r].procs : 0;
		size_t g;
		if (!in_group(fg, &c->rows[r], p))
			continue;
		for (g = 0; g < fg->ngroups; g++)
			if (fg->groups[g] == p)
				break;
		if (g < fg->ngroups)
			continue;
		unsigned *ng = realloc(fg->groups, (fg->ngroups + 1) * sizeof(*ng));
		if (!ng)
			return -ENOMEM;
		fg->groups = ng;
		fg->groups[fg->ngroups++] = p;
	}
	if (fg->ngroups)
		qsort(fg->groups, fg->ngroups, sizeof(*fg->groups), uint_cmp);
	return 0;
}

/* One trace's line: per set normalized median, min, max; then the
 * baseline's absolute median in seconds and as text. */
static void completion_row(FILE *f, struct cfig *fg, const struct cmp_row *row)
{
	const struct compare *c = fg->c;
	const struct cmp_config *base = row->cell[0];
	char hb[32];

	dat_str(f, row->trace);
	for (size_t s = 0; s < c->nsets; s++) {
		const struct cmp_config *x = row->cell[s];
		if (!x || !x->ncomplete) {
			fprintf(f, "\t-\t-\t-");
			continue;
		}
		fprintf(f, "\t%.6f\t%.6f\t%.6f", x->median / base->median,
			x->min / base->median, x->max / base->median);
		if (x->max / base->median > fg->ymax)
			fg->ymax = x->max / base->median;
	}
	fprintf(f, "\t%.6f\t", base->median / 1e9);
	dat_str(f, fmt_ns(hb, sizeof(hb), base->median));
	fputc('\n', f);
}

/* One data block (gnuplot `index`) per panel. */
static void completion_dat(FILE *f, void *ctx)
{
	struct cfig *fg = ctx;
	const struct compare *c = fg->c;

	fprintf(f, "# completion time normalized to '%s' (median of the runs), min, max; mode %s\n",
		c->sets[0].label, fg->mode);
	for (size_t g = 0; g < fg->ngroups; g++) {
		size_t ntr = 0;
		if (fg->par)
			fprintf(f, "# block %zu: %u processes\n", g, fg->groups[g]);
		fprintf(f, "# trace");
		for (size_t s = 0; s < c->nsets; s++)
			fprintf(f, "\t%s:norm\tmin\tmax", c->sets[s].label);
		fprintf(f, "\tbaseline_s\tbaseline\n");
		for (size_t r = 0; r < c->nrows; r++) {
			if (!in_group(fg, &c->rows[r], fg->groups[g]))
				continue;
			ntr++;
			completion_row(f, fg, &c->rows[r]);
		}
		if (ntr > fg->maxtraces)
			fg->maxtraces = ntr;
		fprintf(f, "\n\n");
	}
}

/* One panel's plot command: a bar per set, the baseline's absolute time
 * above its bar (as in the study's Fig. 3). */
static void completion_panel(FILE *b, const struct cfig *fg, size_t g, double gap)
{
	const struct compare *c = fg->c;
	double off = -((double)c->nsets - 1) / 2.0 / ((double)c->nsets + gap);
	size_t ac = 2 + 3 * c->nsets;

	if (fg->par)
		fprintf(b, "set title '%u processes'\n", fg->groups[g]);
	else
		fprintf(b, "unset title\n");
	fprintf(b, "plot '%s.dat' index %zu ", fg->name, g);
	for (size_t s = 0; s < c->nsets; s++) {
		if (s)
			fprintf(b, ", \\\n     '' index %zu ", g);
		fprintf(b, "using %zu:%zu:%zu", 2 + 3 * s, 3 + 3 * s, 4 + 3 * s);
		if (s == 0)
			fprintf(b, ":xtic(1)");
		fprintf(b, " title ");
		gp_str(b, c->sets[s].label);
	}
	fprintf(b, ", \\\n     '' index %zu using ($0%+.6f):($4):(stringcolumn(%zu)) "
		   "with labels offset 0,0.8 font ',9' notitle\n", g, off, ac + 1);
}

/* A multiplot of the panels, side by side. */
static void completion_gp(FILE *b, void *ctx, int *w, int *h)
{
	const struct cfig *fg = ctx;
	const struct compare *c = fg->c;
	const double gap = 1.0;
	char yl[600];

	snprintf(yl, sizeof(yl), "completion time relative to %s (= 1.00; lower is faster)", c->sets[0].label);
	fprintf(b, "set multiplot layout 1,%zu title ", fg->ngroups);
	gp_str(b, fg->par ? "Parallel replay: completion time (makespan of all processes), "
			    "error bars: min-max over the runs"
			  : "Sequential replay: completion time (longest rank), error bars: min-max over the runs");
	fprintf(b, "\nset ylabel ");
	gp_str(b, yl);
	fprintf(b, "\nset xlabel 'trace'\n"
		   "set datafile missing '-'\n"
		   "set style data histogram\n"
		   "set style histogram errorbars gap %g lw 1\n"
		   "set style fill solid 0.75 border -1\n"
		   "set boxwidth 0.9\n"
		   "set yrange [0:%.3f]\n"
		   "set grid ytics\n"
		   "set key below horizontal\n"
		   "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'gray40'\n",
		gap, fg->ymax * 1.15);
	for (size_t g = 0; g < fg->ngroups; g++)
		completion_panel(b, fg, g, gap);
	fprintf(b, "unset multiplot\n");
	int panel = 160 + 70 * (int)(fg->maxtraces * c->nsets);
	if (panel < 420)
		panel = 420;
	*w = panel * (int)fg->ngroups;
	if (*w < 800)
		*w = 800;
	if (*w > 2400)
		*w = 2400;
	*h = 600;
}

/*
 * Grouped bars, one cluster per trace, one bar per set.  Sequential mode is
 * one panel; parallel mode gets one panel per process count (the study's
 * Fig. 4: 2, 8 and 32 processes), one data block (gnuplot `index`) each.
 */
static int completion_figure(const struct compare *c, const char *dir, const char *mode,
			     struct plot_list *out, struct rerr *e)
{
	struct cfig fg = { .c = c, .mode = mode, .ymax = 1.0, .par = strcmp(mode, "sequential") != 0 };
	int rc;

	snprintf(fg.name, sizeof(fg.name), "completion-%s", mode);
	rc = completion_groups(&fg);
	if (!rc && fg.ngroups)
		rc = write_figure(dir, fg.name, completion_dat, completion_gp, &fg, out, e);
	free(fg.groups);
	return rc;
}

/* ---- latency CDFs ---------------------------------------------------- */

static const double cdf_q[] = { 0, 0.5, 1, 2, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75,
				80, 85, 90, 95, 97, 98, 99, 99.5, 99.9, 99.95, 99.99, 100 };
#define NCDF_Q (sizeof(cdf_q) / sizeof(cdf_q[0]))

/* One latency figure (a row): a panel per op class any set has. */
struct lfig {
	const struct compare *c;
	const struct cmp_row *row;
	const char *name;
	int cls[CMP_NCLASS], ncls;
};

/* latency_us percent at each quantile of cdf_q. */
static void latency_cdf(FILE *f, const struct cmp_class *k)
{
	for (size_t q = 0; q < NCDF_Q; q++) {
		double x = cmp_quantile(k, cdf_q[q]);
		if (x > 0)
			fprintf(f, "%.6g\t%g\n", x / 1e3, cdf_q[q]);
	}
}

/* One data block per (class, set), in that order; blocks separated by
 * two blank lines so gnuplot's `index` selects them. */
static void latency_dat(FILE *f, void *ctx)
{
	const struct lfig *lf = ctx;
	const struct compare *c = lf->c;
	size_t idx = 0;

	fprintf(f, "# latency CDF pooled over processes and runs: latency_us percent\n");
	for (int i = 0; i < lf->ncls; i++) {
		int k = lf->cls[i];
		for (size_t s = 0; s < c->nsets; s++, idx++) {
			const struct cmp_config *g = lf->row->cell[s];
			fprintf(f, "# block %zu: class %s, %s\n", idx, cmp_class_names[k], c->sets[s].label);
			if (g && g->cls[k].n)
				latency_cdf(f, &g->cls[k]);
			else
				fprintf(f, "- -\n");
			fprintf(f, "\n\n");
		}
	}
}

static void latency_gp(FILE *b, void *ctx, int *w, int *h)
{
	const struct lfig *lf = ctx;
	const struct compare *c = lf->c;
	int cols = lf->ncls <= 3 ? lf->ncls : (lf->ncls == 4 ? 2 : 3);
	int rows = (lf->ncls + cols - 1) / cols;
	char title[700];
	size_t idx = 0;

	snprintf(title, sizeof(title), "Latency CDF per op class: %s, %s, %u processes (all processes and runs)",
		 lf->row->trace, lf->row->mode, lf->row->procs);
	fprintf(b, "set datafile missing '-'\nset multiplot layout %d,%d title ", rows, cols);
	gp_str(b, title);
	/* y stretched towards the tail, -log10(1 - p/100): p50, p90, p99,
	 * p99.9 and p99.99 evenly spaced, so tails are readable; dashed lines
	 * mark p50, p99 and p99.9 */
	fprintf(b, "\nset encoding utf8\nset logscale x 10\n"
		   "set format x '%%g'\n"
		   "set xlabel 'latency (\xc2\xb5s, log scale)'\n"
		   "set ylabel 'ops at or below (percentile, tail stretched)'\n"
		   "set yrange [0:4]\n"
		   "set ytics ('p0' 0, 'p50' 0.30103, 'p90' 1, 'p99' 2, 'p99.9' 3, 'p99.99' 4)\n"
		   "set arrow 1 from graph 0, first 0.30103 to graph 1, first 0.30103 nohead dt 2 lc 'gray40'\n"
		   "set arrow 2 from graph 0, first 2 to graph 1, first 2 nohead dt 2 lc 'gray40'\n"
		   "set arrow 3 from graph 0, first 3 to graph 1, first 3 nohead dt 2 lc 'gray40'\n"
		   "tail(p) = p >= 99.99 ? 4 : -log10(1 - p / 100.0)\n"
		   "set grid\n"
		   "set key below horizontal\n");
	for (int i = 0; i < lf->ncls; i++) {
		fprintf(b, "set title '%s'\nplot ", cmp_class_names[lf->cls[i]]);
		for (size_t s = 0; s < c->nsets; s++, idx++) {
			if (s)
				fprintf(b, ", \\\n     ");
			fprintf(b, "'%s.dat' index %zu using 1:(tail($2)) with linespoints pt 7 ps 0.4 lw 2 title ",
				lf->name, idx);
			gp_str(b, c->sets[s].label);
		}
		fputc('\n', b);
	}
	fprintf(b, "unset multiplot\n");
	*w = 420 * cols + 80;
	*h = 360 * rows + 60;
}

static int latency_figure(const struct compare *c, const struct cmp_row *row, const char *dir,
			  const char *name, struct plot_list *out, struct rerr *e)
{
	struct lfig lf = { .c = c, .row = row, .name = name };

	for (int k = 0; k < CMP_NCLASS; k++) {
		for (size_t s = 0; s < c->nsets; s++)
			if (row->cell[s] && row->cell[s]->cls[k].n) {
				lf.cls[lf.ncls++] = k;
				break;
			}
	}
	if (!lf.ncls)
		return 0;
	return write_figure(dir, name, latency_dat, latency_gp, &lf, out, e);
}

/* ---- throughput timelines -------------------------------------------- */

/* One timeline figure (a set's configuration): a line per process. */
struct tfig {
	const struct cmp_set *set;
	const struct cmp_config *g;
	const char *name;
	bool par;                /* parallel: also the sum over processes */
	size_t nl, maxn;         /* processes with samples, most samples  */
};

/* One step line: sample k covers [k, k+1) intervals; `with steps` holds
 * each value until the next point, hence the closing point. */
static void timeline_block(FILE *f, const struct cmp_timeline *t)
{
	double mibs = 0;

	fprintf(f, "# block: rank %d copy %d\n", t->rank, t->copy);
	for (size_t k = 0; k < t->n; k++) {
		double prev = k ? t->bytes[k - 1] : 0;
		mibs = (t->bytes[k] - prev) / (t->interval_ns / 1e9) / 1048576.0;
		fprintf(f, "%.6f\t%.6f\n", (double)k * t->interval_ns / 1e9, mibs);
	}
	fprintf(f, "%.6f\t%.6f\n", (double)t->n * t->interval_ns / 1e9, mibs);
	fprintf(f, "\n\n");
}

/* The sum over processes at each sample (same interval, same start). */
static void timeline_sum(FILE *f, const struct cmp_config *g, size_t maxn)
{
	double iv0 = g->tl[0].interval_ns, mibs = 0;

	fprintf(f, "# block: all processes\n");
	for (size_t k = 0; k < maxn; k++) {
		double sum = 0;
		for (size_t j = 0; j < g->ntl; j++) {
			const struct cmp_timeline *t = &g->tl[j];
			if (k < t->n)
				sum += t->bytes[k] - (k ? t->bytes[k - 1] : 0);
		}
		mibs = sum / (iv0 / 1e9) / 1048576.0;
		fprintf(f, "%.6f\t%.6f\n", (double)k * iv0 / 1e9, mibs);
	}
	fprintf(f, "%.6f\t%.6f\n", (double)maxn * iv0 / 1e9, mibs);
	fprintf(f, "\n\n");
}

static void timeline_dat(FILE *f, void *ctx)
{
	const struct tfig *tf = ctx;
	const struct cmp_config *g = tf->g;

	fprintf(f, "# throughput per process (first complete run of %s): time_s MiB_per_s; one block per process\n",
		g->src);
	for (size_t j = 0; j < g->ntl; j++)
		if (g->tl[j].n)
			timeline_block(f, &g->tl[j]);
	if (tf->par)
		timeline_sum(f, g, tf->maxn);
}

/* One step line per process (each titled when there are few), and the
 * sum in parallel mode. */
static void timeline_gp(FILE *b, void *ctx, int *w, int *h)
{
	const struct tfig *tf = ctx;
	const struct cmp_config *g = tf->g;
	bool each_titled = tf->nl <= 8;
	char title[900];
	size_t blk = 0;

	snprintf(title, sizeof(title), "Throughput over time: %s, %s, %s, %u processes (first complete run)",
		 tf->set->label, g->trace, g->mode, g->procs);
	fprintf(b, "set title ");
	gp_str(b, title);
	fprintf(b, "\nset xlabel %s\n"
		   "set ylabel 'throughput (MiB/s)'\n"
		   "set yrange [0:*]\n"
		   "set grid\n"
		   "set key outside right top\n"
		   "set linetype 8 lc rgb '#a0522d'\n",
		tf->par ? "'time since the start (s)'" : "'time since the rank started (s)'");
	fprintf(b, "plot ");
	for (size_t j = 0; j < g->ntl; j++) {
		const struct cmp_timeline *t = &g->tl[j];
		if (!t->n)
			continue;
		if (blk)
			fprintf(b, ", \\\n     ");
		fprintf(b, "'%s.dat' index %zu using 1:2 with steps ", tf->name, blk);
		if (each_titled && t->copy)
			fprintf(b, "lw 1.5 title 'rank %d (copy %d)'", t->rank, t->copy);
		else if (each_titled)
			fprintf(b, "lw 1.5 title 'rank %d'", t->rank);
		else if (blk == 0)
			fprintf(b, "lc rgb '#8090a0' lw 1 title 'each process (%zu)'", tf->nl);
		else
			fprintf(b, "lc rgb '#8090a0' lw 1 notitle");
		blk++;
	}
	if (tf->par)
		fprintf(b, ", \\\n     '%s.dat' index %zu using 1:2 with steps lc rgb 'black' lw 2.5 "
			   "title 'all processes'", tf->name, blk);
	fputc('\n', b);
	*w = 1000;
	*h = 520;
}

static int timeline_figure(const struct cmp_set *set, const struct cmp_config *g, const char *dir,
			   const char *name, struct plot_list *out, struct rerr *e)
{
	struct tfig tf = { .set = set, .g = g, .name = name, .par = strcmp(g->mode, "sequential") != 0 };

	for (size_t j = 0; j < g->ntl; j++)
		if (g->tl[j].n) {
			tf.nl++;
			if (g->tl[j].n > tf.maxn)
				tf.maxn = g->tl[j].n;
		}
	if (!tf.nl)
		return 0;
	return write_figure(dir, name, timeline_dat, timeline_gp, &tf, out, e);
}

int plot_write(const struct compare *c, const char *dir, struct plot_list *out, struct rerr *e)
{
	int rc;
	if ((rc = completion_figure(c, dir, "sequential", out, e)) < 0 ||
	    (rc = completion_figure(c, dir, "parallel", out, e)) < 0)
		return rc;
	/* figure names: latency-TRACE-MODE-N, timeline-LABEL-TRACE-MODE-N */
	for (size_t r = 0; r < c->nrows && rc == 0; r++) {
		const struct cmp_row *row = &c->rows[r];
		char *tn = cmp_safe_name(row->trace), *mn = cmp_safe_name(row->mode), *name = NULL;
		if (!tn || !mn || asprintf(&name, "latency-%s-%s-%u", tn, mn, row->procs) < 0) {
			name = NULL;
			rc = -ENOMEM;
		} else {
			rc = latency_figure(c, row, dir, name, out, e);
		}
		for (size_t s = 0; s < c->nsets && rc == 0; s++) {
			if (!row->cell[s])
				continue;
			char *lab = cmp_safe_name(c->sets[s].label), *tname = NULL;
			if (!lab || asprintf(&tname, "timeline-%s-%s-%s-%u", lab, tn, mn, row->procs) < 0) {
				tname = NULL;
				rc = -ENOMEM;
			} else {
				rc = timeline_figure(&c->sets[s], row->cell[s], dir, tname, out, e);
			}
			free(lab);
			free(tname);
		}
		free(tn);
		free(mn);
		free(name);
	}
	return rc;
}

int plot_render(const char *dir, const char *name, struct rerr *e)
{
	posix_spawn_file_actions_t fa;
	char *script = NULL, *log = NULL;
	int rc, status;
	pid_t pid;

	if (asprintf(&script, "%s.gp", name) < 0 || asprintf(&log, "%s.log", name) < 0) {
		free(script);
		return -ENOMEM;
	}
	if ((rc = posix_spawn_file_actions_init(&fa)) != 0) {
		rc = -rc;
		goto out_free;
	}
	if ((rc = posix_spawn_file_actions_addchdir_np(&fa, dir)) != 0 ||
	    (rc = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0644)) != 0 ||
	    (rc = posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO)) != 0) {
		rc = -rc;
		goto out;
	}
	char *argv[] = { "gnuplot", script, NULL };
	rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	if (rc == ENOENT) {
		rc = rerr_set(e, -ENOENT, "gnuplot not found: install the Debian package 'gnuplot-nox' "
				  "(the data and scripts are in '%s')", dir);
		goto out;
	}
	if (rc != 0) {
		rc = rerr_set(e, -rc, "cannot run gnuplot: %s", strerror(rc));
		goto out;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			rc = rerr_set(e, -errno, "waiting for gnuplot: %s", strerror(errno));
			goto out;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		rc = rerr_set(e, -ENOENT, "gnuplot not found: install the Debian package 'gnuplot-nox' "
				  "(the data and scripts are in '%s')", dir);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		rc = rerr_set(e, -EIO, "gnuplot failed on '%s/%s' (see '%s/%s')", dir, script, dir, log);
	} else {
		/* keep the log only when gnuplot had something to say */
		char *lp = NULL;
		struct stat st;
		if (asprintf(&lp, "%s/%s", dir, log) >= 0 && stat(lp, &st) == 0 && st.st_size == 0)
			unlink(lp);
		free(lp);
		rc = 0;
	}
out:
	posix_spawn_file_actions_destroy(&fa);
out_free:
	free(script);
	free(log);
	return rc;
}
