// Joining CUDA and NVML facts by PCI bus id, and sysfs PCIe path / NUMA facts from a recorded
// tree (an H100 behind a PCIe switch, trained Gen4 x16 of Gen5 x16).
#include "inventory/gpu_inventory.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "pipecheck_config.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

const std::string downtrained_tree = std::string(PIPECHECK_TEST_DATA) + "/sysfs/gpu_downtrained";

CudaDeviceFacts cuda_device(int index, unsigned bus, const std::string& name) {
  CudaDeviceFacts device;
  device.index = index;
  device.name = name;
  device.cc_major = 9;
  device.cc_minor = 0;
  device.sm_count = 132;
  device.max_sm_clock_khz = 1755000;
  device.memory_clock_khz = 2619000;
  device.memory_bus_width_bits = 5120;
  device.total_memory_bytes = 85'520'809'984ull;
  device.l2_bytes = 52'428'800;
  device.pci_bus = bus;
  return device;
}

NvmlGpuFacts nvml_device(const std::string& bus_id, const std::string& uuid) {
  NvmlGpuFacts facts;
  facts.pci_bus_id = bus_id;
  facts.name = "NVIDIA H100 80GB HBM3";
  facts.uuid = uuid;
  facts.max_sm_clock_mhz = 1980;
  facts.max_mem_clock_mhz = 2619;
  facts.curr_link_generation = 5;
  facts.curr_link_width = 16;
  facts.max_link_generation = 5;
  facts.max_link_width = 16;
  facts.power_limit_mw = 700000;
  facts.nvlink_active = 18;
  facts.nvlink_probed = 18;
  facts.nvlink_version_code = 6;
  return facts;
}

CudaReport cuda_report(std::vector<CudaDeviceFacts> devices) {
  CudaReport report;
  report.cuda_built = true;
  report.runtime_version = 13000;
  report.driver_version = 13000;
  report.devices = std::move(devices);
  return report;
}

NvmlReport nvml_report(std::vector<NvmlGpuFacts> devices) {
  NvmlReport report;
  report.loaded = true;
  report.driver_version = "580.65.06";
  report.cuda_driver_version = 13000;
  report.devices = std::move(devices);
  return report;
}

bool has_note(const std::vector<std::string>& notes, const std::string& part) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& note) { return note.find(part) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& notes) {
  std::string text;
  for (const auto& note : notes) text += note + "\n";
  return text;
}

TEST(GpuBdf, NormalizesNvmlDomainAndCase) {
  EXPECT_EQ(normalize_bdf("00000000:17:00.0"), std::optional<std::string>("0000:17:00.0"));
  EXPECT_EQ(normalize_bdf("0000:B3:00.0"), std::optional<std::string>("0000:b3:00.0"));
  EXPECT_EQ(normalize_bdf("00000000:B3:1F.0"), std::optional<std::string>("0000:b3:1f.0"));
  EXPECT_EQ(normalize_bdf("17:00.0"), std::optional<std::string>("0000:17:00.0"));
  EXPECT_EQ(normalize_bdf("00010000:01:00.0"), std::optional<std::string>("10000:01:00.0"));
  EXPECT_FALSE(normalize_bdf("GPU-1234").has_value());
  EXPECT_FALSE(normalize_bdf("0000:17:00").has_value());
  EXPECT_FALSE(normalize_bdf("").has_value());
  EXPECT_EQ(format_bdf(0, 0x17, 0), "0000:17:00.0");
  EXPECT_EQ(format_bdf(1, 0xb3, 2, 1), "0001:b3:02.1");
}

TEST(GpuBdf, DecodesNvlinkVersionCodes) {
  EXPECT_EQ(nvlink_generation_of_code(4), std::optional<int>(3));  // 3.0, A100
  EXPECT_EQ(nvlink_generation_of_code(6), std::optional<int>(4));  // 4.0, H100
  EXPECT_EQ(nvlink_generation_of_code(7), std::optional<int>(5));  // 5.0, B200
  EXPECT_FALSE(nvlink_generation_of_code(0).has_value());
  EXPECT_FALSE(nvlink_generation_of_code(99).has_value());
}

TEST(GpuInventory, JoinsByBusIdNotByIndex) {
  // CUDA orders fastest first (b3 before 17); NVML orders by bus id, upper-case, 8-digit domain.
  const CudaReport cuda = cuda_report({cuda_device(0, 0xb3, "NVIDIA H100 80GB HBM3"),
                                       cuda_device(1, 0x17, "NVIDIA H100 80GB HBM3")});
  NvmlGpuFacts first = nvml_device("00000000:17:00.0", "GPU-aaaa");
  NvmlGpuFacts second = nvml_device("00000000:B3:00.0", "GPU-bbbb");
  second.power_limit_mw = 650000;
  const NvmlReport nvml = nvml_report({first, second});

  std::vector<std::string> notes;
  const std::vector<GpuInfo> gpus = merge_gpu_facts(cuda, nvml, notes);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].cuda_index, 0);
  EXPECT_EQ(gpus[0].pci_bdf, "0000:b3:00.0");
  EXPECT_EQ(gpus[0].uuid, "GPU-bbbb");
  EXPECT_EQ(gpus[0].power_limit_w, std::optional<double>(650.0));
  EXPECT_EQ(gpus[1].cuda_index, 1);
  EXPECT_EQ(gpus[1].pci_bdf, "0000:17:00.0");
  EXPECT_EQ(gpus[1].uuid, "GPU-aaaa");
  EXPECT_EQ(gpus[1].power_limit_w, std::optional<double>(700.0));
  EXPECT_TRUE(notes.empty()) << joined(notes);
}

TEST(GpuInventory, JoinIsIndependentOfNvmlOrder) {
  const CudaReport cuda = cuda_report({cuda_device(0, 0x17, "A"), cuda_device(1, 0xb3, "B")});
  std::vector<std::string> notes;
  const auto forward = merge_gpu_facts(cuda,
                                       nvml_report({nvml_device("00000000:17:00.0", "GPU-17"),
                                                    nvml_device("00000000:B3:00.0", "GPU-b3")}),
                                       notes);
  const auto reverse = merge_gpu_facts(cuda,
                                       nvml_report({nvml_device("00000000:B3:00.0", "GPU-b3"),
                                                    nvml_device("00000000:17:00.0", "GPU-17")}),
                                       notes);
  ASSERT_EQ(forward.size(), 2u);
  ASSERT_EQ(reverse.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(forward[i].uuid, reverse[i].uuid);
    EXPECT_EQ(forward[i].cuda_index, reverse[i].cuda_index);
  }
  EXPECT_EQ(forward[0].uuid, "GPU-17");
}

TEST(GpuInventory, TakesStructureFromCudaAndClocksPowerNvlinkFromNvml) {
  const CudaReport cuda = cuda_report({cuda_device(0, 0x17, "NVIDIA H100 80GB HBM3")});
  NvmlGpuFacts facts = nvml_device("00000000:17:00.0", "GPU-aaaa");
  facts.memory_bus_width_bits = 6144;  // some boards report 6144: CUDA's figure is kept
  facts.memory_total_bytes = 85'899'345'920ull;
  std::vector<std::string> notes;
  const auto gpus = merge_gpu_facts(cuda, nvml_report({facts}), notes);
  ASSERT_EQ(gpus.size(), 1u);
  const GpuInfo& gpu = gpus[0];
  EXPECT_EQ(gpu.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu.cc_major, 9);
  EXPECT_EQ(gpu.sm_count, std::optional<int>(132));
  EXPECT_EQ(gpu.l2_bytes, std::optional<int>(52'428'800));
  EXPECT_EQ(gpu.memory_bytes, std::optional<std::uint64_t>(85'520'809'984ull));
  EXPECT_EQ(gpu.memory_bus_width_bits, std::optional<int>(5120));
  EXPECT_EQ(gpu.max_sm_clock_mhz, std::optional<int>(1980));  // NVML's, not CUDA's 1755
  EXPECT_EQ(gpu.max_mem_clock_mhz, std::optional<int>(2619));
  EXPECT_EQ(gpu.nvlink.active_links, 18);
  EXPECT_EQ(gpu.nvlink.total_links_probed, 18);
  EXPECT_EQ(gpu.nvlink.version, std::optional<int>(4));
  EXPECT_EQ(gpu.nvlink.nvml_version_code, std::optional<int>(6));
  EXPECT_EQ(gpu.pcie_source, "nvml");
  EXPECT_EQ(gpu.pcie.current_gts, std::optional<double>(32.0));
  EXPECT_EQ(gpu.pcie.max_width, std::optional<int>(16));
}

TEST(GpuInventory, NvmlMissingGivesCudaOnlyFactsWithNote) {
  const CudaReport cuda = cuda_report({cuda_device(0, 0x17, "NVIDIA H100 80GB HBM3")});
  NvmlReport nvml;
  nvml.error =
      "NVML: libnvidia-ml.so.1 not found: libnvidia-ml.so.1: cannot open shared object file";
  std::vector<std::string> notes;
  const auto gpus = merge_gpu_facts(cuda, nvml, notes);
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].cuda_index, 0);
  EXPECT_EQ(gpus[0].pci_bdf, "0000:17:00.0");
  EXPECT_EQ(gpus[0].sm_count, std::optional<int>(132));
  EXPECT_EQ(gpus[0].max_sm_clock_mhz, std::optional<int>(1755));  // CUDA's kHz -> MHz
  EXPECT_EQ(gpus[0].max_mem_clock_mhz, std::optional<int>(2619));
  EXPECT_EQ(gpus[0].uuid, "");
  EXPECT_FALSE(gpus[0].power_limit_w.has_value());
  EXPECT_EQ(gpus[0].pcie_source, "");
  EXPECT_TRUE(has_note(notes, "NVML: libnvidia-ml.so.1 not found")) << joined(notes);
  EXPECT_TRUE(has_note(notes, "power limit")) << joined(notes);
}

TEST(GpuInventory, NvmlOnlyGpuIsKeptWithNote) {
  const CudaReport cuda = cuda_report({cuda_device(0, 0x17, "A")});
  const NvmlReport nvml = nvml_report(
      {nvml_device("00000000:B3:00.0", "GPU-b3"), nvml_device("00000000:17:00.0", "GPU-17")});
  std::vector<std::string> notes;
  const auto gpus = merge_gpu_facts(cuda, nvml, notes);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].uuid, "GPU-17");
  EXPECT_EQ(gpus[1].cuda_index, -1);
  EXPECT_EQ(gpus[1].pci_bdf, "0000:b3:00.0");
  EXPECT_EQ(gpus[1].name, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(
      has_note(notes, "GPU 0000:b3:00.0 (NVIDIA H100 80GB HBM3) is seen by NVML but not by CUDA"))
      << joined(notes);
}

TEST(GpuInventory, CudaOnlyGpuWhileNvmlLoadedGetsNote) {
  const CudaReport cuda = cuda_report({cuda_device(0, 0x17, "A"), cuda_device(1, 0x18, "B")});
  std::vector<std::string> notes;
  const auto gpus =
      merge_gpu_facts(cuda, nvml_report({nvml_device("00000000:17:00.0", "GPU-17")}), notes);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[1].uuid, "");
  EXPECT_TRUE(has_note(notes, "GPU 0000:18:00.0 (CUDA 1) is seen by CUDA but not by NVML"))
      << joined(notes);
}

TEST(GpuInventory, CudaFailureAndNotBuiltAreNoted) {
  CudaReport no_driver;
  no_driver.cuda_built = true;
  no_driver.error = "cuInit: no CUDA-capable device is detected (100)";
  std::vector<std::string> notes;
  EXPECT_TRUE(merge_gpu_facts(no_driver, NvmlReport{}, notes).empty());
  EXPECT_TRUE(has_note(notes, "CUDA: cuInit: no CUDA-capable device is detected (100): no GPU usable through CUDA"))
      << joined(notes);

  CudaReport not_built;
  not_built.error = "not built: no CUDA toolkit";
  notes.clear();
  const auto gpus =
      merge_gpu_facts(not_built, nvml_report({nvml_device("00000000:17:00.0", "GPU-17")}), notes);
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].cuda_index, -1);
  EXPECT_TRUE(has_note(notes, "CUDA: not built: no CUDA toolkit")) << joined(notes);
}

TEST(GpuInventory, NvmlCallErrorsBecomeNotes) {
  NvmlGpuFacts facts = nvml_device("00000000:17:00.0", "GPU-17");
  facts.errors.push_back("nvmlDeviceGetEnforcedPowerLimit (0000:17:00.0): GPU is lost (15)");
  std::vector<std::string> notes;
  merge_gpu_facts(cuda_report({cuda_device(0, 0x17, "A")}), nvml_report({facts}), notes);
  EXPECT_TRUE(has_note(notes, "NVML: nvmlDeviceGetEnforcedPowerLimit (0000:17:00.0): GPU is lost"))
      << joined(notes);
}

TEST(GpuInventory, DowntrainedLinkFromRecordedSysfs) {
  std::vector<std::string> notes;
  NvmlGpuFacts facts = nvml_device("00000000:17:00.0", "GPU-17");
  facts.curr_link_generation = 4;
  std::vector<GpuInfo> gpus =
      merge_gpu_facts(cuda_report({cuda_device(0, 0x17, "NVIDIA H100 80GB HBM3"),
                                   cuda_device(1, 0x18, "not in tree")}),
                      nvml_report({facts, nvml_device("00000000:18:00.0", "GPU-18")}), notes);
  add_sysfs_gpu_facts(SysfsRoot(downtrained_tree), gpus);
  ASSERT_EQ(gpus.size(), 2u);
  const GpuInfo& gpu = gpus[0];
  EXPECT_EQ(gpu.pcie_source, "sysfs");
  EXPECT_EQ(gpu.pcie.current_gts, std::optional<double>(16.0));
  EXPECT_EQ(gpu.pcie.current_width, std::optional<int>(16));
  EXPECT_EQ(gpu.pcie.max_gts, std::optional<double>(32.0));
  EXPECT_EQ(gpu.pcie.max_width, std::optional<int>(16));
  EXPECT_TRUE(gpu.pcie.downtrained());
  EXPECT_EQ(gpu.numa_node, std::optional<int>(1));
  // The GPU absent from the tree keeps NVML's link and has no NUMA node.
  EXPECT_EQ(gpus[1].pcie_source, "nvml");
  EXPECT_FALSE(gpus[1].pcie.downtrained());
  EXPECT_FALSE(gpus[1].numa_node.has_value());
}

// A writable copy of the recorded tree (symlinks kept) for variations of it.
class GpuInventorySysfsCopy : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("pipecheck_gpu_sysfs_" +
             std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::copy(downtrained_tree, root_,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& relative, const std::string& text) {
    std::ofstream(root_ / relative) << text << "\n";
  }
  fs::path root_;
  const std::string switch_up_ = "sys/devices/pci0000:00/0000:00:01.0/0000:15:00.0";
  const std::string gpu_dir_ =
      "sys/devices/pci0000:00/0000:00:01.0/0000:15:00.0/0000:16:00.0/0000:17:00.0";
};

TEST_F(GpuInventorySysfsCopy, NarrowUpstreamHopBoundsTheGpuLink) {
  // The GPU's own link is x16, but the switch's uplink trained x8: the path, not the GPU, limits.
  write(switch_up_ + "/current_link_width", "8");
  std::vector<std::string> notes;
  auto gpus = merge_gpu_facts(cuda_report({cuda_device(0, 0x17, "H100")}), NvmlReport{}, notes);
  add_sysfs_gpu_facts(SysfsRoot(root_), gpus);
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].pcie.current_width, std::optional<int>(8));
  EXPECT_EQ(gpus[0].pcie.max_width, std::optional<int>(16));
  EXPECT_EQ(gpus[0].pcie_source, "sysfs");
}

TEST_F(GpuInventorySysfsCopy, NumaNodeMinusOneIsEmpty) {
  write(gpu_dir_ + "/numa_node", "-1");
  std::vector<std::string> notes;
  auto gpus = merge_gpu_facts(cuda_report({cuda_device(0, 0x17, "H100")}), NvmlReport{}, notes);
  add_sysfs_gpu_facts(SysfsRoot(root_), gpus);
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_FALSE(gpus[0].numa_node.has_value());
}

TEST(GpuInventory, FillsSoftwareFactsFromCudaAndNvml) {
  SoftwareStack stack;
  stack.driver_version = "570.00.00";  // what /proc said before NVML answered
  CudaReport cuda;
  cuda.cuda_built = true;
  cuda.runtime_version = 13000;
  cuda.error = "CUDA driver version is insufficient for CUDA runtime version";
  NvmlReport nvml = nvml_report({});
  nvml.cuda_driver_version = 12040;
  nvml.driver_version = "550.54.15";
  fill_gpu_software_facts(cuda, nvml, stack);
  EXPECT_TRUE(stack.cuda_built);
  EXPECT_TRUE(stack.nvml_loaded);
  EXPECT_EQ(stack.runtime_cuda_version, std::optional<int>(13000));
  EXPECT_EQ(stack.driver_cuda_version, std::optional<int>(12040));  // CUDA had none: NVML's
  EXPECT_EQ(stack.driver_version, std::optional<std::string>("550.54.15"));
  EXPECT_EQ(stack.cuda_error, cuda.error);
  EXPECT_TRUE(stack.cuda_mismatch().has_value());

  NvmlReport no_nvml;
  no_nvml.error = "NVML: libnvidia-ml.so.1 not found: x";
  SoftwareStack from_proc;
  from_proc.driver_version = "580.65.06";
  fill_gpu_software_facts(cuda, no_nvml, from_proc);
  EXPECT_FALSE(from_proc.nvml_loaded);
  EXPECT_EQ(from_proc.nvml_error, no_nvml.error);
  EXPECT_EQ(from_proc.driver_version, std::optional<std::string>("580.65.06"));
  EXPECT_FALSE(from_proc.driver_cuda_version.has_value());
}

TEST(GpuInventory, ReadGpusOnThisMachineNeverThrows) {
  SoftwareStack stack;
  std::vector<std::string> notes;
  const std::vector<GpuInfo> gpus = read_gpus(SysfsRoot("/"), {}, stack, notes);
  EXPECT_EQ(stack.cuda_built, PIPECHECK_HAVE_CUDA == 1);
  if (gpus.empty()) {
    // No GPU: each missing part says why.
    EXPECT_FALSE(notes.empty());
    EXPECT_TRUE(!stack.nvml_error.empty() || stack.nvml_loaded) << joined(notes);
    GTEST_SKIP() << "no GPU here; notes:\n" << joined(notes);
  }
  for (const GpuInfo& gpu : gpus) {
    EXPECT_TRUE(normalize_bdf(gpu.pci_bdf).has_value()) << gpu.pci_bdf;
    EXPECT_EQ(normalize_bdf(gpu.pci_bdf), gpu.pci_bdf);
    EXPECT_FALSE(gpu.name.empty());
    if (gpu.cuda_index >= 0) {
      EXPECT_GT(gpu.cc_major, 0);
      EXPECT_TRUE(gpu.sm_count.has_value());
      EXPECT_TRUE(gpu.max_sm_clock_mhz.has_value());
    }
    if (stack.nvml_loaded) {
      EXPECT_EQ(gpu.uuid.rfind("GPU-", 0), 0u) << gpu.uuid;
    }
  }
}

TEST(GpuInventory, SeenByRecordsWhoListsEachGpu) {
  std::vector<std::string> notes;
  const auto gpus = merge_gpu_facts(cuda_report({cuda_device(0, 0x17, "H100")}),
                                    nvml_report({nvml_device("00000000:17:00.0", "GPU-a"),
                                                 nvml_device("00000000:65:00.0", "GPU-b")}),
                                    notes);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].seen_by, (std::vector<std::string>{"cuda", "nvml"}));
  EXPECT_EQ(gpus[1].seen_by, std::vector<std::string>{"nvml"});
}

TEST(GpuInventory, BusGpusJoinByBusIdOrAreAppended) {
  std::vector<std::string> notes;
  std::vector<GpuInfo> gpus = merge_gpu_facts(cuda_report({cuda_device(0, 0x17, "H100")}), NvmlReport{}, notes);
  GpuInfo known;
  known.pci_bdf = "0000:17:00.0";
  known.seen_by = {"pci"};
  known.pci_driver = "nvidia";
  known.pci_device_id = 0x2330;
  GpuInfo unseen = known;
  unseen.pci_bdf = "0000:65:00.0";
  unseen.pci_driver = "";
  unseen.name = "NVIDIA GPU [10de:2330]";
  add_bus_gpus(gpus, {known, unseen});
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].seen_by, (std::vector<std::string>{"cuda", "pci"}));
  EXPECT_EQ(gpus[0].pci_driver, "nvidia");
  EXPECT_EQ(gpus[0].pci_device_id, std::optional<unsigned>(0x2330));
  EXPECT_EQ(gpus[1].pci_bdf, "0000:65:00.0");
  EXPECT_EQ(gpus[1].seen_by, std::vector<std::string>{"pci"});
  EXPECT_EQ(gpus[1].cuda_index, -1);
}

TEST(GpuInventory, ABusGpuTheDriverDoesNotListIsNoted) {
  // The live collector with a GPU the bus lists at an address no CUDA or NVML device has.
  GpuInfo bus_gpu;
  bus_gpu.pci_bdf = "00fe:ff:1f.0";
  bus_gpu.seen_by = {"pci"};
  SoftwareStack stack;
  std::vector<std::string> notes;
  const std::vector<GpuInfo> gpus = read_gpus(SysfsRoot("/"), {bus_gpu}, stack, notes);
  const auto found = std::find_if(gpus.begin(), gpus.end(), [](const GpuInfo& g) { return g.pci_bdf == "00fe:ff:1f.0"; });
  ASSERT_NE(found, gpus.end());
  EXPECT_EQ(found->seen_by, std::vector<std::string>{"pci"});
  EXPECT_NE(joined(notes).find("GPU 00fe:ff:1f.0 is on the PCI bus but neither CUDA nor NVML sees it (driver bound: none)"),
            std::string::npos)
      << joined(notes);
}

TEST(GpuInventory, NoDriverAtAllIsSaidSo) {
  const std::string insufficient = "CUDA driver version is insufficient for CUDA runtime version";
  EXPECT_EQ(explain_cuda_error(insufficient, false), "no NVIDIA driver (libcuda.so.1 not found)");
  EXPECT_EQ(explain_cuda_error(insufficient, true), insufficient);  // a driver, but too old
  EXPECT_EQ(explain_cuda_error("no CUDA-capable device is detected", false), "no CUDA-capable device is detected");
}

TEST(GpuInventory, DeviceMinorFromTheDriver) {
  const fs::path root = fs::temp_directory_path() / ("pipecheck-minor-" + std::to_string(::getpid()));
  fs::create_directories(root / "proc/driver/nvidia/gpus/0000:17:00.0");
  std::ofstream(root / "proc/driver/nvidia/gpus/0000:17:00.0/information")
      << "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 123\nGPU UUID: \t GPU-a\nDevice Minor: \t 3\n";
  EXPECT_EQ(nvidia_device_minor(SysfsRoot(root), "0000:17:00.0"), std::optional<int>(3));
  EXPECT_FALSE(nvidia_device_minor(SysfsRoot(root), "0000:65:00.0").has_value());
  fs::remove_all(root);
}

TEST(GpuInventory, NvlinkGenerationFromComputeCapabilityWhereNvmlDisagrees) {
  EXPECT_EQ(nvlink_generation_of_cc(9, 0), std::optional<int>(4));
  EXPECT_EQ(nvlink_generation_of_cc(10, 3), std::optional<int>(5));
  EXPECT_FALSE(nvlink_generation_of_cc(8, 6).has_value());  // GA102 boards differ
  std::vector<std::string> notes;
  // A driver that answers the generation itself (4) where the codes mean "3.0".
  NvmlGpuFacts old_code = nvml_device("00000000:17:00.0", "GPU-a");
  old_code.nvlink_version_code = 4;
  const auto gpus = merge_gpu_facts(cuda_report({cuda_device(0, 0x17, "H100")}), nvml_report({old_code}), notes);
  EXPECT_EQ(gpus[0].nvlink.version, std::optional<int>(4));
  EXPECT_EQ(gpus[0].nvlink.version_source, "compute capability");
  EXPECT_EQ(gpus[0].nvlink.nvml_version_code, std::optional<int>(4));
  EXPECT_NE(joined(notes).find("NVML's NVLink version code 4 reads as NVLink 3"), std::string::npos) << joined(notes);
  // Where they agree NVML's stays, and nothing is said.
  notes.clear();
  const auto agree = merge_gpu_facts(cuda_report({cuda_device(0, 0x17, "H100")}),
                                     nvml_report({nvml_device("00000000:17:00.0", "GPU-a")}), notes);
  EXPECT_EQ(agree[0].nvlink.version_source, "NVML");
  EXPECT_EQ(joined(notes).find("NVLink version code"), std::string::npos);
}

}  // namespace
}  // namespace pipecheck
