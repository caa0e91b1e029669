// What the CPU ceiling needs to know about the CPUs a burn runs on, read from /proc/cpuinfo and
// /sys/devices/system/cpu under a SysfsRoot (so tests read recorded trees): the vendor and
// microarchitecture ids, the ISA flags, how many physical cores the CPUs are, and their
// highest clock, or why that clock cannot be known.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/sysfs.hpp"

namespace pipecheck {

struct CpuCeilingFacts {
  std::string vendor;                  // x86 vendor_id ("GenuineIntel", "AuthenticAMD", "HygonGenuine"); "" on Arm
  std::optional<int> family;           // x86 "cpu family"
  std::optional<int> model;            // x86 "model"
  std::optional<int> arm_implementer;  // "CPU implementer" (0x41 Arm Ltd)
  std::optional<int> arm_part;         // "CPU part" (0xd4f Neoverse V2)
  std::string model_name;              // "AMD EPYC 9654 96-Core Processor", where cpuinfo says
  std::set<std::string> flags;         // x86 "flags" or Arm "Features"
  std::vector<int> cpus;               // the CPUs read (the burn's)
  int physical_cores = 0;              // distinct cores among them (SMT siblings share FMA units)
  std::optional<double> max_mhz;       // the highest cpuinfo_max_freq among them
  std::string clock_unknown_reason;    // why max_mhz is absent
};

// Reads the facts of `cpus` (empty: every CPU cpuinfo lists). Never throws: what is missing
// stays empty, with the reason for the clock.
CpuCeilingFacts read_cpu_ceiling_facts(const SysfsRoot& root, const std::vector<int>& cpus);

}  // namespace pipecheck
