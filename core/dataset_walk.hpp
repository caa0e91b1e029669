// The one walk of a dataset folder, for every probe that reads one (the storage probe's --path
// folder, the JPEG corpus of --images): what is in the dataset is what lies under its root.
// A link is followed only while its target stays under the root (a `root -> /` or `up -> ..`
// link must not turn a dataset into the whole filesystem, /proc included); every entry left out
// is named with why, so the figure says what it measured.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace pipecheck {

struct DatasetWalkFile {
  std::filesystem::path path;  // as found under the root (a link keeps its own name)
  std::uint64_t size = 0;
  std::uint64_t allocated = 0;  // bytes on disk (st_blocks x 512): less than size when sparse
};

// An entry not read, and why: "link outside the dataset (-> /)", "dangling link", "link loop",
// "link to a folder already walked", "the same file as a/b.jpg" (a second name of a file, read
// once), "FIFO", "character device", "socket", "block device".
struct DatasetLeftOut {
  std::filesystem::path path;
  std::string why;
};

struct DatasetWalk {
  std::vector<DatasetWalkFile> files;        // sorted by path; each file (device, inode) once
  std::vector<DatasetLeftOut> left_out;      // links and special files not read, in walk order
  std::vector<DatasetLeftOut> unreadable;    // folders that could not be listed (the root first)
};

// Walks `root` depth first, each folder's entries in name order. `wanted` (when given) says which regular files count by their path
// (the JPEG corpus: .jpg/.jpeg); files it rejects are neither listed nor named. Throws
// std::filesystem::filesystem_error only when the root itself cannot be resolved.
DatasetWalk walk_dataset(const std::filesystem::path& root,
                         const std::function<bool(const std::filesystem::path&)>& wanted = {});

// "3 entries left out, first ds/root: link outside the dataset (-> /)", or "" when none.
std::string left_out_summary(const DatasetWalk& walk, const std::filesystem::path& root);

}  // namespace pipecheck
