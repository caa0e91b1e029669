// Writing the rendered reports into a results folder: which files, under which names, from the
// same records. `pipecheck run` and `pipecheck report DIR` call this after judging.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/inventory.hpp"
#include "render/render_support.hpp"
#include "report/report.hpp"

namespace pipecheck {

// Names inside a results folder.
inline constexpr const char* kReportHtmlFile = "report.html";
inline constexpr const char* kReportMarkdownFile = "report.md";
inline constexpr const char* kPrometheusFile = "pipecheck.prom";  // node_exporter reads *.prom
inline constexpr const char* kJunitFile = "junit.xml";
inline constexpr const char* kTelemetryFile = "telemetry.csv";

// The extras found in a results folder: telemetry.csv (or stress/telemetry.csv) when present.
// A telemetry file that cannot be read or has a bad header is left out with a line in `notes`
// (the report still renders; DESIGN principle 4). The stress summary.json beside the telemetry
// gives extras.burn_rates (left out the same way).
RenderExtras read_render_extras(const std::filesystem::path& folder, std::vector<std::string>& notes);

// Writes report.html, report.md, pipecheck.prom and junit.xml into `folder` (each atomically)
// from report.judged; returns the paths written. Throws RunError when a file cannot be written.
std::vector<std::filesystem::path> write_rendered_reports(const std::filesystem::path& folder, const Report& report,
                                                          const Inventory& inventory, const RenderExtras& extras);

// node_exporter's textfile collector folder (`--prom-textfile DIR`): throws UsageError naming the
// folder when it is missing, not a folder or not writable, so a run refuses it before it starts.
void check_prom_textfile_dir(const std::filesystem::path& dir);
// Writes DIR/pipecheck.prom atomically: a temporary name the collector ignores (it reads only
// *.prom), fsync, rename; the collector never reads half a file. Returns the path; throws
// RunError when it cannot be written.
std::filesystem::path write_prom_textfile(const std::filesystem::path& dir, const Report& report,
                                          const Inventory& inventory, const RenderExtras& extras);

}  // namespace pipecheck
