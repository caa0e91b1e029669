# shellcheck shell=bash
# Sourced by scripts/install-deps.sh and scripts/fetch-devdeps.sh: the package names of one role
# from scripts/debian-packages.txt, one a line.
debian_packages() {  # ROLE
  awk -v role="$1" '{ sub(/#.*/, "") } NF { for (i = 2; i <= NF; ++i) if ($i == role) { print $1; break } }' \
    "$(dirname "${BASH_SOURCE[0]}")/debian-packages.txt"
}
