#!/usr/bin/env bash
# Downloads (apt-get download) every Debian 12 package the build needs that the GPU machine's bare
# CUDA image lacks, pkgconf included: the `carry` rows of scripts/debian-packages.txt, into
# .devdeps/ (git-ignored), with a MANIFEST (package, version, bytes, sha256). Then checks that the
# working tree plus .devdeps fits what travels to the GPU machine (64 MiB in all) and prints it.
# Usage, here on Debian 12 (no root needed; run `apt-get update` first if apt says so):
#   scripts/fetch-devdeps.sh [DIR]          DIR defaults to .devdeps at the repository root
# Exit: 0 fetched and fits; 1 apt-get failed or the total is too large.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/debian_packages.sh"
dir=${1:-$root/.devdeps}
limit=$((64 << 20))  # the device tool's limit on the working tree that travels, carried paths included

mapfile -t packages < <(debian_packages carry)
command -v apt-get >/dev/null || { echo "fetch-devdeps: apt-get not found: run this on Debian 12" >&2; exit 1; }

# Into a fresh folder first, so a failed download leaves the previous set whole.
mkdir -p "$dir"
staging=$(mktemp -d "$dir/.fetch.XXXXXX")
trap 'rm -rf "$staging"' EXIT
if ! (cd "$staging" && apt-get download "${packages[@]}" >"$staging/apt.log" 2>&1); then
  echo "fetch-devdeps: apt-get download failed ($(grep -m1 -E '^E:' "$staging/apt.log" || tail -1 "$staging/apt.log"))" >&2
  echo "fetch-devdeps: as root, 'apt-get update' refreshes the package lists" >&2
  exit 1
fi
for p in "${packages[@]}"; do
  compgen -G "$staging/${p}_*.deb" >/dev/null || { echo "fetch-devdeps: $p: no .deb downloaded" >&2; exit 1; }
done
rm -f "$dir"/*.deb "$dir/MANIFEST"
mv "$staging"/*.deb "$dir/"

{
  echo "# package version bytes sha256 (scripts/fetch-devdeps.sh, $(date -u +%Y-%m-%dT%H:%MZ))"
  for f in "$dir"/*.deb; do
    name=$(basename "$f" .deb)
    IFS=_ read -r package version _ <<<"$name"
    echo "$package ${version//%3a/:} $(stat -c %s "$f") $(sha256sum "$f" | cut -d' ' -f1)"
  done
} >"$dir/MANIFEST"

# What travels: tracked and untracked-not-ignored files of the working tree, plus the carried folder.
debs=$(du -cb "$dir"/*.deb "$dir/MANIFEST" | tail -1 | cut -f1)
tree=0
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  tree=$(cd "$root" && git ls-files -z -co --exclude-standard | xargs -0 -r stat -c %s -- 2>/dev/null |
         awk '{s += $1} END {print s + 0}')
fi
total=$((debs + tree))
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
echo "fetch-devdeps: ${#packages[@]} packages, $(mib "$debs") in $dir"
echo "fetch-devdeps: working tree $(mib "$tree") + devdeps = $(mib "$total") of the $(mib "$limit") that can travel"
if (( total > limit )); then
  echo "fetch-devdeps: too large to travel: ignore or carry less" >&2
  exit 1
fi
