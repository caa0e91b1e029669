// CPU and memory collectors against recorded trees (a 2-socket x86 server, an Arm server whose
// cpuinfo lacks topology ids) and against the live machine.
#include "inventory/host_inventory.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

SysfsRoot recorded(const std::string& scenario) {
  return SysfsRoot(std::string(PIPECHECK_TEST_DATA) + "/sysfs/" + scenario);
}

TEST(HostInventory, TwoSocketServerTopology) {
  const CpuInfo cpu = read_cpu_info(recorded("server_2s"));
  EXPECT_EQ(cpu.model, "AMD EPYC 7763 64-Core Processor");
  EXPECT_EQ(cpu.sockets, 2);
  // Core ids 0,1 repeat on both sockets: cores are (socket, core) pairs, not core ids.
  EXPECT_EQ(cpu.physical_cores, 4);
  EXPECT_EQ(cpu.logical_cpus, 8);
  EXPECT_EQ(cpu.numa_nodes, 2);
}

TEST(HostInventory, L3IsSummedOverTheSocketsInstances) {
  // Two 32 MiB L3 instances per socket (one per CCX); the L1d of cpu0 must not count.
  const CpuInfo cpu = read_cpu_info(recorded("server_2s"));
  EXPECT_EQ(cpu.l3_bytes, 64 * 1024 * 1024);
}

TEST(HostInventory, ArmFallsBackToSysfsTopology) {
  const CpuInfo cpu = read_cpu_info(recorded("arm_topology"));
  EXPECT_EQ(cpu.model, "");  // Arm cpuinfo has no "model name"; nothing is made up
  EXPECT_EQ(cpu.sockets, 1);
  EXPECT_EQ(cpu.physical_cores, 4);
  EXPECT_EQ(cpu.logical_cpus, 4);
  EXPECT_EQ(cpu.numa_nodes, 1);
  EXPECT_FALSE(cpu.l3_bytes.has_value());
}

TEST(HostInventory, MemTotalAndNoModulesWithoutSmbios) {
  const MemoryInfo memory = read_memory_info(recorded("server_2s"));
  EXPECT_EQ(memory.total_bytes, 527988292ull * 1024);
  EXPECT_TRUE(memory.dimms.empty());
  EXPECT_FALSE(memory.memory_channels.has_value());
}

TEST(HostInventory, MissingRootGivesEmptyFacts) {
  const SysfsRoot nowhere("/nonexistent-pipecheck-root");
  const CpuInfo cpu = read_cpu_info(nowhere);
  EXPECT_EQ(cpu.logical_cpus, 0);
  EXPECT_EQ(cpu.sockets, 0);
  EXPECT_EQ(cpu.numa_nodes, 0);
  EXPECT_FALSE(cpu.l3_bytes.has_value());
  EXPECT_EQ(read_memory_info(nowhere).total_bytes, 0u);
}

TEST(HostInventory, LiveMachineIsSane) {
  const SysfsRoot live("/");
  const CpuInfo cpu = read_cpu_info(live);
  EXPECT_GE(cpu.logical_cpus, 1);
  EXPECT_GE(cpu.sockets, 1);
  EXPECT_GE(cpu.physical_cores, cpu.sockets);
  EXPECT_LE(cpu.physical_cores, cpu.logical_cpus);
  EXPECT_GT(read_memory_info(live).total_bytes, 0u);
}

}  // namespace
}  // namespace pipecheck

namespace pipecheck {
namespace {

// EDAC names the channels: two DIMMs on one channel (2 DIMMs per channel) count once, an
// empty slot not at all. mc0 has channels 0 and 2 populated, mc1 channel 0: three channels.
TEST(HostInventoryEdac, CountsPopulatedChannelsNotDimms) {
  const SysfsRoot sys(std::string(PIPECHECK_TEST_DATA) + "/sysfs/edac_2dpc");
  EXPECT_EQ(read_edac_populated_channels(sys), std::optional<int>(3));
  EXPECT_EQ(read_memory_info(sys).memory_channels, std::optional<int>(3));
}

TEST(HostInventoryEdac, NoEdacMeansUnknown) {
  const SysfsRoot sys(std::string(PIPECHECK_TEST_DATA) + "/sysfs/arm_topology");
  EXPECT_FALSE(read_edac_populated_channels(sys).has_value());
}

}  // namespace
}  // namespace pipecheck
