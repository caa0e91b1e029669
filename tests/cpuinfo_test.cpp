// /proc/cpuinfo as each architecture's kernel prints it.
#include "inventory/cpuinfo.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(Cpuinfo, X86ModelIdsAndCoresPerPackage) {
  const CpuinfoFacts facts = parse_cpuinfo(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 16\nmodel\t\t: 9\n"
      "model name\t: AMD Opteron(tm) Processor 6174\nphysical id\t: 0\ncore id\t\t: 0\ncpu cores\t: 12\n\n"
      "processor\t: 1\nmodel name\t: AMD Opteron(tm) Processor 6174\nphysical id\t: 0\ncore id\t\t: 0\n"
      "cpu cores\t: 12\n\nprocessor\t: 2\nmodel name\t: AMD Opteron(tm) Processor 6174\nphysical id\t: 1\n"
      "core id\t\t: 5\ncpu cores\t: 12\n");
  EXPECT_EQ(facts.model, "AMD Opteron(tm) Processor 6174");
  EXPECT_EQ(facts.processors, 3);
  EXPECT_EQ(facts.packages, (std::set<int>{0, 1}));
  EXPECT_EQ(facts.cores.size(), 2u);  // (0,0) twice: the ids repeat, the count below does not
  EXPECT_EQ(facts.cores_per_package, (std::map<int, int>{{0, 12}, {1, 12}}));
}

TEST(Cpuinfo, PowerModelOnTheCpuLine) {
  const CpuinfoFacts facts = parse_cpuinfo(
      "processor\t: 0\ncpu\t\t: POWER9 (architected), altivec supported\nclock\t\t: 2750.000000MHz\n\n"
      "processor\t: 1\ncpu\t\t: POWER9 (architected), altivec supported\n\ntimebase\t: 512000000\n"
      "platform\t: pSeries\nmodel\t\t: IBM,9009-42A\nmachine\t\t: CHRP IBM,9009-42A\n");
  EXPECT_EQ(facts.model, "POWER9 (architected), altivec supported");
  EXPECT_EQ(facts.processors, 2);
  EXPECT_TRUE(facts.packages.empty());
}

TEST(Cpuinfo, ArmNamesImplementerAndPart) {
  const CpuinfoFacts facts = parse_cpuinfo(
      "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n"
      "CPU part\t: 0xd0c\nCPU revision\t: 1\n");
  EXPECT_EQ(facts.model, "ARM Neoverse-N1");
  EXPECT_EQ(facts.processors, 1);
}

TEST(Cpuinfo, OldArmProcessorLine) {
  // 32-bit Arm before 3.8: "Processor" (capital P) names the model, "processor" numbers CPUs.
  const CpuinfoFacts facts = parse_cpuinfo(
      "Processor\t: ARMv7 Processor rev 10 (v7l)\nprocessor\t: 0\nBogoMIPS\t: 790.52\n\nprocessor\t: 1\n"
      "BogoMIPS\t: 790.52\n\nHardware\t: Freescale i.MX 6Quad\n");
  EXPECT_EQ(facts.model, "ARMv7 Processor rev 10 (v7l)");
  EXPECT_EQ(facts.processors, 2);
}

TEST(Cpuinfo, ModelNameWinsOverEverythingElse) {
  const CpuinfoFacts facts = parse_cpuinfo(
      "processor\t: 0\nmodel name\t: ARMv8 Processor rev 1 (v8l)\nCPU implementer\t: 0x41\nCPU part\t: 0xd08\n");
  EXPECT_EQ(facts.model, "ARMv8 Processor rev 1 (v8l)");
}

TEST(Cpuinfo, S390SummaryAndMachineLines) {
  const CpuinfoFacts older = parse_cpuinfo(
      "vendor_id       : IBM/S390\n# processors    : 4\nbogomips per cpu: 3241.00\n"
      "processor 0: version = FF,  identification = 0133E8,  machine = 2964\n"
      "processor 1: version = FF,  identification = 0133E8,  machine = 2964\n");
  EXPECT_EQ(older.model, "IBM z13 (machine type 2964)");
  EXPECT_EQ(older.processors, 4);  // the summary line counts the ones not listed
  const CpuinfoFacts newer = parse_cpuinfo(
      "vendor_id       : IBM/S390\n# processors    : 2\n\ncpu number      : 0\nversion         : 00\n"
      "identification  : 0133E8\nmachine         : 3906\n\ncpu number      : 1\nmachine         : 3906\n");
  EXPECT_EQ(newer.model, "IBM z14 (machine type 3906)");
  EXPECT_EQ(newer.processors, 2);
}

TEST(Cpuinfo, UnknownCoresAreNamedByNumber) {
  EXPECT_EQ(arm_cpu_name(0x41, 0xd99), "ARM part 0xd99");
  EXPECT_EQ(arm_cpu_name(0x99, 0x123), "CPU implementer 0x99, part 0x123");
  EXPECT_EQ(arm_cpu_name(0x48, 0xd01), "HiSilicon Kunpeng-920");
  EXPECT_EQ(s390_machine_name(0x1234), "IBM Z machine type 1234");
}

TEST(Cpuinfo, NothingToSayGivesNothing) {
  const CpuinfoFacts facts = parse_cpuinfo("");
  EXPECT_EQ(facts.model, "");
  EXPECT_EQ(facts.processors, 0);
  EXPECT_TRUE(facts.cores.empty());
}

}  // namespace
}  // namespace pipecheck
