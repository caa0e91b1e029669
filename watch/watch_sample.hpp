// One tick of `pipecheck watch`: the GPUs, the job's process tree, the host's CPUs and the job's
// disks, all read at one instant. The sampler fills it, watch.csv stores it, the rules read it.
// Empty optionals are "not reported" (no NVML, a counter this kernel lacks), never zero.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pipecheck {

struct GpuWatch {
  int index = -1;          // NVML index
  std::string bus_id;      // "0000:17:00.0"
  bool job = true;  // the job has a context on it (true too when NVML cannot tell)
  std::optional<double> util_pct;      // nvmlDeviceGetUtilizationRates .gpu
  std::optional<double> mem_util_pct;  // .memory (memory controller busy)
  std::optional<double> sm_clock_mhz;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
  std::optional<double> mem_used_mib;
  std::optional<double> pcie_rx_mbs;  // into the GPU (host to device), MB/s
  std::optional<double> pcie_tx_mbs;  // out of the GPU
  std::optional<std::uint64_t> throttle_mask;
};

// CPU figures of a set of threads over the last interval. "Demand" is the share of the interval
// a thread was on a CPU or runnable and waiting for one (/proc/.../schedstat): a CPU-bound
// thread on a busy machine shows 100% demand even when it only got half a core.
// Run-queue wait: the part of demand spent runnable without a CPU, while other processes (or
// the job's own threads) held them. Blocked on I/O: the share of the interval a thread spent
// waiting for block I/O, from the kernel's delay accounting (delayacct_blkio_ticks, field 42 of
// /proc/PID/task/TID/stat) where it is on, else from the thread's state (D, uninterruptible
// sleep) looked at >= 10 times a second between samples.
// One thread's interval: where its time went, % of the interval. Off a CPU, its looks split the
// time (see ProcessTreeSampler): D is I/O; S in a timed sleep (nanosleep, clock_nanosleep) is a
// pause the thread chose; S in wait4/waitid or a signal wait (sigsuspend) is a launcher waiting
// for its child to end; any
// other S is waiting on another thread or process (a queue, a pipe, a socket, a lock).
struct ThreadTime {
  std::string name;  // "comm:tid"
  double cpu_pct = 0;
  double demand_pct = 0;    // on a CPU or runnable
  double run_wait_pct = 0;  // runnable without a CPU
  double io_pct = 0;        // D
  double waiting_pct = 0;   // S, not a timed sleep, not reaping a child
  double sleep_pct = 0;     // S in a timed sleep
  double reaping_pct = 0;   // S in wait4/waitid/rt_sigsuspend/rt_sigtimedwait/pause
  bool syscalls_read = false;  // /proc/.../syscall was readable: the S time is split; else all is waiting
};

struct ProcWatch {
  int pid = 0;
  std::string comm;  // sanitized: no ',', '|', quotes or control characters
  double cpu_pct = 0;  // of one core, summed over its threads
  double cpu_s = 0;    // cumulative CPU seconds seen while watching
  int threads = 0;
  int busy_threads = 0;
  double top_thread_pct = 0;
  double top_thread_demand_pct = 0;
  std::string top_thread;  // "comm:tid"
  std::optional<double> read_mbs;  // /proc/PID/io read_bytes rate (needs ptrace access)
  double run_wait_pct = 0;                 // summed over its threads, % of one core
  std::optional<double> io_blocked_pct;    // summed over its threads, % of one core
  ThreadTime main_thread;                  // the thread whose tid is the pid (Python's, most programs' loop)
  int ppid = 0;                            // its parent: the tree's shape, for the roles
};

// The roles in a job, from its process tree: a training process (the loop) and its worker
// children (the loader: DataLoader workers, a multiprocessing pool, any program's forked
// workers). The training process is the one whose children include processes without children
// of their own (workers), not a launcher waiting for its child to end (a shell in wait4); of
// several (torchrun's ranks), the one that with its workers used the most CPU.
struct RolesWatch {
  bool found = false;
  int trainer_pid = 0;
  std::string trainer;  // "python3:4242"
  int trainers = 0;     // processes with workers
  double trainer_cpu_pct = 0;  // all its threads, % of one core
  ThreadTime loop;             // its main thread
  int workers = 0;
  double workers_cpu_pct = 0;     // summed, % of one core
  double workers_demand_pct = 0;  // mean over the workers of each one's busiest thread's demand
  int workers_saturated = 0;      // workers whose busiest thread's demand is >= 90% of a core
  std::string busiest_worker;     // its busiest thread, "comm:tid"
  double busiest_worker_demand_pct = 0;
};

// The whole process tree: root and every descendant.
struct JobWatch {
  int processes = 0;
  int threads = 0;
  double cpu_pct = 0;
  double cpu_s = 0;
  int busy_threads = 0;
  int busy_processes = 0;
  double top_thread_pct = 0;
  double top_thread_demand_pct = 0;
  std::string top_thread;
  std::optional<double> read_mbs;
  double run_wait_pct = 0;               // summed over the threads, % of one core
  std::optional<double> io_blocked_pct;  // summed over the threads, % of one core
  double top_blocked_pct = 0;            // the thread blocked on I/O the longest, % of the interval
  std::string top_blocked_thread;        // "comm:tid"
};

struct HostWatch {
  std::optional<double> cpu_pct;     // all cores
  std::optional<double> iowait_pct;  // share of all CPU time spent idle with I/O outstanding
  std::vector<double> core_pct;      // per core, in /proc/stat order
};

// One block device over the last interval, computed as iostat -x does from /proc/diskstats.
struct DiskWatch {
  std::string name;     // "nvme0n1"
  bool job = false;     // backs a file the job has open (else: a busy disk, the fallback)
  double read_mbs = 0;
  double read_iops = 0;
  double write_mbs = 0;
  double write_iops = 0;
  double util_pct = 0;    // io_ticks share of the interval (iostat %util)
  double r_await_ms = 0;  // mean time a read spent queued and served (iostat r_await)
  double aqu_sz = 0;      // mean requests in flight (iostat aqu-sz)
};

struct WatchSample {
  std::string utc_time;  // "2026-11-30T09:00:01.250Z"
  double elapsed_s = 0;  // since watching began
  std::vector<GpuWatch> gpus;
  JobWatch job;
  std::vector<ProcWatch> procs;
  RolesWatch roles;
  HostWatch host;
  std::vector<DiskWatch> disks;
};

}  // namespace pipecheck
