// The GPU probes end to end: each probe binary run briefly with --benchmark_format=json, its
// verifications checked (on a GPU), or its "skipped: no CUDA device" exit 0 checked (without).
// Also the CUDA error message format, which needs no GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "core/benchmark_json.hpp"
#include "core/cuda_check.hpp"
#include "inventory/cuda_devices.hpp"
#include "core/process_runner.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

TEST(GpuProbeErrors, MessageNamesCallDeviceAndLibraryString) {
  EXPECT_EQ(gpu_call_message("cudaMalloc(&p, bytes)", 0, "0000:17:00.0", "cudaErrorMemoryAllocation",
                             "out of memory"),
            "cudaMalloc(&p, bytes) on GPU 0 (0000:17:00.0): cudaErrorMemoryAllocation: out of memory");
  EXPECT_EQ(gpu_call_message("cudaGetDeviceCount(&n)", -1, "", "cudaErrorInsufficientDriver",
                             "CUDA driver version is insufficient for CUDA runtime version"),
            "cudaGetDeviceCount(&n): cudaErrorInsufficientDriver: CUDA driver version is insufficient "
            "for CUDA runtime version");
  EXPECT_EQ(gpu_call_message("cublasLtMatmul(...)", 2, "", "CUBLAS_STATUS_NOT_SUPPORTED",
                             "CUBLAS_STATUS_NOT_SUPPORTED"),
            "cublasLtMatmul(...) on GPU 2: CUBLAS_STATUS_NOT_SUPPORTED");
  const CudaError error("x");
  const RunError& as_run_error = error;  // the probes' mains report RunErrors as "could not run"
  EXPECT_STREQ(as_run_error.what(), "x");
}

struct ProbeRun {
  ProcessResult process;
  std::string out;
  std::string err;
};

ProbeRun run_probe(const std::string& name, std::vector<std::string> args) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-gpuprobe-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ProcessSpec spec;
  spec.argv = {(fs::path(PIPECHECK_BIN_DIR) / name).string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = dir / (name + ".out");
  spec.stderr_path = dir / (name + ".err");
  spec.time_limit = std::chrono::minutes(5);
  ProbeRun run;
  run.process = run_process(spec);
  auto slurp = [](const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  run.out = slurp(spec.stdout_path);
  run.err = slurp(spec.stderr_path);
  fs::remove_all(dir);
  return run;
}

bool probe_built(const std::string& name) { return fs::exists(fs::path(PIPECHECK_BIN_DIR) / name); }

struct ProbeCase {
  const char* name;
  const char* stage;
  std::vector<std::string> args;  // kept small: a check that it runs and verifies, not a measurement
};

const std::vector<ProbeCase>& gpu_probes() {
  static const std::vector<ProbeCase> probes = {
      {"pipecheck-compute", "compute", {"--dtype", "bf16,fp8,fp64", "--shape", "2048x2048x2048"}},
      {"pipecheck-memory", "memory", {}},
      {"pipecheck-pcie", "pcie", {"--benchmark_filter=/(4096|67108864)/"}},
  };
  return probes;
}

TEST(GpuProbes, SkipWithReasonWithoutDevice) {
  const CudaReport cuda = query_cuda_devices();
  if (!cuda.devices.empty()) GTEST_SKIP() << "a CUDA device is present: the probes run for real";
  int built = 0;
  for (const auto& probe : gpu_probes()) {
    if (!probe_built(probe.name)) continue;
    ++built;
    const ProbeRun run = run_probe(probe.name, {"--pipecheck_quick"});
    EXPECT_TRUE(run.process.ok()) << probe.name << ": " << run.process.describe() << "\n" << run.err;
    EXPECT_NE(run.err.find("skipped: no CUDA device"), std::string::npos) << probe.name << ": " << run.err;
  }
  if (built == 0) GTEST_SKIP() << "no GPU probe built: no CUDA toolkit";
}

TEST(GpuProbes, BadFlagsAreUsageErrorsOnAnyMachine) {
  if (!probe_built("pipecheck-compute")) GTEST_SKIP() << "pipecheck-compute not built: no CUDA toolkit";
  const ProbeRun run = run_probe("pipecheck-compute", {"--shape", "8192x8192"});
  EXPECT_EQ(run.process.exit_code, 2) << run.process.describe();
  EXPECT_NE(run.err.find("--shape 8192x8192"), std::string::npos) << run.err;
}

TEST(GpuProbes, RunBrieflyAndVerifyOnADevice) {
  const CudaReport cuda = query_cuda_devices();
  if (cuda.devices.empty()) {
    GTEST_SKIP() << "no CUDA device" << (cuda.error.empty() ? "" : ": " + cuda.error);
  }
  for (const auto& probe : gpu_probes()) {
    SCOPED_TRACE(probe.name);
    ASSERT_TRUE(probe_built(probe.name));
    std::vector<std::string> args = {"--pipecheck_quick", "--gpus", "0", "--benchmark_format=json",
                                     "--benchmark_min_time=0.05", "--benchmark_repetitions=1"};
    args.insert(args.end(), probe.args.begin(), probe.args.end());
    const ProbeRun run = run_probe(probe.name, args);
    ASSERT_TRUE(run.process.ok()) << run.process.describe() << "\n" << run.err;
    const ParsedBenchmarks parsed = parse_benchmark_json(run.out, probe.stage);
    for (const auto& error : parsed.case_errors) ADD_FAILURE() << error;
    EXPECT_FALSE(parsed.measurements.empty());
    for (const auto& m : parsed.measurements) {
      EXPECT_EQ(m.params.count("verified") ? m.params.at("verified") : "", "yes") << m.key;
      EXPECT_GT(m.stats.median, 0) << m.key;
      EXPECT_EQ(m.params.count("gpu_bdf"), 1u) << m.key;
      EXPECT_EQ(m.key.find("manual_time"), std::string::npos) << m.key;
    }
  }
}

}  // namespace
}  // namespace pipecheck
