#!/usr/bin/env bash
# What something else puts in the target while a run goes (a user, another
# job) is checked when a worker opens the name, not only when the plan
# was made: a hard link to a file outside the target was truncated and
# written through (exit 0, the link then removed: no trace of it), a FIFO
# hung the worker in open() for ever, a device node was written, a
# symbolic link to a user's file in the target was followed (audit T).
# Now each is refused, the run stops naming it, and nothing outside the
# target changes.  The trace makes /sub/keep at once and opens /sub/f1
# 1.5 s later (--timing trace); the name is planted in between.
set -euo pipefail
: "${REPLAY:?}"
tmp=$(mktemp -d /tmp/replay-e2e-planted-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$tmp/slow.txt" <<'T'
100 10:00:00.000001 openat(AT_FDCWD, "/sub/keep", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>
100 10:00:00.000002 close(3) = 0 <0.000010>
100 10:00:01.500001 openat(AT_FDCWD, "/sub/f1", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>
100 10:00:01.500002 pwrite64(3, "xxxx", 4096, 0) = 4096 <0.000010>
100 10:00:01.500003 close(3) = 0 <0.000010>
100 10:00:01.500004 truncate("/sub/f2", 0) = 0 <0.000010>
T
echo "data outside the target" > "$tmp/victim"
sum0=$(sha256sum < "$tmp/victim")
# plant WHAT: run the trace, and put WHAT at the name once /sub is there
plant() {
	local what=$1 tgt="$tmp/t-$1"
	rm -rf "$tgt"; mkdir "$tgt"
	"$REPLAY" run --no-drop-caches --timing trace --bind none -o "$tmp/$what.json" "$tmp/slow.txt" "$tgt" \
		> "$tmp/$what.out" 2> "$tmp/$what.err" &
	local pid=$! rc=0
	for _ in $(seq 100); do [ -e "$tgt/sub/keep" ] && break; sleep 0.02; done
	[ -e "$tgt/sub/keep" ] || fail "$what: the run never made /sub/keep: $(cat "$tmp/$what.err")"
	case $what in
	link) ln "$tmp/victim" "$tgt/sub/f1";;
	truncate) touch "$tgt/sub/f1"; ln -f "$tmp/victim" "$tgt/sub/f2";;
	fifo) mkfifo "$tgt/sub/f1";;
	symlink) echo "user data" > "$tgt/userfile"; ln -s ../userfile "$tgt/sub/f1";;
	device) mknod "$tgt/sub/f1" c 1 3;;      # /dev/null's numbers
	esac
	# (a hung worker would keep the run going: at most 20 s)
	for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" $(pgrep -P "$pid") 2>/dev/null || true
		fail "$what: the run hung"
	fi
	wait "$pid" || rc=$?
	[ "$rc" = 1 ] || fail "$what: exit $rc, want 1: $(cat "$tmp/$what.err")"
	grep -q "failed: \(open '/sub/f1'\|ftruncate '/sub/f2'\) (op [0-9]*, trace line [36]): .*put there during the run" \
		"$tmp/$what.err" || fail "$what: message: $(cat "$tmp/$what.err")"
	[ "$(sha256sum < "$tmp/victim")" = "$sum0" ] || fail "$what: the file outside the target changed"
	jq -e '.runs[0].failed == true' "$tmp/$what.json" > /dev/null || fail "$what: json failed"
	echo "ok $what: $(grep -o "put there during the run[^:]*: [a-z ]*" "$tmp/$what.err" | head -1)"
}
plant link
plant truncate
plant fifo
plant symlink
[ "$(cat "$tmp/t-symlink/userfile")" = "user data" ] || fail "symlink: the user's file was written"
if [ "$(id -u)" = 0 ]; then
	plant device
else
	echo "skip: device node: mknod needs root (uid $(id -u))"
fi
