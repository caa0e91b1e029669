// A temporary folder of our own (see temporary_folder.hpp).
#include "core/temporary_folder.hpp"

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "core/errors.hpp"

namespace pipecheck {

TemporaryFolder::TemporaryFolder(const std::string& prefix) {
  const char* tmpdir = std::getenv("TMPDIR");
  const bool from_env = tmpdir != nullptr && *tmpdir != '\0';
  const std::string base = from_env ? tmpdir : "/tmp";
  std::string pattern = base + "/" + prefix + "-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr) {
    throw RunError(errno_message(from_env ? "TMPDIR: cannot make a temporary folder in" : "cannot make a temporary folder in",
                                 base, errno));
  }
  path_ = name.data();
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace pipecheck
