// A folder of our own for a child's output, removed with everything in it when it goes out of
// scope. Made under $TMPDIR (else /tmp) with mkdtemp, so it never names anything we did not make.
#pragma once

#include <filesystem>
#include <string>

namespace pipecheck {

class TemporaryFolder {
 public:
  // Throws RunError naming the folder it could not make (and $TMPDIR when that is where).
  explicit TemporaryFolder(const std::string& prefix);
  ~TemporaryFolder();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace pipecheck
