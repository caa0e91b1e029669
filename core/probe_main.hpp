// What every probe executable shares: pipecheck's own flags (--pipecheck_quick, ...), the
// context it adds to the Google Benchmark JSON, and the label convention that carries a
// measurement's display name and parameters to the driver.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <vector>
#include <string>

namespace pipecheck {

enum class ProbeMode { quick, standard, full };

struct ProbeOptions {
  ProbeMode mode = ProbeMode::standard;
  // --pipecheck_NAME=VALUE (and a probe's own --NAME VALUE / --NAME=VALUE), every occurrence
  // in order: `--path a --path b` gives values["path"] = {"a", "b"}.
  std::map<std::string, std::vector<std::string>> values;

  // The last value given for a flag, or nullptr.
  const std::string* last(const std::string& name) const;
  // Every value given for a flag (empty when none).
  std::vector<std::string> all(const std::string& name) const;
};

// The label of one benchmark: "what=memcpy, 1 thread;threads=1;buffer_bytes=1073741824".
// Keys and values must not contain ';' (values may contain '=').
std::string encode_label(const std::map<std::string, std::string>& params);
std::map<std::string, std::string> decode_label(const std::string& label);

// Removes the --pipecheck_* flags, and the probe's own flags named in `own_flags` (taken as
// --NAME VALUE or --NAME=VALUE), from argv so Google Benchmark does not see them.
// Throws UsageError on a malformed flag or an own flag without its value.
ProbeOptions take_probe_flags(int& argc, char** argv, const std::set<std::string>& own_flags = {});

// Runs a probe: parses flags, adds context (stage, probe, mode), lets `register_cases` register
// the benchmarks for this machine, runs them. A skip reason returned by `register_cases` prints
// "skipped: <reason>" and exits 0. Returns the exit code: 0 ok, 2 usage, 3 could not run.
using RegisterCases = std::function<std::string(const ProbeOptions&)>;
int run_probe_main(int argc, char** argv, const std::string& stage, const std::string& probe,
                   const RegisterCases& register_cases, const std::set<std::string>& own_flags = {});

}  // namespace pipecheck
