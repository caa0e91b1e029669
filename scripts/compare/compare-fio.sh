#!/usr/bin/env bash
# Runs fio's io_uring engine and pipecheck-storage side by side on the same file, block size
# and queue depth (seq 1 MiB QD32, rand 4 KiB QD32), interleaved round by round (the order
# reversed every other round), and prints
# the median, min and max of each, the median of the per-round ratios ours/fio, and what the
# disk saw during each tool's runs: /proc/diskstats (MB/s, requests/s, the mean request size:
# the counters iostat -x reads), the requests in flight at the driver (/sys/block/DEV/inflight,
# sampled every 20 ms), and iostat itself during the first round. The sequential case runs the
# probe twice, with its default buffers in transparent huge pages and with --buffers=pages
# (4 KiB pages, as fio's malloc'd buffers), and fio with hugetlb buffers (--iomem=shmhuge) when
# the machine has 24 free huge pages (as root: echo 24 > /proc/sys/vm/nr_hugepages; this
# script changes no setting): the buffers' layout is what explains the sequential gap.
# fio and iostat: `apt-get install fio sysstat` (Debian/Ubuntu).
#
# usage: scripts/compare/compare-fio.sh [--file PATH] [--size 1G] [--runs 9] [--seconds 5]
#                               [--probe build/bin/pipecheck-storage] [--dir DIR] [--device vda]
# Without --file, a file of --size is created in --dir (default: the current directory) and
# removed afterwards. Both tools read with O_DIRECT, fixed buffers and registered files; random
# reads go to the kernel one per call in both (fio's iodepth_batch_submit=1, the probe's
# submit=each in its label).
set -euo pipefail

file="" size="1G" runs=9 seconds=5 dir="." probe="" device=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --file) file="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --probe) probe="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "compare-fio.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "$0")/../.." && pwd)"
if [[ -z "$probe" ]]; then
  for candidate in "$root/build/bin/pipecheck-storage" "$root"/build*/bin/pipecheck-storage; do
    [[ -x "$candidate" ]] && { probe="$candidate"; break; }
  done
fi
[[ -x "$probe" ]] || { echo "compare-fio.sh: pipecheck-storage not found; build it or pass --probe" >&2; exit 2; }
command -v fio >/dev/null || { echo "compare-fio.sh: fio not installed (apt-get install fio)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "compare-fio.sh: python3 is needed to read the JSON" >&2; exit 2; }
have_iostat=1; command -v iostat >/dev/null || have_iostat=0

made="" iostat_pid=""
cleanup() {
  [[ -n "$iostat_pid" ]] && kill "$iostat_pid" 2>/dev/null
  [[ -n "$made" ]] && rm -f "$made"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [[ -z "$file" ]]; then
  file="$(mktemp "$dir/pipecheck-fio-XXXXXX")"
  made="$file"
  # Laid out with direct writes so none of it sits in the guest's page cache.
  fio --name=layout --filename="$file" --size="$size" --rw=write --bs=1M --direct=1 \
      --ioengine=psync --output=/dev/null
fi
# The whole disk under the file, as /proc/diskstats names it (a partition counts to its disk).
if [[ -z "$device" ]]; then
  majmin=$(stat -c '%Hd:%Ld' "$file" 2>/dev/null || true)
  device=$(basename "$(readlink -f "/sys/dev/block/$majmin")" 2>/dev/null || true)
  [[ -e "/sys/class/block/$device/partition" ]] && device=$(basename "$(dirname "$(readlink -f "/sys/class/block/$device")")")
fi
grep -q " $device " /proc/diskstats || { echo "compare-fio.sh: no disk '$device' in /proc/diskstats (pass --device)" >&2; exit 2; }

diskstats() { awk -v d="$device" '$3 == d { print $4, $6 }' /proc/diskstats; }  # reads completed, sectors read

# Reads in flight at the driver, every 20 ms, until killed.
sample_inflight() { while :; do read -r r _ <"/sys/block/$device/inflight"; echo "$r"; sleep 0.02; done; }

# Runs a command and prints its own figure, then "MB/s requests/s KiB/request in-flight" of the disk.
with_disk() {
  local r0 s0 r1 s1 t0 t1 value sampler
  sample_inflight >"$work/inflight" &
  sampler=$!
  read -r r0 s0 <<<"$(diskstats)"; t0=$(date +%s.%N)
  value=$("$@")
  t1=$(date +%s.%N); read -r r1 s1 <<<"$(diskstats)"
  kill "$sampler"; wait "$sampler" 2>/dev/null || true
  python3 -c 'import sys; v,r0,s0,r1,s1,t0,t1=sys.argv[1],*map(float,sys.argv[2:8]); dt=t1-t0; n=max(r1-r0,1)
f=[int(x) for x in open(sys.argv[8]).read().split()] or [0]
print(v, (s1-s0)*512/dt/1e6, (r1-r0)/dt, (s1-s0)*512/n/1024, sum(f)/len(f))' "$value" "$r0" "$s0" "$r1" "$s1" "$t0" "$t1" "$work/inflight"
}

fio_run() {  # rw bs iomem -> bytes/s (read) or IOPS (randread)
  local rw="$1" bs="$2" iomem="${3:-malloc}"
  fio --name=cmp --filename="$file" --rw="$rw" --bs="$bs" --iodepth=32 --numjobs=1 --iomem="$iomem" \
      --ioengine=io_uring --direct=1 --fixedbufs=1 --registerfiles=1 --invalidate=1 \
      --time_based=1 --runtime="$seconds" --ramp_time=1 --output-format=json |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["jobs"][0]["read"]; print(r["bw_bytes"] if sys.argv[1]=="read" else r["iops"])' "$rw"
}

ours_run() {  # rw bs buffers -> bytes/s (seq) or IOPS (rand)
  local rw="$1" bs="$2" buffers="$3" filter flag
  if [[ "$rw" == read ]]; then filter="storage/seq_read/"; flag="--bs=$bs"; else filter="storage/rand_read/"; flag="--rand-bs=$bs"; fi
  "$probe" --path "$file" --qd 32 --threads 1 "$flag" --buffers="$buffers" --benchmark_filter="$filter" \
      --benchmark_min_time="$seconds" --benchmark_repetitions=1 --benchmark_format=json 2>/dev/null |
    python3 -c 'import json,sys; b=[x for x in json.load(sys.stdin)["benchmarks"] if x.get("run_type")=="iteration"][0]
if b.get("error_occurred"): sys.exit("pipecheck-storage: "+b.get("error_message",""))
print(b["bytes_per_second"] if sys.argv[1]=="read" else b["iops"])' "$rw"
}

iostat_start() {  # name: iostat -x each second into a file, the first round only
  [[ "$have_iostat" == 1 && "$round" == 1 ]] || return 0
  iostat -x -d -y -m "$device" 1 >"$work/iostat-$1.txt" 2>/dev/null &
  iostat_pid=$!
}
iostat_stop() {
  [[ -n "$iostat_pid" ]] || return 0
  kill "$iostat_pid" 2>/dev/null; wait "$iostat_pid" 2>/dev/null || true; iostat_pid=""
}

work="$(mktemp -d)"
trap 'cleanup; rm -rf "$work"' EXIT
cases=("seq fio read 1M malloc" "seq ours read 1M huge" "seq ours-pages read 1M pages")
free_huge=$(awk '/^HugePages_Free/ { print $2 }' /proc/meminfo)
if (( ${free_huge:-0} >= 24 )); then
  cases+=("seq fio-hugetlb read 1M shmhuge")
else
  echo "note: ${free_huge:-0} free huge pages: fio with hugetlb buffers left out (as root: echo 24 > /proc/sys/vm/nr_hugepages, and back to 0 after)"
fi
cases+=("rand fio randread 4k malloc" "rand ours randread 4k huge")
echo "file: $file ($(stat -c %s "$file") bytes) on $device; $runs rounds of ${seconds}s each, interleaved"
echo "kernel $(uname -r); $(fio --version); probe $probe"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((round = 1; round <= runs; round++)); do
  line="round $round:"
  # Odd rounds run the cases in order, even rounds backwards: a disk whose speed drifts (burst
  # credits, a neighbour's load) then favours neither tool by always running it first.
  order=("${cases[@]}")
  (( round % 2 )) || mapfile -t order < <(printf '%s\n' "${cases[@]}" | tac)
  for c in "${order[@]}"; do
    read -r group tool rw bs buffers <<<"$c"
    iostat_start "$group-$tool"
    if [[ "$tool" == fio* ]]; then out=$(with_disk fio_run "$rw" "$bs" "$buffers"); else out=$(with_disk ours_run "$rw" "$bs" "$buffers"); fi
    iostat_stop
    echo "$group $tool $out" >>"$work/values"
    line+=" $tool-$group $(awk '{ printf "%.4g", $1 }' <<<"$out")"
  done
  echo "$line; load $(cut -d' ' -f1 /proc/loadavg)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$work/values" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
by = {}
for group, tool, value, mbs, rps, kib, inflight in rows:
    by.setdefault((group, tool), []).append((float(value), float(mbs), float(rps), float(kib), float(inflight)))
def mmm(v): return statistics.median(v), min(v), max(v)
names = {"fio": "fio", "fio-hugetlb": "fio --iomem=shmhuge", "ours": "pipecheck", "ours-pages": "pipecheck --buffers=pages"}
print(f"\n{'case':<42} {'median [min, max]':<30} {'disk MB/s':>9} {'req/s':>7} {'KiB/req':>7} {'in flight':>9}  x/fio: median of rounds [min, max]")
for group, unit, scale in (("seq", "GB/s", 1e9), ("rand", "kIOPS", 1e3)):
    fio = by[(group, "fio")]
    for tool in ("fio", "fio-hugetlb", "ours", "ours-pages"):
        if (group, tool) not in by: continue
        v = by[(group, tool)]
        m, lo, hi = mmm([x[0] / scale for x in v])
        disk = [statistics.median(x[i] for x in v) for i in (1, 2, 3, 4)]
        name = {"seq": "seq 1 MiB QD32", "rand": "rand 4 KiB QD32"}[group] + " " + names[tool]
        ratio = ""
        if tool != "fio":
            r = [a[0] / b[0] for a, b in zip(v, fio)]
            rm, rlo, rhi = mmm(r)
            ratio = f"  {rm:.3f} [{rlo:.3f}, {rhi:.3f}]"
        print(f"{name:<42} {f'{m:.3f} [{lo:.3f}, {hi:.3f}] {unit}':<30} {disk[0]:9.0f} {disk[1]:7.0f} {disk[2]:7.0f} {disk[3]:9.1f}{ratio}")
PY
if [[ "$have_iostat" == 1 ]]; then
  echo
  echo "iostat -x during round 1 (mean of its 1 s lines: r/s, rMB/s, rareq-sz KiB, %util):"
  for f in "$work"/iostat-*.txt; do
    awk -v name="$(basename "$f" .txt | sed 's/^iostat-//')" '
      /Device/ { for (i = 1; i <= NF; i++) col[$i] = i; next }
      col["r/s"] && NF > 5 { n++; rs += $col["r/s"]; mb += $col["rMB/s"]; sz += $col["rareq-sz"]; ut += $col["%util"] }
      END { if (n) printf "  %-16s r/s %8.0f  rMB/s %7.0f  rareq-sz %6.0f  %%util %5.1f  (%d s)\n", name, rs/n, mb/n, sz/n, ut/n, n }' "$f"
  done
fi
