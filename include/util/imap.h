/*
 * imap.h - a small int64 -> pointer hash map (open addressing, linear
 * probing, backward-shift deletion), private to the trace front end
 * (builder.c, trace/strace.c) and the timing report (timing.c).  A NULL value marks an empty slot, so
 * values must not be NULL.
 */
#ifndef REPLAY_IMAP_H
#define REPLAY_IMAP_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

struct imap {
	int64_t *keys;
	void **vals;
	size_t cap, n;          /* cap: power of two; vals[i] == NULL: empty */
};

static inline size_t imap_slot(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static inline void *imap_get(const struct imap *m, int64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = imap_slot((uint64_t)key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static inline int imap_put(struct imap *m, int64_t key, void *val)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		int64_t *nk = calloc(ncap, sizeof(*nk));
		void **nv = calloc(ncap, sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->vals[i])
				continue;
			size_t j = imap_slot((uint64_t)m->keys[i], ncap);
			while (nv[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = m->keys[i];
			nv[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = ncap;
	}
	size_t i = imap_slot((uint64_t)key, m->cap);
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->vals[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

/* Remove with backward-shift deletion (no tombstones). */
static inline void imap_del(struct imap *m, int64_t key)
{
	if (!m->cap)
		return;
	size_t i = imap_slot((uint64_t)key, m->cap);
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->vals[i])
		return;
	m->vals[i] = NULL;
	m->n--;
	for (size_t j = (i + 1) & (m->cap - 1); m->vals[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = imap_slot((uint64_t)m->keys[j], m->cap);
		/* can j's entry move to i? only if home is not in (i, j] cyclically */
		int move = (i <= j) ? (home <= i || home > j) : (home <= i && home > j);
		if (move) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->vals[j] = NULL;
			i = j;
		}
	}
}

static inline void imap_release(struct imap *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct imap){ 0 };
}

#endif
