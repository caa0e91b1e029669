// Names of the GPU burn's data types (shared by the CUDA and the no-CUDA builds).
#include "stress/gpu_burn.hpp"

namespace pipecheck {

std::string burn_dtype_name(BurnDtype dtype) {
  switch (dtype) {
    case BurnDtype::fp64:
      return "fp64";
    case BurnDtype::fp32:
      return "fp32";
    case BurnDtype::tf32:
      return "tf32";
    case BurnDtype::fp16:
      return "fp16";
    case BurnDtype::bf16:
      return "bf16";
  }
  return "bf16";
}

std::optional<BurnDtype> parse_burn_dtype(const std::string& name) {
  for (BurnDtype dtype : {BurnDtype::fp64, BurnDtype::fp32, BurnDtype::tf32, BurnDtype::fp16,
                          BurnDtype::bf16}) {
    if (name == burn_dtype_name(dtype)) return dtype;
  }
  return std::nullopt;
}

std::string burn_dtype_names() { return "fp64, fp32, tf32, fp16, bf16"; }

}  // namespace pipecheck
