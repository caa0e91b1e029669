// From the samples of a watch to the figures its rules read: per GPU, for the job, the host and
// each disk, the medians over the steady part of the run (warm-up, the priming sample and idle
// episodes left out), the per-sample series the rules take shares of, the periodic-idle and
// multi-GPU sawtooth patterns, and each observed rate against its measured ceiling.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "watch/gpu_sawtooth.hpp"
#include "watch/other_processes.hpp"
#include "watch/periodicity.hpp"
#include "watch/watch_baseline.hpp"
#include "watch/watch_sample.hpp"

namespace pipecheck {

// "reads 182 MB/s from sda = 96% of its measured 190 MB/s"
struct CeilingComparison {
  std::string stage;    // storage or pcie (core/stage_names.hpp)
  std::string subject;  // "sda", "gpu0"
  double observed = 0;
  double ceiling = 0;
  std::string unit;  // "MB/s", "IOPS"
  double percent = 0;
  std::string text;
  std::string measured_by;  // the measurement's key in the run it came from
  bool jobs = true;         // the job's own I/O counters show the rate is (mostly) its own
};

struct GpuStats {
  int index = -1;
  std::string bus_id;
  int samples = 0;
  std::vector<double> util;         // per steady sample
  std::vector<double> power_share;  // power / limit, %, per steady sample with both
  double util_median = 0;
  std::optional<double> power_share_median;
  std::optional<double> power_median_w;
  std::optional<double> power_limit_w;
  std::optional<double> pcie_rx_median_mbs;
  std::optional<double> pcie_tx_median_mbs;
  std::optional<double> mem_used_max_mib;
  std::optional<double> sm_clock_median_mhz;
  double power_capped_share = 0;  // samples with SwPowerCap set
  double slowdown_share = 0;      // samples with a thermal or hardware slowdown set
  std::vector<CeilingComparison> ceilings;
};

struct JobStats {
  std::vector<double> top_demand;  // busiest thread's demand, % of a core, per steady sample
  std::vector<double> busy_threads;
  std::vector<double> busy_processes;
  double cpu_pct_median = 0;
  double top_demand_median = 0;
  double top_cpu_median = 0;
  std::string top_thread;  // the thread most often the busiest ("python:4242")
  double busy_threads_median = 0;
  double busy_processes_median = 0;
  int max_processes = 0;
  int max_threads = 0;
  std::optional<double> read_mbs_median;
  // Run-queue wait (runnable, no CPU) summed over the threads, % of one core, and its share of
  // the threads' demand (on a CPU + waiting for one), per steady sample where the job wanted a CPU.
  double run_wait_median = 0;
  std::vector<double> wait_share;
  double wait_share_median = 0;
  // Blocked on I/O, summed over the threads, % of one core (the job's reads in flight x 100),
  // and its share of the threads' time blocked or on a CPU (waiting for a CPU left out: that is
  // the machine's doing, not the job's pace): the mean
  // over the steady samples, and the ratio of the sums (the names say median for symmetry with
  // the other figures; see waiting_stats).
  std::optional<double> io_blocked_mean;
  std::vector<double> blocked_share;
  double blocked_share_mean = 0;
  std::string top_blocked_thread;  // the thread most often the most blocked
  double top_blocked_median = 0;   // its share of the interval, %
};

// The roles (watch/job_roles.hpp) over the steady samples that found them: means, as the
// blocked-on-I/O figures are (each sample's split of the time off a CPU rests on a few looks).
struct RoleStats {
  bool found = false;       // in at least half of the steady samples
  double found_share = 0;
  std::string trainer;      // "python3:4242", the one seen most often
  std::string loop_thread;  // its main thread
  int trainers = 0;         // most processes with workers in one sample
  int workers = 0;          // most workers in one sample
  double trainer_cpu_mean = 0;
  double loop_cpu_mean = 0;
  double loop_demand_mean = 0;
  double loop_run_wait_mean = 0;
  double loop_io_mean = 0;
  double loop_waiting_mean = 0;  // S on another thread or process: the workers' queue, a lock
  double loop_sleep_mean = 0;    // S in a timed sleep
  bool syscalls_read = false;    // the S time was split by syscall (else all of it is waiting)
  double workers_cpu_mean = 0;     // summed, % of one core
  double workers_demand_mean = 0;  // mean worker's demand, % of a core
  double saturated_share = 0;      // saturated workers / workers, mean
  std::string busiest_worker;      // seen most often
};

struct HostStats {
  int cores = 0;
  std::vector<double> cpu;  // all cores, per steady sample
  double cpu_median = 0;
  double iowait_median = 0;
  // Cores' worth of CPU the job did not use: other processes, the kernel, the watch.
  double others_cores_median = 0;
};

// What a command the watch started used over its whole life: wait4's rusage (it and the children
// it waited for) and the time from start to end.
struct JobUsage {
  double wall_s = 0;
  double user_s = 0;
  double system_s = 0;
  double read_bytes = 0;  // ru_inblock x 512: what it caused to be read from block devices
  double max_rss_mb = 0;  // its largest process
};

struct DiskStats {
  std::string name;
  bool job = false;
  std::string evidence;  // why it is the job's: "/data/x (pid 42)"; "" for a busy disk
  std::vector<double> util;
  double util_median = 0;
  double read_mbs_median = 0;
  double reading_share = 0;          // steady samples with reads of at least 1 MB/s
  double read_mbs_while_reading = 0; // median over those samples
  double read_iops_while_reading = 0;
  double r_await_median_ms = 0;
  double aqu_median = 0;
  std::vector<CeilingComparison> ceilings;
  bool direct = false;  // the job's file on it is open with O_DIRECT (else: through the page cache)
};

struct AnalysisOptions {
  PeriodicityOptions gpu_periodicity;
  PeriodicityOptions cpu_periodicity;
  SawtoothOptions sawtooth;
  double warmup_share = 0.1;  // of the run, at most warmup_max_s, is start-up, not steady
  double warmup_max_s = 30;
  double reading_min_mbs = 1;  // a disk sample with fewer reads is not "reading"
  // IOPS are held against the measured 4 KiB random-read IOPS only when the job's mean read is
  // this small; large reads are bound by MB/s, and their IOPS say nothing about the ceiling.
  double small_read_bytes = 32 * 1024;
};

struct WatchAnalysis {
  int samples = 0;
  int steady_samples = 0;
  // Over every sample, steady or not: what a run too short to judge still showed.
  double seen_cpu_s = 0;  // the job's CPU seconds counted while watched
  int seen_processes = 0;
  int seen_threads = 0;
  double span_s = 0;
  double interval_s = 0;
  double warmup_s = 0;
  bool has_gpu = false;  // some job GPU reported utilization
  double gpu_util_median = 0;  // mean over the job's GPUs, median over steady samples
  std::vector<GpuStats> gpus;  // the job's GPUs
  JobStats job;
  RoleStats roles;
  HostStats host;
  std::vector<DiskStats> disks;  // the job's disks, else the busy ones
  bool disks_are_jobs = false;
  Periodicity periodic;
  std::string periodic_signal;  // "GPU utilization" or "the job's CPU use"
  Sawtooth sawtooth;
  std::vector<CeilingComparison> comparisons;  // every observed rate with a measured ceiling
  // Set by the session after analyze_watch, for the rules' words and figures:
  std::string blocked_how;                     // where the blocked-on-I/O time came from
  std::vector<OtherProcess> other_processes;   // the busiest processes outside the job
  std::optional<JobUsage> usage;               // a command's whole-life use, once it ended
};

// `device_evidence`: why each of the job's disks is the job's (JobDeviceFinder::evidence);
// `direct_disks`: those it reads with O_DIRECT (held against the direct-read ceiling; the others
// against the cold buffered read, where the run measured one).
WatchAnalysis analyze_watch(const std::vector<WatchSample>& samples, const MeasuredCeilings* ceilings,
                            const AnalysisOptions& options,
                            const std::vector<std::pair<std::string, std::string>>& device_evidence = {},
                            const std::set<std::string>& direct_disks = {});

// The share (0..1) of values at or above a threshold; 0 for none.
double share_at_least(const std::vector<double>& values, double threshold);

}  // namespace pipecheck
