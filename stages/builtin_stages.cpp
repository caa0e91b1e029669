// The stages pipecheck knows, in the order data flows through a training pipeline. A new probe
// adds its record (stages/<name>_stage.cpp) and one line here.
#include "core/stage_registry.hpp"
#include "stages/stages.hpp"

namespace pipecheck {

std::vector<StageSpec> builtin_stages() {
  return {
      storage_stage(),
      decode_stage(),
      hostmem_stage(),
      pcie_stage(),
      memory_stage(),
      compute_stage(),
      comm_stage(),
      stress_stage(),
  };
}

}  // namespace pipecheck
