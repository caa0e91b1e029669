#!/usr/bin/env bash
# Single-thread full JPEG decode: pipecheck-decode beside libjpeg-turbo's own tjbench, on the
# very same generated image and the same decode flags; prints Megapixels/s and the ratio.
#
# usage: scripts/compare/compare-tjbench.sh [BIN_DIR] [-- options]
#   BIN_DIR           where pipecheck-decode is (default: build/bin)
#   SIZE=2000x1500 QUALITY=90 RUNS=3 SECONDS_PER_RUN=5 FAST=0   (environment)
#   FAST=1 decodes with fast upsampling + fast DCT in both (tjbench -fastupsample -fastdct,
#   pipecheck-decode --decode fast); FAST=0 uses libjpeg-turbo's defaults in both.
# Needs tjbench (Debian: apt-get install libjpeg-turbo-progs).
set -euo pipefail

bin_dir=${1:-build/bin}
probe="$bin_dir/pipecheck-decode"
size=${SIZE:-2000x1500}
quality=${QUALITY:-90}
runs=${RUNS:-3}
seconds=${SECONDS_PER_RUN:-5}
fast=${FAST:-0}

[[ -x "$probe" ]] || { echo "compare-tjbench: $probe not found (build first, or pass BIN_DIR)" >&2; exit 2; }
tjbench=$(command -v tjbench) || tjbench=""  # a lookup, not a measurement: missing is said below
[[ -n "$tjbench" ]] || { echo "compare-tjbench: tjbench not found (apt-get install libjpeg-turbo-progs)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One photo-like image, written by the probe's own generator.
"$probe" --count 1 --size "$size" --quality "$quality" --save-corpus "$work/corpus" \
  --benchmark_filter='^$' >"$work/generate.log" 2>&1 || {
  echo "compare-tjbench: the probe failed to write the image (exit $?):" >&2; cat "$work/generate.log" >&2; exit 1
}
image="$work/corpus/generated-0.jpg"
[[ -s "$image" ]] || { echo "compare-tjbench: the probe did not write $image" >&2; exit 3; }

tj_flags=(-rgb -nowrite -quiet -benchtime "$seconds" -warmup 1)
our_mode=accurate
if [[ "$fast" == 1 ]]; then
  tj_flags+=(-fastupsample -fastdct)
  our_mode=fast
fi

# tjbench -quiet prints one table row; the last column is decompression Megapixels/s.
run_tjbench() { "$tjbench" "$image" "${tj_flags[@]}" | awk 'NF >= 8 { last = $NF } END { print last }'; }
run_ours() {
  "$probe" --images "$work/corpus" --threads 1 --decode "$our_mode" \
    --benchmark_filter='^decode/full/real_time/threads:1$' --benchmark_min_time="$seconds" \
    --benchmark_format=json 2>/dev/null |
    grep -o '"megapixels_per_second": [0-9.e+-]*' | head -1 | awk '{ printf "%.2f\n", $2 }'
}

stats() {  # median min max of the arguments
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f %.2f %.2f", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

tj=() ours=()
for ((i = 1; i <= runs; i++)); do  # interleaved, so drift in machine load hits both alike
  tj+=("$(run_tjbench)")
  ours+=("$(run_ours)")
  echo "run $i: tjbench ${tj[-1]} MP/s, pipecheck-decode ${ours[-1]} MP/s"
done

read -r tj_med tj_min tj_max <<<"$(stats "${tj[@]}")"
read -r our_med our_min our_max <<<"$(stats "${ours[@]}")"
echo "image: $size, quality $quality, 4:2:0 baseline, decode to RGB, 1 thread, flags: $our_mode"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
echo "tjbench:        median $tj_med MP/s (min $tj_min, max $tj_max) over $runs runs"
echo "pipecheck-decode: median $our_med MP/s (min $our_min, max $our_max) over $runs runs"
awk -v a="$our_med" -v b="$tj_med" 'BEGIN { printf "ratio (pipecheck-decode / tjbench): %.3f\n", a / b }'
