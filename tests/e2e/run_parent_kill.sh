#!/usr/bin/env bash
# The parent killed with SIGKILL (it cannot clean up): its workers must not
# outlive it (PR_SET_PDEATHSIG), in parallel and in sequential mode, and
# however early it is killed (while forking, at the barrier, mid-run).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"
tmp=$(mktemp -d /tmp/replay-e2e-pkill-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

{ gen_writes 801 /pk/a.dat 20000 4096 1; gen_writes 802 /pk/b.dat 20000 4096 1 50; } > "$tmp/long.txt"
"$REPLAY" convert "$tmp/long.txt" -o "$tmp/long.ops" > /dev/null

try() {  # try MODE NPROCS DELAY_AFTER_FIRST_WORKER
    local tgt="$tmp/target-$1-$2-$3" pid kids left
    mkdir "$tgt"
    "$REPLAY" run -m "$1" -n "$2" --no-drop-caches --quiet "$tmp/long.ops" "$tgt" \
        > /dev/null 2>&1 &
    pid=$!
    for _ in $(seq 500); do
        [ -n "$(pgrep -P "$pid")" ] && break
        sleep 0.01
    done
    [ -n "$(pgrep -P "$pid")" ] || fail "$1 -n $2: no worker ever started"
    sleep "$3"
    kids=$(pgrep -P "$pid" | tr '\n' ' ')
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
        left=$(pgrep -f "$tgt" || true)
        [ -z "$left" ] && break
        sleep 0.02
    done
    [ -z "$left" ] || fail "$1 -n $2 +$3 s: workers outlived the parent: $(pgrep -af "$tgt")"
    echo "$1 -n $2 +$3 s: workers $kids gone"
}
try parallel 2 0.5
try parallel 40 0       # likely still forking or at the barrier
try parallel 40 0.05
try sequential 2 0.3
echo "ok"
