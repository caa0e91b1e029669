// PCIe and GPU-selection host logic: sizes, cases, --gpus parsing, labels, NUMA choice from a
// recorded sysfs tree, and the copy checksum.
#include "pcie/pcie_plan.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

TEST(PcieSizes, FourKiBToOneGiB) {
  const auto standard = pcie_sizes(ProbeMode::standard);
  ASSERT_EQ(standard.size(), 10u);
  EXPECT_EQ(standard.front(), 4096u);
  EXPECT_EQ(standard.back(), 1ULL << 30);
  for (std::size_t i = 1; i < standard.size(); ++i) EXPECT_EQ(standard[i], standard[i - 1] * 4);
  const auto full = pcie_sizes(ProbeMode::full);
  EXPECT_EQ(full.size(), 19u);
  EXPECT_EQ(full.back(), 1ULL << 30);
  // Quick is an acceptance: the one large copy the link's bandwidth is judged on.
  EXPECT_EQ(pcie_sizes(ProbeMode::quick), (std::vector<std::uint64_t>{256ULL << 20}));
  for (auto size : full) EXPECT_EQ(size % 16, 0u);  // the SM copy kernel moves 16-byte words
}

TEST(PcieCases, KindsAndBatching) {
  const auto kinds = pcie_copy_kinds();
  EXPECT_EQ(kinds.size(), 8u);
  for (const auto& kind : kinds) {
    EXPECT_FALSE(kind.memory == HostMemory::pageable && kind.direction == CopyDirection::bidir);
    EXPECT_EQ(kind.engine == CopyEngine::sm, kind.memory == HostMemory::mapped);
  }
  EXPECT_EQ(copies_per_iteration(4096), 128);
  EXPECT_EQ(copies_per_iteration(16ULL << 20), 4);
  EXPECT_EQ(copies_per_iteration(1ULL << 30), 1);
  EXPECT_STREQ(direction_name(CopyDirection::bidir), "bidir");
  EXPECT_STREQ(host_memory_name(HostMemory::mapped), "mapped");
  EXPECT_STREQ(engine_name(CopyEngine::ce), "ce");
}

TEST(PcieGpuList, ParsesIndicesAndAll) {
  EXPECT_EQ(parse_gpu_list("0,2", 4), (std::vector<int>{0, 2}));
  EXPECT_EQ(parse_gpu_list(" 3 ", 4), (std::vector<int>{3}));
  EXPECT_EQ(parse_gpu_list("all", 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parse_gpu_list("", 2), (std::vector<int>{0, 1}));
}

TEST(PcieGpuList, BadListIsAUsageErrorNamingIt) {
  for (const std::string bad : {"0,x", "4", "0,0", "-1", "1,", "0;1", "1.0"}) {
    try {
      parse_gpu_list(bad, 4);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("--gpus " + bad + ":"), std::string::npos) << error.what();
    }
  }
}

CudaReport two_gpus() {
  CudaReport report;
  report.cuda_built = true;
  for (int i = 0; i < 2; ++i) {
    CudaDeviceFacts device;
    device.index = i;
    device.name = "NVIDIA H200";
    device.cc_major = 9;
    device.sm_count = 132;
    device.l2_bytes = 60 << 20;
    device.total_memory_bytes = 150000000000ULL;
    device.pci_bus = i == 0 ? 0x17 : 0xb3;
    report.devices.push_back(device);
  }
  return report;
}

TEST(PcieGpuList, SelectsGpusWithBusIdsOrSkips) {
  std::string skip;
  ProbeOptions options;
  EXPECT_TRUE(select_gpus(CudaReport{}, options, skip).empty());
  EXPECT_EQ(skip, "no CUDA device");

  skip.clear();
  options.values["gpus"] = {"1"};
  const auto gpus = select_gpus(two_gpus(), options, skip);
  EXPECT_EQ(skip, "");
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].index, 1);
  EXPECT_EQ(gpus[0].bdf, "0000:b3:00.0");
  EXPECT_EQ(gpus[0].sm_count, 132);
  EXPECT_EQ(gpus[0].l2_bytes, 60u << 20);
  const auto params = gpu_label_params(gpus[0]);
  EXPECT_EQ(params.at("gpu"), "1");
  EXPECT_EQ(params.at("gpu_bdf"), "0000:b3:00.0");
  EXPECT_EQ(params.at("gpu_name"), "NVIDIA H200");
  EXPECT_EQ(gpu_context_text(gpus), "1=NVIDIA H200@0000:b3:00.0");

  options.values["gpus"] = {"2"};
  EXPECT_THROW(select_gpus(two_gpus(), options, skip), UsageError);
}

TEST(PcieLinkLabel, FlagsADowntrainedLink) {
  PcieLink link;
  link.current_gts = 16.0;
  link.current_width = 8;
  link.max_gts = 32.0;
  link.max_width = 16;
  auto params = link_label_params(link);
  EXPECT_EQ(params.at("link_gts"), "16");
  EXPECT_EQ(params.at("link_width"), "8");
  EXPECT_EQ(params.at("link_max_gts"), "32");
  EXPECT_EQ(params.at("link_downtrained"), "yes");
  link.current_gts = 32.0;
  link.current_width = 16;
  EXPECT_EQ(link_label_params(link).at("link_downtrained"), "no");
  EXPECT_TRUE(link_label_params(PcieLink{}).empty());
}

TEST(PcieCpuList, ParsesRanges) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_THROW(parse_cpu_list("3-1"), UsageError);
  EXPECT_THROW(parse_cpu_list("a"), UsageError);
}

// A recorded sysfs tree, written under a temporary root.
class PcieNumaTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("pipecheck-numa-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& path, const std::string& text) {
    const fs::path full = root_ / path.substr(1);
    fs::create_directories(full.parent_path());
    std::ofstream(full) << text << "\n";
  }
  void node(int n, const std::string& cpus, const std::string& distance) {
    write("/sys/devices/system/node/node" + std::to_string(n) + "/cpulist", cpus);
    write("/sys/devices/system/node/node" + std::to_string(n) + "/distance", distance);
  }
  void gpu(const std::string& bdf, int numa_node) {
    write("/sys/bus/pci/devices/" + bdf + "/numa_node", std::to_string(numa_node));
  }
  fs::path root_;
};

TEST_F(PcieNumaTree, TwoSocketsGiveLocalAndRemote) {
  node(0, "0-31", "10 21");
  node(1, "32-63", "21 10");
  write("/sys/devices/system/node/online", "0-1");  // not a node: ignored
  gpu("0000:b3:00.0", 1);
  const auto choices = numa_choices(SysfsRoot(root_), "0000:b3:00.0");
  ASSERT_EQ(choices.size(), 2u);
  EXPECT_EQ(choices[0].placement, "local");
  EXPECT_EQ(choices[0].node, 1);
  EXPECT_EQ(choices[1].placement, "remote");
  EXPECT_EQ(choices[1].node, 0);
}

TEST_F(PcieNumaTree, RemoteIsTheFarthestNodeNotASiblingCluster) {
  // Two sockets of two sub-NUMA clusters each; the GPU hangs off node 1.
  node(0, "0-15", "10 12 32 32");
  node(1, "16-31", "12 10 32 32");
  node(2, "32-47", "32 32 10 12");
  node(3, "48-63", "32 32 12 10");
  gpu("0000:17:00.0", 1);
  const auto choices = numa_choices(SysfsRoot(root_), "0000:17:00.0");
  ASSERT_EQ(choices.size(), 2u);
  EXPECT_EQ(choices[0].node, 1);
  EXPECT_EQ(choices[1].node, 2);  // farthest; ties keep the lowest node
}

TEST_F(PcieNumaTree, MemoryOnlyNodeIsNoChoice) {
  node(0, "0-31", "10 20");
  node(1, "", "20 10");  // CXL memory: no CPUs to run the copying thread
  gpu("0000:17:00.0", 0);
  EXPECT_EQ(numa_nodes_with_cpus(SysfsRoot(root_)), std::vector<int>{0});
  const auto choices = numa_choices(SysfsRoot(root_), "0000:17:00.0");
  ASSERT_EQ(choices.size(), 1u);
  EXPECT_EQ(choices[0].placement, "local");
  EXPECT_EQ(choices[0].node, -1);
}

TEST_F(PcieNumaTree, UnknownGpuNodeOnTwoSocketsIsNotGuessed) {
  node(0, "0-31", "10 21");
  node(1, "32-63", "21 10");
  gpu("0000:17:00.0", -1);  // what VMs report
  const auto choices = numa_choices(SysfsRoot(root_), "0000:17:00.0");
  ASSERT_EQ(choices.size(), 1u);
  EXPECT_EQ(choices[0].placement, "unknown");
  EXPECT_EQ(choices[0].node, -1);
}

TEST_F(PcieNumaTree, OneNodeIsLocalOnly) {
  node(0, "0-7", "10");
  gpu("0000:17:00.0", -1);
  const auto choices = numa_choices(SysfsRoot(root_), "0000:17:00.0");
  ASSERT_EQ(choices.size(), 1u);
  EXPECT_EQ(choices[0].placement, "local");
  EXPECT_EQ(choices[0].node, -1);  // nothing to choose: no binding
  EXPECT_EQ(gpu_numa_node(SysfsRoot(root_), "0000:17:00.0"), std::nullopt);
}

TEST(PcieNumaBinding, NoNodeLeavesThreadAlone) {
  const NumaBinding binding(SysfsRoot("/"), -1);
  EXPECT_FALSE(binding.bound());
}

TEST(PcieNumaBinding, BindsToALiveNodeAndRestores) {
  const SysfsRoot sys("/");
  const auto nodes = numa_nodes_with_cpus(sys);
  if (nodes.empty()) GTEST_SKIP() << "no NUMA nodes in /sys/devices/system/node";
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
  {
    const NumaBinding binding(sys, nodes.front());
    EXPECT_TRUE(binding.bound());
  }
  cpu_set_t after;
  ASSERT_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

TEST(PcieChecksum, CatchesAFlippedByteAndSwappedWords) {
  std::vector<std::uint64_t> words(4096);
  for (std::uint64_t i = 0; i < words.size(); ++i) words[i] = pattern_word(42, i);
  const std::uint64_t expected = pattern_checksum(42, words.size());
  EXPECT_EQ(checksum_words(words.data(), words.size()), expected);
  EXPECT_NE(pattern_checksum(43, words.size()), expected);

  auto flipped = words;
  reinterpret_cast<unsigned char*>(flipped.data())[1234] ^= 0x10;
  EXPECT_NE(checksum_words(flipped.data(), flipped.size()), expected);
  auto swapped = words;
  std::swap(swapped[10], swapped[11]);
  EXPECT_NE(checksum_words(swapped.data(), swapped.size()), expected);
  // A stale (all-zero) target cannot pass.
  std::vector<std::uint64_t> zeros(words.size(), 0);
  EXPECT_NE(checksum_words(zeros.data(), zeros.size()), expected);
}

// What the checksum caught is named: the first word that differs, its byte offset in the copy
// and both values, as the probe scans the target (the device side chunk by chunk) after a wrong
// checksum.
TEST(PcieChecksum, TheFlippedWordIsNamed) {
  std::vector<std::uint64_t> words(4096);
  for (std::uint64_t i = 0; i < words.size(); ++i) words[i] = pattern_word(7, 1000 + i);
  EXPECT_EQ(pattern_differences(words.data(), words.size(), 7, 1000).count, 0u);
  EXPECT_EQ(describe(pattern_differences(words.data(), words.size(), 7, 1000)), "");
  const std::uint64_t expected = words[300];
  reinterpret_cast<unsigned char*>(words.data())[8 * 300 + 6] ^= 0x02;
  const PatternDifference difference = pattern_differences(words.data(), words.size(), 7, 1000);
  EXPECT_EQ(difference.count, 1u);
  EXPECT_EQ(difference.first_index, 1300u);  // its index in the whole copy, not in the chunk
  EXPECT_EQ(difference.expected, expected);
  const std::string text = describe(difference);
  EXPECT_EQ(text.rfind("word 1300 (byte 10400) is 0x", 0), 0u) << text;
  EXPECT_NE(text.find("; 1 word differs"), std::string::npos) << text;
}

}  // namespace
}  // namespace pipecheck
