// GEMM work model: dtypes, shape sweep and parsing, FLOP counting, input rotation.
#include "compute/gemm_shapes.hpp"

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

namespace {

struct DtypeInfo {
  GemmDtype dtype;
  const char* name;
  int input_bytes;
  int output_bytes;  // fp8 writes bf16, int8 writes int32
  int min_cc;        // major*10 + minor
};
constexpr DtypeInfo kDtypes[] = {
    {GemmDtype::fp64, "fp64", 8, 8, 60},  {GemmDtype::fp32, "fp32", 4, 4, 60},
    {GemmDtype::tf32, "tf32", 4, 4, 80},  {GemmDtype::fp16, "fp16", 2, 2, 70},
    {GemmDtype::bf16, "bf16", 2, 2, 80},  {GemmDtype::fp8, "fp8", 1, 2, 89},
    {GemmDtype::int8, "int8", 1, 4, 75},
};

const DtypeInfo& info(GemmDtype dtype) {
  for (const auto& entry : kDtypes) {
    if (entry.dtype == dtype) return entry;
  }
  return kDtypes[0];
}

std::optional<std::int64_t> dimension(const std::string& text) {
  if (text.empty() || text.size() > 7 || text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const std::int64_t value = std::stoll(text);
  return value > 0 ? std::optional<std::int64_t>(value) : std::nullopt;
}

}  // namespace

const char* dtype_name(GemmDtype dtype) { return info(dtype).name; }

std::optional<GemmDtype> parse_gemm_dtype(const std::string& text) {
  for (const auto& entry : kDtypes) {
    if (text == entry.name) return entry.dtype;
  }
  return std::nullopt;
}

const std::vector<GemmDtype>& all_dtypes() {
  static const std::vector<GemmDtype> dtypes = {GemmDtype::fp64, GemmDtype::fp32, GemmDtype::tf32,
                                                GemmDtype::fp16, GemmDtype::bf16, GemmDtype::fp8,
                                                GemmDtype::int8};
  return dtypes;
}

int input_element_bytes(GemmDtype dtype) { return info(dtype).input_bytes; }
int output_element_bytes(GemmDtype dtype) { return info(dtype).output_bytes; }

bool dtype_supported(GemmDtype dtype, int cc_major, int cc_minor) {
  return cc_major * 10 + cc_minor >= info(dtype).min_cc;
}

const char* rate_counter_name(GemmDtype dtype) {
  return dtype == GemmDtype::int8 ? "op_per_second" : "flop_per_second";
}

std::string shape_text(const GemmShape& shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

GemmShape parse_shape(const std::string& text) {
  std::string lowered = text;
  std::replace(lowered.begin(), lowered.end(), 'X', 'x');
  const auto first = lowered.find('x');
  const auto second = first == std::string::npos ? first : lowered.find('x', first + 1);
  const auto third = second == std::string::npos ? second : lowered.find('x', second + 1);
  if (first == std::string::npos || second == std::string::npos || third != std::string::npos) {
    throw UsageError("--shape " + shortened(text) + ": expected MxNxK, e.g. --shape 8192x8192x8192");
  }
  const auto m = dimension(lowered.substr(0, first));
  const auto n = dimension(lowered.substr(first + 1, second - first - 1));
  const auto k = dimension(lowered.substr(second + 1));
  if (!m || !n || !k) {
    throw UsageError("--shape " + shortened(text) +
                     ": M, N and K must be whole numbers from 1 to 9999999, e.g. 8192x8192x8192");
  }
  return {*m, *n, *k};
}

std::string shape_misfit(const GemmShape& shape, GemmDtype dtype) {
  if (dtype != GemmDtype::fp8 && dtype != GemmDtype::int8) return "";
  if (shape.m % 16 != 0 || shape.n % 16 != 0 || shape.k % 16 != 0) return "dimensions must be multiples of 16";
  if (dtype == GemmDtype::int8 && shape.k > kInt8MaxExactK) {
    return "K must be at most " + std::to_string(kInt8MaxExactK) + " so its int32 sums are exact";
  }
  return "";
}

std::vector<GemmShape> default_shapes(ProbeMode mode, GemmDtype dtype) {
  const bool slow = dtype == GemmDtype::fp64 || dtype == GemmDtype::fp32;
  if (mode == ProbeMode::quick) return {{8192, 8192, 8192}};
  std::vector<GemmShape> shapes = {{4096, 4096, 4096},
                                   {6144, 6144, 6144},
                                   {8192, 8192, 8192},
                                   {16384, 8192, 8192},
                                   {8192, 8192, 16384}};
  if (mode == ProbeMode::full) {
    shapes.push_back({12288, 12288, 12288});
    shapes.push_back({16384, 16384, 16384});
    shapes.push_back({6912, 16384, 2048});  // a best shape of mamf-finder's H100 sweeps
  }
  if (slow) {
    std::erase_if(shapes, [](const GemmShape& s) { return gemm_flops(s) > 2.0 * 16384.0 * 8192 * 8192; });
  }
  return shapes;
}

double gemm_flops(const GemmShape& shape) {
  return 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) *
         static_cast<double>(shape.k);
}

std::uint64_t padded_operand_bytes(std::uint64_t elements, int element_bytes) {
  const std::uint64_t bytes = elements * static_cast<std::uint64_t>(element_bytes);
  return (bytes + kGemmOperandAlignment - 1) / kGemmOperandAlignment * kGemmOperandAlignment;
}

std::uint64_t input_set_bytes(const GemmShape& shape, GemmDtype dtype) {
  const int bytes = input_element_bytes(dtype);
  return padded_operand_bytes(static_cast<std::uint64_t>(shape.m * shape.k), bytes) +
         padded_operand_bytes(static_cast<std::uint64_t>(shape.k * shape.n), bytes);
}

int rotation_sets(const GemmShape& shape, GemmDtype dtype, std::uint64_t l2_bytes,
                  std::uint64_t memory_budget) {
  const std::uint64_t one = std::max<std::uint64_t>(input_set_bytes(shape, dtype), 1);
  std::uint64_t sets = (4 * l2_bytes + one - 1) / one;
  sets = std::clamp<std::uint64_t>(sets, 1, 16);
  sets = std::min<std::uint64_t>(sets, std::max<std::uint64_t>(memory_budget / one, 1));
  return static_cast<int>(sets);
}

int calls_per_iteration(double seconds_per_call, double target_seconds) {
  if (!(seconds_per_call > 0)) return 1;
  const double calls = std::ceil(target_seconds / seconds_per_call);
  return static_cast<int>(std::clamp(calls, 1.0, 1000.0));
}

std::vector<std::string> planned_gemm_cases(const std::vector<std::pair<int, int>>& compute_capabilities, ProbeMode mode) {
  std::vector<std::string> names;
  for (std::size_t gpu = 0; gpu < compute_capabilities.size(); ++gpu) {
    const auto [major, minor] = compute_capabilities[gpu];
    for (GemmDtype dtype : all_dtypes()) {
      if (!dtype_supported(dtype, major, minor)) continue;
      for (const GemmShape& shape : default_shapes(mode, dtype)) {
        if (!shape_misfit(shape, dtype).empty()) continue;
        names.push_back(std::string("gemm/") + dtype_name(dtype) + "/" + shape_text(shape) + "/gpu" + std::to_string(gpu));
      }
    }
  }
  return names;
}

}  // namespace pipecheck
