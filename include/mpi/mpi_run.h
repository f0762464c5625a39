/*
 * mpi_run.h - replay-mpi's state (one per MPI process) and the merge of
 * the processes' results into the root's report (src/mpi/merge.c).
 */
#ifndef REPLAY_MPI_RUN_H
#define REPLAY_MPI_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include <mpi.h>
#include "ops/opstream.h"
#include "plan/plan.h"
#include "run/results.h"
#include "run/runner.h"

#define HOSTLEN 64

/* What one node did (the node reduction: class statistics merged by bins). */
struct node_sum {
	struct class_stats cls[RC__COUNT];
	uint64_t dep_waits, dep_wait_ns, barrier_waits, barrier_wait_ns;
	uint64_t completion_ns;  /* the node's last flush, from the common start */
	uint64_t io_ns;          /* its longest worker's I/O time (the flush not
	                          * in it): what the rates are over, as in a
	                          * replay run's classes                  */
	uint64_t nworkers;
};
void node_sum_combine(const struct node_sum *in, struct node_sum *inout, size_t n);

struct mpi_ctx {
	int rank, size, nnodes, node_rank;
	bool json_stdout;        /* --output-format json without -o         */
	char host[HOSTLEN];
	char *hosts;             /* size * HOSTLEN                        */
	uint32_t *node_of;       /* node id of each MPI rank              */
	MPI_Comm node, leaders;  /* this node's processes; node leaders   */
	char prefix[128];
	int phase;               /* 1 once the options are read           */
	bool done;               /* reached the report (every collective) */
	bool failed_here;        /* this process's run failed             */
	int failed_rank;         /* the MPI rank whose run failed, -1     */
	int placement;
	int target_kind;         /* -1 detect, 0 local, 1 shared          */
	const char *target_why;
	char fs_name[32];
	unsigned long fs_magic;
	bool preparer, keep;
	const char *output;
	char trace_name[4096];  /* the ops' one source file ("" several: the
				   failure names the rank and its line) */
	const struct plan *plan;
	const struct opstream *s;
	uint32_t *owner;         /* MPI rank of each plan process         */
	uint8_t *local;
	struct relay *rl;
	struct run_shared *sh;
	uint64_t t_init, startup_ns, gather_ns;
	int64_t *clock_off;      /* root: per node, ns (CLOCK_REALTIME)   */
	uint64_t *clock_rtt;
	struct node_sum *nodes;  /* root: per node, last run              */
	uint64_t *proc_completion; /* root: per MPI rank, last run         */
};

extern struct mpi_ctx g_mpi;

/* Rank, size, hostnames, node ids, the node and node-leader communicators. */
void mpi_world(struct mpi_ctx *m);
void mpi_measure_offsets(struct mpi_ctx *m);
/* One run ended everywhere: the root gets every slot, the outcome (max of
 * completions, any incomplete) and the node rows.  0 or -1. */
int  mpi_merge_run(struct mpi_ctx *m, struct run_shared *sh, struct run_outcome *out);
int  mpi_report_json(struct mpi_ctx *m, json_t *doc);
void mpi_report_print(struct mpi_ctx *m, FILE *f);
void mpi_ctx_release(struct mpi_ctx *m);

#endif
