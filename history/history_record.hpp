// One finished run as the history keeps it: who ran it (host, inventory fingerprint, software),
// each measurement with its repetitions and the conditions it ran under, the verdicts that were
// not a pass, the PCIe links as they trained, and the faults (probes that crashed or hung, Xid,
// ECC). Built from a report (and its inventory) by `run`, `check`, `stress` and `--import`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/inventory.hpp"
#include "core/measurement.hpp"
#include "report/report.hpp"

namespace pipecheck {

struct HistoryMeasurement {
  std::string key;
  std::string stage;
  std::string what;
  std::string unit;
  Statistics stats;
  std::vector<double> repetitions;  // empty for reports written before they were kept
  std::optional<double> noise_percent;
  std::optional<double> percent_of_ceiling;
  std::string verdict;                      // its judgement, "" when none
  std::optional<double> other_cpu_percent;  // its probe's conditions
};

struct HistoryVerdict {
  std::string subject;
  std::string stage;
  std::string verdict;
  std::string explanation;
};

struct HistoryLink {
  std::string device;  // "gpu0 0000:17:00.0"
  std::optional<double> current_gts;
  std::optional<int> current_width;
  std::optional<double> max_gts;
  std::optional<int> max_width;
  bool downtrained = false;
};

struct HistoryFault {
  std::string kind;    // "crash", "hang", "xid", "ecc", "wrong result"
  std::string detail;
};

struct HistoryProbe {
  std::string stage;
  std::string probe;
  std::string status;
  std::string reason;
  double seconds = 0;
  std::string conditions_json;  // "" when not measured
};

struct HistoryRun {
  std::int64_t id = 0;     // assigned by the store
  std::string host;
  std::string command;     // run, check, stress
  std::string started_utc;
  std::string finished_utc;
  std::string mode;
  std::string overall;     // the overall verdict
  std::string pipecheck_version;
  int report_version = 0;
  std::string fingerprint;    // inventory_fingerprint(), "" without an inventory
  std::string software_json;  // the software stack, "" without an inventory
  std::string source;         // the results folder
  std::vector<HistoryProbe> probes;
  std::vector<HistoryMeasurement> measurements;
  std::vector<HistoryVerdict> verdicts;  // not pass/info/skipped
  std::vector<HistoryLink> links;
  std::vector<HistoryFault> faults;
};

// A stable hash (FNV-1a, hex) of what makes the machine this machine: CPU model and count,
// memory, GPUs by UUID and bus id, disks by model and size. Changes when a part is swapped.
std::string inventory_fingerprint(const Inventory& inventory);

// `inventory` may be null (a run folder without inventory.json): no fingerprint, no links.
HistoryRun history_run_from(const Report& report, const Inventory* inventory, const std::string& command,
                            const std::string& source);

}  // namespace pipecheck
