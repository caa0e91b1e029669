#!/usr/bin/env bash
# Does a shorter run reach the verdicts of a --full one? Runs `pipecheck run` in each mode (quick,
# standard, full by default) round after round, the modes' order rotated every round so that drift
# in the machine's load falls on all of them alike, and holds each run's verdicts (report.json,
# every judged subject) against the same round's --full run. Prints per round and mode the wall
# time, the overall verdict and the subjects whose verdict differs from full's; then per mode the
# pairs that agree on every verdict and the wall time, median [min, max], with the load.
#
# usage: scripts/compare/verdict-pairs.sh [--rounds 5] [--only STAGE]... [--modes "quick standard full"]
#                                          [--bin build/bin] [--keep]
# Exit 0 when every pair agrees, 1 when one does not, 2 on bad usage, 3 when a run failed (a probe
# broke or the run itself did: its exit code is 2, 3 or 130; 0, 1 and 4 are verdicts).
# Needs jq. A --full run on storage writes twice the RAM to the scratch folder: --only picks stages.
set -euo pipefail

rounds=5 modes="quick standard full" bin="" keep=0
only=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --only) only+=(--only "$2"); shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "verdict-pairs.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "verdict-pairs.sh: --rounds $rounds: expected a whole number from 1" >&2; exit 2; }
read -r -a mode_list <<<"$modes"
for mode in "${mode_list[@]}"; do
  [[ "$mode" =~ ^(quick|standard|full)$ ]] || { echo "verdict-pairs.sh: --modes: '$mode' is not quick, standard or full" >&2; exit 2; }
done
[[ " $modes " == *" full "* ]] || { echo "verdict-pairs.sh: --modes must include full, the reference" >&2; exit 2; }
command -v jq >/dev/null || { echo "verdict-pairs.sh: needs jq (apt-get install jq)" >&2; exit 2; }
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${bin:-$root/build/bin}"
[[ -x "$bin/pipecheck" ]] || { echo "verdict-pairs.sh: no pipecheck in $bin; build it or pass --bin" >&2; exit 2; }

work="$(mktemp -d)"
cleanup() { [[ "$keep" == 1 ]] && echo "kept: $work" || rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# One run: its own folder; its wall time and the load before it in a side file.
run_mode() {
  local round="$1" mode="$2" out="$work/round-$1/$2" side="$work/round-$1/$2" flag=() start end rc=0
  mkdir -p "$out"
  out="$out/runs"
  [[ "$mode" == standard ]] || flag=(--"$mode")
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  start=$(date +%s.%N)
  "$bin/pipecheck" run "${flag[@]}" "${only[@]}" --no-color --out "$out" >"$side/stdout" 2>"$side/stderr" || rc=$?
  end=$(date +%s.%N)
  if [[ "$rc" != 0 && "$rc" != 1 && "$rc" != 4 ]]; then
    echo "verdict-pairs.sh: round $round, $mode: pipecheck run exited $rc: $(tail -1 "$side/stderr")" >&2
    exit 3
  fi
  local report
  report=$(ls "$out"/*/report.json)
  jq -r '.verdicts[] | select(.subject | startswith("inventory/") | not) | "\(.subject)\t\(.verdict)"' "$report" |
    sort >"$side/verdicts.tsv"
  printf '%s %s %s\n' "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" "$(jq -r .overall "$report")" "$load" >"$side/summary"
}

for ((round = 1; round <= rounds; round++)); do
  # Rotate the order: round 1 quick standard full, round 2 standard full quick, ...
  order=()
  for ((i = 0; i < ${#mode_list[@]}; i++)); do order+=("${mode_list[$(((i + round - 1) % ${#mode_list[@]}))]}"); done
  for mode in "${order[@]}"; do run_mode "$round" "$mode"; done
done

median_min_max() { sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.0f s [%.0f, %.0f]", m, v[1], v[NR]}'; }

echo "verdicts against the same round's --full run (${only[*]:-every stage}), $rounds rounds, $(nproc) CPUs"
all_agree=1
for mode in "${mode_list[@]}"; do
  agree=0
  for ((round = 1; round <= rounds; round++)); do
    dir="$work/round-$round"
    read -r seconds overall load <"$dir/$mode/summary"
    differ=$(join -t $'\t' "$dir/$mode/verdicts.tsv" "$dir/full/verdicts.tsv" | awk -F'\t' '$2 != $3 {print $1 " " $2 "/" $3}' | paste -sd, -)
    missing=$(comm -3 <(cut -f1 "$dir/$mode/verdicts.tsv") <(cut -f1 "$dir/full/verdicts.tsv") | paste -sd, -)
    judged=$(wc -l <"$dir/$mode/verdicts.tsv")
    if [[ -z "$differ" && -z "$missing" ]]; then agree=$((agree + 1)); else all_agree=0; fi
    printf '  round %d %-8s %6.0f s  load %-5s %-13s %3d verdicts  differ: %s%s\n' "$round" "$mode" "$seconds" "$load" \
      "$overall" "$judged" "${differ:-none}" "${missing:+; only one run has: $missing}"
  done
  times=$(for ((round = 1; round <= rounds; round++)); do cut -d' ' -f1 "$work/round-$round/$mode/summary"; done | median_min_max)
  echo "$mode: $agree of $rounds pairs agree with full on every verdict; wall time $times"
done
[[ "$all_agree" == 1 ]]
