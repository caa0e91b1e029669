// Loading hwloc on the live machine or a recorded tree, and turning its objects into records.
#include "inventory/hwloc_topology.hpp"

#include <hwloc.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <tuple>

#include "inventory/cpu_list.hpp"

namespace pipecheck {

namespace {

// Sets environment variables for the duration of one hwloc load and restores them after.
// hwloc reads HWLOC_FSROOT and its other switches from the environment when the load starts;
// the inventory is collected before any probe thread starts, so nothing races with it.
class ScopedEnvironment {
 public:
  void set(const char* name, const std::string& value) {
    const char* old = std::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        setenv(it->first, it->second->c_str(), 1);
      } else {
        unsetenv(it->first);
      }
    }
  }

 private:
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

struct TopologyDeleter {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};
using TopologyHandle = std::unique_ptr<hwloc_topology, TopologyDeleter>;

// The release that ran (the root object's hwlocVersion), else the API version.
std::string version_text(hwloc_topology_t topology) {
  if (topology) {
    if (const char* version = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topology), "hwlocVersion")) return version;
  }
  const unsigned v = hwloc_get_api_version();
  return std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff) + "." + std::to_string(v & 0xff);
}

bool is_live(const SysfsRoot& sys) {
  std::error_code error;
  return std::filesystem::equivalent(sys.root(), "/", error);
}

std::string cache_type_name(hwloc_obj_cache_type_t type) {
  switch (type) {
    case HWLOC_OBJ_CACHE_DATA: return "data";
    case HWLOC_OBJ_CACHE_INSTRUCTION: return "instruction";
    case HWLOC_OBJ_CACHE_UNIFIED: return "unified";
  }
  return "unified";
}

int count_type(hwloc_topology_t topology, hwloc_obj_type_t type) {
  const int n = hwloc_get_nbobjs_by_type(topology, type);
  return n > 0 ? n : 0;
}

// Every cache object grouped by (level, type, instance size): hybrid parts have two L2 sizes.
void read_caches(hwloc_topology_t topology, HwlocTopology& out) {
  const hwloc_obj_t package = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PACKAGE, 0);
  std::map<std::tuple<int, std::string, std::uint64_t>, CacheLevel> levels;
  std::uint64_t l3_in_package = 0;
  for (int t = HWLOC_OBJ_L1CACHE; t <= HWLOC_OBJ_L3ICACHE; ++t) {
    const auto type = static_cast<hwloc_obj_type_t>(t);
    if (!hwloc_obj_type_is_cache(type)) continue;
    for (hwloc_obj_t obj = nullptr; (obj = hwloc_get_next_obj_by_type(topology, type, obj));) {
      const int level = static_cast<int>(obj->attr->cache.depth);
      const std::string kind = cache_type_name(obj->attr->cache.type);
      const std::uint64_t size = obj->attr->cache.size;
      if (size == 0) continue;
      CacheLevel& entry = levels[{level, kind, size}];
      entry.level = level;
      entry.type = kind;
      entry.instance_bytes = size;
      ++entry.instances;
      const bool in_package = package && obj->cpuset && hwloc_bitmap_isincluded(obj->cpuset, package->cpuset);
      if (in_package || !package) entry.per_package_bytes += size;
      if (level == 3 && (in_package || !package)) l3_in_package += size;
    }
  }
  for (auto& [key, level] : levels) out.caches.push_back(level);
  if (l3_in_package > 0) out.l3_per_package = l3_in_package;
}

// The logical CPUs the kernel puts in a node: its sysfs cpumap. One node without a folder (no
// NUMA in the kernel) holds every PU.
int node_cpus(const SysfsRoot& sys, unsigned os_index, int nodes, int pus) {
  const std::string dir = "/sys/devices/system/node/node" + std::to_string(os_index);
  if (const auto list = sys.read_line(dir + "/cpulist")) {
    if (const auto cpus = cpu_set_from_list(*list)) return static_cast<int>(cpus->size());
  }
  if (const auto mask = sys.read_line(dir + "/cpumap")) {
    if (const auto cpus = cpu_set_from_mask(*mask)) return static_cast<int>(cpus->size());
  }
  return nodes == 1 ? pus : 0;
}

void read_nodes(const SysfsRoot& sys, hwloc_topology_t topology, HwlocTopology& out) {
  const int nodes = count_type(topology, HWLOC_OBJ_NUMANODE);
  for (hwloc_obj_t obj = nullptr; (obj = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, obj));) {
    NumaNode node;
    node.os_index = static_cast<int>(obj->os_index);
    if (obj->attr->numanode.local_memory > 0) node.memory_bytes = obj->attr->numanode.local_memory;
    const bool gpu_memory = obj->subtype && std::string(obj->subtype) == "GPUMemory";
    if (gpu_memory) {
      const char* bus_id = hwloc_obj_get_info_by_name(obj, "PCIBusID");
      node.gpu_bdf = bus_id ? bus_id : "";
    } else {
      node.cpus = node_cpus(sys, obj->os_index, nodes, out.pus);
    }
    out.nodes.push_back(node);
  }
}

std::string bdf_of(const hwloc_obj_attr_u::hwloc_pcidev_attr_s& pci) {
  char text[24];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", pci.domain, pci.bus, pci.dev, pci.func);
  return text;
}

// The bridges above a device, host bridge first, named as sysfs names them ("pci0000:00" for
// the root bus, the bus id for each PCI bridge).
std::vector<std::string> upstream_of(hwloc_obj_t obj) {
  std::vector<std::string> chain;
  for (hwloc_obj_t parent = obj->parent; parent && parent->type == HWLOC_OBJ_BRIDGE; parent = parent->parent) {
    const auto& bridge = parent->attr->bridge;
    if (bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI) {
      chain.insert(chain.begin(), bdf_of(bridge.upstream.pci));
    } else {
      char root[24];
      std::snprintf(root, sizeof root, "pci%04x:%02x", bridge.downstream.pci.domain, bridge.downstream.pci.secondary_bus);
      chain.insert(chain.begin(), root);
    }
  }
  return chain;
}

void read_pci(hwloc_topology_t topology, HwlocTopology& out) {
  for (hwloc_obj_t obj = nullptr; (obj = hwloc_get_next_pcidev(topology, obj));) {
    const auto& pci = obj->attr->pcidev;
    const unsigned class_code = static_cast<unsigned>(pci.class_id) << 8;
    PciDevice device;
    device.kind = pci_kind_of_class(class_code);
    if (device.kind.empty()) continue;
    device.bdf = bdf_of(pci);
    device.vendor_id = pci.vendor_id;
    device.device_id = pci.device_id;
    device.class_code = class_code;
    if (pci.linkspeed > 0) device.link_gbps = pci.linkspeed;
    device.upstream = upstream_of(obj);
    if (const hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(topology, obj); near && near->cpuset) {
      char* list = nullptr;
      if (hwloc_bitmap_list_asprintf(&list, near->cpuset) >= 0 && list) device.local_cpus = list;
      std::free(list);
      if (near->nodeset && hwloc_bitmap_weight(near->nodeset) == 1) device.numa_node = hwloc_bitmap_first(near->nodeset);
    }
    device.source = "hwloc";
    out.pci.push_back(device);
  }
}

// On a recorded tree every component that asks the live machine instead of the tree stays out.
void keep_out_live_components(hwloc_topology_t topology) {
  for (const char* component : {"x86", "no_os", "pci", "opencl", "gl", "cuda", "nvml", "rsmi", "levelzero"}) {
    hwloc_topology_set_components(topology, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, component);
  }
}

}  // namespace

std::string pci_kind_of_class(unsigned class_code) {
  const unsigned base = class_code >> 16;
  const unsigned sub = (class_code >> 8) & 0xff;
  if (base == 0x03) return "gpu";
  if (base == 0x02) return "nic";
  if (base == 0x0c && sub == 0x06) return "nic";  // InfiniBand (serial bus class)
  if (base == 0x01 && sub == 0x08) return "nvme";
  if (base == 0x01) return "storage";
  return "";
}

HwlocTopology load_hwloc_topology(const SysfsRoot& sys) {
  HwlocTopology out;
  out.version = version_text(nullptr);
  const bool live = is_live(sys);
  ScopedEnvironment environment;
  environment.set("HWLOC_FSROOT", live ? std::string("/") : std::filesystem::absolute(sys.root()).string());
  // GPU memory nodes (POWER9 with NVLink, GH200) are kept and labelled, so they can be listed
  // apart from host memory instead of vanishing.
  environment.set("HWLOC_KEEP_NVIDIA_GPU_NUMA_NODES", "1");
  // hwloc's own messages would land in the middle of pipecheck's output; what matters is
  // said in the notes instead.
  if (!std::getenv("HWLOC_HIDE_ERRORS")) environment.set("HWLOC_HIDE_ERRORS", "2");

  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) {
    out.error = "hwloc: hwloc_topology_init failed";
    return out;
  }
  TopologyHandle topology(raw);
  // The whole machine, also CPUs and nodes a cpuset keeps from this process (the allowance
  // says what this process may use).
  hwloc_topology_set_flags(raw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED | HWLOC_TOPOLOGY_FLAG_NO_DISTANCES |
                                    HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS | HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS);
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
  hwloc_topology_set_type_filter(raw, HWLOC_OBJ_OS_DEVICE, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_type_filter(raw, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (!live) keep_out_live_components(raw);
  if (hwloc_topology_load(raw) != 0) {
    // With the no-OS fallback kept out, a tree without CPU topology fails the load.
    out.error = "hwloc found no CPU topology in /sys/devices/system/cpu";
    return out;
  }
  out.loaded = true;
  out.version = version_text(raw);
  const char* backend = hwloc_obj_get_info_by_name(hwloc_get_root_obj(raw), "Backend");
  out.linux_cpus = backend && std::string(backend) == "Linux" && count_type(raw, HWLOC_OBJ_PU) > 0;
  if (!out.linux_cpus) out.error = "hwloc found no CPU topology in /sys/devices/system/cpu";
  out.pus = count_type(raw, HWLOC_OBJ_PU);
  out.packages = count_type(raw, HWLOC_OBJ_PACKAGE);
  out.cores = count_type(raw, HWLOC_OBJ_CORE);
  read_caches(raw, out);
  read_nodes(sys, raw, out);
  read_pci(raw, out);
  return out;
}

}  // namespace pipecheck
