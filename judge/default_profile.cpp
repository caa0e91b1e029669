// The acceptance profile pipecheck ships, as text (so `pipecheck profile --show` can print it and
// a user can copy it), and the table of every key a profile may set, with what it means.
#include "judge/profile.hpp"

namespace pipecheck {

// How a profile is read (decided here, documented once):
// - `--profile FILE` OVERLAYS the default: FILE's keys replace the default's, every other key
//   keeps its default. To drop a default threshold, set it to `off` (its measurements are then
//   judged `info`). So a user's file holds only what differs from this one.
// - Percent thresholds are minimum % of the measurement's ceiling (the ceiling and its
//   derivation come from ceilings/ceilings). With the warn margin M percentage points:
//       % <  threshold                 -> fail
//       threshold <= % < threshold + M -> warn   (exactly at the threshold is warn, not pass)
//       % >= threshold + M             -> pass
//   With M = 0 exactly at the threshold passes.
// - A measurement whose stage/params no key covers, or whose ceiling is unknown, is `info`.
// - Unknown keys, bad values and a key set twice in one file are errors naming the line.
const char* default_profile_text() {
  return R"(# pipecheck default acceptance profile.
# key = value; '#' starts a comment; `off` drops a threshold (judged info instead).
# A user's --profile file is overlaid on this one: it sets only what it changes.

# Percentage points above a threshold that are still 'warn' (too close to call a pass).
warn_margin_percent = 5

# GPU dense GEMM (stage compute), % of the vendor spec figure (else the theoretical one).
# cuBLAS reaches ~75-85% of spec on healthy H100/A100 (mamf-finder: H100 BF16 80.3%).
compute.fp64_min_percent = 70
compute.fp32_min_percent = 70
compute.tf32_min_percent = 65
compute.fp16_min_percent = 70
compute.bf16_min_percent = 70
compute.fp8_min_percent = 60
compute.int8_min_percent = 60

# GPU memory (stage memory), % of the HBM/GDDR bandwidth (vendor spec, else 2 x clock x bus).
memory.hbm_copy_min_percent = 85
memory.hbm_read_min_percent = 85
memory.hbm_write_min_percent = 80
memory.hbm_triad_min_percent = 85
memory.d2d_memcpy_min_percent = 80

# Host<->GPU copies (stage pcie), % of the GPU's PCIe link per direction (bidir: both
# directions). Pinned host memory on the GPU's own NUMA node is the figure a loader can reach;
# pageable, mapped and remote-NUMA copies are shown against it in the findings, not judged.
pcie.pinned_h2d_min_percent = 80
pcie.pinned_d2h_min_percent = 80
pcie.pinned_bidir_min_percent = 70
# A GPU link trained below its maximum speed or width: fail | warn | info.
pcie.link_downtrained = fail

# The CUDA driver older than the runtime pipecheck was built with: fail | warn | info.
gpu.cuda_mismatch = fail
# An NVIDIA GPU on the PCI bus that neither CUDA nor NVML sees (no driver, the wrong driver,
# fallen off the bus): fail | warn | info.
gpu.unseen_on_bus = fail

# NCCL collectives (stage comm): bus bandwidth (nccl-tests' busbw) at the largest size of the
# sweep (smaller messages are latency-bound), % of what bounds it per direction: NVLink when every
# pair of the job's GPUs shares it, else the slowest GPU's PCIe link, across nodes the node's
# network when lower. nccl-tests reaches ~80% on healthy machines (8x H100 all-reduce, ring:
# ~370 of 450 GB/s; 8x A100: ~230 of 300); a mis-wired or mis-placed job falls far below.
comm.busbw_min_percent = 60

# Storage (stage storage). A link bounds a disk but its media is often slower by design (a
# 250 MB/s HDD on a 6 Gb/s SATA link), so % of the link is not judged by default; set absolute
# minimums for the disk your data lives on.
storage.seq_read_min_percent = off
storage.seq_read_min_gbps = off
storage.rand_read_min_iops = off

# CPU JPEG decode (stage decode): N-thread rate as % of N x the 1-thread rate, judged only up
# to the physical core count (SMT threads share a core).
decode.scaling_efficiency_min_percent = 60

# Host memory (stage hostmem), % of the DRAM ceiling, at the most threads measured per op
# (single-thread figures are far below by nature; the findings compare them).
hostmem.read_min_percent = 60
hostmem.memcpy_min_percent = 50
hostmem.write_min_percent = off

# GPU burn (stage stress): wrong results allowed, and what a thermal slowdown is.
stress.wrong_results_max = 0
stress.thermal_slowdown = warn

# The conditions a probe ran under (measured by the driver around each probe). A failure
# measured while other processes used more CPU than this (% of one core: 200 = two cores busy),
# or while the hypervisor stole more than this share of the CPUs' time, is judged inconclusive
# (rerun on a quiet machine), never fail; so is a GPU figure measured while another process
# held the GPU, and any figure whose spread straddles its threshold. The quiet-machine check
# before the run warns above the same CPU limit. `off` drops a limit.
conditions.other_cpu_max_percent = 20
conditions.steal_max_percent = 10

# Probes: a case that reported an error inside an otherwise working probe, and a measurement
# whose result verification failed (verified = no): fail | warn | info.
probe.case_error = warn
probe.unverified = fail
)";
}

const std::vector<ProfileKeySpec>& profile_keys() {
  using K = ProfileValueKind;
  static const std::vector<ProfileKeySpec> keys = {
      {"warn_margin_percent", K::percent, "percentage points above a threshold still judged warn"},
      {"compute.fp64_min_percent", K::percent, "FP64 GEMM, min % of the GPU's FP64 ceiling"},
      {"compute.fp32_min_percent", K::percent, "FP32 GEMM, min % of the GPU's FP32 ceiling"},
      {"compute.tf32_min_percent", K::percent, "TF32 GEMM, min % of the GPU's TF32 ceiling"},
      {"compute.fp16_min_percent", K::percent, "FP16 GEMM, min % of the GPU's FP16 ceiling"},
      {"compute.bf16_min_percent", K::percent, "BF16 GEMM, min % of the GPU's BF16 ceiling"},
      {"compute.fp8_min_percent", K::percent, "FP8 GEMM, min % of the GPU's FP8 ceiling"},
      {"compute.int8_min_percent", K::percent, "INT8 GEMM, min % of the GPU's INT8 ceiling"},
      {"memory.hbm_copy_min_percent", K::percent, "HBM copy kernel, min % of memory bandwidth"},
      {"memory.hbm_read_min_percent", K::percent, "HBM read kernel, min % of memory bandwidth"},
      {"memory.hbm_write_min_percent", K::percent, "HBM write kernel, min % of memory bandwidth"},
      {"memory.hbm_triad_min_percent", K::percent, "HBM triad kernel, min % of memory bandwidth"},
      {"memory.d2d_memcpy_min_percent", K::percent, "cudaMemcpy device to device, min % of memory bandwidth"},
      {"pcie.pinned_h2d_min_percent", K::percent, "pinned host-to-device copy, min % of the GPU's link"},
      {"pcie.pinned_d2h_min_percent", K::percent, "pinned device-to-host copy, min % of the GPU's link"},
      {"pcie.pinned_bidir_min_percent", K::percent, "pinned copies both ways at once, min % of both directions"},
      {"pcie.link_downtrained", K::policy, "verdict for a GPU link trained below its maximum"},
      {"gpu.cuda_mismatch", K::policy, "verdict for a CUDA driver older than the runtime"},
      {"gpu.unseen_on_bus", K::policy, "verdict for a GPU on the PCI bus that neither CUDA nor NVML sees"},
      {"comm.busbw_min_percent", K::percent,
       "NCCL bus bandwidth at the largest size, min % of NVLink (else PCIe; across nodes the network) per direction"},
      {"storage.seq_read_min_percent", K::percent, "sequential read, min % of the disk's link"},
      {"storage.seq_read_min_gbps", K::number, "sequential read, min GB/s"},
      {"storage.rand_read_min_iops", K::number, "random read, min IOPS"},
      {"decode.scaling_efficiency_min_percent", K::percent, "JPEG decode, N threads vs N x 1 thread, min %"},
      {"hostmem.read_min_percent", K::percent, "host memory read at most threads, min % of DRAM"},
      {"hostmem.memcpy_min_percent", K::percent, "host memcpy at most threads, min % of DRAM"},
      {"hostmem.write_min_percent", K::percent, "host memory write at most threads, min % of DRAM"},
      {"stress.wrong_results_max", K::count, "GPU burn: wrong results allowed"},
      {"stress.thermal_slowdown", K::policy, "verdict for thermal slowdown during the burn"},
      {"conditions.other_cpu_max_percent", K::number,
       "other processes' CPU during a probe, % of one core, above which its failures are inconclusive"},
      {"conditions.steal_max_percent", K::percent,
       "CPU time stolen by the hypervisor during a probe, %, above which its failures are inconclusive"},
      {"probe.case_error", K::policy, "verdict for a case that reported an error"},
      {"probe.unverified", K::policy, "verdict for a measurement whose result check failed"},
  };
  return keys;
}

}  // namespace pipecheck
