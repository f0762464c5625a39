#!/usr/bin/env bash
# Two `replay run` into one target directory at once: the second is
# refused before it touches anything (both ran, each removing the other's
# files, warning of mismatches, exit 0: audit T); the first completes; a
# run into another directory at the same time is not held up; --dry-run
# writes nothing and is not refused.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# one rank, a call every 100 us, 6000 of them: 0.6 s of trace (timing trace)
gen_writes 601 /busy/a.dat 3000 4096 1 0 100 > "$tmp/slow.txt"
gen_writes 602 /busy/b.dat 10 4096 0 > "$tmp/quick.txt"
mkdir "$tmp/t" "$tmp/other"
"$REPLAY" run --timing trace --no-drop-caches --quiet -o "$tmp/first.json" "$tmp/slow.txt" "$tmp/t" \
	> "$tmp/first.out" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -e "$tmp/t/busy/a.dat" ] && break; sleep 0.02; done
[ -e "$tmp/t/busy/a.dat" ] || fail "the first run never started: $(cat "$tmp/first.out")"
rc=0
"$REPLAY" run --no-drop-caches "$tmp/quick.txt" "$tmp/t" > "$tmp/second.out" 2> "$tmp/second.err" || rc=$?
[ "$rc" = 1 ] || fail "second run into the same target: exit $rc, want 1: $(cat "$tmp/second.err")"
grep -q "another replay run is replaying into '$tmp/t' now" "$tmp/second.err" ||
	fail "second run: message: $(cat "$tmp/second.err")"
[ ! -e "$tmp/t/busy/b.dat" ] || fail "the refused run made its file"
"$REPLAY" run --dry-run "$tmp/quick.txt" "$tmp/t" > /dev/null || fail "--dry-run refused"
"$REPLAY" run --no-drop-caches --quiet "$tmp/quick.txt" "$tmp/other" ||
	fail "a run into another directory was held up"
kill -0 "$pid" 2>/dev/null || fail "the first run ended before the checks (its trace is 0.6 s)"
wait "$pid" || fail "the first run failed: $(cat "$tmp/first.out")"
pid=
jq -e '.runs[0].failed == false and .incomplete == false' "$tmp/first.json" > /dev/null ||
	fail "the first run: $(jq -c '.runs[0] | {failed}' "$tmp/first.json")"
# and once it is over, the target is free again
"$REPLAY" run --no-drop-caches --quiet "$tmp/quick.txt" "$tmp/t" || fail "the target stayed locked"
echo "ok a second run into a busy target refused, the first complete"
