// The GEMM work model: dtypes and where each runs, the shape sweep, --shape MxNxK parsing,
// FLOP counting, and how many input sets rotate so that L2 does not flatter a shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/probe_main.hpp"

namespace pipecheck {

enum class GemmDtype { fp64, fp32, tf32, fp16, bf16, fp8, int8 };

const char* dtype_name(GemmDtype dtype);
// "bf16" -> bf16; nullopt for an unknown name. (Not parse_dtype: ceilings/ceilings has that.)
std::optional<GemmDtype> parse_gemm_dtype(const std::string& text);
// Every dtype, in the order the probe runs them.
const std::vector<GemmDtype>& all_dtypes();

// Bytes of one input element (A and B) and of one output element (D).
int input_element_bytes(GemmDtype dtype);
int output_element_bytes(GemmDtype dtype);

// Whether cuBLASLt has a tensor-core (or FP64) path for the dtype on compute capability
// major.minor: tf32/bf16 from 8.0, fp8 e4m3 from 8.9, int8 (IMMA) from 7.5, fp16 from 7.0.
bool dtype_supported(GemmDtype dtype, int cc_major, int cc_minor);
// "op_per_second" for int8 (TOPS), "flop_per_second" for the floating-point dtypes.
const char* rate_counter_name(GemmDtype dtype);

struct GemmShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  bool operator==(const GemmShape&) const = default;
};

// "8192x8192x8192".
std::string shape_text(const GemmShape& shape);
// "MxNxK" with positive whole numbers (also 'X'); throws UsageError naming the text.
// fp8 and int8 kernels need every dimension a multiple of 16: checked per dtype by
// shape_misfit, not here, so one --shape serves every dtype.
GemmShape parse_shape(const std::string& text);
// An int8 output element the matmul did not write keeps this poison (memset byte 0x7f).
constexpr std::int32_t kInt8Poison = 0x7f7f7f7f;
// The largest K an int8 GEMM checks exactly: inputs lie in [-127, 127], so one dot product is at
// most 127 * 127 * K in magnitude; below the poison it also stays within int32 (no overflow).
constexpr std::int64_t kInt8MaxExactK = kInt8Poison / (127 * 127);
// Why the dtype cannot run the shape, or "" when it can: fp8/int8 need multiples of 16
// (cuBLASLt's fast path); int8 needs K <= kInt8MaxExactK, else a sum could overflow int32 or equal the poison.
std::string shape_misfit(const GemmShape& shape, GemmDtype dtype);

// The sweep: square shapes and the tall/deep ones mamf-finder finds best; fewer in quick mode,
// larger in full mode. FP64 and FP32 drop the largest (seconds per call, nothing learned).
std::vector<GemmShape> default_shapes(ProbeMode mode, GemmDtype dtype);

// The case names pipecheck-compute registers for GPUs of these compute capabilities (major,
// minor), every dtype each supports over the default shapes, for `run --plan` where the probe
// cannot list them itself (no GPU here).
std::vector<std::string> planned_gemm_cases(const std::vector<std::pair<int, int>>& compute_capabilities, ProbeMode mode);

// 2*M*N*K: one multiply and one add per term (the vendor's dense FLOP convention).
double gemm_flops(const GemmShape& shape);

// cuBLASLt's heuristic picks kernels for operands aligned as cudaMalloc aligns them (256 bytes):
// each A and B of the rotating input sets starts at a multiple of this, whatever the shape, so
// a user's odd shape does not land its second set on a misaligned address.
constexpr std::uint64_t kGemmOperandAlignment = 256;
// Bytes from one set's A (or B) to the next: the matrix rounded up to kGemmOperandAlignment.
std::uint64_t padded_operand_bytes(std::uint64_t elements, int element_bytes);

// Bytes of A and B together for one input set, each padded as the sets are laid out.
std::uint64_t input_set_bytes(const GemmShape& shape, GemmDtype dtype);
// How many A/B sets to rotate through so that together they are at least 4x the L2: each call
// then reads its inputs from HBM, as a model's layers do. 1 when one set is already that large;
// at most 16; fewer when `memory_budget` (bytes) cannot hold them.
int rotation_sets(const GemmShape& shape, GemmDtype dtype, std::uint64_t l2_bytes,
                  std::uint64_t memory_budget);

// Calls per timed iteration so one iteration lasts ~`target_seconds` given one call's time
// (from algorithm selection): small shapes are batched so launch gaps do not count.
int calls_per_iteration(double seconds_per_call, double target_seconds);

}  // namespace pipecheck
