// Re-judging and rendering a results folder.
#include "app/report_command.hpp"

#include <algorithm>
#include <ostream>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "core/file_io.hpp"
#include "core/json_records.hpp"
#include "core/json_field_error.hpp"
#include "core/json_text.hpp"
#include "core/text_escape.hpp"
#include "core/outcome.hpp"
#include "judge/judge.hpp"
#include "render/render_files.hpp"
#include "render/summary_table.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

namespace {

nlohmann::json read_json(const fs::path& path) {
  const std::string shown = escape_name(path.string());
  if (!fs::exists(path)) throw UsageError(shown + ": not found (is this a pipecheck run folder?)");
  try {
    return parse_json(read_file(path));
  } catch (const nlohmann::json::exception& error) {
    throw UsageError(shown + ": not valid JSON: " + error.what());
  } catch (const RunError& error) {
    throw UsageError(std::string("cannot read: ") + error.what());
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
    // A wrongly typed field names the file and the field (core/json_field_error.hpp).
    const fs::path report_path = options.folder / "report.json";
    report = read_fields(report_path, read_json(report_path), [](const nlohmann::json& d) { return report_from_json(d); });
    const fs::path inventory_path = options.folder / "inventory.json";
    inventory = read_fields(inventory_path, read_json(inventory_path),
                            [](const nlohmann::json& d) { return d.get<Inventory>(); });
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& error) {
    throw UsageError(escape_name(options.folder.string()) + ": " + error.what());
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
  // A run that was interrupted is judged again as what it is: interrupted (130, as its run
  // exited), never a pass of the probes that happened to finish.
  const bool interrupted = std::any_of(report.probes.begin(), report.probes.end(),
                                       [](const ProbeOutcome& p) { return p.status == ProbeStatus::interrupted; });
  const int judged = exit_code_of(report.judged);
  return interrupted ? code(combine(exit_code_from_int(judged), ExitCode::interrupted)) : judged;
}

}  // namespace pipecheck
