#!/usr/bin/env bash
# The command line (issue 16): a mistyped command is an error with a
# suggestion, not a trace name; `replay help CMD` for every command; the
# bash completion offers each command's options; output paths are checked
# before any work.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp"

# mistyped commands
for pair in sttat:stat covert:convert dmup:dump plt:plot comapre:compare; do
    word=${pair%%:*} want=${pair#*:}
    rc=0; "$REPLAY" "$word" x y >out 2>err || rc=$?
    [ $rc = 2 ] || fail "'replay $word': exit $rc, expected 2"
    grep -q "'$word' is not a replay command (nor a file); did you mean.*'$want'" err ||
        fail "'replay $word': $(cat err)"
done
echo "ok mistyped commands suggest the closest (exit 2)"
# a word that is an existing file is a trace for `run`, even if close to a command
printf '1 10:00:00.000000 close(3) = 0\n' >stats
rc=0; "$REPLAY" stats tgt >out 2>err || rc=$?
grep -q "did you mean" err && fail "'replay stats' (a file) was taken for a command"
grep -q "TARGET_DIR\|tgt" err || fail "'replay stats tgt' did not reach run: $(cat err)"
# a far-off word goes to run, which says the file is missing
rc=0; "$REPLAY" mytrace.txt tgt 2>err || rc=$?
grep -q "cannot open 'mytrace.txt'" err || fail "missing trace: $(cat err)"
# a word with no '/' or '.' that is neither a command nor a file: unknown command
rc=0; "$REPLAY" frobnicate tgt >out 2>err || rc=$?
[ $rc = 2 ] || fail "'replay frobnicate': exit $rc, expected 2"
grep -q "'frobnicate' is not a replay command (nor a file); the commands are listed by 'replay help'" err ||
    fail "'replay frobnicate': $(cat err)"
echo "ok existing files and far-off paths go to run; an unknown word is an unknown command"

# help for every command, listed by `replay help`
cmds=$("$REPLAY" help | awk '/^commands:/{on=1;next} on && !NF {exit} on {print $1}')
[ "$(echo "$cmds" | wc -l)" -ge 8 ] || fail "replay help lists: $cmds"
for c in $cmds; do
    "$REPLAY" help "$c" | head -1 | grep -q "^usage: replay" || fail "replay help $c"
    "$REPLAY" "$c" --help | head -1 | grep -q "^usage: replay" || fail "replay $c --help"
done
rc=0; "$REPLAY" help nosuch 2>err || rc=$?
[ $rc = 2 ] || fail "replay help nosuch: exit $rc"
echo "ok help for: $(echo $cmds)"

# bash completion, from the same table as --help
"$REPLAY" completion bash >comp.bash
complete_words() {   # complete_words WORD... : what completing the last word offers
    bash -c 'source ./comp.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _replay; printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}
for c in $cmds; do
    [ "$c" = completion ] && continue
    want=$("$REPLAY" help "$c" | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u)
    got=$(complete_words replay "$c" -- | sort -u)
    missing=$(comm -23 <(echo "$want") <(echo "$got"))
    [ -z "$missing" ] || fail "completion of 'replay $c --' lacks: $missing"
done
got=$(complete_words replay st)
echo "$got" | grep -qx stat || fail "completion of 'replay st': $got"
got=$(complete_words replay run -e "")
[ "$(echo $got)" = "sync libaio io_uring null" ] || fail "completion of -e: $got"
got=$(complete_words replay -m "")
[ "$(echo $got)" = "parallel sequential" ] || fail "completion of -m (default run): $got"
for w in "--output-format:normal json json+" "--order:resource none" "--on-mismatch:stop warn ignore" \
         "--dxt-layer:posix mpiio"; do
    got=$(complete_words replay run "${w%%:*}" "")
    [ "$(echo $got)" = "${w#*:}" ] || fail "completion of ${w%%:*}: $got"
done
got=$(complete_words replay help com)
[ "$(echo $got)" = "compare completion" ] || fail "completion of 'replay help com': $got"
echo "ok bash completion: every option of every command, command names, values"

# one letter, one meaning: -f is --format everywhere it exists
"$REPLAY" stat -f strace "$SRCDIR/traces/strace-probe.txt" >/dev/null
"$REPLAY" dump -f strace "$SRCDIR/traces/strace-probe.txt" >/dev/null
mkdir "$tmp/t1"
"$REPLAY" run --dry-run -f strace "$SRCDIR/traces/strace-probe.txt" "$tmp/t1" >/dev/null
echo "ok -f is --format in stat, dump, run"

# output paths are checked before any work (not after an hour of replay)
mkdir adir
for o in /nonexistent/dir/r.json adir; do
    rc=0; TMPDIR=$tmp/tmpd "$REPLAY" run -o "$o" /nonexistent.trace "$tmp/t2" 2>err || rc=$?
    [ $rc = 2 ] || fail "run -o $o: exit $rc: $(cat err)"
    grep -q "result file '$o'" err || fail "run -o $o: $(cat err)"
done
rc=0; "$REPLAY" convert "$SRCDIR/traces/strace-probe.txt" -o adir 2>err || rc=$?
[ $rc = 2 ] && grep -q "output file 'adir' is a directory" err || fail "convert -o dir: $(cat err)"
echo "ok -o checked before the trace is read"

# dump: one op per line whatever the file names; a newline (or another
# control byte) in a name is written \n, \xHH, and in such a name only a
# backslash doubled, as strace writes them; other names as they are
printf '%s\n' '1 openat(AT_FDCWD, "/x/a\nb\\c\33", O_WRONLY|O_CREAT, 0644) = 3' \
    '1 write(3, "abc", 3) = 3' '1 close(3) = 0' \
    '1 rename("/x/a\nb\\c\33", "/x/d\\e f") = 0' > nl.txt
"$REPLAY" dump nl.txt > nl.dump
[ "$(wc -l < nl.dump)" = 5 ] || fail "dump: $(wc -l < nl.dump) lines for 4 ops: $(cat nl.dump)"
[ "$(awk 'NR > 1 { print $NF }' nl.dump | head -3 | sort -u)" = '/x/a\nb\\c\x1b' ] ||
    fail "dump: the name with a newline: $(cat nl.dump)"
tail -1 nl.dump | grep -qF '/x/a\nb\\c\x1b -> /x/d\e f' || fail "dump: rename: $(tail -1 nl.dump)"
echo "ok dump: a newline in a file name keeps one op per line"

# traces of two formats in one command: the reader is the first one's, and
# the error says the other looks like another format: the LANL timing file,
# which the strace reader would leave out, or a rank file it fails on
set +e
"$REPLAY" stat "$SRCDIR/traces/strace-probe.txt" "$SRCDIR/traces/lanl-64k" > mixed.out 2> mixed.err
rc=$?
"$REPLAY" stat "$SRCDIR/traces/strace-probe.txt" "$SRCDIR"/traces/lanl-64k/*.trace > mixed2.out 2> mixed2.err
rc2=$?
set -e
[ "$rc" = 1 ] || fail "mixed formats: exit $rc"
grep -q "'$SRCDIR/traces/lanl-64k/timing' is a lanl trace among strace traces: give traces of one format at a time" \
    mixed.err || fail "mixed formats: $(cat mixed.err)"
[ "$rc2" = 1 ] || fail "mixed formats, rank files: exit $rc2"
grep -q "looks like a lanl trace, '$SRCDIR/traces/strace-probe.txt' like strace, which chose the reader: give traces of one format at a time" \
    mixed2.err || fail "mixed formats, rank files: $(cat mixed2.err)"
echo "ok mixed formats: the other file's format named"

# run --skip-bad: accepted (it exited 2 without a word), the skipped lines
# said once on stderr; without it the bad line stops the run with file:line;
# an unknown -f is a usage error (exit 2), as in stat
{ echo 'garbage line'; cat "$SRCDIR/traces/strace-probe.txt"; } > bad.txt
mkdir -p sbt
set +e
"$REPLAY" run --skip-bad --no-drop-caches --quiet bad.txt sbt > sb.out 2> sb.err; rc1=$?
"$REPLAY" run --no-drop-caches --quiet bad.txt sbt > sb2.out 2> sb2.err; rc2=$?
"$REPLAY" run -f bogus bad.txt sbt > /dev/null 2> sb3.err; rc3=$?
set -e
[ "$rc1" = 0 ] || fail "run --skip-bad: exit $rc1: $(cat sb.err)"
[ "$(grep -c -- '--skip-bad: 1 malformed line skipped, not replayed; the first: bad.txt:1: ' sb.err)" = 1 ] ||
    fail "run --skip-bad: $(cat sb.err)"
[ "$rc2" = 1 ] && grep -q "bad.txt:1: expected '(' after the syscall name" sb2.err ||
    fail "run without --skip-bad: exit $rc2, $(cat sb2.err)"
[ "$rc3" = 2 ] && grep -q "unknown format 'bogus'" sb3.err || fail "run -f bogus: exit $rc3, $(cat sb3.err)"
echo "ok run --skip-bad: 1 line skipped and said; -f bogus: exit 2"
set +e
"$REPLAY" run --dry-run -o dry.json "$SRCDIR/traces/strace-probe.txt" sbt > dry.out 2> dry.err; rc=$?
set -e
[ "$rc" = 0 ] && [ ! -e dry.json ] && grep -q "^replay: warning: --dry-run prints the plan as text and writes no results: -o ignored" dry.err ||
    fail "--dry-run -o: exit $rc, $(cat dry.err)"
echo "ok --dry-run -o: no file, said"
# the arguments the wrong way round: the message says which comes last
mkdir -p swapdir
set +e
"$REPLAY" run swapdir "$SRCDIR/traces/strace-probe.txt" > /dev/null 2> sw1.err; rc1=$?
"$REPLAY" run nosuchdir "$SRCDIR/traces/strace-probe.txt" > /dev/null 2> sw2.err; rc2=$?
set -e
for k in 1 2; do
    grep -q "(replay run TRACE... TARGET_DIR: the target directory comes last, and '$SRCDIR/traces/strace-probe.txt' is a file)" sw$k.err ||
        fail "swapped arguments ($k): $(cat sw$k.err)"
done
[ "$rc1" = 2 ] && [ "$rc2" = 2 ] || fail "swapped arguments: exit $rc1, $rc2 (a usage error: 2)"
[ -z "$(ls -A swapdir)" ] || fail "swapped arguments: wrote into the trace directory"
echo "ok run TARGET TRACE: exit 2, the order said"
# the workload line counts the trace's opens and says how many failed there
cat > fo.txt <<'TRACE'
100 10:00:00.000001 openat(AT_FDCWD, "/d/a", O_WRONLY|O_CREAT, 0644) = 3
100 10:00:00.000002 write(3, "x", 1) = 1
100 10:00:00.000003 openat(AT_FDCWD, "/d/missing", O_RDONLY) = -1 ENOENT (No such file or directory)
100 10:00:00.000004 close(3) = 0
TRACE
mkdir fotgt
"$REPLAY" run --no-drop-caches fo.txt fotgt > fo.out
grep -q "^workload: .*, 0 syncs, 2 opens (1 failed in the trace: not replayed)$" fo.out ||
    fail "workload line: $(grep '^workload' fo.out)"
awk '$1 == "open" && $2 == 1 { f = 1 } END { exit !f }' fo.out || fail "open class: $(grep '^open' fo.out)"
echo "ok workload: 2 opens, 1 failed in the trace (the class table's 1 replayed)"
# -o naming the trace being read: refused, the trace left whole (convert
# turned a text trace into its .ops, run wrote its JSON over it; exit 0);
# an .ops converted to itself is still nothing to do
cp "$SRCDIR/traces/strace-probe.txt" self.strace
sum0=$(sha256sum < self.strace)
mkdir -p selftgt
for cmd in "convert self.strace -o self.strace" "run --no-drop-caches -o self.strace self.strace selftgt" \
           "convert ./self.strace -o $PWD/self.strace"; do
    rc=0; "$REPLAY" $cmd > self.out 2> self.err || rc=$?
    [ "$rc" = 2 ] || fail "$cmd: exit $rc, want 2"
    grep -q "is the trace '.*self.strace' this command reads: it would be overwritten" self.err ||
        fail "$cmd: message: $(cat self.err)"
    [ "$(sha256sum < self.strace)" = "$sum0" ] || fail "$cmd: the trace changed"
done
"$REPLAY" convert self.strace -o self.ops > /dev/null
"$REPLAY" convert self.ops -o self.ops > /dev/null || fail "an .ops converted to itself"
echo "ok -o naming the trace read: refused, the trace whole"
# a relative path climbing above its start: refused; strace -y is advised
# for strace captures only (it meant nothing for a fio iolog)
printf 'fio version 2 iolog\n../../x add\n../../x open\n../../x write 0 4096\n../../x close\n' > up.iolog
printf '7 10:00:00.000001 openat(AT_FDCWD, "../../x", O_WRONLY|O_CREAT, 0644) = 3\n7 10:00:00.000002 write(3, "a", 1) = 1\n' > up.strace
mkdir -p uptgt
for f in up.iolog up.strace; do
    rc=0; "$REPLAY" run --dry-run "$f" uptgt > /dev/null 2> up.err || rc=$?
    [ "$rc" = 1 ] || fail "$f: exit $rc, want 1"
    grep -q "trace path '../../x' climbs above its starting directory" up.err || fail "$f: $(cat up.err)"
    if [ "$f" = up.strace ]; then
        grep -q "capture with strace -y" up.err || fail "$f: no strace -y advice: $(cat up.err)"
    else
        grep -q "strace" up.err && fail "$f: strace advice for a fio iolog: $(cat up.err)"
    fi
done
echo "ok climbing paths refused, strace -y advised for strace alone"
# a trace whose calls were all on /proc (strace), or whose ranks' segments
# all were (DXT): says why nothing is replayed, without sending the user
# to options that cannot change it
printf '7 10:00:00.000001 openat(AT_FDCWD, "/proc/self/status", O_RDONLY) = 3\n7 10:00:00.000002 read(3, "a", 100) = 1\n7 10:00:00.000003 close(3) = 0\n' > proc.strace
rc=0; "$REPLAY" run --dry-run proc.strace uptgt > /dev/null 2> proc.err || rc=$?
[ "$rc" = 1 ] || fail "proc.strace: exit $rc"
grep -q "the trace holds no ranks: nothing to replay (its 2 calls on files were on /proc, /sys and devices such as /dev/null: no storage I/O, never replayed)" proc.err ||
    fail "proc.strace: $(cat proc.err)"
sed 's|file_name: [^ ]*|file_name: /proc/self/root/x|' "$SRCDIR/tests/data/dxt/mpi-io-test-x86_64-3.1.6.dxt.txt" > proc.dxt
{   # (a block: the dxt checks)
    rc=0; "$REPLAY" run --dry-run --no-default-excludes proc.dxt uptgt > /dev/null 2> procd.err || rc=$?
    [ "$rc" = 1 ] || fail "proc.dxt: exit $rc: $(cat procd.err)"
    grep -q "nothing left to replay: .*calls on /proc, /sys and devices such as /dev/null are no storage I/O, never replayed$" procd.err ||
        fail "proc.dxt: $(cat procd.err)"
    # Darshan's names of the standard streams are no files either
    sed 's|file_name: [^ ]*|file_name: <STDOUT>|' "$SRCDIR/tests/data/dxt/mpi-io-test-x86_64-3.1.6.dxt.txt" > out.dxt
    [ -z "$("$REPLAY" dump out.dxt | grep -v '^#')" ] || fail "out.dxt: <STDOUT> replayed as a file"
    "$REPLAY" stat --json out.dxt 2>/dev/null | jq -e '.notes.special_file_ops > 0' > /dev/null ||
        fail "out.dxt: not counted as special"
}
echo "ok traces of /proc only: why nothing is replayed"
# one trace given twice (an overlapping glob): refused, not replayed twice
rc=0; "$REPLAY" stat "$SRCDIR/traces/strace-probe.txt" "$SRCDIR"/traces/strace-probe.* > dup.out 2> dup.err || rc=$?
[ "$rc" = 1 ] || fail "trace given twice: exit $rc"
grep -q "are one file, given twice: its ranks would be replayed twice" dup.err || fail "trace given twice: $(cat dup.err)"
rc=0; "$REPLAY" run --dry-run "$SRCDIR/traces/lanl-64k" "$SRCDIR/traces/lanl-64k/"*.trace uptgt > dup.out 2> dup.err || rc=$?
[ "$rc" = 1 ] && grep -q "given twice" dup.err || fail "directory and its file: exit $rc: $(cat dup.err)"
# a TMPDIR that is not there: named as TMPDIR
rc=0; TMPDIR=/nonexistent-replay-tmp "$REPLAY" dump "$SRCDIR/traces/strace-probe.txt" > /dev/null 2> tmpd.err || rc=$?
[ "$rc" = 1 ] || fail "TMPDIR missing: exit $rc"
grep -q "cannot create a temporary file in '/nonexistent-replay-tmp' (\$TMPDIR): No such file or directory" tmpd.err ||
    fail "TMPDIR missing: $(cat tmpd.err)"
echo "ok a trace given twice refused; a missing TMPDIR named"
# a mistyped long option: the command's options within 2 edits are offered
rc=0; "$REPLAY" run --ouput r.json "$SRCDIR/traces/strace-probe.txt" uptgt > /dev/null 2> typo.err || rc=$?
[ "$rc" = 2 ] || fail "--ouput: exit $rc"
grep -q "^replay: unknown option '--ouput'; did you mean '--output'?$" typo.err || fail "--ouput: $(cat typo.err)"
rc=0; "$REPLAY" stat --jsn "$SRCDIR/traces/strace-probe.txt" > /dev/null 2> typo.err || rc=$?
[ "$rc" = 2 ] && grep -q "^replay: stat: unknown option '--jsn'; did you mean '--json'?$" typo.err || fail "--jsn: $(cat typo.err)"
rc=0; "$REPLAY" stat --zzzzzz "$SRCDIR/traces/strace-probe.txt" > /dev/null 2> typo.err || rc=$?
[ "$rc" = 2 ] && grep -q "^replay: stat: unknown option '--zzzzzz'$" typo.err || fail "--zzzzzz: $(cat typo.err)"
echo "ok mistyped options: did you mean"
