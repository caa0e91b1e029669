// Number flags through the one number reader (core/number_input.hpp): CLI11's own Range and
// NonNegativeNumber let nan and inf through (every comparison with nan is false) and print
// their bounds as 309-digit numbers.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

#include "core/number_input.hpp"

namespace pipecheck {

// A finite number in [low, high]: "--threshold: 'nan' is not a finite number (at least 0)".
CLI::Validator number_check(double low, double high);

// A whole number in [low, high], read without truncation.
CLI::Validator whole_number_check(std::int64_t low, std::int64_t high);

}  // namespace pipecheck
