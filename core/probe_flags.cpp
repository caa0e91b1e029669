// A probe's flags and their value checks (see probe_flags.hpp).
#include "core/probe_flags.hpp"

#include <algorithm>
#include <set>

namespace pipecheck {

const std::string* ProbeOptions::last(const std::string& name) const {
  const auto it = values.find(name);
  return it == values.end() || it->second.empty() ? nullptr : &it->second.back();
}

std::vector<std::string> ProbeOptions::all(const std::string& name) const {
  const auto it = values.find(name);
  return it == values.end() ? std::vector<std::string>{} : it->second;
}

// --- value checks --------------------------------------------------------------------------

namespace {

// Digits only, at most 18 (so no overflow of long long), in the range.
bool whole_number_in(const std::string& text, long long lowest, long long highest) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  const long long value = std::stoll(text);
  return value >= lowest && value <= highest;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

std::string range_text(long long lowest, long long highest) {
  return std::to_string(lowest) + " to " + std::to_string(highest);
}

}  // namespace

FlagCheck whole_number(long long lowest, long long highest) {
  return [=](const std::string& text) {
    return whole_number_in(text, lowest, highest) ? "" : "expected a whole number from " + range_text(lowest, highest);
  };
}

FlagCheck number_list(long long lowest, long long highest) {
  return [=](const std::string& text) -> std::string {
    for (const std::string& item : split_commas(text)) {
      if (!whole_number_in(item, lowest, highest)) {
        return "expected whole numbers from " + range_text(lowest, highest) + ", separated by commas";
      }
    }
    return "";
  };
}

FlagCheck one_of(std::vector<std::string> choices) {
  return [choices = std::move(choices)](const std::string& text) -> std::string {
    if (std::find(choices.begin(), choices.end(), text) != choices.end()) return "";
    std::string list;
    for (const auto& choice : choices) list += (list.empty() ? "" : ", ") + choice;
    return "expected one of " + list;
  };
}

FlagCheck some_text() {
  return [](const std::string& text) -> std::string { return text.empty() ? "expected a value" : ""; };
}

FlagCheck gpu_list() {
  return [](const std::string& text) -> std::string {
    if (text == "all") return "";
    std::set<std::string> seen;
    for (const std::string& item : split_commas(text)) {
      if (!whole_number_in(item, 0, 1023)) return "expected GPU indices such as 0,2 (each 0 to 1023) or all";
      if (!seen.insert(std::to_string(std::stoll(item))).second) return "GPU " + item + " is named twice";
    }
    return "";
  };
}

ProbeFlag gpus_flag() {
  return {"gpus", "LIST", "CUDA devices to measure, e.g. 0,2 (default all)", gpu_list()};
}

}  // namespace pipecheck
