#!/usr/bin/env bash
# A damaged gzip-compressed DXT dump is refused with gzip's own verdict
# (a CRC error, data format violated), not with a parse error of the
# garbage text gzip gave before it found out ("X_POSIX line with 4 fields
# where 7 were expected": audit DX).  Damaged copies of a bundled dump, a
# byte changed at one place each: every one gzip refuses is refused with
# gzip's message, exit 1.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v gzip >/dev/null || { echo "SKIP: gzip not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
gzip -dc "$SRCDIR/tests/data/dxt/unet3d_a100.dxt.txt.gz" | gzip -6 -n > "$tmp/good.gz"
"$REPLAY" dump "$tmp/good.gz" > /dev/null || fail "the undamaged copy is refused"
size=$(stat -c %s "$tmp/good.gz")
n=0 garbage=0
for pct in 20 35 50 65 80 90; do
	pos=$((size * pct / 100))
	cp "$tmp/good.gz" "$tmp/bad.gz"
	printf '\x55' | dd of="$tmp/bad.gz" bs=1 seek="$pos" conv=notrunc 2>/dev/null
	printf '\xaa' | dd of="$tmp/bad.gz" bs=1 seek=$((pos + 1)) conv=notrunc 2>/dev/null
	! gzip -t "$tmp/bad.gz" 2>/dev/null || continue     # still whole: nothing to check
	[ "$(gzip -dc "$tmp/bad.gz" 2>/dev/null | wc -c)" -gt 0 ] && garbage=$((garbage + 1))
	rc=0
	"$REPLAY" dump "$tmp/bad.gz" > /dev/null 2> "$tmp/err" || rc=$?
	[ "$rc" = 1 ] || fail "damaged at $pos: exit $rc: $(cat "$tmp/err")"
	grep -q "^replay: 'gzip' failed reading '$tmp/bad.gz' (exit status 1): gzip: .*$tmp/bad.gz: " "$tmp/err" \
		|| fail "damaged at $pos: not gzip's verdict: $(cat "$tmp/err")"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no damaged copy was refused by gzip"
echo "ok $n damaged gzip dumps ($garbage of them decompressing to some text first): refused with gzip's verdict"
