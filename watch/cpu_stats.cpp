// Per-core CPU utilization and iowait from /proc/stat.
#include "watch/cpu_stats.hpp"

#include <algorithm>
#include <charconv>

#include "watch/proc_files.hpp"

namespace pipecheck {

namespace {

// "cpu3  4705 356 584 3699 23 23 0 0 0 0": user nice system idle iowait irq softirq steal ...
std::optional<CoreTimes> parse_cpu_line(std::string_view line) {
  std::uint64_t values[8] = {};
  int read = 0;
  std::size_t at = line.find(' ');
  while (read < 8 && at != std::string_view::npos && at < line.size()) {
    while (at < line.size() && line[at] == ' ') ++at;
    if (at >= line.size()) break;
    const auto [end, ec] = std::from_chars(line.data() + at, line.data() + line.size(), values[read]);
    if (ec != std::errc{}) break;
    ++read;
    at = static_cast<std::size_t>(end - line.data());
  }
  if (read < 4) return std::nullopt;
  CoreTimes times;
  for (int i = 0; i < read; ++i) times.total += values[i];
  times.iowait = read > 4 ? values[4] : 0;
  times.busy = times.total - values[3] - times.iowait;
  return times;
}

double share(std::uint64_t now, std::uint64_t before, std::uint64_t total) {
  if (total == 0) return 0;
  return std::clamp(100.0 * static_cast<double>(now - std::min(now, before)) / static_cast<double>(total), 0.0, 100.0);
}

}  // namespace

std::optional<CpuTimesByCore> parse_proc_stat_cores(std::string_view text) {
  CpuTimesByCore times;
  bool found_all = false;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.rfind("cpu", 0) != 0) continue;
    const auto core = parse_cpu_line(line);
    if (!core) continue;
    if (line.size() > 3 && line[3] == ' ') {
      times.all = *core;
      found_all = true;
    } else {
      times.cores.push_back(*core);
    }
  }
  if (!found_all) return std::nullopt;
  return times;
}

CpuStatsSampler::CpuStatsSampler(SysfsRoot root) : root_(std::move(root)) {}

HostWatch CpuStatsSampler::sample() {
  HostWatch host;
  const auto text = read_proc_file(root_, "/proc/stat");
  const auto now = text ? parse_proc_stat_cores(*text) : std::nullopt;
  if (!now) return host;
  if (last_ && now->all.total > last_->all.total) {
    const std::uint64_t total = now->all.total - last_->all.total;
    host.cpu_pct = share(now->all.busy, last_->all.busy, total);
    host.iowait_pct = share(now->all.iowait, last_->all.iowait, total);
    // A CPU hot-plugged in or out changes the list: per-core figures wait for the next pair.
    if (now->cores.size() == last_->cores.size()) {
      for (std::size_t i = 0; i < now->cores.size(); ++i) {
        const CoreTimes& a = now->cores[i];
        const CoreTimes& b = last_->cores[i];
        host.core_pct.push_back(a.total > b.total ? share(a.busy, b.busy, a.total - b.total) : 0.0);
      }
    }
  }
  last_ = now;
  return host;
}

}  // namespace pipecheck
