#!/usr/bin/env bash
# An strace capture of a program that does its I/O through io_uring holds
# the io_uring_enter calls, not the requests they submitted: stat, convert
# and run say so on stderr (with the count of io_uring_enter calls, checked
# against grep), instead of replaying an empty workload in silence.
# First a two-line trace, then a real capture of fio --ioengine=io_uring
# made here (skipped with the reason when fio or io_uring is not there).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tgt"

check() {   # check TRACE N
    local t=$1 n=$2 want="the traced program did I/O through io_uring ($2 io_uring_enter calls)"
    "$REPLAY" stat "$t" >/dev/null 2>"$tmp/err"
    grep -qF "$want" "$tmp/err" || { echo "FAIL stat $t: no warning"; cat "$tmp/err"; exit 1; }
    "$REPLAY" convert --quiet "$t" -o "$tmp/t.ops" 2>"$tmp/err"
    grep -qF "$want" "$tmp/err" || { echo "FAIL convert $t: no warning"; cat "$tmp/err"; exit 1; }
    "$REPLAY" run --dry-run "$tmp/t.ops" "$tmp/tgt" >/dev/null 2>"$tmp/err"
    grep -qF "$want" "$tmp/err" || { echo "FAIL run of the .ops: no warning"; cat "$tmp/err"; exit 1; }
    echo "ok $(basename "$t"): warned of $n io_uring_enter calls"
}

cat >"$tmp/small.txt" <<'T'
100 12:00:00.000001 openat(AT_FDCWD, "/d/f", O_RDWR|O_CREAT, 0644) = 5 <0.000010>
100 12:00:00.000002 io_uring_enter(4, 1, 0, 0, NULL, 8) = 1 <0.000010>
100 12:00:00.000003 pwrite64(5, "x", 1, 0) = 1 <0.000010>
T
check "$tmp/small.txt" 1
# no io_uring, no warning
grep -v io_uring "$tmp/small.txt" >"$tmp/plain.txt"
"$REPLAY" stat "$tmp/plain.txt" >/dev/null 2>"$tmp/err"
if grep -q io_uring "$tmp/err"; then echo "FAIL: warning without io_uring"; cat "$tmp/err"; exit 1; fi

command -v fio >/dev/null || { echo "skip: fio not installed (the small trace passed)"; exit 77; }
mkdir "$tmp/w"
if ! timeout 60 strace -f -tt -T -y -o "$tmp/fio.txt" fio --name=j --directory="$tmp/w" --size=256k \
        --bs=4k --rw=randwrite --ioengine=io_uring --iodepth=4 >"$tmp/fio.out" 2>&1; then
    echo "skip: fio --ioengine=io_uring cannot run here: $(tail -1 "$tmp/fio.out") (the small trace passed)"
    exit 77
fi
# one "io_uring_enter(" per call (a resumed half reads "<... io_uring_enter resumed>")
n=$(grep -c 'io_uring_enter(' "$tmp/fio.txt" || true)
[ "$n" -gt 0 ] || { echo "FAIL: the fio capture has no io_uring_enter"; exit 1; }
"$REPLAY" stat --json "$tmp/fio.txt" >"$tmp/s.json" 2>/dev/null
got=$(jq '.notes.skipped.io_uring_enter' "$tmp/s.json")
[ "$got" = "$n" ] || { echo "FAIL: stat counts $got io_uring_enter calls, grep $n"; exit 1; }
check "$tmp/fio.txt" "$n"
