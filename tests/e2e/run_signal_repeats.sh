#!/usr/bin/env bash
# SIGTERM at any moment of a series of repeats (-r): whenever the signal
# lands (during preparation, the cache drop, a run, the final flush, the
# cleanup between runs, after the last run), replay exits 143 with a
# one-line reason, leaves no process and no file, and the JSON it writes
# is marked incomplete: a series cut short must never look complete.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-sigrep-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# one rank reading the last 4 KiB of an 8 MiB file: each run is mostly
# preparation (8 MiB written and synced) and cleanup, the replay itself tiny
cat > "$tmp/t.txt" <<'TRACE'
900  10:00:00.000010 openat(AT_FDCWD, "/p/in.dat", O_RDONLY) = 3 <0.000010>
900  10:00:00.000020 pread64(3, "xxxxxxxx"..., 4096, 8384512) = 4096 <0.000005>
900  10:00:00.000030 close(3) = 0 <0.000003>
TRACE
repeats=1000
hits=0
for d in 0.05 0.08 0.11 0.14 0.17 0.2 0.23 0.26 0.29 0.32 0.35 0.4; do
    tgt="$tmp/target-$d"
    mkdir "$tgt"
    rm -f "$tmp/r.json"
    "$REPLAY" run -r $repeats --no-drop-caches --quiet -o "$tmp/r.json" "$tmp/t.txt" "$tgt" \
        > "$tmp/out" 2> "$tmp/err" &
    pid=$!
    sleep "$d"
    kill -TERM "$pid"
    set +e
    wait "$pid"; rc=$?
    set -e
    [ "$rc" = 143 ] || fail "d=$d: exit $rc, want 143; $(cat "$tmp/err")"
    grep -q "^replay: interrupted by signal 15" "$tmp/err" || fail "d=$d: no reason: '$(cat "$tmp/err")'"
    sleep 0.1
    if pgrep -f "$tgt" > /dev/null; then fail "d=$d: processes left: $(pgrep -af "$tgt")"; fi
    [ -z "$(ls -A "$tgt")" ] || fail "d=$d: files left: $(find "$tgt")"
    # interrupted before the first run started: nothing to report is fine
    [ -e "$tmp/r.json" ] || continue
    hits=$((hits + 1))
    jq -e --argjson r $repeats '.incomplete == true and (.runs | length) < $r
        and .summary.runs == (.runs | length)
        and .summary.complete_runs == ([.runs[] | select(.incomplete == false)] | length)' \
        "$tmp/r.json" > /dev/null \
        || fail "d=$d: interrupted series not marked incomplete: $(jq -c '{incomplete, summary, runs: [.runs[] | {incomplete, stop_signal}]}' "$tmp/r.json")"
done
[ "$hits" -ge 6 ] || fail "only $hits of 12 interruptions wrote results"
echo "ok ($hits interrupted series checked)"
