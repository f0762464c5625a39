#!/usr/bin/env bash
# compare_results.sh - `replay compare` on the hand-made result fixtures of
# tests/data/results (numbers chosen in make-fixtures.py):
#   hdd sequential runs 1.9/2.0/2.2 s, ssd 0.9/1.0/1.1 s -> 0.50 [0.45-0.55], no '~'
#   hdd parallel 3.0/3.1/3.3 s, ssd 2.9/3.0/3.2 s -> 3.0/3.1 = 0.97 [0.94-1.03] ~
# The expected ratios are recomputed here with awk from the run times; the
# JSON output is checked with python3; bad input must fail with a message.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}" "${SRCDIR:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON"; exit 77; }
D="$SRCDIR/tests/data/results"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# median / min / max of run-level completion_ns of a result file, from the JSON
runs_of() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
d=d if isinstance(d,list) else [d]
for r in d:
  if r["options"]["mode"]==sys.argv[2]:
    print(" ".join(str(x["completion_ns"]) for x in r["runs"] if not x.get("incomplete")))' "$1" "$2"
}
stats() { tr ' ' '\n' | sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; print m, v[1], v[NR]}'; }
read -r hs_med hs_min hs_max < <(runs_of "$D/hdd-all.json" sequential | stats)
read -r ss_med ss_min ss_max < <(runs_of "$D/ssd/s3d-sequential-3.json" sequential | stats)
read -r hp_med _ _ < <(runs_of "$D/hdd-all.json" parallel | stats)
read -r sp_med sp_min sp_max < <(runs_of "$D/ssd/s3d-parallel-2.json" parallel | stats)
want_seq=$(awk -v a="$ss_med" -v lo="$ss_min" -v hi="$ss_max" -v b="$hs_med" 'BEGIN { printf "%.2f [%.2f-%.2f]", a/b, lo/b, hi/b }')
want_par=$(awk -v a="$sp_med" -v lo="$sp_min" -v hi="$sp_max" -v b="$hp_med" 'BEGIN { printf "%.2f [%.2f-%.2f]", a/b, lo/b, hi/b }')
[ "$want_seq" = "0.50 [0.45-0.55]" ] || fail "fixture changed: sequential ratio $want_seq"
[ "$want_par" = "0.97 [0.94-1.03]" ] || fail "fixture changed: parallel ratio $want_par"

"$REPLAY" compare "$D/hdd-all.json" "$D/ssd" >"$tmp/out.txt"
cat "$tmp/out.txt"
seq_line=$(grep -E '^s3d\.strace +sequential +3 ' "$tmp/out.txt" | head -n 1)
par_line=$(grep -E '^s3d\.strace +parallel +2 ' "$tmp/out.txt" | head -n 1)
[[ "$seq_line" == *"1.00 [0.95-1.10] 2.000 s"* ]] || fail "baseline cell: $seq_line"
[[ "$seq_line" == *"$want_seq"* ]] || fail "sequential: want '$want_seq' in: $seq_line"
[[ "$seq_line" != *"~"* ]] || fail "sequential difference is outside the spread, no '~' expected: $seq_line"
[[ "$par_line" == *"$want_par ~"* ]] || fail "parallel: want '$want_par ~' in: $par_line"
grep -q "^  ssd: .*(xfs on /dev/nvme0n1)" "$tmp/out.txt" || fail "target description of ssd missing"
# latency: hdd write p50 200 us, p99 298 us; ssd a quarter of that
# (the fixtures carry no bins: every figure pooled from the jobs' own
# percentiles, approximate, starred and said so)
grep -Eq '^s3d\.strace +sequential +3 +write +200\.0 µs\* +298\.0 µs\* +50\.0 µs\* +74\.5 µs\*' "$tmp/out.txt" ||
	fail "write latency line"
grep -q "^\*: approximate, pooled from each job's own percentiles" "$tmp/out.txt" || fail "approximate: no note"

# labels and the order of the arguments: the first one is the baseline
"$REPLAY" compare -L ssd,hdd "$D/ssd" "$D/hdd-all.json" >"$tmp/rev.txt"
want_rev=$(awk -v a="$hs_med" -v b="$ss_med" 'BEGIN { printf "%.2f", a/b }')
grep -Eq "^s3d\.strace +sequential +3 +1\.00 .* $want_rev \[" "$tmp/rev.txt" || fail "reversed baseline: want $want_rev"

# --json: same numbers, structure checked
"$REPLAY" compare --json "$D/hdd-all.json" "$D/ssd" >"$tmp/out.json"
python3 - "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["baseline"] == "hdd-all", d["baseline"]
assert [s["label"] for s in d["sets"]] == ["hdd-all", "ssd"]
assert d["sets"][1]["fstype"] == "xfs" and d["sets"][1]["rotational"] is False
rows = d["rows"]
assert [(r["trace"], r["mode"], r["processes"]) for r in rows] == [("s3d.strace", "sequential", 3), ("s3d.strace", "parallel", 2)]
b, s = rows[0]["results"]
assert b["within_spread"] is None and abs(b["normalized"]["median"] - 1) < 1e-12
assert abs(s["normalized"]["median"] - 0.5) < 1e-9 and abs(s["normalized"]["min"] - 0.45) < 1e-9
assert s["within_spread"] is False and s["runs"] == 3 and s["complete_runs"] == 3
assert abs(s["completion_ns"]["median"] - 1e9) < 1
assert abs(s["lat_ns"]["write"]["p99"] - 74500) < 1e-3
p = rows[1]["results"][1]
assert p["within_spread"] is True and abs(p["normalized"]["median"] - 3.0 / 3.1) < 1e-9
# pooled read p50 = rank 0's op of rank 100 of 100: its list's first
# percentile of that rank, p99.5 = 99.5 us (no bins: not exact)
assert rows[1]["results"][0]["lat_ns"]["read"]["p50"] == 99500
assert rows[1]["results"][0]["lat_ns"]["read"]["exact"] is False
print("json ok")
PY

# --markdown: a targets table and pipe tables
"$REPLAY" compare --markdown "$D/hdd-all.json" "$D/ssd" >"$tmp/out.md"
grep -q '^| ssd  *| /mnt/ssd/replay *| xfs *| /dev/nvme0n1 *| no *| none *|$' "$tmp/out.md" || fail "markdown targets table"
grep -q '0.97 \[0.94-1.03\] \\~' "$tmp/out.md" || fail "markdown within-spread mark"

# an incomplete run is left out and said
# (into a file: grep -q leaving early would make replay's next write fail
# with EPIPE, and the pipeline with it under pipefail)
"$REPLAY" compare "$D/hdd-seq.json" "$D/ssd-seq-incomplete.json" > "$tmp/inc.out"
grep -q '0.50 \[0.45-0.55\] (2/3 runs)' "$tmp/inc.out" || fail "incomplete run not reported"

# bad input: non-zero exit and a message naming the file
expect_err() {
	local want=$1; shift
	if "$REPLAY" compare "$@" >"$tmp/o" 2>"$tmp/e"; then fail "compare $* succeeded"; fi
	grep -qF -- "$want" "$tmp/e" || { cat "$tmp/e"; fail "compare $*: want '$want' on stderr"; }
}
expect_err "replay: cannot open '$tmp/none.json': No such file or directory" "$D/hdd-seq.json" "$tmp/none.json"
expect_err "bad-syntax.json:4:8: invalid JSON:" "$D/hdd-seq.json" "$D/bad-syntax.json"
expect_err "no-runs.json: not a replay result: missing \"runs\" array" "$D/no-runs.json"
printf 'not json at all\n' >"$tmp/garbage.json"
expect_err "garbage.json:1:" "$tmp/garbage.json"
expect_err "no result file given"
expect_err "2 labels given for 1 results" -L a,b "$D/hdd-seq.json"
set +e; "$REPLAY" compare --bogus "$D/hdd-seq.json" >/dev/null 2>"$tmp/e"; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "replay: compare: unknown option '--bogus'" "$tmp/e" || fail "unknown option: rc $rc, $(cat "$tmp/e")"
# results paired but not run alike: a note says what differs (and the JSON);
# results run alike get none
jq '.options.engine = "libaio" | .options.depth = 8 | .options.trace = ["/elsewhere/s3d.strace"]' \
	"$D/hdd-seq.json" >"$tmp/other.json"
"$REPLAY" compare "$D/hdd-seq.json" "$tmp/other.json" >"$tmp/alike.txt"
grep -q "^not run alike (their ratio is not the storage's alone):$" "$tmp/alike.txt" &&
	grep -q "^  s3d.strace sequential 3, other against hdd-seq: trace: .*s3d.strace, here /elsewhere/s3d.strace; engine: .*, here libaio; depth: .*, here 8$" "$tmp/alike.txt" ||
	fail "not run alike: $(tail -3 "$tmp/alike.txt")"
"$REPLAY" compare --markdown "$D/hdd-seq.json" "$tmp/other.json" >"$tmp/alike.md"
grep -q "^\*\*Not run alike\*\* (their ratio is not the storage's alone):$" "$tmp/alike.md" &&
	grep -q "^- s3d.strace sequential 3, other against hdd-seq: .*here libaio" "$tmp/alike.md" ||
	fail "not run alike, Markdown: $(tail -4 "$tmp/alike.md")"
"$REPLAY" compare --json "$D/hdd-seq.json" "$tmp/other.json" >"$tmp/alike.json"
python3 - "$tmp/alike.json" <<'PY' || fail "not run alike: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
cells = [c for r in d["rows"] for c in r["results"]]
assert cells[0]["differs"] is None, cells[0]
assert "engine:" in cells[1]["differs"] and "here libaio" in cells[1]["differs"], cells[1]
PY
"$REPLAY" compare "$D/hdd-seq.json" "$D/hdd-seq.json" >"$tmp/self.txt"
grep -q "not run alike" "$tmp/self.txt" && fail "a result against itself: not run alike"
echo "ok not run alike: said in text and JSON, not for alike results"
# a series stopped between two runs: its complete runs, out of those asked for
jq '.options.repeats = 5' "$D/hdd-seq.json" >"$tmp/cut.json"
"$REPLAY" compare "$tmp/cut.json" >"$tmp/cut.txt"
grep -q "^s3d.strace  *sequential  *3  *1.00 \[.*\] .* (3/5 runs)$" "$tmp/cut.txt" ||
	fail "series cut short: $(grep '^s3d' "$tmp/cut.txt")"
echo "ok a series cut between runs: (3/5 runs)"
# a directory of results from two file systems is not one target: said
mkdir "$tmp/mix"
cp "$D/ssd/s3d-sequential-3.json" "$tmp/mix/"
jq '.target.fstype = "ext4" | .target.device = "/dev/sdz"' "$D/ssd/s3d-parallel-2.json" >"$tmp/mix/p.json"
"$REPLAY" compare "$D/hdd-all.json" "$tmp/mix" >"$tmp/mix.txt"
grep -q "^  mix: .*(ext4 on /dev/sdz); NOT one target: also xfs on /dev/nvme0n1 (.*/mix/s3d-sequential-3.json)$" "$tmp/mix.txt" ||
	fail "mixed targets: $(sed -n 3,4p "$tmp/mix.txt")"
"$REPLAY" compare --json "$D/hdd-all.json" "$tmp/mix" | jq -e '.sets[0].mixed == null and (.sets[1].mixed | test("xfs on /dev/nvme0n1"))' >/dev/null ||
	fail "mixed targets: JSON"
echo "ok a set of two file systems: said"
# a target fifty times faster: its ratios keep two significant digits
# (0.0189 [0.0165-0.0249] printed as 0.02 [0.02-0.02] hid the spread)
jq '.runs[0].completion_ns = 37800000 | .runs[1].completion_ns = 33000000 | .runs[2].completion_ns = 49800000' \
	"$D/hdd-seq.json" >"$tmp/fast.json"
"$REPLAY" compare "$D/hdd-seq.json" "$tmp/fast.json" >"$tmp/fast.txt"
grep -q "^s3d.strace  *sequential  *3  *1.00 \[0.95-1.10\] 2.000 s  *0.019 \[0.017-0.025\]$" "$tmp/fast.txt" ||
	fail "small ratios: $(grep '^s3d' "$tmp/fast.txt")"
echo "ok small ratios: 0.019 [0.017-0.025]"
echo "compare ok"
