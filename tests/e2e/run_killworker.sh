#!/usr/bin/env bash
# A worker killed mid-run (kill -9): the run fails naming its rank, the
# other workers are stopped and reaped, files removed, results incomplete.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"
tmp=$(mktemp -d /tmp/replay-e2e-kill-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

{ gen_writes 601 /k/a.dat 20000 4096 1; gen_writes 602 /k/b.dat 20000 4096 1 50; } > "$tmp/long.txt"
tgt="$tmp/target-kill-$$"
mkdir "$tgt"
"$REPLAY" run -n 2 --no-drop-caches --quiet -o "$tmp/k.json" "$tmp/long.txt" "$tgt" \
    > "$tmp/out" 2> "$tmp/err" &
pid=$!
for _ in $(seq 200); do
    [ "$(pgrep -P "$pid" | wc -l)" -ge 2 ] && break
    sleep 0.1
done
victims=$(pgrep -P "$pid" | sort -n)
[ "$(echo "$victims" | wc -l)" -ge 2 ] || fail "workers never started"
victim=$(echo "$victims" | tail -n 1)
sleep 0.3
kill -9 "$victim"
set +e
wait "$pid"; rc=$?
set -e
[ "$rc" = 1 ] || fail "exit $rc, want 1; $(cat "$tmp/err")"
grep -q "rank [01] (process [01], worker pid $victim) failed: worker died: killed by signal 9" "$tmp/err" \
    || fail "message: $(cat "$tmp/err")"
sleep 0.2
if pgrep -f "$tgt" > /dev/null; then fail "processes left: $(pgrep -af "$tgt")"; fi
[ -z "$(ls -A "$tgt")" ] || fail "files left: $(find "$tgt")"
jq -e --argjson v "$victim" '.incomplete == true and .runs[0].failed == true
    and ([.runs[0].jobs[] | select(.pid == $v) | .status] == ["killed"])
    and ([.runs[0].jobs[] | select(.pid == $v) | .error | test("signal 9")] == [true])' \
    "$tmp/k.json" >/dev/null || fail "json: $(jq -c '[.runs[0].jobs[] | {pid, status, error}]' "$tmp/k.json")"
echo "ok"
