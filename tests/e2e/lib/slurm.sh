# shellcheck shell=bash
# slurm.sh - sourced by tests/e2e/slurm_*.sh: a real one-node Slurm cluster
# (Debian's slurmctld, slurmd, slurm-client and munge) configured entirely in
# a temp dir, for the tests' lifetime.
#
#   . "$SRCDIR/tests/e2e/lib/slurm.sh"
#   slurm_up                 # or exit 77 with the reason
#   timeout 60 srun --mpi=pmix -O -n 4 prog ...
#   id=$(slurm_sbatch ...)   # sbatch --parsable, then
#   slurm_wait_job "$id" 60  # poll squeue until the job has left it
#
# Nothing outside the temp dir is written: no /etc/slurm/slurm.conf (the
# daemons take -f FILE, the clients SLURM_CONF, exported here, and a job
# inherits it), no /run/munge (a private munged, run as the munge user with
# the package's key, listens on a socket in the temp dir; Slurm finds it
# through AuthInfo=socket=...).  So a munged or Slurm someone else runs is
# never used nor touched, and two of these clusters can run at once: the
# ports are picked free on 127.0.0.1.  Loopback only: NodeAddr=127.0.0.1,
# SlurmctldHost=HOST(127.0.0.1) and the NoInAddrAny parameters (the daemons
# bind to 127.0.0.1, not every address); Open MPI is told to use lo.
# Every daemon is stopped by the pid in its pid file, on EXIT (a trap set by
# slurm_up); a test adds its own cleanup in SLURM_CLEANUP (a command eval'd
# after the cluster is down).  Every Slurm command is wrapped in timeout: a
# misconfiguration hangs, it does not fail.
#
# Skips (exit 77, reason on stdout) when: not root (slurmd must be), a
# command is missing (scripts/setup installs them), a daemon does not start,
# or the node is not idle within SLURM_UP_TIMEOUT seconds (default 20).
# SLURM_NODE_CPUS=N declares N CPUs on the node (SlurmdParameters=
# config_overrides): `--ntasks-per-node` above the real CPU count is refused
# even with --overcommit, and scripts/replay.sbatch asks for 4 per node.
# Sets SLURM_TEST_DIR (the temp dir), SLURM_UP_SECONDS (bring-up time).

SLURM_PKGS="slurmctld slurmd slurm-client munge"
SLURM_TEST_DIR=""
SLURM_CLEANUP=${SLURM_CLEANUP:-}
_slurm_pids=()

# slurm_need_replay_mpi: REPLAY_MPI (default: replay-mpi beside REPLAY), or
# exit 77 with the reason; jq to read its JSON.  LeakSanitizer is turned
# off for the tasks: Open MPI's own allocations outlive MPI_Finalize and
# would be reported in every one (replay's leaks are checked by the replay
# run tests).
slurm_need_replay_mpi() {
	REPLAY_MPI=${REPLAY_MPI:-${BUILDDIR:-$(dirname "$REPLAY")}/replay-mpi}
	[ -x "$REPLAY_MPI" ] || slurm_skip "replay-mpi not built ($REPLAY_MPI): no MPI compiler, or built without it"
	command -v jq >/dev/null || slurm_skip "jq is needed to read the JSON"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}

slurm_skip() {
	echo "skip: $*"
	exit 77
}

# The last lines of the daemons' logs, to say why bring-up failed.
_slurm_logs() {
	local f
	for f in "$SLURM_TEST_DIR"/munge/munged.log "$SLURM_TEST_DIR"/slurmctld.log \
		"$SLURM_TEST_DIR"/slurmd.log; do
		[ -s "$f" ] && { echo "--- $f"; tail -n 5 "$f"; }
	done
	return 0
}

# Two free TCP ports on 127.0.0.1 (bound then released by the kernel's pick).
_slurm_ports() {
	python3 - <<'EOF'
import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))
EOF
}

_slurm_check() {
	local c missing=()
	[ "$(id -u)" = 0 ] || slurm_skip "a Slurm cluster needs root (slurmd runs jobs as their user)"
	for c in slurmctld slurmd srun sbatch squeue sinfo scancel munged munge unmunge runuser python3; do
		command -v "$c" >/dev/null 2>&1 || missing+=("$c")
	done
	[ ${#missing[@]} -eq 0 ] ||
		slurm_skip "not installed: ${missing[*]} (scripts/setup installs $SLURM_PKGS)"
	id munge >/dev/null 2>&1 || slurm_skip "no munge user (the munge package creates it)"
	[ -r /etc/munge/munge.key ] || slurm_skip "no /etc/munge/munge.key (the munge package creates it)"
	return 0
}

_slurm_munge() {
	local m=$SLURM_TEST_DIR/munge
	mkdir "$m" && chown munge:munge "$m" && chmod 0755 "$m"
	timeout 10 runuser -u munge -- munged --socket="$m/sock" --pid-file="$m/munged.pid" \
		--log-file="$m/munged.log" --seed-file="$m/seed" ||
		{ _slurm_logs; slurm_skip "munged did not start"; }
	for _ in $(seq 50); do
		[ -s "$m/munged.pid" ] && break
		sleep 0.1
	done
	[ -s "$m/munged.pid" ] || { _slurm_logs; slurm_skip "munged wrote no pid file"; }
	_slurm_pids+=("$(cat "$m/munged.pid")")
	timeout 10 munge -S "$m/sock" -n </dev/null | timeout 10 unmunge -S "$m/sock" >/dev/null ||
		{ _slurm_logs; slurm_skip "munge credentials do not round-trip through $m/sock"; }
}

_slurm_conf() {
	local d=$SLURM_TEST_DIR ports node extra=""
	ports=$(_slurm_ports) || slurm_skip "no free port on 127.0.0.1"
	node=$(timeout 10 slurmd -C | head -n 1)
	case $node in NodeName=*) ;; *) slurm_skip "slurmd -C printed no node line: $node" ;; esac
	if [ -n "${SLURM_NODE_CPUS:-}" ]; then   # declare more CPUs than there are
		node="${node%% *} CPUs=$SLURM_NODE_CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$SLURM_NODE_CPUS ThreadsPerCore=1 RealMemory=$(echo "$node" | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')"
		extra="SlurmdParameters=config_overrides"
	fi
	cat >"$d/slurm.conf" <<EOF
# Written by tests/e2e/lib/slurm.sh: a one-node cluster on loopback.
ClusterName=replaytest
# Job ids differ between clusters: Open MPI names its session directory and
# shared-memory segments after the PMIx namespace, slurm.pmix.JOB.STEP, so
# two clusters running job 1 at once would share them and hang.
FirstJobId=$((1000 + RANDOM * 30 + RANDOM % 30))
SlurmctldHost=$(hostname)(127.0.0.1)
SlurmctldPort=${ports% *}
SlurmdPort=${ports#* }
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/sock
CredType=cred/munge
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MailProg=/bin/true
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=5
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
$node NodeAddr=127.0.0.1
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
$extra
EOF
	# srun --mpi=pmix keeps a directory per step, spmix_appdir_UID_JOB.STEP,
	# in /tmp by default, and a cancelled step leaves it behind: the next
	# cluster's job of the same id then fails to launch ("File exists")
	echo "PMIxCliTmpDirBase=$d/pmix" >"$d/mpi.conf"
	mkdir "$d/state" "$d/spool" "$d/pmix"
}

# Start a daemon that forks into the background and wait for its pid file.
_slurm_daemon() {   # _slurm_daemon NAME ARGS...
	local name=$1 pidf=$SLURM_TEST_DIR/$1.pid
	shift
	timeout 20 "$name" -f "$SLURM_CONF" "$@" || { _slurm_logs; slurm_skip "$name did not start"; }
	for _ in $(seq 100); do
		[ -s "$pidf" ] && break
		sleep 0.05
	done
	[ -s "$pidf" ] || { _slurm_logs; slurm_skip "$name wrote no pid file"; }
	_slurm_pids+=("$(cat "$pidf")")
}

slurm_up() {
	local t0 t1 st="" limit=${SLURM_UP_TIMEOUT:-20}
	_slurm_check
	t0=$(date +%s%N)
	SLURM_TEST_DIR=$(mktemp -d /tmp/replay-slurm.XXXXXX)
	chmod 0755 "$SLURM_TEST_DIR"
	trap '_slurm_exit' EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT
	export SLURM_CONF=$SLURM_TEST_DIR/slurm.conf
	# Open MPI's transports and out-of-band channel on loopback only
	export OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
	_slurm_munge
	_slurm_conf
	_slurm_daemon slurmctld -c -i
	_slurm_daemon slurmd
	for _ in $(seq $((limit * 10))); do
		st=$(timeout 5 sinfo -h -o %t 2>/dev/null) || st=""
		[ "$st" = idle ] && break
		sleep 0.1
	done
	[ "$st" = idle ] || { _slurm_logs; slurm_skip "node not idle after ${limit} s (sinfo: '$st')"; }
	t1=$(date +%s%N)
	SLURM_UP_SECONDS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
	echo "slurm: one-node cluster up in $SLURM_UP_SECONDS s ($SLURM_CONF)"
}

# sbatch ARGS...: print the job id.
slurm_sbatch() {
	timeout 30 sbatch --parsable "$@" | cut -d';' -f1
}

# Poll squeue until job ID has left it (finished); 1 after SECS seconds.
slurm_wait_job() {   # slurm_wait_job ID SECS
	local id=$1 n=$(($2 * 5)) out
	for _ in $(seq "$n"); do
		out=$(timeout 10 squeue -h -j "$id" -o %T 2>/dev/null) || out="?"
		[ -z "$out" ] && return 0
		sleep 0.2
	done
	echo "job $id still in squeue after $2 s: $out"
	return 1
}

# Processes other than this shell with a file open beneath DIR (a job's
# target; the cluster's own temp dir: the slurmstepd and job processes of
# this cluster, which log into it).
slurm_procs_in() {   # slurm_procs_in DIR
	local p l
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		case " $$ ${_slurm_pids[*]} " in *" $p "*) continue ;; esac
		for l in /proc/"$p"/fd/*; do
			case $(readlink "$l" 2>/dev/null) in "$1"/*) echo "$p"; break ;; esac
		done
	done
}

_slurm_stop() {   # _slurm_stop PID...: TERM, up to 5 s, then KILL
	local p left
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null
	for _ in $(seq 50); do
		left=()
		for p in "$@"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
		[ ${#left[@]} -eq 0 ] && return 0
		sleep 0.1
	done
	kill -KILL "${left[@]}" 2>/dev/null
	return 0
}

slurm_down() {
	local users
	[ -n "$SLURM_TEST_DIR" ] || return 0
	if [ -s "$SLURM_TEST_DIR/slurmctld.pid" ]; then
		timeout 10 scancel --quiet --user=root 2>/dev/null
		slurm_wait_all 15 >/dev/null
	fi
	# all at once (each takes 1-2 s to stop), then what is left of the jobs
	_slurm_stop "${_slurm_pids[@]}"
	mapfile -t users < <(slurm_procs_in "$SLURM_TEST_DIR")
	_slurm_stop "${users[@]}"
	rm -rf "$SLURM_TEST_DIR"
	SLURM_TEST_DIR=""
	_slurm_pids=()
}

# Wait until no job is left in squeue; 1 after SECS seconds.
slurm_wait_all() {
	local out
	for _ in $(seq $(($1 * 5))); do
		out=$(timeout 10 squeue -h -o %i 2>/dev/null) || return 1
		[ -z "$out" ] && return 0
		sleep 0.2
	done
	return 1
}

_slurm_exit() {
	local rc=$?
	set +e
	slurm_down
	[ -z "$SLURM_CLEANUP" ] || eval "$SLURM_CLEANUP"
	exit "$rc"
}
