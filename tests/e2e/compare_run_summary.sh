#!/usr/bin/env bash
# compare_run_summary.sh - `replay compare` of a real json+ result prints
# the same pooled p50 and p99 per class as the run's own summary (every op
# of every run): json+ writes each job's histogram bins into runs[].jobs[],
# and compare pools them as the summary does.  Plain json keeps the job
# classes without bins, and a single job's own percentiles come back
# exactly from its percentile list alone.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}" "${SRCDIR:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir "$tmp/tgt"
T="$SRCDIR/traces/lanl-64k"

"$REPLAY" run --quiet -n 8 -r 3 --output-format json+ -o "$tmp/r.json" "$T" "$tmp/tgt" >"$tmp/sum.txt"
"$REPLAY" compare "$tmp/r.json" >"$tmp/cmp.txt"
cat "$tmp/sum.txt" "$tmp/cmp.txt"

# summary: "read  416  26.0 MiB  1428  22849  8.9 µs  11.2 µs  49.4 µs  7.80 ms"
#          (open/close have no MiB/s and IOPS): p50 and p99 from the end
sum_pct() { awk -v c="$1" '/^class +ops/ { on = 1; next } on && $1 == c { print $(NF-7), $(NF-6), $(NF-3), $(NF-2); exit }' "$tmp/sum.txt"; }
# compare: "lanl-64k  parallel  8  read  8.9 µs  49.4 µs"
cmp_pct() { awk -v c="$2" '$1 == "lanl-64k" && $4 == c { print $(NF-3), $(NF-2), $(NF-1), $NF; exit }' "$1"; }
n=0
for c in read write open close; do
	s=$(sum_pct "$c"); k=$(cmp_pct "$tmp/cmp.txt" "$c")
	[ -n "$s" ] || fail "no $c line in the run's summary"
	[ "$s" = "$k" ] || fail "$c: run summary p50/p99 '$s', compare '$k'"
	n=$((n + 1))
done
echo "ok: compare = run summary for $n classes"

python3 - "$tmp/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    for j in r["jobs"]:
        for c in ("read", "write"):
            lat = j[c]["lat_ns"]
            assert "bins" in lat and sum(lat["bins"].values()) == lat["N"], (c, lat.keys())
PY

# plain json: no bins in the jobs; one job: compare gives back its own p50/p99
"$REPLAY" run --quiet -n 1 -o "$tmp/one.json" "$T" "$tmp/tgt" >"$tmp/one.txt"
"$REPLAY" compare --json "$tmp/one.json" >"$tmp/one-cmp.json"
python3 - "$tmp/one.json" "$tmp/one-cmp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); c = json.load(open(sys.argv[2]))
job = d["runs"][0]["jobs"][0]
got = c["rows"][0]["results"][0]["lat_ns"]
for cl in ("read", "write"):
    lat = job[cl]["lat_ns"]
    assert "bins" not in lat, "plain json grew bins"
    for p, key in (("p50", "50.000000"), ("p99", "99.000000")):
        assert got[cl][p] == lat["percentile"][key], (cl, p, got[cl][p], lat["percentile"][key])
print("ok: one job's own p50/p99 back exactly:",
      {cl: (got[cl]["p50"], got[cl]["p99"]) for cl in ("read", "write")})
PY
