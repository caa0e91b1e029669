// The stress stage: the GPU burn's figures (`pipecheck stress`), judged by its wrong results
// and thermal slowdown rather than a ceiling. No probe of `run` writes it.
#include <cstdlib>
#include <optional>

#include "core/stage_names.hpp"
#include "stages/stage_rules.hpp"
#include "stages/stages.hpp"

namespace pipecheck {

namespace {

using namespace stage_rules;

StageChecks stress_checks(const Measurement& m, const StageContext&) {
  StageChecks result;
  const std::string wrong = param(m, "wrong_results");
  if (!wrong.empty()) {
    const double count = std::atof(wrong.c_str());
    result.checks.push_back({CheckKind::count_max, "stress.wrong_results_max", count, "",
                             wrong + " wrong result" + (wrong == "1" ? "" : "s")});
  }
  const std::string slowdown = param(m, "thermal_slowdown_seconds");
  if (!slowdown.empty() && std::atof(slowdown.c_str()) > 0) {
    result.checks.push_back({CheckKind::policy, "stress.thermal_slowdown", 0, "",
                             "thermal slowdown for " + slowdown + " s during the burn"});
  }
  if (result.checks.empty()) result.not_judged = "no wrong_results or thermal_slowdown_seconds param";
  return result;
}

}  // namespace

StageSpec stress_stage() {
  StageSpec s;
  s.name = stage_name::stress;
  s.title = "GPU burn (stress)";
  s.description = "GPU burn with verified results under `pipecheck stress` and `check --burn`";
  s.runs_on_gpu = true;
  s.ceiling = [](const Measurement&, const StageContext&) {
    return CeilingResult::unknown("no ceiling model for stage 'stress'");
  };
  s.physical = [](const Measurement&, const Inventory&, const Inventory&) { return std::optional<Ceiling>{}; };
  s.checks = stress_checks;
  s.profile_text = R"(# GPU burn (stage stress): wrong results allowed, and what a thermal slowdown is.
stress.wrong_results_max = 0
stress.thermal_slowdown = warn
)";
  s.profile_keys = {
      {"stress.wrong_results_max", ProfileValueKind::count, "GPU burn: wrong results allowed"},
      {"stress.thermal_slowdown", ProfileValueKind::policy, "verdict for thermal slowdown during the burn"},
  };
  s.advice =
      "Wrong results or slowdowns under a burn: check cooling, power delivery and the GPU's Xid and ECC "
      "errors; a GPU that computes wrong results must not train.";
  s.measurement_contract =
      "gpu, gpu_bdf, wrong_results (count), thermal_slowdown_seconds (seconds with a thermal slowdown reason set); "
      "no ceiling: judged by stress.* keys.";
  return s;
}

}  // namespace pipecheck
