// The probe driver behind `pipecheck run`.
#include "app/run_command.hpp"

#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <cstdint>
#include <iostream>
#include <limits>
#include <set>

#include "app/gpu_conditions_watch.hpp"
#include "app/quiet_check.hpp"
#include "inventory/inventory_collect.hpp"
#include "core/benchmark_json.hpp"
#include "core/case_messages.hpp"
#include "core/dimensions.hpp"
#include "core/errors.hpp"
#include "core/probe_reason.hpp"
#include "core/file_io.hpp"
#include "core/json_records.hpp"
#include "core/json_text.hpp"
#include "core/run_conditions.hpp"
#include "core/stage_registry.hpp"
#include "core/temporary_folder.hpp"
#include "core/text_escape.hpp"
#include "core/launcher_env.hpp"
#include "core/missing_library.hpp"
#include "pipecheck_config.hpp"
#include "compare/baseline.hpp"
#include "history/history_append.hpp"
#include "judge/inconclusive.hpp"
#include "judge/judge.hpp"
#include "budget/workload.hpp"
#include "render/render_files.hpp"
#include "report/report.hpp"
#include "render/summary_table.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

namespace {

// The most of a probe's stdout (its Google Benchmark JSON) or stderr the driver reads.
constexpr std::uintmax_t kProbeOutputMaxBytes = std::uintmax_t{64} << 20;

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
    reset_child_stop();
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
    sigaction(SIGHUP, &action, &old_hup_);  // a closed terminal interrupts as ^C does
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGHUP, &old_hup_, nullptr);
    reset_child_stop();  // the stop was this run's: a later run_process in this process runs
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_hup_ {};
  struct sigaction old_term_ {};
};

// The probe's last stderr line, printable (a probe may print any bytes: core/text_escape.hpp).
std::string last_line(const std::string& text) {
  std::string trimmed = trim(text);
  const auto newline = trimmed.rfind('\n');
  std::string line = printable_text(newline == std::string::npos ? trimmed : trimmed.substr(newline + 1));
  if (line.size() > 200) line = line.substr(0, 197) + "...";
  return line;
}

std::string skip_line(const std::string& stderr_text) {
  std::size_t start = 0;
  while (start < stderr_text.size()) {
    std::size_t end = stderr_text.find('\n', start);
    if (end == std::string::npos) end = stderr_text.size();
    const std::string line = trim(stderr_text.substr(start, end - start));
    if (line.rfind("skipped: ", 0) == 0) return printable_text(line);
    start = end + 1;
  }
  return "";
}

void check_probes_present(const std::vector<ProbeEntry>& probes, const fs::path& dir) {
  for (const auto& probe : probes) {
    if (probe.needs_cuda && !PIPECHECK_HAVE_CUDA) continue;
    const fs::path path = dir / probe.executable;
    if (access(path.c_str(), X_OK) != 0) {
      throw UsageError("probe binary missing: " + path.string() + " (build it with `make`)");
    }
  }
}

// Each selected probe whose stage says so checks what its arguments name (a --path that is a
// FIFO, an empty file or a folder without a file to read; --images without a JPEG) with
// --pipecheck_check_inputs, in the probe's own words, before anything runs (exit 2). The driver
// links none of the probes' code for it.
void check_probe_inputs(const RunOptions& options, const std::vector<ProbeEntry>& probes, const fs::path& dir) {
  for (const auto& probe : probes) {
    const StageSpec* stage = find_stage(probe.stage);
    if (stage == nullptr || !stage->probe_checks_inputs || (probe.needs_cuda && !PIPECHECK_HAVE_CUDA)) continue;
    const TemporaryFolder scratch("pipecheck-check");
    ProcessSpec spec;
    spec.argv = {(dir / probe.executable).string(), "--pipecheck_check_inputs"};
    for (const auto& arg : stage_arguments(probe.stage, options, options.out / "run")) spec.argv.push_back(arg);
    spec.stdout_path = scratch.path() / "stdout";
    spec.stderr_path = scratch.path() / "stderr";
    spec.time_limit = std::chrono::seconds(60);
    spec.environment = probe_environment(current_environment(), options.keep_launcher_env);
    const ProcessResult process = run_process(spec);
    if (process.ending == ProcessResult::Ending::interrupted) throw RunError("interrupted");
    if (process.ok()) continue;
    std::string said;
    try {
      said = last_line(read_file(spec.stderr_path));
    } catch (const RunError&) {
    }
    if (process.ending == ProcessResult::Ending::exited && process.exit_code == 2) {
      // "pipecheck-storage: --path x: ..." -> "--path x: ...": the flag is `run`'s too.
      const std::string prefix = probe.executable + ": ";
      throw UsageError(said.rfind(prefix, 0) == 0 ? said.substr(prefix.size()) : said);
    }
    throw RunError(probe.executable + " could not check its inputs: " + process.describe() +
                   (said.empty() ? "" : ": " + said));
  }
}

int affinity_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

// Measures what else the machine did while `run` ran a probe: the driver sees the whole machine
// (the probe's own CPU comes from its rusage), and watches the GPUs on a thread meanwhile.
template <typename RunProbe>
ProcessResult run_measuring_conditions(GpuConditionsWatch& gpus, RunConditions& conditions, RunProbe run) {
  const ConditionsSnapshot before = take_conditions_snapshot();
  gpus.start();
  const ProcessResult process = run();
  gpus.stop_into(conditions);
  const ConditionsSnapshot after = take_conditions_snapshot();
  const int self = static_cast<int>(getpid());
  std::set<int> own = process_tree(before.processes, self);
  for (int pid : process_tree(after.processes, self)) own.insert(pid);
  RunConditions measured = conditions_between(before, after, process.cpu_seconds, own, sysconf(_SC_CLK_TCK));
  measured.gpu_processes = std::move(conditions.gpu_processes);
  measured.gpu_clock_events = std::move(conditions.gpu_clock_events);
  measured.gpu_note = std::move(conditions.gpu_note);
  add_machine_facts(measured, SysfsRoot("/"), affinity_count());
  conditions = std::move(measured);
  return process;
}

ProbeOutcome run_one_probe(const ProbeEntry& probe, const RunOptions& options, const fs::path& probe_dir,
                           const fs::path& folder, const std::optional<VerdictInputs>& verdicts,
                           GpuConditionsWatch& gpus) {
  if (probe.needs_cuda && !PIPECHECK_HAVE_CUDA) {
    ProbeOutcome outcome{probe.executable, probe.stage, ProbeStatus::not_built,
                         "not built: no CUDA toolkit", 0, {}, {}};
    return outcome;
  }
  ProcessSpec spec;
  spec.argv = {(probe_dir / probe.executable).string()};
  const StageSpec* stage = find_stage(probe.stage);
  for (const auto& arg : probe_arguments(options.mode, verdicts, stage != nullptr && stage->runs_on_gpu)) {
    spec.argv.push_back(arg);
  }
  for (const auto& arg : stage_arguments(probe.stage, options, folder)) spec.argv.push_back(arg);
  spec.stdout_path = folder / (probe.stage + ".stdout");
  spec.stderr_path = folder / (probe.stage + ".log");
  spec.time_limit = std::chrono::seconds(options.timeout_seconds.value_or(default_timeout_seconds(options.mode)));
  spec.environment = probe_environment(current_environment(), options.keep_launcher_env);
  RunConditions conditions;
  const ProcessResult process = run_measuring_conditions(gpus, conditions, [&] { return run_process(spec); });

  std::string stdout_text, stderr_text;
  // A probe's JSON is kilobytes; one that printed hundreds of megabytes is broken, and reading
  // it whole would cost the driver twice its size in memory.
  std::error_code size_error;
  const auto stdout_bytes = fs::file_size(spec.stdout_path, size_error);
  const bool oversized = !size_error && stdout_bytes > kProbeOutputMaxBytes;
  try {
    if (!oversized) stdout_text = read_file(spec.stdout_path);
    stderr_text = read_file(spec.stderr_path, kProbeOutputMaxBytes);
  } catch (const RunError&) {
    // Unreadable output is judged as no output.
  }
  ProbeOutcome outcome = outcome_of_process(probe, process, stdout_text, stderr_text);
  if (oversized && outcome.status != ProbeStatus::interrupted) {
    outcome.status = ProbeStatus::failed;
    outcome.measurements.clear();
    outcome.reason = "printed " + std::to_string(stdout_bytes) + " bytes on stdout, more than the " +
                     std::to_string(kProbeOutputMaxBytes >> 20) + " MiB a probe's JSON may take: not read";
  }
  outcome.conditions = std::move(conditions);
  std::error_code error;
  if (outcome.status == ProbeStatus::ok) {
    fs::rename(spec.stdout_path, folder / (probe.stage + ".json"), error);
  } else if (trim(stdout_text).empty()) {
    fs::remove(spec.stdout_path, error);
  }
  return outcome;
}

// "9 verdicts decided, 7 at the time cap": why the probe's figures stopped (core/stopping_rule's
// words, counted by their first clause).
std::string stop_counts(const ProbeOutcome& outcome) {
  std::map<std::string, int> counts;
  for (const auto& m : outcome.measurements) {
    const std::string& why = m.stopping;
    if (why.rfind("verdict decided", 0) == 0) ++counts["verdicts decided"];
    else if (why.rfind("stopped with the verdicts", 0) == 0) ++counts["references of them"];
    else if (why.rfind("converged", 0) == 0) ++counts["converged"];
    else if (why.rfind("time cap", 0) == 0) ++counts["at the time cap"];
    else if (why.rfind("maximum", 0) == 0) ++counts["at the maximum count"];
    else if (why.rfind("minimum", 0) == 0) ++counts["at the minimum count"];
  }
  std::string text;
  for (const auto& [what, n] : counts) text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  return text;
}

void print_progress(std::ostream& err, const ProbeOutcome& outcome) {
  const std::string status = to_string(outcome.status);
  err << "pipecheck: " << outcome.stage << " (" << outcome.probe << "): " << status;
  const std::string reason = reason_beside_status(outcome);  // "skipped - no GPU", said once
  if (!reason.empty()) err << " - " << reason;
  err << " [" << static_cast<long>(outcome.seconds + 0.5) << " s, "
      << outcome.measurements.size() << " measurements";
  if (const std::string stops = stop_counts(outcome); !stops.empty()) err << ": " << stops;
  if (outcome.conditions) err << "; " << describe_load(*outcome.conditions);
  err << "]\n";
}

}  // namespace

std::vector<ProbeEntry> select_probes(const RunOptions& options,
                                      const std::vector<ProbeEntry>& catalog) {
  std::set<std::string> wanted(options.only.begin(), options.only.end());
  for (const auto& stage : wanted) {
    const bool known = std::any_of(catalog.begin(), catalog.end(),
                                   [&](const ProbeEntry& e) { return e.stage == stage; });
    if (!known) {
      std::string names;
      for (const auto& e : catalog) names += (names.empty() ? "" : ", ") + e.stage;
      // `--only , --quick`: the empty list let the parser take the next flag as a stage.
      if (!stage.empty() && stage.front() == '-') {
        throw UsageError("--only: '" + shortened(escape_name(stage)) + "' is a flag, not a stage: name at least one stage (" +
                         names + ")");
      }
      throw UsageError("unknown stage '" + shortened(escape_name(stage)) + "' (known: " + names + ")");
    }
  }
  std::vector<ProbeEntry> selected;
  for (const auto& entry : catalog) {
    if (wanted.empty() || wanted.count(entry.stage)) selected.push_back(entry);
  }
  return selected;
}

// Every selected probe that this build should have must be there before anything runs.
fs::path create_run_folder(const fs::path& out, const std::string& base_name) {
  std::error_code error;
  fs::create_directories(out, error);
  const std::string shown = escape_name(out.string());
  if (error) throw UsageError("--out " + shown + ": cannot create: " + error.message());
  if (!fs::is_directory(out)) throw UsageError("--out " + shown + ": not a directory");
  if (access(out.c_str(), W_OK | X_OK) != 0) throw UsageError("--out " + shown + ": not writable");
  // The first name free both as the run's folder and as its final name (a finished run of the
  // same second, or another run starting now): create_directory is the exclusive claim.
  constexpr int kMostTries = 10000;
  for (int n = 1; n <= kMostTries; ++n) {
    const std::string name = n == 1 ? base_name : base_name + "-" + std::to_string(n);
    const fs::path folder = out / (name + ".incomplete");
    struct stat taken {};
    if (lstat((out / name).c_str(), &taken) == 0) continue;
    if (mkdir(folder.c_str(), 0755) == 0) return folder;
    if (errno == EEXIST) continue;  // anything at that name, even a dangling link
    throw UsageError(errno_message("--out " + shown + ": cannot create", folder.string(), errno));
  }
  throw UsageError("--out " + shown + ": " + std::to_string(kMostTries) + " runs named " + escape_name(base_name) +
                   "-N exist already");
}

const char* mode_name_of(ProbeMode mode) {
  switch (mode) {
    case ProbeMode::quick: return "quick";
    case ProbeMode::full: return "full";
    default: return "standard";
  }
}

std::vector<std::string> probe_arguments(ProbeMode mode, const std::optional<VerdictInputs>& verdicts, bool steady) {
  // The minimum time keeps each repetition long enough to swamp timer and warm-up noise.
  std::vector<std::string> args;
  if (mode == ProbeMode::full) {
    return {"--benchmark_format=json", "--benchmark_min_time=0.5", "--pipecheck_full",
            "--pipecheck_min_repetitions=10", "--pipecheck_max_repetitions=200",
            "--pipecheck_target_noise=2", "--pipecheck_case_seconds=60"};
  }
  if (!verdicts) {
    // A baseline is recorded or compared: compare counts a 3% change, so each median is held to
    // 2% (both together: 2.8%), at most 5 s a case (10 s made `make bench` 4.6 minutes here).
    if (mode == ProbeMode::quick) {
      return {"--benchmark_format=json", "--benchmark_min_time=0.05", "--pipecheck_quick", "--pipecheck_repetitions=5"};
    }
    return {"--benchmark_format=json", "--benchmark_min_time=0.2",
            "--pipecheck_min_repetitions=5", "--pipecheck_max_repetitions=100",
            "--pipecheck_target_noise=2", "--pipecheck_case_seconds=5"};
  }
  // Verdicts decide: a judged figure stops once more repetitions cannot change its verdict;
  // quick holds figures without a threshold to nothing but the minimum count, standard to the
  // 3% change compare counts.
  if (mode == ProbeMode::quick) {
    // One stray repetition keeps [min, max] across a threshold until the 9th (the interval then
    // leaves out the extremes): 2.5 s a case lets a CPU stage's case reach it; 1 s a GPU's.
    args = {"--benchmark_format=json", "--benchmark_min_time=0.05", "--pipecheck_quick",
            "--pipecheck_min_repetitions=5", "--pipecheck_max_repetitions=30",
            "--pipecheck_target_noise=none", steady ? "--pipecheck_case_seconds=1" : "--pipecheck_case_seconds=2.5"};
  } else {
    args = {"--benchmark_format=json", "--benchmark_min_time=0.1",
            "--pipecheck_min_repetitions=5", "--pipecheck_max_repetitions=100",
            "--pipecheck_target_noise=3", "--pipecheck_case_seconds=2.5"};
  }
  args.push_back("--pipecheck_verdict_inventory=" + verdicts->inventory.string());
  if (!verdicts->profile.empty()) args.push_back("--pipecheck_verdict_profile=" + verdicts->profile.string());
  return args;
}

std::vector<std::string> stage_arguments(const std::string& stage, const RunOptions& options,
                                         const fs::path& run_folder) {
  const StageSpec* spec = find_stage(stage);
  if (spec == nullptr || !spec->probe_arguments) return {};
  StageRunInputs run;
  run.storage_paths = options.storage_paths;
  run.images_dir = options.images_dir;
  run.decode_size = options.decode_size;
  if (!options.workload.empty()) run.workers = parse_workload(options.workload).workers;
  run.workload = options.workload;
  run.scratch_dir = run_folder.parent_path();
  return spec->probe_arguments(run);
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
  if (process.ending == ProcessResult::Ending::interrupted) {
    // The user stopped the run: not the probe's failure (core/outcome.hpp).
    outcome.status = ProbeStatus::interrupted;
    outcome.reason = process.describe();
    return outcome;
  }
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
    // Control bytes or invalid UTF-8 inside its strings (a file name in a label) must not cost
    // the stage: they read as \xHH escapes (core/text_escape.hpp).
    ParsedBenchmarks parsed = parse_benchmark_json(sanitize_json_bytes(stdout_text), probe.stage);
    outcome.measurements = std::move(parsed.measurements);
    outcome.case_errors = std::move(parsed.case_errors);
    outcome.skipped_cases = std::move(parsed.skipped_cases);
    outcome.wrong_results = std::move(parsed.wrong_results);
  } catch (const std::exception& error) {
    outcome.reason = std::string("printed no valid benchmark JSON: ") + error.what();
    if (outcome.reason.size() > 240) outcome.reason = outcome.reason.substr(0, 237) + "...";
    return outcome;
  }
  // Every case skipped itself (no nvJPEG, no O_DIRECT): the probe is skipped, with the first reason.
  if (outcome.measurements.empty() && outcome.wrong_results.empty() && outcome.case_errors.empty() &&
      !outcome.skipped_cases.empty()) {
    outcome.status = ProbeStatus::skipped;
    outcome.reason = skipped_case_message(outcome.skipped_cases.front());
    return outcome;
  }
  // Wrong results caught by a case's verifier are judged (fail), not a probe that broke.
  if (outcome.measurements.empty() && outcome.wrong_results.empty()) {
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
  if (!options.decode_size.empty()) parse_dimensions("decode-size", options.decode_size);
  const fs::path probe_dir = options.probe_dir.empty() ? executable_dir() : options.probe_dir;
  check_probes_present(probes, probe_dir);
  check_probe_inputs(options, probes, probe_dir);
  if (!options.baseline.empty()) check_baseline_path(options.baseline, options.force_baseline);
  if (!options.prom_textfile.empty()) check_prom_textfile_dir(options.prom_textfile);

  Report report;
  report.pipecheck_version = PIPECHECK_VERSION;
  report.host = host_name();
  report.started_utc = utc_now_iso();
  report.mode = mode_name_of(options.mode);
  // The machine first: a baseline of another one is refused before anything is written or run.
  const Inventory inventory = collect_inventory(SysfsRoot(options.sysfs_root));
  if (!options.baseline.empty()) check_baseline_machine(options.baseline, identity_of(inventory), options.force_baseline);
  const std::string base_name = report.host + "-" + utc_now_compact();
  const fs::path folder = create_run_folder(options.out, base_name);
  const std::string inventory_text = json_text(nlohmann::json(inventory)) + "\n";
  write_file_atomically(folder / "inventory.json", inventory_text);
  // Without a baseline the probes decide verdicts against this inventory: a copy outside the
  // run's folder, whose temporary name no probe's output may carry.
  std::optional<TemporaryFolder> verdict_folder;
  std::optional<VerdictInputs> verdicts;
  if (options.baseline.empty()) {
    verdict_folder.emplace("pipecheck-verdicts");
    write_file_atomically(verdict_folder->path() / "inventory.json", inventory_text);
    verdicts = VerdictInputs{verdict_folder->path() / "inventory.json",
                             options.profile_path.empty() ? fs::path() : fs::absolute(options.profile_path)};
  }

  InterruptGuard guard;
  GpuConditionsWatch gpus;
  QuietCheckOptions quiet;
  quiet.threshold_percent = profile.threshold(kOtherCpuKey).value_or(std::numeric_limits<double>::infinity());
  quiet.wait_seconds = options.wait_quiet_seconds;
  quiet.window_seconds = options.quiet_window_seconds;
  report.quiet_check = check_machine_quiet(quiet, gpus, g_interrupted, err);
  for (const auto& probe : probes) {
    if (g_interrupted.load()) break;
    err << "pipecheck: running " << probe.stage << " (" << probe.executable << ") ...\n";
    report.probes.push_back(run_one_probe(probe, options, probe_dir, folder, verdicts, gpus));
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
    err << "pipecheck: interrupted: partial results left in " << escape_name(folder.string()) << "\n";
    return 130;
  }
  fs::path final_folder = folder;
  final_folder.replace_extension();  // drop ".incomplete"
  // RENAME_NOREPLACE: an empty folder made at the final name meanwhile is not replaced.
  if (renameat2(AT_FDCWD, folder.c_str(), AT_FDCWD, final_folder.c_str(), RENAME_NOREPLACE) != 0) {
    throw_errno("rename " + escape_name(folder.string()) + " to", final_folder.string());
  }
  out << "\nresults: " << escape_name(final_folder.string()) << "  (report.html, report.md, junit.xml, pipecheck.prom)\n";
  record_in_history(options.history, options.out, report, &inventory, "run", fs::absolute(final_folder), err);
  if (!options.prom_textfile.empty()) {
    out << "prometheus: " << escape_name(write_prom_textfile(options.prom_textfile, report, inventory, {}).string()) << "\n";
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
