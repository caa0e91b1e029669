// Reading sysfs/procfs files under a root folder, so that tests can point the collectors at a
// recorded tree in tests/data instead of the live /sys and /proc.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pipecheck {

class SysfsRoot {
 public:
  explicit SysfsRoot(std::filesystem::path root = "/") : root_(std::move(root)) {}

  // The path of an absolute system path ("/sys/block") under this root.
  std::filesystem::path path(const std::string& system_path) const;
  // Whole file, or nullopt when missing or unreadable.
  std::optional<std::string> read(const std::string& system_path) const;
  // First line with surrounding whitespace trimmed, or nullopt.
  std::optional<std::string> read_line(const std::string& system_path) const;
  std::optional<long long> read_int(const std::string& system_path) const;
  // Names of the entries of a directory, sorted; empty when missing.
  std::vector<std::string> list(const std::string& system_path) const;
  bool exists(const std::string& system_path) const;
  // Resolves a symlink (e.g. /sys/block/nvme0n1/device) to a system path under this root.
  std::optional<std::string> resolve(const std::string& system_path) const;

  const std::filesystem::path& root() const { return root_; }
  // True when the root is this machine's "/" (not a recorded tree).
  bool is_live() const;

 private:
  std::filesystem::path root_;
};

std::string trim(const std::string& text);

}  // namespace pipecheck
