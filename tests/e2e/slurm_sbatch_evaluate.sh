#!/usr/bin/env bash
# slurm_sbatch_evaluate.sh - scripts/replay.sbatch, unmodified, submitted
# with `sbatch --overcommit` to the test Slurm with STEPS=evaluate: the job
# runs scripts/evaluate-storage (parallel mode, 4 processes) on two targets
# and writes its tree under OUTDIR/evaluate.  Checked: the job leaves squeue
# in time, its output file ends "exit status 0", job.txt names the job id,
# node and tasks, and every result's bytes per traced rank equal an
# independent awk reading of the LANL trace (tests/e2e/lanl_sums.awk).
# Then a slow run stopped the way `#SBATCH --signal=B:TERM@60` does it
# (`scancel --batch --signal=TERM`, the batch shell only): the script stops
# evaluate-storage and its replay run, whose result is written marked
# incomplete; the job says so and ends with exit status 143; no process is
# left with a file open in the target.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v jq >/dev/null || { echo "skip: jq is needed to read the JSON"; exit 77; }
# shellcheck source=lib/slurm.sh
. "$SRCDIR/tests/e2e/lib/slurm.sh"
tmp=$(mktemp -d)
# shellcheck disable=SC2016,SC2034  # eval'd by lib/slurm.sh at exit
SLURM_CLEANUP='rm -rf "$tmp"'
fail() { echo "FAIL: $*"; exit 1; }

"$REPLAY" gen lanl-64k -n 4 --objects 8 -o "$tmp/lt" >/dev/null
mkdir "$tmp/d1" "$tmp/d2" "$tmp/out"
touch "$tmp/d1/keep-me"
awk -f "$SRCDIR/tests/e2e/lanl_sums.awk" "$tmp"/lt/*.trace | sort >"$tmp/want"

SLURM_NODE_CPUS=4 slurm_up   # replay.sbatch asks for --ntasks-per-node=4
# the settings of replay.sbatch come from the environment (sbatch passes it)
id=$(cd "$tmp" && TRACE=$tmp/lt TARGET="one=$tmp/d1 two=$tmp/d2" REPLAY=$REPLAY STEPS=evaluate \
	OUTDIR=$tmp/out EVALUATE_STORAGE=$SRCDIR/scripts/evaluate-storage EVALUATE_PROCS=4 \
	EVALUATE_ARGS="--no-sequential --no-drop-caches" \
	slurm_sbatch -N 1 -n 4 --overcommit -o "$tmp/job.out" "$SRCDIR/scripts/replay.sbatch")
[ -n "$id" ] || fail "sbatch printed no job id"
slurm_wait_job "$id" 120 || fail "job $id did not finish"
tail -n 1 "$tmp/job.out" | grep -qx "replay.sbatch: exit status 0" || { cat "$tmp/job.out"; fail "job $id did not end with exit status 0"; }
grep -qx "job: $id" "$tmp/out/job.txt" || fail "job.txt does not name job $id"
grep -qx "nodes: $(hostname)" "$tmp/out/job.txt" || fail "job.txt does not name node $(hostname)"
grep -q "^tasks: 4 " "$tmp/out/job.txt" || fail "job.txt does not say 4 tasks"
[ -s "$tmp/out/evaluate/report.md" ] || fail "no evaluate/report.md"
for t in one two; do
	j=$tmp/out/evaluate/json/$t/lt-parallel-4.json
	[ -s "$j" ] || fail "no $j"
	jq -r '.runs[0].jobs[] | "\(.rank_name) \(.read.io_bytes) \(.write.io_bytes)"' "$j" | sort >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" || { diff "$tmp/want" "$tmp/got"; fail "$t: bytes per rank differ from the trace"; }
	[ "$(jq -r '.incomplete' "$j")" = false ] || fail "$t: result marked incomplete"
done
[ -e "$tmp/d1/keep-me" ] || fail "the target's own file was removed"
[ -z "$(ls -A "$tmp/d2")" ] || fail "scratch left in the target: $(ls -A "$tmp/d2")"
sed "s|^|  | " "$tmp/job.out"
echo "ok sbatch replay.sbatch (STEPS=evaluate): job $id, 2 targets, bytes per rank as the trace ($(wc -l <"$tmp/want") ranks)"

# 4 ranks of 20000 x (4 KiB pwrite + fdatasync): far longer than the test
# shellcheck source=lib/gen_strace.sh
. "$SRCDIR/tests/e2e/lib/gen_strace.sh"
for r in 0 1 2 3; do gen_writes $((500 + r)) /sig/w$r.dat 20000 4096 1 $((r * 10)); done >"$tmp/ck.txt"
mkdir "$tmp/d3"
id=$(cd "$tmp" && TRACE=$tmp/ck.txt TARGET="three=$tmp/d3" REPLAY=$REPLAY STEPS=evaluate \
	OUTDIR=$tmp/out3 EVALUATE_STORAGE=$SRCDIR/scripts/evaluate-storage EVALUATE_PROCS=4 \
	EVALUATE_ARGS="--no-sequential --no-drop-caches" \
	slurm_sbatch -N 1 -n 4 --overcommit -o "$tmp/job3.out" "$SRCDIR/scripts/replay.sbatch")
writing() { find "$tmp/d3/.replay-evaluate" -type f -size +0 2>/dev/null | grep -q .; }
for _ in $(seq 150); do   # until the replay writes data (30 s at most)
	writing && break
	sleep 0.2
done
writing || { cat "$tmp/job3.out"; fail "job $id did not start replaying"; }
timeout 10 scancel --batch --signal=TERM "$id"
slurm_wait_job "$id" 60 || fail "job $id did not end after SIGTERM"
grep -q "stopped by SIGTERM" "$tmp/job3.out" || { cat "$tmp/job3.out"; fail "job $id did not say it was stopped"; }
tail -n 1 "$tmp/job3.out" | grep -qx "replay.sbatch: exit status 143" || { cat "$tmp/job3.out"; fail "job $id: not exit status 143"; }
j=$tmp/out3/evaluate/json/three/ck.txt-parallel-4.json
[ "$(jq -r '.incomplete' "$j")" = true ] || fail "job $id: $j not marked incomplete"
stray=$(slurm_procs_in "$tmp/d3")
[ -z "$stray" ] || fail "job $id: processes left with files open in the target: $stray"
echo "ok SIGTERM to the batch shell: job $id stopped evaluate-storage, partial result marked incomplete, exit status 143"
