/*
 * trace.h - trace formats and the loader every subcommand uses.
 *
 * trace_load() turns the user's TRACE arguments into an .ops file:
 *  - an .ops file is used as is;
 *  - otherwise the arguments are expanded (a directory -> its files sorted
 *    by name; an strace -ff PREFIX -> PREFIX.<pid> files; a glob), the
 *    format is detected from content (or forced), and the parser feeds the
 *    builder, which writes the .ops file.
 */
#ifndef REPLAY_TRACE_H
#define REPLAY_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include "ops/builder.h"
#include "ops/opstream.h"
#include "util/util.h"

struct trace_input {
	char **files;           /* expanded input files, in order          */
	size_t nfiles;
	bool skip_bad;          /* skip malformed lines, count them        */
	uint64_t bad_lines;     /* out: lines skipped when skip_bad        */
	uint64_t lines;         /* out: lines read                         */
	uint64_t bytes;         /* out: bytes read                         */
	char first_bad[512];    /* out: first skipped line's message       */
	uint64_t cut_lines;     /* out: files whose last line, without its
	                         * '\n', did not parse (a capture cut
	                         * mid-line): dropped, not bad_lines      */
	char first_cut[512];    /* out: FILE:LINE of the first             */
	const char *no_clock;   /* out: why the processes of several files
	                         * (strace -ff) have no common clock, NULL
	                         * if they have one                        */
	char note[512];         /* out: parser's remarks for the info blob
	                         * ("k; k" text, "" if none), e.g. how LANL
	                         * ranks were assigned, names made distinct */
	uint64_t skipped_files; /* out: files given with others (a
	                         * directory's) that hold no line of the
	                         * format (a README beside the traces):
	                         * not read, said in a warning            */
	char skipped_names[512];/* out: their names, ", " between (cut)    */
	uint64_t unfinished;    /* out: calls left '<unfinished ...>' at the
	                         * end of their file (a process killed
	                         * mid-call): not replayed, counted as
	                         * skipped.unfinished:NAME                 */
	char first_unfinished[512]; /* out: FILE:LINE (NAME) of the first  */
	const char *dxt_layer;  /* DXT: "posix" (NULL) or "mpiio"          */
	/* the loader's (NULL in the readers' unit tests): the name of the
	 * format read, and the format a file probes as (NULL: none), which
	 * trace_skipped_file asks of a file the reader would leave out */
	const char *format;
	const char *(*probe_name)(const char *path);
	size_t dxt_run;         /* DXT: segments sorted in memory before a
	                         * run goes to a temporary file (0: 2^18;
	                         * tests set it small)                     */
};

/* A file of in that is not a trace of the format (trace_drop_foreign),
 * counted and named in in->skipped_files and in->skipped_names; 0.  But
 * when in->probe_name takes it for a trace of another format: -EINVAL, e
 * naming both (traces of one format at a time: only files that are no
 * trace, a README, are left out). */
int trace_skipped_file(struct trace_input *in, const char *path, struct rerr *e);
/* With several files: leave out those with no line that `looks` takes
 * for one of the format (blank lines aside; a file without any other
 * line, e.g. empty, is kept: its reader decides), naming them with
 * trace_skipped_file.  in->files is reordered, the kept ones first, and
 * in->nfiles is their count (the caller frees all it had).  0 or -errno
 * (e filled); -EINVAL when no file is left. */
int trace_drop_foreign(struct trace_input *in, bool (*looks)(const char *line, size_t len),
		       const char *what, struct rerr *e);

struct trace_format {
	const char *name;       /* "strace", "lanl", "sandia"              */
	const char *desc;
	/* Score 0..100: how sure the first bytes (head, len) of a file are in
	 * this format. */
	int (*probe)(const char *head, size_t len);
	/* Parse all in->files into b.  -errno and e filled on bad input. */
	int (*parse)(struct trace_input *in, struct builder *b, struct rerr *e);
	unsigned flags;         /* TRACE_F_*                               */
};
#define TRACE_F_GZIP 0x1u       /* parse() reads gzip-compressed files itself */

extern const struct trace_format trace_strace, trace_lanl, trace_sandia, trace_dxt,
	trace_fioiolog;
/* NULL-terminated list in detection order. */
extern const struct trace_format *const trace_formats[];
const struct trace_format *trace_format_find(const char *name);

struct load_opts {
	const char *format;     /* NULL: detect                            */
	bool skip_bad;
	const char *dxt_layer;  /* --dxt-layer: NULL (posix) or "posix", "mpiio" */
};

struct load_result {
	char ops_path[4096];    /* the .ops file to open                   */
	bool temporary;         /* ops_path is a temp file: unlink after use */
	bool unnamed;           /* ...an unnamed one (O_TMPFILE), open on
	                         * unnamed_fd: ops_path is /proc/self/fd/N,
	                         * tmpdir the directory it is in */
	int unnamed_fd;
	char tmpdir[4096];
	const char *format;     /* format used ("ops" for .ops input)      */
	struct build_stats stats;
	uint64_t bad_lines, lines, bytes;
	char first_bad[512];
	char files0[512];       /* the first input file, for messages       */
};

/* Load TRACE args into an .ops file.  out == NULL -> temp file in $TMPDIR. */
int trace_load(char *const *args, int nargs, const struct load_opts *o,
	       const char *out, struct load_result *res, struct rerr *e);
/* Load TRACE args without writing anything: the builder's ops go to sink
 * as they are made, and the tables (info, paths, ranks) end in s (see
 * opsw_finish_tables).  1 when the argument is an .ops file: nothing fed,
 * res->ops_path names it (open it).  0, or -errno with e filled. */
int trace_load_sink(char *const *args, int nargs, const struct load_opts *o,
		    const struct ops_sink *sink, struct opstream *s, struct load_result *res,
		    struct rerr *e);
/* Map res->ops_path: opstream_open() for an .ops file given as the trace,
 * opstream_open_made() for one the load has just written. */
int trace_load_map(struct opstream *s, const struct load_result *res, const char **why);
/* The .ops file is open (mapped), or no longer needed: a temporary one
 * is unlinked (closed when unnamed) at once, so nothing, not even
 * SIGKILL, can leave it behind in $TMPDIR. */
void trace_load_opened(struct load_result *res);
/* Expand args into files (exposed for tests). Caller frees with trace_files_free. */
int trace_expand(char *const *args, int nargs, char ***files, size_t *nfiles, struct rerr *e);
void trace_files_free(char **files, size_t n);

/* ---- loading: TRACE args -> mapped stream (stat, convert, dump) ------ */
struct loaded_trace {
	struct opstream s;
	struct load_result res;
	int mapped;             /* s is open                                */
	uint64_t load_ns;       /* time spent in trace_load                 */
};

/* The -f FMT of stat, convert and dump: 0 when absent or known, else
 * -EINVAL with e "unknown format 'x' (strace, lanl, ...)" (a usage error). */
int load_opts_check(const struct load_opts *o, struct rerr *e);
/* trace_load() then opstream_open(); out as for trace_load (NULL: temp).
 * -errno with e filled ("cannot open 'x': ...", "x.ops: corrupt ...").  */
int loaded_trace_open(struct loaded_trace *lt, char *const *args, int nargs,
		      const struct load_opts *o, const char *out, struct rerr *e);
/* As loaded_trace_open without a file: the ops go to sink, lt->s holds
 * the tables (no records).  An .ops file given is mapped instead and 1
 * returned: its records are in lt->s, nothing was fed. */
int loaded_trace_stream(struct loaded_trace *lt, char *const *args, int nargs,
			const struct load_opts *o, const struct ops_sink *sink, struct rerr *e);
/* Unmap, and unlink the temporary .ops file if one was made. */
void loaded_trace_close(struct loaded_trace *lt);

#endif
