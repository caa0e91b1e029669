// The decode probe's cases of the loader's processes (decode/loader_cases.hpp).
#include "decode/loader_cases.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <exception>
#include <memory>

#include "core/case_messages.hpp"
#include "core/probe_label.hpp"
#include "core/repetition_rounds.hpp"
#include "decode/batch_handover.hpp"
#include "decode/loader_interpreter.hpp"

namespace pipecheck {

namespace {

// The hand-over of each batch from a loader worker process to the training process, at the
// batch's bytes: a child process per repetition makes the batches (prefetching two ahead), the
// parent receives and maps them, one iteration a batch. The worker's and the parent's CPU time
// per sample go in the label: the budget charges them to the workers and to the training process.
void run_handover_case(benchmark::State& state, const LoaderCaseConfig& config) {
  HandoverOptions options;
  options.sample_bytes = tensor_bytes(config.transform);
  options.batch = config.batch;
  std::string wrong;
  BatchHandover::WorkerTotals totals;
  double parent_cpu = 0;
  try {
    BatchHandover handover(options);
    wrong = handover.receive();  // untimed: the worker started, its first segment made
    timespec cpu0{}, cpu1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
    for (auto _ : state) {
      if (std::string bad = handover.receive(); !bad.empty() && wrong.empty()) wrong = std::move(bad);
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
    parent_cpu = double(cpu1.tv_sec - cpu0.tv_sec) + (cpu1.tv_nsec - cpu0.tv_nsec) / 1e9;
    totals = handover.stop();
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  if (!wrong.empty()) {
    state.SkipWithError(wrong_result_message(wrong).c_str());
    return;
  }
  const double samples = double(state.iterations()) * config.batch;
  // The worker made the untimed batch, the timed ones and up to `prefetch` ahead: per sample made.
  const double made = double(std::max<long>(1, totals.batches)) * config.batch;
  state.counters["images_per_second"] = benchmark::Counter(samples, benchmark::Counter::kIsRate);
  auto label = config.corpus_label;
  const LoaderTransform& t = config.transform;
  label["what"] = "batch hand-over: worker process collates " + std::to_string(config.batch) + " samples of " +
                  std::to_string(options.sample_bytes) + " bytes into shared memory, training process maps it";
  label["op"] = "handover";
  label["set"] = "all";
  label["threads"] = "1";
  label["batch"] = std::to_string(config.batch);
  label["sample_bytes"] = std::to_string(options.sample_bytes);
  label["train_size"] = std::to_string(t.width) + "x" + std::to_string(t.height);
  label["tensor"] = tensor_kind_name(t.tensor);
  label["worker_us_per_sample"] = std::to_string(totals.cpu_seconds / made * 1e6);
  label["parent_us_per_sample"] = std::to_string(samples > 0 ? parent_cpu / samples * 1e6 : 0.0);
  label["verified"] = "yes";
  label["verify"] = "every sample's stamps (batch and index) at its first and last bytes, in every batch";
  state.SetLabel(encode_label(label));
}

}  // namespace

void register_handover_case(const LoaderCaseConfig& config) {
  if (config.feeds_budget) hold_case_to_noise("decode/handover");
  benchmark::RegisterBenchmark("decode/handover", [&config](benchmark::State& state) { run_handover_case(state, config); })
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

namespace {

// The training job's interpreter per sample (decode/loader_interpreter.hpp): one Python process
// for the probe's life, started by the case's first call; each iteration a batch, timed by the
// CPU time of the interpreter's main thread.
struct InterpreterCase {
  std::string python;  // "" when --python is none or auto found none
  std::unique_ptr<LoaderInterpreter> process;
  std::string error;   // why it could not start; the case skips with it
};
InterpreterCase& interpreter_case() {
  static InterpreterCase c;
  return c;
}

void run_interpreter_case(benchmark::State& state, const LoaderCaseConfig& config) {
  InterpreterCase& c = interpreter_case();
  if (!c.process && c.error.empty()) {
    try {
      c.process = std::make_unique<LoaderInterpreter>(c.python, config.transform, config.batch);
    } catch (const std::exception& error) {
      c.error = error.what();
    }
  }
  if (!c.process) {
    state.SkipWithError(c.error.c_str());
    return;
  }
  double samples = 0;
  try {
    for (auto _ : state) {
      const LoaderInterpreter::Round round = c.process->run(config.batch);
      state.SetIterationTime(std::max(round.cpu_seconds, 1e-9));
      samples += round.samples;
    }
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  state.counters["images_per_second"] = benchmark::Counter(samples, benchmark::Counter::kIsRate);
  auto label = config.corpus_label;
  // Appended piece by piece: one long chain of + trips GCC 12's -Wrestrict false positive.
  std::string what = "the training job's interpreter per sample: " + c.process->versions();
  what += ", DataLoader(ImageFolder, num_workers=0, batch " + std::to_string(config.batch) + ") with crop ";
  what += crop_mode_name(config.transform.crop) + " and " + tensor_kind_name(config.transform.tensor);
  what += " tensors at 16x16 on 16x16 JPEGs, where pixel work is near nothing: its main thread's CPU time";
  label["what"] = what;
  label["op"] = "interpreter";
  label["set"] = "all";
  label["threads"] = std::to_string(1);  // a literal here trips the same false positive
  label["python"] = c.process->python();
  label["versions"] = c.process->versions();
  state.SetLabel(encode_label(label));
}

}  // namespace

void register_interpreter_case(const LoaderCaseConfig& config, const std::string& python) {
  interpreter_case().python = python;
  if (config.feeds_budget) hold_case_to_noise("decode/interpreter");
  benchmark::RegisterBenchmark("decode/interpreter", [&config](benchmark::State& state) { run_interpreter_case(state, config); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

void release_interpreter_case() { interpreter_case().process.reset(); }

}  // namespace pipecheck
