#!/usr/bin/env bash
# Installs the Debian packages pipecheck builds against (and the Python loaders of
# scripts/plant-scenarios.sh use), only those that are missing.
# As root it runs apt-get; otherwise it prints the exact command to run.
set -euo pipefail

packages=(
  cmake ninja-build g++ make pkg-config
  liburing-dev libcli11-dev libbenchmark-dev libgtest-dev libgmock-dev
  libturbojpeg0-dev nlohmann-json3-dev libhwloc-dev
  # The tests check the reports with their consumers' own tools: xmllint (JUnit against the
  # junit-10 rules), the Prometheus client library's parser, Google Benchmark's compare.py (which
  # needs scipy), all through Debian's /usr/bin/python3.
  libxml2-utils python3-prometheus-client libbenchmark-tools python3-scipy
  # Tested against the real thing (issue 19): a single-node Slurm with munge started by the tests,
  # Open MPI's mpirun (and pipecheck-nccl built with MPI), dpkg-shlibdeps for `make deb`.
  slurm-wlm munge openmpi-bin libopenmpi-dev dpkg-dev
  # scripts/plant-scenarios.sh plants bottlenecks with ordinary Pillow + numpy loaders.
  python3-pil python3-numpy
)
# Kept for older instructions: MPI is now always installed.
if [[ "${1:-}" == "--with-mpi" ]]; then :; fi
# The public tools the scripts/compare-*.sh run beside the probes: --with-compare-tools.
if [[ " $* " == *" --with-compare-tools "* ]]; then
  packages+=(fio sysstat libjpeg-turbo-progs)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if (( ${#missing[@]} == 0 )); then
  echo "install-deps: all packages present"
  exit 0
fi

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if (( EUID != 0 )); then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root: apt-get update && $cmd" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd
