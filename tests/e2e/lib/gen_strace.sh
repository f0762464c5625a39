# gen_strace.sh - write synthetic strace -f -tt -T text traces for the run tests.
# Sourced by tests/e2e/run_*.sh (this directory is not a test itself).

# gen_writes PID PATH COUNT SIZE SYNC_EVERY [START_US [STEP_US]]
#   one rank: open PATH O_WRONLY|O_CREAT|O_TRUNC, COUNT pwrite64 of SIZE
#   bytes at consecutive offsets, an fdatasync after every SYNC_EVERY
#   writes (0: none), close; one call every STEP_US (10) microseconds.
gen_writes() {
    awk -v pid="$1" -v path="$2" -v n="$3" -v sz="$4" -v every="$5" -v t="${6:-0}" -v step="${7:-10}" '
    function ts(us) { return sprintf("10:%02d:%02d.%06d", int(us / 60000000) % 60,
                                      int(us / 1000000) % 60, us % 1000000) }
    BEGIN {
        printf "%d  %s openat(AT_FDCWD, \"%s\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000010>\n", pid, ts(t), path
        for (i = 0; i < n; i++) {
            t += step
            printf "%d  %s pwrite64(3, \"xxxxxxxx\"..., %d, %d) = %d <0.000005>\n", pid, ts(t), sz, i * sz, sz
            if (every > 0 && (i + 1) % every == 0) {
                t += step
                printf "%d  %s fdatasync(3) = 0 <0.000100>\n", pid, ts(t)
            }
        }
        t += step
        printf "%d  %s close(3) = 0 <0.000003>\n", pid, ts(t)
    }'
}

# traced_bytes TRACE PID read|write -> bytes the traced calls of PID transferred
# (successful read/pread64/readv or write/pwrite64/writev, resumed lines too),
# leaving out, as replay does by default, calls on files under the system
# and MPI runtime paths of replay(1) ("Noise left out") by their -y path.
traced_bytes() {
    awk -v pid="$2" -v dir="$3" '
    function noise(path) {
        return path ~ /^\/(etc|dev|proc|sys|usr|bin|sbin|lib|lib32|lib64|libx32|boot|opt|snap|var|run)(\/|$)/ ||
               path ~ /^\/tmp\/(ompi\.|pmix|hydra|mpich)/ || path ~ /\/\.(openmpi|pmix)(\/|$)/
    }
    $1 != pid { next }
    {
        line = $0; name = ""
        p = ""
        if (match(line, /\([0-9]+<[^>]*>/))
            p = substr(line, RSTART, RLENGTH)
        sub(/^\([0-9]+</, "", p); sub(/>$/, "", p)
        if (line ~ /<unfinished \.\.\.>$/) { pend = p; next }
        if (line ~ /<\.\.\. [a-z0-9_]+ resumed>/) p = pend
        if (p != "" && noise(p)) next
        if (match(line, /<\.\.\. [a-z0-9_]+ resumed>/)) {
            name = substr(line, RSTART + 5, RLENGTH - 5 - 9)
        } else if (match(line, /^[0-9]+ +[0-9:.]+ [a-z0-9_]+\(/)) {
            s = substr(line, RSTART, RLENGTH - 1); sub(/.* /, "", s); name = s
        }
        isr = (name == "read" || name == "pread64" || name == "readv" || name == "preadv")
        isw = (name == "write" || name == "pwrite64" || name == "writev" || name == "pwritev")
        if ((dir == "read" && !isr) || (dir == "write" && !isw)) next
        if (match(line, /\) += -?[0-9]+/)) {
            v = substr(line, RSTART, RLENGTH); sub(/.*= */, "", v)
            if (v + 0 > 0) sum += v
        }
    }
    END { print sum + 0 }' "$1"
}
