#!/usr/bin/env bash
# scripts/replay.sbatch's compare step when a target has no result (the job
# was stopped, or its srun step failed, before that target): it compares the
# targets that have results, labelled with their own names, says which are
# missing, and the job exits 0 (it passed every target's name as a label and
# replay compare refused: "2 labels given for 1 results").  No Slurm needed:
# STEPS=compare runs only that step.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/a" "$tmp/b" "$tmp/t" "$tmp/out/json/ssd"
"$REPLAY" run --no-drop-caches --quiet -o "$tmp/out/json/ssd/strace-probe.txt-parallel-1.json" \
	"$SRCDIR/traces/strace-probe.txt" "$tmp/t" >/dev/null
rc=0
TRACE="$SRCDIR/traces/strace-probe.txt" TARGET="ssd=$tmp/a hdd=$tmp/b" STEPS=compare \
	OUTDIR="$tmp/out" REPLAY="$REPLAY" bash "$SRCDIR/scripts/replay.sbatch" >"$tmp/log" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "exit $rc: $(cat "$tmp/log")"
grep -q "compare: no result for 1 of the 2 targets: comparing ssd" "$tmp/log" || fail "$(cat "$tmp/log")"
[ -s "$tmp/out/compare.txt" ] && [ -s "$tmp/out/compare.md" ] || fail "no comparison: $(cat "$tmp/log")"
grep -q "ssd" "$tmp/out/compare.txt" || fail "compare.txt: $(cat "$tmp/out/compare.txt")"
echo "ok replay.sbatch compare with 1 of 2 targets' results: exit 0, compared ssd"
