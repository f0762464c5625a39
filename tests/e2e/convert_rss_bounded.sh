#!/usr/bin/env bash
# convert_rss_bounded: `replay convert` of a text trace 12 times larger
# takes about the same memory (peak RSS from /usr/bin/time -v): the reader
# streams into the op writer and the written stream is not kept mapped.
# fio v3 iologs (the .ops is larger than the text) and LANL-Trace rank
# files, made by scripts/bench-parse --generate at 2 and 24 MB.  The large
# conversion is also checked against awk's reading of the same text: the
# reads and writes, and their bytes.  No timing is asserted.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
[ -x /usr/bin/time ] || { echo "SKIP: /usr/bin/time is not installed (scripts/setup installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# under ASan freed blocks wait in a quarantine (up to 256 MB): none here
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"

peak_kb() { # TRACE -> peak RSS (kB) of replay convert
	/usr/bin/time -v -o "$tmp/time.txt" "$REPLAY" convert --quiet "$1" -o "$tmp/out.ops"
	awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$tmp/time.txt"
}

for fmt in fio-iolog-v3 lanl; do
	bash "$SRCDIR/scripts/bench-parse" --generate "$tmp/small" --format "$fmt" 2
	bash "$SRCDIR/scripts/bench-parse" --generate "$tmp/large" --format "$fmt" 24
	small=$(peak_kb "$tmp/small/$fmt")
	large=$(peak_kb "$tmp/large/$fmt")
	ops_mb=$(($(stat -c %s "$tmp/out.ops") / 1048576))
	echo "$fmt: peak RSS ${small} kB at 2 MB, ${large} kB at 24 MB (.ops ${ops_mb} MB)"
	# the op stream's pages are let go 2 MiB at a time: 6 MB of slack
	if [ $((large - small)) -gt $((6 * 1024)) ]; then
		echo "FAIL $fmt: peak RSS grew by $(((large - small) / 1024)) MB for 22 MB more input"
		exit 1
	fi
	# the large stream against awk: reads and writes, and their bytes
	"$REPLAY" dump "$tmp/out.ops" | awk '!/^#/ && ($4 == "read" || $4 == "write" || $4 == "aread" ||
		$4 == "awrite") { k = substr($4, length($4) - 3) == "read" ? "r" : "w"; n[k]++; b[k] += $7 }
		END { printf "%d %.0f %d %.0f\n", n["r"], b["r"], n["w"], b["w"] }' >"$tmp/got"
	if [ "$fmt" = lanl ]; then
		# SYS_ reads and writes (a nested pwrite64 of an iwrite_at is the
		# async write), with their traced results
		cat "$tmp/large/lanl"/*.trace | awk '/ SYS_(p?read|p?write)(64)?\(/ {
			k = $2 ~ /read/ ? "r" : "w"; n[k]++; split($0, a, ") = "); b[k] += a[2] + 0 }
			END { printf "%d %.0f %d %.0f\n", n["r"], b["r"], n["w"], b["w"] }' >"$tmp/want"
	else
		cat "$tmp/large/$fmt"/*.iolog | awk '$3 == "read" || $3 == "write" {
			k = $3 == "read" ? "r" : "w"; n[k]++; b[k] += $5 }
			END { printf "%d %.0f %d %.0f\n", n["r"], b["r"], n["w"], b["w"] }' >"$tmp/want"
	fi
	cmp -s "$tmp/got" "$tmp/want" ||
		{ echo "FAIL $fmt: ops (reads bytes writes bytes) $(cat "$tmp/got"), awk says $(cat "$tmp/want")"; exit 1; }
	rm -rf "$tmp/small" "$tmp/large" "$tmp/out.ops"
done
# strace: the ranks (pids) interleave, so the writer keeps their full
# record buffers in memory up to its 32 MiB hold (the rest would spill to
# the temporary file): RSS may grow by that, no more; and the records are
# those awk reads in the text (complete calls and resumed ones)
bash "$SRCDIR/scripts/bench-parse" --generate "$tmp/small" --format strace 2
bash "$SRCDIR/scripts/bench-parse" --generate "$tmp/large" --format strace 24
small=$(peak_kb "$tmp/small/strace")
large=$(peak_kb "$tmp/large/strace")
echo "strace: peak RSS ${small} kB at 2 MB, ${large} kB at 24 MB (.ops $(($(stat -c %s "$tmp/out.ops") / 1048576)) MB)"
if [ $((large - small)) -gt $(((32 + 6) * 1024)) ]; then
	echo "FAIL strace: peak RSS grew by $(((large - small) / 1024)) MB, more than the 32 MiB hold"
	exit 1
fi
"$REPLAY" dump "$tmp/out.ops" | awk '!/^#/ && ($4 == "read" || $4 == "write") { n[$4]++; b[$4] += $7 }
	END { printf "%d %.0f %d %.0f\n", n["read"], b["read"], n["write"], b["write"] }' >"$tmp/got"
awk '/(pread64|pwrite64|read|write)\(.*\) += [0-9]+/ || /<\.\.\. (pread64|pwrite64|read|write) resumed>/ {
	k = $0 ~ /(pread64|[^p]read)[(]|<[.][.][.] (pread64|read) / ? "r" : "w"
	n[k]++; split($0, a, ") = "); b[k] += a[2] + 0 }
	END { printf "%d %.0f %d %.0f\n", n["r"], b["r"], n["w"], b["w"] }' "$tmp/large/strace" >"$tmp/want"
cmp -s "$tmp/got" "$tmp/want" ||
	{ echo "FAIL strace: ops (reads bytes writes bytes) $(cat "$tmp/got"), awk says $(cat "$tmp/want")"; exit 1; }
echo "convert peak RSS bounded: ok"
