// --path resolution and device identity for the storage probe.
#include "storage/storage_target.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "inventory/block_devices.hpp"
#include "core/dataset_walk.hpp"
#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

const char* to_string(TargetKind kind) {
  switch (kind) {
    case TargetKind::file: return "file";
    case TargetKind::directory: return "directory";
    case TargetKind::block_device: return "block_device";
  }
  return "file";
}

namespace {

[[noreturn]] void throw_usage(const std::string& call, const std::string& path, int error) {
  throw UsageError("--path " + escape_name(path) + ": " + errno_message(call, path, error));
}

// "a FIFO", "a socket": what a path is when it is none of the kinds that can be read.
std::string kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  return "not a regular file";
}

// Opens and closes: the cheapest proof that the reads will be allowed.
void check_readable(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_usage("open", path, errno);
  close(fd);
}

std::uint64_t block_device_size(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_usage("open", path, errno);
  std::uint64_t size = 0;
  const int rc = ioctl(fd, BLKGETSIZE64, &size);
  const int error = errno;
  close(fd);
  if (rc != 0) throw_usage("ioctl BLKGETSIZE64", path, error);
  return size;
}

// The "/dev/..." source of the mount holding `path`, from /proc/self/mountinfo: filesystems
// such as btrfs give files an anonymous st_dev (major 0) that names no block device.
std::optional<std::string> mount_source_of(const std::string& path) {
  std::error_code error;
  const std::string real = fs::canonical(path, error).string();
  if (error) return std::nullopt;
  std::ifstream in("/proc/self/mountinfo");
  std::string best_point;
  std::optional<std::string> best_source;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, parent, devno, root, point, field;
    fields >> id >> parent >> devno >> root >> point;
    while (fields >> field && field != "-") {
    }
    std::string fstype, source;
    fields >> fstype >> source;
    const bool inside = real == point || point == "/" ||
                        (real.rfind(point, 0) == 0 && real[point.size()] == '/');
    if (inside && point.size() >= best_point.size() && source.rfind("/dev/", 0) == 0) {
      best_point = point;
      best_source = source;
    }
  }
  return best_source;
}

std::optional<dev_t> device_number_of(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return std::nullopt;
  if (S_ISBLK(info.st_mode)) return info.st_rdev;
  if (major(info.st_dev) != 0) return info.st_dev;
  const auto source = mount_source_of(path);
  struct stat source_info {};
  if (!source || stat(source->c_str(), &source_info) != 0 || !S_ISBLK(source_info.st_mode)) {
    return std::nullopt;
  }
  return source_info.st_rdev;
}

}  // namespace

std::optional<std::string> network_fs_name(unsigned long f_type) {
  struct Magic {
    unsigned long value;
    const char* name;
  };
  // From linux/magic.h and the filesystems' own headers (Lustre, GPFS are out of tree).
  static constexpr Magic kNetwork[] = {
      {0x6969, "nfs"},          {0xFF534D42, "cifs"},   {0xFE534D42, "smb2"},
      {0x517B, "smb"},          {0x65735546, "fuse"},   {0x0BD00BD0, "lustre"},
      {0x47504653, "gpfs"},     {0x00C36400, "ceph"},   {0x01021997, "9p"},
      {0x013111A8, "ibrix"},    {0x7461636f, "ocfs2"},  {0x01161970, "gfs2"},
      {0x19830326, "beegfs"},   {0xAAD7AAEA, "panfs"},  {0x5346414F, "afs"},
  };
  for (const Magic& magic : kNetwork) {
    if (magic.value == f_type) return magic.name;
  }
  return std::nullopt;
}

std::optional<std::string> disk_name_of(unsigned major_number, unsigned minor_number,
                                        const SysfsRoot& sys) {
  const std::string link =
      "/sys/dev/block/" + std::to_string(major_number) + ":" + std::to_string(minor_number);
  const auto resolved = sys.resolve(link);
  if (!resolved) return std::nullopt;
  const fs::path device_dir(*resolved);
  // A partition's sysfs folder sits inside its disk's folder and has a "partition" file.
  if (sys.exists(*resolved + "/partition")) return device_dir.parent_path().filename().string();
  return device_dir.filename().string();
}

DeviceIdentity identify_device(const std::string& path, const SysfsRoot& sys) {
  DeviceIdentity identity;
  struct stat info {};
  // A block device node lives on devtmpfs: its filesystem says nothing about the disk.
  const bool device_node = stat(path.c_str(), &info) == 0 && S_ISBLK(info.st_mode);
  struct statfs fs_info {};
  if (!device_node && statfs(path.c_str(), &fs_info) == 0) {
    const auto type = static_cast<unsigned long>(fs_info.f_type);
    if (const auto name = network_fs_name(type)) {
      identity.device = *name;
      identity.disk_kind = "network_fs";
      return identity;
    }
    if (type == 0x01021994 || type == 0x858458f6) {  // tmpfs, ramfs: the page cache itself
      identity.device = type == 0x01021994 ? "tmpfs" : "ramfs";
      identity.disk_kind = "memory_fs";
      return identity;
    }
  }
  const auto number = device_number_of(path);
  if (!number) return identity;
  const auto disk = disk_name_of(major(*number), minor(*number), sys);
  if (!disk) return identity;
  identity.device = *disk;
  bool in_inventory = false;
  for (const BlockDevice& device : read_block_devices(sys)) {
    if (device.name != *disk) continue;
    in_inventory = true;
    identity.disk_kind = to_string(device.kind);
    identity.model = device.model;
    if (device.logical_block_size > 0) identity.logical_block_size = device.logical_block_size;
  }
  if (!in_inventory) {
    // The inventory leaves out loop, ram and zram devices (no hardware behind them), yet a
    // dataset on squashfs over a loop device is common: its kind and block size from sysfs.
    if (disk->rfind("loop", 0) == 0) identity.disk_kind = "loop";
    if (disk->rfind("ram", 0) == 0 || disk->rfind("zram", 0) == 0) identity.disk_kind = "memory_disk";
    const auto block = sys.read_int("/sys/block/" + *disk + "/queue/logical_block_size");
    if (block && *block > 0) identity.logical_block_size = static_cast<int>(*block);
  }
  return identity;
}

std::vector<DatasetFile> list_dataset_files(const std::string& dir, std::vector<UnreadableDir>* unreadable,
                                            std::vector<UnreadableDir>* left_out) {
  // The one walk (core/dataset_walk.hpp), shared with the JPEG corpus: links are followed only
  // inside the dataset, and what is left out is named.
  const DatasetWalk walk = walk_dataset(dir);
  std::vector<DatasetFile> files;
  for (const auto& file : walk.files) files.push_back({file.path.string(), file.size, file.allocated});
  if (unreadable != nullptr) {
    for (const auto& folder : walk.unreadable) {
      const std::string prefix = "unreadable folder: ";
      unreadable->push_back({folder.path.string(), folder.why.rfind(prefix, 0) == 0 ? folder.why.substr(prefix.size()) : folder.why});
    }
  }
  if (left_out != nullptr) {
    for (const auto& entry : walk.left_out) left_out->push_back({entry.path.string(), entry.why});
  }
  return files;
}

StorageTarget resolve_target(const std::string& path, const SysfsRoot& sys) {
  struct stat info {};
  if (path.empty()) throw UsageError("--path: empty path");
  if (stat(path.c_str(), &info) != 0) throw_usage("stat", path, errno);
  const std::string shown = "--path " + escape_name(path);
  StorageTarget target;
  target.path = path;
  if (S_ISREG(info.st_mode)) {
    check_readable(path, 0);
    target.kind = TargetKind::file;
    target.size_bytes = static_cast<std::uint64_t>(info.st_size);
    target.allocated_bytes = static_cast<std::uint64_t>(info.st_blocks) * 512;
    if (target.size_bytes == 0) throw UsageError(shown + ": an empty file, nothing to read");
  } else if (S_ISDIR(info.st_mode)) {
    check_readable(path, O_DIRECTORY);
    target.kind = TargetKind::directory;
    target.files = list_dataset_files(path, &target.unreadable_dirs, &target.left_out);
    if (!target.unreadable_dirs.empty() && target.unreadable_dirs.front().path == path) {
      throw UsageError(shown + ": cannot list it: " + target.unreadable_dirs.front().why);
    }
    const std::string dirs_note =
        target.unreadable_dirs.empty()
            ? ""
            : " (" + std::to_string(target.unreadable_dirs.size()) + " sub-folders could not be read, first " +
                  escape_name(target.unreadable_dirs.front().path) + ": " + target.unreadable_dirs.front().why + ")";
    if (target.files.empty()) throw UsageError(shown + ": a directory without any regular file to read" + dirs_note);
    for (const auto& file : target.files) {
      target.size_bytes += file.size;
      target.allocated_bytes += file.allocated;
    }
    if (target.size_bytes == 0) {
      throw UsageError(shown + ": every file in the directory is empty: nothing to read" + dirs_note);
    }
  } else if (S_ISBLK(info.st_mode)) {
    // Read-only and O_DIRECT, the way the probe will read it; it never writes to a device.
    check_readable(path, O_DIRECT);
    target.kind = TargetKind::block_device;
    target.size_bytes = block_device_size(path);
  } else {
    throw UsageError(shown + ": " + kind_of(info.st_mode) + ", not a regular file, directory or block device");
  }
  target.identity = identify_device(path, sys);
  return target;
}

}  // namespace pipecheck
