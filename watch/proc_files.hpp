// Reading small /proc files fast, under a SysfsRoot so tests can point at a recorded tree. The
// watch sampler reads hundreds of them a second (every thread's stat); an ifstream per file costs
// several times the read(2) itself.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/sysfs.hpp"

namespace pipecheck {

// The whole file (up to 1 MiB), or nullopt when it is missing or unreadable (a process that
// just exited, a file only root may read).
std::optional<std::string> read_proc_file(const SysfsRoot& root, const std::string& system_path);

// The numeric entries of a /proc directory ("/proc" -> pids, "/proc/12/task" -> tids), sorted.
std::vector<int> list_numeric_entries(const SysfsRoot& root, const std::string& system_path);

}  // namespace pipecheck
