// Terminal text of a watch report.
#include "watch/watch_render_text.hpp"

#include <sstream>

#include "core/figure_text.hpp"
#include "telemetry/progress_display.hpp"

namespace pipecheck {

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& w : words) {
    if (!text.empty()) text += ' ';
    text += w;
  }
  return text;
}

void finding_lines(std::ostringstream& out, const WatchFinding& f, bool advice) {
  for (const auto& line : f.figures) out << "    " << line << "\n";
  if (advice && !f.advice.empty()) out << "    try: " << f.advice << "\n";
}

void figures_lines(std::ostringstream& out, const WatchAnalysis& a) {
  for (const auto& g : a.gpus) {
    out << "  gpu" << g.index << " " << g.bus_id << ": util " << figure(g.util_median) << "%";
    if (g.power_share_median) {
      out << ", power " << figure(g.power_median_w.value_or(0)) << "/" << figure(g.power_limit_w.value_or(0))
          << " W (" << figure(*g.power_share_median) << "%)";
    }
    if (g.pcie_rx_median_mbs) out << ", PCIe RX " << figure(*g.pcie_rx_median_mbs, "MB/s");
    if (g.pcie_tx_median_mbs) out << " TX " << figure(*g.pcie_tx_median_mbs, "MB/s");
    if (g.mem_used_max_mib) out << ", memory " << figure(*g.mem_used_max_mib / 1024.0, "GiB");
    out << "\n";
  }
  out << "  job: " << a.job.max_processes << " processes, " << a.job.max_threads << " threads, CPU "
      << figure(a.job.cpu_pct_median) << "% of a core; busiest thread " << (a.job.top_thread.empty() ? "-" : a.job.top_thread)
      << " at " << figure(a.job.top_demand_median) << "% demand; busy threads " << plain_number(a.job.busy_threads_median);
  if (a.job.read_mbs_median) out << "; reads " << figure(*a.job.read_mbs_median, "MB/s");
  out << "; waiting for a CPU " << figure(a.job.run_wait_median) << "% of a core";
  if (a.job.io_blocked_mean) {
    out << "; blocked on I/O " << figure(*a.job.io_blocked_mean) << "% of a core (mean; " << a.blocked_how << ")";
  }
  if (a.roles.found) {
    // The roles' figures are means (each sample's split rests on a few looks), said so.
    const RoleStats& r = a.roles;
    out << "\n  roles (means): training process " << r.trainer << ", its loop " << r.loop_thread << " on a CPU "
        << figure(r.loop_cpu_mean) << "%, waiting on another process or thread " << figure(r.loop_waiting_mean)
        << "%, in a timed sleep " << figure(r.loop_sleep_mean) << "%, blocked on I/O " << figure(r.loop_io_mean)
        << "%; loader " << r.workers << (r.workers == 1 ? " worker" : " workers") << " at "
        << figure(r.workers_demand_mean) << "% demand each";
  }
  out << "\n  host: CPU " << figure(a.host.cpu_median) << "% of " << a.host.cores << " cores, iowait "
      << figure(a.host.iowait_median) << "%; others " << figure(a.host.others_cores_median) << " cores";
  if (!a.other_processes.empty()) out << " (" << describe_others(a.other_processes) << ")";
  out << "\n";
  for (const auto& d : a.disks) {
    // A disk shown because it moved data, not because the job's files are on it.
    const char* label = d.job ? "" : " (not known to be the job's)";
    out << "  " << d.name << label << ": %util " << figure(d.util_median) << "%, reads "
        << figure(d.read_mbs_while_reading, "MB/s") << ", " << figure(d.read_iops_while_reading, "IOPS")
        << " while reading (" << figure(100 * d.reading_share) << "% of the time), r_await "
        << figure(d.r_await_median_ms, "ms") << ", aqu-sz " << figure(d.aqu_median) << "\n";
  }
}

}  // namespace

std::string render_watch_text(const WatchReport& report) {
  std::ostringstream out;
  const WatchAnalysis& a = report.analysis;
  out << "pipecheck watch: " << (report.mode == "pid" ? std::string("pid ") + std::to_string(report.pid) : joined(report.command))
      << (report.mode == "pid" ? std::string() : std::string(" (pid ") + std::to_string(report.pid) + ")") << ", "
      << format_clock(a.span_s) << ", " << a.samples << " samples every " << figure(report.interval_s, "s") << "; "
      << report.job_ending << (report.stopped_by == "job_exited" ? "" : std::string(" (stopped by ") + report.stopped_by + ")")
      << "\n";
  if (report.verdict.headline) {
    out << "verdict: " << report.verdict.headline->verdict << "\n";
    finding_lines(out, *report.verdict.headline, true);
  } else {
    out << "verdict: no rule fired: no pattern stands out (pipecheck watch --list-rules shows what is looked for)\n";
  }
  if (report.verdict.findings.size() > 1) {
    out << "also:\n";
    for (std::size_t i = 1; i < report.verdict.findings.size(); ++i) {
      out << "  " << report.verdict.findings[i].verdict << "\n";
      finding_lines(out, report.verdict.findings[i], false);
    }
  }
  if (!a.comparisons.empty()) {
    out << "against the ceilings measured by pipecheck run (" << report.baseline_source << "):\n";
    for (const auto& c : a.comparisons) out << "  " << c.text << "\n";
  } else if (!report.baseline_source.empty()) {
    out << "against the ceilings measured by pipecheck run (" << report.baseline_source
        << "): none measured for the disks or GPUs this job used\n";
  }
  // Too short: medians of nothing would read as zeros measured.
  if (a.steady_samples > 0) {
    out << "figures (medians over " << a.steady_samples << " steady samples):\n";
    figures_lines(out, a);
  }
  for (const auto& note : report.notes) out << "note: " << note << "\n";
  return out.str();
}

}  // namespace pipecheck
