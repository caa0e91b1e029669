#!/usr/bin/env bash
# The one prepared command for a lent GPU machine (../shared/DEVICE.md; README "GPU check"):
# preflight, unpack the carried Debian packages, configure for sm_90, build, the tests (GPU tests
# serialized, the rest in parallel), `pipecheck run --quick`, `pipecheck-comm -g 1`, a short
# `pipecheck stress` and scripts/compare/compare-gpu.sh beside PyTorch. Every step runs under its own
# `timeout`; after every step the folder of everything collected is archived again and a
# one-screen summary.txt rewritten in OUT, so a run killed at its limit still returns what it had.
#
# Usage, at the repository root (carry: [".devdeps"], made here by scripts/fetch-devdeps.sh):
#   bash scripts/gpu-check.sh                    every step
#   bash scripts/gpu-check.sh --list             the steps with their limits and estimates
#   GPU_CHECK_STEPS="preflight unpack configure build tests" bash scripts/gpu-check.sh
# Environment (all optional):
#   OUT                  where summary.txt and gpu-check.tar.gz go (default ./gpu-check-out)
#   GPU_CHECK_WORK       the folder everything is collected in (default /tmp/pipecheck-gpu-check)
#   GPU_CHECK_BUDGET     seconds for the whole run on 16 cores (default 360): a step whose
#                        estimate no longer fits is skipped ("no time left"), none runs past it
#   GPU_CHECK_TIME_SCALE multiplies limits, estimates and budget (default 16 / cores, at least 1)
#   GPU_CHECK_COMMIT     the commit to name in summary.txt (the device machine's copy has no .git)
#   RUN_STAGES           the quick run's stages (default "pcie memory compute"; comm on one GPU is
#                        the nccl_1gpu step; all: every one)
#   BUILD_DIR (build-gpu), DEVDEPS (.devdeps), DEPS_PREFIX (/tmp/pipecheck-deps), JOBS (nproc)
# Output in OUT: summary.txt, gpu-check.tar.gz (logs, figures, results, the ctest log, JUnit).
# Exit: 0 every step that ran passed; 1 a step failed or timed out; 2 bad usage.
#
# Time on the H200 machine (16 cores), estimated from this VM's 2-core times (2026-12-01, load
# ~2; the scripts/rehearse-gpu-check.sh run); the GPU machine confirms them:
#   step        2 cores here          16 cores (estimate)                      limit
#   preflight   2 s                   3 s (nvidia-smi -q ~1 s)                   30
#   unpack      1 s                   1 s                                         30
#   configure   25 s                  15 s (nvcc and compiler detection)          90
#   build       see README            ~90 s (CUDA objects dominate)              300
#   tests       ~70 s (CPU part)      ~80 s: GPU tests serialized, the rest      240
#                                     in parallel beside them
#   run_quick   ~45 s (CPU stages)    ~80 s (pcie, memory, compute quick)        180
#   plan        -                     ~8 s (run --plan listed and planned)         60
#   nccl_1gpu   -                     ~10 s                                       60
#   stress      -                     ~30 s (15 s burn + memory test, setup)      90
#   inject      -                     ~22 s (10 s burn with 5 faults injected)    60
#   compare     -                     ~40 s (torch import, 3 reps each)          150
#   inventory   -                     ~5 s (inventory + nvidia-smi topo -m)       30
#   watch       -                     ~14 s (watch over an 8 s GEMM job)          60
#   total                             ~6.5 min of estimates against a budget of 360 s: the budget
#                                     skips the steps at the end that no longer fit ("no time
#                                     left"), so the check stays under 6 minutes and a rerun fits
#                                     in the 15; GPU_CHECK_STEPS reruns the skipped ones alone
set -uo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
REPO=$(cd "$(dirname "$SELF")/.." && pwd)

# ---------------------------------------------------------------------------------------------
# The steps, in order: name, limit and estimate in seconds on 16 cores, what it needs, and
# whether a failure stops the run.
#   needs  -      always runs            build  after a successful build
#          gpu    after a successful build, with a GPU (else "no GPU")
#   fail   stop   later steps do not run  go     later steps run
# >>> Later GPU work adds its row here and a step_<name> function below (see the examples at
#     "Steps added by later issues"): fault injection (`pipecheck stress --inject-faults N`),
#     NVML conditions, NVML topology, the separate burn executable. Keep the estimates' sum
#     under the budget; the budget skips what does not fit.
STEPS=(
  # name        limit  estimate  needs  fail
  "preflight       30        3   -      stop"
  "unpack          30        1   -      stop"
  "configure       90       15   -      stop"
  "build          300       90   -      stop"
  "tests          240       80   build  go"
  "run_quick      180       80   gpu    go"
  "plan            60        8   gpu    go"
  "nccl_1gpu       60       10   gpu    go"
  "stress          90       30   gpu    go"
  "inject          60       22   gpu    go"
  "compare        150       40   gpu    go"
  "inventory       30        5   gpu    go"
  "watch           60       14   gpu    go"
)

OUT=${OUT:-./gpu-check-out}
WORK=${GPU_CHECK_WORK:-/tmp/pipecheck-gpu-check}
BUDGET=${GPU_CHECK_BUDGET:-360}
BUILD_DIR=${BUILD_DIR:-build-gpu}
DEVDEPS=${DEVDEPS:-.devdeps}
DEPS_PREFIX=${DEPS_PREFIX:-/tmp/pipecheck-deps}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
if [[ -z "${GPU_CHECK_TIME_SCALE:-}" ]]; then
  GPU_CHECK_TIME_SCALE=$(( (16 + JOBS - 1) / JOBS ))
fi
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR=$REPO/$BUILD_DIR ;; esac
case "$DEVDEPS" in /*) ;; *) DEVDEPS=$REPO/$DEVDEPS ;; esac
BIN=$BUILD_DIR/bin
export OUT WORK BUDGET BUILD_DIR DEVDEPS DEPS_PREFIX JOBS GPU_CHECK_TIME_SCALE BIN
# Debian puts a few headers in the multiarch folder the compiler searches by itself
# (hwloc/autogen/config.h in /usr/include/x86_64-linux-gnu): in the unpacked prefix it searches
# it only when told, and the .pc files do not say it (every step is its own process: set here).
export CPATH="$DEPS_PREFIX/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"

# ---------------------------------------------------------------------------------------------
# Helpers shared by the steps (each step runs in its own process, `bash gpu-check.sh --step X`).

say() { echo "gpu-check: $*"; }
# The step's one-line figures for the summary ("226 targets, 0 warnings").
figures() { echo "$*" >"$WORK/figures/$STEP"; }
# Lines shown under the step table (compare's table).
block() { cat >>"$WORK/figures/$STEP.block"; }
# Remembers a fact for the later steps (KEY=VALUE, sourced by each step).
remember() { printf '%s=%q\n' "$1" "$2" >>"$WORK/state.env"; }
# Ends the step as skipped, with the reason as its figures.
skip_step() { figures "$*"; exit 99; }
# Ends the step as failed with one clear line.
fail_step() { figures "$*"; echo "gpu-check: $STEP: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
first_line() { head -1 | cut -c1-80; }
load1() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
python_ok() { [[ -n "${PYTHON:-}" ]]; }
figure_tool() { "$PYTHON" "$REPO/scripts/gpu_check_figures.py" "$@"; }

# ---------------------------------------------------------------------------------------------
# Steps

step_preflight() {
  local missing=()
  echo "== OS";          cat /etc/os-release 2>/dev/null; uname -a
  echo "== cores";       nproc; grep -m1 MemTotal /proc/meminfo
  local os; os=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-?}")

  local tool
  for tool in timeout tar gzip awk sed; do have "$tool" || missing+=("$tool"); done
  local cxx=${CXX:-}
  [[ -z "$cxx" ]] && for tool in c++ g++ clang++; do have "$tool" && { cxx=$(command -v "$tool"); break; }; done
  [[ -z "$cxx" ]] && missing+=("a C++ compiler (g++)")

  local cmake_version=""
  if have cmake; then
    cmake_version=$(cmake --version | first_line | awk '{print $3}')
    # CMakeLists.txt's cmake_minimum_required.
    [[ "$(printf '%s\n' 3.25 "$cmake_version" | sort -V | head -1)" == 3.25 ]] || missing+=("cmake >= 3.25 (found $cmake_version)")
  else
    missing+=("cmake")
  fi
  local generator=""
  if have ninja; then generator=Ninja; elif have make; then generator="Unix Makefiles"; else missing+=("ninja or make"); fi

  local nvcc=${CUDACXX:-}
  [[ -z "$nvcc" ]] && { nvcc=$(command -v nvcc || true); [[ -z "$nvcc" && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc; }
  [[ -z "$nvcc" ]] && missing+=("nvcc (no CUDA toolkit: the GPU parts would not be built)")

  # The carried packages: every `carry` row of scripts/debian-packages.txt, as a .deb.
  source "$REPO/scripts/debian_packages.sh"
  local p absent=()
  while read -r p; do compgen -G "$DEVDEPS/${p}_*.deb" >/dev/null || absent+=("$p"); done < <(debian_packages carry)
  ((${#absent[@]})) && missing+=("${#absent[@]} carried package(s) in $DEVDEPS (${absent[*]}): run scripts/fetch-devdeps.sh and carry .devdeps")
  local unpacker=dpkg
  if ! have dpkg; then
    unpacker="ar+tar"
    have ar || missing+=("dpkg or ar (binutils) to unpack the .debs")
    have xz || have python3 || missing+=("xz or python3 to read data.tar.xz")
  fi
  local pkgconfig=carried
  have pkg-config && pkgconfig="system $(command -v pkg-config)"

  if ((${#missing[@]})); then fail_step "missing: ${missing[*]}"; fi

  echo "== compiler";    "$cxx" --version | head -1
  local libstdcxx; libstdcxx=$("$cxx" -print-file-name=libstdc++.so.6 2>/dev/null)
  [[ -f "$libstdcxx" ]] || libstdcxx=$(ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/ {print $NF; exit}')
  local glibcxx="?"
  [[ -f "$libstdcxx" ]] && glibcxx=$(grep -ao 'GLIBCXX_3\.4\.[0-9]*' "$libstdcxx" | sort -uV | tail -1)
  echo "libstdc++: $libstdcxx provides up to $glibcxx"
  echo "glibc: $(ldd --version 2>&1 | first_line)"
  echo "== cmake $cmake_version; generator $generator"; have ninja && ninja --version
  echo "== nvcc $nvcc";  "$nvcc" --version | tail -2
  local nvcc_version; nvcc_version=$("$nvcc" --version | grep -o 'release [0-9.]*' | awk '{print $2}')
  echo "== pkg-config: $pkgconfig"
  echo "== disk";        df -Pk "$REPO" "$(dirname "$WORK")" 2>/dev/null
  local free_kb; free_kb=$(df -Pk "$REPO" | awk 'NR == 2 {print $4}')
  if ((free_kb < 3 * 1024 * 1024)); then fail_step "only $((free_kb / 1024)) MiB free under $REPO: the build needs 3 GiB"; fi

  # The GPU, as the driver sees it; its absence is not an error here (rehearsals have none).
  local gpu=no gpu_text="no GPU"
  if have nvidia-smi && timeout 20 nvidia-smi -q >"$WORK/nvidia-smi-q.txt" 2>&1 && timeout 10 nvidia-smi -L | grep -q '^GPU '; then
    gpu=yes
    echo "== nvidia-smi -q (header)"; head -40 "$WORK/nvidia-smi-q.txt"
    gpu_text=$(timeout 10 nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,pcie.link.gen.max,pcie.link.width.max,memory.total \
                 --format=csv,noheader 2>/dev/null | head -1 |
               awk -F', ' '{printf "%s, driver %s, PCIe Gen%s x%s (max Gen%s x%s, as the guest sees it), %s", $1, $2, $3, $4, $5, $6, $7}')
    timeout 10 nvidia-smi topo -m >"$WORK/nvidia-smi-topo.txt" 2>&1
  else
    echo "== no GPU: $(have nvidia-smi && echo "nvidia-smi lists none" || echo "no nvidia-smi")"
  fi

  # NCCL and cuBLAS: the toolkit's, else the pip wheels PyTorch brings (nvidia-nccl, nvidia-cublas).
  local python=""; have python3 && python=$(command -v python3)
  local cuda_root; cuda_root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
  local nccl="toolkit" nccl_flags="" cublas="toolkit" cublas_flags=""
  wheel_dir() {  # nvidia.nccl -> the wheel's folder
    [[ -n "$python" ]] && timeout 30 "$python" -c "import $1 as m; print(list(m.__path__)[0])" 2>/dev/null
  }
  if [[ -n "${NCCL_HOME:-}" ]]; then
    nccl="NCCL_HOME=$NCCL_HOME"
  elif [[ ! -f "$cuda_root/include/nccl.h" && ! -f /usr/include/nccl.h ]]; then
    local dir; dir=$(wheel_dir nvidia.nccl)
    local lib; lib=$(ls "$dir"/lib/libnccl.so* 2>/dev/null | head -1)
    if [[ -n "$dir" && -f "$dir/include/nccl.h" && -n "$lib" ]]; then
      nccl="pip wheel $dir"
      nccl_flags="-DPIPECHECK_NCCL_INCLUDE=$dir/include -DPIPECHECK_NCCL_LIBRARY=$lib"
    else
      nccl="none (comm/ not built)"
    fi
  fi
  if [[ ! -f "$cuda_root/include/cublasLt.h" ]]; then
    local dir; dir=$(wheel_dir nvidia.cublas)
    local blas lt
    blas=$(ls "$dir"/lib/libcublas.so* 2>/dev/null | head -1); lt=$(ls "$dir"/lib/libcublasLt.so* 2>/dev/null | head -1)
    if [[ -n "$dir" && -f "$dir/include/cublasLt.h" && -n "$blas" && -n "$lt" ]]; then
      cublas="pip wheel $dir"
      cublas_flags="-DCUDA_cublas_LIBRARY=$blas -DCUDA_cublasLt_LIBRARY=$lt -DCMAKE_CXX_FLAGS=-I$dir/include -DCMAKE_CUDA_FLAGS=-I$dir/include"
    else
      fail_step "no cuBLAS: $cuda_root/include/cublasLt.h missing and no nvidia.cublas wheel"
    fi
  fi
  echo "== NCCL: $nccl; cuBLAS: $cublas; python3: ${python:-none}"

  remember GPU "$gpu"; remember GPU_TEXT "$gpu_text"; remember CXX_PATH "$cxx"; remember NVCC "$nvcc"
  remember GENERATOR "$generator"; remember UNPACKER "$unpacker"; remember PYTHON "$python"
  remember NCCL_FLAGS "$nccl_flags"; remember CUBLAS_FLAGS "$cublas_flags"; remember NCCL_TEXT "$nccl"
  local cxx_version; cxx_version=$("$cxx" --version | first_line | grep -o '[0-9][0-9.]*' | tail -1)
  figures "${os}; $(basename "$cxx") $cxx_version, $glibcxx; cmake $cmake_version; ${generator%% *}; nvcc $nvcc_version; GPU $gpu"
}

# One .deb into the prefix: dpkg -x where dpkg exists, else ar + tar (the GPU image may lack dpkg).
unpack_deb() {  # DEB PREFIX
  if [[ "$UNPACKER" == dpkg ]]; then dpkg -x "$1" "$2"; return; fi
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && ar x "$1") || { rm -rf "$tmp"; return 1; }
  local data; data=$(ls "$tmp"/data.tar.* 2>/dev/null | head -1)
  case "$data" in
    *.xz)  if have xz; then tar -xJf "$data" -C "$2"; else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$data" "$2"; fi ;;
    *.zst) tar --zstd -xf "$data" -C "$2" ;;
    *.gz)  tar -xzf "$data" -C "$2" ;;
    *)     echo "$1: no data.tar.* inside" >&2; rm -rf "$tmp"; return 1 ;;
  esac
  local rc=$?
  rm -rf "$tmp"
  return $rc
}

step_unpack() {
  # A fresh prefix each run: only what this run unpacks is in it.
  [[ -d "$DEPS_PREFIX" && ! -f "$DEPS_PREFIX/.pipecheck-deps" ]] && fail_step "$DEPS_PREFIX exists and was not made by gpu-check: set DEPS_PREFIX"
  rm -rf "$DEPS_PREFIX"; mkdir -p "$DEPS_PREFIX"; touch "$DEPS_PREFIX/.pipecheck-deps"
  local f count=0
  for f in "$DEVDEPS"/*.deb; do
    unpack_deb "$f" "$DEPS_PREFIX" || fail_step "could not unpack $(basename "$f") with $UNPACKER"
    count=$((count + 1))
  done
  local libdirs
  libdirs=$(find "$DEPS_PREFIX" -name '*.so*' -type f -printf '%h\n' 2>/dev/null | sort -u | paste -sd:)
  echo "library folders: $libdirs"

  # pkg-config: the system's, else the carried pkgconf through a wrapper that finds its library.
  local pkg_config
  if have pkg-config; then
    pkg_config=$(command -v pkg-config)
  else
    pkg_config=$DEPS_PREFIX/bin/pkg-config
    mkdir -p "$DEPS_PREFIX/bin"
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s "$@"\n' \
      "$libdirs" "$DEPS_PREFIX/usr/bin/pkgconf" >"$pkg_config"
    chmod +x "$pkg_config"
  fi
  remember PKG_CONFIG "$pkg_config"
  export PKG_CONFIG="$pkg_config" PKG_CONFIG_SYSROOT_DIR=$DEPS_PREFIX
  export PKG_CONFIG_LIBDIR=$DEPS_PREFIX/usr/lib/x86_64-linux-gnu/pkgconfig:$DEPS_PREFIX/usr/share/pkgconfig
  local module
  for module in liburing libturbojpeg hwloc; do
    "$pkg_config" --exists "$module" || fail_step "pkg-config ($pkg_config) does not find $module in the unpacked prefix"
  done
  echo "pkg-config: $("$pkg_config" --version) finds liburing $("$pkg_config" --modversion liburing), libturbojpeg $("$pkg_config" --modversion libturbojpeg)"

  # Every carried library must load here: its needed libraries and symbol versions (GLIBCXX_*,
  # GLIBC_*) resolved. Where the image lacks a needed library we carried, its folder joins
  # LD_LIBRARY_PATH for the later steps.
  local lib problems="" extra=""
  while read -r lib; do
    local out; out=$(ldd "$lib" 2>&1)
    if grep -q 'not found' <<<"$out"; then
      local fixed; fixed=$(LD_LIBRARY_PATH=$libdirs ldd "$lib" 2>&1)
      if grep -q 'not found' <<<"$fixed"; then
        problems+="$(basename "$lib"): $(grep -m1 'not found' <<<"$fixed" | sed 's/^[[:space:]]*//'); "
      else
        extra=$libdirs
        echo "$(basename "$lib") needs a carried library: $(grep 'not found' <<<"$out" | awk '{print $1}' | paste -sd' ')"
      fi
    fi
  done < <(find "$DEPS_PREFIX" -name '*.so.*' -type f)
  [[ -n "$problems" ]] && fail_step "carried libraries cannot load here: $problems"
  [[ -n "$extra" ]] && remember EXTRA_LIBRARY_PATH "$extra"
  figures "$count .debs by $UNPACKER; pkg-config: $([[ $pkg_config == $DEPS_PREFIX/* ]] && echo carried pkgconf || echo system); libraries load${extra:+ (with carried runtime libs)}"
}

step_configure() {
  export PKG_CONFIG PKG_CONFIG_SYSROOT_DIR=$DEPS_PREFIX
  export PKG_CONFIG_LIBDIR=$DEPS_PREFIX/usr/lib/x86_64-linux-gnu/pkgconfig:$DEPS_PREFIX/usr/share/pkgconfig
  # A build folder configured elsewhere (another generator, another prefix) starts over.
  if [[ -f "$BUILD_DIR/CMakeCache.txt" ]] && ! grep -q "^CMAKE_GENERATOR:INTERNAL=$GENERATOR\$" "$BUILD_DIR/CMakeCache.txt"; then
    rm -rf "$BUILD_DIR"
  fi
  # sm_90 only (90-real: no PTX), MPI off (one process drives the one GPU), everything found in
  # the unpacked prefix; the flags word-split on purpose.
  # shellcheck disable=SC2086
  cmake -S "$REPO" -B "$BUILD_DIR" -G "$GENERATOR" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$CXX_PATH" -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=90-real \
    -DCMAKE_PREFIX_PATH="$DEPS_PREFIX/usr" -DPIPECHECK_WITH_MPI=OFF $NCCL_FLAGS $CUBLAS_FLAGS \
    || fail_step "cmake failed: $(grep -m1 -A2 'CMake Error' "$WORK/logs/$STEP.log" | paste -sd' ' | cut -c1-140)"
  local cuda nccl
  cuda=$(grep -o 'pipecheck: CUDA [0-9.]*' "$WORK/logs/$STEP.log" | head -1 | awk '{print $3}')
  nccl=$(grep -q 'pipecheck: NCCL ' "$WORK/logs/$STEP.log" && echo yes || echo "no (comm/ skips)")
  cp "$BUILD_DIR/CMakeCache.txt" "$WORK/CMakeCache.txt"
  figures "CUDA ${cuda:-none} sm_90; NCCL $nccl; MPI off; deps from $DEPS_PREFIX"
}

step_build() {
  cmake --build "$BUILD_DIR" -j "$JOBS"
  local rc=$?
  local warnings; warnings=$(grep -c 'warning:' "$WORK/logs/$STEP.log")
  if ((rc != 0)); then
    fail_step "build failed: $(grep -m1 -E 'error:|FAILED:' "$WORK/logs/$STEP.log" | cut -c1-140)"
  fi
  # Every program must start here: its libraries found through the build's RUNPATH.
  local program unloadable=""
  for program in "$BIN"/*; do
    [[ -x "$program" && -f "$program" ]] || continue
    ldd "$program" 2>&1 | grep -q 'not found' && unloadable+="$(basename "$program") "
  done
  [[ -n "$unloadable" ]] && fail_step "built, but libraries not found for: $unloadable"
  figures "$(ls "$BIN" | wc -l) programs, $warnings warnings, $JOBS jobs"
}

step_tests() {
  # The quick run is a step of its own: ctest does not repeat it. GPU tests carry LABELS gpu and
  # RESOURCE_LOCK gpu (tests/CMakeLists.txt): ctest runs them one at a time beside the rest.
  local args=(--test-dir "$BUILD_DIR" -j "$JOBS" --output-on-failure -E '^smoke\.pipecheck_run$'
              --output-junit "$WORK/tests-junit.xml")
  local gpu_count; gpu_count=$(ctest --test-dir "$BUILD_DIR" -N -L gpu | awk '/Total Tests:/ {print $3}')
  local note="GPU tests: $gpu_count serialized"
  if [[ "$GPU" != yes ]]; then
    args+=(-LE gpu)
    note="GPU tests: no GPU ($gpu_count not run)"
  fi
  ctest "${args[@]}"
  local rc=$?
  cp "$BUILD_DIR/Testing/Temporary/LastTest.log" "$WORK/ctest-LastTest.log" 2>/dev/null
  local log="$WORK/logs/$STEP.log"
  local total failed skipped
  total=$(grep -o 'tests failed out of [0-9]*' "$log" | awk '{print $NF}')
  failed=$(grep -o '[0-9]* tests failed out of' "$log" | awk '{print $1}')
  skipped=$(grep -c '\*\*\*Skipped\|Not Run' "$log")
  local line="${total:-?} tests, ${failed:-?} failed, $skipped skipped; $note"
  if ((rc != 0)); then
    local names
    names=$(grep -E '\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception' "$log" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/' | paste -sd' ')
    # Once more, the failed ones alone: a test that passes then is named as passing only on the
    # rerun (a loaded or noisy machine), not hidden; one that fails again fails the step.
    echo "== rerunning the failed tests: $names"
    if ctest --test-dir "$BUILD_DIR" --rerun-failed --output-on-failure; then
      figures "$line; passed only on a rerun: $names"
      return 0
    fi
    fail_step "$line; failed twice: $names"
  fi
  figures "$line"
}

step_run_quick() {
  mkdir -p "$WORK/results"
  # The GPU stages (RUN_STAGES): storage, decode and hostmem are CPU work that would take ~1.5
  # of these minutes on 16 cores and tell nothing about the GPU; RUN_STAGES=all runs them too.
  local only=() stage
  [[ "${RUN_STAGES:-}" != all ]] && for stage in ${RUN_STAGES:-pcie memory compute}; do only+=(--only "$stage"); done
  # Exit 1 is a verdict that failed (the run itself went through); 2 and 3 are the run's own failures.
  "$BIN/pipecheck" run --quick --no-color --out "$WORK/results" --timeout 150 "${only[@]}"
  local rc=$?
  if python_ok; then
    figure_tool run "$WORK/results" >"$WORK/run-figures.txt" 2>>"$WORK/logs/$STEP.log"
    head -1 "$WORK/run-figures.txt" >"$WORK/figures/$STEP"
    tail -n +2 "$WORK/run-figures.txt" | block
  else
    figures "exit $rc (no python3 for figures: see results/)"
  fi
  ((rc <= 1)) || fail_step "pipecheck run exited $rc; $(head -1 "$WORK/figures/$STEP")"
}

# run --plan's GPU cases two ways: listed by the probes on this node, and planned from this node's
# inventory by the stage records (what the README's 8 x H200 plan rests on): the counts must agree.
step_plan() {
  "$BIN/pipecheck" inventory --json >"$WORK/plan-inventory.json" || fail_step "pipecheck inventory --json failed"
  "$BIN/pipecheck" run --plan --quick --only pcie --only memory --only compute --only comm \
    >"$WORK/plan-listed.txt" 2>>"$WORK/logs/$STEP.log" || fail_step "run --plan (listed) failed"
  "$BIN/pipecheck" run --plan --quick --only pcie --only memory --only compute --only comm \
    --plan-inventory "$WORK/plan-inventory.json" >"$WORK/plan-planned.txt" 2>>"$WORK/logs/$STEP.log" ||
    fail_step "run --plan --plan-inventory failed"
  cat "$WORK/plan-listed.txt" "$WORK/plan-planned.txt" | block
  local listed planned
  listed=$(awk '$1 ~ /^(pcie|memory|compute|comm)$/ {print $1 "=" $2}' "$WORK/plan-listed.txt" | paste -sd' ')
  planned=$(awk '$1 ~ /^(pcie|memory|compute|comm)$/ {print $1 "=" $2}' "$WORK/plan-planned.txt" | paste -sd' ')
  figures "cases listed: $listed; planned: $planned"
  [[ "$listed" == "$planned" ]] || fail_step "planned case counts differ from the probes' lists: listed $listed, planned $planned"
}

step_nccl_1gpu() {
  mkdir -p "$WORK/nccl"
  # Every collective on one rank with the data check (nccl-tests' -g 1): busbw is 0 by the
  # formula, algbw is the figure; NCCL's path and its check run on one GPU.
  "$BIN/pipecheck-comm" -g 1 -b 8 -e 256M -f 8 -n 10 -w 2 --benchmark_format=json \
    --benchmark_out="$WORK/nccl/nccl-1gpu.json" --benchmark_out_format=json >"$WORK/nccl/nccl-1gpu.stdout"
  local rc=$?
  grep -q '^skipped: ' "$WORK/logs/$STEP.log" && skip_step "$(grep -m1 '^skipped: ' "$WORK/logs/$STEP.log" | cut -c1-120)"
  python_ok && figure_tool nccl "$WORK/nccl/nccl-1gpu.json" >"$WORK/figures/$STEP" 2>>"$WORK/logs/$STEP.log"
  ((rc == 0)) || fail_step "pipecheck-comm -g 1 exited $rc: $(tail -1 "$WORK/logs/$STEP.log" | cut -c1-120)"
}

step_stress() {
  # Short: the burn's GEMM check, memory test and telemetry, not its endurance.
  "$BIN/pipecheck" stress --duration 15s --gpus 0 --plain --out "$WORK/stress"
  local rc=$?
  python_ok && figure_tool stress "$WORK/stress" >"$WORK/figures/$STEP" 2>>"$WORK/logs/$STEP.log"
  ((rc == 0)) || fail_step "pipecheck stress exited $rc: $(cat "$WORK/figures/$STEP" 2>/dev/null)"
}

step_compare() {
  mkdir -p "$WORK/compare"
  OUT="$WORK/compare" SHAPES=8192x8192x8192 DTYPES=bf16 REPS=3 bash "$REPO/scripts/compare/compare-gpu.sh" "$BIN" \
    | tee "$WORK/compare/table.txt"
  local rc=${PIPESTATUS[0]}
  # The side-by-side table, under the step table of summary.txt.
  awk '/^what / {on = 1} on && NF' "$WORK/compare/table.txt" | block
  ((rc == 0)) || fail_step "compare-gpu.sh exited $rc"
  local torch; torch=$(grep -m1 -E '^torch ' "$WORK/compare/table.txt" | cut -c1-60)
  [[ -n "$torch" ]] || torch="PyTorch not available: pipecheck figures only"
  figures "$torch; table below"
}

step_inject() {
  # The verifiers must catch what is planted: 5 results corrupted between compute and check in
  # the GPU burn and its memory test. Success here is the stress run FAILING (exit 1) with every
  # injected fault counted as a wrong result or a memory error.
  "$BIN/pipecheck" stress --duration 10s --gpus 0 --inject-faults 5 --plain --out "$WORK/stress-inject"
  local rc=$?
  local verdict
  verdict=$("${PYTHON:-python3}" - "$WORK/stress-inject/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
g = (d.get("gpus") or [{}])[0]
inj, wrong = g.get("injected_faults", 0), g.get("wrong_results", 0)
minj, merr = g.get("injected_memory_faults", 0), g.get("memory_errors", 0)
ok = inj > 0 and wrong >= inj and (minj == 0 or merr >= minj)
print(("caught" if ok else "MISSED") + f": GEMM {wrong} wrong of {inj} injected, memory {merr} errors of {minj} injected; verdict {d.get('verdict')}")
PY
)
  figures "exit $rc; $verdict"
  ((rc == 1)) || fail_step "stress --inject-faults 5 exited $rc, expected 1: $verdict"
  [[ "$verdict" == caught* ]] || fail_step "$verdict"
}

step_inventory() {
  # The inventory on a real GPU machine: CUDA and NVML facts, the GPU/NIC matrix beside
  # nvidia-smi topo -m, counts beside lscpu and lstopo.
  "$BIN/pipecheck" inventory >"$WORK/inventory.txt" || fail_step "pipecheck inventory exited $?"
  "$BIN/pipecheck" inventory --json >"$WORK/inventory.json" || fail_step "pipecheck inventory --json exited $?"
  nvidia-smi topo -m >"$WORK/nvidia-smi-topo.txt" 2>&1
  bash "$REPO/scripts/compare/compare-inventory.sh" "$BIN" >"$WORK/compare-inventory.txt" 2>&1
  local line
  line=$("${PYTHON:-python3}" - "$WORK/inventory.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
gpus = d.get("gpus", [])
g = gpus[0] if gpus else {}
link = g.get("pcie", {})
print(f"{len(gpus)} GPU(s); gpu0 {g.get('name', '?')} {g.get('pci_bdf', '?')} numa {g.get('numa_node')}"
      f" link gen{link.get('current_gen')}x{link.get('current_width')}; verdicts {len(d.get('verdicts', []))}")
PY
)
  figures "$line"
  grep -c "differs" "$WORK/compare-inventory.txt" | { read -r n; ((n == 0)) || echo "compare-inventory: $n differ"; } | block
}

step_watch() {
  # watch's NVML sampling over a real GPU job (an 8 s GEMM run): the GPU rows must fill.
  "$BIN/pipecheck" watch --quiet --no-baseline --interval 0.5s --out "$WORK/watch" -- \
    timeout 8 "$BIN/pipecheck-compute" --dtype bf16 --benchmark_min_time=30 >/dev/null
  local rc=$?
  local line
  line=$("${PYTHON:-python3}" - "$WORK/watch" <<'PY'
import csv, json, sys
folder = sys.argv[1]
rows = [r for r in csv.DictReader(open(folder + "/watch.csv")) if r.get("source") == "gpu"]
busy = [float(r["util_pct"]) for r in rows if r.get("util_pct") not in (None, "")]
head = (json.load(open(folder + "/watch.json")).get("verdict") or {}).get("rule", "?")
print(f"{'ok' if busy and max(busy) > 0 else 'EMPTY'}: {len(rows)} GPU samples, max util {max(busy) if busy else '-'}%; verdict {head}")
PY
)
  figures "exit $rc; $line"
  [[ "$line" == ok* ]] || fail_step "watch saw no GPU utilization: $line"
}

# ---------------------------------------------------------------------------------------------
# The driver: runs the steps, keeps summary.txt and the archive current in OUT.

STEP_ROWS="$WORK/steps.tsv"   # name status seconds load

# The commit checked: GPU_CHECK_COMMIT when given (the device machine's copy has no .git), else git's.
commit_text() {
  if [[ -n "${GPU_CHECK_COMMIT:-}" ]]; then echo "$GPU_CHECK_COMMIT"; return; fi
  local sha; sha=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null) || { echo "? (no git; set GPU_CHECK_COMMIT)"; return; }
  git -C "$REPO" diff --quiet HEAD 2>/dev/null && echo "$sha" || echo "$sha (modified)"
}

write_summary() {
  local now; now=$(date +%s)
  local used=$((now - START))
  {
    echo "pipecheck gpu-check  $(date -u '+%Y-%m-%d %H:%M UTC')  commit $(commit_text)"
    local gpu_text="" 
    [[ -f "$WORK/state.env" ]] && gpu_text=$(source "$WORK/state.env"; echo "${GPU_TEXT:-}")
    echo "GPU: ${gpu_text:-not checked yet}"
    echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); budget $((BUDGET * GPU_CHECK_TIME_SCALE)) s, used $used s; log folder in gpu-check.tar.gz"
    printf '%-11s %-12s %5s %5s  %s\n' step status secs load figures
    local name status secs load
    while IFS=$'\t' read -r name status secs load; do
      local fig=""; [[ -f "$WORK/figures/$name" ]] && fig=$(head -1 "$WORK/figures/$name")
      printf '%-11s %-12s %5s %5s  %s\n' "$name" "$status" "$secs" "$load" "$fig" | cut -c1-160
    done <"$STEP_ROWS"
    local b
    for b in "$WORK"/figures/*.block; do
      [[ -f "$b" ]] || continue
      echo "-- $(basename "$b" .block)"
      head -12 "$b"
    done
  } >"$OUT/.summary.txt.tmp" && mv -f "$OUT/.summary.txt.tmp" "$OUT/summary.txt"
  cp -f "$OUT/summary.txt" "$WORK/summary.txt"
}

write_archive() {
  # One archive of the whole folder; if it ever outgrew what comes back (16 MiB a file), the
  # largest files are left out and named.
  local tmp="$OUT/.gpu-check.tar.gz.tmp"
  tar -czf "$tmp" -C "$(dirname "$WORK")" "$(basename "$WORK")" 2>/dev/null
  if (($(stat -c %s "$tmp") > 15 * 1024 * 1024)); then
    find "$WORK" -type f -size +2M -printf '%P\n' >"$WORK/left-out-of-archive.txt"
    tar -czf "$tmp" -C "$(dirname "$WORK")" -X <(sed "s|^|$(basename "$WORK")/|" "$WORK/left-out-of-archive.txt") \
      "$(basename "$WORK")" 2>/dev/null
  fi
  mv -f "$tmp" "$OUT/gpu-check.tar.gz"
}

set_row() {  # NAME STATUS SECONDS LOAD: adds or replaces the step's row
  local tmp="$STEP_ROWS.tmp"
  awk -F'\t' -v n="$1" '$1 != n' "$STEP_ROWS" >"$tmp" 2>/dev/null
  printf '%s\t%s\t%s\t%s\n' "$@" >>"$tmp"
  # Keep the table in step order.
  local row name ordered=""
  for row in "${STEPS[@]}"; do
    read -r name _ <<<"$row"
    ordered+=$(awk -F'\t' -v n="$name" '$1 == n' "$tmp")$'\n'
  done
  printf '%s' "$ordered" | sed '/^$/d' >"$STEP_ROWS"
  rm -f "$tmp"
}

list_steps() {
  printf '%-11s %6s %9s  %-6s %s\n' step limit estimate needs "on failure"
  local row
  for row in "${STEPS[@]}"; do
    local name limit estimate needs fail
    read -r name limit estimate needs fail <<<"$row"
    printf '%-11s %5ss %8ss  %-6s %s\n' "$name" "$limit" "$estimate" "$needs" "$fail"
  done
  echo "budget ${BUDGET} s on 16 cores; time scale here x${GPU_CHECK_TIME_SCALE} ($JOBS cores)"
}

main() {
  case "${1:-}" in
    --list) list_steps; exit 0 ;;
    "") ;;
    *) echo "usage: bash scripts/gpu-check.sh [--list]   (steps: GPU_CHECK_STEPS=\"...\")" >&2; exit 2 ;;
  esac
  mkdir -p "$OUT" || { echo "gpu-check: cannot create OUT=$OUT" >&2; exit 2; }
  OUT=$(cd "$OUT" && pwd)
  if [[ -e "$WORK" && ! -f "$WORK/.pipecheck-gpu-check" ]]; then
    echo "gpu-check: $WORK exists and was not made by gpu-check: set GPU_CHECK_WORK" >&2
    exit 2
  fi
  rm -rf "$WORK"
  mkdir -p "$WORK/logs" "$WORK/figures"
  touch "$WORK/.pipecheck-gpu-check" "$WORK/state.env" "$STEP_ROWS"
  cd "$REPO" || exit 2
  START=$(date +%s)
  export START
  local scale=$GPU_CHECK_TIME_SCALE budget=$((BUDGET * GPU_CHECK_TIME_SCALE))
  say "OUT=$OUT, collecting in $WORK, budget $budget s (time scale x$scale, $JOBS cores)"

  local row name limit estimate needs fail
  for row in "${STEPS[@]}"; do
    read -r name limit estimate needs fail <<<"$row"
    set_row "$name" "-" "" ""
  done
  local stopped="" built=no overall=0 index=0
  for row in "${STEPS[@]}"; do
    read -r name limit estimate needs fail <<<"$row"
    index=$((index + 1))
    local reason=""
    # preflight and unpack always run: every later step reads what they found.
    if [[ -n "${GPU_CHECK_STEPS:-}" && " preflight unpack $GPU_CHECK_STEPS " != *" $name "* ]]; then
      reason="not selected"
    elif [[ -n "$stopped" ]]; then
      reason="not run"; echo "after $stopped failed" >"$WORK/figures/$name"
    elif [[ "$needs" != "-" && "$built" != yes && " ${GPU_CHECK_STEPS:-build} " == *" build "* ]]; then
      # (A selection without `build` reuses the build folder as it is.)
      reason="not run"; echo "no build" >"$WORK/figures/$name"
    elif [[ "$needs" == gpu ]] && [[ "$(source "$WORK/state.env"; echo "${GPU:-no}")" != yes ]]; then
      reason="no GPU"
    fi
    local elapsed=$(($(date +%s) - START))
    local left=$((budget - elapsed))
    if [[ -z "$reason" ]] && ((left < estimate * scale)); then
      reason="no time"; echo "needs ~$((estimate * scale)) s, $left s left of the budget" >"$WORK/figures/$name"
    fi
    if [[ -n "$reason" ]]; then
      set_row "$name" "$reason" "" ""
      say "$name: $reason"
      continue
    fi
    local limit_s=$((limit * scale))
    ((limit_s > left)) && limit_s=$left
    set_row "$name" "running" "" "$(load1)"
    write_summary
    local log="$WORK/logs/$name.log"
    local t0; t0=$(date +%s)
    # Its own process group under `timeout`: a hung probe and all it started end at the limit.
    timeout -k 10 "$limit_s" env STEP="$name" bash "$SELF" --step "$name" >"$log" 2>&1
    local rc=$?
    local secs=$(($(date +%s) - t0))
    local status
    case $rc in
      0) status=ok ;;
      99) status=skipped ;;
      124|137) status=TIMEOUT; echo "killed at its ${limit_s} s limit; last line: $(tail -1 "$log" | cut -c1-100)" >"$WORK/figures/$name" ;;
      *) status=FAILED ;;
    esac
    # A step killed by a signal, or ended by a command of its own, says how it ended.
    if [[ $status == FAILED && ! -s "$WORK/figures/$name" ]]; then
      echo "exit $rc; last line: $(tail -1 "$log" | cut -c1-100)" >"$WORK/figures/$name"
    fi
    [[ "$name" == build && $rc == 0 ]] && built=yes
    set_row "$name" "$status" "$secs" "$(load1)"
    say "$name: $status in ${secs} s: $(head -1 "$WORK/figures/$name" 2>/dev/null)"
    if [[ $status == FAILED || $status == TIMEOUT ]]; then
      overall=1
      if [[ "$fail" == stop ]]; then
        stopped=$name
        echo "---- last 40 lines of $name's log ----"
        tail -40 "$log"
        echo "----"
        tail -10 "$log" | cut -c1-150 >"$WORK/figures/$name.block"  # the log's tail in summary.txt too
      fi
    fi
    write_summary
    write_archive
  done
  write_summary
  write_archive
  echo
  cat "$OUT/summary.txt"
  exit $overall
}

if [[ "${1:-}" == --step ]]; then
  STEP=$2
  # shellcheck disable=SC1091
  source "$WORK/state.env"
  export PATH LD_LIBRARY_PATH="${EXTRA_LIBRARY_PATH:+$EXTRA_LIBRARY_PATH:}${LD_LIBRARY_PATH:-}"
  [[ -z "${LD_LIBRARY_PATH//:/}" ]] && unset LD_LIBRARY_PATH
  cd "$REPO" || exit 1
  echo "== $STEP  $(date -u '+%H:%M:%S')  load $(cut -d' ' -f1-3 /proc/loadavg)"
  # The CPU time the step's programs used (user, system): with the wall time, what another
  # machine's core count makes of it.
  trap 'echo "== $STEP cpu (shell, then its programs: user system):"; times' EXIT
  "step_$STEP"
  exit 0
fi
main "$@"
