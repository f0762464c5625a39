/* common.c - helpers the subcommands share (common.h). */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/common.h"
#include "cmd/options.h"
#include "ops/opstream.h"
#include "report/compare.h"
#include "plan/filter.h"
#include "trace/dxt.h"
#include "trace/trace.h"
#include "util/util.h"

int arg_count(const char *what, const char *arg, uint64_t lo, uint64_t hi, uint64_t *v)
{
	if (parse_u64(arg, strlen(arg), v) < 0 || *v < lo || *v > hi) {
		die_msg("invalid %s '%s': expected a number from %llu to %llu", what, arg,
			(unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	return 0;
}

static void on_loading_signal(int sig)
{
	char msg[160];
	tmpfile_remove_all();
	int n = snprintf(msg, sizeof(msg), "replay: interrupted by signal %d (%s) while loading the trace\n",
			 sig, sig == SIGINT ? "Interrupt" : sig == SIGTERM ? "Terminated" : "Hangup");
	if (n > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)n);
	_exit(128 + sig);
}

void cmd_guard_loading(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_loading_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	for (int s = 0, sigs[] = { SIGINT, SIGTERM, SIGHUP }; s < 3; s++) {
		struct sigaction old;
		/* a signal the caller ignores (`&` in a script) stays ignored */
		if (!sigaction(sigs[s], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[s], &sa, NULL);
	}
}

int check_output_file(const char *path, const char *what, bool stream_ok)
{
	struct stat st;
	if (!*path) {
		die_msg("%s: an empty file name", what);
		return -1;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		die_msg("%s '%s' is a directory, expected a file name", what, path);
		return -1;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		/* a device, FIFO or socket (/dev/null, /dev/stdout to a pipe) */
		if (stream_ok)
			return 0;       /* written in place (report_write) */
		die_msg("%s '%s' is not a regular file (a device, FIFO or socket): it is"
			" written whole beside its name and renamed there, which would replace"
			" it; give a file name", what, path);
		return -1;
	}
	char *copy = strdup(path);
	if (!copy) {
		die_msg("out of memory");
		return -1;
	}
	const char *dir = dirname(copy);
	int rc = 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		die_msg("cannot write %s '%s': directory '%s' does not exist", what, path, dir);
		rc = -1;
	} else if (access(dir, W_OK | X_OK)) {
		die_msg("cannot write %s '%s': %s", what, path, strerror(errno));
		rc = -1;
	}
	free(copy);
	return rc;
}

int check_output_not_input(const char *out, char *const *args, int nargs, const char *what)
{
	struct stat so, si;
	char **files = NULL;
	size_t n = 0;
	struct rerr e = { .msg = "" };
	int rc = 0;

	if (stat(out, &so) || !S_ISREG(so.st_mode))
		return 0;
	/* results of an earlier run (JSON) in a trace directory given: no
	 * trace, which its reader passes over */
	char c = 0;
	FILE *f = fopen(out, "r");
	if (f) {
		int ch;
		while ((ch = fgetc(f)) != EOF && (ch == ' ' || ch == '\n' || ch == '\t'))
			;
		c = ch == EOF ? 0 : (char)ch;
		fclose(f);
	}
	bool named = false;     /* an argument itself, not a file found in one */
	for (int a = 0; a < nargs && !named; a++)
		named = !stat(args[a], &si) && si.st_dev == so.st_dev && si.st_ino == so.st_ino;
	if (trace_expand(args, nargs, &files, &n, &e) < 0)
		return 0;               /* the load says what is wrong */
	for (size_t i = 0; i < n && !rc; i++) {
		/* (an .ops file converted to itself: nothing to write) */
		if (!stat(files[i], &si) && si.st_dev == so.st_dev && si.st_ino == so.st_ino &&
		    !ops_file_is(files[i]) && (named || c != '{')) {
			die_msg("%s '%s' is the trace '%s' this command reads: it would be"
				" overwritten; give another name", what, out, files[i]);
			rc = -1;
		}
	}
	trace_files_free(files, n);
	return rc;
}

static int results_option(struct results_cli *c, int id, const char *arg)
{
	switch (id) {
	case 'j': c->json = 1; return 0;
	case 'M': c->markdown = 1; return 0;
	case 'o': c->dir = arg; return 0;
	case OPT_HTML: c->html = arg; return 0;
	case OPT_NO_RENDER: c->render = 0; return 0;
	case 'L':
		free(c->labels);
		if (!(c->labels = strdup(arg)))
			return -ENOMEM;
		return 0;
	default:
		return 0;
	}
}

static int results_opt(void *ctx, int id, const char *arg)
{
	if (results_option(ctx, id, arg)) {
		die_msg("out of memory");
		return -1;
	}
	return 0;
}

int results_args(unsigned cmd, int argc, char **argv, struct results_cli *c)
{
	const char *name = cmd == CMD_PLOT ? "plot" : "compare";
	c->render = 1;
	int rc = opts_parse(cmd, true, argc, argv, results_opt, c);
	if (rc)
		return rc;
	if ((cmd == CMD_PLOT && !c->dir) || optind >= argc) {
		die_msg(optind < argc ? "plot: an output directory is required (-o DIR)" :
					"%s: no result file given", name);
		cmd_short_usage(cmd);
		return 2;
	}
	if (c->labels) {
		if (cmp_split_labels(c->labels, &c->lab, &c->nlab) < 0)
			return -ENOMEM;
		if (c->nlab != (size_t)(argc - optind)) {
			die_msg("%s: %zu labels given for %d results", name, c->nlab, argc - optind);
			return 2;
		}
	}
	return 0;
}

void results_cli_release(struct results_cli *c)
{
	free(c->labels);
	free(c->lab);
	c->labels = NULL;
	c->lab = NULL;
}

int dxt_layer_option(struct load_opts *lo, const char *arg)
{
	enum dxt_layer dl;
	if (dxt_layer_parse(arg, &dl) < 0) {
		die_msg("invalid DXT layer '%s': expected 'posix' or 'mpiio'", arg);
		return -1;
	}
	lo->dxt_layer = arg;
	return 0;
}

/* Info key `key` into buf when it is a count other than 0: true. */
static bool info_count(const struct opstream *s, const char *key, char *buf, size_t n)
{
	return opstream_info(s, key, buf, n) && strcmp(buf, "0");
}

/* Info key `key` into buf, or "?" when the file has none. */
static const char *info_or_q(const struct opstream *s, const char *key, char *buf, size_t n)
{
	if (!opstream_info(s, key, buf, n))
		snprintf(buf, n, "?");
	return buf;
}

void trace_warn_incomplete(const struct opstream *s, const char *name)
{
	char wb[512];
	if (dxt_incomplete_warning(s, wb, sizeof(wb)))
		warn_msg("%s: %s", name, wb);
	if (dxt_rank_warning(s, wb, sizeof(wb)))
		warn_msg("%s%s", name, wb);
	if (dxt_layer_warning(s, wb, sizeof(wb)))
		warn_msg("%s: %s", name, wb);
	if (dxt_unnamed_warning(s, wb, sizeof(wb)))
		warn_msg("%s: %s", name, wb);
	/* strace or fio killed while it wrote a line (SIGKILL at a job's
	 * time limit): that last line, without its newline, was dropped
	 * (trace.h's cut_lines) */
	if (info_count(s, "cut_lines", wb, sizeof(wb))) {
		char at[480], fmt[32];
		info_or_q(s, "cut_line", at, sizeof(at));
		info_or_q(s, "format", fmt, sizeof(fmt));
		warn_msg("%s: the capture ends mid-line (%s: a last line without its newline%s): %s"
			 " was probably killed while it wrote it (a job's time limit?); the cut line is"
			 " dropped, the lines before it are used", name, at,
			 strcmp(wb, "1") ? ", and so in other files" : "",
			 !strncmp(fmt, "fio", 3) ? "fio" : "strace");
	}
	/* a traced process's clock that went back, by less than a night:
	 * its op was timed as the one before it */
	if (info_count(s, "clock_back_steps", wb, sizeof(wb))) {
		char at[480];
		info_or_q(s, "clock_back_first", at, sizeof(at));
		warn_msg("%s: %s: a process's clock goes back (%s step%s back in all, each by less"
			 " than the 12 hours a wrap past midnight is): the clock was set back, or the"
			 " capture was edited; such a call is timed as the call before it", name, at,
			 wb, strcmp(wb, "1") ? "s" : "");
	}
	/* a descriptor of a file without a name, used by another process of
	 * the replay than the one whose open made it */
	if (info_count(s, "unnamed_shared_opens", wb, sizeof(wb))) {
		char at[480];
		bool one = !strcmp(wb, "1");
		info_or_q(s, "unnamed_shared_first", at, sizeof(at));
		warn_msg("%s: %s descriptor%s of a file with no name by then (unlinked, or made with"
			 " O_TMPFILE) %s used by another rank than the one that opened %s, first at"
			 " %s: each rank is a process of its own in the replay, which opens a file by"
			 " its name, so that rank's ops on it fail or go to another file", name, wb,
			 one ? "" : "s", one ? "is" : "are", one ? "it" : "them", at);
	}
	/* data calls whose start the capture does not hold */
	if (info_count(s, "orphan_data_calls", wb, sizeof(wb))) {
		char at[480];
		bool one = !strcmp(wb, "1");
		info_or_q(s, "orphan_data_first", at, sizeof(at));
		warn_msg("%s: %s: the trace holds only the end of %s read or write call%s (a"
			 " '<... NAME resumed>' line with no start before it: strace -p attached"
			 " mid-call, or the start's line is lost): %s file and bytes are not known,"
			 " and %s not replayed", name, at, wb, one ? "" : "s", one ? "its" : "their",
			 one ? "it is" : "they are");
	}
	/* results strace's fault injection made up */
	if (info_count(s, "injected_calls", wb, sizeof(wb))) {
		char at[480];
		bool one = !strcmp(wb, "1");
		info_or_q(s, "injected_first", at, sizeof(at));
		warn_msg("%s: %s call%s with a result strace's fault injection made up"
			 " ('= N (INJECTED)': -e inject=...:retval=; %s %s): the call%s did not run,"
			 " so %s not replayed and no file offset moves", name, wb, one ? "" : "s",
			 one ? "at" : "the first at", at, one ? "" : "s", one ? "it is" : "they are");
	}
	/* strace -ff: a process the capture forked has no file */
	if (info_count(s, "ff_missing", wb, sizeof(wb))) {
		char names[480];
		bool one = !strcmp(wb, "1");
		info_or_q(s, "ff_missing_files", names, sizeof(names));
		char q[8], given[600] = "";
		bool quiet = opstream_info(s, "ff_no_exit_lines", q, sizeof(q)) != NULL;
		/* the first expected file is there: one file of the capture was
		 * given, not its prefix */
		const char *sp = strstr(names, " (pid "), *dot;
		char first[480];
		if (sp && (size_t)(sp - names) < sizeof(first)) {
			memcpy(first, names, (size_t)(sp - names));
			first[sp - names] = '\0';
			if (access(first, F_OK) == 0 && (dot = strrchr(first, '.')) && dot > first)
				snprintf(given, sizeof(given), "%s %s there, but not given: give the"
					 " capture's prefix, %.*s, for all its files", one ? "it" : "the first",
					 "is", (int)(dot - first), first);
		}
		warn_msg("%s: %s process%s the capture forked ha%s no strace -ff file: %s; %s calls"
			 " are not in the trace and are not replayed (%s)", name, wb, one ? "" : "es",
			 one ? "s" : "ve", names, one ? "its" : "their",
			 given[0] ? given :
			 quiet ? "a file deleted, not copied or not given? Or, as the capture has no"
				 " '+++ exited' line (strace -qq), one that made no call -e trace="
				 " let through, which strace makes no file for" :
				 "a file deleted, not copied or not given?");
	}
	/* strace -ff: a pid given to several processes has one file, which
	 * strace truncated when the next one began */
	if (info_count(s, "ff_pid_reused", wb, sizeof(wb))) {
		char names[480];
		bool one = !strcmp(wb, "1");
		info_or_q(s, "ff_pid_reused_files", names, sizeof(names));
		warn_msg("%s: %s pid%s the capture forked more than once (pid reuse) ha%s one strace"
			 " -ff file: %s; strace truncates it when the next process begins, so it holds"
			 " the last one's calls: the earlier ones' are not in the trace and are not"
			 " replayed (unless strace ran with -A, which appends them: then they are"
			 " replayed as one process)", name, wb, one ? "" : "s", one ? "s" : "ve", names);
	}
	/* LANL: ranks the timing file lists without a trace file given (a
	 * subset on purpose, or a file forgotten: said either way) */
	if (info_count(s, "lanl_ranks_missing", wb, sizeof(wb))) {
		char listed[32], tf[480], which[600];
		info_or_q(s, "lanl_timing_ranks", listed, sizeof(listed));
		info_or_q(s, "lanl_timing_file", tf, sizeof(tf));
		info_or_q(s, "lanl_missing", which, sizeof(which));
		char *end;
		unsigned long long nl = strtoull(listed, &end, 10), nm = strtoull(wb, NULL, 10);
		char replayed[32] = "?";
		if (*listed && !*end && nm <= nl)
			snprintf(replayed, sizeof(replayed), "%llu", nl - nm);
		warn_msg("%s: the timing file %s lists %s ranks and no trace file was given for %s"
			 " of them: %s of the %s ranks are replayed; missing: %s", name, tf, listed,
			 wb, replayed, listed, which);
	}
	/* files beside the traces that are none (a README in the directory) */
	if (info_count(s, "skipped_files", wb, sizeof(wb))) {
		char names[480], fmt[32];
		info_or_q(s, "skipped_file_names", names, sizeof(names));
		if (!opstream_info(s, "format", fmt, sizeof(fmt)))
			strcpy(fmt, "trace");
		warn_msg("%s: %s %s no %s trace lines, ignored: %s", name, wb,
			 strcmp(wb, "1") ? "files hold" : "file holds", fmt, names);
	}
	/* a call a process never finished (killed mid-call, at a job's time
	 * limit): the file ends in its "<unfinished ...>" */
	if (info_count(s, "unfinished_at_end", wb, sizeof(wb))) {
		char at[480];
		info_or_q(s, "unfinished_first", at, sizeof(at));
		warn_msg("%s: %s: a call left '<unfinished ...>' at the end of its file (the process"
			 " was probably killed mid-call): its result is unknown, so it is not replayed"
			 " (counted as skipped.unfinished:NAME)%s%s%s", name, at,
			 strcmp(wb, "1") ? "; " : "", strcmp(wb, "1") ? wb : "",
			 strcmp(wb, "1") ? " such calls in all" : "");
	}
	/* strace -ff files without a common clock: the order between the
	 * processes is the order the files were read in */
	if (opstream_info(s, "no_common_clock", wb, sizeof(wb)))
		warn_msg("%s: %s: no common clock%s, so nothing says how the processes' calls"
			 " interleaved; each file is read whole where its process was forked, but"
			 " the replay has no order between the processes' ops (every op at time 0:"
			 " which process made a file before another used it is not known, so a"
			 " file a child makes and its parent uses after may be taken as there"
			 " before the run); capture with strace -ff -tt for their real order",
			 name, wb,
			 strstr(wb, "-r") ? " (a -r delta counts from the line strace printed before"
					    " it in any of the files: one file's deltas add up to no"
					    " clock, and are left out)" : "");
	/* descriptors used with no open in the trace (strace -y named their
	 * file): their position and O_APPEND are not known */
	if (opstream_info(s, "implicit_open_first", wb, sizeof(wb))) {
		char n[32];
		info_or_q(s, "implicit_opens", n, sizeof(n));
		warn_msg("%s: descriptors the trace never opened (%s: %s in all, with 0-2) are"
			 " replayed as opened O_RDWR at position 0, each process its own: where the"
			 " program got them open already (strace -p attached late, -e trace= without"
			 " the opens or the process calls, a shell's >> redirect), the offsets of its"
			 " reads and writes there may differ", name, wb, n);
	}
	/* requests queued in an io_uring's memory: a syscall trace has the
	 * io_uring_enter calls, not what they submitted */
	if (info_count(s, "skipped.io_uring_enter", wb, sizeof(wb)))
		warn_msg("%s: the traced program did I/O through io_uring (%s io_uring_enter calls):"
			 " strace does not show those requests, so they are not in the trace and are"
			 " not replayed", name, wb);
}

/* The end of cmd_load_trace and cmd_stream_trace. */
static int loaded(const struct loaded_trace *lt, int rc, const struct rerr *e, char *const *args)
{
	if (rc < 0) {
		die_msg("%s", e->msg);
		return rc;
	}
	trace_warn_incomplete(&lt->s, args[0]);
	return rc;
}

int cmd_load_trace(struct loaded_trace *lt, char *const *args, int nargs,
		   const struct load_opts *lo, const char *out)
{
	struct rerr e = { .msg = "" };
	cmd_guard_loading();
	return loaded(lt, loaded_trace_open(lt, args, nargs, lo, out, &e), &e, args);
}

int cmd_stream_trace(struct loaded_trace *lt, char *const *args, int nargs,
		     const struct load_opts *lo, const struct ops_sink *sink)
{
	struct rerr e = { .msg = "" };
	cmd_guard_loading();
	return loaded(lt, loaded_trace_stream(lt, args, nargs, lo, sink, &e), &e, args);
}

struct trace_opt_ctx {
	struct load_opts *lo;
	int (*own)(void *ctx, int id, const char *arg);
	void *ctx;
};

static int trace_opt(void *ctx, int id, const char *arg)
{
	struct trace_opt_ctx *t = ctx;
	if (id == 'f')
		t->lo->format = arg;
	else if (id == OPT_SKIP_BAD)
		t->lo->skip_bad = true;
	else if (id == OPT_DXT_LAYER)
		return dxt_layer_option(t->lo, arg);
	else if (t->own)
		return t->own(t->ctx, id, arg);
	return 0;
}

int trace_cmd_args(unsigned cmd, int argc, char **argv, struct load_opts *lo,
		   int (*own)(void *ctx, int id, const char *arg), void *ctx)
{
	const struct cmd_info *ci = cmd_info_of(cmd);
	struct trace_opt_ctx t = { lo, own, ctx };
	int rc = opts_parse(cmd, false, argc, argv, trace_opt, &t);
	if (rc)
		return rc;
	if (optind >= argc) {
		die_msg("%s: no %s given", ci->name, cmd == CMD_DUMP ? "FILE.ops or TRACE" : "TRACE");
		cmd_short_usage(cmd);
		return 2;
	}
	return 0;
}

int filter_option(struct filter_opts *fo, int id, const char *arg)
{
	switch (id) {
	case OPT_INCLUDE:
	case OPT_EXCLUDE: {
		bool inc = id == OPT_INCLUDE;
		size_t *n = inc ? &fo->ninclude : &fo->nexclude;
		if (*n >= FILTER_MAX_RULES) {
			die_msg("at most %d --%s rules", FILTER_MAX_RULES, inc ? "include" : "exclude");
			return -1;
		}
		(inc ? fo->include : fo->exclude)[(*n)++] = arg;
		return 1;
	}
	case OPT_NO_DEFAULTS:
		fo->no_defaults = true;
		return 1;
	case OPT_RANKS:
		ranklist_free(&fo->ranks);
		if (ranklist_parse(arg, &fo->ranks)) {
			die_msg("bad rank list '%s' (expected e.g. 3 or 0-3,7)", arg);
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}
