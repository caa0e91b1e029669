// CPU and memory collectors against recorded trees (a 2-socket x86 server, an Arm server whose
// cpuinfo lacks topology ids; the trees of each cause are in inventory_trees_test.cpp) and
// against the live machine.
#include "inventory/host_inventory.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

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
  EXPECT_EQ(cpu.model, "ARM Neoverse-V1");  // no "model name": the implementer and part name it
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
  EXPECT_FALSE(cpu.logical_cpus.has_value());
  EXPECT_FALSE(cpu.sockets.has_value());
  EXPECT_FALSE(cpu.physical_cores.has_value());
  EXPECT_FALSE(cpu.numa_nodes.has_value());
  EXPECT_FALSE(cpu.l3_bytes.has_value());
  EXPECT_FALSE(read_memory_info(nowhere).total_bytes.has_value());
}

TEST(HostInventory, HostMemoryLeavesCpuLessNodesOut) {
  MemoryInfo memory;
  memory.nodes = {{0, 8, 480ull << 30, ""}, {1, 0, 96ull << 30, "0009:01:00.0"}};
  set_host_memory(memory, 576ull << 30);
  EXPECT_EQ(memory.total_bytes, std::optional<std::uint64_t>(480ull << 30));
  // Without per-node sizes for the CPU nodes: MemTotal less the CPU-less ones.
  memory.nodes = {{0, 8, std::nullopt, ""}, {1, 0, 96ull << 30, ""}};
  set_host_memory(memory, 576ull << 30);
  EXPECT_EQ(memory.total_bytes, std::optional<std::uint64_t>(480ull << 30));
  // Every node with CPUs: MemTotal, as free(1) says.
  memory.nodes = {{0, 8, 200ull << 30, ""}, {1, 8, 200ull << 30, ""}};
  set_host_memory(memory, 401ull << 30);
  EXPECT_EQ(memory.total_bytes, std::optional<std::uint64_t>(401ull << 30));
  // No MemTotal, node sizes known: their sum.
  set_host_memory(memory, std::nullopt);
  EXPECT_EQ(memory.total_bytes, std::optional<std::uint64_t>(400ull << 30));
  // Nothing at all: unknown, never 0.
  memory.nodes.clear();
  set_host_memory(memory, std::nullopt);
  EXPECT_FALSE(memory.total_bytes.has_value());
}

TEST(HostInventory, LiveMachineIsSane) {
  const SysfsRoot live("/");
  const CpuInfo cpu = read_cpu_info(live);
  ASSERT_TRUE(cpu.logical_cpus && cpu.sockets && cpu.physical_cores && cpu.numa_nodes);
  EXPECT_EQ(*cpu.logical_cpus, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
  EXPECT_GE(*cpu.sockets, 1);
  EXPECT_GE(*cpu.physical_cores, *cpu.sockets);
  EXPECT_LE(*cpu.physical_cores, *cpu.logical_cpus);
  EXPECT_EQ(cpu.source.rfind("hwloc ", 0), 0u) << cpu.source;
  EXPECT_GT(read_memory_info(live).total_bytes.value_or(0), 0u);
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
