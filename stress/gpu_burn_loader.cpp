// Loads the GPU burn module (modules/pipecheck-gpu-burn.so, built from gpu_burn.cu) beside the running
// executable, once. A module that does not load (no cuBLAS, no driver) leaves the burn
// unavailable with the loader's reason and what to install.
#include <dlfcn.h>

#include <filesystem>
#include <mutex>

#include "core/errors.hpp"
#include "core/missing_library.hpp"
#include "pipecheck_config.hpp"
#include "stress/gpu_burn.hpp"

namespace pipecheck {

namespace {

using InterfaceFn = int (*)();
using MakeFn = BurnWorker* (*)(const GpuBurnConfig*);

struct GpuBurnModule {
  MakeFn make = nullptr;
  std::string error;  // why make is null
};

std::string dlerror_text() {
  const char* why = dlerror();
  return why ? why : "unknown dlopen error";
}

GpuBurnModule load_module(const std::string& path) {
  GpuBurnModule module;
  // Never closed: a hung worker may still be inside it when the run ends.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const std::string why = dlerror_text();
    if (const auto soname = missing_shared_library(why); soname && path.find(*soname) == std::string::npos) {
      module.error = "GPU burn unavailable: " + missing_library_reason(*soname);
    } else {
      module.error = "GPU burn unavailable: cannot load " + path + ": " + why;
    }
    return module;
  }
  const auto interface = reinterpret_cast<InterfaceFn>(dlsym(handle, "pipecheck_gpu_burn_interface"));
  const auto make = reinterpret_cast<MakeFn>(dlsym(handle, "pipecheck_make_gpu_burn_worker"));
  if (!interface || !make) {
    module.error = "GPU burn unavailable: " + path + " is not a pipecheck GPU burn module";
    return module;
  }
  if (interface() != gpu_burn_interface_version) {
    module.error = "GPU burn unavailable: " + path + " speaks interface " + std::to_string(interface()) +
                   ", this pipecheck " + std::to_string(gpu_burn_interface_version) +
                   " (a module of another build: reinstall pipecheck)";
    return module;
  }
  module.make = make;
  return module;
}

std::filesystem::path module_path() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return (error ? std::filesystem::current_path() : self.parent_path()) / gpu_burn_module_name;
}

const GpuBurnModule& gpu_burn_module() {
  static const GpuBurnModule module = [] {
    if (!PIPECHECK_HAVE_CUDA) {
      GpuBurnModule not_built;
      not_built.error = "GPU burn not built: no CUDA toolkit (install CUDA and reconfigure with "
                        "-DPIPECHECK_WITH_CUDA=ON)";
      return not_built;
    }
    return load_module(module_path().string());
  }();
  return module;
}

class UnavailableWorker final : public BurnWorker {
 public:
  explicit UnavailableWorker(std::string why) : why_(std::move(why)) {}
  void run(WorkerContext&) override { throw RunError(why_); }

 private:
  std::string why_;
};

}  // namespace

bool gpu_burn_built() { return PIPECHECK_HAVE_CUDA == 1; }

std::optional<std::string> gpu_burn_unavailable() {
  const GpuBurnModule& module = gpu_burn_module();
  if (module.make) return std::nullopt;
  return module.error;
}

std::unique_ptr<BurnWorker> make_gpu_burn_worker(const GpuBurnConfig& config) {
  const GpuBurnModule& module = gpu_burn_module();
  if (!module.make) return std::make_unique<UnavailableWorker>(module.error);
  return std::unique_ptr<BurnWorker>(module.make(&config));
}

std::optional<std::string> load_gpu_burn_module_for_test(const std::string& path) {
  const GpuBurnModule module = load_module(path);
  if (module.make) return std::nullopt;
  return module.error;
}

}  // namespace pipecheck
