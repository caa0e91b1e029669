// Launcher detection and the rank-to-GPU rule.
#include "comm/comm_launch.hpp"

#include <cerrno>
#include <cstdlib>

#include "core/errors.hpp"

namespace pipecheck {

namespace {

// A non-negative number from the environment, or -1.
int env_number(const GetEnv& getenv, const char* name) {
  const char* text = getenv(name);
  if (text == nullptr || *text == '\0') return -1;
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || errno == ERANGE || value < 0 || value > 1 << 24) return -1;
  return static_cast<int>(value);
}

struct LauncherVars {
  const char* launcher;
  const char* size;
  const char* rank;
};

}  // namespace

LaunchInfo detect_launch(const GetEnv& getenv) {
  static const LauncherVars launchers[] = {
      {"Open MPI", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
      {"PMI", "PMI_SIZE", "PMI_RANK"},
      {"MVAPICH", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK"},
      // srun sets SLURM_STEP_NUM_TASKS for its tasks only, not for the batch script itself.
      {"Slurm", "SLURM_STEP_NUM_TASKS", "SLURM_PROCID"},
  };
  for (const auto& vars : launchers) {
    const int size = env_number(getenv, vars.size);
    const int rank = env_number(getenv, vars.rank);
    if (size >= 1 && rank >= 0 && rank < size) return {size, rank, vars.launcher};
  }
  return {};
}

int device_for_rank(int local_rank, int local_size, int device_count) {
  if (device_count == 1) return 0;
  if (local_size <= device_count) return local_rank;
  throw RunError(std::to_string(local_size) + " ranks on this host but " + std::to_string(device_count) +
                 " GPUs: start one rank per GPU");
}

std::vector<std::string> rank_arguments(const std::vector<std::string>& args, int rank) {
  if (rank == 0) return args;
  std::vector<std::string> kept;
  // Google Benchmark takes only --benchmark_out=FILE (and _format=...): one argument each.
  for (const std::string& arg : args) {
    if (arg.rfind("--benchmark_out", 0) != 0) kept.push_back(arg);
  }
  return kept;
}

}  // namespace pipecheck
