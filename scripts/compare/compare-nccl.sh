#!/usr/bin/env bash
# pipecheck-comm beside nccl-tests' all_reduce_perf on the same GPUs and sweep (issue 5's target:
# busbw within 2% of nccl-tests). Prints both bus bandwidths per size and their ratio, the median
# over REPS runs of each; exits 0 when both ran (whatever the ratio), 2 when either is missing, 1 when either run failed.
# Usage on the GPU machine, after building:
#   scripts/compare/compare-nccl.sh [--nccl-tests DIR] [--bin DIR] [--gpus N] [--mpirun "mpirun -np 16 -H a:8,b:8"]
#   environment, optional: NCCL_TESTS=DIR (holds all_reduce_perf, or build/all_reduce_perf)
#     PIPECHECK_BIN=build/bin  MINBYTES=8  MAXBYTES=8G  STEPFACTOR=2  DTYPE=float  ITERS=20  WARMUP=5
#     REPS=5  OUT=/tmp/pipecheck-compare-nccl
# Under --mpirun both tools run one rank a GPU (nccl-tests must be built with MPI=1); without it
# one process drives --gpus N GPUs (default: every GPU nvidia-smi lists).
set -euo pipefail

NCCL_TESTS=${NCCL_TESTS:-}
BIN=${PIPECHECK_BIN:-build/bin}
GPUS=${GPUS:-}
MPIRUN=${MPIRUN:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --nccl-tests) NCCL_TESTS=$2; shift 2 ;;
    --bin) BIN=$2; shift 2 ;;
    --gpus) GPUS=$2; shift 2 ;;
    --mpirun) MPIRUN=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "compare-nccl: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
MINBYTES=${MINBYTES:-8}
MAXBYTES=${MAXBYTES:-8G}
STEPFACTOR=${STEPFACTOR:-2}
DTYPE=${DTYPE:-float}
ITERS=${ITERS:-20}
WARMUP=${WARMUP:-5}
REPS=${REPS:-5}
OUT=${OUT:-/tmp/pipecheck-compare-nccl}
mkdir -p "$OUT"

ours="$BIN/pipecheck-comm"
theirs=""
for candidate in "$NCCL_TESTS/all_reduce_perf" "$NCCL_TESTS/build/all_reduce_perf" \
                 "$NCCL_TESTS/all_reduce_perf_mpi" "$NCCL_TESTS/build/all_reduce_perf_mpi"; do
  if [ -n "$NCCL_TESTS" ] && [ -x "$candidate" ]; then theirs=$candidate; break; fi
done
if [ ! -x "$ours" ]; then
  echo "compare-nccl: $ours not found (build pipecheck with CUDA and NCCL, or pass --bin DIR)" >&2
  exit 2
fi
if [ -z "$theirs" ]; then
  echo "compare-nccl: all_reduce_perf not found under '${NCCL_TESTS:-(unset)}': build nccl-tests" \
       "(https://github.com/NVIDIA/nccl-tests, make [MPI=1]) and pass --nccl-tests DIR or NCCL_TESTS=DIR" >&2
  exit 2
fi

sweep=(-b "$MINBYTES" -e "$MAXBYTES" -f "$STEPFACTOR" -n "$ITERS" -w "$WARMUP" -d "$DTYPE")
launch=()
if [ -n "$MPIRUN" ]; then
  read -r -a launch <<<"$MPIRUN"
  gpu_args=(-g 1)
  our_gpu_args=()
else
  if [ -z "$GPUS" ]; then GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true); fi  # none: grep -c says 0, exits 1
  gpu_args=(-g "$GPUS")
  our_gpu_args=(-g "$GPUS")
fi
# nccl-tests names bf16 "bfloat16"; pipecheck takes either.
nccl_type=$DTYPE
[ "$DTYPE" = bf16 ] && nccl_type=bfloat16
their_sweep=(-b "$MINBYTES" -e "$MAXBYTES" -f "$STEPFACTOR" -n "$ITERS" -w "$WARMUP" -d "$nccl_type")

echo "== nccl-tests: ${launch[*]} $theirs ${their_sweep[*]} ${gpu_args[*]} -c 1 -N $REPS"
failed=()  # a run that fails is said, its file not read, and the script exits 1 at the end
"${launch[@]}" "$theirs" "${their_sweep[@]}" "${gpu_args[@]}" -c 1 -N "$REPS" >"$OUT/nccl-tests.txt" 2>&1 ||
  { echo "all_reduce_perf failed: $(tail -3 "$OUT/nccl-tests.txt")"; failed+=(all_reduce_perf); mv "$OUT/nccl-tests.txt" "$OUT/nccl-tests.failed.txt"; }
echo "== pipecheck-comm: ${launch[*]} $ours --collectives all_reduce ${sweep[*]} ${our_gpu_args[*]}"
"${launch[@]}" "$ours" --benchmark_format=json --benchmark_repetitions="$REPS" --collectives all_reduce \
  "${sweep[@]}" "${our_gpu_args[@]}" >"$OUT/pipecheck.json" 2>"$OUT/pipecheck.err" ||
  { echo "pipecheck-comm failed: $(tail -3 "$OUT/pipecheck.err")"; failed+=(pipecheck-comm); rm -f "$OUT/pipecheck.json"; }

OUT="$OUT" python3 - <<'EOF'
import json, os, re, statistics

out = os.environ["OUT"]

def nccl_tests():
    """Median out-of-place busbw per size over the -N cycles (columns: size count type redop root
    time algbw busbw #wrong, then the same three and #wrong in place)."""
    runs = {}
    with open(os.path.join(out, "nccl-tests.txt")) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 9 and fields[0].isdigit() and fields[1].isdigit():
                try:
                    runs.setdefault(int(fields[0]), []).append(float(fields[7]))
                except ValueError:
                    pass  # "N/A" or a line that only looks like data
    return {size: statistics.median(v) for size, v in runs.items()}

def pipecheck():
    """Median busbw per size over the repetitions, from the label's bytes and the busbw counter."""
    try:
        with open(os.path.join(out, "pipecheck.json")) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        with open(os.path.join(out, "pipecheck.err")) as f:
            why = (f.read().strip().splitlines() or [str(e)])[-1]
        print(f"  (no pipecheck results: {why})")
        return {}
    runs = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        if b.get("error_occurred"):
            print(f"  {b['name']}: {b.get('error_message')}")
            continue
        label = dict(item.split("=", 1) for item in b.get("label", "").split(";") if "=" in item)
        if "bytes" in label and "busbw_GBps" in b:
            runs.setdefault(int(label["bytes"]), []).append(b["busbw_GBps"])
    return {size: statistics.median(v) for size, v in runs.items()}

theirs, ours = nccl_tests(), pipecheck()
print(f"{'size (B)':>14} {'nccl-tests busbw':>17} {'pipecheck busbw':>16} {'ratio':>7}")
for size in sorted(set(theirs) | set(ours)):
    t, o = theirs.get(size), ours.get(size)
    cell = lambda v, width: f"{v:{width}.2f}" if v is not None else f"{'-':>{width}}"
    ratio = f"{o / t:7.3f}" if t and o else f"{'-':>7}"
    print(f"{size:>14} {cell(t, 17)} {cell(o, 16)} {ratio}")
common = sorted(s for s in set(theirs) & set(ours) if theirs[s] > 0)
if common:
    largest = common[-1]
    ratio = ours[largest] / theirs[largest]
    verdict = "within 2%" if ratio >= 0.98 else "MORE than 2% below nccl-tests"
    print(f"largest common size {largest} B: pipecheck/nccl-tests busbw = {ratio:.3f} ({verdict})")
else:
    print("no size measured by both: see the files in " + out)
EOF
if (( ${#failed[@]} )); then
  echo "compare-nccl: ${failed[*]} failed: nothing to compare it with" >&2
  exit 1
fi
