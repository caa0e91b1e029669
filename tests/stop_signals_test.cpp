// SIGINT/SIGTERM routing for stress and watch: installed while the object lives, restored after,
// and a signal the launcher ignored stays ignored.
#include "app/stop_signals.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

void handler(int, siginfo_t*, void*) {}

struct sigaction current(int signal) {
  struct sigaction action {};
  sigaction(signal, nullptr, &action);
  return action;
}

bool routed_to_handler(int signal) {
  const struct sigaction action = current(signal);
  return (action.sa_flags & SA_SIGINFO) && action.sa_sigaction == handler;
}

TEST(StopSignals, RoutesWhileAliveAndRestoresAfter) {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  {
    const StopSignals signals(handler);
    EXPECT_TRUE(routed_to_handler(SIGINT));
    EXPECT_TRUE(routed_to_handler(SIGTERM));
  }
  EXPECT_EQ(current(SIGINT).sa_handler, SIG_DFL);
  EXPECT_EQ(current(SIGTERM).sa_handler, SIG_DFL);
}

TEST(StopSignals, AnIgnoredSignalStaysIgnored) {
  // `nohup` or `cmd &` in a script: SIGINT ignored, and the commands we start must inherit that.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_DFL);
  {
    const StopSignals signals(handler);
    EXPECT_EQ(current(SIGINT).sa_handler, SIG_IGN);
    EXPECT_TRUE(routed_to_handler(SIGTERM));
  }
  EXPECT_EQ(current(SIGINT).sa_handler, SIG_IGN);
  std::signal(SIGINT, SIG_DFL);
}

}  // namespace
}  // namespace pipecheck
