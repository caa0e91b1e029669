// CPU and memory facts of the host from procfs/sysfs. Missing files leave fields at 0 or
// empty; nothing here throws for an absent path.
#include "inventory/host_inventory.hpp"

#include <climits>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "inventory/smbios.hpp"

namespace pipecheck {

namespace {

const std::string kCpuDir = "/sys/devices/system/cpu";

// What /proc/cpuinfo says; the id sets stay empty where the architecture omits them (Arm).
struct CpuinfoFacts {
  std::string model;
  int processors = 0;
  std::set<int> packages;
  std::set<std::pair<int, int>> cores;  // (physical id, core id): core ids repeat per socket
};

bool parse_int(const std::string& text, int& out) {
  std::istringstream in(text);
  return static_cast<bool>(in >> out);
}

// "key\t\t: value" -> (key, value), both trimmed; false when the line has no colon.
bool split_key_value(const std::string& line, std::string& key, std::string& value) {
  const auto colon = line.find(':');
  if (colon == std::string::npos) return false;
  key = trim(line.substr(0, colon));
  value = trim(line.substr(colon + 1));
  return true;
}

CpuinfoFacts parse_cpuinfo(const std::string& text) {
  CpuinfoFacts facts;
  constexpr int kAbsent = -1;  // cpuinfo ids are never negative
  int package = kAbsent, core = kAbsent;
  auto close_block = [&] {
    if (package != kAbsent) facts.packages.insert(package);
    if (package != kAbsent && core != kAbsent) facts.cores.insert({package, core});
    package = core = kAbsent;
  };
  std::istringstream lines(text);
  std::string line, key, value;
  while (std::getline(lines, line)) {
    if (trim(line).empty()) close_block();
    if (!split_key_value(line, key, value)) continue;
    int number = 0;
    if (key == "processor") ++facts.processors;
    if (key == "model name" && facts.model.empty()) facts.model = value;
    if (key == "physical id" && parse_int(value, number)) package = number;
    if (key == "core id" && parse_int(value, number)) core = number;
  }
  close_block();
  return facts;
}

// "cpu12" yes; "cpufreq", "cpuidle" no.
bool is_numbered(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  return name.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
}

std::vector<std::string> cpu_dirs(const SysfsRoot& sys) {
  std::vector<std::string> dirs;
  for (const auto& name : sys.list(kCpuDir)) {
    if (is_numbered(name, "cpu")) dirs.push_back(kCpuDir + "/" + name);
  }
  return dirs;
}

std::optional<int> package_of(const SysfsRoot& sys, const std::string& cpu_dir) {
  const auto id = sys.read_int(cpu_dir + "/topology/physical_package_id");
  if (!id) return std::nullopt;
  return static_cast<int>(*id);
}

// Sockets and cores from sysfs topology, counting only CPUs that have it (offline CPUs don't).
void fill_from_topology(const SysfsRoot& sys, CpuinfoFacts& facts) {
  std::set<int> packages;
  std::set<std::pair<int, int>> cores;
  int cpus = 0;
  for (const auto& dir : cpu_dirs(sys)) {
    const auto package = package_of(sys, dir);
    const auto core = sys.read_int(dir + "/topology/core_id");
    if (!package || !core) continue;
    ++cpus;
    packages.insert(*package);
    cores.insert({*package, static_cast<int>(*core)});
  }
  if (facts.packages.empty()) facts.packages = packages;
  if (facts.cores.empty()) facts.cores = cores;
  if (facts.processors == 0) facts.processors = cpus;
}

// "32768K" -> 33554432; "8M" -> 8388608; "512" -> 512.
std::optional<long long> parse_cache_size(const std::string& text) {
  std::istringstream in(text);
  long long value = 0;
  if (!(in >> value) || value < 0) return std::nullopt;
  char unit = 0;
  in >> unit;
  if (unit == 'K') return value * 1024;
  if (unit == 'M') return value * 1024 * 1024;
  if (unit == 'G') return value * 1024 * 1024 * 1024;
  return value;
}

// The level-3 caches seen by one CPU, keyed by the CPUs sharing each (one key per instance).
void collect_l3(const SysfsRoot& sys, const std::string& cpu_dir,
                std::map<std::string, long long>& instances) {
  const std::string cache = cpu_dir + "/cache";
  for (const auto& index : sys.list(cache)) {
    if (!is_numbered(index, "index")) continue;
    const std::string dir = cache + "/" + index;
    if (sys.read_int(dir + "/level") != 3) continue;
    const auto size_text = sys.read_line(dir + "/size");
    const auto size = size_text ? parse_cache_size(*size_text) : std::nullopt;
    if (!size) continue;
    const auto shared = sys.read_line(dir + "/shared_cpu_list");
    instances[shared ? *shared : cpu_dir] = *size;
  }
}

// The L3 of cpu0's socket: the sum over its distinct L3 instances, since AMD parts report
// one L3 per CCX (32 MiB) while the socket holds several; Intel reports one per socket.
std::optional<int> read_l3_bytes(const SysfsRoot& sys) {
  const std::string cpu0 = kCpuDir + "/cpu0";
  const auto socket = package_of(sys, cpu0);
  std::map<std::string, long long> instances;
  collect_l3(sys, cpu0, instances);
  for (const auto& dir : cpu_dirs(sys)) {
    if (socket && package_of(sys, dir) == socket) collect_l3(sys, dir, instances);
  }
  long long total = 0;
  for (const auto& [shared, size] : instances) total += size;
  if (total <= 0 || total > INT_MAX) return std::nullopt;
  return static_cast<int>(total);
}

int count_numa_nodes(const SysfsRoot& sys) {
  int nodes = 0;
  for (const auto& name : sys.list("/sys/devices/system/node")) {
    if (is_numbered(name, "node")) ++nodes;
  }
  return nodes;
}

// "MemTotal:       24684092 kB" -> bytes; 0 when absent.
std::uint64_t read_mem_total(const SysfsRoot& sys) {
  const auto text = sys.read("/proc/meminfo");
  if (!text) return 0;
  std::istringstream lines(*text);
  std::string line, key, value;
  while (std::getline(lines, line)) {
    if (!split_key_value(line, key, value) || key != "MemTotal") continue;
    std::istringstream in(value);
    std::uint64_t kib = 0;
    if (in >> kib) return kib * 1024;
  }
  return 0;
}

}  // namespace

CpuInfo read_cpu_info(const SysfsRoot& sys) {
  CpuinfoFacts facts = parse_cpuinfo(sys.read("/proc/cpuinfo").value_or(""));
  if (facts.packages.empty() || facts.cores.empty() || facts.processors == 0) {
    fill_from_topology(sys, facts);
  }
  CpuInfo cpu;
  cpu.model = facts.model;
  cpu.sockets = static_cast<int>(facts.packages.size());
  cpu.physical_cores = static_cast<int>(facts.cores.size());
  cpu.logical_cpus = facts.processors;
  cpu.numa_nodes = count_numa_nodes(sys);
  cpu.l3_bytes = read_l3_bytes(sys);
  return cpu;
}

namespace {

// "channel 1" inside an EDAC dimm_location ("csrow 0 channel 1", "branch 0 channel 2 slot 0").
std::optional<int> channel_of_location(const std::string& location) {
  const auto at = location.find("channel ");
  if (at == std::string::npos) return std::nullopt;
  try {
    return std::stoi(location.substr(at + 8));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<int> read_edac_populated_channels(const SysfsRoot& sys) {
  const std::string root = "/sys/devices/system/edac/mc";
  std::set<std::pair<std::string, int>> channels;
  for (const auto& mc : sys.list(root)) {
    if (mc.rfind("mc", 0) != 0) continue;
    for (const auto& entry : sys.list(root + "/" + mc)) {
      if (entry.rfind("dimm", 0) != 0 && entry.rfind("rank", 0) != 0) continue;
      const std::string dir = root + "/" + mc + "/" + entry;
      const auto size_mb = sys.read_int(dir + "/size");
      const auto location = sys.read_line(dir + "/dimm_location");
      if (!size_mb || *size_mb <= 0 || !location) continue;
      if (auto channel = channel_of_location(*location)) channels.insert({mc, *channel});
    }
  }
  if (channels.empty()) return std::nullopt;
  return static_cast<int>(channels.size());
}

MemoryInfo read_memory_info(const SysfsRoot& sys) {
  MemoryInfo memory;
  memory.total_bytes = read_mem_total(sys);
  memory.dimms = read_smbios_memory_devices(sys);
  // The memory controllers' own view (EDAC) is the only source that names channels; SMBIOS
  // slot strings are vendor-specific, and the DIMM count says nothing about channels.
  memory.memory_channels = read_edac_populated_channels(sys);
  return memory;
}

}  // namespace pipecheck
