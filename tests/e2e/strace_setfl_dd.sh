#!/usr/bin/env bash
# fcntl(F_SETFL) replayed: GNU dd with oflag=direct writes whole blocks
# with O_DIRECT, then clears it (F_SETFL) before its last, partial block,
# which O_DIRECT would refuse (EINVAL).  A capture of the real dd, made
# here, replays with every engine: exit 0, no mismatch, the bytes an
# independent reading of the capture (awk, not replay's parser) sums; under
# strace the replay itself clears O_DIRECT on that file before its last
# write, and keeps it with --direct (every data op direct, as asked).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
tmp=$(mktemp -d /tmp/replay-e2e-setfl-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"
if ! dd if=/dev/zero of=probe bs=4096 count=1 oflag=direct status=none 2>/dev/null; then
	echo "SKIP: $(df -T . | awk 'NR == 2 { print $2 }') under /tmp refuses O_DIRECT"
	exit 77
fi
strace -f -o /dev/null true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
# 73 blocks of 4096 and a partial one of 992 bytes
head -c 300000 /dev/urandom > in
strace -f -tt -T -y -o cap.txt dd if=in of=out bs=4096 oflag=direct status=none
cmp -s in out || fail "dd did not copy"

# the independent reading: writes to .../out, their bytes, and an F_SETFL
# on it that drops O_DIRECT before the last one
awk '
	/ write\([0-9]+<[^>]*\/out>/ && / = [0-9]+ </ {
		n = $0; sub(/.* = /, "", n); sub(/ .*/, "", n); bytes += n; writes++; last = n
		if (setfl) after++
	}
	/ fcntl\([0-9]+<[^>]*\/out>, F_SETFL, / && !/O_DIRECT/ { setfl = 1 }
	END { printf "%d %d %d %d\n", writes, bytes, setfl, after }' cap.txt > ref.txt
read -r writes bytes setfl after < ref.txt
[ "$bytes" = 300000 ] && [ "$setfl" = 1 ] && [ "$after" = 1 ] ||
	fail "the capture is not what this test is about (writes bytes setfl after: $(cat ref.txt))"

# the op stream has it, with the flags it set (none of the changeable ones)
"$REPLAY" convert -o cap.ops cap.txt >/dev/null
# (into a file: grep -q leaving at the match, near the end, made dump's
# last write fail with EPIPE now and then, and the pipeline with it under
# pipefail: this failed once in CI's sanitizer pass)
"$REPLAY" dump cap.ops > cap.dump
grep -Eq '^0 .* setfl .*oflags=0x0[,]' cap.dump || fail "no setfl op: $(grep -c ' setfl ' cap.dump)"

uring=yes
mkdir tgt
"$REPLAY" run --quiet --no-drop-caches -e io_uring cap.txt tgt >/dev/null 2>uring.err ||
	{ grep -q "io_uring" uring.err && uring=no; }
engines="sync libaio"; [ "$uring" = yes ] && engines="$engines io_uring" || echo "note: io_uring unavailable here: $(head -1 uring.err)"
for e in $engines; do
	"$REPLAY" run --quiet --no-drop-caches -e "$e" -q 4 -o "r-$e.json" cap.txt tgt > /dev/null ||
		fail "$e: replay of dd oflag=direct failed"
	jq -e --argjson b "$bytes" --argjson w "$writes" '.runs[0].jobs[0] | .mismatches.total == 0
	    and .write.io_bytes == $b and .write.total_ios == $w and .write.errors == 0' "r-$e.json" >/dev/null ||
		fail "$e: $(jq -c '.runs[0].jobs[0] | {mismatches, w: .write.io_bytes, n: .write.total_ios}' "r-$e.json")"
done

# what the replay itself did to the file (strace of replay, not its JSON;
# LeakSanitizer cannot run under ptrace)
for direct in "" --direct; do
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -y -e trace=fcntl,pwrite64 -o "rs$direct.txt" \
		"$REPLAY" run --quiet --no-drop-caches $direct cap.txt tgt > /dev/null ||
		fail "replay $direct failed"
	awk -v direct="$direct" '
		/ fcntl\([0-9]+<[^>]*\/out>, F_SETFL, / {
			if ((direct == "") == ($0 !~ /O_DIRECT/)) ok = 1; else bad = 1
		}
		/ pwrite64\([0-9]+<[^>]*\/out>, / { if (ok) after++; last = $0 }
		END {
			# the last block: 992 bytes, or with --direct rounded up to
			# the device'"'"'s block, at 299008, all written
			n = split(last, f, /, /); sub(/\).*/, "", f[n]); ret = last; sub(/.* = /, "", ret)
			len = f[n - 1]
			exit !(ok && !bad && after == 1 && f[n] == 299008 && ret == len &&
			       (direct == "" ? len == 992 : len >= 992))
		}' "rs$direct.txt" || fail "replay $direct: $(grep -E 'F_SETFL|299008' "rs$direct.txt" | cut -c1-160)"
done
[ -z "$(ls -A tgt)" ] || fail "files left in the target"
echo "ok: dd oflag=direct ($writes writes, $bytes bytes, F_SETFL before the last) replayed with $engines, and with --direct"
