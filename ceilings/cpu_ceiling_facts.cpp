// Reading the CPU ceiling's facts from /proc/cpuinfo and cpufreq/topology sysfs.
#include "ceilings/cpu_ceiling_facts.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace pipecheck {

namespace {

using Block = std::map<std::string, std::string>;

// /proc/cpuinfo as one key/value block per "processor", by its number.
std::map<int, Block> cpuinfo_blocks(const std::string& text) {
  std::map<int, Block> blocks;
  std::istringstream lines(text);
  std::string line;
  Block block;
  std::optional<int> processor;
  auto flush = [&] {
    if (processor) blocks[*processor] = block;
    block.clear();
    processor.reset();
  };
  while (std::getline(lines, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      if (trim(line).empty()) flush();
      continue;
    }
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "processor") {
      if (processor) flush();
      try {
        processor = std::stoi(value);
      } catch (const std::exception&) {
        processor.reset();
      }
    }
    block[key] = value;
  }
  flush();
  return blocks;
}

std::optional<int> number(const Block& block, const std::string& key) {
  const auto it = block.find(key);
  if (it == block.end()) return std::nullopt;
  try {
    std::size_t used = 0;
    const int value = std::stoi(it->second, &used, 0);
    if (used != it->second.size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string text_of(const Block& block, const std::string& key) {
  const auto it = block.find(key);
  return it == block.end() ? "" : it->second;
}

void read_identity(CpuCeilingFacts& facts, const Block& block) {
  facts.vendor = text_of(block, "vendor_id");
  facts.family = number(block, "cpu family");
  facts.model = number(block, "model");
  facts.arm_implementer = number(block, "CPU implementer");
  facts.arm_part = number(block, "CPU part");
  facts.model_name = text_of(block, "model name");
  std::istringstream flags(text_of(block, block.count("flags") ? "flags" : "Features"));
  std::string flag;
  while (flags >> flag) facts.flags.insert(flag);
}

std::string cpu_dir(int cpu) { return "/sys/devices/system/cpu/cpu" + std::to_string(cpu); }

// Distinct physical cores among the CPUs: SMT siblings list the same core_cpus_list (older
// kernels: thread_siblings_list). A CPU without it counts as a core of its own.
int physical_cores(const SysfsRoot& root, const std::vector<int>& cpus) {
  std::set<std::string> cores;
  for (int cpu : cpus) {
    auto siblings = root.read_line(cpu_dir(cpu) + "/topology/core_cpus_list");
    if (!siblings) siblings = root.read_line(cpu_dir(cpu) + "/topology/thread_siblings_list");
    cores.insert(siblings && !siblings->empty() ? *siblings : "cpu" + std::to_string(cpu));
  }
  return static_cast<int>(cores.size());
}

// The highest cpuinfo_max_freq, when every CPU has one and it is the real maximum: under
// acpi-cpufreq with boost on, cpuinfo_max_freq is the highest P-state and the cores boost
// above it (intel_pstate, amd-pstate and cppc_cpufreq report the boost clock itself).
void read_max_clock(const SysfsRoot& root, CpuCeilingFacts& facts) {
  double highest_khz = 0;
  for (int cpu : facts.cpus) {
    const std::string path = cpu_dir(cpu) + "/cpufreq/cpuinfo_max_freq";
    const auto khz = root.read_int(path);
    if (!khz || *khz <= 0) {
      facts.clock_unknown_reason = "no cpufreq: " + path + " " + (root.exists(path) ? "unreadable" : "absent") +
                                   " (a VM, or a kernel without a cpufreq driver), so the highest clock is unknown";
      return;
    }
    const auto driver = root.read_line(cpu_dir(cpu) + "/cpufreq/scaling_driver");
    const auto boost = root.read_int("/sys/devices/system/cpu/cpufreq/boost");
    if (driver && *driver == "acpi-cpufreq" && boost.value_or(1) != 0) {
      facts.clock_unknown_reason = "acpi-cpufreq with boost on: cpuinfo_max_freq (" +
                                   std::to_string(*khz / 1000) +
                                   " MHz) is the highest P-state, and the cores boost above it";
      return;
    }
    highest_khz = std::max(highest_khz, static_cast<double>(*khz));
  }
  if (facts.cpus.empty()) {
    facts.clock_unknown_reason = "no CPU listed in /proc/cpuinfo";
    return;
  }
  facts.max_mhz = highest_khz / 1000.0;
}

}  // namespace

CpuCeilingFacts read_cpu_ceiling_facts(const SysfsRoot& root, const std::vector<int>& cpus) {
  CpuCeilingFacts facts;
  const auto blocks = cpuinfo_blocks(root.read("/proc/cpuinfo").value_or(""));
  facts.cpus = cpus;
  if (facts.cpus.empty()) {
    for (const auto& [processor, block] : blocks) facts.cpus.push_back(processor);
  }
  // The first of the burn's CPUs that cpuinfo describes names the microarchitecture (Arm
  // cpuinfo repeats the ids per processor; x86 too). Arm's "model name" is absent.
  for (int cpu : facts.cpus) {
    const auto it = blocks.find(cpu);
    if (it == blocks.end()) continue;
    read_identity(facts, it->second);
    break;
  }
  facts.physical_cores = physical_cores(root, facts.cpus);
  read_max_clock(root, facts);
  return facts;
}

}  // namespace pipecheck
