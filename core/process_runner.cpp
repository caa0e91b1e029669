// Child processes with a time limit, in their own process group so a hang is killed whole.
#include "core/process_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "core/errors.hpp"

namespace pipecheck {

namespace {

std::atomic<bool> g_stop_requested{false};

using Clock = std::chrono::steady_clock;

// In the child, after fork: only async-signal-safe calls until exec.
[[noreturn]] void exec_child(const ProcessSpec& spec, char* const* argv, char* const* envp, int error_pipe,
                             pid_t parent) {
  setpgid(0, 0);
  // The child dies with the driver (kill -9 of the driver, a crash): a probe left behind would
  // run on with no time limit, holding GPUs and disks. The parent may have died between fork
  // and prctl: then the signal would never come, so check.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
  // O_NOFOLLOW: the output files are never written through a link placed at their names.
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC;
  const int out = open(spec.stdout_path.c_str(), flags, 0644);
  const int err = open(spec.stderr_path.c_str(), flags, 0644);
  const int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out < 0 || err < 0 || null_in < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
      dup2(null_in, 0) < 0) {
    const int code = errno;
    (void)!write(error_pipe, &code, sizeof code);
    _exit(127);
  }
  if (envp) {
    execve(argv[0], argv, envp);
  } else {
    execv(argv[0], argv);
  }
  const int code = errno;
  (void)!write(error_pipe, &code, sizeof code);
  _exit(127);
}

double cpu_seconds_of(const struct rusage& usage) {
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Waits for the child until the deadline (or a stop request, unless `ignore_stop`); returns
// true when it was reaped (`usage` then holds its CPU time).
bool wait_until(pid_t pid, Clock::time_point deadline, int& status, struct rusage& usage, bool ignore_stop = false) {
  while (true) {
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) return false;
    if (Clock::now() >= deadline || (!ignore_stop && g_stop_requested.load())) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

std::string ProcessResult::describe() const {
  switch (ending) {
    case Ending::exited:
      return "exit code " + std::to_string(exit_code);
    case Ending::signaled:
      return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    case Ending::timed_out:
      return "timed out after " + std::to_string(static_cast<long>(seconds + 0.5)) + " s";
    case Ending::interrupted:
      return "stopped by SIGINT or SIGTERM after " + std::to_string(static_cast<long>(seconds + 0.5)) + " s";
    case Ending::failed_to_start:
      return "could not start: " + error;
  }
  return "unknown";
}

void request_child_stop() { g_stop_requested.store(true); }
void reset_child_stop() { g_stop_requested.store(false); }

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  if (spec.argv.empty()) {
    result.error = "no command";
    return result;
  }
  std::vector<char*> argv;
  for (const auto& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  // Built before fork: the child may only make async-signal-safe calls until exec.
  std::vector<char*> envp;
  if (spec.environment) {
    for (const auto& entry : *spec.environment) envp.push_back(const_cast<char*>(entry.c_str()));
    envp.push_back(nullptr);
  }

  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) {
    result.error = errno_message("pipe2", "", errno);
    return result;
  }
  const auto start = Clock::now();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    result.error = errno_message("fork", spec.argv[0], errno);
    close(error_pipe[0]);
    close(error_pipe[1]);
    return result;
  }
  if (pid == 0) exec_child(spec, argv.data(), spec.environment ? envp.data() : nullptr, error_pipe[1], parent);
  setpgid(pid, pid);  // also here, so the group exists before we might signal it
  close(error_pipe[1]);

  int status = 0;
  struct rusage usage {};
  bool reaped = wait_until(pid, start + spec.time_limit, status, usage);
  if (!reaped) {
    // A stop request (Ctrl-C reached the driver) is not the probe's fault: say which it was.
    const bool stopped = g_stop_requested.load();
    kill(-pid, SIGTERM);
    reaped = wait_until(pid, Clock::now() + spec.kill_grace, status, usage, true);
    if (!reaped) {
      kill(-pid, SIGKILL);
      while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
      }
    }
    result.ending = stopped ? ProcessResult::Ending::interrupted : ProcessResult::Ending::timed_out;
  }
  kill(-pid, SIGKILL);  // nothing the probe forked outlives it
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.cpu_seconds = cpu_seconds_of(usage);

  int exec_errno = 0;
  if (read(error_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    result.ending = ProcessResult::Ending::failed_to_start;
    result.error = errno_message("exec", spec.argv[0], exec_errno);
  } else if (result.ending != ProcessResult::Ending::timed_out &&
             result.ending != ProcessResult::Ending::interrupted) {
    if (WIFEXITED(status)) {
      result.ending = ProcessResult::Ending::exited;
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.ending = ProcessResult::Ending::signaled;
      result.signal = WTERMSIG(status);
    }
  }
  close(error_pipe[0]);
  return result;
}

}  // namespace pipecheck
