// The multi-GPU sawtooth: on several GPUs, the utilization of one dipping before the others',
// again and again. In data-parallel training every GPU waits for the slowest at each all-reduce,
// so dips that start on one GPU and spread to the rest point at communication or a straggler.
#pragma once

#include <vector>

namespace pipecheck {

struct GpuSeries {
  int index = -1;
  std::vector<double> util;  // one value a sample, aligned with the times given beside it
};

struct SawtoothOptions {
  double dip_share = 0.6;      // a dip: below this share of the GPU's median utilization
  double min_busy_pct = 20;    // GPUs whose median is below this are idle, not dipping
  int window_samples = 3;      // dips on other GPUs within this many samples join the event
  int min_events = 3;          // events with two or more GPUs dipping
  double lead_share = 0.6;     // the leader must start this share of those events
};

struct Sawtooth {
  bool found = false;
  int leader = -1;          // GPU index that dips first
  int events = 0;           // dips shared by two or more GPUs
  int led = 0;              // of which the leader started
  double mean_lead_s = 0;   // how long before the next GPU, on average, when it led
};

Sawtooth find_leading_dipper(const std::vector<double>& times, const std::vector<GpuSeries>& gpus,
                             const SawtoothOptions& options = {});

}  // namespace pipecheck
