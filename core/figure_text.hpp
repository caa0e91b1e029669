// Figures in words for the judge, the findings and the budget: one way to print a rate, so
// "52.0 GB/s" reads the same in a verdict, a finding and a budget line.
#pragma once

#include <map>
#include <string>

namespace pipecheck {

// Three significant figures, no exponent: 0.0123, 1.23, 12.3, 123, 12300.
std::string figure(double value);
// figure + " " + unit: "52.0 GB/s", "180 IOPS".
std::string figure(double value, const std::string& unit);
// A ratio with one decimal: "7.0" (for "7.0x slower").
std::string ratio_text(double ratio);
// A figure as written in a profile or on a spec sheet, no padding: "2.5", "16", "70", "0.5".
std::string plain_number(double value);
// A PCIe link speed as sysfs writes it: "2.5", "16", "32".
inline std::string gts_text(double gts) { return plain_number(gts); }
// "4 KiB", "256 MiB", "1.5 KiB": a byte count in binary units (an axis label, a verdict).
std::string bytes_label(double bytes);
// A percentage with one decimal: "85.4%".
std::string percent_text(double percent);
// A param of a measurement, "" when absent.
std::string param_or_empty(const std::map<std::string, std::string>& params, const std::string& name);
// A whole-number param, or `fallback` when absent or not a number.
int int_param(const std::map<std::string, std::string>& params, const std::string& name, int fallback);

}  // namespace pipecheck
