# captures.sh - capture real programs under strace at test time, for the
# fidelity tests (sourced; this directory holds no test of its own).
#
# capture NAME: runs scenario cap_NAME with W=$CAPDIR/NAME/w (the
# program's working directory, the only files the comparison looks at) and
# writes $CAPDIR/NAME/trace (or trace.PID files for -ff captures) and
# $CAPDIR/NAME/sizes (the files the program left: "SIZE PATH").
# Each scenario returns 77 when its program is missing.

STRACE_FLAGS=(-f -tt -T -y)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_rmaps_base_oversubscribe=1

capture() {
    local name=$1 d=$CAPDIR/$1
    rm -rf "$d"; mkdir -p "$d/w"
    W=$d/w T=$d/trace "cap_$name" || return $?
    find "$d/w" -type f -printf '%s %p\n' | sort -k2 >"$d/sizes"
}

need() { command -v "$1" >/dev/null 2>&1 || { echo "skip: $1 not installed"; return 77; }; }

cap_mpi_f() {
    need mpicc || return 77; need mpirun || return 77
    mpicc -O1 -o "$W/../ckpt" "$SRCDIR/tests/e2e/progs/mpiio_ckpt.c" || return 1
    timeout 120 strace "${STRACE_FLAGS[@]}" -o "$T" mpirun -np 4 "$W/../ckpt" "$W" >/dev/null
}
cap_mpi_ff() {
    need mpicc || return 77; need mpirun || return 77
    mpicc -O1 -o "$W/../ckpt" "$SRCDIR/tests/e2e/progs/mpiio_ckpt.c" || return 1
    timeout 120 mpirun -np 4 strace -ff -tt -T -y -o "$T" "$W/../ckpt" "$W" >/dev/null
}
cap_git() {
    need git || return 77
    ( cd "$W" && git init -q . && for i in 1 2 3; do printf 'line %s\n' $(seq 1 $((i * 300))) >"f$i.txt"; done &&
      HOME=$W GIT_CONFIG_NOSYSTEM=1 strace "${STRACE_FLAGS[@]}" -o "$T" sh -c \
        'git add f1.txt f2.txt f3.txt && git -c user.name=t -c user.email=t@x commit -qm one' )
}
cap_python_threads() {
    need python3 || return 77
    strace "${STRACE_FLAGS[@]}" -o "$T" python3 - "$W" <<'PY'
import os, sys, threading
w = sys.argv[1]
shared = os.open(os.path.join(w, "shared.bin"), os.O_RDWR | os.O_CREAT, 0o644)
def worker(i):
    fd = os.open(os.path.join(w, "t%d.dat" % i), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for k in range(20):
        os.write(fd, bytes([65 + i]) * (4096 + 512 * i))
    os.fsync(fd); os.close(fd)
    for k in range(8):
        os.pwrite(shared, bytes([97 + i]) * 8192, (k * 4 + i) * 8192)
ts = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
os.fsync(shared); os.close(shared)
PY
}
cap_sqlite() {
    need sqlite3 || return 77
    ( cd "$W" && strace "${STRACE_FLAGS[@]}" -o "$T" sqlite3 db.sqlite \
        "create table t(a integer, b text);" \
        "begin; insert into t values(1, printf('%.2000c', 'x')); insert into t values(2, 'y'); commit;" \
        "begin; insert into t select a + 10, b from t; commit;" \
        "begin; update t set b = printf('%.3000c', 'z') where a > 5; commit;" \
        "select count(*) from t;" >/dev/null )
}
cap_rsync() {
    need rsync || return 77
    mkdir -p "$W/src/sub"
    head -c 300000 /dev/urandom >"$W/src/a.bin"; head -c 5000 /dev/urandom >"$W/src/sub/b.txt"
    printf 'small\n' >"$W/src/c"
    strace "${STRACE_FLAGS[@]}" -o "$T" rsync -a "$W/src/" "$W/dst/"
}
cap_fio_psync() {
    need fio || return 77
    ( cd "$W" && strace "${STRACE_FLAGS[@]}" -o "$T" fio --name=j --filename=f.dat --size=1M \
        --rw=randrw --bs=4k --ioengine=psync --randseed=7 --fsync=16 --output=/dev/null )
}
cap_fio_libaio() {
    need fio || return 77
    ( cd "$W" && strace "${STRACE_FLAGS[@]}" -o "$T" fio --name=j --filename=f.dat --size=1M \
        --rw=randwrite --bs=4k --ioengine=libaio --iodepth=8 --randseed=7 --output=/dev/null )
}
cap_dd_direct() {
    strace "${STRACE_FLAGS[@]}" -o "$T" dd if=/dev/zero of="$W/out.img" bs=64k count=16 oflag=direct status=none
}
cap_symlink_ckpt() {
    need python3 || return 77
    mkdir -p "$W/real"; ln -s real "$W/link"
    strace "${STRACE_FLAGS[@]}" -o "$T" python3 - "$W" <<'PY'
import os, sys
w = sys.argv[1]
fd = os.open(os.path.join(w, "link", "ckpt.dat"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for k in range(16):
    os.write(fd, b"c" * 65536)
os.fsync(fd); os.close(fd)
fd = os.open(os.path.join(w, "real", "ckpt.dat"), os.O_RDONLY)
while os.read(fd, 100000):
    pass
os.close(fd)
PY
}

# strace flag sets other than STRACE_FLAGS, each adding what its lines look
# like: -z (--successful-only; strace 6.1 prints the rest of a call it left
# unfinished on the next line, bare: no pid, time or "<... resumed>"),
# -e read=all -e write=all (a hex dump of every transfer's bytes after its
# line), -i and -n ("[00007f..]", "[????????????????]" and "[  17]" before
# each call).
cap_python_z() {
    need python3 || return 77
    strace "${STRACE_FLAGS[@]}" -z -o "$T" python3 - "$W" <<'PY'
import os, sys, threading
w = sys.argv[1]
def writer(i):
    fd = os.open(os.path.join(w, "t%d.dat" % i), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for k in range(300):
        os.write(fd, bytes([65 + i]) * (1024 + 512 * i))
    os.close(fd)
ts = [threading.Thread(target=writer, args=(i,)) for i in range(3)]
[t.start() for t in ts]
s = os.open(os.path.join(w, "sync.bin"), os.O_RDWR | os.O_CREAT, 0o644)
for k in range(30):
    os.pwrite(s, b"s" * 4096, k * 4096)
    os.fsync(s)
    os.pread(s, 512, k * 2048)
[t.join() for t in ts]
os.close(s)
PY
}
cap_sqlite_xdump() {
    need sqlite3 || return 77
    ( cd "$W" && strace "${STRACE_FLAGS[@]}" -e read=all -e write=all -o "$T" sqlite3 db.sqlite \
        "create table t(a integer, b text);" \
        "begin; insert into t values(1, printf('%.2000c', 'x')); insert into t values(2, 'y'); commit;" \
        "begin; update t set b = printf('%.3000c', 'z') where a > 1; commit;" >/dev/null )
}
cap_dd_in() {
    strace "${STRACE_FLAGS[@]}" -i -n -o "$T" dd if=/dev/zero of="$W/out.img" bs=16k count=8 status=none
}

# Calls that move bytes between two descriptors: cp and cat (coreutils 9:
# copy_file_range between files), fio --ioengine=splice (splice between
# its file and a pipe).
cap_cp_copy() {
    head -c 300000 /dev/urandom >"$W/src.bin"
    strace "${STRACE_FLAGS[@]}" -o "$T" sh -c 'cp "$1/src.bin" "$1/cp.bin" && cat "$1/src.bin" >"$1/cat.bin"' sh "$W"
}
cap_fio_splice() {
    need fio || return 77
    ( cd "$W" && strace "${STRACE_FLAGS[@]}" -o "$T" fio --name=j --filename=f.dat --size=256k \
        --rw=randrw --bs=4k --ioengine=splice --randseed=7 --output=/dev/null )
}
