#!/usr/bin/env bash
# The manual and the binary agree (git's t0450): every usage line of
# `replay help CMD` is in the SYNOPSIS and vice versa; every long option
# a command's help lists is documented in replay(1), and every long option
# replay(1) documents exists in some command's help.  Both pages render
# without warnings.
set -euo pipefail
: "${REPLAY:?}" "${SRCDIR:?}"
man1=$SRCDIR/man/replay.1
man5=$SRCDIR/man/replay-ops.5
command -v man >/dev/null || { echo "SKIP: man (man-db) not installed"; exit 77; }
fail=0
err() { echo "FAIL: $*"; fail=1; }

for page in "$man1" "$man5"; do
    w=$(MANWIDTH=100 man --warnings -l "$page" 2>&1 >/dev/null || true)
    [ -z "$w" ] || err "$(basename "$page") renders with warnings: $w"
done

unesc() { sed -e 's/\\-/-/g' -e 's/\\(em/--/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g'; }

# SYNOPSIS lines (the .nf block), minus the global --help line; a usage
# too long for one line goes on indented, in both
syn=$(awk '/^\.SH SYNOPSIS/{on=1;next} /^\.SH/{on=0} on && !/^\./' "$man1" | unesc |
	grep -v -- '--help | --version' | sed 's/^ *//')
cmds="run stat convert dump gen compare plot completion"
usage=""
for c in $cmds; do
    # usage lines: "usage: replay ..." and the indented "replay ..." lines after it, up to the first blank line
    u=$("$REPLAY" help "$c" | awk 'NR==1 && !/^usage: /{exit} /^$/{exit} {sub(/^usage: /,""); sub(/^ +/,""); print}')
    [ -n "$u" ] || err "'replay help $c' prints no usage line"
    usage+="$u"$'\n'
done
while IFS= read -r line; do
    [ -z "$line" ] && continue
    case "$line" in replay\ *) ;; *) continue;; esac   # continuation lines of a usage
    grep -qxF -- "$line" <<<"$syn" || err "usage line not in the SYNOPSIS of replay(1): '$line'"
done <<<"$usage"
while IFS= read -r line; do
    [ -z "$line" ] && continue
    grep -qxF -- "$line" <<<"$usage" || err "SYNOPSIS line not printed by any 'replay help': '$line'"
done <<<"$syn"

# long options, both ways
helpopts=$("$REPLAY" --help; for c in $cmds; do "$REPLAY" help "$c"; done; bash "$SRCDIR/scripts/evaluate-storage" --help 2>&1 || true)
helpopts=$(grep -oE -- '--[a-z][a-z0-9_-]+' <<<"$helpopts" | sort -u)
manopts=$(unesc <"$man1" | grep -oE -- '--[a-z][a-z0-9_-]+' | sort -u)
for o in $helpopts; do
    grep -qxF -- "$o" <<<"$manopts" || err "option $o (in --help) is not documented in replay(1)"
done
# options of other tools that replay(1) mentions on purpose
foreign="--output-format --read_iolog --replay_no_stall --ioengine --name --install --show-incomplete"
for o in $manopts; do
    grep -qxF -- "$o" <<<"$helpopts" && continue
    case " $foreign " in *" $o "*) continue;; esac
    err "option $o is documented in replay(1) but no command's help lists it"
done

[ "$fail" -eq 0 ] && echo "man pages and --help agree ($(wc -l <<<"$helpopts") options, $(wc -l <<<"$syn") usage lines)"
exit "$fail"
