#!/usr/bin/env bash
# replay-mpi built with MPICH (replay-mpi-mpich, when CMake finds the mpich
# pkg-config file) under MPICH's launcher, mpirun.mpich (hydra; -iface lo
# and UCX on shared memory keep it on this machine): the same data ops and
# bytes per trace rank as replay run, one JSON, MPI world size checked.
. "$SRCDIR/tests/e2e/lib/mpi.sh"
need_strace
MPI_BIN=$BUILDDIR/replay-mpi-mpich
[ -x "$MPI_BIN" ] || { echo "skip: replay-mpi-mpich not built (no MPICH: install mpich libmpich-dev)"; exit 77; }
command -v mpirun.mpich >/dev/null || { echo "skip: mpirun.mpich not installed"; exit 77; }
export UCX_TLS=self,sm UCX_NET_DEVICES=lo
LAUNCH=(timeout 120 mpirun.mpich -iface lo -np)

"$REPLAY" gen lanl-64k -n 8 --objects 8 -o "$tmp/lanl" >/dev/null
compare mpich_lanl 4 -n 8 -- "$tmp/lanl"
jq -e '.mpi.processes == 4 and ([.runs[0].jobs[].barrier_waits] | add) > 0' \
    "$tmp/out.mpich_lanl.mpi/r.json" >/dev/null || fail "MPICH: world size or barriers"
"$REPLAY" gen writers-32 -n 3 --scale 0.2 -o "$tmp/w.txt" >/dev/null
compare mpich_writers 2 --placement cyclic -- "$tmp/w.txt"
echo "ok mpi_mpich"
