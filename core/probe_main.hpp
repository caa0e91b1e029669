// What every probe executable shares: pipecheck's own flags (--pipecheck_quick, a probe's
// --path, ...) declared in one table per probe, checked and listed by --help; the context it
// adds to the Google Benchmark JSON; and the label convention that carries a measurement's
// display name and parameters to the driver.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

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

// One flag a probe accepts: checked before anything runs (a bad value or a typo is exit 2
// naming the flag, on any machine, with or without a GPU) and listed by the probe's --help
// beside Google Benchmark's own flags.
//   name   "qd" is given as --qd V or --qd=V; "pipecheck_buffer_mib" as --pipecheck_buffer_mib=V
//          and read back as options.last("buffer_mib")
//   value  what the value is, for --help ("N", "DIR", "WxH")
//   check  why a value is wrong ("expected a whole number from 1 to 4096"), or "" when right
using FlagCheck = std::function<std::string(const std::string&)>;
struct ProbeFlag {
  std::string name;
  std::string value;
  std::string help;
  FlagCheck check;
};

// Checks for the usual kinds of value. Whole numbers are read without overflow: digits only
// (no sign, no spaces), at most 18 of them, then the range.
FlagCheck whole_number(long long lowest, long long highest);
// "1,2,4": a comma-separated list of whole numbers, each in the range.
FlagCheck number_list(long long lowest, long long highest);
FlagCheck one_of(std::vector<std::string> choices);
// Anything not empty (a path, a name).
FlagCheck some_text();
// CUDA device indices "0,2" (each 0..1023) or "all" / "none"; checked the same with or without
// a device, so `--gpus abc` is refused everywhere.
FlagCheck gpu_list();
// --gpus LIST, as every GPU probe takes it.
ProbeFlag gpus_flag();

// The label of one benchmark: "what=memcpy, 1 thread;threads=1;buffer_bytes=1073741824".
// Values are written printable (core/text_escape.hpp: a file name's raw bytes become \xHH,
// which the caller does with escape_name), and a ';' inside a value as \x3b, so any name can be
// a value. Keys must not contain ';' or '='.
std::string encode_label(const std::map<std::string, std::string>& params);
std::map<std::string, std::string> decode_label(const std::string& label);

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
using RegisterCases = std::function<std::string(const ProbeOptions&)>;
int run_probe_main(int argc, char** argv, const std::string& stage, const std::string& probe,
                   const RegisterCases& register_cases, const std::vector<ProbeFlag>& flags = {});

}  // namespace pipecheck
