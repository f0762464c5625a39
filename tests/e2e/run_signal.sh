#!/usr/bin/env bash
# SIGINT / SIGTERM / SIGHUP to a running `replay run`: every worker stopped
# and reaped (no process left), the run's files removed, partial results
# written and marked incomplete, exit status 130 / 143 / 129.  (A SIGHUP,
# an ssh session closed, was handled as during the loading of the trace:
# exit 129 "while loading the trace", the target left full.)
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"
tmp=$(mktemp -d /tmp/replay-e2e-sig-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# two ranks, each 20000 x (4 KiB pwrite + fdatasync): far longer than the test
{ gen_writes 501 /sig/a.dat 20000 4096 1; gen_writes 502 /sig/b.dat 20000 4096 1 50; } > "$tmp/long.txt"

# wait_workers PID N: until PID has N children (the workers), at most 20 s
wait_workers() {
    for _ in $(seq 200); do
        [ "$(pgrep -P "$1" | wc -l)" -ge "$2" ] && return 0
        sleep 0.1
    done
    fail "workers of $1 never started"
}

for sig in INT TERM HUP; do
    tgt="$tmp/target-$sig-$$"
    mkdir "$tgt"
    # (a script's background job starts with SIGINT ignored, and replay
    # keeps it so: the default restored, as at an interactive prompt)
    env --default-signal=INT "$REPLAY" run -n 2 --no-drop-caches -o "$tmp/$sig.json" "$tmp/long.txt" "$tgt" \
        > "$tmp/$sig.out" 2> "$tmp/$sig.err" &
    pid=$!
    wait_workers "$pid" 2
    sleep 0.5
    kill -"$sig" "$pid"
    set +e
    wait "$pid"; rc=$?
    set -e
    case $sig in INT) want=130 signum=2;; TERM) want=143 signum=15;; HUP) want=129 signum=1;; esac
    [ "$rc" = "$want" ] || fail "SIG$sig: exit $rc, want $want; $(cat "$tmp/$sig.err")"
    grep -q "interrupted" "$tmp/$sig.err" || fail "SIG$sig: no message: $(cat "$tmp/$sig.err")"
    grep -q "while loading" "$tmp/$sig.err" && fail "SIG$sig: taken for the loading's: $(cat "$tmp/$sig.err")"
    # no rank ran to its end: nothing to set against the traced rank time
    grep -q "rank time: traced .*, replayed - (no rank ran to its end)" "$tmp/$sig.out" \
        || fail "SIG$sig: fidelity: $(grep 'rank time' "$tmp/$sig.out")"
    jq -e '.fidelity.rank_time | .replayed_ns == null and .error_pct == null' "$tmp/$sig.json" > /dev/null \
        || fail "SIG$sig: fidelity json: $(jq -c .fidelity.rank_time "$tmp/$sig.json")"
    # the batch log's last line says the status the shell saw
    tail -1 "$tmp/$sig.err" | grep -q "^replay: end .*: exit status $want$" \
        || fail "SIG$sig: end line: $(tail -1 "$tmp/$sig.err")"
    # no process left behind
    sleep 0.2
    if pgrep -f "$tgt" > /dev/null; then fail "SIG$sig: processes left: $(pgrep -af "$tgt")"; fi
    # the run's files removed
    [ -z "$(ls -A "$tgt")" ] || fail "SIG$sig: files left: $(find "$tgt")"
    # partial results, marked incomplete, with what was done so far
    jq -e '.incomplete == true and .runs[0].incomplete == true and .summary.complete_runs == 0
           and .summary.completion_ns.median == null and .summary.completion_ns.max == null' \
        "$tmp/$sig.json" >/dev/null || fail "SIG$sig: not marked incomplete"
    jq -e --argjson s "$signum" '.runs[0].stop_signal == $s' "$tmp/$sig.json" >/dev/null \
        || fail "SIG$sig: stop_signal"
    jq -e '[.runs[0].jobs[].write.total_ios] | add > 0 and add < 40000' "$tmp/$sig.json" \
        >/dev/null || fail "SIG$sig: partial counts: $(jq -c '[.runs[0].jobs[].write.total_ios]' "$tmp/$sig.json")"
    # no final flush was made: the time until the workers were stopped is
    # I/O time, not flush time; each stopped worker says how long it ran
    # (its own flush counts only if it had reached it when stopped), so its
    # partial bandwidth is real
    jq -e '.runs[0] | .completion_ns > 0 and .io_ns == .completion_ns and .flush_ns == 0
        and all(.jobs[]; .status == "killed" and .io_ns > 0
                and .io_ns + .flush_ns == .completion_ns
                and (.write.total_ios == 0 or .write.bw_bytes > 0))' \
        "$tmp/$sig.json" > /dev/null \
        || fail "SIG$sig: times of a stopped run: $(jq -c '.runs[0] | {completion_ns, io_ns, flush_ns, jobs: [.jobs[] | {status, completion_ns, io_ns, flush_ns, bw: .write.bw_bytes}]}' "$tmp/$sig.json")"
done
# a stopped think-timed run: lag was measured, but no rank reached its end,
# so there is no drift to give (it said "+0.000 % (0 ns over 0 ns scheduled)");
# one call every 100 us: 4 s of trace per rank (long.txt's 0.4 s could end
# before the signal on a fast disk, and then there is a drift)
{ gen_writes 501 /sig/a.dat 20000 4096 1 0 100; gen_writes 502 /sig/b.dat 20000 4096 1 50 100; } > "$tmp/think.txt"
tgt="$tmp/target-think-$$"
mkdir "$tgt"
"$REPLAY" run -n 2 --timing think --no-drop-caches -o "$tmp/think.json" "$tmp/think.txt" "$tgt" \
    > "$tmp/think.out" 2> "$tmp/think.err" &
pid=$!
wait_workers "$pid" 2
sleep 0.5
kill -TERM "$pid"
set +e
wait "$pid"; rc=$?
set -e
[ "$rc" = 143 ] || fail "think: exit $rc, want 143"
grep -q "^timing:      think, .*; drift - (no rank ran to its end)$" "$tmp/think.out" \
    || fail "think: timing line: $(grep '^timing' "$tmp/think.out")"
jq -e '.timing.drift == null and .timing.lag.ops > 0' "$tmp/think.json" > /dev/null \
    || fail "think: json: $(jq -c .timing "$tmp/think.json")"
[ -z "$(ls -A "$tgt")" ] || fail "think: files left: $(find "$tgt")"
# under nohup (SIGHUP ignored when replay starts) a hangup changes nothing:
# the parent and its workers run on, until a SIGTERM stops them
tgt="$tmp/target-nohup-$$"
mkdir "$tgt"
(trap '' HUP; exec "$REPLAY" run -n 2 --no-drop-caches --quiet "$tmp/long.txt" "$tgt" \
    > "$tmp/nohup.out" 2> "$tmp/nohup.err") &
pid=$!
wait_workers "$pid" 2
kill -HUP "$pid" $(pgrep -P "$pid")
sleep 0.5
kill -0 "$pid" 2> /dev/null || fail "nohup: a hangup stopped the run: $(cat "$tmp/nohup.err")"
[ "$(pgrep -P "$pid" | wc -l)" -ge 2 ] || fail "nohup: a hangup stopped the workers"
kill -TERM "$pid"
set +e
wait "$pid"; rc=$?
set -e
[ "$rc" = 143 ] || fail "nohup: exit $rc after SIGTERM, want 143"
[ -z "$(ls -A "$tgt")" ] || fail "nohup: files left: $(find "$tgt")"
# SIGTERM to each process instead of the group (Slurm's scancel and time
# limit): the interruption, not a worker failure, whether replay's own
# comes after the workers' or never (here: the workers' only)
for who in workers both; do
    tgt="$tmp/target-each-$who-$$"
    mkdir "$tgt"
    "$REPLAY" run -n 2 --no-drop-caches --quiet -o "$tmp/each.json" "$tmp/long.txt" "$tgt" \
        > "$tmp/each.out" 2> "$tmp/each.err" &
    pid=$!
    wait_workers "$pid" 2
    sleep 0.3
    # shellcheck disable=SC2046
    kill -TERM $(pgrep -P "$pid")
    [ "$who" = workers ] || kill -TERM "$pid"
    set +e
    wait "$pid"; rc=$?
    set -e
    [ "$rc" = 143 ] || fail "SIGTERM to the $who: exit $rc, want 143: $(cat "$tmp/each.err")"
    grep -q "^replay: interrupted by signal 15" "$tmp/each.err" || fail "SIGTERM to the $who: $(cat "$tmp/each.err")"
    grep -q "failed: worker died" "$tmp/each.err" && fail "SIGTERM to the $who: taken for a failure: $(cat "$tmp/each.err")"
    jq -e '.runs[0].failed == false and .runs[0].stop_signal == 15 and .incomplete == true' "$tmp/each.json" \
        > /dev/null || fail "SIGTERM to the $who: json $(jq -c '.runs[0] | {failed, stop_signal}' "$tmp/each.json")"
    [ -z "$(ls -A "$tgt")" ] || fail "SIGTERM to the $who: files left: $(find "$tgt")"
done
echo "ok"
