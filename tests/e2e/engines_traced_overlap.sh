#!/usr/bin/env bash
# Traced async overlap is reproduced: a libsysio trace that submits 8
# iwritex before waiting for any of them keeps more than one write in
# flight with an async engine (no --overlap: only the trace's own overlap),
# while the same writes traced as synchronous pwrite64 calls keep exactly
# one in flight with the same engine and depth, and the sync engine runs
# the async trace one op at a time.
set -euo pipefail
: "${REPLAY:?}"
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/replay-e2e-ovl.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

n=8 sz=65536
{
	echo "header version(1.0) headernode(1.100) app(overlap) hand-written"
	echo "tracetype(ENTER)time:(1000)time:(10)str(open)str(/o/async.dat)flags(66)mode(420)"
	echo "tracetype(EXIT)time:(1000)time:(20)str(open)ret(3)"
	for i in $(seq 1 $n); do
		echo "tracetype(ENTER)time:(1000)time:($((100 + i * 10)))str(iwritex)fd(3)ziovec(base(0x1000)len($sz))xtvec(off($(( (i - 1) * sz )))len($sz))"
		echo "tracetype(EXIT)time:(1000)time:($((105 + i * 10)))str(iwritex)ret($i)"
	done
	for i in $(seq 1 $n); do
		echo "tracetype(ENTER)time:(1000)time:($((500 + i * 10)))str(iowait)ioid($i)"
		echo "tracetype(EXIT)time:(1000)time:($((505 + i * 10)))str(iowait)ret($sz)"
	done
	echo "tracetype(ENTER)time:(1000)time:(900)str(close)fd(3)"
	echo "tracetype(EXIT)time:(1000)time:(910)str(close)ret(0)"
} > async.sanitized
{
	echo "100  10:00:00.000010 openat(AT_FDCWD, \"/o/sync.dat\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>"
	for i in $(seq 1 $n); do
		printf '100  10:00:00.%06d pwrite64(3, "xx"..., %d, %d) = %d <0.000010>\n' $((100 + i)) $sz $(( (i - 1) * sz )) $sz
	done
	echo "100  10:00:00.000900 close(3) = 0 <0.000005>"
} > sync.txt

jq_() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
inflight() { jq_ "$1" "d['runs'][0]['jobs'][0]['max_inflight']"; }
written() { jq_ "$1" "d['runs'][0]['jobs'][0]['write']['io_bytes']"; }

engines=(libaio)
if "$REPLAY" run -e io_uring -q $n --no-drop-caches --quiet sync.txt "$(mktemp -d -p .)" >/dev/null 2>probe.err; then
	engines+=(io_uring)
elif grep -q "io_uring is blocked" probe.err; then
	echo "note: io_uring blocked here, checking libaio only: $(cat probe.err)"
else
	cat probe.err; exit 1
fi

for eng in "${engines[@]}"; do
	mkdir "a-$eng" "s-$eng"
	"$REPLAY" run -e "$eng" -q $n --no-drop-caches --quiet -o "a-$eng.json" async.sanitized "a-$eng" >/dev/null 2>&1
	"$REPLAY" run -e "$eng" -q $n --no-drop-caches --quiet -o "s-$eng.json" sync.txt "s-$eng" >/dev/null 2>&1
	a=$(inflight "a-$eng.json") s=$(inflight "s-$eng.json")
	[ "$(written "a-$eng.json")" -eq $((n * sz)) ] || { echo "FAIL: $eng async trace wrote $(written "a-$eng.json")"; exit 1; }
	[ "$(written "s-$eng.json")" -eq $((n * sz)) ] || { echo "FAIL: $eng sync trace wrote $(written "s-$eng.json")"; exit 1; }
	[ "$a" -gt 1 ] && [ "$a" -le $n ] || { echo "FAIL: $eng: traced async overlap gave max_inflight $a, expected 2..$n"; exit 1; }
	[ "$s" -eq 1 ] || { echo "FAIL: $eng: synchronous trace gave max_inflight $s, expected 1"; exit 1; }
	echo "ok: $eng: async trace in flight $a, synchronous trace 1"
done
mkdir a-sync
"$REPLAY" run -e sync --no-drop-caches --quiet -o a-sync.json async.sanitized a-sync >/dev/null 2>&1
[ "$(inflight a-sync.json)" -eq 1 ] || { echo "FAIL: sync engine in flight $(inflight a-sync.json)"; exit 1; }
[ "$(written a-sync.json)" -eq $((n * sz)) ]
echo "ok: sync engine runs the async trace one op at a time"
