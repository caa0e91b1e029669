#!/usr/bin/env bash
# Our GPU probes beside PyTorch on the same card and shapes (issue 4's targets): bf16 matmul and
# fp8 _scaled_mm, device-to-device copy, pinned and pageable H2D; prints each pair and the ratio.
# Usage on the GPU machine, after building:  bash scripts/compare/compare-gpu.sh [BIN_DIR]
#   SHAPES="8192x8192x8192 4096x4096x4096"  DTYPES=bf16,fp8  REPS=5  GPU=0  OUT=/tmp/x
#   (environment, optional; scripts/gpu-check.sh runs it with DTYPES=bf16 REPS=3)
# Without PyTorch it prints our figures and says why torch's are missing (exit 0); a probe of ours that
# fails is said and the script exits 1 after the figures that did come.
set -euo pipefail
BIN=${1:-${PIPECHECK_BIN:-build-gpu/bin}}
SHAPES=${SHAPES:-8192x8192x8192}
DTYPES=${DTYPES:-bf16,fp8}
REPS=${REPS:-5}
GPU=${GPU:-0}
OUT=${OUT:-/tmp/pipecheck-compare}
mkdir -p "$OUT"

for probe in pipecheck-compute pipecheck-memory pipecheck-pcie; do
  if [ ! -x "$BIN/$probe" ]; then
    echo "compare-gpu: $BIN/$probe not found (build with CUDA first, or pass the bin folder)" >&2
    exit 2
  fi
done

common=(--gpus "$GPU" --benchmark_format=json --benchmark_repetitions="$REPS" --benchmark_min_time=0.2)
shape_args=()
for s in $SHAPES; do shape_args+=(--shape "$s"); done
echo "== pipecheck-compute $DTYPES ($SHAPES)"
# Each probe writes its own files; one that fails is said here and fails the script at the end
# (after the figures that did come), never read as a measurement.
failed=()
"$BIN/pipecheck-compute" "${common[@]}" --dtype "$DTYPES" "${shape_args[@]}" >"$OUT/gemm.json" 2>"$OUT/gemm.err" ||
  { echo "pipecheck-compute failed: $(tail -1 "$OUT/gemm.err")"; failed+=(pipecheck-compute); rm -f "$OUT/gemm.json"; }
echo "== pipecheck-memory copy, triad, d2d_memcpy"
"$BIN/pipecheck-memory" "${common[@]}" --benchmark_filter='hbm/(copy|triad|d2d_memcpy)/' \
  >"$OUT/hbm.json" 2>"$OUT/hbm.err" ||
  { echo "pipecheck-memory failed: $(tail -1 "$OUT/hbm.err")"; failed+=(pipecheck-memory); rm -f "$OUT/hbm.json"; }
echo "== pipecheck-pcie h2d pinned/pageable 256 MiB"
"$BIN/pipecheck-pcie" "${common[@]}" --benchmark_filter='pcie/h2d/(pinned|pageable)/ce/268435456/local/' \
  >"$OUT/pcie.json" 2>"$OUT/pcie.err" ||
  { echo "pipecheck-pcie failed: $(tail -1 "$OUT/pcie.err")"; failed+=(pipecheck-pcie); rm -f "$OUT/pcie.json"; }

OUT="$OUT" SHAPES="$SHAPES" DTYPES="$DTYPES" REPS="$REPS" GPU="$GPU" python3 - <<'EOF'
import json, os, statistics, sys

out, shapes, reps, gpu = os.environ["OUT"], os.environ["SHAPES"].split(), int(os.environ["REPS"]), int(os.environ["GPU"])
dtypes = os.environ["DTYPES"].split(",")

def ours(name):
    """Median over repetitions of each case's rate, by measurement key (no /manual_time)."""
    path = os.path.join(out, name + ".json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        try:  # the probe's own last words: "skipped: no CUDA device", an error, ...
            with open(os.path.join(out, name + ".err")) as f:
                why = (f.read().strip().splitlines() or [""])[-1]
        except OSError:
            why = ""
        print(f"  (no results in {path}: {why or e})")
        return {}
    runs = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
            if b.get("error_occurred"):
                print(f"  {b['name']}: {b.get('error_message')}")
            continue
        key = "/".join(p for p in b.get("run_name", b["name"]).split("/") if p != "manual_time")
        for counter in ("flop_per_second", "op_per_second", "bytes_per_second"):
            if counter in b:
                runs.setdefault(key, []).append(b[counter])
                break
    return {k: statistics.median(v) for k, v in runs.items()}

gemm, hbm, pcie = ours("gemm"), ours("hbm"), ours("pcie")
rows = []  # (what, ours, torch, unit)

try:
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch.cuda.is_available() is False")
    torch_error = None
except Exception as e:  # ImportError, or a torch without CUDA
    torch = None
    torch_error = f"{type(e).__name__}: {e}"

def timed(fn, warmup=5, iters=20):
    """Median seconds of fn() over reps, each rep `iters` calls between CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / 1e3 / iters)
    return statistics.median(samples)

if torch is not None:
    torch.cuda.set_device(gpu)
    dev = torch.device("cuda", gpu)
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(gpu)}")

for s in shapes:
    m, n, k = (int(x) for x in s.split("x"))
    flop = 2.0 * m * n * k
    t_bf16 = t_fp8 = None
    if torch is not None:
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)  # random: zeros run faster
        b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        t_bf16 = flop / timed(lambda: torch.matmul(a, b))
        try:
            if "fp8" in dtypes:
                a8 = (torch.rand(m, k, device=dev) * 2 - 1).to(torch.float8_e4m3fn)
                b8 = (torch.rand(n, k, device=dev) * 2 - 1).to(torch.float8_e4m3fn).t()  # column-major B
                one = torch.tensor(1.0, device=dev)
                t_fp8 = flop / timed(lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one,
                                                              out_dtype=torch.bfloat16))
        except Exception as e:
            print(f"  torch._scaled_mm {s}: {type(e).__name__}: {e}")
        del a, b
    rows.append((f"GEMM bf16 {s}", gemm.get(f"gemm/bf16/{s}/gpu{gpu}"), t_bf16, "TFLOP/s", 1e12))
    if "fp8" in dtypes:
        rows.append((f"GEMM fp8 {s}", gemm.get(f"gemm/fp8/{s}/gpu{gpu}"), t_fp8, "TFLOP/s", 1e12))

t_d2d = t_pinned = t_pageable = None
if torch is not None:
    n_bytes = 2 << 30
    src = torch.empty(n_bytes, dtype=torch.uint8, device=dev).random_(0, 255)
    dst = torch.empty_like(src)
    t_d2d = 2 * n_bytes / timed(lambda: dst.copy_(src), iters=5)  # read + write, as ours
    del src, dst
    h_bytes = 256 << 20
    d = torch.empty(h_bytes, dtype=torch.uint8, device=dev)
    pinned = torch.empty(h_bytes, dtype=torch.uint8, pin_memory=True).random_(0, 255)
    pageable = torch.empty(h_bytes, dtype=torch.uint8).random_(0, 255)
    t_pinned = h_bytes / timed(lambda: d.copy_(pinned, non_blocking=True), iters=5)
    t_pageable = h_bytes / timed(lambda: d.copy_(pageable), iters=5)

rows.append(("HBM copy kernel", hbm.get(f"hbm/copy/gpu{gpu}"), t_d2d, "GB/s", 1e9))
rows.append(("HBM triad kernel", hbm.get(f"hbm/triad/gpu{gpu}"), None, "GB/s", 1e9))
rows.append(("HBM cudaMemcpy D2D", hbm.get(f"hbm/d2d_memcpy/gpu{gpu}"), t_d2d, "GB/s", 1e9))
rows.append(("H2D pinned 256 MiB", pcie.get(f"pcie/h2d/pinned/ce/268435456/local/gpu{gpu}"), t_pinned, "GB/s", 1e9))
rows.append(("H2D pageable 256 MiB", pcie.get(f"pcie/h2d/pageable/ce/268435456/local/gpu{gpu}"), t_pageable, "GB/s", 1e9))

if torch_error:
    print(f"torch: not available ({torch_error}); showing pipecheck's figures only")
print(f"\n{'what':28} {'pipecheck':>12} {'torch':>12} {'ratio':>8}  unit")
for what, mine, theirs, unit, scale in rows:
    fmt = lambda v: f"{v / scale:12.1f}" if v else f"{'-':>12}"
    ratio = f"{mine / theirs:8.3f}" if mine and theirs else f"{'-':>8}"
    print(f"{what:28} {fmt(mine)} {fmt(theirs)} {ratio}  {unit}")
EOF
echo "compare-gpu: raw JSON and logs in $OUT"
if (( ${#failed[@]} )); then
  echo "compare-gpu: ${failed[*]} failed: the comparison is incomplete" >&2
  exit 1
fi
