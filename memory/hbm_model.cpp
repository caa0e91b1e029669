// HBM work model and verification arithmetic.
#include "memory/hbm_model.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace pipecheck {

const std::vector<HbmOpInfo>& hbm_ops() {
  static const std::vector<HbmOpInfo> ops = {
      {HbmOp::read, "read", 1},
      {HbmOp::write, "write", 1},
      {HbmOp::copy, "copy", 2},
      {HbmOp::triad, "triad", 3},
      {HbmOp::d2d_memcpy, "d2d_memcpy", 2},
  };
  return ops;
}

const HbmOpInfo& hbm_op_info(HbmOp op) {
  for (const auto& info : hbm_ops()) {
    if (info.op == op) return info;
  }
  return hbm_ops().front();
}

std::uint64_t hbm_bytes_moved(HbmOp op, std::uint64_t elements) {
  return static_cast<std::uint64_t>(hbm_op_info(op).arrays_moved) * kHbmElementBytes * elements;
}

std::uint64_t hbm_array_bytes(ProbeMode mode, std::uint64_t l2_bytes, std::uint64_t memory_bytes) {
  constexpr std::uint64_t kMiB = 1ULL << 20;
  constexpr std::uint64_t kGiB = 1ULL << 30;
  const std::uint64_t floor = mode == ProbeMode::full ? 4 * kGiB
                              : mode == ProbeMode::quick ? kGiB
                                                         : 2 * kGiB;
  std::uint64_t bytes = std::max(floor, 4 * l2_bytes);
  if (memory_bytes > 0) bytes = std::min(bytes, memory_bytes / 4);
  return std::max<std::uint64_t>(bytes / kMiB * kMiB, kMiB);
}

int hbm_passes_per_sample(double pass_ms, double target_ms) {
  if (!(pass_ms > 0) || !(target_ms > 0)) return 1;
  return static_cast<int>(std::clamp(std::ceil(target_ms / pass_ms), 1.0, 1000.0));
}

int hbm_grid_blocks(int sm_count, int blocks_per_sm, std::uint64_t vectors, int threads_per_block) {
  const std::uint64_t wanted = static_cast<std::uint64_t>(std::max(sm_count, 1)) *
                               static_cast<std::uint64_t>(std::max(blocks_per_sm, 1));
  const std::uint64_t threads = static_cast<std::uint64_t>(std::max(threads_per_block, 1));
  const std::uint64_t useful = std::max<std::uint64_t>((vectors + threads - 1) / threads, 1);
  return static_cast<int>(std::min(wanted, useful));
}

double hbm_expected_read_sum(std::uint64_t elements) {
  // a[i] = 1 + (i mod 1024)/1024: full periods sum to 1024 + 511.5, then the tail.
  const std::uint64_t periods = elements / 1024;
  const std::uint64_t tail = elements % 1024;
  const double period_sum = 1024.0 + 1023.0 * 1024.0 / 2.0 / 1024.0;
  const double tail_sum = static_cast<double>(tail) +
                          static_cast<double>(tail) * static_cast<double>(tail - (tail ? 1 : 0)) / 2.0 / 1024.0;
  return static_cast<double>(periods) * period_sum + tail_sum;
}

HbmExpect hbm_expect_of(HbmOp op) {
  switch (op) {
    case HbmOp::triad: return HbmExpect::triad;
    case HbmOp::write: return HbmExpect::fill;
    default: return HbmExpect::init_a;
  }
}

const char* hbm_checked_array(HbmOp op) { return op == HbmOp::read || op == HbmOp::triad ? "a" : "c"; }

HbmCheck hbm_check_array(const double* values, std::uint64_t count, HbmExpect expect, double fill) {
  HbmCheck check;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (!hbm_element_wrong(values[i], expect, i, fill)) continue;
    if (check.mismatches++ == 0) {
      check.first_index = i;
      check.first_value = values[i];
    }
  }
  return check;
}

std::string hbm_verify(HbmOp op, std::uint64_t elements, const HbmCheck& check, double read_sum, double fill) {
  std::ostringstream text;
  text.precision(17);
  const char* array = hbm_checked_array(op);
  const auto first = [&] {
    text << "first " << array << "[" << check.first_index << "] = " << check.first_value << ", expected "
         << hbm_expected_value(hbm_expect_of(op), check.first_index, fill);
  };
  if (op == HbmOp::read) {
    const double expected = hbm_expected_read_sum(elements);
    if (read_sum == expected) return "";
    text << "read: sum " << read_sum << ", expected " << expected << "; ";
    if (check.mismatches == 0) {
      text << "every element of a holds its value, so the reduction itself was wrong";
    } else {
      text << check.mismatches << " of " << elements << " elements of a hold a wrong value, ";
      first();
    }
    return text.str();
  }
  if (check.mismatches == 0) return "";
  text << hbm_op_info(op).name << ": " << check.mismatches << " of " << elements << " elements hold a wrong value, ";
  first();
  return text.str();
}

std::vector<std::string> planned_hbm_cases(int gpus) {
  std::vector<std::string> names;
  for (int gpu = 0; gpu < gpus; ++gpu) {
    for (const HbmOpInfo& info : hbm_ops()) names.push_back(std::string("hbm/") + info.name + "/gpu" + std::to_string(gpu));
  }
  return names;
}

}  // namespace pipecheck
