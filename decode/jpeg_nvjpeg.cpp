// nvJPEG loaded with dlopen, so builds without the nvJPEG header still measure GPU decode where
// the library is installed at run time.
#include "decode/jpeg_nvjpeg.hpp"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <utility>

namespace pipecheck {

// The bare sonames (the loader's path, LD_LIBRARY_PATH), then the same names in the CUDA
// toolkit's lib64, which is often not on the loader's path.
const std::vector<std::string>& nvjpeg_sonames() {
  static const std::vector<std::string> names = [] {
    const std::vector<std::string> bare = {"libnvjpeg.so.13", "libnvjpeg.so.12", "libnvjpeg.so.11", "libnvjpeg.so"};
    std::vector<std::string> all = bare;
    std::vector<std::string> dirs;
    if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') dirs.push_back(home);
    dirs.push_back("/usr/local/cuda");
    for (const auto& dir : dirs) {
      for (const auto& name : bare) all.push_back(dir + "/lib64/" + name);
    }
    return all;
  }();
  return names;
}

namespace {

template <typename Fn>
bool resolve_symbol(void* library, const char* name, Fn& slot, std::string& missing) {
  slot = reinterpret_cast<Fn>(dlsym(library, name));
  if (slot == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return slot != nullptr;
}

}  // namespace

bool NvjpegLibrary::resolve_all(void* library) {
  std::string missing;
  resolve_symbol(library, "nvjpegCreateEx", api_.create_ex, missing);
  resolve_symbol(library, "nvjpegDestroy", api_.destroy, missing);
  resolve_symbol(library, "nvjpegJpegStateCreate", api_.state_create, missing);
  resolve_symbol(library, "nvjpegJpegStateDestroy", api_.state_destroy, missing);
  resolve_symbol(library, "nvjpegDecodeBatchedInitialize", api_.decode_batched_initialize, missing);
  resolve_symbol(library, "nvjpegDecodeBatched", api_.decode_batched, missing);
  if (!missing.empty()) error_ = soname_ + " lacks " + missing;
  return missing.empty();
}

NvjpegLibrary::NvjpegLibrary(const std::vector<std::string>& sonames) {
  std::string tried;
  for (const auto& name : sonames) {
    tried += (tried.empty() ? "" : ", ") + name;
    void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) continue;
    soname_ = name;
    if (resolve_all(library)) {
      handle_ = library;
      error_.clear();
      return;
    }
    dlclose(library);
    api_ = {};
  }
  if (error_.empty()) error_ = "none of " + tried + " could be loaded";
  soname_.clear();
}

NvjpegLibrary::~NvjpegLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

std::string nvjpeg_status_text(nvjpeg::Status status) {
  // nvjpegStatus_t in nvjpeg.h order.
  static constexpr std::array<const char*, 11> names = {
      "NVJPEG_STATUS_SUCCESS",          "NVJPEG_STATUS_NOT_INITIALIZED",
      "NVJPEG_STATUS_INVALID_PARAMETER", "NVJPEG_STATUS_BAD_JPEG",
      "NVJPEG_STATUS_JPEG_NOT_SUPPORTED", "NVJPEG_STATUS_ALLOCATOR_FAILURE",
      "NVJPEG_STATUS_EXECUTION_FAILED", "NVJPEG_STATUS_ARCH_MISMATCH",
      "NVJPEG_STATUS_INTERNAL_ERROR",   "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED",
      "NVJPEG_STATUS_INCOMPLETE_BITSTREAM"};
  const std::string code = " (" + std::to_string(status) + ")";
  if (status >= 0 && static_cast<std::size_t>(status) < names.size()) return names[status] + code;
  return "nvJPEG status" + code;
}

std::string nvjpeg_call_error(const char* call, int device, nvjpeg::Status status) {
  if (status == nvjpeg::success) return "";
  return std::string(call) + " on GPU " + std::to_string(device) + ": " + nvjpeg_status_text(status);
}

std::string nvjpeg_skip_status(const NvjpegLibrary& library) {
  return "skipped: no nvJPEG (" + library.error() + ")";
}

}  // namespace pipecheck
