#!/usr/bin/env bash
# plot_results.sh - `replay plot` on the result fixtures: every expected
# figure exists as a real PNG (magic bytes) and SVG, beside its data and
# gnuplot script; the bar data holds the normalized numbers (0.50 for the
# ssd sequential median, recomputed here); without gnuplot on PATH the
# command fails naming the Debian package, after writing data and scripts.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}" "${SRCDIR:?}"
command -v gnuplot >/dev/null || { echo "SKIP: gnuplot is not installed (Debian package gnuplot-nox)"; exit 77; }
D="$SRCDIR/tests/data/results"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

out="$tmp/plots"
"$REPLAY" plot -o "$out" "$D/hdd-all.json" "$D/ssd" >"$tmp/list"
cat "$tmp/list"
figs="completion-sequential completion-parallel
      latency-s3d.strace-sequential-3 latency-s3d.strace-parallel-2
      timeline-hdd-all-s3d.strace-sequential-3 timeline-ssd-s3d.strace-sequential-3
      timeline-hdd-all-s3d.strace-parallel-2 timeline-ssd-s3d.strace-parallel-2"
n=0
for f in $figs; do
	n=$((n + 1))
	for ext in png svg dat gp; do
		[ -s "$out/$f.$ext" ] || fail "$f.$ext missing or empty"
	done
	[ "$(head -c 8 "$out/$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$f.png is not a PNG"
	grep -q '<svg' "$out/$f.svg" || fail "$f.svg is not an SVG"
	[ ! -e "$out/$f.log" ] || fail "gnuplot complained about $f: $(cat "$out/$f.log")"
	grep -q "^$out/$f.png $out/$f.svg\$" "$tmp/list" || fail "$f not listed on stdout"
done
[ "$(wc -l <"$tmp/list")" -eq "$n" ] || fail "unexpected figures: $(cat "$tmp/list")"

# bar data: trace, then per set normalized median/min/max, then the baseline in s
awk -F'\t' '!/^#/ && NF {
	if ($1 != "\"s3d.strace\"") exit 1
	if ($2 != "1.000000" || $5 != "0.500000" || $6 != "0.450000" || $7 != "0.550000" || $8 != "2.000000") exit 1
	found = 1
} END { exit !found }' "$out/completion-sequential.dat" || fail "completion-sequential.dat numbers: $(cat "$out/completion-sequential.dat")"
awk -F'\t' '!/^#/ && NF { r = $5 + 0; found = 1 } END { exit !(found && r > 0.9677 && r < 0.9678) }' \
	"$out/completion-parallel.dat" || fail "completion-parallel.dat: want 3.0/3.1"
grep -q "^# block 0: 2 processes" "$out/completion-parallel.dat" || fail "parallel bars not grouped by process count"
# latency CDF: hdd write p50 is 200 us (block 2 = write of hdd-all: classes read, write, open)
awk '/^# block 2: class write, hdd-all/ { on = 1; next } /^# block/ { on = 0 } on && $2 == 50 { v = $1 } END { exit v != 200 }' \
	"$out/latency-s3d.strace-parallel-2.dat" || fail "latency CDF data"

# the scripts are reproducible: rerun one by hand
rm "$out/completion-sequential.png"
(cd "$out" && gnuplot completion-sequential.gp) && [ -s "$out/completion-sequential.png" ] || fail "gp script does not rerun"

# --no-render writes scripts and data only
"$REPLAY" plot --no-render -o "$tmp/nr" "$D/hdd-seq.json" >/dev/null
[ -s "$tmp/nr/completion-sequential.gp" ] && [ ! -e "$tmp/nr/completion-sequential.png" ] || fail "--no-render"

# no gnuplot: a clear error naming the package
if PATH=/nonexistent "$REPLAY" plot -o "$tmp/ng" "$D/hdd-seq.json" >/dev/null 2>"$tmp/err"; then
	fail "plot without gnuplot succeeded"
fi
grep -q "gnuplot not found: install the Debian package 'gnuplot-nox'" "$tmp/err" || fail "no gnuplot: $(cat "$tmp/err")"
[ -s "$tmp/ng/completion-sequential.gp" ] || fail "no gnuplot: scripts should still be written"

# a configuration missing from the baseline cannot be normalized: no bars
# for it (hdd-seq has no parallel result), the rest is still plotted
"$REPLAY" plot -o "$tmp/nb" "$D/hdd-seq.json" "$D/ssd-par.json" >"$tmp/nb.list"
[ -s "$tmp/nb/completion-sequential.png" ] || fail "no-baseline: sequential bars missing"
[ ! -e "$tmp/nb/completion-parallel.gp" ] || fail "no-baseline: parallel bars without a baseline"
[ -s "$tmp/nb/latency-s3d.strace-parallel-2.png" ] || fail "no-baseline: latency CDF missing"

# usage errors
if "$REPLAY" plot "$D/hdd-seq.json" 2>"$tmp/err"; then fail "plot without -o succeeded"; fi
grep -q "output directory is required" "$tmp/err" || fail "missing -o message"
if "$REPLAY" plot -o "$tmp/x" "$D/bad-syntax.json" 2>"$tmp/err"; then fail "plot of bad JSON succeeded"; fi
grep -q "bad-syntax.json:4:8:" "$tmp/err" || fail "bad JSON message"
echo "plot ok"
