// The GEMM data types (see dtype.hpp).
#include "ceilings/dtype.hpp"

#include <cctype>

namespace pipecheck {

const char* to_string(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp64: return "fp64";
    case Dtype::fp32: return "fp32";
    case Dtype::tf32: return "tf32";
    case Dtype::fp16: return "fp16";
    case Dtype::bf16: return "bf16";
    case Dtype::fp8: return "fp8";
    case Dtype::int8: return "int8";
  }
  return "unknown";
}

std::optional<Dtype> parse_dtype(const std::string& text) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (Dtype dtype : {Dtype::fp64, Dtype::fp32, Dtype::tf32, Dtype::fp16, Dtype::bf16, Dtype::fp8,
                      Dtype::int8}) {
    if (lower == to_string(dtype)) return dtype;
  }
  return std::nullopt;
}

}  // namespace pipecheck
