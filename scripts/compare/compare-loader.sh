#!/usr/bin/env bash
# The budget's decode bounds beside real loaders on the same images: a plain Pillow loader
# (open, convert("RGB"), resize to the training size with Image.BILINEAR, numpy array; what
# torchvision's default loader and Resize do) and a Pillow draft() loader (DCT-scaled decode
# first), each with 1 and N worker processes, interleaved with `pipecheck run --only decode`
# and its budget at workers=1 and workers=N. Prints images/s, median [min, max] of the rounds,
# the load, and the median of the rounds' ratios budget / Pillow (the plain bound must be above
# Pillow and within 2.5x).
#
# usage: scripts/compare/compare-loader.sh (--images DIR | --make N) [--workers N] [--rounds 3]
#                                  [--seconds 8] [--train 640x640] [--bin build/bin] [--keep]
#   --images DIR   the dataset (JPEGs, recursive); the loaders read every file
#   --make N       instead: N generated photo-like 2000x1500 JPEGs, every 5th re-saved as a
#                  progressive JPEG at quality 95 by Pillow (about the mix of the issue's dataset)
#   --workers N    worker processes of the pool (default: nproc)
#   --seconds S    each loader measurement runs whole passes over the files for at least S s
# Needs Debian's /usr/bin/python3 with python3-pil and python3-numpy.
set -euo pipefail

images="" make=0 workers=$(nproc) rounds=3 seconds=8 train="640x640" bin="" keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --images) images="$2"; shift 2 ;;
    --make) make="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --train) train="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "compare-loader.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${bin:-$root/build/bin}"
[[ -x "$bin/pipecheck" && -x "$bin/pipecheck-decode" ]] || { echo "compare-loader.sh: no pipecheck in $bin; build it or pass --bin" >&2; exit 2; }
python=/usr/bin/python3
"$python" -c 'import PIL, numpy' 2>/dev/null ||
  { echo "compare-loader.sh: $python lacks Pillow or numpy (apt-get install python3-pil python3-numpy)" >&2; exit 2; }
[[ -n "$images" || "$make" -gt 0 ]] || { echo "compare-loader.sh: give --images DIR or --make N" >&2; exit 2; }
[[ "$train" =~ ^[0-9]+x[0-9]+$ ]] || { echo "compare-loader.sh: --train $train: expected WxH" >&2; exit 2; }

work="$(mktemp -d)"
cleanup() { [[ "$keep" == 1 ]] && echo "kept: $work" || rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -z "$images" ]]; then
  images="$work/images"
  "$bin/pipecheck-decode" --count "$make" --size 2000x1500 --save-corpus "$images" --benchmark_list_tests=true >/dev/null
  "$python" - "$images" <<'PY'
import pathlib, sys
from PIL import Image
for i, path in enumerate(sorted(pathlib.Path(sys.argv[1]).glob("*.jpg"))):
    if i % 5 == 4:
        with Image.open(path) as im:
            im.load()
            im.save(path, quality=95, progressive=True)
PY
fi

cat > "$work/loader.py" <<'PY'
# A Pillow data loader as training scripts write it; prints images/s of whole passes.
import multiprocessing, pathlib, sys, time
import numpy as np
from PIL import Image

folder, kind, workers, seconds, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
W, H = (int(v) for v in size.split("x"))
files = sorted(str(p) for p in pathlib.Path(folder).rglob("*") if p.suffix.lower() in (".jpg", ".jpeg"))


def load(path):
    with Image.open(path) as im:
        if kind == "draft":
            im.draft("RGB", (W, H))  # DCT-scaled decode to the smallest 1/2^k still >= W x H
        return np.asarray(im.convert("RGB").resize((W, H), Image.BILINEAR))


def passes(run):
    run(files[: max(workers, 4)])  # warm-up: workers started, code and caches warm
    done, start = 0, time.perf_counter()
    while True:
        run(files)
        done += len(files)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


if workers == 1:
    rate = passes(lambda batch: [load(p) for p in batch])
else:
    with multiprocessing.Pool(workers) as pool:
        rate = passes(lambda batch: list(pool.imap(load, batch, chunksize=1)))
print(f"{rate:.3f}")
PY

cat > "$work/facts.py" <<'PY'
# The dataset's mix as Pillow sees it.
import pathlib, sys
from PIL import Image
counts, total = {"baseline": 0, "progressive": 0, "CMYK": 0}, 0
for p in pathlib.Path(sys.argv[1]).rglob("*"):
    if p.suffix.lower() not in (".jpg", ".jpeg"):
        continue
    with Image.open(p) as im:
        kind = "CMYK" if im.mode == "CMYK" else "progressive" if im.info.get("progressive") else "baseline"
    counts[kind] += 1
    total += p.stat().st_size
n = sum(counts.values())
print(f"{n} files ({', '.join(f'{v} {k}' for k, v in counts.items())}), {total / 1e6:.1f} MB")
PY

# The budget's decode figures at `workers` from a run folder: "plain dct" in samples/s.
budget_at() {  # folder workers
  # 0 pass, 1 a verdict below the profile, 4 inconclusive: the budget is written; anything else
  # (bad input, could not run) is a failed report and stops the comparison.
  local status=0
  "$bin/pipecheck" report "$1" --workload "workers=$2,train=$train" --no-color >"$1/report-$2.log" 2>&1 || status=$?
  if (( status != 0 && status != 1 && status != 4 )); then
    echo "compare-loader.sh: pipecheck report $1 failed (exit $status):" >&2; cat "$1/report-$2.log" >&2; exit 1
  fi
  "$python" - "$1/report.json" <<'PY'
import json, re, sys
budget = json.load(open(sys.argv[1]))["budget"]
decode = next(s for s in budget["stages"] if s["stage"] == "decode")
dct = re.search(r"achievable with DCT scaling [^:]*: ([0-9.]+) samples/s", decode["derivation"])
if not decode.get("samples_per_second"):
    sys.exit(f"compare-loader.sh: {sys.argv[1]}: the budget has no decode samples/s")
print(decode["samples_per_second"], dct.group(1) if dct else "nan")
PY
}

stats() {  # values... -> "median min max"
  "$python" -c 'import statistics,sys; v=sorted(float(x) for x in sys.argv[1:]); print(statistics.median(v), v[0], v[-1])' "$@"
}

echo "images: $images: $("$python" "$work/facts.py" "$images"); train size $train"
echo "machine: $(nproc) CPUs, $(uname -r); Pillow $("$python" -c 'import PIL; print(PIL.__version__)'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A values
for ((r = 1; r <= rounds; r++)); do  # interleaved, so drift in the machine's load hits all alike
  for kind in plain draft; do
    for w in 1 "$workers"; do
      values["$kind/$w"]+=" $("$python" "$work/loader.py" "$images" "$kind" "$w" "$seconds" "$train")"
    done
  done
  # Each round its own --out: a round never reads another round's run folder.
  status=0
  "$bin/pipecheck" run --only decode --images "$images" --workload "workers=$workers,train=$train" \
    --out "$work/runs-$r" --no-color >"$work/run-$r.log" 2>&1 || status=$?
  if (( status != 0 && status != 1 && status != 4 )); then
    echo "compare-loader.sh: round $r: pipecheck run failed (exit $status):" >&2; cat "$work/run-$r.log" >&2; exit 1
  fi
  run_folder=$(ls -d "$work/runs-$r"/*/ 2>/dev/null | head -1)
  [[ -n "$run_folder" ]] || { echo "compare-loader.sh: pipecheck run wrote no run folder" >&2; exit 3; }
  for w in 1 "$workers"; do
    figures=$(budget_at "$run_folder" "$w")  # a failed report stops the script here (set -e)
    read -r plain dct <<<"$figures"
    values["budget_plain/$w"]+=" $(printf '%.3f' "$plain")"
    values["budget_dct/$w"]+=" $(printf '%.3f' "$dct")"
  done
  echo "round $r: Pillow plain ${values[plain/1]##* } / ${values[plain/$workers]##* }, draft ${values[draft/1]##* } / ${values[draft/$workers]##* }, budget plain ${values[budget_plain/1]##* } / ${values[budget_plain/$workers]##* }, DCT ${values[budget_dct/1]##* } / ${values[budget_dct/$workers]##* } images/s (1 / $workers workers); load $(cut -d' ' -f1 /proc/loadavg)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\n%-44s %-8s %-24s %s\n' "images/s, median [min, max] of $rounds rounds" "workers" "" "budget / Pillow, median of the rounds' ratios [min, max]"
for w in 1 "$workers"; do
  for pair in "plain:budget_plain:Pillow plain (decode, resize BILINEAR):budget plain (decode whole + resize)" \
              "draft:budget_dct:Pillow draft (DCT-scaled decode, resize):budget DCT-scaled (achievable)"; do
    IFS=: read -r ref ours ref_name our_name <<<"$pair"
    "$python" - "$ref_name" "$our_name" "$w" "$ref" "${values[$ref/$w]}" "${values[$ours/$w]}" <<'PY'
import statistics, sys
ref_name, our_name, w, kind = sys.argv[1:5]
ref = [float(x) for x in sys.argv[5].split()]
ours = [float(x) for x in sys.argv[6].split()]
def mmm(v): return statistics.median(v), min(v), max(v)
ratios = [o / r for o, r in zip(ours, ref) if r > 0]
rm, rlo, rhi = mmm(ratios) if ratios else (float("nan"),) * 3
verdict = ""
if kind == "plain":
    verdict = "  (an upper bound within 2.5x: " + ("yes" if 1.0 <= rm <= 2.5 else "NO") + ")"
print(f"{ref_name:<44} {w:<8} {'%.2f [%.2f, %.2f]' % mmm(ref):<24}")
print(f"{our_name:<44} {w:<8} {'%.2f [%.2f, %.2f]' % mmm(ours):<24} {rm:.2f} [{rlo:.2f}, {rhi:.2f}]{verdict}")
PY
  done
done
