// The table of probes, in the order data flows through a training pipeline.
#include "app/probe_catalog.hpp"

namespace pipecheck {

const std::vector<ProbeEntry>& probe_catalog() {
  static const std::vector<ProbeEntry> catalog = {
      {"storage", "pipecheck-storage", false,
       "storage reads through io_uring: sequential 1 MiB, random 4 KiB IOPS with latency, "
       "dataset files, cold page cache, and a one-thread pread baseline"},
      {"decode", "pipecheck-jpeg", false,
       "CPU JPEG decode (TurboJPEG): full, DCT-scaled 1/2 1/4, decode+resize to the training size; "
       "1 thread to all cores; nvJPEG when present"},
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
