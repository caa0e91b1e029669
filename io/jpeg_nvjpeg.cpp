// Run-time detection of libnvjpeg, so builds without CUDA still report the GPU decode case.
#include "io/jpeg_nvjpeg.hpp"

#include <dlfcn.h>

namespace pipecheck {

const std::vector<std::string>& nvjpeg_sonames() {
  static const std::vector<std::string> names = {"libnvjpeg.so.13", "libnvjpeg.so.12",
                                                 "libnvjpeg.so.11", "libnvjpeg.so"};
  return names;
}

NvjpegPresence find_nvjpeg(const std::vector<std::string>& sonames) {
  NvjpegPresence presence;
  std::string tried;
  for (const auto& name : sonames) {
    void* library = dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL);
    tried += (tried.empty() ? "" : ", ") + name;
    if (library == nullptr) continue;
    const bool has_entry = dlsym(library, "nvjpegCreateSimple") != nullptr;
    dlclose(library);
    if (has_entry) {
      presence.found = true;
      presence.library = name;
      return presence;
    }
    presence.reason = name + " lacks nvjpegCreateSimple";
  }
  if (presence.reason.empty()) presence.reason = "none of " + tried + " could be loaded";
  return presence;
}

std::string nvjpeg_case_status(const NvjpegPresence& presence) {
  if (!presence.found) return "skipped: no nvJPEG (" + presence.reason + ")";
  return "skipped: nvJPEG found (" + presence.library +
         ") but GPU decode is not implemented yet";
}

}  // namespace pipecheck
