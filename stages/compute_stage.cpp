// The compute stage: dense GEMM per dtype through cuBLASLt (compute/). The GPU facts judged
// under it (the CUDA driver against the runtime, a GPU seen only on the PCI bus) have their
// profile keys here too.
#include <optional>

#include "ceilings/ceilings.hpp"
#include "ceilings/measurement_gpu.hpp"
#include "ceilings/physical_ceiling.hpp"
#include "core/stage_names.hpp"
#include "compute/gemm_shapes.hpp"
#include "stages/stage_rules.hpp"
#include "stages/stages.hpp"

namespace pipecheck {

namespace {

using namespace stage_rules;

CeilingResult compute_ceiling(const Measurement& m, const Inventory& inventory, const Siblings&) {
  const auto dtype = parse_dtype(param(m, "dtype"));
  if (!dtype) return CeilingResult::unknown("unknown: dtype '" + param(m, "dtype") + "' has no compute ceiling");
  const GpuInfo* gpu = find_gpu(m, inventory);
  if (!gpu) return no_gpu(m);
  const ComputeCeilings ceilings = gpu_compute_ceiling(*gpu, *dtype);
  return ceilings.preferred();
}

StageChecks compute_checks(const Measurement& m, const StageContext&) {
  const auto dtype = parse_dtype(param(m, "dtype"));
  if (!dtype) return not_judged("no dtype param, so no compute threshold");
  return percent_check(std::string("compute.") + to_string(*dtype) + "_min_percent");
}

std::optional<Ceiling> compute_physical(const Measurement& m, const Inventory& as_found, const Inventory&) {
  const auto dtype = parse_dtype(param(m, "dtype"));
  const GpuInfo* gpu = find_gpu(m, as_found);
  if (!dtype || !gpu) return std::nullopt;
  const ComputeCeilings c = gpu_compute_ceiling(*gpu, *dtype);
  return larger(c.theoretical, c.vendor);
}

}  // namespace

StageSpec compute_stage() {
  StageSpec s;
  s.name = stage_name::compute;
  s.title = "GPU compute (GEMM)";
  s.description =
      "GEMM through cuBLASLt per dtype (fp64..int8), best heuristic algorithm over a shape sweep, "
      "sample-verified";
  s.executable = "pipecheck-compute";
  s.probe_needs_cuda = true;
  s.runs_on_gpu = true;
  s.planned_cases = [](const Inventory& inventory, ProbeMode mode) {
    std::vector<std::pair<int, int>> capabilities;
    for (const GpuInfo* gpu : stage_rules::cuda_gpus(inventory)) capabilities.emplace_back(gpu->cc_major, gpu->cc_minor);
    return planned_gemm_cases(capabilities, mode);
  };
  s.ceiling = [](const Measurement& m, const StageContext& c) { return compute_ceiling(m, c.inventory, c.siblings); };
  s.physical = compute_physical;
  s.checks = compute_checks;
  s.profile_text = R"(# GPU dense GEMM (stage compute), % of the vendor spec figure (else the theoretical one).
# cuBLAS reaches ~75-85% of spec on healthy H100/A100 (mamf-finder: H100 BF16 80.3%).
compute.fp64_min_percent = 70
compute.fp32_min_percent = 70
compute.tf32_min_percent = 65
compute.fp16_min_percent = 70
compute.bf16_min_percent = 70
compute.fp8_min_percent = 60
compute.int8_min_percent = 60

# The CUDA driver older than the runtime pipecheck was built with: fail | warn | info.
gpu.cuda_mismatch = fail
# An NVIDIA GPU on the PCI bus that neither CUDA nor NVML sees (no driver, the wrong driver,
# fallen off the bus): fail | warn | info.
gpu.unseen_on_bus = fail
)";
  s.profile_keys = {
      {"compute.fp64_min_percent", ProfileValueKind::percent, "FP64 GEMM, min % of the GPU's FP64 ceiling"},
      {"compute.fp32_min_percent", ProfileValueKind::percent, "FP32 GEMM, min % of the GPU's FP32 ceiling"},
      {"compute.tf32_min_percent", ProfileValueKind::percent, "TF32 GEMM, min % of the GPU's TF32 ceiling"},
      {"compute.fp16_min_percent", ProfileValueKind::percent, "FP16 GEMM, min % of the GPU's FP16 ceiling"},
      {"compute.bf16_min_percent", ProfileValueKind::percent, "BF16 GEMM, min % of the GPU's BF16 ceiling"},
      {"compute.fp8_min_percent", ProfileValueKind::percent, "FP8 GEMM, min % of the GPU's FP8 ceiling"},
      {"compute.int8_min_percent", ProfileValueKind::percent, "INT8 GEMM, min % of the GPU's INT8 ceiling"},
      {"gpu.cuda_mismatch", ProfileValueKind::policy, "verdict for a CUDA driver older than the runtime"},
      {"gpu.unseen_on_bus", ProfileValueKind::policy, "verdict for a GPU on the PCI bus that neither CUDA nor NVML sees"},
  };
  s.advice =
      "Check the GPU's SM clock, power limit and clock-event reasons under load (pipecheck stress, nvidia-smi "
      "-q -d PERFORMANCE) and compare it with the machine's other GPUs; a GPU well below its peers is a "
      "candidate for replacement.";
  s.measurement_contract =
      "gpu (CUDA index), gpu_bdf (\"0000:17:00.0\", preferred to join the inventory), dtype "
      "(fp64|fp32|tf32|fp16|bf16|fp8|int8); unit TFLOP/s, or TOPS for int8. Ceiling: "
      "gpu_compute_ceiling(gpu, dtype).preferred().";
  return s;
}

}  // namespace pipecheck
