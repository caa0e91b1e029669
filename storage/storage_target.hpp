// What a storage probe --path is (file, directory dataset, block device) and which disk holds
// it, so each figure carries the device whose ceiling it is measured against.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/sysfs.hpp"

namespace pipecheck {

enum class TargetKind { file, directory, block_device };
const char* to_string(TargetKind kind);

struct DatasetFile {
  std::string path;
  std::uint64_t size = 0;
  std::uint64_t allocated = 0;  // bytes on disk (st_blocks x 512): less than size when sparse
};

// A sub-folder of a dataset that could not be listed, and why.
struct UnreadableDir {
  std::string path;
  std::string why;
};

struct DeviceIdentity {
  std::string device = "unknown";     // whole-disk name ("vda", "nvme0n1"), or the fs for network
  std::string disk_kind = "unknown";  // DiskKind names, plus "network_fs" and "memory_fs"
  std::string model;
  int logical_block_size = 4096;      // O_DIRECT alignment; 4096 when sysfs does not say
};

struct StorageTarget {
  std::string path;
  TargetKind kind = TargetKind::file;
  std::uint64_t size_bytes = 0;      // file or device size; sum of files for a directory
  std::uint64_t allocated_bytes = 0; // on disk (files and datasets): below size_bytes when sparse
  std::vector<DatasetFile> files;    // directory: every regular file, sorted by path
  std::vector<UnreadableDir> unreadable_dirs;  // directory: sub-folders that could not be listed
  std::vector<UnreadableDir> left_out;         // directory: links and special files not read, and why
  DeviceIdentity identity;
};

// Checks and classifies a --path. Throws UsageError, one line naming the path (escaped, as
// core/text_escape.hpp), when it does not exist, cannot be opened for reading, is an empty file,
// a directory without a non-empty file, or another kind of file (a FIFO, a socket, a character
// device). `pipecheck run` calls it too, so bad paths are refused before any probe runs.
StorageTarget resolve_target(const std::string& path, const SysfsRoot& sys);

// Every regular file under `dir`, recursively, sorted, by the one dataset walk
// (core/dataset_walk.hpp): links are followed while their target stays under `dir`; entries
// left out (a link out of the dataset, a dangling link, a loop, a FIFO or device) are added to
// `left_out`, sub-folders that cannot be listed to `unreadable`, when given.
std::vector<DatasetFile> list_dataset_files(const std::string& dir, std::vector<UnreadableDir>* unreadable = nullptr,
                                            std::vector<UnreadableDir>* left_out = nullptr);

// The block device behind `path` (a block device itself, or the filesystem holding a file)
// and its kind from read_block_devices(sys); network filesystems by statfs magic.
DeviceIdentity identify_device(const std::string& path, const SysfsRoot& sys);

// The whole-disk name for a device number: a partition ("vda1") gives its disk ("vda").
std::optional<std::string> disk_name_of(unsigned major, unsigned minor, const SysfsRoot& sys);

// "nfs", "cifs", ... for a network or cluster filesystem's statfs f_type, else nullopt.
std::optional<std::string> network_fs_name(unsigned long f_type);

}  // namespace pipecheck
