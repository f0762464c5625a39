/*
 * hist.c - log-linear histogram.  Bucket index: values below HIST_SUB are
 * their own bucket; for v >= HIST_SUB with top bit k, the group is
 * k - HIST_SUB_BITS + 1 and the sub-bucket the next HIST_SUB_BITS bits.
 */
#include <math.h>
#include <string.h>
#include "run/hist.h"

const double hist_pcts[HIST_NPCT] = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80,
				      90, 95, 99, 99.5, 99.9, 99.95, 99.99 };

/* All zero is empty (min and max mean something once n > 0), so memory
 * fresh from the kernel is a set of empty histograms already. */
void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

/* Lower bound and width of a bucket. */
static void bucket_range(unsigned idx, uint64_t *lo, uint64_t *width)
{
	if (idx < HIST_SUB) {
		*lo = idx;
		*width = 1;
		return;
	}
	unsigned group = idx / HIST_SUB, sub = idx % HIST_SUB;
	unsigned k = group + HIST_SUB_BITS - 1;
	*width = 1ull << (k - HIST_SUB_BITS);
	*lo = (1ull << k) + (uint64_t)sub * *width;
}

uint64_t hist_bucket_mid(unsigned idx)
{
	uint64_t lo, w;
	bucket_range(idx, &lo, &w);
	return lo + w / 2;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->n)
		return;
	if (!dst->n || src->min < dst->min)
		dst->min = src->min;
	dst->n += src->n;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	for (unsigned i = 0; i < HIST_NBUCKETS; i++)
		dst->b[i] += src->b[i];
}

double hist_mean(const struct hist *h)
{
	return h->n ? h->sum / (double)h->n : 0.0;
}

double hist_stddev(const struct hist *h)
{
	if (h->n < 2)
		return 0.0;
	double m = hist_mean(h);
	double var = (h->sumsq - (double)h->n * m * m) / (double)(h->n - 1);
	return var > 0 ? sqrt(var) : 0.0;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t v;
	hist_percentiles(h, &p, 1, &v);
	return v;
}

void hist_percentiles(const struct hist *h, const double *p, unsigned np, uint64_t *out)
{
	unsigned i = 0, k = 0;
	uint64_t seen = 0;
	for (; k < np; k++) {
		if (!h->n) {
			out[k] = 0;
			continue;
		}
		if (p[k] >= 100.0) {
			out[k] = h->max;
			continue;
		}
		/* rank of the sample at percentile p (1-based, nearest-rank) */
		uint64_t want = (uint64_t)ceil(p[k] / 100.0 * (double)h->n);
		if (want < 1)
			want = 1;
		if (k && p[k] < p[k - 1])       /* not ascending: start over */
			i = 0, seen = 0;
		for (; i < HIST_NBUCKETS && seen + h->b[i] < want; i++)
			seen += h->b[i];
		if (i == HIST_NBUCKETS) {
			out[k] = h->max;
			continue;
		}
		uint64_t v = hist_bucket_mid(i);
		out[k] = v < h->min ? h->min : v > h->max ? h->max : v;
	}
}
