// PCIe link parsing and reading from sysfs.
#include "inventory/pcie_link.hpp"

#include <algorithm>
#include <cmath>
#include <regex>

namespace pipecheck {

bool PcieLink::downtrained() const {
  const bool slower = current_gts && max_gts && *current_gts + 1e-6 < *max_gts;
  const bool narrower = current_width && max_width && *current_width < *max_width;
  return slower || narrower;
}

std::optional<double> parse_link_speed_gts(const std::string& text) {
  static const std::regex number(R"(^\s*([0-9]+(\.[0-9]+)?)\s*GT/s)");
  std::smatch match;
  if (!std::regex_search(text, match, number)) return std::nullopt;
  return std::stod(match[1].str());
}

std::optional<int> pcie_generation(double gts) {
  static const double speeds[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int i = 0; i < 6; ++i) {
    if (std::fabs(gts - speeds[i]) < 0.01) return i + 1;
  }
  return std::nullopt;
}

std::optional<double> pcie_gts_of_generation(int generation) {
  static const double speeds[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  if (generation < 1 || generation > 6) return std::nullopt;
  return speeds[generation - 1];
}

namespace {

std::optional<int> read_width(const SysfsRoot& sys, const std::string& file) {
  auto value = sys.read_int(file);
  // Width 0 or 255 means "unknown" on some bridges.
  if (!value || *value <= 0 || *value > 32) return std::nullopt;
  return static_cast<int>(*value);
}

PcieLink read_link_at(const SysfsRoot& sys, const std::string& device_dir) {
  PcieLink link;
  if (auto text = sys.read_line(device_dir + "/current_link_speed")) {
    link.current_gts = parse_link_speed_gts(*text);
  }
  if (auto text = sys.read_line(device_dir + "/max_link_speed")) {
    link.max_gts = parse_link_speed_gts(*text);
  }
  link.current_width = read_width(sys, device_dir + "/current_link_width");
  link.max_width = read_width(sys, device_dir + "/max_link_width");
  return link;
}

template <typename T>
void keep_min(std::optional<T>& into, const std::optional<T>& other) {
  if (other && (!into || *other < *into)) into = other;
}

bool looks_like_bdf(const std::string& name) {
  // Domains of 4 digits, or up to 8 below a host bridge that opens a 32-bit domain (Intel VMD).
  static const std::regex bdf(R"(^[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$)");
  return std::regex_match(name, bdf);
}

}  // namespace

PcieLink read_pcie_link(const SysfsRoot& sys, const std::string& bdf) {
  return read_link_at(sys, "/sys/bus/pci/devices/" + bdf);
}

PcieLink read_pcie_path_link(const SysfsRoot& sys, const std::string& bdf) {
  PcieLink path = read_pcie_link(sys, bdf);
  auto real = sys.resolve("/sys/bus/pci/devices/" + bdf);
  if (!real) return path;
  // Walk up /sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/... one bridge at a time.
  std::string dir = *real;
  while (true) {
    const auto slash = dir.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    dir = dir.substr(0, slash);
    const std::string name = dir.substr(dir.rfind('/') + 1);
    if (!looks_like_bdf(name)) break;
    const PcieLink hop = read_link_at(sys, dir);
    keep_min(path.current_gts, hop.current_gts);
    keep_min(path.current_width, hop.current_width);
  }
  return path;
}

}  // namespace pipecheck
