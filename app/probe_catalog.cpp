// The probes of the registered stages, in the order data flows through a training pipeline.
#include "app/probe_catalog.hpp"

#include "core/stage_registry.hpp"

namespace pipecheck {

std::vector<ProbeEntry> probe_catalog() {
  std::vector<ProbeEntry> catalog;
  for (const StageSpec& stage : stage_registry()) {
    if (!stage.executable.empty()) {
      catalog.push_back({stage.name, stage.executable, stage.probe_needs_cuda, stage.description});
    }
  }
  return catalog;
}

std::string known_stages() {
  std::string names;
  for (const auto& entry : probe_catalog()) names += (names.empty() ? "" : ", ") + entry.stage;
  return names;
}

}  // namespace pipecheck
