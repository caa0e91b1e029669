// Reducing a watch's samples to the figures its rules read.
#include "watch/watch_analysis.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/figure_text.hpp"
#include "core/stage_names.hpp"
#include "telemetry/throttle_reasons.hpp"

namespace pipecheck {

namespace {

constexpr std::uint64_t kSwPowerCap = 0x4;

std::optional<double> median_opt(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return median_of(values);
}

double max_of(const std::vector<double>& values) {
  return values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
}

// The GPUs the job uses: those marked job in any sample that report utilization.
std::set<int> job_gpus(const std::vector<WatchSample>& samples) {
  std::set<int> gpus;
  for (const auto& s : samples) {
    for (const auto& g : s.gpus) {
      if (g.job && g.util_pct) gpus.insert(g.index);
    }
  }
  return gpus;
}

double busy_signal(const WatchSample& s, const std::set<int>& gpus) {
  if (gpus.empty()) return std::max(s.job.cpu_pct, s.job.top_thread_demand_pct);
  double sum = 0;
  int count = 0;
  for (const auto& g : s.gpus) {
    if (gpus.count(g.index) && g.util_pct) {
      sum += *g.util_pct;
      ++count;
    }
  }
  return count ? sum / count : 0.0;
}

bool in_episode(double t, const std::vector<IdleEpisode>& episodes) {
  for (const auto& e : episodes) {
    if (t > e.start_s + 1e-9 && t <= e.end_s + 1e-9) return true;
  }
  return false;
}

std::string comparison_text(const std::string& verb, double observed, const std::string& unit,
                            const std::string& subject, double percent, const MeasuredCeiling& ceiling) {
  return verb + " " + figure(observed, unit) + " " + subject + " = " + figure(percent) + "% of its measured " +
         figure(ceiling.value, ceiling.unit) + " (" + ceiling.what + ")";
}

CeilingComparison compare(const std::string& stage, const std::string& subject, double observed,
                          const MeasuredCeiling& ceiling, const std::string& text_prefix, const std::string& where) {
  CeilingComparison c;
  c.stage = stage;
  c.subject = subject;
  c.observed = observed;
  c.ceiling = ceiling.value;
  c.unit = ceiling.unit;
  c.percent = 100.0 * observed / ceiling.value;
  c.measured_by = ceiling.key;
  c.text = comparison_text(text_prefix, observed, ceiling.unit, where, c.percent, ceiling);
  return c;
}

GpuStats gpu_stats(const std::vector<const WatchSample*>& steady, int index, const MeasuredCeilings* ceilings) {
  GpuStats stats;
  stats.index = index;
  std::vector<double> power, limit, rx, tx, mem, clock;
  int capped = 0, slowed = 0;
  for (const WatchSample* s : steady) {
    for (const auto& g : s->gpus) {
      if (g.index != index) continue;
      stats.bus_id = g.bus_id;
      ++stats.samples;
      if (g.util_pct) stats.util.push_back(*g.util_pct);
      if (g.power_w) power.push_back(*g.power_w);
      if (g.power_limit_w) limit.push_back(*g.power_limit_w);
      if (g.power_w && g.power_limit_w && *g.power_limit_w > 0) {
        stats.power_share.push_back(100.0 * *g.power_w / *g.power_limit_w);
      }
      if (g.pcie_rx_mbs) rx.push_back(*g.pcie_rx_mbs);
      if (g.pcie_tx_mbs) tx.push_back(*g.pcie_tx_mbs);
      if (g.mem_used_mib) mem.push_back(*g.mem_used_mib);
      if (g.sm_clock_mhz) clock.push_back(*g.sm_clock_mhz);
      if (g.throttle_mask && (*g.throttle_mask & kSwPowerCap)) ++capped;
      if (g.throttle_mask && failing_clock_event_bits(*g.throttle_mask)) ++slowed;
    }
  }
  stats.util_median = median_of(stats.util);
  stats.power_share_median = median_opt(stats.power_share);
  stats.power_median_w = median_opt(power);
  stats.power_limit_w = median_opt(limit);
  stats.pcie_rx_median_mbs = median_opt(rx);
  stats.pcie_tx_median_mbs = median_opt(tx);
  if (!mem.empty()) stats.mem_used_max_mib = max_of(mem);
  stats.sm_clock_median_mhz = median_opt(clock);
  if (stats.samples) {
    stats.power_capped_share = static_cast<double>(capped) / stats.samples;
    stats.slowdown_share = static_cast<double>(slowed) / stats.samples;
  }
  const std::string name = "gpu" + std::to_string(index);
  if (ceilings && stats.pcie_rx_median_mbs) {
    const auto h2d = ceilings->pcie_h2d_mbs.find(stats.bus_id);
    if (h2d != ceilings->pcie_h2d_mbs.end()) {
      stats.ceilings.push_back(compare(stage_name::pcie, name, *stats.pcie_rx_median_mbs, h2d->second, "copies",
                                       "host-to-GPU into " + name));
    }
  }
  if (ceilings && stats.pcie_tx_median_mbs) {
    const auto d2h = ceilings->pcie_d2h_mbs.find(stats.bus_id);
    if (d2h != ceilings->pcie_d2h_mbs.end()) {
      stats.ceilings.push_back(compare(stage_name::pcie, name, *stats.pcie_tx_median_mbs, d2h->second, "copies",
                                       "GPU-to-host out of " + name));
    }
  }
  return stats;
}

// The name seen most often.
std::string most_frequent(const std::map<std::string, int>& counts) {
  std::string name;
  int best = 0;
  for (const auto& [n, count] : counts) {
    if (count > best) {
      best = count;
      name = n;
    }
  }
  return name;
}

// Blocked-on-I/O and run-queue figures: what the job's threads did when not on a CPU.
void waiting_stats(const std::vector<const WatchSample*>& steady, JobStats& stats) {
  constexpr double kWantsCpuPct = 1;  // a sample where the job wanted less is an idle one
  std::vector<double> wait, blocked, top_blocked;
  double blocked_sum = 0, busy_sum = 0;
  std::map<std::string, int> blocked_names;
  for (const WatchSample* s : steady) {
    const JobWatch& job = s->job;
    wait.push_back(job.run_wait_pct);
    const double demand = job.cpu_pct + job.run_wait_pct;
    if (demand >= kWantsCpuPct) stats.wait_share.push_back(job.run_wait_pct / demand);
    if (!job.io_blocked_pct) continue;
    blocked.push_back(*job.io_blocked_pct);
    top_blocked.push_back(job.top_blocked_pct);
    // Blocked against on a CPU: time waiting for a CPU is the machine's, not the job's pace (a
    // reader starved of CPUs still spends its own time mostly waiting on reads).
    const double busy = job.cpu_pct + *job.io_blocked_pct;
    stats.blocked_share.push_back(busy > 0 ? *job.io_blocked_pct / busy : 0.0);
    blocked_sum += *job.io_blocked_pct;
    busy_sum += busy;
    if (!job.top_blocked_thread.empty() && job.top_blocked_pct > 0) ++blocked_names[job.top_blocked_thread];
  }
  stats.run_wait_median = median_of(wait);
  stats.wait_share_median = median_of(stats.wait_share);
  // Means, not medians: each sample's figure is a count of a few looks at the threads' states
  // (4 at 0.25 s), and the median of such counts leans to 0 where the mean does not.
  if (!blocked.empty()) stats.io_blocked_mean = blocked_sum / static_cast<double>(blocked.size());
  stats.blocked_share_mean = busy_sum > 0 ? blocked_sum / busy_sum : 0.0;
  stats.top_blocked_median = median_of(top_blocked);
  stats.top_blocked_thread = most_frequent(blocked_names);
}

JobStats job_stats(const std::vector<const WatchSample*>& steady) {
  JobStats stats;
  std::vector<double> cpu, top_cpu, read;
  std::map<std::string, int> top_names;
  for (const WatchSample* s : steady) {
    const JobWatch& job = s->job;
    cpu.push_back(job.cpu_pct);
    top_cpu.push_back(job.top_thread_pct);
    stats.top_demand.push_back(job.top_thread_demand_pct);
    stats.busy_threads.push_back(job.busy_threads);
    stats.busy_processes.push_back(job.busy_processes);
    if (job.read_mbs) read.push_back(*job.read_mbs);
    if (!job.top_thread.empty()) ++top_names[job.top_thread];
    stats.max_processes = std::max(stats.max_processes, job.processes);
    stats.max_threads = std::max(stats.max_threads, job.threads);
  }
  stats.cpu_pct_median = median_of(cpu);
  stats.top_cpu_median = median_of(top_cpu);
  stats.top_demand_median = median_of(stats.top_demand);
  stats.busy_threads_median = median_of(stats.busy_threads);
  stats.busy_processes_median = median_of(stats.busy_processes);
  stats.read_mbs_median = median_opt(read);
  stats.top_thread = most_frequent(top_names);
  waiting_stats(steady, stats);
  return stats;
}

RoleStats role_stats(const std::vector<const WatchSample*>& steady) {
  RoleStats stats;
  std::map<std::string, int> trainers, loops, workers;
  int found = 0, split = 0;
  for (const WatchSample* s : steady) {
    const RolesWatch& r = s->roles;
    if (!r.found) continue;
    ++found;
    ++trainers[r.trainer];
    ++loops[r.loop.name];
    if (!r.busiest_worker.empty()) ++workers[r.busiest_worker];
    stats.trainers = std::max(stats.trainers, r.trainers);
    stats.workers = std::max(stats.workers, r.workers);
    stats.trainer_cpu_mean += r.trainer_cpu_pct;
    stats.loop_cpu_mean += r.loop.cpu_pct;
    stats.loop_demand_mean += r.loop.demand_pct;
    stats.loop_run_wait_mean += r.loop.run_wait_pct;
    stats.loop_io_mean += r.loop.io_pct;
    stats.loop_waiting_mean += r.loop.waiting_pct;
    stats.loop_sleep_mean += r.loop.sleep_pct;
    if (r.loop.syscalls_read) ++split;
    stats.workers_cpu_mean += r.workers_cpu_pct;
    stats.workers_demand_mean += r.workers_demand_pct;
    if (r.workers > 0) stats.saturated_share += static_cast<double>(r.workers_saturated) / r.workers;
  }
  if (found == 0) return stats;
  const double n = found;
  for (double* mean : {&stats.trainer_cpu_mean, &stats.loop_cpu_mean, &stats.loop_demand_mean, &stats.loop_run_wait_mean,
                       &stats.loop_io_mean, &stats.loop_waiting_mean, &stats.loop_sleep_mean, &stats.workers_cpu_mean,
                       &stats.workers_demand_mean, &stats.saturated_share}) {
    *mean /= n;
  }
  stats.found_share = n / static_cast<double>(steady.size());
  stats.found = stats.found_share >= 0.5;
  stats.syscalls_read = split > 0;
  stats.trainer = most_frequent(trainers);
  stats.loop_thread = most_frequent(loops);
  stats.busiest_worker = most_frequent(workers);
  return stats;
}

HostStats host_stats(const std::vector<const WatchSample*>& steady) {
  HostStats stats;
  std::vector<double> iowait, others;
  for (const WatchSample* s : steady) {
    const int cores = static_cast<int>(s->host.core_pct.size());
    if (s->host.cpu_pct) {
      stats.cpu.push_back(*s->host.cpu_pct);
      if (cores > 0) others.push_back(std::max(0.0, (*s->host.cpu_pct * cores - s->job.cpu_pct) / 100.0));
    }
    if (s->host.iowait_pct) iowait.push_back(*s->host.iowait_pct);
    stats.cores = std::max(stats.cores, cores);
  }
  stats.cpu_median = median_of(stats.cpu);
  stats.iowait_median = median_of(iowait);
  stats.others_cores_median = median_of(others);
  return stats;
}

// A disk's rate is the job's only when its own I/O counters show it: "reads 182 MB/s from sda",
// else "sda was busy, not with the job: it read 1082 MB/s ..., the job 0 MB/s".
void attribute(CeilingComparison& c, const DiskStats& d, const std::optional<double>& job_read_mbs,
               const AnalysisOptions& options) {
  if (!job_read_mbs) {
    c.text += "; the job's own reads are not known (/proc/PID/io unreadable)";
    return;
  }
  const double job = *job_read_mbs;
  c.jobs = job >= options.reading_min_mbs && job >= 0.5 * d.read_mbs_median;
  if (job < options.reading_min_mbs) {
    c.text = d.name + " was busy, not with the job: it " + c.text + "; the job read " + figure(job, "MB/s") +
             " (median, /proc/PID/io)";
  } else if (!c.jobs || job < 0.9 * d.read_mbs_median) {
    c.text += "; of the disk's " + figure(d.read_mbs_median, "MB/s") + " (median) the job read " + figure(job, "MB/s") +
              " (/proc/PID/io)";
  }
}

DiskStats disk_stats(const std::vector<const WatchSample*>& steady, const std::string& name, bool job,
                     const MeasuredCeilings* ceilings, const AnalysisOptions& options,
                     const std::optional<double>& job_read_mbs, bool direct) {
  DiskStats stats;
  stats.name = name;
  stats.job = job;
  stats.direct = direct;
  std::vector<double> read, read_active, iops_active, await, aqu;
  for (const WatchSample* s : steady) {
    const auto it = std::find_if(s->disks.begin(), s->disks.end(), [&](const DiskWatch& d) { return d.name == name; });
    // A fallback disk absent from a sample moved nothing in it.
    DiskWatch disk;
    if (it != s->disks.end()) disk = *it;
    stats.util.push_back(disk.util_pct);
    read.push_back(disk.read_mbs);
    aqu.push_back(disk.aqu_sz);
    if (disk.read_mbs >= options.reading_min_mbs) {
      read_active.push_back(disk.read_mbs);
      iops_active.push_back(disk.read_iops);
      await.push_back(disk.r_await_ms);
    }
  }
  stats.util_median = median_of(stats.util);
  stats.read_mbs_median = median_of(read);
  stats.reading_share = steady.empty() ? 0 : static_cast<double>(read_active.size()) / static_cast<double>(steady.size());
  stats.read_mbs_while_reading = median_of(read_active);
  stats.read_iops_while_reading = median_of(iops_active);
  stats.r_await_median_ms = median_of(await);
  stats.aqu_median = median_of(aqu);
  if (!ceilings || read_active.empty()) return stats;
  const std::string where = "from " + name + " (median while reading, " + figure(100.0 * stats.reading_share) +
                            "% of the time)";
  // A reader through the page cache is held against the cold buffered read, where the run has
  // one; an O_DIRECT reader against the best direct read.
  auto mbs = ceilings->disk_mbs.find(name);
  const auto cold = ceilings->disk_cold_mbs.find(name);
  if (!direct && cold != ceilings->disk_cold_mbs.end()) mbs = cold;
  if (mbs != ceilings->disk_mbs.end() && mbs != ceilings->disk_cold_mbs.end()) {
    stats.ceilings.push_back(compare(stage_name::storage, name, stats.read_mbs_while_reading, mbs->second, "reads", where));
  }
  const auto iops = ceilings->disk_iops.find(name);
  const double mean_read_bytes =
      stats.read_iops_while_reading > 0 ? stats.read_mbs_while_reading * 1e6 / stats.read_iops_while_reading : 0;
  if (iops != ceilings->disk_iops.end() && mean_read_bytes <= options.small_read_bytes) {
    stats.ceilings.push_back(compare(stage_name::storage, name, stats.read_iops_while_reading, iops->second, "reads", where));
  }
  for (auto& c : stats.ceilings) attribute(c, stats, job_read_mbs, options);
  return stats;
}

// The disks to judge, in first-seen order: the job's when any is known, else every busy one.
std::vector<std::pair<std::string, bool>> disks_to_judge(const std::vector<WatchSample>& samples) {
  std::vector<std::pair<std::string, bool>> job, other;
  auto add = [](std::vector<std::pair<std::string, bool>>& into, const std::string& name, bool flag) {
    for (const auto& [n, f] : into) {
      if (n == name) return;
    }
    into.emplace_back(name, flag);
  };
  for (const auto& s : samples) {
    for (const auto& d : s.disks) add(d.job ? job : other, d.name, d.job);
  }
  return job.empty() ? other : job;
}

}  // namespace

double share_at_least(const std::vector<double>& values, double threshold) {
  if (values.empty()) return 0;
  const auto count = std::count_if(values.begin(), values.end(), [&](double v) { return v >= threshold; });
  return static_cast<double>(count) / static_cast<double>(values.size());
}

WatchAnalysis analyze_watch(const std::vector<WatchSample>& samples, const MeasuredCeilings* ceilings,
                            const AnalysisOptions& options,
                            const std::vector<std::pair<std::string, std::string>>& device_evidence,
                            const std::set<std::string>& direct_disks) {
  WatchAnalysis a;
  a.samples = static_cast<int>(samples.size());
  for (const auto& s : samples) {
    a.seen_cpu_s = std::max(a.seen_cpu_s, s.job.cpu_s);
    a.seen_processes = std::max(a.seen_processes, s.job.processes);
    a.seen_threads = std::max(a.seen_threads, s.job.threads);
  }
  if (samples.size() < 2) return a;
  // The first sample only primed the counters: its rates are zeros, not observations.
  std::vector<const WatchSample*> rated;
  for (std::size_t i = 1; i < samples.size(); ++i) rated.push_back(&samples[i]);
  std::vector<double> times;
  for (const WatchSample* s : rated) times.push_back(s->elapsed_s);
  a.span_s = times.back() - samples.front().elapsed_s;
  a.interval_s = a.span_s / static_cast<double>(rated.size());
  a.warmup_s = std::min(options.warmup_share * a.span_s, options.warmup_max_s);

  const std::set<int> gpus = job_gpus(samples);
  a.has_gpu = !gpus.empty();
  std::vector<double> signal;
  for (const WatchSample* s : rated) signal.push_back(busy_signal(*s, gpus));
  a.periodic_signal = a.has_gpu ? "GPU utilization" : "the job's CPU use";
  a.periodic = find_periodic_idle(times, signal, a.has_gpu ? options.gpu_periodicity : options.cpu_periodicity);

  // Steady: past the warm-up, and outside the idle episodes of a periodic pattern (reported on
  // its own). Irregular idle stays in: it is what an input-bound job looks like.
  std::vector<const WatchSample*> steady;
  std::vector<double> steady_signal, steady_times;
  for (std::size_t i = 0; i < rated.size(); ++i) {
    const double t = rated[i]->elapsed_s;
    if (t - samples.front().elapsed_s < a.warmup_s) continue;
    if (a.periodic.found && in_episode(t, a.periodic.idle)) continue;
    steady.push_back(rated[i]);
    steady_signal.push_back(signal[i]);
    steady_times.push_back(t);
  }
  a.steady_samples = static_cast<int>(steady.size());
  a.gpu_util_median = a.has_gpu ? median_of(steady_signal) : 0.0;
  std::vector<GpuSeries> series;
  for (int index : gpus) {
    a.gpus.push_back(gpu_stats(steady, index, ceilings));
    if (a.gpus.back().util.size() == steady.size()) series.push_back({index, a.gpus.back().util});
  }
  a.sawtooth = find_leading_dipper(steady_times, series, options.sawtooth);
  a.job = job_stats(steady);
  a.roles = role_stats(steady);
  a.host = host_stats(steady);
  for (const auto& [name, job] : disks_to_judge(samples)) {
    a.disks.push_back(disk_stats(steady, name, job, ceilings, options, a.job.read_mbs_median, direct_disks.count(name) > 0));
    a.disks_are_jobs = job;
    for (const auto& [device, why] : device_evidence) {
      if (device == name) a.disks.back().evidence = why;
    }
  }
  for (const auto& g : a.gpus) a.comparisons.insert(a.comparisons.end(), g.ceilings.begin(), g.ceilings.end());
  for (const auto& d : a.disks) a.comparisons.insert(a.comparisons.end(), d.ceilings.begin(), d.ceilings.end());
  return a;
}

}  // namespace pipecheck
