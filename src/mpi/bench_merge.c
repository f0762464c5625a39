/*
 * bench_merge.c - replay-mpi-bench-merge N: the merge of replay-mpi's
 * results (mpi_merge_run: outcome reduce, slots gathered to the root, node
 * rows reduced by histogram bins) for N simulated plan processes placed
 * block-wise on the MPI processes it runs as.  Each simulated worker has
 * latency histograms of 1,000 values in three classes.  Prints the slowest
 * process's time of the median of 5 merges (scripts/bench-mpi).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "mpi/mpi_run.h"
#include "mpi/place.h"
#include "util/util.h"

struct mpi_ctx g_mpi;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void fill(struct worker_result *w, uint32_t i)
{
	uint64_t x = 88172645463325252ull ^ i;
	memset(w, 0, sizeof(*w));
	runner_worker_init(w);
	w->rank = (int32_t)i;
	w->pid = 1000 + (int32_t)i;
	w->status = W_DONE;
	snprintf(w->rank_name, sizeof(w->rank_name), "rank %u", i);
	for (int c = RC_READ; c <= RC_OPEN; c++)
		for (int k = 0; k < 1000; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			hist_add(&w->cls[c].lat, 1000 + x % 10000000);
			w->cls[c].total_ios++;
			w->cls[c].done_bytes += 65536;
		}
}

int main(int argc, char **argv)
{
	struct mpi_ctx *m = &g_mpi;
	struct plan p;
	char why[128];
	uint64_t t[5];
	MPI_Init(&argc, &argv);
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1024;
	mpi_world(m);
	memset(&p, 0, sizeof(p));
	p.nprocs = n;
	m->plan = &p;
	m->owner = calloc(n, sizeof(*m->owner));
	m->local = calloc(n, 1);
	size_t shsz = sizeof(struct run_shared) + n * sizeof(struct worker_result);
	struct run_shared *sh = calloc(1, shsz);
	if (!m->owner || !m->local || !sh ||
	    place_procs(PLACE_BLOCK, n, (uint32_t)m->size, NULL, NULL, m->owner, why, sizeof(why))) {
		fprintf(stderr, "bench-merge: %s\n", sh ? why : "out of memory");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	sh->nworkers = n;
	for (uint32_t i = 0; i < n; i++) {
		m->local[i] = m->owner[i] == (uint32_t)m->rank;
		if (m->local[i])
			fill(&sh->w[i], i);
	}
	for (int r = 0; r < 5; r++) {
		struct run_outcome out = { .completion_ns = 1000000 };
		MPI_Barrier(MPI_COMM_WORLD);
		if (mpi_merge_run(m, sh, &out) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		MPI_Reduce(&m->gather_ns, &t[r], 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
	}
	if (m->rank == 0) {
		uint64_t ios = 0;
		for (uint32_t i = 0; i < n; i++)
			ios += sh->w[i].cls[RC_WRITE].total_ios;
		qsort(t, 5, sizeof(t[0]), cmp_u64);
		printf("merge %u ranks over %d processes: %.1f ms (median of 5; %zu KiB per rank;"
		       " %llu write ops at the root)\n", n, m->size, (double)t[2] / 1e6,
		       sizeof(struct worker_result) / 1024, (unsigned long long)ios);
	}
	free(sh);
	mpi_ctx_release(m);
	MPI_Finalize();
	return 0;
}
