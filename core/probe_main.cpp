// Shared probe main: pipecheck flags, Google Benchmark context, label convention.
#include "core/standard_output.hpp"
#include "core/probe_main.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "core/errors.hpp"
#include "core/nearest_name.hpp"
#include "core/text_escape.hpp"
#include "core/repetition_rounds.hpp"
#include "core/stopping_rule.hpp"
#include "pipecheck_config.hpp"

namespace pipecheck {

namespace {

const char* mode_name(ProbeMode mode) {
  switch (mode) {
    case ProbeMode::quick: return "quick";
    case ProbeMode::full: return "full";
    default: return "standard";
  }
}

}  // namespace

void add_probe_context(const std::string& key, const std::string& value) {
  benchmark::AddCustomContext(key, printable_text(value));
}

// --- taking the flags ----------------------------------------------------------------------

namespace {

constexpr const char* kPipecheckPrefix = "pipecheck_";

// The flags every probe has, beside its own.
const std::vector<ProbeFlag>& common_flags() {
  static const std::vector<ProbeFlag> flags = {
      {"pipecheck_quick", "", "short run: smaller buffers and sweeps (what `pipecheck run --quick` passes)", {}},
      {"pipecheck_full", "", "long run: larger buffers and sweeps (`pipecheck run --full`)", {}},
      {"pipecheck_check_inputs", "",
       "check the flags and the paths they name, run nothing: exit 0, or 2 naming what is wrong "
       "(what `pipecheck run` does before its first probe)", {}},
      // Repetitions (core/stopping_rule checks the figures and how they combine).
      {"pipecheck_repetitions", "N", "exactly N repetitions of each case (no stopping rule)", whole_number(1, 10000)},
      {"pipecheck_min_repetitions", "N", "at least N repetitions of each case", whole_number(1, 10000)},
      {"pipecheck_max_repetitions", "N", "at most N repetitions of each case", whole_number(1, 10000)},
      {"pipecheck_target_noise", "PCT",
       "stop once the median's noise is under PCT percent (default 2); with verdicts to decide, \"none\": figures "
       "without a threshold stop at the minimum count", some_text()},
      {"pipecheck_case_seconds", "S", "stop repeating a case after S seconds", some_text()},
      {"pipecheck_verdict_inventory", "FILE",
       "stop a judged figure once its verdict is decided, judging against this inventory.json (what `pipecheck run` "
       "passes without --baseline)", some_text()},
      {"pipecheck_verdict_profile", "FILE", "the acceptance profile those verdicts use (default: the built-in one)",
       some_text()},
  };
  return flags;
}

bool is_pipecheck_flag(const std::string& name) { return name.rfind(kPipecheckPrefix, 0) == 0; }

const ProbeFlag* find_flag(const std::vector<ProbeFlag>& flags, const std::string& name) {
  for (const auto& flag : flags) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

// Google Benchmark 1.7's flags, for the nearest-name suggestion.
const std::vector<std::string>& benchmark_flag_names() {
  static const std::vector<std::string> names = {
      "benchmark_list_tests", "benchmark_filter", "benchmark_min_time", "benchmark_min_warmup_time",
      "benchmark_repetitions", "benchmark_enable_random_interleaving", "benchmark_report_aggregates_only",
      "benchmark_display_aggregates_only", "benchmark_format", "benchmark_out", "benchmark_out_format",
      "benchmark_color", "benchmark_counters_tabular", "benchmark_context", "benchmark_time_unit",
      "benchmark_perf_counters", "help", "v"};
  return names;
}

std::string suggestion(const std::string& typed, const std::vector<ProbeFlag>& flags, bool with_benchmark) {
  std::vector<std::string> names;
  for (const auto& flag : common_flags()) names.push_back(flag.name);
  for (const auto& flag : flags) names.push_back(flag.name);
  if (with_benchmark) names.insert(names.end(), benchmark_flag_names().begin(), benchmark_flag_names().end());
  const std::string nearest = nearest_name(typed, names);
  return nearest.empty() ? " (see --help)" : " (did you mean --" + nearest + "?)";
}

void check_value(const ProbeFlag& flag, const std::string& value) {
  if (!flag.check) return;
  if (const std::string why = flag.check(value); !why.empty()) {
    throw UsageError("--" + flag.name + "=" + shortened(value) + ": " + why);
  }
}

}  // namespace

ProbeOptions take_probe_flags(int& argc, char** argv, const std::vector<ProbeFlag>& flags) {
  ProbeOptions options;
  std::vector<char*> kept{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      kept.push_back(argv[i]);
      continue;
    }
    const auto eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (name == "pipecheck_quick" || name == "pipecheck_full") {
      if (eq != std::string::npos) throw UsageError("flag " + shortened(arg) + " takes no value");
      options.mode = name == "pipecheck_quick" ? ProbeMode::quick : ProbeMode::full;
      continue;
    }
    if (name == "pipecheck_check_inputs") {
      if (eq != std::string::npos) throw UsageError("flag " + shortened(arg) + " takes no value");
      options.check_inputs_only = true;
      continue;
    }
    const ProbeFlag* flag = find_flag(flags, name);
    if (flag == nullptr) flag = find_flag(common_flags(), name);
    if (flag == nullptr && is_pipecheck_flag(name)) {
      if (name.size() == std::strlen(kPipecheckPrefix)) {
        throw UsageError("flag " + shortened(arg) + ": missing a name after --pipecheck_");
      }
      throw UsageError("unknown flag --" + shortened(name) + suggestion(name, flags, false));
    }
    if (flag == nullptr) {  // Google Benchmark's, or unknown to both: said after it has looked
      kept.push_back(argv[i]);
      continue;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (is_pipecheck_flag(name)) {
      throw UsageError("flag " + shortened(arg) + ": expected --" + name + "=VALUE");
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      throw UsageError("flag " + shortened(arg) + ": missing its value");
    }
    if (is_pipecheck_flag(name) && value.empty()) {
      throw UsageError("flag " + shortened(arg) + ": expected --" + name + "=VALUE");
    }
    check_value(*flag, value);
    const std::string key = is_pipecheck_flag(name) ? name.substr(std::strlen(kPipecheckPrefix)) : name;
    options.values[key].push_back(value);
  }
  argc = static_cast<int>(kept.size());
  for (int i = 0; i < argc; ++i) argv[i] = kept[i];
  return options;
}

std::string probe_flags_help(const std::vector<ProbeFlag>& flags) {
  std::string text = "\npipecheck flags (checked before anything runs; a bad value is exit 2):\n";
  std::vector<ProbeFlag> all = common_flags();
  all.insert(all.end(), flags.begin(), flags.end());
  for (const auto& flag : all) {
    std::string usage = "  --" + flag.name;
    if (!flag.value.empty()) usage += (is_pipecheck_flag(flag.name) ? "=" : " ") + flag.value;
    if (usage.size() < 32) usage.resize(32, ' ');
    else usage += "  ";
    text += usage + flag.help + "\n";
  }
  return text;
}

namespace {

std::string g_help_text;  // for Google Benchmark's --help printer, a plain function pointer

void print_help() {
  benchmark::PrintDefaultHelp();
  std::fputs(g_help_text.c_str(), stdout);
}

// What Google Benchmark left in argv is unknown to both: one line naming the nearest flag.
void refuse_leftovers(int argc, char** argv, const std::vector<ProbeFlag>& flags) {
  if (argc < 2) return;
  const std::string arg = argv[1];
  if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + shortened(arg) + "'");
  const std::string name = arg.substr(2, arg.find('=') == std::string::npos ? std::string::npos : arg.find('=') - 2);
  const auto& known = benchmark_flag_names();
  if (std::find(known.begin(), known.end(), name) != known.end()) {
    throw UsageError("flag " + shortened(arg) + ": Google Benchmark refused this value (see --help)");
  }
  throw UsageError("unknown flag --" + shortened(name) + suggestion(name, flags, true));
}

}  // namespace

int run_probe_main(int argc, char** argv, const std::string& stage, const std::string& probe,
                   const RegisterCases& register_cases, const std::vector<ProbeFlag>& flags,
                   const CheckInputs& check_inputs) {
  hold_standard_fds();
  ProbeOptions options;
  BenchmarkFlags benchmark_flags;
  RepetitionPolicy repetitions;
  CaseDecider decider;
  try {
    options = take_probe_flags(argc, argv, flags);
    // Repetitions and their stopping rule (core/stopping_rule): one block, kept apart.
    benchmark_flags = take_benchmark_flags(argc, argv);
    repetitions = repetition_policy(options);
    if (benchmark_flags.repetitions && has_repetition_flags(options)) {
      throw UsageError("--benchmark_repetitions excludes pipecheck's --pipecheck_*repetitions, "
                       "--pipecheck_target_noise and --pipecheck_case_seconds: give one or the other");
    }
    if (options.last("verdict_profile") && !options.last("verdict_inventory")) {
      throw UsageError("--pipecheck_verdict_profile needs --pipecheck_verdict_inventory");
    }
    if (!options.check_inputs_only) decider = verdict_case_decider(stage, probe, options);
    g_help_text = probe_flags_help(flags);
    benchmark::Initialize(&argc, argv, print_help);
    refuse_leftovers(argc, argv, flags);
  } catch (const UsageError& error) {
    std::cerr << probe << ": " << message_line(error.what()) << "\n";
    return 2;
  }
  if (options.check_inputs_only) {
    try {
      if (check_inputs) check_inputs(options);
    } catch (const UsageError& error) {
      std::cerr << probe << ": " << message_line(error.what()) << "\n";
      return 2;
    } catch (const std::exception& error) {
      std::cerr << probe << ": could not check its inputs: " << message_line(error.what()) << "\n";
      return 3;
    }
    return 0;
  }
  benchmark::AddCustomContext("pipecheck_stage", stage);
  benchmark::AddCustomContext("pipecheck_probe", probe);
  benchmark::AddCustomContext("pipecheck_mode", mode_name(options.mode));
  benchmark::AddCustomContext("pipecheck_version", PIPECHECK_VERSION);
  try {
    const std::string skip_reason = register_cases(options);
    if (!skip_reason.empty()) {
      std::cerr << "skipped: " << printable_text(skip_reason) << "\n";
      return 0;
    }
  } catch (const UsageError& error) {
    std::cerr << probe << ": " << message_line(error.what()) << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << probe << ": could not run: " << message_line(error.what()) << "\n";
    return 3;
  }
  try {
    run_registered_cases(repetitions, benchmark_flags, argv[0], decider);
  } catch (const std::exception& error) {
    std::cerr << probe << ": could not run: " << error.what() << "\n";
    return 3;
  }
  benchmark::Shutdown();
  // Results written into a full disk or a closed stdout are lost: exit 3, as the README says.
  return checked_stdout(0, probe);
}

}  // namespace pipecheck
