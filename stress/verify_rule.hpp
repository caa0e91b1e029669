// The one rule that says a burn result is wrong, shared by the host code (tests, the reference
// spot check) and the device compare kernel, so that what the tests check is what the GPU runs.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define PIPECHECK_HOST_DEVICE __host__ __device__
#else
#define PIPECHECK_HOST_DEVICE
#endif

namespace pipecheck {

// Wrong when |value - reference| > tolerance x max(|reference|, 1). Written so that a NaN in
// either operand is wrong (every comparison with NaN is false). The reference is the same GEMM
// computed once at the start, so a healthy GPU gives the same bits; the tolerance only absorbs
// cuBLAS choosing a different algorithm between calls.
PIPECHECK_HOST_DEVICE inline bool burn_result_wrong(double value, double reference, double tolerance) {
  const double magnitude = reference < 0 ? -reference : reference;
  const double scale = magnitude > 1.0 ? magnitude : 1.0;
  const double difference = value > reference ? value - reference : reference - value;
  return !(difference <= tolerance * scale);
}

// The memory test's expected word for a pattern at a word index. Patterns: all zeros, all ones,
// checkerboard (0xAAAAAAAA/0x55555555 alternating), its inverse, and an address-derived word
// that catches address-line faults (two words mapping to one cell read back the other's value).
constexpr int memtest_pattern_count = 5;
PIPECHECK_HOST_DEVICE inline std::uint32_t memtest_word(int pattern, std::uint64_t index) {
  switch (pattern) {
    case 0:
      return 0u;
    case 1:
      return 0xFFFFFFFFu;
    case 2:
      return (index & 1) ? 0x55555555u : 0xAAAAAAAAu;
    case 3:
      return (index & 1) ? 0xAAAAAAAAu : 0x55555555u;
    default: {
      std::uint64_t x = index * 0x9E3779B97F4A7C15ull;
      x ^= x >> 29;
      return static_cast<std::uint32_t>(x);
    }
  }
}

}  // namespace pipecheck
