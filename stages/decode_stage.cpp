// The decode stage: CPU JPEG decode (and resize) throughput, nvJPEG where present (decode/).
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "budget/workload.hpp"
#include "core/stage_names.hpp"
#include "decode/jpeg_scaling.hpp"
#include "stages/stage_rules.hpp"
#include "stages/stages.hpp"

namespace pipecheck {

namespace {

using namespace stage_rules;

// "decode/full/threads:8" -> "decode/full/threads:1".
std::string one_thread_key(const std::string& key) {
  const auto at = key.rfind("threads:");
  if (at == std::string::npos) return "";
  const auto end = key.find('/', at);
  return key.substr(0, at) + "threads:1" + (end == std::string::npos ? "" : key.substr(end));
}

// The loader's costs in one process (a batch's hand-over, the job's own python): no N-thread
// sibling scales from them; the budget reads them as time a sample.
bool is_loader_cost(const Measurement& m) {
  const std::string op = param(m, "op");
  return op == "handover" || op == "interpreter" || op == "interpreter_main";
}

constexpr const char* kLoaderCostWords =
    "a cost a sample of the loader's path in one process, which the budget reads; no N-thread rate scales from it";

// CPU decode has no hardware figure; an N-thread rate is held against N x the 1-thread rate
// (perfect scaling), so the percentage is the scaling efficiency.
CeilingResult decode_ceiling(const Measurement& m, const Inventory&, const Siblings& siblings) {
  if (is_loader_cost(m)) return CeilingResult::unknown(std::string("no hardware ceiling: ") + kLoaderCostWords);
  const std::string threads_text = param(m, "threads");
  const int threads = threads_text.empty() ? 0 : std::atoi(threads_text.c_str());
  if (threads <= 1) {
    return CeilingResult::unknown("no hardware ceiling for CPU decode; the 1-thread rate is the per-core reference");
  }
  const Measurement* other = siblings.find(one_thread_key(m.key));
  if (other != nullptr && other->unit == m.unit && other->stats.median > 0) {
    const double value = threads * other->stats.median;
    char text[200];
    std::snprintf(text, sizeof text, "%.1f %s = %d threads x %.1f %s (1-thread median): perfect scaling",
                  value, m.unit.c_str(), threads, other->stats.median, m.unit.c_str());
    return CeilingResult::known({value, m.unit, "linear scaling", text});
  }
  return CeilingResult::unknown("no 1-thread measurement to scale from");
}

StageChecks decode_checks(const Measurement& m, const StageContext& context) {
  if (is_loader_cost(m)) return not_judged(kLoaderCostWords);
  const int threads = int_param(m.params, "threads", 0);
  if (threads <= 1) return not_judged("the 1-thread rate is the reference the others scale from");
  const int cores = context.inventory.cpu.physical_cores.value_or(0);
  if (cores > 0 && threads > cores) {
    return not_judged(std::to_string(threads) + " threads exceed the " + std::to_string(cores) +
                      " physical cores: SMT threads share a core, so scaling is not judged");
  }
  return percent_check("decode.scaling_efficiency_min_percent");
}

std::vector<std::string> decode_arguments(const StageRunInputs& run) {
  std::vector<std::string> args;
  if (!run.images_dir.empty()) args.push_back("--images=" + run.images_dir);
  if (!run.decode_size.empty()) args.push_back("--size=" + run.decode_size);
  // The loader's parallelism (--workload workers=N) is measured, so the budget reads it; with
  // workers=0 the training process loads, at one thread, which is always measured.
  if (run.workers && *run.workers > 0) args.push_back("--workers=" + std::to_string(*run.workers));
  // The loader's path: what it crops and resizes to, how, the tensor, the batch handed over.
  if (!run.workload.empty()) {
    const Workload w = parse_workload(run.workload);  // `run` refused bad text before any probe
    if (w.train_width) args.push_back("--train-size=" + std::to_string(*w.train_width) + "x" + std::to_string(*w.train_height));
    args.push_back("--crop=" + w.crop);
    args.push_back("--tensor=" + w.tensor);
    if (w.batch) args.push_back("--batch=" + std::to_string(*w.batch));
    args.push_back("--python=" + w.python);  // the job's own interpreter time a sample
    args.push_back("--budget=yes");  // the budget reads the loader's figures: hold them to the noise target
  }
  return args;
}

}  // namespace

StageSpec decode_stage() {
  StageSpec s;
  s.name = stage_name::decode;
  s.title = "CPU JPEG decode";
  s.description =
      "CPU JPEG decode (TurboJPEG): full, DCT-scaled 1/2 1/4, the loader's path (decode, crop + resize, "
      "tensor; plain and DCT-scaled); 1 thread to all cores; a batch's hand-over between processes; nvJPEG when present";
  s.executable = "pipecheck-decode";
  s.planned_cases = [](const Inventory& inventory, ProbeMode mode) {
    // The generated corpus: five operations on baseline JPEGs, three on progressive ones (the
    // loader's path with and without DCT scaling), at the mode's thread counts; the batch
    // hand-over; the nvJPEG case.
    std::vector<std::string> names;
    const std::vector<std::string> ops = {"full", "loader", "loader_dct", "dct_1_2", "dct_1_4", "full_progressive",
                                          "loader_progressive", "loader_dct_progressive"};
    for (const auto& op : ops) {
      for (int threads : default_thread_counts(inventory.cpu.logical_cpus.value_or(1), mode)) {
        names.push_back("decode/" + op + "/real_time/threads:" + std::to_string(threads));
      }
    }
    names.push_back("decode/handover/real_time");   // a batch from a worker process to the trainer
    names.push_back("decode/nvjpeg/iterations:1");  // listed even where it skips itself (no nvJPEG)
    return names;
  };
  s.probe_arguments = decode_arguments;
  s.probe_checks_inputs = true;
  s.ceiling = [](const Measurement& m, const StageContext& c) { return decode_ceiling(m, c.inventory, c.siblings); };
  // CPU decode is held against linear scaling, a reference, not hardware; GPU decode has no figure.
  s.physical = [](const Measurement&, const Inventory&, const Inventory&) { return std::optional<Ceiling>{}; };
  s.checks = decode_checks;
  s.profile_text = R"(# CPU JPEG decode (stage decode): N-thread rate as % of N x the 1-thread rate, judged only up
# to the physical core count (SMT threads share a core).
decode.scaling_efficiency_min_percent = 60
)";
  s.profile_keys = {
      {"decode.scaling_efficiency_min_percent", ProfileValueKind::percent, "JPEG decode, N threads vs N x 1 thread, min %"},
  };
  s.advice =
      "Check the CPU governor (performance), that nothing else runs on the cores and that the process is not "
      "limited to a few CPUs (cgroup quota, taskset); compare one thread with tjbench. Too slow for the "
      "workload: decode on the GPU (nvJPEG, DALI) or store images pre-resized.";
  s.measurement_contract =
      "threads, op (full|loader|loader_dct|dct_1_2|dct_1_4; older resize|resize_plain) or case (same names; "
      "\"scale_1_2\" etc. accepted), set (baseline|progressive|cmyk); loader ops: train_size, crop, tensor, "
      "usable_cpus; unit images/s. Ceiling: threads x the 1-thread rate (scaling efficiency). Op handover "
      "(samples/s; batch, sample_bytes, worker_us_per_sample, parent_us_per_sample). Op interpreter (samples "
      "per second of the job's own DataLoader in its python over the probe's images, one torch thread; "
      "interpreter_main: torch's default threads; python, versions, job_ms_<set>, job_sd_ms_<set>, job_n_<set>, "
      "job_other_ms; older reports: 16x16 JPEGs). "
      "Also op nvjpeg (GPU decode: device, batch, backend; no threads).";
  return s;
}

}  // namespace pipecheck
