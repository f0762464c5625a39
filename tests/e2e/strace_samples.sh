#!/usr/bin/env bash
# Convert every strace sample and check, per rank, the number of reads and
# writes and their bytes against strace_sums.awk run on the text itself.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
D=$SRCDIR/tests/data/strace
AWK=$SRCDIR/tests/e2e/strace_sums.awk
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# per-rank "reads rbytes writes wbytes" from the .ops, sorted
ops_sums() {
	"$REPLAY" dump "$1" | awk '!/^#/ {
		if ($4 == "read" && $8 >= 0) { r[$1]++; rb[$1] += $8 }
		if ($4 == "write" && $8 >= 0) { w[$1]++; wb[$1] += $8 }
		seen[$1] = 1 }
		END { for (k in seen) printf "%d %.0f %d %.0f\n", r[k], rb[k], w[k], wb[k] }' | sort
}
check() {   # name, expected (sorted), got
	if [ "$2" != "$3" ]; then
		echo "FAIL $1: expected"; echo "$2"; echo "got"; echo "$3"; exit 1
	fi
	echo "ok $1: $(echo "$3" | wc -l) ranks"
}

for f in s_f_tt_T.txt s_f_tt_T_y.txt s_r_T.txt s32_tt_T.txt; do
	"$REPLAY" convert --quiet "$D/$f" -o "$tmp/$f.ops"
	want=$(awk -f "$AWK" "$D/$f" | cut -d' ' -f2- | sort)
	check "$f" "$want" "$(ops_sums "$tmp/$f.ops")"
done

# strace -ff: the prefix expands to PREFIX.<pid>
"$REPLAY" convert --quiet "$D/s_ff" -o "$tmp/ff.ops"
want=$(for f in "$D"/s_ff.*; do awk -v pid="${f##*.}" -f "$AWK" "$f"; done | cut -d' ' -f2- | sort)
check s_ff "$want" "$(ops_sums "$tmp/ff.ops")"

# -f to stderr: the main process's early lines carry no [pid N]; replay
# folds them into pid 8486, so compare totals and the rank count
f=s_f_ttt_T_stderr.txt
"$REPLAY" convert --quiet "$D/$f" -o "$tmp/stderr.ops"
want=$(awk -f "$AWK" "$D/$f" | awk '{a+=$2; b+=$3; c+=$4; d+=$5} END {print a, b, c, d}')
got=$(ops_sums "$tmp/stderr.ops" | awk '{a+=$1; b+=$2; c+=$3; d+=$4} END {print a, b, c, d}')
check "$f totals" "$want" "$got"
[ "$(ops_sums "$tmp/stderr.ops" | wc -l)" = 3 ] || { echo "FAIL: expected 3 ranks"; exit 1; }

# the loader detects the format of a copy without a telling name
cp "$D/s_f_tt_T.txt" "$tmp/trace"
"$REPLAY" convert --quiet "$tmp/trace" -o "$tmp/x.ops"
cmp <(ops_sums "$tmp/x.ops") <(ops_sums "$tmp/s_f_tt_T.txt.ops")
# standard input, with --format (detection would need to read it twice)
"$REPLAY" convert --quiet --format strace - -o "$tmp/stdin.ops" < "$D/s_f_tt_T.txt"
cmp <(ops_sums "$tmp/stdin.ops") <(ops_sums "$tmp/s_f_tt_T.txt.ops")
if "$REPLAY" convert --quiet - -o "$tmp/x2.ops" < "$D/s_f_tt_T.txt" 2> "$tmp/err"; then
	echo "FAIL: stdin without --format accepted"; exit 1
fi
grep -q "needs --format" "$tmp/err" || { cat "$tmp/err"; exit 1; }

# bad input: file:line and what was expected, non-zero exit
printf '1 open("/a", O_RDONLY) = 3\n1 write(3, "abc\n' > "$tmp/bad.txt"
if "$REPLAY" convert --quiet --format strace "$tmp/bad.txt" -o "$tmp/bad.ops" 2> "$tmp/err"; then
	echo "FAIL: truncated line accepted"; exit 1
fi
grep -q "bad.txt:2: expected closing '\"'" "$tmp/err" || { cat "$tmp/err"; exit 1; }
: > "$tmp/empty.txt"
if "$REPLAY" convert --quiet "$tmp/empty.txt" -o "$tmp/e.ops" 2> "$tmp/err"; then
	echo "FAIL: empty file accepted"; exit 1
fi
grep -q "empty.txt: empty file (0 bytes): no trace in it" "$tmp/err" || { cat "$tmp/err"; exit 1; }
echo "all strace samples ok"
