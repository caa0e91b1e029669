// Per-GPU telemetry through NVML for the stress sampler: temperatures, power and its enforced
// limit, clocks, utilization, clock-event reasons, ECC and PCIe replay counters. The entry points
// beyond the inventory's are resolved by name from the shared NvmlLibrary; each may be missing
// on an older driver, and its figure is then simply not reported.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "inventory/nvml_library.hpp"

namespace pipecheck {

struct GpuReading {
  std::optional<double> temp_c;
  std::optional<double> mem_temp_c;  // HBM boards; GDDR boards answer "not supported"
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
  std::optional<double> sm_clock_mhz;
  std::optional<double> mem_clock_mhz;
  std::optional<double> util_gpu_pct;
  std::optional<double> util_mem_pct;
  std::optional<std::uint64_t> throttle_mask;
  std::optional<std::uint64_t> ecc_corrected;    // volatile (since the driver loaded)
  std::optional<std::uint64_t> ecc_uncorrected;  // volatile
  std::optional<std::uint64_t> pcie_replays;
  // The first failure other than "not supported" ("nvmlDeviceGetPowerUsage (0000:17:00.0): GPU
  // is lost (15)"): a GPU that falls off the bus shows here first.
  std::string error;
};

class NvmlTelemetry {
 public:
  // `nvml` must outlive this object. With !nvml.ok(), every read is empty.
  explicit NvmlTelemetry(const NvmlLibrary& nvml);

  bool available() const { return nvml_.ok(); }
  // The NVML handle of a GPU by PCI bus id, or nullopt (and why in *why).
  std::optional<nvml::Device> device(const std::string& bus_id, std::string* why) const;
  GpuReading read(nvml::Device device, const std::string& bus_id) const;

 private:
  struct TemperatureV1 {  // nvmlTemperature_v1_t
    unsigned version;
    int sensor_type;
    int temperature;
  };
  struct Utilization {  // nvmlUtilization_t
    unsigned gpu;
    unsigned memory;
  };
  union FieldValueUnion {  // nvmlValue_t
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
  };
  struct FieldValue {  // nvmlFieldValue_t
    unsigned field_id;
    unsigned scope_id;
    long long timestamp;
    long long latency_usec;
    int value_type;
    nvml::Return nvml_return;
    FieldValueUnion value;
  };

  std::optional<double> temperature(nvml::Device device, nvml::Return& rc) const;
  std::optional<double> memory_temperature(nvml::Device device) const;
  std::optional<std::uint64_t> clock_event_reasons(nvml::Device device, nvml::Return& rc) const;

  const NvmlLibrary& nvml_;
  nvml::Return (*temperature_v_)(nvml::Device, TemperatureV1*) = nullptr;
  nvml::Return (*temperature_)(nvml::Device, int, unsigned*) = nullptr;
  nvml::Return (*field_values_)(nvml::Device, int, FieldValue*) = nullptr;
  nvml::Return (*power_usage_)(nvml::Device, unsigned*) = nullptr;
  nvml::Return (*clock_info_)(nvml::Device, unsigned, unsigned*) = nullptr;
  nvml::Return (*utilization_)(nvml::Device, Utilization*) = nullptr;
  nvml::Return (*clocks_event_reasons_)(nvml::Device, unsigned long long*) = nullptr;
  nvml::Return (*throttle_reasons_)(nvml::Device, unsigned long long*) = nullptr;
  nvml::Return (*total_ecc_errors_)(nvml::Device, int, int, unsigned long long*) = nullptr;
  nvml::Return (*pcie_replays_)(nvml::Device, unsigned*) = nullptr;
};

}  // namespace pipecheck
