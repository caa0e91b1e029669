// The software stack from recorded /proc and /dev trees, and the CUDA driver/runtime judgement.
#include "inventory/software_stack.hpp"
#include "inventory/nccl_version.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pipecheck_config.hpp"

namespace pipecheck {
namespace {

SysfsRoot recorded(const std::string& name) {
  return SysfsRoot(std::string(PIPECHECK_TEST_DATA) + "/software_stack/" + name);
}

TEST(SoftwareStack, ReadsRecordedDockerHost) {
  const SoftwareStack stack = read_software_stack(recorded("docker"));
  EXPECT_EQ(stack.kernel, "6.1.0-37-amd64");
  EXPECT_EQ(stack.driver_version, std::optional<std::string>("580.65.06"));
  EXPECT_TRUE(stack.in_container);
  EXPECT_EQ(stack.container_evidence, "/.dockerenv, cgroup: docker");
  const std::vector<std::string> nodes = {"/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
                                          "/dev/nvidia0", "/dev/nvidia1", "/dev/nvidiactl"};
  EXPECT_EQ(stack.nvidia_device_nodes, nodes);
}

TEST(SoftwareStack, ReadsRecordedPodmanWithOpenKernelModule) {
  const SoftwareStack stack = read_software_stack(recorded("podman"));
  EXPECT_EQ(stack.driver_version, std::optional<std::string>("570.133.20"));
  EXPECT_TRUE(stack.in_container);
  EXPECT_EQ(stack.container_evidence, "/run/.containerenv, environ: container=podman");
  EXPECT_TRUE(stack.nvidia_device_nodes.empty());
}

TEST(SoftwareStack, BareHostIsNotAContainer) {
  const SoftwareStack stack = read_software_stack(recorded("bare_host"));
  EXPECT_FALSE(stack.in_container);
  EXPECT_EQ(stack.container_evidence, "");
  EXPECT_FALSE(stack.driver_version.has_value());
  EXPECT_TRUE(stack.nvidia_device_nodes.empty());
  // read_software_stack leaves the CUDA/NVML fields to read_gpus.
  EXPECT_FALSE(stack.runtime_cuda_version.has_value());
  EXPECT_FALSE(stack.nvml_loaded);
}

TEST(SoftwareStack, MissingRootGivesEmptyFactsNotErrors) {
  const SoftwareStack stack = read_software_stack(SysfsRoot("/nonexistent/root"));
  EXPECT_EQ(stack.kernel, "");
  EXPECT_FALSE(stack.driver_version.has_value());
  EXPECT_FALSE(stack.in_container);
}

TEST(SoftwareStack, ParsesNvrmVersionLines) {
  EXPECT_EQ(
      parse_nvrm_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 "
                         "19:39:15 UTC 2024\n"),
      std::optional<std::string>("535.183.01"));
  EXPECT_EQ(
      parse_nvrm_version("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  560.35.03  "
                         "Release Build  (dvs-builder@U16)  Fri Aug 16 UTC 2024\n"),
      std::optional<std::string>("560.35.03"));
  EXPECT_EQ(parse_nvrm_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.82  Tue\n"),
            std::optional<std::string>("470.82"));
  EXPECT_FALSE(parse_nvrm_version("GCC version: gcc version 12.2.0\n").has_value());
  EXPECT_FALSE(parse_nvrm_version("").has_value());
}

TEST(SoftwareStack, NcclVersionMatchesTheBuild) {
  const SoftwareStack stack = read_software_stack(SysfsRoot("/"));  // NCCL is asked on this machine only
  EXPECT_EQ(stack.nccl_built, PIPECHECK_HAVE_NCCL == 1);
  if (!stack.nccl_built) {
    EXPECT_FALSE(stack.nccl_version.has_value());
    GTEST_SKIP() << "built without NCCL";
  }
  ASSERT_TRUE(stack.nccl_version.has_value());
  EXPECT_GE(*stack.nccl_version, 20000) << format_nccl_version(*stack.nccl_version);
}

// NCCL is loaded at run time: a node without it gets a reason naming what to install.
TEST(SoftwareStack, AMissingNcclLibraryIsAReason) {
  const NcclVersion absent = query_nccl_version("libnccl-pipecheck-absent.so.2");
  EXPECT_FALSE(absent.code.has_value());
  EXPECT_NE(absent.error.find("libnccl-pipecheck-absent.so.2 not found"), std::string::npos) << absent.error;
  EXPECT_NE(absent.error.find("libnccl2"), std::string::npos) << absent.error;
  const NcclVersion not_nccl = query_nccl_version("libm.so.6");
  EXPECT_EQ(not_nccl.error, "libm.so.6 lacks ncclGetVersion (not NCCL)");
}

TEST(SoftwareStack, RecordedTreeHasNoNcclOrEnvironmentOfThisHost) {
  ::setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  const SoftwareStack stack = read_software_stack(recorded("bare_host"));
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_FALSE(stack.nccl_built);
  EXPECT_FALSE(stack.nccl_version.has_value());
  EXPECT_FALSE(stack.cuda_visible_devices.has_value());
}

TEST(SoftwareStack, RecordedHostName) {
  const auto root = std::filesystem::temp_directory_path() / ("pipecheck-hostname-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "proc/sys/kernel");
  EXPECT_EQ(recorded_hostname(SysfsRoot(root)), "unknown");
  // hwloc-gather-topology keeps the machine's uname in the tree.
  std::ofstream(root / "proc/hwloc-nofile-info") << "OSName: Linux\nOSRelease: 4.18.0-348.el8.ppc64le\nHostName: p9node\n";
  EXPECT_EQ(recorded_hostname(SysfsRoot(root)), "p9node");
  EXPECT_EQ(read_software_stack(SysfsRoot(root)).kernel, "4.18.0-348.el8.ppc64le");
  std::ofstream(root / "proc/sys/kernel/hostname") << "gpu-node-07\n";
  EXPECT_EQ(recorded_hostname(SysfsRoot(root)), "gpu-node-07");
  std::filesystem::remove_all(root);
}

TEST(SoftwareStack, FormatsVersions) {
  EXPECT_EQ(format_cuda_version(12040), "12.4");
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  EXPECT_EQ(format_nccl_version(22703), "2.27.3");
  EXPECT_EQ(format_nccl_version(2708), "2.7.8");
}

SoftwareStack versions(std::optional<int> driver, std::optional<int> runtime) {
  SoftwareStack stack;
  stack.driver_cuda_version = driver;
  stack.runtime_cuda_version = runtime;
  return stack;
}

TEST(SoftwareStackCudaMismatch, OlderMajorDriverCannotRunTheRuntime) {
  const auto message = versions(12040, 13000).cuda_mismatch();
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(message->rfind("driver supports CUDA 12.4, pipecheck built with CUDA 13.0: ", 0), 0u)
      << *message;
  EXPECT_NE(message->find("cannot use this driver"), std::string::npos) << *message;
  EXPECT_NE(message->find("no CUDA-capable device"), std::string::npos) << *message;
}

TEST(SoftwareStackCudaMismatch, OlderMinorDriverRunsUnderCompatibility) {
  const auto message = versions(13000, 13010).cuda_mismatch();
  ASSERT_TRUE(message.has_value());
  EXPECT_NE(message->find("minor-version compatibility"), std::string::npos) << *message;
  EXPECT_EQ(message->find("cannot use"), std::string::npos) << *message;
}

TEST(SoftwareStackCudaMismatch, SameOrNewerDriverIsFine) {
  EXPECT_FALSE(versions(13000, 13000).cuda_mismatch().has_value());
  EXPECT_FALSE(versions(13020, 13000).cuda_mismatch().has_value());
}

TEST(SoftwareStackCudaMismatch, UnknownVersionGivesNothing) {
  EXPECT_FALSE(versions(std::nullopt, 13000).cuda_mismatch().has_value());
  EXPECT_FALSE(versions(12040, std::nullopt).cuda_mismatch().has_value());
}

}  // namespace
}  // namespace pipecheck
