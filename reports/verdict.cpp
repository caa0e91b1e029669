// Verdict names as they appear in report.json and the renderers, and the order that makes one
// verdict worse than another (the overall verdict of a run is the worst of its judgements).
#include "reports/verdict.hpp"

namespace pipecheck {

namespace {

// Higher is worse. skipped < info: a run that judged nothing is not "info"-worthy either.
int severity(Verdict verdict) {
  switch (verdict) {
    case Verdict::skipped: return 0;
    case Verdict::info: return 1;
    case Verdict::pass: return 2;
    case Verdict::warn: return 3;
    case Verdict::fail: return 4;
  }
  return 0;
}

constexpr Verdict kAll[] = {Verdict::pass, Verdict::warn, Verdict::fail, Verdict::info, Verdict::skipped};

}  // namespace

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass: return "pass";
    case Verdict::warn: return "warn";
    case Verdict::fail: return "fail";
    case Verdict::info: return "info";
    case Verdict::skipped: return "skipped";
  }
  return "info";
}

std::optional<Verdict> parse_verdict(const std::string& text) {
  for (Verdict verdict : kAll) {
    if (text == to_string(verdict)) return verdict;
  }
  return std::nullopt;
}

Verdict worse(Verdict a, Verdict b) { return severity(a) >= severity(b) ? a : b; }

}  // namespace pipecheck
