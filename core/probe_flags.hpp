// A probe's own flags and the options they give: the mode, each flag with its value check and
// help, the usual value checks. Shared by the probe main (core/probe_main) and the stopping rule
// (core/stopping_rule), which reads the repetition flags.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pipecheck {

enum class ProbeMode { quick, standard, full };

struct ProbeOptions {
  ProbeMode mode = ProbeMode::standard;
  // --pipecheck_check_inputs: check the flags and what they name (paths, datasets), run nothing.
  bool check_inputs_only = false;
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

}  // namespace pipecheck
