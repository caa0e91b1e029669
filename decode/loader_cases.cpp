// The decode probe's cases of the loader's processes (decode/loader_cases.hpp).
#include "decode/loader_cases.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <exception>
#include <fstream>
#include <memory>

#include "core/case_messages.hpp"
#include "core/errors.hpp"
#include "core/probe_label.hpp"
#include "core/repetition_rounds.hpp"
#include "decode/batch_handover.hpp"
#include "core/temporary_folder.hpp"
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

// The training job's own loader (decode/loader_interpreter.hpp): one Python process for the
// probe's life, started by the case's first call, over the probe's images (a dataset's files where
// they lie; a generated corpus written to a folder of the case's); each iteration a round of
// samples, timed by the interpreter's own clock around them (wall time: with torch's default
// threads the training process's loader spends some of it in torch's pool).
// Everything one case's rounds measured, over all its repetitions: the budget weights each set's
// mean time a sample by the dataset's files, so which images a round drew does not move it.
struct JobTotals {
  double wall = 0;  // the rounds' seconds, the DataLoader's sampler and collate included
  int samples = 0;
  std::map<std::string, LoaderInterpreter::SampleTimes> sets;
  void add(const LoaderInterpreter::Round& round) {
    wall += round.seconds;
    samples += round.samples;
    for (const auto& [name, times] : round.sets) {
      auto& total = sets[name];
      total.count += times.count;
      total.seconds += times.seconds;
      total.squares += times.squares;
    }
  }
};

struct InterpreterCase {
  std::string python;  // "" when --python is none or auto found none
  std::unique_ptr<TemporaryFolder> written;  // a generated corpus's files
  std::unique_ptr<LoaderInterpreter> process;
  int round_samples = 0;  // samples a round: the loader's batch, fewer for large images
  std::string error;      // why it could not start; the case skips with it
  std::map<int, JobTotals> totals;  // by torch threads (1, 0 for the default)
};
InterpreterCase& interpreter_case() {
  static InterpreterCase c;
  return c;
}

// The images' files: a dataset's own, or the generated ones written out for the job's Pillow.
std::vector<std::filesystem::path> corpus_files(const JpegCorpus& corpus, InterpreterCase& c) {
  std::vector<std::filesystem::path> files;
  if (corpus.source != "generated") {
    for (const JpegImage& image : corpus.images) files.push_back(std::filesystem::path(corpus.source) / image.name);
    return files;
  }
  c.written = std::make_unique<TemporaryFolder>("pipecheck-loader-images-");
  for (const JpegImage& image : corpus.images) {
    files.push_back(c.written->path() / image.name);
    std::ofstream out(files.back(), std::ios::binary);
    out.write(reinterpret_cast<const char*>(image.bytes.data()), static_cast<std::streamsize>(image.bytes.size()));
    if (!out) throw RunError(errno_message("write", files.back().string(), errno));
  }
  return files;
}

// A round of about a quarter second at ~20 ns a pixel (this path's cost on a 2-vCPU VM), in whole
// batches of the loader's size where they fit: 3840x2400 photos go one a batch, not 32 (4 s).
int round_samples(const JpegCorpus& corpus, int batch) {
  const auto [width, height] = corpus.median_dimensions();
  const double seconds = std::max(1.0, double(width) * height) * 20e-9;
  return std::clamp(static_cast<int>(0.25 / seconds), 1, batch);
}

void start_interpreter(InterpreterCase& c, const LoaderCaseConfig& config) {
  if (!config.corpus || config.corpus->images.empty()) throw RunError("the loader's interpreter: the probe has no images");
  c.round_samples = round_samples(*config.corpus, config.batch);
  std::vector<std::string> sets;
  for (const JpegImage& image : config.corpus->images) sets.push_back(image.header.set_name());
  c.process = std::make_unique<LoaderInterpreter>(c.python, config.transform, c.round_samples, corpus_files(*config.corpus, c),
                                                  60, sets);
}

// Each set's mean and standard deviation of a sample's seconds (ms) and its count, and the
// DataLoader's own time a sample beyond them (its sampler and collate), over all the rounds.
void label_job_times(std::map<std::string, std::string>& label, const JobTotals& totals) {
  double in_sets = 0;
  for (const auto& [name, t] : totals.sets) {
    const double mean = t.seconds / t.count;
    const double variance = t.count > 1 ? std::max(0.0, (t.squares - t.count * mean * mean) / (t.count - 1)) : 0;
    label["job_ms_" + name] = std::to_string(mean * 1e3);
    label["job_sd_ms_" + name] = std::to_string(std::sqrt(variance) * 1e3);
    label["job_n_" + name] = std::to_string(t.count);
    in_sets += t.seconds;
  }
  if (totals.samples > 0) label["job_other_ms"] = std::to_string(std::max(0.0, totals.wall - in_sets) / totals.samples * 1e3);
}

// torch_threads 1: as a DataLoader worker runs (it sets one); 0: torch's default, as the training
// process runs the loader itself (workers=0).
void run_interpreter_case(benchmark::State& state, const LoaderCaseConfig& config, int torch_threads) {
  InterpreterCase& c = interpreter_case();
  if (!c.process && c.error.empty()) {
    const auto start = std::chrono::steady_clock::now();
    try {
      start_interpreter(c, config);
    } catch (const std::exception& error) {
      c.error = error.what();
    }
    // Python's imports and the loader's warm-up are no repetition: the case keeps its time cap.
    exclude_from_case_time(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (!c.process) {
    state.SkipWithError(c.error.c_str());
    return;
  }
  double samples = 0;
  try {
    for (auto _ : state) {
      const LoaderInterpreter::Round round = c.process->run(c.round_samples, torch_threads);
      state.SetIterationTime(round.seconds);
      samples += round.samples;
      c.totals[torch_threads].add(round);
    }
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  state.counters["images_per_second"] = benchmark::Counter(samples, benchmark::Counter::kIsRate);
  auto label = config.corpus_label;
  // Appended piece by piece: one long chain of + trips GCC 12's -Wrestrict false positive.
  std::string what = "the training job's own loader: " + c.process->versions();
  what += ", DataLoader(num_workers=0, batch " + std::to_string(c.round_samples) + ") over the probe's ";
  what += std::to_string(config.corpus->images.size()) + " images, each as ImageFolder loads it, then ";
  what += loader_transform_words(config.transform);
  what += torch_threads == 1 ? ", one torch thread as in a DataLoader worker" : ", torch's default threads as in the training process";
  label["what"] = what;
  label["op"] = torch_threads == 1 ? "interpreter" : "interpreter_main";
  label["path"] = "job";  // the whole per-sample path, pixels and all (older probes: tiny JPEGs)
  label["set"] = "all";
  label["threads"] = std::to_string(1);  // a literal here trips the same false positive
  label["loader_batch"] = std::to_string(c.round_samples);
  label["torch_threads"] = torch_threads == 1 ? "1" : "default";
  label["python"] = c.process->python();
  label["versions"] = c.process->versions();
  label_job_times(label, c.totals[torch_threads]);
  state.SetLabel(encode_label(label));
}

}  // namespace

void register_interpreter_case(const LoaderCaseConfig& config, const std::string& python) {
  interpreter_case().python = python;
  if (config.feeds_budget) hold_case_to_noise("decode/interpreter");
  if (config.feeds_budget) hold_case_to_noise("decode/interpreter_main");
  benchmark::RegisterBenchmark("decode/interpreter", [&config](benchmark::State& state) { run_interpreter_case(state, config, 1); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("decode/interpreter_main",
                               [&config](benchmark::State& state) { run_interpreter_case(state, config, 0); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

void release_interpreter_case() {
  interpreter_case().process.reset();
  interpreter_case().written.reset();
  interpreter_case().totals.clear();
}

}  // namespace pipecheck
