// Results-folder output of the renderers (see render_files.hpp).
#include "render/render_files.hpp"

#include <unistd.h>

#include <exception>

#include "core/stage_names.hpp"
#include "core/json_input.hpp"
#include "core/json_field_error.hpp"
#include "core/number_input.hpp"
#include "core/errors.hpp"

#include "core/file_io.hpp"
#include "core/outcome.hpp"
#include "render/burn_rate_lines.hpp"
#include "render/render_html.hpp"
#include "render/render_junit.hpp"
#include "render/render_markdown.hpp"
#include "render/render_prometheus.hpp"

namespace pipecheck {

namespace {

// The burn rates against their ceilings, from the stress run's summary.json beside its
// telemetry; a summary that is absent (killed runs write none) or unreadable is left out.
void read_burn_rates(const std::filesystem::path& path, RenderExtras& extras, std::vector<std::string>& notes) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return;
  try {
    const nlohmann::json summary = parse_json(read_file(path));
    check_schema_version(path.string(), read_fields(path, summary, [](const nlohmann::json& d) { return schema_version_field(d); }), kStressSummarySchemaVersion);
    extras.burn_rates = burn_rate_lines(summary);
  } catch (const std::exception& e) {
    notes.push_back(path.string() + ": left out of the report: " + e.what());
  }
}

}  // namespace

RenderExtras read_render_extras(const std::filesystem::path& folder, std::vector<std::string>& notes) {
  RenderExtras extras;
  for (const auto& candidate : {folder / kTelemetryFile, folder / stage_name::stress / kTelemetryFile}) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(candidate, error)) continue;
    try {
      extras.telemetry = read_telemetry_log(candidate);
    } catch (const std::exception& e) {
      notes.push_back(candidate.string() + ": left out of the report: " + e.what());
    }
    read_burn_rates(candidate.parent_path() / "summary.json", extras, notes);
    break;
  }
  return extras;
}

std::vector<std::filesystem::path> write_rendered_reports(const std::filesystem::path& folder, const Report& report,
                                                          const Inventory& inventory, const RenderExtras& extras) {
  const Judged& judged = report.judged;
  const std::vector<std::pair<const char*, std::string>> files = {
      {kReportHtmlFile, render_html(report, inventory, judged, extras)},
      {kReportMarkdownFile, render_markdown(report, inventory, judged, extras)},
      {kPrometheusFile, render_prometheus(report, inventory, judged, extras)},
      {kJunitFile, render_junit(report, inventory, judged, extras)},
  };
  std::vector<std::filesystem::path> written;
  for (const auto& [name, text] : files) {
    write_file_atomically(folder / name, text);
    written.push_back(folder / name);
  }
  return written;
}

void check_prom_textfile_dir(const std::filesystem::path& dir) {
  std::error_code error;
  const std::string name = "--prom-textfile " + dir.string();
  if (!std::filesystem::exists(dir, error)) throw UsageError(name + ": no such folder");
  if (!std::filesystem::is_directory(dir, error)) throw UsageError(name + ": not a folder");
  if (access(dir.c_str(), W_OK | X_OK) != 0) throw UsageError(name + ": not writable");
}

std::filesystem::path write_prom_textfile(const std::filesystem::path& dir, const Report& report,
                                          const Inventory& inventory, const RenderExtras& extras) {
  const std::filesystem::path path = dir / kPrometheusFile;
  write_file_atomically(path, render_prometheus(report, inventory, report.judged, extras));
  return path;
}

}  // namespace pipecheck
