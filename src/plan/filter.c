/*
 * filter.c - noise left out of the replay, and said so (filter.h).
 *
 * The defaults follow Darshan's list of system directories, plus the
 * places MPI runtimes and the dynamic loader use: a site's application
 * data never lives there, and replaying them measures nothing about the
 * storage under test.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/filter.h"

const struct filter_default filter_defaults[] = {
	{ "/etc", "system configuration" },
	{ "/dev", "devices, and /dev/shm: MPI shared-memory segments" },
	{ "/proc", "kernel state" },
	{ "/sys", "kernel state" },
	{ "/usr", "programs and shared libraries" },
	{ "/bin", "programs" },
	{ "/sbin", "programs" },
	{ "/lib", "shared libraries" },
	{ "/lib32", "shared libraries" },
	{ "/lib64", "shared libraries" },
	{ "/libx32", "shared libraries" },
	{ "/boot", "kernel images" },
	{ "/opt", "installed software" },
	{ "/snap", "installed software" },
	{ "/var", "system state, logs, spools" },
	{ "/run", "runtime state (sockets, munge, udev)" },
	{ "/tmp/ompi.*", "Open MPI session directories" },
	{ "/tmp/pmix*", "PMIx session directories" },
	{ "/tmp/prte.*", "PRRTE (Open MPI 5) session directories" },
	{ "/tmp/prterun.*", "PRRTE (Open MPI 5) session directories" },
	/* the same made in $TMPDIR (a batch job's own): what is in
	 * ompi.HOST.UID/pid.PID, prte.HOST.UID/dvm.PID (the session's own
	 * layout, so that a user's "ompi.results.1" stays) */
	{ "*/ompi.*.[0-9]*/pid.[0-9]*", "Open MPI session directories in $TMPDIR" },
	{ "*/prte.*.[0-9]*/dvm.[0-9]*", "PRRTE (Open MPI 5) session directories in $TMPDIR" },
	{ "*/spmix_appdir_*", "Slurm's PMIx plugin: per-step application directories" },
	{ "*/pmix_dstor_*", "PMIx shared-memory data stores (Slurm's PMIx plugin keeps them in its spool directory)" },
	{ "/tmp/hydra*", "MPICH (hydra) runtime files" },
	{ "/tmp/mpich*", "MPICH runtime files" },
	{ "*/.openmpi", "Open MPI per-user settings" },
	{ "*/.pmix", "PMIx per-user settings" },
};
const size_t filter_ndefaults = sizeof(filter_defaults) / sizeof(filter_defaults[0]);

/* Does glob match path or one of its parent directories? */
static bool match_tree(const char *glob, const char *path)
{
	char buf[4096];
	size_t n = strlen(path);
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, path, n);
	buf[n] = 0;
	for (;;) {
		if (buf[0] && !fnmatch(glob, buf, 0))
			return true;
		char *slash = strrchr(buf, '/');
		if (!slash || slash == buf)
			return false;
		*slash = 0;
	}
}

/* The rule that decides path: 0 kept, else its index + 1. */
static uint8_t decide(const struct filter *f, const struct filter_opts *o, const char *path)
{
	for (size_t i = 0; i < o->ninclude; i++)
		if (match_tree(o->include[i], path))
			return 0;
	for (size_t r = 0; r < f->nrules; r++) {
		const char *g = r < o->nexclude ? o->exclude[r] :
				filter_defaults[r - o->nexclude].glob;
		if (match_tree(g, path))
			return (uint8_t)(r + 1);
	}
	return 0;
}

static int set_rules(struct filter *f, const struct filter_opts *o)
{
	size_t need = 0;
	for (size_t i = 0; i < o->nexclude; i++)
		need += strlen(o->exclude[i]) + 16;
	f->strs = malloc(need + 1);
	if (!f->strs)
		return -ENOMEM;
	char *p = f->strs;
	for (size_t i = 0; i < o->nexclude; i++) {
		int n = sprintf(p, "--exclude '%s'", o->exclude[i]);
		f->rules[f->nrules++] = (struct filter_rule){ p, "", 0, 0 };
		p += n + 1;
	}
	if (!o->no_defaults)
		for (size_t i = 0; i < filter_ndefaults; i++)
			f->rules[f->nrules++] = (struct filter_rule){ filter_defaults[i].glob,
								      filter_defaults[i].why, 0, 0 };
	return 0;
}

/* Room for n entries of size sz in *p (capacity *cap), new ones zeroed. */
static int grow_zero(void **p, uint32_t *cap, uint32_t n, size_t sz)
{
	if (n <= *cap)
		return 0;
	uint32_t nc = *cap ? *cap : 64;
	while (nc < n)
		nc = nc > UINT32_MAX / 2 ? n : nc * 2;
	char *np = realloc(*p, (size_t)nc * sz);
	if (!np)
		return -ENOMEM;
	memset(np + (size_t)*cap * sz, 0, (size_t)(nc - *cap) * sz);
	*p = np;
	*cap = nc;
	return 0;
}

int filter_begin(struct filter *f, const struct filter_opts *o)
{
	static const struct filter_opts none;

	memset(f, 0, sizeof(*f));
	f->opts = o ? o : &none;
	f->sel_rank = UINT32_MAX;
	if (set_rules(f, f->opts) < 0) {
		filter_release(f);
		return -ENOMEM;
	}
	return 0;
}

int filter_path(struct filter *f, uint32_t id, const char *path)
{
	uint32_t cap = f->cappaths;

	if (id != f->npaths)
		return -EINVAL;
	if (grow_zero((void **)&f->path_rule, &cap, id + 1, 1) < 0 ||
	    grow_zero((void **)&f->seen, &f->cappaths, id + 1, 1) < 0)
		return -ENOMEM;
	f->path_rule[id] = decide(f, f->opts, path);
	f->npaths++;
	return 0;
}

/* A rank counter for every rank up to `rank`. */
static int rank_room(struct filter *f, uint32_t rank);

int filter_launcher(struct filter *f, uint32_t rank, int64_t pid, const char *prog)
{
	if (f->opts->no_defaults)
		return 0;
	if (rank_room(f, rank) < 0 ||
	    grow_zero((void **)&f->launcher_of, &f->caplaunch, f->caprank,
		      sizeof(*f->launcher_of)) < 0)
		return -ENOMEM;
	if (f->launcher_of[rank])
		return 0;
	struct filter_launcher *n = realloc(f->launchers, (f->nlaunchers + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	f->launchers = n;
	n += f->nlaunchers;
	*n = (struct filter_launcher){ .rank = rank, .pid = pid };
	snprintf(n->prog, sizeof(n->prog), "%s", prog);
	f->launcher_of[rank] = ++f->nlaunchers;
	return 0;
}

static inline bool is_launcher(const struct filter *f, uint32_t rank)
{
	return f->launcher_of && rank < f->nrank_ops && f->launcher_of[rank];
}

/* One op of a rank the --ranks list selects or not: the counts. */
static int count_op(struct filter *f, uint32_t rank, bool selected, const struct op *op)
{
	if (filter_op_kept(f, op)) {
		if (__builtin_expect(is_launcher(f, rank), 0)) {
			if (selected) {
				f->launchers[f->launcher_of[rank] - 1].ops++;
				f->ops_removed++;
			}
			return 0;
		}
		f->rank_ops[rank]++;
		if (__builtin_expect(op->kind == OP_MMAP, 0) && op->result >= 0 &&
		    op_mmap_data(op->aux))
			f->data_mmaps += selected;
		if (selected && op->file != OP_NOFILE && !f->seen[op->file]) {
			f->seen[op->file] = 1;
			f->files_kept++;
		}
		return selected;
	}
	if (!selected)
		return 0;
	uint32_t p = f->path_rule[op->file] ? op->file : op->aux;
	struct filter_rule *ru = &f->rules[f->path_rule[p] - 1];
	ru->ops++;
	f->ops_removed++;
	if (!f->seen[p]) {
		f->seen[p] = 2;
		ru->files++;
	}
	return 0;
}

static int rank_room(struct filter *f, uint32_t rank)
{
	if (rank < f->nrank_ops)
		return 0;
	if (grow_zero((void **)&f->rank_ops, &f->caprank, rank + 1, sizeof(*f->rank_ops)) < 0 ||
	    (f->launcher_of && grow_zero((void **)&f->launcher_of, &f->caplaunch, f->caprank,
					 sizeof(*f->launcher_of)) < 0))
		return -ENOMEM;
	f->nrank_ops = rank + 1;
	return 0;
}

int filter_op(struct filter *f, uint32_t rank, const struct op *op)
{
	if (rank_room(f, rank) < 0)
		return -ENOMEM;
	if (rank != f->sel_rank) {
		f->sel_rank = rank;
		f->sel = ranklist_has(&f->opts->ranks, rank);
	}
	return count_op(f, rank, f->sel, op);
}

int filter_end(struct filter *f, uint32_t nranks, struct rerr *e)
{
	const struct ranklist *rl = &f->opts->ranks;

	f->rank_kept = calloc(nranks ? nranks : 1, sizeof(*f->rank_kept));
	f->kept = calloc(nranks ? nranks : 1, sizeof(*f->kept));
	if (!f->rank_kept || !f->kept) {
		filter_release(f);
		return rerr_set(e, -ENOMEM, "out of memory");
	}
	for (uint32_t r = 0; r < nranks; r++) {
		uint64_t kept = r < f->nrank_ops ? f->rank_ops[r] : 0;
		if (!ranklist_has(rl, r)) {
			f->ranks_unselected++;
		} else if (is_launcher(f, r) && f->launchers[f->launcher_of[r] - 1].ops) {
			f->ranks_launcher++;    /* (one whose ops the path rules all
						 * leave out: a rank with no op left) */
		} else if (!kept) {
			f->ranks_empty++;
		} else {
			f->rank_kept[r] = true;
			f->kept[f->nkept++] = r;
			f->ops_kept += kept;
		}
	}
	if (rl->n && ranklist_max(rl) >= nranks) {
		filter_release(f);
		return rerr_set(e, -EINVAL, "--ranks: no rank %" PRIu32 " (the trace has %" PRIu32
				" rank%s, 0 to %" PRIu32 ")", ranklist_max(rl), nranks,
				nranks == 1 ? "" : "s", nranks ? nranks - 1 : 0);
	}
	return 0;
}

/* The number rank r carries of its own, its name being "rank N" (DXT's MPI
 * rank): true and *own; false for other names ("pid 8468"). */
static bool own_rank_number(const struct opstream *s, uint32_t r, unsigned long long *own)
{
	const char *name = opstream_rank_name(s, r);
	char *end;
	if (strncmp(name, "rank ", 5) || !isdigit((unsigned char)name[5]))
		return false;
	*own = strtoull(name + 5, &end, 10);
	return !*end;
}

void filter_note_rank_numbers(const struct filter *f, const struct opstream *s)
{
	const struct ranklist *rl = f->opts ? &f->opts->ranks : NULL;
	if (!rl || !rl->n)
		return;
	for (uint32_t r = 0; r < s->nranks; r++) {
		unsigned long long own;
		const char *name = opstream_rank_name(s, r);
		if (!ranklist_has(rl, r) || !own_rank_number(s, r, &own) || own == r)
			continue;
		fprintf(stderr, "replay: note: --ranks counts the trace's ranks with I/O, 0 to %u,"
			" as 'replay stat' lists them: rank %u is the trace's '%s'\n",
			s->nranks ? s->nranks - 1 : 0, r, name);
		return;
	}
}

static int build_launcher(void *arg, uint32_t rank, int64_t pid, const char *prog)
{
	return filter_launcher(arg, rank, pid, prog);
}

int filter_build(struct filter *f, const struct opstream *s, const struct filter_opts *o,
		 struct rerr *e)
{
	int rc = filter_begin(f, o);
	if (!rc)
		rc = opstream_launchers(s, build_launcher, f);

	for (uint32_t p = 0; p < s->npaths && !rc; p++)
		rc = filter_path(f, p, opstream_path(s, p));
	if (!rc && s->nranks)
		rc = rank_room(f, s->nranks - 1);
	for (uint32_t r = 0; r < s->nranks && !rc; r++) {
		uint64_t n;
		const struct op *ops = opstream_rank_ops(s, r, &n);
		bool selected = ranklist_has(&f->opts->ranks, r);
		for (uint64_t i = 0; i < n; i++)
			count_op(f, r, selected, &ops[i]);
	}
	if (rc) {
		filter_release(f);
		return rerr_set(e, rc, "out of memory");
	}
	uint32_t want = o && o->ranks.n ? ranklist_max(&o->ranks) : 0;
	rc = filter_end(f, s->nranks, e);
	if (rc == -EINVAL && e && o && o->ranks.n && want >= s->nranks) {
		/* "--ranks 383" of a DXT trace: say which rank that number is */
		size_t l = strlen(e->msg);
		bool named = false;
		for (uint32_t r = 0; r < s->nranks; r++) {
			unsigned long long own;
			if (!own_rank_number(s, r, &own))
				continue;
			named = true;
			if (own == want) {
				snprintf(e->msg + l, sizeof(e->msg) - l,
					 "; the trace's own 'rank %" PRIu32 "' is rank %" PRIu32, want, r);
				return rc;
			}
		}
		if (named)
			snprintf(e->msg + l, sizeof(e->msg) - l,
				 "; they are the trace's ranks with I/O, numbered in order: its own"
				 " 'rank %" PRIu32 "' has none ('replay stat' lists both numbers)", want);
	}
	return rc;
}

void filter_limit(struct filter *f, const struct opstream *s, uint32_t n)
{
	if (!n || n >= f->nkept)
		return;
	for (uint32_t k = n; k < f->nkept; k++)
		f->rank_kept[f->kept[k]] = false;
	f->ranks_beyond = f->nkept - n;
	f->nkept = n;
	/* recount from nothing over the selected ranks but those cut: the n
	 * kept and those with no op left (count_op adds a file to a rule, or
	 * to the kept ones, the first time an op of theirs is seen) */
	f->ops_kept = f->ops_removed = 0;
	f->files_kept = 0;
	if (f->seen)
		memset(f->seen, 0, f->npaths);
	for (size_t r = 0; r < f->nrules; r++)
		f->rules[r].ops = f->rules[r].files = 0;
	for (uint32_t l = 0; l < f->nlaunchers; l++)
		f->ops_removed += f->launchers[l].ops;  /* ranks left whole, not cut */
	for (uint32_t r = 0; r < s->nranks && r < f->nrank_ops; r++) {
		if (is_launcher(f, r))
			continue;
		if (!ranklist_has(&f->opts->ranks, r) || (!f->rank_kept[r] && f->rank_ops[r]))
			continue;       /* not selected, or past the n */
		uint64_t nops;
		const struct op *ops = opstream_rank_ops(s, r, &nops);
		f->rank_ops[r] = 0;
		for (uint64_t i = 0; i < nops; i++)
			count_op(f, r, true, &ops[i]);
		f->ops_kept += f->rank_ops[r];
	}
}

void filter_release(struct filter *f)
{
	free(f->seen);
	free(f->rank_ops);
	free(f->path_rule);
	free(f->rank_kept);
	free(f->kept);
	free(f->strs);
	free(f->launchers);
	free(f->launcher_of);
	memset(f, 0, sizeof(*f));
}

void filter_opts_release(struct filter_opts *o)
{
	ranklist_free(&o->ranks);
}

const char *filter_launchers_text(const struct filter *f, char *buf, size_t len)
{
	size_t used = 0;
	uint32_t shown = 0;
	buf[0] = 0;
	for (uint32_t l = 0; l < f->nlaunchers && used < len; l++) {
		const struct filter_launcher *x = &f->launchers[l];
		if (!x->ops)
			continue;
		int n;
		if (++shown > 4)
			continue;
		n = snprintf(buf + used, len - used, "%s%" PRIu64 " op%s of %s (pid %" PRId64 ")",
			     shown == 1 ? "launcher processes: " : ", ", x->ops, x->ops == 1 ? "" : "s",
			     x->prog, x->pid);
		used += n > 0 ? (size_t)n : 0;
	}
	if (shown > 4 && used < len)
		used += (size_t)snprintf(buf + used, len - used, " and %" PRIu32 " more", shown - 4);
	if (shown && used < len)
		snprintf(buf + used, len - used, " left out (a launcher's I/O: the job's output"
			 " it forwards, its own files)");
	return buf;
}

const char *filter_summary(const struct filter *f, char *buf, size_t len)
{
	size_t used = 0;
	int n = snprintf(buf, len, "%" PRIu64 " ops removed", f->ops_removed);
	used = n > 0 ? (size_t)n : 0;
	const char *sep = " (";
	for (size_t r = 0; r < f->nrules && used < len; r++) {
		const struct filter_rule *ru = &f->rules[r];
		if (!ru->ops)
			continue;
		n = snprintf(buf + used, len - used, "%s%s: %" PRIu64 " op%s on %" PRIu64 " file%s",
			     sep, ru->what, ru->ops, ru->ops == 1 ? "" : "s", ru->files,
			     ru->files == 1 ? "" : "s");
		used += n > 0 ? (size_t)n : 0;
		sep = "; ";
	}
	if (*sep == ';' && used < len)
		used += (size_t)snprintf(buf + used, len - used, ")");
	if (f->ranks_launcher && used + 2 < len) {
		used += (size_t)snprintf(buf + used, len - used, "; ");
		filter_launchers_text(f, buf + used, len - used);
		used += strlen(buf + used);
	}
	if (f->ranks_empty && used < len)
		used += (size_t)snprintf(buf + used, len - used, "; %" PRIu32 " rank%s left with no op",
					 f->ranks_empty, f->ranks_empty == 1 ? "" : "s");
	if (f->ranks_unselected && used < len)
		used += (size_t)snprintf(buf + used, len - used, "; %" PRIu32 " rank%s not in --ranks",
					 f->ranks_unselected, f->ranks_unselected == 1 ? "" : "s");
	if (f->ranks_beyond && used < len)
		snprintf(buf + used, len - used, "; %" PRIu32 " rank%s past the %" PRIu32
			 " replayed (-n)", f->ranks_beyond, f->ranks_beyond == 1 ? "" : "s", f->nkept);
	return buf;
}
