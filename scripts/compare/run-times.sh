#!/usr/bin/env bash
# How long a whole `pipecheck run` takes here: the default and `--quick` (or the modes given),
# round after round, the modes' order rotated every round so that drift in the machine's load
# falls on both alike. Prints per round and mode the wall time, each stage's seconds (report.json)
# and the overall verdict; then per mode the wall time and each host stage's seconds, median
# [min, max], with the load before and after. Issue 26 asks for at most 90 s (default) and 30 s
# (quick) for the host stages on the 2-vCPU development VM.
#
# usage: scripts/compare/run-times.sh [--rounds 3] [--modes "quick standard"] [--bin build/bin] [--keep]
# Exit 0 when every run gave a verdict, 2 on bad usage, 3 when a run failed (exit 2, 3 or 130).
# Needs jq. Measure on a machine left alone: anything else running makes a run inconclusive.
set -euo pipefail

rounds=3 modes="quick standard" bin="" keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "run-times.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "run-times.sh: --rounds $rounds: expected a whole number from 1" >&2; exit 2; }
read -r -a mode_list <<<"$modes"
[[ ${#mode_list[@]} -gt 0 ]] || { echo "run-times.sh: --modes is empty" >&2; exit 2; }
for mode in "${mode_list[@]}"; do
  [[ "$mode" =~ ^(quick|standard|full)$ ]] || { echo "run-times.sh: --modes: '$mode' is not quick, standard or full" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "run-times.sh: needs jq (apt-get install jq)" >&2; exit 2; }
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${bin:-$root/build/bin}"
[[ -x "$bin/pipecheck" ]] || { echo "run-times.sh: no pipecheck in $bin; build it or pass --bin" >&2; exit 2; }

work="$(mktemp -d)"
cleanup() { [[ "$keep" == 1 ]] && echo "kept: $work" || rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

stats() {  # numbers on stdin -> "median [min, max]"
  sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.1f [%.1f, %.1f]", m, v[1], v[NR]}'
}

declare -A wall stage_seconds
stages=""
echo "machine: $(nproc) CPUs, $(uname -r); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
  n=${#mode_list[@]}
  for ((k = 0; k < n; k++)); do
    mode=${mode_list[$(((k + r - 1) % n))]}
    flag=()
    [[ "$mode" == standard ]] || flag=(--"$mode")
    out="$work/round-$r/$mode"  # each run its own folder: a round never reads another's
    mkdir -p "$out"
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s.%N)
    rc=0
    "$bin/pipecheck" run "${flag[@]}" --no-color --out "$out/runs" >"$out/stdout" 2>"$out/stderr" || rc=$?
    end=$(date +%s.%N)
    if [[ "$rc" != 0 && "$rc" != 1 && "$rc" != 4 ]]; then
      echo "run-times.sh: round $r, $mode: pipecheck run exited $rc: $(tail -1 "$out/stderr")" >&2
      exit 3
    fi
    report=$(ls -d "$out/runs"/*/report.json 2>/dev/null | head -1)
    [[ -n "$report" ]] || { echo "run-times.sh: round $r, $mode: no report.json under $out/runs" >&2; exit 3; }
    seconds=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}')
    wall[$mode]+="$seconds"$'\n'
    line="round $r $mode: ${seconds} s, $(jq -r .overall "$report")"
    while IFS=$'\t' read -r stage took; do
      [[ " $stages " == *" $stage "* ]] || stages+=" $stage"
      stage_seconds["$mode|$stage"]+="$took"$'\n'
      line+=", $stage $took s"
    done < <(jq -r '.probes[] | [.stage, (.seconds * 10 | round / 10 | tostring)] | @tsv' "$report")
    echo "$line (load $load)"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
for mode in "${mode_list[@]}"; do
  line="$mode: $(printf '%s' "${wall[$mode]}" | stats) s"
  for stage in $stages; do
    [[ -n "${stage_seconds[$mode|$stage]:-}" ]] && line+=", $stage $(printf '%s' "${stage_seconds[$mode|$stage]}" | stats)"
  done
  echo "$line"
done
