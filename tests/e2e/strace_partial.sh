#!/usr/bin/env bash
# What a capture cannot show is said, and what it did not do is not made up,
# on captures made at test time:
#  - cp -r ends each copy with a copy_file_range that moved nothing (= 0):
#    it is a read at the source's end, not a 0-byte write (the writes
#    replay issues are counted from the capture by awk, not by replay);
#  - strace -e trace=read,write -y (no opens): the descriptors it never
#    opened are replayed from position 0, and run/stat say so, naming one;
#    perl's >> append lands elsewhere, which the warning is for;
#  - the same without -y: no rank at all, and stat says why as run does;
#  - a file opened O_CREAT without O_TRUNC (dd conv=notrunc, echo >>) is
#    "created by the run" with its earlier size unknown in --dry-run.
set -euo pipefail
: "${REPLAY:?}"
command -v strace >/dev/null || { echo "skip: strace not installed"; exit 77; }
command -v perl >/dev/null || { echo "skip: perl not installed"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"  # LSan does not work under ptrace
mkdir "$tmp/w" "$tmp/w/a"
for i in 1 2 3 4; do head -c $((i * 7000)) /dev/urandom >"$tmp/w/a/f$i"; done

# --- cp -r: one write per copy that moved bytes ---------------------------
(cd "$tmp/w" && strace -f -tt -y -o "$tmp/cp.txt" cp -r a b)
# bytes-moving calls into b/ (copy_file_range/sendfile/write with = N > 0)
want=$(awk '/(copy_file_range|sendfile|write|pwrite64)\(/ && /\/w\/b\// {
	if (match($0, /\) += +[0-9]+/)) { n = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", n); if (n + 0 > 0) c++ } }
	END { print c + 0 }' "$tmp/cp.txt")
zero=$(grep -Ec '(copy_file_range|sendfile)\(.*/w/b/.*\) += 0$' "$tmp/cp.txt" || true)
[ "$want" -ge 4 ] || { echo "FAIL: the capture holds $want data-moving calls into b/ (4 files)"; exit 1; }
mkdir "$tmp/t1"
strace -f -y -e trace=pwrite64,write -o "$tmp/r1.txt" "$REPLAY" -e sync --no-drop-caches -o "$tmp/r1.json" \
	"$tmp/cp.txt" "$tmp/t1" >/dev/null 2>"$tmp/err1" || { cat "$tmp/err1"; exit 1; }
got=$(grep -Ec 'pwrite64\([0-9]+<[^>]*/w/b/f[0-9]>, ' "$tmp/r1.txt" || true)
empty=$(grep -Ec 'pwrite64\([0-9]+<[^>]*>, "", 0, ' "$tmp/r1.txt" || true)
[ "$got" = "$want" ] || { echo "FAIL: replay wrote $got times into b/, cp $want (with $zero end-of-file probes)"; exit 1; }
[ "$empty" = 0 ] || { echo "FAIL: replay issued $empty 0-byte writes"; exit 1; }
echo "ok cp -r: $got writes into b/ as cp's $want, its $zero copy_file_range = 0 probes no write"

# --- -e trace=read,write -y: implicit opens are warned of -----------------
(cd "$tmp/w" && strace -f -e trace=read,write -y -o "$tmp/rw.txt" perl -e \
	'open(F, ">p.txt"); print F "a" x 10000; close F; open(H, ">>p.txt"); print H "tail" x 100; close H')
mkdir "$tmp/t2"
"$REPLAY" --no-drop-caches "$tmp/rw.txt" "$tmp/t2" >/dev/null 2>"$tmp/err2" || { cat "$tmp/err2"; exit 1; }
grep -Eq "rw.txt: descriptors the trace never opened \(fd [0-9]+ \(/.*\): [0-9]+ in all, with 0-2\) are replayed as opened O_RDWR at position 0" "$tmp/err2" ||
	{ echo "FAIL: run does not warn of the implicit opens:"; cat "$tmp/err2"; exit 1; }
"$REPLAY" stat "$tmp/rw.txt" >/dev/null 2>"$tmp/err3"
grep -q "descriptors the trace never opened" "$tmp/err3" || { echo "FAIL: stat does not warn:"; cat "$tmp/err3"; exit 1; }
grep -q 'p.txt' "$tmp/rw.txt" || { echo "FAIL: -y did not name p.txt"; exit 1; }
echo "ok -e trace=read,write -y: $(grep -o 'descriptors the trace never opened ([^)]*)[^)]*)' "$tmp/err2")"

# a whole capture whose stdout a shell redirected to a file: fd 1 is opened
# implicitly, at position 0 as the redirect did: no warning
(cd "$tmp/w" && strace -f -tt -y -o "$tmp/so.txt" sh -c 'echo hello; cat a/f1 > c1' >"$tmp/w/out.log")
grep -q '^[0-9]* .*write(1</.*/w/out.log>' "$tmp/so.txt" || { echo "FAIL: no write to the redirected stdout"; exit 1; }
"$REPLAY" stat "$tmp/so.txt" >/dev/null 2>"$tmp/err5"
if grep -q "never opened" "$tmp/err5"; then echo "FAIL: a redirected stdout warned of:"; cat "$tmp/err5"; exit 1; fi
echo "ok stdout redirected to a file: no warning"

# --- the same without -y: no rank, stat says why ---------------------------
(cd "$tmp/w" && strace -f -e trace=read,write -o "$tmp/rw2.txt" sh -c 'seq 1 1000 > s; cat s > s2')
"$REPLAY" stat "$tmp/rw2.txt" >/dev/null 2>"$tmp/err4"
grep -q 'holds no ranks: run would have nothing to replay ([0-9]* calls were on descriptors whose file the trace never names.*capture with -y)' "$tmp/err4" ||
	{ echo "FAIL: stat does not say why the trace holds no ranks:"; cat "$tmp/err4"; exit 1; }
echo "ok stat without -y: $(cut -c1-100 "$tmp/err4")..."

# a -y capture of a program whose only I/O is on a pipe it made: no rank,
# and no advice to capture with -y (it was)
if command -v cc >/dev/null && printf '#include <unistd.h>\nint main(void){int p[2];char b[4];if(pipe(p))return 1;if(write(p[1],"abc",3)!=3)return 1;return read(p[0],b,3)!=3;}\n' >"$tmp/pp.c" &&
	cc -static -O1 -o "$tmp/pp" "$tmp/pp.c" 2>/dev/null; then
	strace -f -y -tt -o "$tmp/pp.txt" "$tmp/pp"
	"$REPLAY" stat "$tmp/pp.txt" >/dev/null 2>"$tmp/err6"
	grep -q 'holds no ranks: run would have nothing to replay (its [0-9]* calls on descriptors were on pipes, sockets or other descriptors that are no files' "$tmp/err6" &&
		! grep -q 'capture with -y' "$tmp/err6" || { echo "FAIL: a -y capture of pipes:"; cat "$tmp/err6"; exit 1; }
	echo "ok stat of a -y capture of pipe I/O only: no rank, said why"
else
	echo "note: no static C compiler: the pipe-only capture not checked"
fi

# a thread blocked in read when main calls exit: strace prints the read
# ended by exit_group ("<... read resumed> <unfinished ...>) = ?"; with -ff
# on one line); it refused the whole trace
if command -v cc >/dev/null && cat >"$tmp/ua.c" <<'EOF'
#include <pthread.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdlib.h>
static int p[2];
static void *blk(void *a) { char b[4]; if (read(p[0], b, 4) < 0) return a; return a; }
int main(void)
{
	pthread_t t;
	if (pipe(p) || pthread_create(&t, 0, blk, 0))
		return 1;
	usleep(50000);
	int fd = open("u.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "abc", 3) != 3)
		return 1;
	exit(0);
}
EOF
then
	cc -O1 -pthread -o "$tmp/ua" "$tmp/ua.c"
	mkdir "$tmp/uaff"
	(cd "$tmp/w" && strace -f -tt -T -y -o "$tmp/ua.txt" "$tmp/ua" && strace -ff -tt -T -y -o "$tmp/uaff/t" "$tmp/ua")
	if grep -q 'resumed> <unfinished \.\.\.>) = ?' "$tmp/ua.txt" || grep -q '<unfinished \.\.\.>) = ?' "$tmp"/uaff/t.*; then
		for c in ua.txt uaff; do
			"$REPLAY" stat --json "$tmp/$c" >"$tmp/ua.json" 2>"$tmp/err7" || { echo "FAIL: $c refused:"; cat "$tmp/err7"; exit 1; }
			jq -e '.notes.skipped["unfinished:read"] >= 1' "$tmp/ua.json" >/dev/null ||
				{ echo "FAIL: $c: the read ended by exit_group not counted: $(jq -c .notes.skipped "$tmp/ua.json")"; exit 1; }
		done
		echo "ok a read ended by another thread's exit_group: counted unfinished, -f and -ff"
	else
		echo "note: strace printed no read ended by exit_group here: not checked"
	fi
else
	echo "note: no C compiler: a read ended by exit_group not checked"
fi

# --- O_CREAT without O_TRUNC: earlier size unknown --------------------------
head -c 100000 /dev/zero >"$tmp/w/old.dat"
seq 1 100 >"$tmp/w/old.log"
(cd "$tmp/w" && strace -f -tt -y -o "$tmp/nt.txt" sh -c \
	'dd if=/dev/zero of=old.dat bs=1k count=1 seek=2 conv=notrunc status=none; echo x >> old.log; echo y > new.txt; mv new.txt moved.txt')
mkdir "$tmp/t3"
"$REPLAY" run --dry-run "$tmp/nt.txt" "$tmp/t3" >"$tmp/dry.txt" 2>/dev/null
for f in old.dat old.log; do
	grep -Eq "/w/$f +private +-, created by the run \(never truncated: any earlier size unknown\)" "$tmp/dry.txt" ||
		{ echo "FAIL: $f not shown with its earlier size unknown:"; grep -F "$f" "$tmp/dry.txt"; exit 1; }
done
for f in new.txt moved.txt; do
	grep -Eq "/w/$f +[a-z]+ +-, created by the run$" "$tmp/dry.txt" ||
		{ echo "FAIL: $f (O_TRUNC, or a rename's target) not plainly created:"; grep -F "$f" "$tmp/dry.txt"; exit 1; }
done
echo "ok --dry-run: old.dat and old.log never truncated, new.txt and moved.txt (mv) created"
