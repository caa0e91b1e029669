// How pipecheck-comm was started: alone (one process drives every local GPU) or as one rank of
// an MPI job (mpirun, srun), read from the launcher's environment before MPI is touched, and
// which GPU a rank takes.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pipecheck {

struct LaunchInfo {
  int world_size = 1;
  int world_rank = 0;
  std::string launcher;  // "Open MPI", "PMI", "MVAPICH", "Slurm"; "" when started alone
};

using GetEnv = std::function<const char*(const char*)>;

// From OMPI_COMM_WORLD_SIZE/RANK (Open MPI), PMI_SIZE/RANK (MPICH, Intel MPI),
// MV2_COMM_WORLD_SIZE/RANK (MVAPICH), SLURM_STEP_NUM_TASKS/SLURM_PROCID (srun); the first that
// is set with sane numbers wins. Without any: a single process.
LaunchInfo detect_launch(const GetEnv& getenv);

// The CUDA device of a rank that is `local_rank` of `local_size` ranks on its host: its own GPU
// when the host shows each rank one GPU (CUDA_VISIBLE_DEVICES per task), else GPU local_rank.
// Throws RunError when the host has fewer GPUs than ranks.
int device_for_rank(int local_rank, int local_size, int device_count);

// Ranks other than 0 drop --benchmark_out=FILE and --benchmark_out_format=... (rank 0 alone writes the
// result); every other argument is kept.
std::vector<std::string> rank_arguments(const std::vector<std::string>& args, int rank);

}  // namespace pipecheck
