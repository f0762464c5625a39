#!/usr/bin/env bash
# --clock auto|tsc|monotonic|none: options.clock in the JSON says which clock
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

# --clock none: no op timed. The same writes as the trace holds (counted
# here with awk, not by replay), options.clock "none", empty latencies in
# the JSON (fio's shape: N 0), "-" in the summary; refused with think or
# trace timing, which read the clock around every op.
# (a call's result is on its line, or on its "<... pwrite64 resumed>" half)
read -r want_n want_b < <(awk '($3 ~ /^pwrite64\(/ || /<\.\.\. pwrite64 resumed>/) && / = [0-9]+ / {
    r = $0; sub(/.* = /, "", r); split(r, f, " "); n++; s += f[1] } END { print n + 0, s + 0 }' "$tmp/ck.txt")
[ "$want_n" -gt 0 ] || fail "no pwrite64 in the generated trace"
for e in sync null; do
    "$REPLAY" run --no-drop-caches --clock none -e "$e" -o "$tmp/none-$e.json" \
        "$tmp/ck.txt" "$tgt" > "$tmp/none-$e.txt"
    jq -e --argjson n "$want_n" --argjson b "$want_b" '.options.clock == "none"
        and ([.jobs[].write.total_ios] | add) == $n and ([.jobs[].write.io_bytes] | add) == $b
        and all(.jobs[] | .write, .sync; .lat_ns.N == 0 and (.clat_ns.N // 0) == 0
                and .lat_ns.max == 0)
        and (.fidelity.by_class | length) == 0 and .runs[0].completion_ns > 0' \
        "$tmp/none-$e.json" >/dev/null \
        || fail "--clock none -e $e: $(jq -c '{clock: .options.clock, w: [.jobs[].write | {total_ios, io_bytes, lat_ns}]}' \
           "$tmp/none-$e.json") (trace: $want_n writes, $want_b bytes)"
    grep -q '^latency: *not measured (--clock none)$' "$tmp/none-$e.txt" || fail "summary: no latency note"
    grep -Eq '^write +'"$want_n"' .* +- +- +- +-$' "$tmp/none-$e.txt" \
        || fail "summary: write row $(grep '^write' "$tmp/none-$e.txt")"
done
# timed, the same run has a latency for every op
"$REPLAY" run --quiet --no-drop-caches -o "$tmp/timed.json" "$tmp/ck.txt" "$tgt" >/dev/null
jq -e --argjson n "$want_n" '([.jobs[].write.lat_ns.N] | add) == $n' "$tmp/timed.json" >/dev/null \
    || fail "timed run: $(jq -c '[.jobs[].write.lat_ns.N]' "$tmp/timed.json") latencies, $want_n writes"
for t in think trace; do
    if "$REPLAY" run --clock none --timing "$t" "$tmp/ck.txt" "$tgt" 2>"$tmp/err.txt"; then
        fail "--clock none --timing $t accepted"
    fi
    grep -q -- "--clock none needs --timing afap" "$tmp/err.txt" || fail "message: $(cat "$tmp/err.txt")"
done
[ -z "$(ls -A "$tgt")" ] || fail "files left in the target"

# a clock that is not one: exit 2 and the choices
if "$REPLAY" run --clock hpet "$tmp/ck.txt" "$tgt" 2>"$tmp/err.txt"; then fail "--clock hpet accepted"; fi
grep -q "invalid clock 'hpet': expected auto, tsc, monotonic or none" "$tmp/err.txt" || fail "message: $(cat "$tmp/err.txt")"

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
