// The pcie stage: host<->device copies over each GPU's PCIe link (pcie/).
#include <cstdio>
#include <optional>

#include "ceilings/ceilings.hpp"
#include "ceilings/measurement_gpu.hpp"
#include "ceilings/physical_ceiling.hpp"
#include "core/figure_text.hpp"
#include "core/stage_names.hpp"
#include "pcie/pcie_plan.hpp"
#include "stages/stage_rules.hpp"
#include "stages/stages.hpp"

namespace pipecheck {

namespace {

using namespace stage_rules;

// Host<->device copies: the GPU's PCIe link per direction; both directions at once against twice.
CeilingResult pcie_ceiling(const Measurement& m, const Inventory& inventory, const Siblings&) {
  const GpuInfo* gpu = find_gpu(m, inventory);
  if (!gpu) return no_gpu(m);
  CeilingResult link = pcie_link_ceiling(gpu->pcie);
  if (link.ceiling && param(m, "direction") == "bidir") {
    Ceiling& c = *link.ceiling;
    char text[64];
    std::snprintf(text, sizeof text, "%.1f %s = 2 x ", 2 * c.value, c.unit.c_str());
    c.value *= 2;
    c.derivation = text + c.derivation + " (both directions)";
  }
  return link;
}

StageChecks pcie_checks(const Measurement& m, const StageContext&) {
  const std::string direction = param(m, "direction");
  const std::string memory = param(m, "host_memory");
  if (memory != "pinned") {
    return not_judged((memory.empty() ? std::string("unnamed") : memory) +
                      " host memory is compared with pinned in the findings, not judged");
  }
  if (param(m, "numa") == "remote") {
    return not_judged("copies from the far NUMA node are compared in the findings, not judged");
  }
  if (direction == "h2d" || direction == "d2h" || direction == "bidir") {
    return percent_check("pcie.pinned_" + direction + "_min_percent");
  }
  return not_judged("no threshold for direction '" + direction + "'");
}

// Copies to several GPUs at once ("gpu_bdf": "a,b"): each over its own link, so the sum bounds.
std::optional<Ceiling> several_gpus_pcie(const Measurement& m, const Inventory& inventory) {
  const std::string list = param(m, "gpu_bdf");
  double total = 0;
  std::string parts;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    Measurement one;
    one.params["gpu_bdf"] = list.substr(start, end - start);
    const GpuInfo* gpu = find_gpu(one, inventory);
    if (gpu == nullptr) return std::nullopt;
    const auto link = max_link(gpu->pcie);
    if (!link) return std::nullopt;
    total += link->value;
    parts += (parts.empty() ? "" : " + ") + figure(link->value, "GB/s");
    start = end + 1;
  }
  const bool both = param(m, "direction") == "bidir";
  if (both) total *= 2;
  return Ceiling{total, "GB/s", "link",
                 figure(total, "GB/s") + " = " + (both ? "2 x (" + parts + ")" : parts) +
                     ": each GPU's PCIe link at its maximum, per direction"};
}

std::optional<Ceiling> pcie_rule(const Measurement& m, const Inventory& inventory) {
  if (param(m, "gpu_bdf").find(',') != std::string::npos) return several_gpus_pcie(m, inventory);
  const GpuInfo* gpu = find_gpu(m, inventory);
  if (gpu == nullptr) return std::nullopt;
  auto link = max_link(gpu->pcie);
  if (link && param(m, "direction") == "bidir") {
    link->value *= 2;
    link->derivation = figure(link->value, "GB/s") + " = 2 x " + link->derivation + " (both directions)";
  }
  if (link) link->derivation += "; the link's maximum, since an idle link trains up under load";
  return link;
}

}  // namespace

StageSpec pcie_stage() {
  StageSpec s;
  s.name = stage_name::pcie;
  s.title = "PCIe copies, host to and from GPU";
  s.description =
      "host<->device copies: h2d/d2h/bidir, pinned/pageable/mapped, copy engine and SM kernel, "
      "4 KiB-1 GiB, NUMA local/remote, all GPUs at once";
  s.executable = "pipecheck-pcie";
  s.probe_needs_cuda = true;
  s.runs_on_gpu = true;
  s.planned_cases = [](const Inventory& inventory, ProbeMode mode) {
    return planned_pcie_cases(static_cast<int>(stage_rules::cuda_gpus(inventory).size()), mode);
  };
  s.ceiling = [](const Measurement& m, const StageContext& c) { return pcie_ceiling(m, c.inventory, c.siblings); };
  s.physical = [](const Measurement& m, const Inventory& as_found, const Inventory&) { return pcie_rule(m, as_found); };
  s.checks = pcie_checks;
  s.profile_text = R"(# Host<->GPU copies (stage pcie), % of the GPU's PCIe link per direction (bidir: both
# directions). Pinned host memory on the GPU's own NUMA node is the figure a loader can reach;
# pageable, mapped and remote-NUMA copies are shown against it in the findings, not judged.
pcie.pinned_h2d_min_percent = 80
pcie.pinned_d2h_min_percent = 80
pcie.pinned_bidir_min_percent = 70
# A GPU link trained below its maximum speed or width: fail | warn | info.
pcie.link_downtrained = fail
)";
  s.profile_keys = {
      {"pcie.pinned_h2d_min_percent", ProfileValueKind::percent, "pinned host-to-device copy, min % of the GPU's link"},
      {"pcie.pinned_d2h_min_percent", ProfileValueKind::percent, "pinned device-to-host copy, min % of the GPU's link"},
      {"pcie.pinned_bidir_min_percent", ProfileValueKind::percent, "pinned copies both ways at once, min % of both directions"},
      {"pcie.link_downtrained", ProfileValueKind::policy, "verdict for a GPU link trained below its maximum"},
  };
  s.advice =
      "Check the GPU's link width and speed while copies run (pipecheck inventory, nvidia-smi -q -d PCIE); "
      "reseat the card or its riser and check the BIOS PCIe settings. Copy from pinned memory on the GPU's "
      "NUMA node.";
  s.measurement_contract =
      "gpu, gpu_bdf, direction (h2d|d2h|bidir), host_memory (pinned|pageable|mapped), numa (local|remote); unit "
      "GB/s. Ceiling: pcie_link_ceiling of the GPU's link, per direction; bidir (both directions summed) against "
      "twice it.";
  return s;
}

}  // namespace pipecheck
