#!/usr/bin/env bash
# What replay says of a trace it was given (here: a program that did its
# I/O through io_uring, which a syscall trace cannot show) is said once
# under replay-mpi, by rank 0, not by every MPI process; and the replay
# still runs.
. "$SRCDIR/tests/e2e/lib/mpi.sh"
cat >"$tmp/u.txt" <<'T'
100 12:00:00.000001 openat(AT_FDCWD, "/d/f", O_RDWR|O_CREAT, 0644) = 5 <0.000010>
100 12:00:00.000002 io_uring_enter(4, 1, 0, 0, NULL, 8) = 1 <0.000010>
100 12:00:00.000003 pwrite64(5, "x", 1, 0) = 1 <0.000010>
101 12:00:00.000004 openat(AT_FDCWD, "/d/g", O_RDWR|O_CREAT, 0644) = 5 <0.000010>
101 12:00:00.000005 pwrite64(5, "y", 1, 0) = 1 <0.000010>
T
mkdir "$tmp/tgt"
mpi 2 "${drop[@]}" -o "$tmp/r.json" "$tmp/u.txt" "$tmp/tgt" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "replay-mpi"; }
n=$(grep -c "did I/O through io_uring (1 io_uring_enter calls)" "$tmp/err" || true)
[ "$n" = 1 ] || { cat "$tmp/err"; fail "the warning printed $n times under mpirun -np 2, not once"; }
w=$(jq '[.runs[0].jobs[].write.total_ios] | add' "$tmp/r.json")
[ "$w" = 2 ] || fail "replayed $w writes, not 2"
echo "ok replay-mpi -np 2: the trace's warning once, 2 writes replayed"
