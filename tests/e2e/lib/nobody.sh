# nobody.sh - run replay as an unprivileged user (sourced).
#
# nobody_setup NAME: skips (exit 77, saying why) unless root with setpriv;
# makes $tmp (/tmp/replay-e2e-NAME-XXXXXX, removed at exit by the caller's
# trap) holding t.txt (a small strace capture) and the directories tgt/
# and out/ that uid 65534 may write; skips when that user cannot read
# them or run $REPLAY.  as_nobody CMD...: CMD as uid/gid 65534.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
nobody_setup() {
    if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
        echo "skip: needs root and setpriv to run the binary as an unprivileged user"
        exit 77
    fi
    tmp=$(mktemp -d "/tmp/replay-e2e-$1-XXXXXX")
    chmod 755 "$tmp"
    cp "$SRCDIR/tests/data/run/s_f_tt_T_y.txt" "$tmp/t.txt"
    chmod 644 "$tmp/t.txt"
    mkdir -m 777 "$tmp/tgt" "$tmp/out"
    if ! as_nobody test -r "$tmp/t.txt" || ! as_nobody test -x "$REPLAY"; then
        echo "skip: the build or the temp dir is not reachable by an unprivileged user"
        exit 77
    fi
}
