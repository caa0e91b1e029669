// cuBLASLt matmul for one GPU, dtype and shape: inputs in several rotating sets, the best of
// the heuristic's algorithms (each one timed), timed batches, and a sample for the host check.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "compute/gemm_check.hpp"
#include "compute/gemm_shapes.hpp"
#include "pcie/pcie_plan.hpp"

namespace pipecheck {

struct GemmAlgorithm {
  std::string text;               // "id 66 tile 20 stages 12 splitk 1 (heuristic 2 of 8)"
  double seconds_per_call = 0;    // its time when chosen
  int candidates = 0;             // how many the heuristic offered
};

class GemmRunner {
 public:
  // Allocates `sets` A/B sets, D and the workspace, fills the inputs with random values (never
  // zeros: they run faster than real data). Throws CudaError (a failed allocation among them).
  GemmRunner(const GpuTarget& gpu, GemmDtype dtype, GemmShape shape, int sets);
  ~GemmRunner();
  GemmRunner(const GemmRunner&) = delete;
  GemmRunner& operator=(const GemmRunner&) = delete;

  // Asks the heuristic for up to `requested` algorithms, times each over `trials` calls after
  // one warm-up call, and keeps the fastest. Throws when none runs.
  const GemmAlgorithm& select_algorithm(int requested, int trials);
  const GemmAlgorithm& algorithm() const { return algorithm_; }
  // Milliseconds of `calls` matmuls (rotating input sets) between two events.
  float time_calls_ms(int calls);
  // Poisons D, runs one matmul on set 0 with the chosen algorithm, copies back the sampled
  // rows of A, columns of B and elements of D.
  GemmSample sample(int rows, int cols);

 private:
  struct State;
  std::unique_ptr<State> state_;
  GemmAlgorithm algorithm_;
};

}  // namespace pipecheck
