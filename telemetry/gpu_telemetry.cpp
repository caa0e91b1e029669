// Reading one GPU's telemetry through NVML; a missing entry point or "not supported" leaves
// the figure empty, any other failure is kept as the reading's error.
#include "telemetry/gpu_telemetry.hpp"

namespace pipecheck {

namespace {

constexpr int temperature_gpu = 0;       // NVML_TEMPERATURE_GPU
constexpr int ecc_corrected_type = 0;    // NVML_MEMORY_ERROR_TYPE_CORRECTED
constexpr int ecc_uncorrected_type = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int ecc_volatile = 0;          // NVML_VOLATILE_ECC
constexpr unsigned field_memory_temp = 82;  // NVML_FI_DEV_MEMORY_TEMP
constexpr int value_type_double = 0;
constexpr int value_type_signed_long_long = 4;
constexpr int value_type_signed_int = 5;

bool reported(nvml::Return rc) { return rc == nvml::success; }

bool worth_noting(nvml::Return rc) {
  return rc != nvml::success && rc != nvml::error_not_supported &&
         rc != nvml::error_function_not_found;
}

}  // namespace

NvmlTelemetry::NvmlTelemetry(const NvmlLibrary& nvml) : nvml_(nvml) {
  if (!nvml.ok()) return;
  temperature_v_ = nvml.resolve<nvml::Return(nvml::Device, TemperatureV1*)>("nvmlDeviceGetTemperatureV");
  temperature_ = nvml.resolve<nvml::Return(nvml::Device, int, unsigned*)>("nvmlDeviceGetTemperature");
  field_values_ = nvml.resolve<nvml::Return(nvml::Device, int, FieldValue*)>("nvmlDeviceGetFieldValues");
  power_usage_ = nvml.resolve<nvml::Return(nvml::Device, unsigned*)>("nvmlDeviceGetPowerUsage");
  clock_info_ = nvml.resolve<nvml::Return(nvml::Device, unsigned, unsigned*)>("nvmlDeviceGetClockInfo");
  utilization_ = nvml.resolve<nvml::Return(nvml::Device, Utilization*)>("nvmlDeviceGetUtilizationRates");
  clocks_event_reasons_ = nvml.resolve<nvml::Return(nvml::Device, unsigned long long*)>(
      "nvmlDeviceGetCurrentClocksEventReasons");
  throttle_reasons_ = nvml.resolve<nvml::Return(nvml::Device, unsigned long long*)>(
      "nvmlDeviceGetCurrentClocksThrottleReasons");
  total_ecc_errors_ = nvml.resolve<nvml::Return(nvml::Device, int, int, unsigned long long*)>(
      "nvmlDeviceGetTotalEccErrors");
  pcie_replays_ = nvml.resolve<nvml::Return(nvml::Device, unsigned*)>("nvmlDeviceGetPcieReplayCounter");
}

std::optional<nvml::Device> NvmlTelemetry::device(const std::string& bus_id, std::string* why) const {
  if (!nvml_.ok()) {
    if (why) *why = nvml_.error();
    return std::nullopt;
  }
  nvml::Device device = nullptr;
  const nvml::Return rc = nvml_.device_by_bus_id(bus_id, &device);
  if (rc != nvml::success) {
    if (why) *why = nvml_.error_text("nvmlDeviceGetHandleByPciBusId_v2", rc, bus_id);
    return std::nullopt;
  }
  return device;
}

std::optional<double> NvmlTelemetry::temperature(nvml::Device device, nvml::Return& rc) const {
  // nvmlDeviceGetTemperature is deprecated in NVML 13: the versioned call first.
  if (temperature_v_) {
    TemperatureV1 value{static_cast<unsigned>(sizeof(TemperatureV1)) | (1u << 24), temperature_gpu, 0};
    rc = temperature_v_(device, &value);
    if (reported(rc)) return value.temperature;
  }
  unsigned celsius = 0;
  rc = NvmlLibrary::call(temperature_, device, temperature_gpu, &celsius);
  if (reported(rc)) return celsius;
  return std::nullopt;
}

std::optional<double> NvmlTelemetry::memory_temperature(nvml::Device device) const {
  FieldValue value{};
  value.field_id = field_memory_temp;
  if (!reported(NvmlLibrary::call(field_values_, device, 1, &value)) || !reported(value.nvml_return)) {
    return std::nullopt;
  }
  switch (value.value_type) {
    case value_type_double:
      return value.value.d;
    case value_type_signed_long_long:
      return static_cast<double>(value.value.sll);
    case value_type_signed_int:
      return value.value.si;
    default:
      return value.value.ui;
  }
}

std::optional<std::uint64_t> NvmlTelemetry::clock_event_reasons(nvml::Device device,
                                                                 nvml::Return& rc) const {
  unsigned long long mask = 0;
  rc = NvmlLibrary::call(clocks_event_reasons_, device, &mask);
  if (rc == nvml::error_function_not_found) rc = NvmlLibrary::call(throttle_reasons_, device, &mask);
  if (reported(rc)) return mask;
  return std::nullopt;
}

GpuReading NvmlTelemetry::read(nvml::Device device, const std::string& bus_id) const {
  GpuReading reading;
  if (!nvml_.ok()) return reading;
  auto note = [&](const char* call_name, nvml::Return rc) {
    if (reading.error.empty() && worth_noting(rc)) reading.error = nvml_.error_text(call_name, rc, bus_id);
  };
  nvml::Return rc = nvml::success;
  reading.temp_c = temperature(device, rc);
  note("nvmlDeviceGetTemperature", rc);
  reading.mem_temp_c = memory_temperature(device);

  unsigned milliwatts = 0;
  rc = NvmlLibrary::call(power_usage_, device, &milliwatts);
  note("nvmlDeviceGetPowerUsage", rc);
  if (reported(rc)) reading.power_w = milliwatts / 1000.0;
  rc = NvmlLibrary::call(nvml_.api().device_get_enforced_power_limit, device, &milliwatts);
  if (reported(rc)) reading.power_limit_w = milliwatts / 1000.0;

  unsigned mhz = 0;
  rc = NvmlLibrary::call(clock_info_, device, nvml::clock_sm, &mhz);
  note("nvmlDeviceGetClockInfo", rc);
  if (reported(rc)) reading.sm_clock_mhz = mhz;
  if (reported(NvmlLibrary::call(clock_info_, device, nvml::clock_mem, &mhz))) reading.mem_clock_mhz = mhz;

  Utilization utilization{};
  rc = NvmlLibrary::call(utilization_, device, &utilization);
  note("nvmlDeviceGetUtilizationRates", rc);
  if (reported(rc)) {
    reading.util_gpu_pct = utilization.gpu;
    reading.util_mem_pct = utilization.memory;
  }
  reading.throttle_mask = clock_event_reasons(device, rc);
  note("nvmlDeviceGetCurrentClocksEventReasons", rc);

  unsigned long long errors = 0;
  if (reported(NvmlLibrary::call(total_ecc_errors_, device, ecc_corrected_type, ecc_volatile, &errors))) {
    reading.ecc_corrected = errors;
  }
  if (reported(NvmlLibrary::call(total_ecc_errors_, device, ecc_uncorrected_type, ecc_volatile, &errors))) {
    reading.ecc_uncorrected = errors;
  }
  unsigned replays = 0;
  if (reported(NvmlLibrary::call(pcie_replays_, device, &replays))) reading.pcie_replays = replays;
  return reading;
}

}  // namespace pipecheck
