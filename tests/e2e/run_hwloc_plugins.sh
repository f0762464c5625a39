#!/usr/bin/env bash
# hwloc's I/O-device plugins (PCI, OpenCL, GL and the libraries they pull
# in: libX11, libOpenCL, ICU...) are not loaded by replay, which uses cores
# and NUMA nodes only: neither the parent nor a worker maps them (read
# from /proc/PID/maps while a run waits on a traced 1 s gap), and the
# topology is still there (the JSON's host.topology).  A plugin list the
# user set in HWLOC_PLUGINS_BLACKLIST is left alone: set empty, the
# plugins load.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-hwloc-XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
plugin=$(ls /usr/lib/*/hwloc/hwloc_pci.so /usr/lib64/hwloc/hwloc_pci.so 2>/dev/null | head -1 || true)
[ -n "$plugin" ] || { echo "SKIP: hwloc's plugins are not installed (libhwloc-plugins)"; exit 77; }

printf '%s\n' \
    '100  10:00:00.000001 openat(AT_FDCWD, "/d/f", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>' \
    '100  10:00:01.000020 write(3, "x", 1) = 1 <0.000005>' \
    '100  10:00:01.000030 close(3) = 0 <0.000002>' > "$tmp/gap.txt"

# $1: label; the rest: env(1) arguments.  Prints the parent's and a worker's
# mappings of hwloc plugins (0 or more lines) into $tmp/$1.maps
maps_during_run() {
    local label=$1; shift
    mkdir -p "$tmp/tgt-$label"
    env "$@" "$REPLAY" run --quiet --no-drop-caches --timing trace -o "$tmp/$label.json" \
        "$tmp/gap.txt" "$tmp/tgt-$label" > /dev/null &
    local p=$! w="" i
    pids+=("$p")
    for ((i = 0; i < 50; i++)); do
        sleep 0.05
        w=$(pgrep -P "$p" | head -1 || true)
        [ -z "$w" ] || break
    done
    [ -n "$w" ] || fail "$label: no worker seen"
    { grep -h "/hwloc/hwloc_" "/proc/$p/maps" "/proc/$w/maps" || true; } > "$tmp/$label.maps"
    wait "$p" || fail "$label: the run failed"
    jq -e '.host.topology.pus > 0' "$tmp/$label.json" >/dev/null || fail "$label: no topology in the JSON"
}

maps_during_run default -u HWLOC_PLUGINS_BLACKLIST -u HWLOC_PLUGINS_BLOCKLIST
grep -q . "$tmp/default.maps" && fail "hwloc plugins mapped: $(awk '{print $6}' "$tmp/default.maps" | sort -u | tr "\n" " ")"
# the user's own (empty) list: every plugin loads, the PCI one included
maps_during_run user -u HWLOC_PLUGINS_BLOCKLIST HWLOC_PLUGINS_BLACKLIST=
grep -q "hwloc_pci" "$tmp/user.maps" || fail "HWLOC_PLUGINS_BLACKLIST set by the user was not honoured"
echo "ok: no hwloc I/O plugin mapped ($plugin present)"
