#!/usr/bin/env bash
# Compressed traces: a reader that takes text only refuses a gzip file
# and a gzip stream (standard input, a pipe) with a message saying what to
# do, before writing anything; the DXT reader decompresses a .gz file
# itself, and the same trace decompressed on the way in (gzip -dc | replay
# -f FMT -) gives the same ops as the plain file.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-gzip-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir "$tmp/tgt"

st=$SRCDIR/tests/data/strace/s_f_tt_T.txt
sa=$SRCDIR/tests/data/sandia/cth_like.sanitized
gzip -c "$st" > "$tmp/st.gz"
gzip -c "$sa" > "$tmp/sa.gz"

# expect_fail CMD... : exit 1, one message (in $tmp/err)
expect_fail() {
    local rc=0
    "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
    [ "$rc" = 1 ] || fail "$* exited $rc, not 1: $(cat "$tmp/err")"
}

# a compressed file
expect_fail "$REPLAY" convert -o "$tmp/x.ops" "$tmp/st.gz"
grep -q "'$tmp/st.gz' is gzip-compressed: the strace reader takes it uncompressed (gunzip it first)" \
    "$tmp/err" || fail "file: $(cat "$tmp/err")"

# a compressed stream: convert, stat and run, strict and --skip-bad
for fmt in strace sandia; do
    gz=$tmp/st.gz; [ "$fmt" = sandia ] && gz=$tmp/sa.gz
    want="standard input is gzip-compressed: the $fmt reader takes text (pipe it through 'gzip -dc')"
    for sb in "" --skip-bad; do
        expect_fail "$REPLAY" convert $sb -f "$fmt" -o "$tmp/x.ops" - < "$gz"
        grep -qF "$want" "$tmp/err" || fail "convert $sb -f $fmt: $(cat "$tmp/err")"
        [ ! -e "$tmp/x.ops" ] || fail "convert $sb -f $fmt left $tmp/x.ops"
        expect_fail "$REPLAY" stat $sb -f "$fmt" - < "$gz"
        grep -qF "$want" "$tmp/err" || fail "stat $sb -f $fmt: $(cat "$tmp/err")"
    done
    expect_fail "$REPLAY" run --quiet --no-drop-caches -f "$fmt" - "$tmp/tgt" < "$gz"
    grep -qF "$want" "$tmp/err" || fail "run -f $fmt: $(cat "$tmp/err")"
    [ -z "$(ls -A "$tmp/tgt")" ] || fail "run -f $fmt wrote into the target"
    # a named pipe, by its path
    expect_fail "$REPLAY" convert -f "$fmt" -o "$tmp/x.ops" <(cat "$gz")
    grep -q "'/dev/fd/[0-9]*' is gzip-compressed: the $fmt reader takes text" "$tmp/err" \
        || fail "pipe path -f $fmt: $(cat "$tmp/err")"
    # decompressed on the way in: the plain file's ops
    plain=$st; [ "$fmt" = sandia ] && plain=$sa
    "$REPLAY" convert -f "$fmt" -o "$tmp/a.ops" "$plain" > /dev/null
    gzip -dc "$gz" | "$REPLAY" convert -f "$fmt" -o "$tmp/b.ops" - > /dev/null
    "$REPLAY" dump "$tmp/a.ops" > "$tmp/a.txt"; "$REPLAY" dump "$tmp/b.ops" > "$tmp/b.txt"
    [ "$(grep -c . "$tmp/a.txt")" -gt 5 ] || fail "$fmt: too few ops dumped"
    diff -q "$tmp/a.txt" "$tmp/b.txt" >/dev/null || fail "$fmt: gzip -dc | replay gave other ops"
done

# DXT: the .gz file is read; its stream gets the message with both ways out
dxt=$SRCDIR/tests/data/dxt/mpi-io-test-x86_64-3.1.6.dxt.txt
gzip -c "$dxt" > "$tmp/d.dxt.gz"
"$REPLAY" convert -o "$tmp/a.ops" "$dxt" > /dev/null
"$REPLAY" convert -o "$tmp/b.ops" "$tmp/d.dxt.gz" > /dev/null
"$REPLAY" dump "$tmp/a.ops" > "$tmp/a.txt"; "$REPLAY" dump "$tmp/b.ops" > "$tmp/b.txt"
[ "$(grep -c . "$tmp/a.txt")" -gt 5 ] || fail "dxt: too few ops dumped"
diff -q "$tmp/a.txt" "$tmp/b.txt" >/dev/null || fail "dxt: the .gz file gave other ops"
for sb in "" --skip-bad; do
    expect_fail "$REPLAY" convert $sb -f dxt -o "$tmp/x.ops" - < "$tmp/d.dxt.gz"
    grep -qF "standard input is gzip-compressed: the dxt reader takes text (pipe it through 'gzip -dc', or give the .gz file itself: it is decompressed then)" \
        "$tmp/err" || fail "dxt stream $sb: $(cat "$tmp/err")"
done
echo "ok: gzip files and streams"
