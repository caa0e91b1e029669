// `pipecheck compare`: two runs (A B) measurement by measurement, or many hosts' runs (a fleet)
// naming the outlier hosts and GPUs. Exit 0 nothing wrong, 1 a regression beyond noise or an
// outlier (so CI can gate on it), 2 bad input, 4 nothing regressed but a change as large as a
// regression could not be told apart from noise or busy conditions.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pipecheck {

struct CompareCliState {
  std::vector<std::string> inputs;  // run folders, report.json or baseline.json files
  bool fleet = false;               // also implied by more than two inputs
  bool force = false;               // compare across schema versions and busy conditions
  bool json = false;
  bool markdown = false;
  bool no_color = false;
  double threshold_percent = 3.0;   // smallest change of a median that counts
  double tolerance_percent = 10.0;  // fleet: shortfall from the fleet median that names an outlier
  std::string html;                 // fleet: the HTML page's path; "" = fleet.html in the one folder given
  bool no_html = false;             // fleet: no HTML page
};

// Where the fleet page goes: --html, else fleet.html inside the one folder given, else nowhere.
std::filesystem::path fleet_html_path(const CompareCliState& state);

// A compare input as given, or, for an --out folder (no report.json, run folders inside), the
// latest run inside it by its started_utc; `note` then says which run was taken.
std::filesystem::path run_input_of(const std::filesystem::path& input, std::string& note);

// Adds the `compare` subcommand, its arguments bound to `state`.
CLI::App* add_compare_command(CLI::App& app, CompareCliState& state);

// Runs it after parsing: prints the comparison on out, one line on err for bad input.
int run_compare_command(const CompareCliState& state, std::ostream& out, std::ostream& err);

}  // namespace pipecheck
