/*
 * html.c - the self-contained HTML page of a comparison (html.h).
 *
 * Everything is written inline: one <style> block, tables, and SVG
 * figures drawn here from struct compare (the same pooled numbers as the
 * `replay compare` table, so page and table never disagree).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/html.h"
#include "util/util.h"

#define NPAL 8
static const char *const palette[NPAL] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
};
static const double marks[] = { 50, 99, 99.9 };
#define NMARKS (sizeof(marks) / sizeof(marks[0]))

/* Plot area inside an SVG of W x H. */
#define W 640
#define H 300
#define ML 70
#define MR 20
#define MT 20
#define MB 45
#define PW (W - ML - MR)
#define PH (H - MT - MB)

static const char *mib(char *buf, size_t len, double bytes)
{
	snprintf(buf, len, "%.2f MiB", bytes / 1048576.0);
	return buf;
}

/* Text with &, <, >, " escaped. */
static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static const char *color(size_t set)
{
	return palette[set % NPAL];
}

/* The first result set's cell of a row that has one (the workload is the
 * same trace in every set). */
static const struct cmp_config *first_cell(const struct compare *c, const struct cmp_row *r)
{
	for (size_t s = 0; s < c->nsets; s++)
		if (r->cell[s])
			return r->cell[s];
	return NULL;
}

static void row_title(FILE *f, const struct cmp_row *r)
{
	esc(f, r->trace);
	fprintf(f, ", %s, %u process%s", r->mode, r->procs, r->procs == 1 ? "" : "es");
}

static void head(FILE *f)
{
	char when[64];
	time_t now = time(NULL);
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", localtime_r(&now, &tm));
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>replay: storage evaluation</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:2em;color:#222;max-width:75em}\n"
	      "table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
	      "th,td{border:1px solid #bbb;padding:0.25em 0.6em;text-align:right;white-space:nowrap}\n"
	      "th{background:#eee}td.l,th.l{text-align:left}\n"
	      "svg{background:#fff;border:1px solid #ddd;margin:0.3em 0.6em 0.3em 0}\n"
	      "svg text{font-family:sans-serif;font-size:11px}\n"
	      ".sw{display:inline-block;width:0.9em;height:0.9em;margin-right:0.3em;vertical-align:middle}\n"
	      ".note{color:#666;font-size:90%}\n"
	      "</style>\n</head>\n<body>\n<h1>replay: storage evaluation</h1>\n", f);
	fprintf(f, "<p class=\"note\">Written by replay %s on %s. Completion times are medians "
		"over the complete runs, [min&ndash;max] their spread, normalized to the first "
		"target (1.00); latency percentiles are pooled over every process of every "
		"complete run.</p>\n", REPLAY_VERSION, when);
}

static void swatch(FILE *f, size_t s)
{
	fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span>", color(s));
}

static void targets(FILE *f, const struct compare *c)
{
	fputs("<h2>Targets</h2>\n<table>\n<tr><th class=\"l\">target</th><th class=\"l\">directory</th>"
	      "<th class=\"l\">file system</th><th class=\"l\">device</th><th>rotational</th>"
	      "<th class=\"l\">scheduler</th><th class=\"l\">results</th></tr>\n", f);
	for (size_t s = 0; s < c->nsets; s++) {
		const struct cmp_set *t = &c->sets[s];
		fputs("<tr><td class=\"l\">", f);
		swatch(f, s);
		esc(f, t->label);
		fputs("</td><td class=\"l\">", f);
		esc(f, t->dir);
		fputs("</td><td class=\"l\">", f);
		esc(f, t->fstype);
		fputs("</td><td class=\"l\">", f);
		esc(f, t->device);
		fprintf(f, "</td><td>%s</td><td class=\"l\">",
			t->rotational > 0 ? "yes" : t->rotational == 0 ? "no" : "unknown");
		esc(f, t->scheduler);
		fputs("</td><td class=\"l\">", f);
		esc(f, t->path);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	for (size_t s = 0; s < c->nsets; s++) {
		if (!c->sets[s].mixed)
			continue;
		fputs("<p class=\"warn\"><b>", f);
		esc(f, c->sets[s].label);
		fputs(" is not one target</b>: it also holds results on ", f);
		esc(f, c->sets[s].mixed);
		fputs(".</p>\n", f);
	}
}

static void workload_row(FILE *f, const struct cmp_row *r, const struct cmp_config *g)
{
	char b1[32], b2[32];
	double ops = 0;
	for (int k = 0; k < CMP_NCLASS; k++)
		ops += g->ops[k];
	fputs("<tr><td class=\"l\">", f);
	esc(f, r->trace);
	fputs("</td><td class=\"l\">", f);
	esc(f, g->format);
	fprintf(f, "</td><td class=\"l\">%s</td><td>%u</td><td>", r->mode, r->procs);
	if (g->ranks)
		fprintf(f, "%u", g->ranks);
	fputs("</td><td class=\"l\">", f);
	esc(f, g->engine);
	fprintf(f, "</td><td>%.0f</td>", ops);
	for (int k = 0; k < CMP_NCLASS; k++)
		fprintf(f, "<td>%.0f</td>", g->ops[k]);
	fprintf(f, "<td>%s</td><td>%s</td><td>%.0f</td></tr>\n",
		mib(b1, sizeof(b1), g->bytes[0]), mib(b2, sizeof(b2), g->bytes[1]), g->filtered);
}

static void workload(FILE *f, const struct compare *c)
{
	fputs("<h2>Workload</h2>\n<p class=\"note\">What one complete run replayed (from the "
	      "first target that has the configuration): ops per class and bytes over all "
	      "processes; <em>filtered</em> is the ops of the trace left out (the runtime's "
	      "own files).</p>\n<table>\n<tr><th class=\"l\">trace</th><th class=\"l\">format</th>"
	      "<th class=\"l\">mode</th><th>processes</th><th>trace ranks</th>"
	      "<th class=\"l\">engine</th><th>ops</th>", f);
	for (int k = 0; k < CMP_NCLASS; k++)
		fprintf(f, "<th>%s</th>", cmp_class_names[k]);
	fputs("<th>read</th><th>written</th><th>filtered</th></tr>\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_config *g = first_cell(c, &c->rows[i]);
		if (g && g->ncomplete)
			workload_row(f, &c->rows[i], g);
	}
	fputs("</table>\n", f);
}

static void completion_cell(FILE *f, const struct cmp_config *base, const struct cmp_config *g)
{
	char b[32];
	if (!g) {
		fputs("<td>&ndash;</td>", f);
		return;
	}
	if (!g->ncomplete) {
		fputs("<td>incomplete</td>", f);
		return;
	}
	fprintf(f, "<td>%s", fmt_ns(b, sizeof(b), g->median));
	if (base && base->ncomplete && base->median > 0) {
		char r0[24], r1[24], r2[24];
		fprintf(f, "<br>%s [%s&ndash;%s]%s", cmp_fmt_ratio(r0, sizeof(r0), g->median / base->median),
			cmp_fmt_ratio(r1, sizeof(r1), g->min / base->median),
			cmp_fmt_ratio(r2, sizeof(r2), g->max / base->median),
			base != g && cmp_within_spread(base, g) ? " ~" : "");
	}
	if (g->ncomplete < g->nruns)
		fprintf(f, "<br>%zu/%zu runs", g->ncomplete, g->nruns);
	char note[80];
	if (*cmp_failure_note(g, note, sizeof(note)))
		fprintf(f, "<br><b>%s</b>", note);
	fputs("</td>", f);
}

/* Horizontal bars: median normalized to the baseline, whiskers min..max. */
static void completion_svg(FILE *f, const struct compare *c, const struct cmp_row *r)
{
	const struct cmp_config *base = r->cell[0];
	if (!base || !base->ncomplete || !(base->median > 0))
		return;
	double top = 1;
	for (size_t s = 0; s < c->nsets; s++)
		if (r->cell[s] && r->cell[s]->ncomplete && r->cell[s]->max / base->median > top)
			top = r->cell[s]->max / base->median;
	top *= 1.1;
	int bh = 22, h = MT + (int)c->nsets * (bh + 8) + 30;
	fprintf(f, "<svg width=\"%d\" height=\"%d\" role=\"img\">\n",
		W, h);
	for (size_t s = 0; s < c->nsets; s++) {
		const struct cmp_config *g = r->cell[s];
		int y = MT + (int)s * (bh + 8);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", ML - 6, y + bh / 2 + 4);
		esc(f, c->sets[s].label);
		fputs("</text>\n", f);
		if (!g || !g->ncomplete)
			continue;
		double m = g->median / base->median, lo = g->min / base->median, hi = g->max / base->median;
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", ML, y,
			PW * m / top, bh, color(s));
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n",
			ML + PW * lo / top, ML + PW * hi / top, y + bh / 2, y + bh / 2);
		char rm[24];
		fprintf(f, "<text x=\"%.1f\" y=\"%d\">%s</text>\n", ML + PW * hi / top + 4, y + bh / 2 + 4,
			cmp_fmt_ratio(rm, sizeof(rm), m));
	}
	int ya = MT + (int)c->nsets * (bh + 8);
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n", ML, ML + PW, ya, ya);
	fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n",
		ML + PW / top, ML + PW / top, MT - 4, ya);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">completion time / baseline "
		"(bar: median, line: min&ndash;max over the runs)</text>\n</svg>\n", ML + PW / 2, ya + 20);
}

static void completion(FILE *f, const struct compare *c)
{
	fputs("<h2>Completion time</h2>\n<table>\n<tr><th class=\"l\">trace</th><th class=\"l\">mode</th>"
	      "<th>processes</th>", f);
	for (size_t s = 0; s < c->nsets; s++) {
		fputs("<th>", f);
		swatch(f, s);
		esc(f, c->sets[s].label);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		fputs("<tr><td class=\"l\">", f);
		esc(f, r->trace);
		fprintf(f, "</td><td class=\"l\">%s</td><td>%u</td>", r->mode, r->procs);
		for (size_t s = 0; s < c->nsets; s++)
			completion_cell(f, r->cell[0], r->cell[s]);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<p class=\"note\">~: within the spread of the baseline (the min&ndash;max "
	      "ranges overlap).</p>\n", f);
	/* results paired but run otherwise than their baseline */
	bool head = false;
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsets; s++) {
			const struct cmp_config *g = c->rows[i].cell[s];
			if (!g || !g->differs)
				continue;
			if (!head)
				fputs("<p class=\"warn\"><b>Not run alike</b> (their ratio is not the "
				      "storage's alone):</p>\n<ul>\n", f);
			head = true;
			fputs("<li>", f);
			row_title(f, &c->rows[i]);
			fputs(", ", f);
			esc(f, c->sets[s].label);
			fputs(" against ", f);
			esc(f, c->sets[0].label);
			fputs(": ", f);
			esc(f, g->differs);
			fputs("</li>\n", f);
		}
	if (head)
		fputs("</ul>\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		fputs("<h3>", f);
		row_title(f, &c->rows[i]);
		fputs("</h3>\n", f);
		completion_svg(f, c, &c->rows[i]);
	}
}

/* Percentile points a CDF line is drawn through (more in the tail). */
static double cdf_pct(int i, int n)
{
	double u = (double)i / n;             /* 0..1 */
	return 100.0 * (1.0 - pow(10.0, -4.0 * u)) / (1.0 - 1e-4);
}

static double xlog(double ns, double lo, double hi)
{
	if (ns < 1)
		ns = 1;
	return ML + PW * (log10(ns) - lo) / (hi - lo);
}

/* The CDF's y for a percentile, on a tail-stretched axis: y = -log10(1 -
 * p/100) from 0 (p0) to 4 (p99.99), so p50, p99, p99.9 are spread out. */
static double ytail(double pct)
{
	double q = 1.0 - pct / 100.0;
	double v = q <= 1e-4 ? 4.0 : -log10(q);
	return MT + PH - PH * v / 4.0;
}

static void cdf_axes(FILE *f, double lo, double hi, const char *cls)
{
	char b[32];
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n",
		ML, MT, PW, PH);
	for (double d = lo; d <= hi + 1e-9; d += 1) {
		double x = ML + PW * (d - lo) / (hi - lo);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", x, x, MT, MT + PH);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, MT + PH + 14,
			fmt_ns(b, sizeof(b), pow(10.0, d)));
	}
	static const double ticks[] = { 0, 50, 90, 99, 99.9, 99.99 };
	for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++) {
		double y = ytail(ticks[i]);
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, ML + PW, y, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">p%g</text>\n", ML - 4, y + 4, ticks[i]);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s latency (log scale)</text>\n",
		ML + PW / 2, H - 8, cls);
}

static void cdf_line(FILE *f, const struct cmp_class *k, size_t s, double lo, double hi)
{
	const int n = 120;
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" points=\"", color(s));
	for (int i = 0; i <= n; i++) {
		double p = cdf_pct(i, n);
		fprintf(f, "%.1f,%.1f ", xlog(cmp_quantile(k, p), lo, hi), ytail(p));
	}
	fputs("\"/>\n", f);
	for (size_t m = 0; m < NMARKS; m++)
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>p%g</title></circle>\n",
			xlog(cmp_quantile(k, marks[m]), lo, hi), ytail(marks[m]), color(s), marks[m]);
}

/* Decades spanning every set's latencies of class k in row r; false when
 * no set has ops of that class. */
static bool cdf_range(const struct compare *c, const struct cmp_row *r, int k, double *lo, double *hi)
{
	double mn = INFINITY, mx = 0;
	for (size_t s = 0; s < c->nsets; s++) {
		const struct cmp_config *g = r->cell[s];
		if (!g || !g->cls[k].n)
			continue;
		double a = cmp_quantile(&g->cls[k], 0), b = cmp_quantile(&g->cls[k], 100);
		mn = fmin(mn, a < 1 ? 1 : a);
		mx = fmax(mx, b < 1 ? 1 : b);
	}
	if (!(mx > 0))
		return false;
	*lo = floor(log10(mn));
	*hi = ceil(log10(mx));
	if (*hi <= *lo)
		*hi = *lo + 1;
	return true;
}

static void latency_table(FILE *f, const struct compare *c, const struct cmp_row *r, int k)
{
	char b[32];
	fputs("<table>\n<tr><th class=\"l\">target</th><th>ops</th><th>min</th>", f);
	for (size_t m = 0; m < NMARKS; m++)
		fprintf(f, "<th>p%g</th>", marks[m]);
	fputs("<th>max</th></tr>\n", f);
	for (size_t s = 0; s < c->nsets; s++) {
		const struct cmp_config *g = r->cell[s];
		if (!g || !g->cls[k].n)
			continue;
		fputs("<tr><td class=\"l\">", f);
		swatch(f, s);
		esc(f, c->sets[s].label);
		if (!cmp_exact(&g->cls[k]))
			fputs(" <i>(approximate)</i>", f);
		fprintf(f, "</td><td>%llu</td><td>%s</td>", (unsigned long long)g->cls[k].n,
			fmt_ns(b, sizeof(b), cmp_quantile(&g->cls[k], 0)));
		for (size_t m = 0; m < NMARKS; m++)
			fprintf(f, "<td>%s</td>", fmt_ns(b, sizeof(b), cmp_quantile(&g->cls[k], marks[m])));
		fprintf(f, "<td>%s</td></tr>\n", fmt_ns(b, sizeof(b), cmp_quantile(&g->cls[k], 100)));
	}
	fputs("</table>\n", f);
}

static void latency(FILE *f, const struct compare *c)
{
	fputs("<h2>Latency</h2>\n<p class=\"note\">Cumulative distribution of the op latencies per "
	      "class: x on a log scale, y stretched towards the tail (p50, p90, p99, p99.9, p99.99 "
	      "evenly spaced); dots mark p50, p99 and p99.9. <i>(approximate)</i>: pooled from "
	      "each job's own percentiles; results written with --output-format json+ carry "
	      "bins, and are exact.</p>\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		fputs("<h3>", f);
		row_title(f, r);
		fputs("</h3>\n", f);
		for (int k = 0; k < CMP_NCLASS; k++) {
			double lo, hi;
			if (!cdf_range(c, r, k, &lo, &hi))
				continue;
			fprintf(f, "<h4>%s</h4>\n<svg width=\"%d\" "
				"height=\"%d\" role=\"img\">\n", cmp_class_names[k], W, H);
			cdf_axes(f, lo, hi, cmp_class_names[k]);
			for (size_t s = 0; s < c->nsets; s++)
				if (r->cell[s] && r->cell[s]->cls[k].n)
					cdf_line(f, &r->cell[s]->cls[k], s, lo, hi);
			fputs("</svg>\n", f);
			latency_table(f, c, r, k);
		}
	}
}

/* Throughput (bytes per ns) of the sum of the jobs at sample i. */
static double tl_rate(const struct cmp_config *g, size_t i)
{
	double sum = 0;
	for (size_t j = 0; j < g->ntl; j++) {
		const struct cmp_timeline *t = &g->tl[j];
		if (i < t->shift || i - t->shift >= t->n)
			continue;
		size_t k = i - t->shift;
		sum += (t->bytes[k] - (k ? t->bytes[k - 1] : 0)) / t->interval_ns;
	}
	return sum;
}

static size_t tl_len(const struct cmp_config *g)
{
	size_t n = 0;
	for (size_t j = 0; j < g->ntl; j++)
		if (g->tl[j].n + g->tl[j].shift > n)
			n = g->tl[j].n + g->tl[j].shift;
	return n;
}

static void timeline_svg(FILE *f, const struct compare *c, const struct cmp_row *r)
{
	double top = 0, tmax = 0;
	for (size_t s = 0; s < c->nsets; s++) {
		const struct cmp_config *g = r->cell[s];
		if (!g || !g->ntl)
			continue;
		for (size_t i = 0; i < tl_len(g); i++)
			top = fmax(top, tl_rate(g, i) * 1e9 / 1048576.0);
		tmax = fmax(tmax, (double)tl_len(g) * g->tl[0].interval_ns);
	}
	if (!(top > 0) || !(tmax > 0)) {
		fputs("<p class=\"note\">No throughput samples: the runs were shorter than the sampling "
		      "interval (see <code>replay run --sample-interval</code>).</p>\n", f);
		return;
	}
	top *= 1.1;
	fprintf(f, "<svg width=\"%d\" height=\"%d\" role=\"img\">\n"
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n",
		W, H, ML, MT, PW, PH);
	bool ms = tmax < 10e9;
	for (int i = 0; i <= 4; i++) {
		double x = ML + PW * i / 4.0, y = MT + PH - PH * i / 4.0;
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.*f</text>\n", x, MT + PH + 14,
			ms ? 0 : 1, tmax * i / 4.0 / (ms ? 1e6 : 1e9));
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", ML - 4, y + 4, top * i / 4.0);
	}
	for (size_t s = 0; s < c->nsets; s++) {
		const struct cmp_config *g = r->cell[s];
		if (!g || !g->ntl)
			continue;
		double iv = g->tl[0].interval_ns;
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", color(s));
		for (size_t i = 0; i < tl_len(g); i++) {
			double y = MT + PH - PH * (tl_rate(g, i) * 1e9 / 1048576.0) / top;
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", ML + PW * (double)i * iv / tmax, y,
				ML + PW * (double)(i + 1) * iv / tmax, y);
		}
		fputs("\"/>\n", f);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (%s); y: MiB/s, all processes</text>\n"
		"</svg>\n", ML + PW / 2, H - 8, ms ? "ms" : "s");
}

static void timelines(FILE *f, const struct compare *c)
{
	fputs("<h2>Throughput over time</h2>\n<p class=\"note\">Bytes read and written per sampling "
	      "interval, summed over the processes of the first complete run; in sequential mode "
	      "each process after those before it, as they ran.</p>\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		fputs("<h3>", f);
		row_title(f, &c->rows[i]);
		fputs("</h3>\n", f);
		timeline_svg(f, c, &c->rows[i]);
	}
}

int html_write(const struct compare *c, FILE *f)
{
	head(f);
	targets(f, c);
	workload(f, c);
	completion(f, c);
	latency(f, c);
	timelines(f, c);
	fputs("</body>\n</html>\n", f);
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
