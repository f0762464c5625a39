/*
 * options.c - the option table of every subcommand, the getopt_long
 * tables built from it, --help and the bash completion (options.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/options.h"
#include "util/util.h"

#define TRACE_CMDS (CMD_RUN | CMD_STAT | CMD_CONVERT | CMD_DUMP)
#define ALL_CMDS (CMD_RUN | CMD_STAT | CMD_CONVERT | CMD_DUMP | CMD_GEN | CMD_COMPARE | CMD_PLOT | \
		  CMD_COMPLETION)

const struct optdef opt_table[] = {
	/* replay run */
	{ 'm', 'm', "mode", "MODE", CMD_RUN,
	  "parallel (default): all processes at once;\nsequential: one rank at a time, each alone" },
	{ 'n', 'n', "processes", "N", CMD_RUN,
	  "replay ranks 0..N-1 (default: all ranks; more\nthan the trace has: ranks reused round-robin)" },
	{ 'n', 'n', "processes", "N", CMD_GEN, "traced processes (default: the workload's, see --list)" },
	{ 'e', 'e', "engine", "ENGINE", CMD_RUN, "sync (default), libaio, io_uring, null" },
	{ 'q', 'q', "depth", "DEPTH", CMD_RUN, "requests in flight per process (default 1)" },
	{ OPT_OVERLAP, 0, "overlap", NULL, CMD_RUN, "run ahead over independent reads/writes (up to -q)" },
	{ OPT_DIRECT, 0, "direct", NULL, CMD_RUN, "open files O_DIRECT (requests rounded to blocks)" },
	{ OPT_BIND, 0, "bind", "MODE", CMD_RUN, "spread (default: workers over cores), core, numa, none" },
	{ 'r', 'r', "repeats", "R", CMD_RUN, "run R times (files re-prepared, caches dropped)" },
	{ 'o', 'o', "output", "FILE.json", CMD_RUN, "write fio-like JSON results (atomically)" },
	{ 'o', 'o', "output", "PATH", CMD_CONVERT, "the .ops file (or the iolog directory) to write" },
	{ 'o', 'o', "output", "PATH", CMD_GEN,
	  "where to write (a directory for lanl-*, a file otherwise)" },
	{ 'o', 'o', "output", "DIR", CMD_PLOT, "directory for the figures (required)" },
	{ 'f', 'f', "format", "FMT", TRACE_CMDS,
	  "trace format: strace, lanl, sandia, dxt, fio-iolog\n(default: detect)" },
	{ OPT_DXT_LAYER, 0, "dxt-layer", "L", TRACE_CMDS,
	  "Darshan DXT traces: posix (default) or mpiio" },
	{ OPT_SKIP_BAD, 0, "skip-bad", NULL, TRACE_CMDS,
	  "skip malformed lines (counted) instead of failing" },
	{ OPT_RANKS, 0, "ranks", "LIST", CMD_DUMP, "only these ranks (0-based; e.g. 3 or 0-3,7)" },
	{ OPT_RANKS, 0, "ranks", "LIST", CMD_RUN | CMD_STAT,
	  "only these traced ranks (0-based; e.g. 0-3,7)" },
	{ OPT_INCLUDE, 0, "include", "GLOB", CMD_RUN | CMD_STAT,
	  "replay the paths it matches, whatever excludes them\n(repeatable)" },
	{ OPT_EXCLUDE, 0, "exclude", "GLOB", CMD_RUN | CMD_STAT,
	  "leave out the paths it matches (repeatable)" },
	{ OPT_NO_DEFAULTS, 0, "no-default-excludes", NULL, CMD_RUN | CMD_STAT,
	  "replay system and MPI runtime paths too (/usr, /etc,\n/dev/shm, /tmp/ompi.*, ...)" },
	{ OPT_ORDER, 0, "order", "HOW", CMD_RUN,
	  "resource (default): a rank waits for the ops of\nothers it depends on; none" },
	{ OPT_NO_BARRIERS, 0, "no-barriers", NULL, CMD_RUN, "do not honour traced MPI barriers" },
	{ OPT_ON_MISMATCH, 0, "on-mismatch", "POLICY", CMD_RUN,
	  "a result unlike the trace's: stop, warn, ignore\n(default: stop on reads and writes, warn on others)" },
	{ OPT_TIMING, 0, "timing", "MODE", CMD_RUN,
	  "afap (default): each op as soon as the one before\nreturned; think: keep the traced gaps between ops;\ntrace: each op at its traced time" },
	{ OPT_SPEED, 0, "speed", "F", CMD_RUN, "divide every traced time by F (think, trace)" },
	{ OPT_OUTPUT_FORMAT, 0, "output-format", "FMT", CMD_RUN,
	  "normal (default), json or json+ (fio's names): json\nwithout -o prints the JSON, not the summary, on\nstdout; json+ adds fio's latency bins" },
	{ OPT_STATUS_INTERVAL, 0, "status-interval", "SECONDS", CMD_RUN,
	  "a progress line on stderr every SECONDS, tty or\nnot (batch logs); 0: none (default)" },
	{ OPT_CLOCK, 0, "clock", "SOURCE", CMD_RUN,
	  "what op times are read from: auto (default: tsc\nwhere the kernel's clocksource is tsc), tsc,\nmonotonic (clock_gettime); none: ops not timed\n(no latencies, least CPU per op; afap only)" },
	{ OPT_DRY, 0, "dry-run", NULL, CMD_RUN, "print the plan (files, sizes, ranks) and exit" },
	{ OPT_FORCE, 0, "force", NULL, CMD_RUN, "allow overwriting existing files in TARGET_DIR" },
	{ OPT_FORCE, 0, "force", NULL, CMD_GEN, "replace an existing PATH written by replay gen" },
	{ OPT_KEEP, 0, "keep", NULL, CMD_RUN, "keep the files the run created" },
	{ OPT_NODROP, 0, "no-drop-caches", NULL, CMD_RUN,
	  "do not drop the page cache (recorded as skipped)" },
	{ OPT_CONT, 0, "continue-on-error", NULL, CMD_RUN,
	  "count failing ops and go on (exit 1 if any failed)" },
	{ OPT_SAMPLE, 0, "sample-interval", "MS", CMD_RUN, "first timeline sampling interval (default 1; it\ndoubles whenever 512 samples are full)" },
	{ OPT_QUIET, 0, "quiet", NULL, CMD_RUN, "no progress line" },
	{ OPT_QUIET, 0, "quiet", NULL, CMD_CONVERT, "no summary line" },
	/* replay-mpi */
	{ OPT_PLACEMENT, 0, "placement", "HOW", CMD_MPI,
	  "trace ranks onto MPI processes: block (default),\ncyclic, hosts (the trace's nodes kept together)" },
	{ OPT_TARGET, 0, "target", "KIND", CMD_MPI,
	  "shared: one process prepares the files; local: one\nper node (default: detected with statfs)" },
	/* stat, compare */
	{ 'j', 'j', "json", NULL, CMD_STAT, "print JSON instead of text" },
	{ 'j', 'j', "json", NULL, CMD_COMPARE, "print the comparison as JSON" },
	/* convert */
	{ 't', 't', "to", "KIND", CMD_CONVERT, "ops (default) or fio-iolog" },
	{ OPT_TARGET, 0, "target", "DIR", CMD_CONVERT,
	  "fio-iolog: directory the iolog file names point into" },
	{ OPT_IOLOG_VERSION, 0, "iolog-version", "V", CMD_CONVERT,
	  "fio-iolog: 2 (default, any fio) or 3 (fio >= 3.31:\ntimes in microseconds on every line)" },
	{ OPT_RANKS, 0, "ranks", "LIST", CMD_CONVERT,
	  "fio-iolog: only these traced ranks (0-based; e.g.\n0-3,7), as run" },
	{ OPT_INCLUDE, 0, "include", "GLOB", CMD_CONVERT,
	  "fio-iolog: export the paths it matches, whatever\nexcludes them (repeatable), as run" },
	{ OPT_EXCLUDE, 0, "exclude", "GLOB", CMD_CONVERT,
	  "fio-iolog: leave out the paths it matches\n(repeatable), as run" },
	{ OPT_NO_DEFAULTS, 0, "no-default-excludes", NULL, CMD_CONVERT,
	  "fio-iolog: export system and MPI runtime paths too\n(/usr, /etc, /dev/shm, /tmp/ompi.*, ...), as run" },
	/* gen */
	{ 's', 's', "scale", "X", CMD_GEN, "multiply objects/ops (not request sizes); default 1" },
	{ OPT_SEED, 0, "seed", "S", CMD_GEN, "random seed (default 1); same seed, same bytes" },
	{ OPT_STRIDED, 0, "strided", NULL, CMD_GEN, "lanl-*: object i of rank r at (i*N + r)*size" },
	{ OPT_NTON, 0, "n-to-n", NULL, CMD_GEN, "lanl-*: one file per rank" },
	{ OPT_OBJSIZE, 0, "object-size", "B", CMD_GEN,
	  "lanl-*: object size (K, M, G suffixes: KiB, MiB, GiB)" },
	{ OPT_OBJECTS, 0, "objects", "N", CMD_GEN, "lanl-*: objects per rank (overrides --scale)" },
	{ OPT_LIST, 0, "list", NULL, CMD_GEN, "list the workloads" },
	/* compare, plot */
	{ 'M', 'M', "markdown", NULL, CMD_COMPARE,
	  "print Markdown tables (and a table of the targets)" },
	{ OPT_HTML, 0, "html", "FILE", CMD_COMPARE,
	  "also write one self-contained HTML page (tables and\nSVG plots, nothing to fetch) to FILE" },
	{ 'L', 'L', "labels", "LIST", CMD_COMPARE | CMD_PLOT,
	  "comma-separated names of the results (default: file\nor directory name without .json)" },
	{ OPT_NO_RENDER, 0, "no-render", NULL, CMD_PLOT,
	  "write the data and scripts only, do not run gnuplot" },
	{ 'h', 'h', "help", NULL, ALL_CMDS, "show this help" },
};
const size_t opt_count = sizeof(opt_table) / sizeof(opt_table[0]);

const char *opt_long_name(int id)
{
	for (size_t i = 0; i < opt_count; i++)
		if (opt_table[i].id == id)
			return opt_table[i].name;
	return NULL;
}

void optparse_init(struct optparse *p, unsigned cmd, const char *cmdname, bool stop_at_operand)
{
	size_t nl = 0, ns = 0;
	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->cmdname = cmdname;
	if (stop_at_operand)
		p->so[ns++] = '+';
	p->so[ns++] = ':';
	for (size_t i = 0; i < opt_count && nl < OPT_MAX; i++) {
		const struct optdef *d = &opt_table[i];
		if (!(d->cmds & cmd))
			continue;
		p->lo[nl++] = (struct option){ d->name, d->arg ? required_argument : no_argument,
					       NULL, d->id };
		if (d->letter) {
			p->so[ns++] = d->letter;
			if (d->arg)
				p->so[ns++] = ':';
		}
	}
	p->lo[nl] = (struct option){ 0 };
	p->so[ns] = 0;
	/* 0, not 1: glibc then forgets where it was inside a group of short
	 * options ("-qX") of an earlier parse, whose argv may be gone */
	optind = 0;
	opterr = 0;
}

/* Did getopt's '?' come from bad, a long option given a value it does
 * not take ("--quiet=1", "--hel=2")?  optopt is then that option's id. */
static bool long_given_value(const struct optparse *p, const char *bad)
{
	const char *eq = strchr(bad, '=');
	if (strncmp(bad, "--", 2) || !eq || !optopt)
		return false;
	size_t n = (size_t)(eq - bad - 2);
	for (const struct option *o = p->lo; o->name; o++)
		if (o->val == optopt && !strncmp(o->name, bad + 2, n) && n)
			return true;
	return false;
}

static unsigned edit_distance(const char *a, const char *b);

/* The command's long options within 2 edits of "--word[=...]"
 * ("--ouput": '--output'), as "'--a' or '--b'", or "". */
static void option_suggest(const struct optparse *p, const char *bad, char *buf, size_t len)
{
	char word[32];
	size_t used = 0;
	buf[0] = 0;
	if (strncmp(bad, "--", 2))
		return;
	const char *eq = strchr(bad, '=');
	size_t n = eq ? (size_t)(eq - bad - 2) : strlen(bad + 2);
	if (n < 3 || n >= sizeof(word))
		return;
	memcpy(word, bad + 2, n);
	word[n] = 0;
	for (const struct option *o = p->lo; o->name && used < len; o++) {
		bool seen = false;      /* (a name held by several rows once) */
		for (const struct option *q = p->lo; q < o && !seen; q++)
			seen = !strcmp(q->name, o->name);
		if (seen || edit_distance(word, o->name) > 2)
			continue;
		int k = snprintf(buf + used, len - used, "%s'--%s'", used ? " or " : "", o->name);
		if (k < 0 || (size_t)k >= len - used) {
			buf[used] = 0;
			break;
		}
		used += (size_t)k;
	}
}

int optparse_next(struct optparse *p, int argc, char **argv)
{
	int c = getopt_long(argc, argv, p->so, p->lo, NULL);
	if (c == -1)
		return -1;
	/* "replay: stat: unknown option" (run, the default, is not named) */
	const char *who = strcmp(p->cmdname, "run") ? p->cmdname : "";
	const char *sep = *who ? ": " : "";
	/* an unknown letter inside a group ("-qGx") leaves optind on the
	 * group: argv[optind - 1] is then the argument before it, so a short
	 * option is named by optopt (0 for an unknown long option) */
	const char *bad = argv[optind - 1];
	if (c == ':') {
		if (!strncmp(bad, "--", 2))
			die_msg("%s%soption '%s' needs a value", who, sep, bad);
		else
			die_msg("%s%soption '-%c' needs a value", who, sep, optopt);
	} else if (c == '?') {
		if (long_given_value(p, bad))
			die_msg("%s%soption '%.*s' takes no value", who, sep,
				(int)(strchr(bad, '=') - bad), bad);
		else if (optopt > 0 && optopt < 256)
			die_msg("%s%sunknown option '-%c'", who, sep, optopt);
		else {
			char sg[160];
			option_suggest(p, bad, sg, sizeof(sg));
			die_msg("%s%sunknown option '%s'%s%s%s", who, sep, bad,
				*sg ? "; did you mean " : "", sg, *sg ? "?" : "");
		}
	} else {
		return c;
	}
	cmd_short_usage(p->cmd);
	return -2;
}

int opts_parse(unsigned cmd, bool stop_at_operand, int argc, char **argv,
	       int (*fn)(void *ctx, int id, const char *arg), void *ctx)
{
	const struct cmd_info *ci = cmd_info_of(cmd);
	struct optparse op;
	int id;
	optparse_init(&op, cmd, ci ? ci->name : "run", stop_at_operand);
	while ((id = optparse_next(&op, argc, argv)) != -1) {
		if (id == -2)
			return 2;
		if (id == 'h') {
			cmd_usage(stdout, cmd);
			return 1;
		}
		if (fn(ctx, id, optarg))
			return 2;
	}
	return 0;
}

/* "  -m, --mode MODE" padded to 27 columns, then the help lines. */
static void print_row(FILE *f, const struct optdef *d)
{
	char head[64];
	int n = snprintf(head, sizeof(head), "  %c%c%c --%s%s%s", d->letter ? '-' : ' ',
			 d->letter ? d->letter : ' ', d->letter ? ',' : ' ', d->name,
			 d->arg ? " " : "", d->arg ? d->arg : "");
	const char *h = d->help;
	for (int first = 1; *h; first = 0) {
		const char *nl = strchr(h, '\n');
		size_t len = nl ? (size_t)(nl - h) : strlen(h);
		if (first && n < 26)
			fprintf(f, "%-26s %.*s\n", head, (int)len, h);
		else if (first)
			fprintf(f, "%s\n%-26s %.*s\n", head, "", (int)len, h);
		else
			fprintf(f, "%-26s %.*s\n", "", (int)len, h);
		h += len + (nl != NULL);
	}
}

void opts_print(FILE *f, unsigned cmd)
{
	for (size_t i = 0; i < opt_count; i++)
		if (opt_table[i].cmds & cmd)
			print_row(f, &opt_table[i]);
}

/* ---- commands ----------------------------------------------------------- */

const struct cmd_info *cmd_info_find(const char *name)
{
	for (size_t i = 0; i < cmd_ninfos; i++)
		if (!strcmp(cmd_infos[i].name, name))
			return &cmd_infos[i];
	return NULL;
}

const struct cmd_info *cmd_info_of(unsigned bit)
{
	for (size_t i = 0; i < cmd_ninfos; i++)
		if (cmd_infos[i].bit == bit)
			return &cmd_infos[i];
	return NULL;
}

void cmd_usage(FILE *f, unsigned bit)
{
	const struct cmd_info *c = cmd_info_of(bit);
	if (!c)
		return;
	const char *s = c->synopsis;
	for (int first = 1; *s; first = 0) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		/* a line starting with a blank continues the one before */
		fprintf(f, "%s%.*s\n", first ? "usage: " : "       ", (int)len, s);
		s += len + (nl != NULL);
	}
	fprintf(f, "\n%s\n", c->description);
	opts_print(f, bit);
}

void cmd_short_usage(unsigned bit)
{
	const struct cmd_info *c = cmd_info_of(bit);
	if (!c)
		return;
	const char *nl = strchr(c->synopsis, '\n');
	fprintf(stderr, "usage: %.*s (see 'replay help %s')\n",
		(int)(nl ? (size_t)(nl - c->synopsis) : strlen(c->synopsis)), c->synopsis, c->name);
}

/* Levenshtein distance of a and b (short words), capped at 9. */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[32];
	if (la > 30 || lb > 30)
		return 9;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned sub = diag + (a[i - 1] != b[j - 1]);
			unsigned best = row[j - 1] + 1 < up + 1 ? row[j - 1] + 1 : up + 1;
			row[j] = sub < best ? sub : best;
			diag = up;
		}
	}
	return row[lb] > 9 ? 9 : row[lb];
}

const char *cmd_suggest(const char *word, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < cmd_ninfos; i++) {
		const char *n = cmd_infos[i].name;
		bool prefix = strlen(word) >= 2 && !strncmp(n, word, strlen(word));
		if (!prefix && edit_distance(word, n) > 2)
			continue;
		int k = snprintf(buf + used, len - used, "%s'%s'", used ? " or " : "", n);
		if (k < 0 || (size_t)k >= len - used)
			break;
		used += (size_t)k;
	}
	return buf;
}

/* ---- bash completion ---------------------------------------------------- */

static void completion_words(FILE *f, unsigned bit, bool with_arg)
{
	for (size_t i = 0; i < opt_count; i++) {
		const struct optdef *d = &opt_table[i];
		bool dup = false;
		if (!(d->cmds & bit) || (d->arg != NULL) != with_arg)
			continue;
		for (size_t k = 0; k < i && !dup; k++)     /* a name with several rows once */
			dup = (opt_table[k].cmds & bit) && !strcmp(opt_table[k].name, d->name);
		if (dup)
			continue;
		fprintf(f, " --%s", d->name);
		if (d->letter)
			fprintf(f, " -%c", d->letter);
	}
}

void opts_print_bash_completion(FILE *f)
{
	fputs("# bash completion for replay(1); generated by `replay completion bash`\n"
	      "# from the same option table as --help.\n"
	      "_replay() {\n"
	      "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "    local cmd=run i\n"
	      "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "        case ${COMP_WORDS[i]} in\n"
	      "        -*) ;;\n", f);
	fputs("        ", f);
	for (size_t i = 0; i < cmd_ninfos; i++)
		fprintf(f, "%s%s", i ? "|" : "", cmd_infos[i].name);
	fputs(") cmd=${COMP_WORDS[i]}; break ;;\n"
	      "        *) break ;;\n"
	      "        esac\n"
	      "    done\n"
	      "    local flags= args=\n"
	      "    case $cmd in\n", f);
	for (size_t i = 0; i < cmd_ninfos; i++) {
		fprintf(f, "    %s) flags='", cmd_infos[i].name);
		completion_words(f, cmd_infos[i].bit, false);
		fputs("'; args='", f);
		completion_words(f, cmd_infos[i].bit, true);
		fputs("' ;;\n", f);
	}
	fputs("    esac\n"
	      "    case \" $args \" in\n"
	      "    *\" $prev \"*)\n"
	      "        case $prev in\n"
	      "        -m|--mode) COMPREPLY=($(compgen -W 'parallel sequential' -- \"$cur\")) ;;\n"
	      "        -e|--engine) COMPREPLY=($(compgen -W 'sync libaio io_uring null' -- \"$cur\")) ;;\n"
	      "        -f|--format) COMPREPLY=($(compgen -W 'strace lanl sandia dxt fio-iolog' -- \"$cur\")) ;;\n"
	      "        --bind) COMPREPLY=($(compgen -W 'spread core numa none' -- \"$cur\")) ;;\n"
	      "        --clock) COMPREPLY=($(compgen -W 'auto tsc monotonic none' -- \"$cur\")) ;;\n"
	      "        --timing) COMPREPLY=($(compgen -W 'afap think trace' -- \"$cur\")) ;;\n"
	      "        -t|--to) COMPREPLY=($(compgen -W 'ops fio-iolog' -- \"$cur\")) ;;\n"
	      "        --output-format) COMPREPLY=($(compgen -W 'normal json json+' -- \"$cur\")) ;;\n"
	      "        --order) COMPREPLY=($(compgen -W 'resource none' -- \"$cur\")) ;;\n"
	      "        --on-mismatch) COMPREPLY=($(compgen -W 'stop warn ignore' -- \"$cur\")) ;;\n"
	      "        --dxt-layer) COMPREPLY=($(compgen -W 'posix mpiio' -- \"$cur\")) ;;\n"
	      "        --iolog-version) COMPREPLY=($(compgen -W '2 3' -- \"$cur\")) ;;\n"
	      "        *) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
	      "        esac\n"
	      "        return ;;\n"
	      "    esac\n"
	      "    if [[ $cur == -* ]]; then\n"
	      "        COMPREPLY=($(compgen -W \"$flags $args\" -- \"$cur\"))\n"
	      "    elif ((COMP_CWORD == 1)); then\n"
	      "        COMPREPLY=($(compgen -W '", f);
	for (size_t i = 0; i < cmd_ninfos; i++)
		fprintf(f, "%s%s", i ? " " : "", cmd_infos[i].name);
	fputs(" help' -- \"$cur\") $(compgen -f -- \"$cur\"))\n"
	      "    elif ((COMP_CWORD == 2)) && [[ ${COMP_WORDS[1]} == help ]]; then\n"
	      "        COMPREPLY=($(compgen -W '", f);
	for (size_t i = 0; i < cmd_ninfos; i++)
		fprintf(f, "%s%s", i ? " " : "", cmd_infos[i].name);
	fputs("' -- \"$cur\"))\n"
	      "    else\n"
	      "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "    fi\n"
	      "}\n"
	      "complete -o filenames -F _replay replay\n", f);
}
