// The GPU data tables behind the ceilings model: dense GEMM FLOP/clk/SM per compute capability
// and dtype, vendor spec-sheet figures of known SKUs, and NVLink per-link rates, each with its source.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ceilings/dtype.hpp"

namespace pipecheck {

// A cell of the GEMM rate table is a FLOP (INT8: OP) count per clock per SM, or one of these.
inline constexpr int kRateNotSupported = -1;  // the architecture has no such path
inline constexpr int kRateUnverified = 0;     // not confirmed from a published source: never guessed

// Dense tensor-core (or FMA, where there is no tensor path) rate of one dtype. GeForce boards of
// some architectures run FP32-accumulate tensor math at half the professional boards' rate.
struct GemmRate {
  int pro = kRateUnverified;
  int geforce = kRateUnverified;
  const char* why = "";  // the reason, where a cell is not a number
};

struct ArchGemmRates {
  int cc_major = 0;
  int cc_minor = 0;
  const char* arch = "";
  GemmRate fp64, fp32, tf32, fp16, bf16, fp8, int8;
  const char* source = "";
};

// Every row of the table, in compute capability order.
std::span<const ArchGemmRates> arch_gemm_rates();
// The row of a compute capability: exact, except 12.x which all use the 12.0 row.
const ArchGemmRates* find_arch_gemm_rates(int cc_major, int cc_minor);
const GemmRate& rate_of(const ArchGemmRates& row, Dtype dtype);

struct GemmRateAnswer {
  std::optional<int> per_clk_sm;  // FLOP (INT8: OP) per clock per SM
  std::string unknown_reason;
  bool geforce_rate = false;      // the board's GeForce rate was used and it differs from pro
  std::string row_label;          // "sm_90", or "sm_121, using the sm_120 row"
};
GemmRateAnswer gemm_per_clk_sm(int cc_major, int cc_minor, Dtype dtype, bool geforce);

// "sm_90", "sm_103", "sm_120".
std::string sm_label(int cc_major, int cc_minor);
// GeForce boards by name: "NVIDIA GeForce RTX 4090", or a bare "RTX 3090"; not "RTX 6000 Ada",
// "RTX A6000", "RTX PRO 6000" or "TITAN RTX" (professional rates).
bool is_geforce_name(std::string_view name);

// A vendor spec sheet, dense figures (TFLOP/s; INT8 in TOPS). 0 = not on the sheet.
struct VendorSpec {
  const char* sku = "";         // "H100 SXM"
  int sm_count = 0;             // the SMs the sheet's figures are for
  int tensor_clock_mhz = 0;     // the boost clock the tensor peak is quoted at; 0 = not stated
  double fp64 = 0, fp32 = 0, tf32 = 0, fp16 = 0, bf16 = 0, fp8 = 0, int8 = 0;
  double memory_gbps = 0;
  const char* memory_kind = "";  // "HBM3", "GDDR6X"
  const char* source = "";
};

std::span<const VendorSpec> vendor_specs();
// The spec of the SKU a CUDA/NVML device name names, or nullptr for an unknown or ambiguous name
// ("NVIDIA H100 80GB HBM3" is the SXM board; "NVIDIA GH200 480GB" is not an H200).
const VendorSpec* match_vendor_spec(std::string_view gpu_name);
double vendor_figure(const VendorSpec& spec, Dtype dtype);

// NVLink per-link rate of a generation.
struct NvlinkGeneration {
  int version = 0;
  double gbps_per_link_per_direction = 0;
  int links_per_gpu = 0;  // the flagship GPU of the generation
  const char* gpu = "";
  const char* source = "";
};
const NvlinkGeneration* find_nvlink_generation(int version);
// The per-link rate of a GPU's NVLink: its generation's, except GA102 boards (cc 8.6), whose
// third-generation links run at 14.0625 GB/s per direction, not the A100's 25.
const NvlinkGeneration* find_nvlink_rate(int version, int cc_major, int cc_minor);
// The generation a compute capability ships with: 7.0 -> 2, 8.0 -> 3, 9.0 -> 4, 10.x -> 5.
std::optional<int> nvlink_version_of_cc(int cc_major, int cc_minor);

}  // namespace pipecheck
