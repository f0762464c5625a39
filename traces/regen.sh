#!/usr/bin/env bash
# regen.sh - regenerate the bundled traces with the exact commands that made
# them (deterministic: the same replay gives the same bytes).
#   traces/regen.sh [path/to/replay]      (default: $REPLAY, then build/replay)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
R=${1:-${REPLAY:-$here/../build/replay}}
[ -x "$R" ] || { echo "regen.sh: no replay binary at '$R' (build first, or pass its path)" >&2; exit 2; }
cd "$here"
set -x
"$R" gen lanl-64k   --processes 32 --objects 50 --seed 1 -o lanl-64k --force
"$R" gen lanl-1024k --processes 32 --objects 8  --seed 1 -o lanl-1024k --force
"$R" gen alegra     --processes 32 --scale 0.08 --seed 1 -o alegra.sanitized --force
"$R" gen cth        --processes 32 --scale 0.08 --seed 1 -o cth.sanitized --force
"$R" gen s3d        --processes 32 --scale 0.5  --seed 1 -o s3d.sanitized --force
# traces/strace-probe.txt is a real capture, not generated: see README.md
