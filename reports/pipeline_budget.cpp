// The pipeline budget: each stage's measured rate divided by what one sample costs that stage
// (bytes on disk, pixels to decode, tensor bytes to copy, a share of a GPU step), so every
// stage reads in samples/s and the slowest one is the one that bounds training.
//
// --workload keys (comma separated key=value; sizes take B, KB, MB, GB (10^3) or KiB, MiB, GiB):
//   bytes=450KB       encoded bytes of one image on disk (required)
//   image=2000x1500   stored image size in pixels; scales the decode rate from the probe's
//                     images (median_size) and sizes the tensor when train= is absent
//   train=224x224     the size the loader resizes to: the tensor copied is W x H x 3 bytes (uint8
//                     RGB; normalise on the GPU)
//   batch=256         per-GPU batch size          step_ms=120   one training step, milliseconds
//   gpus=8            data-parallel GPUs (default: the GPUs in the inventory, at least 1)
//   layout=loose      loose: one file per image (each costs a random access); packed: shards
//                     read sequentially
//   data=nvme0n1      the disk (device name or a path prefix) the dataset is on; default: the
//                     paths given to --path, else the scratch disk
#include "reports/pipeline_budget.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>

#include "core/errors.hpp"
#include "reports/figure_text.hpp"

namespace pipecheck {

namespace {

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string trim_text(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

[[noreturn]] void bad(const std::string& key, const std::string& value, const std::string& expected) {
  throw UsageError("--workload: " + key + "=" + value + ": expected " + expected);
}

// Size suffixes: decimal as disks are sold, binary as memory is.
struct SizeUnit {
  const char* suffix;
  double bytes;
};
constexpr SizeUnit kSizeUnits[] = {
    {"kib", 1024.0}, {"mib", 1024.0 * 1024}, {"gib", 1024.0 * 1024 * 1024},
    {"kb", 1e3},     {"mb", 1e6},            {"gb", 1e9},
    {"k", 1e3},      {"m", 1e6},             {"b", 1},
};

double parse_size_value(const std::string& key, const std::string& value) {
  const std::string text = lower(value);
  const auto digits_end = text.find_first_not_of("0123456789.");
  const std::string number = text.substr(0, digits_end);
  const std::string suffix = digits_end == std::string::npos ? "" : trim_text(text.substr(digits_end));
  double scale = suffix.empty() ? 1 : 0;
  for (const auto& unit : kSizeUnits) {
    if (suffix == unit.suffix) scale = unit.bytes;
  }
  char* end = nullptr;
  const double figure_value = number.empty() ? 0 : std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || scale == 0 || figure_value <= 0) {
    bad(key, value, "a size like 450KB, 1.2MB or 300KiB");
  }
  return figure_value * scale;
}

int parse_positive(const std::string& key, const std::string& value) {
  if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != std::string::npos ||
      std::atoi(value.c_str()) <= 0) {
    bad(key, value, "a whole number above 0");
  }
  return std::atoi(value.c_str());
}

double parse_milliseconds(const std::string& key, const std::string& value) {
  char* end = nullptr;
  const double ms = value.empty() ? 0 : std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !(ms > 0) || !std::isfinite(ms)) {
    bad(key, value, "milliseconds above 0, like 120 or 85.5");
  }
  return ms;
}

std::pair<int, int> parse_size_wxh(const std::string& key, const std::string& value) {
  const auto x = lower(value).find('x');
  if (x == std::string::npos) bad(key, value, "WIDTHxHEIGHT in pixels, like 2000x1500");
  const std::string w = value.substr(0, x), h = value.substr(x + 1);
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.size() < 7 && s.find_first_not_of("0123456789") == std::string::npos && std::atoi(s.c_str()) > 0;
  };
  if (!digits(w) || !digits(h)) bad(key, value, "WIDTHxHEIGHT in pixels, like 2000x1500");
  return {std::atoi(w.c_str()), std::atoi(h.c_str())};
}

// The workload keys: name -> how its value lands in the record.
using KeySetter = std::function<void(Workload&, const std::string& key, const std::string& value)>;
const std::map<std::string, KeySetter>& workload_keys() {
  static const std::map<std::string, KeySetter> keys = {
      {"bytes", [](Workload& w, const std::string& k, const std::string& v) { w.bytes_per_image = parse_size_value(k, v); }},
      {"image",
       [](Workload& w, const std::string& k, const std::string& v) {
         const auto [width, height] = parse_size_wxh(k, v);
         w.image_width = width;
         w.image_height = height;
       }},
      {"train",
       [](Workload& w, const std::string& k, const std::string& v) {
         const auto [width, height] = parse_size_wxh(k, v);
         w.train_width = width;
         w.train_height = height;
       }},
      {"batch", [](Workload& w, const std::string& k, const std::string& v) { w.batch = parse_positive(k, v); }},
      {"step_ms", [](Workload& w, const std::string& k, const std::string& v) { w.step_ms = parse_milliseconds(k, v); }},
      {"gpus", [](Workload& w, const std::string& k, const std::string& v) { w.gpus = parse_positive(k, v); }},
      {"layout",
       [](Workload& w, const std::string& k, const std::string& v) {
         if (v != "loose" && v != "packed") bad(k, v, "loose (one file per image) or packed (shards)");
         w.loose_files = v == "loose";
       }},
      {"data",
       [](Workload& w, const std::string& k, const std::string& v) {
         if (v.empty()) bad(k, v, "a device name (nvme0n1) or a path");
         w.data = v;
       }},
  };
  return keys;
}

std::string key_list() {
  std::string names;
  for (const auto& [name, setter] : workload_keys()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

std::string bytes_words(double bytes) {
  if (bytes >= 1e9) return figure(bytes / 1e9, "GB");
  if (bytes >= 1e6) return figure(bytes / 1e6, "MB");
  if (bytes >= 1e3) return figure(bytes / 1e3, "KB");
  return figure(bytes, "B");
}

std::string rate_words(double samples) { return figure(samples, "samples/s"); }

std::string param(const Measurement& m, const std::string& name) { return param_or_empty(m.params, name); }

std::vector<const Measurement*> measurements_of(const Report& report, const std::string& stage) {
  std::vector<const Measurement*> found;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) {
      if (m.stage == stage) found.push_back(&m);
    }
  }
  return found;
}

// Bytes of the tensor one sample becomes: W x H x 3 (uint8 RGB) at the training size.
std::optional<double> tensor_bytes(const Workload& w) {
  if (w.train_width) return 3.0 * *w.train_width * *w.train_height;
  if (w.image_width) return 3.0 * *w.image_width * *w.image_height;
  return std::nullopt;
}

std::string tensor_words(const Workload& w) {
  const bool train = w.train_width.has_value();
  const int width = train ? *w.train_width : w.image_width.value_or(0);
  const int height = train ? *w.train_height : w.image_height.value_or(0);
  return std::to_string(width) + "x" + std::to_string(height) + "x3 = " + bytes_words(3.0 * width * height) + " per tensor";
}

struct Context {
  const Report& report;
  const Inventory& inventory;
  const Workload& workload;
};

BudgetStage unmeasured(const std::string& stage, const std::string& why) { return {stage, std::nullopt, why}; }

// Storage: which measurements describe the disk the data is on (see `data=` above).
std::vector<const Measurement*> data_disk_measurements(const Context& c) {
  const auto all = measurements_of(c.report, "storage");
  std::vector<const Measurement*> chosen;
  for (const Measurement* m : all) {
    const bool named = !c.workload.data.empty() &&
                       (param(*m, "device") == c.workload.data || param(*m, "path").rfind(c.workload.data, 0) == 0);
    const bool user_path = c.workload.data.empty() && param(*m, "target") != "scratch_file";
    if (named || user_path) chosen.push_back(m);
  }
  if (chosen.empty() && c.workload.data.empty()) return all;
  return chosen;
}

// The best figure of a pattern on one device (the disk at its best settings).
const Measurement* best_of(const std::vector<const Measurement*>& ms, const std::string& device,
                           std::initializer_list<const char*> patterns) {
  const Measurement* best = nullptr;
  for (const Measurement* m : ms) {
    if (param(*m, "device") != device) continue;
    const std::string pattern = param(*m, "pattern");
    if (std::none_of(patterns.begin(), patterns.end(), [&](const char* p) { return pattern == p; })) continue;
    if (!best || m->stats.median > best->stats.median) best = m;
  }
  return best;
}

std::optional<double> iops_of(const Measurement& m) {
  if (m.unit == "IOPS") return m.stats.median;
  const int bs = int_param(m.params, "bs", 0);
  if (m.unit == "GB/s" && bs > 0) return m.stats.median * 1e9 / bs;
  return std::nullopt;
}

// One device's samples/s: whole-file dataset reads when measured (loose files, as a loader
// reads them); else the sequential rate, and for loose files no more than one file per random
// access the disk can make.
std::optional<BudgetStage> storage_on(const std::vector<const Measurement*>& ms, const std::string& device, const Workload& w) {
  const double bytes = w.bytes_per_image;
  const std::string per = " / " + bytes_words(bytes) + " per image";
  if (w.loose_files) {
    if (const Measurement* dataset = best_of(ms, device, {"dataset_read", "dataset"}); dataset && dataset->unit == "GB/s") {
      const double rate = dataset->stats.median * 1e9 / bytes;
      return BudgetStage{"storage", rate,
                         device + ": whole-file reads " + figure(dataset->stats.median, "GB/s") + per + " = " + rate_words(rate)};
    }
  }
  const Measurement* seq = best_of(ms, device, {"seq_read", "seq"});
  if (!seq || seq->unit != "GB/s") return std::nullopt;
  const double streamed = seq->stats.median * 1e9 / bytes;
  std::string derivation = device + ": sequential " + figure(seq->stats.median, "GB/s") + per + " = " + rate_words(streamed);
  double rate = streamed;
  if (w.loose_files) {
    const Measurement* rand = best_of(ms, device, {"rand_read", "rand"});
    const auto iops = rand ? iops_of(*rand) : std::nullopt;
    if (iops) {
      derivation += "; loose files need a random access each: " + figure(*iops, "IOPS");
      if (*iops < rate) {
        rate = *iops;
        derivation += " bounds it";
      }
    } else {
      derivation += " (no random-read figure: loose files may be slower)";
    }
  }
  return BudgetStage{"storage", rate, derivation};
}

BudgetStage storage_stage(const Context& c) {
  const auto ms = data_disk_measurements(c);
  std::vector<std::string> devices;
  for (const Measurement* m : ms) {
    if (std::find(devices.begin(), devices.end(), param(*m, "device")) == devices.end()) devices.push_back(param(*m, "device"));
  }
  std::optional<BudgetStage> slowest;
  for (const auto& device : devices) {
    auto one = storage_on(ms, device, c.workload);
    if (one && (!slowest || *one->samples_per_second < *slowest->samples_per_second)) slowest = std::move(one);
  }
  if (!slowest) {
    return unmeasured("storage", c.workload.data.empty() ? "no sequential or dataset read measured"
                                                         : "no storage measurement on " + c.workload.data);
  }
  if (devices.size() > 1) slowest->derivation += " (slowest of " + std::to_string(devices.size()) + " disks measured)";
  return *slowest;
}

std::optional<std::pair<int, int>> dimensions(const std::string& text) {
  const auto x = text.find('x');
  if (x == std::string::npos) return std::nullopt;
  const int w = std::atoi(text.substr(0, x).c_str()), h = std::atoi(text.substr(x + 1).c_str());
  if (w <= 0 || h <= 0) return std::nullopt;
  return std::pair<int, int>{w, h};
}

// Decode at all threads measured, the resize case (what a loader does), baseline JPEGs; the
// rate scales by pixels from the probe's images to the workload's.
BudgetStage decode_stage(const Context& c) {
  const Measurement* chosen = nullptr;
  for (const char* wanted : {"resize", "full"}) {
    for (const Measurement* m : measurements_of(c.report, "decode")) {
      const std::string op = param(*m, "op").empty() ? param(*m, "case") : param(*m, "op");
      if (op != wanted || m->unit != "images/s" || param(*m, "set") == "progressive") continue;
      if (!chosen || int_param(m->params, "threads", 0) > int_param(chosen->params, "threads", 0)) chosen = m;
    }
    if (chosen) break;
  }
  if (!chosen) return unmeasured("decode", "no decode measurement (resize or full)");
  const int threads = int_param(chosen->params, "threads", 0);
  double rate = chosen->stats.median;
  std::string derivation = chosen->what + ": " + figure(rate, "images/s") + " at " + std::to_string(threads) +
                           (threads == 1 ? " thread" : " threads");
  const auto measured = dimensions(param(*chosen, "median_size"));
  if (measured && c.workload.image_width) {
    const double probe_pixels = double(measured->first) * measured->second;
    const double workload_pixels = double(*c.workload.image_width) * *c.workload.image_height;
    rate *= probe_pixels / workload_pixels;
    derivation += " on " + param(*chosen, "median_size") + " images, x " + figure(probe_pixels / 1e6) + " / " +
                  figure(workload_pixels / 1e6) + " Mpixel = " + rate_words(rate);
  } else {
    derivation += " = " + rate_words(rate) + " (at the probe's image size" +
                  (c.workload.image_width ? std::string(", which it did not report") : std::string(": give image= to scale")) + ")";
  }
  return {"decode", rate, derivation};
}

// Host memory: decoded tensors are copied at least once (collate, pin); memcpy's figure counts
// bytes read and written, so bytes copied are half of it.
BudgetStage hostmem_stage(const Context& c) {
  const auto bytes = tensor_bytes(c.workload);
  if (!bytes) return unmeasured("hostmem", "give image= or train= to size the tensor");
  const Measurement* most = nullptr;
  for (const Measurement* m : measurements_of(c.report, "hostmem")) {
    if (param(*m, "op") != "memcpy" || m->unit != "GB/s") continue;
    if (!most || int_param(m->params, "threads", 0) > int_param(most->params, "threads", 0)) most = m;
  }
  if (!most) return unmeasured("hostmem", "no host memcpy measured");
  const double copied = most->stats.median / 2;
  const double rate = copied * 1e9 / *bytes;
  return {"hostmem", rate,
          "memcpy " + figure(most->stats.median, "GB/s") + " (read + write) at " + param(*most, "threads") +
              " threads = " + figure(copied, "GB/s") + " copied / " + tensor_words(c.workload) + " = " + rate_words(rate)};
}

int gpu_count(const Context& c) {
  if (c.workload.gpus) return *c.workload.gpus;
  return std::max<int>(1, static_cast<int>(c.inventory.gpus.size()));
}

// PCIe: every GPU must receive its batch each step, so the slowest GPU's pinned H2D bounds each
// GPU's share; the machine moves n times that.
BudgetStage pcie_stage(const Context& c) {
  const auto bytes = tensor_bytes(c.workload);
  if (!bytes) return unmeasured("pcie", "give image= or train= to size the tensor");
  std::map<std::string, double> best_per_gpu;
  for (const Measurement* m : measurements_of(c.report, "pcie")) {
    if (m->unit != "GB/s" || param(*m, "direction") != "h2d" || param(*m, "host_memory") != "pinned" ||
        param(*m, "numa") == "remote") {
      continue;
    }
    double& best = best_per_gpu[param(*m, "gpu_bdf") + "|" + param(*m, "gpu")];
    best = std::max(best, m->stats.median);
  }
  if (best_per_gpu.empty()) return unmeasured("pcie", "no pinned H2D copy measured");
  double slowest = best_per_gpu.begin()->second;
  for (const auto& [gpu, gbps] : best_per_gpu) slowest = std::min(slowest, gbps);
  const int gpus = gpu_count(c);
  const double rate = gpus * slowest * 1e9 / *bytes;
  return {"pcie", rate,
          std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s") + " x pinned H2D " + figure(slowest, "GB/s") +
              (best_per_gpu.size() > 1 ? " (slowest GPU)" : "") + " / " + tensor_words(c.workload) + " = " + rate_words(rate)};
}

BudgetStage gpu_stage(const Context& c) {
  if (!c.workload.batch || !c.workload.step_ms) return unmeasured("gpu_step", "give batch= and step_ms= for the GPU's rate");
  const int gpus = gpu_count(c);
  const double rate = gpus * *c.workload.batch / (*c.workload.step_ms / 1000);
  return {"gpu_step", rate,
          std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s") + " x batch " + std::to_string(*c.workload.batch) + " / " +
              figure(*c.workload.step_ms) + " ms per step = " + rate_words(rate)};
}

// In the order data flows.
using StageBudget = BudgetStage (*)(const Context&);
constexpr StageBudget kStages[] = {storage_stage, decode_stage, hostmem_stage, pcie_stage, gpu_stage};

}  // namespace

Workload parse_workload(const std::string& text) {
  Workload workload;
  workload.text = text;
  std::map<std::string, bool> seen;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    item = trim_text(item);
    if (item.empty()) continue;
    const auto equals = item.find('=');
    if (equals == std::string::npos) throw UsageError("--workload: '" + item + "': expected key=value (keys: " + key_list() + ")");
    const std::string key = trim_text(item.substr(0, equals));
    const std::string value = trim_text(item.substr(equals + 1));
    const auto setter = workload_keys().find(key);
    if (setter == workload_keys().end()) {
      throw UsageError("--workload: unknown key '" + key + "' (keys: " + key_list() + ")");
    }
    if (seen[key]) throw UsageError("--workload: " + key + " given twice");
    seen[key] = true;
    setter->second(workload, key, value);
  }
  if (workload.bytes_per_image <= 0) {
    throw UsageError("--workload: bytes= is required (encoded bytes per image, like bytes=450KB)");
  }
  if (workload.step_ms && !workload.batch) throw UsageError("--workload: step_ms= needs batch= (samples per GPU step)");
  return workload;
}

std::string describe(const Workload& w) {
  std::string text = w.image_width ? std::to_string(*w.image_width) + "x" + std::to_string(*w.image_height) + " images"
                                   : std::string("images");
  text += " of " + bytes_words(w.bytes_per_image);
  if (w.train_width) text += ", trained at " + std::to_string(*w.train_width) + "x" + std::to_string(*w.train_height);
  if (w.batch) text += ", batch " + std::to_string(*w.batch);
  if (w.step_ms) text += ", " + figure(*w.step_ms) + " ms/step";
  if (w.gpus) text += ", " + std::to_string(*w.gpus) + " GPUs";
  text += w.loose_files ? ", loose files" : ", packed shards";
  if (!w.data.empty()) text += ", data on " + w.data;
  return text;
}

PipelineBudget pipeline_budget(const Report& report, const Inventory& inventory, const Workload& workload) {
  PipelineBudget budget;
  budget.workload = describe(workload);
  const Context context{report, inventory, workload};
  for (StageBudget stage : kStages) budget.stages.push_back(stage(context));
  const BudgetStage* bound = nullptr;
  const BudgetStage* gpu = nullptr;
  std::string figures;
  for (const auto& stage : budget.stages) {
    if (stage.stage == "gpu_step" && stage.samples_per_second) gpu = &stage;
    if (!stage.samples_per_second) continue;
    figures += (figures.empty() ? "" : ", ") + stage.stage + " " + figure(*stage.samples_per_second);
    if (!bound || *stage.samples_per_second < *bound->samples_per_second) bound = &stage;
  }
  if (!bound) {
    budget.explanation = "no stage could be expressed in samples/s: nothing measured applies to this workload";
    return budget;
  }
  budget.bounding_stage = bound->stage;
  budget.explanation = "training is bounded by " + bound->stage + " at " + rate_words(*bound->samples_per_second) +
                       " (samples/s: " + figures + ")";
  if (gpu && bound != gpu) {
    budget.explanation += "; the GPUs could take " + rate_words(*gpu->samples_per_second) + ", so they would wait " +
                          percent_text(100 * (1 - *bound->samples_per_second / *gpu->samples_per_second)) +
                          " of the time";
  } else if (gpu) {
    budget.explanation += "; the input pipeline keeps up with the GPUs";
  } else {
    budget.explanation += "; give batch= and step_ms= to compare with the GPU";
  }
  std::string missing;
  for (const auto& stage : budget.stages) {
    if (!stage.samples_per_second) missing += (missing.empty() ? "" : ", ") + stage.stage;
  }
  if (!missing.empty()) budget.explanation += "; not measured here: " + missing;
  return budget;
}

}  // namespace pipecheck
