#!/usr/bin/env bash
# run_fail_source: of a trace in several files (an strace -ff capture: a
# file per process), a rank's failure and the summary's mismatch examples
# name the rank's own file with the line, FILE:LINE (audit NC: the line
# was given, its file not: "(op 640, trace line 2557)" of one of 40
# files).  A read right after the O_TRUNC that made its file cannot find
# the 4096 bytes the trace read: a mismatch, which stops the run, or is
# warned with --on-mismatch warn.
set -euo pipefail
: "${REPLAY:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir "$tmp/cap"
cat > "$tmp/cap/tr.100" <<'T'
10:00:00.000001 openat(AT_FDCWD, "/k/d.dat", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>
10:00:00.000002 read(3, "\0\0"..., 4096) = 4096 <0.000010>
10:00:00.000003 close(3) = 0 <0.000010>
T
cat > "$tmp/cap/tr.101" <<'T'
10:00:00.000001 openat(AT_FDCWD, "/k/e.dat", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>
10:00:00.000002 write(3, "\0\0"..., 4096) = 4096 <0.000010>
10:00:00.000003 close(3) = 0 <0.000010>
T
mkdir "$tmp/t"
rc=0
"$REPLAY" run -o "$tmp/r.json" "$tmp/cap/tr" "$tmp/t" > "$tmp/out" 2> "$tmp/err" || rc=$?
[ "$rc" = 1 ] || fail "exit $rc, not 1: $(cat "$tmp/err")"
# fio's keys: the job's error EIO (a short transfer), no op failed with an
# errno, so no first_error (it said 5, audit FJ)
jq -e '.jobs[0] | .error == 5 and .total_err == 0 and .first_error == 0' "$tmp/r.json" > /dev/null ||
	fail "fio keys: $(jq -c '.jobs[0] | {error, total_err, first_error}' "$tmp/r.json")"
grep -q "failed: read '/k/d.dat' (op 1, trace line 2 of $tmp/cap/tr.100): 0 bytes where the trace moved 4096$" "$tmp/err" ||
	fail "the failure does not name tr.100: $(grep failed "$tmp/err")"
grep -q "^ *rank 0 (pid 100), $tmp/cap/tr.100:2: read moved 0 bytes, the trace 4096$" "$tmp/out" ||
	fail "the mismatch example does not name tr.100:2: $(grep -A2 '^mismatches' "$tmp/out")"
echo "ok stop: 'trace line 2 of .../tr.100', and '.../tr.100:2' under mismatches"
# each rank's file, in stat's JSON notes
"$REPLAY" stat --json "$tmp/cap/tr" | jq -e --arg d "$tmp/cap" \
	'.notes.rank_source == ["0 \($d)/tr.100", "1 \($d)/tr.101"]' > /dev/null ||
	fail "stat --json: $("$REPLAY" stat --json "$tmp/cap/tr" | jq -c .notes.rank_source)"
# the same capture converted: the .ops keeps each rank's file
"$REPLAY" convert "$tmp/cap/tr" -o "$tmp/c.ops" > /dev/null
rm -rf "$tmp/t"; mkdir "$tmp/t"
"$REPLAY" run --on-mismatch warn "$tmp/c.ops" "$tmp/t" > "$tmp/out" 2> "$tmp/err" ||
	fail "--on-mismatch warn: exit $?: $(cat "$tmp/err")"
grep -q "^ *rank 0 (pid 100), $tmp/cap/tr.100:2: read moved 0 bytes, the trace 4096$" "$tmp/out" ||
	fail "from the .ops: $(grep -A2 '^mismatches' "$tmp/out")"
# one file: its name, as before
cp "$tmp/cap/tr.100" "$tmp/one.strace"
rm -rf "$tmp/t"; mkdir "$tmp/t"
"$REPLAY" run "$tmp/one.strace" "$tmp/t" > "$tmp/out" 2> "$tmp/err" && fail "one file: exit 0"
grep -q "(op 1, trace line 2): 0 bytes" "$tmp/err" || fail "one file: $(grep failed "$tmp/err")"
grep -q "^ *$tmp/one.strace:2: read moved 0 bytes" "$tmp/out" || fail "one file: $(grep -A2 '^mismatches' "$tmp/out")"
echo "ok .ops and one file"
