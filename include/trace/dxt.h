/*
 * dxt.h - Darshan DXT traces: the text `darshan-dxt-parser` prints (plain
 * or gzip-compressed), or a binary .darshan log run through that tool.
 *
 * The format itself (trace_dxt, registered in trace.c) is declared in
 * trace.h.  What DXT records and what the reader makes of it (layers,
 * synthesized opens and closes, incomplete logs, hosts, Lustre OSTs) is in
 * replay(1), "Darshan DXT traces"; the info keys it writes are listed in
 * replay-ops(5).
 *
 * Input (dxt_input.c): a file is read as it is, through a `gzip -dc` child
 * when it starts with gzip's magic, and a binary Darshan log through a
 * child of ours printing it as the tool would (darshan_log.c; format
 * versions 3.10 to 3.41) or, for another version, a `darshan-dxt-parser
 * --show-incomplete` child.  Children's output is streamed; their failure
 * (exit status, first line of stderr) is reported as an error of the trace.
 */
#ifndef REPLAY_DXT_H
#define REPLAY_DXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "ops/opstream.h"
#include "util/util.h"

enum dxt_layer {
	DXT_LAYER_POSIX = 0,    /* X_POSIX: the calls that reach storage (default) */
	DXT_LAYER_MPIIO,        /* X_MPIIO: MPI-IO calls, as positioned I/O        */
};

/* "posix" / "mpiio" (NULL: posix).  0, or -EINVAL for anything else. */
int dxt_layer_parse(const char *name, enum dxt_layer *layer);

/* The DXT tool a binary log is given to, found on PATH. */
#define DXT_PARSER_TOOL "darshan-dxt-parser"

/* When the stream was read from an incomplete Darshan log (info key
 * "incomplete"), a one-line warning for the user in buf; else NULL. */
const char *dxt_incomplete_warning(const struct opstream *s, char *buf, size_t len);

/* When a block's rank is not below the header's nprocs (info key
 * "dxt_rank_beyond_nprocs", "LINE RANK"), a warning for the user in buf,
 * starting with the line (":LINE: ...", to follow the trace's name);
 * else NULL. */
const char *dxt_rank_warning(const struct opstream *s, char *buf, size_t len);

/* When files have segments only in the layer not replayed (info key
 * "dxt_files_other_layer_only"), a warning saying how many, their bytes,
 * the first one's name and the --dxt-layer that replays them; else NULL. */
const char *dxt_layer_warning(const struct opstream *s, char *buf, size_t len);

/* When records had no name ("(null)", info key "dxt_unnamed_records"), a
 * warning saying they became files darshan-record-ID; else NULL. */
const char *dxt_unnamed_warning(const struct opstream *s, char *buf, size_t len);

/* ---- input ----------------------------------------------------------- */

/* Does head start with gzip's magic (1f 8b)? */
int trace_is_gzip(const char *head, size_t n);
/* 1 when the file starts with gzip's magic, 0 when not, -errno. */
int trace_file_is_gzip(const char *path);
/* The first bytes (up to cap) of what a gzip file holds, via `gzip -dc`.
 * 0, or -errno with e ("cannot run 'gzip' ...", "gzip failed on ..."). */
int trace_gunzip_head(const char *path, char *buf, size_t cap, size_t *n, struct rerr *e);
/* Does head start like a binary Darshan log (version string, magic)? */
int dxt_is_darshan_log(const char *head, size_t n);

/* The minor number of a binary Darshan log's format version when replay
 * reads that version itself (10, 20, 21, 41: 3.10 to 3.41, the versions
 * that can hold DXT), else 0. */
int darshan_log_version(const char *head, size_t n);
/* Write to out the text `darshan-dxt-parser --show-incomplete` prints for
 * the binary Darshan log open on fd (darshan-util 3.5.0's, less the Lustre
 * stripe layouts and OST columns); 0, or -1 with a one-line reason in why
 * (darshan_log.c). */
int darshan_log_print(int fd, FILE *out, char *why, size_t whylen);
/* The segment lines' conversions, as printf's "%*" PRId64 and "%*.4f"
 * (exact rounding, ties to even) write them, right-aligned in w columns,
 * at p; the end of what was written (no NUL).  Exposed for test_dxt. */
char *darshan_put_i64(char *p, int64_t v, int w);
char *darshan_put_fix4(char *p, double v, int w);

/* TEXT: the file itself; GZIP: a `gzip -dc` child; DARSHAN: a
 * darshan-dxt-parser child; NATIVE: a child of ours running
 * darshan_log_print. */
enum dxt_source { DXT_SRC_TEXT, DXT_SRC_GZIP, DXT_SRC_DARSHAN, DXT_SRC_NATIVE };

struct dxt_input {
	const char *path;       /* as given                                  */
	enum dxt_source src;
	struct linereader lr;
	int lr_open;
	int outfd;              /* child's stdout (read end), -1 none        */
	int errfd;              /* child's stderr (unlinked temp file), -1   */
	pid_t pid;              /* child, 0 none                             */
	int show_incomplete;    /* darshan-dxt-parser was given the flag     */
	uint64_t bytes;         /* bytes of text read so far                 */
	char version[9];        /* a binary log's format version ("3.00")    */
};

/* Open path for reading text lines. -errno with e. */
int  dxt_input_open(struct dxt_input *in, const char *path, struct rerr *e);
/* As lr_next: 1 line, 0 end of text, <0 error (e filled).  At the end,
 * a child's exit is checked: a failed child is an error.  lineno is
 * in->lr.lineno. */
int  dxt_input_next(struct dxt_input *in, char **line, size_t *len, struct rerr *e);
/* After an error in the text of a child's output (gzip's, a log
 * reader's): its exit, once the rest of its output is read and dropped;
 * -errno with e when it failed (a corrupt gzip file makes garbage text
 * before gzip says so), else 0. */
int  dxt_input_verdict(struct dxt_input *in, struct rerr *e);
/* Release everything; a child still running is stopped (SIGTERM). */
void dxt_input_close(struct dxt_input *in);

#endif
