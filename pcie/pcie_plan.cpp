// Host logic of the GPU probes: GPU selection and naming, PCIe case lists, NUMA placement.
#include "pcie/pcie_plan.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cerrno>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "inventory/gpu_inventory.hpp"

namespace pipecheck {

namespace {

// Whole non-negative number, or nullopt (std::stoi accepts "1x" and " 1").
std::optional<long> whole_number(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stol(text);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream stream(text);
  while (std::getline(stream, part, separator)) parts.push_back(trim(part));
  if (!text.empty() && text.back() == separator) parts.push_back("");
  return parts;
}

}  // namespace

std::vector<int> parse_gpu_list(const std::string& text, int device_count) {
  std::vector<int> gpus;
  if (text.empty() || text == "all") {
    for (int i = 0; i < device_count; ++i) gpus.push_back(i);
    return gpus;
  }
  for (const std::string& part : split(text, ',')) {
    const auto index = whole_number(part);
    if (!index) {
      throw UsageError("--gpus " + text + ": \"" + part +
                       "\" is not a GPU index (expected e.g. --gpus 0,2 or --gpus all)");
    }
    if (*index >= device_count) {
      throw UsageError("--gpus " + text + ": GPU " + part + " does not exist (CUDA sees " +
                       std::to_string(device_count) + ")");
    }
    if (std::find(gpus.begin(), gpus.end(), *index) != gpus.end()) {
      throw UsageError("--gpus " + text + ": GPU " + part + " is named twice");
    }
    gpus.push_back(static_cast<int>(*index));
  }
  return gpus;
}

std::vector<GpuTarget> select_gpus(const CudaReport& cuda, const ProbeOptions& options,
                                   std::string& skip_reason) {
  std::vector<GpuTarget> targets;
  if (cuda.devices.empty()) {
    skip_reason = "no CUDA device";
    return targets;
  }
  const std::string* text = options.last("gpus");
  // CUDA ordinals are 0..count-1 even when one device's properties could not be read.
  int count = 0;
  for (const auto& device : cuda.devices) count = std::max(count, device.index + 1);
  for (int index : parse_gpu_list(text ? *text : "", count)) {
    const auto it = std::find_if(cuda.devices.begin(), cuda.devices.end(),
                                 [&](const CudaDeviceFacts& d) { return d.index == index; });
    if (it == cuda.devices.end()) {
      throw RunError("GPU " + std::to_string(index) + ": CUDA could not read its properties");
    }
    GpuTarget target;
    target.index = index;
    target.bdf = format_bdf(it->pci_domain, it->pci_bus, it->pci_device);
    target.name = it->name;
    target.cc_major = it->cc_major;
    target.cc_minor = it->cc_minor;
    target.sm_count = it->sm_count.value_or(1);
    target.l2_bytes = static_cast<std::uint64_t>(std::max(0, it->l2_bytes.value_or(0)));
    target.memory_bytes = it->total_memory_bytes;
    targets.push_back(target);
  }
  return targets;
}

std::map<std::string, std::string> gpu_label_params(const GpuTarget& gpu) {
  // ';' separates label items: a GPU name never has one, but do not let it break the label.
  std::string name = gpu.name;
  std::replace(name.begin(), name.end(), ';', ',');
  return {{"gpu", std::to_string(gpu.index)}, {"gpu_bdf", gpu.bdf}, {"gpu_name", name}};
}

std::string gpu_context_text(const std::vector<GpuTarget>& gpus) {
  std::string text;
  for (const auto& gpu : gpus) {
    if (!text.empty()) text += ",";
    text += std::to_string(gpu.index) + "=" + gpu.name + "@" + gpu.bdf;
  }
  return text;
}

const char* direction_name(CopyDirection direction) {
  switch (direction) {
    case CopyDirection::h2d: return "h2d";
    case CopyDirection::d2h: return "d2h";
    default: return "bidir";
  }
}

const char* host_memory_name(HostMemory memory) {
  switch (memory) {
    case HostMemory::pinned: return "pinned";
    case HostMemory::pageable: return "pageable";
    default: return "mapped";
  }
}

const char* engine_name(CopyEngine engine) { return engine == CopyEngine::ce ? "ce" : "sm"; }

std::vector<std::uint64_t> pcie_sizes(ProbeMode mode) {
  constexpr std::uint64_t kKiB = 1024;
  constexpr std::uint64_t kGiB = kKiB * kKiB * kKiB;
  // Quick is an acceptance: the one size the link's bandwidth is judged on (8 GPUs x 8 kinds x 4
  // sizes took half of a quick run's plan on an 8-GPU node).
  if (mode == ProbeMode::quick) return {256 * kKiB * kKiB};
  std::vector<std::uint64_t> sizes;
  const int factor = mode == ProbeMode::full ? 2 : 4;
  for (std::uint64_t size = 4 * kKiB; size <= kGiB; size *= factor) sizes.push_back(size);
  return sizes;
}

std::vector<CopyKind> pcie_copy_kinds() {
  std::vector<CopyKind> kinds;
  for (auto direction : {CopyDirection::h2d, CopyDirection::d2h, CopyDirection::bidir}) {
    kinds.push_back({direction, HostMemory::pinned, CopyEngine::ce});
    if (direction != CopyDirection::bidir) {
      kinds.push_back({direction, HostMemory::pageable, CopyEngine::ce});
    }
    kinds.push_back({direction, HostMemory::mapped, CopyEngine::sm});
  }
  return kinds;
}

int copies_per_iteration(std::uint64_t bytes) {
  constexpr std::uint64_t kTarget = 64ULL << 20;
  if (bytes == 0) return 1;
  return static_cast<int>(std::clamp<std::uint64_t>(kTarget / bytes, 1, 128));
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  const std::string body = trim(text);
  if (body.empty()) return cpus;
  for (const std::string& part : split(body, ',')) {
    const auto dash = part.find('-');
    const auto first = whole_number(part.substr(0, dash));
    const auto last = dash == std::string::npos ? first : whole_number(part.substr(dash + 1));
    if (!first || !last || *last < *first) {
      throw UsageError("CPU list \"" + text + "\": cannot read \"" + part + "\"");
    }
    for (long cpu = *first; cpu <= *last; ++cpu) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

std::vector<int> numa_nodes_with_cpus(const SysfsRoot& sys) {
  std::vector<int> nodes;
  for (const std::string& entry : sys.list("/sys/devices/system/node")) {
    if (entry.rfind("node", 0) != 0) continue;
    const auto number = whole_number(entry.substr(4));
    if (!number) continue;
    const auto cpus = sys.read_line("/sys/devices/system/node/" + entry + "/cpulist");
    // A memory-only node (CXL, HBM on some CPUs) cannot host the copying thread.
    if (!cpus || parse_cpu_list(*cpus).empty()) continue;
    nodes.push_back(static_cast<int>(*number));
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::optional<int> gpu_numa_node(const SysfsRoot& sys, const std::string& bdf) {
  const auto node = sys.read_int("/sys/bus/pci/devices/" + bdf + "/numa_node");
  if (!node || *node < 0) return std::nullopt;
  return static_cast<int>(*node);
}

std::vector<NumaChoice> numa_choices(const SysfsRoot& sys, const std::string& bdf) {
  const std::vector<int> nodes = numa_nodes_with_cpus(sys);
  const std::optional<int> local = gpu_numa_node(sys, bdf);
  if (nodes.size() <= 1) {
    // One node: every placement is local, and binding to it would change nothing (but could
    // fail where a sandbox forbids set_mempolicy): leave it to the OS.
    return {{"local", -1}};
  }
  if (!local || std::find(nodes.begin(), nodes.end(), *local) == nodes.end()) {
    return {{"unknown", -1}};
  }
  // Distances of the local node to every node, in node order ("10 21 21 32").
  std::vector<long> distances;
  if (const auto text = sys.read_line("/sys/devices/system/node/node" + std::to_string(*local) +
                                      "/distance")) {
    std::istringstream stream(*text);
    long value = 0;
    while (stream >> value) distances.push_back(value);
  }
  int remote = -1;
  long farthest = -1;
  for (int node : nodes) {
    if (node == *local) continue;
    const long distance =
        node < static_cast<int>(distances.size()) ? distances[static_cast<std::size_t>(node)] : 0;
    if (distance > farthest) {  // ties keep the lowest node number
      farthest = distance;
      remote = node;
    }
  }
  return {{"local", *local}, {"remote", remote}};
}

namespace {

// The kernel's policy modes (linux/mempolicy.h), written out to avoid a libnuma dependency.
constexpr int kMpolDefault = 0;
constexpr int kMpolBind = 2;

long set_mempolicy_syscall(int mode, const unsigned long* mask, unsigned long max_node) {
  return syscall(SYS_set_mempolicy, mode, mask, max_node);
}

}  // namespace

NumaBinding::NumaBinding(const SysfsRoot& sys, int node) {
  if (node < 0) return;
  const auto cpus = sys.read_line("/sys/devices/system/node/node" + std::to_string(node) +
                                  "/cpulist");
  if (!cpus) throw RunError("NUMA node " + std::to_string(node) + ": no cpulist in sysfs");
  cpu_set_t saved;
  CPU_ZERO(&saved);
  if (sched_getaffinity(0, sizeof(saved), &saved) == 0) {
    saved_affinity_.assign(reinterpret_cast<unsigned char*>(&saved),
                           reinterpret_cast<unsigned char*>(&saved) + sizeof(saved));
    affinity_saved_ = true;
  }
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  for (int cpu : parse_cpu_list(*cpus)) {
    if (cpu < CPU_SETSIZE) CPU_SET(cpu, &wanted);
  }
  if (sched_setaffinity(0, sizeof(wanted), &wanted) != 0) {
    throw_errno("sched_setaffinity", "to NUMA node " + std::to_string(node) + " CPUs " + *cpus);
  }
  std::vector<unsigned long> mask(static_cast<std::size_t>(node) / (8 * sizeof(unsigned long)) + 1);
  mask[static_cast<std::size_t>(node) / (8 * sizeof(unsigned long))] |=
      1UL << (static_cast<unsigned>(node) % (8 * sizeof(unsigned long)));
  if (set_mempolicy_syscall(kMpolBind, mask.data(), mask.size() * 8 * sizeof(unsigned long) + 1) !=
      0) {
    const int error = errno;
    if (affinity_saved_) sched_setaffinity(0, sizeof(saved), &saved);
    throw RunError(errno_message("set_mempolicy", "MPOL_BIND to NUMA node " + std::to_string(node),
                                 error));
  }
  bound_ = true;
}

NumaBinding::~NumaBinding() {
  if (!bound_) return;
  set_mempolicy_syscall(kMpolDefault, nullptr, 0);
  if (affinity_saved_) {
    cpu_set_t saved;
    std::copy(saved_affinity_.begin(), saved_affinity_.end(), reinterpret_cast<unsigned char*>(&saved));
    sched_setaffinity(0, sizeof(saved), &saved);
  }
}

std::uint64_t checksum_words(const std::uint64_t* words, std::uint64_t count) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < count; ++i) sum += checksum_term(words[i], i);
  return sum;
}

PatternDifference pattern_differences(const std::uint64_t* words, std::uint64_t count, std::uint64_t seed,
                                      std::uint64_t first_index) {
  PatternDifference difference;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t expected = pattern_word(seed, first_index + i);
    if (words[i] == expected) continue;
    if (difference.count++ == 0) difference = {first_index + i, words[i], expected, 1};
  }
  return difference;
}

std::string describe(const PatternDifference& difference) {
  if (difference.count == 0) return "";
  char text[200];
  std::snprintf(text, sizeof text, "word %llu (byte %llu) is 0x%016llx, the source's 0x%016llx; %llu word%s differ%s",
                static_cast<unsigned long long>(difference.first_index),
                static_cast<unsigned long long>(8 * difference.first_index),
                static_cast<unsigned long long>(difference.found), static_cast<unsigned long long>(difference.expected),
                static_cast<unsigned long long>(difference.count), difference.count == 1 ? "" : "s",
                difference.count == 1 ? "s" : "");
  return text;
}

std::uint64_t pattern_checksum(std::uint64_t seed, std::uint64_t count) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < count; ++i) sum += checksum_term(pattern_word(seed, i), i);
  return sum;
}

namespace {

std::string gts_text(double gts) {
  std::ostringstream text;
  text << gts;
  return text.str();
}

}  // namespace

std::map<std::string, std::string> link_label_params(const PcieLink& link) {
  std::map<std::string, std::string> params;
  if (link.current_gts) params["link_gts"] = gts_text(*link.current_gts);
  if (link.current_width) params["link_width"] = std::to_string(*link.current_width);
  if (link.max_gts) params["link_max_gts"] = gts_text(*link.max_gts);
  if (link.max_width) params["link_max_width"] = std::to_string(*link.max_width);
  if ((link.current_gts || link.current_width) && (link.max_gts || link.max_width)) {
    params["link_downtrained"] = link.downtrained() ? "yes" : "no";
  }
  return params;
}

std::uint64_t concurrent_copy_bytes(ProbeMode mode) {
  return mode == ProbeMode::quick ? 64ULL << 20 : 256ULL << 20;
}

std::vector<std::string> planned_pcie_cases(int gpus, ProbeMode mode) {
  std::vector<std::string> names;
  for (int gpu = 0; gpu < gpus; ++gpu) {
    for (const CopyKind& kind : pcie_copy_kinds()) {
      for (std::uint64_t bytes : pcie_sizes(mode)) {
        names.push_back(std::string("pcie/") + direction_name(kind.direction) + "/" + host_memory_name(kind.memory) + "/" +
                        engine_name(kind.engine) + "/" + std::to_string(bytes) + "/local/gpu" + std::to_string(gpu));
      }
    }
  }
  if (gpus > 1) {
    for (CopyDirection direction : {CopyDirection::h2d, CopyDirection::d2h, CopyDirection::bidir}) {
      names.push_back(std::string("pcie/") + direction_name(direction) + "/pinned/ce/" +
                      std::to_string(concurrent_copy_bytes(mode)) + "/local/all" + std::to_string(gpus) + "gpus");
    }
  }
  return names;
}

}  // namespace pipecheck
