// Test helper: `pipecheck report` on a folder, in-process; the UsageError's text, or "" when the
// command ran.
#pragma once

#include <filesystem>
#include <sstream>
#include <string>

#include "app/report_command.hpp"
#include "core/errors.hpp"

namespace pipecheck::testing {

inline std::string report_refusal(const std::filesystem::path& folder) {
  ReportOptions options;
  options.folder = folder;
  std::ostringstream out, err;
  try {
    report_folder(options, out, err);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

}  // namespace pipecheck::testing
