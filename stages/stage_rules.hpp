// What the stage records of stages/ share: reading a measurement's params and the usual shapes
// of a judging rule.
#pragma once

#include <string>
#include <vector>

#include "core/figure_text.hpp"
#include "core/measurement.hpp"
#include "core/stage_spec.hpp"

namespace pipecheck::stage_rules {

inline std::string param(const Measurement& m, const std::string& name) { return param_or_empty(m.params, name); }

// One check: the figure's % of its ceiling against the key's minimum.
inline StageChecks percent_check(const std::string& key) { return {{{CheckKind::percent_min, key, 0, "", ""}}, ""}; }
inline StageChecks not_judged(const std::string& why) { return {{}, why}; }

// The GPUs CUDA sees (NVML-only ones are not the probes'), in CUDA order, for planned cases.
inline std::vector<const GpuInfo*> cuda_gpus(const Inventory& inventory) {
  std::vector<const GpuInfo*> gpus;
  for (const auto& gpu : inventory.gpus) {
    if (gpu.cuda_index >= 0) gpus.push_back(&gpu);
  }
  return gpus;
}

}  // namespace pipecheck::stage_rules
