#!/usr/bin/env bash
# SIGTERM mid-run (issue 14): as scancel or a time limit does, to mpirun
# (which forwards it to every process) and to one replay-mpi process only
# (the others learn it from the relay): rank 0 writes the partial results
# marked incomplete with the signal, the files are removed, nothing is left
# running.
. "$SRCDIR/tests/e2e/lib/mpi.sh"
source "$SRCDIR/tests/e2e/lib/gen_strace.sh"
for p in 601 602 603 604; do gen_writes $p /k/$p.dat 40000 4096 1; done >"$tmp/long.txt"

# wait_workers N: until N replay-mpi processes (parents and workers) run
wait_workers() {
    for _ in $(seq 300); do
        [ "$(pgrep -f "^$MPI_BIN .*$tmp/long.txt" | wc -l)" -ge "$1" ] && return 0
        sleep 0.1
    done
    fail "workers never started"
}

check() {   # check LABEL RC
    [ "$2" != 0 ] || fail "$1: exit 0 after SIGTERM"
    [ "$2" != 124 ] || fail "$1: hung"
    [ -f "$tmp/s.json" ] || { cat "$tmp/err" "$tmp/out"; fail "$1: no JSON"; }
    jq -e '.incomplete == true and .runs[0].incomplete == true and .runs[0].stop_signal == 15' \
        "$tmp/s.json" >/dev/null || fail "$1: JSON not marked incomplete: $(jq -c '[.incomplete, .runs[0].incomplete, .runs[0].stop_signal]' "$tmp/s.json")"
    n=$(jq '.runs[0].jobs | length' "$tmp/s.json")
    [ "$n" = 4 ] || fail "$1: $n jobs in the JSON, want 4"
    sleep 0.3
    left=$(pgrep -f "$tmp/long.txt" || true)
    [ -z "$left" ] || fail "$1: processes left: $left"
    [ -z "$(ls "$tmp/tgt")" ] || fail "$1: files left: $(ls "$tmp/tgt")"
    echo "ok $1: exit $2, JSON incomplete (stop_signal 15, $(jq '[.runs[0].jobs[].write.done_bytes] | add' "$tmp/s.json") bytes written), no process or file left"
}

# start: mpirun in the background; $tp is timeout's pid, $mp mpirun's
start() {
    timeout 120 mpirun --oversubscribe -np 2 "$MPI_BIN" "${drop[@]}" -o "$tmp/s.json" \
        "$tmp/long.txt" "$tmp/tgt" >"$tmp/out" 2>"$tmp/err" &
    tp=$!
    for _ in $(seq 50); do mp=$(pgrep -P "$tp" mpirun || true); [ -n "$mp" ] && break; sleep 0.1; done
    [ -n "$mp" ] || fail "mpirun did not start"
    wait_workers 6      # 2 MPI processes and their 4 workers
    sleep 0.3
}

mkdir "$tmp/tgt"
start
kill -TERM "$mp"
rc=0; wait "$tp" || rc=$?
# mpirun SIGKILLs its processes 1 s after forwarding its SIGTERM
# (odls_base_sigkill_timeout): on a loaded node rank 0 can miss that, and
# replay-mpi(1) says so; tried once more then
if [ ! -f "$tmp/s.json" ]; then
    echo "note: SIGTERM to mpirun: no JSON within mpirun's 1 s (a loaded node): once more"
    pkill -KILL -f "$tmp/long.txt" 2> /dev/null || true
    sleep 0.5
    rm -rf "$tmp/tgt"; mkdir "$tmp/tgt"
    start
    kill -TERM "$mp"
    rc=0; wait "$tp" || rc=$?
fi
check "SIGTERM to mpirun" "$rc"

rm -f "$tmp/s.json"
start
# one MPI process (a child of mpirun), not the others: the relay tells them
one=$(pgrep -P "$mp" -f "^$MPI_BIN " | tail -1)
[ -n "$one" ] || fail "no replay-mpi process found"
kill -TERM "$one"
rc=0; wait "$tp" || rc=$?
check "SIGTERM to one MPI process" "$rc"
echo "ok mpi_signal"
