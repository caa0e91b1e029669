// What every probe executable shares: pipecheck's own flags (--pipecheck_quick, a probe's
// --path, ...; their types in core/probe_flags) taken from argv, checked and listed by --help;
// the context it adds to the Google Benchmark JSON; the run of the registered cases. The label
// convention that carries a measurement's display name and parameters to the driver is
// core/probe_label.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/probe_flags.hpp"
#include "core/probe_label.hpp"

namespace pipecheck {

// benchmark::AddCustomContext with the value made printable (the JSON must stay valid whatever
// bytes a name holds: escape names with escape_name first).
void add_probe_context(const std::string& key, const std::string& value);

// Removes pipecheck's own flags (--pipecheck_quick, --pipecheck_full and those in `flags`) from
// argv so Google Benchmark does not see them, each value checked. Throws UsageError on a
// malformed flag, an own flag without its value, a value its check refuses, or an unknown
// --pipecheck_* flag (naming the nearest known one).
ProbeOptions take_probe_flags(int& argc, char** argv, const std::vector<ProbeFlag>& flags = {});

// The --help text of pipecheck's flags for a probe: --pipecheck_quick, --pipecheck_full and
// each of `flags` with its value and help.
std::string probe_flags_help(const std::vector<ProbeFlag>& flags);

// Runs a probe: parses flags, adds context (stage, probe, mode), lets `register_cases` register
// the benchmarks for this machine, runs them. A skip reason returned by `register_cases` prints
// "skipped: <reason>" and exits 0. An argument neither pipecheck nor Google Benchmark knows is
// exit 2 naming the nearest known flag. --help lists both. Returns the exit code: 0 ok, 2
// usage, 3 could not run.
// With --pipecheck_check_inputs it checks the flags, then calls `check_inputs` (which throws
// UsageError naming a bad path or dataset) and runs nothing: the driver asks each probe to check
// its own inputs before the first probe runs, without linking the probe's code.
using RegisterCases = std::function<std::string(const ProbeOptions&)>;
using CheckInputs = std::function<void(const ProbeOptions&)>;
int run_probe_main(int argc, char** argv, const std::string& stage, const std::string& probe,
                   const RegisterCases& register_cases, const std::vector<ProbeFlag>& flags = {},
                   const CheckInputs& check_inputs = {});

}  // namespace pipecheck
