/*
 * commands.c - the subcommands: name, entry point, usage and description
 * (their options are rows of the table in options.c).
 */
#include "cmd/cmds.h"
#include "cmd/options.h"

const struct cmd_info cmd_infos[] = {
	{ "run", CMD_RUN, cmd_run,
	  "replay [run] [OPTIONS] TRACE... TARGET_DIR",
	  "Replay the traced I/O of TRACE on files beneath TARGET_DIR and report the\n"
	  "completion time (cache dropped before, delayed writes flushed after).\n",
	  "replay a trace on a target directory (the default)" },
	{ "stat", CMD_STAT, cmd_stat,
	  "replay stat [--json] [--format FMT] [--skip-bad] [--dxt-layer L] [--ranks LIST]\n"
	  "    [--include GLOB] [--exclude GLOB] [--no-default-excludes] TRACE...",
	  "Analyze a trace (or an .ops file): ranks, files, op counts, bytes read\n"
	  "and written, read/write ratio, access patterns, request-size histograms.\n",
	  "analyze a trace: ranks, files, ops, bytes, patterns, sizes" },
	{ "convert", CMD_CONVERT, cmd_convert,
	  "replay convert [--format FMT] [--skip-bad] [--dxt-layer L] TRACE... -o FILE.ops\n"
	  "replay convert --to fio-iolog [--target DIR] [--iolog-version V]\n"
	  "    [--ranks LIST] [--include GLOB] [--exclude GLOB] [--no-default-excludes]\n"
	  "    -o DIR TRACE...",
	  "Parse traces once into the binary .ops file every other command reads,\n"
	  "or export the op stream as fio iologs (DIR/rank-<R>.iolog): the ops\n"
	  "`replay run` would replay (the same default excludes and selection\n"
	  "options), less those fio cannot (directory and O_PATH opens and the\n"
	  "calls on them: counted in the summary line).  The logs are renamed\n"
	  "into DIR once all are written; a failed export leaves DIR as it was.\n",
	  "convert traces to a binary .ops file or fio iologs" },
	{ "dump", CMD_DUMP, cmd_dump,
	  "replay dump [--ranks LIST] [--format FMT] [--skip-bad] [--dxt-layer L] FILE.ops|TRACE...",
	  "Print an op stream one op per line:\n"
	  "  rank t_ns dur_ns kind handle offset len result extra path\n",
	  "print an .ops file (or any trace) one op per line" },
	{ "gen", CMD_GEN, cmd_gen,
	  "replay gen WORKLOAD -o PATH [--processes N] [--scale X] [--seed S] [--force]\n"
	  "           [--strided | --n-to-n] [--object-size BYTES] [--objects N]\n"
	  "replay gen --list",
	  "Write a synthetic trace of WORKLOAD in its real format (see --list).\n",
	  "generate synthetic traces in the real formats" },
	{ "compare", CMD_COMPARE, cmd_compare,
	  "replay compare [--json | --markdown] [--html FILE] [-L LABELS] RESULT...",
	  "Compare `replay run -o` results; the first is the baseline (1.00).\n"
	  "A RESULT is a result file (one JSON object, or an array of them) or a\n"
	  "directory of *.json result files.  Rows match by trace set, mode and\n"
	  "process count; each row shows the median completion time of the runs,\n"
	  "normalized to the baseline, with [min-max] over the runs, and '~' where\n"
	  "the difference is within that spread; then p50/p99 latency per op class.\n",
	  "compare result files against a baseline" },
	{ "plot", CMD_PLOT, cmd_plot,
	  "replay plot -o DIR [-L LABELS] [--no-render] RESULT...",
	  "Plot `replay run -o` results with gnuplot into DIR (created if needed):\n"
	  "completion-sequential / completion-parallel (bars normalized to the\n"
	  "first RESULT, error bars min-max over the runs), latency-TRACE-MODE-N\n"
	  "(latency CDF per op class) and timeline-LABEL-TRACE-MODE-N (throughput\n"
	  "per process over time), each as .png and .svg, with the .dat data and\n"
	  "the .gp gnuplot script beside them.  RESULT is as for `replay compare`.\n",
	  "plot result files with gnuplot (PNG and SVG)" },
	{ "completion", CMD_COMPLETION, cmd_completion,
	  "replay completion bash",
	  "Print the bash completion of replay (installed as\n"
	  "share/bash-completion/completions/replay).\n",
	  "print the bash completion script" },
};
const size_t cmd_ninfos = sizeof(cmd_infos) / sizeof(cmd_infos[0]);
