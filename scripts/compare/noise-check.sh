#!/usr/bin/env bash
# The false-alarm checks of pipecheck's noise handling, on this machine (issue 13's "done when"):
#   1. PAIRS pairs of back-to-back quick runs (decode, hostmem): `pipecheck compare` must find no
#      regression in any pair (with and without --force, so the statistics are seen even when a
#      busy probe makes a pair "not comparable");
#   2. a real slowdown is still found: decode on 2000x1500 generated images against 4000x3000;
#   3. a quick decode run while two busy loops share the CPUs: no fail in decode, at least one
#      inconclusive naming the load, probes[].conditions.other_cpu_percent >= 50.
# Each run's load average and the busiest other processes are printed beside it.
# Usage: scripts/compare/noise-check.sh [BUILD_DIR] [OUT_DIR] [PAIRS]
set -euo pipefail
BIN="${1:-build}/bin/pipecheck"
OUT="${2:-/tmp/pipecheck-noise-check}"
PAIRS="${3:-10}"
rm -rf "$OUT"
mkdir -p "$OUT"

# The run folder pipecheck wrote into $1.
run_folder() { ls -d "$1"/*/ | head -1; }

# "load 1.23; others 45% (cc1plus x12 170%)" from a report.json's decode probe.
conditions() {
  python3 - "$1" <<'PY'
import json, sys, collections
r = json.load(open(sys.argv[1]))
for p in r["probes"]:
    c = p.get("conditions") or {}
    top = collections.Counter()
    for t in c.get("top_consumers", []):
        top[t["command"]] += t["cpu_percent"]
    names = ", ".join(f"{k} {v:.0f}%" for k, v in top.most_common(3))
    print(f'{p["stage"]}: others {c.get("other_cpu_percent", 0):.0f}% of a core, load {c.get("loadavg_1m")}, top: {names}', end="; ")
print()
PY
}

# A run that did not run (2 bad input, 3 could not run, 130 interrupted) stops the check: its
# figures would be missing, not noise. 0, 1 and 4 are verdicts: the run measured.
quick() {  # quick OUTDIR [extra flags]
  local dir="$1" status=0; shift
  echo "  loadavg before: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$BIN" run --quick --no-color --out "$dir" "$@" > "$dir.out" 2> "$dir.err" || status=$?
  if [ "$status" != 0 ] && [ "$status" != 1 ] && [ "$status" != 4 ]; then
    echo "noise-check: pipecheck run --out $dir failed (exit $status):" >&2; cat "$dir.err" >&2; exit 1
  fi
  echo "  run exit $status; $(conditions "$(run_folder "$dir")report.json")"
}

# compare's exit code (0, 1 or 4); 2 or 3 stops the check.
compare() {  # OUTFILE compare-args...
  local out="$1" status=0; shift
  "$BIN" compare --no-color "$@" > "$out" 2> "$out.err" || status=$?
  if [ "$status" != 0 ] && [ "$status" != 1 ] && [ "$status" != 4 ]; then
    echo "noise-check: pipecheck compare $* failed (exit $status):" >&2; cat "$out.err" >&2; exit 1
  fi
  echo "$status"
}

echo "== 1. $PAIRS pairs of back-to-back quick runs (decode, hostmem)"
regressions=0; forced_regressions=0
i=1
while [ "$i" -le "$PAIRS" ]; do
  echo "pair $i"
  quick "$OUT/pair$i-a" --only decode hostmem
  quick "$OUT/pair$i-b" --only decode hostmem
  a="$(run_folder "$OUT/pair$i-a")"; b="$(run_folder "$OUT/pair$i-b")"
  code=$(compare "$OUT/pair$i.compare" "$a" "$b")
  forced=$(compare "$OUT/pair$i.forced" --force "$a" "$b")
  echo "  compare exit $code: $(tail -1 "$OUT/pair$i.compare")"
  echo "  compare --force exit $forced: $(tail -1 "$OUT/pair$i.forced")"
  if [ "$code" = 1 ]; then regressions=$((regressions + 1)); fi
  if [ "$forced" = 1 ]; then forced_regressions=$((forced_regressions + 1)); fi
  i=$((i + 1))
done
echo "pairs with a regression: $regressions of $PAIRS (with --force: $forced_regressions)"

echo "== 2. a real slowdown: decode at 2000x1500 against 4000x3000"
quick "$OUT/size-2000" --only decode
quick "$OUT/size-4000" --only decode --decode-size 4000x3000
code=$(compare "$OUT/size.compare" --force "$(run_folder "$OUT/size-2000")" "$(run_folder "$OUT/size-4000")")
echo "  compare --force exit $code: $(tail -1 "$OUT/size.compare")"
code=$(compare "$OUT/size.plain" "$(run_folder "$OUT/size-2000")" "$(run_folder "$OUT/size-4000")")
echo "  compare exit $code: $(tail -1 "$OUT/size.plain")"

echo "== 3. a quick decode run beside two busy loops"
sh -c 'while :; do :; done' & busy1=$!
sh -c 'while :; do :; done' & busy2=$!
trap 'kill "$busy1" "$busy2" 2>/dev/null || true' EXIT
quick "$OUT/busy" --only decode
kill "$busy1" "$busy2"
python3 - "$(run_folder "$OUT/busy")report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
decode = [v for v in r["verdicts"] if v["stage"] == "decode"]
fails = [v for v in decode if v["verdict"] in ("fail", "invalid")]
inconclusive = [v for v in decode if v["verdict"] == "inconclusive"]
other = [p["conditions"]["other_cpu_percent"] for p in r["probes"] if p["stage"] == "decode"]
print(f"  decode verdicts: {len(fails)} fail, {len(inconclusive)} inconclusive of {len(decode)}; other_cpu_percent {other[0]:.0f}")
if inconclusive:
    print("  first inconclusive:", inconclusive[0]["explanation"][:300])
PY
