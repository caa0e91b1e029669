// The prefixes of a case's SkipWithError text, written and read in one place.
#include "core/case_messages.hpp"

#include <cstring>

namespace pipecheck {

namespace {

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

std::string skipped_case_message(const std::string& reason) {
  return starts_with(reason, kSkippedCasePrefix) ? reason : kSkippedCasePrefix + reason;
}

std::string wrong_result_message(const std::string& detail) { return kWrongResultPrefix + detail; }

CaseMessage classify_case_message(const std::string& message) {
  if (starts_with(message, kSkippedCasePrefix)) {
    return {CaseMessage::skipped, message.substr(std::strlen(kSkippedCasePrefix))};
  }
  if (starts_with(message, kWrongResultPrefix)) {
    return {CaseMessage::wrong_result, message.substr(std::strlen(kWrongResultPrefix))};
  }
  return {CaseMessage::error, message};
}

}  // namespace pipecheck
