#!/usr/bin/env bash
# The budget's decode stage beside a plain torchvision DataLoader on the same images: ImageFolder,
# RandomResizedCrop(224) + RandomHorizontalFlip + ToTensor + Normalize, DataLoader(batch_size=32,
# num_workers=W, shuffle=True; batch 32, 8 on the large photos so a measurement holds several
# batches), each step simulated by a 5 ms sleep; at W = 0, 1, 2 on
# two datasets (small ImageNet-like files, large photos), interleaved round by round with
# `pipecheck run --only decode --images DS` and its budget at the same workload: the DataLoader
# runs before and after pipecheck in each round, and its figure is the mean of the two. Prints samples/s,
# median [min, max] of the rounds, the load, the ratio of the two medians and the median of the
# rounds' ratios budget / DataLoader (done when within 1.00 .. 1.15: the budget is an upper bound
# that holds close).
#
# usage: scripts/compare/compare-torchvision.sh [--small DIR | --make-small N] [--large DIR | --make-large N]
#            [--rounds 5] [--seconds 8] [--workers "0 1 2"] [--bin build/bin] [--keep]
#   --small DIR, --large DIR   the datasets (class folders of JPEGs, as ImageFolder reads them)
#   --make-small N             instead: N ImageNet-like JPEGs of 300-900 px (make-image-sets.py)
#   --make-large N             instead: N photos of 3840x2400, one in five progressive, each
#                              linked under 8 names (an epoch of many batches keeps 2 workers busy)
#   --seconds S                each DataLoader measurement times batches for at least S s (twice
#                              that on the large photos), before and after pipecheck's run
# Needs Debian's /usr/bin/python3 with python3-torch, python3-torchvision, python3-pil and
# python3-numpy (scripts/install-deps.sh --with-compare-tools; never pip).
set -euo pipefail

small="" large="" make_small=2000 make_large=20 rounds=5 seconds=8 workers="0 1 2" bin="" keep=0
train=224 step_ms=5
declare -A batch=([small]=32 [large]=8) scale=([small]=1 [large]=2)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --small) small="$2"; shift 2 ;;
    --large) large="$2"; shift 2 ;;
    --make-small) make_small="$2"; shift 2 ;;
    --make-large) make_large="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "compare-torchvision.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${bin:-$root/build/bin}"
[[ -x "$bin/pipecheck" && -x "$bin/pipecheck-decode" ]] || { echo "compare-torchvision.sh: no pipecheck in $bin; build it or pass --bin" >&2; exit 2; }
python=/usr/bin/python3
"$python" -c 'import torch, torchvision, PIL, numpy' 2>/dev/null ||
  { echo "compare-torchvision.sh: $python lacks torch, torchvision, Pillow or numpy (apt-get install python3-torchvision python3-pil python3-numpy)" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "compare-torchvision.sh: --rounds $rounds: expected a whole number above 0" >&2; exit 2; }

work="$(mktemp -d)"
cleanup() { [[ "$keep" == 1 ]] && echo "kept: $work" || rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -z "$small" ]]; then small="$work/small"; "$python" "$root/scripts/compare/make-image-sets.py" small "$small" "$make_small"; fi
if [[ -z "$large" ]]; then
  large="$work/large"
  "$python" "$root/scripts/compare/make-image-sets.py" large "$large" "$make_large"
  for f in "$large"/*/*.JPEG; do for k in 1 2 3 4 5 6 7; do ln "$f" "${f%.JPEG}-$k.JPEG"; done; done
fi

cat > "$work/dataloader.py" <<'PY'
# A plain torchvision training input pipeline with the step simulated; prints samples/s of the
# batches after the first two (workers started, caches warm).
import sys, time
import torch
from torchvision import datasets, transforms as T

folder, workers, seconds, train, batch, step_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
transform = T.Compose([T.RandomResizedCrop(train), T.RandomHorizontalFlip(), T.ToTensor(),
                       T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
loader = torch.utils.data.DataLoader(datasets.ImageFolder(folder, transform), batch_size=batch, num_workers=workers,
                                     shuffle=True, persistent_workers=workers > 0)
seen, samples, start = 0, 0, None
while True:
    for images, labels in loader:
        time.sleep(step_ms / 1000)  # the training step
        seen += 1
        if seen == 2:
            start = time.perf_counter()
        elif seen > 2:
            samples += images.shape[0]
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                print(f"{samples / elapsed:.3f}")
                sys.exit(0)
PY

# The DataLoader's samples/s on a set at W workers.
dataloader() {  # folder workers set
  "$python" "$work/dataloader.py" "$1" "$2" "$((seconds * ${scale[$3]}))" "$train" "${batch[$3]}" "$step_ms"
}

# The budget's decode stage (samples/s) at W workers from a run folder.
budget_at() {  # folder workers batch
  local status=0
  "$bin/pipecheck" report "$1" --workload "workers=$2,train=${train}x${train},batch=$3,step_ms=$step_ms,python=$python" --no-color \
    >"$1/report-$2.log" 2>&1 || status=$?
  if (( status != 0 && status != 1 && status != 4 )); then
    echo "compare-torchvision.sh: pipecheck report $1 failed (exit $status):" >&2; cat "$1/report-$2.log" >&2; exit 1
  fi
  "$python" - "$1/report.json" <<'PY'
import json, sys
budget = json.load(open(sys.argv[1]))["budget"]
decode = next(s for s in budget["stages"] if s["stage"] == "decode")
if not decode.get("samples_per_second"):
    sys.exit(f"compare-torchvision.sh: {sys.argv[1]}: the budget has no decode samples/s: {decode.get('derivation')}")
print(decode["samples_per_second"])
PY
}

most_workers=0
for w in $workers; do (( w > most_workers )) && most_workers=$w; done
echo "machine: $(nproc) CPUs, $(uname -r); torch $("$python" -c 'import torch; print(torch.__version__)'), torchvision $("$python" -c 'import torchvision; print(torchvision.__version__)'), Pillow $("$python" -c 'import PIL; print(PIL.__version__)')"
echo "small: $small ($(find "$small" -type f | wc -l) files), large: $large ($(find "$large" -type f | wc -l) files); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A values
for ((r = 1; r <= rounds; r++)); do  # interleaved: drift in the machine's load hits both alike
  for set in small large; do
    folder=${!set}
    declare -A before=()
    for w in $workers; do before[$w]=$(dataloader "$folder" "$w" "$set"); done
    # Each round its own --out: a round never reads another round's run folder.
    status=0
    "$bin/pipecheck" run --only decode --images "$folder" \
      --workload "workers=$most_workers,train=${train}x${train},batch=${batch[$set]},step_ms=$step_ms,python=$python" \
      --out "$work/runs-$set-$r" --no-color >"$work/run-$set-$r.log" 2>&1 || status=$?
    if (( status != 0 && status != 1 && status != 4 )); then
      echo "compare-torchvision.sh: round $r $set: pipecheck run failed (exit $status):" >&2; cat "$work/run-$set-$r.log" >&2; exit 1
    fi
    run_folder=$(ls -d "$work/runs-$set-$r"/*/ 2>/dev/null | head -1)
    [[ -n "$run_folder" ]] || { echo "compare-torchvision.sh: round $r $set: pipecheck run wrote no run folder" >&2; exit 3; }
    # The DataLoader again after pipecheck's run: its figure is the mean of the two, so the
    # machine's drift over the round (10-20% within minutes on a shared VM) falls on both alike.
    for w in $workers; do
      after=$(dataloader "$folder" "$w" "$set")
      values["loader/$set/$w"]+=" $("$python" -c "print('%.3f' % ((${before[$w]} + $after) / 2))")"
    done
    line="round $r $set:"
    for w in $workers; do
      figure=$(budget_at "$run_folder" "$w" "${batch[$set]}")  # a failed report stops the script here (set -e)
      values["budget/$set/$w"]+=" $(printf '%.3f' "$figure")"
      line+=" W=$w DataLoader ${values[loader/$set/$w]##* } budget ${values[budget/$set/$w]##* };"
    done
    echo "$line load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\n%-7s %-3s %-26s %-26s %-9s %s\n' "set" "W" "DataLoader samples/s" "budget samples/s" "medians" "budget / DataLoader, median of the rounds' ratios [min, max]"
for set in small large; do
  for w in $workers; do
    "$python" - "$set" "$w" "${values[loader/$set/$w]}" "${values[budget/$set/$w]}" <<'PY'
import statistics, sys
name, w = sys.argv[1], sys.argv[2]
ref = [float(x) for x in sys.argv[3].split()]
ours = [float(x) for x in sys.argv[4].split()]
ratios = [o / r for o, r in zip(ours, ref) if r > 0]
def mmm(v): return "%.1f [%.1f, %.1f]" % (statistics.median(v), min(v), max(v))
rm = statistics.median(ratios)
of_medians = statistics.median(ours) / statistics.median(ref)
ok = "yes" if 1.0 <= rm <= 1.15 else "NO"
print(f"{name:<7} {w:<3} {mmm(ref):<26} {mmm(ours):<26} {of_medians:<9.2f} {rm:.2f} [{min(ratios):.2f}, {max(ratios):.2f}] within 1.00-1.15: {ok}")
PY
  done
done
