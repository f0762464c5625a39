#!/usr/bin/env bash
# A run started with SIGINT ignored (a shell script's background job:
# `replay run ... &` starts so) keeps ignoring it, as under nohup it keeps
# ignoring SIGHUP: the series runs to its end, exit 0, every run complete.
# The same run with SIGINT at its default stops at the first one (130).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
if ! env --ignore-signal=INT true 2>/dev/null; then
    echo "skip: env(1) has no --ignore-signal (coreutils before 8.31)"
    exit 77
fi
tmp=$(mktemp -d /tmp/replay-e2e-sigign-XXXXXX)
pid=
trap '[ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# each run mostly preparation: an 8 MiB file written and synced
cat > "$tmp/t.txt" <<'TRACE'
900  10:00:00.000010 openat(AT_FDCWD, "/p/in.dat", O_RDONLY) = 3 <0.000010>
900  10:00:00.000020 pread64(3, "xxxxxxxx"..., 4096, 8384512) = 4096 <0.000005>
900  10:00:00.000030 close(3) = 0 <0.000003>
TRACE
runs=12
for ign in 1 0; do
    tgt="$tmp/target-$ign"
    mkdir "$tgt"
    rm -f "$tmp/r.json"
    sig=--default-signal=INT
    [ "$ign" = 0 ] || sig=--ignore-signal=INT
    env "$sig" "$REPLAY" run -r $runs --no-drop-caches --quiet \
        -o "$tmp/r.json" "$tmp/t.txt" "$tgt" > "$tmp/out" 2> "$tmp/err" &
    pid=$!
    # SIGINT while it loads, prepares and runs
    for d in 0.05 0.2 0.2 0.2; do
        sleep "$d"
        kill -INT "$pid" 2>/dev/null || break
    done
    set +e
    wait "$pid"; rc=$?
    set -e
    pid=
    if [ "$ign" = 1 ]; then
        [ "$rc" = 0 ] || fail "SIGINT ignored at start: exit $rc, want 0; $(cat "$tmp/err")"
        jq -e --argjson r $runs '.incomplete == false and (.runs | length) == $r' "$tmp/r.json" > /dev/null ||
            fail "SIGINT ignored at start: $(jq -c '{incomplete, n: (.runs | length)}' "$tmp/r.json")"
        echo "ok SIGINT ignored when replay started: $runs runs, complete, exit 0"
    else
        [ "$rc" = 130 ] || fail "SIGINT at its default: exit $rc, want 130; $(cat "$tmp/err")"
        grep -q "^replay: interrupted by signal 2" "$tmp/err" || fail "no reason: $(cat "$tmp/err")"
        echo "ok SIGINT at its default: interrupted, exit 130"
    fi
    [ -z "$(ls -A "$tgt")" ] || fail "files left: $(find "$tgt" | head -3)"
done
