#!/usr/bin/env bash
# -o onto something that is not a regular file: `run` writes its JSON into
# it in place, never renames a temporary over it (which turned a device
# node such as /dev/null, or a FIFO, into a regular file holding the JSON,
# and would have replaced the /dev/stdout link); `convert`, whose .ops is
# written beside its name and renamed, refuses it.  Checked on a character
# device node made here with /dev/null's numbers (root), a FIFO read by a
# background reader, and a symbolic link to /proc/self/fd/3 (as
# /dev/stdout is one to fd 1) with fd 3 a pipe.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trace=$SRCDIR/traces/strace-probe.txt
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir "$tmp/t"
run() { "$REPLAY" run --quiet --no-drop-caches --output-format json -o "$1" "$trace" "$tmp/t"; }

# a character device (root only)
if mknod -m 666 "$tmp/null" c 1 3 2>/dev/null; then
	run "$tmp/null" >/dev/null || fail "run -o a device node: exit $?"
	[ -c "$tmp/null" ] || fail "the device node was replaced: $(ls -l "$tmp/null")"
	echo "ok -o a character device: still one, written in place"
else
	echo "note: not root: no device node made, that case not checked"
fi

# a FIFO, read by cat in the background
mkfifo "$tmp/fifo"
timeout 60 cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
timeout 60 "$REPLAY" run --quiet --no-drop-caches -o "$tmp/fifo" "$trace" "$tmp/t" >/dev/null ||
	fail "run -o a FIFO: exit $?"
wait "$reader" || fail "the FIFO's reader: exit $?"
[ -p "$tmp/fifo" ] || fail "the FIFO was replaced: $(ls -l "$tmp/fifo")"
[ "$(jq -r '.jobs | length' "$tmp/fifo.out")" -ge 1 ] || fail "the reader got no JSON: $(head -c 200 "$tmp/fifo.out")"
echo "ok -o a FIFO: still one, its reader got the JSON ($(wc -c <"$tmp/fifo.out") bytes)"

# a link to one of the process's descriptors, a pipe (as /dev/stdout is a
# link to /proc/self/fd/1; fd 3 here, since the summary goes to stdout)
ln -s /proc/self/fd/3 "$tmp/fd3"
{ run "$tmp/fd3" 3>&1 1>/dev/null; } | jq -e '.jobs | length >= 1' >/dev/null ||
	fail "run -o a link to /proc/self/fd/3: no JSON on the pipe"
[ -L "$tmp/fd3" ] && [ "$(readlink "$tmp/fd3")" = /proc/self/fd/3 ] || fail "the link was replaced"
echo "ok -o a link to /proc/self/fd/3 (as /dev/stdout to fd 1): the JSON on the pipe, the link kept"

# compare --html into the FIFO: in place too
"$REPLAY" run --quiet --no-drop-caches -o "$tmp/r.json" "$trace" "$tmp/t" >/dev/null
timeout 60 cat "$tmp/fifo" >"$tmp/page.out" &
reader=$!
timeout 60 "$REPLAY" compare --html "$tmp/fifo" "$tmp/r.json" "$tmp/r.json" >/dev/null ||
	fail "compare --html a FIFO: exit $?"
wait "$reader" || fail "the FIFO's reader: exit $?"
[ -p "$tmp/fifo" ] && grep -q '</html>' "$tmp/page.out" || fail "compare --html a FIFO: $(ls -l "$tmp/fifo")"
echo "ok compare --html a FIFO: still one, its reader got the page"

# convert: refused, nothing replaced
rc=0
"$REPLAY" convert -o "$tmp/fifo" "$trace" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "output file '.*/fifo' is not a regular file" "$tmp/err" ||
	fail "convert -o a FIFO: exit $rc, $(cat "$tmp/err")"
[ -p "$tmp/fifo" ] || fail "convert replaced the FIFO"
echo "ok convert -o a FIFO: refused (exit 2), the FIFO kept"
