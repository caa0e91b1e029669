// NCCL_* environment capture.
#include "comm/comm_env.hpp"

#include <algorithm>
#include <cstring>

namespace pipecheck {

EnvEntries nccl_environment(char** envp) {
  EnvEntries entries;
  for (char** entry = envp; entry != nullptr && *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, "NCCL_", 5) != 0) continue;
    const char* eq = std::strchr(*entry, '=');
    if (eq == nullptr) continue;
    entries.emplace_back(std::string(static_cast<const char*>(*entry), eq), std::string(eq + 1));
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

std::string nccl_env_text(const EnvEntries& entries) {
  if (entries.empty()) return "none";
  std::string text;
  for (const auto& [name, value] : entries) {
    if (!text.empty()) text += ' ';
    std::string safe = value;
    std::replace(safe.begin(), safe.end(), ';', ',');
    std::replace(safe.begin(), safe.end(), ' ', '_');
    text += name;
    text += '=';
    text += safe;
  }
  return text;
}

}  // namespace pipecheck
