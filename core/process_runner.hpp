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
  // interrupted: request_child_stop() (the driver's SIGINT/SIGTERM) ended it, not its limit.
  enum class Ending { exited, signaled, timed_out, interrupted, failed_to_start };
  Ending ending = Ending::failed_to_start;
  int exit_code = -1;   // when exited
  int signal = 0;       // when signaled (or the signal that ended a timed-out child)
  double seconds = 0;   // wall time
  double cpu_seconds = 0;  // user + system time of the child and the children it waited for
  std::string error;    // why it failed to start

  bool ok() const { return ending == Ending::exited && exit_code == 0; }
  // "exit code 3", "killed by signal 11 (Segmentation fault)", "timed out after 5 s",
  // "stopped by SIGINT or SIGTERM after 2 s", ...
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

// Never throws for the child's failures; they are the result. The child runs in its own process
// group and dies with the thread that started it (PR_SET_PDEATHSIG, SIGKILL): a driver killed
// with -9 leaves no probe running without its time limit.
ProcessResult run_process(const ProcessSpec& spec);

// Asks a running run_process to stop its child now (async-signal-safe; for SIGINT handlers):
// SIGTERM, then SIGKILL after the grace; the result is Ending::interrupted. The request stays
// until reset_child_stop(), so a later run_process stops at once too.
void request_child_stop();
void reset_child_stop();

}  // namespace pipecheck
