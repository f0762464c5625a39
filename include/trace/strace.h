/*
 * strace.h - the strace text parser, exposed line by line for tests.
 *
 * trace_strace (trace.h) drives it over whole files; tests feed single
 * lines and look at the sc_events it emits.  One parser serves all input
 * files of a trace (pending <unfinished ...> calls are kept per pid across
 * files); each file has its own struct strace_src (pid of unprefixed lines,
 * relative-timestamp accumulator, day rollover of -tt clocks).
 */
#ifndef REPLAY_STRACE_H
#define REPLAY_STRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ops/builder.h"
#include "util/util.h"

#define STRACE_NOPID INT64_MIN   /* strace_src.pid: lines carry their pid */

struct strace_src {
	const char *name;        /* file name, for messages               */
	int64_t pid;             /* -ff: pid from the file name, else STRACE_NOPID */
	int64_t main_pid;        /* pid of unprefixed lines in "[pid N]" output;
	                          * -1 (rank "main") until known              */
	bool main_known;         /* main_pid is final                        */
	int64_t main_alias;      /* "[pid N]" mapped onto main_pid, or -1    */
	uint64_t rel_acc;        /* -r: running sum of deltas (ns)           */
	bool no_rel;             /* -r deltas that add up to no clock (-ff): 0 */
	uint64_t last_ts, day_off;
	bool summary;            /* in the -c/-C table ("% time ...")       */
	char *carry;             /* head of a line cut by "strace: Process"  */
	unsigned long cont_line; /* the last "<unfinished ...>" line, and   */
	int64_t cont_pid;        /* its pid (-z/-Z: a bare rest may follow) */
	size_t carry_len, carry_cap;
	int64_t ns;              /* added to every pid the file names: its
	                          * capture's (0, or k << 32 for the k-th of
	                          * several strace runs, whose pids may be
	                          * the same: the nodes of a job)            */
	int64_t main0;           /* main_pid until known: -1, or -1 - k      */
};

/* Callback receiving each event; return 0 or -errno (with e filled). */
typedef int (*strace_emit_fn)(void *arg, const struct sc_event *ev, struct rerr *e);

struct strace_parser;

/* Whether pid's descriptor fd is open (on path, when not NULL): 0 when
 * not, else a token of pid's descriptor table (pids sharing one, as
 * threads do, get the same token). */
typedef uintptr_t (*strace_fd_probe_fn)(void *arg, int64_t pid, int64_t fd, const char *path);

int  strace_parser_new(struct strace_parser **p, strace_emit_fn emit, void *arg);
void strace_src_init(struct strace_src *src, const char *name, int64_t pid);
void strace_src_release(struct strace_src *src);
/*
 * Parse one line (NUL-terminated, len bytes, modified in place) of src.
 * Emits zero or more events.  -EINVAL with e = "file:line: expected ..."
 * on a malformed line.
 */
int  strace_parser_line(struct strace_parser *p, struct strace_src *src,
			char *line, size_t len, unsigned long lineno, struct rerr *e);
/* End of input: calls still unfinished are reported as skipped. */
int  strace_parser_finish(struct strace_parser *p, struct rerr *e);
uint64_t strace_parser_syscalls(const struct strace_parser *p);  /* call lines seen */
/* A pid first seen while several clones are in flight is some cloning
 * process's child: with a probe (called with the emit callback's arg),
 * the child's first call on a descriptor -y names tells whose (the one
 * process holding that descriptor on that file), before its clone
 * returns.  Without one it waits for the clone to return. */
void strace_parser_probe(struct strace_parser *p, strace_fd_probe_fn probe);
void strace_parser_free(struct strace_parser *p);

/* Errno name ("ENOENT") -> number, 0 when unknown. */
int strace_errno(const char *name, size_t len);
/* Symbolic or numeric open flags ("O_WRONLY|O_CREAT|0x8000") -> x86_64 value;
 * -EINVAL when a part is not understood. */
int strace_oflags(const char *s, size_t len, int64_t *flags);
/* fallocate's mode as strace prints it ("FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE",
 * "0", a number, names and a number of unnamed bits): its bits, or -EINVAL
 * for a name it does not know */
int strace_falloc_mode(const char *s, size_t len, int64_t *mode);

#endif
