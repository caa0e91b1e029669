// Size sweep of the collectives: parsing, defaults, the nccl-tests loop, the memory cap.
#include "comm/comm_sweep.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

namespace {

constexpr std::uint64_t kKiB = 1ULL << 10;
constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;
constexpr std::size_t kMostSizes = 10000;

std::uint64_t suffix_units(char suffix) {
  switch (suffix) {
    case 'k': case 'K': return kKiB;
    case 'm': case 'M': return kMiB;
    case 'g': case 'G': return kGiB;
    default: return 0;
  }
}

}  // namespace

std::uint64_t parse_message_size(const std::string& text, const std::string& flag) {
  const auto bad = [&](const std::string& why) {
    return UsageError(flag + " '" + shortened(text) + "': " + why + " (bytes, or a number with K, M or G: 8, 128K, 1G)");
  };
  if (text.empty() || text.find_first_of("+-") != std::string::npos) throw bad("not a size");
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(number)) throw bad("not a size");
  std::string rest = end;
  std::uint64_t units = 1;
  if (!rest.empty()) {
    units = rest.size() == 1 ? suffix_units(rest[0]) : 0;
    if (units == 0) throw bad("unknown unit '" + rest + "'");
  }
  const double bytes = number * static_cast<double>(units);
  if (bytes < 1) throw bad("must be at least 1 byte");
  if (bytes > 1e18) throw bad("too large");
  if (bytes != std::floor(bytes)) throw bad("not a whole number of bytes");
  return static_cast<std::uint64_t>(bytes);
}

std::string size_text(std::uint64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (value == std::floor(value)) {
    std::snprintf(text, sizeof text, "%.0f %s", value, units[unit]);
  } else {
    std::snprintf(text, sizeof text, "%.3g %s", value, units[unit]);
  }
  return text;
}

SizeSweep default_sweep(ProbeMode mode) {
  // The largest size carries the verdict (bandwidth-bound); the factor keeps the case count,
  // and so the run time, in step with the mode.
  switch (mode) {
    case ProbeMode::quick: return {8, 128 * kMiB, 16, 0};
    case ProbeMode::full: return {8, 8 * kGiB, 2, 0};
    default: return {8, kGiB, 8, 0};
  }
}

std::vector<std::uint64_t> sweep_sizes(const SizeSweep& sweep) {
  if (sweep.min_bytes == 0) throw UsageError("--minbytes must be at least 1 byte");
  if (sweep.min_bytes > sweep.max_bytes) {
    throw UsageError("--minbytes " + std::to_string(sweep.min_bytes) + " is larger than --maxbytes " +
                     std::to_string(sweep.max_bytes));
  }
  const bool multiply = sweep.step_factor > 1;
  if (!multiply && sweep.step_bytes == 0) {
    throw UsageError("--stepfactor must be 2 or more (or give --stepbytes to add a fixed step)");
  }
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t size = sweep.min_bytes; size <= sweep.max_bytes;) {
    if (sizes.size() == kMostSizes) {
      throw UsageError("the size sweep has more than " + std::to_string(kMostSizes) +
                       " sizes: raise --stepfactor or --stepbytes");
    }
    sizes.push_back(size);
    const std::uint64_t next = multiply ? size * sweep.step_factor : size + sweep.step_bytes;
    if (next <= size) break;  // overflow
    size = next;
  }
  return sizes;
}

std::uint64_t max_size_for_memory(std::uint64_t memory_bytes) { return memory_bytes / 3; }

std::vector<std::uint64_t> cap_sizes(const std::vector<std::uint64_t>& sizes, std::uint64_t cap,
                                     std::size_t& dropped) {
  std::vector<std::uint64_t> kept;
  dropped = 0;
  for (std::uint64_t size : sizes) {
    if (cap > 0 && size > cap) {
      ++dropped;
    } else {
      kept.push_back(size);
    }
  }
  return kept;
}

}  // namespace pipecheck
