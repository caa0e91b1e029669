// Sets of CPUs as the kernel writes them: lists ("0-3,8,10-11", the *_list files) and hex masks
// ("00000000,0000000f", cpumap and the older topology and cache files without a list).
#pragma once

#include <optional>
#include <set>
#include <string>

namespace pipecheck {

using CpuSet = std::set<int>;

// "0-3,8" -> {0,1,2,3,8}; "" -> {} (an empty list is a valid empty set); nullopt when not a list.
std::optional<CpuSet> cpu_set_from_list(const std::string& text);
// "00000000,0000000f" -> {0,1,2,3}: comma-separated 32-bit groups, most significant first.
// nullopt when not a mask.
std::optional<CpuSet> cpu_set_from_mask(const std::string& text);
// {0,1,2,3,8} -> "0-3,8".
std::string format_cpu_list(const CpuSet& cpus);

}  // namespace pipecheck
