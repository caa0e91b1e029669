// The variables a job launcher (srun, mpirun, mpiexec) puts into each task's environment. A
// probe that inherits them believes it is one rank of the launcher's job: under
// `srun -N 8 pipecheck run` every host's NCCL probe would wait for seven peers that never come.
// `pipecheck run` therefore starts its probes without them; a multi-node NCCL run is started
// on purpose, by launching pipecheck-comm itself under srun or mpirun.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pipecheck {

// True for a launcher's variable: SLURM_* and SLURMD_* (Slurm), PMI_* and PMIX_* (the process
// management interfaces), OMPI_*, ORTE_*, OPAL_*, PRTE_* (Open MPI and its runtime), HYDRA_*,
// MPIR_*, MPI_LOCALRANKID/MPI_LOCALNRANKS (MPICH's Hydra), MV2_COMM_WORLD_* (MVAPICH),
// PALS_* (HPE PALS). CUDA_VISIBLE_DEVICES stays: it is the GPUs the allocation granted.
bool is_launcher_variable(std::string_view name);

// `environment` ("NAME=value" entries, as environ holds them) without the launcher's variables.
// `removed` (when given) receives the names taken out, in order.
std::vector<std::string> without_launcher_variables(const std::vector<std::string>& environment,
                                                    std::vector<std::string>* removed = nullptr);

// This process's environment (environ) as entries.
std::vector<std::string> current_environment();

}  // namespace pipecheck
