#!/usr/bin/env bash
# replay run -m sequential with a real page-cache drop and repeats: one job
# per rank, the run's completion is the longest rank's, statistics over runs.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"
if ! [ -w /proc/sys/vm/drop_caches ] || ! sh -c 'echo 1 > /proc/sys/vm/drop_caches' 2>/dev/null; then
    echo "skip: /proc/sys/vm/drop_caches is not writable here (not root, or a container)"
    exit 77
fi
tmp=$(mktemp -d /tmp/replay-e2e-seq-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trace="$SRCDIR/tests/data/run/s_f_tt_T_y.txt"
tgt="$tmp/tgt"
mkdir "$tgt"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$REPLAY" run -m sequential -r 2 --quiet -o "$tmp/s.json" "$trace" "$tgt" > "$tmp/out.txt"
grep -q "^page cache: *dropped before each rank" "$tmp/out.txt" || fail "summary: $(cat "$tmp/out.txt")"
grep -q "^processes (last run):" "$tmp/out.txt" || fail "no per-process times"
# the not-issued counts are the runs' sum, and the line says so (-r 2
# printed twice one run's counts without a word)
seeks=$(jq '[.runs[].jobs[].not_issued.seeks] | add' "$tmp/s.json")
grep -q "^not issued: .* $seeks seeks (offsets are explicit), .* (over the runs)$" "$tmp/out.txt" \
    || fail "not issued over 2 runs ($seeks seeks): $(grep 'not issued' "$tmp/out.txt")"
[ -z "$(ls -A "$tgt")" ] || fail "files left: $(find "$tgt")"

jq -e '.options.mode == "sequential" and .options.repeats == 2 and .options.drop_caches == true' \
    "$tmp/s.json" >/dev/null || fail "options"
jq -e '.runs | length == 2' "$tmp/s.json" >/dev/null || fail "two runs expected"
# each process ran alone: fio's groups after a stonewall, one each, in order
jq -e '[.jobs[].groupid] == [range(.jobs | length)] and (.jobs | length) > 1' "$tmp/s.json" >/dev/null ||
	fail "groupid: $(jq -c '[.jobs[].groupid]' "$tmp/s.json")"
jq -e 'all(.runs[]; .drop_caches == "dropped" and .headline == "longest rank"
       and .incomplete == false and (.jobs | length) == 3)' "$tmp/s.json" >/dev/null \
    || fail "run fields"
# the run's completion is the longest rank's (which includes its flush)
jq -e 'all(.runs[]; .completion_ns == ([.jobs[].completion_ns] | max)
       and .completion_ns == .io_ns + .flush_ns)' "$tmp/s.json" >/dev/null \
    || fail "headline is not the longest rank"
jq -e 'all(.runs[].jobs[]; .completion_ns == .io_ns + .flush_ns and .completion_ns > 0
       and .status == "done")' "$tmp/s.json" >/dev/null || fail "job times"
# each rank ran alone: distinct worker pids, one per rank
jq -e '[.runs[0].jobs[].pid] | unique | length == 3' "$tmp/s.json" >/dev/null || fail "pids"
# summary across the two runs, computed here independently
read -r c1 c2 < <(jq -r '[.runs[].completion_ns] | map(tostring) | join(" ")' "$tmp/s.json")
min=$(( c1 < c2 ? c1 : c2 )); max=$(( c1 > c2 ? c1 : c2 ))
jq -e --argjson min "$min" --argjson max "$max" \
    '.summary.runs == 2 and .summary.completion_ns.min == $min and .summary.completion_ns.max == $max
     and .summary.completion_ns.median == ($min + $max) / 2
     and .summary.completion_ns.stddev == ($max - $min) / 2' "$tmp/s.json" >/dev/null \
    || fail "summary stats: $(jq -c .summary "$tmp/s.json")"
# every rank's traced bytes, in both runs
for i in 0 1 2; do
    pid=$(jq -r ".runs[0].jobs[$i].rank_name" "$tmp/s.json"); pid=${pid#pid }
    for d in read write; do
        want=$(traced_bytes "$trace" "$pid" "$d")
        jq -e --argjson w "$want" "all(.runs[]; .jobs[$i].$d.io_bytes == \$w)" "$tmp/s.json" \
            >/dev/null || fail "rank $i $d bytes != $want"
    done
done
echo "ok"
