// /proc/cpuinfo on every architecture Linux runs training machines on: the processor model
// (x86 "model name", POWER "cpu", Arm "Processor" or implementer and part, s390 "machine"),
// the processor count and the package/core ids where the architecture gives them.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

namespace pipecheck {

struct CpuinfoFacts {
  std::string model;                       // empty when no line names one
  int processors = 0;                      // 0 when no line counts them
  std::set<int> packages;                  // "physical id" (x86, IA-64); empty elsewhere
  std::set<std::pair<int, int>> cores;     // (physical id, core id)
  std::map<int, int> cores_per_package;    // "cpu cores" by physical id (x86)
};

CpuinfoFacts parse_cpuinfo(const std::string& text);

// The name of an Arm core from its MIDR implementer and part numbers ("CPU implementer" and
// "CPU part" of /proc/cpuinfo): (0x41, 0xd0c) -> "ARM Neoverse-N1"; unknown ones by number.
std::string arm_cpu_name(unsigned implementer, unsigned part);
// The IBM Z model of a machine type: 2964 -> "IBM z13 (machine type 2964)".
std::string s390_machine_name(unsigned machine_type);

}  // namespace pipecheck
