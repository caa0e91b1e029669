// Figures in words, shared by the judge, the findings and the budget.
#include "core/figure_text.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pipecheck {

std::string figure(double value) {
  char text[64];
  const double magnitude = std::fabs(value);
  if (magnitude >= 100 || magnitude == 0) {
    std::snprintf(text, sizeof text, "%.0f", value);
  } else if (magnitude >= 10) {
    std::snprintf(text, sizeof text, "%.1f", value);
  } else if (magnitude >= 1) {
    std::snprintf(text, sizeof text, "%.2f", value);
  } else {
    std::snprintf(text, sizeof text, "%.3g", value);
  }
  return text;
}

std::string figure(double value, const std::string& unit) { return figure(value) + " " + unit; }

std::string ratio_text(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", ratio);
  return text;
}

std::string plain_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string bytes_label(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (std::fabs(bytes) >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char buffer[32];
  if (std::fabs(bytes - std::round(bytes)) < 1e-9) {
    std::snprintf(buffer, sizeof buffer, "%.0f %s", bytes, kUnits[unit]);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g %s", bytes, kUnits[unit]);
  }
  return buffer;
}

std::string percent_text(double percent) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", percent);
  return text;
}

std::string param_or_empty(const std::map<std::string, std::string>& params, const std::string& name) {
  const auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

int int_param(const std::map<std::string, std::string>& params, const std::string& name, int fallback) {
  const std::string text = param_or_empty(params, name);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return fallback;
  return std::atoi(text.c_str());
}

}  // namespace pipecheck
