// The probes `pipecheck run` knows: every registered stage that has a probe executable
// (core/stage_registry), in pipeline order, as the driver needs them.
#pragma once

#include <string>
#include <vector>

namespace pipecheck {

struct ProbeEntry {
  std::string stage;        // a stage key (core/stage_names.hpp)
  std::string executable;   // "pipecheck-hostmem", beside the pipecheck binary
  bool needs_cuda = false;  // not built without a CUDA toolkit
  std::string description;
};

std::vector<ProbeEntry> probe_catalog();
// storage, decode, ... for messages: the stages `run` can run.
std::string known_stages();

}  // namespace pipecheck
