// The HBM work model (BabelStream's counting: bytes = arrays moved x sizeof(T) x N), array
// sizing from the L2 and memory sizes, launch geometry, and the host arithmetic that verifies
// the arrays after the runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/probe_main.hpp"

namespace pipecheck {

enum class HbmOp { read, write, copy, triad, d2d_memcpy };

struct HbmOpInfo {
  HbmOp op;
  const char* name;
  int arrays_moved;  // arrays read + arrays written per element
};
// read (reduce a): 1; write (fill c): 1; copy (c = a): 2; triad (a = b + s*c): 3;
// d2d_memcpy (cudaMemcpy c <- a): 2.
const std::vector<HbmOpInfo>& hbm_ops();
const HbmOpInfo& hbm_op_info(HbmOp op);

// The case names pipecheck-memory registers for `gpus` GPUs, for `run --plan` where the probe
// cannot list them itself (no GPU here).
std::vector<std::string> planned_hbm_cases(int gpus);

// The element type of the arrays: double, as BabelStream; moved as 16-byte double2 vectors.
constexpr int kHbmElementBytes = 8;
constexpr int kHbmVectorBytes = 16;

std::uint64_t hbm_bytes_moved(HbmOp op, std::uint64_t elements);

// Bytes of one array: at least 4x the L2 and at least 1 GiB (2 GiB standard, 4 GiB full), so
// that no op runs from cache; at most a quarter of the device memory (three arrays live at
// once); a multiple of 1 MiB so every vector and block divides it.
std::uint64_t hbm_array_bytes(ProbeMode mode, std::uint64_t l2_bytes, std::uint64_t memory_bytes);

// Passes of an op per timed sample, so that one sample lasts at least `target_ms` (2 ms): on a
// 1 GiB array one pass takes ~0.5 ms on an H200, and the gap before a lone launch then counts
// against the bandwidth (about 2%). `pass_ms` is one pass's time from the warm-up; at least 1
// pass, at most 1000.
constexpr double kHbmSampleTargetMs = 2.0;
int hbm_passes_per_sample(double pass_ms, double target_ms = kHbmSampleTargetMs);

// Persistent grid: every SM full (blocks per SM from the occupancy calculator), never more
// blocks than vectors.
int hbm_grid_blocks(int sm_count, int blocks_per_sm, std::uint64_t vectors, int threads_per_block);

// Initial contents, index-dependent so a misplaced element is caught, and dyadic with few
// bits so every op (and the read's sum) is exact in double, whatever the summation order.
// The device kernels use the same formulas (hbm_kernels.cu includes this header).
#ifdef __CUDACC__
#define PIPECHECK_HBM_HD __host__ __device__
#else
#define PIPECHECK_HBM_HD
#endif
PIPECHECK_HBM_HD inline double hbm_init_a(std::uint64_t i) { return 1.0 + static_cast<double>(i & 1023) / 1024.0; }
PIPECHECK_HBM_HD inline double hbm_init_b(std::uint64_t i) { return 0.5 + static_cast<double>(i & 511) / 512.0; }
PIPECHECK_HBM_HD inline double hbm_init_c(std::uint64_t i) { return 0.25 + static_cast<double>(i & 255) / 256.0; }
constexpr double kHbmTriadScalar = 2.0;
// Triad's result, a = b + s*c: what a holds after any number of triad runs (b and c unchanged).
PIPECHECK_HBM_HD inline double hbm_triad_value(std::uint64_t i) {
  return hbm_init_b(i) + kHbmTriadScalar * hbm_init_c(i);
}
// The value the n-th write pass stores (changes every pass, so a skipped pass is seen).
inline double hbm_fill_value(std::uint64_t pass) { return 1.0 + static_cast<double>(pass % 4096) / 8.0; }

// Exact sum of hbm_init_a over [0, elements): what the read (reduce) must return.
double hbm_expected_read_sum(std::uint64_t elements);

// What an op leaves behind in the array it is checked on: a still holds hbm_init_a after read,
// c holds it after copy and cudaMemcpy, a holds the triad's value, c the last write's fill.
enum class HbmExpect { init_a, triad, fill };
HbmExpect hbm_expect_of(HbmOp op);
const char* hbm_checked_array(HbmOp op);  // "a" or "c"
PIPECHECK_HBM_HD inline double hbm_expected_value(HbmExpect expect, std::uint64_t i, double fill) {
  return expect == HbmExpect::init_a ? hbm_init_a(i) : expect == HbmExpect::triad ? hbm_triad_value(i) : fill;
}
// The comparison rule, one definition for the device kernel and its host replay: every value is
// exact in double, so anything but equality is wrong (`!(==)`, so a NaN is wrong too).
PIPECHECK_HBM_HD inline bool hbm_element_wrong(double value, HbmExpect expect, std::uint64_t i, double fill) {
  return !(value == hbm_expected_value(expect, i, fill));
}

// What the check of one array found: how many elements are wrong, and the first (lowest index)
// with the value it held.
struct HbmCheck {
  std::uint64_t mismatches = 0;
  std::uint64_t first_index = ~std::uint64_t{0};
  double first_value = 0;
};
// The host replay of the device check (mismatch_kernel in hbm_kernels.cu) over an array.
HbmCheck hbm_check_array(const double* values, std::uint64_t count, HbmExpect expect, double fill);

// Verdict of one op: the check of its array (against the formulas above; for read, of a when
// its sum is wrong) and, for read, the sum it returned; `fill` the last write's value. "" when
// correct, else what is wrong and where: "copy: 1 of 4096 elements hold a wrong value, first
// c[17] = 3, expected 1.0166015625".
std::string hbm_verify(HbmOp op, std::uint64_t elements, const HbmCheck& check, double read_sum, double fill);

}  // namespace pipecheck
