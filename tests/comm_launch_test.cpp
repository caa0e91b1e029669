// How pipecheck-comm was launched (the launchers' environments), which GPU a rank takes, and
// what the other ranks keep of the command line.
#include "comm/comm_launch.hpp"

#include <gtest/gtest.h>

#include <map>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

GetEnv env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(CommLaunch, AloneWithoutLauncherVariables) {
  const LaunchInfo launch = detect_launch(env_of({{"PATH", "/usr/bin"}}));
  EXPECT_EQ(launch.world_size, 1);
  EXPECT_EQ(launch.world_rank, 0);
  EXPECT_EQ(launch.launcher, "");
}

TEST(CommLaunch, EachLauncherFromItsVariables) {
  LaunchInfo ompi = detect_launch(env_of({{"OMPI_COMM_WORLD_SIZE", "16"}, {"OMPI_COMM_WORLD_RANK", "3"}}));
  EXPECT_EQ(ompi.world_size, 16);
  EXPECT_EQ(ompi.world_rank, 3);
  EXPECT_EQ(ompi.launcher, "Open MPI");
  EXPECT_EQ(detect_launch(env_of({{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}})).launcher, "PMI");
  EXPECT_EQ(detect_launch(env_of({{"MV2_COMM_WORLD_SIZE", "2"}, {"MV2_COMM_WORLD_RANK", "0"}})).launcher, "MVAPICH");
  const LaunchInfo srun = detect_launch(env_of({{"SLURM_STEP_NUM_TASKS", "8"}, {"SLURM_PROCID", "7"}}));
  EXPECT_EQ(srun.world_size, 8);
  EXPECT_EQ(srun.launcher, "Slurm");
}

TEST(CommLaunch, BatchScriptAndBrokenNumbersAreNotALaunch) {
  // sbatch's own script: SLURM_NTASKS without a step.
  EXPECT_EQ(detect_launch(env_of({{"SLURM_NTASKS", "8"}, {"SLURM_PROCID", "0"}})).world_size, 1);
  EXPECT_EQ(detect_launch(env_of({{"OMPI_COMM_WORLD_SIZE", "2x"}, {"OMPI_COMM_WORLD_RANK", "0"}})).world_size, 1);
  EXPECT_EQ(detect_launch(env_of({{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "2"}})).world_size, 1);
  // A broken Open MPI entry does not hide a good Slurm one.
  EXPECT_EQ(detect_launch(env_of({{"OMPI_COMM_WORLD_SIZE", ""}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_PROCID", "1"}}))
                .launcher,
            "Slurm");
}

TEST(CommLaunch, OneGpuPerRank) {
  EXPECT_EQ(device_for_rank(3, 8, 8), 3);
  EXPECT_EQ(device_for_rank(3, 8, 1), 0);  // each rank sees only its own GPU
  EXPECT_EQ(device_for_rank(1, 2, 8), 1);
  try {
    device_for_rank(2, 4, 2);
    ADD_FAILURE() << "4 ranks on 2 GPUs accepted";
  } catch (const RunError& error) {
    EXPECT_EQ(std::string(error.what()), "4 ranks on this host but 2 GPUs: start one rank per GPU");
  }
}

TEST(CommLaunch, OnlyRankZeroWritesTheOutputFile) {
  const std::vector<std::string> args = {"--benchmark_out=/tmp/r.json", "--benchmark_out_format=json",
                                         "--benchmark_format=json", "--minbytes", "8"};
  EXPECT_EQ(rank_arguments(args, 0), args);
  EXPECT_EQ(rank_arguments(args, 1), (std::vector<std::string>{"--benchmark_format=json", "--minbytes", "8"}));
}

}  // namespace
}  // namespace pipecheck
