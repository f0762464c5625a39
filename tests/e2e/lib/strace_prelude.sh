# strace_prelude.sh - the start of an e2e test that captures a program
# under strace at test time and replays the capture: sourced after
# `set -euo pipefail`.  Needs REPLAY; skips (exit 0, saying why) without
# strace; turns LeakSanitizer off (it cannot run under ptrace); gives
# $tmp (removed at exit) and fail().
: "${REPLAY:?}"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
command -v strace > /dev/null || { echo "skip: strace is not installed"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
