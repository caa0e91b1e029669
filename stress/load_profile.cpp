// Load levels over time for the stress profiles.
#include "stress/load_profile.hpp"

#include <algorithm>
#include <cmath>

namespace pipecheck {

double LoadProfile::level_at(double t) const {
  switch (shape) {
    case LoadShape::steady:
      return 1.0;
    case LoadShape::pulse:
      return std::fmod(std::max(t, 0.0), period_s) < period_s / 2 ? 1.0 : 0.0;
    case LoadShape::ramp: {
      const double step = std::floor(std::max(t, 0.0) / period_s) + 1;
      return std::min(1.0, step / std::max(ramp_steps, 1));
    }
  }
  return 1.0;
}

bool LoadProfile::active_at(double t) const {
  const double level = level_at(t);
  if (level >= 1.0) return true;
  if (level <= 0.0) return false;
  return std::fmod(std::max(t, 0.0), duty_window_s) < level * duty_window_s;
}

std::string load_shape_name(LoadShape shape) {
  switch (shape) {
    case LoadShape::steady:
      return "steady";
    case LoadShape::pulse:
      return "pulse";
    case LoadShape::ramp:
      return "ramp";
  }
  return "steady";
}

std::optional<LoadShape> parse_load_shape(const std::string& name) {
  if (name == "steady") return LoadShape::steady;
  if (name == "pulse") return LoadShape::pulse;
  if (name == "ramp") return LoadShape::ramp;
  return std::nullopt;
}

}  // namespace pipecheck
