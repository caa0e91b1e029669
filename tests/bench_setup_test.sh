#!/usr/bin/env bash
# `make bench` sets up only what the command and the probes need (issue 26): its package set
# holds no test tool and nothing that starts a service (Slurm, munge, Chromium), and its build
# has no test binary; `make test` adds both. Switching one build folder between the two works.
# Usage: bench_setup_test.sh SOURCE_DIR [CMAKE_PREFIX_PATH]   (the build's own, where the
# libraries come from a prefix, as on the GPU machine: scripts/gpu-check.sh)
set -uo pipefail
src=${1:?usage: bench_setup_test.sh SOURCE_DIR [CMAKE_PREFIX_PATH]}
prefix=${2:-}
cd "$src" || exit 1
fail() { echo "FAILED: $*"; exit 1; }
for tool in make cmake ninja; do
  command -v "$tool" >/dev/null || { echo "SKIPPED: $tool not installed"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The package sets, as install-deps.sh would consider them (it installs nothing with --list).
bench=$(scripts/install-deps.sh --list) || fail "scripts/install-deps.sh --list exited $?"
tests=$(scripts/install-deps.sh --list --with-tests) || fail "scripts/install-deps.sh --list --with-tests exited $?"
[[ -n "$bench" ]] || fail "the bench set is empty"
for p in slurm-wlm munge chromium libgtest-dev libgmock-dev; do
  grep -qx -- "$p" <<<"$bench" && fail "the bench set (install-deps.sh --list) holds $p"
  grep -qx -- "$p" <<<"$tests" || fail "the test set (install-deps.sh --list --with-tests) lacks $p"
done
for p in cmake g++ libbenchmark-dev liburing-dev; do
  grep -qx -- "$p" <<<"$bench" || fail "the bench set lacks $p"
done
missing=$(comm -23 <(sort -u <<<"$bench") <(sort -u <<<"$tests"))
[[ -z "$missing" ]] || fail "the test set lacks bench packages: $missing"
echo "ok: bench set $(wc -l <<<"$bench") packages, test set $(wc -l <<<"$tests"); no slurm-wlm, munge, chromium, GoogleTest in the bench set"

# What make would run, without running it (-n): the set-up and configure lines of each target.
# CUDA and MPI are left out of the scratch configures: they have no part in the tests option, and
# configure faster without (CMAKE_FLAGS is the Makefile's own pass-through).
make_lines() {  # TARGET
  make -n "$1" BUILD_DIR="$work/build" CMAKE_FLAGS="-DPIPECHECK_WITH_CUDA=OFF -DPIPECHECK_WITH_MPI=OFF" 2>&1
}
bench_lines=$(make_lines bench) || fail "make -n bench failed: $bench_lines"
test_lines=$(make_lines test) || fail "make -n test failed: $test_lines"
grep -q 'install-deps.sh' <<<"$bench_lines" || fail "make bench does not call install-deps.sh"
grep 'install-deps.sh' <<<"$bench_lines" | grep -q -- '--with-tests' && fail "make bench installs the test packages"
grep 'install-deps.sh' <<<"$test_lines" | grep -q -- '--with-tests' || fail "make test does not install the test packages"
grep -q -- '-DPIPECHECK_BUILD_TESTS=OFF' <<<"$bench_lines" || fail "make bench does not configure with the tests off"
grep -q -- '-DPIPECHECK_BUILD_TESTS=ON' <<<"$test_lines" || fail "make test does not configure with the tests on"
grep -q 'ctest' <<<"$bench_lines" && fail "make bench runs ctest"
echo "ok: make -n bench configures with the tests off and installs no test package; make -n test adds both"

# The configure lines themselves, run in one scratch build folder: bench, test, bench again. The
# build graph must have the test binary exactly when the tests are on. The bench configures run
# as on a node without GoogleTest (CMAKE_DISABLE_FIND_PACKAGE_GTest): they must not need it.
configure_line() { grep -m1 '^cmake -S ' <<<"$1" | sed 's/ *>.*$//'; }
has_test_target() { ninja -C "$work/build" -t targets all 2>/dev/null | grep -q '^pipecheck_tests:'; }
step() {  # NAME LINES EXPECT(yes|no) EXTRA_CMAKE_FLAG
  local line; line=$(configure_line "$2")
  [[ -n "$line" ]] || fail "no cmake configure line in make -n $1"
  line+=" $4${prefix:+ -DCMAKE_PREFIX_PATH=\"$prefix\"}"
  eval "$line" >"$work/configure-$1.log" 2>&1 || { tail -20 "$work/configure-$1.log"; fail "configure of make $1 failed"; }
  if has_test_target; then [[ $3 == yes ]] || fail "make $1's build has a pipecheck_tests target"
  else [[ $3 == no ]] || fail "make $1's build has no pipecheck_tests target"; fi
  echo "ok: configured as make $1: pipecheck_tests target: $3"
}
step bench "$bench_lines" no -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
step test "$test_lines" yes -DCMAKE_DISABLE_FIND_PACKAGE_GTest=OFF
step bench "$bench_lines" no -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
echo "PASSED"
