// The CPU ceiling model (see cpu_ceiling.hpp): a table of FMA units per microarchitecture
// family, each row with the source of its figures.
#include "ceilings/cpu_ceiling.hpp"

#include <algorithm>
#include <cstdio>

namespace pipecheck {

namespace {

// Where a core's real figure may be below the row's (a Xeon SKU with one 512-bit unit, a
// mobile part), the row keeps the higher one: a ceiling may be loose, never too low.
constexpr CpuFmaFamily kIntelAvx512{
    "Intel with AVX-512", 2, 512, 2,
    "2 FMA units of 512 bits (Skylake-SP and later Xeons: ports 0+1 fused and port 5, Intel 64 and IA-32 "
    "Optimization Reference Manual; parts with one 512-bit unit stay below)"};
constexpr CpuFmaFamily kIntelFma{"Intel Haswell and later", 2, 256, 2,
                                 "2 FMA units of 256 bits (ports 0 and 1, Intel Optimization Reference Manual)"};
constexpr CpuFmaFamily kIntelNoFma{"Intel before Haswell", 0, 256, 2,
                                   "no FMA; one multiply and one add pipe (Sandy Bridge, Intel Optimization "
                                   "Reference Manual)"};
constexpr CpuFmaFamily kZen1{"AMD Zen/Zen+ (and Hygon Dhyana)", 2, 128, 4,
                             "2 FMA pipes of 128 bits, 256-bit ops in two halves; 4 FP pipes for separate "
                             "multiplies and adds (AMD Software Optimization Guide for family 17h)"};
constexpr CpuFmaFamily kZen2to3{"AMD Zen 2/Zen 3", 2, 256, 4,
                                "2 FMA pipes of 256 bits; 4 FP pipes for separate multiplies and adds (AMD "
                                "Software Optimization Guides for families 17h and 19h)"};
constexpr CpuFmaFamily kZen4{"AMD Zen 4", 2, 256, 4,
                             "2 FMA pipes of 256 bits, 512-bit ops run in two halves; 4 FP pipes for separate "
                             "multiplies and adds (AMD Software Optimization Guide for family 19h)"};
constexpr CpuFmaFamily kZen5{"AMD Zen 5", 2, 512, 4,
                             "2 FMA pipes of 512 bits (AMD Software Optimization Guide for family 1Ah; mobile "
                             "parts run 512-bit ops in two halves and stay below)"};
constexpr CpuFmaFamily kNeoverseN{"Arm Neoverse N1/N2", 2, 128, 2,
                                  "2 FP/ASIMD pipes of 128 bits, both FMA (Arm Neoverse N1 and N2 Software "
                                  "Optimization Guides)"};
constexpr CpuFmaFamily kNeoverseV{"Arm Neoverse V1/V2 (NVIDIA Grace)", 4, 128, 4,
                                  "4 FP/ASIMD pipes of 128 bits, all FMA (Arm Neoverse V1 and V2 Software "
                                  "Optimization Guides)"};

std::string hex(int value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", value);
  return text;
}

const CpuFmaFamily* x86_family(const CpuCeilingFacts& facts, std::string* why) {
  const int family = facts.family.value_or(-1);
  const int model = facts.model.value_or(-1);
  const auto has = [&](const char* flag) { return facts.flags.count(flag) > 0; };
  if (facts.vendor == "GenuineIntel" && family == 6) {
    if (has("avx512f")) return &kIntelAvx512;
    if (has("fma")) return &kIntelFma;
    return &kIntelNoFma;
  }
  if (facts.vendor == "HygonGenuine" && family == 0x18) return &kZen1;
  if (facts.vendor == "AuthenticAMD") {
    if (family == 0x17) return model >= 0x30 ? &kZen2to3 : &kZen1;
    if (family == 0x19) return has("avx512f") ? &kZen4 : &kZen2to3;  // Zen 3 has no AVX-512
    if (family == 0x1a) return &kZen5;
  }
  *why = "no FMA-unit figures for " + (facts.vendor.empty() ? std::string("this CPU") : facts.vendor) +
         " family " + hex(family) + " model " + hex(model);
  return nullptr;
}

std::string format_number(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

const char* precision_name(CpuPrecision precision) { return precision == CpuPrecision::fp64 ? "FP64" : "FP32"; }

}  // namespace

const CpuFmaFamily* find_cpu_fma_family(const CpuCeilingFacts& facts, std::string* why) {
  std::string reason;
  const CpuFmaFamily* family = nullptr;
  if (facts.family) {
    family = x86_family(facts, &reason);
  } else if (facts.arm_implementer == 0x41 && facts.arm_part) {
    switch (*facts.arm_part) {
      case 0xd0c:  // Neoverse N1
      case 0xd49:  // Neoverse N2
        family = &kNeoverseN;
        break;
      case 0xd40:  // Neoverse V1
      case 0xd4f:  // Neoverse V2 (NVIDIA Grace)
        family = &kNeoverseV;
        break;
      default:
        reason = "no FMA-unit figures for Arm part " + hex(*facts.arm_part);
    }
  } else if (facts.arm_implementer) {
    reason = "no FMA-unit figures for CPU implementer " + hex(*facts.arm_implementer);
  } else {
    reason = "/proc/cpuinfo names no known CPU family";
  }
  if (!family && why) *why = reason;
  return family;
}

std::optional<int> cpu_flop_per_cycle(const CpuFmaFamily& family, int vector_bits, bool fused,
                                      CpuPrecision precision) {
  const int element_bits = precision == CpuPrecision::fp64 ? 64 : 32;
  const int elements = std::min(vector_bits, family.native_bits) / element_bits;
  if (fused) {
    if (family.fma_units == 0) return std::nullopt;  // the CPU has no FMA to run fused code on
    return family.fma_units * elements * 2;
  }
  return family.mul_add_pipes * elements;
}

CeilingResult cpu_burn_ceiling(const CpuCeilingFacts& facts, const CpuVectorOps& kernel, CpuPrecision precision,
                               unsigned threads) {
  std::string why;
  const CpuFmaFamily* family = find_cpu_fma_family(facts, &why);
  if (!family) return CeilingResult::unknown(why);
  const std::optional<int> per_cycle = cpu_flop_per_cycle(*family, kernel.vector_bits, kernel.fused, precision);
  if (!per_cycle) {
    return CeilingResult::unknown(std::string(kernel.display) + " is fused but " + family->name +
                                  " has no FMA");
  }
  const std::string rate = std::to_string(*per_cycle) + " " + precision_name(precision) + " FLOP/cycle a core (" +
                           kernel.display + " on " + family->name + ": " + family->assumption + ")";
  if (!facts.max_mhz) return CeilingResult::unknown(facts.clock_unknown_reason + "; " + rate);
  const unsigned physical = static_cast<unsigned>(std::max(facts.physical_cores, 1));
  const unsigned cores = std::min(std::max(threads, 1u), physical);
  const double value = cores * *facts.max_mhz / 1000.0 * *per_cycle;
  std::string derivation = format_number(value, 1) + " GFLOP/s = " + std::to_string(cores) + " core" +
                           (cores == 1 ? "" : "s") + " x " + format_number(*facts.max_mhz / 1000.0, 2) +
                           " GHz (cpufreq cpuinfo_max_freq) x " + rate;
  if (threads > physical) {
    derivation += "; " + std::to_string(threads) + " threads share " + std::to_string(physical) + " physical cores";
  }
  return CeilingResult::known(Ceiling{value, "GFLOP/s", "theoretical", derivation});
}

Ceiling cpu_sanity_bound(unsigned cores, CpuPrecision precision) {
  cores = std::max(cores, 1u);
  const int per_cycle = kSanityFp64FlopPerCycle * (precision == CpuPrecision::fp64 ? 1 : 2);
  const double value = cores * kSanityClockGhz * per_cycle;
  return Ceiling{value, "GFLOP/s", "sanity bound",
                 format_number(value, 0) + " GFLOP/s = " + std::to_string(cores) + " core" + (cores == 1 ? "" : "s") +
                     " x " + format_number(kSanityClockGhz, 0) + " GHz x " + std::to_string(per_cycle) + " " +
                     precision_name(precision) + " FLOP/cycle (no CPU core goes faster)"};
}

}  // namespace pipecheck
