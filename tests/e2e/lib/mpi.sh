# mpi.sh - sourced by tests/e2e/mpi_*.sh (replay-mpi under mpirun).
# Skips (77) with the reason when replay-mpi was not built or mpirun is
# missing.  Loopback only, root allowed, oversubscribed; every launch under
# timeout.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}" "${BUILDDIR:?}"
MPI_BIN=$BUILDDIR/replay-mpi
[ -x "$MPI_BIN" ] || { echo "skip: replay-mpi not built (CMake found no MPI: install openmpi-bin libopenmpi-dev)"; exit 77; }
command -v mpirun >/dev/null || { echo "skip: mpirun not installed"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
# Open MPI's own allocations outlive MPI_Finalize: LeakSanitizer would
# report them in every process (replay's leaks are checked by replay run)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d /tmp/replay-e2e-mpi-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
drop=()
[ "$(id -u)" = 0 ] || drop=(--no-drop-caches)
# mpi NP ARGS...: mpirun -np NP replay-mpi ARGS...
mpi() { local np=$1; shift; timeout 120 mpirun --oversubscribe -np "$np" "$MPI_BIN" "$@"; }
