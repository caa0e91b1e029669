#!/usr/bin/env bash
# Runs fio's io_uring engine and pipecheck-storage side by side on the same file, block size
# and queue depth (seq 1 MiB QD32, rand 4 KiB QD32), alternating, and prints the median, min
# and max of each and the ratio ours/fio. fio: `apt-get install fio` (Debian/Ubuntu).
#
# usage: scripts/compare-fio.sh [--file PATH] [--size 1G] [--runs 3] [--seconds 5]
#                               [--probe build/bin/pipecheck-storage] [--dir DIR]
# Without --file, a file of --size is created in --dir (default: the current directory) and
# removed afterwards. Both tools read with O_DIRECT, fixed buffers and registered files.
set -euo pipefail

file="" size="1G" runs=3 seconds=5 dir="." probe=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --file) file="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --probe) probe="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "compare-fio.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ -z "$probe" ]]; then
  for candidate in "$root/build/bin/pipecheck-storage" "$root"/build*/bin/pipecheck-storage; do
    [[ -x "$candidate" ]] && { probe="$candidate"; break; }
  done
fi
[[ -x "$probe" ]] || { echo "compare-fio.sh: pipecheck-storage not found; build it or pass --probe" >&2; exit 2; }
command -v fio >/dev/null || { echo "compare-fio.sh: fio not installed (apt-get install fio)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "compare-fio.sh: python3 is needed to read the JSON" >&2; exit 2; }

cleanup() { [[ -n "${made:-}" ]] && rm -f "$made"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
if [[ -z "$file" ]]; then
  file="$(mktemp "$dir/pipecheck-fio-XXXXXX")"
  made="$file"
  # Laid out with direct writes so none of it sits in the page cache.
  fio --name=layout --filename="$file" --size="$size" --rw=write --bs=1M --direct=1 \
      --ioengine=psync --output=/dev/null
fi

fio_run() {  # rw bs -> bytes/s (read) or IOPS (randread)
  local rw="$1" bs="$2"
  fio --name=cmp --filename="$file" --rw="$rw" --bs="$bs" --iodepth=32 --numjobs=1 \
      --ioengine=io_uring --direct=1 --fixedbufs=1 --registerfiles=1 --invalidate=1 \
      --time_based=1 --runtime="$seconds" --ramp_time=1 --output-format=json |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["jobs"][0]["read"]; print(r["bw_bytes"] if sys.argv[1]=="read" else r["iops"])' "$rw"
}

ours_run() {  # rw bs -> bytes/s (seq) or IOPS (rand)
  local rw="$1" bs="$2" filter flag
  if [[ "$rw" == read ]]; then filter="storage/seq_read/"; flag="--bs=$bs"; else filter="storage/rand_read/"; flag="--rand-bs=$bs"; fi
  "$probe" --path "$file" --qd 32 --threads 1 "$flag" --benchmark_filter="$filter" \
      --benchmark_min_time="$seconds" --benchmark_repetitions=1 --benchmark_format=json 2>/dev/null |
    python3 -c 'import json,sys; b=[x for x in json.load(sys.stdin)["benchmarks"] if x.get("run_type")=="iteration"][0]
if b.get("error_occurred"): sys.exit("pipecheck-storage: "+b.get("error_message",""))
print(b["bytes_per_second"] if sys.argv[1]=="read" else b["iops"])' "$rw"
}

summary() {  # values... -> "median min max"
  python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print(statistics.median(v), min(v), max(v))' "$@"
}

echo "file: $file ($(stat -c %s "$file") bytes); $runs runs of ${seconds}s each, alternating fio and ours"
echo "kernel $(uname -r); $(fio --version); probe $probe"
printf '%-22s %-26s %-26s %s\n' "case" "fio median [min, max]" "ours median [min, max]" "ours/fio"
for case in "read 1M" "randread 4k"; do
  read -r rw bs <<<"$case"
  fio_values=() our_values=()
  for ((i = 0; i < runs; i++)); do
    fio_values+=("$(fio_run "$rw" "$bs")")
    our_values+=("$(ours_run "$rw" "$bs")")
  done
  read -r fm fmin fmax <<<"$(summary "${fio_values[@]}")"
  read -r om omin omax <<<"$(summary "${our_values[@]}")"
  python3 - "$rw" "$bs" "$fm" "$fmin" "$fmax" "$om" "$omin" "$omax" <<'PY'
import sys
rw, bs, fm, fmin, fmax, om, omin, omax = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:])
if rw == "read":
    unit, scale, name = "GB/s", 1e9, f"seq {bs} QD32"
    fmt = lambda m, a, b: f"{m/scale:.3f} [{a/scale:.3f}, {b/scale:.3f}] {unit}"
else:
    unit, scale, name = "kIOPS", 1e3, f"rand {bs} QD32"
    fmt = lambda m, a, b: f"{m/scale:.1f} [{a/scale:.1f}, {b/scale:.1f}] {unit}"
print(f"{name:<22} {fmt(fm, fmin, fmax):<26} {fmt(om, omin, omax):<26} {om/fm:.3f}")
PY
done
