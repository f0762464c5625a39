/*
 * hist.h - log-linear latency histogram, fixed size, no allocation.
 *
 * Values < 2^HIST_SUB_BITS are exact; above, each power of two is split
 * into 2^HIST_SUB_BITS buckets, so a percentile (the bucket midpoint) is
 * within 1/2^(HIST_SUB_BITS+1) < 1% of the true value.  Covers up to 2^48 ns
 * (~3.2 days); larger values land in the last bucket (max is exact).
 */
#ifndef REPLAY_HIST_H
#define REPLAY_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB      (1u << HIST_SUB_BITS)
#define HIST_MAX_BITS 48
#define HIST_NBUCKETS (HIST_SUB * (HIST_MAX_BITS - HIST_SUB_BITS + 1))

struct hist {
	uint64_t n;
	uint64_t min, max;      /* exact; meaningful when n > 0 (all zero: empty) */
	double sum, sumsq;      /* for mean and stddev       */
	uint32_t b[HIST_NBUCKETS];
};

void hist_init(struct hist *h);
/* Inline: the runner adds an op's latency to one per op. */
static inline unsigned hist_bucket(uint64_t v)
{
	if (v < HIST_SUB)
		return (unsigned)v;
	unsigned k = 63u - (unsigned)__builtin_clzll(v);           /* top bit */
	if (k >= HIST_MAX_BITS)
		return HIST_NBUCKETS - 1;
	unsigned group = k - HIST_SUB_BITS + 1;
	unsigned sub = (unsigned)(v >> (k - HIST_SUB_BITS)) & (HIST_SUB - 1);
	return group * HIST_SUB + sub;
}

static inline void hist_add(struct hist *h, uint64_t v)
{
	if (!h->n || v < h->min)
		h->min = v;
	h->n++;
	if (v > h->max)
		h->max = v;
	double d = (double)v;
	h->sum += d;
	h->sumsq += d * d;
	h->b[hist_bucket(v)]++;
}

void hist_merge(struct hist *dst, const struct hist *src);
double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h);
/* p in (0,100]; 0 when empty */
uint64_t hist_percentile(const struct hist *h, double p);
/* The same for np percentiles at once (one pass when p ascends). */
void hist_percentiles(const struct hist *h, const double *p, unsigned np, uint64_t *out);
uint64_t hist_bucket_mid(unsigned idx);

/* fio's default percentile list */
#define HIST_NPCT 17
extern const double hist_pcts[HIST_NPCT];  /* 1,5,10,20,30,40,50,60,70,80,90,95,99,99.5,99.9,99.95,99.99 */

#endif
