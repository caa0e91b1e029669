// The inventory on recorded machines unlike ours (tests/data/sysfs, written by
// make_inventory_trees.py), one per cause it once got wrong: the facts the ceilings start from,
// through hwloc and through the sysfs fallback alike, and nothing of the live host in them.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "inventory/host_inventory.hpp"
#include "inventory/inventory_collect.hpp"
#include "judge/inventory_verdicts.hpp"

namespace pipecheck {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * 1024;

SysfsRoot tree(const std::string& name) { return SysfsRoot(std::string(PIPECHECK_TEST_DATA) + "/sysfs/" + name); }

struct Expected {
  const char* tree;
  std::optional<int> sockets;           // through hwloc
  std::optional<int> sockets_sysfs;     // through the sysfs fallback
  int cores;
  int logical;
  int numa;
  std::optional<std::uint64_t> l3;      // per socket
  std::optional<std::uint64_t> memory;
  const char* model;
};

const Expected kTrees[] = {
    // shared_cpu_map without shared_cpu_list: one 10 MiB L3 a socket, not 8 (one a CPU).
    {"x86_old_kernel", 2, 2, 8, 16, 2, 10 * kMiB, 65842968 * kKiB, "Intel(R) Xeon(R) CPU E5-2643 0 @ 3.30GHz"},
    // package id -1: hwloc's count of core_siblings sets, or unknown; never one socket.
    {"power9_lpar", 2, std::nullopt, 4, 16, 1, 10 * kMiB, 133480896 * kKiB, "POWER9 (architected), altivec supported"},
    // package id -1 and core ids repeating across books; no masks for hwloc: sysfs alone.
    {"s390x_books", std::nullopt, std::nullopt, 4, 4, 1, std::nullopt, 8126464 * kKiB, "IBM z13 (machine type 2964)"},
    // core ids 0-5 on each die of a package: 24 cores, not 12.
    {"amd_multi_die", 2, 2, 24, 24, 4, 12 * kMiB, 131900000 * kKiB, "AMD Opteron(tm) Processor 6174"},
    {"arm_server", 1, 1, 8, 8, 1, std::nullopt, 65536000 * kKiB, "ARM Neoverse-N1"},
    // no node folder: one NUMA node; no /proc/meminfo: memory unknown, never 0.
    {"vm_bare", 1, 1, 4, 4, 1, 54 * kMiB, std::nullopt, "Intel Xeon Processor (Icelake)"},
    // the GPU's memory as CPU-less node 1 is not host memory.
    {"gh200_gpu_memory", 1, 1, 8, 8, 1, std::nullopt, 503316480 * kKiB, "ARM Neoverse-V2"},
    {"server_2s", 2, 2, 4, 8, 2, 64 * kMiB, 527988292 * kKiB, "AMD EPYC 7763 64-Core Processor"},
};

void expect_l3(const std::optional<int>& got, const std::optional<std::uint64_t>& want, const std::string& where) {
  ASSERT_EQ(got.has_value(), want.has_value()) << where;
  if (!want) return;
  EXPECT_LE(std::fabs(static_cast<double>(*got) - static_cast<double>(*want)), 0.02 * static_cast<double>(*want)) << where;
}

TEST(InventoryTrees, FactsThroughHwloc) {
  for (const Expected& e : kTrees) {
    SCOPED_TRACE(e.tree);
    const Inventory inv = collect_inventory(tree(e.tree));
    EXPECT_EQ(inv.cpu.model, e.model);
    EXPECT_EQ(inv.cpu.sockets, e.sockets);
    EXPECT_EQ(inv.cpu.physical_cores, e.cores);
    EXPECT_EQ(inv.cpu.logical_cpus, e.logical);
    EXPECT_EQ(inv.cpu.numa_nodes, e.numa);
    expect_l3(inv.cpu.l3_bytes, e.l3, "L3");
    EXPECT_EQ(inv.memory.total_bytes, e.memory);
  }
}

TEST(InventoryTrees, FactsThroughTheSysfsFallback) {
  const HwlocTopology none;  // as where hwloc cannot read the tree
  for (const Expected& e : kTrees) {
    SCOPED_TRACE(e.tree);
    std::vector<std::string> notes;
    const CpuInfo cpu = read_cpu_info(tree(e.tree), none, notes);
    EXPECT_EQ(cpu.source, "sysfs");
    EXPECT_EQ(cpu.sockets, e.sockets_sysfs);
    EXPECT_EQ(cpu.physical_cores, e.cores);
    EXPECT_EQ(cpu.logical_cpus, e.logical);
    EXPECT_EQ(cpu.numa_nodes, e.numa);
    expect_l3(cpu.l3_bytes, e.l3, "L3");
    EXPECT_EQ(read_memory_info(tree(e.tree), none, notes).total_bytes, e.memory);
  }
}

TEST(InventoryTrees, HwlocReadsTheTreesItCan) {
  for (const char* name : {"x86_old_kernel", "power9_lpar", "amd_multi_die", "arm_server", "vm_bare"}) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(load_hwloc_topology(tree(name)).linux_cpus);
    EXPECT_EQ(collect_inventory(tree(name)).cpu.source.rfind("hwloc ", 0), 0u);
  }
  // No topology masks recorded: hwloc says so instead of guessing from this host.
  const HwlocTopology s390 = load_hwloc_topology(tree("s390x_books"));
  EXPECT_FALSE(s390.linux_cpus);
  EXPECT_FALSE(s390.error.empty());
}

TEST(InventoryTrees, GpuMemoryNodeIsApart) {
  const Inventory inv = collect_inventory(tree("gh200_gpu_memory"));
  ASSERT_GE(inv.memory.nodes.size(), 2u);
  EXPECT_EQ(inv.memory.nodes[1].os_index, 1);
  EXPECT_EQ(inv.memory.nodes[1].cpus, 0);
  EXPECT_EQ(inv.memory.nodes[1].gpu_bdf, "0009:01:00.0");
  EXPECT_EQ(inv.memory.nodes[1].memory_bytes, 100663296 * kKiB);
}

TEST(InventoryTrees, CachesPerLevelAndPackage) {
  const Inventory inv = collect_inventory(tree("amd_multi_die"));
  const CacheLevel* l3 = nullptr;
  for (const auto& c : inv.cpu.caches) {
    if (c.level == 3) l3 = &c;
  }
  ASSERT_NE(l3, nullptr);
  EXPECT_EQ(l3->instance_bytes, 6 * kMiB);
  EXPECT_EQ(l3->instances, 4);
  EXPECT_EQ(l3->per_package_bytes, 12 * kMiB);
  int levels = 0;
  for (const auto& c : inv.cpu.caches) levels += c.level == 1 ? 1 : 0;
  EXPECT_EQ(levels, 2);  // L1d and L1i apart
}

TEST(InventoryTrees, ContainerLimitedToFewerCpus) {
  const Inventory inv = collect_inventory(tree("container_limited"));
  EXPECT_EQ(inv.cpu.logical_cpus, 128);  // the machine
  EXPECT_EQ(inv.cpu_allowance.online, 128);
  EXPECT_EQ(inv.cpu_allowance.affinity, 8);  // the recorded process's Cpus_allowed_list
  EXPECT_EQ(inv.cpu_allowance.usable(), 4);  // the cgroup's cpu.max
  EXPECT_TRUE(inv.cpu_allowance.limited());
  bool said = false;
  for (const auto& note : inv.notes) said = said || note.find("4 of 128 CPUs") != std::string::npos;
  EXPECT_TRUE(said);
  const auto judgements = judge_cpu_allowance(inv);
  ASSERT_EQ(judgements.size(), 1u);
  EXPECT_EQ(judgements[0].verdict, Verdict::info);
}

TEST(InventoryTrees, GpusOnTheBusWithoutADriver) {
  Inventory inv = collect_inventory(tree("gpu_without_driver"));
  ASSERT_EQ(inv.gpus.size(), 2u);  // the NVSwitch is no GPU
  EXPECT_EQ(inv.gpus[0].seen_by, std::vector<std::string>{"pci"});
  EXPECT_FALSE(inv.software.driver_version.has_value());
  // Recorded: the driver was not asked, so nothing fails.
  for (const auto& j : judge_gpus_on_bus(inv, default_profile())) EXPECT_EQ(j.verdict, Verdict::info);
  // The same machine found live: CUDA and NVML see none of them.
  inv.recorded_root.clear();
  const auto judgements = judge_gpus_on_bus(inv, default_profile());
  ASSERT_EQ(judgements.size(), 2u);
  EXPECT_EQ(judgements[0].verdict, Verdict::fail);
  EXPECT_NE(judgements[0].explanation.find("no driver bound"), std::string::npos);
  EXPECT_EQ(judgements[1].subject, "inventory/gpu/0000:19:00.0/driver");
}

}  // namespace
}  // namespace pipecheck
