// Rounds of repetitions over Google Benchmark's registered cases.
#include "core/repetition_rounds.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <sstream>

#include "core/benchmark_json.hpp"
#include "core/errors.hpp"

namespace pipecheck {

namespace {

using Run = benchmark::BenchmarkReporter::Run;

bool g_keep_registration_order = false;
std::vector<std::string> g_held_cases;  // registered names of the cases held to the noise target
double g_excluded_seconds = 0;  // set-up seconds cases said to leave out of their time cap

// "decode/loader/real_time/threads:1" is a run of "decode/loader", not of "decode/load".
bool held_to_noise(const std::string& run_name) {
  for (const std::string& name : g_held_cases) {
    if (run_name == name || (run_name.rfind(name, 0) == 0 && run_name[name.size()] == '/')) return true;
  }
  return false;
}

// Gathers the repetitions of a round instead of printing them.
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (Run run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;  // aggregates are computed from all rounds
      // Both point into the round's own benchmark instances, gone when the round ends.
      run.statistics = nullptr;
      run.memory_result = nullptr;
      collected.push_back(std::move(run));
    }
  }
  std::vector<Run> collected;
};

// Google Benchmark's flags set again between rounds (Initialize only sets the flags it is given).
// argv[0] stays the process's own: Google Benchmark keeps that pointer as the executable's name.
void set_benchmark_flags(const char* argv0, std::vector<std::string> flags) {
  std::vector<char*> argv{const_cast<char*>(argv0)};
  for (auto& flag : flags) argv.push_back(flag.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
}

std::vector<std::string> registered_case_names(const char* argv0) {
  set_benchmark_flags(argv0, {"--benchmark_list_tests=true"});
  CollectingReporter lister;
  std::ostringstream names;
  lister.SetOutputStream(&names);
  benchmark::RunSpecifiedBenchmarks(&lister);  // the user's --benchmark_filter still applies
  set_benchmark_flags(argv0, {"--benchmark_list_tests=false"});
  std::vector<std::string> cases;
  std::istringstream lines(names.str());
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && std::find(cases.begin(), cases.end(), line) == cases.end()) cases.push_back(line);
  }
  return cases;
}

// A repetition's figure for the stopping rule: the rate the driver will read, else the time.
double run_value(const Run& run) {
  for (const auto& name : rate_counter_names()) {
    const auto it = run.counters.find(name);
    if (it != run.counters.end()) return it->second.value;
  }
  return run.GetAdjustedRealTime();
}

struct CaseRuns {
  std::string name;
  std::vector<Run> runs;
  std::vector<double> values;
  bool error = false;
  std::string stop;
};

struct Group {
  std::vector<std::size_t> members;  // indexes into the cases
  double seconds = 0;
  bool done = false;
};

std::vector<Group> group_cases(const std::vector<CaseRuns>& cases) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> by_key;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto [it, added] = by_key.emplace(scaling_group_key(cases[i].name), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].members.push_back(i);
  }
  return groups;
}

// One repetition of every member still going, in random order (Google Benchmark's random
// interleaving shuffles the cases of one call).
void run_group_round(Group& group, std::vector<CaseRuns>& cases) {
  // Appended piece by piece: "^(" + std::string&& makes GCC 12 warn falsely (-Wrestrict).
  std::string pattern = "^(";
  bool first = true;
  for (std::size_t i : group.members) {
    if (cases[i].error) continue;
    if (!first) pattern += '|';
    pattern += exact_name_pattern(cases[i].name);
    first = false;
  }
  pattern += ")$";
  CollectingReporter collector;
  const auto start = std::chrono::steady_clock::now();
  const double excluded_before = g_excluded_seconds;
  benchmark::RunSpecifiedBenchmarks(&collector, pattern);
  const double set_up = g_excluded_seconds - excluded_before;  // a case's one-time set-up, said so
  group.seconds += std::max(0.0, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - set_up);
  for (Run& run : collector.collected) {
    for (std::size_t i : group.members) {
      if (cases[i].name != run.benchmark_name()) continue;
      if (run.error_occurred) cases[i].error = true;
      else cases[i].values.push_back(run_value(run));
      cases[i].runs.push_back(std::move(run));
      break;
    }
  }
}

void report_all(benchmark::BenchmarkReporter& reporter, const std::vector<CaseRuns>& cases);

// The JSON document of every case's runs so far, as the driver would read it.
std::string runs_so_far_json(const std::vector<CaseRuns>& cases) {
  std::ostringstream text, discarded;
  benchmark::JSONReporter reporter;
  reporter.SetOutputStream(&text);
  reporter.SetErrorStream(&discarded);
  report_all(reporter, cases);
  return text.str();
}

// The judge's word on every case after a round: asked once a round, not once a group (the
// document holds every case's runs, so asking per group grew with the square of the cases).
// Empty when the policy decides no verdicts or no group has its minimum yet.
std::map<std::string, CaseDecision> round_decisions(const std::vector<Group*>& going, const std::vector<CaseRuns>& cases,
                                                    const RepetitionPolicy& policy, const CaseDecider& decider) {
  if (!policy.decide_verdicts || !decider) return {};
  const bool any_at_minimum = std::any_of(going.begin(), going.end(), [&](const Group* group) {
    return std::any_of(group->members.begin(), group->members.end(), [&](std::size_t i) {
      return static_cast<int>(cases[i].values.size()) >= policy.min_repetitions;
    });
  });
  return any_at_minimum ? decider(runs_so_far_json(cases)) : std::map<std::string, CaseDecision>{};
}

void decide_group(Group& group, std::vector<CaseRuns>& cases, const RepetitionPolicy& policy,
                  const std::map<std::string, CaseDecision>& by_key) {
  std::vector<std::vector<double>> values;
  std::vector<CaseDecision> decisions;
  for (std::size_t i : group.members) {
    if (cases[i].error) continue;
    values.push_back(cases[i].values);
    const auto it = by_key.find(measurement_key(cases[i].name));
    decisions.push_back(it == by_key.end() ? CaseDecision{} : it->second);
    decisions.back().held_to_noise = held_to_noise(cases[i].name);
  }
  if (values.empty()) {
    group.done = true;
    for (std::size_t i : group.members) cases[i].stop = "stopped: the case reported an error";
    return;
  }
  const StopReason reason = group_stop_reason(values, group.seconds, policy, decisions);
  if (reason == StopReason::running) return;
  group.done = true;
  std::size_t member = 0;
  for (std::size_t i : group.members) {
    CaseRuns& c = cases[i];
    if (c.error) {
      c.stop = "stopped: the case reported an error";
    } else {
      const CaseDecision decision = member < decisions.size() ? decisions[member] : CaseDecision{};
      ++member;
      c.stop = describe_stop(reason, c.values, policy, decision, group.seconds, static_cast<int>(group.members.size()));
    }
    std::cerr << c.name << ": " << c.stop << "\n";
  }
}

std::unique_ptr<benchmark::BenchmarkReporter> file_reporter(const std::string& format) {
  if (format == "console") return std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
  if (format == "csv") {
    // Deprecated by Google Benchmark, still one of its --benchmark_out_format values.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    return std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  }
  return std::make_unique<benchmark::JSONReporter>();
}

void report_all(benchmark::BenchmarkReporter& reporter, const std::vector<CaseRuns>& cases) {
  benchmark::BenchmarkReporter::Context context;
  context.name_field_width = 0;  // Context() leaves it unset: Google Benchmark's runner sets it
  for (const auto& c : cases) context.name_field_width = std::max(context.name_field_width, c.name.size() + 2);
  if (!reporter.ReportContext(context)) return;
  for (const auto& c : cases) {
    if (!c.runs.empty()) reporter.ReportRuns(c.runs);
  }
  reporter.Finalize();
}

void report_rounds(std::vector<CaseRuns>& cases, const BenchmarkFlags& flags) {
  for (CaseRuns& c : cases) {
    for (std::size_t i = 0; i < c.runs.size(); ++i) {
      c.runs[i].repetition_index = static_cast<int64_t>(i);
      c.runs[i].repetitions = static_cast<int64_t>(c.runs.size());
    }
    if (!c.stop.empty()) benchmark::AddCustomContext("pipecheck_stop:" + c.name, c.stop);
  }
  report_all(*benchmark::CreateDefaultDisplayReporter(), cases);
  if (flags.out.empty()) return;
  std::ofstream file(flags.out);
  if (!file) throw RunError("--benchmark_out=" + flags.out + ": cannot open for writing");
  auto reporter = file_reporter(flags.out_format);
  reporter->SetOutputStream(&file);
  reporter->SetErrorStream(&file);
  report_all(*reporter, cases);
}

void run_in_rounds(const RepetitionPolicy& policy, const BenchmarkFlags& flags, const char* argv0,
                   const CaseDecider& decider) {
  std::vector<CaseRuns> cases;
  for (const auto& name : registered_case_names(argv0)) cases.push_back({name, {}, {}, false, ""});
  std::vector<Group> groups = group_cases(cases);
  // Before the first round: the judge reads them from each round's document too.
  benchmark::AddCustomContext("pipecheck_repetition_rule", policy.describe());
  benchmark::AddCustomContext("pipecheck_interleaved", "threads");
  set_benchmark_flags(argv0, {"--benchmark_repetitions=1", "--benchmark_enable_random_interleaving=true"});
  std::mt19937 shuffle(std::random_device{}());
  while (true) {
    std::vector<Group*> going;
    for (Group& g : groups) {
      if (!g.done) going.push_back(&g);
    }
    if (going.empty()) break;
    std::shuffle(going.begin(), going.end(), shuffle);  // drift in time spreads over every group
    for (Group* group : going) run_group_round(*group, cases);
    const auto decisions = round_decisions(going, cases, policy, decider);
    for (Group* group : going) decide_group(*group, cases, policy, decisions);
  }
  report_rounds(cases, flags);
}

}  // namespace

BenchmarkFlags take_benchmark_flags(int& argc, char** argv) {
  BenchmarkFlags flags;
  std::vector<char*> kept{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--benchmark_out=", 0) == 0) {
      flags.out = arg.substr(std::strlen("--benchmark_out="));
      continue;
    }
    if (arg.rfind("--benchmark_out_format=", 0) == 0) {
      flags.out_format = arg.substr(std::strlen("--benchmark_out_format="));
      if (flags.out_format != "json" && flags.out_format != "console" && flags.out_format != "csv") {
        throw UsageError("flag " + arg + ": expected json, console or csv");
      }
      continue;
    }
    if (arg.rfind("--benchmark_repetitions", 0) == 0) flags.repetitions = true;
    if (arg.rfind("--benchmark_list_tests", 0) == 0 && arg != "--benchmark_list_tests=false") flags.list_tests = true;
    kept.push_back(argv[i]);
  }
  argc = static_cast<int>(kept.size());
  for (int i = 0; i < argc; ++i) argv[i] = kept[i];
  return flags;
}

void keep_registration_order() { g_keep_registration_order = true; }

void hold_case_to_noise(const std::string& name) { g_held_cases.push_back(name); }

void exclude_from_case_time(double seconds) { g_excluded_seconds += seconds; }

std::string exact_name_pattern(const std::string& name) {
  std::string pattern;
  for (char c : name) {
    if (std::strchr(".[]{}()\\*+?^$|", c) != nullptr) pattern += '\\';
    pattern += c;
  }
  return pattern;
}

void run_registered_cases(const RepetitionPolicy& policy, const BenchmarkFlags& flags, const char* argv0,
                          const CaseDecider& decider) {
  if (!flags.repetitions && !flags.list_tests && !g_keep_registration_order) {
    run_in_rounds(policy, flags, argv0, decider);
    return;
  }
  // Google Benchmark's own way, with the --benchmark_out flags given back to it.
  std::vector<std::string> restored;
  if (!flags.out.empty()) restored.push_back("--benchmark_out=" + flags.out);
  if (!flags.out_format.empty()) restored.push_back("--benchmark_out_format=" + flags.out_format);
  if (!flags.repetitions) restored.push_back("--benchmark_repetitions=" + std::to_string(policy.min_repetitions));
  set_benchmark_flags(argv0, restored);
  benchmark::RunSpecifiedBenchmarks();
}

}  // namespace pipecheck
