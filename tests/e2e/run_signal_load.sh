#!/usr/bin/env bash
# A signal while the trace is still being read (issue 15): the command
# stops with "interrupted by signal N (...) while loading the trace", exit
# 128+N, and leaves no temporary .ops file.  The trace comes from a pipe
# that stays open, so the loader is certainly still reading when the
# signal arrives.  (A background job starts with SIGINT ignored: env
# --default-signal gives it back, as an interactive shell would.)
set -euo pipefail
: "${REPLAY:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for sig in INT TERM; do
    mkdir -p "$tmp/td" "$tmp/tgt"
    rm -f "$tmp/fifo"; mkfifo "$tmp/fifo"
    # the writer keeps the pipe open; it is stopped by its pid below
    ( printf '1 10:00:00.000000 openat(AT_FDCWD, "/d/f", O_RDWR|O_CREAT, 0644) = 3\n'; exec sleep 37 ) \
        >"$tmp/fifo" 2>/dev/null &
    writer=$!
    TMPDIR=$tmp/td env --default-signal=INT "$REPLAY" run --format strace - "$tmp/tgt" \
        <"$tmp/fifo" 2>"$tmp/err" &
    pid=$!
    # loading: the .ops being written is open in TMPDIR (unnamed, O_TMPFILE)
    loading() { find "/proc/$pid/fd" -lname "$tmp/td/*" 2>/dev/null | grep -q .; }
    for _ in $(seq 100); do
        loading && break
        sleep 0.05
    done
    loading || { echo "FAIL $sig: loading never started"; exit 1; }
    kill -"$sig" "$pid"
    rc=0; wait "$pid" || rc=$?
    kill "$writer" 2>/dev/null || true
    wait "$writer" 2>/dev/null || true
    want=$((128 + $(kill -l "$sig")))
    [ $rc = $want ] || { echo "FAIL $sig: exit $rc, expected $want"; cat "$tmp/err"; exit 1; }
    grep -q "interrupted by signal $(kill -l "$sig") (.*) while loading the trace" "$tmp/err" ||
        { echo "FAIL $sig: message"; cat "$tmp/err"; exit 1; }
    left=$(ls -A "$tmp/td")
    [ -z "$left" ] || { echo "FAIL $sig: left in TMPDIR: $left"; exit 1; }
    echo "ok SIG$sig while loading: exit $rc, message, TMPDIR empty"
    rm -rf "$tmp/td" "$tmp/tgt"
done
