// The Prometheus textfile: every line parses as the exposition format, families are declared
// once before their samples, and what is unknown is left out instead of written as NaN.
#include "reports/render/render_prometheus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <sstream>

#include "tests/render_test_data.hpp"

namespace pipecheck {
namespace {

const std::regex kSample(
    R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")*\})? (-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)$)");
const std::regex kHelp(R"(^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+$)");
const std::regex kType(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter|untyped)$)");

// Checks the text line by line; returns the number of samples per family.
std::map<std::string, int> check_exposition(const std::string& text) {
  std::map<std::string, int> samples;
  std::map<std::string, int> helps;
  std::string current_type;
  std::istringstream lines(text);
  std::string line;
  std::set<std::string> seen_samples;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_match(line, match, kHelp)) {
      EXPECT_EQ(++helps[match[1]], 1) << "HELP twice: " << line;
    } else if (std::regex_match(line, match, kType)) {
      current_type = match[1];
      EXPECT_EQ(helps[current_type], 1) << "TYPE without HELP: " << line;
      EXPECT_EQ(samples.count(current_type), 0u) << "family declared after its samples: " << line;
    } else if (std::regex_match(line, match, kSample)) {
      EXPECT_EQ(match[1], current_type) << "sample outside its family: " << line;
      EXPECT_TRUE(seen_samples.insert(match[1].str() + match[2].str()).second) << "duplicate: " << line;
      ++samples[match[1]];
    } else {
      ADD_FAILURE() << "line does not parse: '" << line << "'";
    }
  }
  EXPECT_TRUE(text.empty() || text.back() == '\n');
  return samples;
}

TEST(RenderPrometheus, EveryLineOfBothRecordedRunsParses) {
  for (const char* name : {"h200", "host"}) {
    SCOPED_TRACE(name);
    const auto run = testing::load_recorded_run(name);
    const auto samples = check_exposition(render_prometheus(run.report, run.inventory, run.report.judged, run.extras));
    EXPECT_GT(samples.at("pipecheck_measurement_value"), 5);
    EXPECT_EQ(samples.count("pipecheck_overall_pass"), 1u);
    int judgements = static_cast<int>(run.report.judged.judgements.size());
    EXPECT_EQ(samples.count("pipecheck_verdict") ? samples.at("pipecheck_verdict") : 0, judgements);
  }
}

TEST(RenderPrometheus, UnknownValuesAreLeftOutNotNaN) {
  Report report;
  ProbeOutcome probe;
  probe.probe = "pipecheck-hostmem";
  probe.stage = "hostmem";
  probe.status = ProbeStatus::ok;
  Measurement known;
  known.key = "hostmem/read/threads:1";
  known.stage = "hostmem";
  known.unit = "GB/s";
  known.stats.median = 10;
  known.ceiling = CeilingResult::known({20, "GB/s", "theoretical", "d"});
  known.percent_of_ceiling = 50;
  Measurement unknown = known;
  unknown.key = "hostmem/read/threads:2";
  unknown.ceiling = CeilingResult::unknown("unknown: memory channel count not reported");
  unknown.percent_of_ceiling.reset();
  Measurement nan = known;
  nan.key = "hostmem/read/threads:4";
  nan.stats.median = std::nan("");
  probe.measurements = {known, unknown, nan};
  report.probes.push_back(probe);
  const std::string text = render_prometheus(report, Inventory{}, Judged{}, RenderExtras{});
  check_exposition(text);
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_NE(text.find("pipecheck_measurement_ceiling{key=\"hostmem/read/threads:1\""), std::string::npos);
  EXPECT_EQ(text.find("pipecheck_measurement_ceiling{key=\"hostmem/read/threads:2\""), std::string::npos);
  EXPECT_EQ(text.find("pipecheck_measurement_percent_of_ceiling{key=\"hostmem/read/threads:2\""), std::string::npos);
  EXPECT_EQ(text.find("pipecheck_measurement_value{key=\"hostmem/read/threads:4\""), std::string::npos);
  // Not judged: no overall sample rather than a made-up pass.
  EXPECT_EQ(text.find("pipecheck_overall_pass"), std::string::npos);
}

TEST(RenderPrometheus, OverallPassFollowsTheExitCode) {
  Judged judged;
  judged.judgements.push_back({"a", "compute", "a", Verdict::warn, "", ""});
  judged.overall = Verdict::warn;
  EXPECT_NE(render_prometheus(Report{}, Inventory{}, judged, RenderExtras{}).find("\npipecheck_overall_pass 1\n"),
            std::string::npos);
  judged.judgements.push_back({"b", "compute", "b", Verdict::fail, "", ""});
  judged.overall = Verdict::fail;
  const std::string text = render_prometheus(Report{}, Inventory{}, judged, RenderExtras{});
  EXPECT_NE(text.find("\npipecheck_overall_pass 0\n"), std::string::npos);
  EXPECT_NE(text.find("pipecheck_verdict{subject=\"b\",stage=\"compute\",verdict=\"fail\"} 5"), std::string::npos);
  // Inconclusive is not a failure; invalid is.
  judged.judgements = {{"c", "decode", "c", Verdict::inconclusive, "", ""}};
  judged.overall = Verdict::inconclusive;
  EXPECT_NE(render_prometheus(Report{}, Inventory{}, judged, RenderExtras{}).find("\npipecheck_overall_pass 1\n"),
            std::string::npos);
  judged.judgements = {{"d", "hostmem", "d", Verdict::invalid, "", ""}};
  judged.overall = Verdict::invalid;
  EXPECT_NE(render_prometheus(Report{}, Inventory{}, judged, RenderExtras{}).find("\npipecheck_overall_pass 0\n"),
            std::string::npos);
}

}  // namespace
}  // namespace pipecheck
