// `pipecheck run`: runs each probe as a child process with a time limit, turns what it did
// (measurements, a skip, a crash, a hang, garbage) into its outcome, and writes the results
// folder: inventory.json, each probe's JSON and log, report.json; then the terminal summary.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "app/probe_catalog.hpp"
#include "core/inventory.hpp"
#include "core/probe_main.hpp"
#include "core/probe_outcome.hpp"
#include "core/process_runner.hpp"

namespace pipecheck {

struct RunOptions {
  std::vector<std::string> only;          // stages; empty = all
  ProbeMode mode = ProbeMode::standard;
  std::filesystem::path out = "results";  // the run's folder is created inside
  std::optional<int> timeout_seconds;     // per probe; default by mode
  std::filesystem::path probe_dir;        // where probe executables are; default beside us
  std::filesystem::path sysfs_root = "/";
  bool color = false;
  int width = 100;                         // columns of the terminal summary
  std::filesystem::path prom_textfile;     // node_exporter textfile folder; empty = none
  std::string history;                     // history store (--history); empty = OUT/history.db
  std::vector<std::string> storage_paths;  // forwarded to the storage probe as --path
  std::string images_dir;                  // forwarded to the decode probe as --images
  std::string decode_size;                 // forwarded to the decode probe as --size (generated corpus)
  std::filesystem::path profile_path;      // acceptance profile overlaying the default; empty = default
  std::string workload;                    // pipeline budget workload, e.g. "bytes=450KB,batch=256"
  std::filesystem::path baseline;          // first run recorded here, later runs compared to it
  bool force_baseline = false;             // compare with a baseline of another machine/schema
  double wait_quiet_seconds = 0;           // --wait-quiet: wait up to this long for a quiet machine
  double quiet_window_seconds = 1;         // how long the quiet check looks at the machine
  // Pass srun's/mpirun's variables (SLURM_*, OMPI_*, PMI_*, ...) on to the probes. Off: each
  // host's probes run as a single-host job even when `pipecheck run` was started by a launcher.
  bool keep_launcher_env = false;
};

// The environment the probes get: ours, without the launcher's variables unless kept.
std::vector<std::string> probe_environment(const std::vector<std::string>& ours, bool keep_launcher_env);

// The arguments one stage needs beyond the mode's: the storage probe's paths and scratch
// folder (the --out folder holding the run's folder, so the scratch file sits on the results
// filesystem and no label names the run folder's temporary ".incomplete" name; without --path
// the --images dataset), the decode probe's dataset, and to both the loader's workers
// (--workload workers=N).
std::vector<std::string> stage_arguments(const std::string& stage, const RunOptions& options,
                                         const std::filesystem::path& run_folder);

// What a run without --baseline gives its probes to decide verdicts with (core/stopping_rule):
// the run's inventory.json and its acceptance profile (empty: the default).
struct VerdictInputs {
  std::filesystem::path inventory;
  std::filesystem::path profile;
};

// The probes `run` runs: the catalog, or the --only stages (UsageError naming an unknown one).
std::vector<ProbeEntry> select_probes(const RunOptions& options, const std::vector<ProbeEntry>& catalog);

// Google Benchmark flags for a mode (repetitions, minimum time) plus pipecheck's own. With
// `verdicts`, quick and standard runs stop each judged figure once its verdict is decided;
// without (a --baseline run, where the spread matters, and --full), every figure is repeated to
// the noise a baseline compare needs (2%) or its time cap. `steady`: the stage's figures are a
// GPU's (kernels and copies repeat to within a percent), so a quick run caps an undecided
// verdict sooner than on CPU stages, whose shared cores let one repetition in five stray.
std::vector<std::string> probe_arguments(ProbeMode mode, const std::optional<VerdictInputs>& verdicts = std::nullopt,
                                         bool steady = false);
int default_timeout_seconds(ProbeMode mode);
const char* mode_name_of(ProbeMode mode);

// What one probe's process produced, judged from its ending and its output.
ProbeOutcome outcome_of_process(const ProbeEntry& probe, const ProcessResult& process,
                                const std::string& stdout_text, const std::string& stderr_text);

// Returns the exit code: 0 every verdict passed (or was info/skipped/warn), 1 a verdict failed
// (a failed probe is one), 130 interrupted. Throws UsageError for bad input (exit 2), RunError when it cannot run (3).
int run_suite(const RunOptions& options, const std::vector<ProbeEntry>& catalog,
              std::ostream& out, std::ostream& err);

// The run's folder inside `out`, named *.incomplete until the run has finished: `base_name`, or
// base_name-2, -3, ... when that name (finished or not) is taken. Creates `out` when missing.
// Throws UsageError naming --out when it cannot.
std::filesystem::path create_run_folder(const std::filesystem::path& out, const std::string& base_name);

// The folder holding this executable (/proc/self/exe), where the probes are built.
std::filesystem::path executable_dir();

}  // namespace pipecheck
