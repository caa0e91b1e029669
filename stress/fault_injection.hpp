// `pipecheck stress --inject-faults N`: which results get corrupted between compute and check,
// and how. The decision is host code (tested here); the CPU burn applies it in place, the GPU
// burn and memory test apply it with a tiny kernel (gpu_burn.cu). A run with N faults must
// count at least N wrong results, so a user sees on their own machine that the checker works.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pipecheck {

// Hands out up to `faults` faults to any number of threads.
class FaultInjector {
 public:
  explicit FaultInjector(std::uint64_t faults) : planned_(faults) {}

  // Whether the result at hand gets a fault; true at most `faults` times over all callers.
  // *number gets the fault's number (0-based), which says where it goes (fault_index).
  bool take(std::uint64_t* number = nullptr);
  // Takes every fault still left (the memory test puts them all in one pass).
  std::uint64_t take_all();
  std::uint64_t planned() const { return planned_; }
  std::uint64_t injected() const;

 private:
  std::uint64_t planned_;
  std::atomic<std::uint64_t> taken_{0};
};

// The element fault `number` of `total` corrupts in a result of `count` elements: spread over
// the result, distinct for distinct numbers while total <= count.
std::uint64_t fault_index(std::uint64_t number, std::uint64_t total, std::uint64_t count);
// The indices of `faults` faults in one result of `count` elements (at most count of them).
std::vector<std::uint64_t> fault_indices(std::uint64_t faults, std::uint64_t count);

// The XOR mask a fault applies to an element of `element_bytes` (4 or 8): the top exponent bit
// of a float or double (any value, 0 included, then differs from itself by more than any
// tolerance below 1, or becomes inf/NaN, which the checks also call wrong), bit 30 of a
// memory-test word.
std::uint64_t fault_mask(std::size_t element_bytes);
// Applies fault_mask in place.
void corrupt_element(double& value);
void corrupt_element(float& value);
void corrupt_element(std::uint32_t& value);

}  // namespace pipecheck
