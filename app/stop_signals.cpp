// Installing and restoring the SIGINT/SIGTERM handlers of a command.
#include "app/stop_signals.hpp"

namespace pipecheck {

namespace {

// A signal the launcher set to ignored (nohup, `cmd &` in a non-interactive shell ignores
// SIGINT) stays ignored: catching it would also un-ignore it for any command we start.
void route(int signal, const struct sigaction& action, struct sigaction& old) {
  sigaction(signal, nullptr, &old);
  const bool ignored = !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN;
  if (!ignored) sigaction(signal, &action, nullptr);
}

}  // namespace

StopSignals::StopSignals(Handler handler, int flags) {
  struct sigaction action {};
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | flags;
  sigemptyset(&action.sa_mask);
  route(SIGINT, action, old_int_);
  route(SIGTERM, action, old_term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

}  // namespace pipecheck
