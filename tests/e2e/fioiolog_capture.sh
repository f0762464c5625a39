#!/usr/bin/env bash
# fioiolog_capture: `replay convert --to fio-iolog` of real captures made
# here (strace -f -tt -T -y, as users capture): a python3 program that
# opens "/" O_DIRECTORY, a directory O_PATH, fsyncs a directory opened
# with O_DIRECTORY and one opened without it (what glibc, Open MPI, rsync
# and sqlite do) and writes and reads a data file; and,
# when Open MPI is installed, a two-rank MPI-IO program under mpirun.
#   - the export succeeds, and its summary line counts the ops fio cannot
#     replay that it left out (at least the program's 7 directory ops);
#   - by default the logs hold no system file (the loader's /etc and /usr,
#     /dev, /proc): what `replay run` replays; --no-default-excludes,
#     --exclude and --include change that as they change run;
#   - a failing export (a file name with a blank) leaves DIR as it was,
#     whether it existed or not;
#   - fio replays every exported log, without error, against the target
#     `replay run --keep` prepared (the workflow replay(1) describes).
# Everything is checked on the iolog text (awk, grep) and fio's output.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v strace >/dev/null || { echo "SKIP: strace not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$tmp/work/data"
cat >"$tmp/work/prog.py" <<'EOF'
import os
d = os.open('/', os.O_RDONLY | os.O_DIRECTORY)          # open + close: 2 ops
os.close(d)
p = os.open('data', os.O_PATH)                          # 2 ops
os.close(p)
dd = os.open('data', os.O_RDONLY | os.O_DIRECTORY)      # open, fsync, close: 3 ops
os.fsync(dd)
os.close(dd)
dn = os.open('data', os.O_RDONLY)   # the same without O_DIRECTORY (sqlite does so): 3 ops
os.fsync(dn)
os.close(dn)
with open('data/a.bin', 'wb') as f:
    for i in range(8):
        f.write(b'x' * 4096)
    f.flush()
    os.fsync(f.fileno())
with open('data/a.bin', 'rb') as f:
    while f.read(10000):
        pass
with open('/etc/passwd', 'rb') as f:                   # a system file read
    f.read()
EOF
(cd "$tmp/work" && strace -f -tt -T -y -o "$tmp/cap.txt" python3 prog.py </dev/null >/dev/null 2>&1) ||
	fail "the traced program failed"
grep -q 'O_DIRECTORY' "$tmp/cap.txt" || fail "no directory open in the capture"

tgt=$tmp/tgt
data=$tmp/work/data
# a log line's file name (version 2: the first field)
names() { awk 'NR > 1 { print $1 }' "$@" | sort -u; }

# -- the default export ---------------------------------------------------
"$REPLAY" convert --to fio-iolog --target "$tgt" -o "$tmp/iog" "$tmp/cap.txt" >"$tmp/sum" 2>"$tmp/err" ||
	fail "export: $(cat "$tmp/err")"
cat "$tmp/sum"
unfit=$(grep -oE 'left out [0-9]+ ops fio cannot replay' "$tmp/sum" | awk '{ print $3 }')
[ -n "$unfit" ] || fail "the summary does not say what fio cannot replay: $(cat "$tmp/sum")"
[ "$unfit" -ge 10 ] || fail "$unfit ops left out as fio cannot replay them, the program alone has 10"
# the directory opened without O_DIRECTORY is not exported as a file (fio
# would fail on it: "open(...) Is a directory", err=21)
! names "$tmp"/iog/*.iolog | grep -qx -- "$tgt$data" || fail "the data directory is in a log as a file"
grep -qE 'filter: [1-9][0-9]* ops removed' "$tmp/sum" || fail "the summary says nothing filtered"
ls "$tmp"/iog/rank-*.iolog >/dev/null || fail "no iolog written"
names "$tmp"/iog/rank-*.iolog >"$tmp/names"
! grep -E "^$tgt/(etc|usr|lib|lib64|dev|proc|sys)(/|$)" "$tmp/names" ||
	fail "system files in the default iologs"
! grep -xE "$tgt|$tgt$data|$tgt/" "$tmp/names" || fail "a directory in the iologs"
[ "$(cat "$tmp"/iog/rank-*.iolog | awk -v f="$tgt$data/a.bin" '$1 == f && $2 == "write"' | wc -l)" = 8 ] ||
	fail "a.bin's 8 writes are not in the iologs"
cat "$tmp"/iog/rank-*.iolog | awk -v f="$tgt$data/a.bin" '$1 == f && $2 == "sync"' | grep -q . ||
	fail "a.bin's fsync is not in the iologs"
# the reads of a.bin: what each moved (32768 bytes), the one at its end left out
[ "$(cat "$tmp"/iog/rank-*.iolog | awk -v f="$tgt$data/a.bin" '$1 == f && $2 == "read" { n += $4 } END { print n }')" = 32768 ] ||
	fail "a.bin's reads do not add up to 32768 bytes"
! cat "$tmp"/iog/rank-*.iolog | awk 'NR > 1 && ($2 == "read" || $2 == "write") && $4 == 0' | grep -q . ||
	fail "a zero-length transfer in the iologs"

# -- the selection options, as run's --------------------------------------
"$REPLAY" convert --quiet --to fio-iolog --no-default-excludes --target "$tgt" -o "$tmp/all" "$tmp/cap.txt"
etc_reads() { cat "$1"/rank-*.iolog | awk -v f="$tgt/etc/passwd" '$1 == f && $2 == "read"' | wc -l; }
[ "$(etc_reads "$tmp/iog")" = 0 ] || fail "/etc/passwd read in the default iologs"
[ "$(etc_reads "$tmp/all")" -gt 0 ] || fail "--no-default-excludes: /etc/passwd not read in the iologs"
"$REPLAY" convert --quiet --to fio-iolog --include /etc --target "$tgt" -o "$tmp/inc" "$tmp/cap.txt"
[ "$(etc_reads "$tmp/inc")" -gt 0 ] || fail "--include /etc: /etc/passwd not read in the iologs"
! names "$tmp"/inc/rank-*.iolog | grep -qE "^$tgt/usr/" || fail "--include /etc: /usr files too"
"$REPLAY" convert --quiet --to fio-iolog --exclude '*/a.bin' --include "$tmp/work/data" \
	--target "$tgt" -o "$tmp/exc" "$tmp/cap.txt" 2>"$tmp/err" || true
# --include wins over --exclude (run's precedence): a.bin stays
cat "$tmp"/exc/rank-*.iolog | awk -v f="$tgt$data/a.bin" '$1 == f' | grep -q . ||
	fail "--include did not keep what --exclude removes"
rm -rf "$tmp/exc"
if "$REPLAY" convert --quiet --to fio-iolog --exclude '*/a.bin' --target "$tgt" -o "$tmp/exc" \
	"$tmp/cap.txt" 2>"$tmp/err"; then
	! cat "$tmp"/exc/rank-*.iolog | grep -q "a\.bin " || fail "--exclude '*/a.bin': a.bin still there"
else
	# (a python3 that reads nothing else beneath the work directory)
	grep -q "nothing" "$tmp/err" || fail "--exclude: $(cat "$tmp/err")"
fi
"$REPLAY" convert --quiet --to fio-iolog --ranks 0 --target "$tgt" -o "$tmp/r0" "$tmp/cap.txt"
[ "$(ls "$tmp/r0")" = rank-0.iolog ] || fail "--ranks 0: $(ls "$tmp/r0")"
rc=0
"$REPLAY" convert --to ops --exclude '*/a.bin' -o "$tmp/x.ops" "$tmp/cap.txt" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--exclude applies to --to fio-iolog only" "$tmp/err" ||
	fail "convert --to ops --exclude: exit $rc, $(cat "$tmp/err")"
for o in "--target /x" "--iolog-version 3"; do
	rc=0
	"$REPLAY" convert $o -o "$tmp/x.ops" "$tmp/cap.txt" 2>"$tmp/err" || rc=$?
	[ "$rc" = 2 ] && grep -q -- "${o% *} applies to --to fio-iolog only" "$tmp/err" ||
		fail "convert $o to an .ops file: exit $rc, $(cat "$tmp/err")"
done
# a --target with a blank: fio would read each line's name cut at it
rc=0
"$REPLAY" convert --to fio-iolog --target "/tmp/a b" -o "$tmp/sp" "$tmp/cap.txt" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--target '/tmp/a b': fio iologs cannot name files with blanks" "$tmp/err" &&
	[ ! -e "$tmp/sp" ] || fail "convert --target with a blank: exit $rc, $(cat "$tmp/err")"
# an empty --target (an unset "$T"): not the root, which fio would write in
rc=0
"$REPLAY" convert --to fio-iolog --target "" -o "$tmp/sp" "$tmp/cap.txt" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--target '': an empty directory name (the default is '.')" "$tmp/err" &&
	[ ! -e "$tmp/sp" ] || fail "convert --target '': exit $rc, $(cat "$tmp/err")"

# -- a failing export leaves DIR as it was ----------------------------------
sed "s#/a\.bin#/a b.bin#g" "$tmp/cap.txt" >"$tmp/blank.txt"
mkdir "$tmp/old"
echo keep >"$tmp/old/rank-0.iolog"
for out in "$tmp/old" "$tmp/new"; do
	rc=0
	"$REPLAY" convert --to fio-iolog --target "$tgt" -o "$out" "$tmp/blank.txt" >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" = 1 ] || fail "an export of 'a b.bin' exited $rc"
	grep -q "blanks" "$tmp/err" || fail "the refusal does not say why: $(cat "$tmp/err")"
done
[ "$(ls -A "$tmp/old")" = rank-0.iolog ] && [ "$(cat "$tmp/old/rank-0.iolog")" = keep ] ||
	fail "a failed export changed the existing DIR: $(ls -A "$tmp/old")"
[ ! -e "$tmp/new" ] || fail "a failed export left the DIR it created: $(ls -A "$tmp/new")"

# -- fio replays the logs on the target run prepared ----------------------
fio_ok() { # DIR: every iolog in it replayed by fio without error
	local f n=0
	for f in "$1"/rank-*.iolog; do
		fio --name=r --read_iolog="$f" --replay_no_stall=1 --ioengine=psync \
			--output-format=json --output="$tmp/fio.json" >"$tmp/fio.out" 2>&1 ||
			fail "fio on $(basename "$f"): $(cat "$tmp/fio.out") $(cat "$tmp/fio.json" 2>/dev/null | head -c 2000)"
		python3 - "$tmp/fio.json" "$f" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
if j["error"] != 0:
    print(f"FAIL: fio on {sys.argv[2]}: error {j['error']}"); sys.exit(1)
print(f"fio {sys.argv[2].rsplit('/', 1)[1]}: err=0, read {j['read']['io_bytes']} B, "
      f"wrote {j['write']['io_bytes']} B")
PY
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || fail "no iolog in $1"
}
drop=()
[ "$(id -u)" = 0 ] || drop=(--no-drop-caches)
if command -v fio >/dev/null; then
	mkdir "$tgt"
	"$REPLAY" run --keep --quiet "${drop[@]}" "$tmp/cap.txt" "$tgt" >"$tmp/run.out" 2>&1 ||
		fail "replay run --keep: $(cat "$tmp/run.out")"
	fio_ok "$tmp/iog"
	[ "$(stat -c %s "$tgt$data/a.bin")" = 32768 ] || fail "fio did not write a.bin"
else
	echo "SKIP (part): fio not installed: the exported logs are not replayed"
fi

# -- Open MPI: mpirun opens "/" O_PATH|O_DIRECTORY -------------------------
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
	cat >"$tmp/work/m.c" <<'EOF'
#include <mpi.h>
#include <string.h>
int main(int argc, char **argv)
{
	MPI_File fh;
	int rank;
	char buf[4096];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	memset(buf, 'a' + rank, sizeof buf);
	MPI_File_open(MPI_COMM_WORLD, "out.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	for (int i = 0; i < 4; i++)
		MPI_File_write_at(fh, (MPI_Offset)(i * 2 + rank) * 4096, buf, 4096, MPI_BYTE,
				  MPI_STATUS_IGNORE);
	MPI_File_sync(fh);
	MPI_File_read_at(fh, (MPI_Offset)rank * 4096, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
EOF
	root=()
	[ "$(id -u)" != 0 ] || root=(--allow-run-as-root)
	if mpicc -o "$tmp/work/m" "$tmp/work/m.c" 2>"$tmp/mpicc.err" &&
		(cd "$tmp/work" && timeout 120 strace -f -tt -T -y -o "$tmp/mpi.txt" \
			mpirun "${root[@]}" --oversubscribe -np 2 ./m </dev/null >"$tmp/mpi.out" 2>&1); then
		"$REPLAY" convert --to fio-iolog --target "$tgt" -o "$tmp/miog" "$tmp/mpi.txt" >"$tmp/sum" 2>"$tmp/err" ||
			fail "export of the MPI capture: $(cat "$tmp/err")"
		cat "$tmp/sum"
		names "$tmp"/miog/rank-*.iolog >"$tmp/names"
		! grep -E "^$tgt/(etc|usr|lib|dev|proc|sys|tmp/ompi\.)" "$tmp/names" ||
			fail "system or MPI runtime files in the MPI iologs"
		[ "$(cat "$tmp"/miog/rank-*.iolog | awk -v f="$tgt$tmp/work/out.dat" '$1 == f && $2 == "write"' | wc -l)" = 8 ] ||
			fail "the MPI ranks' 8 writes are not in the iologs"
		if command -v fio >/dev/null; then
			"$REPLAY" run --keep --force --quiet "${drop[@]}" "$tmp/mpi.txt" "$tgt" \
				>"$tmp/run.out" 2>&1 || fail "replay run --keep (MPI): $(cat "$tmp/run.out")"
			fio_ok "$tmp/miog"
		fi
	else
		echo "SKIP (part): the MPI program did not build or run: $(cat "$tmp/mpicc.err" "$tmp/mpi.out" 2>/dev/null | head -3)"
	fi
else
	echo "SKIP (part): Open MPI (mpicc, mpirun) not installed"
fi
echo "fio iologs of real captures: ok"
