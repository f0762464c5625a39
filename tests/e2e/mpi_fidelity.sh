#!/usr/bin/env bash
# replay-mpi under mpirun against replay run on the same traces (issue 14):
# a generated strace trace, a LANL trace (barriers, hosts) and a real MPI
# capture made now (mpirun -np 4 of an MPI-IO program under strace -ff).
# Both replays run under strace -f -y; an independent reading of those
# (tests/tools/strace_oracle.py) must show, per traced rank, the same data
# ops in the same order and the same bytes (tests/tools/rank_ops_compare.py),
# and for the capture the ops of the capture itself (fidelity_compare.py).
# Rank 0 alone writes the one JSON and the one summary; 2 MPI processes x 4
# trace ranks (forked workers under MPI) and --placement cyclic too.
. "$SRCDIR/tests/e2e/lib/mpi.sh"
need_strace

"$REPLAY" gen writers-32 -n 3 --scale 0.2 -o "$tmp/w.txt" >/dev/null
compare writers 4 -- "$tmp/w.txt"

"$REPLAY" gen lanl-64k -n 8 --objects 8 -o "$tmp/lanl" >/dev/null
compare lanl4 4 -n 4 -- "$tmp/lanl"
compare lanl2x4 2 -n 8 -- "$tmp/lanl"
compare lanl_cyclic 4 -n 8 --placement cyclic -- "$tmp/lanl"
jq -e '.mpi.ranks[0].trace_ranks == [0,4] and .mpi.placement == "cyclic"' \
    "$tmp/out.lanl_cyclic.mpi/r.json" >/dev/null || fail "cyclic placement not in the JSON"
jq -e '[.runs[0].jobs[].barrier_waits] | add > 0' "$tmp/out.lanl2x4.mpi/r.json" >/dev/null ||
    fail "LANL barriers not met across MPI processes"

# a real MPI capture, made now
CAPDIR=$tmp/cap
. "$SRCDIR/tests/e2e/lib/captures.sh"
rc=0; capture mpi_ff >"$tmp/cap.out" 2>&1 || rc=$?
if [ "$rc" = 77 ]; then
    echo "note: no MPI capture: $(tail -1 "$tmp/cap.out")"
else
    [ "$rc" = 0 ] || { cat "$tmp/cap.out"; fail "capture mpi_ff"; }
    d=$CAPDIR/mpi_ff
    compare capture 4 -- "$d"/trace*
    python3 "$ORACLE" --root "$d/w" "$d"/trace* >"$tmp/want.json"
    python3 "$ORACLE" --root "$d/w" --strip "$(cd "$tmp/tgt" && pwd)" "$tmp/capture.mpi.strace" >"$tmp/got.json"
    python3 "$SRCDIR/tests/tools/fidelity_compare.py" "$tmp/want.json" "$tmp/got.json" \
        "$tmp/out.capture.mpi/r.json" --sizes "$d/sizes" --target "$tmp/tgt" --root "$d/w" \
        >"$tmp/fid.out" || { cat "$tmp/fid.out"; fail "replay-mpi of the MPI capture differs from it"; }
    echo "ok capture: $(grep -c '^ok pid' "$tmp/fid.out") ranks op for op against the capture"
fi
echo "ok mpi_fidelity"
