// The NCCL version pipecheck is linked with: nccl_version_nccl.cpp asks ncclGetVersion,
// nccl_version_nonccl.cpp says "not built".
#pragma once

#include <optional>
#include <string>

namespace pipecheck {

struct NcclVersion {
  bool built = false;
  std::optional<int> code;  // ncclGetVersion: 22703 = 2.27.3
  std::string error;        // why there is no version
};

NcclVersion query_nccl_version();

}  // namespace pipecheck
