#!/usr/bin/env bash
# engines_uring: -e io_uring end to end (see engines_common.bash); skips
# (77) with replay's own reason when the kernel or seccomp blocks io_uring.
set -euo pipefail
source "$(dirname "$0")/engines_common.bash"

mkdir -p probe
if ! "$REPLAY" run -e io_uring --no-drop-caches --quiet trace.txt probe 2> probe.err; then
	if grep -q "io_uring is blocked" probe.err; then
		echo "SKIP: $(cat probe.err)"
		exit 77
	fi
	cat probe.err; exit 1
fi
run_engine io_uring

# The worker's ring is set up as fio's: DEFER_TASKRUN with SINGLE_ISSUER and
# TASKRUN_FLAG where the kernel takes them (6.1 on), else COOP_TASKRUN with
# TASKRUN_FLAG (5.19 on); seen on the io_uring_setup calls themselves.
if command -v strace >/dev/null; then
	mkdir -p t-st
	# -ff: a file per process, so no call is cut by another's (LeakSanitizer
	# cannot run under ptrace: off for this one run of an ASan build)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -ff -qq -e trace=io_uring_setup -o setup.st "$REPLAY" run -e io_uring -q 4 --overlap \
		--no-drop-caches --quiet trace.txt t-st
	python3 - "$(uname -r)" setup.st.* <<'PY'
import re, sys
names = {"IORING_SETUP_COOP_TASKRUN": 1 << 8, "IORING_SETUP_TASKRUN_FLAG": 1 << 9,
         "IORING_SETUP_SINGLE_ISSUER": 1 << 12, "IORING_SETUP_DEFER_TASKRUN": 1 << 13,
         "IORING_SETUP_CQSIZE": 1 << 3}
rings = []
for line in (l for f in sys.argv[2:] for l in open(f)):
    m = re.search(r"io_uring_setup\((\d+), \{flags=([^,]*),.*\) = (-?\d+)", line)
    if not m or int(m.group(3)) < 0:
        continue
    bits = 0
    for t in m.group(2).split("|"):
        bits |= int(t, 0) if t[0].isdigit() else names.get(t, 0)
    rings.append((int(m.group(1)), bits))
workers = [b for n, b in rings if b]          # the probe's ring has no flags
kernel = tuple(int(x) for x in re.findall(r"\d+", sys.argv[1])[:2])
want = (1 << 13) | (1 << 12) | (1 << 9) if kernel >= (6, 1) else (1 << 9)
if len(workers) != 2 or any(b & want != want for b in workers):
    sys.exit("FAIL: worker rings %s, want flags %#x on kernel %s (all: %s)" %
             ([hex(b) for b in workers], want, sys.argv[1], rings))
print("ok: 2 worker rings with setup flags", [hex(b) for b in workers])
PY
else
	echo "note: no strace here, the ring's setup flags are not checked"
fi
echo "engines_uring: ok"
