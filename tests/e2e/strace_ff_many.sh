#!/usr/bin/env bash
# strace -ff captures with more per-pid files than the process may open
# (issue 15): 600 files read under a hard limit of 64 descriptors, and
# under a soft limit of 40 that replay raises; the merged stream has every
# process's calls (bytes per pid as written by the generator).
set -euo pipefail
: "${REPLAY:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=600
awk -v n=$n -v dir="$tmp" 'BEGIN {
    for (i = 0; i < n; i++) {
        pid = 10000 + i; f = dir "/cap." pid
        us = i * 7
        printf "10:00:%02d.%06d openat(AT_FDCWD, \"/data/f%d\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>\n", int(us / 1e6), us % 1e6, i > f
        us += 5000
        printf "10:00:%02d.%06d write(3, \"x\"..., %d) = %d <0.000005>\n", int(us / 1e6), us % 1e6, 100 + i, 100 + i > f
        us += 5000
        printf "10:00:%02d.%06d close(3) = 0 <0.000002>\n", int(us / 1e6), us % 1e6 > f
        close(f)
    }
}'
want_bytes=$(( (100 + 100 + n - 1) * n / 2 ))
for lim in "-n 64" "-Sn 40"; do
    # shellcheck disable=SC2086
    if ! (ulimit $lim && "$REPLAY" stat --json "$tmp/cap" >"$tmp/s.json" 2>"$tmp/err"); then
        echo "FAIL ulimit $lim: replay stat failed"; cat "$tmp/err"; exit 1
    fi
    ranks=$(jq '.per_rank | length' "$tmp/s.json")
    bytes=$(jq '[.per_rank[].bytes_written] | add' "$tmp/s.json")
    [ "$ranks" = $n ] || { echo "FAIL ulimit $lim: $ranks ranks, expected $n"; exit 1; }
    [ "$bytes" = $want_bytes ] || { echo "FAIL ulimit $lim: $bytes bytes, expected $want_bytes"; exit 1; }
    # each pid's bytes in its own rank
    bad=$(jq -r '.per_rank[] | select(.bytes_written != .pid - 10000 + 100) | .pid' "$tmp/s.json" | head -3)
    [ -z "$bad" ] || { echo "FAIL ulimit $lim: wrong bytes for pids $bad"; exit 1; }
    echo "ok ulimit $lim: $n files merged, $ranks ranks, $bytes bytes"
done
