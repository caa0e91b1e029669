// NCCL's interface-list syntax, as its docs give it for NCCL_IB_HCA and NCCL_SOCKET_IFNAME.
#include "ceilings/nccl_port_selection.hpp"

#include <cstdlib>
#include <sstream>

namespace pipecheck {

namespace {

// "mlx5_0:1" -> ("mlx5_0", 1); "mlx5_0" -> ("mlx5_0", -1): any port.
std::pair<std::string, int> split_port(const std::string& item) {
  const auto colon = item.rfind(':');
  if (colon == std::string::npos) return {item, -1};
  return {item.substr(0, colon), std::atoi(item.c_str() + colon + 1)};
}

bool item_matches(const std::string& item, bool exact, const std::string& device, int port) {
  const auto [name, item_port] = split_port(item);
  const bool name_ok = exact ? device == name : device.rfind(name, 0) == 0;
  return name_ok && (item_port < 0 || port < 0 || item_port == port);
}

}  // namespace

bool nccl_list_selects(const std::string& list, const std::string& device, int port) {
  std::string rest = list;
  const bool invert = !rest.empty() && rest[0] == '^';
  if (invert) rest.erase(0, 1);
  const bool exact = !rest.empty() && rest[0] == '=';
  if (exact) rest.erase(0, 1);
  if (rest.empty()) return true;
  bool matched = false;
  std::istringstream items(rest);
  for (std::string item; std::getline(items, item, ',');) {
    if (!item.empty() && item_matches(item, exact, device, port)) matched = true;
  }
  return matched != invert;
}

NcclPortSelection nccl_port_selection(const std::string& nccl_env_text) {
  NcclPortSelection selection;
  std::istringstream entries(nccl_env_text);
  for (std::string entry; entries >> entry;) {
    const auto equals = entry.find('=');
    if (equals == std::string::npos) continue;
    const std::string name = entry.substr(0, equals);
    const std::string value = entry.substr(equals + 1);
    if (name == "NCCL_IB_HCA") selection.ib_hca = value;
    if (name == "NCCL_SOCKET_IFNAME") selection.socket_ifname = value;
    if (name == "NCCL_IB_DISABLE") selection.ib_disabled = std::atoi(value.c_str()) != 0;
  }
  return selection;
}

}  // namespace pipecheck
