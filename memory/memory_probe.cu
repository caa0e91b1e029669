// pipecheck-memory: device memory bandwidth per GPU: read (reduce), write (fill), copy and triad
// kernels with 16-byte accesses, and cudaMemcpy device-to-device, on arrays >= 4x L2, >= 1 GiB.
#include <benchmark/benchmark.h>

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "core/cuda_check.hpp"
#include "inventory/cuda_devices.hpp"
#include "core/errors.hpp"
#include "core/case_messages.hpp"
#include "core/probe_main.hpp"
#include "core/stage_names.hpp"
#include "memory/hbm_kernels.hpp"
#include "memory/hbm_model.hpp"
#include "pcie/pcie_plan.hpp"

namespace pipecheck {
namespace {

// The arrays of the GPU being measured, kept across its ops and repetitions so that no
// allocation lands between repetitions; replaced when the next GPU's cases begin.
struct ArraysSlot {
  int gpu = -1;
  std::unique_ptr<HbmArrays> arrays;
};
ArraysSlot& arrays_slot() {
  static ArraysSlot slot;
  return slot;
}

HbmArrays& arrays_for(const GpuTarget& gpu, std::uint64_t array_bytes) {
  ArraysSlot& slot = arrays_slot();
  if (slot.gpu != gpu.index || !slot.arrays || slot.arrays->array_bytes() > array_bytes) {
    slot.arrays.reset();  // free the previous GPU's arrays before taking this one's
    slot.arrays = std::make_unique<HbmArrays>(gpu, array_bytes);
    slot.gpu = gpu.index;
  }
  return *slot.arrays;
}

void run_op(benchmark::State& state, const GpuTarget& gpu, HbmOp op, std::uint64_t array_bytes) {
  const HbmOpInfo& info = hbm_op_info(op);
  std::string verified = "no";
  try {
    HbmArrays& arrays = arrays_for(gpu, array_bytes);
    arrays.reset();
    // Warm-up, discarded: clocks up, first-launch (module load) costs paid. Then two passes
    // size the samples: each is enough back-to-back passes (>= 2 ms) that a launch gap does not
    // count.
    std::uint64_t pass = 0;
    arrays.time_ms(op, 3, pass);
    pass += 3;
    const float sizing_ms = arrays.time_ms(op, 2, pass);
    pass += 2;
    const int passes = hbm_passes_per_sample(static_cast<double>(sizing_ms) / 2);
    for (auto _ : state) {
      const float ms = arrays.time_ms(op, passes, pass);
      pass += static_cast<std::uint64_t>(passes);
      state.SetIterationTime(static_cast<double>(ms) / 1e3 / passes);  // one pass's time
    }
    const std::string problem = arrays.verify(op, pass - 1);
    verified = problem.empty() ? "yes" : "no";
    const double bytes = static_cast<double>(hbm_bytes_moved(op, arrays.elements()));
    state.counters["bytes_per_second"] =
        benchmark::Counter(bytes * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    auto params = gpu_label_params(gpu);
    params["what"] = std::string("HBM ") + info.name + ", GPU " + std::to_string(gpu.index);
    params["op"] = info.name;
    params["bytes_per_element"] = std::to_string(info.arrays_moved * kHbmElementBytes);
    params["array_bytes"] = std::to_string(arrays.array_bytes());
    params["verified"] = verified;
    params["passes_per_sample"] = std::to_string(passes);
    if (op != HbmOp::d2d_memcpy) {
      params["grid"] = std::to_string(arrays.grid_blocks(op)) + "x" +
                       std::to_string(arrays.threads_per_block());
    }
    state.SetLabel(encode_label(params));
    if (!problem.empty()) state.SkipWithError(wrong_result_message(problem).c_str());
  } catch (const std::exception& error) {
    // A CUDA failure ends this case only: the driver records it, the other cases run.
    state.SkipWithError(error.what());
  }
}

std::string register_cases(const ProbeOptions& options) {
  std::string skip_reason;
  const std::vector<GpuTarget> gpus = select_gpus(query_cuda_devices(), options, skip_reason);
  if (gpus.empty()) return skip_reason;
  benchmark::AddCustomContext("pipecheck_gpus", gpu_context_text(gpus));
  for (const GpuTarget& gpu : gpus) {
    const std::uint64_t bytes = hbm_array_bytes(options.mode, gpu.l2_bytes, gpu.memory_bytes);
    for (const HbmOpInfo& info : hbm_ops()) {
      const HbmOp op = info.op;
      benchmark::RegisterBenchmark(
          (std::string("hbm/") + info.name + "/gpu" + std::to_string(gpu.index)).c_str(),
          [gpu, op, bytes](benchmark::State& state) { run_op(state, gpu, op, bytes); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  return "";
}

}  // namespace
}  // namespace pipecheck

int main(int argc, char** argv) {
  return pipecheck::run_probe_main(argc, argv, pipecheck::stage_name::memory, "pipecheck-memory", pipecheck::register_cases,
                                   {pipecheck::gpus_flag()});
}
