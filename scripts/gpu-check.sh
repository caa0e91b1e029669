#!/usr/bin/env bash
# The one prepared script for the lent GPU machine (see ../shared/DEVICE.md): unpack the carried
# Debian packages into a prefix, build, run the tests and every probe in quick mode, and copy
# results and logs to $OUT. Usage there: bash scripts/gpu-check.sh   (carry: [".devdeps"])
set -uo pipefail
OUT=${OUT:-/tmp/pipecheck-out}
mkdir -p "$OUT"
D=/tmp/deps
mkdir -p "$D"
for f in .devdeps/*.deb; do [ -e "$f" ] && dpkg -x "$f" "$D"; done
export CMAKE_PREFIX_PATH=$D/usr PKG_CONFIG_SYSROOT_DIR=$D \
  PKG_CONFIG_LIBDIR=$D/usr/lib/x86_64-linux-gnu/pkgconfig:$D/usr/share/pkgconfig \
  LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}

step() { echo "== $*"; }
step build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  >"$OUT/configure.log" 2>&1 && cmake --build build-gpu -j16 >"$OUT/build.log" 2>&1
echo "build rc=$?"
step tests
ctest --test-dir build-gpu --output-on-failure -j8 >"$OUT/ctest.log" 2>&1
echo "ctest rc=$?"; tail -5 "$OUT/ctest.log"
step inventory
build-gpu/bin/pipecheck inventory >"$OUT/inventory.txt" 2>&1
build-gpu/bin/pipecheck inventory --json >"$OUT/inventory.json" 2>&1
nvidia-smi -q >"$OUT/nvidia-smi.txt" 2>&1
step run
build-gpu/bin/pipecheck run --quick --out "$OUT/results" --no-color 2>&1 | tee "$OUT/run.txt"
echo "run rc=${PIPESTATUS[0]}"
step nvjpeg
build-gpu/bin/pipecheck-jpeg --benchmark_filter='decode/(nvjpeg|full)' --threads 1,16 --gpu-batch 64 \
  --benchmark_format=json >"$OUT/nvjpeg.json" 2>"$OUT/nvjpeg.err"
echo "nvjpeg rc=$?"; grep -o '"label": "[^"]*nvjpeg[^"]*"' "$OUT/nvjpeg.json" | head -2
step stress
timeout 150 build-gpu/bin/pipecheck stress --duration 60s --plain --out "$OUT/stress" >"$OUT/stress.txt" 2>&1
echo "stress rc=$?"; tail -15 "$OUT/stress.txt"
step nccl
build-gpu/bin/pipecheck-nccl --pipecheck_quick --benchmark_format=json >"$OUT/nccl.json" 2>"$OUT/nccl.err"
echo "nccl rc=$?"; tail -2 "$OUT/nccl.err"
step compare
timeout 240 env OUT="$OUT/compare" bash scripts/compare-gpu.sh build-gpu/bin \
  >"$OUT/compare.txt" 2>&1
echo "compare rc=$?"; cat "$OUT/compare.txt" | tail -20
