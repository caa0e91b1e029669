// JUnit XML renderer (the common Jenkins/GitLab schema); every text is XML-escaped.
#include "render/render_junit.hpp"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <sstream>

#include "render/escape.hpp"

namespace pipecheck {

namespace {

std::string x(std::string_view text) { return xml_escape(text); }

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds);
  return buffer;
}

// "2026-11-30T08:00:00" (seconds may have a fraction): the xs:dateTime JUnit readers expect.
bool is_date_time(const std::string& text) {
  static const std::regex kDateTime(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?)");
  return std::regex_match(text, kDateTime);
}

struct Suite {
  std::string stage;
  std::vector<const Judgement*> cases;
  int failures = 0;
  int errors = 0;
  int skipped = 0;
  double seconds = 0;
};

}  // namespace

std::string render_junit(const Report& report, const Inventory&, const Judged& judged, const RenderExtras&) {
  // Suites in pipeline order, then stages only the judge named (inventory facts).
  std::vector<Suite> suites;
  for (const auto& stage : stages_in_pipeline_order(report)) suites.push_back({stage, {}, 0, 0, 0, 0});
  for (const auto& j : judged.judgements) {
    const std::string stage = j.stage.empty() ? "pipecheck" : j.stage;
    auto suite = std::find_if(suites.begin(), suites.end(), [&](const Suite& s) { return s.stage == stage; });
    if (suite == suites.end()) {
      suites.push_back({stage, {}, 0, 0, 0, 0});
      suite = suites.end() - 1;
    }
    suite->cases.push_back(&j);
    switch (junit_element(j.verdict, j.probe_failed)) {
      case JunitElement::failure: ++suite->failures; break;
      case JunitElement::error: ++suite->errors; break;
      case JunitElement::skipped: ++suite->skipped; break;
      case JunitElement::none: break;
    }
  }
  for (const auto& probe : report.probes) {
    for (auto& suite : suites) {
      if (suite.stage == probe.stage) suite.seconds += probe.seconds;
    }
  }
  suites.erase(std::remove_if(suites.begin(), suites.end(), [](const Suite& s) { return s.cases.empty(); }),
               suites.end());
  int tests = 0, failures = 0, errors = 0;
  double seconds = 0;
  for (const auto& s : suites) {
    tests += static_cast<int>(s.cases.size());
    failures += s.failures;
    errors += s.errors;
    seconds += s.seconds;
  }
  // JUnit's timestamp is an xs:dateTime without a zone; one that is not a time is left out (an
  // empty attribute would fail the schema).
  std::string timestamp = report.started_utc;
  if (!timestamp.empty() && timestamp.back() == 'Z') timestamp.pop_back();
  if (!is_date_time(timestamp)) timestamp.clear();

  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"pipecheck " << x(report.host) << "\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" time=\"" << seconds_text(seconds) << "\">\n";
  for (const auto& s : suites) {
    out << "  <testsuite name=\"" << x(s.stage) << "\" tests=\"" << s.cases.size() << "\" failures=\"" << s.failures
        << "\" errors=\"" << s.errors << "\" skipped=\"" << s.skipped << "\" time=\"" << seconds_text(s.seconds) << "\"";
    if (!timestamp.empty()) out << " timestamp=\"" << x(timestamp) << "\"";
    out << " hostname=\"" << x(report.host) << "\">\n";
    for (const Judgement* j : s.cases) {
      out << "    <testcase classname=\"" << x(s.stage) << "\" name=\"" << x(j->subject) << "\" time=\"0\">";
      const std::string detail = (j->what.empty() ? "" : j->what + "\n") + j->explanation +
                                 (j->rule.empty() ? "" : "\nrule: " + j->rule);
      const JunitElement element = junit_element(j->verdict, j->probe_failed);
      const std::string type = j->probe_failed ? "probe_failed" : to_string(j->verdict);
      switch (element) {
        case JunitElement::failure:
        case JunitElement::error:
          out << "\n      <" << to_string(element) << " message=\"" << x(j->explanation) << "\" type=\"" << type
              << "\">" << x(detail) << "</" << to_string(element) << ">\n    ";
          break;
        case JunitElement::skipped: {
          const std::string prefix = j->verdict == Verdict::inconclusive ? "inconclusive: " : "";
          out << "\n      <skipped message=\"" << x(prefix + j->explanation) << "\"/>\n    ";
          break;
        }
        case JunitElement::none:
          if (j->verdict != Verdict::pass) {
            out << "\n      <system-out>" << x(std::string(to_string(j->verdict)) + ": " + detail)
                << "</system-out>\n    ";
          }
          break;
      }
      out << "</testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace pipecheck
