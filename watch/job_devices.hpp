// Which block devices a job reads from: the devices backing the regular files its processes
// have open for reading (/proc/PID/fd, stat st_dev) or map as data (/proc/PID/maps), each
// resolved through /sys/dev/block/MAJ:MIN to its whole disk (a partition to the disk it is on).
// Filesystems without a block device of their own in st_dev (btrfs, some device-mapper setups)
// are found through /proc/self/mountinfo; overlay, tmpfs and network filesystems have none.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/sysfs.hpp"

namespace pipecheck {

// A block device's sysfs name to its whole disk ("nvme0n1" for nvme0n1p2, "vda" for vda);
// nullopt when /sys/class/block has no such name.
std::optional<std::string> whole_disk_of(const SysfsRoot& root, const std::string& name);

// "vda" for 254:0; the disk for a partition ("nvme0n1" for nvme0n1p2); nullopt when the
// numbers name no block device.
std::optional<std::string> block_device_of(const SysfsRoot& root, unsigned major, unsigned minor);

// A mount's filesystem type and source ("btrfs", "/dev/nvme0n1p2"), by the "major:minor" its
// files report in st_dev, from a /proc/PID/mountinfo text.
struct MountSource {
  std::string fstype;
  std::string source;
};
std::map<std::string, MountSource> parse_mountinfo(std::string_view text);

// The devices (as "major:minor") of the data files mapped in a maps text: file-backed,
// not executable, not under /dev (GPU driver nodes, shared memory).
std::set<std::string> parse_maps_devices(std::string_view text);

class JobDeviceFinder {
 public:
  // max_fds: how many open files one scan looks at, at most (a dataset job may hold thousands).
  explicit JobDeviceFinder(SysfsRoot root, std::size_t max_fds = 4096);

  // Looks at the open files (and with maps, the mapped files) of these processes.
  void scan(const std::vector<int>& pids, bool maps);

  // Every device found so far, sorted by name.
  std::vector<std::string> devices() const;
  // Why a device is listed: the first file seen on it ("/data/train.bin (pid 4242)").
  std::string evidence(const std::string& device) const;
  // The devices whose file (the one given as evidence) the job opened with O_DIRECT.
  const std::set<std::string>& direct() const { return direct_; }
  // Files the job reads that live on no block device ("overlay", "tmpfs", "nfs4"), for a note.
  const std::set<std::string>& unbacked() const { return unbacked_; }
  // Open shared-memory files (/dev/shm, memfd: data handed between the job's processes, such as
  // a loader's batches) seen in the scans, and the processes holding them: never counted as
  // files the job reads. Files: the most open in one scan.
  std::size_t shared_memory_files() const { return shared_memory_files_; }
  const std::set<int>& shared_memory_pids() const { return shared_memory_pids_; }

 private:
  std::optional<std::string> device_of(unsigned long long dev);
  void add(const std::string& device, const std::string& why);
  void scan_fds(int pid, std::size_t& budget);
  void scan_maps(int pid);

  SysfsRoot root_;
  std::size_t max_fds_;
  std::map<unsigned long long, std::optional<std::string>> by_dev_;  // st_dev -> disk, cached
  std::map<std::string, MountSource> mounts_;  // "0:45" -> btrfs on /dev/sda2
  bool mounts_read_ = false;
  std::map<std::string, std::string> found_;  // device -> evidence
  std::set<std::string> unbacked_;
  std::set<std::string> direct_;
  std::size_t shared_memory_files_ = 0;
  std::size_t shared_memory_in_scan_ = 0;
  std::set<int> shared_memory_pids_;
};

}  // namespace pipecheck
