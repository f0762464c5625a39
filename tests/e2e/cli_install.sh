#!/usr/bin/env bash
# `cmake --install` (issue 16): the binary, the man pages, the
# storage-evaluation script, the bundled traces and the bash completion, in
# their usual places under the prefix; the installed binary and script run.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}" "${BUILDDIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$BUILDDIR" --prefix "$tmp/p" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "cmake --install"; }
p=$tmp/p
for f in bin/replay bin/replay-evaluate-storage share/man/man1/replay.1 share/man/man5/replay-ops.5 \
         share/bash-completion/completions/replay share/replay/traces/README.md \
         share/replay/traces/strace-probe.txt share/replay/traces/lanl-64k/timing \
         share/replay/examples/replay.sbatch; do
    [ -e "$p/$f" ] || fail "not installed: $f"
done
[ -x "$p/bin/replay" ] && [ -x "$p/bin/replay-evaluate-storage" ] || fail "installed programs not executable"
[ ! -e "$p/share/replay/traces/regen.sh" ] || fail "regen.sh (a maintainer script) installed"
"$p/bin/replay" --version | grep -q "^replay " || fail "installed replay --version"
"$p/bin/replay" stat "$p/share/replay/traces/lanl-64k" >/dev/null || fail "installed replay on installed traces"
# the installed workflow finds the installed replay beside it
PATH=/usr/bin:/bin "$p/bin/replay-evaluate-storage" --help >/dev/null || fail "replay-evaluate-storage --help"
grep -q "^_replay()" "$p/share/bash-completion/completions/replay" || fail "completion content"
if command -v man >/dev/null; then
    MANWIDTH=80 man -l "$p/share/man/man1/replay.1" >/dev/null 2>&1 || fail "installed man page renders"
fi
echo "ok installed under a prefix: $(cd "$p" && find . -type f | wc -l) files; binary, script, man pages, traces, completion"
