// NCCL_* environment capture: what distinguishes two runs, in a form a result label can carry.
#include "comm/comm_env.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(CommEnv, OnlyNcclVariablesSortedByName) {
  std::string entries[] = {"PATH=/usr/bin", "NCCL_PROTO=Simple", "NCCL_ALGO=Ring", "XNCCL_A=1", "NCCL_BROKEN",
                           "NCCL_IB_HCA=mlx5_0:1,mlx5_1:1"};
  std::vector<char*> envp;
  for (auto& entry : entries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const EnvEntries nccl = nccl_environment(envp.data());
  ASSERT_EQ(nccl.size(), 3u);
  EXPECT_EQ(nccl[0], (std::pair<std::string, std::string>{"NCCL_ALGO", "Ring"}));
  EXPECT_EQ(nccl[1].first, "NCCL_IB_HCA");
  EXPECT_EQ(nccl[1].second, "mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(nccl[2].first, "NCCL_PROTO");
  EXPECT_TRUE(nccl_environment(nullptr).empty());
}

TEST(CommEnv, TextIsLabelSafe) {
  EXPECT_EQ(nccl_env_text({}), "none");
  EXPECT_EQ(nccl_env_text({{"NCCL_ALGO", "Ring"}, {"NCCL_X", "a;b c"}}), "NCCL_ALGO=Ring NCCL_X=a,b_c");
  EXPECT_EQ(nccl_env_text({{"NCCL_DEBUG", ""}}), "NCCL_DEBUG=");
}

}  // namespace
}  // namespace pipecheck
