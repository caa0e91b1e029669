// The stress rules the summary applies as it accumulates (see stress_rules.hpp).
#include "stress/stress_rules.hpp"

namespace pipecheck {

bool busy_but_not_loaded(double mean_util_pct, double mean_power_w, double power_limit_w,
                         const SummaryRules& rules) {
  if (power_limit_w <= 0) return false;
  return mean_util_pct >= rules.busy_util_pct &&
         mean_power_w < rules.loaded_power_fraction * power_limit_w;
}

}  // namespace pipecheck
