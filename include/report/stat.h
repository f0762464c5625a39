/*
 * stat.h - analysis of an op stream: what `replay stat` reports (the
 * study's Table I and Figures 1-2).
 *
 * Definitions (also in the man page, section "replay stat"):
 *
 * Data ops are read/aread (reads) and write/awrite (writes).  A data op
 * whose traced result is negative failed: it is counted in the op counts
 * and in `failed`, and nowhere else.
 *
 * Bytes: the traced result of each successful synchronous call.  For an
 * async submit (aread/awrite) the result of its matching await (same rank,
 * aux = async id) when that is >= 0, else the submitted length.
 *
 * Request size: the requested length (op.len) of each successful data op.
 * Histogram buckets are powers of two labelled by their inclusive upper
 * bound, the previous bound exclusive: "<=1K" is 0..1024 bytes, "2K" is
 * 1025..2048, ... "2048K" is 1 MiB+1..2 MiB, ">2048K" is above 2 MiB.
 *
 * Access pattern of one direction: for every stream (rank, file, handle)
 * the successful data ops of that direction in trace order form
 * transitions between consecutive requests.  A transition is sequential
 * when offset == previous offset + previous length; otherwise its delta
 * is offset - previous offset.  Over all ranks:
 *   no requests                                    -> N/A
 *   no transitions (one request per stream)        -> sequential
 *   >= 90% of transitions sequential               -> sequential
 *   >= 90% of transitions share one delta D        -> strided, stride = D
 *      (distance between the starts of consecutive requests)
 *   < 50% sequential, no delta in >= 50% of them,
 *      and one request size in >= 90% of requests -> random
 *   anything else                                  -> unrecognized
 */
#ifndef REPLAY_STAT_H
#define REPLAY_STAT_H

#include <stddef.h>
#include <stdint.h>
#include "ops/opstream.h"
#include "plan/filter.h"

enum stat_pattern {
	STAT_PAT_NA = 0,
	STAT_PAT_SEQUENTIAL,
	STAT_PAT_STRIDED,
	STAT_PAT_RANDOM,
	STAT_PAT_UNRECOGNIZED,
};

/* "N/A", "sequential", "strided", "random", "unrecognized" */
const char *stat_pattern_name(enum stat_pattern p);

/* Request-size buckets: "<=1K", "2K", "4K", ..., "2048K", ">2048K". */
#define STAT_NBUCKETS 13
unsigned stat_bucket_of(uint64_t size);
const char *stat_bucket_label(unsigned idx);

/* Darshan's access-size buckets (its POSIX_SIZE_*_0_100 ... counters), over
 * the same request sizes: "0_100" is 0..100 bytes, "100_1K" 101..1024,
 * "1K_10K" 1025..10240, "10K_100K", "100K_1M", "1M_4M", "4M_10M",
 * "10M_100M", "100M_1G" (each up to its bound inclusive, 1K = 1024) and
 * "1G_PLUS" above 1 GiB. */
#define STAT_NDARSHAN 10
unsigned stat_darshan_bucket_of(uint64_t size);
const char *stat_darshan_bucket_label(unsigned idx);

/* Thresholds of the classification, in percent of transitions/requests. */
#define STAT_SEQ_PCT    90
#define STAT_STRIDE_PCT 90
#define STAT_RANDOM_MAX_PCT 50
#define STAT_REGULAR_SIZE_PCT 90

/* One direction (reads or writes). */
struct stat_dir {
	uint64_t requests;        /* successful data ops                        */
	uint64_t failed;          /* data ops with a negative result            */
	uint64_t bytes;           /* traced bytes (see above)                   */
	uint64_t req_bytes;       /* sum of requested lengths of `requests`     */
	uint64_t hist[STAT_NBUCKETS];
	uint64_t dhist[STAT_NDARSHAN]; /* Darshan's buckets, same requests    */
	uint64_t transitions;     /* consecutive pairs within a stream          */
	uint64_t sequential;      /* of which sequential                        */
	int64_t  top_delta;       /* most frequent non-sequential delta         */
	uint64_t top_delta_n;     /* transitions with that delta (0: none)      */
	uint64_t top_size;        /* most frequent request size                 */
	uint64_t top_size_n;      /* requests of that size                      */
	enum stat_pattern pattern;
};

/* Classify from the counters above (exposed for tests). */
enum stat_pattern stat_classify(const struct stat_dir *d);

struct stat_file {
	const char *path;         /* points into the stream's string table */
	uint32_t id;
	uint32_t nranks;          /* distinct ranks with a successful op on it */
	int truncated;            /* OPSP_TRUNCATED_NAME                   */
	uint64_t ops;
	uint64_t bytes_read, bytes_written;
	const char *osts;         /* Lustre OST set ("106", "mdt,3,7"), NULL unknown */
	uint32_t last_rank;       /* internal                              */
};

/* One (file, rank) pair with data ops: Darshan's per-record counts. */
struct stat_file_rank {
	uint32_t file;            /* path id                               */
	uint32_t rank;
	uint64_t reads, writes;   /* successful data ops (as `requests`)   */
	uint64_t bytes_read, bytes_written;
};

/* Ranks that ran on one host (opstream_rank_host). */
struct stat_host {
	const char *name;         /* "" when the trace names no host       */
	uint32_t nranks;
	uint32_t *ranks;          /* nranks rank indexes, ascending        */
	uint64_t bytes_read, bytes_written;
};

/* Files that share one Lustre OST set. */
struct stat_ostset {
	const char *osts;
	uint32_t nfiles;
	uint64_t bytes_read, bytes_written;
};

struct stat_rank {
	uint32_t id;              /* the trace's rank number               */
	const char *name;
	int64_t pid;
	uint64_t ops;
	uint64_t bytes_read, bytes_written;
	const char *host;         /* "" unknown                            */
	uint64_t end_ns;          /* max t_ns + dur_ns                     */
	uint64_t in_ops_ns;       /* sum of the traced durations: the rest of
	                           * end_ns is think time (compute, others) */
	bool timed;               /* some op has a traced duration         */
	uint64_t kinds[OP__COUNT];
};

struct stat_report {
	uint32_t nranks;
	uint64_t nops;
	uint64_t kinds[OP__COUNT];
	uint64_t failed_ops;      /* any op with a negative result         */
	uint64_t kinds_failed[OP__COUNT]; /* of kinds[]: the failed ones  */
	struct stat_dir rd, wr;
	struct stat_rank *ranks;  /* nranks                                */
	struct stat_file *files;  /* files with at least one op, by path id */
	uint32_t nfiles;
	uint32_t files_shared;    /* nranks > 1; files with nranks 0 (every
	                           * op failed) are neither shared nor private */
	uint32_t files_failed;    /* nranks == 0                            */
	uint32_t truncated_names; /* paths flagged OPSP_TRUNCATED_NAME      */
	uint64_t nofile_data_ops; /* data ops without a path (unknown fds)  */
	uint64_t duration_ns;     /* max over ranks of end_ns              */
	uint64_t synth[OP__COUNT];/* ops flagged OPF_SYNTH, by kind         */
	struct stat_file_rank *fr;/* by rank, then first data op           */
	size_t nfr;
	struct stat_host *hosts;  /* in order of first rank; none when no
	                           * rank names a host                      */
	uint32_t nhosts;
	struct stat_ostset *ostsets; /* from the info blob's lustre_osts lines,
	                           * files with ops only, sorted by OST set */
	uint32_t nostsets;
	uint32_t osts_unmatched;  /* lustre_osts lines naming no path of the
	                           * stream                                  */
	char *ostbuf;             /* storage of the osts strings            */
};

/* Analyze the stream: the ranks and ops the filter keeps (f NULL: all).
 * 0 or -ENOMEM.  Its ops go rank by rank through a stat_acc. */
int stat_compute(const struct opstream *s, const struct filter *f, struct stat_report *r);
void stat_release(struct stat_report *r);

/* ---- one pass, in bounded memory ---------------------------------------
 * A stat_acc takes the ops of a stream one at a time, each rank's in its
 * order, the ranks in any interleaving (as a trace has them), and keeps
 * per-rank, per-file, per-(rank, file), per-open-stream and per-pending-
 * submit state only: never per op.  A stream (rank, file, handle) ends at
 * its close.  stat_acc_finish makes the report (the ranks the filter keeps,
 * names and paths from s, whose records are not read); call it once. */
struct stat_acc;
int  stat_acc_new(struct stat_acc **a);
/* One op the filter keeps, of the stream's rank `rank`.  0 or -ENOMEM. */
int  stat_acc_op(struct stat_acc *a, uint32_t rank, const struct op *op);
int  stat_acc_finish(struct stat_acc *a, const struct opstream *s, const struct filter *f,
		     struct stat_report *r);
void stat_acc_free(struct stat_acc *a);
/* Entries held for streams, (rank, file) pairs and pending submits. */
size_t stat_acc_entries(const struct stat_acc *a);

/* `replay stat` without an .ops file: a sink (opsw_open_sink) that runs
 * each path and op through the filter under construction (filter_begin,
 * filter_path, filter_op) and the ops it keeps into the accumulator. */
struct stat_stream {
	struct filter *f;
	struct stat_acc *acc;
};
void stat_stream_sink(struct stat_stream *ss, struct ops_sink *sink);

/* The dominant delta and request size of a direction.  Values are counted
 * exactly while at most STAT_HH_MAX distinct ones are held; past that the
 * table is a Misra-Gries summary of STAT_HH_MAX counters (a new value and
 * every held one lose one count, `sweeps` times in all): a value making up
 * more than 1/(STAT_HH_MAX + 1) of the total is still held, its count at
 * most `sweeps` short. */
#define STAT_HH_MAX (1u << 15)
struct stat_hh_ent {
	int64_t key;
	uint64_t cnt;             /* 0: empty slot */
};
#define STAT_HH_PEND 16u
struct stat_hh {
	struct stat_hh_ent *e;
	size_t cap, n;            /* slots (a power of two), values held */
	uint64_t sweeps;
	size_t last;              /* the slot of the last value added */
	int64_t pend[STAT_HH_PEND]; /* values added, not counted yet (in order) */
	unsigned npend;
};
/* Add a value: 0 or -ENOMEM (of this value or of one added before it).
 * Values may wait in h->pend: n, sweeps and the counts are up to date
 * after stat_hh_flush (or stat_hh_top). */
int  stat_hh_add(struct stat_hh *h, int64_t key);
int  stat_hh_flush(struct stat_hh *h);                      /* 0 or -ENOMEM */
/* The value with the highest count, ties to the smallest; 0, 0 when
 * empty.  Counts what waits first: 0 or -ENOMEM. */
int  stat_hh_top(struct stat_hh *h, int64_t *key, uint64_t *n);
void stat_hh_release(struct stat_hh *h);

/* Fractions of bytes read and written; -ENODATA (both 0) when no bytes. */
int stat_ratio(uint64_t rbytes, uint64_t wbytes, double *rf, double *wf);
/* "0.51/0.49" as the study's Table I prints it (two decimals, the two
 * rounded parts summing to 1.00); "N/A" when there are no bytes. */
const char *stat_fmt_ratio(char *buf, size_t len, uint64_t rbytes, uint64_t wbytes);

#endif
