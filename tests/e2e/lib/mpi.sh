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
LAUNCH=(mpirun --oversubscribe -np)
# mpi NP ARGS...: mpirun -np NP replay-mpi ARGS...
mpi() { local np=$1; shift; timeout 120 mpirun --oversubscribe -np "$np" "$MPI_BIN" "$@"; }

need_strace() {
    command -v strace >/dev/null || { echo "skip: strace not installed"; exit 77; }
    ORACLE=$SRCDIR/tests/tools/strace_oracle.py
    RCMP=$SRCDIR/tests/tools/rank_ops_compare.py
}

# traced NAME CMD...: run CMD under strace -f -y into $tmp/NAME.*
traced() {
    local name=$1; shift
    rm -rf "$tmp/tgt"; mkdir "$tmp/tgt" "$tmp/out.$name"
    local rc=0
    timeout 180 strace -f -y -o "$tmp/$name.strace" "$@" >"$tmp/$name.stdout" 2>"$tmp/$name.err" || rc=$?
    [ "$rc" = 0 ] || { cat "$tmp/$name.err" >&2; fail "$name: exit $rc"; }
    python3 "$ORACLE" --strip "$(cd "$tmp/tgt" && pwd)" "$tmp/$name.strace" >"$tmp/$name.ops.json"
}

# compare LABEL NP MPI_ARGS -- TRACE...: replay run vs LAUNCH NP MPI_BIN (mpirun -np NP
# replay-mpi), both under strace -f -y: same data ops and bytes per trace rank,
# one JSON and one summary
compare() {
    local label=$1 np=$2; shift 2
    local margs=() rargs=()
    while [ "$1" != -- ]; do
        case $1 in --placement) margs+=("$1" "$2"); shift ;; *) margs+=("$1"); rargs+=("$1") ;; esac
        shift
    done
    shift
    traced "$label.run" "$REPLAY" run --quiet --keep "${drop[@]}" "${rargs[@]}" \
        -o "$tmp/out.$label.run/r.json" "$@" "$tmp/tgt"
    traced "$label.mpi" "${LAUNCH[@]}" "$np" "$MPI_BIN" --keep "${drop[@]}" "${margs[@]}" \
        -o "$tmp/out.$label.mpi/r.json" "$@" "$tmp/tgt"
    python3 "$RCMP" "$tmp/$label.run.ops.json" "$tmp/out.$label.run/r.json" \
        "$tmp/$label.mpi.ops.json" "$tmp/out.$label.mpi/r.json" >"$tmp/$label.cmp" ||
        { cat "$tmp/$label.cmp"; fail "$label: replay-mpi differs from replay run"; }
    # one result: one JSON (no temporary left by another rank), one summary
    [ "$(ls "$tmp/out.$label.mpi")" = r.json ] || fail "$label: files $(ls "$tmp/out.$label.mpi")"
    [ "$(grep -c '^run 1:' "$tmp/$label.mpi.stdout")" = 1 ] || fail "$label: not one summary"
    [ "$(jq .mpi.processes "$tmp/out.$label.mpi/r.json")" = "$np" ] || fail "$label: mpi.processes"
    [ "$(jq '.runs[0].jobs | length' "$tmp/out.$label.mpi/r.json")" = \
      "$(jq '.runs[0].jobs | length' "$tmp/out.$label.run/r.json")" ] || fail "$label: job count"
    echo "ok $label (-np $np ${margs[*]}): $(grep -c '^ok' "$tmp/$label.cmp") ranks op for op"
}

