#!/usr/bin/env bash
# replay-mpi's --status-interval lines come from MPI rank 0 and count the
# trace ranks it runs itself: their ops done out of their ops (it divided
# its own by every rank's, and never got past 1/P of 100 %).  Four equal
# ranks on two MPI processes: rank 0's total is half of `replay run`'s.
. "$SRCDIR/tests/e2e/lib/mpi.sh"
. "$SRCDIR/tests/e2e/lib/gen_strace.sh"
for r in 0 1 2 3; do gen_writes $((600 + r)) "/st/f$r" 1500 512 0 $((r * 3)); done > "$tmp/four.txt"
args=(--status-interval 0.2 --timing trace --speed 0.01 "${drop[@]}")
mkdir "$tmp/a" "$tmp/b"
"$REPLAY" run "${args[@]}" "$tmp/four.txt" "$tmp/a" >/dev/null 2>"$tmp/run.err" || fail "replay run: $(tail -3 "$tmp/run.err")"
mpi 2 "${args[@]}" "$tmp/four.txt" "$tmp/b" >/dev/null 2>"$tmp/mpi.err" || fail "replay-mpi: $(tail -3 "$tmp/mpi.err")"
totals() { sed -n 's/^replay: status [^ ]*: ops [0-9]*\/\([0-9]*\) (\([0-9.]*\) %).*/\1 \2/p' "$1"; }
all=$(totals "$tmp/run.err" | awk 'NR == 1 { print $1 }')
[ -n "$all" ] || fail "replay run printed no status line: $(cat "$tmp/run.err")"
totals "$tmp/mpi.err" > "$tmp/mpi.tot"
[ -s "$tmp/mpi.tot" ] || fail "replay-mpi printed no status line: $(cat "$tmp/mpi.err")"
awk -v want=$((all / 2)) '$1 != want { print "total " $1 ", want " want; bad = 1 } $2 > 100 { print "over 100 %"; bad = 1 }
    END { exit bad }' "$tmp/mpi.tot" || fail "replay-mpi status lines: $(cat "$tmp/mpi.tot" | tr '\n' ';')"
echo "ok replay-mpi status: $(wc -l < "$tmp/mpi.tot") lines, each of MPI rank 0's $((all / 2)) ops (replay run's: $all)"
