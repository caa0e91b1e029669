// Which variables are a launcher's: srun's, mpirun's, Hydra's, PMIx's; and what stays.
#include "core/launcher_env.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(LauncherEnv, NamesEachLaunchersVariables) {
  for (const char* name : {"SLURM_JOB_ID", "SLURM_PROCID", "SLURM_NTASKS", "SLURMD_NODENAME", "OMPI_COMM_WORLD_RANK",
                           "OMPI_MCA_btl", "ORTE_HNP_URI", "OPAL_PREFIX", "PRTE_LAUNCHED", "PMI_RANK", "PMI_FD",
                           "PMIX_RANK", "PMIX_NAMESPACE", "HYDRA_CONTROL_FD", "MPIR_CVAR_X", "MPI_LOCALRANKID",
                           "MPI_LOCALNRANKS", "MV2_COMM_WORLD_RANK", "PALS_RANKID"}) {
    EXPECT_TRUE(is_launcher_variable(name)) << name;
  }
  for (const char* name : {"PATH", "HOME", "CUDA_VISIBLE_DEVICES", "NCCL_DEBUG", "LD_LIBRARY_PATH", "SLURM",
                           "MY_SLURM_JOB", "OMPI", "PMI", "MPI_HOME", "NVIDIA_VISIBLE_DEVICES"}) {
    EXPECT_FALSE(is_launcher_variable(name)) << name;
  }
}

TEST(LauncherEnv, RemovesOnlyThemAndSaysWhich) {
  std::vector<std::string> removed;
  const auto kept = without_launcher_variables(
      {"PATH=/usr/bin", "SLURM_JOB_ID=7", "CUDA_VISIBLE_DEVICES=0,1", "OMPI_COMM_WORLD_SIZE=4", "X=SLURM_JOB_ID=1",
       "NOVALUE"},
      &removed);
  EXPECT_EQ(kept, (std::vector<std::string>{"PATH=/usr/bin", "CUDA_VISIBLE_DEVICES=0,1", "X=SLURM_JOB_ID=1", "NOVALUE"}));
  EXPECT_EQ(removed, (std::vector<std::string>{"SLURM_JOB_ID", "OMPI_COMM_WORLD_SIZE"}));
}

TEST(LauncherEnv, CurrentEnvironmentIsOurs) {
  setenv("PIPECHECK_LAUNCHER_ENV_TEST", "1", 1);
  const auto entries = current_environment();
  unsetenv("PIPECHECK_LAUNCHER_ENV_TEST");
  EXPECT_NE(std::find(entries.begin(), entries.end(), "PIPECHECK_LAUNCHER_ENV_TEST=1"), entries.end());
}

}  // namespace
}  // namespace pipecheck
