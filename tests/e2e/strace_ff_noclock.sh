#!/usr/bin/env bash
# strace -ff captures without a common clock: -r (relative) and no time
# stamps at all.  Under -ff, a -r delta counts from the line strace printed
# before it in ANY of the files (a shell's first line after a 0.3 s wait4
# says +0.0002 s), so one file's deltas add up to no clock: summed, they
# put `split` before the `sort` that wrote its input, and the replay failed
# ("0 bytes where the trace moved ...", exit 1).  Now the deltas are left
# out, the processes are ordered as the files are read (each child's file
# where its fork returned), the run says why, and every read finds its
# data.  The capture is made here: sh running three appenders, then sort
# and split, one after the other, under strace -ff -r (and -ff alone).  An independent
# reading (python over the capture, not replay's parser) gives the bytes
# each command read and wrote; the replay's JSON must show them all.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
REPLAY=$(realpath "$REPLAY")
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
strace -f -o /dev/null true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
tmp=$(mktemp -d /tmp/replay-e2e-ffclock-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"

# bytes read and written on files under w/, from the capture's -y paths
cat > sums.py <<'PY'
import re, sys, glob
w = sys.argv[1]
r = wr = 0
pat = re.compile(r'^(?:\s*[\d.]+\s+)?(p?read64|read|p?write64|write)\((\d+)<([^>]*)>.*\)\s+=\s+(\d+)')
for f in sys.argv[2:]:
    for line in open(f, errors="replace"):
        m = pat.match(line)
        if not m or not m.group(3).startswith(w + "/"):
            continue
        if "read" in m.group(1):
            r += int(m.group(4))
        else:
            wr += int(m.group(4))
print(r, wr)
PY

for form in r none; do
	rm -rf w cap tgt && mkdir -p w cap tgt
	opt=(-ff -T -y -o cap/t)
	[ "$form" = r ] && opt=(-ff -r -T -y -o cap/t)
	# three appenders at once, then sort (small memory: temp files) into
	# sorted.txt, then split reading it: summed -r deltas put split's
	# reads before sort's writes (the shell's wait4 is followed by a
	# delta counted from the children's last lines)
	seq 1 100000 | sort -R > w/in.txt
	strace "${opt[@]}" sh -c 'cd "$1"; for i in 1 2 3; do (echo "line $i" >> log.txt) & done; wait
		sort -S 64K -T . in.txt > sorted.txt; split -b 100000 sorted.txt part_' sh "$tmp/w" ||
		fail "$form: the capture failed"
	n=$(ls cap | wc -l)
	[ "$n" -ge 5 ] || fail "$form: $n strace -ff files, expected one per process (5 or more)"
	read -r want_r want_w < <(python3 sums.py "$tmp/w" cap/t.*)
	[ "$want_r" -gt 500000 ] || fail "$form: the capture reads only $want_r bytes under w/"

	set +e
	"$REPLAY" run --no-drop-caches -o res.json cap/t.* tgt >out.txt 2>&1
	rc=$?
	set -e
	[ $rc = 0 ] || { cat out.txt; fail "$form: replay run exited $rc"; }
	case $form in
	r) why="strace -ff -r";;
	*) why="strace -ff without time stamps";;
	esac
	grep -q "warning: .*$why: no common clock" out.txt ||
		{ cat out.txt; fail "$form: no warning that the files have no common clock"; }
	grep -q "no common clock between its processes ($why)" out.txt ||
		{ cat out.txt; fail "$form: the summary does not say the files have no common clock"; }
	# a timing mode: refused, saying why (not "capture with -r")
	rm -rf tgt2; mkdir tgt2
	"$REPLAY" run --timing trace cap/t.* tgt2 > /dev/null 2> tm.err && fail "$form: --timing trace ran"
	grep -q -- "--timing trace: the trace has no common clock ($why: every op at time 0): capture with strace -ff -tt" tm.err ||
		fail "$form: --timing trace: $(cat tm.err)"
	[ "$(jq -r '.["global options"].trace_no_common_clock // .options.trace_no_common_clock' res.json)" = "$why" ] ||
		fail "$form: JSON options.trace_no_common_clock is not '$why'"
	got_r=$(jq '[.jobs[].read.io_bytes] | add' res.json)
	got_w=$(jq '[.jobs[].write.io_bytes] | add' res.json)
	# the replay counts every file (stdout too); under w/ is at least as much
	[ "$got_r" -ge "$want_r" ] && [ "$got_w" -ge "$want_w" ] ||
		fail "$form: replayed $got_r B read / $got_w B written, the capture moved $want_r / $want_w under w/"
	! grep -q "mismatches:" out.txt || { cat out.txt; fail "$form: mismatches in the replay"; }
	echo "ok strace $form: every read found its data ($got_r B read, $got_w B written; capture $want_r / $want_w under w/), warned: $why"
done
