/*
 * opstream.h - the binary .ops file: writer (streaming, bounded memory) and
 * mmap reader.  Layout documented in man/replay-ops.5:
 *
 *   header (struct ops_header, 128 bytes)
 *   info blob   : NUL-terminated text, "key=value\n" lines (format, sources, notes)
 *   string table: NUL-terminated strings (paths, rank names)
 *   path table  : npaths x struct ops_path
 *   rank index  : nranks x struct ops_rank
 *   records     : struct op[], all of rank 0, then rank 1, ... (64-byte aligned)
 *   pieces      : (version 2) npieces x struct ops_piece: where each rank's
 *                 records lie when they are in several pieces
 *
 * Contract: records of one rank are in trace order: contiguous (version 1),
 * or in the pieces the piece table lists, rank by rank (version 2); a reader
 * gives every rank its records as one array either way (opstream_rank_ops).
 */
#ifndef REPLAY_OPSTREAM_H
#define REPLAY_OPSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include "ops/ops.h"

#define OPS_MAGIC   "REPLAYOP"
#define OPS_VERSION 1u           /* every rank's records contiguous */
#define OPS_VERSION_PIECES 2u    /* a piece table says where they are */
/* A version 2 writer starts every piece of a rank of several pieces at a
 * multiple of this, and makes every one but the last a multiple of it
 * long, so a reader maps them one after another into one array; a reader
 * takes any piece (it copies what it cannot map so). */
#define OPS_PIECE_ALIGN 4096u
/* a handle id must be below max(rank's op count, this) */
#define OPS_MAX_SPARSE_HANDLE (1u << 20)

struct ops_header {
	char     magic[8];      /* "REPLAYOP"                         */
	uint32_t version;       /* OPS_VERSION                        */
	uint32_t header_size;   /* sizeof(struct ops_header)          */
	uint32_t nranks;
	uint32_t npaths;
	uint64_t nops;          /* total records                      */
	uint64_t info_off, info_len;
	uint64_t str_off, str_len;
	uint64_t paths_off;
	uint64_t ranks_off;
	uint64_t ops_off;
	uint64_t file_size;
	uint64_t pieces_off;    /* version 2: the piece table (else 0) */
	uint64_t npieces;
	uint8_t  pad[128 - 8 - 4 * 4 - 8 * 11];
};
_Static_assert(sizeof(struct ops_header) == 128, "header is 128 bytes");

#define OPSP_TRUNCATED_NAME 0x1u /* traced name was truncated; made distinct per rank */

struct ops_path {
	uint64_t name;   /* offset into the string table */
	uint32_t flags;  /* OPSP_* */
	uint32_t reserved;
};

struct ops_rank {
	uint64_t first;  /* index of the rank's first record */
	uint64_t count;  /* records of this rank             */
	uint64_t name;   /* offset into the string table ("pid 8468", "host13.10378") */
	int64_t  pid;    /* traced pid/tid, or -1            */
	uint64_t t0_ns;  /* absolute trace time of the rank's first op (ns), 0 unknown */
	uint64_t host;   /* offset into the string table: the node the rank ran on
	                  * ("" = unknown; files written before hosts were kept
	                  * hold 0 here, the empty string) */
};

/* Version 2: the rank's records from `off` (a byte offset in the file),
 * `count` of them.  The table lists each rank's pieces in order, rank 0's
 * first; a rank's pieces add up to its count (none for a rank of none). */
struct ops_piece {
	uint64_t off;
	uint64_t count;
};

/* ---- writer ---------------------------------------------------------- */
struct ops_writer;

/* Create a writer whose output will be `path` (written atomically: a
 * temporary file in the same directory, renamed by opsw_finish).  Records
 * go to that file in per-rank chunks as they come, so memory stays
 * bounded; while ranks arrive one after another in index order they are
 * in their final place at once (a version 1 file); else a rank's records
 * past what memory holds go to the file in pieces (version 2), each
 * written once. */
int  opsw_open(struct ops_writer **w, const char *path);
/* The same into an unnamed file (O_TMPFILE) in dir: fd, already made
 * there, or -1 to make it.  Nothing, not even SIGKILL, leaves a file
 * behind; opsw_finish_unnamed hands the finished file's descriptor out. */
int  opsw_open_unnamed(struct ops_writer **w, const char *dir, int fd);
/* Intern a path; returns its id (same string -> same id). */
int  opsw_path(struct ops_writer *w, const char *path, uint32_t flags, uint32_t *id);
/* Add a rank; returns its index.  Ranks appear in the file in this order. */
int  opsw_rank(struct ops_writer *w, const char *name, int64_t pid, uint32_t *rank);
void opsw_rank_t0(struct ops_writer *w, uint32_t rank, uint64_t t0_ns);
/* Rank r's process runs a launcher (mpirun, srun...: builder_is_launcher),
 * prog its base name: an info line "launcher=R PROG", and a sink is told
 * at once (before the rank's first op reaches it). */
int  opsw_rank_launcher(struct ops_writer *w, uint32_t rank, const char *prog);
/* The trace file rank r's ops come from, of several: an info line
 * "rank_source=R PATH" (-EINVAL when path holds a newline). */
int  opsw_rank_source(struct ops_writer *w, uint32_t rank, const char *path);
/* Record the host a rank ran on (copied into the string table). */
int  opsw_rank_host(struct ops_writer *w, uint32_t rank, const char *host);
int  opsw_append(struct ops_writer *w, uint32_t rank, const struct op *op);
/*
 * Filling a record in place, for the hot paths: opsw_slot() is where the
 * rank's next record goes, or NULL when it has none to give (a sink, a
 * rank with no record yet, one opsw_append must take next, no such rank):
 * opsw_append() the record then.  Fill every field of a slot, then
 * opsw_commit() takes it as opsw_append() would have taken it (0 or
 * -errno); nothing else may be appended in between.
 */
#define OPSW_CHUNK 256u            /* records a rank buffers */
struct opsw_fill {                 /* the writer's, per rank: read only */
	struct op *buf;            /* OPSW_CHUNK records, NULL until the first */
	uint32_t nbuf;             /* records in buf */
	uint32_t fast;             /* opsw_slot may give out buf[nbuf] */
	uint64_t count;            /* records of the rank */
};
struct opsw_head {                 /* the start of struct ops_writer */
	struct opsw_fill *fill;
	uint32_t nranks;
};
int  opsw_full(struct ops_writer *w, uint32_t rank);
static inline struct op *opsw_slot(struct ops_writer *w, uint32_t rank)
{
	const struct opsw_head *h = (const struct opsw_head *)(void *)w;
	if (rank >= h->nranks || !h->fill[rank].fast)
		return NULL;
	return &h->fill[rank].buf[h->fill[rank].nbuf];
}
static inline int opsw_commit(struct ops_writer *w, uint32_t rank)
{
	struct opsw_fill *f = &((struct opsw_head *)(void *)w)->fill[rank];
	f->count++;
	if (++f->nbuf < OPSW_CHUNK)
		return 0;
	return opsw_full(w, rank);
}
/* Append "key=value\n" to the info blob (value may not contain '\n'). */
int  opsw_info(struct ops_writer *w, const char *key, const char *value);
/* 1 while every record so far is in its final place (opsw_finish will not
 * copy them): no rank has had records after a higher-indexed rank's. */
int  opsw_in_place(const struct ops_writer *w);
/* At most `bytes` of full record buffers kept in memory while ranks
 * interleave (default 32 MiB), the rest written to the file as pieces of
 * ranks; 0 writes every full buffer at once.  For tests. */
void opsw_hold(struct ops_writer *w, size_t bytes);
/* At most n pieces in a version 2 file (default OPSW_MAX_PIECES): past
 * that opsw_finish copies every rank's records into place (version 1).
 * For tests. */
#define OPSW_MAX_PIECES 8192u
void opsw_max_pieces(struct ops_writer *w, size_t n);
/* Write the final file; frees w on success and on failure.  Every record
 * is checked as it leaves the writer's buffer, by opstream_open's rules:
 * -EINVAL, with the reason in *why (static; why may be NULL), when one
 * breaks them, and no file is made. */
int  opsw_finish(struct ops_writer *w, const char **why);
/* opsw_finish of an unnamed writer: *fd is open on the finished file
 * (read-write; the caller closes it), -1 on failure. */
int  opsw_finish_unnamed(struct ops_writer *w, const char **why, int *fd);
void opsw_abort(struct ops_writer *w);

/* Sink mode (`replay stat`): nothing is written, no file is created.  Every
 * new path is announced (ids 0, 1, ... in order; name valid during the
 * call) and every op is handed over, checked as opstream_open() checks a
 * record, in the order they came (handed over when the writer's buffer
 * fills, when another rank's op comes, and at the end).  A callback's
 * error (-errno) is what opsw_path(), opsw_append(), opsw_commit() or
 * opsw_finish_tables() returns. */
struct ops_sink {
	int (*path)(void *arg, uint32_t id, const char *name);
	int (*op)(void *arg, uint32_t rank, const struct op *op);
	/* optional: rank (of that pid) is a launcher's (opsw_rank_launcher) */
	int (*launcher)(void *arg, uint32_t rank, int64_t pid, const char *prog);
	void *arg;
};
struct opstream;
int  opsw_open_sink(struct ops_writer **w, const struct ops_sink *sink);
/* End a sink: the tables (info blob, strings, paths, ranks with their
 * counts) as an opstream in memory without records (s->ops NULL, s->nops
 * the ops handed over), closed with opstream_close().  Frees w.  -EINVAL
 * + why when the ops broke a rule of the format, -ENOMEM. */
int  opsw_finish_tables(struct ops_writer *w, struct opstream *s, const char **why);

/* ---- reader ---------------------------------------------------------- */
struct opstream {
	void *map;
	size_t size;
	const struct ops_header *hdr;
	const struct ops_path *paths;
	const struct ops_rank *ranks;
	const struct op *ops;
	const char *strs;
	const char *info;
	uint32_t nranks, npaths;
	uint64_t nops;
	int heap;               /* map is malloc'ed (opsw_finish_tables), no records */
	const struct op **rank_ops; /* each rank's records (NULL: none here) */
	struct opstream_map {   /* ranks of several pieces: their own mapping */
		void *p;
		size_t len;
		int anon;       /* copied into anonymous memory, not mapped */
	} *maps;
	uint32_t nmaps;
};

/* Map and validate; -EINVAL with a reason in *why (static string) when corrupt. */
int opstream_open(struct opstream *s, const char *path, const char **why);
/* The same for a file this process has just made with opsw_finish, which
 * checked every record on the way in: the header and tables are checked,
 * the records not read again (they may be much larger than the trace). */
int opstream_open_made(struct opstream *s, const char *path, const char **why);
void opstream_close(struct opstream *s);
static inline const struct op *opstream_rank_ops(const struct opstream *s, uint32_t r, uint64_t *n)
{
	*n = s->ranks[r].count;
	return s->rank_ops ? s->rank_ops[r] : NULL;
}
const char *opstream_path(const struct opstream *s, uint32_t id);    /* "" if OP_NOFILE */
const char *opstream_rank_name(const struct opstream *s, uint32_t r);
/* The host rank r ran on, "" when unknown. */
const char *opstream_rank_host(const struct opstream *s, uint32_t r);
/* Value of an info key (copied into buf), NULL when absent. */
const char *opstream_info(const struct opstream *s, const char *key, char *buf, size_t len);
/* The one trace file the ops came from (copied into buf), for FILE:LINE;
 * NULL when they came from several (a LANL directory, -ff files) or the
 * stream does not say. */
const char *opstream_source_file(const struct opstream *s, char *buf, size_t len);
/* The launcher ranks of a stream (its "launcher=R PROG" info lines, R a
 * rank of it): fn for each, in order; 0 or fn's error. */
/* The trace file rank r's ops come from (copied into buf), for
 * FILE:LINE: its rank_source line, else the one file of the stream; NULL
 * when not known. */
const char *opstream_rank_source(const struct opstream *s, uint32_t r, char *buf, size_t len);
int opstream_launchers(const struct opstream *s,
		       int (*fn)(void *arg, uint32_t rank, int64_t pid, const char *prog), void *arg);
/* The process of each rank that is a thread of another ("thread_of=R PID"
 * info lines, from the clone that made it): tgid[r] that pid, else -1;
 * tgid has s->nranks entries. */
void opstream_thread_of(const struct opstream *s, int64_t *tgid);
/* Hand a mapped stream to a sink: every path, its launcher ranks, then every op rank by rank
 * (what a sink writer would have been given).  0 or the sink's error. */
int opstream_feed(const struct opstream *s, const struct ops_sink *sink);
/* Is the file at path an .ops file (magic check)? */
int ops_file_is(const char *path);

#endif
