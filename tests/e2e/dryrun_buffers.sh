#!/usr/bin/env bash
# --dry-run's I/O buffer table names the trace ranks the workers replay (as
# the processes' lines do), the copies when -n makes them, and its total is
# the sum of every process's buffer.  The trace: pid 100 writes 4 KiB, pid
# 101 only reads /etc/passwd (left out by the default filter: rank 1 is not
# replayed), pids 102-105 write 64 KiB each.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/replay-e2e-dryb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$SRCDIR/tests/e2e/lib/ranks_trace.sh"
ranks_trace "$tmp/six.txt"
mkdir "$tmp/t"

# the buffer lines (after the "I/O buffer" header) of a dry run, one a line
buffers() { "$REPLAY" run --dry-run "$@" "$tmp/six.txt" "$tmp/t" 2>&1 | awk '/^I\/O buffer/ { on = 1; next } on'; }
expect() {
	local what=$1 want=$2 got
	shift 2
	got=$(buffers "$@")
	[ "$got" = "$want" ] || fail "$what: got
$got
want
$want"
}

# the processes' lines name ranks 0 and 2-5; the table the same ones
procs=$("$REPLAY" run --dry-run "$tmp/six.txt" "$tmp/t" | awk '/^  process [0-9]+: rank/ { sub(":", "", $4); printf "%s ", $4 }')
[ "$procs" = "0 2 3 4 5 " ] || fail "processes' ranks: '$procs'"
expect "rank 1 filtered out" "  rank 0: 4.0 KiB
  rank 2: 64.0 KiB
  rank 3: 64.0 KiB
  rank 4: 64.0 KiB
  rank 5: 64.0 KiB
  all 5 processes: 260.0 KiB"
expect "--ranks 5" "  rank 5: 64.0 KiB
  all 1 process: 64.0 KiB" --ranks 5
expect "-n 2 on one rank" "  rank 0, copies 0-1 (2 processes): 4.0 KiB each
  all 2 processes: 8.0 KiB" --ranks 0 -n 2
expect "-n 5 on two ranks" "  rank 0, copies 0-2 (3 processes): 4.0 KiB each
  rank 3, copies 0-1 (2 processes): 64.0 KiB each
  all 5 processes: 140.0 KiB" --ranks 0,3 -n 5
# -n smaller than the ranks: the first ones
expect "-n 2 of five" "  rank 0: 4.0 KiB
  rank 2: 64.0 KiB
  all 2 processes: 68.0 KiB" -n 2
# the ranks line counts the trace's ranks, and says how many were left out
"$REPLAY" run --dry-run "$tmp/six.txt" "$tmp/t" | grep -qx \
	"  6 traced ranks (1 left out: not in --ranks, a launcher's, or no op the path filter keeps), 5 replayed by 5 processes" \
	|| fail "ranks line: $("$REPLAY" run --dry-run "$tmp/six.txt" "$tmp/t" | grep 'traced rank')"
"$REPLAY" run --dry-run --ranks 0,3 "$tmp/six.txt" "$tmp/t" | grep -q "^  6 traced ranks (4 left out" \
	|| fail "ranks line with --ranks: $("$REPLAY" run --dry-run --ranks 0,3 "$tmp/six.txt" "$tmp/t" | grep 'traced rank')"
echo "ok: --dry-run buffer table by trace rank and copy, totals summed over the processes"
