#!/usr/bin/env bash
# strace_filtered_forks: a capture filtered to files and descriptors
# (strace -e trace=%file,%desc) has no clone lines: a child that writes to
# the stdout its shell redirected to a file is replayed as opening it at
# position 0, on its own, where it shared the shell's offset (audit SF:
# two dd's of a "( dd; dd ) > out" both at offset 0, 27168 bytes for
# 32288, and no word: the warning of descriptors never opened left fds
# 0-2 out).  Such a descriptor, in a process whose fork the trace does not
# show, is warned now; the whole capture (-f, its forks shown) is not.
set -euo pipefail
# shellcheck source=lib/strace_prelude.sh
. "$(dirname "$0")/lib/strace_prelude.sh"
mkdir "$tmp/w"
head -c 12288 /dev/zero > "$tmp/w/x"
for how in filtered full; do
	opts=(-f -tt -T -y)
	[ $how = full ] || opts+=(-e trace=%file,%desc)
	(cd "$tmp/w" && strace "${opts[@]}" -o "$tmp/$how.strace" bash -c \
		'(dd if=x bs=1k count=5 status=none; dd if=x bs=1k count=7 status=none) > out') 2> "$tmp/strace.err" ||
		{ grep -qi ptrace "$tmp/strace.err" && { echo "skip: strace cannot trace here"; exit 0; }
		  fail "strace: $(cat "$tmp/strace.err")"; }
	"$REPLAY" stat "$tmp/$how.strace" > /dev/null 2> "$tmp/$how.err"
done
grep -q "warning: .*descriptors the trace never opened (fd 1 ($tmp/w/out) of pid [0-9]*, whose fork the trace does not show" "$tmp/filtered.err" ||
	fail "filtered capture: no warning: $(cat "$tmp/filtered.err")"
! grep -q "descriptors the trace never opened" "$tmp/full.err" || fail "full capture warned: $(cat "$tmp/full.err")"
# the traced command's own stdout, a file, used after it forked: no fork
# shows it, none could (audit REG6: warned)
(cd "$tmp/w" && strace -f -tt -T -y -qq -o "$tmp/root.strace" sh -c '/bin/true; echo bye' > "$tmp/w/out2") 2> "$tmp/strace.err"
grep -q 'write(1</[^>]*out2>, "bye' "$tmp/root.strace" || fail "the capture has no write of the root to out2"
"$REPLAY" stat "$tmp/root.strace" > /dev/null 2> "$tmp/root.err"
! grep -q "descriptors the trace never opened" "$tmp/root.err" || fail "the root's stdout warned: $(cat "$tmp/root.err")"
echo "ok: the filtered capture's inherited stdout is warned, the whole capture's and the traced command's not"
