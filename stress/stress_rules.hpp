// The thresholds of the stress rules, and the rule the summary applies while it accumulates
// samples (busy but not loaded). The summary and the judge both read them; neither includes the
// other for it.
#pragma once

namespace pipecheck {

struct SummaryRules {
  double warmup_s = 30;               // samples before this are not "sustained"
  double slow_tolerance_pct = 10;     // slower than the median by more than this: slow GPU
  double busy_util_pct = 90;          // NVML GPU-Util at or above this counts as busy
  double loaded_power_fraction = 0.75;  // busy GPUs below this share of the limit are not loaded
                                        // (DCGM targeted_power passes at 75%)
  double clock_cv_pct = 5;            // SM clock spread (stddev/mean) above this is unstable
};

// "GPU-Util high but power well under the limit": the GPU looks busy but is not really loaded
// (a kernel that waits on memory or launches, not one that burns).
bool busy_but_not_loaded(double mean_util_pct, double mean_power_w, double power_limit_w,
                         const SummaryRules& rules = {});

}  // namespace pipecheck
