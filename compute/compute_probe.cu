// pipecheck-compute: the matrix rate each GPU achieves per dtype through cuBLASLt (FP64 ... INT8),
// best algorithm of the heuristic's list, over a sweep of large shapes or the user's --shape.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>

#include "inventory/cuda_devices.hpp"
#include "core/errors.hpp"
#include "core/case_messages.hpp"
#include "core/probe_main.hpp"
#include "core/stage_names.hpp"
#include "core/text_escape.hpp"
#include "compute/gemm_check.hpp"
#include "compute/gemm_runner.hpp"
#include "compute/gemm_shapes.hpp"
#include "pcie/pcie_plan.hpp"

namespace pipecheck {
namespace {

// One timed iteration lasts about this long: many calls for small shapes, one for huge ones.
constexpr double kIterationSeconds = 0.02;
// The warm-up before each repetition: clocks settle, then the timed calls begin.
constexpr double kWarmupSeconds = 0.1;
constexpr int kSampleRows = 16;
constexpr int kSampleCols = 16;

struct GemmCase {
  GpuTarget gpu;
  GemmDtype dtype;
  GemmShape shape;
  int sets = 1;
  int algorithms = 8;  // how many the heuristic is asked for
};

// The runner of the case being measured, kept across its repetitions (allocation and algorithm
// choice stay out of the timed region), replaced when the next case begins.
struct RunnerSlot {
  std::string key;
  std::unique_ptr<GemmRunner> runner;
};
RunnerSlot& runner_slot() {
  static RunnerSlot slot;
  return slot;
}

std::string case_name(const GemmCase& c) {
  return std::string("gemm/") + dtype_name(c.dtype) + "/" + shape_text(c.shape) + "/gpu" +
         std::to_string(c.gpu.index);
}

RunnerSlot& prepare(const GemmCase& c) {
  RunnerSlot& slot = runner_slot();
  const std::string key = case_name(c);
  if (slot.key == key && slot.runner) return slot;
  slot.runner.reset();  // free the previous case's memory first
  slot.key.clear();
  slot.runner = std::make_unique<GemmRunner>(c.gpu, c.dtype, c.shape, c.sets);
  slot.runner->select_algorithm(c.algorithms, 3);
  slot.key = key;
  return slot;
}

void run_gemm(benchmark::State& state, const GemmCase& c) {
  try {
    RunnerSlot& slot = prepare(c);
    GemmRunner& runner = *slot.runner;
    const double per_call = runner.algorithm().seconds_per_call;
    const int calls = calls_per_iteration(per_call, kIterationSeconds);
    runner.time_calls_ms(calls_per_iteration(per_call, kWarmupSeconds));  // discarded
    for (auto _ : state) {
      const float ms = runner.time_calls_ms(calls);
      state.SetIterationTime(static_cast<double>(ms) / 1e3);
    }
    // Checked after every repetition's timed calls, with the algorithm that was timed: a GPU
    // that computes wrong once hot is caught too.
    const GemmCheckResult check = check_gemm_sample(runner.sample(kSampleRows, kSampleCols));
    const double work = gemm_flops(c.shape) * calls * static_cast<double>(state.iterations());
    state.counters[rate_counter_name(c.dtype)] = benchmark::Counter(work, benchmark::Counter::kIsRate);
    state.counters["calls_per_iteration"] = calls;
    auto params = gpu_label_params(c.gpu);
    params["what"] = std::string("GEMM ") + dtype_name(c.dtype) + " " + shape_text(c.shape) + ", GPU " +
                     std::to_string(c.gpu.index);
    params["dtype"] = dtype_name(c.dtype);
    params["m"] = std::to_string(c.shape.m);
    params["n"] = std::to_string(c.shape.n);
    params["k"] = std::to_string(c.shape.k);
    params["algo"] = runner.algorithm().text;
    params["input_sets"] = std::to_string(c.sets);
    params["verified"] = check.passed ? "yes" : "no";
    char error_text[32];
    std::snprintf(error_text, sizeof(error_text), "%.3g", check.max_rel_error);
    params["max_rel_error"] = error_text;
    state.SetLabel(encode_label(params));
    if (!check.passed) {
      state.SkipWithError(wrong_result_message(check.detail).c_str());
    }
  } catch (const std::exception& error) {
    runner_slot().runner.reset();  // a failed case leaves nothing behind for the next
    runner_slot().key.clear();
    state.SkipWithError(error.what());
  }
}

// --dtype bf16,fp8 (repeatable) or every dtype.
std::vector<GemmDtype> chosen_dtypes(const ProbeOptions& options) {
  std::vector<GemmDtype> dtypes;
  for (const std::string& text : options.all("dtype")) {
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = std::min(text.find(',', start), text.size());
      const std::string name = text.substr(start, end - start);
      const auto dtype = parse_gemm_dtype(name);
      if (!dtype) {
        throw UsageError("--dtype " + shortened(text) + ": \"" + shortened(name) +
                         "\" is not one of fp64, fp32, tf32, fp16, bf16, fp8, int8");
      }
      dtypes.push_back(*dtype);
      start = end + 1;
    }
  }
  return dtypes.empty() ? all_dtypes() : dtypes;
}

std::string register_cases(const ProbeOptions& options) {
  // Flags are checked before looking for a GPU, so bad input is reported on any machine.
  const std::vector<GemmDtype> dtypes = chosen_dtypes(options);
  std::vector<GemmShape> user_shapes;
  for (const std::string& text : options.all("shape")) user_shapes.push_back(parse_shape(text));
  std::string skip_reason;
  const std::vector<GpuTarget> gpus = select_gpus(query_cuda_devices(), options, skip_reason);
  if (gpus.empty()) return skip_reason;
  benchmark::AddCustomContext("pipecheck_gpus", gpu_context_text(gpus));
  std::string unsupported;
  for (const GpuTarget& gpu : gpus) {
    for (GemmDtype dtype : dtypes) {
      if (!dtype_supported(dtype, gpu.cc_major, gpu.cc_minor)) {
        unsupported += std::string(unsupported.empty() ? "" : ", ") + dtype_name(dtype) + " on GPU " +
                       std::to_string(gpu.index) + " (sm_" + std::to_string(gpu.cc_major) +
                       std::to_string(gpu.cc_minor) + ")";
        continue;
      }
      const auto shapes = user_shapes.empty() ? default_shapes(options.mode, dtype) : user_shapes;
      for (const GemmShape& shape : shapes) {
        if (const std::string misfit = shape_misfit(shape, dtype); !misfit.empty()) {
          unsupported += std::string(unsupported.empty() ? "" : ", ") + dtype_name(dtype) + " " +
                         shape_text(shape) + " (" + misfit + ")";
          continue;
        }
        GemmCase c{gpu, dtype, shape};
        // Inputs and output together within half the memory, so rotation never starves it.
        const std::uint64_t output = static_cast<std::uint64_t>(shape.m * shape.n) *
                                     static_cast<std::uint64_t>(output_element_bytes(dtype));
        const std::uint64_t budget = gpu.memory_bytes / 2 > output ? gpu.memory_bytes / 2 - output : 0;
        c.sets = rotation_sets(shape, dtype, gpu.l2_bytes, budget);
        c.algorithms = options.mode == ProbeMode::quick ? 4 : 8;
        benchmark::RegisterBenchmark(case_name(c).c_str(),
                                     [c](benchmark::State& state) { run_gemm(state, c); })
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
  if (!unsupported.empty()) benchmark::AddCustomContext("pipecheck_gemm_not_run", unsupported);
  return "";
}

}  // namespace
}  // namespace pipecheck

int main(int argc, char** argv) {
  const std::vector<pipecheck::ProbeFlag> flags = {
      pipecheck::gpus_flag(),
      {"shape", "MxNxK", "a GEMM shape of your model's (repeatable; default: the mode's sweep)",
       [](const std::string& text) {
         pipecheck::parse_shape(text);  // its own message, naming the flag
         return std::string();
       }},
      {"dtype", "LIST", "data types, e.g. bf16,fp8 (fp64, fp32, tf32, fp16, bf16, fp8, int8; default all)",
       pipecheck::some_text()},
  };
  return pipecheck::run_probe_main(argc, argv, pipecheck::stage_name::compute, "pipecheck-compute", pipecheck::register_cases, flags);
}
