#!/usr/bin/env bash
# --timing afap|think|trace and --speed on a generated trace with known
# think time (replay gen checkpoint), on every engine; the bounds come from
# an independent reading of the strace text (tests/tools/strace_think.py)
# and cannot flake: a replay that keeps the traced gaps cannot be faster
# than them.  The one comparison of two runs (--speed 2 against 1) asks
# for a margin and is tried 3 times.  Also: lag and drift in the JSON and
# the summary, afap's explicit "not applicable", stat's think-time share,
# LANL and Sandia traces timed, and the clear errors for traces without
# times.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-timing-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
tgt="$tmp/tgt"; mkdir "$tgt"
uring=yes
"$REPLAY" run --quiet --no-drop-caches -e io_uring "$SRCDIR/traces/strace-probe.txt" "$tgt" \
    >/dev/null 2>"$tmp/uring.err" || { grep -q "io_uring" "$tmp/uring.err" && uring=no; }

# 2 ranks, 4 checkpoints each: 3 compute gaps of 45-55 ms per rank
"$REPLAY" gen checkpoint -n 2 --scale 0.4 -o "$tmp/ck.txt" >/dev/null
python3 "$SRCDIR/tests/tools/strace_think.py" "$tmp/ck.txt" > "$tmp/ref.json"
# the writer ranks' pids and their traced think time (ns)
jq -e '[.[] | select(.think > 100000000)] | length == 2' "$tmp/ref.json" >/dev/null \
    || fail "the generated trace has no think time: $(cat "$tmp/ref.json")"

# stat: think share per rank equals the independent reading
"$REPLAY" stat --json "$tmp/ck.txt" > "$tmp/stat.json"
for pid in $(jq -r 'to_entries[] | select(.value.think > 100000000) | .key' "$tmp/ref.json"); do
    think=$(jq -r --arg p "$pid" '.[$p].think' "$tmp/ref.json")
    jq -e --arg n "pid $pid" --argjson t "$think" \
        '.per_rank[] | select(.name == $n) | .think_ns == $t and .think_pct > 80' "$tmp/stat.json" \
        >/dev/null || fail "stat think of pid $pid: expected $think"
done
"$REPLAY" stat "$tmp/ck.txt" > "$tmp/stat.txt"
grep -Eq "in ops +think" "$tmp/stat.txt" || fail "stat text has no think column"

# every replayed rank's io time against the traced figures of its pid:
# $1 result, $2 jq condition on (.io, .think, .last) in ns; says what
# failed and returns 1 (try_ranks) or fails the test (check_ranks)
try_ranks() {
    local res=$1 cond=$2
    for pid in $(jq -r 'to_entries[] | select(.value.think > 100000000) | .key' "$tmp/ref.json"); do
        local think last
        think=$(jq -r --arg p "$pid" '.[$p].think' "$tmp/ref.json")
        last=$(jq -r --arg p "$pid" '.[$p].last_start' "$tmp/ref.json")
        jq -e --arg n "pid $pid" --argjson think "$think" --argjson last "$last" \
            "[.runs[0].jobs[] | select(.rank_name == \$n) | {io: .io_ns, think: \$think, last: \$last}]
             | length == 1 and all(.[]; $cond)" "$res" >/dev/null || {
            echo "$res: pid $pid: not ($cond): io $(jq --arg n "pid $pid" \
               '.runs[0].jobs[] | select(.rank_name == $n) | .io_ns' "$res"), think $think, last $last" >&2
            return 1
        }
    done
}
check_ranks() { try_ranks "$@" || fail "$1: rank times"; }

# the smallest traced think time of a writer rank (ns)
think_min=$(jq '[.[] | select(.think > 100000000) | .think] | min' "$tmp/ref.json")
engines="sync libaio"; [ "$uring" = yes ] && engines="$engines io_uring"
for e in $engines; do
    "$REPLAY" run --quiet --no-drop-caches -e "$e" -q 4 --timing afap -o "$tmp/afap-$e.json" \
        "$tmp/ck.txt" "$tgt" > "$tmp/afap-$e.txt"
    "$REPLAY" run --quiet --no-drop-caches -e "$e" -q 4 --timing think -o "$tmp/think-$e.json" \
        "$tmp/ck.txt" "$tgt" > "$tmp/think-$e.txt"
    "$REPLAY" run --quiet --no-drop-caches -e "$e" -q 4 --timing trace -o "$tmp/trace-$e.json" \
        "$tmp/ck.txt" "$tgt" > "$tmp/trace-$e.txt"
    "$REPLAY" run --quiet --no-drop-caches -e "$e" -q 4 --timing think --speed 2 \
        -o "$tmp/think2-$e.json" "$tmp/ck.txt" "$tgt" > /dev/null
    # think: no faster than the traced think time; afap: faster than that
    check_ranks "$tmp/think-$e.json" '.io >= .think'
    check_ranks "$tmp/think2-$e.json" '.io >= .think / 2'
    # (an upper bound on a time: a busy machine's slow fsync can break it
    # once, so a failing afap run is run again, up to 3 times in all)
    for try in 1 2 3; do
        try_ranks "$tmp/afap-$e.json" '.io < .think' && break
        [ "$try" -lt 3 ] || fail "$e: --timing afap as slow as the think time in 3 tries"
        "$REPLAY" run --quiet --no-drop-caches -e "$e" -q 4 --timing afap -o "$tmp/afap-$e.json" \
            "$tmp/ck.txt" "$tgt" > "$tmp/afap-$e.txt"
    done
    # trace: every op at or after its traced start, so the last one too
    check_ranks "$tmp/trace-$e.json" '.io >= .last'
    # speed 2 is faster than speed 1 by about half the think time: ask for
    # a quarter of it, so that a --speed that changed nothing cannot pass;
    # a slow fsync on a busy machine can eat that margin once, so the pair
    # is run again (up to 3 times) before this counts as a failure
    faster=no
    for try in 1 2 3; do
        if [ "$try" -gt 1 ]; then
            "$REPLAY" run --quiet --no-drop-caches -e "$e" -q 4 --timing think \
                -o "$tmp/think-$e.json" "$tmp/ck.txt" "$tgt" > /dev/null
            "$REPLAY" run --quiet --no-drop-caches -e "$e" -q 4 --timing think --speed 2 \
                -o "$tmp/think2-$e.json" "$tmp/ck.txt" "$tgt" > /dev/null
        fi
        s1=$(jq '[.runs[0].jobs[].io_ns] | max' "$tmp/think-$e.json")
        s2=$(jq '[.runs[0].jobs[].io_ns] | max' "$tmp/think2-$e.json")
        [ $((s2 + think_min / 4)) -lt "$s1" ] && { faster=yes; break; }
        echo "note: $e try $try: --speed 2 took $s2 ns, --speed 1 $s1 ns (think $think_min ns)" >&2
    done
    [ "$faster" = yes ] || fail "$e: --speed 2 not faster by a quarter of the think time in 3 tries"
    # lag and drift reported in timed modes, explicitly absent in afap
    for m in think trace; do
        jq -e --arg m "$m" '.options.timing == $m and .timing.mode == $m and .timing.speed == 1
            and .timing.lag.ops > 0 and .timing.lag.p50_ns <= .timing.lag.p99_ns
            and .timing.lag.p99_ns <= .timing.lag.max_ns and (.timing.drift.pct | type) == "number"
            and .timing.drift.scheduled_ns > 0
            and all(.runs[0].jobs[] | select(.ops > 10); .lag.ops > 0 and (.drift_pct | type) == "number")' \
            "$tmp/$m-$e.json" >/dev/null || fail "$m-$e: timing fields: $(jq -c .timing "$tmp/$m-$e.json")"
        grep -Eq "^timing: +$m, speed 1: lag p50 .* p99 .* max .*drift" "$tmp/$m-$e.txt" \
            || fail "$m-$e: no timing line: $(cat "$tmp/$m-$e.txt")"
        grep -Eq "^ +rank time: traced .* replayed " "$tmp/$m-$e.txt" || fail "$m-$e: no rank time"
    done
    jq -e '.timing.mode == "afap" and .timing.lag == null and .timing.drift == null
           and all(.runs[0].jobs[]; has("lag") | not)' "$tmp/afap-$e.json" >/dev/null \
        || fail "afap-$e: lag should be null"
    jq -e '.timing.speed == 2' "$tmp/think2-$e.json" >/dev/null || fail "speed not recorded"
    # fidelity: traced vs replayed latency per class and rank time
    jq -e '.fidelity.by_class.write.traced_ops == 128 and .fidelity.by_class.write.replayed_ops == 128
           and .fidelity.by_class.sync.traced_ops == 8
           and (.fidelity.by_class.write.p50_error_pct | type) == "number"
           and .fidelity.rank_time.traced_ns > 0 and .fidelity.rank_time.replayed_ns > 0' \
        "$tmp/think-$e.json" >/dev/null || fail "think-$e: fidelity: $(jq -c .fidelity "$tmp/think-$e.json")"
    [ -z "$(ls -A "$tgt")" ] || fail "files left in the target"
done

# LANL (ltrace clock times) and Sandia (seconds + microseconds): timed runs
"$REPLAY" run --quiet --no-drop-caches -n 4 --timing trace --speed 50 -o "$tmp/lanl.json" \
    "$SRCDIR/traces/lanl-64k" "$tgt" >/dev/null
jq -e '.timing.lag.ops > 0 and .options.format == "lanl"' "$tmp/lanl.json" >/dev/null || fail "lanl timed"
"$REPLAY" run --quiet --no-drop-caches -n 2 --timing think --speed 20 -o "$tmp/sandia.json" \
    "$SRCDIR/traces/alegra.sanitized" "$tgt" >/dev/null
jq -e '.timing.lag.ops > 0 and .options.format == "sandia" and .fidelity.rank_time.traced_ns > 0' \
    "$tmp/sandia.json" >/dev/null || fail "sandia timed"

# no timestamps: a clear error naming the mode and what is missing
sed -E 's/^([0-9]+) +[0-9:.]+ /\1 /; s/ <[0-9.]+>$//' "$tmp/ck.txt" > "$tmp/notime.txt"
for m in think trace; do
    if "$REPLAY" run --quiet --timing $m "$tmp/notime.txt" "$tgt" 2> "$tmp/err.txt"; then
        fail "--timing $m on a trace without times succeeded"
    fi
    grep -q -- "--timing $m: .*notime.txt has no timestamps" "$tmp/err.txt" || fail "message: $(cat "$tmp/err.txt")"
done
"$REPLAY" run --quiet --no-drop-caches --timing afap "$tmp/notime.txt" "$tgt" >/dev/null || fail "afap needs no times"
# times without durations: think cannot tell compute from I/O; trace can run
sed -E 's/ <[0-9.]+>$//' "$tmp/ck.txt" > "$tmp/nodur.txt"
if "$REPLAY" run --quiet --timing think "$tmp/nodur.txt" "$tgt" 2> "$tmp/err.txt"; then
    fail "--timing think without durations succeeded"
fi
grep -q -- "--timing think: .*no op durations (strace -T)" "$tmp/err.txt" || fail "message: $(cat "$tmp/err.txt")"
"$REPLAY" run --quiet --no-drop-caches --timing trace "$tmp/nodur.txt" "$tgt" >/dev/null \
    || fail "trace timing needs no durations"
# bad values
"$REPLAY" run --timing fast "$tmp/ck.txt" "$tgt" 2> "$tmp/err.txt" && fail "--timing fast accepted"
grep -q "invalid timing 'fast': expected afap, think or trace" "$tmp/err.txt" || fail "$(cat "$tmp/err.txt")"
for s in 0 -1 abc 1x; do
    "$REPLAY" run --timing think --speed "$s" "$tmp/ck.txt" "$tgt" 2> "$tmp/err.txt" && fail "--speed $s accepted"
    grep -q "invalid speed '$s'" "$tmp/err.txt" || fail "$(cat "$tmp/err.txt")"
done
echo "ok: timing modes"
