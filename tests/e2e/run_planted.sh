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
	truncfifo) touch "$tgt/sub/f1"; rm -f "$tgt/sub/f2"; mkfifo "$tgt/sub/f2";;
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
plant truncfifo      # (truncate by path: it hung in the open, audit REG2)
plant symlink
[ "$(cat "$tmp/t-symlink/userfile")" = "user data" ] || fail "symlink: the user's file was written"
if [ "$(id -u)" = 0 ]; then
	plant device
else
	echo "skip: device node: mknod needs root (uid $(id -u))"
fi

# what the trace makes itself, or only reads, is no planted name: a file
# made through the trace's own dangling symbolic link with O_CREAT|O_TRUNC
# (it failed EEXIST after the check), a name it hard-links and writes
# through, an input the target held with another hard link and a link to
# it, opened O_RDWR and only read (refused after the check; the plan takes
# such an input as it is)
cat > "$tmp/own.txt" <<'T'
100 10:00:00.000001 symlink("tn", "/own/dl") = 0 <0.000010>
100 10:00:00.000002 openat(AT_FDCWD, "/own/dl", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>
100 10:00:00.000003 pwrite64(3, "xxxx", 4096, 0) = 4096 <0.000010>
100 10:00:00.000004 close(3) = 0 <0.000010>
100 10:00:00.000005 link("/own/tn", "/own/hl") = 0 <0.000010>
100 10:00:00.000006 openat(AT_FDCWD, "/own/hl", O_WRONLY|O_TRUNC) = 3 <0.000010>
100 10:00:00.000007 pwrite64(3, "xxxx", 10, 0) = 10 <0.000010>
100 10:00:00.000008 close(3) = 0 <0.000010>
100 10:00:00.000009 openat(AT_FDCWD, "/in/data", O_RDWR) = 3 <0.000010>
100 10:00:00.000010 pread64(3, "x"..., 4096, 0) = 4096 <0.000010>
100 10:00:00.000011 close(3) = 0 <0.000010>
100 10:00:00.000012 openat(AT_FDCWD, "/in/alias", O_RDWR) = 3 <0.000010>
100 10:00:00.000013 pread64(3, "x"..., 4096, 0) = 4096 <0.000010>
100 10:00:00.000014 close(3) = 0 <0.000010>
T
for walk in "" walk; do
	tgt="$tmp/t-own$walk"
	mkdir -p "$tgt/in" "$tgt/else"
	head -c 65536 /dev/zero > "$tgt/in/data"
	ln "$tgt/in/data" "$tgt/else/data"
	# (the walk refuses a link in the target before the run: none there)
	[ -n "$walk" ] || ln -s data "$tgt/in/alias"
	rc=0
	REPLAY_RESOLVE=$walk "$REPLAY" run --no-drop-caches --keep -o "$tmp/own.json" "$tmp/own.txt" "$tgt" \
		> "$tmp/own.out" 2> "$tmp/own.err" || rc=$?
	[ "$rc" = 0 ] || fail "own${walk:+ (walk)}: exit $rc: $(cat "$tmp/own.err")"
	if [ -z "$walk" ]; then
		jq -e '.runs[0].jobs[0] | .write.io_bytes == 4106 and .read.io_bytes == 8192 and (.mismatches.total // 0) == 0' \
			"$tmp/own.json" > /dev/null || fail "own: $(jq -c '.runs[0].jobs[0] | {w: .write.io_bytes, r: .read.io_bytes, m: .mismatches}' "$tmp/own.json")"
		[ "$(stat -c %s "$tgt/own/tn")" = 10 ] || fail "own: tn is $(stat -c %s "$tgt/own/tn") bytes, not the 10 written through hl"
	else
		# the walk follows no link: the trace's links fail as before, warned
		grep -q "put there during the run" "$tmp/own.err" && fail "own (walk): $(cat "$tmp/own.err")"
	fi
	[ "$(stat -c %s "$tgt/in/data")" = 65536 ] || fail "own${walk:+ (walk)}: the input changed"
done
echo "ok the trace's own links, and inputs only read: replayed as before"
