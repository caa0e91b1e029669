// The `compare` subcommand: argument parsing, loading the runs, and choosing the renderer.
#include "app/compare_cli.hpp"
#include "app/number_flag.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "core/text_escape.hpp"
#include "compare/baseline.hpp"
#include "compare/compare.hpp"
#include "render/compare_text.hpp"
#include "compare/fleet.hpp"
#include "render/render_fleet_html.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

namespace {

// Colour only when writing to a terminal; a stream handed in by a test never is one.
bool use_color(const CompareCliState& state, const std::ostream& out) {
  return !state.no_color && &out == &std::cout && isatty(STDOUT_FILENO) &&
         std::getenv("NO_COLOR") == nullptr;
}

// Older report versions are read as written and compared (core/outcome.hpp); a newer one was
// refused when it was read, unless --force, and says so here.
std::vector<std::string> version_notes(const LoadedRun& a, const LoadedRun& b) {
  std::vector<std::string> notes;
  for (const LoadedRun* run : {&a, &b}) {
    if (run->report.version <= kReportSchemaVersion) continue;
    notes.push_back("forced: " + escape_name(run->source.string()) + " is report schema version " +
                    std::to_string(run->report.version) + ", newer than this pipecheck reads (" +
                    std::to_string(kReportSchemaVersion) + ")");
  }
  if (a.report.version != b.report.version) {
    notes.push_back(escape_name(a.source.string()) + " is report schema version " + std::to_string(a.report.version) + ", " +
                    escape_name(b.source.string()) + " version " + std::to_string(b.report.version) +
                    "; fields added later read as absent");
  }
  return notes;
}

// A run's started_utc as written in its report.json ("" when it cannot be read): ISO times sort
// as text.
std::string started_utc_of(const fs::path& folder) {
  try {
    const auto document = parse_json(read_file(folder / "report.json"));
    if (document.is_object() && document.contains("started_utc") && document["started_utc"].is_string()) {
      return document["started_utc"].get<std::string>();
    }
  } catch (const std::exception&) {
    // Unreadable: it sorts first, and load_run names the problem if it is the one taken.
  }
  return "";
}

}  // namespace

fs::path run_input_of(const fs::path& input, std::string& note) {
  std::error_code error;
  if (!fs::is_directory(input, error) || fs::exists(input / "report.json", error)) return input;
  // An --out folder: the run folders inside it (unfinished ones are not runs yet).
  std::vector<fs::path> runs;
  for (fs::directory_iterator it(input, error), end; !error && it != end; it.increment(error)) {
    const fs::path& child = it->path();
    std::error_code child_error;
    if (child.filename().string().ends_with(".incomplete")) continue;
    if (fs::is_directory(child, child_error) && fs::exists(child / "report.json", child_error)) runs.push_back(child);
  }
  if (runs.empty()) {
    throw UsageError(escape_name(input.string()) + ": no report.json in this folder, nor a run folder holding one (not a "
                     "pipecheck run or --out folder)");
  }
  // Latest by the time the run started; the folder name breaks a tie.
  fs::path latest;
  std::pair<std::string, std::string> latest_order;
  for (const auto& run : runs) {
    auto order = std::make_pair(started_utc_of(run), run.filename().string());
    if (latest.empty() || order > latest_order) {
      latest = run;
      latest_order = std::move(order);
    }
  }
  note = runs.size() == 1 ? escape_name(input.string()) + ": comparing its one run, " + escape_name(latest.string())
                          : escape_name(input.string()) + " holds " + std::to_string(runs.size()) +
                                " runs: comparing the latest, " + escape_name(latest.string());
  return latest;
}

namespace {

int compare_two(const CompareCliState& state, std::ostream& out, std::ostream& err) {
  std::string note_a, note_b;
  const fs::path input_a = run_input_of(state.inputs[0], note_a);
  const fs::path input_b = run_input_of(state.inputs[1], note_b);
  for (const std::string* note : {&note_a, &note_b}) {
    if (!note->empty()) err << "pipecheck: compare: " << *note << "\n";
  }
  const LoadedRun a = load_run(input_a, state.force);
  const LoadedRun b = load_run(input_b, state.force);
  // A is the baseline: another machine's figures say nothing about this one's changes.
  const auto difference = identity_difference(a.identity, b.identity);
  if (difference && !state.force) {
    throw UsageError("compare: " + escape_name(a.source.string()) + " and " + escape_name(b.source.string()) +
                     " are runs of different machines (" + describe(a.identity) + "; " + describe(b.identity) +
                     "); pass --force to compare anyway");
  }
  const auto forced = version_notes(a, b);
  CompareOptions options;
  options.threshold_percent = state.threshold_percent;
  options.force = state.force;
  Comparison comparison = compare_runs(a, b, options);
  comparison.notes.insert(comparison.notes.begin(), forced.begin(), forced.end());
  // Forced: another host is already noted by compare_reports; the same host with other GPUs is not.
  if (difference && a.identity.hostname == b.identity.hostname) {
    comparison.notes.push_back("different GPUs: baseline " + *difference);
  }
  if (state.json) {
    out << json_text(comparison_to_json(comparison)) << "\n";
  } else if (state.markdown) {
    out << render_comparison_markdown(comparison);
  } else {
    out << render_comparison_text(comparison, use_color(state, out));
  }
  return code(comparison.exit_code());
}

int compare_fleet(const CompareCliState& state, std::ostream& out, std::ostream& err) {
  std::vector<fs::path> inputs(state.inputs.begin(), state.inputs.end());
  std::vector<std::string> notes;
  const auto runs = load_fleet(inputs, state.force, notes);
  FleetOptions options;
  options.tolerance_percent = state.tolerance_percent;
  FleetResult result = analyze_fleet(runs, options);
  result.notes.insert(result.notes.begin(), notes.begin(), notes.end());
  if (state.json) {
    out << json_text(fleet_to_json(result)) << "\n";
  } else if (state.markdown) {
    out << render_fleet_markdown(result);
  } else {
    out << render_fleet_text(result, use_color(state, out));
  }
  if (const fs::path page = fleet_html_path(state); !page.empty()) {
    write_file_atomically(page, render_fleet_html(result));
    (state.json ? err : out) << "fleet page: " << page.string() << "\n";
  }
  return result.has_outliers() ? 1 : 0;
}

}  // namespace

fs::path fleet_html_path(const CompareCliState& state) {
  if (state.no_html) return {};
  if (!state.html.empty()) return state.html;
  std::error_code error;
  if (state.inputs.size() == 1 && fs::is_directory(state.inputs.front(), error) &&
      !fs::exists(fs::path(state.inputs.front()) / "report.json", error)) {
    return fs::path(state.inputs.front()) / "fleet.html";
  }
  return {};
}

CLI::App* add_compare_command(CLI::App& app, CompareCliState& state) {
  auto* compare = app.add_subcommand(
      "compare", "Compare two runs (A B: changes beyond noise), or many hosts' runs (--fleet: outliers)");
  compare->add_option("runs", state.inputs,
                      "Run folders, report.json or baseline.json files; with --fleet also folders "
                      "holding run folders");
  compare->add_flag("--fleet", state.fleet, "Compare many hosts' runs and name outlier hosts and GPUs");
  compare->add_flag("--force", state.force,
                    "Compare runs of different machines (host or GPU set), a report of a newer schema version, "
                    "and probes that ran under busy conditions");
  compare->add_option("--threshold", state.threshold_percent,
                      "Smallest change of a median, in %, that counts as a regression")
      ->check(number_check(0, 1000000))
      ->capture_default_str();
  compare->add_option("--tolerance", state.tolerance_percent,
                      "Fleet: shortfall from the fleet median, in %, that names an outlier")
      ->check(number_check(0, 100))
      ->capture_default_str();
  auto* json = compare->add_flag("--json", state.json, "JSON instead of text");
  compare->add_flag("--markdown", state.markdown, "Markdown, for pasting into tickets")->excludes(json);
  compare->add_flag("--no-color", state.no_color, "Plain text even on a terminal");
  auto* html = compare->add_option("--html", state.html,
                                   "Fleet: write the fleet page (hosts x stages, outliers marked) here; default "
                                   "fleet.html in the one results folder given");
  compare->add_flag("--no-html", state.no_html, "Fleet: no HTML page")->excludes(html);
  return compare;
}

int run_compare_command(const CompareCliState& state, std::ostream& out, std::ostream& err) {
  const bool fleet = state.fleet || state.inputs.size() > 2;
  try {
    if (fleet && state.inputs.empty()) throw UsageError("compare --fleet: give the run folders to compare");
    if (!fleet && state.inputs.size() != 2) {
      throw UsageError("compare: give two runs (A B), or --fleet DIR... for many hosts; got " +
                       std::to_string(state.inputs.size()));
    }
    return fleet ? compare_fleet(state, out, err) : compare_two(state, out, err);
  } catch (const UsageError& error) {
    err << "pipecheck: " << error.what() << "\n";
    return 2;
  } catch (const fs::filesystem_error& error) {
    err << "pipecheck: compare: " << error.what() << "\n";
    return 2;
  }
}

}  // namespace pipecheck
