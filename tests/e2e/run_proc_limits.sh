#!/usr/bin/env bash
# More processes than the node or the user may start (-n 1000 under ulimit -u
# 300): a parallel run is refused before anything is prepared, naming the
# limit; when fork fails anyway (other processes of the user took the
# room), the error says which limits, the run is marked failed in the JSON,
# and the target is left empty.  The node-wide check (kernel.pid_max) is
# seen through --dry-run only: a broken check must not fork 2^20 processes.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp= kids=
trap '[ -z "$kids" ] || kill $kids 2>/dev/null; [ -z "$tmp" ] || rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib/nobody.sh
. "$SRCDIR/tests/e2e/lib/nobody.sh"
nobody_setup nproc

# the user's limit: refused at once, nothing prepared
set +e
as_nobody bash -c "ulimit -u 300; exec '$REPLAY' run --no-drop-caches -n 1000 '$tmp/t.txt' '$tmp/tgt'" \
    > "$tmp/o1" 2> "$tmp/e1"
rc=$?
set -e
[ "$rc" = 1 ] || fail "ulimit -u 300, -n 1000: exit $rc, want 1"
grep -q "^replay: -n 1000: the process limit of this user is 300 (ulimit -u): it cannot start 1000 more processes at once" \
    "$tmp/e1" || fail "message: $(cat "$tmp/e1")"
[ -z "$(ls -A "$tmp/tgt")" ] || fail "prepared before refusing: $(ls -A "$tmp/tgt" | head -3)"
echo "ok ulimit -u 300, -n 1000: refused before anything was prepared"

# -m sequential starts one at a time: not refused
as_nobody bash -c "ulimit -u 300; exec '$REPLAY' run --quiet --no-drop-caches -m sequential -n 400 '$tmp/t.txt' '$tmp/tgt'" \
    > /dev/null 2> "$tmp/e2" || fail "-m sequential -n 400 under ulimit -u 300: $(tail -2 "$tmp/e2")"
echo "ok -m sequential -n 400 under ulimit -u 300: runs"

# room taken by the user's other processes (3 here; more of uid 65534's,
# as another test's, only make it fail sooner): fork fails mid-start
set +e
as_nobody bash -c "ulimit -u 8; sleep 30 & sleep 30 & sleep 30 & echo \$(jobs -p) > '$tmp/out/sleeps';
    exec '$REPLAY' run --no-drop-caches -n 6 -o '$tmp/out/r.json' '$tmp/t.txt' '$tmp/tgt'" \
    > "$tmp/o3" 2> "$tmp/e3"
rc=$?
set -e
kids=$(cat "$tmp/out/sleeps" 2>/dev/null || true)
[ "$rc" = 1 ] || fail "fork failure: exit $rc, want 1"
grep -q "cannot start worker [0-9]* of 6: Resource temporarily unavailable (a limit on processes: ulimit -u, kernel.pid_max, the job's cgroup pids.max)" \
    "$tmp/e3" || fail "fork failure message: $(cat "$tmp/e3")"
jq -e '.runs[0].failed == true and .runs[0].incomplete == true' "$tmp/out/r.json" >/dev/null ||
    fail "json: $(jq -c '.runs[0] | {failed, incomplete}' "$tmp/out/r.json")"
[ -z "$(ls -A "$tmp/tgt")" ] || fail "files left: $(ls -A "$tmp/tgt" | head -3)"
echo "ok fork failing at $(grep -o "worker [0-9]*" "$tmp/e3" | head -1): said, failed in the JSON, target empty"

# the node's limit, seen by --dry-run (root: no ulimit applies)
read -r pmax < /proc/sys/kernel/pid_max
read -r tmax < /proc/sys/kernel/threads-max
cap=$(( pmax < tmax ? pmax : tmax ))
if [ "$cap" -lt 1048576 ]; then
    "$REPLAY" run --dry-run -n "$cap" "$tmp/t.txt" "$tmp/tgt" > /dev/null 2> "$tmp/e4" || fail "--dry-run failed"
    grep -q "warning: the run would stop at once: -n $cap: this node runs [0-9]* tasks and kernel\.[a-z_-]* is $cap" \
        "$tmp/e4" || fail "dry-run: $(cat "$tmp/e4")"
    echo "ok --dry-run -n $cap: the node's limit said"
else
    echo "ok (node limit $cap is past -n's 2^20: not checked)"
fi
