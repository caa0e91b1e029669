// Writing and reading watch.csv.
#include "watch/watch_csv.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "core/append_log.hpp"
#include "core/csv_field.hpp"
#include "core/errors.hpp"
#include "telemetry/throttle_reasons.hpp"

namespace pipecheck {

namespace {

enum Column {
  c_utc, c_elapsed, c_source, c_id, c_name, c_job,
  c_util, c_mem_util, c_sm_clock, c_power, c_power_limit, c_mem_used, c_pcie_rx, c_pcie_tx, c_throttle,
  c_cpu_pct, c_cpu_s, c_processes, c_threads, c_busy_threads, c_busy_processes, c_top_pct, c_top_demand, c_top,
  c_read_mbs, c_read_iops, c_write_mbs, c_write_iops, c_disk_util, c_r_await, c_aqu,
  c_iowait, c_cores,
  c_run_wait, c_io_blocked, c_top_blocked_pct, c_top_blocked,
  c_waiting, c_sleep,
  column_count
};
// Files written before the blocked-on-I/O and run-queue columns end at core_util_pct: read them,
// those figures absent.
constexpr std::size_t kColumnsBeforeBlocked = c_run_wait;
// Files written before the roles (the loop and loader rows) end at top_blocked_thread.
constexpr std::size_t kColumnsBeforeRoles = c_waiting;

constexpr const char* kColumns[column_count] = {
    "utc_time", "elapsed_s", "source", "id", "name", "job",
    "util_pct", "mem_util_pct", "sm_clock_mhz", "power_w", "power_limit_w", "mem_used_mib", "pcie_rx_mbs",
    "pcie_tx_mbs", "throttle_reasons",
    "cpu_pct", "cpu_s", "processes", "threads", "busy_threads", "busy_processes", "top_thread_pct",
    "top_thread_demand_pct", "top_thread",
    "read_mbs", "read_iops", "write_mbs", "write_iops", "disk_util_pct", "r_await_ms", "aqu_sz",
    "iowait_pct", "core_util_pct",
    "run_wait_pct", "io_blocked_pct", "top_blocked_pct", "top_blocked_thread",
    "waiting_pct", "sleep_pct"};

using Row = std::vector<std::string>;

std::string number(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string number(const std::optional<double>& value, int decimals) {
  return value ? number(*value, decimals) : std::string();
}

Row new_row(const WatchSample& sample, const char* source) {
  Row row(column_count);
  row[c_utc] = sample.utc_time;
  row[c_elapsed] = number(sample.elapsed_s, 3);
  row[c_source] = source;
  return row;
}

// RFC 4180: a process named `my,pr"oc` is quoted, not rewritten.
std::string line_of(const Row& row) {
  std::string line;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i) line += ',';
    line += csv_field(row[i]);
  }
  line += '\n';
  return line;
}

void put_cpu(Row& row, double cpu_pct, double cpu_s, int threads, int busy_threads, double top_pct,
             double top_demand, const std::string& top) {
  row[c_cpu_pct] = number(cpu_pct, 1);
  row[c_cpu_s] = number(cpu_s, 2);
  row[c_threads] = std::to_string(threads);
  row[c_busy_threads] = std::to_string(busy_threads);
  row[c_top_pct] = number(top_pct, 1);
  row[c_top_demand] = number(top_demand, 1);
  row[c_top] = top;
}

std::string gpu_line(const WatchSample& sample, const GpuWatch& gpu) {
  Row row = new_row(sample, "gpu");
  row[c_id] = std::to_string(gpu.index);
  row[c_name] = gpu.bus_id;
  row[c_job] = std::string(1, gpu.job ? '1' : '0');  // not `? "1" : "0"`: GCC 12 warns falsely (-Wrestrict)
  row[c_util] = number(gpu.util_pct, 0);
  row[c_mem_util] = number(gpu.mem_util_pct, 0);
  row[c_sm_clock] = number(gpu.sm_clock_mhz, 0);
  row[c_power] = number(gpu.power_w, 1);
  row[c_power_limit] = number(gpu.power_limit_w, 1);
  row[c_mem_used] = number(gpu.mem_used_mib, 0);
  row[c_pcie_rx] = number(gpu.pcie_rx_mbs, 1);
  row[c_pcie_tx] = number(gpu.pcie_tx_mbs, 1);
  if (gpu.throttle_mask) row[c_throttle] = clock_event_reasons_text(*gpu.throttle_mask);
  return line_of(row);
}

std::string job_line(const WatchSample& sample) {
  const JobWatch& job = sample.job;
  Row row = new_row(sample, "job");
  put_cpu(row, job.cpu_pct, job.cpu_s, job.threads, job.busy_threads, job.top_thread_pct, job.top_thread_demand_pct,
          job.top_thread);
  row[c_processes] = std::to_string(job.processes);
  row[c_busy_processes] = std::to_string(job.busy_processes);
  row[c_read_mbs] = number(job.read_mbs, 2);
  row[c_run_wait] = number(job.run_wait_pct, 1);
  row[c_io_blocked] = number(job.io_blocked_pct, 1);
  row[c_top_blocked_pct] = number(job.top_blocked_pct, 1);
  row[c_top_blocked] = job.top_blocked_thread;
  return line_of(row);
}

std::string proc_line(const WatchSample& sample, const ProcWatch& proc) {
  Row row = new_row(sample, "proc");
  row[c_id] = std::to_string(proc.pid);
  row[c_name] = proc.comm;
  put_cpu(row, proc.cpu_pct, proc.cpu_s, proc.threads, proc.busy_threads, proc.top_thread_pct,
          proc.top_thread_demand_pct, proc.top_thread);
  row[c_read_mbs] = number(proc.read_mbs, 2);
  row[c_run_wait] = number(proc.run_wait_pct, 1);
  row[c_io_blocked] = number(proc.io_blocked_pct, 1);
  return line_of(row);
}

// The roles (watch/job_roles.hpp), two rows in the columns they share with a process's:
// "loop": the training process (id, name, cpu_pct, processes = how many have workers) and its
// main thread (top_thread*, run_wait_pct, io_blocked_pct, waiting_pct, sleep_pct);
// "loader": its workers (processes, cpu_pct summed, busy_processes = saturated ones,
// top_thread_demand_pct = their mean demand, top_thread / top_thread_pct = the busiest one's).
std::string role_lines(const WatchSample& sample) {
  const RolesWatch& roles = sample.roles;
  if (!roles.found) return "";
  Row loop = new_row(sample, "loop");
  loop[c_id] = std::to_string(roles.trainer_pid);
  loop[c_name] = roles.trainer;
  loop[c_cpu_pct] = number(roles.trainer_cpu_pct, 1);
  loop[c_processes] = std::to_string(roles.trainers);
  loop[c_top] = roles.loop.name;
  loop[c_top_pct] = number(roles.loop.cpu_pct, 1);
  loop[c_top_demand] = number(roles.loop.demand_pct, 1);
  loop[c_run_wait] = number(roles.loop.run_wait_pct, 1);
  loop[c_io_blocked] = number(roles.loop.io_pct, 1);
  loop[c_waiting] = number(roles.loop.waiting_pct, 1);
  loop[c_sleep] = roles.loop.syscalls_read ? number(roles.loop.sleep_pct, 1) : std::string();
  Row loader = new_row(sample, "loader");
  loader[c_id] = std::to_string(roles.trainer_pid);
  loader[c_processes] = std::to_string(roles.workers);
  loader[c_cpu_pct] = number(roles.workers_cpu_pct, 1);
  loader[c_busy_processes] = std::to_string(roles.workers_saturated);
  loader[c_top_demand] = number(roles.workers_demand_pct, 1);
  loader[c_top] = roles.busiest_worker;
  loader[c_top_pct] = number(roles.busiest_worker_demand_pct, 1);
  return line_of(loop) + line_of(loader);
}

std::string host_line(const WatchSample& sample) {
  Row row = new_row(sample, "host");
  row[c_cpu_pct] = number(sample.host.cpu_pct, 1);
  row[c_iowait] = number(sample.host.iowait_pct, 1);
  for (std::size_t i = 0; i < sample.host.core_pct.size(); ++i) {
    if (i) row[c_cores] += '|';
    row[c_cores] += number(sample.host.core_pct[i], 0);
  }
  return line_of(row);
}

std::string disk_line(const WatchSample& sample, const DiskWatch& disk) {
  Row row = new_row(sample, "disk");
  row[c_id] = disk.name;
  row[c_job] = std::string(1, disk.job ? '1' : '0');
  row[c_read_mbs] = number(disk.read_mbs, 2);
  row[c_read_iops] = number(disk.read_iops, 1);
  row[c_write_mbs] = number(disk.write_mbs, 2);
  row[c_write_iops] = number(disk.write_iops, 1);
  row[c_disk_util] = number(disk.util_pct, 1);
  row[c_r_await] = number(disk.r_await_ms, 2);
  row[c_aqu] = number(disk.aqu_sz, 2);
  return line_of(row);
}

// ---- parsing --------------------------------------------------------------------------------

// Empty -> nullopt; garbage throws std::invalid_argument naming the column.
std::optional<double> opt_number(const Row& row, Column column) {
  const std::string& cell = row[column];
  if (cell.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  if (end == cell.c_str() || *end != '\0') {
    throw std::invalid_argument(std::string(kColumns[column]) + " '" + cell + "'");
  }
  return value;
}

double req_number(const Row& row, Column column) { return opt_number(row, column).value_or(0.0); }
int req_int(const Row& row, Column column) { return static_cast<int>(req_number(row, column)); }

void read_cpu(const Row& row, double& cpu_pct, double& cpu_s, int& threads, int& busy_threads, double& top_pct,
              double& top_demand, std::string& top) {
  cpu_pct = req_number(row, c_cpu_pct);
  cpu_s = req_number(row, c_cpu_s);
  threads = req_int(row, c_threads);
  busy_threads = req_int(row, c_busy_threads);
  top_pct = req_number(row, c_top_pct);
  top_demand = req_number(row, c_top_demand);
  top = row[c_top];
}

void add_row(const Row& row, WatchSample& sample) {
  const std::string& source = row[c_source];
  if (source == "gpu") {
    GpuWatch gpu;
    gpu.index = req_int(row, c_id);
    gpu.bus_id = row[c_name];
    gpu.job = row[c_job] != "0";
    gpu.util_pct = opt_number(row, c_util);
    gpu.mem_util_pct = opt_number(row, c_mem_util);
    gpu.sm_clock_mhz = opt_number(row, c_sm_clock);
    gpu.power_w = opt_number(row, c_power);
    gpu.power_limit_w = opt_number(row, c_power_limit);
    gpu.mem_used_mib = opt_number(row, c_mem_used);
    gpu.pcie_rx_mbs = opt_number(row, c_pcie_rx);
    gpu.pcie_tx_mbs = opt_number(row, c_pcie_tx);
    if (!row[c_throttle].empty()) {
      gpu.throttle_mask = parse_clock_event_reasons(row[c_throttle]);
      if (!gpu.throttle_mask) throw std::invalid_argument("throttle_reasons '" + row[c_throttle] + "'");
    }
    sample.gpus.push_back(gpu);
  } else if (source == "job") {
    JobWatch& job = sample.job;
    read_cpu(row, job.cpu_pct, job.cpu_s, job.threads, job.busy_threads, job.top_thread_pct,
             job.top_thread_demand_pct, job.top_thread);
    job.processes = req_int(row, c_processes);
    job.busy_processes = req_int(row, c_busy_processes);
    job.read_mbs = opt_number(row, c_read_mbs);
    job.run_wait_pct = req_number(row, c_run_wait);
    job.io_blocked_pct = opt_number(row, c_io_blocked);
    job.top_blocked_pct = req_number(row, c_top_blocked_pct);
    job.top_blocked_thread = row[c_top_blocked];
  } else if (source == "proc") {
    ProcWatch proc;
    proc.pid = req_int(row, c_id);
    proc.comm = row[c_name];
    read_cpu(row, proc.cpu_pct, proc.cpu_s, proc.threads, proc.busy_threads, proc.top_thread_pct,
             proc.top_thread_demand_pct, proc.top_thread);
    proc.read_mbs = opt_number(row, c_read_mbs);
    proc.run_wait_pct = req_number(row, c_run_wait);
    proc.io_blocked_pct = opt_number(row, c_io_blocked);
    sample.procs.push_back(proc);
  } else if (source == "loop") {
    RolesWatch& roles = sample.roles;
    roles.found = true;
    roles.trainer_pid = req_int(row, c_id);
    roles.trainer = row[c_name];
    roles.trainer_cpu_pct = req_number(row, c_cpu_pct);
    roles.trainers = req_int(row, c_processes);
    roles.loop.name = row[c_top];
    roles.loop.cpu_pct = req_number(row, c_top_pct);
    roles.loop.demand_pct = req_number(row, c_top_demand);
    roles.loop.run_wait_pct = req_number(row, c_run_wait);
    roles.loop.io_pct = req_number(row, c_io_blocked);
    roles.loop.waiting_pct = req_number(row, c_waiting);
    const auto sleep = opt_number(row, c_sleep);
    roles.loop.syscalls_read = sleep.has_value();
    roles.loop.sleep_pct = sleep.value_or(0);
  } else if (source == "loader") {
    RolesWatch& roles = sample.roles;
    roles.workers = req_int(row, c_processes);
    roles.workers_cpu_pct = req_number(row, c_cpu_pct);
    roles.workers_saturated = req_int(row, c_busy_processes);
    roles.workers_demand_pct = req_number(row, c_top_demand);
    roles.busiest_worker = row[c_top];
    roles.busiest_worker_demand_pct = req_number(row, c_top_pct);
  } else if (source == "host") {
    sample.host.cpu_pct = opt_number(row, c_cpu_pct);
    sample.host.iowait_pct = opt_number(row, c_iowait);
    sample.host.core_pct.clear();
    if (!row[c_cores].empty()) {
      Row cores(column_count);
      for (const auto& cell : split_cells(row[c_cores], '|')) {
        cores[c_cores] = cell;
        sample.host.core_pct.push_back(req_number(cores, c_cores));
      }
    }
  } else if (source == "disk") {
    DiskWatch disk;
    disk.name = row[c_id];
    disk.job = row[c_job] == "1";
    disk.read_mbs = req_number(row, c_read_mbs);
    disk.read_iops = req_number(row, c_read_iops);
    disk.write_mbs = req_number(row, c_write_mbs);
    disk.write_iops = req_number(row, c_write_iops);
    disk.util_pct = req_number(row, c_disk_util);
    disk.r_await_ms = req_number(row, c_r_await);
    disk.aqu_sz = req_number(row, c_aqu);
    sample.disks.push_back(disk);
  } else {
    throw std::invalid_argument("source '" + source + "'");
  }
}

}  // namespace

const std::string& watch_csv_header() {
  static const std::string header = header_line(kColumns);
  return header;
}

std::string format_watch_sample(const WatchSample& sample) {
  std::string text;
  for (const auto& gpu : sample.gpus) text += gpu_line(sample, gpu);
  text += job_line(sample);
  for (const auto& proc : sample.procs) text += proc_line(sample, proc);
  text += role_lines(sample);
  text += host_line(sample);
  for (const auto& disk : sample.disks) text += disk_line(sample, disk);
  return text;
}

ParsedWatchCsv parse_watch_csv(const std::string& text) {
  ParsedWatchCsv parsed;
  const WholeLines whole = split_whole_lines(text);
  parsed.discarded_tail_bytes = whole.discarded_tail_bytes;
  std::size_t cells = column_count;
  for (std::size_t i = 0; i < whole.lines.size(); ++i) {
    const std::string& line = whole.lines[i];
    const std::size_t line_number = i + 1;
    if (line_number == 1) {
      if (line == watch_csv_header()) continue;
      if (line == header_line(std::vector<const char*>(kColumns, kColumns + kColumnsBeforeBlocked))) {
        cells = kColumnsBeforeBlocked;
        continue;
      }
      if (line == header_line(std::vector<const char*>(kColumns, kColumns + kColumnsBeforeRoles))) {
        cells = kColumnsBeforeRoles;
        continue;
      }
      parsed.errors.push_back("line 1: not the watch.csv header");
      return parsed;
    }
    const std::string where = "line " + std::to_string(line_number) + ": ";
    Row row;
    try {
      row = parse_csv_line(line);
    } catch (const std::invalid_argument& e) {
      parsed.errors.push_back(where + e.what());
      continue;
    }
    if (row.size() != cells) {
      parsed.errors.push_back(where + std::to_string(row.size()) + " cells, expected " + std::to_string(cells));
      continue;
    }
    row.resize(column_count);
    try {
      const double elapsed = req_number(row, c_elapsed);
      if (parsed.samples.empty() || parsed.samples.back().utc_time != row[c_utc] ||
          parsed.samples.back().elapsed_s != elapsed) {
        parsed.samples.emplace_back();
        parsed.samples.back().utc_time = row[c_utc];
        parsed.samples.back().elapsed_s = elapsed;
      }
      add_row(row, parsed.samples.back());
    } catch (const std::invalid_argument& e) {
      parsed.errors.push_back(where + "bad " + e.what());
    }
  }
  return parsed;
}

WatchCsvWriter::WatchCsvWriter(const std::filesystem::path& path, std::chrono::milliseconds sync_every)
    : log_(path, watch_csv_header(), sync_every) {}

}  // namespace pipecheck
