#!/usr/bin/env bash
# replay-mpi's failures (issue 14): a rank whose replay fails stops the job
# with a message naming the MPI rank, the host, the trace file and line and
# the cause, a non-zero exit, and no process left behind; more MPI
# processes than trace ranks and bad --placement/--target values are clear
# errors.
. "$SRCDIR/tests/e2e/lib/mpi.sh"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"

# ranks 0-2 write for a while; rank 3 reads back 4096 bytes the trace says
# it read from a file it had just created with 4096 bytes: the replay gets
# 0 bytes at that offset, a mismatch that stops the run
{ gen_writes 601 /k/a.dat 20000 4096 1; gen_writes 602 /k/b.dat 20000 4096 1 50
  gen_writes 603 /k/c.dat 20000 4096 1 50
  printf '604  10:00:00.000100 openat(AT_FDCWD, "/k/d.dat", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>\n'
  printf '604  10:00:00.000200 pwrite64(3, "xx"..., 4096, 0) = 4096 <0.000010>\n'
  printf '604  10:00:00.000300 pread64(3, "xx"..., 4096, 8192) = 4096 <0.000010>\n'
  printf '604  10:00:00.000400 close(3) = 0 <0.000010>\n'; } >"$tmp/fail.txt"
line=$(grep -n pread64 "$tmp/fail.txt" | cut -d: -f1)
mkdir "$tmp/tgt"
rc=0
mpi 4 "${drop[@]}" -o "$tmp/f.json" "$tmp/fail.txt" "$tmp/tgt" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] || fail "a failed rank exited 0"
[ "$rc" != 124 ] || fail "hung (timeout)"
host=$(hostname)
grep -q "MPI rank 3 on $host: rank 3 (process 3, worker pid [0-9]*) failed: read '/k/d.dat' (op 2, trace line $line): 0 bytes where the trace moved 4096 (trace $tmp/fail.txt)" "$tmp/err" ||
    { cat "$tmp/err"; fail "message"; }
sleep 0.5
left=$(pgrep -f "$tmp/fail.txt" || true)
[ -z "$left" ] || { ps -o pid,ppid,stat,args -p $left; fail "processes left: $left"; }
echo "ok failing rank: exit $rc, $(grep -c 'MPI rank 3' "$tmp/err") message naming MPI rank 3, trace line $line; no process left"

# the same ranks from two files: the failing line is in the first, which
# the message names with it (it named the last TRACE argument, then none)
grep -v '^60[34] ' "$tmp/fail.txt" > "$tmp/two-b.txt"
grep '^60[34] ' "$tmp/fail.txt" > "$tmp/two-a.txt"
line=$(grep -n pread64 "$tmp/two-a.txt" | cut -d: -f1)
rm -rf "$tmp/tgt" && mkdir "$tmp/tgt"
rc=0
mpi 4 "${drop[@]}" "$tmp/two-a.txt" "$tmp/two-b.txt" "$tmp/tgt" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "two files: exit $rc"
grep -Eq "MPI rank [0-9] on $host: rank [0-9] \(process [0-9], worker pid [0-9]*\) failed: read '/k/d.dat' \(op 2, trace line $line of $tmp/two-a.txt\): 0 bytes where the trace moved 4096$" "$tmp/err" ||
    { cat "$tmp/err"; fail "two files: message"; }
echo "ok two trace files: the failure names the rank, the line and its file"

# more MPI processes than trace ranks
"$REPLAY" gen lanl-64k -n 2 --objects 2 -o "$tmp/lanl" >/dev/null
rc=0
mpi 3 "${drop[@]}" "$tmp/lanl" "$tmp/tgt" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "3 MPI processes for 2 ranks: exit $rc"
grep -q "3 MPI processes for 2 trace ranks to replay" "$tmp/err" || { cat "$tmp/err"; fail "too-many message"; }
echo "ok 3 MPI processes for 2 trace ranks: exit $rc, said why"

for bad in "--placement round" "--target nfs"; do
    rc=0
    # shellcheck disable=SC2086
    mpi 2 $bad "$tmp/lanl" "$tmp/tgt" >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "$bad: exit $rc"
    grep -q "invalid ${bad%% *}" "$tmp/err" || { cat "$tmp/err"; fail "$bad: message"; }
    echo "ok $bad: exit $rc, $(grep -m1 invalid "$tmp/err" | sed 's/.*: invalid/invalid/')"
done
# a sequential replay is one node's job
rc=0
mpi 2 -m sequential "$tmp/lanl" "$tmp/tgt" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] && grep -q "use 'replay run'" "$tmp/err" || { cat "$tmp/err"; fail "-m sequential"; }
[ -z "$(ls "$tmp/tgt")" ] || fail "files left in the target: $(ls "$tmp/tgt")"
echo "ok mpi_fail"
