// JSON for measurements and probe outcomes. Optional values are written as null.
#include "core/json_records.hpp"

namespace pipecheck {

using nlohmann::json;

void to_json(json& j, const Statistics& s) {
  j = json{{"median", s.median}, {"min", s.min}, {"max", s.max}, {"samples", s.samples}};
}

void from_json(const json& j, Statistics& s) {
  s.median = j.at("median").get<double>();
  s.min = j.at("min").get<double>();
  s.max = j.at("max").get<double>();
  s.samples = j.at("samples").get<int>();
}

void to_json(json& j, const Ceiling& c) {
  j = json{{"value", c.value}, {"unit", c.unit}, {"basis", c.basis}, {"derivation", c.derivation}};
}

void from_json(const json& j, Ceiling& c) {
  c.value = j.at("value").get<double>();
  c.unit = j.at("unit").get<std::string>();
  c.basis = j.at("basis").get<std::string>();
  c.derivation = j.at("derivation").get<std::string>();
}

void to_json(json& j, const Measurement& m) {
  j = json{{"key", m.key},     {"stage", m.stage},   {"what", m.what},
           {"unit", m.unit},   {"stats", m.stats},   {"params", m.params},
           {"ceiling", nullptr}, {"ceiling_unknown", nullptr}, {"percent_of_ceiling", nullptr}};
  if (m.ceiling.ceiling) j["ceiling"] = *m.ceiling.ceiling;
  if (!m.ceiling.unknown_reason.empty()) j["ceiling_unknown"] = m.ceiling.unknown_reason;
  if (m.percent_of_ceiling) j["percent_of_ceiling"] = *m.percent_of_ceiling;
}

void from_json(const json& j, Measurement& m) {
  m.key = j.at("key").get<std::string>();
  m.stage = j.at("stage").get<std::string>();
  m.what = j.at("what").get<std::string>();
  m.unit = j.at("unit").get<std::string>();
  m.stats = j.at("stats").get<Statistics>();
  m.params = j.value("params", std::map<std::string, std::string>{});
  m.ceiling = {};
  if (j.contains("ceiling") && !j["ceiling"].is_null()) m.ceiling.ceiling = j["ceiling"].get<Ceiling>();
  if (j.contains("ceiling_unknown") && !j["ceiling_unknown"].is_null()) {
    m.ceiling.unknown_reason = j["ceiling_unknown"].get<std::string>();
  }
  m.percent_of_ceiling.reset();
  if (j.contains("percent_of_ceiling") && !j["percent_of_ceiling"].is_null()) {
    m.percent_of_ceiling = j["percent_of_ceiling"].get<double>();
  }
}

void to_json(json& j, const ProbeOutcome& p) {
  j = json{{"probe", p.probe},   {"stage", p.stage},     {"status", to_string(p.status)},
           {"reason", p.reason}, {"seconds", p.seconds}, {"case_errors", p.case_errors},
           {"measurements", p.measurements.size()}};
}

void from_json(const json& j, ProbeOutcome& p) {
  p.probe = j.at("probe").get<std::string>();
  p.stage = j.at("stage").get<std::string>();
  p.status = parse_probe_status(j.at("status").get<std::string>());
  p.reason = j.value("reason", "");
  p.seconds = j.value("seconds", 0.0);
  p.case_errors = j.value("case_errors", std::vector<std::string>{});
}

}  // namespace pipecheck

// ---- inventory ----------------------------------------------------------------------------
namespace pipecheck {

namespace {

template <typename T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

template <typename T>
void read_optional(const json& j, const char* key, std::optional<T>& into) {
  into.reset();
  if (j.contains(key) && !j[key].is_null()) into = j[key].get<T>();
}

json link_json(const PcieLink& link) {
  return json{{"current_gts", optional_json(link.current_gts)},
              {"current_width", optional_json(link.current_width)},
              {"max_gts", optional_json(link.max_gts)},
              {"max_width", optional_json(link.max_width)},
              {"downtrained", link.downtrained()}};
}

PcieLink link_from(const json& j) {
  PcieLink link;
  read_optional(j, "current_gts", link.current_gts);
  read_optional(j, "current_width", link.current_width);
  read_optional(j, "max_gts", link.max_gts);
  read_optional(j, "max_width", link.max_width);
  return link;
}

DiskKind disk_kind_from(const std::string& text) {
  for (DiskKind kind : {DiskKind::nvme, DiskKind::sata_ssd, DiskKind::sata_hdd, DiskKind::scsi,
                        DiskKind::virtual_disk, DiskKind::network, DiskKind::unknown}) {
    if (text == to_string(kind)) return kind;
  }
  return DiskKind::unknown;
}

json caches_json(const std::vector<CacheLevel>& caches) {
  json list = json::array();
  for (const auto& c : caches) {
    list.push_back({{"level", c.level},
                    {"type", c.type},
                    {"instance_bytes", c.instance_bytes},
                    {"instances", c.instances},
                    {"per_package_bytes", c.per_package_bytes}});
  }
  return list;
}

std::vector<CacheLevel> caches_from(const json& j) {
  std::vector<CacheLevel> caches;
  for (const auto& c : j) {
    caches.push_back({c.at("level").get<int>(), c.at("type").get<std::string>(),
                      c.at("instance_bytes").get<std::uint64_t>(), c.at("instances").get<int>(),
                      c.at("per_package_bytes").get<std::uint64_t>()});
  }
  return caches;
}

json cpu_json(const CpuInfo& cpu) {
  return json{{"model", cpu.model},
              {"sockets", optional_json(cpu.sockets)},
              {"physical_cores", optional_json(cpu.physical_cores)},
              {"logical_cpus", optional_json(cpu.logical_cpus)},
              {"numa_nodes", optional_json(cpu.numa_nodes)},
              {"l3_bytes", optional_json(cpu.l3_bytes)},
              {"caches", caches_json(cpu.caches)},
              {"source", cpu.source}};
}

// Version 1 wrote 0 for a count it did not know.
void read_count(const json& j, const char* key, std::optional<int>& into, int version) {
  read_optional(j, key, into);
  if (version < 2 && into == 0) into.reset();
}

CpuInfo cpu_from(const json& j, int version) {
  CpuInfo cpu;
  cpu.model = j.at("model").get<std::string>();
  read_count(j, "sockets", cpu.sockets, version);
  read_count(j, "physical_cores", cpu.physical_cores, version);
  read_count(j, "logical_cpus", cpu.logical_cpus, version);
  read_count(j, "numa_nodes", cpu.numa_nodes, version);
  read_optional(j, "l3_bytes", cpu.l3_bytes);
  if (j.contains("caches")) cpu.caches = caches_from(j.at("caches"));
  cpu.source = j.value("source", "");
  return cpu;
}

json allowance_json(const CpuAllowance& a) {
  return json{{"online", a.online > 0 ? json(a.online) : json(nullptr)},
              {"affinity", a.affinity > 0 ? json(a.affinity) : json(nullptr)},
              {"quota_cpus", optional_json(a.quota_cpus)},
              {"quota_source", a.quota_source},
              {"usable", a.usable()},
              {"limited", a.limited()},
              {"description", a.describe()}};
}

CpuAllowance allowance_from(const json& j) {
  CpuAllowance a;
  std::optional<int> count;
  read_optional(j, "online", count);
  a.online = count.value_or(0);
  read_optional(j, "affinity", count);
  a.affinity = count.value_or(0);
  read_optional(j, "quota_cpus", a.quota_cpus);
  a.quota_source = j.value("quota_source", "");
  return a;
}

json nodes_json(const std::vector<NumaNode>& nodes) {
  json list = json::array();
  for (const auto& n : nodes) {
    list.push_back({{"os_index", n.os_index},
                    {"cpus", n.cpus},
                    {"memory_bytes", optional_json(n.memory_bytes)},
                    {"gpu_bdf", n.gpu_bdf}});
  }
  return list;
}

std::vector<NumaNode> nodes_from(const json& j) {
  std::vector<NumaNode> nodes;
  for (const auto& n : j) {
    NumaNode node;
    node.os_index = n.at("os_index").get<int>();
    node.cpus = n.at("cpus").get<int>();
    read_optional(n, "memory_bytes", node.memory_bytes);
    node.gpu_bdf = n.value("gpu_bdf", "");
    nodes.push_back(node);
  }
  return nodes;
}

json memory_json(const MemoryInfo& memory) {
  json dimms = json::array();
  for (const auto& d : memory.dimms) {
    dimms.push_back(json{{"locator", d.locator},
                         {"size_bytes", d.size_bytes},
                         {"speed_mts", optional_json(d.speed_mts)},
                         {"data_width_bits", optional_json(d.data_width_bits)},
                         {"type", d.type}});
  }
  return json{{"total_bytes", optional_json(memory.total_bytes)},
              {"total_source", memory.total_source},
              {"nodes", nodes_json(memory.nodes)},
              {"dimms", dimms},
              {"memory_channels", optional_json(memory.memory_channels)}};
}

MemoryInfo memory_from(const json& j, int version) {
  MemoryInfo memory;
  read_optional(j, "total_bytes", memory.total_bytes);
  if (version < 2 && memory.total_bytes == 0u) memory.total_bytes.reset();
  memory.total_source = j.value("total_source", "");
  if (j.contains("nodes")) memory.nodes = nodes_from(j.at("nodes"));
  for (const auto& d : j.at("dimms")) {
    DimmInfo dimm;
    dimm.locator = d.at("locator").get<std::string>();
    dimm.size_bytes = d.at("size_bytes").get<std::uint64_t>();
    read_optional(d, "speed_mts", dimm.speed_mts);
    read_optional(d, "data_width_bits", dimm.data_width_bits);
    dimm.type = d.at("type").get<std::string>();
    memory.dimms.push_back(dimm);
  }
  read_optional(j, "memory_channels", memory.memory_channels);
  return memory;
}

json pci_json(const PciDevice& p) {
  return json{{"bdf", p.bdf},
              {"vendor_id", p.vendor_id},
              {"device_id", p.device_id},
              {"class_code", p.class_code},
              {"kind", p.kind},
              {"driver", p.driver},
              {"numa_node", optional_json(p.numa_node)},
              {"local_cpus", p.local_cpus},
              {"link", link_json(p.link)},
              {"link_gbps", optional_json(p.link_gbps)},
              {"upstream", p.upstream},
              {"source", p.source}};
}

PciDevice pci_from(const json& j) {
  PciDevice p;
  p.bdf = j.at("bdf").get<std::string>();
  p.vendor_id = j.at("vendor_id").get<unsigned>();
  p.device_id = j.at("device_id").get<unsigned>();
  p.class_code = j.at("class_code").get<unsigned>();
  p.kind = j.at("kind").get<std::string>();
  p.driver = j.value("driver", "");
  read_optional(j, "numa_node", p.numa_node);
  p.local_cpus = j.value("local_cpus", "");
  p.link = link_from(j.at("link"));
  read_optional(j, "link_gbps", p.link_gbps);
  p.upstream = j.value("upstream", std::vector<std::string>{});
  p.source = j.value("source", "");
  return p;
}

json disk_json(const BlockDevice& d) {
  return json{{"name", d.name},
              {"model", d.model},
              {"vendor", d.vendor},
              {"size_bytes", d.size_bytes},
              {"rotational", d.rotational},
              {"kind", to_string(d.kind)},
              {"transport", d.transport},
              {"pci_bdf", d.pci_bdf},
              {"pcie", link_json(d.pcie)},
              {"sata_gbps", optional_json(d.sata_gbps)},
              {"logical_block_size", d.logical_block_size},
              {"numa_node", optional_json(d.numa_node)},
              {"members", d.members}};
}

BlockDevice disk_from(const json& j) {
  BlockDevice d;
  d.name = j.at("name").get<std::string>();
  d.model = j.at("model").get<std::string>();
  d.vendor = j.value("vendor", "");
  d.size_bytes = j.at("size_bytes").get<std::uint64_t>();
  d.rotational = j.at("rotational").get<bool>();
  d.kind = disk_kind_from(j.at("kind").get<std::string>());
  d.transport = j.at("transport").get<std::string>();
  d.pci_bdf = j.at("pci_bdf").get<std::string>();
  d.pcie = link_from(j.at("pcie"));
  read_optional(j, "sata_gbps", d.sata_gbps);
  d.logical_block_size = j.at("logical_block_size").get<int>();
  read_optional(j, "numa_node", d.numa_node);
  d.members = j.value("members", std::vector<std::string>{});
  return d;
}

json nvlink_remotes_json(const std::vector<NvlinkRemote>& remotes) {
  json list = json::array();
  for (const auto& r : remotes) list.push_back({{"pci_bdf", r.pci_bdf}, {"links", r.links}, {"nvswitch", r.nvswitch}});
  return list;
}

// Inventories written before NVLink peers were recorded have no "remotes": none known.
std::vector<NvlinkRemote> nvlink_remotes_from(const json& nvlink) {
  std::vector<NvlinkRemote> remotes;
  if (!nvlink.contains("remotes")) return remotes;
  for (const auto& r : nvlink.at("remotes")) {
    remotes.push_back({r.at("pci_bdf").get<std::string>(), r.at("links").get<int>(), r.value("nvswitch", false)});
  }
  return remotes;
}

json nic_json(const NicInfo& n) {
  return json{{"name", n.name},       {"kind", n.kind},       {"rate_gbps", optional_json(n.rate_gbps)},
              {"active", n.active},   {"pci_bdf", n.pci_bdf}, {"numa_node", optional_json(n.numa_node)}};
}

NicInfo nic_from(const json& j) {
  NicInfo n;
  n.name = j.at("name").get<std::string>();
  n.kind = j.at("kind").get<std::string>();
  read_optional(j, "rate_gbps", n.rate_gbps);
  n.active = j.at("active").get<bool>();
  n.pci_bdf = j.value("pci_bdf", "");
  read_optional(j, "numa_node", n.numa_node);
  return n;
}

json topology_json(const Topology& t) {
  json devices = json::array();
  for (const auto& d : t.devices) {
    devices.push_back({{"label", d.label}, {"pci_bdf", d.pci_bdf}, {"numa_node", optional_json(d.numa_node)}});
  }
  return json{{"devices", devices}, {"matrix", t.matrix}};
}

Topology topology_from(const json& j) {
  Topology t;
  for (const auto& d : j.at("devices")) {
    TopologyDevice device{d.at("label").get<std::string>(), d.value("pci_bdf", ""), std::nullopt};
    read_optional(d, "numa_node", device.numa_node);
    t.devices.push_back(device);
  }
  t.matrix = j.at("matrix").get<std::vector<std::vector<std::string>>>();
  return t;
}

json gpu_json(const GpuInfo& g) {
  return json{{"cuda_index", g.cuda_index},
              {"name", g.name},
              {"uuid", g.uuid},
              {"pci_bdf", g.pci_bdf},
              {"seen_by", g.seen_by},
              {"pci_driver", g.pci_driver},
              {"pci_device_id", optional_json(g.pci_device_id)},
              {"device_minor", optional_json(g.device_minor)},
              {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
              {"cc_major", g.cc_major},
              {"cc_minor", g.cc_minor},
              {"sm_count", optional_json(g.sm_count)},
              {"max_sm_clock_mhz", optional_json(g.max_sm_clock_mhz)},
              {"max_mem_clock_mhz", optional_json(g.max_mem_clock_mhz)},
              {"memory_bus_width_bits", optional_json(g.memory_bus_width_bits)},
              {"memory_bytes", optional_json(g.memory_bytes)},
              {"l2_bytes", optional_json(g.l2_bytes)},
              {"pcie", link_json(g.pcie)},
              {"pcie_source", g.pcie_source},
              {"numa_node", optional_json(g.numa_node)},
              {"power_limit_w", optional_json(g.power_limit_w)},
              {"nvlink", json{{"active_links", g.nvlink.active_links},
                              {"total_links_probed", g.nvlink.total_links_probed},
                              {"version", optional_json(g.nvlink.version)},
                              {"version_source", g.nvlink.version_source},
                              {"nvml_version_code", optional_json(g.nvlink.nvml_version_code)},
                              {"remotes", nvlink_remotes_json(g.nvlink.remotes)}}}};
}

GpuInfo gpu_from(const json& j) {
  GpuInfo g;
  g.cuda_index = j.at("cuda_index").get<int>();
  g.name = j.at("name").get<std::string>();
  g.uuid = j.at("uuid").get<std::string>();
  g.pci_bdf = j.at("pci_bdf").get<std::string>();
  // Inventories before version 2 did not say who saw a GPU: left empty (unknown).
  g.seen_by = j.value("seen_by", std::vector<std::string>{});
  g.pci_driver = j.value("pci_driver", "");
  read_optional(j, "pci_device_id", g.pci_device_id);
  read_optional(j, "device_minor", g.device_minor);
  g.cc_major = j.at("cc_major").get<int>();
  g.cc_minor = j.at("cc_minor").get<int>();
  read_optional(j, "sm_count", g.sm_count);
  read_optional(j, "max_sm_clock_mhz", g.max_sm_clock_mhz);
  read_optional(j, "max_mem_clock_mhz", g.max_mem_clock_mhz);
  read_optional(j, "memory_bus_width_bits", g.memory_bus_width_bits);
  read_optional(j, "memory_bytes", g.memory_bytes);
  read_optional(j, "l2_bytes", g.l2_bytes);
  g.pcie = link_from(j.at("pcie"));
  g.pcie_source = j.value("pcie_source", "");
  read_optional(j, "numa_node", g.numa_node);
  read_optional(j, "power_limit_w", g.power_limit_w);
  const json& nvlink = j.at("nvlink");
  g.nvlink.active_links = nvlink.at("active_links").get<int>();
  g.nvlink.total_links_probed = nvlink.at("total_links_probed").get<int>();
  read_optional(nvlink, "version", g.nvlink.version);
  g.nvlink.version_source = nvlink.value("version_source", "");
  read_optional(nvlink, "nvml_version_code", g.nvlink.nvml_version_code);
  g.nvlink.remotes = nvlink_remotes_from(nvlink);
  return g;
}

json software_json(const SoftwareStack& s) {
  const auto mismatch = s.cuda_mismatch();
  return json{{"kernel", s.kernel},
              {"driver_version", optional_json(s.driver_version)},
              {"driver_cuda_version", optional_json(s.driver_cuda_version)},
              {"runtime_cuda_version", optional_json(s.runtime_cuda_version)},
              {"cuda_mismatch", optional_json(mismatch)},
              {"nccl_version", optional_json(s.nccl_version)},
              {"cuda_built", s.cuda_built},
              {"nccl_built", s.nccl_built},
              {"nvml_loaded", s.nvml_loaded},
              {"nvml_error", s.nvml_error},
              {"cuda_error", s.cuda_error},
              {"in_container", s.in_container},
              {"container_evidence", s.container_evidence},
              {"nvidia_device_nodes", s.nvidia_device_nodes},
              {"cuda_visible_devices", optional_json(s.cuda_visible_devices)}};
}

SoftwareStack software_from(const json& j) {
  SoftwareStack s;
  s.kernel = j.at("kernel").get<std::string>();
  read_optional(j, "driver_version", s.driver_version);
  read_optional(j, "driver_cuda_version", s.driver_cuda_version);
  read_optional(j, "runtime_cuda_version", s.runtime_cuda_version);
  read_optional(j, "nccl_version", s.nccl_version);
  s.cuda_built = j.at("cuda_built").get<bool>();
  s.nccl_built = j.at("nccl_built").get<bool>();
  s.nvml_loaded = j.at("nvml_loaded").get<bool>();
  s.nvml_error = j.at("nvml_error").get<std::string>();
  s.cuda_error = j.at("cuda_error").get<std::string>();
  s.in_container = j.at("in_container").get<bool>();
  s.container_evidence = j.at("container_evidence").get<std::string>();
  s.nvidia_device_nodes = j.at("nvidia_device_nodes").get<std::vector<std::string>>();
  read_optional(j, "cuda_visible_devices", s.cuda_visible_devices);
  return s;
}

}  // namespace

void to_json(json& j, const Inventory& inventory) {
  json disks = json::array();
  for (const auto& d : inventory.disks) disks.push_back(disk_json(d));
  json gpus = json::array();
  for (const auto& g : inventory.gpus) gpus.push_back(gpu_json(g));
  json nics = json::array();
  for (const auto& n : inventory.nics) nics.push_back(nic_json(n));
  json pci = json::array();
  for (const auto& p : inventory.pci) pci.push_back(pci_json(p));
  j = json{{"schema", "pipecheck.inventory"},
           {"version", inventory.schema_version},
           {"recorded_root", inventory.recorded_root.empty() ? json(nullptr) : json(inventory.recorded_root)},
           {"hostname", inventory.hostname},
           {"collected_utc", inventory.collected_utc},
           {"cpu", cpu_json(inventory.cpu)},
           {"cpu_allowance", allowance_json(inventory.cpu_allowance)},
           {"memory", memory_json(inventory.memory)},
           {"disks", disks},
           {"gpus", gpus},
           {"software", software_json(inventory.software)},
           {"nics", nics},
           {"pci", pci},
           {"topology", topology_json(inventory.topology)},
           {"notes", inventory.notes}};
}

void from_json(const json& j, Inventory& inventory) {
  inventory.schema_version = j.at("version").get<int>();
  check_schema_version("inventory.json", inventory.schema_version, kInventorySchemaVersion);
  const int version = inventory.schema_version;
  inventory.recorded_root.clear();
  if (j.contains("recorded_root") && !j["recorded_root"].is_null()) {
    inventory.recorded_root = j["recorded_root"].get<std::string>();
  }
  inventory.hostname = j.at("hostname").get<std::string>();
  inventory.collected_utc = j.at("collected_utc").get<std::string>();
  inventory.cpu = cpu_from(j.at("cpu"), version);
  inventory.cpu_allowance = j.contains("cpu_allowance") ? allowance_from(j.at("cpu_allowance")) : CpuAllowance{};
  inventory.memory = memory_from(j.at("memory"), version);
  inventory.disks.clear();
  for (const auto& d : j.at("disks")) inventory.disks.push_back(disk_from(d));
  inventory.gpus.clear();
  for (const auto& g : j.at("gpus")) inventory.gpus.push_back(gpu_from(g));
  inventory.software = software_from(j.at("software"));
  // Inventories written before the topology was recorded have neither: none known.
  inventory.nics.clear();
  if (j.contains("nics")) {
    for (const auto& n : j.at("nics")) inventory.nics.push_back(nic_from(n));
  }
  inventory.pci.clear();
  if (j.contains("pci")) {
    for (const auto& p : j.at("pci")) inventory.pci.push_back(pci_from(p));
  }
  inventory.topology = j.contains("topology") ? topology_from(j.at("topology")) : Topology{};
  inventory.notes = j.at("notes").get<std::vector<std::string>>();
}

}  // namespace pipecheck
