#!/usr/bin/env bash
# A full file system: a trace writing 4 MiB on a 1 MiB tmpfs.  The run
# stops naming ENOSPC, exits non-zero, leaves nothing behind; with
# --continue-on-error it goes on, counts every failure, still exits 1.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"
tmp=$(mktemp -d /tmp/replay-e2e-nospc-XXXXXX)
mnt="$tmp/mnt"
mkdir "$mnt"
cleanup() { umount "$mnt" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
if ! mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
    echo "skip: cannot mount a tmpfs here (needs root / CAP_SYS_ADMIN)"
    exit 77
fi
fail() { echo "FAIL: $*" >&2; exit 1; }

gen_writes 700 /full/w.dat 1024 4096 0 > "$tmp/w.txt"      # 4 MiB
set +e
"$REPLAY" run --no-drop-caches --quiet -o "$tmp/r.json" "$tmp/w.txt" "$mnt" > "$tmp/out" 2> "$tmp/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "exit $rc, want 1: $(cat "$tmp/err")"
grep -q "rank 0 (process 0, worker pid [0-9]*) failed: write '/full/w.dat' (op [0-9]*, trace line [0-9]*): No space left on device" \
    "$tmp/err" || fail "message: $(cat "$tmp/err")"
[ -z "$(ls -A "$mnt")" ] || fail "files left: $(find "$mnt")"
jq -e '.runs[0].incomplete == true and .runs[0].failed == true
       and .runs[0].jobs[0].errors.ENOSPC == 1 and .runs[0].jobs[0].status == "failed"
       and .runs[0].jobs[0].write.errors == 1' "$tmp/r.json" >/dev/null \
    || fail "json: $(jq -c '.runs[0].jobs[0] | {errors, status, w: .write.errors}' "$tmp/r.json")"
# about 1 MiB went in before the failure: 200..256 writes of 4 KiB
jq -e '.runs[0].jobs[0].write.total_ios | . > 200 and . <= 257' "$tmp/r.json" >/dev/null \
    || fail "writes before ENOSPC: $(jq '.runs[0].jobs[0].write.total_ios' "$tmp/r.json")"

set +e
"$REPLAY" run --no-drop-caches --quiet --continue-on-error -o "$tmp/c.json" "$tmp/w.txt" "$mnt" \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "--continue-on-error: exit $rc"
grep -q "replayed ops failed or moved fewer bytes than traced (write [0-9]*; ENOSPC [0-9]*)" "$tmp/err" || fail "message: $(cat "$tmp/err")"
[ -z "$(ls -A "$mnt")" ] || fail "files left: $(find "$mnt")"
# every write was issued; the ones that did not fit are counted by errno
jq -e '.runs[0].incomplete == false and .runs[0].jobs[0].write.total_ios == 1024
       and .runs[0].jobs[0].errors.ENOSPC == .runs[0].jobs[0].write.errors
       and .runs[0].jobs[0].write.errors > 700' "$tmp/c.json" >/dev/null \
    || fail "json: $(jq -c '.runs[0].jobs[0] | {errors, t: .write.total_ios}' "$tmp/c.json")"
grep -q "^errors: *ENOSPC: " "$tmp/out" || fail "summary lacks the errno line"
# the fio layout says the same: bytes transferred (about 1 MiB, not the
# traced 4 MiB), the errors counted, the first one ENOSPC (28); the worker
# did not stop, so fio's "error" stays 0 as with fio's continue_on_error
jq -e '.jobs[0] as $j | .runs[0].jobs[0].write as $w
       | $j.write.io_bytes == $w.done_bytes and $j.write.io_bytes <= 1048576
       and $w.io_bytes == 4194304 and $j.total_err == .runs[0].jobs[0].errors.ENOSPC
       and $j.first_error == 28 and $j.error == 0
       and $j.write.bw_bytes < ($w.done_bytes * 1000000000 / $w.runtime_ns + 1)' \
    "$tmp/c.json" >/dev/null \
    || fail "fio keys: $(jq -c '.jobs[0] | {error, total_err, first_error, w: .write.io_bytes, bw: .write.bw_bytes}' "$tmp/c.json")"
# and the stopped run: its error is the errno that stopped it
jq -e '.jobs[0].error == 28 and .jobs[0].first_error == 28 and .jobs[0].total_err == 1' \
    "$tmp/r.json" >/dev/null \
    || fail "fio keys of the stopped run: $(jq -c '.jobs[0] | {error, total_err, first_error}' "$tmp/r.json")"
# the examples say where: FILE:LINE for a trace of one file (an .ops made
# of one names it), the rank and the line for several files.  The first
# write that found no room: 1 MiB in, the 257th, line 258 (the open is 1).
grep -q "^             $tmp/w.txt:258: write failed with ENOSPC" "$tmp/out" \
    || fail "example of a one-file trace: $(grep -A2 '^mismatches' "$tmp/out")"
"$REPLAY" convert --quiet -o "$tmp/w.ops" "$tmp/w.txt"
"$REPLAY" run --no-drop-caches --quiet --continue-on-error "$tmp/w.ops" "$mnt" > "$tmp/out" 2>&1 || true
grep -q "^             $tmp/w.txt:258: write failed with ENOSPC" "$tmp/out" \
    || fail "example of an .ops of one file: $(grep -A2 '^mismatches' "$tmp/out")"
gen_writes 703 /full/x.dat 400 4096 0 > "$tmp/x.txt"
gen_writes 704 /full/y.dat 400 4096 0 > "$tmp/y.txt"
"$REPLAY" run --no-drop-caches --quiet --continue-on-error "$tmp/x.txt" "$tmp/y.txt" "$mnt" > "$tmp/out" 2>&1 || true
grep -Eq "^             rank [01] \(pid 70[34] of $tmp/[xy].txt\), $tmp/[xy].txt:[0-9]+: write failed with ENOSPC" "$tmp/out" \
    || fail "example of a two-file trace: $(grep -A2 '^mismatches' "$tmp/out")"
[ -z "$(ls -A "$mnt")" ] || fail "files left: $(find "$mnt")"
# input that cannot fit: the run refuses before preparing; --dry-run still
# prints the plan, says where the run would stop, and exits 0
printf '1 10:00:00.000001 openat(AT_FDCWD, "/d/in", O_RDONLY) = 3 <0.000010>\n1 10:00:00.000020 pread64(3, "x"..., 2097152, 0) = 2097152 <0.000100>\n1 10:00:00.000200 close(3) = 0 <0.000003>\n' > "$tmp/in.txt"
if "$REPLAY" run --no-drop-caches --quiet "$tmp/in.txt" "$mnt" > "$tmp/out" 2> "$tmp/err"; then
    fail "2 MiB of input prepared on a 1 MiB tmpfs"
fi
grep -q "needs 2.0 MiB (2097152 bytes) but '$mnt' has only" "$tmp/err" || fail "space message: $(cat "$tmp/err")"
"$REPLAY" run --dry-run "$tmp/in.txt" "$mnt" > "$tmp/out" 2> "$tmp/err" || fail "--dry-run refused: $(cat "$tmp/err")"
grep -q "^  the run would stop here: preparing the files read by the trace needs 2.0 MiB" "$tmp/out" \
    || fail "--dry-run: $(head -4 "$tmp/out")"
grep -q "d/in .*prepare 2.0 MiB" "$tmp/out" || fail "--dry-run: no file table: $(cat "$tmp/out")"
[ -z "$(ls -A "$mnt")" ] || fail "files left: $(find "$mnt")"
# sequential: the first rank fails, the second never runs
{ gen_writes 701 /full/a.dat 1024 4096 0; gen_writes 702 /full/b.dat 1024 4096 0 100; } > "$tmp/two.txt"
set +e
"$REPLAY" run -m sequential --no-drop-caches --quiet -o "$tmp/s.json" "$tmp/two.txt" "$mnt" \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "sequential: exit $rc"
grep -q "rank 0 (process 0, worker pid [0-9]*) failed: write '/full/a.dat'.*No space left on device" "$tmp/err" \
    || fail "sequential message: $(cat "$tmp/err")"
jq -e '.runs[0].incomplete == true and .runs[0].jobs[0].status == "failed"
       and .runs[0].jobs[1].status == "not run" and .runs[0].jobs[1].write.total_ios == 0' \
    "$tmp/s.json" >/dev/null || fail "sequential json: $(jq -c '[.runs[0].jobs[].status]' "$tmp/s.json")"
[ -z "$(ls -A "$mnt")" ] || fail "files left: $(find "$mnt")"
echo "ok"

# out of inodes: the creates fail with ENOSPC where the trace's succeeded;
# their writes could not be replayed, so the run stops there (it went on
# with a warning, its writes skipped, exit 0)
mnt2="$tmp/mnt2"
mkdir "$mnt2"
mount -t tmpfs -o size=64m,nr_inodes=12 tmpfs "$mnt2" || fail "tmpfs nr_inodes=12"
cleanup() { umount "$mnt" "$mnt2" 2>/dev/null || true; rm -rf "$tmp"; }
{
    for i in $(seq 0 29); do
        t=$(printf '10:00:00.%06d' $((10 * i + 1)))
        echo "703 $t openat(AT_FDCWD, \"/many/f$i\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3"
        echo "703 $t write(3, \"x\"..., 4096) = 4096"
        echo "703 $t close(3) = 0"
    done
} > "$tmp/many.txt"
set +e
"$REPLAY" run --no-drop-caches --quiet -o "$tmp/i.json" "$tmp/many.txt" "$mnt2" > "$tmp/out" 2> "$tmp/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "out of inodes: exit $rc, want 1: $(cat "$tmp/err")"
grep -q "rank 0 (process 0, worker pid [0-9]*) failed: open '/many/f[0-9]*' (op [0-9]*, trace line [0-9]*): No space left on device" \
    "$tmp/err" || fail "out of inodes message: $(cat "$tmp/err")"
jq -e '.runs[0].failed == true and .runs[0].incomplete == true and .runs[0].jobs[0].errors.ENOSPC == 1' \
    "$tmp/i.json" >/dev/null || fail "out of inodes json: $(jq -c '.runs[0] | {failed, incomplete}' "$tmp/i.json")"
[ -z "$(ls -A "$mnt2")" ] || fail "files left: $(find "$mnt2")"
echo "ok out of inodes: stopped at the failed create"


# a write the full file system takes only part of (a short write, before
# any ENOSPC): the message says the file system is full
gen_writes 703 /part/w.dat 2 786432 0 > "$tmp/part.txt"      # 2 x 768 KiB on 1 MiB
set +e
"$REPLAY" run --no-drop-caches --quiet "$tmp/part.txt" "$mnt" > "$tmp/out" 2> "$tmp/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "short write: exit $rc, want 1: $(cat "$tmp/err")"
grep -q "failed: write '/part/w.dat' (op 2, trace line 3): [0-9]* bytes where the trace moved 786432 (the target's file system is full: [0-9]* bytes free)" \
    "$tmp/err" || fail "short write: message: $(cat "$tmp/err")"
[ -z "$(ls -A "$mnt")" ] || fail "short write: files left: $(find "$mnt")"
echo "ok a short write on a full file system says it is full"
