#!/usr/bin/env bash
# The command's own weight: peak resident memory (/usr/bin/time -v) of `pipecheck --version`,
# `inventory` and `check --fast`, and start-up time (hyperfine) of `--version`, as median
# [min, max] of N runs, with the load. Given a second binary (an older build) the two run
# interleaved, side by side, so a noisy machine loads both alike.
# Usage: scripts/compare/bench-startup.sh PIPECHECK [OTHER_PIPECHECK] [N]   (N default 9)
# Needs: /usr/bin/time (package time), hyperfine (package hyperfine).
set -euo pipefail
new=${1:?usage: $0 PIPECHECK [OTHER_PIPECHECK] [N]}
old=${2:-}
n=${3:-9}
[[ -x /usr/bin/time ]] || { echo "bench-startup: /usr/bin/time missing (apt-get install time)" >&2; exit 3; }
command -v hyperfine >/dev/null || { echo "bench-startup: hyperfine missing (apt-get install hyperfine)" >&2; exit 3; }
binaries=("$new"); [[ -n "$old" ]] && binaries+=("$old")

stats() {  # numbers on stdin -> "median [min, max]"
  sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.1f [%.1f, %.1f]", m, v[1], v[NR]}'
}
# A command that exits non-zero (an old build without `check`) still has its peak measured.
peak_mb() { { /usr/bin/time -v "$@" 2>&1 >/dev/null || true; } | awk '/Maximum resident set size/ {printf "%.1f\n", $6 / 1024}'; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A rss
for _ in $(seq "$n"); do
  for bin in "${binaries[@]}"; do
    for cmd in "--version" "inventory" "check --fast"; do
      # shellcheck disable=SC2086
      rss["$bin|$cmd"]+="$(peak_mb "$bin" $cmd)"$'\n'
    done
  done
done
for bin in "${binaries[@]}"; do
  for cmd in "--version" "inventory" "check --fast"; do
    printf '%-40s %-14s peak RSS %s MB\n' "$bin" "$cmd" "$(printf '%s' "${rss[$bin|$cmd]}" | grep . | stats)"
  done
done
args=()
for bin in "${binaries[@]}"; do args+=("$bin --version"); done
hyperfine -N --warmup 3 --runs $(( n * 5 )) --export-json /tmp/bench-startup.json "${args[@]}" >/dev/null 2>&1
python3 - /tmp/bench-startup.json <<'PY'
import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]:
    t = [x * 1000 for x in r["times"]]
    print(f'{r["command"]:<55} start-up {statistics.median(t):.1f} [{min(t):.1f}, {max(t):.1f}] ms ({len(t)} runs)')
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
