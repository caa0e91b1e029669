// The body of every CPU burn variant, included by each cpu_burn_kernel_<isa>.cpp and compiled
// there for that ISA. Everything here has internal linkage (an unnamed namespace), so the
// linker never trades one ISA's copy for another's; and it uses no standard-library templates,
// whose out-of-line copies could be compiled for the widest ISA and shared with every caller.
// Each includer defines PIPECHECK_BURN_BYTES (vector width), PIPECHECK_BURN_ACCUMULATORS and
// PIPECHECK_BURN_FUSED (1 where the TU is compiled with FMA and -ffp-contract=fast, 0 where it
// is compiled with -ffp-contract=off).
#pragma once

#include <cstdint>

namespace {

template <typename T>
struct BurnBody {
  typedef T Vector __attribute__((vector_size(PIPECHECK_BURN_BYTES)));
  static constexpr int width = PIPECHECK_BURN_BYTES / sizeof(T);
  static constexpr int accumulators = PIPECHECK_BURN_ACCUMULATORS;
  static constexpr int lanes = width * accumulators;

  // The hot loop: `accumulators` independent multiply-add chains, so the FMA units never wait
  // on a result. The TU is compiled with -ffp-contract=fast where the ISA has FMA, so each
  // x * a + b is one fused instruction (tests/check_burn_code.sh checks the object code).
  // Inlined into each exported variant function, so its object code holds the loop itself.
  [[gnu::always_inline]] static inline void run(T* x, const T* a, const T* b, std::uint64_t iterations) {
    Vector acc[accumulators];
    Vector va, vb;
    __builtin_memcpy(&va, a, sizeof va);
    __builtin_memcpy(&vb, b, sizeof vb);
#pragma GCC unroll 32
    for (int j = 0; j < accumulators; ++j) __builtin_memcpy(&acc[j], x + j * width, sizeof(Vector));
    for (std::uint64_t k = 0; k < iterations; ++k) {
#pragma GCC unroll 32
      for (int j = 0; j < accumulators; ++j) acc[j] = acc[j] * va + vb;
    }
#pragma GCC unroll 32
    for (int j = 0; j < accumulators; ++j) __builtin_memcpy(x + j * width, &acc[j], sizeof(Vector));
  }

  // The same recurrence one lane at a time with scalar instructions (the TU is compiled with
  // -fno-tree-vectorize): lanes inner, so independent lanes keep the scalar unit busy.
  [[gnu::always_inline]] static inline void reference(T* x, const T* a, const T* b, std::uint64_t iterations) {
    for (std::uint64_t k = 0; k < iterations; ++k) {
      for (int lane = 0; lane < lanes; ++lane) {
        const T av = a[lane % width], bv = b[lane % width];
#if PIPECHECK_BURN_FUSED
        x[lane] = fma_of(x[lane], av, bv);
#else
        x[lane] = x[lane] * av + bv;
#endif
      }
    }
  }

  static T fma_of(T x, T a, T b) {
    if constexpr (sizeof(T) == 8) {
      return __builtin_fma(x, a, b);
    } else {
      return __builtin_fmaf(x, a, b);
    }
  }
};

}  // namespace
