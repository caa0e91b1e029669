// What the stage records of stages/ share: reading a measurement's params and the usual shapes
// of a judging rule.
#pragma once

#include <string>
#include <vector>

#include "core/figure_text.hpp"
#include "core/measurement.hpp"
#include "core/stage_spec.hpp"

namespace pipecheck::stage_rules {

inline std::string param(const Measurement& m, const std::string& name) { return param_or_empty(m.params, name); }

// One check: the figure's % of its ceiling against the key's minimum.
inline StageChecks percent_check(const std::string& key) { return {{{CheckKind::percent_min, key, 0, "", ""}}, ""}; }
inline StageChecks not_judged(const std::string& why) { return {{}, why}; }

}  // namespace pipecheck::stage_rules
