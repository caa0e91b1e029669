// Path flags that must name something existing, checked with the system's own words: CLI11's
// ExistingPath said "Path does not exist" for a symlink loop (ELOOP) and for a path over 4096
// bytes (ENAMETOOLONG), and echoed all 9 kB of it.
#pragma once

#include <CLI/CLI.hpp>

namespace pipecheck {

enum class PathKind { any, file, directory };

// "'/data/loop': Too many levels of symbolic links", "'/etc/hosts': not a directory"; the path
// escaped and shortened (core/text_escape.hpp).
CLI::Validator existing_path_check(PathKind kind);

}  // namespace pipecheck
