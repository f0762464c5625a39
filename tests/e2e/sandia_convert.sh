#!/usr/bin/env bash
# sandia_convert.sh - a libsysio `.sanitized` fixture through the real
# binary: sections become ranks named node.pid, async submits keep their
# iovec/extent lengths, and malformed input fails with file:line.
# Expected numbers are computed here with awk from the fixture text.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}" "${SRCDIR:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the JSON"; exit 77; }
F="$SRCDIR/tests/data/sandia/cth_like.sanitized"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
jq_py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# Per section: "node.pid written requested_read": written = ziovec len() of
# iwritev ENTERs; reads = xtvec len() of ireadx, ziovec len() of ireadv.
want=$(awk '
function lens(s, tag,   t, n) { n = 0; while (match(s, tag "\\(([a-z_]+\\([^()]*\\))*len\\([0-9]+\\)")) {
	t = substr(s, RSTART, RLENGTH); sub(/.*len\(/, "", t); n += t + 0; s = substr(s, RSTART + RLENGTH) } return n }
/^header/ { match($0, /headernode\([0-9.]+\)/); cur = substr($0, RSTART + 11, RLENGTH - 12); order[++nr] = cur }
/tracetype\(ENTER\)/ && /str\(iwritev\)/ { w[cur] += lens($0, "ziovec") }
/tracetype\(ENTER\)/ && /str\(ireadv\)/ { r[cur] += lens($0, "ziovec") }
/tracetype\(ENTER\)/ && /str\(ireadx\)/ { r[cur] += lens($0, "xtvec") }
END { for (i = 1; i <= nr; i++) print order[i], w[order[i]] + 0, r[order[i]] + 0 }' "$F")

"$REPLAY" convert "$F" -o "$tmp/s.ops" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "convert"; }
grep -q ' of sandia ' "$tmp/out" || fail "not detected as sandia: $(cat "$tmp/out")"
got=$("$REPLAY" stat --json "$tmp/s.ops" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for r in d["per_rank"]:
    print(r["name"], r["bytes_written"])')
[ "$got" = "$(echo "$want" | awk '{print $1, $2}')" ] || fail "ranks/written: got [$got] want [$want]"
# requested read bytes, from the dump: len of aread ops per rank
got_r=$("$REPLAY" dump "$tmp/s.ops" | awk '$4 == "aread" { r[$1] += $7 } END { print r[0] + 0, r[1] + 0 }')
[ "$got_r" = "$(echo "$want" | awk '{print $3}' | paste -sd' ')" ] || fail "aread bytes: got [$got_r] want [$want]"
# every await pairs with a submit of the same rank and id
"$REPLAY" dump "$tmp/s.ops" | awk '
$4 ~ /^a(read|write)$/ { split($9, x, /[=,]/); subm[$1 " " x[2]] = 1 }
$4 == "await" { split($9, x, /[=,]/); if (!((($1 " " x[2]) in subm))) { print "unpaired await: " $0; bad = 1 } n++ }
END { if (n != 5) { print "awaits: " n; bad = 1 } exit bad }' || fail "await pairing"
# skipped calls counted by name
sk=$("$REPLAY" stat --json "$tmp/s.ops" | jq_py '",".join(sorted(d["notes"]["skipped"]))')
[ "$sk" = "getdirentries,iodone,vfcntl" ] || fail "skipped: $sk"

# ENTER without EXIT: an error naming the ENTER's line
head -n 4 "$F" > "$tmp/cut.sanitized"
if "$REPLAY" convert "$tmp/cut.sanitized" -o "$tmp/c.ops" 2> "$tmp/err"; then fail "ENTER without EXIT accepted"; fi
grep -q "cut.sanitized:4: ENTER of 'iwritev' has no EXIT" "$tmp/err" || fail "message: $(cat "$tmp/err")"
# a bad timestamp, then the same with --skip-bad
sed '3s/time:(1500)/time:(15x0)/' "$F" > "$tmp/bad.sanitized"
if "$REPLAY" convert "$tmp/bad.sanitized" -o "$tmp/b.ops" 2> "$tmp/err"; then fail "bad time accepted"; fi
grep -q "bad.sanitized:3: expected 'time:(SECS)time:(USECS)'" "$tmp/err" || fail "message: $(cat "$tmp/err")"
# --skip-bad: the bad line and the ENTER it leaves without EXIT are counted
"$REPLAY" convert --skip-bad "$tmp/bad.sanitized" -o "$tmp/b.ops" > "$tmp/out" 2>&1 || fail "--skip-bad: $(cat "$tmp/out")"
[ "$("$REPLAY" stat --json "$tmp/b.ops" | jq_py 'd["notes"]["bad_lines"]')" = 2 ] || fail "bad_lines != 2"
# a trace put after itself (cat T T): its sections again, time going back;
# it doubled every op, now the second header of a process is an error
S3D=$SRCDIR/traces/s3d.sanitized
cat "$S3D" "$S3D" > "$tmp/twice.sanitized"
if "$REPLAY" stat "$tmp/twice.sanitized" > /dev/null 2> "$tmp/err"; then fail "cat T T accepted"; fi
grep -q "twice.sanitized:$(($(wc -l < "$S3D") + 1)): a second header section for headernode(1000.56436) in this file (the first at line 1): a trace file holds one section per process" \
    "$tmp/err" || fail "cat T T: $(cat "$tmp/err")"
echo "sandia_convert: ok"
