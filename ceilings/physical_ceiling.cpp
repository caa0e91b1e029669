// Physical ceilings: the bound above which a figure is invalid, per stage, with its derivation.
#include "ceilings/physical_ceiling.hpp"

#include <cstdio>
#include <cstdlib>

#include "ceilings/ceilings.hpp"
#include "ceilings/cpu_ceiling.hpp"
#include "core/figure_text.hpp"
#include "core/stage_registry.hpp"

namespace pipecheck {

namespace {

std::string param(const Measurement& m, const std::string& name) { return param_or_empty(m.params, name); }

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

Inventory at_full_link_speed(Inventory inventory) {
  for (GpuInfo& gpu : inventory.gpus) gpu.pcie = at_max(gpu.pcie);
  for (BlockDevice& disk : inventory.disks) disk.pcie = at_max(disk.pcie);
  return inventory;
}

PhysicalCeilings::PhysicalCeilings(const Inventory& inventory)
    : inventory_(inventory), full_speed_(at_full_link_speed(inventory)) {}

std::optional<Ceiling> PhysicalCeilings::of(const Measurement& m) const {
  std::optional<Ceiling> bound;
  if (const StageSpec* stage = find_stage(m.stage)) bound = stage->physical(m, inventory_, full_speed_);
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
