// Installing and restoring the SIGINT/SIGTERM/SIGHUP handlers of a command.
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
  // A closed terminal or ssh session (SIGHUP) is an interruption too: the summary is written and
  // the job's tree ended, as for SIGINT and SIGTERM.
  route(SIGHUP, action, old_hup_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGHUP, &old_hup_, nullptr);
}

}  // namespace pipecheck
