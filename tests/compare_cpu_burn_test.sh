#!/usr/bin/env bash
# scripts/compare/compare-cpu-burn.sh against a stand-in pipecheck (issue 24, class 6): each round must
# write and read its own --out (the real stress refuses a reused --out, exit 2), and a failed burn
# must stop the script with an error, never print one round's figure as three.
# usage: compare_cpu_burn_test.sh SOURCE_DIR [SCRIPT]   (SCRIPT: default the one in SOURCE_DIR)
set -euo pipefail
source_dir=$1
script=${2:-$source_dir/scripts/compare/compare-cpu-burn.sh}
for tool in jq gcc; do command -v "$tool" >/dev/null || { echo "skipped: no $tool"; exit 77; }; done
[[ -f /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h || -f /usr/include/cblas.h ]] ||
  { echo "skipped: no libopenblas-dev (the script's reference GEMM)"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
# A pipecheck whose stress refuses an --out it already wrote (as the real one does), writes a
# different rate each call, and fails on the call named by FAIL_CALL.
cat >"$work/bin/pipecheck" <<'SH'
#!/usr/bin/env bash
set -euo pipefail
out=
while (( $# )); do [[ $1 == --out ]] && out=$2; shift; done
calls=$(( $(cat "$(dirname "$0")/calls" 2>/dev/null || echo 0) + 1 ))
echo "$calls" >"$(dirname "$0")/calls"
if [[ -e $out/summary.json ]]; then echo "pipecheck: --out $out holds another run's files" >&2; exit 2; fi
if [[ $calls == "${FAIL_CALL:-0}" ]]; then echo "pipecheck: stress: cpu: HANG" >&2; exit 1; fi
mkdir -p "$out"
cat >"$out/summary.json" <<JSON
{"cpu": {"sustained_gflops": $((10 * calls)), "isa": "avx2", "vector_bits": 256, "fused": true,
 "ceiling": null, "ceiling_unknown": "test", "sanity_bound": {"derivation": "test"},
 "percent_of_ceiling": null, "verdict": "pass"}}
JSON
SH
chmod +x "$work/bin/pipecheck"

run() { ROUNDS=3 SECONDS_PER_RUN=0.05 N=32 THREADS=1 "$script" "$work/bin" >"$work/out" 2>"$work/err"; }

# Every round its own figure: fp64 burns are calls 1, 3, 5 -> 10, 30, 50.
rm -f "$work/bin/calls"
run || { echo "FAIL: the script failed with every burn passing:"; cat "$work/err"; exit 1; }
grep -q 'pipecheck burn fp64 GFLOP/s *median *30.00 *(min 10.00, max 50.00)' "$work/out" || {
  echo "FAIL: the rounds did not each read their own summary.json:"; cat "$work/out"; exit 1; }

# A failed burn in round 2 stops the script, loudly.
rm -f "$work/bin/calls"
if FAIL_CALL=3 run; then echo "FAIL: a failed burn was measured anyway:"; cat "$work/out"; exit 1; fi
grep -q 'round 2: pipecheck stress --cpu-dtype fp64 failed (exit 1)' "$work/err" || {
  echo "FAIL: the failure was not said:"; cat "$work/err"; exit 1; }
echo "ok"
