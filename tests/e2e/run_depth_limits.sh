#!/usr/bin/env bash
# A -q the engine cannot give is refused before any file is prepared, with
# the limit named: io_uring rings hold at most 32768 requests; libaio
# contexts count against fs.aio-max-nr, summed over the workers running at
# once (every process in parallel mode, one in sequential mode).  Before,
# each worker's setup failed after the target was prepared ("worker setup
# (engine io_uring, depth 32769): Invalid argument").
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-depth-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
trace="$SRCDIR/tests/data/strace/s_f_tt_T_y.txt"     # 3 ranks
mkdir "$tmp/t"
skipped=""

# run_refused NAME ARGS...: exit 1, no worker started, nothing prepared
run_refused() {
	local name=$1; shift
	set +e
	"$REPLAY" run --no-drop-caches --quiet "$@" "$trace" "$tmp/t" > "$tmp/$name.out" 2> "$tmp/$name.err"
	local rc=$?
	set -e
	[ "$rc" = 1 ] || fail "$name: exit $rc, want 1: $(cat "$tmp/$name.err")"
	grep -q "worker setup" "$tmp/$name.err" && fail "$name: a worker was started: $(cat "$tmp/$name.err")"
	[ -z "$(ls -A "$tmp/t")" ] || fail "$name: the target was prepared: $(ls -A "$tmp/t")"
	return 0
}

# io_uring (when the kernel lets us use it at all)
if "$REPLAY" run -e io_uring --no-drop-caches --quiet "$trace" "$tmp/t" 2> "$tmp/probe.err"; then
	run_refused uring -e io_uring -q 32769
	grep -q "engine 'io_uring': -q 32769: an io_uring ring holds at most 32768 requests" \
		"$tmp/uring.err" || fail "io_uring message: $(cat "$tmp/uring.err")"
	"$REPLAY" run -e io_uring -q 32768 --no-drop-caches --quiet "$trace" "$tmp/t" \
		|| fail "io_uring -q 32768 was refused"
else
	skipped="io_uring ($(head -1 "$tmp/probe.err"))"
fi

# libaio: a depth that fits alone but not times the parallel processes
max=$(cat /proc/sys/fs/aio-max-nr)
used=$(cat /proc/sys/fs/aio-nr)
q=$(( (max - used) / 2 + 1 ))             # 3 processes need > the room left
if [ "$q" -ge 1 ] && [ "$q" -le 65536 ]; then
	run_refused aio -e libaio -q "$q"
	grep -q "engine 'libaio': -q $q with 3 processes at once needs $((3 * q)) AIO requests, and fs.aio-max-nr allows $max" \
		"$tmp/aio.err" || fail "libaio message: $(cat "$tmp/aio.err")"
	grep -q "sysctl -w fs.aio-max-nr=" "$tmp/aio.err" || fail "libaio message names no remedy"
	# one process at a time fits
	"$REPLAY" run -m sequential -e libaio -q "$q" --no-drop-caches --quiet "$trace" "$tmp/t" \
		|| fail "sequential libaio -q $q was refused"
else
	skipped="$skipped libaio (fs.aio-max-nr $max: no -q up to 65536 exceeds it for 3 processes)"
fi
echo "ok${skipped:+ (not checked: $skipped)}"
