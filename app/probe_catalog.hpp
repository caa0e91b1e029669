// The probes `pipecheck run` knows: stage name, executable, and what it needs to be built.
// Each issue that adds a probe adds its row here.
#pragma once

#include <string>
#include <vector>

namespace pipecheck {

struct ProbeEntry {
  std::string stage;        // "hostmem"
  std::string executable;   // "pipecheck-hostmem", beside the pipecheck binary
  bool needs_cuda = false;  // not built without a CUDA toolkit
  std::string description;
};

const std::vector<ProbeEntry>& probe_catalog();
// "hostmem, storage, ..." for messages.
std::string known_stages();

}  // namespace pipecheck
