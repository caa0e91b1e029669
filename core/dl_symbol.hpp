// Binding a function pointer to a symbol of a library loaded with dlopen (NVML, the CUDA
// driver): whatever the function's signature, a missing symbol or library leaves it null.
#pragma once

#include <dlfcn.h>

namespace pipecheck {

template <typename Fn>
void bind_symbol(void* handle, const char* name, Fn*& into) {
  into = handle ? reinterpret_cast<Fn*>(dlsym(handle, name)) : nullptr;
}

}  // namespace pipecheck
