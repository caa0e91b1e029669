// The watch record as JSON.
#include "watch/watch_render_json.hpp"

#include <cmath>

namespace pipecheck {

using nlohmann::json;

namespace {

// Rounded so the file reads well and diffs stay small; figures are medians, not measurements
// to the last bit.
double r(double value, int decimals = 2) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

json opt(const std::optional<double>& value, int decimals = 2) { return value ? json(r(*value, decimals)) : json(); }

json finding_json(const WatchFinding& f) {
  return json{{"rule", f.rule}, {"stage", f.stage}, {"verdict", f.verdict}, {"figures", f.figures}, {"advice", f.advice}};
}

json comparison_json(const CeilingComparison& c) {
  return json{{"stage", c.stage},       {"subject", c.subject}, {"observed", r(c.observed)}, {"ceiling", r(c.ceiling)},
              {"unit", c.unit},         {"percent", r(c.percent, 1)}, {"text", c.text},
              {"measured_by", c.measured_by}, {"the_jobs", c.jobs}};
}

json gpu_json(const GpuStats& g) {
  return json{{"index", g.index},
              {"bus_id", g.bus_id},
              {"samples", g.samples},
              {"util_median_pct", r(g.util_median, 1)},
              {"power_median_w", opt(g.power_median_w, 1)},
              {"power_limit_w", opt(g.power_limit_w, 1)},
              {"power_share_median_pct", opt(g.power_share_median, 1)},
              {"sm_clock_median_mhz", opt(g.sm_clock_median_mhz, 0)},
              {"mem_used_max_mib", opt(g.mem_used_max_mib, 0)},
              {"pcie_rx_median_mbs", opt(g.pcie_rx_median_mbs, 1)},
              {"pcie_tx_median_mbs", opt(g.pcie_tx_median_mbs, 1)},
              {"power_capped_share", r(g.power_capped_share, 3)},
              {"slowdown_share", r(g.slowdown_share, 3)}};
}

json disk_json(const DiskStats& d) {
  return json{{"name", d.name},
              {"job", d.job},
              {"evidence", d.evidence},
              {"util_median_pct", r(d.util_median, 1)},
              {"read_mbs_median", r(d.read_mbs_median)},
              {"reading_share", r(d.reading_share, 3)},
              {"read_mbs_while_reading", r(d.read_mbs_while_reading)},
              {"read_iops_while_reading", r(d.read_iops_while_reading, 1)},
              {"r_await_median_ms", r(d.r_await_median_ms, 3)},
              {"aqu_sz_median", r(d.aqu_median)},
              {"direct", d.direct}};
}

json analysis_json(const WatchAnalysis& a) {
  json gpus = json::array();
  for (const auto& g : a.gpus) gpus.push_back(gpu_json(g));
  json disks = json::array();
  for (const auto& d : a.disks) disks.push_back(disk_json(d));
  json periodic = nullptr;
  if (a.periodic.found) {
    periodic = json{{"signal", a.periodic_signal},
                    {"busy_level", r(a.periodic.busy_level, 1)},
                    {"period_s", r(a.periodic.period_s)},
                    {"idle_share", r(a.periodic.idle_share, 3)},
                    {"episodes", a.periodic.episodes},
                    {"mean_idle_s", r(a.periodic.mean_idle_s)}};
  }
  json others = json::array();
  for (const auto& o : a.other_processes) {
    others.push_back(json{{"command", o.command}, {"pid", o.pid}, {"processes", o.processes},
                          {"cpu_pct", r(o.cpu_percent, 1)}});
  }
  json usage = nullptr;
  if (a.usage) {
    usage = json{{"wall_s", r(a.usage->wall_s, 3)},         {"user_s", r(a.usage->user_s, 3)},
                 {"system_s", r(a.usage->system_s, 3)},     {"read_bytes", a.usage->read_bytes},
                 {"max_rss_mb", r(a.usage->max_rss_mb, 1)}};
  }
  json sawtooth = nullptr;
  if (a.sawtooth.found) {
    sawtooth = json{{"leader_gpu", a.sawtooth.leader},
                    {"events", a.sawtooth.events},
                    {"led", a.sawtooth.led},
                    {"mean_lead_s", r(a.sawtooth.mean_lead_s)}};
  }
  json roles;  // null: no training process with workers was seen
  if (a.roles.found) {
    const RoleStats& ro = a.roles;
    roles = json{{"found_share", r(ro.found_share, 3)},
                 {"trainer", ro.trainer},
                 {"trainers", ro.trainers},
                 {"trainer_cpu_mean_pct", r(ro.trainer_cpu_mean, 1)},
                 {"loop",
                  {{"thread", ro.loop_thread},
                   {"cpu_mean_pct", r(ro.loop_cpu_mean, 1)},
                   {"demand_mean_pct", r(ro.loop_demand_mean, 1)},
                   {"run_wait_mean_pct", r(ro.loop_run_wait_mean, 1)},
                   {"waiting_mean_pct", r(ro.loop_waiting_mean, 1)},
                   {"sleep_mean_pct", ro.syscalls_read ? json(r(ro.loop_sleep_mean, 1)) : json()},
                   {"io_mean_pct", r(ro.loop_io_mean, 1)}}},
                 {"loader",
                  {{"workers", ro.workers},
                   {"cpu_mean_pct", r(ro.workers_cpu_mean, 1)},
                   {"demand_mean_pct", r(ro.workers_demand_mean, 1)},
                   {"saturated_share", r(ro.saturated_share, 3)},
                   {"busiest_worker", ro.busiest_worker}}}};
  }
  return json{{"samples", a.samples},
              {"steady_samples", a.steady_samples},
              {"span_s", r(a.span_s)},
              {"interval_s", r(a.interval_s, 3)},
              {"warmup_s", r(a.warmup_s)},
              {"has_gpu", a.has_gpu},
              {"gpu_util_median_pct", a.has_gpu ? json(r(a.gpu_util_median, 1)) : json()},
              {"gpus", gpus},
              {"job",
               {{"cpu_pct_median", r(a.job.cpu_pct_median, 1)},
                {"top_thread", a.job.top_thread},
                {"top_thread_demand_median_pct", r(a.job.top_demand_median, 1)},
                {"top_thread_cpu_median_pct", r(a.job.top_cpu_median, 1)},
                {"busy_threads_median", r(a.job.busy_threads_median, 1)},
                {"busy_processes_median", r(a.job.busy_processes_median, 1)},
                {"max_processes", a.job.max_processes},
                {"max_threads", a.job.max_threads},
                {"read_mbs_median", opt(a.job.read_mbs_median)},
                {"run_wait_median_pct", r(a.job.run_wait_median, 1)},
                {"wait_share_median", r(a.job.wait_share_median, 3)},
                {"io_blocked_mean_pct", opt(a.job.io_blocked_mean, 1)},
                {"blocked_share_mean", r(a.job.blocked_share_mean, 3)},
                {"top_blocked_thread", a.job.top_blocked_thread},
                {"top_blocked_median_pct", r(a.job.top_blocked_median, 1)},
                {"blocked_how", a.blocked_how}}},
              {"roles", roles},
              {"host",
               {{"cores", a.host.cores}, {"cpu_median_pct", r(a.host.cpu_median, 1)},
                {"iowait_median_pct", r(a.host.iowait_median, 1)},
                {"others_cores_median", r(a.host.others_cores_median, 2)}}},
              {"other_processes", others},
              {"seen", {{"cpu_s", r(a.seen_cpu_s)}, {"processes", a.seen_processes}, {"threads", a.seen_threads}}},
              {"job_usage", usage},
              {"disks", disks},
              {"disks_are_the_jobs", a.disks_are_jobs},
              {"periodic_idle", periodic},
              {"gpu_sawtooth", sawtooth}};
}

}  // namespace

json watch_report_json(const WatchReport& report) {
  json findings = json::array();
  for (const auto& f : report.verdict.findings) findings.push_back(finding_json(f));
  json comparisons = json::array();
  for (const auto& c : report.analysis.comparisons) comparisons.push_back(comparison_json(c));
  json devices = json::array();
  for (const auto& [name, why] : report.job_devices) devices.push_back(json{{"name", name}, {"evidence", why}});
  json threads = json::array();
  for (const auto& t : report.top_threads) {
    threads.push_back(
        json{{"tid", t.tid}, {"pid", t.pid}, {"comm", t.comm}, {"cpu_s", r(t.cpu_s)}, {"blocked_s", r(t.blocked_s)}});
  }
  json processes = json::array();
  for (const auto& p : report.processes) {
    processes.push_back(json{{"pid", p.pid},
                             {"ppid", p.ppid},
                             {"comm", p.comm},
                             {"cpu_s", r(p.cpu_s)},
                             {"max_threads", p.max_threads},
                             {"read_bytes", p.read_bytes ? json(*p.read_bytes) : json()}});
  }
  return json{
      {"schema", "pipecheck.watch"},
      {"version", report.version},
      {"pipecheck_version", report.pipecheck_version},
      {"host", report.host},
      {"started_utc", report.started_utc},
      {"finished_utc", report.finished_utc},
      {"mode", report.mode},
      {"command", report.command},
      {"pid", report.pid},
      {"interval_s", r(report.interval_s, 3)},
      {"duration_limit_s", opt(report.duration_limit_s)},
      {"stopped_by", report.stopped_by},
      {"job_ending", report.job_ending},
      {"job_exit_code", report.job_exit_code ? json(*report.job_exit_code) : json()},
      {"verdict", report.verdict.headline ? finding_json(*report.verdict.headline) : json()},
      {"findings", findings},
      {"ceiling_comparisons", comparisons},
      {"baseline", report.baseline_source.empty() ? json() : json(report.baseline_source)},
      {"baseline_wanted", report.baseline_wanted},
      {"gpus", report.gpus},
      {"job_devices", devices},
      {"devices_how", report.devices_how},
      {"analysis", analysis_json(report.analysis)},
      {"top_threads", threads},
      {"processes", processes},
      {"notes", report.notes},
      {"sampler_cpu_ms_per_sample", r(report.sampler_cpu_ms_per_sample, 3)},
      {"csv", report.csv_file},
  };
}

}  // namespace pipecheck
