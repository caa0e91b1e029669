// A shared library the GPU parts need but this node lacks (CUDA's math libraries are not Debian
// packages): its name read from the loader's words, and what to install, so that a missing
// library is a skip with its reason rather than a crash.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pipecheck {

// The library the dynamic loader could not load, from ld.so's "error while loading shared
// libraries: libcublas.so.13: cannot open shared object file: ..." or dlerror()'s
// "libcublas.so.13: cannot open shared object file: ..." (or "/path/libnccl.so.2: file too
// short"): its file name; nullopt for any other text.
std::optional<std::string> missing_shared_library(std::string_view loader_text);

// What provides a library, for the reason line: "cuBLAS (NVIDIA's libcublas package for this
// CUDA version, or a CUDA toolkit)"; a generic phrase for libraries pipecheck does not know.
std::string library_provider(const std::string& soname);

// "libcublas.so.13 not found: install cuBLAS (...) where the loader finds it (ldconfig or
// LD_LIBRARY_PATH)".
std::string missing_library_reason(const std::string& soname);

}  // namespace pipecheck
