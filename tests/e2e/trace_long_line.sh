#!/usr/bin/env bash
# A line over the readers' 1 MiB limit: refused with file:line in strict
# mode; with --skip-bad counted as one bad line, and as a line and its
# bytes in the summary like any other, whatever the reader (strace,
# Sandia, LANL, fio iolog): lines and MB as wc and stat read the files.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-longline-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# long SRC DST: SRC with a 2,000,000-byte line put before its 6th line
long() {
    { head -n 5 "$1"; head -c 2000000 /dev/zero | tr '\0' 'x'; echo; tail -n +6 "$1"; } > "$2"
}
long "$SRCDIR/tests/data/strace/s_f_tt_T.txt" "$tmp/st.txt"
long "$SRCDIR/tests/data/sandia/cth_like.sanitized" "$tmp/sa.txt"
mkdir "$tmp/lanl"
cp "$SRCDIR"/tests/data/lanl/nto1/* "$tmp/lanl/"
first=$(ls "$tmp"/lanl/*.trace | head -n 1)
long "$first" "$tmp/l.tmp" && mv "$tmp/l.tmp" "$first"
# a fio v2 iolog: the header, a file added and opened, writes
{ echo "fio version 2 iolog"; echo "/mnt/t/f0 add"; echo "/mnt/t/f0 open"
  for i in $(seq 0 20); do echo "/mnt/t/f0 write $((i * 4096)) 4096"; done
  echo "/mnt/t/f0 close"; } > "$tmp/fio0.txt"
long "$tmp/fio0.txt" "$tmp/fio.txt"

# what the summary must say: every line of the files, and their bytes
# (a final line without '\n' counted as if it had one)
expect() {  # FILE... -> "LINES MB"
    local n=0 b=0 f
    for f in "$@"; do
        n=$((n + $(wc -l < "$f"))); b=$((b + $(stat -c %s "$f")))
        if [ -n "$(tail -c 1 "$f")" ]; then n=$((n + 1)); b=$((b + 1)); fi
    done
    awk -v n="$n" -v b="$b" 'BEGIN { printf "%d %.1f\n", n, b / 1e6 }'
}
for t in st.txt sa.txt lanl fio.txt; do
    in=$tmp/$t
    if "$REPLAY" convert -o "$tmp/x.ops" "$in" > /dev/null 2> "$tmp/err"; then
        fail "$t: over-long line accepted"
    fi
    grep -Eq ":6: (line too long|expected a line shorter than 1048576 bytes)" "$tmp/err" \
        || fail "$t strict: $(cat "$tmp/err")"
    # strace's: what makes such lines, and what to do
    [ "$t" != st.txt ] || grep -q "1048576 bytes (strace -s N shows N bytes of each buffer: capture with a smaller -s" "$tmp/err" \
        || fail "$t: no word of strace -s: $(cat "$tmp/err")"
    "$REPLAY" convert --skip-bad -o "$tmp/x.ops" "$in" > "$tmp/out" 2>/dev/null \
        || fail "$t --skip-bad failed"
    if [ -d "$in" ]; then read -r n mb < <(expect "$in"/*.trace); else read -r n mb < <(expect "$in"); fi
    grep -q "ops from $n lines ($mb MB) of .*, 1 bad lines$" "$tmp/out" \
        || fail "$t: $(cat "$tmp/out") (expected $n lines, $mb MB, 1 bad line)"
done
echo "ok: over-long lines counted alike by four readers"
