#!/usr/bin/env bash
# Against the real thing: a single-node Slurm on this machine (Debian's slurm-wlm and munge, a
# generated slurm.conf for localhost, started here and stopped on exit), then
#   srun -N1 pipecheck check (fast and full): healthy, exit 0
#   srun -N1 pipecheck check with a planted problem: exit 1, and the node drained with the reason
#   srun -N1 pipecheck run: its probes do not see SLURM_* (and do with --keep-launcher-env)
#   sbatch of a fleet run (scripts/fleet-run.sh -N 1 through srun): a run folder for this host
# Skipped (exit 77) with the reason when Slurm cannot start here: not root, packages missing.
# Usage: tests/slurm_test.sh PIPECHECK SOURCE_DIR
set -uo pipefail

pipecheck=$(readlink -f "${1:?pipecheck binary}")
source_dir=$(readlink -f "${2:?source folder}")
bin_dir=$(dirname "$pipecheck")
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; show_logs; exit 1; }
step() { echo "--- $*"; }

[[ $(id -u) -eq 0 ]] || skip "slurmctld, slurmd and munged are started as root here; run as root"
for tool in munged slurmctld slurmd srun sbatch scontrol sinfo; do
  command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] || skip "$tool not installed (scripts/install-deps.sh --with-tests installs slurm-wlm and munge)"
done
export PATH=$PATH:/usr/sbin

work=$(mktemp -d /tmp/pipecheck-slurm-XXXXXX)
chmod 755 "$work"
host=$(hostname -s)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port)
slurmd_port=$(free_port)
show_logs() {
  for log in "$work"/munged.log "$work"/slurmctld.log "$work"/slurmd.log; do
    [[ -f "$log" ]] && { echo "== $log"; tail -n 15 "$log"; }
  done >&2
}
stop_daemon() {
  local pidfile=$1 pid
  [[ -f "$pidfile" ]] || return 0
  pid=$(cat "$pidfile" 2>/dev/null) || return 0
  [[ -n "$pid" ]] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}
cleanup() {
  stop_daemon "$work/slurmd.pid"
  stop_daemon "$work/slurmctld.pid"
  stop_daemon "$work/munged.pid"
  rm -rf "$work"
}
trap cleanup EXIT

# munge: its own key, socket and files (never the system's /etc/munge).
mkdir -p "$work/munge" && chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
timeout 20 munged --force --key-file="$work/munge/munge.key" --socket="$work/munge.socket" \
  --pid-file="$work/munged.pid" --log-file="$work/munged.log" --seed-file="$work/munge/munge.seed" ||
  skip "munged did not start: $(tail -n 3 "$work/munged.log" 2>/dev/null)"

mkdir -p "$work/state" "$work/spool"
cpus=$(nproc)
memory_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
cat >"$work/slurm.conf" <<CONF
ClusterName=pipecheck-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=30 State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$work/slurm.conf

timeout 20 slurmctld -f "$SLURM_CONF" -i || { show_logs; skip "slurmctld did not start"; }
timeout 20 slurmd -f "$SLURM_CONF" -N "$host" || { show_logs; skip "slurmd did not start"; }
state=""
for _ in $(seq 60); do
  state=$(timeout 5 sinfo -h -n "$host" -o %T 2>/dev/null | head -n1)
  [[ "$state" == idle* ]] && break
  sleep 0.5
done
[[ "$state" == idle* ]] || { show_logs; skip "the node did not come up idle (state '${state:-none}')"; }
echo "slurm: node $host idle (slurmctld port $ctld_port, slurmd port $slurmd_port)"
run() { timeout 120 srun -N1 -t 5 "$@"; }

step "srun -N1 pipecheck check --fast"
out=$(run "$pipecheck" check --fast 2>&1); rc=$?
echo "$out"
[[ $rc -eq 0 && "$out" == *"pipecheck check: healthy"* ]] || fail "check --fast under srun: exit $rc"

step "srun -N1 pipecheck check"
out=$(run "$pipecheck" check 2>&1); rc=$?
echo "$out"
[[ $rc -eq 0 && "$out" == *"pipecheck check: healthy"* ]] || fail "check under srun: exit $rc"

step "srun -N1 pipecheck check --slurm-drain with a planted problem (a GPU this node lacks)"
printf 'gpu.count = %d\n' $(( $(nvidia-smi -L 2>/dev/null | grep -c '^GPU') + 1 )) >"$work/node.conf"
out=$(run "$pipecheck" check --fast --expect "$work/node.conf" --slurm-drain 2>&1); rc=$?
echo "$out"
[[ $rc -eq 1 ]] || fail "a planted problem must exit 1, got $rc"
[[ "$out" == *"drained node $host: pipecheck: host: "* ]] || fail "the node was not drained"
node=$(timeout 10 scontrol show node "$host")
grep -q 'State=[A-Z+]*DRAIN' <<<"$node" || fail "scontrol does not show the node draining: $node"
reason=$(sed -n 's/.*Reason=\(pipecheck: [^[]*\) \[.*/\1/p' <<<"$node")
echo "Slurm recorded: Reason=$reason"
[[ "$reason" == "pipecheck: host: "*" expected (expected by "* ]] || fail "reason not recorded as given: $node"
timeout 10 scontrol update nodename="$host" state=resume || fail "could not resume the node"
for _ in $(seq 40); do [[ $(sinfo -h -n "$host" -o %T) == idle* ]] && break; sleep 0.25; done

step "srun -N1 pipecheck run: the probes do not see the launcher's variables"
mkdir -p "$work/probes"
cp "$source_dir/tests/data/probes/env_probe.sh" "$work/probes/pipecheck-hostmem"
run "$pipecheck" run --only hostmem --probe-dir "$work/probes" --out "$work/env" --no-color >/dev/null 2>&1 ||
  fail "pipecheck run under srun: exit $?"
log=$(ls "$work"/env/*/hostmem.log)
grep -q '^PATH=' "$log" || fail "the probe's environment was not recorded"
if grep -E '^(SLURM_|SLURMD_|PMI_|PMIX_)' "$log"; then fail "launcher variables reached the probe"; fi
run "$pipecheck" run --only hostmem --probe-dir "$work/probes" --out "$work/env-kept" --keep-launcher-env >/dev/null 2>&1 ||
  fail "pipecheck run --keep-launcher-env under srun: exit $?"
grep -q '^SLURM_JOB_ID=' "$work"/env-kept/*/hostmem.log || fail "--keep-launcher-env did not pass SLURM_JOB_ID"

step "sbatch of a fleet run (scripts/fleet-run.sh -N 1)"
job=$(timeout 20 sbatch --parsable -N1 -t 10 -o "$work/fleet.out" --chdir "$work" \
  --wrap "$source_dir/scripts/fleet-run.sh --out $work/results -N 1 --pipecheck $pipecheck --no-compare -- --only hostmem --quick --no-color") ||
  fail "sbatch refused the job"
for _ in $(seq 480); do
  job_state=$(timeout 5 scontrol show job "$job" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  [[ "$job_state" == PENDING || "$job_state" == RUNNING || "$job_state" == CONFIGURING ]] || break
  sleep 0.5
done
cat "$work/fleet.out" 2>/dev/null | tail -n 5
[[ "$job_state" == COMPLETED ]] || fail "fleet job $job ended $job_state"
runs=$(ls -d "$work"/results/"$host"-*/ 2>/dev/null | wc -l)
[[ $runs -eq 1 && -f $(ls -d "$work"/results/"$host"-*/)/report.json ]] || fail "expected one run folder of $host in results, found $runs"
[[ -f "$work/results/fleet-logs/$host.log" ]] || fail "no per-host log from srun"
echo "fleet run: $(ls -d "$work"/results/"$host"-*/)"

echo "PASSED: slurm single node"
