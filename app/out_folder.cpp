// Refusing, or with --force clearing, an --out folder that holds another run's files.
#include "app/out_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

void claim_out_folder(const fs::path& dir, const std::vector<std::string>& names, bool force, const std::string& flag) {
  std::vector<std::string> found;
  for (const auto& name : names) {
    struct stat info {};
    if (lstat((dir / name).c_str(), &info) == 0) found.push_back(name);  // a dangling link counts
  }
  if (found.empty()) return;
  std::string list;
  for (const auto& name : found) list += (list.empty() ? "" : ", ") + name;
  if (!force) {
    throw UsageError(flag + " " + escape_name(dir.string()) + " holds another run's files (" + list +
                     "): choose another folder, or pass --force to replace them");
  }
  for (const auto& name : found) {
    if (unlink((dir / name).c_str()) != 0 && errno != ENOENT) throw_errno("remove", (dir / name).string());
  }
}

}  // namespace pipecheck
