#!/usr/bin/env bash
# A worker whose setup fails before the start barrier: the parent does not
# hang and does not release the others; the run fails at once naming the
# rank, the engine and the depth; no op was replayed by anyone; nothing
# left behind; the JSON says so.  The failure is injected
# (REPLAY_TEST_FAIL_SETUP, replay(1) ENVIRONMENT): the one this test used
# to provoke, an io_uring ring deeper than the kernel's 32768 entries, is
# now refused before any worker starts (e2e/run_depth_limits).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"
tmp=$(mktemp -d /tmp/replay-e2e-setup-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

{ gen_writes 901 /su/a.dat 200 4096 0; gen_writes 902 /su/b.dat 200 4096 0 50; } > "$tmp/t.txt"
# the engine must work here at a sane depth, else there is nothing to test
mkdir "$tmp/probe"
if ! "$REPLAY" run -e io_uring -q 8 --no-drop-caches --quiet "$tmp/t.txt" "$tmp/probe" \
        > /dev/null 2> "$tmp/probe.err"; then
    echo "skip: io_uring not usable here: $(cat "$tmp/probe.err")"
    exit 77
fi
for n in 2 8; do
    tgt="$tmp/target-$n"
    mkdir "$tgt"
    bad=$((n - 1))                   # the last process: rank 1
    set +e
    REPLAY_TEST_FAIL_SETUP=$bad timeout 20 "$REPLAY" run -n $n -e io_uring -q 8 --no-drop-caches --quiet \
        -o "$tmp/s.json" "$tmp/t.txt" "$tgt" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    set -e
    [ "$rc" != 124 ] || fail "-n $n: the parent hung"
    [ "$rc" = 1 ] || fail "-n $n: exit $rc, want 1; $(cat "$tmp/err")"
    grep -Eq "^replay: rank 1 \(process $bad, worker pid [0-9]+\) failed: worker setup \(engine io_uring, depth 8\): Operation canceled$" \
        "$tmp/err" || fail "-n $n: message: $(cat "$tmp/err")"
    [ "$(wc -l < "$tmp/err")" = 1 ] || fail "-n $n: more than one line: $(cat "$tmp/err")"
    [ -z "$(ls -A "$tgt")" ] || fail "-n $n: files left: $(find "$tgt")"
    jq -e '.incomplete == true and .runs[0].failed == true
        and ([.runs[0].jobs[].ops_done] | add) == 0
        and ([.runs[0].jobs[] | select(.status == "failed")] | length) >= 1' "$tmp/s.json" > /dev/null \
        || fail "-n $n: json: $(jq -c '[.runs[0].jobs[] | {status, ops_done, error}]' "$tmp/s.json")"
done
echo "ok"
