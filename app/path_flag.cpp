// Path flags checked with the system's own words (app/path_flag.hpp).
#include "app/path_flag.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/text_escape.hpp"

namespace pipecheck {

CLI::Validator existing_path_check(PathKind kind) {
  const char* name = kind == PathKind::file ? "FILE" : kind == PathKind::directory ? "DIR" : "PATH";
  return CLI::Validator(
      [kind](std::string& text) -> std::string {
        const std::string shown = "'" + shortened(escape_name(text), 80) + "'";
        struct stat info {};
        if (::stat(text.c_str(), &info) != 0) return shown + ": " + std::strerror(errno);
        if (kind == PathKind::directory && !S_ISDIR(info.st_mode)) return shown + ": not a directory";
        if (kind == PathKind::file && S_ISDIR(info.st_mode)) return shown + ": a directory, not a file";
        return "";
      },
      name);
}

}  // namespace pipecheck
