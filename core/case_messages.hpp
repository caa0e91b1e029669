// How a benchmark case tells the driver it measured nothing, through Google Benchmark's one
// channel for that (Debian's 1.7.1 has SkipWithError but no SkipWithMessage): the error text's
// prefix says which of three things happened. Probes write these; core/benchmark_json reads them.
//   "skipped: <reason>"       the case cannot apply here (no nvJPEG, O_DIRECT refused): no
//                             timing recorded, the report says skipped with the reason
//   "wrong result: <detail>"  the case's verifier caught wrong data, naming where: no timing
//                             for wrong work, the report fails it (profile probe.unverified)
//   anything else             the case could not run (an allocation, a CUDA call): a case error
#pragma once

#include <optional>
#include <string>

namespace pipecheck {

inline constexpr const char* kSkippedCasePrefix = "skipped: ";
inline constexpr const char* kWrongResultPrefix = "wrong result: ";

// "skipped: " + reason; a reason that already carries the prefix is not prefixed twice.
std::string skipped_case_message(const std::string& reason);
// "wrong result: " + detail.
std::string wrong_result_message(const std::string& detail);

// What an error message of a case says, by its prefix.
struct CaseMessage {
  enum Kind { error, skipped, wrong_result } kind = error;
  std::string text;  // the message without its prefix
};
CaseMessage classify_case_message(const std::string& message);

}  // namespace pipecheck
