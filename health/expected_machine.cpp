// Expected-machine files, baselines read as expectations, and the comparison with the inventory.
#include "health/expected_machine.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/json_input.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/json_records.hpp"
#include "core/sysfs.hpp"
#include "inventory/software_stack.hpp"
#include "core/figure_text.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// "80GiB", "80 GiB", "1.5TiB", "81920MiB", "80GB" (decimal), "80G" (as GiB) -> bytes.
std::optional<std::uint64_t> parse_bytes(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!(value > 0) || !std::isfinite(value)) return std::nullopt;
  const std::string unit = trim(text.substr(used));
  static const std::map<std::string, double> units = {
      {"B", 1},          {"KiB", 1024.0},     {"MiB", 1024.0 * 1024}, {"GiB", kGiB},   {"TiB", kGiB * 1024},
      {"K", 1024.0},     {"M", 1024.0 * 1024}, {"G", kGiB},           {"T", kGiB * 1024}, {"KB", 1e3},
      {"MB", 1e6},       {"GB", 1e9},          {"TB", 1e12}};
  const auto it = units.find(unit);
  if (it == units.end()) return std::nullopt;
  return static_cast<std::uint64_t>(value * it->second);
}

// "12.4" -> 12040, "13.0" -> 13000, "13" -> 13000.
std::optional<int> parse_cuda_version(const std::string& text) {
  int major = 0, minor = 0;
  char extra = 0;
  const int fields = std::sscanf(text.c_str(), "%d.%d%c", &major, &minor, &extra);
  if (fields == 1 && text.find('.') == std::string::npos && major > 0) return major * 1000;
  if (fields != 2 || major <= 0 || minor < 0 || minor > 99) return std::nullopt;
  return major * 1000 + minor * 10;
}

std::optional<int> parse_count(const std::string& text, int minimum) {
  std::size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || value < minimum) return std::nullopt;
  return value;
}

std::string gib_text(std::uint64_t bytes) { return figure(bytes / kGiB, "GiB"); }

std::string known_keys() {
  std::string names;
  for (const auto& key : expect_keys()) names += (names.empty() ? "" : ", ") + std::string(key.name);
  return names;
}

void set_key(ExpectedMachine& e, const std::string& key, const std::string& value, const std::string& where) {
  auto bad = [&](const std::string& expected) {
    return UsageError(where + ": " + key + " = " + value + ": expected " + expected);
  };
  if (key == "gpu.count") {
    e.gpu_count = parse_count(value, 0);
    if (!e.gpu_count) throw bad("a whole number of GPUs, 0 or more");
  } else if (key == "gpu.model") {
    if (value.empty()) throw bad("the GPU's name as `pipecheck inventory` shows it");
    e.gpu_model = value;
  } else if (key == "gpu.memory_min") {
    e.gpu_memory_min_bytes = parse_bytes(value);
    if (!e.gpu_memory_min_bytes) throw bad("a size such as 79GiB or 80GB");
  } else if (key == "gpu.pcie_width") {
    e.pcie_width = parse_count(value, 1);
    if (!e.pcie_width || *e.pcie_width > 32) throw bad("lanes, 1 to 32");
  } else if (key == "gpu.pcie_gts") {
    try {
      std::size_t used = 0;
      const double gts = std::stod(value, &used);
      if (used == value.size() && gts > 0 && gts <= 128) e.pcie_gts = gts;
    } catch (const std::exception&) {
    }
    if (!e.pcie_gts) throw bad("GT/s a lane, e.g. 16 (Gen4) or 32 (Gen5)");
  } else if (key == "host.memory_min") {
    e.host_memory_min_bytes = parse_bytes(value);
    if (!e.host_memory_min_bytes) throw bad("a size such as 1900GiB or 2TB");
  } else if (key == "host.cpus") {
    e.cpus = parse_count(value, 1);
    if (!e.cpus) throw bad("a whole number of logical CPUs, 1 or more");
  } else if (key == "driver.version") {
    if (value.empty()) throw bad("the driver version, e.g. 580.65.06");
    e.driver_version = value;
  } else if (key == "cuda.driver_min") {
    e.cuda_driver_min = parse_cuda_version(value);
    if (!e.cuda_driver_min) throw bad("a CUDA version such as 12.4");
  } else {
    throw UsageError(where + ": unknown key '" + key + "' (known: " + known_keys() + ")");
  }
}

HealthProblem fail(const std::string& source, const std::string& subject, const std::string& text) {
  return {Verdict::fail, subject, text + " (expected by " + source + ")"};
}

}  // namespace

const std::vector<ExpectKeySpec>& expect_keys() {
  static const std::vector<ExpectKeySpec> keys = {
      {"gpu.count", "GPUs the driver sees"},
      {"gpu.model", "every GPU's name, as `pipecheck inventory` shows it"},
      {"gpu.memory_min", "each GPU's memory, at least (79GiB, 80GB)"},
      {"gpu.pcie_width", "each GPU's PCIe link width now, lanes"},
      {"gpu.pcie_gts", "each GPU's PCIe link speed at its best, GT/s a lane (16 Gen4, 32 Gen5)"},
      {"host.memory_min", "the host's memory (MemTotal), at least"},
      {"host.cpus", "logical CPUs"},
      {"driver.version", "the NVIDIA driver version, exactly"},
      {"cuda.driver_min", "the CUDA version the driver supports, at least (12.4)"},
  };
  return keys;
}

ExpectedMachine parse_expectations(const std::string& text, const std::string& source) {
  ExpectedMachine expected;
  expected.source = source;
  std::set<std::string> seen;
  std::size_t start = 0;
  int line_number = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    line = trim(line);
    if (line.empty()) continue;
    const std::string where = source + " line " + std::to_string(line_number);
    const auto equals = line.find('=');
    if (equals == std::string::npos) throw UsageError(where + ": expected `key = value`, got '" + line + "'");
    const std::string key = trim(line.substr(0, equals));
    const std::string value = trim(line.substr(equals + 1));
    if (!seen.insert(key).second) throw UsageError(where + ": " + key + " is set twice");
    set_key(expected, key, value, where);
  }
  return expected;
}

ExpectedMachine load_expectations(const fs::path& path) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const std::exception& e) {
    throw UsageError("--expect " + path.string() + ": cannot read: " + e.what());
  }
  return parse_expectations(text, path.string());
}

ExpectedMachine expectations_from_inventory(const Inventory& recorded, const std::string& source) {
  ExpectedMachine e;
  e.source = source;
  e.gpu_count = driver_gpu_count(recorded);
  std::set<std::string> models;
  for (const GpuInfo& gpu : recorded.gpus) {
    if (!seen_by_driver(gpu)) continue;  // recorded on the bus only: not what the node should have
    if (!gpu.name.empty()) models.insert(gpu.name);
    if (gpu.memory_bytes) {
      const auto at_least = static_cast<std::uint64_t>(*gpu.memory_bytes * 0.99);
      e.gpu_memory_min_bytes = std::min(e.gpu_memory_min_bytes.value_or(at_least), at_least);
    }
    if (gpu.pcie.current_width) e.pcie_width = std::min(e.pcie_width.value_or(*gpu.pcie.current_width), *gpu.pcie.current_width);
    if (gpu.pcie.max_gts) e.pcie_gts = std::min(e.pcie_gts.value_or(*gpu.pcie.max_gts), *gpu.pcie.max_gts);
  }
  if (models.size() == 1) e.gpu_model = *models.begin();
  if (recorded.memory.total_bytes.value_or(0) > 0) {
    e.host_memory_min_bytes = static_cast<std::uint64_t>(*recorded.memory.total_bytes * 0.98);
  }
  if (recorded.cpu.logical_cpus.value_or(0) > 0) e.cpus = recorded.cpu.logical_cpus;
  e.driver_version = recorded.software.driver_version;
  e.cuda_driver_min = recorded.software.driver_cuda_version;
  return e;
}

ExpectedMachine load_baseline_expectations(const fs::path& path) {
  const std::string flag = "--baseline " + path.string();
  std::error_code error;
  fs::path file = path;
  if (fs::is_directory(path, error)) file = path / "inventory.json";
  if (!fs::exists(file, error)) throw UsageError(flag + ": no such file (a baseline.json, a run folder or an inventory.json)");
  nlohmann::json document;
  try {
    document = parse_json(read_file(file));
  } catch (const std::exception& e) {
    throw UsageError(flag + ": not JSON: " + e.what());
  }
  const std::string source = "baseline " + file.string();
  try {
    if (document.value("schema", "") == "pipecheck.baseline") {
      if (document.contains("inventory") && document["inventory"].is_object()) {
        return expectations_from_inventory(document["inventory"].get<Inventory>(), source);
      }
      // Recorded before baselines held the inventory: the GPU set of its identity.
      ExpectedMachine e;
      e.source = source;
      const auto gpus = document.value("identity", nlohmann::json::object()).value("gpus", nlohmann::json::array());
      e.gpu_count = static_cast<int>(gpus.size());
      std::set<std::string> models;
      for (const auto& gpu : gpus) models.insert(gpu.value("name", ""));
      if (models.size() == 1 && !models.begin()->empty()) e.gpu_model = *models.begin();
      return e;
    }
    if (document.value("schema", "") == "pipecheck.inventory") {
      return expectations_from_inventory(document.get<Inventory>(), source);  // refuses a newer version
    }
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(flag + ": unreadable inventory: " + e.what());
  }
  throw UsageError(flag + ": neither a baseline.json nor an inventory.json");
}

std::vector<HealthProblem> expectation_problems(const ExpectedMachine& e, const Inventory& found) {
  std::vector<HealthProblem> problems;
  const std::string& src = e.source;
  if (e.gpu_count && driver_gpu_count(found) != *e.gpu_count) {
    problems.push_back(fail(src, "host", std::to_string(driver_gpu_count(found)) + " GPU(s) seen by the driver, " +
                                             std::to_string(*e.gpu_count) + " expected"));
  }
  for (const GpuInfo& gpu : found.gpus) {
    if (!seen_by_driver(gpu)) continue;  // on the bus only: inventory_problems says so
    const std::string subject = "gpu " + gpu.pci_bdf + (gpu.name.empty() ? "" : " (" + gpu.name + ")");
    if (e.gpu_model && gpu.name != *e.gpu_model) {
      problems.push_back(fail(src, subject, "model '" + gpu.name + "', '" + *e.gpu_model + "' expected"));
    }
    if (e.gpu_memory_min_bytes) {
      if (!gpu.memory_bytes) {
        problems.push_back({Verdict::inconclusive, subject, "memory size not reported"});
      } else if (*gpu.memory_bytes < *e.gpu_memory_min_bytes) {
        problems.push_back(fail(src, subject, gib_text(*gpu.memory_bytes) + " of memory, at least " +
                                                  gib_text(*e.gpu_memory_min_bytes) + " expected"));
      }
    }
    if (e.pcie_width) {
      if (!gpu.pcie.current_width) {
        problems.push_back({Verdict::inconclusive, subject, "PCIe link width not reported"});
      } else if (*gpu.pcie.current_width < *e.pcie_width) {
        problems.push_back(fail(src, subject, "PCIe link x" + std::to_string(*gpu.pcie.current_width) + ", x" +
                                                  std::to_string(*e.pcie_width) + " expected"));
      }
    }
    if (e.pcie_gts) {
      if (!gpu.pcie.max_gts) {
        problems.push_back({Verdict::inconclusive, subject, "PCIe link speed not reported"});
      } else if (*gpu.pcie.max_gts + 1e-6 < *e.pcie_gts) {
        problems.push_back(fail(src, subject, "PCIe link at best " + gts_text(*gpu.pcie.max_gts) + " GT/s, " +
                                                  gts_text(*e.pcie_gts) + " GT/s expected"));
      }
    }
  }
  if (e.host_memory_min_bytes) {
    if (!found.memory.total_bytes) {
      problems.push_back({Verdict::inconclusive, "host", "memory size not reported"});
    } else if (*found.memory.total_bytes < *e.host_memory_min_bytes) {
      problems.push_back(fail(src, "host", gib_text(*found.memory.total_bytes) + " of memory, at least " +
                                               gib_text(*e.host_memory_min_bytes) + " expected"));
    }
  }
  if (e.cpus) {
    if (!found.cpu.logical_cpus) {
      problems.push_back({Verdict::inconclusive, "host", "logical CPU count not reported"});
    } else if (*found.cpu.logical_cpus != *e.cpus) {
      problems.push_back(fail(src, "host", std::to_string(*found.cpu.logical_cpus) + " logical CPUs, " +
                                               std::to_string(*e.cpus) + " expected"));
    }
  }
  if (e.driver_version && found.software.driver_version != e.driver_version) {
    problems.push_back(fail(src, "host", "NVIDIA driver " + found.software.driver_version.value_or("none") + ", " +
                                             *e.driver_version + " expected"));
  }
  if (e.cuda_driver_min) {
    const auto& has = found.software.driver_cuda_version;
    if (!has || *has < *e.cuda_driver_min) {
      problems.push_back(fail(src, "host", "the driver supports CUDA " + (has ? format_cuda_version(*has) : "none") +
                                               ", at least " + format_cuda_version(*e.cuda_driver_min) + " expected"));
    }
  }
  return problems;
}

}  // namespace pipecheck
