#!/usr/bin/env bash
# gen_traces.sh - the bundled synthetic traces are exactly what the commands
# in traces/regen.sh produce with this replay (so traces/README.md's
# "made by" column is true), and they parse to the formula's figures.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}"
: "${SRCDIR:?SRCDIR must point at the source tree}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0
while read -r line; do
	args=${line#\"\$R\" gen }
	args=${args% --force}
	name=$(sed -E 's/.* -o ([^ ]+).*/\1/' <<<"$args")
	# shellcheck disable=SC2086
	set -- ${args/-o $name/-o $tmp/$name}
	"$REPLAY" gen "$@" >/dev/null
	if diff -r "$SRCDIR/traces/$name" "$tmp/$name" >/dev/null; then
		echo "ok   $name is what 'replay gen $args' writes"
	else
		echo "FAIL traces/$name differs from 'replay gen $args' (run traces/regen.sh and commit)"
		fails=$((fails + 1))
	fi
	n=$((n + 1))
done < <(grep '^"\$R" gen ' "$SRCDIR/traces/regen.sh")
[ "$n" -eq 5 ] || { echo "FAIL: expected 5 gen commands in traces/regen.sh, found $n"; exit 1; }

# lanl-64k: 32 ranks x 50 objects of 64 KiB written; 50 + 50/25 read back
files=$(ls "$SRCDIR/traces/lanl-64k" | grep -c '\.trace$')
[ "$files" -eq 32 ] || { echo "FAIL lanl-64k: $files rank files"; fails=$((fails + 1)); }
w=$(cat "$SRCDIR"/traces/lanl-64k/*.trace | awk '/ SYS_write\(3, /{ sub(/.*\) = /, ""); s += $1 } END { print s }')
r=$(cat "$SRCDIR"/traces/lanl-64k/*.trace | awk '/ SYS_read\(3, /{ sub(/.*\) = /, ""); s += $1 } END { print s }')
[ "$w" -eq $((32 * 50 * 65536)) ] || { echo "FAIL lanl-64k: $w bytes written"; fails=$((fails + 1)); }
[ "$r" -eq $((32 * 52 * 65536)) ] || { echo "FAIL lanl-64k: $r bytes read"; fails=$((fails + 1)); }
# s3d: no read calls at all
if grep -q 'str(iread' "$SRCDIR/traces/s3d.sanitized"; then echo "FAIL s3d has reads"; fails=$((fails + 1)); fi

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "gen_traces: bundled traces match traces/regen.sh"
