// The physical ceiling of a measurement: what the hardware cannot exceed, so a figure above it
// (by more than kInvalidAbovePercent) is a probe bug or a wrong ceiling, verdict `invalid`
// (DESIGN principle 7). Each stage's rule is its record's (StageSpec::physical in stages/). It
// is not always the ceiling a percentage is taken against:
//  - decode's "linear scaling" is a reference, not hardware: never a physical ceiling;
//  - a PCIe link trained down at idle trains up under load: the link's maximum bounds (GPU
//    copies, NVMe reads, collectives over PCIe);
//  - a vendor tensor peak assumes a lower clock than the max: the larger of the vendor figure
//    and SMs x max clock x FLOP/clk bounds;
//  - an all-reduce with in-network reduction (NVLS, SHARP) moves each byte once each way, so its
//    bus bandwidth (nccl-tests busbw) may reach bus_factor x the link: that bounds it.
// A CPU FLOP/s figure without a known ceiling is held against the absolute sanity bound of
// ceilings/cpu_ceiling (cores x 6 GHz x 32 FP64 FLOP/cycle, twice that in FP32), over the
// inventory's physical cores (its logical CPUs when the cores are not counted).
#pragma once

#include <optional>
#include <string>

#include "core/inventory.hpp"
#include "core/measurement.hpp"

namespace pipecheck {

// A link at its maximum speed and width (where sysfs reports them).
PcieLink at_max(PcieLink link);
// The larger of two known ceilings (vendor and theoretical), or the one known.
std::optional<Ceiling> larger(const CeilingResult& a, const CeilingResult& b);
// A link figure is physical only when the link's maximum is known: a link read below an unknown
// maximum may train up under load. nullopt then.
std::optional<Ceiling> max_link(const PcieLink& link);

// Above this % of the physical ceiling a measurement is `invalid`; up to it, timer and clock
// noise on a figure at the ceiling.
constexpr double kInvalidAbovePercent = 105;

// The inventory as the hardware can run: every GPU and NVMe PCIe link at its maximum speed and
// width (where sysfs reports one).
Inventory at_full_link_speed(Inventory inventory);

class PhysicalCeilings {
 public:
  explicit PhysicalCeilings(const Inventory& inventory);
  // The ceiling `m` cannot physically exceed, or nullopt when none is known (or none applies).
  std::optional<Ceiling> of(const Measurement& m) const;
  // "measured 130 GB/s, above the physical ceiling 63.0 GB/s: the probe measured something
  // else, or the ceiling is wrong (63.0 GB/s = ...)" when m's median is above
  // kInvalidAbovePercent of its physical ceiling; nullopt otherwise.
  std::optional<std::string> violation(const Measurement& m) const;

 private:
  const Inventory& inventory_;
  Inventory full_speed_;
};

}  // namespace pipecheck
