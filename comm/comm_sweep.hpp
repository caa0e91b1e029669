// The message sizes a collective is measured at: nccl-tests' -b/-e/-f (or -i) sweep, its size
// syntax, the defaults of each mode, and the cap GPU memory puts on the largest size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/probe_main.hpp"

namespace pipecheck {

// "8", "1024", "128K", "64M", "8G", "0.5G": bytes, K/M/G being 2^10/2^20/2^30 (nccl-tests'
// parsesize). Throws UsageError naming `flag` and the text on anything else (a negative, an
// unknown suffix, a size that is not a whole number of bytes, zero).
std::uint64_t parse_message_size(const std::string& text, const std::string& flag);

// "8 B", "4 KiB", "1 MiB", "1.5 GiB": a size as measurement names show it.
std::string size_text(std::uint64_t bytes);

struct SizeSweep {
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 8;
  std::uint64_t step_factor = 2;  // multiply by this; 0 = add step_bytes instead
  std::uint64_t step_bytes = 0;
};

// Quick 8 B..128 MiB x16, standard 8 B..1 GiB x8, full 8 B..8 GiB x2.
SizeSweep default_sweep(ProbeMode mode);

// min, min*f, ... <= max (or min, min+step, ...), as nccl-tests loops. Throws UsageError when
// min > max, the factor is 1 without a step, or the sweep has more than 10000 sizes.
std::vector<std::uint64_t> sweep_sizes(const SizeSweep& sweep);

// The largest operation a GPU of `memory_bytes` can take: send and receive buffers of that size
// plus NCCL's own, so a third of its memory; 0 when the memory is unknown (no cap).
std::uint64_t max_size_for_memory(std::uint64_t memory_bytes);

// The sweep without the sizes above `cap` (0 = no cap); `dropped` counts what was left out.
std::vector<std::uint64_t> cap_sizes(const std::vector<std::uint64_t>& sizes, std::uint64_t cap,
                                     std::size_t& dropped);

}  // namespace pipecheck
