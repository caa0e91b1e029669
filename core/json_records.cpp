// JSON for measurements and probe outcomes. Optional values are written as null. Every field is
// read through core/json_field_error.hpp, so a damaged file names the field that is wrong.
#include "core/json_records.hpp"

#include "core/json_field_error.hpp"
#include "core/number_input.hpp"

namespace pipecheck {

using nlohmann::json;

namespace {

json number_or_null(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

}  // namespace

void to_json(json& j, const Statistics& s) {
  j = json{{"median", s.median}, {"min", s.min}, {"max", s.max}, {"samples", s.samples}};
}

void from_json(const json& j, Statistics& s) {
  // A figure is never negative, and never so large that it renders as inf (1e308 x 1e9).
  s.median = number_field(j, "median", 0, kLargestFigure);
  s.min = number_field(j, "min", 0, kLargestFigure);
  s.max = number_field(j, "max", 0, kLargestFigure);
  s.samples = static_cast<int>(in_field(j, "samples", [](const json& v) { return json_integer(v, 0, 1000000000); }));
}

void to_json(json& j, const Ceiling& c) {
  j = json{{"value", c.value}, {"unit", c.unit}, {"basis", c.basis}, {"derivation", c.derivation}};
}

void from_json(const json& j, Ceiling& c) {
  c.value = number_field(j, "value", 0, kLargestFigure);
  c.unit = field<std::string>(j, "unit");
  c.basis = field<std::string>(j, "basis");
  c.derivation = field<std::string>(j, "derivation");
}

void to_json(json& j, const Measurement& m) {
  j = json{{"key", m.key},     {"stage", m.stage},   {"what", m.what},
           {"unit", m.unit},   {"stats", m.stats},   {"params", m.params},
           {"ceiling", nullptr}, {"ceiling_unknown", nullptr}, {"percent_of_ceiling", nullptr}};
  // How sure the median is, beside it in "stats" (null in reports of fewer than 2 repetitions).
  j["stats"]["noise_percent"] = number_or_null(m.noise_percent);
  j["stats"]["median_interval"] = nullptr;
  if (m.median_interval) {
    j["stats"]["median_interval"] = json{
        {"low", m.median_interval->low}, {"high", m.median_interval->high}, {"coverage", m.median_interval->coverage}};
  }
  if (m.ceiling.ceiling) j["ceiling"] = *m.ceiling.ceiling;
  if (!m.ceiling.unknown_reason.empty()) j["ceiling_unknown"] = m.ceiling.unknown_reason;
  if (m.percent_of_ceiling) j["percent_of_ceiling"] = *m.percent_of_ceiling;
  j["percent_of_ceiling_low"] = number_or_null(m.percent_low);
  j["percent_of_ceiling_high"] = number_or_null(m.percent_high);
  j["repetitions"] = m.repetitions;
  j["stopping"] = m.stopping;
  j["interleaved"] = m.interleaved;
}

void from_json(const json& j, Measurement& m) {
  m.key = field<std::string>(j, "key");
  m.stage = field<std::string>(j, "stage");
  m.what = field<std::string>(j, "what");
  m.unit = field<std::string>(j, "unit");
  m.stats = field<Statistics>(j, "stats");
  // Reports written before repetitions were kept have neither.
  in_field(j, "stats", [&](const json& stats) {
    m.noise_percent = optional_number_field(stats, "noise_percent", 0, kLargestFigure);
    m.median_interval.reset();
    if (stats.contains("median_interval") && !stats["median_interval"].is_null()) {
      in_field(stats, "median_interval", [&](const json& i) {
        m.median_interval = MedianInterval{number_field(i, "low", 0, kLargestFigure),
                                           number_field(i, "high", 0, kLargestFigure),
                                           number_field_or(i, "coverage", 0, 1, 0.0)};
      });
    }
  });
  m.params = field_or(j, "params", std::map<std::string, std::string>{});
  m.ceiling = {};
  std::optional<Ceiling> ceiling;
  optional_field(j, "ceiling", ceiling);
  if (ceiling) m.ceiling.ceiling = *ceiling;
  std::optional<std::string> unknown;
  optional_field(j, "ceiling_unknown", unknown);
  if (unknown) m.ceiling.unknown_reason = *unknown;
  m.percent_of_ceiling = optional_number_field(j, "percent_of_ceiling", 0, kLargestFigure);
  m.percent_low = optional_number_field(j, "percent_of_ceiling_low", 0, kLargestFigure);
  m.percent_high = optional_number_field(j, "percent_of_ceiling_high", 0, kLargestFigure);
  m.repetitions.clear();
  if (j.contains("repetitions")) {
    for_each_element(j, "repetitions", [&](const json& v) { m.repetitions.push_back(json_number(v, 0, kLargestFigure)); });
  }
  m.stopping = field_or(j, "stopping", "");
  m.interleaved = field_or(j, "interleaved", false);
}

void to_json(json& j, const RunConditions& c) {
  json consumers = json::array();
  for (const auto& p : c.top_consumers) {
    consumers.push_back({{"pid", p.pid}, {"command", p.command}, {"cpu_percent", p.cpu_percent}});
  }
  json gpu_processes = json::array();
  for (const auto& p : c.gpu_processes) {
    gpu_processes.push_back({{"pid", p.pid}, {"command", p.command}, {"gpu", p.gpu}, {"memory_bytes", p.memory_bytes}});
  }
  j = json{{"seconds", c.seconds},
           {"other_cpu_percent", c.other_cpu_percent},
           {"probe_cpu_percent", c.probe_cpu_percent},
           {"steal_percent", c.steal_percent},
           {"iowait_percent", c.iowait_percent},
           {"loadavg_1m", number_or_null(c.loadavg_1m)},
           {"governor", c.governor},
           {"governor_performance", c.governor_performance},
           {"clock_mhz_min", number_or_null(c.clock_mhz_min)},
           {"clock_mhz_max", number_or_null(c.clock_mhz_max)},
           {"clocks_note", c.clocks_note},
           {"usable_cpus", c.usable_cpus},
           {"cpu_allowance", c.cpu_allowance},
           {"top_consumers", consumers},
           {"gpu_processes", gpu_processes},
           {"gpu_clock_events", c.gpu_clock_events},
           {"gpu_note", c.gpu_note}};
}

void from_json(const json& j, RunConditions& c) {
  c = {};
  c.seconds = field_or(j, "seconds", 0.0);
  c.other_cpu_percent = field<double>(j, "other_cpu_percent");
  c.probe_cpu_percent = field_or(j, "probe_cpu_percent", 0.0);
  c.steal_percent = field_or(j, "steal_percent", 0.0);
  c.iowait_percent = field_or(j, "iowait_percent", 0.0);
  optional_field(j, "loadavg_1m", c.loadavg_1m);
  c.governor = field_or(j, "governor", "");
  c.governor_performance = field_or(j, "governor_performance", false);
  optional_field(j, "clock_mhz_min", c.clock_mhz_min);
  optional_field(j, "clock_mhz_max", c.clock_mhz_max);
  c.clocks_note = field_or(j, "clocks_note", "");
  c.usable_cpus = field_or(j, "usable_cpus", 0);
  c.cpu_allowance = field_or(j, "cpu_allowance", "");
  if (j.contains("top_consumers")) {
    for_each_element(j, "top_consumers", [&](const json& p) {
      c.top_consumers.push_back({field_or(p, "pid", 0), field_or(p, "command", ""), field_or(p, "cpu_percent", 0.0)});
    });
  }
  if (j.contains("gpu_processes")) {
    for_each_element(j, "gpu_processes", [&](const json& p) {
      c.gpu_processes.push_back({field_or(p, "pid", 0), field_or(p, "command", ""), field_or(p, "gpu", ""),
                                 field_or(p, "memory_bytes", 0ULL)});
    });
  }
  c.gpu_clock_events = field_or(j, "gpu_clock_events", std::vector<std::string>{});
  c.gpu_note = field_or(j, "gpu_note", "");
}

void to_json(json& j, const ProbeOutcome& p) {
  j = json{{"probe", p.probe},   {"stage", p.stage},     {"status", to_string(p.status)},
           {"reason", p.reason}, {"seconds", p.seconds}, {"case_errors", p.case_errors},
           {"measurements", p.measurements.size()}};
  if (!p.skipped_cases.empty()) j["skipped_cases"] = p.skipped_cases;
  if (!p.wrong_results.empty()) j["wrong_results"] = p.wrong_results;
  j["conditions"] = p.conditions ? json(*p.conditions) : json(nullptr);
}

void from_json(const json& j, ProbeOutcome& p) {
  p.probe = field<std::string>(j, "probe");
  p.stage = field<std::string>(j, "stage");
  // An unknown status is damage to name, not a "failed" to invent.
  in_field(j, "status", [&](const json& value) {
    const auto text = value_as<std::string>(value);
    p.status = parse_probe_status(text);
    if (p.status == ProbeStatus::failed && text != to_string(ProbeStatus::failed)) {
      throw FieldError("expected ok, skipped, not built, failed or interrupted, found " + found_text(value));
    }
    return 0;
  });
  p.reason = field_or(j, "reason", "");
  p.seconds = field_or(j, "seconds", 0.0);
  p.case_errors = field_or(j, "case_errors", std::vector<std::string>{});
  p.skipped_cases = field_or(j, "skipped_cases", std::vector<std::string>{});
  p.wrong_results = field_or(j, "wrong_results", std::vector<std::string>{});
  p.conditions.reset();
  if (j.contains("conditions") && !j["conditions"].is_null()) p.conditions = field<RunConditions>(j, "conditions");
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
  optional_field(j, key, into);
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
  for_each_item(j, [&](const json& c) {
    caches.push_back({field<int>(c, "level"), field<std::string>(c, "type"),
                      field<std::uint64_t>(c, "instance_bytes"), field<int>(c, "instances"),
                      field<std::uint64_t>(c, "per_package_bytes")});
  });
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
  cpu.model = field<std::string>(j, "model");
  read_count(j, "sockets", cpu.sockets, version);
  read_count(j, "physical_cores", cpu.physical_cores, version);
  read_count(j, "logical_cpus", cpu.logical_cpus, version);
  read_count(j, "numa_nodes", cpu.numa_nodes, version);
  read_optional(j, "l3_bytes", cpu.l3_bytes);
  if (j.contains("caches")) cpu.caches = in_field(j, "caches", caches_from);
  cpu.source = field_or(j, "source", "");
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
  a.quota_source = field_or(j, "quota_source", "");
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
  for_each_item(j, [&](const json& n) {
    NumaNode node;
    node.os_index = field<int>(n, "os_index");
    node.cpus = field<int>(n, "cpus");
    read_optional(n, "memory_bytes", node.memory_bytes);
    node.gpu_bdf = field_or(n, "gpu_bdf", "");
    nodes.push_back(node);
  });
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
  memory.total_source = field_or(j, "total_source", "");
  if (j.contains("nodes")) memory.nodes = in_field(j, "nodes", nodes_from);
  for_each_element(j, "dimms", [&](const json& d) {
    DimmInfo dimm;
    dimm.locator = field<std::string>(d, "locator");
    dimm.size_bytes = field<std::uint64_t>(d, "size_bytes");
    read_optional(d, "speed_mts", dimm.speed_mts);
    read_optional(d, "data_width_bits", dimm.data_width_bits);
    dimm.type = field<std::string>(d, "type");
    memory.dimms.push_back(dimm);
  });
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
  p.bdf = field<std::string>(j, "bdf");
  p.vendor_id = field<unsigned>(j, "vendor_id");
  p.device_id = field<unsigned>(j, "device_id");
  p.class_code = field<unsigned>(j, "class_code");
  p.kind = field<std::string>(j, "kind");
  p.driver = field_or(j, "driver", "");
  read_optional(j, "numa_node", p.numa_node);
  p.local_cpus = field_or(j, "local_cpus", "");
  p.link = in_field(j, "link", link_from);
  read_optional(j, "link_gbps", p.link_gbps);
  p.upstream = field_or(j, "upstream", std::vector<std::string>{});
  p.source = field_or(j, "source", "");
  return p;
}

json disk_json(const BlockDevice& d) {
  return json{{"name", d.name},
              {"model", d.model},
              {"vendor", d.vendor},
              {"size_bytes", optional_json(d.size_bytes)},
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
  d.name = field<std::string>(j, "name");
  d.model = field<std::string>(j, "model");
  d.vendor = field_or(j, "vendor", "");
  member(j, "size_bytes");  // required, null when the size is unknown
  optional_field(j, "size_bytes", d.size_bytes);
  d.rotational = field<bool>(j, "rotational");
  d.kind = disk_kind_from(field<std::string>(j, "kind"));
  d.transport = field<std::string>(j, "transport");
  d.pci_bdf = field<std::string>(j, "pci_bdf");
  d.pcie = in_field(j, "pcie", link_from);
  read_optional(j, "sata_gbps", d.sata_gbps);
  d.logical_block_size = field<int>(j, "logical_block_size");
  read_optional(j, "numa_node", d.numa_node);
  d.members = field_or(j, "members", std::vector<std::string>{});
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
  for_each_element(nvlink, "remotes", [&](const json& r) {
    remotes.push_back({field<std::string>(r, "pci_bdf"), field<int>(r, "links"), field_or(r, "nvswitch", false)});
  });
  return remotes;
}

json nic_json(const NicInfo& n) {
  return json{{"name", n.name},       {"kind", n.kind},       {"rate_gbps", optional_json(n.rate_gbps)},
              {"active", n.active},   {"pci_bdf", n.pci_bdf}, {"numa_node", optional_json(n.numa_node)}};
}

NicInfo nic_from(const json& j) {
  NicInfo n;
  n.name = field<std::string>(j, "name");
  n.kind = field<std::string>(j, "kind");
  read_optional(j, "rate_gbps", n.rate_gbps);
  n.active = field<bool>(j, "active");
  n.pci_bdf = field_or(j, "pci_bdf", "");
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
  for_each_element(j, "devices", [&](const json& d) {
    TopologyDevice device{field<std::string>(d, "label"), field_or(d, "pci_bdf", ""), std::nullopt};
    read_optional(d, "numa_node", device.numa_node);
    t.devices.push_back(device);
  });
  t.matrix = field<std::vector<std::vector<std::string>>>(j, "matrix");
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
  g.cuda_index = field<int>(j, "cuda_index");
  g.name = field<std::string>(j, "name");
  g.uuid = field<std::string>(j, "uuid");
  g.pci_bdf = field<std::string>(j, "pci_bdf");
  // Inventories before version 2 did not say who saw a GPU: left empty (unknown).
  g.seen_by = field_or(j, "seen_by", std::vector<std::string>{});
  g.pci_driver = field_or(j, "pci_driver", "");
  read_optional(j, "pci_device_id", g.pci_device_id);
  read_optional(j, "device_minor", g.device_minor);
  g.cc_major = field<int>(j, "cc_major");
  g.cc_minor = field<int>(j, "cc_minor");
  read_optional(j, "sm_count", g.sm_count);
  read_optional(j, "max_sm_clock_mhz", g.max_sm_clock_mhz);
  read_optional(j, "max_mem_clock_mhz", g.max_mem_clock_mhz);
  read_optional(j, "memory_bus_width_bits", g.memory_bus_width_bits);
  read_optional(j, "memory_bytes", g.memory_bytes);
  read_optional(j, "l2_bytes", g.l2_bytes);
  g.pcie = in_field(j, "pcie", link_from);
  g.pcie_source = field_or(j, "pcie_source", "");
  read_optional(j, "numa_node", g.numa_node);
  read_optional(j, "power_limit_w", g.power_limit_w);
  in_field(j, "nvlink", [&](const json& nvlink) {
    g.nvlink.active_links = field<int>(nvlink, "active_links");
    g.nvlink.total_links_probed = field<int>(nvlink, "total_links_probed");
    read_optional(nvlink, "version", g.nvlink.version);
    g.nvlink.version_source = field_or(nvlink, "version_source", "");
    read_optional(nvlink, "nvml_version_code", g.nvlink.nvml_version_code);
    g.nvlink.remotes = nvlink_remotes_from(nvlink);
  });
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
  s.kernel = field<std::string>(j, "kernel");
  read_optional(j, "driver_version", s.driver_version);
  read_optional(j, "driver_cuda_version", s.driver_cuda_version);
  read_optional(j, "runtime_cuda_version", s.runtime_cuda_version);
  read_optional(j, "nccl_version", s.nccl_version);
  s.cuda_built = field<bool>(j, "cuda_built");
  s.nccl_built = field<bool>(j, "nccl_built");
  s.nvml_loaded = field<bool>(j, "nvml_loaded");
  s.nvml_error = field<std::string>(j, "nvml_error");
  s.cuda_error = field<std::string>(j, "cuda_error");
  s.in_container = field<bool>(j, "in_container");
  s.container_evidence = field<std::string>(j, "container_evidence");
  s.nvidia_device_nodes = field<std::vector<std::string>>(j, "nvidia_device_nodes");
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
  member(j, "version");  // required: a missing one is named
  inventory.schema_version = schema_version_field(j);
  check_schema_version("inventory.json", inventory.schema_version, kInventorySchemaVersion);
  const int version = inventory.schema_version;
  inventory.recorded_root.clear();
  std::optional<std::string> recorded_root;
  optional_field(j, "recorded_root", recorded_root);
  if (recorded_root) inventory.recorded_root = *recorded_root;
  inventory.hostname = field<std::string>(j, "hostname");
  inventory.collected_utc = field<std::string>(j, "collected_utc");
  inventory.cpu = in_field(j, "cpu", [&](const json& value) { return cpu_from(value, version); });
  inventory.cpu_allowance = j.contains("cpu_allowance") ? in_field(j, "cpu_allowance", allowance_from) : CpuAllowance{};
  inventory.memory = in_field(j, "memory", [&](const json& value) { return memory_from(value, version); });
  inventory.disks.clear();
  for_each_element(j, "disks", [&](const json& d) { inventory.disks.push_back(disk_from(d)); });
  inventory.gpus.clear();
  for_each_element(j, "gpus", [&](const json& g) { inventory.gpus.push_back(gpu_from(g)); });
  inventory.software = in_field(j, "software", software_from);
  // Inventories written before the topology was recorded have neither: none known.
  inventory.nics.clear();
  if (j.contains("nics")) {
    for_each_element(j, "nics", [&](const json& n) { inventory.nics.push_back(nic_from(n)); });
  }
  inventory.pci.clear();
  if (j.contains("pci")) {
    for_each_element(j, "pci", [&](const json& p) { inventory.pci.push_back(pci_from(p)); });
  }
  inventory.topology = j.contains("topology") ? in_field(j, "topology", topology_from) : Topology{};
  inventory.notes = field<std::vector<std::string>>(j, "notes");
}

}  // namespace pipecheck
