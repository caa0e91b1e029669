// Tests of the ceilings model against published figures: GEMM, HBM, PCIe, NVLink, disk and DRAM
// ceilings, their derivation text, and the precise reasons when no ceiling can be known.
#include "ceilings/ceilings.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

GpuInfo make_gpu(std::string name, int major, int minor, std::optional<int> sms,
                 std::optional<int> clock_mhz) {
  GpuInfo gpu;
  gpu.name = std::move(name);
  gpu.cc_major = major;
  gpu.cc_minor = minor;
  gpu.sm_count = sms;
  gpu.max_sm_clock_mhz = clock_mhz;
  return gpu;
}

GpuInfo h100_sxm(int clock_mhz = 1980) { return make_gpu("NVIDIA H100 80GB HBM3", 9, 0, 132, clock_mhz); }

double value_of(const CeilingResult& result) {
  EXPECT_TRUE(result.ceiling.has_value()) << result.unknown_reason;
  return result.ceiling ? result.ceiling->value : -1;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CeilingCompute, H100SxmBf16TheoreticalAtMaxClockOverstatesVendor) {
  const auto c = gpu_compute_ceiling(h100_sxm(), Dtype::bf16);
  EXPECT_NEAR(value_of(c.theoretical), 1070.5, 0.05);  // 132 x 1980 x 4096
  const auto& t = *c.theoretical.ceiling;
  EXPECT_EQ(t.unit, "TFLOP/s");
  EXPECT_EQ(t.basis, "theoretical");
  EXPECT_EQ(t.derivation,
            "1070.5 TFLOP/s = 132 SMs x 1980 MHz x 4096 FLOP/clk/SM (sm_90, bf16 dense, FP32 "
            "accumulate, max SM clock)");
  EXPECT_NEAR(value_of(c.vendor), 989.4, 1e-9);
  EXPECT_TRUE(contains(c.vendor.ceiling->derivation, "989.4 TFLOP/s vendor spec (H100 SXM, dense BF16"))
      << c.vendor.ceiling->derivation;
  EXPECT_TRUE(contains(c.vendor.ceiling->derivation, "at 1830 MHz boost"));
  EXPECT_EQ(c.vendor.ceiling->basis, "vendor spec");
  EXPECT_EQ(&c.preferred(), &c.vendor);
}

TEST(CeilingCompute, H100AtVendorTensorClockMatchesVendorFigure) {
  // 132 x 1830 MHz x 4096 = 989.43e12: the spec sheet's tensor peak is quoted at 1830 MHz.
  const auto c = gpu_compute_ceiling(h100_sxm(1830), Dtype::bf16);
  EXPECT_NEAR(value_of(c.theoretical), 989.4, 0.05);
}

TEST(CeilingCompute, A100Bf16) {
  const auto c = gpu_compute_ceiling(make_gpu("NVIDIA A100-SXM4-80GB", 8, 0, 108, 1410), Dtype::bf16);
  EXPECT_NEAR(value_of(c.theoretical), 311.9, 0.05);
  EXPECT_NEAR(value_of(c.vendor), 312, 1e-9);
}

TEST(CeilingCompute, V100Fp16) {
  const auto c = gpu_compute_ceiling(make_gpu("Tesla V100-SXM2-16GB", 7, 0, 80, 1530), Dtype::fp16);
  EXPECT_NEAR(value_of(c.theoretical), 125.3, 0.05);
  EXPECT_NEAR(value_of(c.vendor), 125, 1e-9);
}

TEST(CeilingCompute, H100Fp32) {
  const auto c = gpu_compute_ceiling(h100_sxm(), Dtype::fp32);
  EXPECT_NEAR(value_of(c.theoretical), 66.9, 0.05);
  EXPECT_TRUE(contains(c.theoretical.ceiling->derivation, "256 FLOP/clk/SM (sm_90, fp32 dense"));
}

TEST(CeilingCompute, Int8IsInTops) {
  const auto c = gpu_compute_ceiling(make_gpu("NVIDIA A100-PCIE-40GB", 8, 0, 108, 1410), Dtype::int8);
  EXPECT_NEAR(value_of(c.theoretical), 623.7, 0.05);  // 108 x 1410 x 4096
  EXPECT_EQ(c.theoretical.ceiling->unit, "TOPS");
  EXPECT_TRUE(contains(c.theoretical.ceiling->derivation, "OP/clk/SM"));
  EXPECT_EQ(c.vendor.ceiling->unit, "TOPS");
}

TEST(CeilingCompute, Fp8OnSm80IsUnknown) {
  const auto c = gpu_compute_ceiling(make_gpu("NVIDIA A100-SXM4-40GB", 8, 0, 108, 1410), Dtype::fp8);
  EXPECT_FALSE(c.theoretical.ceiling);
  EXPECT_TRUE(contains(c.theoretical.unknown_reason, "FP8")) << c.theoretical.unknown_reason;
  EXPECT_FALSE(c.vendor.ceiling);
  EXPECT_FALSE(c.preferred().ceiling);
}

TEST(CeilingCompute, Tf32BeforeSm80IsUnknown) {
  const auto c = gpu_compute_ceiling(make_gpu("Tesla V100-SXM2-16GB", 7, 0, 80, 1530), Dtype::tf32);
  EXPECT_FALSE(c.theoretical.ceiling);
  EXPECT_TRUE(contains(c.theoretical.unknown_reason, "TF32"));
}

TEST(CeilingCompute, MissingSmCountOrClockIsUnknownNamingWhatIsMissing) {
  const auto no_sms = gpu_compute_ceiling(make_gpu("NVIDIA H100 80GB HBM3", 9, 0, std::nullopt, 1980),
                                          Dtype::bf16);
  EXPECT_FALSE(no_sms.theoretical.ceiling);
  EXPECT_TRUE(contains(no_sms.theoretical.unknown_reason, "SM count"));
  EXPECT_FALSE(contains(no_sms.theoretical.unknown_reason, "clock"));
  const auto no_clock =
      gpu_compute_ceiling(make_gpu("NVIDIA H100 80GB HBM3", 9, 0, 132, std::nullopt), Dtype::bf16);
  EXPECT_FALSE(no_clock.theoretical.ceiling);
  EXPECT_TRUE(contains(no_clock.theoretical.unknown_reason, "max SM clock"));
  // The vendor figure does not need them.
  EXPECT_TRUE(no_clock.vendor.ceiling);
}

TEST(CeilingCompute, UnknownArchitectureAndSkuFallBackToNothing) {
  const auto c = gpu_compute_ceiling(make_gpu("NVIDIA GeForce GTX 1080", 6, 1, 20, 1733), Dtype::fp32);
  EXPECT_FALSE(c.theoretical.ceiling);
  EXPECT_TRUE(contains(c.theoretical.unknown_reason, "sm_61"));
  EXPECT_FALSE(c.vendor.ceiling);
  EXPECT_TRUE(contains(c.vendor.unknown_reason, "GTX 1080"));
}

TEST(CeilingCompute, PreferredIsTheoreticalWhenNoVendorSpec) {
  const auto c = gpu_compute_ceiling(make_gpu("NVIDIA RTX A6000", 8, 6, 84, 1800), Dtype::bf16);
  ASSERT_FALSE(c.vendor.ceiling);
  EXPECT_EQ(&c.preferred(), &c.theoretical);
  EXPECT_NEAR(value_of(c.preferred()), 84 * 1800 * 1024 / 1e6, 1e-6);  // professional rate
}

TEST(CeilingCompute, GeForceBoardsGetHalfRateFp32AccumulateAndSaySo) {
  const auto geforce =
      gpu_compute_ceiling(make_gpu("NVIDIA GeForce RTX 4090", 8, 9, 128, 2520), Dtype::bf16);
  EXPECT_NEAR(value_of(geforce.theoretical), 165.2, 0.05);  // 128 x 2520 x 512
  EXPECT_TRUE(contains(geforce.theoretical.ceiling->derivation, "GeForce"));
  EXPECT_NEAR(value_of(geforce.vendor), 165.2, 1e-9);
  const auto pro = gpu_compute_ceiling(make_gpu("NVIDIA L40S", 8, 9, 142, 2520), Dtype::bf16);
  EXPECT_NEAR(value_of(pro.theoretical), 366.4, 0.05);  // 142 x 2520 x 1024
  EXPECT_FALSE(contains(pro.theoretical.ceiling->derivation, "GeForce"));
  // INT8 is not halved on GeForce.
  const auto int8 = gpu_compute_ceiling(make_gpu("NVIDIA GeForce RTX 4090", 8, 9, 128, 2520), Dtype::int8);
  EXPECT_NEAR(value_of(int8.theoretical), 660.6, 0.05);
}

TEST(CeilingCompute, VendorSpecNotUsedForAMigSlice) {
  const auto c = gpu_compute_ceiling(make_gpu("NVIDIA H100 80GB HBM3", 9, 0, 16, 1980), Dtype::bf16);
  EXPECT_FALSE(c.vendor.ceiling);
  EXPECT_TRUE(contains(c.vendor.unknown_reason, "132 SMs"));
  EXPECT_EQ(&c.preferred(), &c.theoretical);
}

TEST(CeilingDtype, ParseAndPrintRoundTrip) {
  EXPECT_EQ(parse_dtype("bf16"), Dtype::bf16);
  EXPECT_EQ(parse_dtype("FP8"), Dtype::fp8);
  EXPECT_EQ(parse_dtype("int8"), Dtype::int8);
  EXPECT_FALSE(parse_dtype("fp4"));
  for (Dtype d : {Dtype::fp64, Dtype::fp32, Dtype::tf32, Dtype::fp16, Dtype::bf16, Dtype::fp8, Dtype::int8}) {
    EXPECT_EQ(parse_dtype(to_string(d)), d);
  }
}

TEST(CeilingMemory, A100HbmFromClockAndBusWidth) {
  GpuInfo gpu = make_gpu("NVIDIA A100-SXM4-80GB", 8, 0, 108, 1410);
  gpu.max_mem_clock_mhz = 1593;
  gpu.memory_bus_width_bits = 5120;
  const auto c = gpu_memory_ceiling(gpu);
  EXPECT_NEAR(value_of(c.theoretical), 2039.0, 0.1);
  EXPECT_EQ(c.theoretical.ceiling->unit, "GB/s");
  EXPECT_EQ(c.theoretical.ceiling->derivation,
            "2039.0 GB/s = 2 x 1593 MHz x 5120 bit / 8 (memory clock, double data rate)");
  EXPECT_NEAR(value_of(c.vendor), 2039, 1e-9);
}

TEST(CeilingMemory, H200TheoreticalAndVendor) {
  GpuInfo gpu = make_gpu("NVIDIA H200", 9, 0, 132, 1980);
  gpu.max_mem_clock_mhz = 3201;
  gpu.memory_bus_width_bits = 6144;
  const auto c = gpu_memory_ceiling(gpu);
  EXPECT_NEAR(value_of(c.theoretical), 4917, 0.5);  // 4916.7
  EXPECT_NEAR(value_of(c.vendor), 4800, 1e-9);
  EXPECT_EQ(&c.preferred(), &c.vendor);
}

TEST(CeilingMemory, MissingBusWidthIsUnknown) {
  GpuInfo gpu = make_gpu("NVIDIA H200", 9, 0, 132, 1980);
  gpu.max_mem_clock_mhz = 3201;
  const auto c = gpu_memory_ceiling(gpu);
  EXPECT_FALSE(c.theoretical.ceiling);
  EXPECT_TRUE(contains(c.theoretical.unknown_reason, "bus width"));
}

PcieLink link(double gts, int width, double max_gts, int max_width) {
  PcieLink l;
  l.current_gts = gts;
  l.current_width = width;
  l.max_gts = max_gts;
  l.max_width = max_width;
  return l;
}

TEST(CeilingPcie, PerDirectionFiguresByGeneration) {
  EXPECT_NEAR(value_of(pcie_link_ceiling(link(16, 16, 16, 16))), 31.5, 0.01);
  EXPECT_NEAR(value_of(pcie_link_ceiling(link(32, 16, 32, 16))), 63.0, 0.02);
  EXPECT_NEAR(value_of(pcie_link_ceiling(link(8, 16, 8, 16))), 15.75, 0.01);
  EXPECT_NEAR(value_of(pcie_link_ceiling(link(5, 8, 5, 8))), 4.0, 1e-9);  // 8b/10b
  EXPECT_NEAR(value_of(pcie_link_ceiling(link(2.5, 1, 2.5, 1))), 0.25, 1e-9);
}

TEST(CeilingPcie, DerivationText) {
  const auto c = pcie_link_ceiling(link(16, 16, 16, 16));
  EXPECT_EQ(c.ceiling->derivation, "31.5 GB/s = 16 GT/s x16 x 128/130 / 8 per direction (current link)");
  EXPECT_EQ(c.ceiling->basis, "link");
  EXPECT_EQ(c.ceiling->unit, "GB/s");
  EXPECT_EQ(pcie_link_ceiling(link(8, 16, 8, 16)).ceiling->derivation,
            "15.75 GB/s = 8 GT/s x16 x 128/130 / 8 per direction (current link)");
}

TEST(CeilingPcie, DowntrainedLinkUsesCurrentAndNamesItsMax) {
  const auto c = pcie_link_ceiling(link(16, 16, 32, 16));
  EXPECT_NEAR(value_of(c), 31.5, 0.01);
  EXPECT_TRUE(contains(c.ceiling->derivation, "link trained below its max of 32 GT/s x16"))
      << c.ceiling->derivation;
  const auto narrow = pcie_link_ceiling(link(32, 8, 32, 16));
  EXPECT_NEAR(value_of(narrow), 31.5, 0.01);
  EXPECT_TRUE(contains(narrow.ceiling->derivation, "max of 32 GT/s x16"));
}

TEST(CeilingPcie, Gen6UsesFlitEfficiencyAndSaysSo) {
  const auto c = pcie_link_ceiling(link(64, 16, 64, 16));
  EXPECT_NEAR(value_of(c), 118.0, 0.01);  // 64 x 16 x 236/256 / 8: TLP bytes only (6 DLP + 8 CRC + 6 FEC)
  EXPECT_TRUE(contains(c.ceiling->derivation, "236/256"));
  EXPECT_TRUE(contains(c.ceiling->derivation, "FLIT"));
}

TEST(CeilingPcie, UnknownSpeedOrWidthIsUnknown) {
  PcieLink no_speed;
  no_speed.current_width = 16;
  EXPECT_FALSE(pcie_link_ceiling(no_speed).ceiling);
  EXPECT_TRUE(contains(pcie_link_ceiling(no_speed).unknown_reason, "speed"));
  PcieLink no_width;
  no_width.current_gts = 16;
  EXPECT_FALSE(pcie_link_ceiling(no_width).ceiling);
  EXPECT_TRUE(contains(pcie_link_ceiling(no_width).unknown_reason, "width"));
  EXPECT_FALSE(pcie_link_ceiling(link(12, 16, 12, 16)).ceiling);  // not a PCIe rate
}

TEST(CeilingNvlink, H100EighteenLinks) {
  GpuInfo gpu = h100_sxm();
  gpu.nvlink.active_links = 18;
  const auto c = nvlink_ceiling(gpu);
  EXPECT_NEAR(value_of(c), 450, 1e-9);
  EXPECT_TRUE(contains(c.ceiling->derivation, "18 active links x 25 GB/s per link per direction"))
      << c.ceiling->derivation;
  EXPECT_TRUE(contains(c.ceiling->derivation, "NVLink4"));
}

TEST(CeilingNvlink, VersionFromNvmlWinsOverComputeCapability) {
  GpuInfo gpu = make_gpu("NVIDIA B200", 10, 0, 148, 1965);
  gpu.nvlink.active_links = 18;
  EXPECT_NEAR(value_of(nvlink_ceiling(gpu)), 900, 1e-9);  // NVLink5 from cc 10.0
  gpu.nvlink.version = 4;
  EXPECT_NEAR(value_of(nvlink_ceiling(gpu)), 450, 1e-9);
  GpuInfo a100 = make_gpu("NVIDIA A100-SXM4-80GB", 8, 0, 108, 1410);
  a100.nvlink.active_links = 12;
  EXPECT_NEAR(value_of(nvlink_ceiling(a100)), 300, 1e-9);
}

TEST(CeilingNvlink, NoActiveLinksOrUnknownGenerationIsUnknown) {
  GpuInfo gpu = h100_sxm();
  EXPECT_FALSE(nvlink_ceiling(gpu).ceiling);
  EXPECT_EQ(nvlink_ceiling(gpu).unknown_reason, "no active NVLink");
  GpuInfo ada = make_gpu("NVIDIA L40S", 8, 9, 142, 2520);
  ada.nvlink.active_links = 4;
  EXPECT_FALSE(nvlink_ceiling(ada).ceiling);
  EXPECT_TRUE(contains(nvlink_ceiling(ada).unknown_reason, "generation"));
}

TEST(CeilingNvlink, Ga102LinksAreNotA100Links) {
  // A40, RTX A6000, RTX 3090: NVLink 3 by generation, but 14.0625 GB/s per link per direction.
  GpuInfo ga102 = make_gpu("NVIDIA RTX A6000", 8, 6, 84, 1800);
  ga102.nvlink.active_links = 4;
  const auto c = nvlink_ceiling(ga102);
  EXPECT_NEAR(value_of(c), 56.25, 1e-9);
  EXPECT_TRUE(contains(c.ceiling->derivation, "4 active links x 14.0625 GB/s per link per direction")) << c.ceiling->derivation;
  ga102.nvlink.version = 3;  // as NVML reports it
  EXPECT_NEAR(value_of(nvlink_ceiling(ga102)), 56.25, 1e-9);
  GpuInfo a100 = make_gpu("NVIDIA A100-SXM4-80GB", 8, 0, 108, 1410);
  a100.nvlink.active_links = 12;
  a100.nvlink.version = 3;
  EXPECT_NEAR(value_of(nvlink_ceiling(a100)), 300, 1e-9);
}

TEST(CeilingDisk, SataLinkIs8b10b) {
  BlockDevice disk;
  disk.name = "sda";
  disk.kind = DiskKind::sata_ssd;
  disk.sata_gbps = 6.0;
  const auto c = disk_read_ceiling(disk);
  EXPECT_NEAR(value_of(c), 0.6, 1e-9);
  EXPECT_EQ(c.ceiling->derivation, "0.6 GB/s = 6.0 Gb/s x 8/10 / 8 (SATA link, 8b/10b)");
  disk.sata_gbps.reset();
  EXPECT_FALSE(disk_read_ceiling(disk).ceiling);
}

TEST(CeilingDisk, HddHasALinkCeilingButSaysTheMediaIsSlower) {
  BlockDevice disk;
  disk.kind = DiskKind::sata_hdd;
  disk.sata_gbps = 6.0;
  const auto c = disk_read_ceiling(disk);
  EXPECT_NEAR(value_of(c), 0.6, 1e-9);
  EXPECT_TRUE(contains(c.ceiling->derivation, "media is far slower"));
}

TEST(CeilingDisk, NvmeUsesItsPcieLink) {
  BlockDevice disk;
  disk.kind = DiskKind::nvme;
  disk.pcie = link(16, 4, 16, 4);
  const auto c = disk_read_ceiling(disk);
  EXPECT_NEAR(value_of(c), 7.88, 0.01);
  EXPECT_EQ(c.ceiling->derivation.rfind("NVMe link: ", 0), 0u) << c.ceiling->derivation;
  disk.pcie = PcieLink{};
  EXPECT_FALSE(disk_read_ceiling(disk).ceiling);
  EXPECT_TRUE(contains(disk_read_ceiling(disk).unknown_reason, "NVMe link"));
}

TEST(CeilingDisk, VirtualNetworkAndUnknownDisksHaveNoCeiling) {
  BlockDevice virtio;
  virtio.name = "vda";
  virtio.rotational = true;  // virtio says 1 too
  virtio.kind = DiskKind::virtual_disk;
  virtio.transport = "virtio";
  EXPECT_FALSE(disk_read_ceiling(virtio).ceiling);
  EXPECT_TRUE(contains(disk_read_ceiling(virtio).unknown_reason, "virtual disk"));
  BlockDevice nbd;
  nbd.kind = DiskKind::network;
  EXPECT_EQ(disk_read_ceiling(nbd).unknown_reason, "no ceiling: network block device");
  BlockDevice unknown;
  EXPECT_FALSE(disk_read_ceiling(unknown).ceiling);
}

DimmInfo dimm(std::optional<int> speed, std::optional<int> width) {
  DimmInfo d;
  d.speed_mts = speed;
  d.data_width_bits = width;
  d.type = "DDR5";
  return d;
}

TEST(CeilingDram, UnknownWithoutChannelCountEvenWithDimms) {
  MemoryInfo memory;
  memory.dimms = {dimm(4800, 64), dimm(4800, 64), dimm(4800, 64), dimm(4800, 64)};
  const auto c = dram_ceiling(memory);
  EXPECT_FALSE(c.ceiling);
  EXPECT_EQ(c.unknown_reason, "unknown: memory channel count not reported by the platform");
}

TEST(CeilingDram, UnknownWhenADimmLacksSpeed) {
  MemoryInfo memory;
  memory.memory_channels = 8;
  memory.dimms = {dimm(4800, 64), dimm(std::nullopt, 64)};
  EXPECT_EQ(dram_ceiling(memory).unknown_reason, "no DIMM speed in SMBIOS");
  memory.dimms = {dimm(4800, std::nullopt)};
  EXPECT_FALSE(dram_ceiling(memory).ceiling);
  memory.dimms.clear();
  EXPECT_FALSE(dram_ceiling(memory).ceiling);
}

TEST(CeilingDram, ChannelsTimesSpeedTimesWidthNotDimmCount) {
  MemoryInfo memory;
  memory.memory_channels = 12;
  memory.dimms = {dimm(4800, 64), dimm(4800, 64), dimm(4800, 64), dimm(4800, 64),
                  dimm(4800, 64), dimm(4800, 64), dimm(4800, 64), dimm(4800, 64)};
  const auto c = dram_ceiling(memory);
  EXPECT_NEAR(value_of(c), 460.8, 1e-9);  // 12 x 4800 MT/s x 8 bytes, not 8 DIMMs' worth
  EXPECT_TRUE(contains(c.ceiling->derivation, "12 channels x 4800 MT/s x 8 bytes"))
      << c.ceiling->derivation;
  memory.dimms.push_back(dimm(4400, 64));  // the slowest module sets the pace
  EXPECT_NEAR(value_of(dram_ceiling(memory)), 12 * 4400 * 8 / 1000.0, 1e-9);
}

}  // namespace
}  // namespace pipecheck
