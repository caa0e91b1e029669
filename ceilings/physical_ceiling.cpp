// Physical ceilings: the bound above which a figure is invalid, per stage, with its derivation.
#include "ceilings/physical_ceiling.hpp"

#include <cstdio>
#include <cstdlib>

#include "ceilings/ceilings.hpp"
#include "ceilings/cpu_ceiling.hpp"
#include "core/figure_text.hpp"
#include "report/report.hpp"

namespace pipecheck {

namespace {

std::string param(const Measurement& m, const std::string& name) { return param_or_empty(m.params, name); }

PcieLink at_max(PcieLink link) {
  if (link.max_gts) link.current_gts = link.max_gts;
  if (link.max_width) link.current_width = link.max_width;
  return link;
}

// The larger of two known ceilings (vendor and theoretical), or the one known.
std::optional<Ceiling> larger(const CeilingResult& a, const CeilingResult& b) {
  if (!a.ceiling) return b.ceiling;
  if (!b.ceiling) return a.ceiling;
  return a.ceiling->value >= b.ceiling->value ? a.ceiling : b.ceiling;
}

// A link figure is physical only when the link's maximum is known: a link read below an unknown
// maximum may train up under load.
std::optional<Ceiling> max_link(const PcieLink& link) {
  if (!link.max_gts || !link.max_width) return std::nullopt;
  return pcie_link_ceiling(at_max(link)).ceiling;
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

// nccl-tests' bus factor of the measurement: its param, else 2(n-1)/n from its ranks, else 2.
double all_reduce_factor(const Measurement& m) {
  const std::string recorded = param(m, "bus_factor");
  if (!recorded.empty() && std::atof(recorded.c_str()) > 0) return std::atof(recorded.c_str());
  const int ranks = int_param(m.params, "ranks", 0);
  return ranks > 0 ? 2.0 * (ranks - 1) / ranks : 2.0;
}

std::optional<Ceiling> comm_rule(const Measurement& m, const Inventory& full_speed) {
  auto bound = ceiling_for(m, full_speed).ceiling;
  if (!bound || param(m, "collective") != "all_reduce") return bound;
  const double factor = all_reduce_factor(m);
  if (factor <= 1) return bound;
  char text[64];
  std::snprintf(text, sizeof text, " x %.3g", factor);
  bound->derivation = figure(bound->value * factor, bound->unit) + " = (" + bound->derivation + ")" + text +
                      " bus factor: with in-network reduction (NVLS, SHARP) an all-reduce moves each byte "
                      "once each way, so its bus bandwidth may exceed the link by that factor";
  bound->value *= factor;
  return bound;
}

bool names_a_gpu(const Measurement& m) { return !param(m, "gpu").empty() || !param(m, "gpu_bdf").empty(); }

bool is_flop_rate(const std::string& unit) { return unit == "GFLOP/s" || unit == "TFLOP/s"; }

// A CPU figure in FLOP/s with no ceiling: the sanity bound, in the measurement's unit.
std::optional<Ceiling> cpu_flops_rule(const Measurement& m, const Inventory& inventory) {
  if (!is_flop_rate(m.unit) || names_a_gpu(m)) return std::nullopt;
  std::string precision = param(m, "dtype");
  if (precision.empty()) precision = param(m, "precision");
  const int cores = inventory.cpu.physical_cores.value_or(0) > 0 ? *inventory.cpu.physical_cores
                                                                : inventory.cpu.logical_cpus.value_or(0);
  if (cores <= 0) return std::nullopt;  // no core counted: no bound is known, none is invented
  // Without a stated precision the FP32 bound, the looser one, so that no honest figure trips it.
  std::optional<Ceiling> bound =
      cpu_sanity_bound(static_cast<unsigned>(cores), precision == "fp64" ? CpuPrecision::fp64 : CpuPrecision::fp32);
  if (m.unit == "TFLOP/s") {
    bound->value /= 1000;
    bound->unit = "TFLOP/s";
  }
  return bound;
}

}  // namespace

Inventory at_full_link_speed(Inventory inventory) {
  for (GpuInfo& gpu : inventory.gpus) gpu.pcie = at_max(gpu.pcie);
  for (BlockDevice& disk : inventory.disks) disk.pcie = at_max(disk.pcie);
  return inventory;
}

PhysicalCeilings::PhysicalCeilings(const Inventory& inventory)
    : inventory_(inventory), full_speed_(at_full_link_speed(inventory)) {}

std::optional<Ceiling> PhysicalCeilings::of(const Measurement& m) const {
  std::optional<Ceiling> bound;
  if (m.stage == "decode") {
    // CPU decode is held against linear scaling, a reference; GPU decode has no figure.
    bound = std::nullopt;
  } else if (m.stage == "compute") {
    const auto dtype = parse_dtype(param(m, "dtype"));
    const GpuInfo* gpu = find_gpu(m, inventory_);
    if (dtype && gpu) {
      const ComputeCeilings c = gpu_compute_ceiling(*gpu, *dtype);
      bound = larger(c.theoretical, c.vendor);
    }
  } else if (m.stage == "memory") {
    if (const GpuInfo* gpu = find_gpu(m, inventory_)) {
      const ComputeCeilings c = gpu_memory_ceiling(*gpu);
      bound = larger(c.theoretical, c.vendor);
    }
  } else if (m.stage == "pcie") {
    bound = pcie_rule(m, inventory_);
  } else if (m.stage == "comm") {
    bound = comm_rule(m, full_speed_);
  } else if (m.stage == "storage") {
    const PcieLink* link = nullptr;
    for (const auto& disk : inventory_.disks) {
      if (disk.name == param(m, "device") && disk.kind == DiskKind::nvme) link = &disk.pcie;
    }
    // An NVMe link read below an unknown maximum may train up: no bound then.
    if (link == nullptr || max_link(*link)) bound = ceiling_for(m, full_speed_).ceiling;
  } else {
    bound = ceiling_for(m, full_speed_).ceiling;
  }
  if (bound && bound->basis == "linear scaling") bound.reset();
  if (bound && bound->unit != m.unit) bound.reset();
  if (!bound) bound = cpu_flops_rule(m, inventory_);
  return bound;
}

std::optional<std::string> PhysicalCeilings::violation(const Measurement& m) const {
  const auto bound = of(m);
  if (!bound || bound->value <= 0 || m.stats.median <= bound->value * kInvalidAbovePercent / 100) return std::nullopt;
  return "measured " + figure(m.stats.median, m.unit) + ", above the physical ceiling " + figure(bound->value, bound->unit) +
         ": the probe measured something else, or the ceiling is wrong (" + bound->derivation + ")";
}

}  // namespace pipecheck
