// The expected machine: --expect files (every key, every bad input named), a baseline read as
// expectations, and each fact that differs seen as a problem.
#include "health/expected_machine.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/errors.hpp"
#include "core/json_records.hpp"
#include "core/json_text.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t kGiB = 1024ull * 1024 * 1024;

Inventory eight_gpu_node() {
  Inventory inventory;
  inventory.hostname = "gpu-a";
  inventory.cpu.logical_cpus = 192;
  inventory.memory.total_bytes = 2015 * kGiB;
  inventory.software.driver_version = "580.65.06";
  inventory.software.driver_cuda_version = 13000;
  for (int i = 0; i < 8; ++i) {
    GpuInfo gpu;
    gpu.cuda_index = i;
    gpu.pci_bdf = "0000:1" + std::to_string(i) + ":00.0";
    gpu.name = "NVIDIA H100 80GB HBM3";
    gpu.memory_bytes = 81559 * 1024ull * 1024;
    gpu.pcie = PcieLink{32.0, 16, 32.0, 16};
    gpu.seen_by = {"cuda", "nvml", "pci"};
    inventory.gpus.push_back(gpu);
  }
  return inventory;
}

std::string lines(const std::vector<HealthProblem>& problems) {
  std::string text;
  for (const auto& p : problems) text += problem_line(p) + "\n";
  return text;
}

const char* kExpect = R"(# an 8-GPU H100 node
gpu.count = 8
gpu.model = NVIDIA H100 80GB HBM3
gpu.memory_min = 79GiB
gpu.pcie_width = 16
gpu.pcie_gts = 32
host.memory_min = 2000 GiB
host.cpus = 192
driver.version = 580.65.06
cuda.driver_min = 12.4
)";

TEST(ExpectedMachine, ParsesEveryKey) {
  const ExpectedMachine e = parse_expectations(kExpect, "node.conf");
  EXPECT_EQ(e.gpu_count, 8);
  EXPECT_EQ(e.gpu_model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(e.gpu_memory_min_bytes, 79 * kGiB);
  EXPECT_EQ(e.pcie_width, 16);
  EXPECT_EQ(e.pcie_gts, 32.0);
  EXPECT_EQ(e.host_memory_min_bytes, 2000 * kGiB);
  EXPECT_EQ(e.cpus, 192);
  EXPECT_EQ(e.driver_version, "580.65.06");
  EXPECT_EQ(e.cuda_driver_min, 12040);
  EXPECT_EQ(parse_expectations("host.memory_min = 2TB", "x").host_memory_min_bytes, 2000000000000ull);
  EXPECT_EQ(parse_expectations("gpu.memory_min = 1.5TiB", "x").gpu_memory_min_bytes, 1536 * kGiB);
  EXPECT_EQ(parse_expectations("cuda.driver_min = 13", "x").cuda_driver_min, 13000);
}

TEST(ExpectedMachine, AMatchingNodeHasNoProblem) {
  EXPECT_EQ(lines(expectation_problems(parse_expectations(kExpect, "node.conf"), eight_gpu_node())), "");
}

TEST(ExpectedMachine, EachDifferenceIsAFailureNamingBothSides) {
  const ExpectedMachine e = parse_expectations(kExpect, "node.conf");
  struct Case {
    void (*plant)(Inventory&);
    const char* expected;
  };
  const Case cases[] = {
      {[](Inventory& i) { i.gpus.pop_back(); }, "FAIL host: 7 GPU(s) seen by the driver, 8 expected (expected by node.conf)"},
      {[](Inventory& i) { i.gpus[5].seen_by = {"pci"}; }, "FAIL host: 7 GPU(s) seen by the driver, 8 expected"},
      {[](Inventory& i) { i.gpus[3].name = "NVIDIA A100-SXM4-80GB"; }, "model 'NVIDIA A100-SXM4-80GB', 'NVIDIA H100 80GB HBM3' expected"},
      {[](Inventory& i) { i.gpus[1].memory_bytes = 40 * kGiB; }, "40.0 GiB of memory, at least 79.0 GiB expected"},
      {[](Inventory& i) { i.gpus[2].pcie.current_width = 8; }, "PCIe link x8, x16 expected"},
      {[](Inventory& i) { i.gpus[2].pcie.max_gts = 16.0; }, "PCIe link at best 16 GT/s, 32 GT/s expected"},
      {[](Inventory& i) { i.memory.total_bytes = 1760 * kGiB; }, "FAIL host: 1760 GiB of memory, at least 2000 GiB expected"},
      {[](Inventory& i) { i.cpu.logical_cpus = 96; }, "96 logical CPUs, 192 expected"},
      {[](Inventory& i) { i.software.driver_version = "570.124.06"; }, "NVIDIA driver 570.124.06, 580.65.06 expected"},
      {[](Inventory& i) { i.software.driver_cuda_version = 12020; }, "the driver supports CUDA 12.2, at least 12.4 expected"},
  };
  for (const auto& c : cases) {
    Inventory node = eight_gpu_node();
    c.plant(node);
    const auto problems = expectation_problems(e, node);
    ASSERT_EQ(problems.size(), 1u) << c.expected << "\n" << lines(problems);
    EXPECT_EQ(problems[0].verdict, Verdict::fail);
    EXPECT_NE(problem_line(problems[0]).find(c.expected), std::string::npos) << lines(problems);
  }
}

TEST(ExpectedMachine, AnUnreportedFactIsInconclusive) {
  Inventory node = eight_gpu_node();
  node.gpus[0].pcie = PcieLink{};
  const auto problems = expectation_problems(parse_expectations("gpu.pcie_width = 16", "x"), node);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].verdict, Verdict::inconclusive);
}

TEST(ExpectedMachine, BadInputIsOneLineNamingIt) {
  auto message = [](const std::string& text) {
    try {
      parse_expectations(text, "node.conf");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("gpu.count = eight"), "node.conf line 1: gpu.count = eight: expected a whole number of GPUs, 0 or more");
  EXPECT_EQ(message("\ngpu.memory_min = lots"), "node.conf line 2: gpu.memory_min = lots: expected a size such as 79GiB or 80GB");
  EXPECT_EQ(message("gpu.pcie_width = 64"), "node.conf line 1: gpu.pcie_width = 64: expected lanes, 1 to 32");
  EXPECT_EQ(message("cuda.driver_min = new"), "node.conf line 1: cuda.driver_min = new: expected a CUDA version such as 12.4");
  EXPECT_EQ(message("gpu.count = 8\ngpu.count = 4"), "node.conf line 2: gpu.count is set twice");
  EXPECT_EQ(message("gpus 8"), "node.conf line 1: expected `key = value`, got 'gpus 8'");
  EXPECT_NE(message("gpu.cnt = 8").find("node.conf line 1: unknown key 'gpu.cnt' (known: gpu.count, gpu.model"),
            std::string::npos);
  EXPECT_THROW(load_expectations("/nonexistent/node.conf"), UsageError);
}

class BaselineExpectations : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipecheck-expect-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }
  fs::path dir_;
};

// A baseline recorded with its inventory: the node as it was then is what it should be now.
TEST_F(BaselineExpectations, ABaselinesInventoryIsTheExpectedMachine) {
  const nlohmann::json baseline = {{"schema", "pipecheck.baseline"}, {"version", 1},
                                   {"identity", {{"hostname", "gpu-a"}}}, {"report", nlohmann::json::object()},
                                   {"inventory", nlohmann::json(eight_gpu_node())}};
  write(dir_ / "baseline.json", json_text(baseline));
  const ExpectedMachine e = load_baseline_expectations(dir_ / "baseline.json");
  EXPECT_EQ(e.gpu_count, 8);
  EXPECT_EQ(e.gpu_model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(e.pcie_width, 16);
  EXPECT_EQ(e.driver_version, "580.65.06");
  EXPECT_EQ(lines(expectation_problems(e, eight_gpu_node())), "");
  Inventory lost_one = eight_gpu_node();
  lost_one.gpus.pop_back();
  *lost_one.memory.total_bytes -= 256 * kGiB;  // a DIMM gone
  const auto problems = expectation_problems(e, lost_one);
  EXPECT_EQ(problems.size(), 2u) << lines(problems);
  EXPECT_NE(lines(problems).find("baseline " + (dir_ / "baseline.json").string()), std::string::npos);

  // A run folder: its inventory.json.
  fs::create_directories(dir_ / "run");
  write(dir_ / "run" / "inventory.json", json_text(nlohmann::json(eight_gpu_node())));
  EXPECT_EQ(load_baseline_expectations(dir_ / "run").gpu_count, 8);
}

TEST_F(BaselineExpectations, AnOlderBaselineGivesItsGpuSet) {
  write(dir_ / "old.json", R"({"schema": "pipecheck.baseline", "version": 1, "report": {},
    "identity": {"hostname": "gpu-a", "gpus": [{"pci_bdf": "0000:17:00.0", "name": "NVIDIA H100 80GB HBM3"},
                                                {"pci_bdf": "0000:2a:00.0", "name": "NVIDIA H100 80GB HBM3"}]}})");
  const ExpectedMachine e = load_baseline_expectations(dir_ / "old.json");
  EXPECT_EQ(e.gpu_count, 2);
  EXPECT_EQ(e.gpu_model, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(e.host_memory_min_bytes.has_value());
}

TEST_F(BaselineExpectations, BadBaselinesAreUsageErrors) {
  write(dir_ / "garbage.json", "not json");
  write(dir_ / "other.json", R"({"schema": "something.else"})");
  EXPECT_THROW(load_baseline_expectations(dir_ / "garbage.json"), UsageError);
  EXPECT_THROW(load_baseline_expectations(dir_ / "other.json"), UsageError);
  EXPECT_THROW(load_baseline_expectations(dir_ / "missing.json"), UsageError);
  fs::create_directories(dir_ / "empty_run");
  EXPECT_THROW(load_baseline_expectations(dir_ / "empty_run"), UsageError);
}

}  // namespace
}  // namespace pipecheck
