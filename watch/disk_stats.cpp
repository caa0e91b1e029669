// iostat's figures from /proc/diskstats.
#include "watch/disk_stats.hpp"

#include <algorithm>
#include <charconv>

#include "watch/proc_files.hpp"

namespace pipecheck {

namespace {

std::uint64_t delta(std::uint64_t after, std::uint64_t before) { return after - std::min(after, before); }

// The kernel prints the millisecond fields (read ticks, io ticks, time in queue) as 32-bit
// unsigned: at queue depth 32 time_in_queue wraps in about a day and a half. A fall by more than
// half the range is that wrap; a smaller one is a reset (the device came back) and counts 0.
std::uint64_t delta_ms(std::uint64_t after, std::uint64_t before) {
  constexpr std::uint64_t kWrap = std::uint64_t{1} << 32;
  if (after < before && before < kWrap && before - after > kWrap / 2) return after + kWrap - before;
  return delta(after, before);
}

}  // namespace

std::map<std::string, DiskCounters> parse_diskstats(std::string_view text) {
  std::map<std::string, DiskCounters> disks;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    std::vector<std::string_view> f;
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && line[i] == ' ') ++i;
      const std::size_t s = i;
      while (i < line.size() && line[i] != ' ') ++i;
      if (i > s) f.push_back(line.substr(s, i - s));
    }
    if (f.size() < 14) continue;  // kernels before 2.6.25 wrote 7 fields for partitions
    auto num = [&](std::size_t k) {
      std::uint64_t v = 0;
      std::from_chars(f[k].data(), f[k].data() + f[k].size(), v);
      return v;
    };
    DiskCounters d;
    d.major = static_cast<int>(num(0));
    d.minor = static_cast<int>(num(1));
    d.name = std::string(f[2]);
    d.reads = num(3);
    d.read_sectors = num(5);
    d.read_ms = num(6);
    d.writes = num(7);
    d.write_sectors = num(9);
    d.io_ms = num(12);
    d.weighted_ms = num(13);
    disks[d.name] = d;
  }
  return disks;
}

DiskWatch disk_rates(const DiskCounters& before, const DiskCounters& after, double dt_s) {
  DiskWatch disk;
  disk.name = after.name;
  if (dt_s <= 0) return disk;
  const double reads = static_cast<double>(delta(after.reads, before.reads));
  disk.read_iops = reads / dt_s;
  disk.read_mbs = static_cast<double>(delta(after.read_sectors, before.read_sectors)) * 512.0 / 1e6 / dt_s;
  disk.write_iops = static_cast<double>(delta(after.writes, before.writes)) / dt_s;
  disk.write_mbs = static_cast<double>(delta(after.write_sectors, before.write_sectors)) * 512.0 / 1e6 / dt_s;
  const double dt_ms = dt_s * 1000.0;
  disk.util_pct = std::min(100.0, 100.0 * static_cast<double>(delta_ms(after.io_ms, before.io_ms)) / dt_ms);
  disk.r_await_ms = reads > 0 ? static_cast<double>(delta_ms(after.read_ms, before.read_ms)) / reads : 0.0;
  disk.aqu_sz = static_cast<double>(delta_ms(after.weighted_ms, before.weighted_ms)) / dt_ms;
  return disk;
}

bool is_whole_disk(const SysfsRoot& root, const std::string& name) {
  for (const char* prefix : {"loop", "ram", "zram"}) {
    if (name.rfind(prefix, 0) == 0) return false;
  }
  // /sys/class/block/NAME/partition exists for partitions only.
  return !root.exists("/sys/class/block/" + name + "/partition");
}

DiskStatsSampler::DiskStatsSampler(SysfsRoot root) : root_(std::move(root)) {}

std::vector<DiskWatch> DiskStatsSampler::sample(Clock::time_point now, const std::vector<std::string>& job_devices) {
  const auto text = read_proc_file(root_, "/proc/diskstats");
  std::map<std::string, DiskCounters> current = text ? parse_diskstats(*text) : std::map<std::string, DiskCounters>{};
  const double dt_s = last_time_ ? std::chrono::duration<double>(now - *last_time_).count() : 0.0;
  std::vector<DiskWatch> disks;
  if (last_time_) {
    if (!job_devices.empty()) {
      for (const auto& name : job_devices) {
        const auto a = last_.find(name);
        const auto b = current.find(name);
        if (a == last_.end() || b == current.end()) continue;
        DiskWatch disk = disk_rates(a->second, b->second, dt_s);
        disk.job = true;
        disks.push_back(disk);
      }
    } else {
      for (const auto& [name, after] : current) {
        const auto before = last_.find(name);
        if (before == last_.end()) continue;
        auto cached = whole_disk_.find(name);
        if (cached == whole_disk_.end()) cached = whole_disk_.emplace(name, is_whole_disk(root_, name)).first;
        if (!cached->second) continue;
        DiskWatch disk = disk_rates(before->second, after, dt_s);
        if (disk.read_iops > 0 || disk.write_iops > 0 || disk.util_pct > 0) disks.push_back(disk);
      }
    }
  }
  last_ = std::move(current);
  last_time_ = now;
  return disks;
}

}  // namespace pipecheck
