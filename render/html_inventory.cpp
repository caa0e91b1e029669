// report.html's inventory section: the machine as pipecheck found it.
#include <map>
#include <sstream>

#include "core/figure_text.hpp"
#include "inventory/software_stack.hpp"
#include "render/html_parts.hpp"
#include "render/svg_chart.hpp"

namespace pipecheck::html {

namespace {

std::string bytes_text(double bytes) { return bytes_label(bytes); }

template <typename T>
std::string known(const std::optional<T>& value, const std::string& suffix = "") {
  if (!value) return "unknown";
  std::ostringstream text;
  text << *value << suffix;
  return text.str();
}

std::string link_text(const PcieLink& link) {
  if (!link.current_gts && !link.current_width) return "unknown";
  auto one = [](const std::optional<double>& gts, const std::optional<int>& width) {
    return (gts ? fmt(*gts, "%g") : std::string("?")) + " GT/s x" + (width ? std::to_string(*width) : "?");
  };
  return one(link.current_gts, link.current_width) + " (max " + one(link.max_gts, link.max_width) + ")";
}

std::string gib(std::uint64_t bytes) { return bytes ? bytes_text(static_cast<double>(bytes)) : "unknown"; }

std::string count(const std::optional<int>& value) { return value ? std::to_string(*value) : "?"; }

}  // namespace

void render_inventory(std::ostringstream& out, const Inventory& inv) {
  out << "<section id=\"inventory\"><h2>Inventory</h2>\n<div class=\"grid2\"><dl class=\"facts\">"
      << "<dt>host</dt><dd>" << h(inv.hostname) << "</dd><dt>collected</dt><dd>" << h(inv.collected_utc) << "</dd>"
      << "<dt>CPU</dt><dd>" << h(inv.cpu.model) << "</dd><dt>cores</dt><dd>" << count(inv.cpu.sockets) << " socket(s), "
      << count(inv.cpu.physical_cores) << " cores, " << count(inv.cpu.logical_cpus) << " threads, "
      << count(inv.cpu.numa_nodes) << " NUMA node(s)</dd><dt>memory</dt><dd>"
      << h(inv.memory.total_bytes ? gib(*inv.memory.total_bytes) : std::string("unknown"));
  if (!inv.memory.dimms.empty()) {
    std::map<std::string, int> kinds;
    for (const auto& d : inv.memory.dimms) {
      // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on the one-expression form.
      std::string kind = gib(d.size_bytes);
      kind += ' ';
      kind += d.type;
      if (d.speed_mts) {
        kind += ' ';
        kind += std::to_string(*d.speed_mts);
        kind += " MT/s";
      }
      ++kinds[kind];
    }
    for (const auto& [kind, n] : kinds) out << ", " << n << " x " << h(kind);
  }
  out << ", " << h(inv.memory.memory_channels ? std::to_string(*inv.memory.memory_channels) + " channels"
                                              : std::string("channels not reported"))
      << "</dd></dl><dl class=\"facts\">";
  const SoftwareStack& s = inv.software;
  out << "<dt>kernel</dt><dd>" << h(s.kernel) << "</dd><dt>NVIDIA driver</dt><dd>"
      << h(s.driver_version.value_or("not found")) << "</dd><dt>CUDA</dt><dd>driver "
      << h(s.driver_cuda_version ? format_cuda_version(*s.driver_cuda_version) : "unknown") << ", built with "
      << h(s.runtime_cuda_version ? format_cuda_version(*s.runtime_cuda_version) : (s.cuda_built ? "unknown" : "none"))
      << "</dd><dt>NCCL</dt><dd>" << h(s.nccl_version ? format_nccl_version(*s.nccl_version) : "not built")
      << "</dd><dt>container</dt><dd>" << (s.in_container ? "yes: " + h(s.container_evidence) : "no") << "</dd>";
  if (auto mismatch = s.cuda_mismatch()) out << "<dt>warning</dt><dd class=\"alert\">" << h(*mismatch) << "</dd>";
  out << "</dl></div>\n";
  if (!inv.gpus.empty()) {
    out << "<h3>GPUs</h3><table><tr><th>#</th><th>name</th><th>bus id</th><th>CC</th><th>SMs</th><th>max SM clock</th>"
           "<th>memory</th><th>PCIe link</th><th>NUMA</th><th>power limit</th><th>NVLink</th></tr>\n";
    for (const auto& g : inv.gpus) {
      out << "<tr" << (g.pcie.downtrained() ? " class=\"v-fail\"" : "") << "><td>" << g.cuda_index << "</td><td>"
          << h(g.name) << "</td><td><code>" << h(g.pci_bdf) << "</code></td><td>" << g.cc_major << "." << g.cc_minor
          << "</td><td class=\"num\">" << h(known(g.sm_count)) << "</td><td class=\"num\">"
          << h(known(g.max_sm_clock_mhz, " MHz")) << "</td><td class=\"num\">"
          << h(g.memory_bytes ? bytes_text(static_cast<double>(*g.memory_bytes)) : "unknown") << "</td><td>"
          << h(link_text(g.pcie)) << (g.pcie.downtrained() ? " <span class=\"alert\">below max</span>" : "")
          << "</td><td class=\"num\">" << h(known(g.numa_node)) << "</td><td class=\"num\">"
          << h(known(g.power_limit_w, " W")) << "</td><td>" << g.nvlink.active_links << " of "
          << g.nvlink.total_links_probed << (g.nvlink.version ? ", v" + std::to_string(*g.nvlink.version) : "")
          << "</td></tr>\n";
    }
    out << "</table>\n";
  }
  out << "<h3>Disks</h3><table><tr><th>name</th><th>model</th><th>kind</th><th>size</th><th>transport</th>"
         "<th>link</th><th>NUMA</th></tr>\n";
  for (const auto& d : inv.disks) {
    std::string link = d.sata_gbps ? fmt(*d.sata_gbps, "%g") + " Gb/s SATA" : link_text(d.pcie);
    out << "<tr><td><code>" << h(d.name) << "</code></td><td>" << h(d.model) << "</td><td>" << h(to_string(d.kind))
        << "</td><td class=\"num\">" << h(d.size_bytes ? gib(*d.size_bytes) : "unknown") << "</td><td>" << h(d.transport) << "</td><td>"
        << h(link) << "</td><td class=\"num\">" << h(known(d.numa_node)) << "</td></tr>\n";
  }
  out << "</table>\n";
  if (!inv.notes.empty()) {
    out << "<h3>Notes</h3><ul>";
    for (const auto& note : inv.notes) out << "<li class=\"small\">" << h(note) << "</li>";
    out << "</ul>\n";
  }
  out << "</section>\n";
}

}  // namespace pipecheck::html
