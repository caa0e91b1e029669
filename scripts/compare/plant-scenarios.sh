#!/usr/bin/env bash
# Plants each bottleneck `pipecheck watch` should name, with ordinary Python loaders
# (scripts/compare/plant/loader.py: Pillow decode + resize + numpy, plain reads), runs the watch over
# each at its default 1 s interval, and prints the verdict beside what an engineer would say.
#
#   scripts/compare/plant-scenarios.sh [--seconds S] [--work DIR] [--repeat N] [--keep DIR] [--only NAME...]
#
# --repeat N runs each scenario N times and counts the verdicts that name the expected rule;
# --keep DIR keeps each watch's folder (watch.csv, .json, .html) and its stderr there.
# The torchvision jobs (plant/torch_loader.py: a DataLoader with one worker, loader-bound with a
# simulated 5 ms step, or step-bound with resnet18 on the CPU; alone and beside a busy loop) need
# python3-torch and python3-torchvision; without them they are skipped, said so.
# Needs python3-pil and python3-numpy (scripts/install-deps.sh --with-compare-tools) and a built pipecheck
# (build/bin/pipecheck, or $PIPECHECK). The work folder must be on a block device (the cold
# and O_DIRECT readers read it); it is removed at the end. A busy machine shows up as what it
# is: a pool sharing the CPUs with a build is contended, and the watch says so.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
pipecheck=${PIPECHECK:-$here/../../build/bin/pipecheck}
seconds=40
work=${TMPDIR:-/var/tmp}/pipecheck-plant-$$
only=()
repeat=1
keep=""
while (( $# )); do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --only) shift; while (( $# )) && [[ "$1" != --* ]]; do only+=("$1"); shift; done ;;
    *) echo "plant-scenarios: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x "$pipecheck" ]] || { echo "plant-scenarios: $pipecheck not built (make build)" >&2; exit 3; }
/usr/bin/python3 -c 'import PIL, numpy' 2>/dev/null ||
  { echo "plant-scenarios: needs python3-pil and python3-numpy (scripts/install-deps.sh --with-compare-tools)" >&2; exit 3; }
loader="/usr/bin/python3 $here/plant/loader.py"
torch_loader="/usr/bin/python3 $here/plant/torch_loader.py"
have_torch=1
/usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null || have_torch=0

mkdir -p "$work"
hog_pid=""
spin_pid=""
cleanup() {
  [[ -n "$hog_pid" ]] && kill "$hog_pid" 2>/dev/null || true
  [[ -n "$spin_pid" ]] && kill "$spin_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "plant-scenarios: making the data in $work" >&2
$loader make-images "$work/images" 64
$loader make-files "$work/files" 24 32          # 768 MiB read cold, file by file
$loader make-files "$work/one" 1 1024           # 1 GiB for random O_DIRECT reads
(( have_torch )) && $torch_loader make-jpegs "$work/torch" 64   # an ImageFolder of one class

wanted() { (( ${#only[@]} == 0 )) || [[ " ${only[*]} " == *" $1 "* ]]; }

results=()
# name | what an engineer would say | the rule that says it | command
run() {
  local name=$1 expected=$2 rule=$3; shift 3
  wanted "$name" || return 0
  local round
  for (( round = 1; round <= repeat; round++ )); do
    run_once "$name" "$expected" "$rule" "$round" "$@"
  done
}

run_once() {
  local name=$1 expected=$2 rule=$3 round=$4; shift 4
  (( repeat > 1 )) && name="$name#$round"
  echo "plant-scenarios: $name ($*)" >&2
  local out="$work/watch-${name//#/-}"
  local load_before; load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  local err="$work/${name//#/-}.err"
  # watch passes the planted job's own exit code through (a job ended by a signal, on purpose),
  # so its code says nothing; a watch that wrote no watch.json into this round's own folder did
  # not run, and the round stops.
  "$pipecheck" watch --quiet --no-gpu --no-baseline --out "$out" -- "$@" 2>"$err" || :
  [[ -s "$out/watch.json" ]] || { echo "plant-scenarios: $name: no watch.json: $(tail -1 "$err")" >&2; exit 3; }
  if [[ -n "$keep" ]]; then mkdir -p "$keep" && cp -r "$out" "$err" "$keep/"; fi
  local truth; truth=$(grep -h '^truth:' "$err" | head -1 | sed 's/^truth: //' || true)
  local summary
  summary=$(/usr/bin/python3 - "$out/watch.json" "$rule" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
rule = sys.argv[2]
head = w["verdict"] or {}
fired = [f["rule"] for f in w["findings"]]
a = w["analysis"]
line = "%s | %s" % (head.get("verdict", "no rule fired"), ", ".join(fired) or "-")
p = a.get("periodic_idle")
if p:
    line += " | period %.1f s, idle %.2f s an episode, %.1f%% lost" % (p["period_s"], p["mean_idle_s"], 100 * p["idle_share"])
j = a["job"]
line += " | job CPU %.0f%%, waiting for a CPU %.0f%%, blocked on I/O %s%% of a core" % (
    j["cpu_pct_median"], j["run_wait_median_pct"],
    "-" if j["io_blocked_mean_pct"] is None else "%.0f" % j["io_blocked_mean_pct"])
r = a.get("roles")
if r:
    line += " | roles: loop %s on a CPU %.0f%%, waiting on another process %.0f%%, timed sleep %s%%; %d worker(s) at %.0f%% demand" % (
        r["loop"]["thread"], r["loop"]["cpu_mean_pct"], r["loop"]["waiting_mean_pct"],
        "-" if r["loop"]["sleep_mean_pct"] is None else "%.0f" % r["loop"]["sleep_mean_pct"],
        r["loader"]["workers"], r["loader"]["demand_mean_pct"])
for d in a["disks"]:
    line += "; %s %.0f%% busy, aqu-sz %.2f" % (d["name"], d["util_median_pct"], d["aqu_sz_median"])
ok = rule in fired if rule != "-" else True
print(("OK  " if ok else "MISS") + " | " + line)
PY
)
  results+=("$name | $expected | $rule | ${truth:--} | load $load_before | $summary")
}

run cold-reader "waiting on storage latency: one read in flight, read in parallel" storage_latency \
  $loader cold-read "$work/files" "$seconds"
run direct-rand-4k "waiting on storage latency: random 4 KiB reads one at a time" storage_latency \
  $loader direct-rand "$work/one/part0000.bin" "$seconds"
run single-worker "input-bound: the single pool worker is saturated and the main process waits on it" input_loader_bound \
  $loader pool 1 "$work/images" "$seconds"
run pool "CPU bound on every core" cpu_all_cores \
  $loader pool "$(nproc)" "$work/images" "$seconds"
if wanted pool-contention; then
  yes > /dev/null &   # another program holding one core, outside the job
  hog_pid=$!
  run pool-contention "CPU contention: 'yes' holds a core the pool wants" cpu_contention \
    $loader pool "$(nproc)" "$work/images" "$seconds"
  kill "$hog_pid"; hog_pid=""
fi
run periodic-stall "periodic stall: 2 s every ~7.5 s, ~27% of the time lost" periodic_idle \
  $loader stall "$(nproc)" "$work/images" "$((seconds + 20))" 5.5 2.0
if (( have_torch )); then
  input_bound="input-bound: the single DataLoader worker is saturated and the training loop waits on it: raise num_workers"
  step_bound="step-bound: the training step keeps its thread busy and the loader idles: the input pipeline is not the problem"
  run torch-loader-bound "$input_bound" input_loader_bound $torch_loader loader-bound "$work/torch" "$seconds"
  run torch-step-bound "$step_bound" step_bound $torch_loader step-bound "$work/torch" "$seconds"
  if wanted torch-loader-bound-busy-loop || wanted torch-step-bound-busy-loop; then
    sh -c 'while :; do :; done' &   # another process spinning a CPU, outside the job
    spin_pid=$!
    run torch-loader-bound-busy-loop "$input_bound (beside a busy loop)" input_loader_bound \
      $torch_loader loader-bound "$work/torch" "$seconds"
    run torch-step-bound-busy-loop "$step_bound (beside a busy loop)" step_bound \
      $torch_loader step-bound "$work/torch" "$seconds"
    kill "$spin_pid"; spin_pid=""
  fi
else
  echo "plant-scenarios: the torchvision jobs skipped: /usr/bin/python3 cannot import torch, torchvision (python3-torch, python3-torchvision)" >&2
fi
run too-short "too short to judge, with what was seen" too_short \
  /usr/bin/python3 -c 'sum(range(3000000))'

echo
if (( repeat > 1 )); then
  echo "verdicts naming the expected rule, of $repeat runs each:"
  printf '%s\n' "${results[@]}" | awk -F' [|] ' '{ n = $1; sub(/#[0-9]+$/, "", n); runs[n]++; if ($6 ~ /^OK/) ok[n]++ }
    END { for (n in runs) printf "  %s: %d of %d\n", n, ok[n], runs[n] }'
fi
echo "scenario | an engineer would say | rule | the loader's own figures | load before | verdict | rules fired | figures"
for r in "${results[@]}"; do echo "$r"; done
