// Without NCCL at build time: the probe skips with this reason (the seam of comm_runner_nccl.cpp).
#include "comm/comm_runner.hpp"
#include "core/errors.hpp"
#include "pipecheck_config.hpp"

namespace pipecheck {

std::string comm_not_built_reason() {
  return PIPECHECK_HAVE_CUDA
             ? "built without NCCL: no nccl.h/libnccl at configure time (install libnccl-dev, or set "
               "NCCL_HOME, and reconfigure)"
             : "built without NCCL: no CUDA toolkit at configure time";
}

struct CommRunner::State {};

CommRunner::CommRunner(const std::vector<LocalGpu>&, int, std::uint64_t, int, RankGroup&) {
  throw RunError(comm_not_built_reason());
}
CommRunner::~CommRunner() = default;
void CommRunner::warm_up(const CommCase&, int) {}
double CommRunner::time_iterations(const CommCase&, int) { return 0; }
CommRunner::LocalCheck CommRunner::check(const CommCase&) { return {}; }

}  // namespace pipecheck
