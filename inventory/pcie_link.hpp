// PCIe link facts: parsing sysfs link strings and reading a function's link (walking up the
// path to the root port, since the narrowest hop bounds the transfer).
#pragma once

#include <optional>
#include <string>

#include "core/inventory.hpp"
#include "core/sysfs.hpp"

namespace pipecheck {

// "16.0 GT/s PCIe" -> 16.0; "8 GT/s" -> 8.0; "2.5 GT/s" -> 2.5; "Unknown" -> nullopt.
std::optional<double> parse_link_speed_gts(const std::string& text);
// 2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6; nullopt for anything else.
std::optional<int> pcie_generation(double gts);
// GT/s per lane of a generation (1..6), nullopt otherwise.
std::optional<double> pcie_gts_of_generation(int generation);

// The link of one PCI function as its own sysfs files report it.
PcieLink read_pcie_link(const SysfsRoot& sys, const std::string& bdf);
// The narrowest link on the path from the function up to its root port (min over each hop
// of current speed and width; max taken from the function itself).
PcieLink read_pcie_path_link(const SysfsRoot& sys, const std::string& bdf);

}  // namespace pipecheck
