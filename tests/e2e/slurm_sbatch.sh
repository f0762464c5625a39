#!/usr/bin/env bash
# slurm_sbatch.sh - scripts/replay.sbatch, unmodified, submitted with
# `sbatch -N 1 -n 4 --overcommit` to the test Slurm with its default steps
# (srun compare): replay-mpi on 4 tasks replays a 4-rank LANL trace on two
# targets, then `replay compare` sets them side by side.  Checked: the job
# leaves squeue in time (polled with a timeout), its output file ends "exit
# status 0", each target's JSON has the bytes per traced rank of an
# independent awk reading of the trace (lanl_sums.awk), is complete and
# records the job id and node; compare.txt names both targets; the targets
# keep their own files and lose the scratch.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
# shellcheck source=lib/slurm.sh
. "$SRCDIR/tests/e2e/lib/slurm.sh"
slurm_need_replay_mpi
tmp=$(mktemp -d)
# shellcheck disable=SC2016,SC2034  # eval'd by lib/slurm.sh at exit
SLURM_CLEANUP='rm -rf "$tmp"'
fail() { echo "FAIL: $*"; [ ! -f "$tmp/job.out" ] || cat "$tmp/job.out"; exit 1; }

"$REPLAY" gen lanl-64k -n 4 --objects 8 -o "$tmp/lt" >/dev/null
mkdir "$tmp/d1" "$tmp/d2" "$tmp/out"
touch "$tmp/d1/keep-me"
awk -f "$SRCDIR/tests/e2e/lanl_sums.awk" "$tmp"/lt/*.trace | sort >"$tmp/want"

SLURM_NODE_CPUS=4 slurm_up   # replay.sbatch asks for --ntasks-per-node=4
id=$(cd "$tmp" && TRACE=$tmp/lt TARGET="one=$tmp/d1 two=$tmp/d2" REPLAY=$REPLAY REPLAY_MPI=$REPLAY_MPI \
	OUTDIR=$tmp/out slurm_sbatch -N 1 -n 4 --overcommit -o "$tmp/job.out" "$SRCDIR/scripts/replay.sbatch")
[ -n "$id" ] || fail "sbatch printed no job id"
slurm_wait_job "$id" 120 || fail "job $id did not finish"
tail -n 1 "$tmp/job.out" | grep -qx "replay.sbatch: exit status 0" || fail "job $id did not end with exit status 0"
grep -qx "job: $id" "$tmp/out/job.txt" || fail "job.txt does not name job $id"
for t in one two; do
	j=$tmp/out/json/$t/lt-parallel-4.json
	[ -s "$j" ] || fail "no $j"
	jq -r '.runs[0].jobs[] | "\(.rank_name) \(.read.io_bytes) \(.write.io_bytes)"' "$j" | sort >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" || { diff "$tmp/want" "$tmp/got"; fail "$t: bytes per rank differ from the trace"; }
	[ "$(jq -r '.incomplete' "$j")" = false ] || fail "$t: result marked incomplete"
	jq -e --arg j "$id" --arg n "$(hostname)" '.mpi.slurm.job_id == $j and .mpi.slurm.nodelist == $n and
		.mpi.processes == 4' "$j" >/dev/null || fail "$t: job $id on $(hostname), 4 processes, not in the result"
	[ -s "$tmp/out/logs/$t/lt-parallel-4.log" ] || fail "$t: no log"
done
{ grep -qw one "$tmp/out/compare.txt" && grep -qw two "$tmp/out/compare.txt"; } || fail "compare.txt does not name both targets"
[ -e "$tmp/d1/keep-me" ] || fail "the target's own file was removed"
[ -z "$(ls -A "$tmp/d2")" ] || fail "scratch left in the target: $(ls -A "$tmp/d2")"
sed 's/^/  /' "$tmp/job.out"
echo "ok sbatch replay.sbatch: job $id, srun replay-mpi on 2 targets, bytes per rank as the trace ($(wc -l <"$tmp/want") ranks), compared"

# TRACE as an strace -ff capture's PREFIX (the script refused it: "no such
# file or directory", exit 2, though replay takes it)
if command -v strace >/dev/null; then
	mkdir "$tmp/ff" "$tmp/ffsrc" "$tmp/d3"
	strace -ff -tt -y -o "$tmp/ff/t" sh -c "dd if=/dev/zero of=$tmp/ffsrc/out bs=1000 count=3 2>/dev/null" 2>/dev/null
	id=$(cd "$tmp" && TRACE=$tmp/ff/t TARGET="one=$tmp/d3" STEPS=srun REPLAY=$REPLAY REPLAY_MPI=$REPLAY_MPI \
		OUTDIR=$tmp/out2 slurm_sbatch -N 1 -n 1 --ntasks-per-node=1 -o "$tmp/job2.out" "$SRCDIR/scripts/replay.sbatch")
	[ -n "$id" ] || fail "sbatch printed no job id (-ff prefix)"
	slurm_wait_job "$id" 120 || fail "job $id did not finish (-ff prefix)"
	tail -n 1 "$tmp/job2.out" | grep -qx "replay.sbatch: exit status 0" || { cat "$tmp/job2.out"; fail "job $id (-ff prefix) did not end with exit status 0"; }
	jq -e '[.runs[0].jobs[].write.io_bytes] | add == 3000' "$tmp/out2/json/one/t-parallel-1.json" >/dev/null ||
		fail "-ff prefix: written bytes $(jq -c '[.runs[0].jobs[].write.io_bytes]' "$tmp/out2/json/one/t-parallel-1.json")"
	echo "ok sbatch replay.sbatch with TRACE an strace -ff PREFIX: job $id, 3000 bytes written as traced"
fi
