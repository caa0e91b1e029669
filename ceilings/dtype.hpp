// The GEMM data types the ceilings are known for, by their names in measurements ("bf16").
// The GPU tables (ceilings/gpu_specs) and the ceilings model (ceilings/ceilings) share them.
#pragma once

#include <optional>
#include <string>

namespace pipecheck {

enum class Dtype { fp64, fp32, tf32, fp16, bf16, fp8, int8 };
const char* to_string(Dtype dtype);
std::optional<Dtype> parse_dtype(const std::string& text);  // "bf16" -> Dtype::bf16

}  // namespace pipecheck
