/* relay.c - cross-process dependencies and barriers over MPI (relay.h). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/relay.h"
#include "run/runner.h"
#include "run/waits.h"

#define TAG 7301
enum { M_DONE = 1, M_BAR, M_STOP, M_FIN, M_FAIL };
#define REC(kind, a) (((uint64_t)(kind) << 56) | ((uint64_t)(a) & ((1ull << 56) - 1)))

struct outbuf {
	uint64_t *w;
	size_t n, cap;
};

struct pend {
	MPI_Request rq;
	uint64_t *buf;
};

struct relay {
	MPI_Comm comm;
	int me, np;
	const struct plan *p;
	bool active;             /* deps or barriers between processes   */
	uint32_t *local;         /* local plan processes                 */
	uint32_t nlocal;
	uint64_t *last;          /* progress sent, per local process     */
	uint8_t *copy_has;       /* [copy * np + q]: q hosts a process of copy */
	struct outbuf *ob;       /* per destination                      */
	struct pend *pend;
	size_t npend, cappend;
	uint64_t *in;            /* receive buffer                       */
	size_t incap;
	/* traced barriers, [copy * nbars + k] */
	uint32_t nbars, ncopies;
	uint32_t *L, *nparty, *recv;
	uint32_t *next_k, *gen_expect;
	uint8_t *sent;           /* per copy: arrival of next_k sent     */
	bool stop_recv, stop_sent, fail_sent;
	int fail_from;           /* MPI rank + 1 that said it failed, 0 */
	int fin_recv;
	uint64_t idle_ns;
};

static void queue(struct relay *rl, int q, uint64_t w0, uint64_t w1)
{
	struct outbuf *o = &rl->ob[q];
	if (o->n + 2 > o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 64;
		uint64_t *w = realloc(o->w, cap * sizeof(*w));
		if (!w)
			MPI_Abort(rl->comm, 12);
		o->w = w;
		o->cap = cap;
	}
	o->w[o->n++] = w0;
	o->w[o->n++] = w1;
}

static void queue_copy(struct relay *rl, uint32_t copy, uint64_t w0, uint64_t w1)
{
	for (int q = 0; q < rl->np; q++)
		if (q != rl->me && rl->copy_has[(size_t)copy * rl->np + q])
			queue(rl, q, w0, w1);
}

static void queue_all(struct relay *rl, uint64_t w0)
{
	for (int q = 0; q < rl->np; q++)
		if (q != rl->me)
			queue(rl, q, w0, 0);
}

/* Completed sends give their buffers back. */
static void reap_sends(struct relay *rl)
{
	size_t k = 0;
	for (size_t i = 0; i < rl->npend; i++) {
		int done = 0;
		MPI_Test(&rl->pend[i].rq, &done, MPI_STATUS_IGNORE);
		if (done)
			free(rl->pend[i].buf);
		else
			rl->pend[k++] = rl->pend[i];
	}
	rl->npend = k;
}

static bool send_out(struct relay *rl)
{
	bool any = false;
	for (int q = 0; q < rl->np; q++) {
		struct outbuf *o = &rl->ob[q];
		if (!o->n)
			continue;
		if (rl->npend == rl->cappend) {
			size_t cap = rl->cappend ? 2 * rl->cappend : 64;
			struct pend *pp = realloc(rl->pend, cap * sizeof(*pp));
			if (!pp)
				MPI_Abort(rl->comm, 12);
			rl->pend = pp;
			rl->cappend = cap;
		}
		struct pend *pd = &rl->pend[rl->npend++];
		pd->buf = o->w;
		MPI_Isend(o->w, (int)o->n, MPI_UINT64_T, q, TAG, rl->comm, &pd->rq);
		o->w = NULL;
		o->n = o->cap = 0;
		any = true;
	}
	reap_sends(rl);
	return any;
}

static void handle(struct relay *rl, struct run_shared *sh, const uint64_t *w, int n)
{
	for (int i = 0; i + 1 < n; i += 2) {
		unsigned kind = (unsigned)(w[i] >> 56);
		uint64_t a = w[i] & ((1ull << 56) - 1), b = w[i + 1];
		if (kind == M_DONE && sh && a < sh->nworkers) {
			if (__atomic_load_n(&sh->w[a].ww.done, __ATOMIC_ACQUIRE) < b)
				wait_publish(&sh->w[a].ww, b);
		} else if (kind == M_BAR && a < rl->ncopies && b < rl->nbars) {
			rl->recv[a * rl->nbars + b]++;
		} else if (kind == M_STOP) {
			rl->stop_recv = true;
		} else if (kind == M_FAIL) {
			rl->stop_recv = true;
			if (!rl->fail_from)
				rl->fail_from = (int)a + 1;
		} else if (kind == M_FIN) {
			rl->fin_recv++;
		}
	}
}

/* Read the message st announced and act on it. */
static void recv_one(struct relay *rl, struct run_shared *sh, MPI_Status *st)
{
	int n = 0;
	MPI_Get_count(st, MPI_UINT64_T, &n);
	if ((size_t)n > rl->incap) {
		uint64_t *b = realloc(rl->in, (size_t)n * sizeof(*b));
		if (!b)
			MPI_Abort(rl->comm, 12);
		rl->in = b;
		rl->incap = (size_t)n;
	}
	MPI_Recv(rl->in, n, MPI_UINT64_T, st->MPI_SOURCE, TAG, rl->comm, MPI_STATUS_IGNORE);
	handle(rl, sh, rl->in, n);
}

/* Every message waiting; true when there was one. */
static bool receive(struct relay *rl, struct run_shared *sh)
{
	bool any = false;
	for (;;) {
		int flag = 0;
		MPI_Status st;
		MPI_Iprobe(MPI_ANY_SOURCE, TAG, rl->comm, &flag, &st);
		if (!flag)
			return any;
		recv_one(rl, sh, &st);
		any = true;
	}
}

static bool send_progress(struct relay *rl, struct run_shared *sh)
{
	bool any = false;
	for (uint32_t j = 0; j < rl->nlocal; j++) {
		uint32_t i = rl->local[j];
		uint64_t d = __atomic_load_n(&sh->w[i].ww.done, __ATOMIC_ACQUIRE);
		if (d > rl->last[j]) {
			rl->last[j] = d;
			queue_copy(rl, rl->p->procs[i].copy, REC(M_DONE, i), d);
			any = true;
		}
	}
	return any;
}

/* The next barrier of copy c this process takes part in with others. */
static void skip_local_barriers(struct relay *rl, uint32_t c)
{
	const struct plan *p = rl->p;
	while (rl->next_k[c] < rl->nbars) {
		size_t x = (size_t)c * rl->nbars + rl->next_k[c];
		if (rl->L[x] && rl->L[x] < plan_bar_parts(p, c, rl->next_k[c]))
			return;
		if (rl->L[x])
			rl->gen_expect[c]++;      /* met by the local ranks alone */
		rl->next_k[c]++;
	}
}

static bool step_barriers(struct relay *rl, struct run_shared *sh)
{
	bool any = false;
	for (uint32_t c = 0; c < rl->ncopies; c++) {
		skip_local_barriers(rl, c);
		uint32_t k = rl->next_k[c];
		if (k >= rl->nbars)
			continue;
		size_t x = (size_t)c * rl->nbars + k;
		struct barrier *b = run_shared_barrier(sh, c);
		if (!rl->sent[c]) {
			if (__atomic_load_n(&b->gen, __ATOMIC_SEQ_CST) != rl->gen_expect[c] ||
			    __atomic_load_n(&b->count, __ATOMIC_SEQ_CST) != rl->L[x])
				continue;
			queue_copy(rl, c, REC(M_BAR, c), k);
			rl->sent[c] = 1;
			any = true;
		}
		if (rl->recv[x] + 1 >= rl->nparty[x]) {
			uint32_t parts = plan_bar_parts(rl->p, c, k);
			barrier_arrive_for(b, parts - rl->L[x], parts);
			rl->sent[c] = 0;
			rl->gen_expect[c]++;
			rl->next_k[c]++;
			any = true;
		}
	}
	return any;
}

uint64_t relay_tick(struct relay *rl, struct run_shared *sh)
{
	bool any = receive(rl, sh);
	if (runner_signal() && !rl->stop_sent) {
		queue_all(rl, REC(M_STOP, 0));
		rl->stop_sent = true;
	}
	if (rl->stop_recv && !runner_signal())
		runner_on_signal(SIGTERM);
	if (rl->active) {
		any |= send_progress(rl, sh);
		if (rl->nbars)
			any |= step_barriers(rl, sh);
	}
	any |= send_out(rl);
	if (!rl->active)
		return 10000000ull;
	rl->idle_ns = any ? 20000 : rl->idle_ns * 2 > 1000000 ? 1000000 : rl->idle_ns * 2;
	return rl->idle_ns;
}

void relay_flush(struct relay *rl, struct run_shared *sh)
{
	if (rl->active)
		send_progress(rl, sh);
	send_out(rl);
}

void relay_end(struct relay *rl)
{
	queue_all(rl, REC(M_FIN, 0));
	send_out(rl);
	while (rl->fin_recv < rl->np - 1) {
		MPI_Status st;
		MPI_Probe(MPI_ANY_SOURCE, TAG, rl->comm, &st);
		recv_one(rl, NULL, &st);
	}
	while (rl->npend) {
		MPI_Wait(&rl->pend[rl->npend - 1].rq, MPI_STATUS_IGNORE);
		free(rl->pend[--rl->npend].buf);
	}
}

bool relay_stopped(const struct relay *rl)
{
	return rl->stop_recv;
}

void relay_fail(struct relay *rl)
{
	if (rl->fail_sent)
		return;
	rl->fail_sent = true;
	queue_all(rl, REC(M_FAIL, rl->me));
	send_out(rl);
}

int relay_failed_peer(const struct relay *rl)
{
	return rl->fail_from - 1;
}

void relay_begin(struct relay *rl, struct run_shared *sh)
{
	memset(rl->last, 0, rl->nlocal * sizeof(*rl->last));
	if (rl->nbars)
		memset(rl->recv, 0, (size_t)rl->ncopies * rl->nbars * sizeof(*rl->recv));
	for (uint32_t c = 0; c < rl->ncopies; c++) {
		rl->next_k[c] = 0;
		rl->sent[c] = 0;
		rl->gen_expect[c] = rl->nbars ? __atomic_load_n(&run_shared_barrier(sh, c)->gen,
							      __ATOMIC_SEQ_CST) : 0;
	}
	rl->stop_recv = rl->stop_sent = rl->fail_sent = false;
	rl->fail_from = 0;
	rl->fin_recv = 0;
	rl->idle_ns = 20000;
}

/* Per (copy, barrier): local participants, and processes taking part. */
static int count_barriers(struct relay *rl, const struct opstream *s, const uint32_t *owner)
{
	const struct plan *p = rl->p;
	size_t nx = (size_t)rl->ncopies * rl->nbars;
	uint32_t *nb = calloc(p->nranks_used, sizeof(*nb));
	int32_t *mark = malloc(nx * sizeof(*mark));
	rl->L = calloc(nx, sizeof(*rl->L));
	rl->nparty = calloc(nx, sizeof(*rl->nparty));
	rl->recv = calloc(nx, sizeof(*rl->recv));
	if (!nb || !mark || !rl->L || !rl->nparty || !rl->recv) {
		free(nb);
		free(mark);
		return -1;
	}
	for (uint32_t r = 0; r < p->nranks_used; r++) {
		uint64_t n;
		const struct op *ops = opstream_rank_ops(s, p->ranks[r], &n);
		for (uint64_t i = 0; i < n; i++)
			nb[r] += ops[i].kind == OP_BARRIER;
		nb[r] = nb[r] < rl->nbars ? nb[r] : rl->nbars;
	}
	for (size_t x = 0; x < nx; x++)
		mark[x] = -1;
	for (int q = 0; q < rl->np; q++)
		for (size_t i = 0; i < p->nprocs; i++) {
			if (owner[i] != (uint32_t)q)
				continue;
			size_t base = (size_t)p->procs[i].copy * rl->nbars;
			for (uint32_t k = 0; k < nb[p->procs[i].pos]; k++) {
				if (q == rl->me)
					rl->L[base + k]++;
				if (mark[base + k] != q) {
					mark[base + k] = q;
					rl->nparty[base + k]++;
				}
			}
		}
	free(nb);
	free(mark);
	return 0;
}

struct relay *relay_new(MPI_Comm comm, const struct plan *p, const struct opstream *s,
			const uint32_t *owner)
{
	struct relay *rl = calloc(1, sizeof(*rl));
	if (!rl)
		return NULL;
	rl->comm = comm;
	MPI_Comm_rank(comm, &rl->me);
	MPI_Comm_size(comm, &rl->np);
	rl->p = p;
	rl->ncopies = p->ncopies;
	rl->nbars = p->nbars;
	rl->active = rl->np > 1 && ((p->ordered && p->ord.deps) || p->nbars);
	rl->local = calloc(p->nprocs, sizeof(*rl->local));
	rl->last = calloc(p->nprocs, sizeof(*rl->last));
	rl->copy_has = calloc((size_t)p->ncopies * rl->np, 1);
	rl->ob = calloc((size_t)rl->np, sizeof(*rl->ob));
	rl->next_k = calloc(p->ncopies, sizeof(*rl->next_k));
	rl->gen_expect = calloc(p->ncopies, sizeof(*rl->gen_expect));
	rl->sent = calloc(p->ncopies, 1);
	if (!rl->local || !rl->last || !rl->copy_has || !rl->ob || !rl->next_k ||
	    !rl->gen_expect || !rl->sent || (rl->nbars && count_barriers(rl, s, owner) < 0)) {
		relay_free(rl);
		return NULL;
	}
	for (size_t i = 0; i < p->nprocs; i++) {
		rl->copy_has[(size_t)p->procs[i].copy * rl->np + owner[i]] = 1;
		if (owner[i] == (uint32_t)rl->me)
			rl->local[rl->nlocal++] = (uint32_t)i;
	}
	return rl;
}

void relay_free(struct relay *rl)
{
	if (!rl)
		return;
	for (int q = 0; rl->ob && q < rl->np; q++)
		free(rl->ob[q].w);
	free(rl->ob);
	for (size_t i = 0; i < rl->npend; i++)
		free(rl->pend[i].buf);
	free(rl->pend);
	free(rl->in);
	free(rl->local);
	free(rl->last);
	free(rl->copy_has);
	free(rl->L);
	free(rl->nparty);
	free(rl->recv);
	free(rl->next_k);
	free(rl->gen_expect);
	free(rl->sent);
	free(rl);
}
