// Reading CPU packages, cores, logical CPUs, caches and NUMA nodes from sysfs.
#include "inventory/cpu_topology_sysfs.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "inventory/cpu_list.hpp"

namespace pipecheck {

namespace {

const std::string kCpuDir = "/sys/devices/system/cpu";
const std::string kNodeDir = "/sys/devices/system/node";

// "cpu12" yes; "cpufreq", "cpuidle" no.
std::optional<int> numbered(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const std::string digits = name.substr(prefix.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 7) return std::nullopt;
  return std::stoi(digits);
}

// A set of CPUs from the list file, else from the mask file of the same name without "_list".
std::optional<CpuSet> read_set(const SysfsRoot& sys, const std::string& list_file, const std::string& mask_file) {
  if (const auto text = sys.read_line(list_file)) {
    if (auto cpus = cpu_set_from_list(*text)) return cpus;
  }
  if (mask_file.empty()) return std::nullopt;
  if (const auto text = sys.read_line(mask_file)) return cpu_set_from_mask(*text);
  return std::nullopt;
}

std::optional<CpuSet> read_named_set(const SysfsRoot& sys, const std::string& dir, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (auto set = read_set(sys, dir + "/" + name + "_list", dir + "/" + name)) return set;
  }
  return std::nullopt;
}

struct CpuTopology {
  int cpu = 0;
  std::optional<long long> package, core, die, book, drawer;
  std::optional<CpuSet> threads;   // core_cpus / thread_siblings
  std::optional<CpuSet> package_set;  // package_cpus / core_siblings
};

std::vector<CpuTopology> read_cpus(const SysfsRoot& sys) {
  const auto online = read_set(sys, kCpuDir + "/online", "");
  std::vector<CpuTopology> cpus;
  for (const auto& name : sys.list(kCpuDir)) {
    const auto number = numbered(name, "cpu");
    if (!number) continue;
    const std::string dir = kCpuDir + "/" + name + "/topology";
    // Offline CPUs have no topology folder; a recorded online list says so as well.
    if (!sys.exists(dir) || (online && !online->count(*number))) continue;
    CpuTopology cpu;
    cpu.cpu = *number;
    cpu.package = sys.read_int(dir + "/physical_package_id");
    cpu.core = sys.read_int(dir + "/core_id");
    cpu.die = sys.read_int(dir + "/die_id");
    cpu.book = sys.read_int(dir + "/book_id");
    cpu.drawer = sys.read_int(dir + "/drawer_id");
    cpu.threads = read_named_set(sys, dir, {"core_cpus", "thread_siblings"});
    cpu.package_set = read_named_set(sys, dir, {"package_cpus", "core_siblings"});
    cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end(), [](const CpuTopology& a, const CpuTopology& b) { return a.cpu < b.cpu; });
  return cpus;
}

void count_sockets(const std::vector<CpuTopology>& cpus, const CpuinfoFacts& cpuinfo, SysfsCpuTopology& out) {
  std::set<long long> packages;
  bool any_id = false;
  for (const auto& cpu : cpus) {
    if (!cpu.package) continue;
    any_id = true;
    if (*cpu.package < 0) {
      out.sockets_unknown = "the kernel gives no package (physical_package_id -1)";
      return;
    }
    packages.insert(*cpu.package);
  }
  if (any_id) {
    out.sockets = static_cast<int>(packages.size());
  } else if (!cpuinfo.packages.empty()) {
    out.sockets = static_cast<int>(cpuinfo.packages.size());
  } else {
    out.sockets_unknown = "no package ids in sysfs or /proc/cpuinfo";
  }
}

// Cores as distinct thread-sibling sets; a set whose threads carry different core ids (AMD
// compute units) holds that many cores. nullopt when a CPU lacks its set.
std::optional<int> cores_from_siblings(const std::vector<CpuTopology>& cpus) {
  std::map<CpuSet, std::set<long long>> core_ids;
  for (const auto& cpu : cpus) {
    if (!cpu.threads || cpu.threads->empty()) return std::nullopt;
    core_ids[*cpu.threads].insert(cpu.core.value_or(-1));
  }
  if (core_ids.empty()) return std::nullopt;
  int cores = 0;
  for (const auto& [set, ids] : core_ids) cores += static_cast<int>(std::max<std::size_t>(ids.size(), 1));
  return cores;
}

void count_cores(const std::vector<CpuTopology>& cpus, const CpuinfoFacts& cpuinfo, SysfsCpuTopology& out) {
  if (const auto cores = cores_from_siblings(cpus)) {
    out.cores = cores;
    return;
  }
  // Without sibling sets every source undercounts when ids repeat; none overcounts.
  std::set<std::tuple<long long, long long, long long, long long, long long>> ids;
  for (const auto& cpu : cpus) {
    if (cpu.core) ids.insert({cpu.drawer.value_or(0), cpu.book.value_or(0), cpu.package.value_or(0), cpu.die.value_or(0), *cpu.core});
  }
  int per_package = 0;
  for (const auto& [package, cores] : cpuinfo.cores_per_package) per_package += cores;
  const int best = std::max({static_cast<int>(ids.size()), static_cast<int>(cpuinfo.cores.size()), per_package});
  if (best > 0) out.cores = out.logical ? std::min(best, *out.logical) : best;
}

void count_logical(const SysfsRoot& sys, const std::vector<CpuTopology>& cpus, const CpuinfoFacts& cpuinfo,
                   SysfsCpuTopology& out) {
  if (const auto online = read_set(sys, kCpuDir + "/online", ""); online && !online->empty()) {
    out.logical = static_cast<int>(online->size());
  } else if (!cpus.empty()) {
    out.logical = static_cast<int>(cpus.size());
  } else if (cpuinfo.processors > 0) {
    out.logical = cpuinfo.processors;
  }
}

// "32768K" -> 33554432; "8M" -> 8388608; "512" -> 512.
std::optional<std::uint64_t> parse_cache_size(const std::string& text) {
  std::istringstream in(text);
  long long value = 0;
  if (!(in >> value) || value <= 0) return std::nullopt;
  char unit = 0;
  in >> unit;
  const std::uint64_t bytes = static_cast<std::uint64_t>(value);
  if (unit == 'K') return bytes * 1024;
  if (unit == 'M') return bytes * 1024 * 1024;
  if (unit == 'G') return bytes * 1024 * 1024 * 1024;
  return bytes;
}

std::string cache_type(const std::string& text) {
  if (text == "Data") return "data";
  if (text == "Instruction") return "instruction";
  return "unified";
}

struct CacheInstance {
  int level = 0;
  std::string type;
  std::uint64_t bytes = 0;
  CpuSet cpus;  // the CPUs sharing it (the CPU alone when nothing says more)
};

// Who shares a cache: the list, else the mask (kernels before the lists), else the cache id,
// else the core (L1, L2) or the package (L3 and up) of the CPU.
std::string sharing_key(const SysfsRoot& sys, const std::string& dir, const CpuTopology& cpu, int level, CpuSet& cpus) {
  if (auto set = read_set(sys, dir + "/shared_cpu_list", dir + "/shared_cpu_map"); set && !set->empty()) {
    cpus = *set;
    return format_cpu_list(cpus);
  }
  if (const auto id = sys.read_int(dir + "/id")) {
    cpus = {cpu.cpu};
    return "id " + std::to_string(*id);
  }
  const auto& wider = level >= 3 ? cpu.package_set : cpu.threads;
  cpus = wider && !wider->empty() ? *wider : CpuSet{cpu.cpu};
  if (level >= 3 && !wider && cpu.package) return "package " + std::to_string(*cpu.package);
  return format_cpu_list(cpus);
}

std::map<std::tuple<int, std::string, std::string>, CacheInstance> read_cache_instances(
    const SysfsRoot& sys, const std::vector<CpuTopology>& cpus) {
  std::map<std::tuple<int, std::string, std::string>, CacheInstance> instances;
  for (const auto& cpu : cpus) {
    const std::string cache = kCpuDir + "/cpu" + std::to_string(cpu.cpu) + "/cache";
    for (const auto& index : sys.list(cache)) {
      if (!numbered(index, "index")) continue;
      const std::string dir = cache + "/" + index;
      const auto level = sys.read_int(dir + "/level");
      const auto size = parse_cache_size(sys.read_line(dir + "/size").value_or(""));
      if (!level || *level <= 0 || !size) continue;
      CacheInstance instance{static_cast<int>(*level), cache_type(sys.read_line(dir + "/type").value_or("")), *size, {}};
      const std::string key = sharing_key(sys, dir, cpu, instance.level, instance.cpus);
      instances.emplace(std::make_tuple(instance.level, instance.type, key), instance);
    }
  }
  return instances;
}

// The CPUs of the first package: its sibling set, else the CPUs with its package id.
CpuSet first_package(const std::vector<CpuTopology>& cpus) {
  if (cpus.empty()) return {};
  if (cpus.front().package_set && !cpus.front().package_set->empty()) return *cpus.front().package_set;
  CpuSet set;
  for (const auto& cpu : cpus) {
    if (cpu.package == cpus.front().package) set.insert(cpu.cpu);
  }
  return set;
}

void read_caches(const SysfsRoot& sys, const std::vector<CpuTopology>& cpus, SysfsCpuTopology& out) {
  const CpuSet package = first_package(cpus);
  std::map<std::tuple<int, std::string, std::uint64_t>, CacheLevel> levels;
  std::uint64_t l3 = 0;
  for (const auto& [key, instance] : read_cache_instances(sys, cpus)) {
    CacheLevel& level = levels[{instance.level, instance.type, instance.bytes}];
    level.level = instance.level;
    level.type = instance.type;
    level.instance_bytes = instance.bytes;
    ++level.instances;
    const bool in_package = !instance.cpus.empty() && std::includes(package.begin(), package.end(), instance.cpus.begin(),
                                                                    instance.cpus.end());
    if (!in_package) continue;
    level.per_package_bytes += instance.bytes;
    if (instance.level == 3) l3 += instance.bytes;
  }
  for (auto& [key, level] : levels) out.caches.push_back(level);
  if (l3 > 0) out.l3_per_package = l3;
}

// "Node 0 MemTotal:       65842968 kB" -> bytes.
std::optional<std::uint64_t> node_mem_total(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find("MemTotal:");
    if (at == std::string::npos) continue;
    std::istringstream in(line.substr(at + 9));
    std::uint64_t kib = 0;
    if (in >> kib) return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace

SysfsCpuTopology read_cpu_topology_sysfs(const SysfsRoot& sys, const CpuinfoFacts& cpuinfo) {
  SysfsCpuTopology out;
  const std::vector<CpuTopology> cpus = read_cpus(sys);
  count_logical(sys, cpus, cpuinfo, out);
  count_sockets(cpus, cpuinfo, out);
  count_cores(cpus, cpuinfo, out);
  read_caches(sys, cpus, out);
  return out;
}

std::string gpu_of_numa_node(const SysfsRoot& sys, int os_index) {
  const std::string gpus = "/proc/driver/nvidia/gpus";
  for (const auto& bus_id : sys.list(gpus)) {
    const auto status = sys.read(gpus + "/" + bus_id + "/numa_status");
    if (!status) continue;
    const auto at = status->find("Node:");
    if (at == std::string::npos) continue;
    std::istringstream in(status->substr(at + 5));
    int node = -1;
    if (in >> node && node == os_index) return bus_id;
  }
  return "";
}

std::vector<NumaNode> read_numa_nodes_sysfs(const SysfsRoot& sys) {
  std::vector<NumaNode> nodes;
  for (const auto& name : sys.list(kNodeDir)) {
    const auto number = numbered(name, "node");
    if (!number) continue;
    const std::string dir = kNodeDir + "/" + name;
    NumaNode node;
    node.os_index = *number;
    node.gpu_bdf = gpu_of_numa_node(sys, *number);
    if (node.gpu_bdf.empty()) {
      node.cpus = static_cast<int>(read_set(sys, dir + "/cpulist", dir + "/cpumap").value_or(CpuSet{}).size());
    }
    node.memory_bytes = node_mem_total(sys.read(dir + "/meminfo").value_or(""));
    nodes.push_back(node);
  }
  std::sort(nodes.begin(), nodes.end(), [](const NumaNode& a, const NumaNode& b) { return a.os_index < b.os_index; });
  return nodes;
}

}  // namespace pipecheck
