/*
 * builder.h - turns parsed syscalls (struct sc_event) into ops.
 *
 * Keeps, per traced process, an fd table (threads share their process's
 * table; forked children get a copy) and per open file description a
 * position, so every read/write gets an explicit offset.  Each distinct
 * traced pid/tid becomes one rank, in order of first appearance (or as
 * declared with builder_rank()).
 *
 * Parsers (strace, lanl, sandia) fill sc_event with what the line says and
 * nothing more; all fd/position logic lives here.
 */
#ifndef REPLAY_BUILDER_H
#define REPLAY_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include "ops/opstream.h"
#include "util/util.h"

/* sc_event.flags of an SC_RENAME: renameat2's RENAME_EXCHANGE (the names
 * swap files; Linux's value) */
#define SC_RENAME_EXCHANGE 0x2

enum sc_call {
	SC_SKIP = 0,   /* a non-I/O call: counted under ev->name            */
	SC_OPEN,       /* path (or dirfd+path), flags, mode; ret = fd        */
	SC_CLOSE,      /* fd                                                 */
	SC_READ,       /* fd, len, ret; offset >= 0 for pread, -1 otherwise  */
	SC_WRITE,      /* as SC_READ                                         */
	SC_LSEEK,      /* fd, offset, whence; ret = new position (or -errno) */
	SC_FTRUNCATE,  /* fd, len                                            */
	SC_FSYNC,      /* fd                                                 */
	SC_FDATASYNC,  /* fd                                                 */
	SC_FALLOCATE,  /* fd, offset, len                                    */
	SC_DUP,        /* fd -> ret (dup, fcntl F_DUPFD[_CLOEXEC])           */
	SC_DUP2,       /* fd -> fd2 (dup2/dup3); ret = fd2 or -errno         */
	SC_UNLINK,     /* path (dirfd)                                       */
	SC_RENAME,     /* path (dirfd) -> path2 (dirfd2)                     */
	SC_MKDIR,      /* path, mode                                         */
	SC_RMDIR,      /* path                                               */
	SC_STAT,       /* path, or fd when path == NULL                      */
	SC_CLONE,      /* flags (CLONE_*), ret = child pid/tid               */
	SC_EXIT,       /* the process/thread ended                           */
	SC_MMAP,       /* fd mapped (flagged, not replayable)                */
	SC_AREAD,      /* async read submit: fd, offset (-1: position), len; async_id */
	SC_AWRITE,     /* async write submit                                 */
	SC_AWAIT,      /* async_id completed; ret = bytes (-1 unknown)       */
	SC_BARRIER,    /* MPI barrier                                        */
	SC_CLOSE_RANGE,/* fds fd..fd2 closed (close_range); flags CLOSE_RANGE_* */
	SC_CHDIR,      /* cwd := path (chdir), or fd's path (fchdir)         */
	SC_LINK,       /* hard link: path (dirfd) -> path2 (dirfd2)          */
	SC_SETFL,      /* fcntl(F_SETFL): fd, flags = the new status flags   */
	SC_TRUNCATE,   /* truncate(path, len): an ftruncate op by path       */
	SC_SYMLINK,    /* symbolic link: path (dirfd) = the link, path2 = its
	                * content as the call gave it (never resolved)      */
	SC_EXEC,       /* execve: path = the program; ret 0 when it ran it  */
};

#define SC_AT_FDCWD (-100)
#define SC_NOOFF    (-1)

struct sc_event {
	const char *src;        /* trace file, for messages            */
	unsigned long line;     /* line in src                         */
	int64_t pid;            /* traced process/thread id            */
	uint64_t ts_ns;         /* absolute trace time (ns), 0 unknown */
	uint64_t dur_ns;        /* traced duration (ns), 0 unknown     */
	enum sc_call call;
	const char *name;       /* syscall name as traced ("pwrite64") */
	int64_t fd, fd2;        /* -1 when absent                      */
	int64_t dirfd;          /* SC_AT_FDCWD when absent             */
	const char *path;       /* NULL when absent                    */
	const char *path2;
	const char *fdpath;     /* path decoration of fd (strace -y); for
	                         * SC_OPEN and *at calls: of dirfd      */
	int64_t dirfd2;         /* the directory of path2 (renameat's,
	                         * linkat's newdirfd); SC_AT_FDCWD when
	                         * absent                               */
	const char *fdpath2;    /* path decoration of dirfd2 (strace -y) */
	int64_t flags;          /* open flags (x86_64 values), clone flags;
	                         * SC_WRITE: O_APPEND when the call itself
	                         * appends (pwritev2 RWF_APPEND)         */
	int64_t mode;
	int64_t offset;         /* SC_NOOFF when the call uses the position */
	int whence;             /* SEEK_SET/CUR/END                    */
	uint64_t len;
	uint32_t iovcnt;
	int64_t ret;            /* result; -errno on failure           */
	uint64_t async_id;
	uint32_t path_flags;    /* OPSP_* for path (e.g. truncated)    */
	const char *retpath;    /* path decoration of the returned fd
	                         * (strace -y: "= 3</a/b>"), NULL absent */
	uint8_t opflags;        /* OPF_* bits set on the ops this event
	                         * makes (OPF_SYNTH: the reader made the
	                         * call up; the trace does not show it)  */
};

/* ev->ret when the trace does not show the result ("= ?") */
#define SC_RET_UNKNOWN INT64_MIN

static inline void sc_event_init(struct sc_event *ev)
{
	*ev = (struct sc_event){ .fd = -1, .fd2 = -1, .dirfd = SC_AT_FDCWD,
				 .dirfd2 = SC_AT_FDCWD, .offset = SC_NOOFF, .iovcnt = 1 };
}

/* Counters the builder keeps; reported by convert and stat. */
struct build_stats {
	uint64_t events;          /* events fed                              */
	uint64_t ops;             /* ops written                             */
	uint64_t skipped_calls;   /* SC_SKIP events                          */
	uint64_t unknown_fd_ops;  /* ops on fds never opened in the trace    */
	uint64_t stdio_ops;       /* of which on fds 0,1,2                   */
	uint64_t undecorated_ops; /* of which on fds strace -y did not name  */
	uint64_t implicit_opens;  /* opens synthesized from -y decorations   */
	uint64_t mmaps;           /* file mmaps (not replayable)             */
	uint64_t failed_calls;    /* calls with a negative result, kept      */
	uint64_t special_ops;     /* on /dev/null, ttys, /proc, /sys: dropped */
	uint64_t clock_back;      /* ops earlier than the one before in their
	                           * rank: timed as that one                 */
	const char *clock_back_src; /* the first one's ev->src and ev->line */
	uint64_t clock_back_line;
};

struct builder;

int  builder_new(struct builder **b, struct ops_writer *w);
/* Declare a rank up front (LANL: ranks from the timing file). */
int  builder_rank(struct builder *b, int64_t pid, const char *name, uint32_t *rank);
/* The host a declared rank ran on (DXT: "# DXT, rank: R, hostname: H"). */
int  builder_rank_host(struct builder *b, uint32_t rank, const char *host);
/* The names of the captures a reader's pids come from, when several (the
 * k-th one's pids carry k << 32, its main process is -1 - k): ranks are
 * named "pid N of NAME", their pids shown as the capture has them. */
int  builder_captures(struct builder *b, char *const *names, size_t n);
/* The events come from several files: each rank's file (its first op's
 * src) is kept in the stream (opsw_rank_source), for messages. */
void builder_rank_sources(struct builder *b);
/* A pid so carried: as its capture shows it (-1: a main process not
 * known), and the capture's index k. */
static inline int64_t builder_pid_shown(int64_t pid)
{
	return pid >= 0 ? pid & 0xffffffffLL : -1;
}
static inline size_t builder_pid_capture(int64_t pid)
{
	return pid >= 0 ? (size_t)(pid >> 32) : (size_t)(-1 - pid);
}
/* A reader's own "key=value" line in the .ops info blob. */
int  builder_info(struct builder *b, const char *key, const char *value);
/* Feed one event.  -EINVAL + e filled (file:line: ...) when inconsistent. */
int  builder_event(struct builder *b, const struct sc_event *ev, struct rerr *e);
/* Whether pid's descriptor fd is open, on the absolute path `path` when
 * it is not NULL: 0 when not (or for a pid the builder does not know),
 * else a token of pid's descriptor table, the same for pids sharing it. */
uintptr_t builder_fd_on(struct builder *b, int64_t pid, int64_t fd, const char *path);
/* Close the stream: record stats in the writer's info blob. */
int  builder_finish(struct builder *b, struct rerr *e);
const struct build_stats *builder_stats(const struct builder *b);
/* Is a program's base name ("mpirun") an MPI or Slurm launcher or daemon
 * (mpirun, mpiexec, srun, prted, slurmstepd...)?  A rank whose process
 * runs one is recorded as such (opsw_rank_launcher). */
bool builder_is_launcher(const char *base);
void builder_free(struct builder *b);

#endif
