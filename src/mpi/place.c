/* place.c - placement, shared file systems, class merge (mpi/place.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/place.h"

static const char *const place_names[] = { "block", "cyclic", "hosts" };

int place_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, place_names[i]))
			return i;
	return -1;
}

const char *place_name(int p)
{
	return p >= 0 && p < 3 ? place_names[p] : "?";
}

/* Processes first..first+n-1 of the list share items 0..m-1 block-wise. */
static uint32_t block_of(uint32_t i, uint32_t m, uint32_t n)
{
	return (uint32_t)((uint64_t)i * n / m);
}

static int place_hosts(uint32_t nprocs, uint32_t nmpi, const uint32_t *proc_host,
		       const uint32_t *mpi_node, uint32_t *owner)
{
	uint32_t nnodes = 0, nhosts = 0;
	for (uint32_t p = 0; p < nmpi; p++)
		nnodes = mpi_node[p] + 1 > nnodes ? mpi_node[p] + 1 : nnodes;
	for (uint32_t i = 0; i < nprocs; i++)
		nhosts = proc_host[i] + 1 > nhosts ? proc_host[i] + 1 : nhosts;
	uint32_t *node_procs = calloc(nnodes, sizeof(*node_procs));   /* MPI processes per node */
	uint32_t *node_items = calloc(nnodes, sizeof(*node_items));   /* plan processes per node */
	uint32_t *seen = calloc(nnodes, sizeof(*seen));
	int ret = -1;
	if (!node_procs || !node_items || !seen)
		goto out;
	for (uint32_t p = 0; p < nmpi; p++)
		node_procs[mpi_node[p]]++;
	for (uint32_t i = 0; i < nprocs; i++)
		node_items[proc_host[i] % nnodes]++;
	for (uint32_t i = 0; i < nprocs; i++) {
		uint32_t node = proc_host[i] % nnodes;
		uint32_t k = block_of(seen[node]++, node_items[node], node_procs[node]);
		/* the k-th MPI process of that node */
		for (uint32_t p = 0; p < nmpi; p++)
			if (mpi_node[p] == node && k-- == 0) {
				owner[i] = p;
				break;
			}
	}
	ret = 0;
out:
	free(node_procs);
	free(node_items);
	free(seen);
	return ret;
}

int place_procs(int how, uint32_t nprocs, uint32_t nmpi, const uint32_t *proc_host,
		const uint32_t *mpi_node, uint32_t *owner, char *why, size_t whylen)
{
	if (nmpi == 0 || nprocs < nmpi) {
		snprintf(why, whylen, "%u MPI processes for %u trace ranks to replay: each MPI process"
			 " needs at least one (start at most %u, or replay more ranks with -n)",
			 nmpi, nprocs, nprocs);
		return -1;
	}
	if (how == PLACE_HOSTS) {
		if (!proc_host || !mpi_node) {
			snprintf(why, whylen, "--placement hosts: the trace records no host per rank");
			return -1;
		}
		if (place_hosts(nprocs, nmpi, proc_host, mpi_node, owner) < 0) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
		return 0;
	}
	for (uint32_t i = 0; i < nprocs; i++)
		owner[i] = how == PLACE_CYCLIC ? i % nmpi : block_of(i, nprocs, nmpi);
	return 0;
}

void cls_combine(const struct class_stats *in, struct class_stats *inout, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		inout[k].total_ios += in[k].total_ios;
		inout[k].io_bytes += in[k].io_bytes;
		inout[k].done_bytes += in[k].done_bytes;
		inout[k].errors += in[k].errors;
		inout[k].short_ios += in[k].short_ios;
		hist_merge(&inout[k].lat, &in[k].lat);
	}
}

/* One part of fmt_proc_ranks at buf + used: its new length. */
static size_t put_part(char *buf, size_t len, size_t used, const char *ranks, bool copies,
		       uint32_t c0, uint32_t c1)
{
	int m;
	if (used >= len)
		return used;
	if (!copies)
		m = snprintf(buf + used, len - used, "%s%s", used ? "; " : "", ranks);
	else if (c0 == c1)
		m = snprintf(buf + used, len - used, "%s%s, copy %u", used ? "; " : "", ranks, c0);
	else
		m = snprintf(buf + used, len - used, "%s%s, copies %u-%u", used ? "; " : "", ranks,
			     c0, c1);
	if (m < 0 || (size_t)m >= len - used) {
		if (len > 4)
			strcpy(buf + len - 4, "...");
		return len;
	}
	return used + (size_t)m;
}

const char *fmt_proc_ranks(const struct plan_proc *procs, const uint32_t *idx, size_t n,
			   bool copies, char *buf, size_t len, bool *one_rank)
{
	uint32_t *r = malloc((n ? n : 1) * sizeof(*r)), c0 = 0, c1 = 0;
	char part[256], prev[256] = "";
	size_t used = 0;
	bool pending = false;

	buf[0] = 0;
	*one_rank = true;
	for (size_t i = 1; i < n; i++)
		*one_rank = *one_rank && procs[idx[i]].rank == procs[idx[0]].rank;
	if (!r) {
		snprintf(buf, len, "?");
		return buf;
	}
	/* parts: processes in a row of one copy; one rank list over
	 * consecutive copies is one part */
	for (size_t i = 0; i < n;) {
		uint32_t c = procs[idx[i]].copy;
		size_t k = 0;
		while (i < n && procs[idx[i]].copy == c)
			r[k++] = procs[idx[i++]].rank;
		fmt_rank_list(r, k, part, sizeof(part));
		if (pending && copies && c == c1 + 1 && !strcmp(part, prev)) {
			c1 = c;
			continue;
		}
		if (pending)
			used = put_part(buf, len, used, prev, copies, c0, c1);
		memcpy(prev, part, sizeof(prev));
		c0 = c1 = c;
		pending = true;
	}
	if (pending)
		put_part(buf, len, used, prev, copies, c0, c1);
	free(r);
	return buf;
}

const char *fmt_rank_list(const uint32_t *r, size_t n, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n && used < len; ) {
		size_t j = i;
		while (j + 1 < n && r[j + 1] == r[j] + 1)
			j++;
		int m = j > i ? snprintf(buf + used, len - used, "%s%u-%u", used ? "," : "", r[i], r[j])
			      : snprintf(buf + used, len - used, "%s%u", used ? "," : "", r[i]);
		if (m < 0 || (size_t)m >= len - used) {
			if (len > 4)
				strcpy(buf + len - 4, "...");
			break;
		}
		used += (size_t)m;
		i = j + 1;
	}
	return buf;
}
