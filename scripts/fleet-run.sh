#!/usr/bin/env bash
# Fleet acceptance: `pipecheck run` on every host at once, each writing its run folder into one
# shared folder, then `pipecheck compare --fleet` naming the outlier hosts and GPUs (and writing
# fleet.html there). One process a host: a multi-node NCCL job is not what this runs (pipecheck run
# drops the launcher's variables before its probes start; see the README's "Fleet acceptance").
#
# Usage:
#   scripts/fleet-run.sh --out /shared/results -N 8 [--srun-args "-p gpu -t 1:00:00"] [-- RUN ARGS]
#       through Slurm: srun -N 8 --ntasks-per-node=1 pipecheck run --out /shared/results RUN ARGS
#   scripts/fleet-run.sh --out /shared/results --hosts gpu-[01-08] --pdsh [-- RUN ARGS]
#   scripts/fleet-run.sh --out /shared/results --hosts gpu-a,gpu-b|FILE [-- RUN ARGS]   (plain ssh)
# Options:
#   --pipecheck PATH   the command on the hosts (default: pipecheck, as the .deb installs it)
#   --no-compare       only collect the runs
# Exit: the compare's (0 no outlier, 1 outliers), 3 when a host's run could not start or write.
set -euo pipefail

out="" nodes="" srun_args="" hosts="" use_pdsh=0 pipecheck=pipecheck compare=1
run_args=()
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    -N|--nodes) nodes=${2:?-N needs a count}; shift 2 ;;
    --srun-args) srun_args=${2:-}; shift 2 ;;
    --hosts) hosts=${2:?--hosts needs hosts or a file}; shift 2 ;;
    --pdsh) use_pdsh=1; shift ;;
    --pipecheck) pipecheck=${2:?--pipecheck needs a path}; shift 2 ;;
    --no-compare) compare=0; shift ;;
    --) shift; run_args=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "fleet-run: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ -n "$out" ]] || { echo "fleet-run: --out FOLDER is required (a folder every host can write)" >&2; exit 2; }
if [[ -z "$nodes" && -z "$hosts" ]]; then
  echo "fleet-run: give -N COUNT (srun) or --hosts LIST|FILE (ssh/pdsh)" >&2
  exit 2
fi
if [[ -n "$nodes" && ! "$nodes" =~ ^[1-9][0-9]*$ ]]; then
  echo "fleet-run: -N $nodes: expected a node count" >&2
  exit 2
fi
mkdir -p "$out"
logs="$out/fleet-logs"
mkdir -p "$logs"
quoted_args=$(printf ' %q' "${run_args[@]+"${run_args[@]}"}")
status=0

if [[ -n "$nodes" ]]; then
  # One task a node; each task is one host's whole run. --kill-on-bad-exit=0: a host whose run
  # exits 1 (a failed verdict) must not cancel the others.
  # shellcheck disable=SC2086
  srun -N "$nodes" --ntasks-per-node=1 --kill-on-bad-exit=0 $srun_args \
    --output="$logs/%N.log" "$pipecheck" run --out "$out" "${run_args[@]+"${run_args[@]}"}" || status=$?
else
  if [[ -f "$hosts" ]]; then
    mapfile -t host_list < <(grep -v '^[[:space:]]*\(#\|$\)' "$hosts")
  else
    IFS=',' read -r -a host_list <<<"$hosts"
  fi
  if (( use_pdsh )); then
    command -v pdsh >/dev/null || { echo "fleet-run: --pdsh: pdsh not found (apt-get install pdsh)" >&2; exit 3; }
    pdsh -w "$(IFS=,; echo "${host_list[*]}")" "$pipecheck run --out $(printf '%q' "$out")$quoted_args" \
      >"$logs/pdsh.log" 2>&1 || status=$?
  else
    pids=()
    for host in "${host_list[@]}"; do
      ssh -o BatchMode=yes "$host" "$pipecheck run --out $(printf '%q' "$out")$quoted_args" >"$logs/$host.log" 2>&1 &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || { rc=$?; (( rc > status )) && status=$rc; }; done
  fi
fi
# pipecheck run exits 1 for a failed verdict: the run still wrote its folder. 2 and above: it did not.
if (( status >= 2 )); then
  echo "fleet-run: a host's run could not start or write (exit $status); logs in $logs" >&2
  (( compare )) || exit 3
fi
(( compare )) || exit 0
rc=0
"$pipecheck" compare --fleet "$out" || rc=$?
(( status >= 2 && rc == 0 )) && exit 3
exit "$rc"
