#!/usr/bin/env bash
# trace_pipe.sh - a trace given as a pipe (`<(zcat trace.gz)`, a FIFO) is
# read whole, by its reader alone: nothing probes it first (a probe would
# take its first bytes away from the reader).
#
# A real capture (strace -f -tt -T -y of a shell copying files) and the
# bundled Sandia and DXT samples are given through process substitution
# with --format: `replay stat --json` and `replay convert` must give what
# they give for the file itself (every op of the .ops, as `replay dump`
# prints them, and the JSON but its source path).  Without --format, a pipe is refused (the format cannot be
# probed); LANL-Trace and fio iolog files, which are read twice, are
# refused as pipes, with no output made.  The byte and request sums of
# the capture read through the pipe are checked against an independent
# reading of the text (strace_sums.awk).
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is needed to read the JSON"; exit 77; }
strace -f -o /dev/null true 2>/dev/null || { echo "SKIP: ptrace is not permitted here"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir "$tmp/work"

(cd "$tmp/work" && strace -f -tt -T -y -o "$tmp/cap.txt" sh -c '
	dd if=/dev/zero of=a bs=4096 count=200 status=none
	cat a a > b
	cp b c
	dd if=c of=/dev/null bs=8192 status=none')
echo "capture: $(wc -l <"$tmp/cap.txt") lines"

same() {        # FORMAT FILE: the file and the same bytes through a pipe agree
	local fmt=$1 f=$2
	"$REPLAY" stat --json --format "$fmt" "$f" >"$tmp/file.json"
	"$REPLAY" stat --json --format "$fmt" <(cat "$f") >"$tmp/pipe.json" ||
		fail "$fmt: stat of a pipe failed"
	cmp -s <(jq -S 'del(.notes.source)' "$tmp/file.json") \
		<(jq -S 'del(.notes.source)' "$tmp/pipe.json") ||
		fail "$fmt: stat of $f differs through a pipe"
	"$REPLAY" convert --quiet --format "$fmt" -o "$tmp/file.ops" "$f"
	"$REPLAY" convert --quiet --format "$fmt" -o "$tmp/pipe.ops" <(cat "$f") ||
		fail "$fmt: convert of a pipe failed"
	# every op and path alike (the info blob names the source: not compared)
	cmp -s <("$REPLAY" dump "$tmp/file.ops") <("$REPLAY" dump "$tmp/pipe.ops") ||
		fail "$fmt: the ops of $f differ through a pipe"
	echo "ok: $fmt through a pipe = from the file ($(jq '.ops_total' "$tmp/pipe.json") ops)"
}
same strace "$tmp/cap.txt"
same sandia "$SRCDIR/tests/data/sandia/$(ls "$SRCDIR/tests/data/sandia" | head -1)"
same dxt "$SRCDIR/tests/data/dxt/mpi_io_test_with_dxt.dxt.txt"

# the pipe's sums against an independent reading of the capture (every
# file: the default excludes of system files off)
"$REPLAY" stat --no-default-excludes --json --format strace <(cat "$tmp/cap.txt") >"$tmp/pipe.json"
read -r rb wb < <(awk -f "$SRCDIR/tests/e2e/strace_sums.awk" "$tmp/cap.txt" |
	awk '{ r += $3; w += $5 } END { printf "%.0f %.0f\n", r, w }')
got_r=$(jq '.bytes_read' "$tmp/pipe.json") got_w=$(jq '.bytes_written' "$tmp/pipe.json")
[ "$got_r" = "$rb" ] && [ "$got_w" = "$wb" ] ||
	fail "bytes through a pipe: read $got_r written $got_w, the text says $rb $wb"
echo "ok: bytes read $got_r, written $got_w, as the text says"

refused() {     # WHAT MESSAGE ARGS...: refused with MESSAGE, no output made
	local what=$1 msg=$2
	shift 2
	if "$REPLAY" "$@" >"$tmp/out" 2>"$tmp/err"; then
		fail "$what: accepted"
	fi
	grep -q -- "$msg" "$tmp/err" || fail "$what: expected '$msg', got: $(cat "$tmp/err")"
	[ ! -e "$tmp/refused.ops" ] || fail "$what: output made"
	echo "ok: $what refused: $(cat "$tmp/err")"
}
refused "a pipe without --format" "is a pipe: its format cannot be probed" \
	convert -o "$tmp/refused.ops" <(cat "$tmp/cap.txt")
printf '/x/f add\n/x/f open\n/x/f write 0 4096\n/x/f close\n' >"$tmp/j.iolog"
sed -i '1i fio version 2 iolog' "$tmp/j.iolog"
refused "a fio iolog through a pipe" "not standard input or a pipe" \
	convert --format fio-iolog -o "$tmp/refused.ops" <(cat "$tmp/j.iolog")
refused "a LANL-Trace file through a pipe" "not standard input or a pipe" \
	convert --format lanl -o "$tmp/refused.ops" <(cat "$SRCDIR/tests/data/lanl/ltrace_S_tt_T_f.txt")
mkfifo "$tmp/fifo"
refused "a FIFO without --format" "is a pipe" stat "$tmp/fifo"
refused "a character device without --format" "'/dev/null' is a character device: its format cannot be probed" \
	stat /dev/null
