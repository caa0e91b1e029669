// The rules of `pipecheck check`: each fact that makes a node unhealthy, seen to fail; the exit
// code under the outcome model; the drain reason Slurm records.
#include "health/health_check.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

bool has_text(const std::vector<HealthProblem>& problems, const std::string& part) {
  for (const auto& p : problems) {
    if (problem_line(p).find(part) != std::string::npos) return true;
  }
  return false;
}

std::string lines(const std::vector<HealthProblem>& problems) {
  std::string text;
  for (const auto& p : problems) text += problem_line(p) + "\n";
  return text;
}

GpuHealth healthy_gpu() {
  GpuHealth gpu;
  gpu.bus_id = "0000:17:00.0";
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.retired_pages_pending = false;
  gpu.row_remap_pending = false;
  gpu.row_remap_failed = false;
  gpu.rows_remapped_uncorrectable = 3;  // remapped already: healthy until a remap is pending or fails
  gpu.ecc_volatile_uncorrected = 0;
  gpu.clock_event_mask = 0x1 | 0x4;  // GpuIdle | SwPowerCap: not a fault
  return gpu;
}

TEST(HealthCheck, AHealthyGpuHasNoProblem) {
  EXPECT_TRUE(gpu_health_problems({healthy_gpu()}).empty());
  GpuHealth unknown;  // every fact unknown (an old driver, a GPU without ECC): nothing to hold against
  unknown.bus_id = "0000:18:00.0";
  EXPECT_TRUE(gpu_health_problems({unknown}).empty());
}

TEST(HealthCheck, EachGpuFaultIsAFailure) {
  struct Case {
    void (*plant)(GpuHealth&);
    const char* expected;
  };
  const Case cases[] = {
      {[](GpuHealth& g) { g.retired_pages_pending = true; }, "retired pages pending"},
      {[](GpuHealth& g) { g.row_remap_pending = true; }, "remapped rows pending"},
      {[](GpuHealth& g) { g.row_remap_failed = true; }, "row remapping failed"},
      {[](GpuHealth& g) { g.ecc_volatile_uncorrected = 2; }, "2 volatile double-bit ECC error(s)"},
      {[](GpuHealth& g) { g.clock_event_mask = 0x40 | 0x4; }, "held back now by HwThermalSlowdown"},
      {[](GpuHealth& g) { g.clock_event_mask = 0x8; }, "held back now by HwSlowdown"},
      {[](GpuHealth& g) { g.errors = {"nvmlDeviceGetTotalEccErrors (0000:17:00.0): GPU is lost (15)"}; }, "GPU is lost"},
  };
  for (const auto& c : cases) {
    GpuHealth gpu = healthy_gpu();
    c.plant(gpu);
    const auto problems = gpu_health_problems({healthy_gpu(), gpu});
    ASSERT_EQ(problems.size(), 1u) << c.expected << "\n" << lines(problems);
    EXPECT_EQ(problems[0].verdict, Verdict::fail);
    EXPECT_TRUE(has_text(problems, c.expected)) << lines(problems);
    EXPECT_TRUE(has_text(problems, "gpu 0000:17:00.0 (NVIDIA H100 80GB HBM3)")) << lines(problems);
  }
}

TEST(HealthCheck, UnhealthyXidsSinceBootAreCountedPerGpu) {
  const std::vector<BootXid> xids = {
      {"0000:17:00.0", 79, "NVRM: Xid (PCI:0000:17:00): 79, ..."},
      {"0000:17:00.0", 13, "NVRM: Xid (PCI:0000:17:00): 13, Graphics Exception"},  // an application's fault
      {"0000:17:00.0", 79, "NVRM: Xid (PCI:0000:17:00): 79, ..."},
      {"0000:2a:00.0", 48, "NVRM: Xid (PCI:0000:2a:00): 48, ..."},
      {"0000:3b:00.0", 31, "NVRM: Xid (PCI:0000:3b:00): 31, MMU fault"},
  };
  const auto problems = xid_problems(xids);
  ASSERT_EQ(problems.size(), 2u) << lines(problems);
  EXPECT_EQ(problem_line(problems[0]), "FAIL gpu 0000:17:00.0: Xid 79 (fallen off the bus) x2 since boot");
  EXPECT_EQ(problem_line(problems[1]), "FAIL gpu 0000:2a:00.0: Xid 48 (double-bit ECC error) since boot");
  EXPECT_TRUE(xid_means_unhealthy(95));
  EXPECT_FALSE(xid_means_unhealthy(43));
}

Inventory inventory_with(std::vector<std::string> bdfs) {
  Inventory inventory;
  for (const auto& bdf : bdfs) {
    GpuInfo gpu;
    gpu.pci_bdf = bdf;
    gpu.cuda_index = static_cast<int>(inventory.gpus.size());
    gpu.name = "NVIDIA H100 80GB HBM3";
    gpu.seen_by = {"cuda", "nvml", "pci"};
    inventory.gpus.push_back(gpu);
  }
  return inventory;
}

// The judge's verdict (judge/inventory_verdicts): a GPU only the PCI bus lists fails, and it is
// not counted among the GPUs the driver sees; one reserved for a VM (vfio-pci) is not a fault.
TEST(HealthCheck, AGpuOnTheBusTheDriverDoesNotSeeFails) {
  Inventory inventory = inventory_with({"0000:17:00.0", "0000:2a:00.0", "0000:3b:00.0"});
  inventory.gpus[1].seen_by = {"pci"};
  inventory.gpus[1].pci_driver = "nvidia";
  inventory.gpus[2].seen_by = {"pci"};
  inventory.gpus[2].pci_driver = "vfio-pci";
  const auto problems = inventory_problems(inventory, default_profile());
  ASSERT_EQ(problems.size(), 1u) << lines(problems);
  EXPECT_TRUE(has_text(problems, "FAIL GPU 0000:2a:00.0 on the PCI bus: on the bus but not seen by the driver"))
      << lines(problems);
  EXPECT_EQ(driver_gpu_count(inventory), 1);
  inventory.gpus[1].seen_by = {"cuda", "nvml", "pci"};
  EXPECT_TRUE(inventory_problems(inventory, default_profile()).empty()) << lines(inventory_problems(inventory, default_profile()));
}

TEST(HealthCheck, TheJudgesInventoryFailuresCountWarningsDoNot) {
  Inventory inventory = inventory_with({"0000:17:00.0", "0000:2a:00.0"});
  inventory.gpus[0].pcie = PcieLink{32.0, 8, 32.0, 16};    // fewer lanes: a fault
  inventory.gpus[1].pcie = PcieLink{2.5, 16, 32.0, 16};    // slower at idle: power saving, a warn
  inventory.software.driver_cuda_version = 12040;
  inventory.software.runtime_cuda_version = 13000;          // the driver is older than the runtime
  const auto problems = inventory_problems(inventory, default_profile());
  EXPECT_EQ(problems.size(), 2u) << lines(problems);
  EXPECT_TRUE(has_text(problems, "fewer lanes")) << lines(problems);
  EXPECT_TRUE(has_text(problems, "driver supports CUDA 12.4")) << lines(problems);
  EXPECT_FALSE(has_text(problems, "0000:2a:00.0")) << lines(problems);
}

TEST(HealthCheck, ExitCodesFollowTheOutcomeModel) {
  const HealthProblem failure{Verdict::fail, "gpu 0000:17:00.0", "x"};
  const HealthProblem unknown{Verdict::inconclusive, "burn", "y"};
  EXPECT_EQ(check_exit_code({}, false), ExitCode::ok);
  EXPECT_EQ(check_exit_code({failure}, false), ExitCode::failed);
  EXPECT_EQ(check_exit_code({unknown}, false), ExitCode::inconclusive);
  EXPECT_EQ(check_exit_code({unknown, failure}, false), ExitCode::failed);  // 4 never hides 1
  EXPECT_EQ(check_exit_code({unknown}, true), ExitCode::ok);                 // a prolog: exit 0
  EXPECT_EQ(check_exit_code({unknown, failure}, true), ExitCode::failed);
}

TEST(HealthCheck, TheDrainReasonIsShortPrintableAndNamesTheFirstFailure) {
  EXPECT_EQ(drain_reason({}), "");
  EXPECT_EQ(drain_reason({{Verdict::inconclusive, "burn", "no cuBLAS"}}), "");
  const std::vector<HealthProblem> problems = {
      {Verdict::inconclusive, "burn", "no cuBLAS"},
      {Verdict::fail, "gpu 0000:17:00.0", "Xid 79 (fallen off the bus) since boot"},
      {Verdict::fail, "host", "0 GPU(s) seen, 8 expected"}};
  EXPECT_EQ(drain_reason(problems), "pipecheck: gpu 0000:17:00.0: Xid 79 (fallen off the bus) since boot (+1 more)");

  const std::vector<HealthProblem> hostile = {
      {Verdict::fail, "gpu \"x\"", std::string("model 'a=b'\n\ttab\x01; rm -rf / `x` \\ ") + std::string(200, 'z')}};
  const std::string reason = drain_reason(hostile);
  EXPECT_LT(reason.size(), 100u) << reason;
  EXPECT_EQ(reason.rfind("pipecheck: ", 0), 0u);
  for (const char c : reason) {
    EXPECT_TRUE(c >= ' ' && c < 127) << static_cast<int>(c);
    EXPECT_EQ(std::string("\"'=\\`").find(c), std::string::npos) << reason;
  }
  EXPECT_EQ(reason.substr(reason.size() - 3), "...");
  EXPECT_EQ(reason.find("  "), std::string::npos) << reason;
}

}  // namespace
}  // namespace pipecheck
