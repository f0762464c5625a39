#!/usr/bin/env bash
# The result JSON of a 64-process run is written at once (a handful of
# write() calls on the result file, not one per JSON token as before), and
# its structure and values are those the writer before it produced: the
# same key paths (tests/data/run/n64-keys.list) and, apart from timings,
# pids, CPUs and the host, the same values (tests/data/run/n64-values.json),
# both taken from that writer's output (the key list then gained the fields of
# issue 11: filtered, options.order/dependencies/barriers/on_mismatch, dep_*/barrier_*
# waits, mismatches; of issue 12: options.trace_incomplete; of issue 13: options.timing/speed,
# of issue 17: options.clock (its value depends on the machine: not compared),
# timing, fidelity; of issue 16: fio's top-level keys - fio version, timestamp_ms,
# global options, headline_run, jobs (with total_err and first_error since
# the fio keys followed errors that did not stop a worker), disk_util (its entries depend on the
# disk under /tmp: not listed) - and runs.#.disk_util; then filtered.ranks_beyond_processes,
# the ranks past -n, and runs.#.jobs.#.tmpfile_named, O_TMPFILE opens made as a
# named file; options.trace_cut_lines, strace lines cut mid-line; fio's job
# keys eta, elapsed, latency_depth/target/percentile/window, start_utc (the
# start, now that timestamp is fio's instant) and runs.#.jobs.#.buffered_ops).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-jsonw-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
strace -f -o /dev/null true 2>/dev/null || { echo "SKIP: strace cannot trace here (ptrace denied)"; exit 77; }

mkdir "$tmp/tgt"
# (LeakSanitizer cannot run under ptrace: off for this run of a sanitized build)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -y -e trace=write -o "$tmp/strace.log" \
    "$REPLAY" run -m parallel -n 64 --no-drop-caches --no-default-excludes --quiet -o "$tmp/r.json" \
    "$SRCDIR/tests/data/run/s_f_tt_T_y.txt" "$tmp/tgt" > "$tmp/out" ||
    fail "run failed: $(tail -3 "$tmp/out")"
# writes to the result's temporary file (r.json.tmpXXXXXX), by fd path
n=$(grep -cE "^[0-9]+ +write\([0-9]+<$tmp/r\.json\.tmp[^>]*>" "$tmp/strace.log" || true)
[ "$n" -ge 1 ] || fail "no write to the result file seen: $(grep -m3 write "$tmp/strace.log")"
[ "$n" -le 4 ] || fail "the result file took $n write() calls (expected a few)"

keys() {
	jq -r '[paths | map(if type == "number" then "#" else . end) | join(".")] | unique[]' "$1" |
		grep -v -e 'timeline\.bytes\.#' -e '^host\.topology' -e 'disk_util\.#'
}
diff <(keys "$tmp/r.json") <(grep -v '^host\.topology' "$SRCDIR/tests/data/run/n64-keys.list") ||
    fail "key paths differ from the writer before (< now, > before)"
values() {
	jq -S '{options: (.options | del(.trace, .order, .dependencies, .barriers, .on_mismatch, .trace_incomplete, .trace_cut_lines, .trace_no_common_clock, .timing, .speed, .clock)), runs: [.runs[] | {incomplete, failed,
	        drop_caches, headline, jobs: [.jobs[] | {rank, rank_name, copy, status, ops,
	        ops_done, short_ios, eagain, sync_fallback, rounded_ops, rounded_extra_bytes,
	        errors, not_issued: (.not_issued | del(.filtered)), max_inflight,
	        classes: [.read, .write, .sync, .open, .close, .meta |
	                  {io_bytes, done_bytes, total_ios, short_ios, errors, N: .lat_ns.N}]}]}],
	        summary: {runs: .summary.runs, complete_runs: .summary.complete_runs},
	        incomplete}' "$1"
}
diff <(values "$tmp/r.json") <(jq -S . "$SRCDIR/tests/data/run/n64-values.json") ||
    fail "values differ from the writer before (< now, > before)"
echo "ok ($n writes to the result file)"
