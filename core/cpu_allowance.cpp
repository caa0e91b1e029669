// CPU allowance: online CPUs, the affinity mask and the cgroup quota (see cpu_allowance.hpp).
#include "core/cpu_allowance.hpp"

#include <sched.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

namespace pipecheck {

namespace {

struct CgroupMount {
  std::string root;         // the mount's root inside the hierarchy ("/" or a namespace's path)
  std::string mountpoint;   // "/sys/fs/cgroup" or "/sys/fs/cgroup/cpu,cpuacct"
  bool v2 = false;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

// mountinfo: "36 25 0:31 / /sys/fs/cgroup/cpu rw,relatime shared:15 - cgroup cgroup rw,cpu".
std::vector<CgroupMount> cgroup_mounts(const SysfsRoot& root) {
  std::vector<CgroupMount> mounts;
  std::istringstream lines(root.read("/proc/self/mountinfo").value_or(""));
  std::string line;
  while (std::getline(lines, line)) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream head(line.substr(0, dash)), tail(line.substr(dash + 3));
    std::string id, parent, device, mount_root, mountpoint, type, source, options;
    head >> id >> parent >> device >> mount_root >> mountpoint;
    tail >> type >> source >> options;
    if (type == "cgroup2") {
      mounts.push_back({mount_root, mountpoint, true});
    } else if (type == "cgroup") {
      for (const auto& option : split(options, ',')) {
        if (option == "cpu") mounts.push_back({mount_root, mountpoint, false});
      }
    }
  }
  return mounts;
}

// /proc/self/cgroup: "0::/job" (v2) and "4:cpu,cpuacct:/job" (v1).
std::optional<std::string> cgroup_path(const SysfsRoot& root, bool v2) {
  std::istringstream lines(root.read("/proc/self/cgroup").value_or(""));
  std::string line;
  while (std::getline(lines, line)) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (v2 && line.compare(0, first, "0") == 0 && controllers.empty()) return path;
    if (!v2) {
      for (const auto& controller : split(controllers, ',')) {
        if (controller == "cpu") return path;
      }
    }
  }
  return std::nullopt;
}

// The folders of the process's cgroup and each parent up to the mount, inside the mount.
std::vector<std::string> cgroup_folders(const CgroupMount& mount, std::string path) {
  if (mount.root != "/" && path.rfind(mount.root, 0) == 0) path = path.substr(mount.root.size());
  std::vector<std::string> folders;
  while (true) {
    std::string folder = mount.mountpoint;
    if (!path.empty() && path != "/") folder += (path.front() == '/' ? "" : "/") + path;
    folders.push_back(folder);
    if (path.empty() || path == "/") break;
    const auto slash = path.find_last_of('/');
    path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }
  return folders;
}

struct Quota {
  double cpus;
  std::string source;
};

std::optional<Quota> quota_in(const SysfsRoot& root, const CgroupMount& mount, const std::string& folder) {
  if (mount.v2) {
    const auto text = root.read_line(folder + "/cpu.max");
    if (!text) return std::nullopt;
    std::istringstream in(*text);
    std::string quota;
    double period = 0;
    in >> quota >> period;
    if (quota == "max" || period <= 0) return std::nullopt;
    try {
      const double q = std::stod(quota);
      if (q > 0) return Quota{q / period, folder + "/cpu.max = " + *text};
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }
  const auto quota = root.read_int(folder + "/cpu.cfs_quota_us");
  const auto period = root.read_int(folder + "/cpu.cfs_period_us");
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  return Quota{static_cast<double>(*quota) / static_cast<double>(*period),
               folder + "/cpu.cfs_quota_us = " + std::to_string(*quota) + " / cpu.cfs_period_us = " +
                   std::to_string(*period)};
}

}  // namespace

std::optional<int> count_cpu_list(const std::string& text) {
  const std::string list = trim(text);
  if (list.empty()) return std::nullopt;
  int count = 0;
  for (const auto& range : split(list, ',')) {
    int first = 0, last = 0;
    char extra = 0;
    if (std::sscanf(range.c_str(), "%d-%d%c", &first, &last, &extra) == 2 && first <= last && first >= 0) {
      count += last - first + 1;
    } else if (std::sscanf(range.c_str(), "%d%c", &first, &extra) == 1 && first >= 0) {
      count += 1;
    } else {
      return std::nullopt;
    }
  }
  return count;
}

CpuAllowance read_cpu_allowance(const SysfsRoot& root, int affinity_count) {
  CpuAllowance allowance;
  allowance.online = count_cpu_list(root.read_line("/sys/devices/system/cpu/online").value_or("")).value_or(0);
  allowance.affinity = affinity_count;
  for (const auto& mount : cgroup_mounts(root)) {
    const auto path = cgroup_path(root, mount.v2);
    if (!path) continue;
    for (const auto& folder : cgroup_folders(mount, *path)) {
      const auto quota = quota_in(root, mount, folder);
      if (quota && (!allowance.quota_cpus || quota->cpus < *allowance.quota_cpus)) {
        allowance.quota_cpus = quota->cpus;
        allowance.quota_source = quota->source;
      }
    }
  }
  return allowance;
}

int CpuAllowance::usable() const {
  int cpus = affinity > 0 ? affinity : online;
  if (quota_cpus) cpus = cpus > 0 ? std::min(cpus, static_cast<int>(std::ceil(*quota_cpus))) : static_cast<int>(std::ceil(*quota_cpus));
  return std::max(cpus, 1);
}

bool CpuAllowance::limited() const { return online > 0 && usable() < online; }

std::string CpuAllowance::describe() const {
  std::ostringstream text;
  text << usable() << " of " << (online > 0 ? std::to_string(online) : std::string("?")) << " CPUs";
  if (!limited()) return text.str();
  text << ":";
  if (affinity > 0 && affinity < online) text << " affinity " << affinity;
  if (quota_cpus) {
    char quota[32];
    std::snprintf(quota, sizeof quota, "%.1f", *quota_cpus);
    text << (affinity > 0 && affinity < online ? "," : "") << " cgroup quota " << quota << " CPUs (" << quota_source
         << ")";
  }
  return text.str();
}

CpuAllowance live_cpu_allowance() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int affinity = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
  return read_cpu_allowance(SysfsRoot("/"), affinity);
}

int usable_cpu_count() { return live_cpu_allowance().usable(); }

}  // namespace pipecheck
