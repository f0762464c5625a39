#!/usr/bin/env bash
# slurm_scancel.sh - a replay.sbatch job stopped mid-run keeps partial
# results marked incomplete (issue 14, "Failures and limits").
#   1. `scancel --batch --signal=TERM` signals the batch shell only, as
#      `#SBATCH --signal=B:TERM@60` does before the time limit: the script
#      passes SIGTERM on to srun and replay-mpi, the job ends by itself with
#      "stopped by SIGTERM" and "exit status 143", and the JSON of the
#      interrupted target exists, marked incomplete.
#   2. `scancel --signal=TERM` signals the tasks of the job's steps only:
#      replay-mpi writes its JSON marked incomplete, the script says so.
#   3. plain `scancel` (SIGTERM to all, srun answers with SIGKILL to its
#      tasks, so no result is promised): the job ends and no process is left
#      with a file open in the target.
# The trace (4 ranks of 20000 synced 4 KiB writes) runs far longer than the
# test; each job is stopped once replay-mpi writes data.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
# shellcheck source=lib/slurm.sh
. "$SRCDIR/tests/e2e/lib/slurm.sh"
slurm_need_replay_mpi
tmp=$(mktemp -d)
# shellcheck disable=SC2016,SC2034  # eval'd by lib/slurm.sh at exit
SLURM_CLEANUP='rm -rf "$tmp"'
fail() { echo "FAIL: $*"; [ ! -f "$tmp/$case.out" ] || cat "$tmp/$case.out"; exit 1; }

# 4 ranks of 20000 x (4 KiB pwrite + fdatasync): far longer than the test
# shellcheck source=lib/gen_strace.sh
. "$SRCDIR/tests/e2e/lib/gen_strace.sh"
for r in 0 1 2 3; do gen_writes $((500 + r)) /sig/w$r.dat 20000 4096 1 $((r * 10)); done >"$tmp/ck.txt"
SLURM_NODE_CPUS=4 slurm_up   # replay.sbatch asks for --ntasks-per-node=4

# submit CASE: the job's id; its target is $tmp/CASE
submit() {
	mkdir "$tmp/$1"
	(cd "$tmp" && TRACE=$tmp/ck.txt TARGET="$1=$tmp/$1" REPLAY=$REPLAY REPLAY_MPI=$REPLAY_MPI \
		OUTDIR=$tmp/out-$1 \
		slurm_sbatch -N 1 -n 4 --overcommit -o "$tmp/$1.out" "$SRCDIR/scripts/replay.sbatch")
}
# started CASE ID: wait (30 s at most) until the timed phase writes data
# (a file beneath the target with bytes in it)
started() {
	for _ in $(seq 150); do
		find "$tmp/$1/.replay-job-$2" -type f -size +0 2>/dev/null | grep -q . && return 0
		sleep 0.2
	done
	fail "$1: job $2 did not start replaying within 30 s"
}
incomplete() {   # incomplete CASE: its JSON exists and is marked incomplete
	local j=$tmp/out-$1/json/$1/ck.txt-parallel-4.json
	[ -s "$j" ] || fail "$1: no partial result $j"
	[ "$(jq -r '.incomplete' "$j")" = true ] || fail "$1: the result is not marked incomplete"
}

case=batch-term
id=$(submit "$case")
started "$case" "$id"
timeout 10 scancel --batch --signal=TERM "$id"
slurm_wait_job "$id" 60 || fail "$case: job $id did not end after SIGTERM"
grep -q "stopped by SIGTERM" "$tmp/$case.out" || fail "$case: the job did not say it was stopped"
tail -n 1 "$tmp/$case.out" | grep -qx "replay.sbatch: exit status 143" || fail "$case: not exit status 143"
incomplete "$case"
echo "ok $case: job $id stopped itself after SIGTERM to the batch shell, partial result marked incomplete"

case=steps-term
id=$(submit "$case")
started "$case" "$id"
timeout 10 scancel --signal=TERM "$id"
slurm_wait_job "$id" 60 || fail "$case: job $id did not end after SIGTERM to its steps"
grep -q "replay-mpi stopped by SIGTERM" "$tmp/$case.out" || fail "$case: the job did not say replay-mpi was stopped"
incomplete "$case"
echo "ok $case: job $id, SIGTERM to its tasks, partial result marked incomplete"

case=scancel
id=$(submit "$case")
started "$case" "$id"
timeout 10 scancel "$id"
slurm_wait_job "$id" 60 || fail "$case: job $id did not end after scancel"
stray=$(slurm_procs_in "$tmp/$case")
[ -z "$stray" ] || fail "$case: processes left with files open in the target: $stray"
echo "ok $case: job $id cancelled, no process left in the target"
