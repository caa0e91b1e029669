// The stress run end to end on this machine: the watchdog on a worker that never finishes, a
// GPU's fault not stopping the others, the CPU burn with a real telemetry run of a few seconds,
// the flags of `pipecheck stress`, and (on a GPU machine only) the real GPU burn.
#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>

#include "app/duration_flag.hpp"
#include "app/stress_cli.hpp"
#include "inventory/cuda_devices.hpp"
#include "core/cpu_allowance.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "stress/cpu_burn_isa.hpp"
#include "stress/stress_run.hpp"
#include "telemetry/telemetry_csv.hpp"
#include "stress/watchdog.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

// Holds a fake worker inside its "kernel" until the test opens it: a GPU stuck in the driver.
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  void wait() {
    std::unique_lock lock(mutex);
    cv.wait(lock, [this] { return open; });
  }
  void release() {
    {
      const std::lock_guard lock(mutex);
      open = true;
    }
    cv.notify_all();
  }
};

class BlockingWorker final : public BurnWorker {
 public:
  explicit BlockingWorker(std::shared_ptr<Gate> gate) : gate_(std::move(gate)) {}
  void run(WorkerContext& ctx) override {
    ctx.counters().add_work(1e12);
    ctx.arm("fake kernel that never finishes");
    gate_->wait();  // ignores the stop flag, as a thread stuck in a driver call would
  }

 private:
  std::shared_ptr<Gate> gate_;
};

// Burns nothing but reports work at a steady rate, verified, until stopped.
class SteadyWorker final : public BurnWorker {
 public:
  explicit SteadyWorker(double tflops) : tflops_(tflops) {}
  void run(WorkerContext& ctx) override {
    while (!ctx.stop_requested()) {
      ctx.arm("fake batch");
      std::this_thread::sleep_for(10ms);
      ctx.disarm();
      ctx.counters().add_work(tflops_ * 1e12 * 0.01);
      ctx.counters().iterations += 1;
    }
  }

 private:
  double tflops_;
};

class FaultyWorker final : public BurnWorker {
 public:
  void run(WorkerContext&) override { throw RunError("cudaMalloc (gpu1): out of memory"); }
};

StressHooks fake_hooks(std::function<std::unique_ptr<BurnWorker>(const StressGpu&)> make, int gpus) {
  StressHooks hooks = default_stress_hooks();
  hooks.discover_gpus = [gpus](std::string*) {
    std::vector<StressGpu> found;
    for (int i = 0; i < gpus; ++i) found.push_back({i, "0000:1" + std::to_string(i) + ":00.0", "Fake GPU", std::nullopt});
    return found;
  };
  hooks.make_gpu_worker = [make](const StressGpu& gpu, const StressConfig&) { return make(gpu); };
  return hooks;
}

StressConfig quick_config(const std::string& name, double seconds) {
  StressConfig config;
  config.duration_s = seconds;
  config.interval_s = 0.1;
  config.out_dir = scratch(name);
  config.use_nvml = false;
  config.read_kernel_log = false;
  return config;
}

TEST(StressWatchdog, FiresOnceOnAWaitPastItsDeadline) {
  std::mutex mutex;
  std::vector<HangReport> fired;
  Watchdog watchdog([&](const HangReport& r) {
    const std::lock_guard lock(mutex);
    fired.push_back(r);
  }, 10ms);
  const int slow = watchdog.add("gpu0");
  const int quick = watchdog.add("gpu1");
  watchdog.arm(slow, "GEMM batch 7", 50ms);
  watchdog.arm(quick, "GEMM batch 3", 50ms);
  watchdog.disarm(quick);  // finished in time
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(watchdog.hung(slow));
  EXPECT_FALSE(watchdog.hung(quick));
  const std::lock_guard lock(mutex);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].name, "gpu0");
  EXPECT_EQ(fired[0].what, "GEMM batch 7");
}

TEST(StressWatchdog, HungWorkerIsAbandonedAndTheRunStillEnds) {
  auto gate = std::make_shared<Gate>();
  StressConfig config = quick_config("hang", 1.5);
  config.hang_timeout_s = 0.3;
  const auto hooks = fake_hooks(
      [gate](const StressGpu& gpu) -> std::unique_ptr<BurnWorker> {
        if (gpu.index == 1) return std::make_unique<BlockingWorker>(gate);
        return std::make_unique<SteadyWorker>(100);
      },
      2);
  std::ostringstream out;
  const auto began = std::chrono::steady_clock::now();
  const StressOutcome outcome = run_stress(config, hooks, out);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  gate->release();  // lets the abandoned thread end before the test binary does
  std::this_thread::sleep_for(50ms);

  EXPECT_LT(took, 6.0) << "the run waited for the hung worker";
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_TRUE(outcome.abandoned_workers);
  const StressSummary& summary = outcome.summary;
  ASSERT_EQ(summary.gpus.size(), 2u);
  EXPECT_EQ(summary.gpus[0].verdict, "pass");  // the other GPU ran on
  EXPECT_GT(summary.gpus[0].peak_tflops.value_or(0), 50);
  ASSERT_TRUE(summary.gpus[1].hang);
  EXPECT_EQ(summary.gpus[1].hang->what, "fake kernel that never finishes");
  ASSERT_TRUE(summary.gpus[1].hang->last_telemetry);  // reported with its last telemetry
  EXPECT_EQ(summary.gpus[1].hang->last_telemetry->gpu_bus_id, "0000:11:00.0");
  EXPECT_NE(out.str().find("gpu1: HANG"), std::string::npos) << out.str();
  const auto json = nlohmann::json::parse(read_file(outcome.summary_path));
  EXPECT_EQ(json["verdict"], "fail");
  EXPECT_EQ(json["gpus"][1]["hang"]["what"], "fake kernel that never finishes");
  fs::remove_all(config.out_dir);
}

// `stress --cpu --cpu-threads 3000` printed "cpu: HANG ... worker abandoned" and still passed
// with exit 0: an abandoned CPU worker is a failed burn.
TEST(StressWatchdog, HungCpuWorkerFailsTheRun) {
  auto gate = std::make_shared<Gate>();
  StressConfig config = quick_config("cpu-hang", 1.0);
  config.hang_timeout_s = 0.3;
  config.cpu = true;
  config.no_gpu = true;  // the CPU burn alone
  StressHooks hooks = fake_hooks([](const StressGpu&) { return std::make_unique<SteadyWorker>(100); }, 0);
  hooks.make_cpu_worker = [gate](const StressConfig&) -> std::unique_ptr<BurnWorker> {
    return std::make_unique<BlockingWorker>(gate);
  };
  std::ostringstream out;
  const StressOutcome outcome = run_stress(config, hooks, out);
  gate->release();
  std::this_thread::sleep_for(50ms);
  EXPECT_NE(out.str().find("cpu: HANG"), std::string::npos) << out.str();
  EXPECT_EQ(outcome.exit_code, 1) << out.str();
  EXPECT_EQ(outcome.summary.cpu.verdict, "fail");
  EXPECT_NE(outcome.summary.cpu.error.find("HANG"), std::string::npos) << outcome.summary.cpu.error;
  fs::remove_all(config.out_dir);
}

TEST(StressRun, AGpuFaultDoesNotStopTheOthers) {
  StressConfig config = quick_config("fault", 1.0);
  const auto hooks = fake_hooks(
      [](const StressGpu& gpu) -> std::unique_ptr<BurnWorker> {
        if (gpu.index == 1) return std::make_unique<FaultyWorker>();
        return std::make_unique<SteadyWorker>(100);
      },
      3);
  std::ostringstream out;
  const StressOutcome outcome = run_stress(config, hooks, out);
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_FALSE(outcome.abandoned_workers);
  EXPECT_EQ(outcome.summary.stopped_by, "duration");
  EXPECT_EQ(outcome.summary.gpus[1].error, "cudaMalloc (gpu1): out of memory");
  EXPECT_EQ(outcome.summary.gpus[0].verdict, "pass");
  EXPECT_EQ(outcome.summary.gpus[2].verdict, "pass");
  const auto parsed = parse_telemetry_csv(read_file(outcome.csv_path));
  EXPECT_TRUE(parsed.errors.empty());
  EXPECT_GE(parsed.rows.size(), 4u * 5);  // 3 GPU rows and a host row, 10 a second
  fs::remove_all(config.out_dir);
}

TEST(StressRun, UntilFailureStopsAtTheFirstFailure) {
  StressConfig config = quick_config("until", 0);
  config.until_failure = true;
  config.max_duration_s = 30;
  const auto hooks = fake_hooks([](const StressGpu&) { return std::make_unique<FaultyWorker>(); }, 1);
  std::ostringstream out;
  const StressOutcome outcome = run_stress(config, hooks, out);
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_TRUE(outcome.summary.stopped_by == "failure" || outcome.summary.stopped_by == "all_workers_ended")
      << outcome.summary.stopped_by;
  EXPECT_LT(outcome.summary.duration_s, 5);
  fs::remove_all(config.out_dir);
}

TEST(StressRun, NoGpuWithoutCpuCouldNotRun) {
  StressConfig config = quick_config("nogpu", 1);
  StressHooks hooks = default_stress_hooks();
  hooks.discover_gpus = [](std::string* why) {
    *why = "CUDA driver version is insufficient for CUDA runtime version";
    return std::vector<StressGpu>{};
  };
  std::ostringstream out;
  const StressOutcome outcome = run_stress(config, hooks, out);
  EXPECT_EQ(outcome.exit_code, 3);
  EXPECT_NE(outcome.error.find("no CUDA device"), std::string::npos);
  EXPECT_NE(outcome.error.find("use --cpu"), std::string::npos);
  config.gpus = {4};
  hooks.discover_gpus = [](std::string*) { return std::vector<StressGpu>{{0, "0000:17:00.0", "x", std::nullopt}}; };
  EXPECT_THROW(run_stress(config, hooks, out), UsageError);
}

TEST(StressCpuBurn, RealTelemetryRunOfAFewSeconds) {
  StressConfig config = quick_config("cpu", 3.0);
  config.cpu = true;
  config.no_gpu = true;
  config.interval_s = 0.25;
  std::ostringstream out;
  const StressOutcome outcome = run_stress(config, default_stress_hooks(), out);
  EXPECT_EQ(outcome.exit_code, 0) << out.str();
  const auto parsed = parse_telemetry_csv(read_file(outcome.csv_path));
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0];
  std::vector<double> util;
  double rate = 0;
  for (const auto& row : parsed.rows) {
    EXPECT_EQ(row.source, "host");
    if (row.elapsed_s > 1.0 && row.cpu_util_pct) util.push_back(*row.cpu_util_pct);
    if (row.tflops) rate = std::max(rate, *row.tflops);
    EXPECT_EQ(row.wrong_results.value_or(0), 0u);
  }
  ASSERT_GE(util.size(), 5u);
  std::sort(util.begin(), util.end());
  EXPECT_GT(util[util.size() / 2], 80.0) << "every core busy, so the median sample is near 100%";
  EXPECT_GT(rate, 0.0);
  EXPECT_EQ(outcome.summary.cpu.threads, static_cast<unsigned>(usable_cpu_count()));
  const auto json = nlohmann::json::parse(read_file(outcome.summary_path));
  EXPECT_EQ(json["verdict"], "pass");
  EXPECT_TRUE(json["cpu"]["enabled"]);
  EXPECT_GT(json["cpu"]["sustained_gflops"].get<double>(), 0.0);
  fs::remove_all(config.out_dir);
}

// A CPU burn held against a ceiling it cannot be under (1 GFLOP/s): invalid, exit 1, the
// sentence in the summary; the real burn, so the rate is the real one.
TEST(StressCpuBurn, ARateAboveItsCeilingIsInvalid) {
  StressConfig config = quick_config("cpu-invalid", 2.0);
  config.cpu = true;
  config.no_gpu = true;
  config.interval_s = 0.25;
  StressHooks hooks = default_stress_hooks();
  hooks.cpu_ceiling = [](const CpuBurnPlan& plan) {
    EXPECT_NE(plan.kernel, nullptr);
    EXPECT_FALSE(plan.cpus.empty());
    return CpuBurnCeilings{CeilingResult::known(Ceiling{0.001, "GFLOP/s", "theoretical", "a ceiling for the test"}),
                           std::nullopt};
  };
  std::ostringstream out;
  const StressOutcome outcome = run_stress(config, hooks, out);
  EXPECT_EQ(outcome.exit_code, 1) << out.str();
  EXPECT_EQ(outcome.summary.verdict, "invalid");
  const auto json = nlohmann::json::parse(read_file(outcome.summary_path));
  EXPECT_EQ(json["verdict"], "invalid");
  EXPECT_EQ(json["cpu"]["ceiling"]["derivation"], "a ceiling for the test");
  ASSERT_FALSE(json["reasons"].empty());
  EXPECT_NE(json["reasons"][0].get<std::string>().find("above the physical ceiling 0.001 GFLOP/s: the probe measured "
                                                       "something else, or the ceiling is wrong"),
            std::string::npos)
      << json["reasons"][0];
  fs::remove_all(config.out_dir);
}

TEST(StressCpuBurn, InjectedFaultsAreCaughtInProcess) {
  StressConfig config = quick_config("cpu-faults", 1.5);
  config.cpu = true;
  config.no_gpu = true;
  config.cpu_threads = 2;
  config.inject_faults = 7;
  std::ostringstream out;
  const StressOutcome outcome = run_stress(config, default_stress_hooks(), out);
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_EQ(outcome.summary.verdict, "fail");
  EXPECT_EQ(outcome.summary.cpu.injected_faults, 7u);
  EXPECT_EQ(outcome.summary.cpu.wrong_results, 7u);  // each fault is one lane of one chunk
  bool named = false;
  for (const auto& note : outcome.summary.notes) named |= note.find("lanes wrong, first lane") != std::string::npos;
  EXPECT_TRUE(named) << "the wrong chunks are described in the notes";
  fs::remove_all(config.out_dir);
}

TEST(StressRun, AStopRequestEndsInterrupted) {
  StressConfig config = quick_config("stop", 30);
  const auto hooks = fake_hooks([](const StressGpu&) { return std::make_unique<SteadyWorker>(100); }, 1);
  std::thread stopper([] {
    std::this_thread::sleep_for(500ms);
    request_stress_stop();
  });
  std::ostringstream out;
  const StressOutcome outcome = run_stress(config, hooks, out);
  stopper.join();
  reset_stress_stop();
  EXPECT_EQ(outcome.summary.stopped_by, "interrupted");
  EXPECT_EQ(outcome.summary.verdict, "interrupted");
  EXPECT_EQ(outcome.exit_code, 130);
  EXPECT_LT(outcome.summary.duration_s, 10);
  EXPECT_NE(out.str().find("verdict: interrupted"), std::string::npos) << out.str();
  fs::remove_all(config.out_dir);
}

TEST(StressCli, FlagsBecomeTheConfig) {
  CLI::App app;
  StressCliState state;
  add_stress_command(app, state);
  app.parse("stress --profile ramp --cpu --gpus 0,2 --duration 10m --dtype fp16 --out /tmp/x --tolerance 5",
            false);
  const StressConfig config = stress_config_from_cli(state, false);
  EXPECT_DOUBLE_EQ(config.duration_s, 600);
  EXPECT_EQ(config.profile.shape, LoadShape::ramp);
  EXPECT_DOUBLE_EQ(config.profile.period_s, 150);  // 4 steps over the duration
  EXPECT_TRUE(config.cpu);
  EXPECT_EQ(config.gpus, (std::vector<int>{0, 2}));
  EXPECT_EQ(config.dtype, BurnDtype::fp16);
  EXPECT_EQ(config.out_dir, "/tmp/x");
  EXPECT_DOUBLE_EQ(config.slow_tolerance_pct, 5);
}

TEST(StressCli, BadValuesAreUsageErrors) {
  EXPECT_EQ(parse_duration_seconds("90"), 90);
  EXPECT_EQ(parse_duration_seconds("1.5m"), 90);
  EXPECT_EQ(parse_duration_seconds("2h"), 7200);
  EXPECT_FALSE(parse_duration_seconds("10x"));
  EXPECT_FALSE(parse_duration_seconds(""));
  StressCliState state;
  state.duration = "soon";
  EXPECT_THROW(stress_config_from_cli(state, false), UsageError);
  state = {};
  state.gpus = "0,a";
  EXPECT_THROW(stress_config_from_cli(state, false), UsageError);
  state = {};
  state.dtype = "int4";
  EXPECT_THROW(stress_config_from_cli(state, false), UsageError);
  CLI::App app;
  StressCliState parsed;
  add_stress_command(app, parsed);
  EXPECT_THROW(app.parse("stress --profile sawtooth", false), CLI::ParseError);
  app.clear();
  EXPECT_THROW(app.parse("stress --max-duration 1h", false), CLI::ParseError);  // needs --until-failure
}

TEST(StressCli, CpuBurnFlags) {
  CLI::App app;
  StressCliState state;
  add_stress_command(app, state);
  app.parse("stress --cpu --cpu-isa sse2 --cpu-dtype fp32 --inject-faults 5", false);
  const StressConfig config = stress_config_from_cli(state, false);
  ASSERT_NE(config.cpu_kernel, nullptr);
  EXPECT_STREQ(config.cpu_kernel->isa, cpu_burn_kernel_baseline.isa);
  EXPECT_EQ(config.cpu_precision, CpuPrecision::fp32);
  EXPECT_EQ(config.inject_faults, 5u);
  StressCliState defaults;
  EXPECT_EQ(stress_config_from_cli(defaults, false).cpu_kernel, nullptr);  // auto: the widest at run time
  EXPECT_EQ(stress_config_from_cli(defaults, false).cpu_precision, CpuPrecision::fp64);
  StressCliState bad;
  bad.cpu_isa = "avx1024";
  try {
    stress_config_from_cli(bad, false);
    ADD_FAILURE() << "an unknown ISA was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--cpu-isa: unknown instruction set 'avx1024' (auto, "), std::string::npos);
  }
  bad = {};
  bad.cpu_dtype = "fp16";
  EXPECT_THROW(stress_config_from_cli(bad, false), UsageError);
  for (const CpuBurnKernel* kernel : built_cpu_burn_kernels()) {
    if (cpu_runs(*kernel)) continue;
    bad = {};
    bad.cpu_isa = kernel->isa;  // built, but this CPU does not run it
    EXPECT_THROW(stress_config_from_cli(bad, false), UsageError) << kernel->isa;
  }
  app.clear();
  EXPECT_THROW(app.parse("stress --inject-faults -1", false), CLI::ParseError);
  app.clear();
  EXPECT_THROW(app.parse("stress --inject-faults 2000000", false), CLI::ParseError);
}

bool have_cuda_gpu() {
  const CudaReport report = query_cuda_devices();
  return !report.devices.empty();
}

TEST(StressGpuBurn, RealBurnFindsNoWrongResults) {
  if (!have_cuda_gpu()) GTEST_SKIP() << "no CUDA device: " << query_cuda_devices().error;
  StressConfig config = quick_config("gpu", 8.0);
  config.matrix_n = 4096;
  config.use_nvml = true;
  config.gpus = {0};
  std::ostringstream out;
  const StressOutcome outcome = run_stress(config, default_stress_hooks(), out);
  ASSERT_EQ(outcome.summary.gpus.size(), 1u);
  const auto& gpu = outcome.summary.gpus[0];
  EXPECT_EQ(gpu.error, "");
  EXPECT_EQ(gpu.wrong_results, 0u);
  EXPECT_EQ(gpu.memory_errors, 0u);
  EXPECT_GT(gpu.peak_tflops.value_or(0), 1.0) << out.str();
  EXPECT_TRUE(gpu.max_temp_c) << "NVML telemetry missing: " << gpu.telemetry_error;
  fs::remove_all(config.out_dir);
}

}  // namespace
}  // namespace pipecheck
