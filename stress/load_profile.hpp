// Load profiles of the stress run: steady (flat out), pulse (on/off square wave, for the power
// transients that trip power supplies and drivers) and ramp (load steps up). Workers ask
// active_at(t) between short batches, so a fractional level becomes a duty cycle.
#pragma once

#include <optional>
#include <string>

namespace pipecheck {

enum class LoadShape { steady, pulse, ramp };

struct LoadProfile {
  LoadShape shape = LoadShape::steady;
  double period_s = 10;   // pulse: one on + off cycle; ramp: one step
  int ramp_steps = 4;     // ramp: 25%, 50%, 75%, 100%, then stays at 100%
  double duty_window_s = 1.0;  // a level below 1 is on for level x this window, then off

  // The load level at t seconds into the run: 0..1.
  double level_at(double t) const;
  // Whether a worker should be burning at t (the level as a duty cycle).
  bool active_at(double t) const;
};

std::string load_shape_name(LoadShape shape);
std::optional<LoadShape> parse_load_shape(const std::string& name);

}  // namespace pipecheck
