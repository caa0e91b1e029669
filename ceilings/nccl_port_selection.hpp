// Which of a node's network ports NCCL would use, from the NCCL_* variables a run was made with:
// NCCL_IB_DISABLE=1 leaves the RDMA ports out, NCCL_IB_HCA picks among them and
// NCCL_SOCKET_IFNAME among the Ethernet ones. The network ceiling of a collective counts only
// these, so a node with an InfiniBand fabric and a RoCE storage port is not credited with both
// when NCCL was told to use one.
#pragma once

#include <string>

namespace pipecheck {

struct NcclPortSelection {
  std::string ib_hca;          // NCCL_IB_HCA; "" selects every RDMA port
  std::string socket_ifname;   // NCCL_SOCKET_IFNAME; "" selects every Ethernet port
  bool ib_disabled = false;    // NCCL_IB_DISABLE=1: no RDMA port at all
  bool any() const { return !ib_hca.empty() || !socket_ifname.empty() || ib_disabled; }
};

// From a measurement's nccl_env text ("NCCL_ALGO=Ring NCCL_IB_HCA=mlx5_0,mlx5_1", or "none").
NcclPortSelection nccl_port_selection(const std::string& nccl_env_text);

// Whether NCCL's list syntax selects the port: comma-separated "name[:port]" items matched as
// name prefixes, all of them exact with a leading '=', the list inverted with a leading '^'
// ("^=mlx5_3" uses everything but mlx5_3). `port` < 0: the item's port is not compared (an
// Ethernet interface has none). An empty list selects everything.
bool nccl_list_selects(const std::string& list, const std::string& device, int port);

}  // namespace pipecheck
