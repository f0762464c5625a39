#!/usr/bin/env bash
# The end-of-run flush syncs what a worker wrote, created or truncated, and
# nothing else: a file opened read-write and only read (an MPI rank that
# opens the shared file O_RDWR but leaves the writing to an aggregator)
# gets no fsync.  Before, every file opened for writing was synced.  The
# capture is made here (python: reads a file it opened 'r+', writes
# another, creates an empty one); strace of the replay is read by grep,
# not by replay.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
REPLAY=$(realpath "$REPLAY")
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
strace -f -o /dev/null true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
tmp=$(mktemp -d /tmp/replay-e2e-fsync-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
cd "$tmp"
mkdir w tgt
head -c 100000 /dev/urandom > w/shared.dat
strace -f -tt -T -y -o cap.txt python3 -c '
import sys
w = sys.argv[1]
with open(w + "/shared.dat", "r+b") as f:      # O_RDWR, only read
    while f.read(8192):
        pass
with open(w + "/out.dat", "wb") as f:          # written
    f.write(b"x" * 50000)
open(w + "/empty.dat", "wb").close()            # created, never written
' "$tmp/w"
grep -q 'shared.dat", O_RDWR' cap.txt || fail "the capture does not open shared.dat O_RDWR"

strace -f -y -e trace=fsync,fdatasync -o rep.txt "$REPLAY" run --no-drop-caches --keep --quiet \
	cap.txt tgt >out.txt 2>&1 || { cat out.txt; fail "replay run failed"; }
n() { grep -c "fsync([0-9]*<$tmp/tgt$tmp/w/$1>" rep.txt || true; }
[ "$(n shared.dat)" = 0 ] || { grep shared.dat rep.txt; fail "shared.dat (opened O_RDWR, only read) was synced $(n shared.dat) times"; }
[ "$(n out.dat)" = 1 ] || fail "out.dat (written) was synced $(n out.dat) times, expected 1"
[ "$(n empty.dat)" = 1 ] || fail "empty.dat (created) was synced $(n empty.dat) times, expected 1"
[ "$(stat -c %s "tgt$tmp/w/out.dat")" = 50000 ] || fail "out.dat is not 50000 bytes"
echo "ok end-of-run flush: out.dat (written) and empty.dat (created) synced once, shared.dat (O_RDWR, only read) not"
