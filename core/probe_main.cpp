// Shared probe main: pipecheck flags, Google Benchmark context, label convention.
#include "core/probe_main.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "core/errors.hpp"
#include "core/repetition_rounds.hpp"
#include "core/stopping_rule.hpp"
#include "pipecheck_config.hpp"

namespace pipecheck {

namespace {

constexpr const char* kFlagPrefix = "--pipecheck_";

const char* mode_name(ProbeMode mode) {
  switch (mode) {
    case ProbeMode::quick: return "quick";
    case ProbeMode::full: return "full";
    default: return "standard";
  }
}

}  // namespace

std::string encode_label(const std::map<std::string, std::string>& params) {
  std::string label;
  for (const auto& [key, value] : params) {
    if (!label.empty()) label += ';';
    label += key + "=" + value;
  }
  return label;
}

std::map<std::string, std::string> decode_label(const std::string& label) {
  std::map<std::string, std::string> params;
  std::size_t start = 0;
  while (start < label.size()) {
    std::size_t end = label.find(';', start);
    if (end == std::string::npos) end = label.size();
    const std::string item = label.substr(start, end - start);
    const auto eq = item.find('=');
    if (eq != std::string::npos && eq > 0) params[item.substr(0, eq)] = item.substr(eq + 1);
    start = end + 1;
  }
  return params;
}

const std::string* ProbeOptions::last(const std::string& name) const {
  const auto it = values.find(name);
  return it == values.end() || it->second.empty() ? nullptr : &it->second.back();
}

std::vector<std::string> ProbeOptions::all(const std::string& name) const {
  const auto it = values.find(name);
  return it == values.end() ? std::vector<std::string>{} : it->second;
}

namespace {

// "--path" / "--path=x" when "path" is one of the probe's own flags: its name, else "".
std::string own_flag_name(const std::string& arg, const std::set<std::string>& own_flags) {
  if (arg.rfind("--", 0) != 0) return "";
  const std::string name = arg.substr(2, arg.find('=') == std::string::npos ? std::string::npos
                                                                            : arg.find('=') - 2);
  return own_flags.count(name) ? name : "";
}

}  // namespace

ProbeOptions take_probe_flags(int& argc, char** argv, const std::set<std::string>& own_flags) {
  ProbeOptions options;
  std::vector<char*> kept{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (const std::string own = own_flag_name(arg, own_flags); !own.empty()) {
      const auto eq = arg.find('=');
      if (eq != std::string::npos) {
        options.values[own].push_back(arg.substr(eq + 1));
      } else if (i + 1 < argc) {
        options.values[own].push_back(argv[++i]);
      } else {
        throw UsageError("flag " + arg + ": missing its value");
      }
      continue;
    }
    if (arg.rfind(kFlagPrefix, 0) != 0) {
      kept.push_back(argv[i]);
      continue;
    }
    const std::string body = arg.substr(std::strlen(kFlagPrefix));
    const auto eq = body.find('=');
    const std::string name = body.substr(0, eq);
    if (name.empty()) throw UsageError("flag " + arg + ": missing a name after --pipecheck_");
    if (name == "quick" || name == "full") {
      if (eq != std::string::npos) throw UsageError("flag " + arg + " takes no value");
      options.mode = name == "quick" ? ProbeMode::quick : ProbeMode::full;
    } else if (eq == std::string::npos || eq + 1 == body.size()) {
      throw UsageError("flag " + arg + ": expected --pipecheck_" + name + "=VALUE");
    } else {
      options.values[name].push_back(body.substr(eq + 1));
    }
  }
  argc = static_cast<int>(kept.size());
  for (int i = 0; i < argc; ++i) argv[i] = kept[i];
  return options;
}

int run_probe_main(int argc, char** argv, const std::string& stage, const std::string& probe,
                   const RegisterCases& register_cases, const std::set<std::string>& own_flags) {
  ProbeOptions options;
  BenchmarkFlags benchmark_flags;
  RepetitionPolicy repetitions;
  try {
    options = take_probe_flags(argc, argv, own_flags);
    // Repetitions and their stopping rule (core/stopping_rule): one block, kept apart.
    benchmark_flags = take_benchmark_flags(argc, argv);
    repetitions = repetition_policy(options);
    if (benchmark_flags.repetitions && has_repetition_flags(options)) {
      throw UsageError("--benchmark_repetitions excludes pipecheck's --pipecheck_*repetitions, "
                       "--pipecheck_target_noise and --pipecheck_case_seconds: give one or the other");
    }
  } catch (const UsageError& error) {
    std::cerr << probe << ": " << error.what() << "\n";
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::AddCustomContext("pipecheck_stage", stage);
  benchmark::AddCustomContext("pipecheck_probe", probe);
  benchmark::AddCustomContext("pipecheck_mode", mode_name(options.mode));
  benchmark::AddCustomContext("pipecheck_version", PIPECHECK_VERSION);
  try {
    const std::string skip_reason = register_cases(options);
    if (!skip_reason.empty()) {
      std::cerr << "skipped: " << skip_reason << "\n";
      return 0;
    }
  } catch (const UsageError& error) {
    std::cerr << probe << ": " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << probe << ": could not run: " << error.what() << "\n";
    return 3;
  }
  try {
    run_registered_cases(repetitions, benchmark_flags, argv[0]);
  } catch (const std::exception& error) {
    std::cerr << probe << ": could not run: " << error.what() << "\n";
    return 3;
  }
  benchmark::Shutdown();
  return 0;
}

}  // namespace pipecheck
