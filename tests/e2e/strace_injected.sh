#!/usr/bin/env bash
# strace_injected: strace's fault injection (-e inject=SET:retval=N) makes
# a call's result up: "write(3, ..., 1000) = 100 (INJECTED)".  The call
# did not run: the kernel wrote nothing and the file offset did not move.
# It was replayed as a write of 100 bytes that moved the offset, so every
# later write landed 100 bytes further (audit SF: 7100 bytes for 7000, exit
# 0, no word).  Now such calls are left out, counted and warned with the
# first FILE:LINE; an injected error (= -1 ENOSPC (INJECTED)) is a failed
# call, not replayed, as before.  Captured at test time: dd, which writes
# the rest of a short write again.
set -euo pipefail
# shellcheck source=lib/strace_prelude.sh
. "$(dirname "$0")/lib/strace_prelude.sh"
mkdir "$tmp/src"
f=$tmp/src/out.bin
capture() { # NAME INJECT (dd fails on an injected error: its status is not looked at)
	strace -f -tt -T -y -P "$f" -e inject="$2" -o "$tmp/$1.strace" \
		dd if=/dev/zero of="$f" bs=1000 count=7 status=none 2> "$tmp/strace.err" || true
	if grep -qi "ptrace\|inject\|strace:" "$tmp/strace.err"; then
		echo "skip: strace cannot inject here: $(head -1 "$tmp/strace.err")"
		exit 0
	fi
}
for how in retval error; do
	rm -f "$f"
	if [ $how = retval ]; then
		capture $how write:retval=100:when=2
		grep -q '= 100 (INJECTED)' "$tmp/$how.strace" || fail "$how: no injected result in the capture"
	else
		capture $how write:error=ENOSPC:when=3
		grep -q '= -1 ENOSPC (No space left on device) (INJECTED)' "$tmp/$how.strace" ||
			fail "$how: no injected error in the capture: $(grep INJECTED "$tmp/$how.strace")"
	fi
	want=$(stat -c %s "$f")
	rm -rf "$tmp/t"; mkdir "$tmp/t"
	"$REPLAY" run --keep --no-drop-caches "$tmp/$how.strace" "$tmp/t" > "$tmp/out" 2> "$tmp/err" ||
		fail "$how: run: exit $?: $(cat "$tmp/err")"
	got=$(stat -c %s "$tmp/t$f")
	[ "$got" = "$want" ] || fail "$how: the replay left $got bytes, the program $want"
	line=$(grep -n '(INJECTED)' "$tmp/$how.strace" | head -1 | cut -d: -f1)
	if [ $how = retval ]; then
		grep -q "warning: .*$how.strace: 1 call with a result strace's fault injection made up ('= N (INJECTED)': -e inject=...:retval=; at .*$how.strace:$line)" "$tmp/err" ||
			fail "$how: no warning at line $line: $(cat "$tmp/err")"
		# the writes dump shows: every one the kernel made, none made up
		n=$("$REPLAY" dump "$tmp/$how.strace" 2>/dev/null | awk '$4 == "write"' | wc -l)
		k=$(grep -c 'write(1</[^>]*out.bin>, .*) = [0-9]* <' "$tmp/$how.strace")
		[ "$n" = "$k" ] || fail "$how: dump shows $n writes, the capture $k that ran"
	else
		! grep -q "fault injection made up" "$tmp/err" || fail "$how: an injected error warned as made up"
	fi
	echo "ok $how: $got bytes, as the program left"
done
