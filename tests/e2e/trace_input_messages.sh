#!/usr/bin/env bash
# trace_input_messages: what the loader says of input that is no trace it
# reads as it is: bzip2, xz and zstd files and streams (they got "cannot
# tell the trace format"), a UTF-8 byte order mark (skipped: it gave
# "FILE:1: expected a syscall name"), a NUL byte (FILE:LINE, binary), and
# in a directory of traces a trace of another format (an error naming both;
# it was left out with the README, the run going on without it).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-inputmsg-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_fail() { # STDERR-SUBSTRING ARGS...
    local want=$1 rc=0
    shift
    "$@" > "$tmp/out" 2> "$tmp/err" < "${STDIN:-/dev/null}" || rc=$?
    [ "$rc" = 1 ] || fail "exit $rc (want 1): $*: $(cat "$tmp/err")"
    grep -qF -- "$want" "$tmp/err" || fail "stderr lacks '$want': $*: $(cat "$tmp/err")"
}
P=$SRCDIR/traces/strace-probe.txt
cp "$P" "$tmp/p.txt"
n=0
for z in bzip2 xz zstd; do
    command -v "$z" > /dev/null || { echo "skip $z: not installed"; continue; }
    "$z" -k -q "$tmp/p.txt"
    f=$(ls "$tmp"/p.txt.* | grep -v '\.gz$')
    expect_fail "'$f' is $z-compressed: replay reads traces uncompressed (and a DXT dump gzip-compressed too); decompress it first ($z -dk '$f')" \
        "$REPLAY" stat "$f"
    expect_fail "'$f' is $z-compressed" "$REPLAY" run --dry-run --format strace "$f" "$tmp"
    STDIN=$f expect_fail "standard input is $z-compressed: the strace reader takes text (pipe it through '$z -dc')" \
        "$REPLAY" stat --format strace -
    rm "$f"
    n=$((n + 1))
done
echo "ok compressed input named ($n of bzip2, xz, zstd installed)"

# a byte order mark: the same ops as without
printf '\357\273\277' > "$tmp/bom.txt"
cat "$P" >> "$tmp/bom.txt"
"$REPLAY" dump "$P" > "$tmp/a.dump"
"$REPLAY" dump "$tmp/bom.txt" > "$tmp/b.dump" 2> "$tmp/err" || fail "BOM: $(cat "$tmp/err")"
cmp -s "$tmp/a.dump" "$tmp/b.dump" || fail "BOM: other ops"
echo "ok a UTF-8 byte order mark skipped"

printf 'line one\nline\0two\n' > "$tmp/bin.dat"
expect_fail "$tmp/bin.dat:2: a NUL byte (byte 14 of the file): it holds binary bytes, so it is no text trace" \
    "$REPLAY" stat "$tmp/bin.dat"
echo "ok a NUL byte: FILE:LINE, binary"

# the bundled traces' directory: Sandia traces, and a strace capture
expect_fail "'$SRCDIR/traces/strace-probe.txt' is a strace trace among sandia traces: give traces of one format at a time (only a file that is no trace, such as a README, is left out)" \
    "$REPLAY" stat "$SRCDIR/traces"
# without it, its README and script are still left out with the warning
mkdir "$tmp/tr"
cp "$SRCDIR"/traces/*.sanitized "$SRCDIR/traces/README.md" "$SRCDIR/traces/regen.sh" "$tmp/tr/"
"$REPLAY" stat "$tmp/tr" > /dev/null 2> "$tmp/err" || fail "traces without the capture: $(cat "$tmp/err")"
grep -qF "warning: $tmp/tr: 2 files hold no sandia trace lines, ignored: $tmp/tr/README.md, $tmp/tr/regen.sh" \
    "$tmp/err" || fail "README warning: $(cat "$tmp/err")"
echo "ok a trace of another format in a directory: an error naming both"
