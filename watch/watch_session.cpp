// Running a watch: the job, the sampling loop, and the results at the end.
#include "watch/watch_session.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "core/text_escape.hpp"
#include "pipecheck_config.hpp"
#include "core/figure_text.hpp"
#include "core/utc_clock.hpp"
#include "watch/cpu_stats.hpp"
#include "watch/disk_stats.hpp"
#include "watch/gpu_watch_sampler.hpp"
#include "watch/job_devices.hpp"
#include "watch/job_roles.hpp"
#include "watch/other_processes.hpp"
#include "watch/watch_csv.hpp"
#include "watch/watch_live.hpp"
#include "watch/watch_render_html.hpp"
#include "watch/watch_render_json.hpp"
#include "watch/watch_render_text.hpp"

extern char** environ;

namespace pipecheck {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::atomic<bool> g_stop{false};
std::atomic<pid_t> g_child{0};  // the command we started; 0 when attached to a pid

constexpr auto kPoll = std::chrono::milliseconds(50);  // how soon the end of the job is noticed
// The open and mapped files of a new process are looked at when it is first seen, every
// process's again every this many samples: a full scan of a job with thousands of open files
// and long maps costs more than all the other sampling.
constexpr int kRescanEvery = 10;

double thread_cpu_ms() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

// What the command used, from wait4's rusage (it and the children it waited for).
JobUsage usage_of(const rusage& usage, double wall_s) {
  JobUsage u;
  u.wall_s = wall_s;
  u.user_s = static_cast<double>(usage.ru_utime.tv_sec) + static_cast<double>(usage.ru_utime.tv_usec) / 1e6;
  u.system_s = static_cast<double>(usage.ru_stime.tv_sec) + static_cast<double>(usage.ru_stime.tv_usec) / 1e6;
  u.read_bytes = static_cast<double>(usage.ru_inblock) * 512.0;  // the kernel counts read_bytes / 512
  u.max_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;   // KiB
  return u;
}

// How the job ended, from a wait status.
void record_ending(int status, WatchReport& report, int& exit_code) {
  if (WIFEXITED(status)) {
    exit_code = WEXITSTATUS(status);
    report.job_ending = "exit code " + std::to_string(exit_code);
  } else if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    exit_code = 128 + sig;  // as a shell reports it
    report.job_ending = "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  report.job_exit_code = exit_code;
}

// The interpreter a script's "#!" line names, or "" when `path` is no such script.
std::string interpreter_of(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::string line;
  if (!file || !std::getline(file, line) || line.rfind("#!", 0) != 0) return "";
  const auto start = line.find_first_not_of(" \t", 2);
  if (start == std::string::npos) return "";
  const auto end = line.find_first_of(" \t\r", start);
  return line.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

pid_t spawn_command(const std::vector<std::string>& command) {
  const std::string path = resolve_command(command.front());
  std::vector<char*> argv;
  for (const auto& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  // Started with SIGCHLD ignored (some launchers do), the kernel would reap the command itself
  // and waitpid could never see it end: the default for us, and for the command (SETSIGDEF).
  signal(SIGCHLD, SIG_DFL);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGCHLD);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  // Same process group and terminal as the watch: the job reads the keyboard and gets ^C as
  // it would without the watch. Its stdio is ours, untouched.
  const int rc = posix_spawn(&pid, path.c_str(), nullptr, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    const std::string shown = "watch: cannot run '" + shortened(escape_name(command.front()), 80) + "': ";
    // The script exists, so ENOENT is about its "#!" line: say whose it is.
    const std::string interpreter = rc == ENOENT || rc == EACCES ? interpreter_of(path) : "";
    if (!interpreter.empty()) {
      throw UsageError(shown + "its interpreter '" + shortened(escape_name(interpreter), 80) + "' (the #! line): " +
                       std::strerror(rc));
    }
    throw UsageError(shown + std::strerror(rc));
  }
  return pid;
}

// Everything the sampling loop owns.
struct Samplers {
  ProcessTreeSampler tree;
  CpuStatsSampler cpu;
  DiskStatsSampler disks;
  JobDeviceFinder devices;
  GpuWatchSampler& gpus;
  OtherProcessesSampler others;
  std::vector<std::string> forced_disks;
  std::set<int> scanned;  // pids whose files were looked at
  int tick = 0;
};

WatchSample take_sample(Samplers& s, Clock::time_point start, bool& root_alive) {
  const auto now = Clock::now();
  WatchSample sample;
  sample.utc_time = utc_now_iso_ms();
  sample.elapsed_s = std::chrono::duration<double>(now - start).count();
  ProcessTreeReading tree = s.tree.sample(now);
  root_alive = tree.root_alive;
  if (root_alive) s.others.sample(sample.elapsed_s, tree.pids);
  std::vector<int> new_pids;
  for (int pid : tree.pids) {
    if (s.scanned.insert(pid).second) new_pids.push_back(pid);
  }
  s.devices.scan(s.tick % kRescanEvery == 0 ? tree.pids : new_pids, true);
  ++s.tick;
  sample.job = tree.job;
  sample.roles = job_roles(tree.procs, saturated_thread_demand_pct());
  sample.procs = std::move(tree.procs);
  sample.gpus = s.gpus.sample(tree.pids);
  sample.host = s.cpu.sample();
  sample.disks = s.disks.sample(now, s.forced_disks.empty() ? s.devices.devices() : s.forced_disks);
  return sample;
}

// The ceilings of an earlier run: the one named, else the latest of this host, else none.
std::optional<MeasuredCeilings> find_ceilings(const WatchConfig& config, WatchReport& report) {
  if (config.baseline) return load_measured_ceilings(*config.baseline);
  report.baseline_wanted = config.find_baseline;
  if (!config.find_baseline) return std::nullopt;
  const auto latest = latest_run_folder(config.results_root, report.host);
  if (!latest) {
    report.notes.push_back("no results of pipecheck run for " + report.host + " under " + config.results_root.string() +
                           ": rates are not compared with measured ceilings (--baseline DIR)");
    return std::nullopt;
  }
  try {
    MeasuredCeilings ceilings = load_measured_ceilings(*latest);
    if (ceilings.host != report.host) {  // a copied folder: another machine's ceilings
      report.notes.push_back("latest run " + latest->string() + " was measured on " + ceilings.host +
                             ", not " + report.host + ": not used (--baseline DIR to use it anyway)");
      return std::nullopt;
    }
    return ceilings;
  } catch (const std::exception& e) {
    report.notes.push_back(std::string("latest run not read: ") + e.what());
    return std::nullopt;
  }
}

struct Job {
  pid_t root = 0;
  std::uint64_t starttime = 0;  // tells the attached process from a later one with its pid
  bool ours = false;
  std::vector<ChildProcess> watchers_own_children;  // ours from before the command started
  bool ended = false;
  int exit_code = 0;
  Clock::time_point started;
  std::optional<JobUsage> usage;  // a command of ours, once reaped
};

void reaped(Job& job, int status, const rusage& usage, WatchReport& report) {
  record_ending(status, report, job.exit_code);
  job.usage = usage_of(usage, std::chrono::duration<double>(Clock::now() - job.started).count());
  job.ended = true;
  g_child.store(0);
}

// Our command was reaped by someone else (SIGCHLD ignored after all): it ended, code unknown.
void lost_child(Job& job, WatchReport& report) {
  job.ended = true;
  job.exit_code = 1;
  report.job_ending = "ended (exit code unknown: the command was reaped before the watch could see it)";
  g_child.store(0);
}

// Whether the job is over: our child reaped, or the attached pid gone.
bool job_over(Job& job, const SysfsRoot& root, WatchReport& report) {
  if (job.ended) return true;
  if (job.ours) {
    // Any child: the command, or an orphan of it the watch adopted as subreaper.
    for (;;) {
      int status = 0;
      rusage usage{};
      const pid_t done = wait4(-1, &status, WNOHANG, &usage);
      if (done == job.root) {
        reaped(job, status, usage, report);
      } else if (done < 0 && errno == ECHILD) {
        lost_child(job, report);
      }
      if (done <= 0 || job.ended) break;
    }
  } else if (std::uint64_t now = 0; !process_alive(root, job.root, &now) || now != job.starttime) {
    job.ended = true;
    report.job_ending = "exited (not started by the watch: its exit code is its parent's to see)";
  }
  return job.ended;
}

struct Loop {
  const WatchConfig& config;
  Samplers& samplers;
  WatchCsvWriter& csv;
  WatchDisplay* display;
  const MeasuredCeilings* ceilings;
  WatchOutcome& outcome;
  Job& job;
  double sampler_cpu_ms = 0;
  int state_looks = 0;  // thread-state looks between samples
};

std::string verdict_so_far(const Loop& loop) {
  const WatchAnalysis analysis = analyze_watch(loop.outcome.samples, loop.ceilings, watch_analysis_options());
  const WatchVerdict verdict = judge_watch(analysis);
  return verdict.headline ? verdict.headline->verdict : "no pattern yet";
}

// Between samples, the state of each of the job's threads is looked at state_looks_per_s times
// a second (without delay accounting): the share of looks in D is its time blocked on I/O.
void look_at_states(Loop& loop, Clock::time_point now, Clock::time_point& next_look) {
  if (loop.samplers.tree.blocked_source() != BlockedSource::thread_states || now < next_look) return;
  const double cpu_before = thread_cpu_ms();
  loop.samplers.tree.look_at_thread_states();
  ++loop.state_looks;
  loop.sampler_cpu_ms += thread_cpu_ms() - cpu_before;
  const auto every = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(1.0 / std::max(1.0, loop.config.state_looks_per_s)));
  next_look += every;
  if (next_look < now) next_look = now + every;
}

// Waits for the next tick; false when the watch should end instead.
bool wait_for_tick(Loop& loop, Clock::time_point start, Clock::time_point next, const SysfsRoot& root) {
  WatchReport& report = loop.outcome.report;
  const double look_every_s = 1.0 / std::max(1.0, loop.config.state_looks_per_s);
  auto next_look = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(look_every_s));
  while (true) {
    if (job_over(loop.job, root, report)) {
      report.stopped_by = "job_exited";
      return false;
    }
    if (g_stop.load()) {
      report.stopped_by = "interrupted";
      return false;
    }
    const auto now = Clock::now();
    if (loop.config.duration_s && std::chrono::duration<double>(now - start).count() >= *loop.config.duration_s) {
      report.stopped_by = "duration";
      return false;
    }
    if (now >= next) return true;
    look_at_states(loop, now, next_look);
    const auto wake = std::min(next, loop.samplers.tree.blocked_source() == BlockedSource::thread_states ? next_look : next);
    std::this_thread::sleep_for(std::clamp<Clock::duration>(wake - Clock::now(), Clock::duration::zero(), kPoll));
  }
}

void run_loop(Loop& loop, Clock::time_point start, const SysfsRoot& root) {
  const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(loop.config.interval_s));
  auto next = start;
  double last_verdict_s = -1e9;
  std::string so_far;
  while (wait_for_tick(loop, start, next, root)) {
    const double cpu_before = thread_cpu_ms();
    bool root_alive = true;
    WatchSample sample = take_sample(loop.samplers, start, root_alive);
    if (!root_alive) {  // ended between the check and the sample: the next check sees it
      next += interval;
      continue;
    }
    try {
      loop.csv.append(sample);
    } catch (const std::exception& e) {
      if (loop.display) loop.display->message(std::string("watch: ") + e.what() + " (the CSV stops here)");
      loop.outcome.report.notes.push_back(std::string("watch.csv incomplete: ") + e.what());
    }
    loop.sampler_cpu_ms += thread_cpu_ms() - cpu_before;
    // Per-process rows live on only in the CSV: kept, they would grow by the job's process count
    // every sample (about 1 GB a day for 72 workers at 1 s).
    sample.procs.clear();
    sample.procs.shrink_to_fit();
    loop.outcome.samples.push_back(std::move(sample));
    const WatchSample& last = loop.outcome.samples.back();
    if (loop.display && last.elapsed_s - last_verdict_s >= loop.config.verdict_every_s) {
      so_far = verdict_so_far(loop);
      last_verdict_s = last.elapsed_s;
    }
    // The first sample only primed the rates: nothing to show yet.
    if (loop.display && loop.outcome.samples.size() > 1) loop.display->update(last, so_far);
    next += interval;
    if (next < Clock::now()) next = Clock::now() + interval;  // fell behind: do not burst
  }
}

void describe_devices(const Samplers& samplers, WatchReport& report) {
  if (!samplers.forced_disks.empty()) {
    report.devices_how = "as given (--disk)";
    for (const auto& d : samplers.forced_disks) report.job_devices.emplace_back(d, "given with --disk");
    return;
  }
  for (const auto& d : samplers.devices.devices()) report.job_devices.emplace_back(d, samplers.devices.evidence(d));
  report.devices_how = report.job_devices.empty()
                           ? "no file of the job on a block device was seen: every disk that was busy is shown"
                           : "the disks behind the files the job has open or mapped (/proc/PID/fd, maps)";
  for (const auto& fs_type : samplers.devices.unbacked()) {
    report.notes.push_back("the job reads files on " + fs_type + ", which has no local block device to watch");
  }
}

// Shared memory open in the job (/dev/shm, memfds) is data handed between its processes: with
// loader workers, their batches on the way to the training process. Never "files on tmpfs".
void describe_shared_memory(const JobDeviceFinder& devices, bool has_workers, WatchReport& report) {
  const auto& holders = devices.shared_memory_pids();
  if (holders.empty()) return;
  const std::string files = std::to_string(devices.shared_memory_files()) + " file(s) open in /dev/shm or memfds, in " +
                            std::to_string(holders.size()) + " of the job's processes";
  if (has_workers) {
    report.notes.push_back("the loader's workers hand their batches to the training process through shared memory (" +
                           files + "): memory passed between processes, not files the job reads");
  } else if (holders.size() > 1) {
    report.notes.push_back("the job's processes hand data to each other through shared memory (" + files +
                           "): memory passed between processes, not files the job reads");
  } else {
    report.notes.push_back("the job holds shared memory (" + files + "): memory, not files the job reads");
  }
}

void write_json(const WatchOutcome& outcome) {
  write_file_atomically(outcome.json_path, json_text(watch_report_json(outcome.report)) + "\n");
}

void write_results(WatchOutcome& outcome, const fs::path& folder, std::ostream& err) {
  outcome.json_path = folder / "watch.json";
  outcome.html_path = folder / "watch.html";
  write_json(outcome);
  write_file_atomically(outcome.html_path, render_watch_html(outcome.report, outcome.samples));
  err << render_watch_text(outcome.report) << "files: " << outcome.csv_path.string() << ", "
      << outcome.json_path.string() << ", " << outcome.html_path.string() << "\n";
  err.flush();
}

// A failure to write the results must not cost the command's exit code, nor leave it unwaited.
void write_results_or_say_why(WatchOutcome& outcome, const fs::path& folder, std::ostream& err) {
  try {
    write_results(outcome, folder, err);
  } catch (const std::exception& e) {
    err << "watch: results not written: " << e.what() << "\n";
  }
}

void rewrite_json(const WatchOutcome& outcome, std::ostream& err) {
  try {
    write_json(outcome);
  } catch (const std::exception& e) {
    err << "watch: " << outcome.json_path.string() << " not updated with the exit code: " << e.what() << "\n";
  }
}

void start_report(const WatchConfig& config, WatchReport& report) {
  report.pipecheck_version = PIPECHECK_VERSION;
  report.host = host_name();
  report.started_utc = utc_now_iso_ms();
  report.mode = config.pid ? "pid" : "command";
  for (const auto& word : config.command) report.command.push_back(escape_name(word));  // names, as every output shows them
  report.interval_s = config.interval_s;
  report.duration_limit_s = config.duration_s;
  report.job_ending = "still running";
}

}  // namespace

std::string resolve_command(const std::string& name) {
  if (name.empty()) throw UsageError("watch: an empty command");
  auto check = [&](const std::string& path) {
    if (access(path.c_str(), X_OK) != 0 || fs::is_directory(path)) return false;
    return true;
  };
  if (name.find('/') != std::string::npos) {
    if (!fs::exists(name)) throw UsageError("watch: command '" + name + "': no such file");
    if (!check(name)) throw UsageError("watch: command '" + name + "': not executable");
    return name;
  }
  const char* path_env = std::getenv("PATH");
  std::string paths = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= paths.size()) {
    const std::size_t end = std::min(paths.find(':', start), paths.size());
    const std::string dir = end > start ? paths.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (check(candidate)) return candidate;
    start = end + 1;
  }
  throw UsageError("watch: command '" + name + "' not found in PATH");
}

void on_watch_signal(int signal, bool sent_by_process) {
  const pid_t child = g_child.load();
  if (child > 0) {
    // Gone already (reaped behind our back): nobody is left to end, so the watch stops itself.
    if (sent_by_process && kill(child, signal) != 0 && errno == ESRCH) g_stop.store(true);
    return;
  }
  g_stop.store(true);
}

void reset_watch_stop() { g_stop.store(false); }

namespace {

// Bad input fails here, before anything is written or started.
void check_input(const WatchConfig& config, const SysfsRoot& root) {
  if (config.pid && !process_alive(root, *config.pid)) {
    throw UsageError("--pid " + std::to_string(*config.pid) + ": no such process");
  }
  if (!config.pid && config.command.empty()) throw UsageError("watch: give a command after -- or --pid N");
  if (!config.pid) resolve_command(config.command.front());
}

// --disk names as whole disks, the way the baseline's measured ceilings and the rules name them
// ("nvme0n1p2" -> "nvme0n1"); a name /sys/class/block does not know is bad input.
std::vector<std::string> resolve_disks(const WatchConfig& config, const SysfsRoot& root) {
  std::vector<std::string> disks;
  for (const auto& name : config.disks) {
    const auto whole = whole_disk_of(root, name);
    if (!whole) throw UsageError("--disk " + name + ": no such block device (see /sys/class/block)");
    if (std::find(disks.begin(), disks.end(), *whole) == disks.end()) disks.push_back(*whole);
  }
  return disks;
}

// The kernel's task delay accounting, turned on for the watch because the user asked
// (--delayacct), and set back to off at the end: a setting of the whole machine.
class DelayAccountingSwitch {
 public:
  DelayAccountingSwitch(const SysfsRoot& root, bool enable, WatchReport& report)
      : path_(root.path("/proc/sys/kernel/task_delayacct").string()) {
    if (!enable || delay_accounting_on(root)) return;
    if (write("1")) {
      turned_on_ = true;
      report.notes.push_back("kernel task delay accounting turned on for the watch (--delayacct), off again after");
    } else {
      report.notes.push_back("--delayacct: could not turn on task delay accounting (" + path_ + ": " +
                             std::strerror(errno) + "): thread states used instead");
    }
  }
  ~DelayAccountingSwitch() {
    if (turned_on_) write("0");
  }
  DelayAccountingSwitch(const DelayAccountingSwitch&) = delete;
  DelayAccountingSwitch& operator=(const DelayAccountingSwitch&) = delete;

 private:
  bool write(const char* value) {
    std::ofstream out(path_);
    if (!out) return false;
    out << value << "\n";
    out.flush();
    return static_cast<bool>(out);
  }
  std::string path_;
  bool turned_on_ = false;
};

Job start_job(const WatchConfig& config, const SysfsRoot& root) {
  Job job;
  if (config.pid) {
    job.root = *config.pid;
    process_alive(root, job.root, &job.starttime);
  } else {
    // Workers that outlive their parent (double-forked, or a launcher that exits) come to the
    // watch instead of init, so they stay in the job's tree; job_over reaps them.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    job.watchers_own_children = children_of(root, getpid());
    job.started = Clock::now();
    job.root = spawn_command(config.command);
    job.ours = true;
    g_child.store(job.root);
  }
  return job;
}

void finish_report(Samplers& samplers, const Loop& loop, WatchOutcome& outcome) {
  WatchReport& report = outcome.report;
  report.finished_utc = utc_now_iso_ms();
  describe_devices(samplers, report);
  for (const auto& note : samplers.gpus.notes()) report.notes.push_back("NVML: " + note);
  report.analysis = analyze_watch(outcome.samples, loop.ceilings, watch_analysis_options(), report.job_devices,
                                  samplers.devices.direct());
  WatchAnalysis& a = report.analysis;
  const double looks = static_cast<double>(loop.state_looks) + static_cast<double>(outcome.samples.size());
  a.blocked_how = describe(samplers.tree.blocked_source(), a.span_s > 0 ? looks / a.span_s : 0.0,
                           samplers.tree.schedstat_seen());
  a.other_processes = samplers.others.top(8);
  a.usage = loop.job.usage;
  report.verdict = judge_watch(a);
  describe_shared_memory(samplers.devices, a.roles.found, report);
  report.top_threads = samplers.tree.top_threads(20);
  report.processes = samplers.tree.processes();
  if (!outcome.samples.empty()) {
    report.sampler_cpu_ms_per_sample = loop.sampler_cpu_ms / static_cast<double>(outcome.samples.size());
  }
}

// Our children now: orphans of the job the watch adopted as subreaper (the command is reaped).
std::vector<std::pair<pid_t, std::string>> adopted_children() {
  std::vector<std::pair<pid_t, std::string>> children;
  const pid_t self = getpid();
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat;
    try {
      stat = read_file(entry.path() / "stat");
    } catch (const std::exception&) {
      continue;  // gone meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so from the last ')'.
    const auto open = stat.find('(');
    const auto close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 4 > stat.size()) continue;
    const pid_t ppid = static_cast<pid_t>(std::atol(stat.c_str() + close + 4));
    if (ppid == self) children.emplace_back(std::stoi(name), escape_name(stat.substr(open + 1, close - open - 1)));
  }
  return children;
}

// Workers the command left running when it exited (`( worker & )`, a double fork) came to the
// watch as subreaper. They are the job's: ended with it (SIGTERM, SIGKILL after 3 s, as a
// probe's time limit ends it), reaped, and named in the results, so none runs on unwatched.
void end_leftover_workers(WatchReport& report, std::ostream& err) {
  const auto deadline = Clock::now() + std::chrono::seconds(3);
  std::set<pid_t> ended;
  std::string names;
  bool killed = false;
  for (;;) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    const auto children = adopted_children();
    if (children.empty()) break;
    const bool late = Clock::now() >= deadline;
    for (const auto& [pid, comm] : children) {
      if (ended.insert(pid).second) {
        names += (names.empty() ? "" : ", ") + std::to_string(pid) + " (" + comm + ")";
        kill(pid, SIGTERM);
      } else if (late) {
        kill(pid, SIGKILL);
        killed = true;
      }
    }
    if (Clock::now() >= deadline + std::chrono::seconds(2)) break;  // unkillable (D state): give up
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (ended.empty()) return;
  const std::string note = "the command left " + std::to_string(ended.size()) + " worker(s) running when it exited: " +
                           names + "; ended with SIGTERM" + (killed ? ", then SIGKILL" : "");
  report.notes.push_back(note);
  err << "watch: " << note << "\n";
}

// The watch ended first (--duration, or a stop): the command runs on, and its exit code is ours.
void wait_for_command(Job& job, WatchReport& report, std::ostream& err) {
  err << "watch: waiting for pid " << job.root << " to finish\n";
  int status = 0;
  rusage usage{};
  pid_t done = -1;
  while ((done = wait4(job.root, &status, 0, &usage)) < 0 && errno == EINTR) {
  }
  if (done != job.root) {
    lost_child(job, report);
    return;
  }
  reaped(job, status, usage, report);
  report.analysis.usage = job.usage;
}

}  // namespace

WatchOutcome run_watch(const WatchConfig& config, std::ostream& err) {
  const SysfsRoot root(config.sysfs_root);
  check_input(config, root);
  const std::vector<std::string> disks = resolve_disks(config, root);
  WatchOutcome outcome;
  WatchReport& report = outcome.report;
  start_report(config, report);
  const std::optional<MeasuredCeilings> ceilings = find_ceilings(config, report);  // may be bad input too
  if (ceilings) report.baseline_source = ceilings->source;
  std::error_code error;
  fs::create_directories(config.out_dir, error);
  if (error) throw RunError("create " + config.out_dir.string() + ": " + error.message());
  std::unique_ptr<NvmlLibrary> nvml;
  if (config.use_nvml) nvml = std::make_unique<NvmlLibrary>(config.nvml_path);
  GpuWatchSampler gpus(nvml.get());
  if (!gpus.available()) report.notes.push_back(gpus.why_unavailable());
  report.gpus = gpus.describe();
  outcome.csv_path = config.out_dir / "watch.csv";
  WatchCsvWriter csv(outcome.csv_path);

  Job job;
  try {
    job = start_job(config, root);
  } catch (...) {
    fs::remove(outcome.csv_path, error);  // nothing was watched: no header-only CSV left behind
    throw;
  }
  report.pid = job.root;
  const DelayAccountingSwitch delay_accounting(root, config.enable_delay_accounting, report);
  const auto start = Clock::now();
  Samplers samplers{ProcessTreeSampler(root, job.root, busy_thread_demand_pct(), job.ours ? getpid() : 0,
                                       job.watchers_own_children),
                    CpuStatsSampler(root),
                    DiskStatsSampler(root),
                    JobDeviceFinder(root),
                    gpus,
                    OtherProcessesSampler(root),
                    disks,
                    {},
                    0};
  samplers.tree.use_delay_accounting(delay_accounting_on(root));
  if (samplers.tree.blocked_source() != BlockedSource::delay_accounting) {
    report.notes.push_back(
        "time blocked on I/O is estimated from thread states (kernel task delay accounting is off: "
        "/proc/sys/kernel/task_delayacct; --delayacct turns it on for the watch, as root)");
  }
  std::optional<WatchDisplay> display;
  if (config.live) {
    display.emplace(err, config.tty_fd, config.plain_every_s);
    display->message("watch: pid " + std::to_string(job.root) + ", sampling every " + figure(config.interval_s, "s") +
                     " into " + outcome.csv_path.string());
  }
  Loop loop{config, samplers, csv, display ? &*display : nullptr, ceilings ? &*ceilings : nullptr, outcome, job, 0.0, 0};
  run_loop(loop, start, root);
  samplers.others.sample(std::chrono::duration<double>(Clock::now() - start).count(), {}, true);
  if (display) display->finish();
  if (job.ours && job.ended) end_leftover_workers(report, err);
  finish_report(samplers, loop, outcome);
  write_results_or_say_why(outcome, config.out_dir, err);
  if (job.ours && !job.ended) {
    wait_for_command(job, report, err);
    end_leftover_workers(report, err);
    rewrite_json(outcome, err);  // now with how the command ended
  }
  if (job.ours) prctl(PR_SET_CHILD_SUBREAPER, 0);
  outcome.exit_code = job.ours ? job.exit_code : 0;
  return outcome;
}

}  // namespace pipecheck
