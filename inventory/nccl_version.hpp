// The NCCL version the GPU probes will load: libnccl.so.2 opened at run time and asked through
// ncclGetVersion, so the command links no NCCL and runs on a node without it.
#pragma once

#include <optional>
#include <string>

namespace pipecheck {

struct NcclVersion {
  bool built = false;       // this build has the NCCL probe (NCCL found at configure time)
  std::optional<int> code;  // ncclGetVersion: 22703 = 2.27.3
  std::string error;        // why there is no version ("libnccl.so.2 not found: ...; install libnccl2")
};

// `library`: the file to dlopen (tests pass another).
NcclVersion query_nccl_version(const std::string& library = "libnccl.so.2");

}  // namespace pipecheck
