// The one dataset walk (core/dataset_walk.hpp).
#include "core/dataset_walk.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <utility>

#include "core/text_escape.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

namespace {

using Identity = std::pair<dev_t, ino_t>;

const char* special_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISSOCK(mode)) return "socket";
  return "not a file or folder";
}

// `path` with every link resolved, or the errno of why not (ENOENT: dangling, ELOOP: a loop).
bool real_path(const fs::path& path, fs::path& resolved, int& error) {
  const std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  if (!real) {
    error = errno;
    return false;
  }
  resolved = real.get();
  return true;
}

bool is_under(const fs::path& path, const fs::path& root) {
  const std::string& p = path.native();
  const std::string& r = root.native();
  if (p.size() < r.size() || p.compare(0, r.size(), r) != 0) return false;
  return p.size() == r.size() || r.back() == '/' || p[r.size()] == '/';
}

class Walker {
 public:
  Walker(fs::path root, fs::path real_root, const std::function<bool(const fs::path&)>& wanted)
      : root_(std::move(root)), real_root_(std::move(real_root)), wanted_(wanted) {}

  void folder(const fs::path& dir, const struct stat& info) {
    if (!folders_.insert({info.st_dev, info.st_ino}).second) return;
    std::error_code error;
    std::vector<fs::path> entries;
    fs::directory_iterator it(dir, error);
    for (; !error && it != fs::directory_iterator(); it.increment(error)) entries.push_back(it->path());
    // A folder that cannot be listed (no permission, an I/O error) is named, never skipped silently.
    if (error) walk_.unreadable.push_back({dir, "unreadable folder: " + error.message()});
    // In name order, so which of two names of one file or folder is read does not depend on the
    // order the filesystem lists them in.
    std::sort(entries.begin(), entries.end());
    for (const auto& path : entries) entry(path);
  }

  void entry(const fs::path& path) {
    struct stat own {};
    if (::lstat(path.c_str(), &own) != 0) {
      walk_.left_out.push_back({path, std::error_code(errno, std::generic_category()).message()});
      return;
    }
    struct stat info = own;
    if (S_ISLNK(own.st_mode)) {
      fs::path target;
      int error = 0;
      if (!real_path(path, target, error)) {
        walk_.left_out.push_back({path, error == ENOENT  ? "dangling link"
                                        : error == ELOOP ? "link loop"
                                                         : "link: " + std::error_code(error, std::generic_category()).message()});
        return;
      }
      if (!is_under(target, real_root_)) {
        walk_.left_out.push_back({path, "link outside the dataset (-> " + escape_name(target.string()) + ")"});
        return;
      }
      if (::stat(path.c_str(), &info) != 0) {
        walk_.left_out.push_back({path, "link: " + std::error_code(errno, std::generic_category()).message()});
        return;
      }
      if (S_ISDIR(info.st_mode) && folders_.count({info.st_dev, info.st_ino}) > 0) {
        walk_.left_out.push_back({path, "link to a folder already walked (a loop or a second path)"});
        return;
      }
    }
    if (S_ISDIR(info.st_mode)) {
      folder(path, info);
    } else if (S_ISREG(info.st_mode)) {
      if (wanted_ && !wanted_(path)) return;
      const auto [first, added] = files_.emplace(Identity{info.st_dev, info.st_ino}, path);
      if (!added) {  // read once, under the first of its names
        walk_.left_out.push_back({path, "the same file as " + escape_name(first->second.lexically_relative(root_).string())});
        return;
      }
      walk_.files.push_back({path, static_cast<std::uint64_t>(info.st_size),
                             static_cast<std::uint64_t>(info.st_blocks) * 512});
    } else {
      walk_.left_out.push_back({path, special_kind(info.st_mode)});
    }
  }

  DatasetWalk take() { return std::move(walk_); }

 private:
  fs::path root_, real_root_;
  const std::function<bool(const fs::path&)>& wanted_;
  std::set<Identity> folders_;
  std::map<Identity, fs::path> files_;
  DatasetWalk walk_;
};

}  // namespace

DatasetWalk walk_dataset(const fs::path& root, const std::function<bool(const fs::path&)>& wanted) {
  fs::path real_root;
  int error = 0;
  if (!real_path(root, real_root, error)) {
    throw fs::filesystem_error("realpath", root, std::error_code(error, std::generic_category()));
  }
  struct stat info {};
  if (::stat(root.c_str(), &info) != 0) {
    throw fs::filesystem_error("stat", root, std::error_code(errno, std::generic_category()));
  }
  Walker walker(root, real_root, wanted);
  walker.folder(root, info);
  DatasetWalk walk = walker.take();
  std::sort(walk.files.begin(), walk.files.end(),
            [](const DatasetWalkFile& a, const DatasetWalkFile& b) { return a.path < b.path; });
  return walk;
}

std::string left_out_summary(const DatasetWalk& walk, const fs::path& root) {
  if (walk.left_out.empty()) return "";
  const DatasetLeftOut& first = walk.left_out.front();
  return std::to_string(walk.left_out.size()) + (walk.left_out.size() == 1 ? " entry" : " entries") +
         " left out, first " + escape_name(first.path.lexically_relative(root).string()) + ": " + first.why;
}

}  // namespace pipecheck
