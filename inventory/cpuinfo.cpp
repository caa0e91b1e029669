// Parsing /proc/cpuinfo. Each architecture prints its own keys (the kernel's show_cpuinfo per
// arch): the model is taken from the first line of the first kind found, in this order.
#include "inventory/cpuinfo.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <regex>
#include <sstream>

#include "core/sysfs.hpp"

namespace pipecheck {

namespace {

// "key\t\t: value" -> (key, value), both trimmed; false when the line has no colon.
bool split_key_value(const std::string& line, std::string& key, std::string& value) {
  const auto colon = line.find(':');
  if (colon == std::string::npos) return false;
  key = trim(line.substr(0, colon));
  value = trim(line.substr(colon + 1));
  return true;
}

std::optional<long> parse_number(const std::string& text, int base = 10) {
  try {
    std::size_t used = 0;
    const long value = std::stol(text, &used, base);
    if (used != text.size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Keys that name the model, best first: x86/IA-64/newer Arm "model name", 32-bit Arm before
// 3.8 "Processor" (capital P; lowercase "processor" is the CPU number), POWER and SPARC "cpu",
// MIPS "cpu model", RISC-V "uarch".
constexpr std::array<const char*, 5> kModelKeys = {"model name", "Processor", "cpu", "cpu model", "uarch"};

struct Names {
  std::array<std::string, kModelKeys.size()> by_key;
  std::optional<unsigned> arm_implementer;
  std::optional<unsigned> arm_part;
  std::string s390_vendor;
  std::optional<unsigned> s390_machine;
};

// s390: "processor 0: version = FF,  identification = 0133E8,  machine = 2964".
std::optional<unsigned> s390_machine_of(const std::string& value) {
  static const std::regex machine(R"(machine\s*=\s*([0-9A-Fa-f]{4}))");
  std::smatch match;
  if (!std::regex_search(value, match, machine)) return std::nullopt;
  return static_cast<unsigned>(std::stoul(match[1].str(), nullptr, 16));
}

void note_name(const std::string& key, const std::string& value, Names& names) {
  for (std::size_t i = 0; i < kModelKeys.size(); ++i) {
    if (key == kModelKeys[i] && names.by_key[i].empty() && !value.empty()) names.by_key[i] = value;
  }
  if (key == "CPU implementer" && !names.arm_implementer) {
    if (const auto n = parse_number(value, 16)) names.arm_implementer = static_cast<unsigned>(*n);
  }
  if (key == "CPU part" && !names.arm_part) {
    if (const auto n = parse_number(value, 16)) names.arm_part = static_cast<unsigned>(*n);
  }
  if (key == "vendor_id" && value == "IBM/S390") names.s390_vendor = value;
  // The machine type is printed in hex digits that read as the decimal model number (2964).
  if (!names.s390_machine && key == "machine") {
    if (const auto n = parse_number(value, 16)) names.s390_machine = static_cast<unsigned>(*n);
  }
  if (!names.s390_machine && key.rfind("processor ", 0) == 0) names.s390_machine = s390_machine_of(value);
}

std::string model_of(const Names& names) {
  for (const std::string& name : names.by_key) {
    if (!name.empty()) return name;
  }
  if (names.arm_implementer && names.arm_part) return arm_cpu_name(*names.arm_implementer, *names.arm_part);
  if (!names.s390_vendor.empty() && names.s390_machine) return s390_machine_name(*names.s390_machine);
  return "";
}

bool is_numbered_processor_key(const std::string& key) {
  // s390: "processor 0", "processor 1", ... one line each.
  if (key.rfind("processor ", 0) != 0) return false;
  const std::string number = key.substr(10);
  return !number.empty() && number.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

CpuinfoFacts parse_cpuinfo(const std::string& text) {
  CpuinfoFacts facts;
  Names names;
  int blocks = 0, numbered = 0, summary = 0;
  std::optional<long> package, core, cores_here;
  auto close_block = [&] {
    if (package) facts.packages.insert(static_cast<int>(*package));
    if (package && core) facts.cores.insert({static_cast<int>(*package), static_cast<int>(*core)});
    if (package && cores_here && *cores_here > 0) facts.cores_per_package[static_cast<int>(*package)] = static_cast<int>(*cores_here);
    package.reset();
    core.reset();
    cores_here.reset();
  };
  std::istringstream lines(text);
  std::string line, key, value;
  while (std::getline(lines, line)) {
    if (trim(line).empty()) close_block();
    if (!split_key_value(line, key, value)) continue;
    note_name(key, value, names);
    if (key == "processor" && parse_number(value)) {
      close_block();
      ++blocks;
    }
    if (is_numbered_processor_key(key)) ++numbered;
    if (key == "# processors") summary = static_cast<int>(parse_number(value).value_or(0));
    if (key == "physical id") package = parse_number(value);
    if (key == "core id") core = parse_number(value);
    if (key == "cpu cores") cores_here = parse_number(value);
  }
  close_block();
  facts.processors = std::max({blocks, numbered, summary});
  facts.model = model_of(names);
  return facts;
}

std::string arm_cpu_name(unsigned implementer, unsigned part) {
  // Implementer codes and part numbers from the Main ID Register (MIDR_EL1) of each core's
  // technical reference manual.
  struct Part {
    unsigned implementer;
    unsigned part;
    const char* name;
  };
  static constexpr Part kParts[] = {
      {0x41, 0xc07, "Cortex-A7"},      {0x41, 0xc09, "Cortex-A9"},      {0x41, 0xc0f, "Cortex-A15"},
      {0x41, 0xd03, "Cortex-A53"},     {0x41, 0xd04, "Cortex-A35"},     {0x41, 0xd05, "Cortex-A55"},
      {0x41, 0xd07, "Cortex-A57"},     {0x41, 0xd08, "Cortex-A72"},     {0x41, 0xd09, "Cortex-A73"},
      {0x41, 0xd0a, "Cortex-A75"},     {0x41, 0xd0b, "Cortex-A76"},     {0x41, 0xd0c, "Neoverse-N1"},
      {0x41, 0xd0d, "Cortex-A77"},     {0x41, 0xd40, "Neoverse-V1"},    {0x41, 0xd41, "Cortex-A78"},
      {0x41, 0xd44, "Cortex-X1"},      {0x41, 0xd46, "Cortex-A510"},    {0x41, 0xd47, "Cortex-A710"},
      {0x41, 0xd48, "Cortex-X2"},      {0x41, 0xd49, "Neoverse-N2"},    {0x41, 0xd4a, "Neoverse-E1"},
      {0x41, 0xd4f, "Neoverse-V2"},    {0x41, 0xd80, "Cortex-A520"},    {0x41, 0xd81, "Cortex-A720"},
      {0x41, 0xd82, "Cortex-X4"},      {0x41, 0xd84, "Neoverse-V3"},    {0x41, 0xd8e, "Neoverse-N3"},
      {0x42, 0x516, "ThunderX2"},      {0x43, 0x0a1, "ThunderX 88XX"},  {0x43, 0x0af, "ThunderX2 99xx"},
      {0x46, 0x001, "A64FX"},          {0x48, 0xd01, "Kunpeng-920"},    {0x4e, 0x004, "Carmel"},
      {0x50, 0x000, "X-Gene"},         {0xc0, 0xac3, "Ampere-1"},       {0xc0, 0xac4, "Ampere-1a"},
  };
  struct Vendor {
    unsigned implementer;
    const char* name;
  };
  static constexpr Vendor kVendors[] = {{0x41, "ARM"},     {0x42, "Broadcom"}, {0x43, "Cavium"},
                                        {0x46, "Fujitsu"}, {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},
                                        {0x50, "APM"},     {0x51, "Qualcomm"}, {0x61, "Apple"},
                                        {0xc0, "Ampere"}};
  char number[48];
  const char* vendor = nullptr;
  for (const auto& v : kVendors) {
    if (v.implementer == implementer) vendor = v.name;
  }
  if (!vendor) {
    std::snprintf(number, sizeof number, "CPU implementer 0x%02x, part 0x%03x", implementer, part);
    return number;
  }
  for (const auto& p : kParts) {
    if (p.implementer == implementer && p.part == part) return std::string(vendor) + " " + p.name;
  }
  std::snprintf(number, sizeof number, " part 0x%03x", part);
  return vendor + std::string(number);
}

std::string s390_machine_name(unsigned machine_type) {
  // IBM's machine types (the hex digits read as the decimal type number).
  struct Model {
    unsigned type;
    const char* name;
  };
  static constexpr Model kModels[] = {
      {0x2817, "z196"}, {0x2818, "z114"}, {0x2827, "zEC12"}, {0x2828, "zBC12"}, {0x2964, "z13"},
      {0x2965, "z13s"}, {0x3906, "z14"},  {0x3907, "z14 ZR1"}, {0x8561, "z15"}, {0x8562, "z15 T02"},
      {0x3931, "z16"},  {0x3932, "z16 A02"}, {0x9175, "z17"}};
  char type[8];
  std::snprintf(type, sizeof type, "%04x", machine_type);
  for (const auto& m : kModels) {
    if (m.type == machine_type) return std::string("IBM ") + m.name + " (machine type " + type + ")";
  }
  return std::string("IBM Z machine type ") + type;
}

}  // namespace pipecheck
