// NCCL's interface-list syntax (NCCL_IB_HCA, NCCL_SOCKET_IFNAME) and reading it back from the
// nccl_env text a pipecheck-comm result carries.
#include "ceilings/nccl_port_selection.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(NcclPortSelection, PrefixByDefaultExactWithEquals) {
  EXPECT_TRUE(nccl_list_selects("", "mlx5_3", 1));  // unset: everything
  EXPECT_TRUE(nccl_list_selects("mlx5", "mlx5_3", 1));
  EXPECT_TRUE(nccl_list_selects("mlx5_1", "mlx5_10", 1));  // a prefix, as NCCL matches it
  EXPECT_FALSE(nccl_list_selects("=mlx5_1", "mlx5_10", 1));
  EXPECT_TRUE(nccl_list_selects("=mlx5_0,mlx5_1", "mlx5_1", 1));  // '=' makes every item exact
  EXPECT_FALSE(nccl_list_selects("ib", "mlx5_0", 1));
}

TEST(NcclPortSelection, PortsAndExclusion) {
  EXPECT_TRUE(nccl_list_selects("mlx5_0:1", "mlx5_0", 1));
  EXPECT_FALSE(nccl_list_selects("mlx5_0:2", "mlx5_0", 1));
  EXPECT_FALSE(nccl_list_selects("mlx5_0:2", "eth0", -1));
  EXPECT_TRUE(nccl_list_selects("eth", "eth0", -1));
  EXPECT_FALSE(nccl_list_selects("^=mlx5_3", "mlx5_3", 1));
  EXPECT_TRUE(nccl_list_selects("^=mlx5_3", "mlx5_4", 1));
  EXPECT_FALSE(nccl_list_selects("^docker,lo", "docker0", -1));
  EXPECT_TRUE(nccl_list_selects("^docker,lo", "ens3", -1));
}

TEST(NcclPortSelection, ReadFromTheRecordedEnvironment) {
  const NcclPortSelection selection =
      nccl_port_selection("NCCL_ALGO=Ring NCCL_IB_DISABLE=1 NCCL_IB_HCA=mlx5_0:1,mlx5_1:1 NCCL_SOCKET_IFNAME=^lo");
  EXPECT_EQ(selection.ib_hca, "mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(selection.socket_ifname, "^lo");
  EXPECT_TRUE(selection.ib_disabled);
  EXPECT_TRUE(selection.any());
  EXPECT_FALSE(nccl_port_selection("none").any());
  EXPECT_FALSE(nccl_port_selection("").any());
  EXPECT_FALSE(nccl_port_selection("NCCL_IB_DISABLE=0").any());
}

}  // namespace
}  // namespace pipecheck
