// JSON form of the typed records (measurement, ceiling, probe outcome, inventory), for
// nlohmann::json's to_json/from_json. Round trips are exact: what is written reads back equal.
#pragma once

#include <nlohmann/json.hpp>

#include "core/inventory.hpp"
#include "core/measurement.hpp"
#include "core/probe_outcome.hpp"

namespace pipecheck {

void to_json(nlohmann::json& j, const Statistics& s);
void from_json(const nlohmann::json& j, Statistics& s);
void to_json(nlohmann::json& j, const Ceiling& c);
void from_json(const nlohmann::json& j, Ceiling& c);
void to_json(nlohmann::json& j, const Measurement& m);
void from_json(const nlohmann::json& j, Measurement& m);
// The outcome without its measurements (they are listed apart in report.json).
void to_json(nlohmann::json& j, const RunConditions& c);
void from_json(const nlohmann::json& j, RunConditions& c);
void to_json(nlohmann::json& j, const ProbeOutcome& p);
void from_json(const nlohmann::json& j, ProbeOutcome& p);
void to_json(nlohmann::json& j, const Inventory& inventory);
void from_json(const nlohmann::json& j, Inventory& inventory);

}  // namespace pipecheck
