// Without NCCL at build time: no version, and the reason (the seam of nccl_version_nccl.cpp).
#include "inventory/nccl_version.hpp"

namespace pipecheck {

NcclVersion query_nccl_version() {
  NcclVersion result;
  result.built = false;
  result.error = "not built: no NCCL";
  return result;
}

}  // namespace pipecheck
