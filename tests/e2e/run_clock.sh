#!/usr/bin/env bash
# --clock auto|tsc|monotonic: options.clock in the JSON says which clock
# timed the ops, auto picks the TSC exactly when the kernel's clocksource
# is tsc and the CPU's TSC is invariant (read here from sysfs and
# /proc/cpuinfo), and times on either clock are bounded from outside: a
# replay keeping the traced think time lasts at least that long, and no
# longer than the wall time around the process.  Under a private mount
# namespace (root), a clocksource file saying kvm-clock makes auto fall
# back to monotonic and --clock tsc a clear error.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
tmp=$(mktemp -d /tmp/replay-e2e-clock-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
tgt="$tmp/tgt"; mkdir "$tgt"
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource

# the independent reading of what auto should pick
want=monotonic
if [ "$(uname -m)" = x86_64 ] && [ "$(cat "$cs" 2>/dev/null)" = tsc ] &&
   grep -m1 '^flags' /proc/cpuinfo | grep -qw constant_tsc &&
   grep -m1 '^flags' /proc/cpuinfo | grep -qw nonstop_tsc; then
    want=tsc
fi

# 2 ranks, 3 think gaps of 45-55 ms each (tests/tools/strace_think.py)
"$REPLAY" gen checkpoint -n 2 --scale 0.4 -o "$tmp/ck.txt" >/dev/null
python3 "$SRCDIR/tests/tools/strace_think.py" "$tmp/ck.txt" > "$tmp/ref.json"
think=$(jq '[.[] | .think] | max' "$tmp/ref.json")
[ "$think" -gt 100000000 ] || fail "no think time in the generated trace"

for c in auto monotonic $([ "$want" = tsc ] && echo tsc); do
    t0=$(date +%s%N)
    "$REPLAY" run --quiet --no-drop-caches --clock "$c" --timing think -o "$tmp/$c.json" \
        "$tmp/ck.txt" "$tgt" >/dev/null
    t1=$(date +%s%N)
    exp=$c; [ "$c" = auto ] && exp=$want
    jq -e --arg c "$exp" '.options.clock == $c' "$tmp/$c.json" >/dev/null \
        || fail "--clock $c: options.clock $(jq .options.clock "$tmp/$c.json"), expected $exp"
    # the slowest rank kept its think time; the run fits in the wall time
    jq -e --argjson think "$think" --argjson wall $((t1 - t0)) \
        '([.runs[0].jobs[].io_ns] | max) >= $think and .runs[0].completion_ns <= $wall
         and .runs[0].completion_ns >= ([.runs[0].jobs[].io_ns] | max)
         and ([.jobs[] | select(.write.total_ios > 0)] | length) > 0
         and all(.jobs[] | select(.write.total_ios > 0) | .write.lat_ns;
                 .min > 0 and .min <= .mean and .mean <= .max)' \
        "$tmp/$c.json" >/dev/null \
        || fail "--clock $c: times out of bounds (think $think, wall $((t1 - t0))): $(jq -c \
           '{c: .runs[0].completion_ns, io: [.runs[0].jobs[].io_ns], lat: [.jobs[].write.lat_ns | {min, mean, max}]}' \
           "$tmp/$c.json")"
done
[ -z "$(ls -A "$tgt")" ] || fail "files left in the target"

# a clock that is not one: exit 2 and the choices
if "$REPLAY" run --clock hpet "$tmp/ck.txt" "$tgt" 2>"$tmp/err.txt"; then fail "--clock hpet accepted"; fi
grep -q "invalid clock 'hpet': expected auto, tsc or monotonic" "$tmp/err.txt" || fail "message: $(cat "$tmp/err.txt")"

# the kernel's clocksource is not tsc: auto takes monotonic, tsc is refused
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || [ ! -e "$cs" ]; then
    echo "SKIP: the clocksource override needs root, unshare and $cs"
    exit 0
fi
echo kvm-clock > "$tmp/cs"
if ! unshare -m sh -c "mount --bind '$tmp/cs' '$cs' && cat '$cs'" > "$tmp/seen" 2>/dev/null ||
   [ "$(cat "$tmp/seen")" != kvm-clock ]; then
    echo "SKIP: cannot bind-mount over $cs in a private mount namespace"
    exit 0
fi
unshare -m sh -c "mount --bind '$tmp/cs' '$cs' && exec '$REPLAY' run --quiet --no-drop-caches \
    -o '$tmp/kvm.json' '$tmp/ck.txt' '$tgt'" >/dev/null || fail "auto with clocksource kvm-clock failed"
jq -e '.options.clock == "monotonic"' "$tmp/kvm.json" >/dev/null || fail "auto did not fall back"
if unshare -m sh -c "mount --bind '$tmp/cs' '$cs' && exec '$REPLAY' run --quiet --no-drop-caches \
    --clock tsc '$tmp/ck.txt' '$tgt'" >/dev/null 2>"$tmp/err.txt"; then
    fail "--clock tsc accepted with clocksource kvm-clock"
fi
grep -q -- "--clock tsc: not usable here: the kernel's clocksource is not tsc" "$tmp/err.txt" \
    || fail "message: $(cat "$tmp/err.txt")"
[ -z "$(ls -A "$tgt")" ] || fail "files left in the target"
echo "ok: --clock (auto = $want)"
