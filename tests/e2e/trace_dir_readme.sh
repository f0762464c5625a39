#!/usr/bin/env bash
# Audit D: a README (or another non-trace file) sorting first in a
# directory of LANL, Sandia or strace -ff traces neither decides the
# format nor stops the load: it is left out, named in a warning, and the
# ops are those of the traces alone.  A LANL rank file ending in
# "<unfinished ...>" warns with FILE:LINE; a LANL line without <SECS>
# and a read/write result over its count (LANL, strace) are FILE:LINE
# errors.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-dirreadme-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# dir SRC... : the files in $tmp/NAME, plus a README that sorts first
check_dir() {
    local name=$1 fmt=$2; shift 2
    mkdir "$tmp/$name"
    cp "$@" "$tmp/$name/"
    "$REPLAY" dump "$tmp/$name" > "$tmp/$name.plain" 2>/dev/null
    echo "These traces were taken on 2006-10-02" > "$tmp/$name/README"
    "$REPLAY" dump "$tmp/$name" > "$tmp/$name.dump" 2> "$tmp/$name.err" ||
        fail "$name: exit $?: $(cat "$tmp/$name.err")"
    grep -q "warning: .*1 file holds no $fmt trace lines, ignored: $tmp/$name/README" \
        "$tmp/$name.err" || fail "$name: no warning naming the README: $(cat "$tmp/$name.err")"
    cmp -s "$tmp/$name.plain" "$tmp/$name.dump" || fail "$name: ops differ with the README"
    # forced format: the same
    "$REPLAY" dump --format "$fmt" "$tmp/$name" > "$tmp/$name.f" 2>/dev/null ||
        fail "$name: --format $fmt fails"
    cmp -s "$tmp/$name.plain" "$tmp/$name.f" || fail "$name: --format $fmt ops differ"
}
check_dir lanl lanl "$SRCDIR"/tests/data/lanl/nto1/*
check_dir sandia sandia "$SRCDIR"/tests/data/sandia/cth_like.sanitized
check_dir ff strace "$SRCDIR"/tests/data/strace/s_ff.*

# a Sandia file with a bad line among its own is still FILE:LINE
sed -i '3s/.*/bogus(/' "$tmp/sandia/cth_like.sanitized"
if "$REPLAY" dump "$tmp/sandia" > /dev/null 2> "$tmp/sb.err"; then fail "bad Sandia line accepted"; fi
grep -q "cth_like.sanitized:3: " "$tmp/sb.err" || fail "no FILE:LINE: $(cat "$tmp/sb.err")"

# LANL: a rank killed mid-call
mkdir "$tmp/unf"
cp "$SRCDIR"/tests/data/lanl/nto1/* "$tmp/unf/"
f=$(ls "$tmp"/unf/*.trace | head -n 1)
grep -v '^#\|^ ' "$f" > "$tmp/x" && mv "$tmp/x" "$f"
n=$(($(wc -l < "$f") + 1))
echo '12:00:59.000001 SYS_write(3, "a"..., 5 <unfinished ...>' >> "$f"
"$REPLAY" stat "$tmp/unf" > "$tmp/unf.out" 2> "$tmp/unf.err" || fail "unfinished: exit $?"
grep -q "warning: .*$f:$n (SYS_write): a call left '<unfinished ...>' at the end of its file" \
    "$tmp/unf.err" || fail "no unfinished warning: $(cat "$tmp/unf.err")"
grep -q "unfinished:SYS_write 1" "$tmp/unf.out" || fail "not counted as skipped.unfinished"

# LANL: no <SECS>; a result larger than the count
for bad in 'SYS_lseek(3, 4096, 0) = 4096' 'SYS_write(3, "a"..., 5) = 50000 <0.000009>'; do
    rm -rf "$tmp/b"; mkdir "$tmp/b"
    cp "$SRCDIR"/tests/data/lanl/nto1/* "$tmp/b/"
    f=$(ls "$tmp"/b/*.trace | head -n 1)
    grep -v '^#\|^ ' "$f" > "$tmp/x" && mv "$tmp/x" "$f"
    n=$(($(wc -l < "$f") + 1))
    echo "12:00:59.000001 $bad" >> "$f"
    if "$REPLAY" dump "$tmp/b" > /dev/null 2> "$tmp/b.err"; then fail "accepted: $bad"; fi
    grep -q "$f:$n: " "$tmp/b.err" || fail "no FILE:LINE for '$bad': $(cat "$tmp/b.err")"
done

# strace: a result larger than the count
printf '%s\n' '1234 12:00:00.000000 openat(AT_FDCWD, "/tmp/x", O_WRONLY|O_CREAT, 0644) = 3 <0.000010>' \
    '1234 12:00:00.000100 write(3, "abc", 3) = 50000 <0.000010>' > "$tmp/st.txt"
for general in 0 1; do
    if REPLAY_STRACE_GENERAL=$general "$REPLAY" dump "$tmp/st.txt" > /dev/null 2> "$tmp/st.err"; then
        fail "strace: write returning more than its count accepted"
    fi
    grep -q "st.txt:2: expected a result no larger than the count" "$tmp/st.err" ||
        fail "strace: $(cat "$tmp/st.err")"
done
echo OK
