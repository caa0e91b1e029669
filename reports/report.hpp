// The report of one run: what each probe produced, each measurement held against its ceiling.
// The probes measure; this is where ceilings are attached (DESIGN principle 1).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/inventory.hpp"
#include "core/probe_outcome.hpp"

namespace pipecheck {

constexpr int kReportSchemaVersion = 1;

struct Report {
  int version = kReportSchemaVersion;
  std::string pipecheck_version;
  std::string host;
  std::string started_utc;
  std::string finished_utc;
  std::string mode;  // quick, standard, full
  std::vector<ProbeOutcome> probes;  // each with its measurements
};

// The ceiling one measurement is held against, from the inventory, by its stage and params;
// `siblings` are the other measurements of the same probe.
CeilingResult ceiling_for(const Measurement& measurement, const Inventory& inventory,
                          const std::vector<Measurement>& siblings = {});
// Fills ceiling and percent_of_ceiling of every measurement of every probe.
void attach_ceilings(Report& report, const Inventory& inventory);

nlohmann::json report_to_json(const Report& report);
// Throws std::runtime_error naming what is wrong with the document.
Report report_from_json(const nlohmann::json& document);

}  // namespace pipecheck
