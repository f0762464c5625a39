/*
 * gen.h - synthetic traces written in the real trace grammars.
 *
 * `replay gen` writes traces shaped like the study's workloads (seed 004:
 * LANL MPI_IO_TEST as LANL-Trace per-rank files, Sandia alegra/CTH/S3D as
 * libsysio `.sanitized` text) and like the experiments of seeds 000-002
 * (strace -f -tt -T text).  The grammars are those of
 * /work/shared/formats/README.md, so the parsers read them like real data.
 *
 * Contract:
 *  - deterministic: the same parameters and seed give identical bytes;
 *  - streaming: memory does not grow with --scale (only with --ranks);
 *  - the output appears at PATH only when complete (written to a sibling
 *    temporary name, then renamed); an existing PATH is refused unless
 *    `force`, and then only replaced when it is a file or a directory that
 *    holds nothing but a previous `gen` output.
 */
#ifndef REPLAY_GEN_H
#define REPLAY_GEN_H

#include <stdbool.h>
#include <stdint.h>
#include "util/util.h"

enum gen_format { GEN_LANL, GEN_SANDIA, GEN_STRACE };

struct gen_workload {
	const char *name;        /* "lanl-64k"                                */
	enum gen_format format;
	bool is_dir;             /* output is a directory of per-rank files   */
	unsigned def_ranks;      /* default --ranks                           */
	bool fixed_ranks;        /* single-process workload: --ranks must be 1 */
	const char *desc;
};

struct gen_params {
	const char *workload;
	unsigned ranks;          /* 0: the workload's default                 */
	double scale;            /* multiplies objects/ops (not sizes); 1.0   */
	uint64_t seed;
	/* LANL only */
	bool strided;            /* object i of rank r at (i*N + r)*size      */
	bool n_to_n;             /* one file per rank                         */
	uint64_t object_size;    /* 0: the workload's (65536 or 1048576)      */
	uint64_t objects;        /* per rank; 0: from scale                   */
};

/* What was written (counted while writing; the tests recompute it from
 * the formulas in the man page, not from here). */
struct gen_summary {
	unsigned ranks;          /* traced processes/threads with lines       */
	uint64_t bytes_read, bytes_written;
	uint64_t reads, writes;  /* data calls                                */
	uint64_t lines;          /* lines written                             */
	unsigned files;          /* output files written                      */
};

/* The workloads, in --list order. */
const struct gen_workload *gen_workloads(size_t *n);
const struct gen_workload *gen_find(const char *name);

/* Number of objects per rank for LANL workloads (after scale/objects). */
uint64_t gen_lanl_objects(const struct gen_params *p);
/* Objects re-read after the read-back (lanl-64k: objects/25, Table I's
 * 0.51/0.49; otherwise 0). */
uint64_t gen_lanl_rereads(const struct gen_params *p);

/* Validate parameters (ranks, scale, sizes) for the workload: -EINVAL and
 * e filled when they do not fit. */
int gen_check(const struct gen_params *p, struct rerr *e);

/* Generate p->workload into path.  -errno and e filled on failure; nothing
 * is left at path then. */
int gen_write(const struct gen_params *p, const char *path, bool force,
	      struct gen_summary *sum, struct rerr *e);

#endif
