// Planning injected faults (see fault_injection.hpp).
#include "stress/fault_injection.hpp"

#include <algorithm>
#include <cstring>

namespace pipecheck {

bool FaultInjector::take(std::uint64_t* number) {
  std::uint64_t taken = taken_.load(std::memory_order_relaxed);
  do {
    if (taken >= planned_) return false;
  } while (!taken_.compare_exchange_weak(taken, taken + 1, std::memory_order_relaxed));
  if (number) *number = taken;
  return true;
}

std::uint64_t FaultInjector::take_all() {
  const std::uint64_t before = taken_.exchange(planned_, std::memory_order_relaxed);
  return before >= planned_ ? 0 : planned_ - before;
}

std::uint64_t FaultInjector::injected() const {
  return std::min(taken_.load(std::memory_order_relaxed), planned_);
}

std::uint64_t fault_index(std::uint64_t number, std::uint64_t total, std::uint64_t count) {
  if (count == 0) return 0;
  total = std::max<std::uint64_t>(total, 1);
  number %= total;
  // The middle of the number-th of `total` equal slices; in 128 bits, so huge results do not wrap.
  const auto start = static_cast<unsigned __int128>(number) * count / total;
  const auto end = static_cast<unsigned __int128>(number + 1) * count / total;
  return static_cast<std::uint64_t>((start + end) / 2) % count;
}

std::vector<std::uint64_t> fault_indices(std::uint64_t faults, std::uint64_t count) {
  faults = std::min(faults, count);
  std::vector<std::uint64_t> indices;
  indices.reserve(faults);
  for (std::uint64_t i = 0; i < faults; ++i) indices.push_back(fault_index(i, faults, count));
  return indices;
}

std::uint64_t fault_mask(std::size_t element_bytes) {
  return element_bytes == 8 ? (1ull << 62) : (1ull << 30);
}

void corrupt_element(double& value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  bits ^= fault_mask(8);
  std::memcpy(&value, &bits, sizeof bits);
}

void corrupt_element(float& value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  bits ^= static_cast<std::uint32_t>(fault_mask(4));
  std::memcpy(&value, &bits, sizeof bits);
}

void corrupt_element(std::uint32_t& value) { value ^= static_cast<std::uint32_t>(fault_mask(4)); }

}  // namespace pipecheck
