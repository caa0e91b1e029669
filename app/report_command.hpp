// `pipecheck report DIR`: judges a results folder again (with another profile or workload) and
// renders it: report.json updated, report.html, report.md, pipecheck.prom, junit.xml, and the
// terminal summary.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>

namespace pipecheck {

struct ReportOptions {
  std::filesystem::path folder;
  std::filesystem::path profile_path;  // empty = default profile
  std::string workload;
  bool color = false;
  int width = 100;  // columns of the terminal summary
  std::filesystem::path prom_textfile;  // node_exporter textfile folder; empty = none
};

// 0 every verdict passed, 1 a verdict failed. Throws UsageError for a folder that is not a run.
int report_folder(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipecheck
