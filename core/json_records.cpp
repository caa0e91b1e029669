// JSON for measurements and probe outcomes. Optional values are written as null.
#include "core/json_records.hpp"

namespace pipecheck {

using nlohmann::json;

void to_json(json& j, const Statistics& s) {
  j = json{{"median", s.median}, {"min", s.min}, {"max", s.max}, {"samples", s.samples}};
}

void from_json(const json& j, Statistics& s) {
  s.median = j.at("median").get<double>();
  s.min = j.at("min").get<double>();
  s.max = j.at("max").get<double>();
  s.samples = j.at("samples").get<int>();
}

void to_json(json& j, const Ceiling& c) {
  j = json{{"value", c.value}, {"unit", c.unit}, {"basis", c.basis}, {"derivation", c.derivation}};
}

void from_json(const json& j, Ceiling& c) {
  c.value = j.at("value").get<double>();
  c.unit = j.at("unit").get<std::string>();
  c.basis = j.at("basis").get<std::string>();
  c.derivation = j.at("derivation").get<std::string>();
}

void to_json(json& j, const Measurement& m) {
  j = json{{"key", m.key},     {"stage", m.stage},   {"what", m.what},
           {"unit", m.unit},   {"stats", m.stats},   {"params", m.params},
           {"ceiling", nullptr}, {"ceiling_unknown", nullptr}, {"percent_of_ceiling", nullptr}};
  if (m.ceiling.ceiling) j["ceiling"] = *m.ceiling.ceiling;
  if (!m.ceiling.unknown_reason.empty()) j["ceiling_unknown"] = m.ceiling.unknown_reason;
  if (m.percent_of_ceiling) j["percent_of_ceiling"] = *m.percent_of_ceiling;
}

void from_json(const json& j, Measurement& m) {
  m.key = j.at("key").get<std::string>();
  m.stage = j.at("stage").get<std::string>();
  m.what = j.at("what").get<std::string>();
  m.unit = j.at("unit").get<std::string>();
  m.stats = j.at("stats").get<Statistics>();
  m.params = j.value("params", std::map<std::string, std::string>{});
  m.ceiling = {};
  if (j.contains("ceiling") && !j["ceiling"].is_null()) m.ceiling.ceiling = j["ceiling"].get<Ceiling>();
  if (j.contains("ceiling_unknown") && !j["ceiling_unknown"].is_null()) {
    m.ceiling.unknown_reason = j["ceiling_unknown"].get<std::string>();
  }
  m.percent_of_ceiling.reset();
  if (j.contains("percent_of_ceiling") && !j["percent_of_ceiling"].is_null()) {
    m.percent_of_ceiling = j["percent_of_ceiling"].get<double>();
  }
}

const char* to_string(ProbeStatus status) {
  switch (status) {
    case ProbeStatus::ok: return "ok";
    case ProbeStatus::skipped: return "skipped";
    case ProbeStatus::not_built: return "not built";
    case ProbeStatus::failed: return "failed";
  }
  return "failed";
}

ProbeStatus parse_probe_status(const std::string& text) {
  if (text == "ok") return ProbeStatus::ok;
  if (text == "skipped") return ProbeStatus::skipped;
  if (text == "not built") return ProbeStatus::not_built;
  return ProbeStatus::failed;
}

void to_json(json& j, const ProbeOutcome& p) {
  j = json{{"probe", p.probe},   {"stage", p.stage},     {"status", to_string(p.status)},
           {"reason", p.reason}, {"seconds", p.seconds}, {"case_errors", p.case_errors},
           {"measurements", p.measurements.size()}};
}

void from_json(const json& j, ProbeOutcome& p) {
  p.probe = j.at("probe").get<std::string>();
  p.stage = j.at("stage").get<std::string>();
  p.status = parse_probe_status(j.at("status").get<std::string>());
  p.reason = j.value("reason", "");
  p.seconds = j.value("seconds", 0.0);
  p.case_errors = j.value("case_errors", std::vector<std::string>{});
}

}  // namespace pipecheck
