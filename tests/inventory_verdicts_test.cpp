// A GPU on the bus that the driver does not see, and a process allowed fewer CPUs than the host.
#include "judge/inventory_verdicts.hpp"

#include <gtest/gtest.h>

#include "judge/judge.hpp"

namespace pipecheck {
namespace {

GpuInfo on_bus(const std::string& bdf, const std::string& driver) {
  GpuInfo gpu;
  gpu.pci_bdf = bdf;
  gpu.seen_by = {"pci"};
  gpu.pci_driver = driver;
  gpu.name = "NVIDIA GPU [10de:2330]";
  return gpu;
}

GpuInfo seen(const std::string& bdf) {
  GpuInfo gpu = on_bus(bdf, "nvidia");
  gpu.seen_by = {"cuda", "nvml", "pci"};
  gpu.cuda_index = 0;
  return gpu;
}

Inventory machine(std::vector<GpuInfo> gpus) {
  Inventory inv;
  inv.gpus = std::move(gpus);
  inv.software.nvml_loaded = true;
  return inv;
}

TEST(GpusOnBus, UnseenGpuFailsNamingItsBusId) {
  const auto judgements = judge_gpus_on_bus(machine({seen("0000:17:00.0"), on_bus("0000:65:00.0", "")}), default_profile());
  ASSERT_EQ(judgements.size(), 1u);
  EXPECT_EQ(judgements[0].verdict, Verdict::fail);
  EXPECT_EQ(judgements[0].subject, "inventory/gpu/0000:65:00.0/driver");
  EXPECT_NE(judgements[0].what.find("0000:65:00.0"), std::string::npos);
  EXPECT_NE(judgements[0].explanation.find("no driver bound"), std::string::npos);
  EXPECT_EQ(judgements[0].rule, "gpu.unseen_on_bus = fail");
}

TEST(GpusOnBus, TheDriverItIsBoundToSaysWhy) {
  auto explanation = [](const std::string& driver) {
    return judge_gpus_on_bus(machine({on_bus("0000:65:00.0", driver)}), default_profile()).at(0).explanation;
  };
  EXPECT_NE(explanation("nvidia").find("fallen off the bus"), std::string::npos);
  EXPECT_NE(explanation("nouveau").find("bound to nouveau"), std::string::npos);
}

TEST(GpusOnBus, NoDriverAtAllFailsToo) {
  Inventory inv = machine({on_bus("0000:17:00.0", ""), on_bus("0000:65:00.0", "")});
  inv.software.nvml_loaded = false;
  inv.software.nvml_error = "NVML: libnvidia-ml.so.1 not found";
  const auto judgements = judge_gpus_on_bus(inv, default_profile());
  ASSERT_EQ(judgements.size(), 2u);
  EXPECT_EQ(judgements[1].verdict, Verdict::fail);
  EXPECT_NE(judgements[1].explanation.find("libnvidia-ml.so.1 not found"), std::string::npos);
}

TEST(GpusOnBus, WhatIsNoFailure) {
  // Reserved for a VM.
  EXPECT_EQ(judge_gpus_on_bus(machine({on_bus("0000:65:00.0", "vfio-pci")}), default_profile()).at(0).verdict,
            Verdict::info);
  // Not given to this container: its device node is not here.
  Inventory container = machine({seen("0000:17:00.0"), on_bus("0000:65:00.0", "nvidia")});
  container.software.in_container = true;
  container.software.nvidia_device_nodes = {"/dev/nvidia0", "/dev/nvidiactl"};
  container.gpus[1].device_minor = 3;
  EXPECT_EQ(judge_gpus_on_bus(container, default_profile()).at(0).verdict, Verdict::info);
  // ... but with its node here, the driver should see it.
  container.software.nvidia_device_nodes.push_back("/dev/nvidia3");
  EXPECT_EQ(judge_gpus_on_bus(container, default_profile()).at(0).verdict, Verdict::fail);
  // A recorded tree: the driver was not asked.
  Inventory recorded = machine({on_bus("0000:65:00.0", "")});
  recorded.recorded_root = "/trees/node7";
  EXPECT_EQ(judge_gpus_on_bus(recorded, default_profile()).at(0).verdict, Verdict::info);
  // Hidden from CUDA, and no NVML to tell.
  Inventory hidden = machine({seen("0000:17:00.0"), on_bus("0000:65:00.0", "nvidia")});
  hidden.gpus[0].seen_by = {"cuda", "pci"};
  hidden.software.nvml_loaded = false;
  hidden.software.cuda_visible_devices = "0";
  EXPECT_EQ(judge_gpus_on_bus(hidden, default_profile()).at(0).verdict, Verdict::info);
  // Inventories written before seen_by was recorded say nothing of it.
  GpuInfo old;
  old.pci_bdf = "0000:17:00.0";
  EXPECT_TRUE(judge_gpus_on_bus(machine({old}), default_profile()).empty());
}

TEST(GpusOnBus, PolicyComesFromTheProfile) {
  const Profile profile = parse_profile("gpu.unseen_on_bus = warn\n", "p", default_profile());
  EXPECT_EQ(judge_gpus_on_bus(machine({on_bus("0000:65:00.0", "")}), profile).at(0).verdict, Verdict::warn);
}

TEST(GpusOnBus, TheRunFailsThroughJudgeInventory) {
  const auto judgements = judge_inventory(Report{}, machine({on_bus("0000:65:00.0", "")}), default_profile());
  ASSERT_FALSE(judgements.empty());
  EXPECT_EQ(judgements[0].verdict, Verdict::fail);
  for (const auto& j : judgements) EXPECT_EQ(j.subject.find("pcie_link"), std::string::npos) << j.subject;
}

TEST(CpuAllowance, SaysWhenTheProcessMayUseLess) {
  Inventory inv;
  inv.cpu_allowance.online = 128;
  inv.cpu_allowance.affinity = 128;
  EXPECT_TRUE(judge_cpu_allowance(inv).empty());
  inv.cpu_allowance.quota_cpus = 8.0;
  inv.cpu_allowance.quota_source = "/sys/fs/cgroup/cpu.max = 800000 100000";
  const auto judgements = judge_cpu_allowance(inv);
  ASSERT_EQ(judgements.size(), 1u);
  EXPECT_EQ(judgements[0].verdict, Verdict::info);
  EXPECT_NE(judgements[0].explanation.find("8 of 128 CPUs"), std::string::npos);
}

}  // namespace
}  // namespace pipecheck
