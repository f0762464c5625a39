#!/usr/bin/env bash
# A descriptor another process uses (a forked child, a thread: ranks of
# their own in the replay, which reopen it) is the file the trace's
# descriptor was, with its flags now (audit S2):
#  - rotated: a shell opens app.log on fd 3, renames it app.log.1, opens
#    a new app.log, and a subshell writes to fd 3.  The subshell's
#    reopen was of the name the file had at its open, app.log: its 3893
#    bytes went into the new file, exit 0.  Captured with and without -y.
#  - appended: a thread writes to a descriptor of the main thread, then
#    the main thread sets O_APPEND on it (F_SETFL) and appends 1000
#    bytes, then the thread appends 20.  The thread's reopen had no
#    O_APPEND, so its 20 bytes went at their traced offset and the main
#    thread's append after them: 2130 bytes, not 1130, exit 0.
# Each is replayed in parallel, and the files the replay leaves are
# compared with the ones the captured program left.
#  - late: a thread appends 130 bytes (after another set O_APPEND), then
#    a forked child writes 1 byte at 2000: the child's write did not wait
#    for the append, which, replayed after it, landed past 2001: 2131
#    bytes for 2001, most runs, exit 0 (audit REG4).
#  - exchanged: renameat2(A, B, RENAME_EXCHANGE) swaps two files' names;
#    it was replayed as a rename of A over B (B's file lost, A missing,
#    exit 0).  Now three renames; a forked child writes to the descriptor
#    the parent opened on A before, now B's file.
#  - unnamed: a thread writes to a file the main thread made unlinked
#    (O_TMPFILE, or unlinked after its open); the main thread reads it
#    back.  No process of the replay can open the file the other's open
#    made: warned (it was not), naming the first such use.
set -euo pipefail
# shellcheck source=lib/strace_prelude.sh
. "$(dirname "$0")/lib/strace_prelude.sh"

# capture NAME STRACE_OPTS... -- CMD...: in $tmp/src/NAME (its cwd), the
# trace to $tmp/NAME.strace
capture() {
	local name=$1 opts=()
	shift
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	mkdir -p "$tmp/src/$name"
	(cd "$tmp/src/$name" && strace -f -tt -T "${opts[@]}" -o "$tmp/$name.strace" "$@") \
		2> "$tmp/strace.err" ||
		{ grep -qi "ptrace" "$tmp/strace.err" && { echo "skip: strace cannot trace here"; exit 0; }; \
		  fail "strace: $(cat "$tmp/strace.err")"; }
}

# sizes DIR: "NAME SIZE" of each file under DIR, sorted
sizes() { (cd "$1" && find . -type f -printf '%f %s\n' | sort); }

# check NAME RUNS [rel]: replays $tmp/NAME.strace RUNS times in parallel,
# each time with another engine, and compares the files left with the
# program's (rel: the capture has no -y, so its paths are as the program
# spelled them, relative to a directory it does not show: the target's
# top, and only the program's files, the system's left out by default)
check() {
	local name=$1 runs=$2 rel=${3:-} i e engines=(sync libaio io_uring) want got
	local filter=(--exclude '*' --include "$tmp/src/*") under=$tmp/src/$name
	[ -z "$rel" ] || filter=() under=
	want=$(sizes "$tmp/src/$name")
	for ((i = 0; i < runs; i++)); do
		e=${engines[i % 3]}
		rm -rf "$tmp/t"; mkdir "$tmp/t"
		local rc=0
		"$REPLAY" run -m parallel -e "$e" --keep --no-drop-caches "${filter[@]}" \
			"$tmp/$name.strace" "$tmp/t" > "$tmp/out" 2> "$tmp/err" || rc=$?
		if [ "$rc" != 0 ] && [ "$e" = io_uring ] && grep -q "io_uring" "$tmp/err"; then
			continue        # not available here: the other engines stand for it
		fi
		[ "$rc" = 0 ] || fail "$name run $i ($e): exit $rc: $(grep -v '^replay: \(start\|end\)' "$tmp/err")"
		got=$(sizes "$tmp/t$under")
		[ "$got" = "$want" ] || fail "$name run $i ($e): files $(echo $got), the program left $(echo $want)"
	done
	echo "ok $name: $runs parallel runs leave what the program left: $(echo $want)"
}

script='exec 3>app.log; echo first >&3; mv app.log app.log.1; exec 4>app.log; echo new >&4; (seq 1 1000 >&3)'
capture rotated_y -y -- sh -c "$script"
capture rotated -- sh -c "$script"
# the capture is what the test needs: the subshell wrote to the rotated file
grep -q 'write(1</[^>]*/app\.log\.1>, "1\\n2\\n' "$tmp/rotated_y.strace" \
	|| fail "the capture has no write of the subshell to app.log.1: $(grep 'app\.log' "$tmp/rotated_y.strace" | tail -3)"
check rotated_y 3
check rotated 3 rel

cat > "$tmp/append.py" <<'PY'
import fcntl, os, threading
fd = os.open("shared.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, b"a" * 100)
first, setfl, second = threading.Event(), threading.Event(), threading.Event()
def thread():
    os.write(fd, b"t" * 10)             # before the F_SETFL: a plain write
    first.set()
    setfl.wait()
    os.write(fd, b"u" * 20)             # after it: an append
    second.set()
t = threading.Thread(target=thread)
t.start()
first.wait()
fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
os.lseek(fd, 0, os.SEEK_SET)
os.write(fd, b"m" * 1000)               # an append all the same
setfl.set()
second.wait()
t.join()
os.close(fd)
PY
capture append -y -- python3 "$tmp/append.py"
[ "$(stat -c %s "$tmp/src/append/shared.log")" = 1130 ] || fail "the program left shared.log of $(stat -c %s "$tmp/src/append/shared.log") bytes, not 1130"
grep -q 'fcntl([0-9]*</[^>]*shared\.log>, F_SETFL, O_WRONLY|O_APPEND' "$tmp/append.strace" \
	|| fail "the capture has no F_SETFL of shared.log: $(grep 'shared\.log' "$tmp/append.strace" | tail -3)"
check append 6

cat > "$tmp/unnamed.py" <<'PY'
import os, sys, threading
if sys.argv[1] == "tmpfile":
    fd = os.open(".", os.O_RDWR | os.O_TMPFILE, 0o600)
else:
    fd = os.open("gone.tmp", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    os.unlink("gone.tmp")
t = threading.Thread(target=lambda: os.write(fd, b"x" * 100000))
t.start()
t.join()
os.lseek(fd, 0, os.SEEK_SET)
data = os.read(fd, 100000)
with open("out.bin", "wb") as f:
    f.write(data)
PY
for how in tmpfile unlinked; do
	capture "unnamed_$how" -y -- python3 "$tmp/unnamed.py" "$how"
	[ "$(stat -c %s "$tmp/src/unnamed_$how/out.bin")" = 100000 ] || fail "unnamed_$how: the program's out.bin is not 100000 bytes"
	"$REPLAY" stat --exclude '*' --include "$tmp/src/*" "$tmp/unnamed_$how.strace" > "$tmp/out" 2> "$tmp/err" \
		|| fail "unnamed_$how: stat: $(cat "$tmp/err")"
	grep -q "warning: .*: 1 descriptor of a file with no name by then (unlinked, or made with O_TMPFILE) is used by another rank than the one that opened it, first at .*unnamed_$how.strace:[0-9]* (.*)" "$tmp/err" \
		|| fail "unnamed_$how: no warning: $(cat "$tmp/err")"
	"$REPLAY" stat --json "$tmp/unnamed_$how.strace" 2> /dev/null | jq -e '.notes.unnamed_shared_opens == 1' > /dev/null \
		|| fail "unnamed_$how: notes $("$REPLAY" stat --json "$tmp/unnamed_$how.strace" 2> /dev/null | jq -c .notes)"
	echo "ok unnamed_$how: the thread's use of the main thread's unnamed file is warned"
done

cat > "$tmp/late.py" <<'PY'
import fcntl, os, threading
fd = os.open("s.dat", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, b"x" * 1000)
def setapp():
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
for f in (setapp, lambda: os.write(fd, b"a" * 130)):
    t = threading.Thread(target=f)
    t.start()
    t.join()
pid = os.fork()
if pid == 0:
    fcntl.fcntl(fd, fcntl.F_SETFL, 0)
    os.lseek(fd, 2000, os.SEEK_SET)
    os.write(fd, b"c")
    os._exit(0)
os.waitpid(pid, 0)
os.close(fd)
PY
capture late -y -- python3 "$tmp/late.py"
[ "$(stat -c %s "$tmp/src/late/s.dat")" = 2001 ] || fail "the program left s.dat of $(stat -c %s "$tmp/src/late/s.dat") bytes, not 2001"
check late 9

cat > "$tmp/exchange.py" <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for name, n in (("A", 1000), ("B", 3000)):
    with open(name, "wb") as f:
        f.write(b"x" * n)
fd = os.open("A", os.O_WRONLY | os.O_APPEND)
if libc.renameat2(-100, b"A", -100, b"B", 2) != 0:          # AT_FDCWD, RENAME_EXCHANGE
    raise OSError(ctypes.get_errno(), "renameat2")
pid = os.fork()
if pid == 0:
    os.write(fd, b"y" * 10)             # to the file now named B
    os._exit(0)
os.waitpid(pid, 0)
with open("A", "rb") as f:
    assert len(f.read()) == 3000
PY
capture exchanged -y -- python3 "$tmp/exchange.py"
grep -q 'renameat2(AT_FDCWD</[^>]*>, "A", AT_FDCWD</[^>]*>, "B", RENAME_EXCHANGE' "$tmp/exchanged.strace" \
	|| fail "the capture has no renameat2 RENAME_EXCHANGE: $(grep renameat2 "$tmp/exchanged.strace")"
check exchanged 3
"$REPLAY" stat --json "$tmp/exchanged.strace" 2> /dev/null | jq -e '.notes.rename_exchanges == 1' > /dev/null \
	|| fail "exchanged: notes $("$REPLAY" stat --json "$tmp/exchanged.strace" 2> /dev/null | jq -c .notes)"
