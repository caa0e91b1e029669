// Whole-file reads and atomic writes: a file is either complete or absent, never half-written
// under its final name (write to a temporary beside it, fsync, rename).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace pipecheck {

// Throws RunError naming the path and the errno text.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);
// Throws RunError when the file cannot be read, or holds more than `max_bytes`.
std::string read_file(const std::filesystem::path& path, std::size_t max_bytes = static_cast<std::size_t>(-1));

// "web-01" from gethostname; "unknown-host" when it fails.
std::string host_name();
// UTC now as "2026-11-30T08:15:00Z" (iso) or "20261130T081500Z" (for folder names).
std::string utc_now_iso();
std::string utc_now_compact();

}  // namespace pipecheck
