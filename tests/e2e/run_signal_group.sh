#!/usr/bin/env bash
# SIGTERM to the whole process group, as timeout(1) sends it (to its child,
# then to its group): the workers die of it too, possibly before the parent
# has acted on its own copy.  That is an interruption, not a worker
# failure: the reason says "interrupted", the run is not marked failed but
# stopped by signal 15, exit 143, no process and no file left behind.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"
tmp=$(mktemp -d /tmp/replay-e2e-sigpg-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
timeout --help 2>/dev/null | grep -q -- --preserve-status \
    || { echo "skip: timeout(1) without --preserve-status"; exit 77; }

# two ranks of 1-byte writes without syncs (about 2 s here): the workers
# are busy in syscalls, not asleep on the disk, so SIGTERM kills them at once
{ gen_writes 701 /g/a.dat 600000 1 0; gen_writes 702 /g/b.dat 600000 1 0 50; } > "$tmp/t.txt"
"$REPLAY" convert "$tmp/t.txt" -o "$tmp/t.ops" > /dev/null

hits=0
for i in $(seq 8); do
    tgt="$tmp/target-$i"
    mkdir "$tgt"
    rm -f "$tmp/g.json"
    timeout --preserve-status 120 "$REPLAY" run -n 2 --no-drop-caches --quiet -o "$tmp/g.json" \
        "$tmp/t.ops" "$tgt" > "$tmp/out" 2> "$tmp/err" &
    tpid=$!
    pid=
    for _ in $(seq 300); do
        pid=$(pgrep -P "$tpid" || true)
        [ -n "$pid" ] && [ "$(pgrep -P "$pid" | wc -l)" -ge 2 ] && break
        sleep 0.02
    done
    [ -n "$pid" ] || fail "replay never started"
    sleep "0.0$i"
    kill -TERM "$tpid"     # timeout(1) passes it on to replay, then to its group
    set +e
    wait "$tpid"; rc=$?
    set -e
    [ "$rc" = 143 ] || fail "try $i: exit $rc, want 143; $(cat "$tmp/err")"
    grep -q "^replay: interrupted by signal 15" "$tmp/err" || fail "try $i: reason: $(cat "$tmp/err")"
    sleep 0.1
    if pgrep -f "$tgt" > /dev/null; then fail "try $i: processes left: $(pgrep -af "$tgt")"; fi
    [ -z "$(ls -A "$tgt")" ] || fail "try $i: files left: $(find "$tgt")"
    [ -e "$tmp/g.json" ] || continue
    jq -e '.incomplete == true and .runs[0].incomplete == true and .runs[0].failed == false
        and .runs[0].stop_signal == 15 and ([.runs[0].jobs[] | select(.error)] == [])' \
        "$tmp/g.json" > /dev/null \
        || fail "try $i: json: $(jq -c '.runs[0] | {failed, stop_signal, jobs: [.jobs[] | {status, error}]}' "$tmp/g.json")"
    hits=$((hits + 1))
done
[ "$hits" -ge 4 ] || fail "only $hits of 8 tries stopped a running replay"
echo "ok ($hits runs stopped)"
