#!/usr/bin/env bash
# json_utf8.sh - text that is not valid UTF-8 (a file named with the bytes
# \377\376, as strace prints them) is in the JSON, written with \xHH escapes,
# instead of vanishing from it (jansson refuses such a string: the entry
# was dropped, or the whole document).
#
# A synthetic strace -f -tt -T -y trace (files /x/\377\376bin.txt,
# /x/a\b\377.txt - a backslash in a name that is not UTF-8 -, /x/café.txt,
# /x/ok.txt), and, where strace can trace here, a real capture of a shell
# writing and reading such files:
#   - `replay stat --json` lists every file in files[] and file_ranks[],
#     the invalid bytes as \xHH, the backslash doubled only in the
#     non-UTF-8 name, café.txt byte for byte; per-file bytes add up to
#     bytes_read / bytes_written; the document is valid UTF-8;
#   - the notes (source, first_bad) of a trace with a non-UTF-8 name;
#   - `replay run -o r.json` of the trace saved under a non-UTF-8 name into
#     a target directory with a non-UTF-8 name writes its JSON (before: "out
#     of memory", no file), with options.trace, target.dir and "global
#     options".directory escaped, and bytes replayed equal to stat's.
set -euo pipefail
: "${REPLAY:?REPLAY must point at the replay binary}" "${SRCDIR:?}"
command -v jq >/dev/null || { echo "SKIP: jq is needed to read the JSON"; exit 77; }
tmp=$(mktemp -d /tmp/replay-e2e-utf8-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# valid UTF-8 (jq turns invalid bytes into U+FFFD without a word: check first)
utf8_ok() {
    if command -v iconv >/dev/null; then
        iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || fail "$1 is not valid UTF-8"
    fi
}

# check_stat TRACE DIR: DIR is the traced directory of the three files
check_stat() {
    local trace=$1 dir=$2 j="$tmp/stat.json"
    "$REPLAY" stat "$trace" > "$tmp/stat.txt" || fail "stat of $trace failed"
    "$REPLAY" stat --json "$trace" > "$j" || fail "stat --json of $trace failed"
    utf8_ok "$j"
    jq -e . "$j" >/dev/null || fail "stat --json of $trace is not JSON"
    for name in '\xff\xfebin.txt' 'a\\b\xff.txt' "café.txt"; do
        jq -e --arg p "$dir/$name" '[.files[] | select(.path == $p)] | length == 1' "$j" >/dev/null ||
            fail "$trace: files[] has no \"$dir/$name\": $(jq -c '[.files[].path]' "$j")"
        jq -e --arg p "$dir/$name" '[.file_ranks[] | select(.path == $p)] | length >= 1' "$j" >/dev/null ||
            fail "$trace: file_ranks[] has no \"$dir/$name\": $(jq -c '[.file_ranks[].path]' "$j")"
    done
    jq -e --arg p "$dir/\\xff\\xfebin.txt" '.files[] | select(.path == $p) |
        .bytes_written > 0 and .bytes_read > 0' "$j" >/dev/null ||
        fail "$trace: the \\xff\\xfe file has no bytes: $(jq -c '.files' "$j")"
    # the raw text of the escaped name (the JSON has its backslashes doubled again)
    grep -qF "\\\\xff\\\\xfebin.txt\"" "$j" || fail "$trace: no \\\\xff\\\\xfe in the JSON text"
    grep -qF "a\\\\\\\\b\\\\xff.txt\"" "$j" || fail "$trace: the backslash of a\\b is not doubled"
    jq -e '([.files[].bytes_read] | add) == .bytes_read and
           ([.files[].bytes_written] | add) == .bytes_written and
           ([.file_ranks[].bytes_read] | add) == .bytes_read and
           ([.file_ranks[].bytes_written] | add) == .bytes_written' "$j" >/dev/null ||
        fail "$trace: per-file bytes do not add up: $(jq -c '{bytes_read, bytes_written,
              files: [.files[] | [.path, .bytes_read, .bytes_written]]}' "$j")"
    echo "stat ok: $trace ($(jq -c '[.bytes_read, .bytes_written, (.files | length)]' "$j"))"
}

# check_run TRACE: replayed under a non-UTF-8 trace name into a non-UTF-8 target
check_run() {
    local tr tg j="$tmp/r.json"
    tr="$tmp/$(printf 'tr\377\376.txt')"
    tg="$tmp/$(printf 'tg\377dir')"
    cp "$1" "$tr"
    rm -rf "$tg" "$j"
    mkdir "$tg"
    "$REPLAY" run --no-drop-caches --quiet -o "$j" "$tr" "$tg" > "$tmp/run.out" 2>&1 ||
        fail "run of $1 failed: $(tail -3 "$tmp/run.out")"
    [ -s "$j" ] || fail "run of $1 wrote no JSON"
    utf8_ok "$j"
    jq -e --arg t "$tmp/tr\\xff\\xfe.txt" --arg d "$tmp/tg\\xffdir" '
        .options.trace == [$t] and .target.dir == $d and ."global options".directory == $d' "$j" \
        >/dev/null || fail "run of $1: names not escaped: $(jq -c '[.options.trace, .target.dir,
                            ."global options".directory]' "$j")"
    jq -e --argjson r "$(jq .bytes_read "$tmp/stat.json")" --argjson w "$(jq .bytes_written "$tmp/stat.json")" '
        .runs[0].incomplete == false and
        ([.runs[0].jobs[].read.io_bytes] | add) == $r and
        ([.runs[0].jobs[].write.io_bytes] | add) == $w' "$j" >/dev/null ||
        fail "run of $1: bytes differ from stat's: $(jq -c '[.runs[0].incomplete,
              [.runs[0].jobs[] | .read.io_bytes, .write.io_bytes]]' "$j")"
    rm -f "$tr"
    echo "run ok: $1"
}

# ---- a synthetic trace -------------------------------------------------------
syn="$tmp/syn.txt"
# names as strace writes them: a byte as \377 (4 characters), a backslash as \\
ts=0
line() { ts=$((ts + 10)); printf '1234  10:00:00.%06d %s\n' "$ts" "$1" >> "$syn"; }
: > "$syn"
bin='/x/\377\376bin.txt' bsl='/x/a\\b\377.txt' cafe='/x/caf\303\251.txt'
for f in "$bin" "$bsl" "$cafe" /x/ok.txt; do
    line "openat(AT_FDCWD, \"$f\", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3<$f> <0.000010>"
    line "write(3<$f>, \"hello\"..., 4096) = 4096 <0.000005>"
    line "write(3<$f>, \"hello\"..., 1000) = 1000 <0.000005>"
    line "pread64(3<$f>, \"hello\"..., 5096, 0) = 5096 <0.000005>"
    line "close(3<$f>) = 0 <0.000003>"
done
grep -qF '"/x/\377\376bin.txt"' "$syn" || fail "the synthetic trace is not as strace writes it: $(head -1 "$syn")"
grep -qF '"/x/a\\b\377.txt"' "$syn" || fail "the synthetic trace is not as strace writes it: $(sed -n 6p "$syn")"
check_stat "$syn" /x
jq -e '.bytes_written == 4 * 5096 and .bytes_read == 4 * 5096 and (.files | length) == 4' \
    "$tmp/stat.json" >/dev/null || fail "synthetic totals: $(jq -c '[.bytes_read, .bytes_written]' "$tmp/stat.json")"
check_run "$syn"
# the notes name the trace (source, first_bad): a non-UTF-8 trace name
bad="$tmp/$(printf 'bad\377.txt')"
{ cat "$syn"; printf '1234  10:00:01.000000 garbage \377\376 line\n'; } > "$bad"
"$REPLAY" stat --json --skip-bad "$bad" > "$tmp/bad.json" || fail "stat --skip-bad failed"
utf8_ok "$tmp/bad.json"
jq -e '.notes.bad_lines == 1 and (.notes.source | endswith("bad\\xff.txt")) and
       (.notes.first_bad | contains("bad\\xff.txt:"))' "$tmp/bad.json" >/dev/null ||
    fail "notes of a non-UTF-8 trace name: $(jq -c '.notes | [.source, .first_bad]' "$tmp/bad.json")"
echo "notes ok"

# ---- a real capture ----------------------------------------------------------
if ! command -v strace >/dev/null; then
    echo "SKIP (real capture only): strace is not installed"
elif ! strace -f -o /dev/null true 2>/dev/null; then
    echo "SKIP (real capture only): strace cannot trace here (ptrace denied)"
else
    mkdir "$tmp/work"
    (cd "$tmp/work" && strace -f -tt -T -y -o "$tmp/cap.txt" sh -c '
        echo hi > "$(printf "\377\376bin.txt")"
        printf "hello\n" > "$(printf "a\\\\b\377.txt")"
        echo caf > "$(printf "caf\303\251.txt")"
        cat ./*.txt > all
        cat all > /dev/null' </dev/null >/dev/null 2>&1)
    [ -e "$tmp/work/$(printf 'a\\b\377.txt')" ] || fail "the capture's files are not as meant: $(ls -b "$tmp/work")"
    grep -aqF '\377\376bin.txt' "$tmp/cap.txt" || fail "strace did not write \\377\\376: $(grep -a -m2 bin.txt "$tmp/cap.txt")"
    check_stat "$tmp/cap.txt" "$tmp/work"
    check_run "$tmp/cap.txt"
fi
echo "PASS"
