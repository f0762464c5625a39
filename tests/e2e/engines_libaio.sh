#!/usr/bin/env bash
# engines_libaio: -e libaio end to end (see engines_common.bash).
set -euo pipefail
source "$(dirname "$0")/engines_common.bash"

run_engine libaio
# libaio without --direct is synchronous in the kernel: replay says so
grep -qi "direct" libaio.err || { echo "FAIL: no buffered-libaio warning:"; cat libaio.err; exit 1; }
echo "engines_libaio: ok"

# ... unless the trace opened its files O_DIRECT (they are opened O_DIRECT
# in the replay too): a capture of dd oflag=direct, made here, gets no
# such warning; the same dd without it gets one that counts its writes
# (the test dir may be under /var/tmp, a default exclude: --include it)
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
	mkdir -p dw dt && strace -f -tt -T -y -o dd-direct.txt dd if=/dev/zero of=dw/f bs=64k count=16 \
		oflag=direct status=none 2>/dev/null
	if grep -q 'O_DIRECT' dd-direct.txt && [ -s dw/f ]; then
		"$REPLAY" run -e libaio -q 4 --no-drop-caches --include "$PWD" dd-direct.txt dt >dd.out 2>dd.err ||
			{ cat dd.err; echo "FAIL: replay of dd oflag=direct with libaio"; exit 1; }
		! grep -qi "without --direct" dd.err ||
			{ cat dd.err; echo "FAIL: buffered-libaio warning for a trace whose files are O_DIRECT"; exit 1; }
		rm -rf dw dt && mkdir -p dw dt
		strace -f -tt -T -y -o dd-buf.txt dd if=/dev/zero of=dw/f bs=64k count=16 status=none
		"$REPLAY" run -e libaio -q 4 --no-drop-caches --include "$PWD" dd-buf.txt dt >dd.out 2>dd.err ||
			{ cat dd.err; echo "FAIL: replay of dd with libaio"; exit 1; }
		grep -q "without --direct: 16 of the 16 reads and writes" dd.err ||
			{ cat dd.err; echo "FAIL: no buffered-libaio warning counting dd's 16 writes"; exit 1; }
		echo "engines_libaio: ok (dd oflag=direct: no buffered warning; dd: 16 of 16 buffered)"
	else
		echo "note: dd oflag=direct failed here (no O_DIRECT in $(pwd)?): its case is not tested"
	fi
fi
