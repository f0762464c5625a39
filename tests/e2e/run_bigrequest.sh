#!/usr/bin/env bash
# A worker's I/O buffer follows what the trace transfers, not what it asks
# for: a three-line trace whose read asks for 2 GiB and gets 10 bytes runs 8
# workers under a 1 GiB address-space limit (each used to allocate and fill
# 2 GiB, and the run failed), and --dry-run says each rank's buffer.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-bigreq-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# (ldd's whole output first: with pipefail, `ldd | grep -q` fails when
# grep exits at the match and ldd, still writing, gets SIGPIPE)
libs=$(ldd "$REPLAY" 2>/dev/null || true)
if [[ $libs == *libasan* ]]; then
	echo "SKIP: AddressSanitizer build: it needs more address space than the limit this test sets"
	exit 77
fi

cat > "$tmp/t.txt" <<'TRACE'
100 10:00:00.000001 openat(AT_FDCWD, "/big/in.dat", O_RDONLY) = 3 <0.000010>
100 10:00:00.000020 read(3, "abcdefghij", 2147483647) = 10 <0.000010>
100 10:00:00.000040 close(3) = 0 <0.000005>
TRACE
mkdir "$tmp/tgt"
"$REPLAY" run --dry-run -n 8 "$tmp/t.txt" "$tmp/tgt" > "$tmp/dry" || fail "--dry-run failed"
grep -q "^I/O buffer per process (filled once; a transfer longer than 64.0 MiB is issued in pieces of 64.0 MiB" \
    "$tmp/dry" || fail "--dry-run says nothing of the buffer: $(tail -4 "$tmp/dry")"
grep -q "^  rank 0, copies 0-7 (8 processes): 4.0 KiB each$" "$tmp/dry" || fail "rank 0's buffer: $(grep 'rank 0' "$tmp/dry")"
grep -q "^  all 8 processes: 32.0 KiB$" "$tmp/dry" || fail "total: $(grep 'all 8' "$tmp/dry")"

( ulimit -v 1048576
  "$REPLAY" run -n 8 --no-drop-caches --quiet -o "$tmp/r.json" "$tmp/t.txt" "$tmp/tgt" \
      > "$tmp/out" 2> "$tmp/err" ) || fail "run under a 1 GiB address-space limit: $(cat "$tmp/err")"
jq -e '(.runs[0].jobs | length) == 8 and all(.runs[0].jobs[]; .status == "done"
       and .read.done_bytes == 10 and .read.io_bytes == 10)' "$tmp/r.json" >/dev/null ||
    fail "jobs: $(jq -c '[.runs[0].jobs[] | {status, read: .read.done_bytes}]' "$tmp/r.json")"
echo "ok"
