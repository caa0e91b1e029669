#!/usr/bin/env bash
# Rehearses scripts/gpu-check.sh on a bare machine, without a GPU: a Debian 12 root made by
# debootstrap with only build-essential, cmake and ninja added, /usr/local/cuda bind-mounted
# read-only, dpkg and pkg-config then taken away (the GPU image may lack both), and a copy of
# the working tree as the device tool sends it (tracked and untracked-not-ignored files, plus
# the carried .devdeps). gpu-check.sh must get through preflight, the unpacking of .devdeps,
# configure, build and the CPU tests from that alone, and say "no GPU" for every GPU step.
#
# Usage, as root on Debian 12, after scripts/fetch-devdeps.sh:
#   scripts/rehearse-gpu-check.sh            prints the summary, the timings and PASS or FAIL
#   REHEARSAL_ROOT=/var/tmp/x   where the root lives (default /var/tmp/pipecheck-bare-root; made
#                               once and reused: delete it to start from nothing)
#   REHEARSAL_OUT=DIR           where gpu-check's OUT lands here (default ./rehearsal-out)
#   DEBIAN_MIRROR=URL           debootstrap's mirror (default http://deb.debian.org/debian)
#   REHEARSAL_REUSE_BUILD=1     keep the last rehearsal's build-gpu (as a warm GPU machine keeps
#                               ignored build outputs between calls): the build step is then
#                               incremental; by default every rehearsal builds from nothing
#   REHEARSAL_TIME_SCALE=N      gpu-check's GPU_CHECK_TIME_SCALE (default 16 / cores, times the
#                               load per core when this machine is shared: the rehearsal proves
#                               the steps work, the GPU machine's 16 cores give the real times)
# Exit: 0 PASS, 1 FAIL, 2 cannot rehearse here. Mounts are undone on every exit.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
ROOT=${REHEARSAL_ROOT:-/var/tmp/pipecheck-bare-root}
OUT_HERE=${REHEARSAL_OUT:-$repo/rehearsal-out}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
STAMP=$ROOT/.pipecheck-rehearsal-root
HIDDEN=/var/lib/pipecheck-rehearsal/hidden   # inside the root: dpkg and pkg-config while rehearsing

die() { echo "rehearse-gpu-check: $*" >&2; exit 2; }
say() { echo "rehearse-gpu-check: $*"; }

((EUID == 0)) || die "needs root (debootstrap, chroot, mount)"
have() { command -v "$1" >/dev/null 2>&1; }
have debootstrap || die "debootstrap not found: apt-get install debootstrap"
[[ -x /usr/local/cuda/bin/nvcc ]] || die "no CUDA toolkit at /usr/local/cuda to bind-mount"
compgen -G "$repo/.devdeps/*.deb" >/dev/null || die "no .devdeps/*.deb: run scripts/fetch-devdeps.sh first"

mounted=()
undo_mounts() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null
  done
  mounted=()
}
restore_hidden() {  # dpkg and pkg-config back where they were, so the root can be used again
  [[ -d "$ROOT$HIDDEN" ]] || return 0
  local f
  while IFS= read -r f; do
    [[ -e "$ROOT$HIDDEN$f" || -L "$ROOT$HIDDEN$f" ]] && mv -f "$ROOT$HIDDEN$f" "$ROOT$f"
  done < <(cd "$ROOT$HIDDEN" && find . ! -type d | sed 's|^\.||')
  rm -rf "$ROOT$HIDDEN"
}
cleanup() {
  undo_mounts
  restore_hidden
  if grep -q " $ROOT/" /proc/mounts; then
    echo "rehearse-gpu-check: still mounted under $ROOT:" >&2
    grep " $ROOT/" /proc/mounts >&2
  fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mount_into_root() {  # SOURCE TARGET-IN-ROOT [OPTIONS...]
  local source=$1 target=$ROOT$2
  shift 2
  mkdir -p "$target"
  mount "$@" "$source" "$target" || die "mount $source on $target failed"
  mounted+=("$target")
}
mount_system() {
  mount_into_root proc /proc -t proc
  mount_into_root /sys /sys --rbind
  mount --make-rslave "$ROOT/sys"
  mount_into_root /dev /dev --rbind
  mount --make-rslave "$ROOT/dev"
}

# 1. The bare root: minbase + build-essential, cmake, ninja. Nothing of pipecheck's.
prepare_root() {
  if [[ -f "$STAMP" ]]; then
    say "reusing the root at $ROOT ($(head -1 "$STAMP"))"
    return
  fi
  if [[ -e "$ROOT" ]] && [[ -n "$(ls -A "$ROOT" 2>/dev/null)" ]]; then
    die "$ROOT exists, is not empty and was not made by this script: set REHEARSAL_ROOT"
  fi
  local t0; t0=$(date +%s)
  say "debootstrap bookworm into $ROOT (minbase)"
  debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$repo/.rehearsal-debootstrap.log" 2>&1 ||
    { tail -5 "$repo/.rehearsal-debootstrap.log" >&2; die "debootstrap failed (log: .rehearsal-debootstrap.log)"; }
  mount_system
  say "apt-get install build-essential cmake ninja-build"
  chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends build-essential cmake ninja-build' \
    >"$repo/.rehearsal-apt.log" 2>&1 ||
    { tail -5 "$repo/.rehearsal-apt.log" >&2; die "apt-get in the root failed (log: .rehearsal-apt.log)"; }
  chroot "$ROOT" apt-get clean
  undo_mounts
  echo "debootstrap bookworm minbase + build-essential cmake ninja-build, $(date -u +%F), $(($(date +%s) - t0)) s" >"$STAMP"
  rm -f "$repo/.rehearsal-debootstrap.log" "$repo/.rehearsal-apt.log"
}

# 2. What the GPU image may lack: dpkg and pkg-config go out of sight (restored at the end).
hide_tools() {
  local f
  mkdir -p "$ROOT$HIDDEN"
  for f in /usr/bin/dpkg /usr/bin/dpkg-deb /usr/bin/dpkg-query /usr/bin/dpkg-split /usr/bin/dpkg-divert \
           /usr/bin/dpkg-trigger /usr/bin/dpkg-statoverride /usr/bin/dpkg-realpath /usr/bin/dpkg-maintscript-helper \
           /usr/bin/pkg-config /usr/bin/pkgconf /usr/bin/x86_64-linux-gnu-pkg-config /usr/bin/x86_64-linux-gnu-pkgconf; do
    [[ -e "$ROOT$f" || -L "$ROOT$f" ]] || continue
    mkdir -p "$(dirname "$ROOT$HIDDEN$f")"
    mv "$ROOT$f" "$ROOT$HIDDEN$f"
  done
  local left
  left=$(chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
         sh -c 'for t in dpkg dpkg-deb pkg-config pkgconf nvidia-smi python3; do command -v $t; done')
  [[ -z "$left" ]] || die "still in the root: $left"
}

# 3. The working tree as the device tool copies it, and the carried .devdeps.
copy_tree() {
  local target=$ROOT/work/pipecheck kept=$ROOT/work-build-gpu
  rm -rf "$kept"
  if [[ "${REHEARSAL_REUSE_BUILD:-0}" == 1 && -d "$target/build-gpu" ]]; then
    mv "$target/build-gpu" "$kept"
  fi
  rm -rf "$ROOT/work"
  mkdir -p "$target"
  [[ -d "$kept" ]] && mv "$kept" "$target/build-gpu" && say "reusing the last rehearsal's build-gpu"
  (cd "$repo" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) | tar -C "$target" -xf - ||
    die "copying the working tree failed"
  cp -r "$repo/.devdeps" "$target/.devdeps"
  say "copied $(du -sh "$target" | cut -f1) (working tree + .devdeps) into $target"
}

check_result() {  # OUT folder: what gpu-check must have returned
  local out=$1 problems=()
  local summary=$out/summary.txt
  [[ -f "$summary" ]] || { echo "no summary.txt"; return 1; }
  [[ -f "$out/gpu-check.tar.gz" ]] || problems+=("no gpu-check.tar.gz")
  local step
  for step in preflight unpack configure build tests; do
    grep -qE "^$step +ok " "$summary" || problems+=("$step is not ok")
  done
  grep -q "GPU tests: no GPU" "$summary" || problems+=("the tests line does not say the GPU tests did not run")
  for step in run_quick nccl_1gpu stress compare; do
    grep -qE "^$step +no GPU" "$summary" || problems+=("$step does not say no GPU")
  done
  # What comes back from the device machine: at most 8 files, 16 MiB each, 2 folders down, plain names.
  local files; files=$(find "$out" -type f | wc -l)
  ((files <= 8)) || problems+=("$files files in OUT (at most 8 come back)")
  local f
  while IFS= read -r f; do
    local rel=${f#"$out"/}
    [[ "$rel" =~ ^[A-Za-z0-9._/-]+$ ]] || problems+=("odd name: $rel")
    (($(stat -c %s "$f") <= 16 * 1024 * 1024)) || problems+=("$rel over 16 MiB")
    (($(tr -cd / <<<"$rel" | wc -c) <= 2)) || problems+=("$rel more than 2 folders down")
  done < <(find "$out" -type f)
  local listing; listing=$(tar -tzf "$out/gpu-check.tar.gz")
  grep -q 'logs/build.log' <<<"$listing" || problems+=("the archive lacks logs/build.log")
  if ((${#problems[@]})); then
    printf '  %s\n' "${problems[@]}"
    return 1
  fi
}

prepare_root
copy_tree
hide_tools
mount_system
mount_into_root /usr/local/cuda /usr/local/cuda --bind
mount -o remount,bind,ro "$ROOT/usr/local/cuda" || die "could not make /usr/local/cuda read-only in the root"

cores=$(nproc)
load_per_core=$(awk -v c="$cores" '{ l = $1 / c; print (l > 1 ? int(l + 0.999) : 1) }' /proc/loadavg)
scale=${REHEARSAL_TIME_SCALE:-$(( (16 + cores - 1) / cores * load_per_core ))}
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null)$(git -C "$repo" diff --quiet HEAD 2>/dev/null || echo "+modified")
say "running scripts/gpu-check.sh in the root ($cores cores, load $(cut -d' ' -f1-3 /proc/loadavg), time scale x$scale)"
t0=$(date +%s)
chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin OUT=/work/out \
  GPU_CHECK_TIME_SCALE="$scale" GPU_CHECK_COMMIT="$commit" \
  bash -c 'cd /work/pipecheck && bash scripts/gpu-check.sh'
rc=$?
seconds=$(($(date +%s) - t0))

rm -rf "$OUT_HERE"
mkdir -p "$OUT_HERE"
cp -r "$ROOT/work/out/." "$OUT_HERE/"
say "gpu-check exited $rc after $seconds s; its OUT is in $OUT_HERE"
if verdict=$(check_result "$OUT_HERE"); then
  say "PASS: preflight, unpack, configure, build and CPU tests ok from .devdeps alone; GPU steps say no GPU"
  exit 0
fi
say "FAIL:"
echo "$verdict"
exit 1
