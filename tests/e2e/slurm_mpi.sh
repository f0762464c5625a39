#!/usr/bin/env bash
# slurm_mpi.sh - the test cluster runs real MPI jobs the way replay-mpi is
# launched (README "On a cluster", scripts/replay.sbatch): a 4-task program
# under `srun -O -n 4` with Open MPI (--mpi=pmix) and MPICH (--mpi=pmi2)
# forms one world of size 4 whose ranks are Slurm's task ids and pass a
# value around a ring; and `sbatch --overcommit` of a job whose srun step
# does the same.  Checked by awk on what the tasks print.
set -euo pipefail
: "${SRCDIR:?}"
# shellcheck source=lib/slurm.sh
. "$SRCDIR/tests/e2e/lib/slurm.sh"
tmp=$(mktemp -d)
# shellcheck disable=SC2016,SC2034  # eval'd by lib/slurm.sh at exit
SLURM_CLEANUP='rm -rf "$tmp"'
prog=$SRCDIR/tests/e2e/progs/mpi_world.c
fail=0

# world OUTFILE N: N lines, ranks 0..N-1 once each, size N, rank == SLURM_PROCID,
# each rank got its left neighbour's rank
world() {
	awk -v n="$2" '
	$1 == "rank" { r = $2; if (seen[r]++) bad = bad " rank " r " twice";
		if ($4 != n) bad = bad " rank " r " size " $4;
		if ($8 != r) bad = bad " rank " r " procid " $8;
		if ($10 != (r + n - 1) % n) bad = bad " rank " r " ring " $10; k++ }
	END { if (k != n) bad = bad " " k " tasks"; if (bad != "") { print "bad:" bad; exit 1 } }' "$1"
}

compiled=()
if command -v mpicc.openmpi >/dev/null || command -v mpicc >/dev/null; then
	cc=$(command -v mpicc.openmpi || command -v mpicc)
	"$cc" -O1 -o "$tmp/world-ompi" "$prog" && compiled+=(ompi:pmix)
fi
if command -v mpicc.mpich >/dev/null; then
	mpicc.mpich -O1 -o "$tmp/world-mpich" "$prog" && compiled+=(mpich:pmi2)
fi
[ ${#compiled[@]} -gt 0 ] || slurm_skip "no MPI compiler (scripts/setup installs libopenmpi-dev, libmpich-dev)"

slurm_up
for c in "${compiled[@]}"; do
	impl=${c%:*} plugin=${c#*:}
	if ! timeout 60 srun --mpi="$plugin" -O -n 4 "$tmp/world-$impl" >"$tmp/$impl.out" 2>"$tmp/$impl.err"; then
		echo "FAIL srun --mpi=$plugin ($impl) failed"; cat "$tmp/$impl.err"; fail=1; continue
	fi
	if world "$tmp/$impl.out" 4; then
		echo "ok srun --mpi=$plugin -O -n 4 ($impl): one world of 4, ranks = SLURM_PROCID, ring passed"
	else
		echo "FAIL srun --mpi=$plugin ($impl): $(world "$tmp/$impl.out" 4)"; cat "$tmp/$impl.out"; fail=1
	fi
done

# the same from a batch job; the script reports its srun's status itself
# (no accounting, so no sacct)
cat >"$tmp/job.sh" <<JOB
#!/bin/bash
srun --mpi=pmix "$tmp/world-ompi"
echo "job: srun exit \$? job \$SLURM_JOB_ID nodes \$SLURM_JOB_NODELIST"
JOB
if [ -x "$tmp/world-ompi" ]; then
	id=$(slurm_sbatch -N 1 -n 4 --overcommit -o "$tmp/job.out" "$tmp/job.sh")
	if ! slurm_wait_job "$id" 60; then
		fail=1
	elif ! grep -q "^job: srun exit 0 job $id nodes $(hostname)\$" "$tmp/job.out" || ! world "$tmp/job.out" 4; then
		echo "FAIL sbatch job $id:"; cat "$tmp/job.out"; fail=1
	else
		echo "ok sbatch -n 4 --overcommit: job $id ran srun --mpi=pmix, one world of 4"
	fi
fi
exit $fail
