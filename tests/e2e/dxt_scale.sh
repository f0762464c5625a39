#!/usr/bin/env bash
# dxt_scale: a 1,024-rank, 300 K-segment DXT dump (generated here in the
# shape of the real fixtures by tests/tools/dxt_gen.py; never committed) is
# read whole, in bounded memory: every rank, segment, synthesized open and
# host is there, and the reader's peak RSS stays under 100 MB (it keeps 32
# bytes per segment; the .ops writer 16 KiB per rank).  Parse time and RSS
# are printed, not asserted.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v /usr/bin/time >/dev/null || { echo "SKIP: /usr/bin/time not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$SRCDIR/tests/tools/dxt_gen.py" 1024 293 >"$tmp/big.dxt.txt"
segs=$(grep -c '^ X_POSIX' "$tmp/big.dxt.txt")
[ "$segs" -eq 300032 ] || { echo "FAIL: generator made $segs segments"; exit 1; }
/usr/bin/time -f "%e %M" -o "$tmp/time" "$REPLAY" convert --quiet "$tmp/big.dxt.txt" -o "$tmp/big.ops"
read -r secs rss <"$tmp/time"
echo "1024 ranks, $segs segments: parsed in $secs s, peak RSS $rss KB"
"$REPLAY" stat --json "$tmp/big.ops" >"$tmp/big.json"
python3 - "$tmp/big.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
blocks = 2 * 1024
assert d["ranks"] == 1024, d["ranks"]
assert d["ops_total"] == 300032 + 2 * blocks, d["ops_total"]
assert d["synthesized"] == {"open": blocks, "close": blocks}
assert d["patterns"]["write"]["requests"] + d["patterns"]["read"]["requests"] == 300032
assert len(d["hosts"]) == 32 and all(h["nranks"] == 32 for h in d["hosts"])
assert [r["pid"] for r in d["per_rank"]] == list(range(1024))
sets = {o["osts"]: o["files"] for o in d["ost_sets"]}
assert sets == {"3,7,11,15": 1, "5": 1024}, sets
PY
case "${BUILDDIR:-}" in
*asan*) echo "sanitizer build: RSS not checked" ;;
*) [ "$rss" -lt 102400 ] || { echo "FAIL: peak RSS $rss KB (bound 100 MB)"; exit 1; } ;;
esac
echo "scale: ok"
