#!/usr/bin/env bash
# O_DIRECT short reads at end of file and fallocate modes, on programs
# nobody wrote for the test, captured here and now:
#   dd iflag=direct oflag=direct on a file whose size is not a multiple of
#     the block (its last read is short, its last write drops O_DIRECT);
#   util-linux fallocate: -l, -p (punch), -z and -z -n (zero range), -c
#     (collapse), -i (insert), three processes one after the other on one
#     file (replayed in parallel mode: their order must hold);
#   cp --sparse=always of a file with holes (it punches them).
# Each is replayed under strace -f -y, and the replayer's calls are read by
# tests/tools/direct_falloc_check.py (not replay's parser) against the
# capture: the byte counts dd asked and got, every fallocate's mode, offset
# and length.  Then the size and st_blocks of every file the replay left
# against those the traced program left.
# A part the test's file system refuses (O_DIRECT, a fallocate mode) is
# skipped with the reason; when every part is, the test is skipped (77).
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
need() { command -v "$1" >/dev/null 2>&1 || { echo "skip: $1 not installed"; exit 77; }; }
need strace; need python3; need dd
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CHECK=$SRCDIR/tests/tools/direct_falloc_check.py
drop=()
[ "$(id -u)" = 0 ] || drop=(--no-drop-caches)
# LeakSanitizer cannot run under ptrace
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
engines=(sync libaio io_uring)
"$REPLAY" run --dry-run -e io_uring "$SRCDIR/traces/strace-probe.txt" "$tmp" >/dev/null 2>&1 ||
    { echo "note: io_uring unavailable here"; engines=(sync libaio); }
fail=0 ran=0

# replay TRACE TARGET ENGINE: under strace, kept; its strace in $tmp/replay.strace
replay_traced() {
    local tr=$1 tg=$2 eng=$3
    rm -rf "$tg"; mkdir -p "$tg"
    if ! strace -f -y -o "$tmp/replay.strace" "$REPLAY" run -e "$eng" --keep "${drop[@]}" \
            -o "$tmp/r.json" "$tr" "$tg" >"$tmp/run.out" 2>&1; then
        echo "FAIL replay of $tr -e $eng failed:"; tail -5 "$tmp/run.out"; return 1
    fi
    if grep -q '^mismatches:' "$tmp/run.out"; then
        echo "FAIL replay of $tr -e $eng: ops did not get the traced result:"
        sed -n '/^mismatches:/,$p' "$tmp/run.out" | head -8; return 1
    fi
}

# same_file ORIG REPLAYED WHAT: equal size, st_blocks within 10% (at least 64 blocks)
same_file() {
    local o=$1 r=$2 what=$3 os ob rs rb
    [ -f "$r" ] || { echo "FAIL $what: the replay left no $r"; return 1; }
    read -r os ob < <(stat -c '%s %b' "$o")
    read -r rs rb < <(stat -c '%s %b' "$r")
    if [ "$os" != "$rs" ]; then
        echo "FAIL $what: $(basename "$o") is $rs bytes after the replay, $os after the traced program"; return 1
    fi
    local slack=$(( ob / 10 > 64 ? ob / 10 : 64 )) d=$(( rb - ob ))
    if [ "${d#-}" -gt "$slack" ]; then
        echo "FAIL $what: $(basename "$o") has $rb blocks after the replay, $ob after the traced program"; return 1
    fi
    echo "ok $what: $(basename "$o") $rs bytes, $rb blocks (traced program: $ob)"
}

# ---- dd with O_DIRECT, the file's size not a multiple of the block --------
w=$tmp/dd/w; mkdir -p "$w"
if ! dd if=/dev/zero of="$w/probe" bs=4096 count=1 oflag=direct status=none 2>"$tmp/probe.err" ||
   ! dd if="$w/probe" of=/dev/null bs=4096 iflag=direct status=none 2>>"$tmp/probe.err"; then
    echo "skip dd: the test's file system refuses O_DIRECT ($(head -1 "$tmp/probe.err"))"
else
    rm -f "$w/probe"
    head -c 10000000 /dev/urandom >"$w/in.bin"
    ( cd "$w" && strace -f -tt -T -y -o "$tmp/dd.trace" dd if=in.bin of=out.bin bs=1M \
        iflag=direct oflag=direct conv=fsync status=none )
    ran=1
    short=$(grep -c 'read(.*in.bin>, .*, 1048576) = 562816' "$tmp/dd.trace" || true)
    [ "$short" = 1 ] || { echo "FAIL dd: the capture has no short O_DIRECT read at the end"; fail=1; }
    for eng in "${engines[@]}"; do
        replay_traced "$tmp/dd.trace" "$tmp/tgt" "$eng" || { fail=1; continue; }
        if [ "$eng" != io_uring ]; then
            # (io_uring's reads are not system calls strace sees)
            if ! python3 "$CHECK" reads in.bin "$tmp/dd.trace" "$tmp/replay.strace" >"$tmp/cmp.out"; then
                echo "FAIL dd -e $eng: the reads of in.bin are not the traced ones:"; cat "$tmp/cmp.out"; fail=1; continue
            fi
            echo "ok dd -e $eng: reads of in.bin as traced, asked and got ($(cat "$tmp/cmp.out"))"
        fi
        short=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(j["read"].get("short_ios",0) for x in r["runs"] for j in x["jobs"]))' "$tmp/r.json")
        [ "$short" = 0 ] || { echo "FAIL dd -e $eng: $short short reads counted"; fail=1; }
        same_file "$w/out.bin" "$tmp/tgt$w/out.bin" "dd -e $eng" || fail=1
    done
fi

# ---- an O_DIRECT request this file system refuses as misaligned -----------
# (a capture made where 1000-byte O_DIRECT reads work, e.g. NFS): the
# error says so, not a bare "Invalid argument"
w=$tmp/al/w; mkdir -p "$w"; head -c 4096 /dev/urandom >"$w/f.bin"
if [ "$ran" = 1 ] && ! dd if="$w/f.bin" of=/dev/null bs=1000 count=1 iflag=direct status=none 2>/dev/null; then
    printf '%s\n' "100 10:00:00.000001 openat(AT_FDCWD, \"$w/f.bin\", O_RDONLY|O_DIRECT) = 3</$w/f.bin>" \
        "100 10:00:00.000002 read(3</$w/f.bin>, \"a\"..., 1000) = 1000" \
        "100 10:00:00.000003 close(3</$w/f.bin>) = 0" >"$tmp/al.trace"
    rm -rf "$tmp/tgt"; mkdir "$tmp/tgt"
    if "$REPLAY" run "${drop[@]}" "$tmp/al.trace" "$tmp/tgt" >"$tmp/run.out" 2>&1; then
        echo "FAIL a 1000-byte O_DIRECT read this file system refuses did not fail"; fail=1
    elif grep -q "O_DIRECT request of 1000 bytes at offset 0 not aligned as the target's file system requires" "$tmp/run.out"; then
        echo "ok a misaligned O_DIRECT request: $(grep -o 'Invalid argument: .*' "$tmp/run.out" | head -1)"
    else
        echo "FAIL the misaligned O_DIRECT read's error does not say so:"; tail -3 "$tmp/run.out"; fail=1
    fi
fi

# ---- util-linux fallocate ------------------------------------------------
# probe each mode on the test's file system: a refused one is left out
fa_ok=()
if command -v fallocate >/dev/null 2>&1; then
    p=$tmp/fprobe; mkdir -p "$p"
    for m in p z c i; do
        head -c 65536 /dev/zero >"$p/f"
        case $m in
            p) a=(-p -o 4096 -l 4096) ;; z) a=(-z -o 4096 -l 4096) ;;
            c) a=(-c -o 0 -l 4096) ;;    i) a=(-i -o 4096 -l 4096) ;;
        esac
        if err=$(fallocate "${a[@]}" "$p/f" 2>&1); then fa_ok+=("$m")
        else echo "skip fallocate -$m: the test's file system refuses it ($err)"; fi
    done
else
    echo "skip fallocate: util-linux fallocate not installed"
fi
has() { case " ${fa_ok[*]-} " in *" $1 "*) return 0 ;; esac; return 1; }
cmds=("fallocate -l 8M a.bin")
has p && cmds+=("fallocate -p -o 1M -l 2M a.bin")
# three processes one after the other on z.bin: zero range (extends it),
# zero range keeping the size, then collapse and insert (move the data)
if has z; then
    cmds+=("fallocate -l 1000000 z.bin" "fallocate -z -o 500000 -l 2000000 z.bin"
           "fallocate -z -n -o 4000000 -l 1000000 z.bin")
    has c && cmds+=("fallocate -c -o 0 -l 4096 z.bin")
    has i && cmds+=("fallocate -i -o 8192 -l 16384 z.bin")
fi
if [ "${#fa_ok[@]}" -gt 0 ]; then
    w=$tmp/fa/w; mkdir -p "$w"
    script=$(printf '%s && ' "${cmds[@]}"); script=${script% && }
    if ! ( cd "$w" && strace -f -tt -T -y -o "$tmp/fa.trace" sh -c "$script" ) 2>"$tmp/fa.err"; then
        echo "FAIL capture: $script: $(tail -1 "$tmp/fa.err")"; exit 1
    fi
    ran=1
    for eng in sync libaio; do
        replay_traced "$tmp/fa.trace" "$tmp/tgt" "$eng" || { fail=1; continue; }
        if ! python3 "$CHECK" falloc "$tmp/fa.trace" "$tmp/replay.strace" >"$tmp/cmp.out"; then
            echo "FAIL fallocate -e $eng: the replay's fallocates are not the traced ones:"; cat "$tmp/cmp.out"; fail=1; continue
        fi
        echo "ok fallocate -e $eng: modes, offsets and lengths as traced ($(cat "$tmp/cmp.out")): ${cmds[*]}"
        for f in "$w"/*.bin; do same_file "$f" "$tmp/tgt$f" "fallocate -e $eng" || fail=1; done
    done
fi

# ---- cp --sparse=always: punches the holes of its copy --------------------
if has p; then
    w=$tmp/cp/w; mkdir -p "$w"
    truncate -s 20M "$w/sparse.bin"
    dd if=/dev/urandom of="$w/sparse.bin" bs=1M seek=5 count=2 conv=notrunc status=none
    dd if=/dev/urandom of="$w/sparse.bin" bs=1M seek=15 count=1 conv=notrunc status=none
    ( cd "$w" && strace -f -tt -T -y -o "$tmp/cp.trace" cp --sparse=always sparse.bin copy.bin )
    if ! grep -q 'fallocate(.*copy.bin>, FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE' "$tmp/cp.trace"; then
        echo "skip cp: this cp made its holes without punching them (no fallocate to replay)"
    else
        ran=1
        replay_traced "$tmp/cp.trace" "$tmp/tgt" sync || fail=1
        if python3 "$CHECK" falloc "$tmp/cp.trace" "$tmp/replay.strace" >"$tmp/cmp.out"; then
            echo "ok cp --sparse=always: $(cat "$tmp/cmp.out"), modes as traced"
        else
            echo "FAIL cp --sparse=always: the replay's fallocates are not the traced ones:"; cat "$tmp/cmp.out"; fail=1
        fi
        same_file "$w/copy.bin" "$tmp/tgt$w/copy.bin" "cp --sparse=always" || fail=1
    fi
else
    echo "skip cp --sparse=always: the test's file system refuses FALLOC_FL_PUNCH_HOLE"
fi

# ---- the fio-iolog export says what it leaves out --------------------------
if [ -f "$tmp/cp.trace" ] && grep -q 'PUNCH_HOLE' "$tmp/cp.trace"; then
    n=$(grep -c 'fallocate(.*copy.bin>.* = 0' "$tmp/cp.trace")
    out=$("$REPLAY" convert --to fio-iolog -o "$tmp/iologs" "$tmp/cp.trace" 2>&1) ||
        { echo "FAIL fio-iolog export of the cp capture: $out"; fail=1; }
    case $out in
        *", $n fallocate"*"an iolog has none"*) echo "ok fio-iolog export says it left the $n fallocates out" ;;
        *) echo "FAIL fio-iolog export does not say it left the $n fallocates out: $out"; fail=1 ;;
    esac
    if grep -rqi 'fallocate' "$tmp/iologs"; then echo "FAIL an iolog line names fallocate"; fail=1; fi
fi

[ "$ran" = 1 ] || { echo "skip: the test's file system refuses O_DIRECT and every fallocate mode"; exit 77; }
exit $fail
