// Orchestrating a stress run: workers, sampler, watchdog, Xid monitor, stop conditions, and the
// summary and verdict at the end.
#include "stress/stress_run.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "inventory/cuda_devices.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "inventory/gpu_inventory.hpp"
#include "core/json_text.hpp"
#include "inventory/nvml_library.hpp"
#include "stress/cpu_burn.hpp"
#include "stress/cpu_burn_isa.hpp"
#include "telemetry/gpu_telemetry.hpp"
#include "telemetry/host_sampler.hpp"
#include "stress/stress_judge.hpp"
#include "telemetry/progress_display.hpp"
#include "telemetry/telemetry_csv.hpp"
#include "stress/telemetry_sampler.hpp"
#include "core/utc_clock.hpp"
#include "stress/watchdog.hpp"
#include "telemetry/xid_monitor.hpp"

namespace pipecheck {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::atomic<bool> stop_requested{false};

// One worker and everything its thread touches. Shared with the thread, so a worker abandoned
// inside a driver call keeps valid memory (and its watchdog) for as long as it lives.
struct WorkerSlot {
  std::string name;    // "gpu0", "cpu"
  int gpu_index = -1;  // -1: the CPU burn
  std::unique_ptr<BurnWorker> worker;
  WorkerCounters counters;
  std::shared_ptr<Watchdog> watchdog;
  std::shared_ptr<std::atomic<bool>> stop;
  std::unique_ptr<WorkerContext> context;
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
  std::string error;
  std::thread thread;
};

// What the sampler, the watchdog and the run share while it runs. The watchdog may outlive the
// run (kept by an abandoned worker), so its handler checks `closed` before using the display.
struct RunState {
  std::mutex mutex;
  bool closed = false;
  ProgressDisplay* progress = nullptr;
  SummaryRules rules;
  LoadProfile profile;
  std::map<int, SourceAccumulator> gpus;  // by GPU index
  SourceAccumulator host;
  std::map<int, double> last_elapsed;  // by GPU index; -1 the host
  std::map<int, std::string> telemetry_errors;
  std::map<int, HangSummary> hangs;  // by GPU index (-1: the CPU burn)
  std::vector<XidEvent> other_xids;
  bool xid_seen = false;
  TelemetryCsvWriter* csv = nullptr;
  std::string csv_error;
};

std::vector<StressGpu> discover_cuda_gpus(std::string* why) {
  const CudaReport report = query_cuda_devices();
  std::vector<StressGpu> gpus;
  for (const auto& device : report.devices) {
    gpus.push_back(StressGpu{device.index,
                             format_bdf(device.pci_domain, device.pci_bus, device.pci_device),
                             device.name, device});
  }
  if (gpus.empty() && why) *why = report.error.empty() ? "no CUDA device" : report.error;
  // GPUs without the burn's libraries (cuBLAS) cannot be burnt: none to burn, with the reason.
  if (!gpus.empty()) {
    if (const auto unavailable = gpu_burn_unavailable()) {
      if (why) *why = *unavailable;
      gpus.clear();
    }
  }
  return gpus;
}

std::vector<StressGpu> select_gpus(const std::vector<StressGpu>& found, const std::vector<int>& wanted) {
  if (wanted.empty()) return found;
  std::vector<StressGpu> selected;
  for (int index : wanted) {
    const auto it = std::find_if(found.begin(), found.end(), [&](const StressGpu& g) { return g.index == index; });
    if (it == found.end()) {
      throw UsageError("--gpus: no GPU " + std::to_string(index) + " (CUDA sees " +
                       std::to_string(found.size()) + ")");
    }
    selected.push_back(*it);
  }
  return selected;
}

void start_worker(const std::shared_ptr<WorkerSlot>& slot) {
  slot->thread = std::thread([slot] {
    try {
      slot->worker->run(*slot->context);
    } catch (const std::exception& e) {
      const std::lock_guard lock(slot->mutex);
      slot->error = e.what();
    } catch (...) {
      const std::lock_guard lock(slot->mutex);
      slot->error = "unknown exception";
    }
    slot->counters.finished = true;
    {
      const std::lock_guard lock(slot->mutex);
      slot->finished = true;
    }
    slot->done.notify_all();
  });
}

// Folds one tick into the summaries, writes it to the CSV and the display.
void take_tick(RunState& state, SampleTick& tick) {
  std::unique_lock lock(state.mutex);
  for (const auto& row : tick.rows) {
    const int key = row.source == "gpu" ? row.gpu_index.value_or(-2) : -1;
    const auto last = state.last_elapsed.find(key);
    const double dt = last == state.last_elapsed.end() ? 0.0 : row.elapsed_s - last->second;
    state.last_elapsed[key] = row.elapsed_s;
    const double level = state.profile.level_at(row.elapsed_s);
    (key == -1 ? state.host : state.gpus[key]).add(row, level, dt, state.rules);
    if (!row.xids.empty()) state.xid_seen = true;
  }
  for (auto& [index, error] : tick.telemetry_errors) {
    if (!state.telemetry_errors.count(index)) state.telemetry_errors[index] = error;
  }
  for (auto& xid : tick.other_xids) state.other_xids.push_back(std::move(xid));
  try {
    if (state.csv) state.csv->append(tick.rows);
  } catch (const std::exception& e) {
    if (state.csv_error.empty()) state.csv_error = e.what();
  }
  ProgressDisplay* progress = state.closed ? nullptr : state.progress;
  lock.unlock();
  if (progress) progress->update(tick.rows);
}

void record_hang(RunState& state, int gpu_index, const std::string& name, const HangReport& report,
                 double elapsed_s) {
  std::unique_lock lock(state.mutex);
  if (state.hangs.count(gpu_index)) return;
  HangSummary hang;
  hang.what = report.what;
  hang.deadline_s = report.deadline_s;
  hang.elapsed_s = elapsed_s;
  const SourceAccumulator& source = gpu_index >= 0 ? state.gpus[gpu_index] : state.host;
  hang.last_telemetry = source.last_row();
  state.hangs[gpu_index] = hang;
  ProgressDisplay* progress = state.closed ? nullptr : state.progress;
  lock.unlock();
  if (progress) {
    progress->message(name + ": HANG: " + report.what + " did not finish within " +
                      std::to_string(static_cast<int>(report.deadline_s)) + " s; worker abandoned");
  }
}

bool failure_seen(const std::vector<std::shared_ptr<WorkerSlot>>& slots, RunState& state) {
  for (const auto& slot : slots) {
    if (slot->counters.wrong_results || slot->counters.memory_errors) return true;
    const std::lock_guard lock(slot->mutex);
    if (!slot->error.empty()) return true;
  }
  const std::lock_guard lock(state.mutex);
  return state.xid_seen || !state.hangs.empty();
}

bool all_finished(const std::vector<std::shared_ptr<WorkerSlot>>& slots, RunState& state) {
  for (const auto& slot : slots) {
    if (slot->counters.finished) continue;
    const std::lock_guard lock(state.mutex);
    if (!state.hangs.count(slot->gpu_index)) return false;
  }
  return true;
}

// Waits for the workers to return after the stop flag; a worker still inside a call after the
// grace is a hang too. Returns whether any thread had to be left behind (detached).
bool collect_workers(std::vector<std::shared_ptr<WorkerSlot>>& slots, RunState& state,
                     std::chrono::milliseconds grace, Clock::time_point start) {
  const auto deadline = Clock::now() + grace;
  bool abandoned = false;
  for (auto& slot : slots) {
    bool hung_already = false;
    {
      const std::lock_guard lock(state.mutex);
      hung_already = state.hangs.count(slot->gpu_index) > 0;
    }
    std::unique_lock lock(slot->mutex);
    const bool finished = slot->done.wait_until(lock, hung_already ? Clock::now() : deadline,
                                                [&] { return slot->finished; });
    lock.unlock();
    if (finished) {
      slot->thread.join();
      continue;
    }
    HangReport report{-1, slot->name, "stopping (the worker did not return after the run ended)",
                      std::chrono::duration<double>(grace).count()};
    record_hang(state, slot->gpu_index, slot->name, report,
                std::chrono::duration<double>(Clock::now() - start).count());
    slot->thread.detach();
    abandoned = true;
  }
  return abandoned;
}

struct Planned {
  double seconds;
  std::string stop_reason;
};

Planned planned_duration(const StressConfig& config) {
  if (config.until_failure) return {config.max_duration_s, "max_duration"};
  return {config.duration_s, "duration"};
}

CpuBurnConfig cpu_burn_config(const StressConfig& config) {
  CpuBurnConfig burn;
  burn.threads = config.cpu_threads;
  burn.kernel = config.cpu_kernel;
  burn.precision = config.cpu_precision;
  burn.inject_faults = config.inject_faults;
  return burn;
}

// What the summary says of the CPU burn before it runs: its variant, and the ceiling and
// sanity bound its rate will be held against.
void describe_cpu_burn(const StressConfig& config, const StressHooks& hooks, CpuStressSummary& cpu) {
  const CpuBurnConfig burn = cpu_burn_config(config);
  const CpuBurnKernel& kernel = cpu_burn_kernel(burn);
  CpuBurnPlan plan{&kernel, burn.precision, cpu_burn_threads(burn), cpu_burn_cpus()};
  cpu.enabled = true;
  cpu.threads = plan.threads;
  cpu.isa = kernel.isa;
  cpu.isa_display = kernel.display;
  cpu.vector_bits = kernel.vector_bits;
  cpu.fused = kernel.fused;
  cpu.precision = to_string(burn.precision);
  if (hooks.cpu_ceiling) {
    CpuBurnCeilings ceilings = hooks.cpu_ceiling(plan);
    cpu.ceiling = std::move(ceilings.ceiling);
    cpu.sanity_bound = std::move(ceilings.sanity_bound);
  } else {
    cpu.ceiling = CeilingResult::unknown("no ceiling model given to this stress run");
  }
}

}  // namespace

void request_stress_stop() { stop_requested.store(true); }
void reset_stress_stop() { stop_requested.store(false); }

StressHooks default_stress_hooks() {
  StressHooks hooks;
  hooks.discover_gpus = discover_cuda_gpus;
  hooks.make_gpu_worker = [](const StressGpu& gpu, const StressConfig& config) {
    GpuBurnConfig burn;
    burn.cuda_index = gpu.index;
    burn.label = "gpu" + std::to_string(gpu.index) + " (" + gpu.bus_id + ")";
    burn.dtype = config.dtype;
    burn.matrix_n = config.matrix_n;
    burn.verify_tolerance = config.verify_tolerance;
    burn.memtest = config.memtest;
    burn.inject_faults = config.inject_faults;
    return make_gpu_burn_worker(burn);
  };
  hooks.make_cpu_worker = [](const StressConfig& config) { return make_cpu_burn_worker(cpu_burn_config(config)); };
  return hooks;
}

namespace {

// The GPU part of the summary for one slot.
GpuStressSummary gpu_summary(const StressGpu& gpu, WorkerSlot& slot, RunState& state,
                             const std::vector<XidEvent>& xids, const StressConfig& config,
                             const StressHooks& hooks) {
  GpuStressSummary summary;
  summary.index = gpu.index;
  summary.bus_id = gpu.bus_id;
  summary.name = gpu.name;
  summary.wrong_results = slot.counters.wrong_results;
  summary.memory_errors = slot.counters.memory_errors;
  {
    const std::lock_guard lock(slot.mutex);
    summary.error = slot.error;
  }
  state.gpus[gpu.index].finish_gpu(summary, state.rules);
  // The accumulator's count includes memory errors (the CSV's wrong_results column does).
  summary.wrong_results = slot.counters.wrong_results;
  summary.injected_faults = slot.counters.injected_faults;
  summary.injected_memory_faults = slot.counters.injected_memory_faults;
  if (state.hangs.count(gpu.index)) summary.hang = state.hangs[gpu.index];
  if (state.telemetry_errors.count(gpu.index)) summary.telemetry_error = state.telemetry_errors[gpu.index];
  for (const auto& xid : xids) {
    if (xid.bus_id == gpu.bus_id) summary.xids.push_back(xid);
  }
  summary.ceiling = hooks.gpu_ceiling ? hooks.gpu_ceiling(gpu, config.dtype)
                                      : CeilingResult::unknown("no ceiling model given to this stress run");
  return summary;
}

}  // namespace

StressOutcome run_stress(const StressConfig& config, const StressHooks& hooks, std::ostream& out) {
  StressOutcome outcome;
  std::vector<StressGpu> gpus;
  std::string why_no_gpu = "--gpus none";
  if (!config.no_gpu) gpus = select_gpus(hooks.discover_gpus(&why_no_gpu), config.gpus);
  if (gpus.empty() && !config.cpu) {
    outcome.error = "no CUDA device (" + why_no_gpu + "); use --cpu";
    return outcome;
  }
  std::error_code error;
  fs::create_directories(config.out_dir, error);
  if (error) throw RunError("create " + config.out_dir.string() + ": " + error.message());
  outcome.csv_path = config.out_dir / "telemetry.csv";
  outcome.summary_path = config.out_dir / "summary.json";
  TelemetryCsvWriter csv(outcome.csv_path);

  const Planned planned = planned_duration(config);
  StressSummary& summary = outcome.summary;
  summary.host = host_name();
  summary.started_utc = utc_now_iso_ms();
  summary.planned_s = planned.seconds;
  summary.profile = load_shape_name(config.profile.shape);
  summary.period_s = config.profile.period_s;
  summary.until_failure = config.until_failure;
  summary.dtype = burn_dtype_name(config.dtype);
  summary.interval_s = config.interval_s;
  summary.rules.slow_tolerance_pct = config.slow_tolerance_pct;
  summary.rules.warmup_s = std::min(30.0, 0.2 * planned.seconds);
  summary.inject_faults = config.inject_faults;

  ProgressDisplay progress(out, config.tty, planned.seconds);
  auto state = std::make_shared<RunState>();
  state->progress = &progress;
  state->rules = summary.rules;
  state->profile = config.profile;
  state->csv = &csv;

  std::unique_ptr<NvmlLibrary> nvml;
  if (config.use_nvml && !gpus.empty()) nvml = std::make_unique<NvmlLibrary>();
  std::unique_ptr<NvmlTelemetry> telemetry;
  if (nvml) {
    telemetry = std::make_unique<NvmlTelemetry>(*nvml);
    if (!nvml->ok()) summary.notes.push_back("GPU telemetry: " + nvml->error());
  }

  const auto start = Clock::now();
  auto stop = std::make_shared<std::atomic<bool>>(false);
  auto watchdog = std::make_shared<Watchdog>([state, start](const HangReport& report) {
    const int gpu_index = report.name == "cpu" ? -1 : std::stoi(report.name.substr(3));
    record_hang(*state, gpu_index, report.name, report,
                std::chrono::duration<double>(Clock::now() - start).count());
  });
  const auto deadline = std::chrono::milliseconds(static_cast<long long>(config.hang_timeout_s * 1000));

  std::vector<std::shared_ptr<WorkerSlot>> slots;
  auto add_slot = [&](std::string name, int gpu_index, std::unique_ptr<BurnWorker> worker) {
    auto slot = std::make_shared<WorkerSlot>();
    slot->name = std::move(name);
    slot->gpu_index = gpu_index;
    slot->worker = std::move(worker);
    slot->watchdog = watchdog;
    slot->stop = stop;
    const int watch_id = watchdog->add(slot->name);
    slot->context = std::make_unique<WorkerContext>(*stop, config.profile, start, slot->counters, *watchdog,
                                                    watch_id, deadline);
    slots.push_back(std::move(slot));
  };
  std::vector<std::pair<nvml::Device, std::string>> xid_gpus;
  SamplerSources sources;
  for (const auto& gpu : gpus) {
    add_slot("gpu" + std::to_string(gpu.index), gpu.index, hooks.make_gpu_worker(gpu, config));
    SampledGpu sampled{gpu.index, gpu.bus_id, std::nullopt, &slots.back()->counters};
    std::string why;
    if (telemetry && nvml->ok()) {
      sampled.device = telemetry->device(gpu.bus_id, &why);
      if (!sampled.device) summary.notes.push_back("GPU telemetry for gpu" + std::to_string(gpu.index) + ": " + why);
    }
    xid_gpus.emplace_back(sampled.device.value_or(nullptr), gpu.bus_id);
    sources.gpus.push_back(sampled);
  }
  if (config.cpu) {
    add_slot("cpu", -1, hooks.make_cpu_worker(config));
    sources.cpu_counters = &slots.back()->counters;
    describe_cpu_burn(config, hooks, summary.cpu);
  }
  HostSampler host(SysfsRoot(config.sysfs_root));
  sources.host = &host;
  sources.nvml = telemetry.get();
  XidMonitor xids(nvml.get(), xid_gpus, config.read_kernel_log && !gpus.empty(), start);
  sources.xids = &xids;

  out << "stress: " << gpus.size() << " GPU" << (gpus.size() == 1 ? "" : "s")
      << (config.cpu ? " + CPU burn (" + std::to_string(summary.cpu.threads) + " threads)" : std::string())
      << ", " << summary.profile << ", " << (config.until_failure ? "until failure, at most " : "")
      << static_cast<long long>(planned.seconds) << " s; telemetry: " << outcome.csv_path.string() << "\n";
  out.flush();

  xids.start();
  TelemetrySampler sampler(sources, std::chrono::milliseconds(static_cast<long long>(config.interval_s * 1000)),
                           start, [state](SampleTick& tick) { take_tick(*state, tick); });
  sampler.start();
  for (auto& slot : slots) start_worker(slot);

  summary.stopped_by = planned.stop_reason;
  while (std::chrono::duration<double>(Clock::now() - start).count() < planned.seconds) {
    if (stop_requested.load()) {
      summary.stopped_by = "interrupted";
      break;
    }
    if (config.until_failure && failure_seen(slots, *state)) {
      summary.stopped_by = "failure";
      break;
    }
    if (all_finished(slots, *state)) {
      summary.stopped_by = "all_workers_ended";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  stop->store(true);
  const auto grace = std::chrono::milliseconds(std::clamp<long long>(deadline.count(), 2000, 10000));
  outcome.abandoned_workers = collect_workers(slots, *state, grace, start);
  {
    // A GPU worker that gave up on a hung kernel has returned, but its context is still stuck:
    // the CUDA runtime's teardown at exit would wait on it, so the caller must quick_exit too.
    const std::lock_guard lock(state->mutex);
    if (!state->hangs.empty()) outcome.abandoned_workers = true;
  }
  sampler.stop();
  xids.stop();
  {
    const std::lock_guard lock(state->mutex);
    state->closed = true;
  }
  progress.finish();
  csv.sync();

  summary.ended_utc = utc_now_iso_ms();
  summary.duration_s = std::chrono::duration<double>(Clock::now() - start).count();
  const std::vector<XidEvent> all_xids = xids.all();
  for (const auto& note : xids.notes()) summary.notes.push_back(note);
  for (const auto& note : host.sources()) summary.notes.push_back("host telemetry: " + note);
  {
    const std::lock_guard lock(state->mutex);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      summary.gpus.push_back(gpu_summary(gpus[i], *slots[i], *state, all_xids, config, hooks));
    }
    summary.other_xids = state->other_xids;
    if (config.cpu) {
      WorkerSlot& cpu = *slots.back();
      state->host.finish_cpu(summary.cpu);
      summary.cpu.wrong_results = cpu.counters.wrong_results;
      summary.cpu.injected_faults = cpu.counters.injected_faults;
      const std::lock_guard cpu_lock(cpu.mutex);
      summary.cpu.error = cpu.error;
      // A CPU worker that hung (or did not return at the end) was abandoned: that is a failure
      // of the burn, not a pass with fewer workers.
      if (const auto hang = state->hangs.find(cpu.gpu_index); hang != state->hangs.end() && summary.cpu.error.empty()) {
        summary.cpu.error = "HANG: " + hang->second.what + " did not finish within " +
                            std::to_string(static_cast<int>(hang->second.deadline_s)) + " s; worker abandoned";
      }
    } else {
      state->host.finish_cpu(summary.cpu);
    }
    if (!state->csv_error.empty()) summary.notes.push_back("telemetry.csv: " + state->csv_error);
  }
  for (const auto& slot : slots) {
    for (const auto& note : slot->context->notes()) summary.notes.push_back(note);
  }
  judge_stress(summary);
  write_file_atomically(outcome.summary_path, json_text(stress_summary_json(summary)) + "\n");
  out << render_stress_summary(summary);
  out << "telemetry: " << outcome.csv_path.string() << "\nsummary: " << outcome.summary_path.string() << "\n";
  out.flush();
  outcome.exit_code = summary.exit_code;
  // nvmlShutdown could block behind a worker stuck in the driver: leave NVML loaded then (the
  // caller quick_exits).
  if (outcome.abandoned_workers) static_cast<void>(nvml.release());
  return outcome;
}

}  // namespace pipecheck
