/* merge.c - the root's one result from every MPI process (mpi_run.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi/mpi_run.h"
#include "mpi/place.h"
#include "mpi/relay.h"
#include "report/jsontext.h"
#include "report/report.h"
#include "util/util.h"

/* Hostnames of every process, node ids, the node communicator. */
void mpi_world(struct mpi_ctx *m)
{
	MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &m->size);
	if (gethostname(m->host, sizeof(m->host)) < 0)
		snprintf(m->host, sizeof(m->host), "?");
	m->host[HOSTLEN - 1] = 0;
	m->hosts = calloc((size_t)m->size, HOSTLEN);
	m->node_of = calloc((size_t)m->size, sizeof(*m->node_of));
	if (!m->hosts || !m->node_of)
		MPI_Abort(MPI_COMM_WORLD, 12);
	MPI_Allgather(m->host, HOSTLEN, MPI_CHAR, m->hosts, HOSTLEN, MPI_CHAR, MPI_COMM_WORLD);
	for (int q = 0; q < m->size; q++) {
		int k;
		for (k = 0; k < q && strcmp(m->hosts + (size_t)k * HOSTLEN,
					    m->hosts + (size_t)q * HOSTLEN); k++)
			;
		m->node_of[q] = k == q ? (uint32_t)m->nnodes++ : m->node_of[k];
	}
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &m->node);
	MPI_Comm_rank(m->node, &m->node_rank);
	MPI_Comm_split(MPI_COMM_WORLD, m->node_rank == 0 ? 0 : MPI_UNDEFINED, m->rank, &m->leaders);
}

void node_sum_combine(const struct node_sum *in, struct node_sum *inout, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		cls_combine(in[k].cls, inout[k].cls, RC__COUNT);
		inout[k].dep_waits += in[k].dep_waits;
		inout[k].dep_wait_ns += in[k].dep_wait_ns;
		inout[k].barrier_waits += in[k].barrier_waits;
		inout[k].barrier_wait_ns += in[k].barrier_wait_ns;
		inout[k].nworkers += in[k].nworkers;
		if (in[k].completion_ns > inout[k].completion_ns)
			inout[k].completion_ns = in[k].completion_ns;
		if (in[k].io_ns > inout[k].io_ns)
			inout[k].io_ns = in[k].io_ns;
	}
}

static void node_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	node_sum_combine(in, inout, (size_t)*len);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Node leader j's CLOCK_REALTIME minus the root's: 8 ping-pongs, the one of
 * the shortest round trip (its midpoint). */
void mpi_measure_offsets(struct mpi_ctx *m)
{
	int lr = -1, nl = 0;
	if (m->leaders == MPI_COMM_NULL)
		return;
	MPI_Comm_rank(m->leaders, &lr);
	MPI_Comm_size(m->leaders, &nl);
	if (lr == 0) {
		free(m->clock_off);
		free(m->clock_rtt);
		m->clock_off = calloc((size_t)nl, sizeof(*m->clock_off));
		m->clock_rtt = calloc((size_t)nl, sizeof(*m->clock_rtt));
		if (!m->clock_off || !m->clock_rtt)
			MPI_Abort(MPI_COMM_WORLD, 12);
	}
	for (int j = 1; j < nl; j++)
		for (int k = 0; k < 8; k++) {
			uint64_t t;
			if (lr == 0) {
				uint64_t t0 = realtime_ns(), t2;
				MPI_Send(&t0, 1, MPI_UINT64_T, j, 1, m->leaders);
				MPI_Recv(&t, 1, MPI_UINT64_T, j, 2, m->leaders, MPI_STATUS_IGNORE);
				t2 = realtime_ns();
				if (!k || t2 - t0 < m->clock_rtt[j]) {
					m->clock_rtt[j] = t2 - t0;
					m->clock_off[j] = (int64_t)t - (int64_t)(t0 + (t2 - t0) / 2);
				}
			} else if (lr == j) {
				MPI_Recv(&t, 1, MPI_UINT64_T, 0, 1, m->leaders, MPI_STATUS_IGNORE);
				t = realtime_ns();
				MPI_Send(&t, 1, MPI_UINT64_T, 0, 2, m->leaders);
			}
		}
}

/* This process's share, summed (class statistics merged by bins). */
static void local_sum(const struct mpi_ctx *m, const struct run_shared *sh, uint64_t completion,
		      struct node_sum *ns)
{
	memset(ns, 0, sizeof(*ns));
	for (int c = 0; c < RC__COUNT; c++)
		hist_init(&ns->cls[c].lat);
	for (size_t i = 0; i < m->plan->nprocs; i++) {
		const struct worker_result *w = &sh->w[i];
		if (!m->local[i])
			continue;
		cls_combine(w->cls, ns->cls, RC__COUNT);
		ns->dep_waits += w->dep_waits;
		ns->dep_wait_ns += w->dep_wait_ns;
		ns->barrier_waits += w->barrier_waits;
		ns->barrier_wait_ns += w->barrier_wait_ns;
		ns->nworkers++;
		if (w->io_ns > ns->io_ns)
			ns->io_ns = w->io_ns;
	}
	ns->completion_ns = completion;
}

/* Every process's slots into the root's run_shared. */
static int gather_slots(struct mpi_ctx *m, struct run_shared *sh)
{
	size_t n = m->plan->nprocs, nloc = 0, sz = sizeof(struct worker_result);
	MPI_Datatype slot;
	int *counts = NULL, *displs = NULL, ret = -1;
	struct worker_result *mine = NULL, *all = NULL;
	for (size_t i = 0; i < n; i++)
		nloc += m->local[i];
	mine = malloc((nloc ? nloc : 1) * sz);
	if (m->rank == 0) {
		counts = calloc((size_t)m->size, sizeof(*counts));
		displs = calloc((size_t)m->size, sizeof(*displs));
		all = malloc(n * sz);
	}
	int ok = mine && (m->rank || (counts && displs && all));
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!ok)
		goto out;
	for (size_t i = 0, k = 0; i < n; i++)
		if (m->local[i])
			memcpy(&mine[k++], &sh->w[i], sz);
	if (m->rank == 0) {
		for (size_t i = 0; i < n; i++)
			counts[m->owner[i]]++;
		for (int q = 1; q < m->size; q++)
			displs[q] = displs[q - 1] + counts[q - 1];
	}
	MPI_Type_contiguous((int)sz, MPI_BYTE, &slot);
	MPI_Type_commit(&slot);
	MPI_Gatherv(mine, (int)nloc, slot, all, counts, displs, slot, 0, MPI_COMM_WORLD);
	MPI_Type_free(&slot);
	if (m->rank == 0) {
		/* process q's slots arrive in plan order */
		for (size_t i = 0; i < n; i++)
			memcpy(&sh->w[i], &all[displs[m->owner[i]]++], sz);
	}
	ret = 0;
out:
	free(mine);
	free(all);
	free(counts);
	free(displs);
	return ret;
}

/* Node rows: reduce over each node, then the leaders to the root. */
static int reduce_nodes(struct mpi_ctx *m, const struct run_shared *sh, uint64_t completion)
{
	struct node_sum *mine = malloc(sizeof(*mine)), *node = malloc(sizeof(*node));
	MPI_Datatype dt;
	MPI_Op op;
	int ok = mine && node;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!ok) {
		free(mine);
		free(node);
		return -1;
	}
	local_sum(m, sh, completion, mine);
	MPI_Type_contiguous((int)sizeof(*mine), MPI_BYTE, &dt);
	MPI_Type_commit(&dt);
	MPI_Op_create(node_op, 1, &op);
	MPI_Reduce(mine, node, 1, dt, op, 0, m->node);
	if (m->leaders != MPI_COMM_NULL) {
		if (m->rank == 0) {
			free(m->nodes);
			m->nodes = malloc((size_t)m->nnodes * sizeof(*m->nodes));
			if (!m->nodes)
				MPI_Abort(MPI_COMM_WORLD, 12);
		}
		MPI_Gather(node, 1, dt, m->nodes, 1, dt, 0, m->leaders);
	}
	MPI_Op_free(&op);
	MPI_Type_free(&dt);
	free(mine);
	free(node);
	return 0;
}

int mpi_merge_run(struct mpi_ctx *m, struct run_shared *sh, struct run_outcome *out)
{
	uint64_t t0 = now_ns();
	uint64_t loc[5] = { out->completion_ns, out->io_ns, out->incomplete, out->failed,
			    (uint64_t)out->stop_signal }, mx[5];
	MPI_Reduce(loc, mx, 5, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
	if (m->rank == 0) {
		free(m->proc_completion);
		m->proc_completion = calloc((size_t)m->size, sizeof(*m->proc_completion));
		if (!m->proc_completion)
			MPI_Abort(MPI_COMM_WORLD, 12);
	}
	MPI_Gather(&out->completion_ns, 1, MPI_UINT64_T, m->proc_completion, 1, MPI_UINT64_T, 0,
		   MPI_COMM_WORLD);
	if (gather_slots(m, sh) < 0 || reduce_nodes(m, sh, out->completion_ns) < 0) {
		die_msg("out of memory merging the results");
		return -1;
	}
	if (m->rank == 0) {
		out->completion_ns = mx[0];
		out->io_ns = mx[1];
		out->flush_ns = mx[0] > mx[1] ? mx[0] - mx[1] : 0;
		out->incomplete = mx[2] != 0;
		out->failed = mx[3] != 0;
		out->stop_signal = (int)mx[4];
	}
	m->gather_ns = now_ns() - t0;
	return 0;
}

static json_t *rank_array(const struct mpi_ctx *m, int node, int proc)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < m->plan->nprocs; i++)
		if ((node < 0 || m->node_of[m->owner[i]] == (uint32_t)node) &&
		    (proc < 0 || m->owner[i] == (uint32_t)proc))
			json_array_append_new(a, json_integer((json_int_t)i));
	return a;
}

static const char *node_host(const struct mpi_ctx *m, int j)
{
	for (int q = 0; q < m->size; q++)
		if (m->node_of[q] == (uint32_t)j)
			return m->hosts + (size_t)q * HOSTLEN;
	return "?";
}

static json_t *node_json(const struct mpi_ctx *m, int j)
{
	const struct node_sum *ns = &m->nodes[j];
	uint64_t bytes = ns->cls[RC_READ].done_bytes + ns->cls[RC_WRITE].done_bytes;
	return json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
			 "host", json_text_str(node_host(m, j)), "trace_ranks", rank_array(m, j, -1),
			 "workers", (json_int_t)ns->nworkers, "bytes", (json_int_t)bytes,
			 "completion_ns", (json_int_t)ns->completion_ns,
			 "dep_waits", (json_int_t)ns->dep_waits,
			 "dep_wait_ns", (json_int_t)ns->dep_wait_ns,
			 "barrier_waits", (json_int_t)ns->barrier_waits,
			 "barrier_wait_ns", (json_int_t)ns->barrier_wait_ns,
			 "clock_offset_ns", (json_int_t)(m->clock_off ? m->clock_off[j] : 0),
			 "clock_rtt_ns", (json_int_t)(m->clock_rtt ? m->clock_rtt[j] : 0),
			 "read", report_class_json(&ns->cls[RC_READ], ns->io_ns, report_fio_bins()),
			 "write", report_class_json(&ns->cls[RC_WRITE], ns->io_ns, report_fio_bins()));
}

static json_t *slurm_json(void)
{
	static const char *const vars[][2] = {
		{ "job_id", "SLURM_JOB_ID" }, { "nodelist", "SLURM_JOB_NODELIST" },
		{ "ntasks", "SLURM_NTASKS" }, { "tasks_per_node", "SLURM_TASKS_PER_NODE" },
		{ "nnodes", "SLURM_JOB_NUM_NODES" }, { "partition", "SLURM_JOB_PARTITION" },
	};
	if (!getenv("SLURM_JOB_ID"))
		return json_null();
	json_t *o = json_object();
	for (size_t i = 0; o && i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i][1]);
		if (v)
			json_object_set_new(o, vars[i][0], json_text_str(v));
	}
	return o;
}

int mpi_report_json(struct mpi_ctx *m, json_t *doc)
{
	json_t *procs = json_array(), *nodes = json_array();
	char magic[16];
	if (!procs || !nodes || !m->plan)
		goto fail;
	for (int q = 0; q < m->size; q++)
		json_array_append_new(procs, json_pack("{s:i, s:o, s:i, s:o, s:I}", "mpi_rank", q,
			"host", json_text_str(m->hosts + (size_t)q * HOSTLEN), "node", (int)m->node_of[q],
			"trace_ranks", rank_array(m, -1, q),
			"completion_ns", (json_int_t)(m->proc_completion ? m->proc_completion[q] : 0)));
	for (int j = 0; m->nodes && j < m->nnodes; j++)
		json_array_append_new(nodes, node_json(m, j));
	snprintf(magic, sizeof(magic), "0x%lx", m->fs_magic);
	json_t *o = json_pack("{s:i, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:o}",
		"processes", m->size, "nodes", m->nnodes, "placement", place_name(m->placement),
		"target", m->target_kind ? "shared" : "local", "target_detected_by", m->target_why,
		"target_fs", m->fs_name, "target_fs_magic", magic,
		"prepared_by", m->target_kind ? "MPI rank 0" : "one process per node",
		"startup_ns", (json_int_t)m->startup_ns, "gather_ns", (json_int_t)m->gather_ns,
		"ranks", procs, "node_rows", nodes, "slurm", slurm_json());
	if (!o || json_object_set_new(doc, "mpi", o) < 0)
		return -1;
	return 0;
fail:
	json_decref(procs);
	json_decref(nodes);
	return -1;
}

void mpi_report_print(struct mpi_ctx *m, FILE *f)
{
	char b1[32], b2[32], b3[32], b4[32], list[128];
	uint32_t *r = malloc(m->plan->nprocs * sizeof(*r));
	if (!r || !m->nodes) {
		free(r);
		return;
	}
	fprintf(f, "\nmpi: %d processes on %d node%s, placement %s, target %s; start-up %s,"
		" merge %s\n", m->size, m->nnodes, m->nnodes == 1 ? "" : "s",
		place_name(m->placement), m->target_kind ? "shared" : "local",
		fmt_ns(b1, sizeof(b1), (double)m->startup_ns), fmt_ns(b2, sizeof(b2), (double)m->gather_ns));
	fprintf(f, "  %-20s %-16s %10s %12s %10s %10s %12s\n", "node", "trace ranks", "bytes",
		"completion", "dep waits", "barriers", "clock offset");
	for (int j = 0; j < m->nnodes; j++) {
		const struct node_sum *ns = &m->nodes[j];
		size_t n = 0;
		bool one;
		for (size_t i = 0; i < m->plan->nprocs; i++)
			if (m->node_of[m->owner[i]] == (uint32_t)j)
				r[n++] = (uint32_t)i;
		fmt_ns(b2, sizeof(b2), (double)ns->completion_ns);
		fmt_ns(b3, sizeof(b3), (double)(m->clock_off ? m->clock_off[j] : 0));
		fprintf(f, "  %-20s %-16s %10s %*s %10llu %10llu %*s\n", node_host(m, j),
			fmt_proc_ranks(m->plan->procs, r, n, m->plan->reused, list, sizeof(list), &one),
			fmt_bytes(b1, sizeof(b1),
				  (double)(ns->cls[RC_READ].done_bytes + ns->cls[RC_WRITE].done_bytes)),
			pad_width(12, b2), b2,
			(unsigned long long)ns->dep_waits, (unsigned long long)ns->barrier_waits,
			pad_width(12, b3), b3);
	}
	(void)b4;
	free(r);
	const char *jid = getenv("SLURM_JOB_ID");
	if (jid)
		fprintf(f, "  slurm: job %s, nodes %s, tasks %s (%s per node)\n", jid,
			getenv("SLURM_JOB_NODELIST") ? getenv("SLURM_JOB_NODELIST") : "?",
			getenv("SLURM_NTASKS") ? getenv("SLURM_NTASKS") : "?",
			getenv("SLURM_TASKS_PER_NODE") ? getenv("SLURM_TASKS_PER_NODE") : "?");
}

void mpi_ctx_release(struct mpi_ctx *m)
{
	relay_free(m->rl);
	free(m->owner);
	free(m->local);
	free(m->hosts);
	free(m->node_of);
	free(m->clock_off);
	free(m->clock_rtt);
	free(m->nodes);
	free(m->proc_completion);
	if (m->leaders != MPI_COMM_NULL)
		MPI_Comm_free(&m->leaders);
	MPI_Comm_free(&m->node);
}
