/*
 * place.h - replay-mpi's decisions that need no MPI (unit tested):
 * which MPI process replays which plan process, whether a target is on a
 * shared file system, and the merge of class statistics by histogram bins
 * (the MPI reduction's operator).
 */
#ifndef REPLAY_MPI_PLACE_H
#define REPLAY_MPI_PLACE_H

#include <stddef.h>
#include <stdint.h>
#include "plan/plan.h"
#include "run/results.h"

enum placement { PLACE_BLOCK = 0, PLACE_CYCLIC, PLACE_HOSTS };

/* "block", "cyclic", "hosts" -> enum; -1 otherwise. */
int place_parse(const char *s);
const char *place_name(int p);

/*
 * owner[i] = the MPI process (0..nmpi-1) that replays plan process i.
 *  block:  contiguous shares, sizes differing by at most one
 *  cyclic: i mod nmpi
 *  hosts:  plan processes whose trace ranks ran on the same traced host
 *          (proc_host[i], dense ids 0..) go to the same node (mpi_node[p],
 *          dense ids 0..); traced hosts are dealt to nodes round-robin in
 *          order of first appearance, then spread block-wise over the
 *          node's processes
 * Returns 0, or -1 with why filled (more MPI processes than plan
 * processes; hosts without proc_host).
 */
int place_procs(int how, uint32_t nprocs, uint32_t nmpi, const uint32_t *proc_host,
		const uint32_t *mpi_node, uint32_t *owner, char *why, size_t whylen);

/* Shared or local target by statfs f_type: fs_magic_shared() (plan.h). */

/* inout[k] += in[k] for n class statistics: counts added, histograms
 * merged bin by bin (hist_merge).  The MPI_Op of the node reduction. */
void cls_combine(const struct class_stats *in, struct class_stats *inout, size_t n);

/* "0-3,8,10-11" for a sorted list of ranks, into buf. */
const char *fmt_rank_list(const uint32_t *r, size_t n, char *buf, size_t len);

/* The trace ranks (the numbers of stat, dump and --ranks) of the plan
 * processes procs[idx[0..n)], idx ascending, into buf: "0,2-5".  copies
 * (the plan makes copies, -n above the ranks): each copy's ranks with it,
 * "0-1, copy 2" or, one rank list over consecutive copies, "0, copies
 * 0-1"; the copies' parts apart by "; ".  *one_rank: all are one rank. */
const char *fmt_proc_ranks(const struct plan_proc *procs, const uint32_t *idx, size_t n,
			   bool copies, char *buf, size_t len, bool *one_rank);

#endif
