#!/usr/bin/env bash
# --status-interval's line counts the ops that are replayed: on a trace whose
# ops are mostly on /etc (left out by the default filter) the total is the
# "replayed" count of the filtered line, not every op of the trace; with
# -r 2 each line names its run ("run 1/2:", "run 2/2:"), with -r 1 none.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/replay-e2e-status.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# 302 ops on /etc/passwd, then 14 on out.dat over 1.3 s of traced time
awk 'BEGIN {
	print "4242 10:00:00.000000 openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY) = 3 <0.000010>"
	for (i = 0; i < 300; i++) printf "4242 10:00:00.%06d read(3, \"x\"..., 64) = 64 <0.000001>\n", 10 + i
	print "4242 10:00:00.001000 close(3) = 0 <0.000005>"
	print "4242 10:00:00.002000 openat(AT_FDCWD, \"/data/out.dat\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000020>"
	for (i = 0; i < 12; i++) printf "4242 10:00:%09.6f pwrite64(3, \"abc\"..., 4096, %d) = 4096 <0.000050>\n", 0.1 * (i + 1), i * 4096
	print "4242 10:00:01.300000 close(3) = 0 <0.000005>" }' >"$tmp/slow.txt"
mkdir "$tmp/t"
replayed=$("$REPLAY" run --dry-run "$tmp/slow.txt" "$tmp/t" | sed -n 's/^filtered: .*(\([0-9]*\) replayed).*/\1/p')
[ "$replayed" = 14 ] || fail "dry run: '$replayed' ops replayed, expected 14"

# status lines: "run K/R: " when given, then ops DONE/TOTAL
check() {
	local log=$1 runs=$2
	awk -v total="$replayed" -v runs="$runs" '
		/^replay: status / {
			n++
			if (runs > 1) {
				if (!match($0, /Z: run [0-9]+\/[0-9]+: ops /)) { print "FAIL: no run number: " $0; exit 1 }
				split(substr($0, RSTART + 7), rr, "[/:]")
				if (rr[2] != runs) { print "FAIL: run of " rr[2] ", not " runs ": " $0; exit 1 }
				seen[rr[1]] = 1
			} else if ($0 ~ / run [0-9]/) { print "FAIL: a run number with -r 1: " $0; exit 1 }
			if (!match($0, /ops [0-9]+\/[0-9]+ /)) { print "FAIL: no ops: " $0; exit 1 }
			split(substr($0, RSTART + 4, RLENGTH - 5), o, "/")
			if (o[2] != total || o[1] + 0 > o[2] + 0) { print "FAIL: ops " o[1] "/" o[2] ", " total " replayed: " $0; exit 1 }
		}
		END {
			if (!n) { print "FAIL: no status line"; exit 1 }
			for (k = 1; k <= runs && runs > 1; k++) if (!seen[k]) { print "FAIL: no line of run " k; exit 1 }
		}' "$log"
}
"$REPLAY" run --timing trace --status-interval 0.3 --no-drop-caches "$tmp/slow.txt" "$tmp/t" >"$tmp/one.log" 2>&1 ||
	fail "run: $(cat "$tmp/one.log")"
check "$tmp/one.log" 1 || { cat "$tmp/one.log"; exit 1; }
"$REPLAY" run --timing trace --status-interval 0.3 --no-drop-caches -r 2 "$tmp/slow.txt" "$tmp/t" >"$tmp/two.log" 2>&1 ||
	fail "run -r 2: $(cat "$tmp/two.log")"
check "$tmp/two.log" 2 || { cat "$tmp/two.log"; exit 1; }
echo "ok: status lines count the $replayed replayed ops (of 316), name the run with -r 2"
