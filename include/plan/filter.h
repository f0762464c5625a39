/*
 * filter.h - what of a trace is the application's I/O, and what is noise.
 *
 * A trace of a real program holds more than its data: the dynamic loader
 * reading shared libraries, /etc and /proc lookups, and for MPI jobs the
 * runtime's own files (shared-memory segments in /dev/shm, session
 * directories under /tmp).  Replaying those measures nothing about the
 * storage and breaks runs (one process creates a session directory,
 * another removes it).  A filter decides, once per path of the op stream,
 * whether the ops on it are replayed, and per rank whether it is replayed
 * at all; `stat`, `run --dry-run` and the results say what each rule
 * removed.
 *
 * Rules, in order of precedence:
 *   --include GLOB   kept, whatever excludes it (how a default is undone)
 *   --exclude GLOB   removed
 *   default excludes (FILTER_DEFAULTS, each with its reason), unless
 *   --no-default-excludes
 * A GLOB is matched with fnmatch(3) without FNM_PATHNAME ('*' crosses
 * '/') against the path and each of its parent directories, so a
 * directory's pattern covers everything below it.  Ops without a path
 * (barriers, calls on unknown descriptors) are kept.
 *
 * Launchers: a rank the reader found running an MPI or Slurm launcher or
 * daemon (mpirun, srun, prted...: opstream_launchers) is left out whole,
 * as a default exclude (--no-default-excludes keeps it): its ops are the
 * job's output it forwards, not the application's I/O.  Its ops the path
 * rules keep count as removed by it, not by a path rule.
 *
 * Ranks: --ranks LIST keeps only the listed ranks (0-based, as the trace
 * numbers them); a rank left with no op after the path rules is dropped.
 * The kept ranks, in order, are what the plan replays (and what -n counts;
 * run cuts them to its -n with filter_limit).
 */
#ifndef REPLAY_PLAN_FILTER_H
#define REPLAY_PLAN_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ops/opstream.h"
#include "util/util.h"

#define FILTER_MAX_RULES 64

struct filter_opts {
	const char *include[FILTER_MAX_RULES];
	size_t ninclude;
	const char *exclude[FILTER_MAX_RULES];
	size_t nexclude;
	bool no_defaults;
	struct ranklist ranks;          /* empty: every rank              */
};

/* One rule's effect, for the reports. */
struct filter_rule {
	const char *what;               /* "/usr/", "--exclude '*.log'"   */
	const char *why;                /* "system files", "" for the user's */
	uint64_t ops, files;            /* removed by this rule           */
};

/* A launcher rank the filter leaves out. */
struct filter_launcher {
	uint32_t rank;
	int64_t pid;
	char prog[32];                  /* "mpirun"                       */
	uint64_t ops;                   /* left out (the path rules keep them) */
};

struct filter {
	uint8_t *path_rule;             /* per path id: 0 kept, else rule index + 1 */
	uint32_t npaths;
	struct filter_rule rules[2 * FILTER_MAX_RULES + 32];
	size_t nrules;
	bool *rank_kept;                /* per rank of the stream         */
	uint32_t *kept;                 /* the kept ranks, in order       */
	uint32_t nkept;
	uint32_t ranks_unselected;      /* not in --ranks                 */
	uint32_t ranks_empty;           /* no op left after the path rules */
	uint32_t ranks_beyond;          /* selected, but past -n (filter_limit) */
	uint32_t ranks_launcher;        /* selected, but a launcher's     */
	struct filter_launcher *launchers; /* those left out, by rank     */
	uint32_t nlaunchers;
	uint32_t *launcher_of;          /* per rank: index in launchers + 1, 0 none */
	uint32_t caplaunch;
	uint64_t ops_kept, ops_removed;
	uint64_t data_mmaps;            /* kept mmaps of data (op_mmap_data):
	                                 * run names their files only then */
	uint32_t files_kept;
	char *strs;                     /* storage of the rules' texts    */
	/* while building (filter_begin ... filter_end) */
	const struct filter_opts *opts;
	uint8_t *seen;                  /* per path: 1 a kept op, 2 a removed one */
	uint32_t cappaths;
	uint64_t *rank_ops;             /* per rank: ops the path rules keep */
	uint32_t nrank_ops, caprank;
	uint32_t sel_rank;              /* the last rank looked up in --ranks */
	bool sel;
};

/* The default excludes: path prefix or pattern, and why. */
struct filter_default {
	const char *glob;
	const char *why;
};
extern const struct filter_default filter_defaults[];
extern const size_t filter_ndefaults;

/* Decide every path and rank of s.  -EINVAL + e when a rank of --ranks is
 * not in the trace; -ENOMEM.  (No rank left is the plan's error.) */
int  filter_build(struct filter *f, const struct opstream *s, const struct filter_opts *o,
		  struct rerr *e);
void filter_release(struct filter *f);

/* Keep only the first n ranks of f->kept (run's -n fewer processes than
 * ranks: the plan replays those); the others count as ranks_beyond, and
 * ops_kept, ops_removed, files_kept and the rules' counts leave their ops
 * out, so every report of the filter describes what is replayed.  Nothing
 * to do when n is 0 or at least nkept.  f's options must still be alive. */
void filter_limit(struct filter *f, const struct opstream *s, uint32_t n);

/* --ranks counts the trace's ranks 0..N-1; a trace whose ranks carry
 * numbers of their own ("rank 36": Darshan DXT's MPI ranks, where only
 * some ranks did I/O in the layer) numbers them otherwise.  When a rank
 * --ranks selects has another number of its own, say so once on stderr. */
void filter_note_rank_numbers(const struct filter *f, const struct opstream *s);

/* The same, as the paths and ops arrive (stat reads a trace without an
 * .ops file): filter_begin; filter_path for each new path (ids 0, 1, ...
 * in order); filter_op for each op, in each rank's order, which counts it
 * and says whether it is replayed (1: its rank selected and its paths kept,
 * 0 not, -ENOMEM); filter_end once the ranks are known.  filter_build is
 * these over a mapped stream.  o must outlive the building. */
int  filter_begin(struct filter *f, const struct filter_opts *o);
int  filter_path(struct filter *f, uint32_t id, const char *path);
int  filter_op(struct filter *f, uint32_t rank, const struct op *op);
/* Rank is a launcher's (prog of pid), before its first filter_op; nothing
 * to do under --no-default-excludes.  0, -ENOMEM. */
int  filter_launcher(struct filter *f, uint32_t rank, int64_t pid, const char *prog);
int  filter_end(struct filter *f, uint32_t nranks, struct rerr *e);
void filter_opts_release(struct filter_opts *o);

static inline bool filter_path_kept(const struct filter *f, uint32_t path)
{
	return !f || path >= f->npaths || !f->path_rule[path];
}
/* Is op (of any rank) replayed?  Ops without a path are. */
static inline bool filter_op_kept(const struct filter *f, const struct op *op)
{
	if (!f || op->file == OP_NOFILE)
		return true;
	if (f->path_rule[op->file])
		return false;
	return !op_has_path2(op->kind) || filter_path_kept(f, op->aux);
}

/* Ops of `rank` that are replayed: the rank's ops the path rules keep (of
 * `all`, the rank's ops; f NULL: all of them). */
static inline uint64_t filter_rank_ops(const struct filter *f, uint32_t rank, uint64_t all)
{
	return f && rank < f->nrank_ops ? f->rank_ops[rank] : f ? 0 : all;
}

/* "launcher processes: 3 ops of mpirun (pid 11939) left out" into buf
 * (empty when none is). */
const char *filter_launchers_text(const struct filter *f, char *buf, size_t len);

/* "removed 1234 ops on 56 files (/usr/ 1200 ops, 50 files: system files;
 * ...); 1 rank with no op left" into buf, for the human outputs. */
const char *filter_summary(const struct filter *f, char *buf, size_t len);

#endif
