// Small-file reads with open/read and numeric directory listings with readdir.
#include "watch/proc_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace pipecheck {

std::optional<std::string> read_proc_file(const SysfsRoot& root, const std::string& system_path) {
  const int fd = open(root.path(system_path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buffer[4096];
  while (text.size() < (1u << 20)) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  close(fd);
  return text;
}

std::vector<int> list_numeric_entries(const SysfsRoot& root, const std::string& system_path) {
  std::vector<int> ids;
  DIR* dir = opendir(root.path(system_path).c_str());
  if (!dir) return ids;
  while (const dirent* entry = readdir(dir)) {
    const char* name = entry->d_name;
    if (*name < '0' || *name > '9') continue;
    char* end = nullptr;
    const long id = std::strtol(name, &end, 10);
    if (*end == '\0' && id >= 0) ids.push_back(static_cast<int>(id));  // fd 0 is a file too
  }
  closedir(dir);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace pipecheck
