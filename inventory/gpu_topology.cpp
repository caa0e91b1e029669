// Topology of GPUs and network ports: PCIe relations from sysfs paths, NVLink peers from NVML,
// network ports from /sys/class/infiniband and /sys/class/net.
#include "inventory/gpu_topology.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <regex>
#include <set>

#include "inventory/gpu_inventory.hpp"

namespace pipecheck {

namespace {

constexpr const char* kPciDevices = "/sys/bus/pci/devices/";

bool is_bdf(const std::string& name) {
  static const std::regex bdf(R"(^[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$)");
  return std::regex_match(name, bdf);
}

std::vector<std::string> path_parts(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// The switches above a function, nearest first: the ancestors at an even distance (2, 4, ...),
// each an upstream port whose downstream port (distance 1, 3, ...) leads to what is below.
std::vector<std::string> switches_above(const std::vector<std::string>& path) {
  std::vector<std::string> switches;
  for (std::size_t distance = 2; distance < path.size(); distance += 2) {
    const std::string& node = path[path.size() - distance];
    if (is_bdf(node)) switches.push_back(node);
  }
  return switches;
}

std::optional<int> sysfs_numa(const SysfsRoot& sys, const std::string& bdf) {
  if (bdf.empty()) return std::nullopt;
  const auto node = sys.read_int(kPciDevices + bdf + "/numa_node");
  if (!node || *node < 0) return std::nullopt;
  return static_cast<int>(*node);
}

// The PCI function a class device (/sys/class/net/eth0) sits on: the nearest PCI address on the
// path its "device" link leads to (a virtio NIC's device is virtioN, below the PCI function).
std::string class_device_bdf(const SysfsRoot& sys, const std::string& class_dir) {
  const auto real = sys.resolve(class_dir + "/device");
  if (!real) return "";
  const std::vector<std::string> parts = path_parts(*real);
  const auto nearest = std::find_if(parts.rbegin(), parts.rend(), is_bdf);
  return nearest == parts.rend() ? "" : *nearest;
}

// "400 Gb/sec (4X NDR)" -> 400.
std::optional<double> parse_ib_rate(const std::string& text) {
  static const std::regex rate(R"(^\s*([0-9]+(\.[0-9]+)?)\s*Gb/sec)");
  std::smatch match;
  if (!std::regex_search(text, match, rate)) return std::nullopt;
  return std::stod(match[1].str());
}

std::vector<NicInfo> read_rdma_ports(const SysfsRoot& sys) {
  std::vector<NicInfo> ports;
  for (const std::string& device : sys.list("/sys/class/infiniband")) {
    const std::string dir = "/sys/class/infiniband/" + device;
    const std::string bdf = class_device_bdf(sys, dir);
    for (const std::string& port : sys.list(dir + "/ports")) {
      const std::string port_dir = dir + "/ports/" + port;
      NicInfo nic;
      nic.name = device + ":" + port;
      const auto layer = sys.read_line(port_dir + "/link_layer");
      nic.kind = layer && *layer == "Ethernet" ? "roce" : "infiniband";
      const auto state = sys.read_line(port_dir + "/state");
      nic.active = state && state->find("ACTIVE") != std::string::npos;
      if (const auto rate = sys.read_line(port_dir + "/rate")) nic.rate_gbps = parse_ib_rate(*rate);
      nic.pci_bdf = bdf;
      nic.numa_node = sysfs_numa(sys, bdf);
      ports.push_back(nic);
    }
  }
  return ports;
}

std::vector<NicInfo> read_ethernet_ports(const SysfsRoot& sys, const std::set<std::string>& rdma_bdfs) {
  std::vector<NicInfo> ports;
  for (const std::string& name : sys.list("/sys/class/net")) {
    const std::string dir = "/sys/class/net/" + name;
    const std::string bdf = class_device_bdf(sys, dir);
    // No PCI device: lo, bridges, veth, tunnels. An RDMA port's netdev: already listed.
    if (bdf.empty() || rdma_bdfs.count(bdf)) continue;
    NicInfo nic;
    nic.name = name;
    nic.kind = "ethernet";
    const auto state = sys.read_line(dir + "/operstate");
    nic.active = state && *state == "up";
    // Mb/s; -1 (or an unreadable file) while the link is down or the driver does not say.
    if (const auto speed = sys.read_int(dir + "/speed"); speed && *speed > 0) nic.rate_gbps = *speed / 1000.0;
    nic.pci_bdf = bdf;
    nic.numa_node = sysfs_numa(sys, bdf);
    ports.push_back(nic);
  }
  return ports;
}

// One device of the matrix with what its cells are derived from.
struct Endpoint {
  TopologyDevice device;
  std::vector<std::string> path;
  const GpuInfo* gpu = nullptr;
};

std::pair<std::string, std::string> pair_key(const std::string& a, const std::string& b) {
  return a < b ? std::make_pair(a, b) : std::make_pair(b, a);
}

std::string cell_between(const Endpoint& a, const Endpoint& b, const PairRelations& nvml) {
  if (&a == &b) return "X";
  if (a.gpu != nullptr && b.gpu != nullptr) {
    const auto links = nvlinks_between(*a.gpu, *b.gpu);
    if (!links) return "NV?";
    if (*links > 0) return "NV" + std::to_string(*links);
    const auto known = nvml.find(pair_key(a.device.pci_bdf, b.device.pci_bdf));
    if (known != nvml.end()) return known->second;
  }
  const std::string pcie = pcie_relation(a.path, b.path, a.device.numa_node, b.device.numa_node);
  return pcie.empty() ? "?" : pcie;
}

std::string normal(const std::string& bdf) { return normalize_bdf(bdf).value_or(bdf); }

// nvmlNvLinkDeviceType: GPU 0, IBM NPU 1, switch 2. Where the driver lacks the call, a remote
// NVML does not know as a GPU is taken for a switch.
template <typename RemoteType>
bool is_nvswitch(const NvmlLibrary& nvml, RemoteType* remote_type, nvml::Device device, unsigned link,
                 const std::string& remote_bdf) {
  constexpr int kSwitch = 2;
  int type = -1;
  if (NvmlLibrary::call(remote_type, device, link, &type) == nvml::success) return type == kSwitch;
  nvml::Device remote = nullptr;
  return remote_bdf.empty() || nvml.device_by_bus_id(remote_bdf, &remote) != nvml::success;
}

}  // namespace

std::vector<std::string> pci_ancestors(const SysfsRoot& sys, const std::string& bdf) {
  const auto real = sys.resolve(kPciDevices + bdf);
  if (!real) return {};
  std::vector<std::string> parts = path_parts(*real);
  // "/sys/devices/pci0000:00/..../BDF": keep from the root bus on, drop the function itself.
  const auto root = std::find_if(parts.begin(), parts.end(), [](const std::string& p) { return p.rfind("pci", 0) == 0; });
  if (root == parts.end() || parts.back() != bdf) return {};
  return std::vector<std::string>(root, std::prev(parts.end()));
}

std::string pcie_relation(const std::vector<std::string>& a_path, const std::vector<std::string>& b_path,
                          std::optional<int> a_numa, std::optional<int> b_numa) {
  if (a_path.empty() || b_path.empty()) return "";
  if (a_path.front() != b_path.front()) return a_numa == b_numa ? "NODE" : "SYS";
  const std::vector<std::string> a_switches = switches_above(a_path);
  const std::vector<std::string> b_switches = switches_above(b_path);
  if (!a_switches.empty() && !b_switches.empty() && a_switches.front() == b_switches.front()) return "PIX";
  for (const std::string& s : a_switches) {
    if (std::find(b_switches.begin(), b_switches.end(), s) != b_switches.end()) return "PXB";
  }
  return "PHB";
}

std::optional<int> nvlinks_between(const GpuInfo& a, const GpuInfo& b) {
  const bool a_unknown = a.nvlink.active_links > 0 && a.nvlink.remotes.empty();
  const bool b_unknown = b.nvlink.active_links > 0 && b.nvlink.remotes.empty();
  if (a_unknown || b_unknown) {
    if (a.nvlink.active_links > 0 && b.nvlink.active_links > 0) return std::nullopt;
    return 0;
  }
  auto count = [](const GpuInfo& from, const std::string& to, int& switch_links) {
    int direct = 0;
    for (const NvlinkRemote& remote : from.nvlink.remotes) {
      if (remote.nvswitch) {
        switch_links += remote.links;
      } else if (normal(remote.pci_bdf) == to) {
        direct += remote.links;
      }
    }
    return direct;
  };
  int a_switch = 0;
  int b_switch = 0;
  const int direct = count(a, normal(b.pci_bdf), a_switch);
  count(b, normal(a.pci_bdf), b_switch);
  return direct + (a_switch > 0 && b_switch > 0 ? std::min(a_switch, b_switch) : 0);
}

std::vector<NicInfo> read_nics(const SysfsRoot& sys) {
  std::vector<NicInfo> nics = read_rdma_ports(sys);
  std::set<std::string> rdma_bdfs;
  for (const NicInfo& nic : nics) {
    if (!nic.pci_bdf.empty()) rdma_bdfs.insert(nic.pci_bdf);
  }
  for (NicInfo& nic : read_ethernet_ports(sys, rdma_bdfs)) nics.push_back(std::move(nic));
  return nics;
}

std::optional<std::string> nvml_topology_word(int level) {
  switch (level) {
    case 0:   // NVML_TOPOLOGY_INTERNAL: two GPUs of one board, behind its own switch
    case 10:  // NVML_TOPOLOGY_SINGLE
      return "PIX";
    case 20: return "PXB";   // NVML_TOPOLOGY_MULTIPLE
    case 30: return "PHB";   // NVML_TOPOLOGY_HOSTBRIDGE
    case 40: return "NODE";  // NVML_TOPOLOGY_NODE
    case 50: return "SYS";   // NVML_TOPOLOGY_SYSTEM
    default: return std::nullopt;
  }
}

Topology derive_topology(const SysfsRoot& sys, const std::vector<GpuInfo>& gpus, const std::vector<NicInfo>& nics,
                         const std::vector<PciDevice>& pci, const PairRelations& nvml) {
  // The place of a device in the PCI tree: the inventory's record (hwloc's tree), else sysfs.
  auto path_of = [&](const std::string& bdf) {
    for (const PciDevice& device : pci) {
      if (normal(device.bdf) == bdf && !device.upstream.empty()) return device.upstream;
    }
    return pci_ancestors(sys, bdf);
  };
  std::vector<Endpoint> endpoints;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const std::string bdf = normal(gpus[i].pci_bdf);
    const auto numa = sysfs_numa(sys, bdf);
    endpoints.push_back({{"GPU" + std::to_string(i), bdf, numa ? numa : gpus[i].numa_node}, path_of(bdf), &gpus[i]});
  }
  for (std::size_t i = 0; i < nics.size(); ++i) {
    const std::string bdf = normal(nics[i].pci_bdf);
    const auto numa = sysfs_numa(sys, bdf);
    endpoints.push_back({{"NIC" + std::to_string(i), bdf, numa ? numa : nics[i].numa_node}, path_of(bdf), nullptr});
  }
  Topology topology;
  for (const Endpoint& endpoint : endpoints) topology.devices.push_back(endpoint.device);
  for (const Endpoint& row : endpoints) {
    std::vector<std::string> cells;
    for (const Endpoint& column : endpoints) cells.push_back(cell_between(row, column, nvml));
    topology.matrix.push_back(std::move(cells));
  }
  return topology;
}

void add_nvlink_remotes(const NvmlLibrary& nvml, std::vector<GpuInfo>& gpus, std::vector<std::string>& notes) {
  if (!nvml.ok()) return;
  using RemotePci = nvml::Return(nvml::Device, unsigned, nvml::PciInfo*);
  using RemoteType = nvml::Return(nvml::Device, unsigned, int*);
  RemotePci* remote_pci = nvml.resolve<RemotePci>("nvmlDeviceGetNvLinkRemotePciInfo_v2");
  RemoteType* remote_type = nvml.resolve<RemoteType>("nvmlDeviceGetNvLinkRemoteDeviceType");
  for (GpuInfo& gpu : gpus) {
    nvml::Device device = nullptr;
    if (gpu.pci_bdf.empty() || nvml.device_by_bus_id(gpu.pci_bdf, &device) != nvml::success) continue;
    std::map<std::string, NvlinkRemote> links_to;
    int active = 0;
    for (unsigned link = 0; link < nvml::nvlink_max_links; ++link) {
      int state = 0;
      const nvml::Return rc = NvmlLibrary::call(nvml.api().device_get_nvlink_state, device, link, &state);
      if (rc != nvml::success || state != nvml::feature_enabled) {
        if (rc == nvml::success) continue;
        break;  // past the last link, or no NVLink at all
      }
      ++active;
      nvml::PciInfo pci{};
      const nvml::Return remote_rc = NvmlLibrary::call(remote_pci, device, link, &pci);
      if (remote_rc != nvml::success) {
        if (remote_rc != nvml::error_not_supported && remote_rc != nvml::error_function_not_found) {
          notes.push_back("NVML: " + nvml.error_text("nvmlDeviceGetNvLinkRemotePciInfo_v2", remote_rc, gpu.pci_bdf));
        }
        links_to.clear();
        break;  // where one link leads is unknown, so the peers are
      }
      const auto bdf = normalize_bdf(std::string(pci.bus_id, strnlen(pci.bus_id, sizeof pci.bus_id)));
      NvlinkRemote& remote = links_to[bdf.value_or(format_bdf(pci.domain, pci.bus, pci.device))];
      ++remote.links;
      remote.nvswitch = is_nvswitch(nvml, remote_type, device, link, bdf.value_or(""));
    }
    gpu.nvlink.remotes.clear();
    for (auto& [bdf, remote] : links_to) {
      remote.pci_bdf = bdf;
      gpu.nvlink.remotes.push_back(remote);
    }
    if (gpu.nvlink.active_links == 0) gpu.nvlink.active_links = active;
  }
}

PairRelations nvml_pcie_relations(const NvmlLibrary& nvml, const std::vector<GpuInfo>& gpus,
                                  std::vector<std::string>& notes) {
  PairRelations relations;
  if (!nvml.ok()) return relations;
  using CommonAncestor = nvml::Return(nvml::Device, nvml::Device, int*);
  CommonAncestor* common_ancestor = nvml.resolve<CommonAncestor>("nvmlDeviceGetTopologyCommonAncestor");
  std::vector<std::pair<std::string, nvml::Device>> handles;
  for (const GpuInfo& gpu : gpus) {
    nvml::Device device = nullptr;
    if (!gpu.pci_bdf.empty() && nvml.device_by_bus_id(gpu.pci_bdf, &device) == nvml::success) {
      handles.emplace_back(normal(gpu.pci_bdf), device);
    }
  }
  for (std::size_t i = 0; i < handles.size(); ++i) {
    for (std::size_t j = i + 1; j < handles.size(); ++j) {
      int level = -1;
      const nvml::Return rc = NvmlLibrary::call(common_ancestor, handles[i].second, handles[j].second, &level);
      if (rc != nvml::success) {
        if (rc != nvml::error_not_supported && rc != nvml::error_function_not_found) {
          notes.push_back("NVML: " + nvml.error_text("nvmlDeviceGetTopologyCommonAncestor", rc,
                                                      handles[i].first + ", " + handles[j].first));
        }
        continue;
      }
      if (const auto word = nvml_topology_word(level)) relations[pair_key(handles[i].first, handles[j].first)] = *word;
    }
  }
  return relations;
}

Topology read_topology(const SysfsRoot& sys, std::vector<GpuInfo>& gpus, const std::vector<NicInfo>& nics,
                       const std::vector<PciDevice>& pci, std::vector<std::string>& notes) {
  PairRelations relations;
  if (!gpus.empty()) {
    const NvmlLibrary nvml;
    add_nvlink_remotes(nvml, gpus, notes);
    relations = nvml_pcie_relations(nvml, gpus, notes);
  }
  return derive_topology(sys, gpus, nics, pci, relations);
}

Topology read_topology(const SysfsRoot& sys, std::vector<GpuInfo>& gpus, const std::vector<NicInfo>& nics,
                       std::vector<std::string>& notes) {
  return read_topology(sys, gpus, nics, {}, notes);
}

const std::string* topology_cell(const Topology& topology, const std::string& a_bdf, const std::string& b_bdf) {
  auto index_of = [&](const std::string& bdf) -> std::optional<std::size_t> {
    const std::string wanted = normal(bdf);
    for (std::size_t i = 0; i < topology.devices.size(); ++i) {
      if (normal(topology.devices[i].pci_bdf) == wanted) return i;
    }
    return std::nullopt;
  };
  const auto a = index_of(a_bdf);
  const auto b = index_of(b_bdf);
  if (!a || !b || *a >= topology.matrix.size() || *b >= topology.matrix[*a].size()) return nullptr;
  return &topology.matrix[*a][*b];
}

std::optional<int> nvlink_width(const std::string& cell) {
  if (cell.rfind("NV", 0) != 0 || cell.size() < 3) return std::nullopt;
  if (cell == "NV?") return 0;
  const std::string digits = cell.substr(2);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoi(digits);
}

std::string topology_pairs_text(const Topology& topology) {
  std::string text;
  for (std::size_t i = 0; i < topology.devices.size(); ++i) {
    for (std::size_t j = i + 1; j < topology.devices.size() && i < topology.matrix.size(); ++j) {
      if (j >= topology.matrix[i].size()) break;
      if (!text.empty()) text += ", ";
      text += topology.devices[i].label;
      text += '-';
      text += topology.devices[j].label;
      text += ' ';
      text += topology.matrix[i][j];
    }
  }
  return text;
}

}  // namespace pipecheck
