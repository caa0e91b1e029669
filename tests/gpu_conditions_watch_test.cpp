// The GPU side of the conditions: observations folded into other GPU users and clock events
// (GpuIdle left out), and which processes count as pipecheck's own. NVML itself needs a GPU:
// without one the watch says why and watches nothing.
#include "app/gpu_conditions_watch.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

namespace pipecheck {
namespace {

TEST(GpuConditionsWatch, MergesUsersOnceAndClockEventsWithoutIdle) {
  std::vector<GpuObservation> seen = {
      {"0000:17:00.0", {{4411, 100}}, 0x1},            // idle: not an event
      {"0000:17:00.0", {{4411, 300}, {77, 5}}, 0x20},  // SwThermalSlowdown
      {"0000:2a:00.0", {}, 0x4},                       // SwPowerCap
      {"0000:2a:00.0", {}, std::nullopt},
  };
  RunConditions c;
  merge_gpu_observations(c, seen, [](int pid) { return pid == 4411 ? std::string("python3") : std::string(); });
  ASSERT_EQ(c.gpu_processes.size(), 2u);
  const auto& python = c.gpu_processes[0].pid == 4411 ? c.gpu_processes[0] : c.gpu_processes[1];
  EXPECT_EQ(python.command, "python3");
  EXPECT_EQ(python.memory_bytes, 300u) << "the most it held";
  EXPECT_EQ(python.gpu, "0000:17:00.0");
  ASSERT_EQ(c.gpu_clock_events.size(), 2u);
  EXPECT_EQ(c.gpu_clock_events[0], "0000:17:00.0: SwThermalSlowdown");
  EXPECT_EQ(c.gpu_clock_events[1], "0000:2a:00.0: SwPowerCap");
  RunConditions idle;
  merge_gpu_observations(idle, {{"0000:17:00.0", {}, 0x1}}, [](int) { return std::string(); });
  EXPECT_TRUE(idle.gpu_clock_events.empty());
}

TEST(GpuConditionsWatch, OurOwnProcessesAreOurs) {
  EXPECT_TRUE(descends_from(static_cast<int>(getpid()), static_cast<int>(getpid())));
  EXPECT_TRUE(descends_from(static_cast<int>(getpid()), static_cast<int>(getppid())));
  EXPECT_FALSE(descends_from(static_cast<int>(getppid()), static_cast<int>(getpid())));
  EXPECT_FALSE(descends_from(999999999, static_cast<int>(getpid())));
}

TEST(GpuConditionsWatch, WithoutNvmlItSaysWhyAndWatchesNothing) {
  GpuConditionsWatch watch;
  if (watch.watching()) GTEST_SKIP() << "NVML sees a GPU here: the watch runs for real";
  EXPECT_FALSE(watch.note().empty());
  watch.start();
  RunConditions c;
  watch.stop_into(c);
  EXPECT_EQ(c.gpu_note, watch.note());
  EXPECT_TRUE(c.gpu_processes.empty());
}

}  // namespace
}  // namespace pipecheck
