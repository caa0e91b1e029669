// Runs a child process with a time limit, its stdout and stderr sent to files, so that a
// crash, a hang or garbage from a probe becomes that probe's result and the driver goes on.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pipecheck {

struct ProcessResult {
  enum class Ending { exited, signaled, timed_out, failed_to_start };
  Ending ending = Ending::failed_to_start;
  int exit_code = -1;   // when exited
  int signal = 0;       // when signaled (or the signal that ended a timed-out child)
  double seconds = 0;   // wall time
  std::string error;    // why it failed to start

  bool ok() const { return ending == Ending::exited && exit_code == 0; }
  // "exit code 3", "killed by signal 11 (Segmentation fault)", "timed out after 5 s", ...
  std::string describe() const;
};

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is the executable path
  std::filesystem::path stdout_path;
  std::filesystem::path stderr_path;
  std::chrono::milliseconds time_limit{std::chrono::minutes(10)};
  // After the limit: SIGTERM to the child's process group, then SIGKILL after this grace.
  std::chrono::milliseconds kill_grace{std::chrono::seconds(3)};
  // The child's whole environment ("NAME=value" entries); unset, it inherits ours.
  std::optional<std::vector<std::string>> environment;
};

// Never throws for the child's failures; they are the result.
ProcessResult run_process(const ProcessSpec& spec);

// Asks a running run_process to stop its child now (async-signal-safe; for SIGINT handlers).
void request_child_stop();

}  // namespace pipecheck
