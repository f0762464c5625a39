#!/usr/bin/env bash
# A launcher's rank left out (audit B, findings 2 and 3): under
# `strace -ff -o P mpirun -np 2 prog > job.out` mpirun writes the output it
# forwards to job.out, which makes it a rank with I/O; replay must leave it
# out, so that `-n 2` replays the two program processes.  A capture made
# now: with Open MPI's mpirun (as root, loopback, as lib/mpi.sh runs it),
# and with a stand-in launcher named mpirun (a shell script, which runs
# everywhere).  An independent reading of each capture (python:
# strace_oracle.py, and the execve lines for which pid is the launcher)
# gives the data ops of the non-launcher processes; the replay with -n 2,
# (its reads and writes: replay adds a final fsync)
# under strace -f -y, must do exactly those (file, offset, length, per
# process), warn of nothing left out, say the launcher, and make no job.out.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
# LeakSanitizer cannot run under ptrace: off for this test, whose replays run
# under strace (the sanitizer build checks leaks in every other test)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
tmp=$(mktemp -d /tmp/replay-e2e-launcher-XXXXXX)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ORACLE=$SRCDIR/tests/tools/strace_oracle.py
drop=()
[ "$(id -u)" = 0 ] || drop=(--no-drop-caches)

# each process: 3 writes of its own file, one block of a shared file, a line on stdout
cat >"$tmp/prog.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");
	int rank = r ? atoi(r) : 0;
	char path[4096], buf[8192];
	memset(buf, 'a' + rank, sizeof(buf));
	snprintf(path, sizeof(path), "%s/own.%d", argv[1], rank);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (int i = 0; i < 3; i++)
		if (fd < 0 || pwrite(fd, buf, 1000 + 1000 * rank, i * 8192) < 0)
			return 1;
	close(fd);
	snprintf(path, sizeof(path), "%s/shared", argv[1]);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || pwrite(fd, buf, 4096, 4096 * rank) != 4096)
		return 1;
	close(fd);
	printf("rank %d wrote its blocks\n", rank);
	return 0;
}
C
cc -O -o "$tmp/prog" "$tmp/prog.c"
mkdir -p "$tmp/fake"
cat >"$tmp/fake/mpirun" <<'SH'
#!/bin/bash
# a stand-in launcher: mpirun -np N PROG ARGS..., its own line on stdout
n=$2; shift 2
for ((i = 0; i < n; i++)); do OMPI_COMM_WORLD_RANK=$i "$@" >/dev/null & done
wait
echo "launcher: $n processes done"
SH
chmod +x "$tmp/fake/mpirun"

# the data ops of the processes that are no launcher (python, from the
# capture's execve lines and the oracle's reading), as sorted lists
expected() {   # CAPDIR ROOT
    python3 - "$1" "$2" <<'PY'
import glob, json, os, re, subprocess, sys
cap, root = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(cap + "/app.*"))
launchers = set()
for f in files:
    pid = f.rsplit(".", 1)[1]
    prog = None
    for line in open(f, errors="replace"):
        m = re.search(r'execve\("([^"]*)".*\) = 0', line)
        if m:
            prog = os.path.basename(m.group(1))
    if prog == "mpirun":
        launchers.add(pid)
ops = json.loads(subprocess.check_output([sys.executable, os.environ["ORACLE"], "--root", root] + files))
data = lambda v: sorted(tuple(o) for o in v if o[0] in ("read", "write"))
per = [data(v) for p, v in ops["pids"].items() if data(v) and p not in launchers]
print(json.dumps({"launchers": sorted(launchers), "ranks": sorted(per)}))
PY
}
replayed() {   # STRACE TARGET
    python3 - "$1" "$2" <<'PY'
import json, os, subprocess, sys
ops = json.loads(subprocess.check_output([sys.executable, os.environ["ORACLE"], "--strip",
                                          os.path.realpath(sys.argv[2]), sys.argv[1]]))
data = lambda v: sorted(tuple(o) for o in v if o[0] in ("read", "write"))
print(json.dumps({"ranks": sorted(data(v) for v in ops["pids"].values() if data(v))}))
PY
}
export ORACLE

# check LABEL LAUNCHER...: capture LAUNCHER -np 2 prog > job.out, replay -n 2
check() {
    local label=$1; shift
    local d=$tmp/$label w=$tmp/$label/w
    mkdir -p "$d/t" "$w" "$d/tgt"
    (cd "$w" && timeout 120 strace -ff -tt -T -y -o "$d/t/app" "$@" -np 2 "$tmp/prog" "$w" \
        >"$w/job.out") || fail "$label: capture failed"
    grep -q "wrote its blocks\|processes done" "$w/job.out" || fail "$label: job.out: $(cat "$w/job.out")"
    grep -l 'write(1<[^>]*job.out>' "$d"/t/app.* >/dev/null || fail "$label: the launcher wrote nothing to job.out"
    expected "$d/t" "$w" >"$d/want.json"
    [ "$(jq '.launchers | length' "$d/want.json")" -ge 1 ] || fail "$label: no launcher pid found"
    [ "$(jq '.ranks | length' "$d/want.json")" = 2 ] || fail "$label: $(cat "$d/want.json")"
    timeout 120 strace -f -y -o "$d/rep.strace" "$REPLAY" run -m parallel -n 2 --keep "${drop[@]}" \
        "$d/t" "$d/tgt" >"$d/rep.out" 2>"$d/rep.err" || { cat "$d/rep.err"; fail "$label: replay failed"; }
    replayed "$d/rep.strace" "$d/tgt" >"$d/got.json"
    jq -e --slurpfile w "$d/want.json" '.ranks == $w[0].ranks' "$d/got.json" >/dev/null ||
        { echo "want: $(jq -c .ranks "$d/want.json")"; echo "got:  $(cat "$d/got.json")"; fail "$label: -n 2 replayed other ops"; }
    ! grep -q "leaves out" "$d/rep.err" || fail "$label: $(cat "$d/rep.err")"
    grep -q "launcher processes: .* of mpirun (pid [0-9]*) left out" "$d/rep.out" ||
        { cat "$d/rep.out"; fail "$label: the summary does not say the launcher"; }
    [ -z "$(find "$d/tgt" -name job.out)" ] || fail "$label: the replay made job.out"
    "$REPLAY" stat "$d/t" >"$d/stat.out"
    grep -q "^ranks  *2 (of the trace's [0-9]*: 1 launcher (mpirun)" "$d/stat.out" ||
        { cat "$d/stat.out"; fail "$label: stat does not say the launcher"; }
    # --no-default-excludes keeps it (and the system files): then -n 2
    # leaves out a process with I/O, which a warning says
    mkdir "$d/tgt2"
    "$REPLAY" run --dry-run -n 2 --no-default-excludes "$d/t" "$d/tgt2" 2>"$d/all.err" >/dev/null ||
        { cat "$d/all.err"; fail "$label: --no-default-excludes"; }
    grep -q "^replay: warning: -n 2 leaves out [0-9]* of the trace's [0-9]* ranks with I/O" "$d/all.err" ||
        { cat "$d/all.err"; fail "$label: no warning of the rank left out"; }
    echo "ok $label: -n 2 replays the 2 processes' $(jq '[.ranks[] | length] | add' "$d/want.json") data ops, the launcher left out"
}

check fake "$tmp/fake/mpirun"
if command -v mpirun >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
    check mpirun mpirun --oversubscribe
else
    echo "note: no Open MPI capture: mpirun is not installed"
fi
echo "ok strace_launcher"
