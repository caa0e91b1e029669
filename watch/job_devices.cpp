// Finding the disks behind a job's files.
#include "watch/job_devices.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "core/text_escape.hpp"
#include "watch/proc_files.hpp"

namespace pipecheck {

namespace {

// Code, configuration and locale files, opened by the loader and at import: not the job's data.
bool is_system_file(std::string_view path) {
  for (const char* system : {"/dev/", "/usr/", "/lib/", "/lib32/", "/lib64/", "/etc/", "/proc/", "/sys/", "/bin/", "/sbin/"}) {
    if (path.rfind(system, 0) == 0) return true;
  }
  return false;
}

std::vector<std::string_view> split_spaces(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

template <typename Fn>
void for_each_line(std::string_view text, Fn fn) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    fn(text.substr(start, end - start));
    start = end + 1;
  }
}

std::string dev_key(unsigned major, unsigned minor) { return std::to_string(major) + ":" + std::to_string(minor); }

}  // namespace

// A partition's sysfs folder sits inside its disk's.
std::optional<std::string> whole_disk_of(const SysfsRoot& root, const std::string& name) {
  const auto real = root.resolve("/sys/class/block/" + name);
  if (!real) return std::nullopt;
  const std::filesystem::path path(*real);
  if (root.exists(*real + "/partition")) return path.parent_path().filename().string();
  return path.filename().string();
}

std::optional<std::string> block_device_of(const SysfsRoot& root, unsigned major, unsigned minor) {
  const auto real = root.resolve("/sys/dev/block/" + dev_key(major, minor));
  if (!real) return std::nullopt;
  const std::filesystem::path path(*real);
  if (root.exists(*real + "/partition")) return path.parent_path().filename().string();
  return path.filename().string();
}

std::map<std::string, MountSource> parse_mountinfo(std::string_view text) {
  std::map<std::string, MountSource> mounts;
  for_each_line(text, [&](std::string_view line) {
    // "36 35 0:45 / /data rw,relatime shared:1 - btrfs /dev/sda2 rw": optional fields end at "-".
    const auto fields = split_spaces(line);
    std::size_t dash = 6;
    while (dash < fields.size() && fields[dash] != "-") ++dash;
    if (fields.size() < 3 || dash + 2 >= fields.size()) return;
    mounts.emplace(std::string(fields[2]), MountSource{std::string(fields[dash + 1]), std::string(fields[dash + 2])});
  });
  return mounts;
}

std::set<std::string> parse_maps_devices(std::string_view text) {
  // Libraries and executables map read-only segments too: a path with any executable mapping is
  // code, not data. System folders hold locale archives and caches, not datasets.
  std::set<std::string_view> code;
  for_each_line(text, [&](std::string_view line) {
    const auto fields = split_spaces(line);
    if (fields.size() >= 6 && fields[1].find('x') != std::string_view::npos) code.insert(fields[5]);
  });
  std::set<std::string> devices;
  for_each_line(text, [&](std::string_view line) {
    // "7f1c2a000000-7f1c2b000000 r--s 00000000 fd:01 1835021 /data/train.arrow"
    const auto fields = split_spaces(line);
    if (fields.size() < 6 || fields[4] == "0" || code.count(fields[5]) || fields[5].front() != '/') return;
    if (is_system_file(fields[5])) return;
    const std::string_view dev = fields[3];
    const std::size_t colon = dev.find(':');
    unsigned major = 0, minor = 0;
    if (colon == std::string_view::npos ||
        std::from_chars(dev.data(), dev.data() + colon, major, 16).ec != std::errc{} ||
        std::from_chars(dev.data() + colon + 1, dev.data() + dev.size(), minor, 16).ec != std::errc{}) {
      return;
    }
    devices.insert(dev_key(major, minor));
  });
  return devices;
}

JobDeviceFinder::JobDeviceFinder(SysfsRoot root, std::size_t max_fds) : root_(std::move(root)), max_fds_(max_fds) {}

std::optional<std::string> JobDeviceFinder::device_of(unsigned long long dev) {
  const auto cached = by_dev_.find(dev);
  if (cached != by_dev_.end()) return cached->second;
  const unsigned maj = major(dev);
  const unsigned min = minor(dev);
  std::optional<std::string> disk = maj != 0 ? block_device_of(root_, maj, min) : std::nullopt;
  if (!disk) {
    // btrfs and friends report an anonymous device: their mount's source names the disk.
    if (!mounts_read_) {
      const auto text = read_proc_file(root_, "/proc/self/mountinfo");
      if (text) mounts_ = parse_mountinfo(*text);
      mounts_read_ = true;
    }
    const auto mount = mounts_.find(dev_key(maj, min));
    if (mount != mounts_.end()) {
      const std::string& source = mount->second.source;
      std::error_code error;
      const auto real = source.rfind("/dev/", 0) == 0 ? std::filesystem::canonical(root_.path(source), error)
                                                       : std::filesystem::path();
      if (!real.empty() && !error) disk = whole_disk_of(root_, real.filename().string());
      if (!disk) unbacked_.insert(mount->second.fstype);
    }
  }
  by_dev_[dev] = disk;
  return disk;
}

void JobDeviceFinder::add(const std::string& device, const std::string& why) { found_.emplace(device, why); }

void JobDeviceFinder::scan_fds(int pid, std::size_t& budget) {
  const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  for (int fd : list_numeric_entries(root_, fd_dir)) {
    if (budget == 0) return;
    --budget;
    struct stat info {};
    const std::string link = fd_dir + "/" + std::to_string(fd);
    if (stat(root_.path(link).c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    char target[4096] = {};
    const ssize_t n = readlink(root_.path(link).c_str(), target, sizeof target - 1);
    const std::string path = n > 0 ? std::string(target, static_cast<std::size_t>(n)) : link;
    // POSIX shared memory (shm_open, PyTorch's and multiprocessing's tensors and buffers) and
    // memfds are memory handed between processes, not files read: never a "file on tmpfs".
    if (path.rfind("/dev/shm/", 0) == 0 || path.rfind("/memfd:", 0) == 0) {
      ++shared_memory_in_scan_;
      shared_memory_pids_.insert(pid);
      continue;
    }
    if (is_system_file(path)) continue;
    const auto disk = device_of(info.st_dev);
    if (!disk || found_.count(*disk)) continue;
    // A file open for writing only (a log, a checkpoint) is not what the job reads from.
    const auto fdinfo = read_proc_file(root_, "/proc/" + std::to_string(pid) + "/fdinfo/" + std::to_string(fd));
    const auto flags_at = fdinfo ? fdinfo->find("flags:") : std::string::npos;
    unsigned long flags = 0;
    if (flags_at != std::string::npos) {
      const std::size_t digits = fdinfo->find_first_not_of(" \t", flags_at + 6);
      if (digits != std::string::npos) std::from_chars(fdinfo->data() + digits, fdinfo->data() + fdinfo->size(), flags, 8);
      if ((flags & 3u) == 1u) continue;  // O_WRONLY
    }
    add(*disk, escape_name(path) + " (pid " + std::to_string(pid) + ")");
    if (flags & static_cast<unsigned long>(O_DIRECT)) direct_.insert(*disk);
  }
}

void JobDeviceFinder::scan_maps(int pid) {
  const auto text = read_proc_file(root_, "/proc/" + std::to_string(pid) + "/maps");
  if (!text) return;
  for (const auto& key : parse_maps_devices(*text)) {
    unsigned maj = 0, min = 0;
    const std::size_t colon = key.find(':');
    std::from_chars(key.data(), key.data() + colon, maj);
    std::from_chars(key.data() + colon + 1, key.data() + key.size(), min);
    const unsigned long long dev = makedev(maj, min);
    const auto disk = device_of(dev);
    if (disk) add(*disk, "a file mapped by pid " + std::to_string(pid));
  }
}

void JobDeviceFinder::scan(const std::vector<int>& pids, bool maps) {
  std::size_t budget = max_fds_;
  shared_memory_in_scan_ = 0;
  for (int pid : pids) {
    scan_fds(pid, budget);
    if (maps) scan_maps(pid);
  }
  shared_memory_files_ = std::max(shared_memory_files_, shared_memory_in_scan_);
}

std::vector<std::string> JobDeviceFinder::devices() const {
  std::vector<std::string> names;
  for (const auto& [name, why] : found_) names.push_back(name);
  return names;
}

std::string JobDeviceFinder::evidence(const std::string& device) const {
  const auto it = found_.find(device);
  return it == found_.end() ? std::string() : it->second;
}

}  // namespace pipecheck
