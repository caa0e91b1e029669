// Re-judging and rendering a results folder.
#include "app/report_command.hpp"

#include <ostream>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/json_records.hpp"
#include "core/json_text.hpp"
#include "reports/judge.hpp"
#include "reports/render/render_files.hpp"
#include "reports/render/summary_table.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

namespace {

nlohmann::json read_json(const fs::path& path) {
  if (!fs::exists(path)) throw UsageError(path.string() + ": not found (is this a pipecheck run folder?)");
  try {
    return nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& error) {
    throw UsageError(path.string() + ": not valid JSON: " + error.what());
  }
}

}  // namespace

int report_folder(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  const Profile profile =
      options.profile_path.empty() ? default_profile() : load_profile(options.profile_path);
  std::optional<Workload> workload;
  if (!options.workload.empty()) workload = parse_workload(options.workload);

  if (!options.prom_textfile.empty()) check_prom_textfile_dir(options.prom_textfile);

  Report report;
  Inventory inventory;
  try {
    report = report_from_json(read_json(options.folder / "report.json"));
    inventory = read_json(options.folder / "inventory.json").get<Inventory>();
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& error) {
    throw UsageError(options.folder.string() + ": " + error.what());
  }
  attach_ceilings(report, inventory);
  report.judged = judge(report, inventory, profile, workload);
  write_file_atomically(options.folder / "report.json", json_text(report_to_json(report)) + "\n");
  std::vector<std::string> notes;
  const RenderExtras extras = read_render_extras(options.folder, notes);
  for (const auto& note : notes) err << "pipecheck: " << note << "\n";
  write_rendered_reports(options.folder, report, inventory, extras);
  out << render_summary(report, SummaryStyle{options.color, options.width});
  out << "\nreport: " << (options.folder / kReportHtmlFile).string() << "\n";
  if (!options.prom_textfile.empty()) {
    out << "prometheus: " << write_prom_textfile(options.prom_textfile, report, inventory, extras).string() << "\n";
  }
  return exit_code_of(report.judged);
}

}  // namespace pipecheck
