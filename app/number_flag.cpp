// Number flags through the one number reader (app/number_flag.hpp).
#include "app/number_flag.hpp"

#include <string>

namespace pipecheck {

CLI::Validator number_check(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        std::string why;
        return parse_number(text, low, high, why) ? "" : why;
      },
      "NUMBER");
}

CLI::Validator whole_number_check(std::int64_t low, std::int64_t high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        std::string why;
        return parse_integer(text, low, high, why) ? "" : why;
      },
      "INTEGER");
}

}  // namespace pipecheck
