#!/usr/bin/env bash
# Installs the Debian packages pipecheck needs (scripts/debian-packages.txt), only those that are
# missing. As root it runs apt-get; otherwise it prints the exact command to run.
#   scripts/install-deps.sh                        the `install` rows: what builds and runs the
#                                                  command and the probes (make bench, make quick)
#   scripts/install-deps.sh --with-tests           adds the `test` rows: GoogleTest and the tools
#                                                  the tests check against, Slurm and munge (which
#                                                  start services) among them (make test)
#   scripts/install-deps.sh --with-deb             adds the `deb` rows: dpkg-dev (make deb)
#   scripts/install-deps.sh --with-compare-tools   adds the `compare` rows: the public tools and
#                                                  loaders of scripts/compare/
#   --list                                         prints the packages it would consider, one a
#                                                  line, and installs nothing
set -euo pipefail
source "$(dirname "$0")/debian_packages.sh"

roles=(install) list=0
for arg in "$@"; do
  case "$arg" in
    --with-tests) roles+=(test) ;;
    --with-deb) roles+=(deb) ;;
    --with-compare-tools) roles+=(compare) ;;
    --with-mpi) ;;  # kept for older instructions: MPI is always installed
    --list) list=1 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

# A package in two roles (dpkg-dev: deb and test) is considered once.
mapfile -t packages < <(for role in "${roles[@]}"; do debian_packages "$role"; done | awk '!seen[$0]++')
if (( list )); then
  printf '%s\n' "${packages[@]}"
  exit 0
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
