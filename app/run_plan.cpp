// The time plan of a run, before anything is measured.
#include "app/run_plan.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/json_input.hpp"
#include "core/json_records.hpp"
#include "core/stage_registry.hpp"
#include "core/temporary_folder.hpp"
#include "core/text_escape.hpp"
#include "pipecheck_config.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

namespace {

// Google Benchmark calls a case once to size its iteration count, then once timed.
constexpr double kCallsPerRepetition = 2;

// The stopping rule and the minimum time a repetition the probes get in this mode.
struct ModeRule {
  RepetitionPolicy policy;
  double repetition_seconds = 0;
};

ModeRule mode_rule(ProbeMode mode, bool verdicts, bool steady) {
  ProbeOptions options;
  options.mode = mode;
  double min_time = 0.5;  // Google Benchmark's default
  const auto args =
      probe_arguments(mode, verdicts ? std::optional(VerdictInputs{"inventory.json", ""}) : std::nullopt, steady);
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    if (arg.rfind("--benchmark_min_time=", 0) == 0) min_time = std::stod(arg.substr(eq + 1));
    if (arg.rfind("--pipecheck_", 0) == 0 && eq != std::string::npos) {
      options.values[arg.substr(12, eq - 12)].push_back(arg.substr(eq + 1));
    }
  }
  return {repetition_policy(options), min_time * kCallsPerRepetition};
}

int group_count(const std::vector<std::string>& cases) {
  std::map<std::string, int> groups;
  for (const auto& c : cases) ++groups[scaling_group_key(c)];
  return static_cast<int>(groups.size());
}

std::string seconds_text(double seconds) {
  char text[32];
  if (seconds < 10) std::snprintf(text, sizeof text, "%.1f s", seconds);
  else if (seconds < 120) std::snprintf(text, sizeof text, "%.0f s", seconds);
  else std::snprintf(text, sizeof text, "%.1f min", seconds / 60);
  return text;
}

std::string final_line(const std::string& text) {
  std::string line = text;
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  const auto newline = line.rfind('\n');
  if (newline != std::string::npos) line = line.substr(newline + 1);
  return printable_text(line.size() > 200 ? line.substr(0, 197) + "..." : line);
}

// The probe's own list, with the run's arguments: its setup (a corpus, a scratch file) runs,
// nothing is measured.
void list_cases(StagePlan& plan, const RunOptions& options, const fs::path& probe_dir, bool needs_cuda) {
  if (needs_cuda && !PIPECHECK_HAVE_CUDA) {
    plan.skipped = "not built: no CUDA toolkit";
    return;
  }
  const TemporaryFolder scratch("pipecheck-plan");
  ProcessSpec spec;
  spec.argv = {(probe_dir / plan.executable).string(), "--benchmark_list_tests=true"};
  for (const auto& arg : probe_arguments(options.mode)) {
    if (arg.rfind("--pipecheck_quick", 0) == 0 || arg.rfind("--pipecheck_full", 0) == 0) spec.argv.push_back(arg);
  }
  for (const auto& arg : stage_arguments(plan.stage, options, scratch.path() / "run")) spec.argv.push_back(arg);
  spec.stdout_path = scratch.path() / "stdout";
  spec.stderr_path = scratch.path() / "stderr";
  spec.time_limit = std::chrono::seconds(600);
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult process = run_process(spec);
  plan.setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string said = read_file(spec.stderr_path, 1 << 20);
  if (!process.ok()) {
    throw RunError(plan.executable + " could not list its cases: " + process.describe() + ": " + final_line(said));
  }
  if (said.find("skipped: ") != std::string::npos) {
    plan.skipped = final_line(said.substr(said.find("skipped: ") + 9));
    return;
  }
  std::istringstream lines(read_file(spec.stdout_path, 64 << 20));
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) plan.cases.push_back(line);
  }
  plan.source = "listed by " + plan.executable;
}

Inventory read_planned_inventory(const fs::path& path) {
  try {
    return parse_json(read_file(path)).get<Inventory>();
  } catch (const std::exception& error) {
    throw UsageError("--plan-inventory " + escape_name(path.string()) + ": not an inventory.json: " + error.what());
  }
}

}  // namespace

TimeBounds plan_case_time(const std::vector<std::string>& cases, const RepetitionPolicy& policy,
                          double repetition_seconds, bool fixed) {
  std::map<std::string, int> groups;
  for (const auto& c : cases) ++groups[scaling_group_key(c)];
  TimeBounds bounds;
  for (const auto& [key, members] : groups) {
    const double round = members * repetition_seconds;
    const double least = policy.min_repetitions * round;
    bounds.at_least += least;
    if (fixed || policy.fixed()) {
      bounds.at_most += least;
      continue;
    }
    double most = policy.max_repetitions * round;
    if (policy.case_seconds > 0) most = std::min(most, std::max(least, policy.case_seconds * members + round));
    bounds.at_most += most;
  }
  return bounds;
}

RunPlan plan_run(const RunOptions& options, const std::vector<ProbeEntry>& catalog, const fs::path& planned_inventory) {
  RunPlan plan;
  plan.mode = mode_name_of(options.mode);
  const bool verdicts = options.baseline.empty();
  const ModeRule cpu_rule = mode_rule(options.mode, verdicts, false);
  const ModeRule gpu_rule = mode_rule(options.mode, verdicts, true);
  plan.rule = cpu_rule.policy.describe() + "; a repetition at least " + seconds_text(cpu_rule.repetition_seconds);
  if (gpu_rule.policy.case_seconds != cpu_rule.policy.case_seconds) {
    char gpu_cap[96];
    std::snprintf(gpu_cap, sizeof gpu_cap, " (GPU stages: at most %g s a case)", gpu_rule.policy.case_seconds);
    plan.rule += gpu_cap;
  }
  std::optional<Inventory> inventory;
  if (!planned_inventory.empty()) inventory = read_planned_inventory(planned_inventory);
  const fs::path probe_dir = options.probe_dir.empty() ? executable_dir() : options.probe_dir;
  for (const ProbeEntry& probe : select_probes(options, catalog)) {
    StagePlan stage;
    stage.stage = probe.stage;
    stage.executable = probe.executable;
    const StageSpec* spec = find_stage(probe.stage);
    const bool fixed = spec != nullptr && spec->fixed_repetitions;
    if (inventory) {
      if (spec == nullptr || !spec->planned_cases) {
        stage.skipped = "no plan from an inventory";
      } else {
        stage.cases = spec->planned_cases(*inventory, options.mode);
        stage.source = "planned from " + escape_name(planned_inventory.filename().string());
        if (stage.cases.empty()) stage.skipped = "nothing to run on that machine";
      }
    } else {
      list_cases(stage, options, probe_dir, probe.needs_cuda);
    }
    stage.groups = group_count(stage.cases);
    const ModeRule& rule = spec != nullptr && spec->runs_on_gpu ? gpu_rule : cpu_rule;
    stage.time = plan_case_time(stage.cases, rule.policy, rule.repetition_seconds, fixed);
    stage.time.at_least += stage.setup_seconds;
    stage.time.at_most += stage.setup_seconds;
    plan.total.at_least += stage.time.at_least;
    plan.total.at_most += stage.time.at_most;
    plan.stages.push_back(std::move(stage));
  }
  if (inventory) {
    plan.notes.push_back("planned stages leave out their setup (a CUDA context, buffers, a JPEG corpus: seconds each)");
    plan.notes.push_back("GPU stages run their GPUs one after another, as the probes do today");
  }
  return plan;
}

std::string render_plan(const RunPlan& plan) {
  std::ostringstream out;
  out << "Plan of a " << plan.mode << " run (nothing measured): " << plan.rule << "\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-8s %6s %7s %9s %10s %10s  %s\n", "stage", "cases", "groups", "setup", "at least",
                "at most", "cases from");
  out << line;
  for (const StagePlan& s : plan.stages) {
    if (!s.skipped.empty()) {
      std::snprintf(line, sizeof line, "%-8s %6s %7s %9s %10s %10s  ", s.stage.c_str(), "-", "-", "-", "-", "-");
      out << line << "skipped: " << printable_text(s.skipped) << "\n";
      continue;
    }
    std::snprintf(line, sizeof line, "%-8s %6zu %7d %9s %10s %10s  ", s.stage.c_str(), s.cases.size(), s.groups,
                  s.setup_seconds > 0 ? seconds_text(s.setup_seconds).c_str() : "-", seconds_text(s.time.at_least).c_str(),
                  seconds_text(s.time.at_most).c_str());
    out << line << printable_text(s.source) << "\n";
  }
  std::snprintf(line, sizeof line, "%-8s %6s %7s %9s %10s %10s\n", "total", "", "", "", seconds_text(plan.total.at_least).c_str(),
                seconds_text(plan.total.at_most).c_str());
  out << line;
  for (const auto& note : plan.notes) out << "\nnote: " << note;
  if (!plan.notes.empty()) out << "\n";
  return out.str();
}

}  // namespace pipecheck
