// Reading runs for comparison (a run folder, a report.json, or a baseline), and the baseline
// itself: results/baseline.json is a copy of the first run's report.json plus the identity of
// the machine it ran on, so later runs are compared only against the same machine.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/inventory.hpp"
#include "compare/compare.hpp"
#include "report/report.hpp"

namespace pipecheck {

struct GpuIdentity {
  int cuda_index = -1;  // to find a GPU named by index in a measurement's params
  std::string pci_bdf;
  std::string uuid;
  std::string name;
};

// The machine a run measured: its hostname and GPU set. Without an inventory only the host
// (from report.json) is known and the GPU set is not checked.
struct RunIdentity {
  std::string hostname;
  std::vector<GpuIdentity> gpus;  // sorted by pci_bdf
  bool gpus_known = false;
};

RunIdentity identity_of(const Inventory& inventory);
// "host 'gpu-a' with 2x NVIDIA H100 80GB HBM3 (0000:17:00.0, 0000:2a:00.0)"
std::string describe(const RunIdentity& identity);
// Empty when both are the same machine, else what differs, naming both sides.
std::optional<std::string> identity_difference(const RunIdentity& baseline, const RunIdentity& current);
// Before a run measures anything: an existing baseline of another machine (host or GPU set) is
// refused now, not after every probe ran. Throws UsageError naming the file and both machines.
void check_baseline_machine(const std::filesystem::path& baseline_path, const RunIdentity& current, bool force);

// One run as read for comparison.
struct LoadedRun {
  std::filesystem::path source;  // what was given
  Report report;
  RunIdentity identity;  // from inventory.json beside the report, or the baseline's copy
  nlohmann::json report_document;  // report.json as read, kept verbatim for a baseline copy
  // inventory.json beside the report, verbatim (null when absent): a baseline keeps it so that
  // `pipecheck check --baseline` can hold a node against the facts recorded with it.
  nlohmann::json inventory_document;
};

// `path` is a run folder (report.json, inventory.json beside it), a report.json file or a
// baseline.json. Only the identity is read from inventory.json (hostname, gpus[].pci_bdf, uuid,
// name, cuda_index), so an inventory of another version still identifies its machine. Throws UsageError naming the path when it is missing or not a report. A report
// of a newer schema version than this pipecheck reads is refused unless force; the refusal
// names `force_flag`, the calling command's flag that forces it ("" when it has none).
LoadedRun load_run(const std::filesystem::path& path, bool force = false,
                   const std::string& force_flag = "--force");

// The baseline document: {"schema": "pipecheck.baseline", "identity", "source", "report"}, and
// "inventory" when the run had one.
nlohmann::json baseline_document(const LoadedRun& run, const std::string& recorded_utc);
// Why a baseline must not be compared with this run (another report schema version, another
// host or GPU set), as one line naming the baseline file and both sides; empty when it may.
std::optional<std::string> baseline_mismatch(const LoadedRun& baseline, const LoadedRun& current,
                                             const std::filesystem::path& baseline_path);

// compare_reports with each side labelled by where it was read from.
Comparison compare_runs(const LoadedRun& baseline, const LoadedRun& current,
                        const CompareOptions& options = {});

// The step at the end of `pipecheck run --baseline FILE` (`make bench`): when FILE does not
// exist, record this run as the baseline (atomically) and say so; otherwise compare this run to
// it and print the comparison. Returns 0 (recorded, or no regression), 1 (a regression beyond
// noise), 2 (the baseline is unreadable or refused; one line on err, naming `force_flag`, the
// flag of the command that overrides a refusal), 4 (a change as large as a regression that noise
// or busy conditions could explain). `force` also compares busy probes. Throws RunError when the
// baseline cannot be written.
int record_or_compare_baseline(const std::filesystem::path& run_folder,
                               const std::filesystem::path& baseline_path, bool force,
                               std::ostream& out, std::ostream& err,
                               const CompareOptions& options = {},
                               const std::string& force_flag = "--force-baseline");

// Before a run: a --baseline that exists must be a readable baseline (or report), and one that
// does not must be creatable (its nearest existing folder writable), so a bad --baseline is
// found before any probe runs. Throws UsageError naming it.
void check_baseline_path(const std::filesystem::path& baseline_path, bool force);

}  // namespace pipecheck
