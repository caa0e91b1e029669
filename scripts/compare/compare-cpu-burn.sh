#!/usr/bin/env bash
# The CPU burn beside OpenBLAS on all cores: `pipecheck stress --cpu --duration S` (FP64, then
# --cpu-dtype fp32) against DGEMM and SGEMM (Debian's libopenblas, through a tiny C program
# built here), in interleaved rounds so that drift in the machine's load hits both alike.
# Prints each figure's median with min and max, the ratios, the burn's ceiling (or why there is
# none, and the sanity bound it is held against then) and the load before each measurement.
#
# usage: scripts/compare/compare-cpu-burn.sh [BIN_DIR]
#   BIN_DIR   where pipecheck is (default: build/bin)
#   ROUNDS=3 SECONDS_PER_RUN=10 N=3072 THREADS=$(nproc)   (environment)
# Needs libopenblas-dev (cblas.h, libopenblas.so) and a C compiler; as root it installs the
# package, otherwise it says the command to run.
set -euo pipefail

bin_dir=${1:-build/bin}
pipecheck="$bin_dir/pipecheck"
rounds=${ROUNDS:-3}
seconds=${SECONDS_PER_RUN:-10}
n=${N:-3072}
threads=${THREADS:-$(nproc)}

[[ -x "$pipecheck" ]] || { echo "compare-cpu-burn: $pipecheck not found (build first, or pass BIN_DIR)" >&2; exit 2; }
missing=()
for package in libopenblas-dev jq gcc; do
  [[ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)" == "install ok installed" ]] || missing+=("$package")
done
if (( ${#missing[@]} )); then
  if (( EUID == 0 )) && command -v apt-get >/dev/null; then
    echo "compare-cpu-burn: installing ${missing[*]} (OpenBLAS is the reference GEMM)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "compare-cpu-burn: missing ${missing[*]}; run as root: apt-get install ${missing[*]}" >&2
    exit 3
  fi
fi
cc=$(command -v gcc)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# GFLOP/s of back-to-back n x n x n GEMMs for `seconds`, after one untimed call.
cat >"$work/gemm.c" <<'C'
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  const int dp = strcmp(argv[1], "d") == 0;
  const int n = atoi(argv[2]);
  const double seconds = atof(argv[3]);
  const size_t count = (size_t)n * n, size = dp ? sizeof(double) : sizeof(float);
  void *a = malloc(count * size), *b = malloc(count * size), *c = malloc(count * size);
  srand(1);
  for (size_t i = 0; i < count; ++i) {
    const double x = rand() / (double)RAND_MAX - 0.5, y = rand() / (double)RAND_MAX - 0.5;
    if (dp) { ((double*)a)[i] = x; ((double*)b)[i] = y; } else { ((float*)a)[i] = x; ((float*)b)[i] = y; }
  }
  long calls = -1;  /* the first call is warm-up */
  double start = 0, end = 0;
  do {
    if (calls == 0) start = now();
    if (dp) {
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
    } else {
      cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    }
    ++calls;
    end = now();
  } while (calls < 1 || end - start < seconds);
  printf("%.2f\n", 2.0 * n * (double)n * n * calls / (end - start) / 1e9);
  return 0;
}
C
"$cc" -O2 -I/usr/include/x86_64-linux-gnu/openblas-pthread -o "$work/gemm" "$work/gemm.c" -lopenblas

# The core clock while every CPU runs a chain of dependent adds (one a cycle), from CPU time:
# the clock the FLOP/cycle of the burn is taken at where cpufreq does not say the maximum.
cat >"$work/clock.c" <<'C'
#include <stdio.h>
#include <time.h>

int main(void) {
  struct timespec a, b;
  unsigned long x = 0;
  const unsigned long rounds = 20000000;  /* x 100 adds: about a second */
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  for (unsigned long i = 0; i < rounds; ++i) __asm__ volatile(".rept 100\n\tadd $1, %0\n\t.endr" : "+r"(x));
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  printf("%.3f\n", rounds * 100.0 / ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9) / 1e9);
  return x == 0;
}
C
clock_ghz=
if [[ "$(uname -m)" == x86_64 ]]; then
  "$cc" -O2 -o "$work/clock" "$work/clock.c"
  for ((t = 0; t < threads; t++)); do "$work/clock" >"$work/ghz.$t" & done
  wait
  clock_ghz=$(cat "$work"/ghz.* | awk '{ s += $1 } END { printf "%.2f", s / NR }')
fi

# FLOP/cycle of one core for each variant this CPU runs: the kernel timed in CPU time beside
# the dependent-add clock, linked from the build's library (median [min, max] of 5; skipped
# without it).
flop_per_cycle() {
  local library="$bin_dir/../libpipecheck_host.a" root
  root=$(cd "$(dirname "$0")/../.." && pwd)
  [[ -f $library && $(uname -m) == x86_64 ]] || return 0
  cat >"$work/fpc.cpp" <<'CPP'
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>
#include "stress/cpu_burn_isa.hpp"
using namespace pipecheck;
static double cpu_s() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double clock_ghz() {
  unsigned long x = 0; const unsigned long rounds = 20000000; const double a = cpu_s();
  for (unsigned long i = 0; i < rounds; ++i) __asm__ volatile(".rept 100\n\tadd $1, %0\n\t.endr" : "+r"(x));
  return rounds * 100.0 / (cpu_s() - a) / 1e9;
}
int main() {
  for (const CpuBurnKernel* k : built_cpu_burn_kernels()) {
    if (!cpu_runs(*k)) continue;
    for (CpuPrecision p : {CpuPrecision::fp64, CpuPrecision::fp32}) {
      const int lanes = k->lanes(p), w = k->width(p);
      const unsigned long n = 20000000;
      std::vector<double> fpc;
      for (int rep = 0; rep < 5; ++rep) {
        const double before = clock_ghz(), t0 = cpu_s();
        if (p == CpuPrecision::fp64) {
          std::vector<double> x(lanes, 1.0), a(w, 0.999999), b(w, 1e-6);
          k->run_fp64(x.data(), a.data(), b.data(), n);
        } else {
          std::vector<float> x(lanes, 1.0f), a(w, 0.9999f), b(w, 1e-4f);
          k->run_fp32(x.data(), a.data(), b.data(), n);
        }
        const double t = cpu_s() - t0, after = clock_ghz();
        // The higher of the clocks around it: a preempted clock chain must not inflate the figure.
        fpc.push_back(2.0 * lanes * n / t / (std::max(before, after) * 1e9));
      }
      std::sort(fpc.begin(), fpc.end());
      std::printf("  %-6s %s: %.2f [%.2f, %.2f] FLOP/cycle a core\n", k->isa, to_string(p), fpc[2], fpc[0], fpc[4]);
    }
  }
}
CPP
  if g++ -O2 -std=c++20 -I"$root" -o "$work/fpc" "$work/fpc.cpp" "$library" -lpthread 2>"$work/fpc.log"; then
    echo "one core, kernel alone (CPU time at the dependent-add clock, median [min, max] of 5):"
    "$work/fpc"
  fi
}

run_gemm() { OPENBLAS_NUM_THREADS=$threads "$work/gemm" "$1" "$n" "$seconds"; }
# One burn of round $2 into its own folder (--out is never reused, so no round reads another's
# summary.json); a burn that fails or leaves no sustained rate stops the script, loudly.
run_burn() {  # dtype round
  local out="$work/burn-$1-$2" status=0
  "$pipecheck" stress --cpu --cpu-threads "$threads" --cpu-dtype "$1" --duration "$seconds" --plain \
    --out "$out" >"$out.log" 2>&1 || status=$?
  if (( status != 0 )); then
    echo "compare-cpu-burn: round $2: pipecheck stress --cpu-dtype $1 failed (exit $status); its output:" >&2
    cat "$out.log" >&2
    exit 1
  fi
  last_summary[$1]="$out/summary.json"
}
burn_gflops() {  # dtype round: the sustained GFLOP/s that round's burn wrote
  jq -er '.cpu.sustained_gflops | numbers | . * 100 | round / 100' "$work/burn-$1-$2/summary.json" || {
    echo "compare-cpu-burn: round $2: $work/burn-$1-$2/summary.json has no sustained rate" >&2
    exit 1
  }
}
load() { cut -d' ' -f1 /proc/loadavg; }

stats() {  # median min max of the arguments
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f %.2f %.2f", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

burn64=() dgemm=() burn32=() sgemm=() ratio64=() ratio32=() loads=()
declare -A last_summary
for ((i = 1; i <= rounds; i++)); do
  loads+=("$(load)"); run_burn fp64 "$i"; burn64+=("$(burn_gflops fp64 "$i")")
  loads+=("$(load)"); dgemm+=("$(run_gemm d)")
  loads+=("$(load)"); sgemm+=("$(run_gemm s)")
  loads+=("$(load)"); run_burn fp32 "$i"; burn32+=("$(burn_gflops fp32 "$i")")
  ratio64+=("$(awk -v a="${burn64[-1]}" -v b="${dgemm[-1]}" 'BEGIN { printf "%.3f", a / b }')")
  ratio32+=("$(awk -v a="${burn32[-1]}" -v b="${sgemm[-1]}" 'BEGIN { printf "%.3f", a / b }')")
  echo "round $i: burn fp64 ${burn64[-1]}, DGEMM ${dgemm[-1]}, SGEMM ${sgemm[-1]}, burn fp32 ${burn32[-1]} GFLOP/s" \
       "(ratios ${ratio64[-1]}, ${ratio32[-1]}; load ${loads[*]: -4})"
done

line() {  # name values...
  local name=$1; shift
  read -r med min max <<<"$(stats "$@")"
  printf '%-28s median %8s  (min %s, max %s)\n' "$name" "$med" "$min" "$max"
}
echo
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs," \
     "$threads threads, $seconds s a run, $rounds rounds, GEMM n=$n"
echo "burn: $(jq -r '.cpu | "\(.isa) (\(.vector_bits)-bit vectors, fused \(.fused))"' "${last_summary[fp64]}")"
line "pipecheck burn fp64 GFLOP/s" "${burn64[@]}"
line "OpenBLAS DGEMM GFLOP/s" "${dgemm[@]}"
line "ratio burn/DGEMM" "${ratio64[@]}"
line "pipecheck burn fp32 GFLOP/s" "${burn32[@]}"
line "OpenBLAS SGEMM GFLOP/s" "${sgemm[@]}"
line "ratio burn/SGEMM" "${ratio32[@]}"
line "load (1 min) before each run" "${loads[@]}"
[[ -z $clock_ghz ]] || echo "core clock $clock_ghz GHz (dependent adds on every CPU at once, in CPU time)"
flop_per_cycle
for dtype in fp64 fp32; do
  jq -r --arg d "$dtype" '.cpu | "\($d) " + (if .ceiling then "ceiling: \(.ceiling.derivation)"
      else "ceiling unknown: \(.ceiling_unknown); held against the sanity bound \(.sanity_bound.derivation)" end)
      + "; last run at \(.percent_of_ceiling // 0 | . * 10 | round / 10)% of it, verdict \(.verdict)"' \
    "${last_summary[$dtype]}"
done
