// The CUDA driver API loaded at run time: its constants held against cuda.h where the toolkit
// is, its failures as reasons, and the live query on this machine (none of it throws).
#include "inventory/cuda_driver_library.hpp"

#include <gtest/gtest.h>

#include "inventory/cuda_devices.hpp"
#include "pipecheck_config.hpp"

#if __has_include(<cuda.h>)
#include <cuda.h>
// The ABI pipecheck declares by hand must be cuda.h's.
static_assert(pipecheck::cu::attribute_clock_rate == CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
static_assert(pipecheck::cu::attribute_multiprocessor_count == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(pipecheck::cu::attribute_pci_bus_id == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
static_assert(pipecheck::cu::attribute_pci_device_id == CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
static_assert(pipecheck::cu::attribute_memory_clock_rate == CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
static_assert(pipecheck::cu::attribute_global_memory_bus_width == CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
static_assert(pipecheck::cu::attribute_l2_cache_size == CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
static_assert(pipecheck::cu::attribute_pci_domain_id == CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
static_assert(pipecheck::cu::attribute_compute_capability_major == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(pipecheck::cu::attribute_compute_capability_minor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(pipecheck::cu::error_no_device == CUDA_ERROR_NO_DEVICE);
static_assert(pipecheck::cu::error_not_initialized == CUDA_ERROR_NOT_INITIALIZED);
static_assert(sizeof(pipecheck::cu::DevicePointer) == sizeof(CUdeviceptr));
static_assert(sizeof(pipecheck::cu::Device) == sizeof(CUdevice));
#endif

namespace pipecheck {
namespace {

TEST(CudaDriverLibrary, AMissingLibraryIsAReason) {
  const CudaDriverLibrary cuda("libcuda-pipecheck-absent.so.1");
  EXPECT_FALSE(cuda.loaded());
  EXPECT_FALSE(cuda.ok());
  EXPECT_NE(cuda.error().find("libcuda-pipecheck-absent.so.1 not found (no NVIDIA driver)"), std::string::npos)
      << cuda.error();
  EXPECT_EQ(cuda.error_string(cu::error_no_device), "no CUDA-capable device is detected");
  EXPECT_EQ(cuda.error_text("cuMemAlloc_v2", 2, "GPU 0"), "cuMemAlloc_v2 (GPU 0): CUDA error 2 (2)");
  EXPECT_EQ(cuda_device_answers(cuda, 0), cuda.error());

  const CudaReport report = query_cuda_devices(cuda);
  EXPECT_TRUE(report.devices.empty());
  EXPECT_EQ(report.error, cuda.error());
  EXPECT_EQ(report.cuda_built, PIPECHECK_HAVE_CUDA == 1);
  EXPECT_EQ(report.runtime_version, built_cuda_runtime_version());
}

// A library that is not the CUDA driver (libm has no cuInit) is refused by name.
TEST(CudaDriverLibrary, ALibraryWithoutTheDriverApiIsRefused) {
  const CudaDriverLibrary not_cuda("libm.so.6");
  EXPECT_FALSE(not_cuda.ok());
  EXPECT_EQ(not_cuda.error(), "libm.so.6 lacks cuInit (not the CUDA driver, or one too old)");
}

TEST(CudaDriverLibrary, TheRuntimeVersionIsTheBuilds) {
  if (PIPECHECK_HAVE_CUDA) {
    ASSERT_TRUE(built_cuda_runtime_version().has_value());
    EXPECT_GE(*built_cuda_runtime_version(), 11000);
    EXPECT_EQ(*built_cuda_runtime_version() % 10, 0);
  } else {
    EXPECT_FALSE(built_cuda_runtime_version().has_value());
  }
}

TEST(CudaDriverLibrary, ThisMachineAnswersOrSaysWhy) {
  const CudaDriverLibrary cuda;
  const CudaReport report = query_cuda_devices(cuda);
  if (!cuda.ok()) {
    EXPECT_FALSE(report.error.empty());
    EXPECT_TRUE(report.devices.empty());
    GTEST_SKIP() << "no CUDA driver here: " << cuda.error();
  }
  for (const auto& device : report.devices) {
    EXPECT_FALSE(device.name.empty());
    EXPECT_GT(device.cc_major, 0);
    EXPECT_GT(device.total_memory_bytes, 0u);
    EXPECT_EQ(cuda_device_answers(cuda, device.index), "") << "GPU " << device.index;
  }
}

}  // namespace
}  // namespace pipecheck
