#!/usr/bin/env bash
# stat_nofiles.sh - `replay stat` reads a trace in one pass and creates,
# writes, renames or removes no file: no temporary .ops.
#
# A real capture (strace -f -y of a shell running dd, cat and cp on files
# in a temp dir: several processes, interleaved) is analysed by
# `replay stat` (text and --json, from the trace and from an .ops file)
# under strace watching every call that can create or change a file, with
# TMPDIR an empty directory.  Checked:
#   - no open/openat asks for O_CREAT, O_TRUNC, O_TMPFILE, O_WRONLY or
#     O_RDWR; no creat, mkdir, rename, link, symlink, unlink, truncate,
#     mknod or memfd_create; write calls go to stdout/stderr only;
#   - TMPDIR and the working directory are still empty;
#   - the same watch sees `replay convert` create its file (the detector
#     works);
#   - bytes read and written and the read and write request counts, per
#     process and in total, equal an independent reading of the capture
#     (strace_sums.awk).
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is needed to read the JSON"; exit 77; }
strace -f -o /dev/null true 2>/dev/null || { echo "SKIP: ptrace is not permitted here"; exit 77; }
AWK=$SRCDIR/tests/e2e/strace_sums.awk
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/work" "$tmp/empty" "$tmp/cwd"

# ---- a real capture -------------------------------------------------------
(cd "$tmp/work" && strace -f -y -o "$tmp/cap.txt" sh -c '
	dd if=/dev/zero of=a bs=4096 count=300 status=none
	dd if=a of=b bs=1000 status=none
	cat a b > c
	cp c d
	dd if=d of=/dev/null bs=65536 status=none
	cat a b c >/dev/null')
lines=$(wc -l <"$tmp/cap.txt")
echo "capture: $lines lines"

# ---- stat under watch -----------------------------------------------------
calls=open,openat,openat2,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat
calls=$calls,symlink,symlinkat,unlink,unlinkat,truncate,ftruncate,mknod,mknodat,memfd_create
calls=$calls,write,pwrite64,writev,pwritev,pwritev2
watch() {  # LOG CMD...: run CMD in $tmp/cwd with TMPDIR empty, calls logged
	local log=$1; shift
	# LeakSanitizer cannot run under ptrace (the unwatched runs below check leaks)
	(cd "$tmp/cwd" && TMPDIR=$tmp/empty ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -y -qq -e trace=$calls -e signal=none -o "$log" "$@")
}
# every logged call that creates or changes a file (prints them)
changes() {
	awk '
	{ l = $0; sub(/^[0-9]+ +/, "", l) }
	l ~ /^(creat|mkdir|mkdirat|rename|renameat|renameat2|link|linkat|symlink|symlinkat|unlink|unlinkat|truncate|ftruncate|mknod|mknodat|memfd_create)\(/ { print; next }
	l ~ /^open(at|at2)?\(/ && l ~ /O_(CREAT|TRUNC|TMPFILE|WRONLY|RDWR)/ { print; next }
	l ~ /^(write|pwrite64|writev|pwritev|pwritev2)\(/ && l !~ /^[a-z0-9]+\([12][<,]/ { print }
	' "$1"
}

watch "$tmp/w1.log" "$REPLAY" stat --no-default-excludes --json "$tmp/cap.txt" >"$tmp/s.json"
watch "$tmp/w2.log" "$REPLAY" stat "$tmp/cap.txt" >"$tmp/s.txt"
for log in "$tmp/w1.log" "$tmp/w2.log"; do
	grep -q 'openat(.*cap.txt' "$log" || { echo "FAIL: the watch did not see the trace opened"; exit 1; }
	bad=$(changes "$log")
	[ -z "$bad" ] || { echo "FAIL: replay stat created or changed files:"; echo "$bad"; exit 1; }
done
left() { find "$tmp/empty" "$tmp/cwd" -mindepth 1; }
[ -z "$(left)" ] || { echo "FAIL: files left:"; left; exit 1; }
echo "ok: stat (text and --json) opened no file for writing, wrote only to stdout"

# the detector sees what convert does, and stat of an .ops file is clean too
watch "$tmp/w3.log" "$REPLAY" convert --quiet "$tmp/cap.txt" -o "$tmp/work/cap.ops"
seen=$(changes "$tmp/w3.log")
[[ $seen == *'cap.ops'*O_CREAT* ]] || { echo "FAIL: the watch missed convert's file"; exit 1; }
watch "$tmp/w4.log" "$REPLAY" stat --no-default-excludes --json "$tmp/work/cap.ops" >"$tmp/o.json"
bad=$(changes "$tmp/w4.log")
[ -z "$bad" ] || { echo "FAIL: replay stat of an .ops file changed files:"; echo "$bad"; exit 1; }
[ -z "$(left)" ] || { echo "FAIL: files left:"; left; exit 1; }
echo "ok: the watch sees convert create its file; stat of the .ops changes nothing"

# ---- the numbers against an independent reading ---------------------------
main=$(jq '.per_rank[0].pid' "$tmp/s.json")
want=$(awk -f "$AWK" "$tmp/cap.txt" | awk -v m="$main" '{ if ($1 == "main") $1 = m; print }' | sort)
[ -n "$want" ] || { echo "FAIL: the capture shows no file I/O"; exit 1; }
got=$(jq -r '.per_rank[] | select(.bytes_read + .bytes_written > 0) |
	"\(.pid) \(.op_counts.read) \(.bytes_read) \(.op_counts.write) \(.bytes_written)"' "$tmp/s.json" | sort)
if [ "$want" != "$got" ]; then
	echo "FAIL: per process (pid reads bytes_read writes bytes_written), expected"; echo "$want"
	echo "got"; echo "$got"; exit 1
fi
tot=$(echo "$want" | awk '{ r += $2; br += $3; w += $4; bw += $5 } END { print r, br, w, bw }')
gtot=$(jq -r '"\(.patterns.read.requests) \(.bytes_read) \(.patterns.write.requests) \(.bytes_written)"' "$tmp/s.json")
[ "$tot" = "$gtot" ] || { echo "FAIL: totals (reads bytes writes bytes) expected $tot, got $gtot"; exit 1; }
read -r _ br _ bw <<<"$tot"
[ "$bw" -ge $((2 * 300 * 4096)) ] || { echo "FAIL: the capture wrote only $bw bytes"; exit 1; }
# the text report (default excludes: /dev/zero, /dev/null and the loader's
# files left out) says the same as its JSON
jq -e . "$tmp/o.json" >/dev/null
watch "$tmp/w5.log" "$REPLAY" stat --json "$tmp/cap.txt" >"$tmp/d.json"
[ -z "$(changes "$tmp/w5.log")" ] || { echo "FAIL: replay stat --json changed files"; exit 1; }
dr=$(jq '.bytes_read' "$tmp/d.json"); dw=$(jq '.bytes_written' "$tmp/d.json")
grep -q "^bytes read  *$dr B " "$tmp/s.txt" || { echo "FAIL: text and JSON differ on bytes read"; exit 1; }
grep -q "^bytes written  *$dw B " "$tmp/s.txt" || { echo "FAIL: text and JSON differ on bytes written"; exit 1; }
# unwatched (leak checks under ASan): the same reports
"$REPLAY" stat --json "$tmp/cap.txt" | cmp -s - "$tmp/d.json" || { echo "FAIL: stat --json differs"; exit 1; }
"$REPLAY" stat "$tmp/cap.txt" | cmp -s - "$tmp/s.txt" || { echo "FAIL: stat differs"; exit 1; }
# the .ops file gives the same analysis (but for the load notes)
diff <(jq 'del(.notes)' "$tmp/s.json") <(jq 'del(.notes)' "$tmp/o.json") >/dev/null ||
	{ echo "FAIL: stat of the trace and of its .ops differ"; exit 1; }
echo "ok: $(echo "$want" | wc -l) processes, $br B read and $bw B written in" \
	"$(jq '.patterns.read.requests' "$tmp/s.json") + $(jq '.patterns.write.requests' "$tmp/s.json")" \
	"requests, as awk reads the capture"
