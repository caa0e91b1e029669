// Google Benchmark has no stopping rule, so a probe runs its registered cases in rounds itself:
// each round runs every group of cases still going (one case's thread counts together, in
// random order, one repetition each), groups in random order, until core/stopping_rule says
// stop. Setup done in register_cases (scratch files, a JPEG corpus) is done once. The runs are
// then reported as one Google Benchmark document (the --benchmark_format display, and the
// --benchmark_out file), with each case's repetitions numbered in the order they ran and why it
// stopped in the context ("pipecheck_stop:<case>").
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/stopping_rule.hpp"

namespace pipecheck {

// Google Benchmark flags that decide how the probe runs, taken off argv before Google Benchmark
// parses it (a --benchmark_out file must be written once, after the last round).
struct BenchmarkFlags {
  std::string out;          // --benchmark_out=FILE
  std::string out_format;   // --benchmark_out_format=json|console|csv
  bool repetitions = false;  // --benchmark_repetitions given: Google Benchmark's own fixed count
  bool list_tests = false;   // --benchmark_list_tests
};
BenchmarkFlags take_benchmark_flags(int& argc, char** argv);

// A probe whose processes must run the same cases in the same order (NCCL ranks under MPI, each
// waiting on the others) calls this from register_cases: its cases then run Google Benchmark's
// own way, the policy's minimum as a fixed count, in registration order.
void keep_registration_order();

// A case whose figure another figure is computed from (the decode probe's loader cases, when
// they feed the training budget) is held to the policy's noise target even once the verdicts it
// is the reference of are decided (CaseDecision::held_to_noise). `name` is the name it was
// registered under ("decode/loader"): every run of it ("decode/loader/real_time/threads:2") is
// held. Called from register_cases.
void hold_case_to_noise(const std::string& name);

// One-time set-up a case ran inside a call (a child process it started and warmed up): not
// counted against its group's time cap, which is for repetitions. Called from the case's run.
void exclude_from_case_time(double seconds);

// What the judge makes of the repetitions so far: given the Google Benchmark JSON document of
// every case's runs up to now (what the driver will parse), the decision per measurement key
// (core/benchmark_json measurement_key) of each figure it judges. judge/verdict_decider makes one.
using CaseDecider = std::function<std::map<std::string, CaseDecision>(const std::string& benchmark_json)>;

// The judge's decider for a probe given --pipecheck_verdict_inventory (and
// --pipecheck_verdict_profile). Defined with the judge (judge/verdict_decider.cpp), so core
// reaches it without including it. Throws UsageError naming an unreadable file.
CaseDecider verdict_case_decider(const std::string& stage, const std::string& probe, const ProbeOptions& options);

// Runs the registered cases: in rounds by `policy` (asking `decider`, when the policy decides
// verdicts), or Google Benchmark's own way when the user gave --benchmark_repetitions or
// --benchmark_list_tests, or keep_registration_order() was called.
void run_registered_cases(const RepetitionPolicy& policy, const BenchmarkFlags& flags, const char* argv0,
                          const CaseDecider& decider = {});

// "decode/full/real_time/threads:1" as a POSIX extended regular expression matching only itself.
std::string exact_name_pattern(const std::string& name);

}  // namespace pipecheck
