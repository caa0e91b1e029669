// Parsing and writing the kernel's CPU lists and masks.
#include "inventory/cpu_list.hpp"

#include <cctype>
#include <sstream>

#include "core/sysfs.hpp"

namespace pipecheck {

namespace {

std::optional<int> parse_number(const std::string& text) {
  if (text.empty() || text.size() > 7 || text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoi(text);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<CpuSet> cpu_set_from_list(const std::string& text) {
  CpuSet cpus;
  const std::string list = trim(text);
  if (list.empty()) return cpus;
  std::istringstream ranges(list);
  for (std::string range; std::getline(ranges, range, ',');) {
    const auto dash = range.find('-');
    const auto first = parse_number(range.substr(0, dash));
    const auto last = dash == std::string::npos ? first : parse_number(range.substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    for (int cpu = *first; cpu <= *last; ++cpu) cpus.insert(cpu);
  }
  return cpus;
}

std::optional<CpuSet> cpu_set_from_mask(const std::string& text) {
  const std::string mask = trim(text);
  if (mask.empty()) return std::nullopt;
  CpuSet cpus;
  int bit = 0;
  // From the least significant digit (the end) up; commas only separate 32-bit groups.
  for (auto it = mask.rbegin(); it != mask.rend(); ++it) {
    if (*it == ',') continue;
    const int value = hex_value(*it);
    if (value < 0) return std::nullopt;
    for (int i = 0; i < 4; ++i) {
      if (value & (1 << i)) cpus.insert(bit + i);
    }
    bit += 4;
  }
  return cpus;
}

std::string format_cpu_list(const CpuSet& cpus) {
  std::string text;
  for (auto it = cpus.begin(); it != cpus.end();) {
    const int first = *it;
    int last = first;
    for (++it; it != cpus.end() && *it == last + 1; ++it) last = *it;
    if (!text.empty()) text += ',';
    text += std::to_string(first);
    if (last > first) {
      text += '-';
      text += std::to_string(last);
    }
  }
  return text;
}

}  // namespace pipecheck
