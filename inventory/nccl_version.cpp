// ncclGetVersion from libnccl.so.2, loaded with dlopen (it needs no GPU: it reports the library's
// own version). The library stays loaded: NCCL does not expect to be unloaded.
#include "inventory/nccl_version.hpp"

#include <dlfcn.h>

#include "pipecheck_config.hpp"

namespace pipecheck {

NcclVersion query_nccl_version(const std::string& library) {
  NcclVersion result;
  result.built = PIPECHECK_HAVE_NCCL == 1;
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    result.error = library + " not found: " + (why ? why : "unknown dlopen error") +
                   " (NVIDIA's libnccl2 package, or NCCL from a CUDA install)";
    return result;
  }
  using GetVersion = int (*)(int*);  // ncclResult_t ncclGetVersion(int*)
  const auto get_version = reinterpret_cast<GetVersion>(dlsym(handle, "ncclGetVersion"));
  if (!get_version) {
    result.error = library + " lacks ncclGetVersion (not NCCL)";
    return result;
  }
  int code = 0;
  const int rc = get_version(&code);
  if (rc != 0) {
    result.error = "ncclGetVersion: NCCL error " + std::to_string(rc);
    return result;
  }
  result.code = code;
  return result;
}

}  // namespace pipecheck
