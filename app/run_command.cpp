// The probe driver behind `pipecheck run`.
#include "app/run_command.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <set>

#include "inventory/inventory_collect.hpp"
#include "core/benchmark_json.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/json_records.hpp"
#include "core/json_text.hpp"
#include "core/launcher_env.hpp"
#include "core/missing_library.hpp"
#include "pipecheck_config.hpp"
#include "reports/baseline.hpp"
#include "reports/judge.hpp"
#include "reports/render/render_files.hpp"
#include "reports/report.hpp"
#include "reports/render/summary_table.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) {
  g_interrupted.store(true);
  request_child_stop();
}

// SIGINT/SIGTERM stop the running probe and the run; restored when the run ends.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted.store(false);
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

std::string last_line(const std::string& text) {
  std::string trimmed = trim(text);
  const auto newline = trimmed.rfind('\n');
  std::string line = newline == std::string::npos ? trimmed : trimmed.substr(newline + 1);
  if (line.size() > 200) line = line.substr(0, 197) + "...";
  return line;
}

std::string skip_line(const std::string& stderr_text) {
  std::size_t start = 0;
  while (start < stderr_text.size()) {
    std::size_t end = stderr_text.find('\n', start);
    if (end == std::string::npos) end = stderr_text.size();
    const std::string line = trim(stderr_text.substr(start, end - start));
    if (line.rfind("skipped: ", 0) == 0) return line;
    start = end + 1;
  }
  return "";
}

std::vector<ProbeEntry> select_probes(const RunOptions& options,
                                      const std::vector<ProbeEntry>& catalog) {
  std::set<std::string> wanted(options.only.begin(), options.only.end());
  for (const auto& stage : wanted) {
    const bool known = std::any_of(catalog.begin(), catalog.end(),
                                   [&](const ProbeEntry& e) { return e.stage == stage; });
    if (!known) {
      std::string names;
      for (const auto& e : catalog) names += (names.empty() ? "" : ", ") + e.stage;
      throw UsageError("unknown stage '" + stage + "' (known: " + names + ")");
    }
  }
  std::vector<ProbeEntry> selected;
  for (const auto& entry : catalog) {
    if (wanted.empty() || wanted.count(entry.stage)) selected.push_back(entry);
  }
  return selected;
}

// Every selected probe that this build should have must be there before anything runs.
void check_probes_present(const std::vector<ProbeEntry>& probes, const fs::path& dir) {
  for (const auto& probe : probes) {
    if (probe.needs_cuda && !PIPECHECK_HAVE_CUDA) continue;
    const fs::path path = dir / probe.executable;
    if (access(path.c_str(), X_OK) != 0) {
      throw UsageError("probe binary missing: " + path.string() + " (build it with `make`)");
    }
  }
}

// The run's folder, named *.incomplete until the run has finished.
fs::path create_run_folder(const fs::path& out, const std::string& base_name) {
  std::error_code error;
  fs::create_directories(out, error);
  if (error) throw UsageError("--out " + out.string() + ": cannot create: " + error.message());
  if (!fs::is_directory(out)) throw UsageError("--out " + out.string() + ": not a directory");
  if (access(out.c_str(), W_OK | X_OK) != 0) {
    throw UsageError("--out " + out.string() + ": not writable");
  }
  // Several runs may start in one second in one folder (mpirun -np 4, or a fleet's hosts on a
  // shared folder): the name a run gets is the one whose create_directory made it, never a
  // check-then-create that two processes can both pass.
  for (int n = 1;; ++n) {
    const std::string name = n == 1 ? base_name : base_name + "-" + std::to_string(n);
    if (fs::exists(out / name)) continue;
    const fs::path folder = out / (name + ".incomplete");
    if (fs::create_directory(folder, error)) return folder;
    if (error) throw UsageError("--out " + out.string() + ": cannot create " + folder.string() + ": " + error.message());
  }
}

ProbeOutcome run_one_probe(const ProbeEntry& probe, const RunOptions& options,
                           const fs::path& probe_dir, const fs::path& folder) {
  if (probe.needs_cuda && !PIPECHECK_HAVE_CUDA) {
    ProbeOutcome outcome{probe.executable, probe.stage, ProbeStatus::not_built,
                         "not built: no CUDA toolkit", 0, {}, {}};
    return outcome;
  }
  ProcessSpec spec;
  spec.argv = {(probe_dir / probe.executable).string()};
  for (const auto& arg : probe_arguments(options.mode)) spec.argv.push_back(arg);
  for (const auto& arg : stage_arguments(probe.stage, options, folder)) spec.argv.push_back(arg);
  spec.stdout_path = folder / (probe.stage + ".stdout");
  spec.stderr_path = folder / (probe.stage + ".log");
  spec.time_limit = std::chrono::seconds(options.timeout_seconds.value_or(default_timeout_seconds(options.mode)));
  spec.environment = probe_environment(current_environment(), options.keep_launcher_env);
  const ProcessResult process = run_process(spec);

  std::string stdout_text, stderr_text;
  try {
    stdout_text = read_file(spec.stdout_path);
    stderr_text = read_file(spec.stderr_path);
  } catch (const RunError&) {
    // Unreadable output is judged as no output.
  }
  ProbeOutcome outcome = outcome_of_process(probe, process, stdout_text, stderr_text);
  std::error_code error;
  if (outcome.status == ProbeStatus::ok) {
    fs::rename(spec.stdout_path, folder / (probe.stage + ".json"), error);
  } else if (trim(stdout_text).empty()) {
    fs::remove(spec.stdout_path, error);
  }
  return outcome;
}

void print_progress(std::ostream& err, const ProbeOutcome& outcome) {
  err << "pipecheck: " << outcome.stage << " (" << outcome.probe << "): " << to_string(outcome.status);
  if (!outcome.reason.empty()) err << " - " << outcome.reason;
  err << " [" << static_cast<long>(outcome.seconds + 0.5) << " s, "
      << outcome.measurements.size() << " measurements]\n";
}

}  // namespace

const char* mode_name_of(ProbeMode mode) {
  switch (mode) {
    case ProbeMode::quick: return "quick";
    case ProbeMode::full: return "full";
    default: return "standard";
  }
}

std::vector<std::string> probe_arguments(ProbeMode mode) {
  // Repetitions give the median with min and max; the minimum time keeps each one long enough
  // to swamp timer and warm-up noise.
  switch (mode) {
    case ProbeMode::quick:
      return {"--benchmark_format=json", "--benchmark_repetitions=3",
              "--benchmark_min_time=0.05", "--pipecheck_quick"};
    case ProbeMode::full:
      return {"--benchmark_format=json", "--benchmark_repetitions=10",
              "--benchmark_min_time=0.5", "--pipecheck_full"};
    default:
      return {"--benchmark_format=json", "--benchmark_repetitions=5",
              "--benchmark_min_time=0.2"};
  }
}

std::vector<std::string> stage_arguments(const std::string& stage, const RunOptions& options,
                                         const fs::path& run_folder) {
  std::vector<std::string> args;
  if (stage == "storage") {
    // The --out folder that holds the run folder: the same filesystem, and a path in the probe's
    // labels that stays true after the run folder drops its ".incomplete".
    args.push_back("--scratch-dir=" + run_folder.parent_path().string());
    for (const auto& path : options.storage_paths) args.push_back("--path=" + path);
  } else if (stage == "decode" && !options.images_dir.empty()) {
    args.push_back("--images=" + options.images_dir);
  }
  return args;
}

int default_timeout_seconds(ProbeMode mode) {
  switch (mode) {
    case ProbeMode::quick: return 300;
    case ProbeMode::full: return 3600;
    default: return 900;
  }
}

ProbeOutcome outcome_of_process(const ProbeEntry& probe, const ProcessResult& process,
                                const std::string& stdout_text, const std::string& stderr_text) {
  ProbeOutcome outcome{probe.executable, probe.stage, ProbeStatus::failed, "", process.seconds, {}, {}};
  const std::string tail = last_line(stderr_text);
  // The loader could not start it: a GPU library this node lacks (cuBLAS, NCCL) is a skip that
  // names what to install, not a failed probe.
  if (process.ending == ProcessResult::Ending::exited && process.exit_code == 127 && trim(stdout_text).empty()) {
    if (const auto soname = missing_shared_library(stderr_text)) {
      outcome.status = ProbeStatus::skipped;
      outcome.reason = "skipped: " + missing_library_reason(*soname);
      return outcome;
    }
  }
  if (!process.ok()) {
    outcome.reason = process.describe();
    if (!tail.empty() && process.ending != ProcessResult::Ending::failed_to_start) {
      outcome.reason += ": " + tail;
    }
    return outcome;
  }
  const std::string skip = skip_line(stderr_text);
  if (!skip.empty() && trim(stdout_text).empty()) {
    outcome.status = ProbeStatus::skipped;
    outcome.reason = skip;
    return outcome;
  }
  try {
    ParsedBenchmarks parsed = parse_benchmark_json(stdout_text, probe.stage);
    outcome.measurements = std::move(parsed.measurements);
    outcome.case_errors = std::move(parsed.case_errors);
  } catch (const std::exception& error) {
    outcome.reason = std::string("printed no valid benchmark JSON: ") + error.what();
    if (outcome.reason.size() > 240) outcome.reason = outcome.reason.substr(0, 237) + "...";
    return outcome;
  }
  if (outcome.measurements.empty()) {
    outcome.reason = outcome.case_errors.empty() ? "no measurements in its output"
                                                 : "every case reported an error";
    return outcome;
  }
  outcome.status = ProbeStatus::ok;
  if (!outcome.case_errors.empty()) {
    outcome.reason = std::to_string(outcome.case_errors.size()) + " case(s) reported an error";
  }
  return outcome;
}

std::vector<std::string> probe_environment(const std::vector<std::string>& ours, bool keep_launcher_env) {
  return keep_launcher_env ? ours : without_launcher_variables(ours);
}

fs::path executable_dir() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::current_path() : self.parent_path();
}

int run_suite(const RunOptions& options, const std::vector<ProbeEntry>& catalog,
              std::ostream& out, std::ostream& err) {
  const std::vector<ProbeEntry> probes = select_probes(options, catalog);
  // Bad profile or workload text fails now, before anything runs.
  const Profile profile =
      options.profile_path.empty() ? default_profile() : load_profile(options.profile_path);
  std::optional<Workload> workload;
  if (!options.workload.empty()) workload = parse_workload(options.workload);
  const fs::path probe_dir = options.probe_dir.empty() ? executable_dir() : options.probe_dir;
  check_probes_present(probes, probe_dir);
  if (!options.prom_textfile.empty()) check_prom_textfile_dir(options.prom_textfile);

  Report report;
  report.pipecheck_version = PIPECHECK_VERSION;
  report.host = host_name();
  report.started_utc = utc_now_iso();
  report.mode = mode_name_of(options.mode);
  const std::string base_name = report.host + "-" + utc_now_compact();
  const fs::path folder = create_run_folder(options.out, base_name);

  const Inventory inventory = collect_inventory(SysfsRoot(options.sysfs_root));
  write_file_atomically(folder / "inventory.json", json_text(nlohmann::json(inventory)) + "\n");

  InterruptGuard guard;
  for (const auto& probe : probes) {
    if (g_interrupted.load()) break;
    err << "pipecheck: running " << probe.stage << " (" << probe.executable << ") ...\n";
    report.probes.push_back(run_one_probe(probe, options, probe_dir, folder));
    print_progress(err, report.probes.back());
  }
  report.finished_utc = utc_now_iso();
  attach_ceilings(report, inventory);
  report.judged = judge(report, inventory, profile, workload);
  write_file_atomically(folder / "report.json", json_text(report_to_json(report)) + "\n");
  std::vector<std::string> render_notes;
  write_rendered_reports(folder, report, inventory, read_render_extras(folder, render_notes));

  out << render_summary(report, SummaryStyle{options.color, options.width});
  if (g_interrupted.load()) {
    err << "pipecheck: interrupted: partial results left in " << folder.string() << "\n";
    return 130;
  }
  fs::path final_folder = folder;
  final_folder.replace_extension();  // drop ".incomplete"
  std::error_code error;
  fs::rename(folder, final_folder, error);
  if (error) throw RunError("rename " + folder.string() + ": " + error.message());
  out << "\nresults: " << final_folder.string() << "  (report.html, report.md, junit.xml, pipecheck.prom)\n";
  if (!options.prom_textfile.empty()) {
    out << "prometheus: " << write_prom_textfile(options.prom_textfile, report, inventory, {}).string() << "\n";
  }
  const bool probe_failed = std::any_of(report.probes.begin(), report.probes.end(),
                                        [](const ProbeOutcome& p) { return p.status == ProbeStatus::failed; });
  const ExitCode verdict_code = probe_failed ? ExitCode::failed : exit_code_for(report.judged.overall);
  const int baseline_code =
      options.baseline.empty()
          ? 0
          : record_or_compare_baseline(final_folder, options.baseline, options.force_baseline, out, err);
  // Inconclusive (4) must never hide a failure (1) of the other half: combine, not max.
  return code(combine(verdict_code, exit_code_from_int(baseline_code)));
}

}  // namespace pipecheck
