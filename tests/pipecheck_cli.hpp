// Test helper: runs the built `pipecheck` command as a real child process, with a time limit,
// and gives back how it ended, its stdout and its stderr.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "core/file_io.hpp"
#include "core/process_runner.hpp"

namespace pipecheck::testing {

struct CliRun {
  ProcessResult process;
  std::string out;
  std::string err;
};

// Its output goes to files in `dir`, which the caller keeps or removes.
inline CliRun run_pipecheck_in(const std::filesystem::path& dir, const std::vector<std::string>& args,
                               std::chrono::seconds limit = std::chrono::seconds(60)) {
  ProcessSpec spec;
  spec.argv = {std::string(PIPECHECK_BIN_DIR) + "/pipecheck"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = dir / "stdout";
  spec.stderr_path = dir / "stderr";
  spec.time_limit = limit;
  return CliRun{run_process(spec), read_file(spec.stdout_path), read_file(spec.stderr_path)};
}

// Its output goes to a folder of its own, removed afterwards.
inline CliRun run_pipecheck(const std::vector<std::string>& args, std::chrono::seconds limit = std::chrono::seconds(60)) {
  static std::atomic<int> calls{0};
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("pipecheck-cli-" + std::to_string(getpid()) + "-" + std::to_string(++calls));
  std::filesystem::create_directories(dir);
  CliRun run = run_pipecheck_in(dir, args, limit);
  std::filesystem::remove_all(dir);
  return run;
}

}  // namespace pipecheck::testing
