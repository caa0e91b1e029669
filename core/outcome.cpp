// The outcome model's names, orders and mappings (see outcome.hpp and docs/outputs.md's "Outcomes").
#include "core/outcome.hpp"

#include "core/errors.hpp"

namespace pipecheck {

namespace {

constexpr ProbeStatus kStatuses[] = {ProbeStatus::ok, ProbeStatus::skipped, ProbeStatus::not_built,
                                     ProbeStatus::failed, ProbeStatus::interrupted};
constexpr Verdict kVerdicts[] = {Verdict::pass,         Verdict::warn, Verdict::fail,   Verdict::invalid,
                                 Verdict::inconclusive, Verdict::info, Verdict::skipped};

// Higher matters more when one command has two outcomes.
int exit_priority(ExitCode exit_code) {
  switch (exit_code) {
    case ExitCode::ok: return 0;
    case ExitCode::inconclusive: return 1;
    case ExitCode::failed: return 2;
    case ExitCode::usage: return 3;
    case ExitCode::could_not_run: return 4;
    case ExitCode::interrupted: return 5;
  }
  return 4;
}

}  // namespace

const char* to_string(ProbeStatus status) {
  switch (status) {
    case ProbeStatus::ok: return "ok";
    case ProbeStatus::skipped: return "skipped";
    case ProbeStatus::not_built: return "not built";
    case ProbeStatus::failed: return "failed";
    case ProbeStatus::interrupted: return "interrupted";
  }
  return "failed";
}

ProbeStatus parse_probe_status(const std::string& text) {
  for (ProbeStatus status : kStatuses) {
    if (text == to_string(status)) return status;
  }
  return ProbeStatus::failed;
}

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass: return "pass";
    case Verdict::warn: return "warn";
    case Verdict::fail: return "fail";
    case Verdict::invalid: return "invalid";
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::info: return "info";
    case Verdict::skipped: return "skipped";
  }
  return "info";
}

std::optional<Verdict> parse_verdict(const std::string& text) {
  for (Verdict verdict : kVerdicts) {
    if (text == to_string(verdict)) return verdict;
  }
  return std::nullopt;
}

// skipped < info: a run that judged nothing is not "info"-worthy either. inconclusive sits
// between warn and fail: worse than any success, never able to hide a failure.
int severity(Verdict verdict) {
  switch (verdict) {
    case Verdict::skipped: return 0;
    case Verdict::info: return 1;
    case Verdict::pass: return 2;
    case Verdict::warn: return 3;
    case Verdict::inconclusive: return 4;
    case Verdict::fail: return 5;
    case Verdict::invalid: return 6;
  }
  return 0;
}

Verdict worse(Verdict a, Verdict b) { return severity(a) >= severity(b) ? a : b; }

bool is_failure(Verdict verdict) { return verdict == Verdict::fail || verdict == Verdict::invalid; }

int code(ExitCode exit_code) { return static_cast<int>(exit_code); }

ExitCode exit_code_for(Verdict overall) {
  if (is_failure(overall)) return ExitCode::failed;
  if (overall == Verdict::inconclusive) return ExitCode::inconclusive;
  return ExitCode::ok;
}

ExitCode combine(ExitCode a, ExitCode b) { return exit_priority(a) >= exit_priority(b) ? a : b; }

ExitCode exit_code_from_int(int value) {
  for (ExitCode exit_code : {ExitCode::ok, ExitCode::failed, ExitCode::usage, ExitCode::could_not_run,
                             ExitCode::inconclusive, ExitCode::interrupted}) {
    if (value == code(exit_code)) return exit_code;
  }
  return ExitCode::could_not_run;
}

JunitElement junit_element(Verdict verdict, bool probe_failed) {
  switch (verdict) {
    case Verdict::fail: return probe_failed ? JunitElement::error : JunitElement::failure;
    case Verdict::invalid: return JunitElement::error;
    case Verdict::inconclusive:
    case Verdict::skipped: return JunitElement::skipped;
    case Verdict::pass:
    case Verdict::warn:
    case Verdict::info: return JunitElement::none;
  }
  return JunitElement::none;
}

const char* to_string(JunitElement element) {
  switch (element) {
    case JunitElement::none: return "";
    case JunitElement::failure: return "failure";
    case JunitElement::error: return "error";
    case JunitElement::skipped: return "skipped";
  }
  return "";
}

int prometheus_verdict_value(Verdict verdict) {
  switch (verdict) {
    case Verdict::skipped: return 0;
    case Verdict::info: return 1;
    case Verdict::pass: return 2;
    case Verdict::warn: return 3;
    case Verdict::inconclusive: return 4;
    case Verdict::fail: return 5;
    case Verdict::invalid: return 6;
  }
  return 1;
}

void check_schema_version(const std::string& document, int found, int supported) {
  if (found > supported) {
    throw UsageError(document + ": schema version " + std::to_string(found) +
                     " is newer than this pipecheck reads (" + std::to_string(supported) +
                     "): use a newer pipecheck");
  }
}

}  // namespace pipecheck
