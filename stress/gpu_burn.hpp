// The GPU burn: GEMMs through cuBLAS on one GPU, every result compared on the device with a
// reference computed once (and itself spot-checked against FP64 dot products), plus a memory
// test writing and reading back patterns over most of the free memory. gpu_burn.cu is the CUDA
// side, built as its own module (modules/pipecheck-gpu-burn.so beside the command) that
// gpu_burn_loader.cpp loads at run time, so the command links no CUDA library: where cuBLAS or
// the driver is missing the burn is unavailable, with the reason.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "stress/burn_worker.hpp"

namespace pipecheck {

enum class BurnDtype { fp64, fp32, tf32, fp16, bf16 };

// BF16 is the default: tensor-core GEMMs draw the most power on the GPUs this is for
// (gpu-fryer burns BF16 too); FP32 SGEMM is gpu-burn's choice and stays available.
constexpr BurnDtype default_burn_dtype = BurnDtype::bf16;

std::string burn_dtype_name(BurnDtype dtype);
std::optional<BurnDtype> parse_burn_dtype(const std::string& name);
std::string burn_dtype_names();  // "fp64, fp32, tf32, fp16, bf16"

struct GpuBurnConfig {
  int cuda_index = 0;
  std::string label;  // "gpu0 (0000:17:00.0)", for error messages
  BurnDtype dtype = default_burn_dtype;
  int matrix_n = 8192;            // gpu-burn's size: big enough to reach the power limit
  int results_per_batch = 4;      // GEMMs queued between two waits
  double verify_tolerance = 1e-3;  // burn_result_wrong()'s tolerance
  bool memtest = true;
  double memtest_fraction = 0.9;  // of the memory left free after the GEMM buffers
  double memtest_every_s = 30;    // one pattern pass this often while burning
  std::uint64_t inject_faults = 0;  // GEMM results, and memory-test words, to corrupt before the
                                    // check (--inject-faults; decided by stress/fault_injection)
};

// Bumped whenever GpuBurnConfig or BurnWorker change: a module of another build is refused.
constexpr int gpu_burn_interface_version = 1;
constexpr const char* gpu_burn_module_name = "modules/pipecheck-gpu-burn.so";  // beside the command

// True when this build has the CUDA burn.
bool gpu_burn_built();
// Why the GPU burn cannot run on this node ("not built: no CUDA toolkit", "libcublas.so.13 not
// found: install cuBLAS ..."); nullopt when its module loads. Loads it once, on first use.
std::optional<std::string> gpu_burn_unavailable();
// Throws nothing here; the worker's run() throws on CUDA/cuBLAS faults, and with the reason of
// gpu_burn_unavailable() when the module cannot be loaded.
std::unique_ptr<BurnWorker> make_gpu_burn_worker(const GpuBurnConfig& config);

// Loads a GPU burn module from `path` (the loader's work, exposed for tests): nullopt when it
// loaded and speaks this interface version, else why not.
std::optional<std::string> load_gpu_burn_module_for_test(const std::string& path);

}  // namespace pipecheck
