// Reading the loader's "cannot open shared object file" and naming what to install.
#include "core/missing_library.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace pipecheck {

std::optional<std::string> missing_shared_library(std::string_view text) {
  // ld.so starting an executable: "prog: error while loading shared libraries: NAME: why".
  constexpr std::string_view loader = "error while loading shared libraries: ";
  std::string_view name;
  if (const auto at = text.find(loader); at != std::string_view::npos) {
    name = text.substr(at + loader.size());
  } else {
    name = text;  // dlerror(): "NAME: cannot open shared object file: ...", "/path/NAME: file too short"
  }
  const auto colon = name.find(": ");
  if (colon == std::string_view::npos) return std::nullopt;
  name = name.substr(0, colon);
  if (const auto slash = name.rfind('/'); slash != std::string_view::npos) name = name.substr(slash + 1);
  const bool shared_object = name.find(".so") != std::string_view::npos;
  const bool one_word = std::none_of(name.begin(), name.end(), [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
  });
  if (name.empty() || !shared_object || !one_word) return std::nullopt;
  return std::string(name);
}

std::string library_provider(const std::string& soname) {
  // Prefix of the soname -> what provides it. NVIDIA ships the CUDA libraries as its own
  // packages (cuda-libraries-*, libcublas-*, libnccl2) or inside a CUDA toolkit; the driver
  // brings libcuda and libnvidia-ml.
  static const std::array<std::pair<const char*, const char*>, 8> providers{{
      {"libcublasLt", "cuBLASLt (NVIDIA's libcublas package for this CUDA version, or a CUDA toolkit)"},
      {"libcublas", "cuBLAS (NVIDIA's libcublas package for this CUDA version, or a CUDA toolkit)"},
      {"libcudart", "the CUDA runtime (NVIDIA's cuda-cudart package, or a CUDA toolkit)"},
      {"libnccl", "NCCL (NVIDIA's libnccl2 package)"},
      {"libnvjpeg", "nvJPEG (NVIDIA's libnvjpeg package, or a CUDA toolkit)"},
      {"libcuda.", "the NVIDIA driver (libcuda comes with it)"},
      {"libnvidia-ml", "the NVIDIA driver (NVML comes with it)"},
      {"libmpi", "Open MPI (Debian's libopenmpi3)"},
  }};
  for (const auto& [prefix, provider] : providers) {
    if (soname.rfind(prefix, 0) == 0) return provider;
  }
  return "the package that provides it";
}

std::string missing_library_reason(const std::string& soname) {
  return soname + " not found: install " + library_provider(soname) +
         " where the loader finds it (ldconfig or LD_LIBRARY_PATH)";
}

}  // namespace pipecheck
