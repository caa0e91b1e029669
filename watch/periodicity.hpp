// Periodic idle: a busy signal (GPU utilization, or the job's CPU use without GPUs) dropping to
// near zero again and again at a regular period, as evaluation passes and checkpoints do. Finds
// the idle episodes, their period and the share of the run they cost.
#pragma once

#include <vector>

namespace pipecheck {

// One stretch of idle samples, covering (start_s, end_s]: a sample's rate is over the interval
// that ends at its time stamp. A stall rarely starts and ends on a sample's edge: the samples at
// its edges are partly idle, and count by their idle share (1 - value / the busy level), so
// idle_s is the stall's length, not the whole samples it touched.
struct IdleEpisode {
  double start_s = 0;
  double end_s = 0;
  double idle_s = 0;   // idle time in it: the samples' idle shares x their intervals
  double onset_s = 0;  // when the stall began, as the partly idle sample before it places it
};

struct PeriodicityOptions {
  double idle_below = 5;       // a sample at or below this is idle
  // An episode: consecutive samples idle at least mostly_idle of their interval, one of them
  // fully idle (at or below idle_below), and a neighbour idle at least edge_idle adds its share.
  double mostly_idle = 0.5;
  double edge_idle = 0.1;
  double tolerance_share = 0.25;  // a gap within this share of the period (or 1 sample) is regular
  double regular_share = 0.75;    // this share of the gaps must be regular (all of them below 4 gaps)
  int min_episodes = 4;
  double min_period_samples = 4;  // shorter periods are what random idle samples also produce
};

struct Periodicity {
  bool found = false;
  double period_s = 0;        // median gap between episode onsets
  double busy_level = 0;      // the median of the samples above idle: what "not idle" means
  double idle_share = 0;      // idle time of the episodes / the time observed
  double mean_idle_s = 0;     // per episode
  int episodes = 0;           // interior episodes (the run's first and last stretch excluded)
  std::vector<IdleEpisode> idle;  // the interior episodes
};

// times ascending, values of the same length. Idle at the very start or end of the series
// (start-up, shut-down) is not an episode: only stretches with busy samples on both sides count.
std::vector<IdleEpisode> idle_episodes(const std::vector<double>& times, const std::vector<double>& values,
                                       const PeriodicityOptions& options = {});
Periodicity find_periodic_idle(const std::vector<double>& times, const std::vector<double>& values,
                               const PeriodicityOptions& options = {});

// The median of a list (0 for an empty one); shared by the watch's analysis.
double median_of(std::vector<double> values);

}  // namespace pipecheck
