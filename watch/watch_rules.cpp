// THE table of watch rules. Every threshold the watch judges by is a constant in this file, and
// each rule's condition text is built from the same constants, so the table printed by
// `pipecheck watch --list-rules` (and pasted in docs/watch.md) cannot drift from the code.
//
//  #  rule                    applies  condition (defaults)                                      verdict
//  0  too_short               any      < 3 steady samples (says what was seen)                    too short to judge
//  1  gpu_straggler_sawtooth  2+ GPUs  one GPU starts >= 60% of >= 3 shared dips                  waiting on communication or a straggler
//  2  input_single_process    GPU      util < 50%, one thread >= 90% demand in >= 60%, <= 1 busy  input pipeline bound, single process
//  3  storage_bound           any      (util < 50% or no GPU), the job reads, its disk saturated:  storage bound
//                                      >= 85% of its measured MB/s (IOPS for reads <= 32 KiB), or
//                                      unmeasured: %util >= 80 with >= 4 in flight (before contention:
//                                      a saturated disk bounds the job whoever holds the CPUs)
//  4  input_loader_bound      any      (util < 50% or no GPU), roles: the loop's main thread waits  input-bound: the loader's workers are saturated
//                                      on another process >= 50%, its workers (fewer than the cores)
//                                      at >= 75% demand, the job does not fill every core
//  5  step_bound              any      (util < 50% or no GPU), roles: the loop's main thread busy   step-bound: the loader idles
//                                      (or in a timed sleep) >= 80%, its workers' demand < 50%
//  6  cpu_contention          any      (util < 50% or no GPU), run-queue wait >= 25% of demand    CPU contention, the others named
//                                      and >= 25% of a core, others use >= 0.5 cores
//  7  input_cpu_saturated     GPU      util < 50%, host CPU >= 90%, >= 50% of it the job's         input pipeline bound, CPU saturated
//  8  storage_latency         any      (util < 50% or no GPU), the job reads, its threads blocked  waiting on storage latency
//                                      on I/O >= 40% of the time blocked or on a CPU, the disk not saturated
//  9  pcie_bound              GPU      util < 50%, PCIe RX >= 80% of measured pinned H2D          host-to-device copies bound
// 10  busy_not_loaded         GPU      util >= 80%, power < 60% of limit                          busy but not loaded (launch-bound)
// 11  compute_bound           GPU      util >= 80%, power >= 85% of limit or SwPowerCap >= 50%    compute bound (healthy)
// 12  gpu_bound               GPU      util >= 80%, power in between                              GPU bound, moderately loaded
// 13  gpu_waiting             GPU      util < 50%, none of the above                              GPU waiting on something not sampled
// 14  cpu_single_thread       no GPU   one thread >= 90% demand in >= 60%, <= 1 busy thread       single-threaded CPU bound
// 15  cpu_all_cores           no GPU   host CPU >= 90% and the job uses >= 50% of it              CPU bound on every core
// 16  cpu_multi_thread        no GPU   >= 2 busy threads, host CPU < 90%                          CPU bound on N threads
// 17  periodic_idle           any      idle (GPU <= 5%, CPU <= 10%; partly idle samples by their  periodic work (evaluation, checkpoints)
//                                      idle share) >= 4 times, regular, >= 5% lost
// 18  job_idle                no GPU   job CPU < 10% of a core, not blocked on I/O, no busy disk   mostly waiting (sleep, network, locks)
#include "watch/watch_rules.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/figure_text.hpp"
#include "core/stage_names.hpp"

namespace pipecheck {

namespace {

// ---- thresholds -------------------------------------------------------------------------------
constexpr int kMinSteadySamples = 3;
constexpr double kGpuLowPct = 50;          // GPU utilization median below this: the GPU waits
constexpr double kGpuHighPct = 80;         // at or above: the GPU is the busy stage
constexpr double kPowerLowPct = 60;        // power/limit below this while busy: small kernels
constexpr double kPowerHighPct = 85;       // at or above: loaded
constexpr double kPowerCappedShare = 0.5;  // or SwPowerCap set in this share of samples
constexpr double kThreadSaturatedPct = 90; // a thread's demand (on a CPU + waiting for one), % of a core
constexpr double kSaturatedShare = 0.6;    // ... in this share of steady samples
constexpr double kBusyThreadPct = 50;      // a thread at or above this demand is "busy"
constexpr double kHostCpuBusyPct = 90;     // all cores busy
constexpr double kJobShareOfHost = 0.5;    // the job's part of a busy host, to blame the job
constexpr double kDiskUtilPct = 80;        // iostat %util median (a lower bound of saturation on
                                           // NVMe and virtual disks, which serve requests in parallel)
constexpr double kDiskCeilingPct = 85;     // or this share of the measured MB/s or IOPS
constexpr double kSmallReadBytes = 32 * 1024;  // IOPS are compared with the measured 4 KiB
                                           // random-read IOPS only for reads this small
constexpr double kJobReadsMbs = 1;         // the job reads at least this (median), or ...
constexpr double kDiskReadingShare = 0.5;  // ... its disk reads in this share of samples
constexpr double kSaturatedQueue = 4;      // without a measured ceiling, a disk at %util >= 80 with
                                           // this many requests in flight (aqu-sz) is saturated
constexpr double kBlockedShare = 0.4;      // the job's threads blocked on I/O this share of the time
                                           // they were blocked or on a CPU (not waiting for one): a
                                           // synchronous reader blocked 40% of its time gains >= 1.67x
                                           // when its reads overlap. A one-thread O_DIRECT 4 KiB
                                           // reader on the virtio disk spends ~53% blocked (the rest
                                           // is Python's and the syscall's own CPU) ...
constexpr double kBlockedMinPct = 30;      // ... and for at least this much of a core (0.3 reads in flight)
constexpr double kWaitShare = 0.25;        // contention: runnable without a CPU this share of the time
                                           // the job's threads wanted one ...
constexpr double kWaitMinPct = 25;         // ... at least this much of a core ...
constexpr double kOthersMinCores = 0.5;    // ... while other processes used at least this many cores
constexpr double kLoopWaitingPct = 50;     // roles: the training loop's main thread waits on another process
                                           // or thread (S, not a timed sleep) this share of the time ...
constexpr double kLoaderSaturatedPct = 75; // ... while its workers' mean demand is at least this: input-bound
constexpr double kLoopBusyPct = 80;        // the loop's thread on a CPU, runnable or in a timed sleep (its
                                           // step) this share of the time ...
constexpr double kLoaderIdlePct = 50;      // ... while its workers' mean demand is below this: step-bound
constexpr double kPcieCeilingPct = 80;     // PCIe RX against the measured pinned H2D rate
constexpr double kGpuIdlePct = 5;          // periodic idle: GPU utilization at or below
constexpr double kCpuIdlePct = 10;         // periodic idle without GPU: job CPU, % of a core
constexpr double kPeriodicLostShare = 0.05;  // report a period losing at least this share
constexpr double kJobIdlePct = 10;         // a job below this CPU (no GPU) is mostly waiting
constexpr int kPeriodicMinEpisodes = 4;
constexpr double kMostlyIdle = 0.5;        // a sample idle this share of its interval joins an episode
constexpr double kEdgeIdle = 0.1;          // a neighbour idle this share adds its share
constexpr double kPeriodTolerance = 0.25;  // a gap within this share of the period is regular ...
constexpr double kPeriodRegularShare = 0.75;  // ... and this share of the gaps must be
constexpr double kDipShare = 0.6;          // sawtooth: a dip is below this share of the GPU's median
constexpr double kLeadShare = 0.6;         // one GPU starts this share of the shared dips ...
constexpr int kMinDipEvents = 3;           // ... of at least this many
constexpr double kWarmupShare = 0.1;       // the first 10% of the run is start-up ...
constexpr double kWarmupMaxS = 30;         // ... up to 30 s

// ---- figures in words -----------------------------------------------------------------------

// Observed figures to three significant digits; thresholds as written in this file.
std::string pct(double value) { return figure(value) + "%"; }
std::string share(double fraction) { return figure(100.0 * fraction) + "%"; }
std::string limit(double value) { return plain_number(value) + "%"; }
std::string limit_share(double fraction) { return plain_number(100.0 * fraction) + "%"; }

template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::string text;
  (text += ... += std::string(parts));
  return text;
}

std::string gpu_util_figure(const WatchAnalysis& a) {
  return cat("GPU utilization median ", pct(a.gpu_util_median), " over ", std::to_string(a.gpus.size()), " GPU",
             a.gpus.size() == 1 ? "" : "s", " (", std::to_string(a.steady_samples), " steady samples)");
}

std::string power_figure(const GpuStats& g) {
  if (!g.power_share_median) return cat("gpu", std::to_string(g.index), ": power not reported");
  return cat("gpu", std::to_string(g.index), ": power median ", figure(g.power_median_w.value_or(0), "W"), " of ",
             figure(g.power_limit_w.value_or(0), "W"), " limit = ", pct(*g.power_share_median),
             g.power_capped_share > 0 ? cat(", SwPowerCap in ", share(g.power_capped_share), " of samples") : "");
}

std::string thread_figure(const WatchAnalysis& a) {
  const double saturated = share_at_least(a.job.top_demand, kThreadSaturatedPct);
  return cat("busiest thread ", a.job.top_thread.empty() ? "?" : a.job.top_thread, ": demand median ",
             pct(a.job.top_demand_median), " of a core (on a CPU ", pct(a.job.top_cpu_median),
             ", the rest waiting for one); >= ", limit(kThreadSaturatedPct), " in ", share(saturated), " of samples");
}

std::string busy_figure(const WatchAnalysis& a) {
  return cat("busy threads median ", plain_number(a.job.busy_threads_median), ", busy processes median ",
             plain_number(a.job.busy_processes_median), " (of up to ", std::to_string(a.job.max_processes),
             " processes, ", std::to_string(a.job.max_threads), " threads)");
}

std::string host_figure(const WatchAnalysis& a) {
  return cat("host CPU median ", pct(a.host.cpu_median), " of ", std::to_string(a.host.cores), " cores, iowait ",
             pct(a.host.iowait_median), "; the job ", pct(a.job.cpu_pct_median), " of one core");
}

std::string loop_figure(const WatchAnalysis& a) {
  const RoleStats& r = a.roles;
  return cat("training loop: the main thread ", r.loop_thread, " of ", r.trainer, ": on a CPU ", pct(r.loop_cpu_mean),
             ", runnable without a CPU ", pct(r.loop_run_wait_mean), ", waiting on another process or thread ",
             pct(r.loop_waiting_mean), " (asleep in S: the workers' queue, a pipe, a lock), in a timed sleep ",
             pct(r.loop_sleep_mean), ", blocked on I/O ", pct(r.loop_io_mean), " of the time (mean of ",
             std::to_string(a.steady_samples), " steady samples)",
             r.syscalls_read ? "" : "; its sleeps not told apart (/proc/PID/task/TID/syscall unreadable): all S counted as waiting");
}

std::string loader_figure(const WatchAnalysis& a) {
  const RoleStats& r = a.roles;
  return cat("loader: ", std::to_string(r.workers), r.workers == 1 ? " worker process" : " worker processes", " of ",
             r.trainer, ", demand ", pct(r.workers_demand_mean), " of a core each on average (on a CPU or runnable), ",
             share(r.saturated_share), " of them saturated (>= ", limit(kThreadSaturatedPct), "); together ",
             pct(r.workers_cpu_mean), " of one core",
             r.busiest_worker.empty() ? "" : cat("; busiest ", r.busiest_worker),
             r.trainers > 1 ? cat(" (", std::to_string(r.trainers), " processes have workers: the busiest is judged)") : "");
}

bool loader_keeps_up(const WatchAnalysis& a) { return a.roles.found && a.roles.workers_demand_mean < kLoaderIdlePct; }

std::string disk_figure(const DiskStats& d) {
  return cat(d.name, ": %util median ", pct(d.util_median), ", reads ", figure(d.read_mbs_while_reading, "MB/s"), " at ",
             figure(d.read_iops_while_reading, "IOPS"), " while reading (", share(d.reading_share),
             " of the time), r_await ", figure(d.r_await_median_ms, "ms"), ", aqu-sz ", figure(d.aqu_median),
             d.evidence.empty() ? "" : cat("; the job reads ", d.evidence));
}

bool gpu_low(const WatchAnalysis& a) { return a.has_gpu && a.gpu_util_median < kGpuLowPct; }
bool gpu_high(const WatchAnalysis& a) { return a.has_gpu && a.gpu_util_median >= kGpuHighPct; }
bool thread_saturated(const WatchAnalysis& a) {
  return share_at_least(a.job.top_demand, kThreadSaturatedPct) >= kSaturatedShare;
}

// The mean power share over the job's GPUs that report it.
std::optional<double> power_share(const WatchAnalysis& a) {
  double sum = 0;
  int count = 0;
  for (const auto& g : a.gpus) {
    if (g.power_share_median) {
      sum += *g.power_share_median;
      ++count;
    }
  }
  if (!count) return std::nullopt;
  return sum / count;
}

double capped_share(const WatchAnalysis& a) {
  double worst = 0;
  for (const auto& g : a.gpus) worst = std::max(worst, g.power_capped_share);
  return worst;
}

WatchFinding finding(const char* rule, const char* stage, std::string verdict, std::string advice) {
  WatchFinding f;
  f.rule = rule;
  f.stage = stage;
  f.verdict = std::move(verdict);
  f.advice = std::move(advice);
  return f;
}

void add_gpu_figures(const WatchAnalysis& a, WatchFinding& f) {
  f.figures.push_back(gpu_util_figure(a));
  for (const auto& g : a.gpus) f.figures.push_back(power_figure(g));
  if (loader_keeps_up(a)) f.figures.push_back(cat("the loader keeps up, the input pipeline is not the bound: ", loader_figure(a)));
}

// ---- the rules --------------------------------------------------------------------------------

std::optional<WatchFinding> too_short(const WatchAnalysis& a) {
  if (a.steady_samples >= kMinSteadySamples) return std::nullopt;
  WatchFinding f = finding("too_short", "none", "too short to judge",
                           cat("watch a longer run (a few minutes of steady training), or sample faster (--interval "
                               "0.1s): the rules need ", std::to_string(kMinSteadySamples),
                               " samples after the warm-up (the first sample only starts the counters)"));
  f.figures.push_back(cat(std::to_string(a.steady_samples), " steady samples of ", std::to_string(a.samples),
                          a.samples > 1 ? cat(" (warm-up ", figure(a.warmup_s, "s"), " left out)") : ""));
  if (a.usage) {
    const JobUsage& u = *a.usage;
    f.figures.push_back(cat("the command ran ", figure(u.wall_s, "s"), ": CPU ", figure(u.user_s + u.system_s, "s"),
                            " (user ", figure(u.user_s, "s"), ", system ", figure(u.system_s, "s"), "), read ",
                            bytes_label(u.read_bytes), " from disks, largest process ", figure(u.max_rss_mb, "MB"),
                            " (wait4 rusage, its waited-for children included)"));
  }
  if (a.seen_processes > 0) {
    f.figures.push_back(cat("seen while sampled: up to ", std::to_string(a.seen_processes), " processes, ",
                            std::to_string(a.seen_threads), " threads, ", figure(a.seen_cpu_s, "s"), " of CPU"));
  }
  return f;
}

std::optional<WatchFinding> gpu_straggler_sawtooth(const WatchAnalysis& a) {
  if (!a.sawtooth.found) return std::nullopt;
  WatchFinding f = finding("gpu_straggler_sawtooth", stage_name::comm,
                           cat("waiting on communication or a straggler: gpu", std::to_string(a.sawtooth.leader),
                               "'s utilization dips first"),
                           "look for a slow rank (its input pipeline, a throttled GPU, a slower link) and at the "
                           "collective's overlap with compute");
  f.figures.push_back(cat("gpu", std::to_string(a.sawtooth.leader), " started ", std::to_string(a.sawtooth.led), " of ",
                          std::to_string(a.sawtooth.events), " dips shared by several GPUs, ",
                          figure(a.sawtooth.mean_lead_s, "s"), " before the next GPU on average"));
  add_gpu_figures(a, f);
  return f;
}

std::optional<WatchFinding> input_loader_bound(const WatchAnalysis& a);
std::optional<WatchFinding> step_bound(const WatchAnalysis& a);

std::optional<WatchFinding> input_single_process(const WatchAnalysis& a) {
  if (!gpu_low(a) || !thread_saturated(a) || a.job.busy_processes_median > 1 || a.job.busy_threads_median > 1) {
    return std::nullopt;
  }
  // A job with loader workers is not the num_workers=0 pattern: the roles say which is bound.
  if (input_loader_bound(a) || step_bound(a)) return std::nullopt;
  WatchFinding f = finding("input_single_process", "input",
                           "input pipeline bound, single process (the num_workers=0 pattern)",
                           "load and decode in worker processes (DataLoader num_workers > 0, "
                           "persistent_workers=True), or move decoding to the GPU");
  f.figures.push_back(gpu_util_figure(a));
  f.figures.push_back(thread_figure(a));
  f.figures.push_back(busy_figure(a));
  return f;
}

// Whether the job itself uses this share of a busy host (another tenant's load is not its input).
bool job_owns_host_cpu(const WatchAnalysis& a) {
  const double cores = std::max(1, a.host.cores);
  return a.job.cpu_pct_median >= kJobShareOfHost * a.host.cpu_median * cores;
}

std::optional<WatchFinding> input_cpu_saturated(const WatchAnalysis& a) {
  if (!gpu_low(a) || a.host.cpu_median < kHostCpuBusyPct || !job_owns_host_cpu(a)) return std::nullopt;
  WatchFinding f = finding("input_cpu_saturated", "input", "input pipeline bound, CPU saturated: every core is busy",
                           "make each sample cheaper on the CPU (GPU decode with DALI/nvJPEG, smaller "
                           "augmentations, pre-processed data) or use a machine with more cores per GPU");
  f.figures.push_back(gpu_util_figure(a));
  f.figures.push_back(host_figure(a));
  f.figures.push_back(busy_figure(a));
  return f;
}

// Whether the job reads from disk: by its own counters (/proc/PID/io), or where those are
// unreadable (another user's job), by this disk reading most of the time. A busy disk the job
// does not read from is someone else's load.
bool job_reads_from(const WatchAnalysis& a, const DiskStats& d) {
  if (a.job.read_mbs_median) return *a.job.read_mbs_median >= kJobReadsMbs;
  return d.job && d.reading_share >= kDiskReadingShare;
}

// The job's threads spend most of their busy time blocked on I/O.
bool mostly_blocked(const WatchAnalysis& a) {
  return a.job.io_blocked_mean && *a.job.io_blocked_mean >= kBlockedMinPct &&
         a.job.blocked_share_mean >= kBlockedShare;
}

// A disk that can take no more: at a measured ceiling; without one, busy all the time with a
// queue of requests (or busy all the time while the job is not waiting on single reads).
bool saturated(const WatchAnalysis& a, const DiskStats& d, std::string& why) {
  for (const auto& c : d.ceilings) {
    if (c.percent >= kDiskCeilingPct) {
      why = cat(d.name, " runs at ", pct(c.percent), " of its measured ", figure(c.ceiling, c.unit), " (>= ",
                limit(kDiskCeilingPct), ")");
      return true;
    }
  }
  if (!d.ceilings.empty() || d.util_median < kDiskUtilPct) return false;
  if (d.aqu_median >= kSaturatedQueue) {
    why = cat(d.name, " is busy ", pct(d.util_median), " of the time (>= ", limit(kDiskUtilPct), ") with ",
              figure(d.aqu_median), " requests in flight (>= ", plain_number(kSaturatedQueue), ")");
    return true;
  }
  if (mostly_blocked(a)) return false;  // single reads waited on: storage_latency says so
  why = cat(d.name, " is busy ", pct(d.util_median), " of the time (>= ", limit(kDiskUtilPct), ")");
  return true;
}

// The disk the job waits on: saturated, and read by the job.
const DiskStats* limiting_disk(const WatchAnalysis& a, std::string& why) {
  for (const auto& d : a.disks) {
    if (job_reads_from(a, d) && saturated(a, d, why)) return &d;
  }
  return nullptr;
}

std::optional<WatchFinding> storage_bound(const WatchAnalysis& a) {
  if (a.has_gpu && !gpu_low(a)) return std::nullopt;
  std::string why;
  const DiskStats* disk = limiting_disk(a, why);
  if (!disk) return std::nullopt;
  WatchFinding f = finding("storage_bound", stage_name::storage, cat("storage bound on ", disk->name),
                           "read larger sequential chunks (packed shards: WebDataset, TFRecord, Arrow), a page "
                           "cache that holds the dataset, or faster storage");
  if (a.has_gpu) f.figures.push_back(gpu_util_figure(a));
  f.figures.push_back(why);
  f.figures.push_back(disk_figure(*disk));
  if (!disk->job) f.figures.push_back("which disk the job reads from is not known (no open file on a block device): this is the busiest one");
  for (const auto& c : disk->ceilings) f.figures.push_back(c.text);
  if (a.job.read_mbs_median) {
    const double job = *a.job.read_mbs_median;
    f.figures.push_back(cat("the job reads ", figure(job, "MB/s"), " (median, /proc/PID/io)",
                            job < 0.5 * disk->read_mbs_median
                                ? cat(" of the disk's ", figure(disk->read_mbs_median, "MB/s"),
                                      ": other readers keep it saturated, and the job's reads wait behind theirs")
                                : ""));
  }
  return f;
}

std::string blocked_figure(const WatchAnalysis& a) {
  return cat("the job's threads were blocked on I/O ", share(a.job.blocked_share_mean),
             " of the time they were blocked or on a CPU (mean): blocked ", pct(a.job.io_blocked_mean.value_or(0)),
             " of a core, on a CPU ", pct(a.job.cpu_pct_median), " (median), waiting for one ", pct(a.job.run_wait_median),
             a.job.top_blocked_thread.empty() ? ""
                                              : cat("; most blocked thread ", a.job.top_blocked_thread, " ",
                                                    pct(a.job.top_blocked_median), " of the time"),
             a.blocked_how.empty() ? "" : cat(" (", a.blocked_how, ")"));
}

// The disk the job's reads wait on: its own (or the busiest) that it reads and that is not saturated.
const DiskStats* latency_disk(const WatchAnalysis& a) {
  for (const auto& d : a.disks) {
    if (job_reads_from(a, d) && d.reading_share > 0) return &d;
  }
  return nullptr;
}

std::optional<WatchFinding> storage_latency(const WatchAnalysis& a) {
  if ((a.has_gpu && !gpu_low(a)) || !mostly_blocked(a) || storage_bound(a)) return std::nullopt;
  const DiskStats* disk = latency_disk(a);
  if (!disk && a.job.read_mbs_median.value_or(0) < kJobReadsMbs) return std::nullopt;
  const double in_flight = disk ? disk->aqu_median : a.job.io_blocked_mean.value_or(0) / 100.0;
  WatchFinding f = finding("storage_latency", stage_name::storage,
                           cat("waiting on storage latency: ", figure(in_flight), in_flight < 1.5 ? " read" : " reads",
                               " in flight", disk ? cat(" on ", disk->name) : "", ", the disk can take more"),
                           "read in parallel: more loader workers (DataLoader num_workers), several reads in flight "
                           "per worker (threads, io_uring, prefetch_factor), larger reads (packed shards), or "
                           "prefetch the next files while this batch decodes");
  if (a.has_gpu) f.figures.push_back(gpu_util_figure(a));
  f.figures.push_back(blocked_figure(a));
  if (disk) {
    f.figures.push_back(disk_figure(*disk));
    if (disk->ceilings.empty()) {
      f.figures.push_back(cat(disk->name, " is not saturated: ", figure(disk->aqu_median),
                              " requests in flight on average (a disk at its limit keeps a queue; pipecheck run "
                              "measures it with 32 in flight)"));
    }
    for (const auto& c : disk->ceilings) {
      f.figures.push_back(c.text);
    }
  }
  if (a.job.read_mbs_median) f.figures.push_back(cat("the job reads ", figure(*a.job.read_mbs_median, "MB/s"), " (median, /proc/PID/io)"));
  f.figures.push_back(host_figure(a));
  return f;
}

std::optional<WatchFinding> cpu_contention(const WatchAnalysis& a) {
  if ((a.has_gpu && !gpu_low(a)) || a.job.wait_share_median < kWaitShare || a.job.run_wait_median < kWaitMinPct ||
      a.host.others_cores_median < kOthersMinCores) {
    return std::nullopt;
  }
  std::string who;
  if (!a.other_processes.empty()) {
    const auto& top = a.other_processes.front();
    who = cat(" (busiest: ", top.command,
              top.processes > 1 ? cat(", ", std::to_string(top.processes), " processes") : cat(", pid ", std::to_string(top.pid)),
              ")");
  }
  WatchFinding f = finding("cpu_contention", "cpu",
                           cat("CPU contention: the job's threads wait for CPUs that other processes hold", who),
                           "give the job CPUs of its own: stop or move the other work, lower its priority (nice, a "
                           "cgroup cpu.weight), or pin the job and the others to separate cores (taskset, cpusets)");
  if (a.has_gpu) f.figures.push_back(gpu_util_figure(a));
  f.figures.push_back(cat("the job's threads were runnable without a CPU ", share(a.job.wait_share_median),
                          " of the time they wanted one (median): waiting ", pct(a.job.run_wait_median),
                          " of a core, on a CPU ", pct(a.job.cpu_pct_median), " (schedstat)"));
  f.figures.push_back(cat("other processes and the kernel used ", figure(a.host.others_cores_median), " of ",
                          std::to_string(a.host.cores), " cores (median; host CPU ", pct(a.host.cpu_median), ")"));
  f.figures.push_back(a.other_processes.empty()
                          ? std::string("no other process used 1% of a core in the /proc snapshots: kernel work, "
                                        "or processes too short-lived to be seen")
                          : cat("busiest other processes over the watch (% of one core): ",
                                describe_others(a.other_processes)));
  f.figures.push_back(thread_figure(a));
  return f;
}

// The job itself holds every core: more workers cannot run, and cpu_all_cores or
// input_cpu_saturated says so.
bool job_fills_the_cores(const WatchAnalysis& a) {
  return a.job.cpu_pct_median >= kHostCpuBusyPct * std::max(1, a.host.cores);
}

std::optional<WatchFinding> input_loader_bound(const WatchAnalysis& a) {
  const RoleStats& r = a.roles;
  // With a worker per core already, more cannot help: contention or the all-cores rules speak.
  if (!r.found || (a.has_gpu && !gpu_low(a)) || r.workers >= a.host.cores || r.loop_waiting_mean < kLoopWaitingPct ||
      r.workers_demand_mean < kLoaderSaturatedPct || job_fills_the_cores(a)) {
    return std::nullopt;
  }
  const double idle_cores = std::max(0.0, a.host.cores * (1.0 - a.host.cpu_median / 100.0));
  const bool one = r.workers == 1;
  WatchFinding f = finding(
      "input_loader_bound", "input",
      cat("input-bound: ", one ? "the single loader worker is" : cat("the ", std::to_string(r.workers), " loader workers are"),
          " saturated and the training loop waits on ", one ? "it" : "them"),
      cat("raise num_workers (DataLoader) or the pool's processes", idle_cores >= 0.5
              ? cat(": ", figure(idle_cores), " of ", std::to_string(a.host.cores), " cores are idle")
              : ": no core is idle now, so free one or make each sample cheaper",
          "; persistent_workers=True and prefetch_factor 2-4 keep the workers ahead; make each sample cheaper: "
          "DCT-scaled JPEG decode (decode at 1/2-1/8 size before the crop: Pillow's draft()), lighter augmentations, "
          "GPU decode (DALI, nvJPEG); pin_memory=True for the copy to the GPU"));
  if (a.has_gpu) f.figures.push_back(gpu_util_figure(a));
  f.figures.push_back(loop_figure(a));
  f.figures.push_back(loader_figure(a));
  f.figures.push_back(host_figure(a));
  return f;
}

std::optional<WatchFinding> step_bound(const WatchAnalysis& a) {
  const RoleStats& r = a.roles;
  if (!r.found || (a.has_gpu && !gpu_low(a)) || r.loop_demand_mean + r.loop_sleep_mean < kLoopBusyPct ||
      r.workers_demand_mean >= kLoaderIdlePct) {
    return std::nullopt;
  }
  WatchFinding f = finding("step_bound", "step",
                           "step-bound: the training step keeps its thread busy and the loader idles: the input "
                           "pipeline is not the problem",
                           "a faster step: the GPU (or mixed precision, torch.compile, a larger batch on it); on the "
                           "CPU, more intra-op threads (torch.set_num_threads) where cores are idle; profile one step "
                           "(torch.profiler). More loader workers would not help");
  if (a.has_gpu) f.figures.push_back(gpu_util_figure(a));
  f.figures.push_back(loop_figure(a));
  f.figures.push_back(loader_figure(a));
  f.figures.push_back(host_figure(a));
  return f;
}

std::optional<WatchFinding> pcie_bound(const WatchAnalysis& a) {
  if (!gpu_low(a)) return std::nullopt;
  for (const auto& g : a.gpus) {
    for (const auto& c : g.ceilings) {
      if (c.percent < kPcieCeilingPct || c.text.find("host-to-GPU") == std::string::npos) continue;
      WatchFinding f = finding("pcie_bound", stage_name::pcie, cat("host-to-device copies bound on gpu", std::to_string(g.index)),
                               "copy less (uint8 images, decode on the GPU), from pinned memory (pin_memory=True) "
                               "and overlapped with compute (non_blocking=True)");
      f.figures.push_back(gpu_util_figure(a));
      f.figures.push_back(c.text);
      return f;
    }
  }
  return std::nullopt;
}

std::optional<WatchFinding> busy_not_loaded(const WatchAnalysis& a) {
  const auto power = power_share(a);
  if (!gpu_high(a) || !power || *power >= kPowerLowPct) return std::nullopt;
  WatchFinding f = finding("busy_not_loaded", "gpu",
                           "busy but not loaded: small kernels or a small batch; launch-bound",
                           "raise the batch size, fuse kernels (torch.compile), capture CUDA graphs, use mixed "
                           "precision; utilization only says a kernel was running, not how much of the GPU it used");
  add_gpu_figures(a, f);
  return f;
}

std::optional<WatchFinding> compute_bound(const WatchAnalysis& a) {
  const auto power = power_share(a);
  if (!gpu_high(a) || !power || (*power < kPowerHighPct && capped_share(a) < kPowerCappedShare)) return std::nullopt;
  WatchFinding f = finding("compute_bound", "gpu", "compute bound: the healthy state",
                           "the GPU is the bottleneck, as it should be; faster now means less work per step "
                           "(precision, model) or more GPUs");
  add_gpu_figures(a, f);
  for (const auto& g : a.gpus) {
    if (g.slowdown_share > 0) {
      f.figures.push_back(cat("gpu", std::to_string(g.index), ": thermal or hardware slowdown in ", share(g.slowdown_share),
                              " of samples (see pipecheck stress)"));
    }
  }
  return f;
}

std::optional<WatchFinding> gpu_bound(const WatchAnalysis& a) {
  if (!gpu_high(a) || !power_share(a)) return std::nullopt;
  WatchFinding f = finding("gpu_bound", "gpu", "GPU bound, moderately loaded",
                           "the GPU is the busy stage; a larger batch or fused kernels may load it further");
  add_gpu_figures(a, f);
  return f;
}

std::optional<WatchFinding> gpu_waiting(const WatchAnalysis& a) {
  if (!gpu_low(a)) return std::nullopt;
  for (WatchRuleJudge explained :
       {input_single_process, cpu_contention, input_loader_bound, step_bound, input_cpu_saturated, storage_bound,
        storage_latency, pcie_bound}) {
    if (explained(a)) return std::nullopt;
  }
  WatchFinding f = finding("gpu_waiting", "gpu",
                           "the GPU waits, on something not sampled here (Python between steps, host syncs, "
                           "the network, a lock)",
                           "profile one step (torch.profiler): look for .item()/.cpu() syncs and gaps between kernels");
  f.figures.push_back(gpu_util_figure(a));
  f.figures.push_back(thread_figure(a));
  f.figures.push_back(host_figure(a));
  return f;
}

std::optional<WatchFinding> cpu_single_thread(const WatchAnalysis& a) {
  if (a.has_gpu || !thread_saturated(a) || a.job.busy_threads_median > 1) return std::nullopt;
  // The busy thread is a loader's worker or the training step: the roles say which, and what to
  // try; "parallelize it" would blur the two (issue 25).
  if (input_loader_bound(a) || step_bound(a)) return std::nullopt;
  WatchFinding f = finding("cpu_single_thread", "cpu", "single-threaded CPU bound",
                           "the job runs on one core: parallelize it (worker processes, threads) or make that "
                           "thread's work cheaper");
  f.figures.push_back(thread_figure(a));
  f.figures.push_back(busy_figure(a));
  f.figures.push_back(host_figure(a));
  return f;
}

std::optional<WatchFinding> cpu_all_cores(const WatchAnalysis& a) {
  if (a.has_gpu || a.host.cpu_median < kHostCpuBusyPct || !job_owns_host_cpu(a)) return std::nullopt;
  WatchFinding f = finding("cpu_all_cores", "cpu", "CPU bound on every core",
                           "the CPUs are the limit: cheaper work per item or more cores");
  f.figures.push_back(host_figure(a));
  f.figures.push_back(busy_figure(a));
  return f;
}

std::optional<WatchFinding> cpu_multi_thread(const WatchAnalysis& a) {
  if (a.has_gpu || a.job.busy_threads_median < 2 || a.host.cpu_median >= kHostCpuBusyPct) return std::nullopt;
  WatchFinding f = finding("cpu_multi_thread", "cpu",
                           cat("CPU bound on ", plain_number(a.job.busy_threads_median), " threads, with cores to spare"),
                           "more workers or threads would use the idle cores");
  f.figures.push_back(busy_figure(a));
  f.figures.push_back(host_figure(a));
  return f;
}

std::optional<WatchFinding> periodic_idle(const WatchAnalysis& a) {
  if (!a.periodic.found || a.periodic.idle_share < kPeriodicLostShare) return std::nullopt;
  WatchFinding f = finding("periodic_idle", "periodic",
                           cat("periodic work (evaluation, checkpoints): ", a.periodic_signal, " drops to idle every ",
                               figure(a.periodic.period_s, "s"), ", losing ", share(a.periodic.idle_share),
                               " of the time"),
                           "make the periodic work rarer, asynchronous (checkpoint in a background thread) or "
                           "overlapped with training");
  f.figures.push_back(cat(std::to_string(a.periodic.episodes), " idle episodes of ", figure(a.periodic.mean_idle_s, "s"),
                          " on average, one every ", figure(a.periodic.period_s, "s"), " (median gap)"));
  return f;
}

std::optional<WatchFinding> job_idle(const WatchAnalysis& a) {
  if (a.has_gpu || a.job.cpu_pct_median >= kJobIdlePct || a.job.io_blocked_mean.value_or(0) >= kBlockedMinPct) {
    return std::nullopt;
  }
  for (const auto& d : a.disks) {
    if (d.job && d.util_median >= kDiskUtilPct) return std::nullopt;
  }
  WatchFinding f = finding("job_idle", "none",
                           "mostly waiting: on something outside the CPUs and local disks (sleep, network, locks)",
                           "look at what the job blocks on (py-spy dump, strace -p)");
  f.figures.push_back(host_figure(a));
  return f;
}

}  // namespace

const std::vector<WatchRule>& watch_rules() {
  static const std::vector<WatchRule> rules = {
      {"too_short", "any", cat("fewer than ", std::to_string(kMinSteadySamples), " steady samples (what was seen is said)"),
       "too short to judge", too_short},
      {"gpu_straggler_sawtooth", "2+ GPUs",
       cat("one GPU starts >= ", limit_share(kLeadShare), " of >= ", std::to_string(kMinDipEvents),
           " utilization dips shared by several GPUs (dip: below ", limit_share(kDipShare), " of its median)"),
       "waiting on communication or on a straggler", gpu_straggler_sawtooth},
      {"input_single_process", "GPU",
       cat("GPU util < ", limit(kGpuLowPct), "; one thread's demand >= ", limit(kThreadSaturatedPct), " of a core in >= ",
           limit_share(kSaturatedShare), " of samples; <= 1 busy thread and process"),
       "input pipeline bound, single process (num_workers=0 pattern)", input_single_process},
      {"storage_bound", "any",
       cat("GPU util < ", limit(kGpuLowPct), " or no GPU; the job reads >= ", plain_number(kJobReadsMbs),
           " MB/s (/proc/PID/io; unreadable: its disk reads in >= ", limit_share(kDiskReadingShare),
           " of samples); that disk saturated: >= ", limit(kDiskCeilingPct), " of the MB/s (or, for reads <= ",
           bytes_label(kSmallReadBytes), ", the IOPS) pipecheck run measured for it; without a measurement, "
           "%util >= ", limit(kDiskUtilPct), " with >= ", plain_number(kSaturatedQueue),
           " requests in flight (or with fewer, unless the job's threads wait on single reads)"),
       "storage bound", storage_bound},
      {"input_loader_bound", "any",
       cat("GPU util < ", limit(kGpuLowPct), " or no GPU; roles: a training process with worker children, fewer "
           "than the cores; its main thread waits on another process or thread (S, not a timed sleep) >= ",
           limit(kLoopWaitingPct), " of the time; its workers' demand >= ", limit(kLoaderSaturatedPct),
           " of a core on average; the job does not fill every core (>= ", limit(kHostCpuBusyPct),
           " of each). Before contention: the roles name the bound, contention why the workers are slow"),
       "input-bound: the loader's workers are saturated and the training loop waits on them", input_loader_bound},
      {"step_bound", "any",
       cat("GPU util < ", limit(kGpuLowPct), " or no GPU; roles as above; the main thread on a CPU, runnable or in "
           "a timed sleep >= ", limit(kLoopBusyPct), " of the time; its workers' demand < ", limit(kLoaderIdlePct),
           " of a core on average"),
       "step-bound: the training step is busy, the loader idles (the input pipeline is not the bound)", step_bound},
      {"cpu_contention", "any",
       cat("GPU util < ", limit(kGpuLowPct), " or no GPU; the job's threads runnable without a CPU >= ",
           limit_share(kWaitShare), " of the time they want one and >= ", limit(kWaitMinPct),
           " of a core (schedstat); other processes use >= ", plain_number(kOthersMinCores), " cores"),
       "CPU contention: other processes hold the CPUs (named)", cpu_contention},
      {"input_cpu_saturated", "GPU",
       cat("GPU util < ", limit(kGpuLowPct), "; host CPU >= ", limit(kHostCpuBusyPct), ", the job using >= ",
           limit_share(kJobShareOfHost), " of it"),
       "input pipeline bound, CPU saturated", input_cpu_saturated},
      {"storage_latency", "any",
       cat("GPU util < ", limit(kGpuLowPct), " or no GPU; the job reads (as above); its threads blocked on I/O >= ",
           limit_share(kBlockedShare), " of the time blocked or on a CPU and >= ", limit(kBlockedMinPct),
           " of a core (delay accounting, else thread states at >= 10 Hz); the disk not saturated"),
       "waiting on storage latency: N reads in flight, the disk can take more", storage_latency},
      {"pcie_bound", "GPU",
       cat("GPU util < ", limit(kGpuLowPct), "; PCIe RX >= ", limit(kPcieCeilingPct), " of the measured pinned H2D rate"),
       "host-to-device copies bound", pcie_bound},
      {"busy_not_loaded", "GPU", cat("GPU util >= ", limit(kGpuHighPct), "; power < ", limit(kPowerLowPct), " of the limit"),
       "busy but not loaded: small kernels or batch; launch-bound", busy_not_loaded},
      {"compute_bound", "GPU",
       cat("GPU util >= ", limit(kGpuHighPct), "; power >= ", limit(kPowerHighPct), " of the limit or SwPowerCap in >= ",
           limit_share(kPowerCappedShare), " of samples"),
       "compute bound, the healthy state", compute_bound},
      {"gpu_bound", "GPU", cat("GPU util >= ", limit(kGpuHighPct), "; power in between"), "GPU bound, moderately loaded",
       gpu_bound},
      {"gpu_waiting", "GPU", cat("GPU util < ", limit(kGpuLowPct), "; no rule above"),
       "GPU waiting on something not sampled", gpu_waiting},
      {"cpu_single_thread", "no GPU",
       cat("one thread's demand >= ", limit(kThreadSaturatedPct), " of a core in >= ", limit_share(kSaturatedShare),
           " of samples; <= 1 busy thread"),
       "single-threaded CPU bound", cpu_single_thread},
      {"cpu_all_cores", "no GPU",
       cat("host CPU >= ", limit(kHostCpuBusyPct), "; the job uses >= ", limit_share(kJobShareOfHost), " of it"),
       "CPU bound on every core", cpu_all_cores},
      {"cpu_multi_thread", "no GPU",
       cat(">= 2 busy threads (demand >= ", limit(kBusyThreadPct), "); host CPU < ", limit(kHostCpuBusyPct)),
       "CPU bound on N threads, cores to spare", cpu_multi_thread},
      {"periodic_idle", "any",
       cat("GPU util <= ", limit(kGpuIdlePct), " (no GPU: job CPU <= ", limit(kCpuIdlePct),
           " of a core) in >= ", std::to_string(kPeriodicMinEpisodes),
           " episodes (with the samples around them idle >= ", limit_share(kMostlyIdle),
           " of their interval; partly idle ones count by their idle share, 1 - value / the busy median) at a regular period (",
           limit_share(kPeriodRegularShare), " of gaps (all below 4 gaps) within ", limit_share(kPeriodTolerance),
           " or 1 sample; period >= 4 samples); >= ",
           limit_share(kPeriodicLostShare), " of the time lost"),
       "periodic work (evaluation, checkpoints): period and share lost", periodic_idle},
      {"job_idle", "no GPU",
       cat("job CPU < ", limit(kJobIdlePct), " of a core; blocked on I/O < ", limit(kBlockedMinPct),
           " of a core; no disk of the job at >= ", limit(kDiskUtilPct)),
       "mostly waiting (sleep, network, locks)", job_idle},
  };
  return rules;
}

double busy_thread_demand_pct() { return kBusyThreadPct; }
double saturated_thread_demand_pct() { return kThreadSaturatedPct; }

AnalysisOptions watch_analysis_options() {
  AnalysisOptions options;
  for (PeriodicityOptions* p : {&options.gpu_periodicity, &options.cpu_periodicity}) {
    p->min_episodes = kPeriodicMinEpisodes;
    p->tolerance_share = kPeriodTolerance;
    p->regular_share = kPeriodRegularShare;
    p->mostly_idle = kMostlyIdle;
    p->edge_idle = kEdgeIdle;
  }
  options.gpu_periodicity.idle_below = kGpuIdlePct;
  options.cpu_periodicity.idle_below = kCpuIdlePct;
  options.sawtooth.dip_share = kDipShare;
  options.sawtooth.lead_share = kLeadShare;
  options.sawtooth.min_events = kMinDipEvents;
  options.warmup_share = kWarmupShare;
  options.warmup_max_s = kWarmupMaxS;
  options.reading_min_mbs = kJobReadsMbs;
  options.small_read_bytes = kSmallReadBytes;
  return options;
}

WatchVerdict judge_watch(const WatchAnalysis& analysis) {
  WatchVerdict verdict;
  for (const auto& rule : watch_rules()) {
    auto found = rule.judge(analysis);
    if (!found) continue;
    verdict.findings.push_back(*found);
    if (!verdict.headline) verdict.headline = *found;
    // Too short to judge: the other rules would judge noise.
    if (rule.judge == too_short) break;
  }
  return verdict;
}

std::string render_rules_table() {
  std::ostringstream out;
  out << "#   rule                    applies   condition -> verdict\n";
  int number = 0;
  for (const auto& rule : watch_rules()) {
    char head[96];
    std::snprintf(head, sizeof head, "%-3d %-23s %-9s ", number++, rule.id, rule.applies);
    out << head << rule.condition << "\n" << std::string(37, ' ') << "-> " << rule.verdict << "\n";
  }
  out << "The first rule that fires is the verdict; every rule that fires is listed. Busy thread: demand >= "
      << limit(kBusyThreadPct) << " of a core. Steady samples: after a warm-up of " << limit_share(kWarmupShare)
      << " of the run (at most " << plain_number(kWarmupMaxS) << " s" << "), outside periodic idle.\n";
  return out.str();
}

}  // namespace pipecheck
