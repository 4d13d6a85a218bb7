#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Slurm cluster of one node on this machine, for the engine's test:
# munged, slurmctld and slurmd from Debian's packages (munge, slurm-wlm),
# each in the foreground with a key, a socket, ports and a configuration of
# its own in a temporary directory, stopped and removed at the end.
#
#   tests/experiment/slurm-cluster.sh COMMAND [ARGS...]
#
# runs COMMAND with SLURM_CONF set to the cluster's configuration, once its
# node is idle, and exits with its status. Exit 77 (CTest's skip) naming
# what is missing when this machine cannot run the daemons: not root (slurmd
# starts jobs as their users), or the packages not installed.
set -euo pipefail

skip() { echo "slurm-cluster: cannot start a Slurm cluster here: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "slurmd must run as root (this is uid $(id -u))"
for tool in munged slurmctld slurmd sbatch sinfo; do
	command -v "$tool" >/dev/null || skip "$tool is not installed (Debian: apt-get install munge slurm-wlm)"
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/sched-harness-slurm.XXXXXX")
pids=()
stop() {
	local status=$?
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	if [ "$status" != 0 ] && [ "$status" != 77 ]; then
		for log in "$dir"/*.log; do
			[ -f "$log" ] && { echo "--- $log" >&2; tail -20 "$log" >&2; }
		done
	fi
	rm -rf "$dir"
	exit "$status"
}
trap stop EXIT
trap 'exit 143' TERM INT HUP

# ports of our own: two free ones above the ephemeral range's usual start
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctld_port=$(port)
slurmd_port=$(port)
node=$(hostname -s)
cpus=$(nproc)

mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
chmod 711 "$dir/munge"	# munged wants its socket's directory searchable
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --foreground --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" \
	--pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/seed" --log-file="$dir/munged.log" \
	> "$dir/munged.out" 2>&1 &
pids+=($!)

cat > "$dir/slurm.conf" <<CONF
ClusterName=sched-harness-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MaxArraySize=1001
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf

# munged makes its socket when it is ready
for _ in $(seq 100); do [ -S "$dir/munge/socket" ] && break; sleep 0.1; done
[ -S "$dir/munge/socket" ] || { echo "slurm-cluster: munged did not start" >&2; exit 1; }
slurmctld -D -i -f "$dir/slurm.conf" > "$dir/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$dir/slurm.conf" -N "$node" > "$dir/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 300); do
	state=$(sinfo --noheader --nodes="$node" --format=%t 2>/dev/null || true)
	[ "$state" = idle ] && break
	sleep 0.1
done
[ "$state" = idle ] || { echo "slurm-cluster: the node is not idle after 30 s (sinfo: '$state')" >&2; exit 1; }

"$@"
