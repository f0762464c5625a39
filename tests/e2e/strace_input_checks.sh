#!/usr/bin/env bash
# Input the readers used to take for something it was not, from the bundled
# strace capture (traces/strace-probe.txt) and a fresh strace -ff capture:
#  - a last line without its newline is cut (strace or fio killed while it
#    wrote it) even when what is left parses: "= 655" of "= 65536", a cut
#    -T duration, fio's "read 512000 40" of "read 512000 4096" (they were
#    replayed as 655- and 40-byte transfers, exit 0, no word);
#  - junk after a result or in its duration mid-file ("= 40x96" was 40,
#    "= 4096abc"/"4096.5"/"4096 garbage"/"<0.000009>xyz" 4096, "<0.000009"
#    0, "<99999999999.000009>" wrapped) and a pwrite64 ending past 2^63-1:
#    errors naming FILE:LINE;
#  - a per-pid file of an strace -ff capture missing although its parent's
#    clone/vfork returned the pid (the rank vanished): a warning naming it,
#    from run, stat and convert;
#  - a process's -tt clock back 10 hours (a step back of less than a
#    night): counted and warned, the time clamped;
#  - a read or write whose start's line is not in the capture: warned
#    (FILE:LINE), not only counted as a skipped call.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
tmp=$(mktemp -d /tmp/replay-e2e-inchk-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
T=$SRCDIR/traces/strace-probe.txt
grep -q '= 65536 <0.000027>$' <(sed -n 21p "$T") || fail "line 21 of $T changed"
grep -q '4096, 1048576) = 4096 <0.000009>$' <(sed -n 17p "$T") || fail "line 17 of $T changed"

# 1. strace cut inside the result, and inside the duration
{ head -n 20 "$T"; sed -n 21p "$T" | sed 's/= 65536 <0.000027>$/= 655/' | tr -d '\n'; } > cut.txt
{ head -n 20 "$T"; sed -n 21p "$T" | sed 's/<0.000027>$/<0.00/' | tr -d '\n'; } > cutdur.txt
for c in cut cutdur; do
	"$REPLAY" dump $c.txt > $c.dump 2> $c.err || fail "$c: dump: $(cat $c.err)"
	! grep -q 'line=21 ' $c.dump || fail "$c: the cut line 21 was replayed: $(grep 'line=21 ' $c.dump)"
	grep -q "warning: $c.txt: the capture ends mid-line ($c.txt:21: a last line without its newline): strace was probably killed" $c.err ||
		fail "$c: no warning: $(cat $c.err)"
	"$REPLAY" stat --json $c.txt 2>/dev/null | jq -e --arg w "$c.txt:21" '.notes.cut_lines == 1 and .notes.cut_line == $w' >/dev/null ||
		fail "$c: notes"
done

# 2. fio iolog cut inside the length
printf 'fio version 2 iolog\n/x/f add\n/x/f open\n/x/f read 0 4096\n/x/f read 512000 40' > cut.iolog
"$REPLAY" dump cut.iolog > fcut.dump 2> fcut.err || fail "fio: dump: $(cat fcut.err)"
! grep -q '512000' fcut.dump || fail "fio: the cut read was replayed"
grep -q "warning: cut.iolog: the capture ends mid-line (cut.iolog:5: a last line without its newline): fio was probably killed" fcut.err ||
	fail "fio: no warning: $(cat fcut.err)"

# 3. junk mid-file: errors with FILE:LINE and what was expected
check_bad() {   # sed expression for line 17, the message expected
	sed "17$1" "$T" > bad.txt
	if "$REPLAY" stat bad.txt > /dev/null 2> bad.err; then
		fail "'$1' accepted"
	fi
	grep -qF "bad.txt:17: expected $2" bad.err || fail "'$1': $(cat bad.err)"
}
res="a result strace prints: a number, then nothing but ' ERRNO', ' (text)', a comment or the duration ' <seconds>'"
dur="a duration ' <seconds>' (below 2^63 ns) at the end of the line"
check_bad 's/= 4096 <0.000009>$/= 40x96 <0.000009>/' "$res"
check_bad 's/= 4096 <0.000009>$/= 4096abc <0.000009>/' "$res"
check_bad 's/= 4096 <0.000009>$/= 4096.5 <0.000009>/' "$res"
check_bad 's/= 4096 <0.000009>$/= 4096 garbage <0.000009>/' "$res"
check_bad 's/= 4096 <0.000009>$/= 4096 <0.000009>xyz/' "$dur"
check_bad 's/= 4096 <0.000009>$/= 4096 <0.000009/' "$dur"
check_bad 's/<0.000009>$/<99999999999.000009>/' "$dur"
check_bad 's/4096, 1048576)/4096, 9223372036854775807)/' "an offset plus length within 2^63-1 bytes (the call succeeded)"
# what strace prints after results is still read
"$REPLAY" stat "$T" > /dev/null 2> ok.err || fail "the capture itself: $(cat ok.err)"

# 5. a clock back 10 hours, then forward again: no new day
sed '31s/21:23:21\.437/11:23:21.337/' "$T" > back.txt
"$REPLAY" stat --json back.txt > back.json 2> back.err || fail "back: $(cat back.err)"
jq -e '.duration_ns < 1000000000 and .notes.clock_back_steps == 1 and .notes.clock_back_first == "back.txt:31"' back.json > /dev/null ||
	fail "back: $(jq -c '{duration_ns, n: .notes.clock_back_steps, f: .notes.clock_back_first}' back.json)"
grep -q "warning: back.txt: back.txt:31: a process's clock goes back (1 step back in all, each by less than the 12 hours" back.err ||
	fail "back: no warning: $(cat back.err)"
[ "$(grep -c warning back.err)" = 1 ] || fail "back: $(cat back.err)"

# 4. strace -ff with a child's file deleted
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
	mkdir ff && cd ff
	strace -ff -tt -T -y -o cap sh -c 'echo hi > o1; (cat o1 > o2); cat o2 >/dev/null'
	parent=$(grep -l 'clone\|fork' cap.* | head -1)
	kid=$(grep -hoE '(clone|clone3|vfork|fork)\(.*\) += [0-9]+' "$parent" | head -1 | grep -oE '[0-9]+$')
	[ -n "$kid" ] && [ -f "cap.$kid" ] || fail "ff: no child file ($parent, '$kid')"
	"$REPLAY" stat cap > /dev/null 2> whole.err || fail "ff whole: $(cat whole.err)"
	! grep -q 'no strace -ff file' whole.err || fail "ff whole: $(cat whole.err)"
	rm "cap.$kid"
	want="warning: cap: 1 process the capture forked has no strace -ff file: cap.$kid (pid $kid, forked at $parent:"
	"$REPLAY" stat cap > /dev/null 2> stat.err || fail "ff stat: $(cat stat.err)"
	grep -qF "$want" stat.err || fail "ff stat: $(cat stat.err)"
	"$REPLAY" convert cap -o c.ops > /dev/null 2> conv.err || fail "ff convert: $(cat conv.err)"
	grep -qF "$want" conv.err || fail "ff convert: $(cat conv.err)"
	mkdir tgt
	"$REPLAY" run --quiet --no-drop-caches --dry-run cap tgt > /dev/null 2> run.err || fail "ff run: $(cat run.err)"
	grep -qF "$want" run.err || fail "ff run: $(cat run.err)"
	"$REPLAY" stat --json cap 2>/dev/null | jq -e --arg k "$kid" '.notes.ff_missing == 1 and (.notes.ff_missing_files | startswith("cap." + $k))' > /dev/null ||
		fail "ff notes"
	cd ..
else
	echo "note: strace cannot trace here: the -ff check skipped"
fi

# 6. strace -ff where a pid was given to two processes (pid reuse): one
# file for both, the first one's calls lost when strace truncated it
mkdir reuse
cat > reuse/t.100 <<'T'
10:00:00.000001 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 101 <0.000100>
10:00:00.000200 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 101 <0.000300>
10:00:00.000600 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 101 <0.000100>
10:00:00.000900 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 101 <0.000300>
10:00:00.001300 exit_group(0) = ?
T
cat > reuse/t.101 <<'T'
10:00:00.000700 openat(AT_FDCWD</w>, "/w/r2.out", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</w/r2.out> <0.000020>
10:00:00.000750 write(3</w/r2.out>, "x", 1) = 1 <0.000010>
10:00:00.000800 exit_group(0) = ?
T
"$REPLAY" stat reuse/t > /dev/null 2> reuse.err || fail "reuse: $(cat reuse.err)"
grep -qF "warning: reuse/t: 1 pid the capture forked more than once (pid reuse) has one strace -ff file: reuse/t.101 (pid 101, forked 2 times: at reuse/t.100:1, reuse/t.100:3)" reuse.err ||
	fail "reuse: $(cat reuse.err)"
"$REPLAY" stat --json reuse/t 2>/dev/null | jq -e '.notes.ff_pid_reused == 1 and (.notes.ff_pid_reused_files | startswith("reuse/t.101 (pid 101"))' > /dev/null ||
	fail "reuse notes"
! grep -q "no strace -ff file" reuse.err || fail "reuse: taken for a missing file: $(cat reuse.err)"

# 7. a read or write whose start is not in the capture (its line lost,
# or an strace that attached mid-call): "<... write resumed>" alone, with
# no file and length; it was counted as a skipped non-I/O call, with no word
mkdir orphan
cat > orphan/t <<'T'
100 10:00:00.000001 openat(AT_FDCWD</w>, "/w/o.out", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</w/o.out> <0.000020>
100 10:00:00.000050 write(3</w/o.out>, "x", 1) = 1 <0.000010>
101 10:00:00.000060 <... write resumed>) = 100 <0.000010>
101 10:00:00.000070 <... pread64 resumed>) = 10 <0.000010>
100 10:00:00.000080 <... futex resumed>) = 0 <0.000010>
T
"$REPLAY" stat orphan/t > /dev/null 2> orphan.err || fail "orphan: $(cat orphan.err)"
grep -qF "orphan/t:3: the trace holds only the end of 2 read or write calls" orphan.err ||
	fail "orphan: no warning: $(cat orphan.err)"
"$REPLAY" stat --json orphan/t 2>/dev/null | jq -e '.notes.orphan_data_calls == 2 and .notes.orphan_data_first == "orphan/t:3"' > /dev/null ||
	fail "orphan notes: $("$REPLAY" stat --json orphan/t 2>/dev/null | jq -c .notes)"
echo PASS
