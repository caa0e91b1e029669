// Physical ceilings: which bound makes a figure invalid, stage by stage, and where the bound is
// looser than the ceiling a percentage is taken against (links that train up, vendor clocks,
// in-network reduction), so that no honest figure is called invalid.
#include "ceilings/physical_ceiling.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Measurement measured(const std::string& stage, double median, const std::string& unit,
                     std::map<std::string, std::string> params) {
  Measurement m;
  m.key = stage + "/x";
  m.stage = stage;
  m.what = m.key;
  m.unit = unit;
  m.stats = {median, median, median, 5};
  m.params = std::move(params);
  return m;
}

GpuInfo h100(const std::string& bdf, int index) {
  GpuInfo gpu;
  gpu.cuda_index = index;
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.pci_bdf = bdf;
  gpu.cc_major = 9;
  gpu.sm_count = 132;
  gpu.max_sm_clock_mhz = 1980;
  gpu.max_mem_clock_mhz = 2619;
  gpu.memory_bus_width_bits = 5120;
  gpu.pcie = {32, 16, 32, 16};
  gpu.nvlink.active_links = 18;
  gpu.nvlink.version = 4;
  return gpu;
}

TEST(PhysicalCeiling, GemmTakesTheLargerOfVendorAndMaxClock) {
  Inventory inventory;
  inventory.gpus.push_back(h100("0000:17:00.0", 0));
  const PhysicalCeilings physical(inventory);
  const auto bound = physical.of(measured("compute", 900, "TFLOP/s", {{"dtype", "bf16"}, {"gpu", "0"}}));
  ASSERT_TRUE(bound);
  EXPECT_NEAR(bound->value, 1070.5, 0.1);  // not the vendor's 989.4, which assumes 1830 MHz
}

TEST(PhysicalCeiling, HbmTakesTheLargerOfVendorAndMemoryClock) {
  Inventory inventory;
  inventory.gpus.push_back(h100("0000:17:00.0", 0));
  const auto bound = PhysicalCeilings(inventory).of(measured("memory", 3000, "GB/s", {{"op", "copy"}, {"gpu", "0"}}));
  ASSERT_TRUE(bound);
  EXPECT_NEAR(bound->value, 3352.3, 0.1);  // 2 x 2619 MHz x 5120 bit / 8, above the vendor's 3350
}

TEST(PhysicalCeiling, CopiesToSeveralGpusAtOnceSumTheirLinks) {
  Inventory inventory;
  inventory.gpus.push_back(h100("0000:17:00.0", 0));
  inventory.gpus.push_back(h100("0000:65:00.0", 1));
  inventory.gpus[1].pcie = {2.5, 16, 32, 16};  // idle, trained down
  const PhysicalCeilings physical(inventory);
  auto m = measured("pcie", 100, "GB/s", {{"direction", "h2d"}, {"gpu", "0,1"}, {"gpu_bdf", "0000:17:00.0,0000:65:00.0"}});
  const auto bound = physical.of(m);
  ASSERT_TRUE(bound);
  EXPECT_NEAR(bound->value, 2 * 63.0, 0.2);
  EXPECT_FALSE(physical.violation(m));
  m.params["direction"] = "bidir";
  EXPECT_NEAR(physical.of(m)->value, 4 * 63.0, 0.4);
  m.stats.median = 300;  // 119% of 252 GB/s
  EXPECT_TRUE(physical.violation(m));
}

// A link whose maximum is not reported may train up: no bound, so no invalid.
TEST(PhysicalCeiling, UnknownLinkMaximumGivesNoBound) {
  Inventory inventory;
  inventory.gpus.push_back(h100("0000:17:00.0", 0));
  inventory.gpus[0].pcie = {2.5, 16, std::nullopt, std::nullopt};
  EXPECT_FALSE(PhysicalCeilings(inventory).of(measured("pcie", 50, "GB/s", {{"direction", "h2d"}, {"gpu", "0"}})));
}

TEST(PhysicalCeiling, NvmeReadsAreBoundByTheLinksMaximum) {
  Inventory inventory;
  BlockDevice nvme;
  nvme.name = "nvme0n1";
  nvme.kind = DiskKind::nvme;
  nvme.pcie = {2.5, 4, 16, 4};  // idle: 0.25 GB/s; at Gen4 x4 7.88 GB/s
  inventory.disks.push_back(nvme);
  const PhysicalCeilings physical(inventory);
  auto read = measured("storage", 6.8, "GB/s", {{"device", "nvme0n1"}, {"pattern", "seq_read"}, {"disk_kind", "nvme"}});
  ASSERT_TRUE(physical.of(read));
  EXPECT_NEAR(physical.of(read)->value, 7.88, 0.01);
  EXPECT_FALSE(physical.violation(read));
  read.stats.median = 12;  // the page cache, not the disk
  ASSERT_TRUE(physical.violation(read));
  EXPECT_TRUE(contains(*physical.violation(read), "measured 12.0 GB/s, above the physical ceiling 7.88 GB/s"))
      << *physical.violation(read);
}

// 8 x H100 all-reduce with NVLS reaches ~480 GB/s busbw against 450 GB/s of NVLink a direction:
// in-network reduction moves each byte once, so busbw may reach bus_factor x the link.
TEST(PhysicalCeiling, AllReduceMayExceedTheLinkByItsBusFactor) {
  Inventory inventory;
  std::string bdfs;
  for (int i = 0; i < 8; ++i) {
    const std::string bdf = "0000:" + std::to_string(10 + i) + ":00.0";
    inventory.gpus.push_back(h100(bdf, i));
    bdfs += (i ? "," : "") + bdf;
  }
  const PhysicalCeilings physical(inventory);
  auto all_reduce = measured("comm", 480, "GB/s",
                             {{"collective", "all_reduce"}, {"ranks", "8"}, {"bus_factor", "1.75"}, {"gpu_bdfs", bdfs}});
  ASSERT_TRUE(physical.of(all_reduce));
  EXPECT_NEAR(physical.of(all_reduce)->value, 450 * 1.75, 0.1);
  EXPECT_FALSE(physical.violation(all_reduce));
  auto all_gather = all_reduce;
  all_gather.params["collective"] = "all_gather";
  all_gather.params["bus_factor"] = "0.875";
  EXPECT_NEAR(physical.of(all_gather)->value, 450, 0.1);
  EXPECT_TRUE(physical.violation(all_gather));
}

TEST(PhysicalCeiling, HostMemoryAgainstItsChannels) {
  Inventory inventory;
  inventory.memory.memory_channels = 2;
  inventory.memory.dimms = {{"A1", 16ull << 30, 3200, 64, "DDR4"}, {"B1", 16ull << 30, 3200, 64, "DDR4"}};
  const PhysicalCeilings physical(inventory);
  auto copy = measured("hostmem", 40, "GB/s", {{"op", "memcpy"}, {"threads", "2"}});
  EXPECT_NEAR(physical.of(copy)->value, 51.2, 0.01);
  EXPECT_FALSE(physical.violation(copy));
  copy.stats.median = 54;  // 105.5%: a cache served it, or the channel count is wrong
  EXPECT_TRUE(physical.violation(copy));
}

TEST(PhysicalCeiling, DecodeHasNone) {
  Inventory inventory;
  inventory.cpu.physical_cores = 2;
  auto decode = measured("decode", 1e9, "images/s", {{"threads", "2"}});
  decode.ceiling = CeilingResult::known({200, "images/s", "linear scaling", "2 x 100"});
  EXPECT_FALSE(PhysicalCeilings(inventory).of(decode));
}

// The sanity bound of ceilings/cpu_ceiling over the inventory's cores, in the figure's unit.
TEST(PhysicalCeiling, CpuFlopsAgainstTheSanityBound) {
  Inventory inventory;
  EXPECT_FALSE(PhysicalCeilings(inventory).of(measured("stress", 1, "GFLOP/s", {{"dtype", "fp64"}})))
      << "no core counted: no bound invented";
  inventory.cpu.logical_cpus = 4;
  EXPECT_DOUBLE_EQ(PhysicalCeilings(inventory).of(measured("stress", 1, "GFLOP/s", {{"dtype", "fp64"}}))->value,
                   4 * 6.0 * 32);  // logical CPUs when the cores are not counted
  inventory.cpu.physical_cores = 2;
  const PhysicalCeilings physical(inventory);
  EXPECT_DOUBLE_EQ(physical.of(measured("stress", 1, "GFLOP/s", {{"dtype", "fp64"}}))->value, 384);
  // No precision said: the looser FP32 bound; in TFLOP/s too.
  EXPECT_DOUBLE_EQ(physical.of(measured("stress", 1, "GFLOP/s", {}))->value, 768);
  EXPECT_DOUBLE_EQ(physical.of(measured("stress", 1, "TFLOP/s", {{"dtype", "fp64"}}))->value, 0.384);
  // A GPU's FLOP/s are not the CPU's.
  EXPECT_FALSE(physical.of(measured("stress", 1, "TFLOP/s", {{"gpu", "0"}})));
}

}  // namespace
}  // namespace pipecheck
