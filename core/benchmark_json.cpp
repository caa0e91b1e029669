// Google Benchmark JSON -> measurements.
#include "core/json_input.hpp"
#include "core/benchmark_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

#include "core/case_messages.hpp"
#include "core/probe_label.hpp"

namespace pipecheck {

namespace {

using nlohmann::json;

// The rate counters a probe may report, in order of preference, and how each is shown. The
// unit table is the one place that turns counter names into units (STYLE 3).
struct RateCounter {
  const char* counter;
  const char* unit;
  double scale;  // divide the counter by this
};
constexpr RateCounter kRateCounters[] = {
    {"flop_per_second", "TFLOP/s", 1e12},
    {"op_per_second", "TOPS", 1e12},
    {"bytes_per_second", "GB/s", 1e9},
    {"iops", "IOPS", 1.0},
    {"images_per_second", "images/s", 1.0},
    {"items_per_second", "items/s", 1.0},
};

struct CaseRuns {
  std::string run_name;
  std::string label;
  std::vector<double> values;
  const RateCounter* rate = nullptr;
};

const RateCounter* rate_counter_of(const json& run) {
  for (const auto& rate : kRateCounters) {
    if (run.contains(rate.counter) && run[rate.counter].is_number()) return &rate;
  }
  return nullptr;
}

bool is_timing_part(const std::string& part) {
  return part == "real_time" || part == "manual_time" || part.rfind("min_time:", 0) == 0 ||
         part.rfind("repeats:", 0) == 0 || part.rfind("iterations:", 0) == 0 ||
         part.rfind("min_warmup_time:", 0) == 0;
}

}  // namespace

std::vector<std::string> rate_counter_names() {
  std::vector<std::string> names;
  for (const auto& rate : kRateCounters) names.push_back(rate.counter);
  return names;
}

std::string measurement_key(const std::string& run_name) {
  std::string key;
  std::size_t start = 0;
  while (start <= run_name.size()) {
    std::size_t end = run_name.find('/', start);
    if (end == std::string::npos) end = run_name.size();
    const std::string part = run_name.substr(start, end - start);
    if (!part.empty() && !is_timing_part(part)) key += (key.empty() ? "" : "/") + part;
    start = end + 1;
  }
  return key;
}

ParsedBenchmarks parse_benchmark_json(const std::string& text, const std::string& stage) {
  json document;
  try {
    document = parse_json(text);
  } catch (const json::parse_error& error) {
    throw std::runtime_error(std::string("not JSON: ") + error.what());
  }
  if (!document.is_object() || !document.contains("benchmarks") ||
      !document["benchmarks"].is_array()) {
    throw std::runtime_error("JSON without a \"benchmarks\" array: not Google Benchmark output");
  }
  ParsedBenchmarks parsed;
  if (document.contains("context") && document["context"].is_object()) {
    for (const auto& [key, value] : document["context"].items()) {
      if (value.is_string()) parsed.context[key] = value.get<std::string>();
    }
  }
  std::vector<CaseRuns> cases;  // in the order the probe ran them
  for (const auto& run : document["benchmarks"]) {
    if (!run.is_object() || !run.contains("name") || !run["name"].is_string()) {
      throw std::runtime_error("a benchmark entry without a name");
    }
    if (run.value("run_type", "iteration") != "iteration") continue;  // we aggregate ourselves
    const std::string run_name = run.value("run_name", run["name"].get<std::string>());
    if (run.value("error_occurred", false)) {
      const CaseMessage message = classify_case_message(run.value("error_message", "error"));
      auto& list = message.kind == CaseMessage::skipped        ? parsed.skipped_cases
                   : message.kind == CaseMessage::wrong_result ? parsed.wrong_results
                                                               : parsed.case_errors;
      const std::string entry = measurement_key(run_name) + ": " + message.text;
      if (std::find(list.begin(), list.end(), entry) == list.end()) list.push_back(entry);
      continue;
    }
    const RateCounter* rate = rate_counter_of(run);
    if (rate == nullptr) continue;  // a case with no rate is not a measurement
    auto it = std::find_if(cases.begin(), cases.end(),
                           [&](const CaseRuns& c) { return c.run_name == run_name; });
    if (it == cases.end()) {
      cases.push_back({run_name, "", {}, rate});
      it = std::prev(cases.end());
    }
    // The last repetition's label: a case that totals its rounds over its repetitions (the
    // job's loader, decode/loader_cases) says the totals there.
    it->label = run.value("label", "");
    it->values.push_back(run[rate->counter].get<double>() / rate->scale);
  }
  // Written by core/repetition_rounds: why each case stopped, and whether thread counts were
  // interleaved round by round.
  const auto context_text = [&](const std::string& key) {
    const auto it = parsed.context.find(key);
    return it == parsed.context.end() ? std::string() : it->second;
  };
  const bool interleaved = context_text("pipecheck_interleaved") == "threads";
  for (const auto& c : cases) {
    Measurement m;
    m.key = measurement_key(c.run_name);
    m.repetitions = c.values;
    m.stopping = context_text("pipecheck_stop:" + c.run_name);
    m.interleaved = interleaved;
    m.stage = stage;
    m.params = decode_label(c.label);
    m.what = m.params.count("what") ? m.params["what"] : m.key;
    m.params.erase("what");
    m.unit = c.rate->unit;
    m.stats = summarize(c.values);
    attach_spread(m);
    parsed.measurements.push_back(std::move(m));
  }
  return parsed;
}

}  // namespace pipecheck
