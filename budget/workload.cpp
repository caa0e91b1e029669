// The --workload text: comma-separated key=value; sizes take B, KB, MB, GB (10^3) or KiB, MiB,
// GiB. Every key is optional; each stage of the budget says which key it lacks.
//   bytes=450KB       encoded bytes of one image on disk; a dataset the storage probe read
//                     (--path DIR, or run's --images) gives its own files' sizes instead
//   image=2000x1500   stored image size in pixels; scales a generated corpus's decode rate
//                     (a dataset's own images are measured as they are) and sizes the tensor
//                     when train= is absent
//   train=224x224     the size the loader crops and resizes to: the tensor is 3 x H x W values
//   crop=random-resized  the loader's transform: random-resized (RandomResizedCrop + RandomHorizontal-
//                     Flip, the training default), center (Resize to 8/7 of train, CenterCrop) or
//                     none (a plain resize to train=); what the decode probe measures
//   tensor=float32    float32 (ToTensor + Normalize: 4 bytes a value) or uint8 (PILToTensor; normalise
//                     on the GPU)
//   batch=256         per-GPU batch size          step_ms=120   one training step, milliseconds
//   gpus=8            data-parallel GPUs (default: the GPUs in the inventory, at least 1)
//   workers=8         the data loader's worker processes (num_workers): decode and dataset reads
//                     are taken at this parallelism; `run` measures it (--workers to the probes);
//                     0: the training process loads each batch itself, then steps
//   layout=loose      loose: one file per image (each costs a random access); packed: shards
//                     read sequentially
//   data=nvme0n1      the disk (device name or a path prefix) the dataset is on; default: the
//                     paths given to --path, else the scratch disk
//   python=auto       the training job's python, whose own time per sample the decode probe
//                     measures on tiny JPEGs and the budget adds: a path, auto (python3 on PATH
//                     when it has torch and torchvision) or none
#include "budget/workload.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>

#include "core/errors.hpp"
#include "core/figure_text.hpp"

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

int parse_count(const std::string& key, const std::string& value) {
  if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != std::string::npos) {
    bad(key, value, "a whole number, 0 or more");
  }
  return std::atoi(value.c_str());
}

template <std::size_t N>
std::string one_of_words(const char* const (&names)[N]) {
  std::string text;
  for (std::size_t i = 0; i < N; ++i) text += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + names[i];
  return text;
}

template <std::size_t N>
std::string parse_one_of(const std::string& key, const std::string& value, const char* const (&names)[N]) {
  for (const char* name : names) {
    if (value == name) return value;
  }
  bad(key, value, one_of_words(names));
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
      {"workers", [](Workload& w, const std::string& k, const std::string& v) { w.workers = parse_count(k, v); }},
      {"crop", [](Workload& w, const std::string& k, const std::string& v) { w.crop = parse_one_of(k, v, kCropModes); }},
      {"tensor", [](Workload& w, const std::string& k, const std::string& v) { w.tensor = parse_one_of(k, v, kTensorKinds); }},
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
      {"python",
       [](Workload& w, const std::string& k, const std::string& v) {
         if (v.empty()) bad(k, v, "a path to the training job's python, auto or none");
         w.python = v;
       }},
  };
  return keys;
}

std::string key_list() {
  std::string names;
  for (const auto& [name, setter] : workload_keys()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

}  // namespace

std::string bytes_words(double bytes) {
  if (bytes >= 1e9) return figure(bytes / 1e9, "GB");
  if (bytes >= 1e6) return figure(bytes / 1e6, "MB");
  if (bytes >= 1e3) return figure(bytes / 1e3, "KB");
  return figure(bytes, "B");
}

int tensor_value_bytes(const Workload& workload) { return workload.tensor == "uint8" ? 1 : 4; }

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
  if (workload.step_ms && !workload.batch) throw UsageError("--workload: step_ms= needs batch= (samples per GPU step)");
  return workload;
}

std::string describe(const Workload& w) {
  std::string text = w.image_width ? std::to_string(*w.image_width) + "x" + std::to_string(*w.image_height) + " images"
                                   : std::string("images");
  if (w.bytes_per_image) text += " of " + bytes_words(*w.bytes_per_image);
  if (w.train_width) {
    text += ", trained at " + std::to_string(*w.train_width) + "x" + std::to_string(*w.train_height) + " (crop " + w.crop +
            ", " + w.tensor + " tensors)";
  }
  if (w.batch) text += ", batch " + std::to_string(*w.batch);
  if (w.step_ms) text += ", " + figure(*w.step_ms) + " ms/step";
  if (w.gpus) text += ", " + std::to_string(*w.gpus) + " GPUs";
  if (w.workers) {
    text += *w.workers == 0 ? std::string(", no loader worker (the training process loads)")
                            : ", " + std::to_string(*w.workers) + (*w.workers == 1 ? " loader worker" : " loader workers");
  }
  text += w.loose_files ? ", loose files" : ", packed shards";
  if (!w.data.empty()) text += ", data on " + w.data;
  return text;
}

}  // namespace pipecheck
