// The `pipecheck` command line (CLI11): inventory and run. Every bad input becomes one line
// naming it and exit code 2; a run that cannot proceed exits 3.
#include "app/cli.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "app/check_command.hpp"
#include "app/probe_catalog.hpp"
#include "app/compare_cli.hpp"
#include "app/history_cli.hpp"
#include "app/number_flag.hpp"
#include "app/path_flag.hpp"
#include "app/report_command.hpp"
#include "app/run_command.hpp"
#include "app/run_plan.hpp"
#include "app/stress_cli.hpp"
#include "app/terminal_width.hpp"
#include "app/watch_cli.hpp"
#include "core/errors.hpp"
#include "inventory/inventory_collect.hpp"
#include "core/json_records.hpp"
#include "core/json_text.hpp"
#include "core/outcome.hpp"
#include "core/standard_output.hpp"
#include "core/text_escape.hpp"
#include "pipecheck_config.hpp"
#include "render/inventory_text.hpp"
#include "render/summary_table.hpp"

namespace pipecheck {

namespace {

struct InventoryArgs {
  bool json = false;
  std::string sysfs_root = "/";
};

int inventory_command(const InventoryArgs& args) {
  const Inventory inventory = collect_inventory(SysfsRoot(args.sysfs_root));
  if (args.json) {
    std::cout << json_text(nlohmann::json(inventory)) << "\n";
  } else {
    std::cout << render_inventory(inventory);
  }
  return 0;
}

bool is_command(CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == name) return true;
  }
  return false;
}

int run_command_line(int argc, char** argv);

}  // namespace

int run_cli(int argc, char** argv) {
  hold_standard_fds();
  exit_three_on_broken_pipe("pipecheck");
  return checked_stdout(run_command_line(argc, argv), "pipecheck");
}

namespace {

int run_command_line(int argc, char** argv) {
  CLI::App app{"pipecheck: measure each stage of a GPU training pipeline against its ceiling"};
  app.set_version_flag("--version", std::string("pipecheck ") + PIPECHECK_VERSION);
  app.require_subcommand(1);

  InventoryArgs inventory_args;
  auto* inventory = app.add_subcommand("inventory", "Show the hardware, its links and the software stack");
  inventory->add_flag("--json", inventory_args.json, "JSON instead of text");
  inventory->add_option("--sysfs-root", inventory_args.sysfs_root,
                        "Read /sys and /proc under this folder (a recorded tree)")
      ->check(existing_path_check(PathKind::directory));

  RunOptions run_options;
  std::string out_dir = "results";
  bool quick = false, full = false, no_color = false, plan = false;
  std::string plan_inventory;
  std::optional<int> timeout;
  auto* run = app.add_subcommand("run", "Run the probes and write a results folder");
  // "--only decode,hostmem" and "--only decode hostmem" alike.
  run->add_option("--only", run_options.only, "Stages to run, comma- or space-separated (" + known_stages() + ")")
      ->delimiter(',');
  auto* quick_flag = run->add_flag("--quick", quick, "Short runs: 5 repetitions a case, smaller buffers");
  run->add_flag("--full", full, "Long runs: 10 to 200 repetitions until 2% noise (60 s a case), larger buffers")
      ->excludes(quick_flag);
  run->add_flag("--plan", plan, "Print how long each probe will take (its cases x repetitions x seconds), run nothing");
  run->add_option("--plan-inventory", plan_inventory,
                  "With --plan: plan for the machine of this inventory.json (e.g. a GPU node's) instead of asking the probes here");
  run->add_option("--out", out_dir, "Folder the run's folder is written into")->capture_default_str();
  run->add_option("--timeout", timeout, "Time limit per probe, seconds (1 to 604800)")
      ->check(whole_number_check(1, 604800));
  run->add_option("--probe-dir", run_options.probe_dir, "Where the probe executables are");
  run->add_flag("--no-color", no_color, "Plain text even on a terminal");
  run->add_option("--path", run_options.storage_paths,
                  "Storage to read: a file, a dataset folder or a block device (repeatable); "
                  "default: a scratch file in the results folder")
      ->check(existing_path_check(PathKind::any));
  run->add_option("--images", run_options.images_dir, "JPEG dataset folder for the decode probe")
      ->check(existing_path_check(PathKind::directory));
  run->add_option("--decode-size", run_options.decode_size,
                  "WIDTHxHEIGHT of the decode probe's generated images (default 2000x1500)");
  run->add_option("--profile", run_options.profile_path,
                  "Acceptance profile (key = value lines) overlaying the default")
      ->check(existing_path_check(PathKind::file));
  run->add_option("--workload", run_options.workload,
                  "Workload for the pipeline budget, e.g. image=2000x1500,bytes=450KB,batch=256,step_ms=120");

  run->add_option("--baseline", run_options.baseline,
                  "Record the first run here (results/baseline.json); compare later runs to it");
  run->add_flag("--force-baseline", run_options.force_baseline,
                "Compare against a baseline of another machine or schema version");
  run->add_option("--wait-quiet", run_options.wait_quiet_seconds,
                  "Before the first probe, wait up to this many seconds for other processes to calm down")
      ->check(number_check(0, 86400));
  std::optional<int> run_width;
  run->add_option("--width", run_width, "Columns of the terminal summary (default: $COLUMNS, else the terminal's)")
      ->check(whole_number_check(kMinSummaryWidth, 1000));
  run->add_flag("--keep-launcher-env", run_options.keep_launcher_env,
                "Pass srun's/mpirun's variables (SLURM_*, OMPI_*, PMI_*, PMIX_*) to the probes; by default "
                "each host runs as a single-host job even under a launcher");
  run->add_option("--prom-textfile", run_options.prom_textfile,
                  "Also write pipecheck.prom into this folder (node_exporter's textfile collector), atomically");

  ReportOptions report_options;
  auto* report = app.add_subcommand("report", "Judge a results folder again and render it (HTML, Markdown, JUnit, Prometheus)");
  report->add_option("dir", report_options.folder, "A results folder written by `pipecheck run`")
      ->required()
      ->check(existing_path_check(PathKind::directory));
  report->add_option("--profile", report_options.profile_path, "Acceptance profile overlaying the default")
      ->check(existing_path_check(PathKind::file));
  report->add_option("--workload", report_options.workload, "Workload for the pipeline budget");
  bool report_no_color = false;
  report->add_flag("--no-color", report_no_color, "Plain text even on a terminal");
  std::optional<int> report_width;
  report->add_option("--width", report_width, "Columns of the terminal summary (default: $COLUMNS, else the terminal's)")
      ->check(whole_number_check(kMinSummaryWidth, 1000));
  report->add_option("--prom-textfile", report_options.prom_textfile,
                     "Also write pipecheck.prom into this folder (node_exporter's textfile collector), atomically");

  CompareCliState compare_state;
  auto* compare = add_compare_command(app, compare_state);
  StressCliState stress_state;
  auto* stress = add_stress_command(app, stress_state);
  WatchCliState watch_state;
  auto* watch = add_watch_command(app, watch_state);
  CheckCliState check_state;
  auto* check = add_check_command(app, check_state);
  HistoryCliState history_state;
  auto* history = add_history_command(app, history_state);
  run->add_option("--history", run_options.history, "History store to append the run to (default OUT/history.db; postgresql://...)");

  if (argc >= 2 && argv[1][0] != '-' && !is_command(app, argv[1])) {
    std::cerr << "pipecheck: unknown command '" << message_line(shortened(argv[1])) << "' (known: inventory, run, report, compare, stress, watch, check, history)\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "pipecheck: " << message_line(e.what()) << "\n";
    return 2;
  }

  try {
    if (*inventory) return inventory_command(inventory_args);
    if (*stress) return run_stress_command(stress_state);
    if (*watch) return run_watch_command(watch_state);
    if (*check) return run_check_command(check_state);
    if (*compare) return run_compare_command(compare_state, std::cout, std::cerr);
    if (*history) return run_history_command(history_state, std::cout, std::cerr);
    const bool terminal = isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
    if (*report) {
      report_options.color = !report_no_color && terminal;
      report_options.width = summary_width(report_width, std::getenv("COLUMNS"), stdout_terminal_columns());
      return report_folder(report_options, std::cout, std::cerr);
    }
    run_options.mode = quick ? ProbeMode::quick : full ? ProbeMode::full : ProbeMode::standard;
    run_options.out = out_dir;
    run_options.timeout_seconds = timeout;
    run_options.color = !no_color && terminal;
    run_options.width = summary_width(run_width, std::getenv("COLUMNS"), stdout_terminal_columns());
    if (!plan_inventory.empty() && !plan) throw UsageError("--plan-inventory: only with --plan");
    if (plan) {
      std::cout << render_plan(plan_run(run_options, probe_catalog(), plan_inventory));
      return 0;
    }
    return run_suite(run_options, probe_catalog(), std::cout, std::cerr);
  } catch (const UsageError& e) {
    std::cerr << "pipecheck: " << message_line(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pipecheck: could not run: " << message_line(e.what()) << "\n";
    return 3;
  }
}

}  // namespace

}  // namespace pipecheck
