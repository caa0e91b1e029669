#!/usr/bin/env bash
# The .deb (`make deb`): built by CPack from this build, named pipecheck_<version>_<arch>.deb,
# holding the command, the probes, the GPU burn module and the README, with its Debian
# dependencies declared; installed into scratch roots (dpkg -x, dpkg --root) where
# `pipecheck --version` runs. Then the light command: it links no CUDA, NCCL or MPI library and
# runs (--version, inventory, check --fast, run) with LD_LIBRARY_PATH cleared and /usr/local/cuda
# and NCCL hidden in a mount namespace, where the GPU probes are skipped naming what to install.
# Usage: tests/package_test.sh BUILD_DIR VERSION
set -uo pipefail

build=$(readlink -f "${1:?build folder}")
version=${2:?version}
fail() { echo "FAILED: $*" >&2; exit 1; }
skip() { echo "SKIPPED: $*"; exit 77; }
command -v cpack >/dev/null || skip "cpack not found"
command -v dpkg-deb >/dev/null || skip "dpkg-deb not found (not a Debian system)"
work=$(mktemp -d /tmp/pipecheck-deb-XXXXXX)
trap 'rm -rf "$work"' EXIT

arch=$(dpkg --print-architecture)
deb="$work/pipecheck_${version}_${arch}.deb"
(cd "$build" && timeout 300 cpack -G DEB -B "$work" >"$work/cpack.log" 2>&1) || { tail -n 20 "$work/cpack.log"; fail "cpack -G DEB"; }
[[ -f "$deb" ]] || fail "no $deb (cpack made: $(ls "$work"))"
# No maintainer scripts: nothing runs as root at install (no ldconfig: the module is private).
scripts=$(dpkg-deb -e "$deb" "$work/control" && ls "$work/control" | grep -E '^(pre|post)(inst|rm)$' || true)
[[ -z "$scripts" ]] || fail "the package has maintainer scripts: $scripts"
echo "built $(basename "$deb") ($(du -h "$deb" | cut -f1))"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for needed in libc6 libstdc++6; do [[ "$depends" == *"$needed"* ]] || fail "Depends lacks $needed"; done
for never in libcublas libnccl libcudart; do [[ "$depends" != *"$never"* ]] || fail "Depends names $never (not a Debian package)"; done
contents=$(dpkg-deb -c "$deb")
for path in ./usr/bin/pipecheck ./usr/lib/pipecheck/pipecheck ./usr/lib/pipecheck/pipecheck-hostmem \
            ./usr/lib/pipecheck/pipecheck-storage ./usr/share/doc/pipecheck/README.md \
            ./usr/share/doc/pipecheck/docs/commands.md ./usr/lib/pipecheck/pipecheck-comm \
            ./usr/share/doc/pipecheck/examples/fleet-run.sh; do
  grep -q " $path\( \|$\)" <<<"$contents" || fail "the package lacks $path"
done
if [[ -x "$build/bin/pipecheck-compute" ]]; then
  grep -q ' ./usr/lib/pipecheck/pipecheck-compute$' <<<"$contents" || fail "the package lacks the GPU probes"
  grep -q ' ./usr/lib/pipecheck/modules/pipecheck-gpu-burn.so$' <<<"$contents" || fail "the package lacks the GPU burn module"
fi

# The probes' names before stage, folder and executable shared one name: links, for a release.
for old in nccl:comm jpeg:decode; do
  grep -q " ./usr/lib/pipecheck/pipecheck-${old%%:*} -> pipecheck-${old##*:}$" <<<"$contents" ||
    fail "the package lacks the pipecheck-${old%%:*} link"
done
if [[ -x "$build/bin/pipecheck-compute" ]]; then
  for old in hbm:memory gemm:compute; do
    grep -q " ./usr/lib/pipecheck/pipecheck-${old%%:*} -> pipecheck-${old##*:}$" <<<"$contents" ||
      fail "the package lacks the pipecheck-${old%%:*} link"
  done
fi

# dpkg -x: the files alone.
dpkg -x "$deb" "$work/x" || fail "dpkg -x"
out=$("$work/x/usr/bin/pipecheck" --version) || fail "pipecheck --version from dpkg -x: exit $?"
[[ "$out" == "pipecheck $version" ]] || fail "--version printed '$out'"
echo "dpkg -x: $out"

# dpkg --root: installed as dpkg installs it, into an empty root of its own.
root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-not-root --log=/dev/null -i "$deb" >"$work/dpkg.log" 2>&1 ||
  { cat "$work/dpkg.log"; fail "dpkg --root -i"; }
grep -q '^Status: install ok installed' "$root/var/lib/dpkg/status" || fail "dpkg does not list pipecheck as installed"
out=$("$root/usr/bin/pipecheck" --version) || fail "pipecheck --version from dpkg --root: exit $?"
[[ "$out" == "pipecheck $version" ]] || fail "--version printed '$out'"
echo "dpkg --root: $out"

# The command links none of CUDA's, NCCL's or MPI's libraries.
linked=$(ldd "$root/usr/lib/pipecheck/pipecheck")
if grep -Ei 'cuda|cublas|nccl|mpi' <<<"$linked"; then fail "the command links a GPU or MPI library"; fi
echo "the command links: $(awk '{print $1}' <<<"$linked" | tr '\n' ' ')"

# On a node without CUDA's libraries: hidden in a mount namespace of our own.
if ! unshare -m true 2>/dev/null; then
  echo "SKIPPED part: no mount namespace here (unshare -m needs root)"
  echo "PASSED: package"
  exit 0
fi
cat >"$work/hidden.sh" <<'HIDDEN'
set -u
root=$1 work=$2
[[ -d /usr/local/cuda ]] && mount -t tmpfs none "$(readlink -f /usr/local/cuda)"
for lib in /usr/lib/*-linux-gnu/libnccl* /usr/lib/*-linux-gnu/libcublas* /usr/lib/*-linux-gnu/libcudart*; do
  [[ -e "$lib" ]] && mount --bind /dev/null "$lib"
done
unset LD_LIBRARY_PATH
pc="$root/usr/bin/pipecheck"
"$pc" --version || exit 10
"$pc" inventory >"$work/inventory.txt" || exit 11
"$pc" check --fast >"$work/check.txt" 2>&1 || exit 12
"$pc" run --quick --only hostmem,compute,comm --out "$work/results" --no-color >"$work/run.txt" 2>&1
rc=$?; [[ $rc -le 1 ]] || exit 13
exit 0
HIDDEN
unshare -m bash "$work/hidden.sh" "$root" "$work" || fail "without CUDA's libraries the command failed (step $?): $(cat "$work"/*.txt 2>/dev/null | tail -n 20)"
report=$(ls "$work"/results/*/report.json)
python3 - "$report" "$build" <<'PY' || fail "the probes' outcomes without CUDA's libraries"
import json, os, sys
report = json.load(open(sys.argv[1]))
probes = {p["stage"]: p for p in report["probes"]}
assert probes["hostmem"]["status"] == "ok", probes["hostmem"]
if os.path.exists(os.path.join(sys.argv[2], "bin", "pipecheck-compute")):
    gemm = probes["compute"]
    assert gemm["status"] == "skipped", gemm
    assert "libcublas" in gemm["reason"] and "install cuBLAS" in gemm["reason"], gemm["reason"]
    print("compute:", gemm["reason"])
    comm = probes["comm"]
    assert comm["status"] == "skipped", comm
    print("comm:", comm["reason"])
PY
echo "without CUDA's libraries: --version, inventory, check --fast and run all ran"
echo "PASSED: package"
