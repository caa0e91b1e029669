// SIGINT, SIGTERM and SIGHUP routed to a command's own handler for as long as the object lives (the
// command then stops cleanly and still writes its results); the old handlers come back after.
#pragma once

#include <csignal>

namespace pipecheck {

class StopSignals {
 public:
  using Handler = void (*)(int signal, siginfo_t* info, void* context);
  // `flags` are added to SA_SIGINFO: SA_RESTART where blocking calls must not see EINTR.
  explicit StopSignals(Handler handler, int flags = 0);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  struct sigaction old_hup_ {};
};

}  // namespace pipecheck
