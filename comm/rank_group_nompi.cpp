// Without MPI at build time: a single process, and a clear refusal when a launcher started
// several ranks (each would otherwise drive every GPU alone).
#include "comm/rank_group.hpp"
#include "core/errors.hpp"

namespace pipecheck {

std::unique_ptr<RankGroup> open_rank_group(int*, char***, const LaunchInfo& launch) {
  if (launch.world_size > 1) {
    throw RunError("started as " + std::to_string(launch.world_size) + " ranks by " + launch.launcher +
                   ", but pipecheck-comm was built without MPI: install an MPI (Debian: apt-get install "
                   "libopenmpi-dev openmpi-bin) and reconfigure with -DPIPECHECK_WITH_MPI=ON");
  }
  return solo_rank_group();
}

}  // namespace pipecheck
