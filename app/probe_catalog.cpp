// The table of probes, in the order data flows through a training pipeline.
#include "app/probe_catalog.hpp"

namespace pipecheck {

const std::vector<ProbeEntry>& probe_catalog() {
  static const std::vector<ProbeEntry> catalog = {
      {"hostmem", "pipecheck-hostmem", false,
       "host memory bandwidth: memcpy, read, write; 1 thread and all cores"},
  };
  return catalog;
}

std::string known_stages() {
  std::string names;
  for (const auto& entry : probe_catalog()) names += (names.empty() ? "" : ", ") + entry.stage;
  return names;
}

}  // namespace pipecheck
