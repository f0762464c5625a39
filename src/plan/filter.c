/*
 * filter.c - noise left out of the replay, and said so (filter.h).
 *
 * The defaults follow Darshan's list of system directories, plus the
 * places MPI runtimes and the dynamic loader use: a site's application
 * data never lives there, and replaying them measures nothing about the
 * storage under test.
 */
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

/* Paths, then ops per rank: counts and the ranks left. */
static void apply(struct filter *f, const struct opstream *s, const struct filter_opts *o)
{
	uint8_t *seen = calloc(s->npaths ? s->npaths : 1, 1);
	for (uint32_t r = 0; r < s->nranks; r++) {
		uint64_t n, kept = 0;
		const struct op *ops = opstream_rank_ops(s, r, &n);
		bool selected = ranklist_has(&o->ranks, r);
		for (uint64_t i = 0; i < n; i++) {
			const struct op *op = &ops[i];
			if (filter_op_kept(f, op)) {
				kept++;
				if (selected && seen && op->file != OP_NOFILE && !seen[op->file]) {
					seen[op->file] = 1;
					f->files_kept++;
				}
				continue;
			}
			if (!selected)
				continue;
			uint32_t p = f->path_rule[op->file] ? op->file : op->aux;
			struct filter_rule *ru = &f->rules[f->path_rule[p] - 1];
			ru->ops++;
			f->ops_removed++;
			if (seen && !seen[p]) {
				seen[p] = 2;
				ru->files++;
			}
		}
		if (!selected) {
			f->ranks_unselected++;
		} else if (!kept) {
			f->ranks_empty++;
		} else {
			f->rank_kept[r] = true;
			f->kept[f->nkept++] = r;
			f->ops_kept += kept;
		}
	}
	free(seen);
}

int filter_build(struct filter *f, const struct opstream *s, const struct filter_opts *o,
		 struct rerr *e)
{
	static const struct filter_opts none;
	if (!o)
		o = &none;
	memset(f, 0, sizeof(*f));
	f->npaths = s->npaths;
	f->path_rule = calloc(s->npaths ? s->npaths : 1, 1);
	f->rank_kept = calloc(s->nranks ? s->nranks : 1, sizeof(*f->rank_kept));
	f->kept = calloc(s->nranks ? s->nranks : 1, sizeof(*f->kept));
	if (!f->path_rule || !f->rank_kept || !f->kept || set_rules(f, o))
		goto nomem;
	for (uint32_t p = 0; p < s->npaths; p++)
		f->path_rule[p] = decide(f, o, opstream_path(s, p));
	apply(f, s, o);
	if (o->ranks.n && ranklist_max(&o->ranks) >= s->nranks) {
		filter_release(f);
		return rerr_set(e, -EINVAL, "--ranks: no rank %" PRIu32 " (the trace has %" PRIu32
				" ranks, 0 to %" PRIu32 ")", ranklist_max(&o->ranks), s->nranks,
				s->nranks ? s->nranks - 1 : 0);
	}
	return 0;
nomem:
	filter_release(f);
	return rerr_set(e, -ENOMEM, "out of memory");
}

void filter_release(struct filter *f)
{
	free(f->path_rule);
	free(f->rank_kept);
	free(f->kept);
	free(f->strs);
	memset(f, 0, sizeof(*f));
}

void filter_opts_release(struct filter_opts *o)
{
	ranklist_free(&o->ranks);
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
		n = snprintf(buf + used, len - used, "%s%s: %" PRIu64 " ops on %" PRIu64 " files", sep,
			     ru->what, ru->ops, ru->files);
		used += n > 0 ? (size_t)n : 0;
		sep = "; ";
	}
	if (*sep == ';' && used < len)
		used += (size_t)snprintf(buf + used, len - used, ")");
	if (f->ranks_empty && used < len)
		used += (size_t)snprintf(buf + used, len - used, "; %" PRIu32 " rank%s left with no op",
					 f->ranks_empty, f->ranks_empty == 1 ? "" : "s");
	if (f->ranks_unselected && used < len)
		snprintf(buf + used, len - used, "; %" PRIu32 " rank%s not in --ranks",
			 f->ranks_unselected, f->ranks_unselected == 1 ? "" : "s");
	return buf;
}
