#!/usr/bin/env bash
# slurm_srun.sh - replay-mpi launched by a real Slurm (issue 14):
#   srun --mpi=pmix -O -n 4 replay-mpi -m parallel -n 4 TRACE TARGET
# on the one-node test cluster (tests/e2e/lib/slurm.sh) replays the same ops
# per traced rank as `replay run -n 4`, and writes one result.
#
# The trace is captured at test time from a real MPI-IO program run by the
# same Slurm (srun of strace -ff of tests/e2e/progs/mpiio_ckpt.c).  Both
# replays run under strace -f -y (replay-mpi: each task under its own strace)
# and are compared op for op (kind, file, offset, length per traced process)
# with the capture by the independent reader (tests/tools/strace_oracle.py,
# fidelity_compare.py), plus the final size of every file.  Then: the bytes
# read and written per traced rank in replay-mpi's JSON equal replay run's;
# exactly one process of the job wrote the JSON (one rename onto it in all
# the tasks' straces, no other result file); and the JSON records the job
# id and node list the tasks saw in SLURM_JOB_ID / SLURM_JOB_NODELIST; the
# traced ranks were spread one per task, and each task replayed data ops.
# Then MPICH's build, replay-mpi-mpich, under srun --mpi=pmi2: a world of 4
# and the same bytes per traced rank.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
for c in strace python3 mpicc; do
	command -v "$c" >/dev/null || { echo "skip: $c not installed (scripts/setup)"; exit 77; }
done
# shellcheck source=lib/slurm.sh
. "$SRCDIR/tests/e2e/lib/slurm.sh"
slurm_need_replay_mpi
tmp=$(mktemp -d)
# shellcheck disable=SC2016,SC2034  # eval'd by lib/slurm.sh at exit
SLURM_CLEANUP='rm -rf "$tmp"'
ORACLE=$SRCDIR/tests/tools/strace_oracle.py
COMPARE=$SRCDIR/tests/tools/fidelity_compare.py
fail() { echo "FAIL: $*"; exit 1; }

slurm_up
cap=$tmp/cap
mkdir -p "$cap/w"
mpicc -O1 -o "$tmp/ckpt" "$SRCDIR/tests/e2e/progs/mpiio_ckpt.c"
timeout 120 srun --mpi=pmix -O -n 4 strace -ff -tt -T -y -o "$cap/trace" "$tmp/ckpt" "$cap/w" >/dev/null ||
	fail "capture: srun of the MPI-IO program under strace failed"
find "$cap/w" -type f -printf '%s %p\n' | sort -k2 >"$cap/sizes"
traces=("$cap"/trace.*)
# Open MPI under srun --mpi=pmix keeps its runtime files in Slurm's
# per-step directory (spmix_appdir_UID_JOB.STEP under TmpFS): runtime
# noise, left out by default like /tmp/ompi.*
if grep -q 'spmix_appdir_' "${traces[@]}"; then
	n=$("$REPLAY" stat --json "${traces[@]}" |
		jq '[.filtered.rules[] | select(.rule == "*/spmix_appdir_*") | .ops] | add // 0')
	[ "$n" -gt 0 ] || fail "the capture's spmix_appdir files are not left out by default"
	"$REPLAY" run --dry-run "${traces[@]}" "$tmp" | grep -q 'spmix_appdir_[0-9]' &&
		fail "the plan prepares or names spmix_appdir files"
	echo "ok srun --mpi=pmix capture: $n ops on Slurm's PMIx step directory left out by default"
else
	echo "note: this capture has no spmix_appdir path (Open MPI did not use it): that default is not tested here"
fi
python3 "$ORACLE" --root "$cap/w" "${traces[@]}" >"$tmp/want.json"

# compare NAME TARGET RESULT STRACE...: op for op against the capture
compare() {
	local name=$1 tg=$2 res=$3
	shift 3
	python3 "$ORACLE" --root "$cap/w" --strip "$tg" "$@" >"$tmp/got-$name.json"
	python3 "$COMPARE" "$tmp/want.json" "$tmp/got-$name.json" "$res" \
		--sizes "$cap/sizes" --target "$tg" --root "$cap/w" >"$tmp/cmp-$name.out" ||
		{ cat "$tmp/cmp-$name.out"; fail "$name: replayed ops differ from the capture"; }
	echo "ok $name: $(grep -c '^ok pid' "$tmp/cmp-$name.out") traced ranks op for op, $(tail -n 1 "$tmp/cmp-$name.out" | sed 's/^ok //')"
}

mkdir "$tmp/t-run" "$tmp/t-mpi" "$tmp/res"
timeout 120 strace -f -y -o "$tmp/run.strace" "$REPLAY" run -m parallel -n 4 --keep --quiet \
	-o "$tmp/res/run.json" "${traces[@]}" "$tmp/t-run" >"$tmp/run.out" 2>&1 ||
	{ cat "$tmp/run.out"; fail "replay run failed"; }
compare "replay run -n 4" "$tmp/t-run" "$tmp/res/run.json" "$tmp/run.strace"

# every task under its own strace; each notes the job it saw
# shellcheck disable=SC2016  # expanded by each task's sh
timeout 120 srun --mpi=pmix -O -n 4 sh -c \
	'echo "$SLURM_JOB_ID $SLURM_JOB_NODELIST" >"$0/job.$SLURM_PROCID"; exec strace -f -y -o "$0/mpi-$SLURM_PROCID.strace" "$@"' \
	"$tmp" "$REPLAY_MPI" -m parallel -n 4 --keep -o "$tmp/res/mpi.json" "${traces[@]}" "$tmp/t-mpi" \
	>"$tmp/mpi.out" 2>&1 || { cat "$tmp/mpi.out"; fail "srun replay-mpi failed"; }
compare "srun --mpi=pmix -n 4 replay-mpi" "$tmp/t-mpi" "$tmp/res/mpi.json" "$tmp"/mpi-*.strace

# bytes per traced rank: the same as replay run's
bytes() { jq -r '.runs[0].jobs[] | "\(.rank_name) \(.read.io_bytes) \(.write.io_bytes)"' "$1" | sort; }
bytes "$tmp/res/run.json" >"$tmp/bytes-run"
bytes "$tmp/res/mpi.json" >"$tmp/bytes-mpi"
{ [ -s "$tmp/bytes-run" ] && cmp -s "$tmp/bytes-run" "$tmp/bytes-mpi"; } ||
	{ diff "$tmp/bytes-run" "$tmp/bytes-mpi"; fail "bytes per traced rank differ from replay run's"; }
echo "ok bytes per traced rank as replay run's: $(awk '{ r += $2; w += $3 } END { print NR " ranks, " r " B read, " w " B written" }' "$tmp/bytes-mpi")"

# one result: one process renamed a file onto mpi.json; nothing else in res/
writers=$(grep -l "rename[a-z0-9]*(.*$tmp/res/mpi.json" "$tmp"/mpi-*.strace | wc -l)
[ "$writers" = 1 ] || fail "$writers tasks wrote mpi.json (one expected)"
[ "$(ls "$tmp/res")" = "$(printf 'mpi.json\nrun.json')" ] || fail "other files in the result dir: $(ls "$tmp/res")"
# the job id and node list the tasks saw are in the result
read -r jobid nodes <"$tmp/job.0"
jq -e --arg j "$jobid" --arg n "$nodes" '.mpi.slurm.job_id == $j and .mpi.slurm.nodelist == $n' \
	"$tmp/res/mpi.json" >/dev/null || fail "the result does not record job $jobid on $nodes (.mpi.slurm)"
# the work was spread: block placement, one traced rank per task, and each
# task's own strace shows it replaying data ops beneath the target
jq -e '[.mpi.ranks[].trace_ranks | length] == [1, 1, 1, 1]' "$tmp/res/mpi.json" >/dev/null ||
	fail "placement is not one traced rank per task: $(jq -c '[.mpi.ranks[].trace_ranks]' "$tmp/res/mpi.json")"
for k in 0 1 2 3; do
	python3 "$ORACLE" --root "$cap/w" --strip "$tmp/t-mpi" "$tmp/mpi-$k.strace" |
		jq -e '[.pids[] | length] | add > 0' >/dev/null || fail "task $k replayed no data op"
done
[ "$(jq -r '.incomplete' "$tmp/res/mpi.json")" = false ] || fail "the result is marked incomplete"
echo "ok one JSON (written by one task of 4), recording job $jobid on $nodes; one traced rank per task, each replayed its ops"

# MPICH: the build's replay-mpi-mpich under --mpi=pmi2 (under pmix every
# task would be a world of one): a world of 4 and the same bytes per rank
MPICH_BIN=$(dirname "$REPLAY_MPI")/replay-mpi-mpich
if [ ! -x "$MPICH_BIN" ]; then
	echo "note: $MPICH_BIN not built (no MPICH): its srun --mpi=pmi2 form is not tested"
	exit 0
fi
mkdir "$tmp/t-mpich"
timeout 120 srun --mpi=pmi2 -O -n 4 "$MPICH_BIN" -m parallel -n 4 -o "$tmp/res/mpich.json" \
	"${traces[@]}" "$tmp/t-mpich" >"$tmp/mpich.out" 2>&1 || { cat "$tmp/mpich.out"; fail "srun --mpi=pmi2 replay-mpi-mpich failed"; }
jq -e '.mpi.processes == 4' "$tmp/res/mpich.json" >/dev/null ||
	fail "replay-mpi-mpich under --mpi=pmi2: $(jq '.mpi.processes' "$tmp/res/mpich.json") MPI processes, not 4"
bytes "$tmp/res/mpich.json" >"$tmp/bytes-mpich"
cmp -s "$tmp/bytes-run" "$tmp/bytes-mpich" ||
	{ diff "$tmp/bytes-run" "$tmp/bytes-mpich"; fail "MPICH: bytes per traced rank differ from replay run's"; }
echo "ok srun --mpi=pmi2 -n 4 replay-mpi-mpich: 4 MPI processes, bytes per traced rank as replay run's"
