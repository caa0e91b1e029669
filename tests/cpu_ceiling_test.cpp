// The CPU ceiling over recorded /proc and /sys trees: facts read (family, flags, physical cores,
// max clock or why not), FLOP/cycle per family, ISA and precision, the ceiling with its
// derivation, unknown with the reason, and the sanity bound.
#include <gtest/gtest.h>

#include <sstream>

#include "ceilings/cpu_ceiling.hpp"
#include "ceilings/cpu_ceiling_facts.hpp"
#include "stress/cpu_burn_isa.hpp"

namespace pipecheck {
namespace {

SysfsRoot tree(const std::string& name) { return SysfsRoot(std::string(PIPECHECK_TEST_DATA) + "/sysfs/" + name); }

CpuBurnKernel kernel_of(const char* isa, int bits, bool fused) {
  CpuBurnKernel kernel;
  kernel.isa = isa;
  kernel.display = isa;
  kernel.vector_bits = bits;
  kernel.fused = fused;
  return kernel;
}

const CpuBurnKernel kAvx512 = kernel_of("AVX-512", 512, true);
const CpuBurnKernel kAvx2 = kernel_of("AVX2+FMA", 256, true);
const CpuBurnKernel kSse2 = kernel_of("SSE2", 128, false);
const CpuBurnKernel kNeon = kernel_of("NEON", 128, true);

TEST(CpuCeilingFacts, TheDevelopmentVmHasNoCpufreq) {
  const CpuCeilingFacts facts = read_cpu_ceiling_facts(tree("cpu_ceiling_vm"), {0, 1});
  EXPECT_EQ(facts.vendor, "AuthenticAMD");
  EXPECT_EQ(facts.family, 25);
  EXPECT_EQ(facts.model, 17);
  EXPECT_TRUE(facts.flags.count("avx512f"));
  EXPECT_EQ(facts.physical_cores, 2);
  EXPECT_FALSE(facts.max_mhz);
  EXPECT_EQ(facts.clock_unknown_reason,
            "no cpufreq: /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq absent (a VM, or a kernel without "
            "a cpufreq driver), so the highest clock is unknown");
  const CeilingResult ceiling = cpu_burn_ceiling(facts, kAvx512, CpuPrecision::fp64, 2);
  ASSERT_FALSE(ceiling.ceiling);
  EXPECT_NE(ceiling.unknown_reason.find("no cpufreq"), std::string::npos);
  // What is known is still said: the FLOP/cycle and the family it rests on.
  EXPECT_NE(ceiling.unknown_reason.find("16 FP64 FLOP/cycle a core (AVX-512 on AMD Zen 4: 2 FMA pipes of 256 bits, "
                                        "512-bit ops run in two halves"),
            std::string::npos)
      << ceiling.unknown_reason;
}

TEST(CpuCeilingFacts, SmtSiblingsShareOneCoresUnits) {
  const CpuCeilingFacts facts = read_cpu_ceiling_facts(tree("cpu_ceiling_xeon"), {0, 1, 2, 3});
  EXPECT_EQ(facts.physical_cores, 2);
  ASSERT_TRUE(facts.max_mhz);
  EXPECT_DOUBLE_EQ(*facts.max_mhz, 3200);
  EXPECT_EQ(facts.model_name, "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz");
  // 4 threads on 2 cores: 2 cores x 3.2 GHz x 32.
  const CeilingResult ceiling = cpu_burn_ceiling(facts, kAvx512, CpuPrecision::fp64, 4);
  ASSERT_TRUE(ceiling.ceiling) << ceiling.unknown_reason;
  EXPECT_DOUBLE_EQ(ceiling.ceiling->value, 204.8);
  EXPECT_EQ(ceiling.ceiling->unit, "GFLOP/s");
  EXPECT_EQ(ceiling.ceiling->derivation.substr(0, 91),
            "204.8 GFLOP/s = 2 cores x 3.20 GHz (cpufreq cpuinfo_max_freq) x 32 FP64 FLOP/cycle a core (");
  EXPECT_NE(ceiling.ceiling->derivation.find("4 threads share 2 physical cores"), std::string::npos);
  // One thread: one core. FP32 doubles the FLOP/cycle; AVX2 halves the width.
  EXPECT_DOUBLE_EQ(cpu_burn_ceiling(facts, kAvx512, CpuPrecision::fp64, 1).ceiling->value, 102.4);
  EXPECT_DOUBLE_EQ(cpu_burn_ceiling(facts, kAvx512, CpuPrecision::fp32, 1).ceiling->value, 204.8);
  EXPECT_DOUBLE_EQ(cpu_burn_ceiling(facts, kAvx2, CpuPrecision::fp64, 1).ceiling->value, 51.2);
  // Only the CPUs the burn may use count.
  EXPECT_EQ(read_cpu_ceiling_facts(tree("cpu_ceiling_xeon"), {0, 2}).physical_cores, 1);
}

TEST(CpuCeilingFacts, AcpiCpufreqWithBoostHidesTheBoostClock) {
  const CpuCeilingFacts facts = read_cpu_ceiling_facts(tree("cpu_ceiling_epyc_acpi"), {});
  EXPECT_EQ(facts.cpus, (std::vector<int>{0, 1}));  // every CPU cpuinfo lists
  EXPECT_FALSE(facts.max_mhz);
  EXPECT_EQ(facts.clock_unknown_reason,
            "acpi-cpufreq with boost on: cpuinfo_max_freq (2250 MHz) is the highest P-state, and the cores boost "
            "above it");
  std::string why;
  const CpuFmaFamily* family = find_cpu_fma_family(facts, &why);
  ASSERT_TRUE(family) << why;
  EXPECT_STREQ(family->name, "AMD Zen 2/Zen 3");
  // With boost off the P-state is the ceiling's clock.
  const CpuCeilingFacts off = read_cpu_ceiling_facts(tree("cpu_ceiling_unknown_family"), {0});
  EXPECT_EQ(off.max_mhz, 2500);
}

TEST(CpuCeilingFacts, GraceIsNeoverseV2) {
  const CpuCeilingFacts facts = read_cpu_ceiling_facts(tree("cpu_ceiling_grace"), {0, 1, 2, 3});
  EXPECT_EQ(facts.arm_implementer, 0x41);
  EXPECT_EQ(facts.arm_part, 0xd4f);
  EXPECT_TRUE(facts.flags.count("sve2"));
  EXPECT_EQ(facts.model_name, "");
  const CeilingResult ceiling = cpu_burn_ceiling(facts, kNeon, CpuPrecision::fp64, 4);
  ASSERT_TRUE(ceiling.ceiling) << ceiling.unknown_reason;
  // 4 cores x 3.447 GHz x (4 pipes x 2 doubles x 2).
  EXPECT_NEAR(ceiling.ceiling->value, 4 * 3.447 * 16, 1e-9);
  EXPECT_NE(ceiling.ceiling->derivation.find("Arm Neoverse V1/V2 (NVIDIA Grace)"), std::string::npos);
}

TEST(CpuCeilingFacts, AFamilyWithoutFiguresIsUnknownByName) {
  const CpuCeilingFacts facts = read_cpu_ceiling_facts(tree("cpu_ceiling_unknown_family"), {0});
  const CeilingResult ceiling = cpu_burn_ceiling(facts, kAvx2, CpuPrecision::fp64, 1);
  ASSERT_FALSE(ceiling.ceiling);
  EXPECT_EQ(ceiling.unknown_reason, "no FMA-unit figures for AuthenticAMD family 0x15 model 0x2");
  const CpuCeilingFacts nothing = read_cpu_ceiling_facts(tree("does_not_exist"), {0});
  EXPECT_EQ(cpu_burn_ceiling(nothing, kSse2, CpuPrecision::fp64, 1).unknown_reason,
            "/proc/cpuinfo names no known CPU family");
}

TEST(CpuCeiling, FlopPerCycleByFamilyIsaAndPrecision) {
  struct Case {
    const char* vendor;
    int family, model;
    const char* flags;
    const CpuBurnKernel* kernel;
    CpuPrecision precision;
    int expected;  // -1: none (fused code on a CPU without FMA)
  };
  const Case cases[] = {
      {"GenuineIntel", 6, 106, "avx512f fma", &kAvx512, CpuPrecision::fp64, 32},  // 2 x 8 x 2
      {"GenuineIntel", 6, 106, "avx512f fma", &kAvx2, CpuPrecision::fp64, 16},
      {"GenuineIntel", 6, 106, "avx512f fma", &kSse2, CpuPrecision::fp64, 4},    // 2 pipes x 2
      {"GenuineIntel", 6, 85, "avx512f fma", &kAvx512, CpuPrecision::fp32, 64},
      {"GenuineIntel", 6, 63, "avx2 fma", &kAvx2, CpuPrecision::fp64, 16},       // Haswell
      {"GenuineIntel", 6, 42, "avx", &kAvx2, CpuPrecision::fp64, -1},            // Sandy Bridge
      {"GenuineIntel", 6, 42, "avx", &kSse2, CpuPrecision::fp32, 8},
      {"AuthenticAMD", 23, 1, "avx2 fma", &kAvx2, CpuPrecision::fp64, 8},        // Zen 1: 128-bit pipes
      {"AuthenticAMD", 23, 1, "avx2 fma", &kSse2, CpuPrecision::fp64, 8},        // 4 pipes x 2
      {"AuthenticAMD", 23, 49, "avx2 fma", &kAvx2, CpuPrecision::fp64, 16},      // Zen 2
      {"AuthenticAMD", 25, 1, "avx2 fma", &kAvx2, CpuPrecision::fp32, 32},       // Zen 3
      {"AuthenticAMD", 25, 17, "avx512f avx2 fma", &kAvx512, CpuPrecision::fp64, 16},  // Zen 4: halves
      {"AuthenticAMD", 26, 2, "avx512f avx2 fma", &kAvx512, CpuPrecision::fp64, 32},   // Zen 5
      {"HygonGenuine", 24, 0, "avx2 fma", &kAvx2, CpuPrecision::fp64, 8},
  };
  for (const Case& c : cases) {
    CpuCeilingFacts facts;
    facts.vendor = c.vendor;
    facts.family = c.family;
    facts.model = c.model;
    std::string flags = c.flags, flag;
    for (std::istringstream in(flags); in >> flag;) facts.flags.insert(flag);
    std::string why;
    const CpuFmaFamily* family = find_cpu_fma_family(facts, &why);
    ASSERT_TRUE(family) << why;
    const auto rate = cpu_flop_per_cycle(*family, c.kernel->vector_bits, c.kernel->fused, c.precision);
    EXPECT_EQ(rate.value_or(-1), c.expected) << c.vendor << " " << c.family << "/" << c.model << " "
                                             << c.kernel->display << " " << to_string(c.precision);
  }
}

TEST(CpuCeiling, SanityBoundIsSixGigahertzAtThirtyTwoFlops) {
  const Ceiling fp64 = cpu_sanity_bound(2, CpuPrecision::fp64);
  EXPECT_DOUBLE_EQ(fp64.value, 384);
  EXPECT_EQ(fp64.basis, "sanity bound");
  EXPECT_EQ(fp64.derivation, "384 GFLOP/s = 2 cores x 6 GHz x 32 FP64 FLOP/cycle (no CPU core goes faster)");
  EXPECT_DOUBLE_EQ(cpu_sanity_bound(1, CpuPrecision::fp32).value, 384);
  EXPECT_DOUBLE_EQ(cpu_sanity_bound(0, CpuPrecision::fp64).value, 192);  // never zero
}

// The variant this build picks on this machine is one the table knows, where it knows the CPU.
TEST(CpuCeiling, TheLiveMachine) {
  const CpuCeilingFacts facts = read_cpu_ceiling_facts(SysfsRoot("/"), {});
  const CeilingResult ceiling = cpu_burn_ceiling(facts, widest_cpu_burn_kernel(), CpuPrecision::fp64, 1);
  EXPECT_TRUE(ceiling.ceiling || !ceiling.unknown_reason.empty());
  if (ceiling.ceiling) {
    EXPECT_GT(ceiling.ceiling->value, 0);
    EXPECT_LE(ceiling.ceiling->value, cpu_sanity_bound(1, CpuPrecision::fp64).value);
  }
}

}  // namespace
}  // namespace pipecheck
