// Reading CPU utilization, CPU temperatures and RAPL package power for the stress telemetry.
#include "telemetry/host_sampler.hpp"

#include <algorithm>
#include <sstream>

namespace pipecheck {

namespace {

// hwmon chips that measure the CPU itself (Intel coretemp, AMD k10temp/zenpower, ARM SoCs).
bool is_cpu_hwmon(const std::string& name) {
  return name == "coretemp" || name == "k10temp" || name == "zenpower" || name == "cpu_thermal" ||
         name == "soc_thermal";
}

// Thermal zones of the CPU package; "acpitz" and friends measure the board, not the CPU.
bool is_cpu_thermal_zone(const std::string& type) {
  return type == "x86_pkg_temp" || type.find("cpu") != std::string::npos ||
         type.find("soc") != std::string::npos;
}

}  // namespace

std::optional<CpuTimes> parse_proc_stat(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string label;
    fields >> label;
    if (label != "cpu") continue;
    // user nice system idle iowait irq softirq steal guest guest_nice
    std::uint64_t values[10] = {};
    int read = 0;
    while (read < 10 && fields >> values[read]) ++read;
    if (read < 4) return std::nullopt;
    CpuTimes times;
    for (int i = 0; i < std::min(read, 8); ++i) times.total += values[i];
    const std::uint64_t idle = values[3] + (read > 4 ? values[4] : 0);
    times.busy = times.total - idle;
    return times;
  }
  return std::nullopt;
}

HostSampler::HostSampler(SysfsRoot root) : root_(std::move(root)) {
  find_temperature_sensors();
  find_rapl_zones();
  if (!root_.read("/proc/stat")) sources_.push_back("cpu_util_pct: /proc/stat not readable");
}

void HostSampler::find_temperature_sensors() {
  for (const auto& chip : root_.list("/sys/class/hwmon")) {
    const std::string dir = "/sys/class/hwmon/" + chip;
    const auto name = root_.read_line(dir + "/name");
    if (!name || !is_cpu_hwmon(*name)) continue;
    for (const auto& entry : root_.list(dir)) {
      if (entry.rfind("temp", 0) == 0 && entry.size() > 6 &&
          entry.compare(entry.size() - 6, 6, "_input") == 0) {
        temperature_paths_.push_back(dir + "/" + entry);
      }
    }
  }
  if (!temperature_paths_.empty()) {
    sources_.push_back("cpu_temp_c: hwmon (" + std::to_string(temperature_paths_.size()) +
                       " sensors)");
    return;
  }
  // Without a CPU hwmon driver (VMs, some ARM boards) the thermal zones may still see the CPU.
  for (const auto& zone : root_.list("/sys/class/thermal")) {
    if (zone.rfind("thermal_zone", 0) != 0) continue;
    const std::string dir = "/sys/class/thermal/" + zone;
    const auto type = root_.read_line(dir + "/type");
    if (type && is_cpu_thermal_zone(*type)) temperature_paths_.push_back(dir + "/temp");
  }
  sources_.push_back(temperature_paths_.empty()
                         ? "cpu_temp_c: no CPU hwmon sensor or CPU thermal zone"
                         : "cpu_temp_c: thermal zones (" +
                               std::to_string(temperature_paths_.size()) + ")");
}

void HostSampler::find_rapl_zones() {
  for (const auto& zone : root_.list("/sys/class/powercap")) {
    // Packages are "intel-rapl:N"; "intel-rapl:N:M" are their sub-zones (core, dram), which
    // the package already contains.
    if (std::count(zone.begin(), zone.end(), ':') != 1) continue;
    const std::string dir = "/sys/class/powercap/" + zone;
    const auto name = root_.read_line(dir + "/name");
    if (!name || name->rfind("package", 0) != 0) continue;
    RaplZone rapl;
    rapl.energy_path = dir + "/energy_uj";
    rapl.max_range_uj = static_cast<std::uint64_t>(root_.read_int(dir + "/max_energy_range_uj").value_or(0));
    rapl_zones_.push_back(rapl);
  }
  sources_.push_back(rapl_zones_.empty() ? "cpu_package_w: no powercap package zone"
                                         : "cpu_package_w: powercap RAPL (" +
                                               std::to_string(rapl_zones_.size()) + " packages)");
}

std::optional<double> HostSampler::read_temperature() const {
  std::optional<double> hottest;
  for (const auto& path : temperature_paths_) {
    const auto milli = root_.read_int(path);
    if (!milli) continue;
    const double celsius = static_cast<double>(*milli) / 1000.0;
    if (!hottest || celsius > *hottest) hottest = celsius;
  }
  return hottest;
}

std::optional<double> HostSampler::read_package_watts(double seconds) {
  double joules = 0;
  bool complete = !rapl_zones_.empty();
  for (auto& zone : rapl_zones_) {
    const auto now = root_.read_int(zone.energy_path);  // root only on kernels since 5.10
    if (!now || *now < 0) {
      complete = false;
      continue;
    }
    const auto value = static_cast<std::uint64_t>(*now);
    if (zone.last_uj) {
      // The counter wraps at max_energy_range_uj.
      const std::uint64_t delta = value >= *zone.last_uj
                                      ? value - *zone.last_uj
                                      : value + zone.max_range_uj - *zone.last_uj;
      joules += static_cast<double>(delta) / 1e6;
    } else {
      complete = false;
    }
    zone.last_uj = value;
  }
  if (!complete || seconds <= 0) return std::nullopt;
  return joules / seconds;
}

HostReading HostSampler::sample(Clock::time_point now) {
  HostReading reading;
  reading.cpu_temp_c = read_temperature();
  const double seconds =
      last_time_ ? std::chrono::duration<double>(now - *last_time_).count() : 0.0;
  reading.cpu_package_w = read_package_watts(seconds);
  const auto stat = root_.read("/proc/stat");
  const auto times = stat ? parse_proc_stat(*stat) : std::nullopt;
  if (times && last_cpu_ && times->total > last_cpu_->total) {
    const double busy = static_cast<double>(times->busy - std::min(times->busy, last_cpu_->busy));
    reading.cpu_util_pct = 100.0 * busy / static_cast<double>(times->total - last_cpu_->total);
  }
  if (times) last_cpu_ = times;
  last_time_ = now;
  return reading;
}

}  // namespace pipecheck
