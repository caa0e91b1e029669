// Test helper: runs a public tool (promtool's Python twin, xmllint, compare.py) on files the test
// wrote, and reports its exit status and output, so renderers are checked by their consumers'
// own parsers.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace pipecheck::testing {

struct ToolResult {
  int status = -1;  // the exit status; -1 when it could not be run
  std::string output;  // stdout and stderr together
};

inline ToolResult run_tool(const std::string& command) {
  ToolResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// Whether /usr/bin/python3 can import `module` (Debian's packages live there, whatever python3 is
// first on PATH).
inline bool python_has(const std::string& module) {
  return run_tool("/usr/bin/python3 -c 'import " + module + "'").status == 0;
}

// A fresh folder under the system temp folder, removed by the caller.
inline std::filesystem::path fresh_temp_folder(const std::string& name) {
  const auto folder = std::filesystem::temp_directory_path() / ("pipecheck-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

}  // namespace pipecheck::testing
