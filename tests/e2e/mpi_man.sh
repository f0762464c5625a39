#!/usr/bin/env bash
# replay-mpi(1) and `replay-mpi --help` agree: every long option the help
# lists is in the page and every option the page names is in the help (or
# is a launcher's); the page renders without warnings.  --help needs no
# MPI launcher.
set -euo pipefail
: "${SRCDIR:?}" "${BUILDDIR:?}"
bin=$BUILDDIR/replay-mpi
[ -x "$bin" ] || { echo "skip: replay-mpi not built (CMake found no MPI)"; exit 77; }
command -v man >/dev/null || { echo "skip: man (man-db) not installed"; exit 77; }
page=$SRCDIR/man/replay-mpi.1
fail=0
w=$(MANWIDTH=100 man --warnings -l "$page" 2>&1 >/dev/null || true)
[ -z "$w" ] || { echo "FAIL: replay-mpi.1 renders with warnings: $w"; fail=1; }
help=$("$bin" --help | grep -oE -- '--[a-z][a-z0-9_-]+' | sort -u)
man=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page" | grep -oE -- '--[a-z][a-z0-9_-]+' | sort -u)
# the launchers' options the page shows
foreign="--allow-run-as-root --oversubscribe --hostfile --mpi --ntasks-per-node"
for o in $help; do
    grep -qxF -- "$o" <<<"$man" || { echo "FAIL: $o (in --help) not in replay-mpi(1)"; fail=1; }
done
for o in $man; do
    grep -qxF -- "$o" <<<"$help" && continue
    case " $foreign " in *" $o "*) continue ;; esac
    echo "FAIL: $o in replay-mpi(1) but not in --help"; fail=1
done
[ "$fail" = 0 ] && echo "ok replay-mpi(1) and --help agree ($(wc -l <<<"$help") options)"
exit "$fail"
