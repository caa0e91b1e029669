// Periodic idle: regular drops found with their period and cost; start-up, shut-down and
// irregular stalls are not periodic.
#include <gtest/gtest.h>

#include "watch/periodicity.hpp"

namespace pipecheck {
namespace {

struct Series {
  std::vector<double> t, v;
};

// Busy at 90, idle for `idle` samples every `period` samples, from sample `first`.
Series periodic(int samples, int period, int idle, int first) {
  Series s;
  for (int i = 0; i < samples; ++i) {
    s.t.push_back(i);
    const bool is_idle = i >= first && (i - first) % period < idle;
    s.v.push_back(is_idle ? 0 : 90);
  }
  return s;
}

TEST(WatchPeriodicity, FindsThePeriodAndTheShareLost) {
  const Series s = periodic(120, 20, 4, 15);
  const Periodicity p = find_periodic_idle(s.t, s.v);
  ASSERT_TRUE(p.found);
  EXPECT_DOUBLE_EQ(p.period_s, 20);
  EXPECT_EQ(p.episodes, 6);
  EXPECT_DOUBLE_EQ(p.mean_idle_s, 4);
  EXPECT_NEAR(p.idle_share, 24.0 / 119.0, 1e-9);
}

TEST(WatchPeriodicity, StartUpAndShutDownAreNotEpisodes) {
  Series s;
  for (int i = 0; i < 30; ++i) {
    s.t.push_back(i);
    s.v.push_back(i < 5 || i > 25 ? 0 : 80);
  }
  EXPECT_TRUE(idle_episodes(s.t, s.v).empty());
  EXPECT_FALSE(find_periodic_idle(s.t, s.v).found);
}

TEST(WatchPeriodicity, IrregularStallsAreNotPeriodic) {
  Series s;
  const std::vector<int> stalls = {5, 9, 30, 33, 60, 90};
  for (int i = 0; i < 100; ++i) {
    s.t.push_back(i);
    bool idle = false;
    for (int at : stalls) idle = idle || i == at;
    s.v.push_back(idle ? 1 : 70);
  }
  const Periodicity p = find_periodic_idle(s.t, s.v);
  EXPECT_EQ(p.episodes, 6);
  EXPECT_FALSE(p.found);
}

TEST(WatchPeriodicity, ToleratesOneSampleOfJitter) {
  Series s;
  const std::vector<int> starts = {10, 21, 30, 41, 50, 61};
  for (int i = 0; i < 70; ++i) {
    s.t.push_back(i * 0.5);
    bool idle = false;
    for (int at : starts) idle = idle || (i >= at && i < at + 2);
    s.v.push_back(idle ? 0 : 95);
  }
  const Periodicity p = find_periodic_idle(s.t, s.v);
  EXPECT_TRUE(p.found);
  EXPECT_NEAR(p.period_s, 5.0, 0.51);
}

// One idle sample at each start, busy elsewhere, 1 s apart.
Series idle_at(int samples, const std::vector<int>& starts) {
  Series s;
  for (int i = 0; i < samples; ++i) {
    s.t.push_back(i);
    bool idle = false;
    for (int at : starts) idle = idle || i == at;
    s.v.push_back(idle ? 0 : 80);
  }
  return s;
}

TEST(WatchPeriodicity, FewOrCloseIdleSamplesAreNotAPeriod) {
  // What idle samples at random look like in a short run: three episodes 3 and 4 s apart once
  // passed as periodic; so did four episodes every 3 samples.
  EXPECT_FALSE(find_periodic_idle(idle_at(20, {3, 6, 10}).t, idle_at(20, {3, 6, 10}).v).found);
  const Series close = idle_at(30, {4, 7, 10, 14, 17});
  EXPECT_FALSE(find_periodic_idle(close.t, close.v).found);
  // Four episodes with 3 gaps: every gap must be regular.
  const Series one_off = idle_at(40, {5, 10, 15, 25});
  EXPECT_FALSE(find_periodic_idle(one_off.t, one_off.v).found);
  const Series regular = idle_at(40, {5, 10, 16, 21});  // 5, 6, 5: within a sample
  const Periodicity p = find_periodic_idle(regular.t, regular.v);
  EXPECT_TRUE(p.found);
  EXPECT_DOUBLE_EQ(p.period_s, 5);
}

TEST(WatchPeriodicity, MedianOf) {
  EXPECT_DOUBLE_EQ(median_of({}), 0);
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
}

}  // namespace
}  // namespace pipecheck
