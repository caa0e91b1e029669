// Which environment variables belong to a job launcher, and an environment without them.
#include "core/launcher_env.hpp"

#include <array>

extern char** environ;

namespace pipecheck {

namespace {

// Prefixes first, then whole names. Sources: Slurm's srun(1) "OUTPUT ENVIRONMENT VARIABLES",
// Open MPI's mpirun(1) (OMPI_COMM_WORLD_*, OMPI_MCA_*, PMIX_*), MPICH's Hydra (PMI_*,
// MPI_LOCALRANKID), MVAPICH2 (MV2_COMM_WORLD_*), HPE Cray PALS (PALS_*).
constexpr std::array<std::string_view, 12> launcher_prefixes{
    "SLURM_", "SLURMD_", "PMI_", "PMIX_", "OMPI_", "ORTE_", "OPAL_", "PRTE_", "HYDRA_", "MPIR_",
    "MV2_COMM_WORLD_", "PALS_"};
constexpr std::array<std::string_view, 2> launcher_names{"MPI_LOCALRANKID", "MPI_LOCALNRANKS"};

}  // namespace

bool is_launcher_variable(std::string_view name) {
  for (const auto prefix : launcher_prefixes) {
    if (name.substr(0, prefix.size()) == prefix) return true;
  }
  for (const auto whole : launcher_names) {
    if (name == whole) return true;
  }
  return false;
}

std::vector<std::string> without_launcher_variables(const std::vector<std::string>& environment,
                                                    std::vector<std::string>* removed) {
  std::vector<std::string> kept;
  kept.reserve(environment.size());
  for (const auto& entry : environment) {
    const std::string_view name = std::string_view(entry).substr(0, entry.find('='));
    if (is_launcher_variable(name)) {
      if (removed) removed->emplace_back(name);
      continue;
    }
    kept.push_back(entry);
  }
  return kept;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> entries;
  for (char** entry = environ; entry && *entry; ++entry) entries.emplace_back(*entry);
  return entries;
}

}  // namespace pipecheck
