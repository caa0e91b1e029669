// Burn rates against their ceilings, from a stress summary.json (see burn_rate_lines.hpp).
#include "render/burn_rate_lines.hpp"

#include <cstdio>

namespace pipecheck {

namespace {

std::string text(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string number(double value, const char* format) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// ", 23% of the sanity bound 384 GFLOP/s = ...; ceiling unknown: why" or ", 62% of the ceiling
// 473.6 GFLOP/s = ...".
std::string against_ceiling(const nlohmann::json& burn) {
  const auto percent = burn.find("percent_of_ceiling");
  const std::string share =
      percent != burn.end() && percent->is_number() ? number(percent->get<double>(), "%.0f") + "% of " : "";
  const auto ceiling = burn.find("ceiling");
  if (ceiling != burn.end() && ceiling->is_object()) return ", " + share + "the ceiling " + text(*ceiling, "derivation");
  std::string line;
  const auto bound = burn.find("sanity_bound");
  if (bound != burn.end() && bound->is_object()) line += ", " + share + "the sanity bound " + text(*bound, "derivation");
  const std::string why = text(burn, "ceiling_unknown");
  if (!why.empty()) line += "; ceiling unknown: " + why;
  return line;
}

std::string verdict(const nlohmann::json& burn) {
  const std::string name = text(burn, "verdict");
  return name.empty() ? "" : " (verdict " + name + ")";
}

}  // namespace

std::vector<std::string> burn_rate_lines(const nlohmann::json& summary) {
  std::vector<std::string> lines;
  const auto cpu = summary.find("cpu");
  if (cpu != summary.end() && cpu->is_object() && cpu->value("enabled", false)) {
    std::string line = "CPU burn, " + std::to_string(cpu->value("threads", 0)) + " threads of " + text(*cpu, "isa") +
                       " " + text(*cpu, "precision") + ": ";
    const auto rate = cpu->find("sustained_gflops");
    if (rate != cpu->end() && rate->is_number()) {
      line += number(rate->get<double>(), "%.1f") + " GFLOP/s" + against_ceiling(*cpu);
    } else {
      line += "no sustained rate";
    }
    lines.push_back(line + verdict(*cpu));
  }
  const auto gpus = summary.find("gpus");
  if (gpus != summary.end() && gpus->is_array()) {
    const std::string dtype = text(summary, "dtype");
    for (const auto& gpu : *gpus) {
      std::string line = "GPU " + std::to_string(gpu.value("index", -1)) + " burn (" + dtype + "): ";
      const auto rate = gpu.find("sustained_tflops");
      if (rate != gpu.end() && rate->is_number()) {
        line += number(rate->get<double>(), "%.1f") + " TFLOP/s" + against_ceiling(gpu);
      } else {
        line += "no sustained rate";
      }
      lines.push_back(line + verdict(gpu));
    }
  }
  return lines;
}

}  // namespace pipecheck
