// Helpers the sections of report.html share (see html_parts.hpp).
#include "render/html_parts.hpp"

#include <cstdio>

#include "render/escape.hpp"

namespace pipecheck::html {

std::string h(std::string_view text) { return html_escape(text); }

std::string verdict_class(const Verdict* verdict) {
  return verdict ? std::string("v-") + to_string(*verdict) : "v-none";
}
std::string verdict_class(Verdict verdict) { return verdict_class(&verdict); }

std::string chip(const Verdict* verdict) {
  return "<span class=\"chip " + verdict_class(verdict) + "\">" + (verdict ? to_string(*verdict) : "-") + "</span>";
}
std::string chip(Verdict verdict) { return chip(&verdict); }

std::string fmt(double value, const char* format) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

}  // namespace pipecheck::html
