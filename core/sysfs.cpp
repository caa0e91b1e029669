// Reading sysfs/procfs under a root folder (live "/" or a recorded tree).
#include "core/sysfs.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace pipecheck {

namespace fs = std::filesystem;

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

fs::path SysfsRoot::path(const std::string& system_path) const {
  const std::string relative = system_path.empty() || system_path[0] != '/'
                                   ? system_path
                                   : system_path.substr(1);
  return root_ / relative;
}

std::optional<std::string> SysfsRoot::read(const std::string& system_path) const {
  std::ifstream in(path(system_path), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

std::optional<std::string> SysfsRoot::read_line(const std::string& system_path) const {
  auto text = read(system_path);
  if (!text) return std::nullopt;
  const auto end = text->find('\n');
  return trim(text->substr(0, end));
}

std::optional<long long> SysfsRoot::read_int(const std::string& system_path) const {
  auto line = read_line(system_path);
  if (!line || line->empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const long long value = std::stoll(*line, &used, 0);
    if (used != line->size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<std::string> SysfsRoot::list(const std::string& system_path) const {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(path(system_path), error), end; !error && it != end;
       it.increment(error)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool SysfsRoot::exists(const std::string& system_path) const {
  std::error_code error;
  return fs::exists(path(system_path), error);
}

bool SysfsRoot::is_live() const {
  std::error_code error;
  return fs::equivalent(root_, "/", error);
}

std::optional<std::string> SysfsRoot::resolve(const std::string& system_path) const {
  std::error_code error;
  const fs::path real = fs::canonical(path(system_path), error);
  if (error) return std::nullopt;
  const fs::path root = fs::canonical(root_, error);
  if (error) return std::nullopt;
  const fs::path relative = real.lexically_relative(root);
  if (relative.empty() || *relative.begin() == "..") return std::nullopt;
  // Appended rather than "/" + string: GCC 12 warns falsely (-Wrestrict) on the latter.
  std::string system_path_out = "/";
  system_path_out += relative.string();
  return system_path_out;
}

}  // namespace pipecheck
