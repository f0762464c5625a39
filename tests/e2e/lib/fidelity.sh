# fidelity.sh - sourced by tests/e2e/fidelity_*.sh with FIDELITY_ONLY set.
# Fidelity on real programs captured at test time (issue 11): an MPI-IO
# program under mpirun (strace -f of mpirun, and mpirun of strace -ff), git,
# a 4-thread python writer, sqlite3 transactions, rsync -a, fio psync and
# libaio, dd with O_DIRECT, a checkpoint written through a symlinked
# directory.  Each is replayed with no flags (but --keep, to look at the
# files) in parallel mode on every engine, under strace -f -y of the
# replayer, and compared with an independent reading of the capture
# (tests/tools/strace_oracle.py, not replay's parser): per traced process
# the data ops (kind, file, offset, length) in order and the syncs, then the
# final size of every file the traced program left.  io_uring's data ops are
# invisible to strace: there, the files' final sizes and the bytes per rank
# are checked.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CAPDIR=$tmp/cap
# shellcheck source=lib/captures.sh
. "$SRCDIR/tests/e2e/lib/captures.sh"
ORACLE=$SRCDIR/tests/tools/strace_oracle.py
COMPARE=$SRCDIR/tests/tools/fidelity_compare.py
drop=()
[ "$(id -u)" = 0 ] || drop=(--no-drop-caches)
engines=(sync libaio io_uring)
"$REPLAY" run --dry-run -e io_uring "$SRCDIR/traces/strace-probe.txt" "$tmp" >/dev/null 2>&1 ||
    { echo "note: io_uring unavailable here: $("$REPLAY" run --dry-run -e io_uring "$SRCDIR/traces/strace-probe.txt" "$tmp" 2>&1 | tail -1)"; engines=(sync libaio); }

fail=0
check() {   # check NAME MODE ENGINE
    local name=$1 mode=$2 eng=$3 d=$CAPDIR/$1 tg=$tmp/tgt
    local traces=("$d"/trace*)
    [ -f "$d/trace" ] && traces=("$d/trace")
    rm -rf "$tg"; mkdir "$tg"
    local q=()
    [ "$eng" = sync ] || q=(-q 8)      # room for the traced overlap
    # LeakSanitizer cannot run under ptrace: leaks are checked by the other tests
    if ! ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -y -o "$tmp/replay.strace" "$REPLAY" run -m "$mode" -e "$eng" "${q[@]}" --keep \
            "${drop[@]}" -o "$tmp/r.json" "${traces[@]}" "$tg" >"$tmp/run.out" 2>&1; then
        echo "FAIL $name -m $mode -e $eng: replay run failed"; tail -5 "$tmp/run.out"; fail=1; return
    fi
    python3 "$ORACLE" --root "$d/w" "${traces[@]}" >"$tmp/want.json"
    python3 "$ORACLE" --root "$d/w" --strip "$(cd "$tg" && pwd)" "$tmp/replay.strace" >"$tmp/got.json"
    local nd=() sz=(--sizes "$d/sizes" --target "$tg" --root "$d/w")
    [ "$eng" = io_uring ] && nd=(--nodata)
    # sequential: each rank alone on a fresh target, the last one's files left
    [ "$mode" = sequential ] && sz=()
    if ! python3 "$COMPARE" "$tmp/want.json" "$tmp/got.json" "$tmp/r.json" "${nd[@]}" \
            "${sz[@]}" >"$tmp/cmp.out"; then
        echo "FAIL $name -m $mode -e $eng:"; cat "$tmp/cmp.out"; fail=1; return
    fi
    short=$(jq '[.runs[].jobs[].read.short_ios // 0] | add // 0' "$tmp/r.json")
    [ "$short" = 0 ] || { echo "FAIL $name -m $mode -e $eng: $short short reads"; fail=1; return; }
    # libaio traces keep their overlap (fio --iodepth=8): more than one in flight
    if [ "$name" = fio_libaio ] && [ "$eng" != sync ]; then
        mi=$(jq '[.runs[0].jobs[].max_inflight] | max' "$tmp/r.json")
        [ "$mi" -gt 1 ] || { echo "FAIL $name -e $eng: max_inflight $mi, the traced overlap lost"; fail=1; return; }
    fi
    echo "ok $name -m $mode -e $eng: $(grep -c '^ok pid' "$tmp/cmp.out") ranks op for op, $(tail -1 "$tmp/cmp.out" | sed 's/^ok //')"
}

for name in $FIDELITY_ONLY; do
    rc=0; capture "$name" >"$tmp/cap.out" 2>&1 || rc=$?
    if [ "$rc" = 77 ]; then echo "skip $name: $(tail -1 "$tmp/cap.out")"; continue; fi
    [ "$rc" = 0 ] || { echo "FAIL capture $name"; cat "$tmp/cap.out"; fail=1; continue; }
    for eng in "${engines[@]}"; do check "$name" parallel "$eng"; done
    case $name in mpi_*) check "$name" sequential sync ;; esac
done
exit $fail
