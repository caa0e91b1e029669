// Without a CUDA toolkit: the GPU burn says how to get it (the seam of gpu_burn.cu).
#include "core/errors.hpp"
#include "stress/gpu_burn.hpp"

namespace pipecheck {

namespace {

class NotBuiltWorker final : public BurnWorker {
 public:
  void run(WorkerContext&) override {
    throw RunError("GPU burn not built: no CUDA toolkit (install CUDA and reconfigure with "
                   "-DPIPECHECK_WITH_CUDA=ON)");
  }
};

}  // namespace

bool gpu_burn_built() { return false; }

std::unique_ptr<BurnWorker> make_gpu_burn_worker(const GpuBurnConfig&) {
  return std::make_unique<NotBuiltWorker>();
}

}  // namespace pipecheck
