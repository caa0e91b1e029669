// The registry of stages, in the order data flows through a training pipeline. Built from the
// records of stages/ (stages/builtin_stages.cpp); a test may add one of its own for its lifetime.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/stage_spec.hpp"

namespace pipecheck {

// Every registered stage, in pipeline order.
const std::vector<StageSpec>& stage_registry();
// The stage of that name, or nullptr (a stage of an older or newer pipecheck in a saved report).
const StageSpec* find_stage(const std::string& name);
// A stage's title, or its name when no stage of that name is registered.
std::string stage_title(const std::string& name);

// Changes each time a stage is added or removed (for what is built from the registry once).
std::size_t stage_registry_generation();

// The records stages/ defines (one line each in stages/builtin_stages.cpp).
std::vector<StageSpec> builtin_stages();

// Registers a stage for as long as it lives (tests: a fake probe through run, report, every
// renderer and compare). Throws std::invalid_argument for an incomplete record or a taken name.
class ScopedStage {
 public:
  explicit ScopedStage(StageSpec spec);
  ~ScopedStage();
  ScopedStage(const ScopedStage&) = delete;
  ScopedStage& operator=(const ScopedStage&) = delete;

 private:
  std::string name_;
};

}  // namespace pipecheck
