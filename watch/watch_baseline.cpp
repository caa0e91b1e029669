// Picking the measured ceilings out of a run's report.
#include "watch/watch_baseline.hpp"

#include <algorithm>

#include "core/stage_names.hpp"
#include "inventory/gpu_inventory.hpp"
#include "compare/baseline.hpp"
#include "core/figure_text.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

namespace {

void keep_best(std::map<std::string, MeasuredCeiling>& into, const std::string& subject, const Measurement& m,
               double value, const std::string& unit) {
  if (subject.empty() || value <= 0) return;
  auto& slot = into[subject];
  if (value > slot.value) slot = MeasuredCeiling{value, unit, m.what, m.key};
}

std::string gpu_of(const Measurement& m) {
  const std::string bdf = param_or_empty(m.params, "gpu_bdf");
  return bdf.empty() ? "" : normalize_bdf(bdf).value_or(bdf);
}

}  // namespace

MeasuredCeilings measured_ceilings(const Report& report, const std::string& source) {
  MeasuredCeilings ceilings;
  ceilings.source = source;
  ceilings.host = report.host;
  ceilings.started_utc = report.started_utc;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) {
      if (m.stage == stage_name::storage) {
        const std::string device = param_or_empty(m.params, "device");
        const std::string pattern = param_or_empty(m.params, "pattern");
        const bool baseline = pattern == "pread_baseline";
        const bool cold = pattern.find("buffered_cold") != std::string::npos;
        if (m.unit == "GB/s" && !baseline) keep_best(ceilings.disk_mbs, device, m, m.stats.median * 1000.0, "MB/s");
        if (m.unit == "GB/s" && cold) keep_best(ceilings.disk_cold_mbs, device, m, m.stats.median * 1000.0, "MB/s");
        if (m.unit == "IOPS") keep_best(ceilings.disk_iops, device, m, m.stats.median, "IOPS");
      } else if (m.stage == stage_name::pcie && m.unit == "GB/s" && param_or_empty(m.params, "host_memory") != "pageable") {
        const std::string direction = param_or_empty(m.params, "direction");
        if (direction == "h2d") keep_best(ceilings.pcie_h2d_mbs, gpu_of(m), m, m.stats.median * 1000.0, "MB/s");
        if (direction == "d2h") keep_best(ceilings.pcie_d2h_mbs, gpu_of(m), m, m.stats.median * 1000.0, "MB/s");
      }
    }
  }
  return ceilings;
}

namespace {

// "20261130T133413Z", or with "-N" after it (a second run in the same second): the rest of a
// run folder's name after "<host>-". Anything else is another host's ("vm-2-..." for host vm).
bool is_run_stamp(const std::string& rest) {
  const auto digits = [&](std::size_t from, std::size_t count) {
    if (rest.size() < from + count) return false;
    return std::all_of(rest.begin() + static_cast<long>(from), rest.begin() + static_cast<long>(from + count),
                       [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(0, 8) || rest.size() < 16 || rest[8] != 'T' || !digits(9, 6) || rest[15] != 'Z') return false;
  if (rest.size() == 16) return true;
  return rest[16] == '-' && rest.size() > 17 && digits(17, rest.size() - 17);
}

}  // namespace

std::optional<fs::path> latest_run_folder(const fs::path& results_root, const std::string& host) {
  std::error_code error;
  if (fs::is_regular_file(results_root / "report.json", error)) return results_root;
  std::optional<fs::path> newest;
  fs::file_time_type newest_time{};
  const std::string prefix = host + "-";
  for (fs::directory_iterator it(results_root, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0 || !is_run_stamp(name.substr(prefix.size()))) continue;
    const fs::path report = it->path() / "report.json";
    std::error_code stat_error;
    const auto when = fs::last_write_time(report, stat_error);
    if (stat_error) continue;
    if (!newest || when > newest_time) {
      newest = it->path();
      newest_time = when;
    }
  }
  return newest;
}

MeasuredCeilings load_measured_ceilings(const fs::path& path) {
  const LoadedRun run = load_run(path, false, "");  // watch has no flag that forces a newer one
  return measured_ceilings(run.report, path.string());
}

}  // namespace pipecheck
