/* test_overlap.c - in-flight conflict rules and the interval index (overlap.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run/overlap.h"

static void t_rules(void **state)
{
	(void)state;
	struct overlap o;
	unsigned slot = 99;

	assert_int_equal(overlap_init(&o, 4, 8), 0);
	/* nothing in flight: never a conflict */
	assert_int_equal(overlap_conflicts(&o, 1, 0, 4096, 1, &slot), 0);
	overlap_add(&o, 2, 1, 4096, 4096, 1);          /* write file 1 [4096, 8192) */
	/* same file, overlapping bytes, read after write: wait for slot 2 */
	assert_int_equal(overlap_conflicts(&o, 1, 8191, 10, 0, &slot), 1);
	assert_int_equal(slot, 2);
	/* write after write on overlapping bytes */
	assert_int_equal(overlap_conflicts(&o, 1, 0, 4097, 1, NULL), 1);
	/* adjacent ranges do not overlap (N-1 strided writes run together) */
	assert_int_equal(overlap_conflicts(&o, 1, 8192, 4096, 1, NULL), 0);
	assert_int_equal(overlap_conflicts(&o, 1, 0, 4096, 1, NULL), 0);
	/* another file is independent */
	assert_int_equal(overlap_conflicts(&o, 2, 4096, 4096, 1, NULL), 0);
	/* zero length never conflicts */
	assert_int_equal(overlap_conflicts(&o, 1, 5000, 0, 1, NULL), 0);
	overlap_add(&o, 0, 3, 0, 1 << 20, 0);           /* read file 3 [0, 1 MiB) */
	/* read after read: independent */
	assert_int_equal(overlap_conflicts(&o, 3, 100, 100, 0, NULL), 0);
	/* write after read: wait */
	assert_int_equal(overlap_conflicts(&o, 3, 100, 100, 1, &slot), 1);
	assert_int_equal(slot, 0);
	assert_int_equal(o.busy, 2);
	overlap_done(&o, 2);
	overlap_done(&o, 2);                            /* twice: no underflow */
	assert_int_equal(o.busy, 1);
	assert_int_equal(overlap_conflicts(&o, 1, 8191, 10, 0, NULL), 0);
	overlap_done(&o, 0);
	assert_int_equal(o.busy, 0);
	assert_int_equal(overlap_conflicts(&o, 3, 100, 100, 1, NULL), 0);
	/* out-of-range slots are ignored */
	overlap_add(&o, 9, 1, 0, 10, 1);
	assert_int_equal(o.busy, 0);
	/* a slot reused keeps the count right */
	overlap_add(&o, 1, 5, 0, 10, 1);
	overlap_add(&o, 1, 5, 10, 10, 1);
	assert_int_equal(o.busy, 1);
	assert_int_equal(overlap_conflicts(&o, 5, 0, 10, 1, NULL), 0);
	assert_int_equal(overlap_conflicts(&o, 5, 15, 1, 0, NULL), 1);
	/* file ids beyond the table share one entry: conservative, never missed */
	overlap_add(&o, 3, 100, 0, 10, 1);
	assert_int_equal(overlap_conflicts(&o, 100, 5, 1, 0, NULL), 1);
	assert_int_equal(overlap_conflicts(&o, 200, 5, 1, 0, NULL), 1);
	overlap_release(&o);
}

/* A file's ops stay in its list while few, while all are reads, or while
 * no check looks inside the span they cover; a check inside it past
 * OVL_LIST_MAX ops in flight moves them into the trees, and the file is
 * listed again once idle. */
static void t_lists(void **state)
{
	(void)state;
	struct overlap o;
	unsigned slot = 99, n = OVL_LIST_MAX + 4, i;

	assert_int_equal(overlap_init(&o, n + 2, 2), 0);
	overlap_add(&o, 0, 1, 0, 100, 0);
	overlap_add(&o, 1, 1, 50, 100, 0);
	overlap_add(&o, 2, 1, 500, 100, 0);
	assert_int_equal(o.f[1].indexed, 0);
	assert_int_equal(o.f[1].reads, UINT32_MAX);
	assert_int_equal(overlap_conflicts(&o, 1, 0, 1000, 0, NULL), 0);
	overlap_done(&o, 1);                            /* out of the middle of the list */
	assert_int_equal(o.f[1].inflight, 2);
	assert_int_equal(overlap_conflicts(&o, 1, 520, 1, 1, &slot), 1);
	assert_int_equal(slot, 2);
	assert_int_equal(overlap_conflicts(&o, 1, 120, 300, 1, NULL), 0);
	/* a write joins the short list: reads are checked against it */
	overlap_add(&o, 3, 1, 700, 10, 1);
	assert_int_equal(o.f[1].indexed, 0);
	assert_int_equal(o.f[1].writes, UINT32_MAX);
	assert_int_equal(o.f[1].nwrites, 1);
	assert_int_equal(overlap_conflicts(&o, 1, 705, 1, 0, &slot), 1);
	assert_int_equal(slot, 3);
	assert_int_equal(overlap_conflicts(&o, 1, 50, 10, 0, NULL), 0);   /* read on reads */
	assert_int_equal(overlap_conflicts(&o, 1, 50, 10, 1, &slot), 1);  /* write on a read */
	assert_int_equal(slot, 0);
	overlap_done(&o, 0);
	overlap_done(&o, 2);
	overlap_done(&o, 3);
	assert_int_equal(o.f[1].inflight, 0);
	assert_int_equal(o.f[1].nwrites, 0);
	assert_int_equal(o.busy, 0);

	/* reads only: listed at any count; the first write checked indexes */
	for (i = 0; i < n; i++)
		overlap_add(&o, i, 1, i * 10, 10, 0);
	assert_int_equal(o.f[1].indexed, 0);
	assert_int_equal(overlap_conflicts(&o, 1, 0, 1000, 0, NULL), 0);
	assert_int_equal(o.f[1].indexed, 0);
	assert_int_equal(overlap_conflicts(&o, 1, 35, 1, 1, &slot), 1);
	assert_int_equal(slot, 3);
	assert_int_equal(o.f[1].indexed, 1);
	assert_int_equal(o.f[1].list, UINT32_MAX);
	assert_true(o.f[1].reads != UINT32_MAX);
	overlap_add(&o, n, 1, 5000, 10, 1);             /* indexed: into the write tree */
	assert_true(o.f[1].writes != UINT32_MAX);
	assert_int_equal(overlap_conflicts(&o, 1, 5005, 1, 0, &slot), 1);
	assert_int_equal(slot, n);
	for (i = 0; i <= n; i++)
		overlap_done(&o, i);
	assert_int_equal(o.f[1].indexed, 0);
	assert_int_equal(o.f[1].reads, UINT32_MAX);
	assert_int_equal(o.f[1].writes, UINT32_MAX);

	/* writes: listed up to OVL_LIST_MAX in flight; past it, listed still
	 * until a check looks inside the span they cover, then indexed */
	for (i = 0; i < OVL_LIST_MAX; i++)
		overlap_add(&o, i, 1, i * 10, 10, 1);
	assert_int_equal(o.f[1].indexed, 0);
	assert_int_equal(overlap_conflicts(&o, 1, 15, 1, 0, &slot), 1);
	assert_int_equal(slot, 1);
	overlap_add(&o, OVL_LIST_MAX, 1, 9000, 10, 0);  /* one more, a read */
	assert_int_equal(o.f[1].indexed, 0);
	/* outside [0, 9010): no look, still listed */
	assert_int_equal(overlap_conflicts(&o, 1, 9010, 100, 1, NULL), 0);
	assert_int_equal(overlap_conflicts(&o, 1, 160, 10, 0, NULL), 0);    /* past the writes */
	assert_int_equal(o.f[1].indexed, 0);
	/* inside: the long list goes into the trees */
	assert_int_equal(overlap_conflicts(&o, 1, 5000, 1, 1, NULL), 0);
	assert_int_equal(o.f[1].indexed, 1);
	assert_int_equal(o.f[1].list, UINT32_MAX);
	assert_int_equal(overlap_conflicts(&o, 1, 9005, 1, 1, &slot), 1);
	assert_int_equal(slot, OVL_LIST_MAX);
	assert_int_equal(overlap_conflicts(&o, 1, 25, 1, 0, &slot), 1);
	assert_int_equal(slot, 2);
	for (i = 0; i <= OVL_LIST_MAX; i++)
		overlap_done(&o, i);
	assert_int_equal(o.f[1].indexed, 0);
	assert_int_equal(o.busy, 0);

	/* a sequential stream of writes at any depth: each checked and added
	 * past the end of those in flight, completed in order: never indexed */
	for (i = 0; i < 4 * n; i++) {
		unsigned sl = i % n;
		if (i >= n)
			overlap_done(&o, sl);           /* the oldest completes */
		assert_int_equal(overlap_conflicts(&o, 1, (uint64_t)i * 4096, 4096, 1, NULL), 0);
		overlap_add(&o, sl, 1, (uint64_t)i * 4096, 4096, 1);
		/* a read just past what is in flight need not wait */
		assert_int_equal(overlap_conflicts(&o, 1, (uint64_t)(i + 1) * 4096, 1, 0, NULL), 0);
	}
	assert_int_equal(o.f[1].indexed, 0);
	/* a read of what is in flight must wait (the first look inside) */
	assert_int_equal(overlap_conflicts(&o, 1, (uint64_t)(4 * n - 3) * 4096 + 100, 1, 0, &slot), 1);
	assert_int_equal(slot, (4 * n - 3) % n);
	assert_int_equal(o.f[1].indexed, 1);
	for (i = 0; i < n; i++)
		overlap_done(&o, i);
	assert_int_equal(o.f[1].hi, 0);
	assert_int_equal(o.f[1].whi, 0);
	overlap_release(&o);
}

/* The model: every slot's range, checked one by one. */
struct model {
	uint64_t off[4096], end[4096];
	uint32_t file[4096];
	int write[4096], busy[4096];
};

/* overlap_add, and the same in the model */
static void add_both(struct overlap *o, struct model *m, unsigned slot, uint32_t file, uint64_t off,
		     uint64_t len, int write)
{
	overlap_add(o, slot, file, off, len, write);
	m->busy[slot] = 1;
	m->off[slot] = off;
	m->end[slot] = off + len;
	m->file[slot] = file;
	m->write[slot] = write;
}

static int model_conflicts(const struct model *m, unsigned n, uint32_t file, uint64_t off,
			   uint64_t len, int write)
{
	if (!len)
		return 0;
	for (unsigned i = 0; i < n; i++)
		if (m->busy[i] && m->file[i] == file && (write || m->write[i]) &&
		    off < m->end[i] && m->off[i] < off + len)
			return 1;
	return 0;
}

static uint64_t xs(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Random adds, completions and checks against the model: same answers,
 * and a named slot really is an in-flight op the new one must wait for.
 * Phases of 400 steps that mostly add, then mostly complete, with 2 files
 * in some rounds, take files past OVL_LIST_MAX and back to idle again and
 * again (lists, the move into the trees, trees, lists again). */
static void t_random(void **state)
{
	(void)state;
	static struct model m;
	const unsigned ns[] = { 1, 3, 12, 24, 40, 64, 512 };
	const unsigned nfiles[] = { 5, 2 };
	uint64_t x = 88172645463325252ull;

	for (size_t k = 0; k < 2 * sizeof(ns) / sizeof(ns[0]); k++) {
		unsigned n = ns[k / 2], nf = nfiles[k % 2];
		struct overlap o;

		memset(&m, 0, sizeof(m));
		assert_int_equal(overlap_init(&o, n, 4), 0);
		for (int step = 0; step < 60000; step++) {
			unsigned slot = (unsigned)(xs(&x) % n), r = (unsigned)(xs(&x) % 16);
			unsigned adds = (step / 400) % 2 ? 8 : 3;    /* of the 10 not checks */
			uint32_t file = (uint32_t)(xs(&x) % nf);  /* 4: beyond the table of 4 */
			/* small offsets so ranges meet often; zero lengths too */
			uint64_t off = xs(&x) % 4096, len = r == 0 ? 0 : xs(&x) % 300;
			int write = (xs(&x) % 4) == 0;

			if (r < 6) {
				unsigned got = UINT32_MAX;
				int c = overlap_conflicts(&o, file, off, len, write, &got);
				assert_int_equal(c, model_conflicts(&m, n, file, off, len, write));
				if (c) {
					assert_true(got < n && m.busy[got] && m.file[got] == file);
					assert_true(write || m.write[got]);
					assert_true(off < m.end[got] && m.off[got] < off + len);
				}
			} else if (r < 6 + adds) {
				add_both(&o, &m, slot, file, off, len, write);
			} else {
				overlap_done(&o, slot);
				m.busy[slot] = 0;
			}
			unsigned busy = 0;
			for (unsigned i = 0; i < n; i++)
				busy += (unsigned)m.busy[i];
			assert_int_equal(o.busy, busy);
		}
		overlap_release(&o);
	}
}

/* The same against the model for streams: offsets mostly climbing (so
 * most checks fall past the span in flight and need no look), now and
 * then back inside it, or far ahead; reads and writes; depths up to 4096. */
static void t_random_streams(void **state)
{
	(void)state;
	static struct model m;
	const unsigned ns[] = { 2, 17, 64, 4096 };
	uint64_t x = 1442695040888963407ull;

	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		unsigned n = ns[k];
		uint64_t pos[2] = { 0, 0 };
		struct overlap o;

		memset(&m, 0, sizeof(m));
		assert_int_equal(overlap_init(&o, n, 2), 0);
		for (int step = 0; step < 60000; step++) {
			unsigned slot = (unsigned)(xs(&x) % n), r = (unsigned)(xs(&x) % 16);
			uint32_t file = (uint32_t)(xs(&x) % 2);
			uint64_t len = 1 + xs(&x) % 8192, off = pos[file], j = xs(&x) % 32;
			int write = (xs(&x) % 3) != 0;

			if (j == 0)
				off = off > 100000 ? off - xs(&x) % 100000 : 0;     /* back inside */
			else if (j == 1)
				off += xs(&x) % 1000000;                             /* far ahead */
			if (r < 5) {
				unsigned got = UINT32_MAX;
				int c = overlap_conflicts(&o, file, off, len, write, &got);
				assert_int_equal(c, model_conflicts(&m, n, file, off, len, write));
				if (c)
					assert_true(got < n && m.busy[got] && m.file[got] == file &&
						    (write || m.write[got]) &&
						    off < m.end[got] && m.off[got] < off + len);
			} else if (r < 12) {
				add_both(&o, &m, slot, file, off, len, write);
				pos[file] = off + len;
			} else {
				overlap_done(&o, slot);
				m.busy[slot] = 0;
			}
		}
		overlap_release(&o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_rules),
		cmocka_unit_test(t_lists),
		cmocka_unit_test(t_random),
		cmocka_unit_test(t_random_streams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
