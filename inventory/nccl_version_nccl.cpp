// NCCL's version through ncclGetVersion (needs no GPU: it reports the loaded library's version).
#include <nccl.h>

#include "inventory/nccl_version.hpp"

namespace pipecheck {

NcclVersion query_nccl_version() {
  NcclVersion result;
  result.built = true;
  int code = 0;
  const ncclResult_t rc = ncclGetVersion(&code);
  if (rc != ncclSuccess) {
    result.error = std::string("ncclGetVersion: ") + ncclGetErrorString(rc);
    return result;
  }
  result.code = code;
  return result;
}

}  // namespace pipecheck
