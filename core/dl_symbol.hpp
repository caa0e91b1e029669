// Binding a function pointer to a symbol of a library loaded with dlopen (NVML, the CUDA
// driver): whatever the function's signature, a missing symbol or library leaves it null.
#pragma once

#include <dlfcn.h>

#include <initializer_list>
#include <utility>

namespace pipecheck {

template <typename Fn>
void bind_symbol(void* handle, const char* name, Fn*& into) {
  into = handle ? reinterpret_cast<Fn*>(dlsym(handle, name)) : nullptr;
}

// The first of a library's required symbols (name, bound) that did not bind; nullptr when all did.
inline const char* first_missing_symbol(std::initializer_list<std::pair<const char*, bool>> required) {
  for (const auto& [name, bound] : required) {
    if (!bound) return name;
  }
  return nullptr;
}

}  // namespace pipecheck
