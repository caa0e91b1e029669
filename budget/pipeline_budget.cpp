// The pipeline budget: each stage's measured rate divided by what one sample costs that stage
// (a file read, an image decoded and resized, tensor bytes to copy, a share of a GPU step), so
// every stage reads in samples/s and the slowest one is the one that bounds training. The
// --workload keys are in budget/workload.cpp; the decode stage's mix in budget_decode.cpp.
#include "budget/pipeline_budget.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>

#include "budget/budget_decode.hpp"
#include "core/figure_text.hpp"
#include "core/stage_names.hpp"

namespace pipecheck {

namespace {

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

// Bytes of the tensor one sample becomes: 3 x W x H values at the training size, 4 bytes each
// for float32 (ToTensor + Normalize), 1 for uint8 (tensor=, budget/workload.cpp).
std::optional<double> tensor_bytes(const Workload& w) {
  const double value = tensor_value_bytes(w);
  if (w.train_width) return 3.0 * value * *w.train_width * *w.train_height;
  if (w.image_width) return 3.0 * value * *w.image_width * *w.image_height;
  return std::nullopt;
}

std::string tensor_words(const Workload& w) {
  const bool train = w.train_width.has_value();
  const int width = train ? *w.train_width : w.image_width.value_or(0);
  const int height = train ? *w.train_height : w.image_height.value_or(0);
  return std::to_string(width) + "x" + std::to_string(height) + "x3 " + w.tensor + " = " +
         bytes_words(3.0 * tensor_value_bytes(w) * width * height) + " per tensor";
}

struct Context {
  const Report& report;
  const Inventory& inventory;
  const Workload& workload;
};

BudgetStage unmeasured(const std::string& stage, const std::string& why) { return {stage, std::nullopt, why}; }

// Storage: which measurements describe the disk the data is on (`data=`, budget/workload.cpp).
std::vector<const Measurement*> data_disk_measurements(const Context& c) {
  const auto all = measurements_of(c.report, stage_name::storage);
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
    if (param(*m, "device") != device || m->unit != "GB/s") continue;
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

std::string threads_words(int threads, const char* one, const char* many) {
  return std::to_string(threads) + " " + (threads == 1 ? one : many);
}

// Bytes per file of a dataset read: those the case's passes read, else the dataset's mean.
std::optional<double> file_bytes_of(const Measurement& m) {
  const double read = std::atof(param(m, "mean_file_bytes").c_str());
  if (read > 0) return read;
  const double size = std::atof(param(m, "size_bytes").c_str());
  const int files = int_param(m.params, "files", 0);
  if (size > 0 && files > 0) return size / files;
  return std::nullopt;
}

// The loader's own reads of the dataset: whole files, cold, through the page cache, by its
// workers (dataset_read_workers; one worker is pread_baseline). Taken at workers= when
// measured, else at the nearest count below it (the fewest when none is below); without
// workers=, at the most workers measured.
const Measurement* loader_read(const std::vector<const Measurement*>& ms, const std::string& device, const Workload& w,
                               std::string& note) {
  std::map<int, const Measurement*> by_workers;
  for (const Measurement* m : ms) {
    const std::string pattern = param(*m, "pattern");
    const bool loader = pattern == "dataset_read_workers" || (pattern == "pread_baseline" && param(*m, "target") == "directory");
    if (!loader || param(*m, "device") != device || m->unit != "GB/s" || m->stats.median <= 0) continue;
    by_workers[int_param(m->params, "threads", 1)] = m;
  }
  if (by_workers.empty()) return nullptr;
  if (!w.workers) return by_workers.rbegin()->second;
  if (const auto it = by_workers.find(*w.workers); it != by_workers.end()) return it->second;
  const auto above = by_workers.upper_bound(*w.workers);
  const Measurement* chosen = above == by_workers.begin() ? above->second : std::prev(above)->second;
  note = " (" + threads_words(*w.workers, "worker", "workers") + " not measured: pipecheck run --workload workers=" +
         std::to_string(*w.workers) + " measures them)";
  return chosen;
}

// One device's samples/s. A dataset that was read gives files/s itself (its own sizes, cold,
// at the loader's parallelism). Otherwise bytes= turns GB/s into images: the cold read through
// the page cache where measured (what a loader gets), else O_DIRECT; and for loose files no
// more than one file per random access the disk can make.
std::optional<BudgetStage> storage_on(const std::vector<const Measurement*>& ms, const std::string& device, const Workload& w) {
  if (w.loose_files) {
    std::string note;
    if (const Measurement* loader = loader_read(ms, device, w, note)) {
      if (const auto bytes = file_bytes_of(*loader)) {
        const double files = loader->stats.median * 1e9 / *bytes;
        std::string derivation = param(*loader, "path") + " on " + device + ": whole files read cold by " +
                                 threads_words(int_param(loader->params, "threads", 1), "worker", "workers") +
                                 " (pread, page cache): " + figure(files, "files/s") + ", " +
                                 figure(loader->stats.median * 1000, "MB/s") + " (" + bytes_words(*bytes) +
                                 " per file) = " + rate_words(files) + note;
        if (const Measurement* queued = best_of(ms, device, {"dataset_read", "dataset_read_buffered_cold"});
            queued && queued->stats.median > 1.2 * loader->stats.median) {
          derivation += "; " + param(*queued, "qd") + " reads in flight gave " + figure(queued->stats.median * 1000, "MB/s") +
                        " (" + figure(queued->stats.median * 1e9 / *bytes, "files/s") +
                        "): more workers or prefetch would read faster";
        }
        return BudgetStage{stage_name::storage, files, derivation};
      }
    }
  }
  if (!w.bytes_per_image) return std::nullopt;
  const double bytes = *w.bytes_per_image;
  const std::string per = " / " + bytes_words(bytes) + " per image";
  if (w.loose_files) {
    if (const Measurement* dataset = best_of(ms, device, {"dataset_read_buffered_cold", "dataset_read", "dataset"})) {
      const double rate = dataset->stats.median * 1e9 / bytes;
      return BudgetStage{stage_name::storage, rate, device + ": whole-file reads (" + dataset->what + ") " +
                                              figure(dataset->stats.median, "GB/s") + per + " = " + rate_words(rate)};
    }
  }
  const Measurement* cold = best_of(ms, device, {"seq_read_buffered_cold"});
  const Measurement* direct = best_of(ms, device, {"seq_read", "seq"});
  const Measurement* seq = cold ? cold : direct;
  if (!seq) return std::nullopt;
  const double streamed = seq->stats.median * 1e9 / bytes;
  std::string derivation = device + ": sequential " + (cold ? "cold through the page cache, as a loader reads, " : "O_DIRECT ") +
                           figure(seq->stats.median, "GB/s") + per + " = " + rate_words(streamed);
  if (cold && direct) derivation += " (O_DIRECT: " + figure(direct->stats.median, "GB/s") + ")";
  if (param(*seq, "target") == "scratch_file") {
    derivation += " (the probe's scratch file: the disk, not the dataset; --path DATASET_DIR reads the dataset itself)";
  }
  double rate = streamed;
  if (w.loose_files) {
    const Measurement* rand = nullptr;
    for (const Measurement* m : ms) {
      const std::string pattern = param(*m, "pattern");
      if (param(*m, "device") == device && (pattern == "rand_read" || pattern == "rand") && iops_of(*m) &&
          (!rand || *iops_of(*m) > *iops_of(*rand))) {
        rand = m;
      }
    }
    if (rand) {
      derivation += "; loose files need a random access each: " + figure(*iops_of(*rand), "IOPS");
      if (*iops_of(*rand) < rate) {
        rate = *iops_of(*rand);
        derivation += " bounds it";
      }
    } else {
      derivation += " (no random-read figure: loose files may be slower)";
    }
  }
  return BudgetStage{stage_name::storage, rate, derivation};
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
    if (!c.workload.bytes_per_image && !ms.empty()) {
      return unmeasured(stage_name::storage, "no dataset was read (--path DATASET_DIR): give bytes= (encoded bytes per image) to turn "
                                   "the disk's GB/s into samples/s");
    }
    return unmeasured(stage_name::storage, c.workload.data.empty() ? "no sequential or dataset read measured"
                                                         : "no storage measurement on " + c.workload.data);
  }
  if (devices.size() > 1) slowest->derivation += " (slowest of " + std::to_string(devices.size()) + " disks measured)";
  return *slowest;
}

BudgetStage decode_stage(const Context& c) { return decode_stage_of(measurements_of(c.report, stage_name::decode), c.workload); }

// Host memory: decoded tensors are copied at least once (collate, pin); memcpy's figure counts
// bytes read and written, so bytes copied are half of it.
BudgetStage hostmem_stage(const Context& c) {
  const auto bytes = tensor_bytes(c.workload);
  if (!bytes) return unmeasured(stage_name::hostmem, "give image= or train= to size the tensor");
  const Measurement* most = nullptr;
  for (const Measurement* m : measurements_of(c.report, stage_name::hostmem)) {
    if (param(*m, "op") != "memcpy" || m->unit != "GB/s") continue;
    if (!most || int_param(m->params, "threads", 0) > int_param(most->params, "threads", 0)) most = m;
  }
  if (!most) return unmeasured(stage_name::hostmem, "no host memcpy measured");
  const double copied = most->stats.median / 2;
  const double rate = copied * 1e9 / *bytes;
  return {stage_name::hostmem, rate,
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
  if (!bytes) return unmeasured(stage_name::pcie, "give image= or train= to size the tensor");
  std::map<std::string, double> best_per_gpu;
  for (const Measurement* m : measurements_of(c.report, stage_name::pcie)) {
    if (m->unit != "GB/s" || param(*m, "direction") != "h2d" || param(*m, "host_memory") != "pinned" ||
        param(*m, "numa") == "remote") {
      continue;
    }
    double& best = best_per_gpu[param(*m, "gpu_bdf") + "|" + param(*m, "gpu")];
    best = std::max(best, m->stats.median);
  }
  if (best_per_gpu.empty()) return unmeasured(stage_name::pcie, "no pinned H2D copy measured");
  double slowest = best_per_gpu.begin()->second;
  for (const auto& [gpu, gbps] : best_per_gpu) slowest = std::min(slowest, gbps);
  const int gpus = gpu_count(c);
  const double rate = gpus * slowest * 1e9 / *bytes;
  return {stage_name::pcie, rate,
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
  if (bound->stage == stage_name::decode) {
    if (const DecodeMix mixed = decode_mix(measurements_of(report, stage_name::decode), workload); mixed.dct) {
      budget.explanation += "; with DCT scaling (Pillow draft, DALI, OpenCV IMREAD_REDUCED) decode would give " +
                            rate_words(*mixed.dct);
    }
  }
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
