#!/usr/bin/env bash
# A real capture (tests/data/strace/README): sysbench fileio, 4 threads,
# interleaved <unfinished ...>/resumed on most lines.  The .ops must hold
# exactly the bytes the traced calls returned, per thread, as summed by awk
# from the text; stdout writes (fd 1 -> /dev/null) are not file I/O.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
T=$SRCDIR/tests/data/strace/sysbench_fileio.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$REPLAY" convert --quiet "$T" -o "$tmp/sb.ops"
want=$(awk -f "$SRCDIR/tests/e2e/strace_sums.awk" "$T" | cut -d' ' -f2- | sort)
got=$("$REPLAY" dump "$tmp/sb.ops" | awk '!/^#/ {
	if ($4 == "read" && $8 >= 0) { r[$1]++; rb[$1] += $8 }
	if ($4 == "write" && $8 >= 0) { w[$1]++; wb[$1] += $8 }
	seen[$1] = 1 }
	END { for (k in seen) printf "%d %.0f %d %.0f\n", r[k], rb[k], w[k], wb[k] }' | sort)
# ranks with no data ops print "0 0 0 0" on our side only
got=$(echo "$got" | grep -v '^0 0 0 0$')
if [ "$want" != "$got" ]; then
	echo "FAIL: expected"; echo "$want"; echo "got"; echo "$got"; exit 1
fi
totals=$(echo "$got" | awk '{a+=$1; b+=$2; c+=$3; d+=$4} END {print a" reads "b" B, "c" writes "d" B"}')
echo "ok: $(echo "$got" | wc -l) ranks, $totals"

# the fsyncs of the 4 threads are all there (awk: fsync calls with result 0)
want_fs=$(grep -cE '(fsync\([0-9]+<[^>]*>\) += 0|<\.\.\. fsync resumed>\) += 0)' "$T")
got_fs=$("$REPLAY" dump "$tmp/sb.ops" | awk '$4 == "fsync" && $8 == 0' | wc -l)
[ "$want_fs" = "$got_fs" ] || { echo "FAIL: fsync $got_fs, expected $want_fs"; exit 1; }
echo "ok: $got_fs fsyncs"

# strace -ff without time stamps: each thread's file must be read where
# the main thread's clone3 returned, or its descriptors (opened by the main
# thread, closed at its end) would be unknown and its I/O lost.
FF=$SRCDIR/tests/data/strace/sysbench_ff
"$REPLAY" convert --quiet "$FF/ff" -o "$tmp/ff.ops"
want=$(for f in "$FF"/ff.*; do awk -v pid="${f##*.}" -f "$SRCDIR/tests/e2e/strace_sums.awk" "$f"; done |
	cut -d' ' -f2- | grep -v '^0 0 0 0$' | sort)
got=$("$REPLAY" dump "$tmp/ff.ops" | awk '!/^#/ {
	if ($4 == "read" && $8 >= 0) { r[$1]++; rb[$1] += $8 }
	if ($4 == "write" && $8 >= 0) { w[$1]++; wb[$1] += $8 }
	seen[$1] = 1 }
	END { for (k in seen) printf "%d %.0f %d %.0f\n", r[k], rb[k], w[k], wb[k] }' | grep -v '^0 0 0 0$' | sort)
if [ "$want" != "$got" ]; then
	echo "FAIL -ff: expected"; echo "$want"; echo "got"; echo "$got"; exit 1
fi
[ "$(echo "$got" | wc -l)" -ge 4 ] || { echo "FAIL -ff: expected the main and 3 threads"; exit 1; }
echo "ok -ff without time stamps: $(echo "$got" | wc -l) ranks"
