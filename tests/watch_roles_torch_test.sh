#!/usr/bin/env bash
# pipecheck watch over the two torchvision jobs of scripts/compare/plant/torch_loader.py (issue 25,
# roles in the job): the loader-bound one (one DataLoader worker starving a 5 ms step) must get
# input_loader_bound, the step-bound one (resnet18 on the CPU, the worker mostly idle) step_bound.
# Skips (77) where /usr/bin/python3 cannot import torch and torchvision (python3-torch,
# python3-torchvision: scripts/install-deps.sh --with-compare-tools).
# usage: watch_roles_torch_test.sh PIPECHECK SOURCE_DIR [SECONDS]
set -euo pipefail
pipecheck=$1
source_dir=$2
seconds=${3:-35}
/usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null ||
  { echo "skipped: /usr/bin/python3 cannot import torch and torchvision (python3-torch, python3-torchvision)"; exit 77; }
jobs="/usr/bin/python3 $source_dir/scripts/compare/plant/torch_loader.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$jobs make-jpegs "$work/images" 64

failed=0
for case in loader-bound:input_loader_bound step-bound:step_bound; do
  mode=${case%%:*} rule=${case#*:}
  "$pipecheck" watch --quiet --no-gpu --no-baseline --out "$work/$mode" -- $jobs "$mode" "$work/images" "$seconds" \
    2>"$work/$mode.err" || { echo "$mode: watch failed"; cat "$work/$mode.err"; failed=1; continue; }
  got=$(/usr/bin/python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["verdict"]; print(v["rule"] if v else "none")' \
    "$work/$mode/watch.json")
  echo "$mode: verdict $got (expected $rule); $(grep -h '^truth:' "$work/$mode.err" || true)"
  # The workers' shared tensors (/dev/shm) are their batch hand-over, never files read on tmpfs.
  notes=$(/usr/bin/python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["notes"]))' "$work/$mode/watch.json")
  if grep -q "reads files on tmpfs" <<<"$notes"; then echo "$mode: a note calls shared memory files on tmpfs"; failed=1; fi
  if [[ $got != "$rule" ]]; then
    failed=1
    cat "$work/$mode.err"
  fi
done
exit $failed
