// NVML loaded at run time: a missing or wrong library gives a reason, never a crash; with a
// driver present, the declared structures match what NVML fills.
#include "inventory/nvml_library.hpp"

#include <gtest/gtest.h>

#include "inventory/gpu_inventory.hpp"

namespace pipecheck {
namespace {

TEST(NvmlLibrary, MissingLibraryGivesClearReason) {
  const NvmlLibrary nvml("/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(nvml.ok());
  EXPECT_EQ(nvml.error().rfind("NVML: /nonexistent/libnvidia-ml.so.1 not found: ", 0), 0u)
      << nvml.error();
  EXPECT_NE(nvml.error().find("No such file"), std::string::npos) << nvml.error();
  EXPECT_EQ(nvml.api().init, nullptr);
  EXPECT_EQ(nvml.resolve<nvml::Return()>("nvmlInit_v2"), nullptr);

  const NvmlReport report = query_nvml(nvml);
  EXPECT_FALSE(report.loaded);
  EXPECT_EQ(report.error, nvml.error());
  EXPECT_TRUE(report.devices.empty());
}

TEST(NvmlLibrary, LibraryWithoutNvmlSymbolsIsRejected) {
  // libc opens everywhere but is not NVML: the loader must say which symbol is missing.
  const NvmlLibrary nvml("libc.so.6");
  EXPECT_FALSE(nvml.ok());
  EXPECT_NE(nvml.error().find("lacks nvmlInit_v2"), std::string::npos) << nvml.error();
  EXPECT_EQ(nvml.resolve<void()>("malloc"), nullptr) << "the handle must be closed on failure";
}

TEST(NvmlLibrary, MissingOptionalSymbolAnswersFunctionNotFound) {
  nvml::Return (*absent)(unsigned*) = nullptr;
  unsigned value = 7;
  EXPECT_EQ(NvmlLibrary::call(absent, &value), nvml::error_function_not_found);
  EXPECT_EQ(value, 7u);
}

TEST(NvmlLibrary, ErrorTextNamesCallDeviceAndNvmlText) {
  const NvmlLibrary nvml("/nonexistent/libnvidia-ml.so.1");
  EXPECT_EQ(nvml.error_text("nvmlDeviceGetPciInfo_v3", nvml::error_gpu_is_lost, "0000:17:00.0"),
            "nvmlDeviceGetPciInfo_v3 (0000:17:00.0): GPU is lost (15)");
  EXPECT_EQ(nvml.error_text("nvmlInit_v2", nvml::error_driver_not_loaded),
            "nvmlInit_v2: Driver Not Loaded (9)");
  EXPECT_EQ(nvml.error_text("nvmlDeviceGetFoo", 12345, "gpu"),
            "nvmlDeviceGetFoo (gpu): unknown NVML error (12345)");
}

TEST(NvmlLibrary, SystemLibraryLoadsOrSaysWhy) {
  const NvmlLibrary nvml;
  if (!nvml.ok()) {
    EXPECT_EQ(nvml.error().rfind("NVML: ", 0), 0u) << nvml.error();
    EXPECT_NE(nvml.error().find("libnvidia-ml.so.1"), std::string::npos) << nvml.error();
    GTEST_SKIP() << "no usable NVML on this machine: " << nvml.error();
  }
  const NvmlReport report = query_nvml(nvml);
  EXPECT_TRUE(report.loaded);
  EXPECT_TRUE(report.driver_version.has_value());
  EXPECT_TRUE(report.errors.empty()) << report.errors.front();
  for (const NvmlGpuFacts& facts : report.devices) {
    EXPECT_TRUE(normalize_bdf(facts.pci_bus_id).has_value()) << facts.pci_bus_id;
    EXPECT_FALSE(facts.name.empty());
    EXPECT_EQ(facts.uuid.rfind("GPU-", 0), 0u) << facts.uuid;
  }
}

TEST(NvmlLibrary, PciInfoLayoutMatchesTheDriver) {
  const NvmlLibrary nvml;
  if (!nvml.ok()) GTEST_SKIP() << "no usable NVML on this machine: " << nvml.error();
  unsigned count = 0;
  ASSERT_EQ(nvml.api().device_get_count(&count), nvml::success);
  if (count == 0) GTEST_SKIP() << "NVML sees no GPU";
  nvml::Device device = nullptr;
  ASSERT_EQ(nvml.api().device_get_handle_by_index(0, &device), nvml::success);
  nvml::PciInfo pci{};
  ASSERT_EQ(NvmlLibrary::call(nvml.api().device_get_pci_info, device, &pci), nvml::success);
  // If the declared layout were off, the string and the integers would disagree.
  const std::string from_ints = format_bdf(pci.domain, pci.bus, pci.device);
  EXPECT_EQ(normalize_bdf(pci.bus_id), from_ints) << pci.bus_id;
  EXPECT_EQ(normalize_bdf(pci.bus_id_legacy), from_ints) << pci.bus_id_legacy;
  EXPECT_EQ(pci.pci_device_id & 0xffffu, 0x10deu) << "vendor id of an NVIDIA GPU";

  nvml::Device same = nullptr;
  ASSERT_EQ(nvml.device_by_bus_id(from_ints, &same), nvml::success);
  EXPECT_EQ(same, device);
}

}  // namespace
}  // namespace pipecheck
