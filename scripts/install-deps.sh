#!/usr/bin/env bash
# Installs the Debian packages pipecheck builds against (the `install` rows of
# scripts/debian-packages.txt), only those that are missing. As root it runs apt-get; otherwise
# it prints the exact command to run.
set -euo pipefail
source "$(dirname "$0")/debian_packages.sh"

mapfile -t packages < <(debian_packages install)
# Kept for older instructions: MPI is now always installed.
if [[ " $* " == *" --with-mpi "* ]]; then :; fi
# The public tools the scripts/compare/compare-*.sh run beside the probes: --with-compare-tools.
if [[ " $* " == *" --with-compare-tools "* ]]; then
  mapfile -t -O "${#packages[@]}" packages < <(debian_packages compare)
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
