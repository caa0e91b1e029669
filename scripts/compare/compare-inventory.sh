#!/usr/bin/env bash
# pipecheck's inventory beside the public tools on the same machine or recorded tree: sockets,
# cores, logical CPUs, NUMA nodes and L3 against lscpu (util-linux, --sysroot for a tree) and
# hwloc's lstopo; on a GPU machine the GPU/NIC matrix against `nvidia-smi topo -m`.
# Usage:  bash scripts/compare/compare-inventory.sh [BIN_DIR] [TREE...]     (no TREE: this machine)
# Prints one block a machine; a fact that differs is marked "<- differs". Exits 0.
set -uo pipefail
BIN=${1:-build/bin}
shift || true
if [ ! -x "$BIN/pipecheck" ]; then
  echo "compare-inventory: $BIN/pipecheck not found (build first, or pass the bin folder)" >&2
  exit 2
fi

compare_one() {
  local root="$1"
  local pc_args=(inventory --json) ls_args=() fsroot=()
  if [ "$root" != "/" ]; then
    pc_args+=(--sysfs-root "$root")
    ls_args+=(--sysroot "$root")
    fsroot=(env "HWLOC_FSROOT=$root" HWLOC_COMPONENTS=-x86,-no_os)
  fi
  echo "== $root"
  local json lscpu_out lstopo_out
  json=$("$BIN/pipecheck" "${pc_args[@]}" 2>/dev/null)
  lscpu_out=$(lscpu "${ls_args[@]}" 2>/dev/null)
  lstopo_out=$("${fsroot[@]}" lstopo-no-graphics --of console --only pu 2>/dev/null | wc -l)
  lstopo_cores=$("${fsroot[@]}" lstopo-no-graphics --of console --only core 2>/dev/null | wc -l)
  lstopo_pkgs=$("${fsroot[@]}" lstopo-no-graphics --of console --only package 2>/dev/null | wc -l)
  JSON="$json" LSCPU="$lscpu_out" PUS="$lstopo_out" CORES="$lstopo_cores" PKGS="$lstopo_pkgs" python3 - <<'PY'
import json, os, re

inv = json.loads(os.environ["JSON"] or "{}")
cpu, mem = inv.get("cpu", {}), inv.get("memory", {})
lscpu = {}
for line in os.environ["LSCPU"].splitlines():
    if ":" in line:
        k, v = line.split(":", 1)
        lscpu[k.strip()] = v.strip()

def num(text):
    m = re.match(r"\s*([0-9]+)", text or "")
    return int(m.group(1)) if m else None

def size(text):
    # "32 MiB (1 instance)" / "10 MiB" -> bytes
    m = re.match(r"\s*([0-9.]+)\s*([KMG])i?B", text or "")
    return None if not m else float(m.group(1)) * {"K": 1024, "M": 1 << 20, "G": 1 << 30}[m.group(2)]

sockets = num(lscpu.get("Socket(s)"))
cores_per = num(lscpu.get("Core(s) per socket")) or num(lscpu.get("Core(s) per cluster"))
l3_total = size(lscpu.get("L3 cache"))
rows = [
    ("CPU model", cpu.get("model"), lscpu.get("Model name"), None),
    ("sockets", cpu.get("sockets"), sockets, num(os.environ["PKGS"]) or None),
    ("cores", cpu.get("physical_cores"), sockets * cores_per if sockets and cores_per else None, num(os.environ["CORES"]) or None),
    ("logical CPUs", cpu.get("logical_cpus"), num(lscpu.get("CPU(s)")), num(os.environ["PUS"]) or None),
    ("NUMA nodes", cpu.get("numa_nodes"), num(lscpu.get("NUMA node(s)")), None),
    ("L3 per socket (MiB)", cpu.get("l3_bytes") and cpu["l3_bytes"] / (1 << 20),
     l3_total / sockets / (1 << 20) if l3_total and sockets else None, None),
]
print(f"  {'fact':<20} {'pipecheck':<42} {'lscpu':<42} lstopo")
for name, ours, theirs, topo in rows:
    mark = ""
    if ours is not None and theirs is not None and str(ours) != str(theirs):
        mark = "  <- differs"
        if isinstance(ours, (int, float)) and isinstance(theirs, (int, float)) and abs(ours - theirs) <= 0.02 * max(abs(theirs), 1):
            mark = ""
    print(f"  {name:<20} {str(ours):<42} {str(theirs):<42} {'' if topo is None else topo}{mark}")
print(f"  memory: {mem.get('total_bytes')} bytes ({mem.get('total_source')}); hostname {inv.get('hostname')}")
PY
  if [ "$root" = "/" ] && command -v nvidia-smi >/dev/null 2>&1; then
    echo "  -- nvidia-smi topo -m"
    nvidia-smi topo -m | sed 's/^/  /'
    echo "  -- pipecheck"
    "$BIN/pipecheck" inventory | sed -n '/^Topology/,/^  NV<n>/p' | sed 's/^/  /'
  fi
}

if [ $# -eq 0 ]; then
  compare_one /
else
  for tree in "$@"; do compare_one "$(cd "$tree" && pwd)"; done
fi
echo "load: $(cat /proc/loadavg)"
