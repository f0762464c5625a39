#!/usr/bin/env bash
# Tables padded by display columns, not bytes: a cell holding "µs" (2 bytes,
# 1 column) lines up with the ASCII ones.  Checked in the run's class and
# fidelity tables, `replay compare`'s tables (text and Markdown) and the
# --dry-run file table (a file name with non-ASCII characters): with every
# µ and each other non-ASCII character made one ASCII byte, the rows of a
# table are as long as its header (or end where the header's columns end).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/replay-e2e-width.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# one byte per character: each UTF-8 lead byte with its continuation bytes
# becomes 'x' (the characters used here are all one column wide)
cols() { LC_ALL=C sed -e 's/[\xc2-\xdf][\x80-\xbf]/x/g' -e 's/[\xe0-\xef][\x80-\xbf][\x80-\xbf]/x/g'; }

# the rows of the table from the line matching $1 (its header) up to a line
# matching $2 (not included) all as long as the header
same_len() {
	awk -v from="$1" -v to="$2" -v what="$3" '
		$0 ~ from && !on { on = 1; n = length($0); next }
		on && ($0 ~ to) { exit }
		on && /^\|---/ { next }
		on && length($0) != n { printf "FAIL: %s: row of %d columns, header %d:\n%s\n", what, length($0), n, $0; bad = 1 }
		on { rows++ }
		END { if (!rows) { printf "FAIL: %s: no rows\n", what; exit 1 } exit bad }'
}

mkdir "$tmp/t"
"$REPLAY" run --no-drop-caches "$SRCDIR/traces/strace-probe.txt" "$tmp/t" >"$tmp/run.txt" 2>&1
grep -q 'µs' "$tmp/run.txt" || fail "no µs in the run's output (nothing tested):$(cat "$tmp/run.txt")"
cols <"$tmp/run.txt" | same_len '^class  ' '^$' "class table" || { cat "$tmp/run.txt"; exit 1; }
cols <"$tmp/run.txt" | same_len '^fidelity: ' 'rank time:' "fidelity table" || { cat "$tmp/run.txt"; exit 1; }

D=$SRCDIR/tests/data/results
"$REPLAY" compare "$D/hdd-all.json" "$D/ssd-par.json" >"$tmp/cmp.txt"
grep -q 'µs' "$tmp/cmp.txt" || fail "no µs in replay compare's output"
# text: every cell of the latency table starts where its header does
cols <"$tmp/cmp.txt" | awk '
	/^TRACE .*CLASS/ { on = 1; for (i = 1; i <= length($0); i++) if (substr($0, i, 1) != " " && substr($0, i - 1, 1) == " ") hs[i] = 1; next }
	on && /^$/ { exit }
	on { rows++; for (i = 2; i <= length($0); i++) if (substr($0, i, 1) != " " && substr($0, i - 1, 1) == " " && substr($0, i - 2, 1) == " " && !hs[i]) { print "FAIL: compare latency row, a cell at column " i " where no header starts:\n" $0; exit 1 } }
	END { if (!rows) { print "FAIL: no compare latency rows"; exit 1 } }' || { cat "$tmp/cmp.txt"; exit 1; }
"$REPLAY" compare --markdown "$D/hdd-all.json" "$D/ssd-par.json" >"$tmp/md.txt"
cols <"$tmp/md.txt" | same_len '^\| TRACE .*CLASS' '^$' "compare Markdown latency table" || { cat "$tmp/md.txt"; exit 1; }

# --dry-run's file table: a name with non-ASCII characters
awk 'BEGIN { print "100 openat(AT_FDCWD, \"dat/caf\303\251-\302\265.dat\", O_WRONLY|O_CREAT, 0644) = 3"
	print "100 write(3, \"x\"..., 4096) = 4096"
	print "100 openat(AT_FDCWD, \"dat/plain.dat\", O_WRONLY|O_CREAT, 0644) = 4"
	print "100 write(4, \"x\"..., 4096) = 4096"
	print "100 close(3) = 0"; print "100 close(4) = 0" }' >"$tmp/names.txt"
mkdir "$tmp/t2"
"$REPLAY" run --dry-run "$tmp/names.txt" "$tmp/t2" >"$tmp/dry.txt" 2>&1 || { cat "$tmp/dry.txt"; fail "dry-run"; }
grep -q 'café-µ.dat' "$tmp/dry.txt" || fail "the name is not in the file table:$(cat "$tmp/dry.txt")"
cols <"$tmp/dry.txt" | awk '
	/^  path  / { on = 1; col = index($0, "use"); next }
	on && /^$/ { exit }
	on { rows++; if (index($0, "private") != col && index($0, "shared") != col && index($0, "dir") != col) { print "FAIL: file table: use column not at " col ":\n" $0; exit 1 } }
	END { if (!rows) { print "FAIL: no file rows"; exit 1 } }' || { cat "$tmp/dry.txt"; exit 1; }
echo "ok: class, fidelity, compare (text, Markdown) and file tables padded by columns"
