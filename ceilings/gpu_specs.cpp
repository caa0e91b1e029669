// The GPU data tables of the ceilings model. Every figure sits beside its source; a cell that
// no published source confirms stays unknown with the reason, so the report never invents one.
#include "ceilings/gpu_specs.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>
#include <vector>

namespace pipecheck {

namespace {

constexpr GemmRate rate(int value) { return {value, value, ""}; }
// Professional boards vs GeForce boards (FP32-accumulate tensor math halved on GeForce).
constexpr GemmRate pro_geforce(int pro, int geforce) { return {pro, geforce, ""}; }
constexpr GemmRate none(const char* why) { return {kRateNotSupported, kRateNotSupported, why}; }
constexpr GemmRate unverified(const char* why) { return {kRateUnverified, kRateUnverified, why}; }

// Dense FLOP/clk/SM (INT8: OP/clk/SM); FMA = 2 FLOP. FP16/BF16/FP8 are the FP32-accumulate rates,
// the ones cuBLAS/cuBLASLt GEMMs use. FP64 is the tensor-core (DMMA) rate where one exists, since
// cuBLAS DGEMM runs there. Each row is back-checked against a spec sheet: figure = SMs x boost x rate.
constexpr std::array<ArchGemmRates, 10> kArchRates{{
    // Volta whitepaper / V100 datasheet: V100 SXM2 125 TF tensor = 80 SMs x 1530 MHz x 1024;
    // FP32 15.7 = 80 x 1530 x 128; FP64 7.8 = 80 x 1530 x 64.
    {7, 0, "Volta",
     rate(64), rate(128), none("sm_70 has no TF32 (TF32 from sm_80)"), rate(1024),
     none("sm_70 has no BF16 (BF16 from sm_80)"), none("sm_70 has no FP8 (FP8 from sm_89)"),
     none("sm_70 has no INT8 tensor cores (DP4A only)"),
     "NVIDIA Tesla V100 GPU Architecture whitepaper; V100 datasheet"},
    // Turing whitepaper appendix: T4 65 TF FP16 = 40 SMs x 1590 MHz x 1024, 130 INT8 TOPS = x 2048;
    // RTX 2080 Ti FE FP16 with FP32 accumulate 56.9 TF = 68 x 1635 x 512 (GeForce half rate);
    // FP64 at 1/32 of FP32 (CUDA C++ Programming Guide throughput table: 2 FP64 FMA/clk/SM).
    {7, 5, "Turing",
     rate(4), rate(128), none("sm_75 has no TF32 (TF32 from sm_80)"), pro_geforce(1024, 512),
     none("sm_75 has no BF16 (BF16 from sm_80)"), none("sm_75 has no FP8 (FP8 from sm_89)"),
     rate(2048), "NVIDIA Turing GPU Architecture whitepaper (appendix A); T4 datasheet"},
    // A100 whitepaper: 108 SMs x 1410 MHz: FP64 tensor 19.5 TF (x128), FP32 19.5 (x128),
    // TF32 156 (x1024), FP16/BF16 312 (x2048), INT8 624 TOPS (x4096).
    {8, 0, "Ampere GA100",
     rate(128), rate(128), rate(1024), rate(2048), rate(2048),
     none("sm_80 has no FP8 tensor cores (FP8 from sm_89)"), rate(4096),
     "NVIDIA A100 Tensor Core GPU Architecture whitepaper"},
    // GA102 whitepaper: A40 FP16 tensor w/ FP32 acc 149.7 TF = 84 SMs x 1740 MHz x 1024, RTX 3090
    // 71 TF = 82 x 1695 x 512 (GeForce half rate); TF32 likewise 512 / 256; INT8 284 TOPS = x 2048
    // on both; FP32 35.6 = x 256; FP64 1/64 of FP32.
    {8, 6, "Ampere GA10x",
     rate(4), rate(256), pro_geforce(512, 256), pro_geforce(1024, 512), pro_geforce(1024, 512),
     none("sm_86 has no FP8 tensor cores (FP8 from sm_89)"), rate(2048),
     "NVIDIA Ampere GA102 GPU Architecture whitepaper; A10 / A40 datasheets"},
    // Jetson AGX Orin technical brief: 16 SMs at 1.3 GHz, 5.3 FP32 TF = x 256, 170 sparse INT8 TOPS
    // = 85 dense = x 4096. NVIDIA publishes no FP16/TF32/FP64 tensor figure for the Orin GPU.
    {8, 7, "Ampere GA10B (Orin)",
     unverified("no published FP64 rate for the Orin GPU"), rate(256),
     unverified("no published TF32 tensor figure for the Orin GPU"),
     unverified("no published FP16 tensor figure for the Orin GPU (only sparse INT8 TOPS)"),
     unverified("no published BF16 tensor figure for the Orin GPU (only sparse INT8 TOPS)"),
     none("sm_87 has no FP8 tensor cores (FP8 from sm_89)"), rate(4096),
     "NVIDIA Jetson AGX Orin Series technical brief"},
    // Ada whitepaper appendix / L40S datasheet: L40S 142 SMs x 2520 MHz: FP32 91.6 (x256), TF32 183
    // (x512), BF16 362 (x1024), FP8 733 (x2048), INT8 733 (x2048). RTX 4090 128 x 2520: TF32 82.6
    // (x256), FP16/BF16 w/ FP32 acc 165.2 (x512), FP8 w/ FP32 acc 330.3 (x1024), INT8 660.6 (x2048).
    {8, 9, "Ada Lovelace",
     rate(4), rate(256), pro_geforce(512, 256), pro_geforce(1024, 512), pro_geforce(1024, 512),
     pro_geforce(2048, 1024), rate(2048),
     "NVIDIA Ada Lovelace GPU Architecture whitepaper (appendix); L40S / L4 datasheets"},
    // H100 whitepaper: H100 SXM5 132 SMs: FP64 tensor 66.9 and FP32 66.9 TF at 1980 MHz (x256);
    // TF32 494.7 (x2048), FP16/BF16 989.4 (x4096), FP8 and INT8 1978.9 (x8192) at 1830 MHz.
    {9, 0, "Hopper",
     rate(256), rate(256), rate(2048), rate(4096), rate(4096), rate(8192), rate(8192),
     "NVIDIA H100 Tensor Core GPU Architecture whitepaper"},
    // HGX B200 datasheet (per GPU, sparse halved): BF16 2250 TF, FP8 and INT8 4500, TF32 1100,
    // FP32 75, FP64 37 on 148 SMs: twice Hopper's tensor rate per SM (x8192 BF16 at ~1.86 GHz).
    {10, 0, "Blackwell B200",
     rate(128), rate(256), rate(4096), rate(8192), rate(8192), rate(16384), rate(16384),
     "NVIDIA HGX B200 datasheet; pipecheck REFERENCE.md table"},
    // Blackwell Ultra (B300) cut FP64 and INT8 and its SM count and clocks are not published next
    // to its dense figures, so only the FP32 core count per SM (128) is taken as known.
    {10, 3, "Blackwell Ultra B300",
     unverified("Blackwell Ultra FP64 rate per SM not published (FP64 was cut)"), rate(256),
     unverified("Blackwell Ultra TF32 rate per SM not confirmed from a primary source"),
     unverified("Blackwell Ultra FP16 rate per SM not confirmed from a primary source"),
     unverified("Blackwell Ultra BF16 rate per SM not confirmed from a primary source"),
     unverified("Blackwell Ultra FP8 rate per SM not confirmed from a primary source"),
     unverified("Blackwell Ultra INT8 rate per SM not published (INT8 was cut)"),
     "NVIDIA Blackwell Ultra announcement (128 FP32 cores per SM)"},
    // RTX Blackwell (RTX 5090: 170 SMs x 2407 MHz): FP32 104.8 TF (x256), FP64 1/64 of FP32,
    // FP16 tensor w/ FP32 accumulate 209.5 TF on GeForce (x512). The professional boards' FP32-acc
    // rate, the FP8 rate with FP32 accumulate and TF32/INT8 are not confirmed: left unknown.
    {12, 0, "Blackwell GB20x",
     rate(4), rate(256), unverified("sm_120 TF32 tensor rate not confirmed from a primary source"),
     {kRateUnverified, 512, "sm_120 professional boards' FP32-accumulate rate not confirmed"},
     {kRateUnverified, 512, "sm_120 professional boards' FP32-accumulate rate not confirmed"},
     unverified("sm_120 FP8 rate with FP32 accumulate (what cuBLASLt uses) not confirmed"),
     unverified("sm_120 INT8 tensor rate not confirmed from a primary source"),
     "NVIDIA RTX Blackwell GPU Architecture whitepaper; pipecheck REFERENCE.md table"},
}};

// Dense spec-sheet figures; sparse sheet figures are halved. INT8 in TOPS.
constexpr std::array<VendorSpec, 16> kVendorSpecs{{
    // NVIDIA V100 datasheet (SXM2, 300 W).
    {"V100 SXM2", 80, 1530, 7.8, 15.7, 0, 125, 0, 0, 0, 900, "HBM2",
     "NVIDIA V100 Tensor Core GPU datasheet"},
    // NVIDIA V100 datasheet (PCIe, 250 W): 112 TF tensor = 80 SMs x ~1370 MHz x 1024 (so are
    // 14 TF FP32 = x 128 and 7 TF FP64 = x 64); its 1380 MHz boost would give 113.
    {"V100 PCIe", 80, 1370, 7.0, 14.0, 0, 112, 0, 0, 0, 900, "HBM2",
     "NVIDIA V100 Tensor Core GPU datasheet"},
    // NVIDIA A100 datasheet: FP64 is the tensor-core figure (cuBLAS DGEMM runs there).
    {"A100 SXM 40GB", 108, 1410, 19.5, 19.5, 156, 312, 312, 0, 624, 1555, "HBM2",
     "NVIDIA A100 Tensor Core GPU datasheet"},
    {"A100 SXM 80GB", 108, 1410, 19.5, 19.5, 156, 312, 312, 0, 624, 2039, "HBM2e",
     "NVIDIA A100 Tensor Core GPU datasheet"},
    {"A100 PCIe 40GB", 108, 1410, 19.5, 19.5, 156, 312, 312, 0, 624, 1555, "HBM2",
     "NVIDIA A100 Tensor Core GPU datasheet"},
    {"A100 PCIe 80GB", 108, 1410, 19.5, 19.5, 156, 312, 312, 0, 624, 1935, "HBM2e",
     "NVIDIA A100 Tensor Core GPU datasheet"},
    // H100 whitepaper (dense, tensor peaks at 1830 MHz); 3.35 TB/s from the H100 datasheet.
    {"H100 SXM", 132, 1830, 66.9, 66.9, 494.7, 989.4, 989.4, 1978.9, 1978.9, 3350, "HBM3",
     "NVIDIA H100 Tensor Core GPU Architecture whitepaper; H100 datasheet"},
    // H100 whitepaper table 3 (PCIe figures, GPU boost clock for tensor math 1620 MHz: BF16
    // 756.4 TF = 114 SMs x 1620 MHz x 4096); 2 TB/s from the H100 datasheet.
    {"H100 PCIe", 114, 1620, 51.2, 51.2, 378, 756, 756, 1513, 1513, 2000, "HBM2e",
     "NVIDIA H100 Tensor Core GPU Architecture whitepaper; H100 datasheet"},
    // H100 datasheet, H100 NVL column (per GPU, sparse halved).
    {"H100 NVL", 132, 0, 60, 60, 417.5, 835.5, 835.5, 1670.5, 1670.5, 3900, "HBM3",
     "NVIDIA H100 Tensor Core GPU datasheet"},
    // H200 datasheet: same GH100 compute as H100 SXM (whitepaper figures), 4.8 TB/s HBM3e.
    {"H200 SXM", 132, 1830, 66.9, 66.9, 494.7, 989.4, 989.4, 1978.9, 1978.9, 4800, "HBM3e",
     "NVIDIA H200 Tensor Core GPU datasheet; H100 whitepaper"},
    // H200 datasheet, H200 NVL column (sparse halved).
    {"H200 NVL", 132, 0, 60, 60, 417.5, 835.5, 835.5, 1670.5, 1670.5, 4800, "HBM3e",
     "NVIDIA H200 Tensor Core GPU datasheet"},
    // One sheet, the HGX B200 datasheet, per GPU (its 8-GPU figures / 8, sparse halved): BF16
    // 2250 TF, FP8 4500, TF32 1100, FP32 75, FP64 37, and 7.7 TB/s of HBM3e on its 180 GB boards
    // (the early 192 GB sheet's 8 TB/s belongs to other boards and other compute figures).
    {"B200", 148, 0, 37, 75, 1100, 2250, 2250, 4500, 4500, 7700, "HBM3e",
     "NVIDIA HGX B200 datasheet (per GPU)"},
    // L40S datasheet (dense column); no FP64 figure on the sheet. Its BF16 362.05 sits a little
    // below 142 x 2520 MHz x 1024 = 366.4 while FP32 and FP8 match 2520 MHz: kept as printed.
    {"L40S", 142, 2520, 0, 91.6, 183, 362.05, 362.05, 733, 733, 864, "GDDR6",
     "NVIDIA L40S datasheet"},
    // L4 datasheet (sparse halved); no FP64 figure on the sheet.
    {"L4", 58, 2040, 0, 30.3, 60, 121, 121, 242.5, 242.5, 300, "GDDR6",
     "NVIDIA L4 Tensor Core GPU datasheet"},
    // Ada whitepaper appendix, RTX 4090: FP32-accumulate tensor figures (GeForce half rate).
    {"RTX 4090", 128, 2520, 0, 82.6, 82.6, 165.2, 165.2, 330.3, 660.6, 1008, "GDDR6X",
     "NVIDIA Ada Lovelace GPU Architecture whitepaper (appendix)"},
    // A10 datasheet (sparse halved); no FP64 figure on the sheet.
    {"A10", 72, 1695, 0, 31.2, 62.5, 125, 125, 0, 250, 600, "GDDR6",
     "NVIDIA A10 Tensor Core GPU datasheet"},
}};

constexpr std::array<NvlinkGeneration, 5> kNvlinkGenerations{{
    {1, 20, 4, "P100", "NVIDIA Tesla P100 whitepaper (160 GB/s bidirectional over 4 links)"},
    {2, 25, 6, "V100", "NVIDIA V100 datasheet (300 GB/s bidirectional over 6 links)"},
    {3, 25, 12, "A100", "NVIDIA A100 whitepaper (600 GB/s bidirectional over 12 links)"},
    {4, 25, 18, "H100/H200", "NVIDIA H100 whitepaper (900 GB/s bidirectional over 18 links)"},
    {5, 50, 18, "B200", "NVIDIA Blackwell datasheet (1.8 TB/s bidirectional over 18 links)"},
}};
// GA102 boards (A40, RTX A6000, RTX 3090) have third-generation NVLink, but four x4 links at
// 14.0625 GB/s per link per direction (GA102 whitepaper: 112.5 GB/s bidirectional over 4
// links), not the A100's 25 GB/s links.
constexpr NvlinkGeneration kGa102Nvlink{3, 14.0625, 4, "GA102 (A40, RTX A6000, RTX 3090)",
                                        "NVIDIA Ampere GA102 GPU Architecture whitepaper (112.5 GB/s bidirectional over 4 links)"};

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Device names split on spaces and hyphens: "NVIDIA A100-SXM4-80GB" -> NVIDIA, A100, SXM4, 80GB.
std::vector<std::string> name_tokens(std::string_view name) {
  std::vector<std::string> tokens;
  std::string current;
  for (char c : upper(name)) {
    if (c == ' ' || c == '-' || c == '_') {
      if (!current.empty()) tokens.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) tokens.push_back(current);
  return tokens;
}

bool has_token(const std::vector<std::string>& tokens, std::string_view token) {
  return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
}

bool has_token_prefix(const std::vector<std::string>& tokens, std::string_view prefix) {
  return std::any_of(tokens.begin(), tokens.end(),
                     [&](const std::string& t) { return t.rfind(prefix, 0) == 0; });
}

const VendorSpec* spec_named(std::string_view sku) {
  for (const auto& spec : kVendorSpecs) {
    if (sku == spec.sku) return &spec;
  }
  return nullptr;
}

}  // namespace

std::span<const ArchGemmRates> arch_gemm_rates() { return kArchRates; }

const ArchGemmRates* find_arch_gemm_rates(int cc_major, int cc_minor) {
  for (const auto& row : kArchRates) {
    if (row.cc_major == cc_major && row.cc_minor == cc_minor) return &row;
  }
  // 12.x parts share the 12.0 tensor-core generation.
  if (cc_major == 12) return find_arch_gemm_rates(12, 0);
  return nullptr;
}

const GemmRate& rate_of(const ArchGemmRates& row, Dtype dtype) {
  switch (dtype) {
    case Dtype::fp64: return row.fp64;
    case Dtype::fp32: return row.fp32;
    case Dtype::tf32: return row.tf32;
    case Dtype::fp16: return row.fp16;
    case Dtype::bf16: return row.bf16;
    case Dtype::fp8: return row.fp8;
    case Dtype::int8: return row.int8;
  }
  return row.fp32;
}

std::string sm_label(int cc_major, int cc_minor) {
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

GemmRateAnswer gemm_per_clk_sm(int cc_major, int cc_minor, Dtype dtype, bool geforce) {
  GemmRateAnswer answer;
  const std::string label = sm_label(cc_major, cc_minor);
  const ArchGemmRates* row = find_arch_gemm_rates(cc_major, cc_minor);
  if (!row) {
    answer.unknown_reason = "no FLOP/clk/SM table row for " + label;
    return answer;
  }
  answer.row_label = label;
  if (row->cc_major != cc_major || row->cc_minor != cc_minor) {
    answer.row_label += ", using the " + sm_label(row->cc_major, row->cc_minor) + " row";
  }
  const GemmRate& cell = rate_of(*row, dtype);
  const int value = geforce ? cell.geforce : cell.pro;
  if (value > 0) {
    answer.per_clk_sm = value;
    answer.geforce_rate = geforce && cell.geforce != cell.pro;
    return answer;
  }
  if (value == kRateNotSupported) {
    answer.unknown_reason = cell.why;
  } else {
    answer.unknown_reason = std::string("not verified: ") + cell.why;
  }
  return answer;
}

bool is_geforce_name(std::string_view name) {
  const std::string up = upper(name);
  if (up.find("GEFORCE") != std::string::npos) return true;
  // RTX 2060 .. RTX 5090 (and Ti/Super) are GeForce; RTX 4000/5000/6000 Ada and RTX PRO are not.
  static const std::regex geforce_model(R"(\bRTX [2-5]0[5-9]0\b)");
  return std::regex_search(up, geforce_model);
}

std::span<const VendorSpec> vendor_specs() { return kVendorSpecs; }

const VendorSpec* match_vendor_spec(std::string_view gpu_name) {
  const auto tokens = name_tokens(gpu_name);
  const std::string up = upper(gpu_name);
  const bool pcie = has_token_prefix(tokens, "PCIE");
  const bool sxm = has_token_prefix(tokens, "SXM");
  const bool nvl = has_token(tokens, "NVL");

  if (has_token(tokens, "V100")) {
    if (has_token(tokens, "SXM2")) return spec_named("V100 SXM2");
    if (pcie) return spec_named("V100 PCIe");
    return nullptr;  // SXM3 (DGX-2) and unmarked boards run other clocks
  }
  if (has_token(tokens, "A100")) {
    const bool big = up.find("80GB") != std::string::npos;
    const bool small = up.find("40GB") != std::string::npos;
    if (sxm == pcie || big == small) return nullptr;  // form factor or size not in the name
    if (sxm) return spec_named(big ? "A100 SXM 80GB" : "A100 SXM 40GB");
    return spec_named(big ? "A100 PCIe 80GB" : "A100 PCIe 40GB");
  }
  if (has_token(tokens, "H100")) {
    if (nvl) return spec_named("H100 NVL");
    if (pcie) return spec_named("H100 PCIe");
    // "NVIDIA H100 80GB HBM3" is how the SXM5 board names itself.
    if (sxm || has_token(tokens, "HBM3")) return spec_named("H100 SXM");
    return nullptr;
  }
  if (has_token(tokens, "H200")) {
    if (nvl) return spec_named("H200 NVL");
    if (pcie) return nullptr;
    return spec_named("H200 SXM");  // "NVIDIA H200" is the SXM board
  }
  if (has_token(tokens, "B200")) return spec_named("B200");
  if (has_token(tokens, "L40S")) return spec_named("L40S");
  if (has_token(tokens, "L4")) return spec_named("L4");
  if (has_token(tokens, "A10")) return spec_named("A10");  // not A10G (AWS board, other clocks and SMs)
  // The RTX 4090 only: not the 4090 D or the laptop part, which differ.
  if (tokens.size() >= 2 && tokens[tokens.size() - 2] == "RTX" && tokens.back() == "4090") {
    return spec_named("RTX 4090");
  }
  return nullptr;
}

double vendor_figure(const VendorSpec& spec, Dtype dtype) {
  switch (dtype) {
    case Dtype::fp64: return spec.fp64;
    case Dtype::fp32: return spec.fp32;
    case Dtype::tf32: return spec.tf32;
    case Dtype::fp16: return spec.fp16;
    case Dtype::bf16: return spec.bf16;
    case Dtype::fp8: return spec.fp8;
    case Dtype::int8: return spec.int8;
  }
  return 0;
}

const NvlinkGeneration* find_nvlink_generation(int version) {
  for (const auto& generation : kNvlinkGenerations) {
    if (generation.version == version) return &generation;
  }
  return nullptr;
}

const NvlinkGeneration* find_nvlink_rate(int version, int cc_major, int cc_minor) {
  if (version == 3 && cc_major == 8 && cc_minor == 6) return &kGa102Nvlink;
  return find_nvlink_generation(version);
}

std::optional<int> nvlink_version_of_cc(int cc_major, int cc_minor) {
  if (cc_major == 6 && cc_minor == 0) return 1;
  if (cc_major == 7 && cc_minor == 0) return 2;
  if (cc_major == 8 && (cc_minor == 0 || cc_minor == 6)) return 3;  // A100; GA102 (A40, RTX A6000, RTX 3090)
  if (cc_major == 9 && cc_minor == 0) return 4;
  if (cc_major == 10) return 5;
  return std::nullopt;
}

}  // namespace pipecheck
