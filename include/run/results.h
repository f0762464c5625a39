/*
 * results.h - what workers report, in shared memory (no pointers inside).
 *
 * The parent maps one struct run_shared for a run: a header plus one
 * struct worker_result per process.  Workers write only their own slot.
 * Counters read by the parent while workers run (progress, timeline) are
 * updated with relaxed atomic stores.
 */
#ifndef REPLAY_RESULTS_H
#define REPLAY_RESULTS_H

#include <stdint.h>
#include "run/hist.h"
#include "run/waits.h"
#include "ops/ops.h"

_Static_assert(OP__COUNT <= 24, "MM_KINDS is too small for the op kinds");

/* Report classes, fio-like names: "read", "write", "sync", "open",
 * "close", "meta" (seek is counted under meta but not issued). */
enum rclass { RC_READ, RC_WRITE, RC_SYNC, RC_OPEN, RC_CLOSE, RC_META, RC__COUNT };
const char *rclass_name(enum rclass c);
/* inline: the runner asks it for every op */
static inline enum rclass rclass_of(unsigned op_kind)
{
	switch (op_kind) {
	case OP_READ: case OP_AREAD:
		return RC_READ;
	case OP_WRITE: case OP_AWRITE:
		return RC_WRITE;
	case OP_FSYNC: case OP_FDATASYNC:
		return RC_SYNC;
	case OP_OPEN:
		return RC_OPEN;
	case OP_CLOSE:
		return RC_CLOSE;
	default:
		/* ftruncate, fallocate, unlink, rename, mkdir, rmdir, stat,
		 * and seek (counted as meta by stat, never issued by run) */
		return RC_META;
	}
}

struct class_stats {
	uint64_t total_ios;     /* ops issued                                 */
	uint64_t io_bytes;      /* traced bytes (what the trace asked for)    */
	uint64_t done_bytes;    /* bytes the kernel reported                  */
	uint64_t errors;
	uint64_t short_ios;
	struct hist lat;        /* ns                                          */
};

#define RES_MAX_ERRNO 134       /* counts per errno value                */
#define MM_KINDS 24             /* >= OP__COUNT                          */
#define MM_EXAMPLES 4           /* mismatches described, per worker       */
#define RES_TIMELINE 512        /* throughput samples per worker          */

enum wstatus { W_PENDING = 0, W_RUNNING, W_DONE, W_FAILED, W_KILLED };

struct worker_result {
	struct wait_word ww;     /* completed ops, for ranks that wait on this one */
	int32_t  rank;
	int32_t  pid;
	uint32_t copy;           /* which copy of the files (rank reuse)       */
	uint32_t status;         /* enum wstatus                               */
	int32_t  fail_errno;     /* errno of the failure that stopped the worker */
	int32_t  first_errno;    /* errno of the first op that failed, stopping
				    the worker or not (--continue-on-error,
				    --on-mismatch warn)                        */
	uint32_t fail_op;        /* index of the first failing op              */
	char     fail_msg[512];
	uint64_t io_ns, flush_ns, completion_ns;  /* from barrier release     */
	uint64_t ops_total, ops_done, bytes_done; /* progress (atomic)        */
	uint64_t ops_replayed;   /* of ops_total, those the filter keeps       */
	uint64_t max_inflight;   /* highest in-flight depth seen               */
	uint64_t rounded_ops, rounded_extra_bytes; /* --direct alignment policy */
	uint64_t buffered_ops;   /* data ops issued on a descriptor without
	                          * O_DIRECT (through the page cache)       */
	uint64_t tmpfile_named;  /* O_TMPFILE opens the target refused: made as a
	                          * named file, unlinked at once              */
	uint64_t errno_counts[RES_MAX_ERRNO];
	int32_t  numa_node;
	char     cpuset[64];
	uint32_t nsamples;
	uint64_t sample_bytes[RES_TIMELINE];  /* bytes done at sample i        */
	struct class_stats cls[RC__COUNT];
	/* ops not issued (see run in replay(1)); added by the runner */
	uint64_t skipped_failed;   /* traced call failed (result < 0)           */
	uint64_t skipped_nohandle; /* handle whose open was skipped             */
	uint64_t open_failed_ops;  /* of them: the replayed open failed (and the
	                            * traced one did not)                       */
	uint64_t open_failed_bytes; /* the reads' and writes' lengths of those  */
	uint64_t alone_short;      /* reads that found less than traced, of data
	                            * other ranks write (absent: plan.alone)   */
	uint64_t alone_short_bytes; /* the bytes they did not find             */
	uint64_t skipped_mmap;     /* OP_MMAP: not replayable                   */
	uint64_t seeks;            /* OP_SEEK: offsets are explicit             */
	uint64_t barriers;         /* OP_BARRIER: inter-process sync ignored    */
	uint64_t start_ns;         /* CLOCK_MONOTONIC of this worker's release   */
	uint64_t sample_interval_ns; /* interval of sample_bytes (after decimation) */
	char     rank_name[48];    /* the traced rank's name ("pid 8468")       */
	uint64_t eng_short_ios;    /* engine counters (struct engine)           */
	uint64_t eng_eagain;
	uint64_t eng_sync_fallback;
	uint64_t buf_bytes;        /* the worker's I/O buffer (runner.h)         */
	uint64_t split_ops;        /* ops longer than it, issued in pieces       */
	uint64_t filtered;         /* ops the filter left out (not issued)      */
	uint64_t dep_waits;        /* ops that waited for another rank          */
	uint64_t dep_wait_ns;      /* time spent waiting for them               */
	uint64_t barrier_waits, barrier_wait_ns;  /* traced barriers honoured   */
	uint64_t mismatch[MM_KINDS];  /* results that differ from the trace, by op kind */
	uint32_t nmm_ex;              /* examples kept (first MM_EXAMPLES)       */
	struct mm_example {
		uint32_t op;          /* index of the op in its rank             */
		uint32_t line;        /* its trace line                          */
		uint8_t kind;
		int32_t err;          /* errno, or 0: fewer bytes                */
		uint32_t mode;        /* a fallocate's mode (op.aux), for the report */
		int64_t got, want;    /* bytes (err 0)                           */
	} mm_ex[MM_EXAMPLES];
	/* timing modes (sched.h): issue - due per issued op; drift and the
	 * scheduled span of the rank (lag.n == 0 for afap) */
	struct hist lag;
	int64_t  drift_ns;
	uint64_t sched_ns;
	/* the worker's CPU from its release to its last op (getrusage) */
	uint64_t usr_ns, sys_ns;
	uint64_t ctx, majf, minf;  /* context switches, major/minor faults    */
};

struct run_shared {
	uint64_t release_ns;     /* CLOCK_MONOTONIC at barrier release          */
	uint32_t nworkers;
	uint32_t go;             /* start barrier word (futex)                  */
	uint32_t stop;           /* set by the parent on SIGINT/SIGTERM         */
	uint64_t sample_interval_ns;
	uint32_t ready;          /* workers ready at the barrier (atomic)       */
	uint32_t pad_;
	struct worker_result w[]; /* nworkers, then one struct barrier per copy */
};

/* The traced-barrier state of copy k (after the workers' slots). */
static inline struct barrier *run_shared_barrier(struct run_shared *sh, uint32_t k)
{
	return (struct barrier *)(void *)&sh->w[sh->nworkers] + k;
}

#endif
