// The driver: fake probes (real child processes) that work, crash, hang, print garbage, skip
// or fail; the results folder; bad input.
#include "app/run_command.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <sstream>
#include <thread>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "report/report.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

const fs::path kProbes = fs::path(PIPECHECK_TEST_DATA) / "probes";

class RunSuiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = fs::temp_directory_path() /
           ("pipecheck-run-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(out_);
    options_.out = out_;
    options_.probe_dir = kProbes;
    options_.timeout_seconds = 2;
    options_.quiet_window_seconds = 0.05;
  }
  void TearDown() override { fs::remove_all(out_); }

  // The one run folder inside out_ (beside it the history store, history.db).
  fs::path run_folder() const {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(out_)) {
      if (entry.is_directory()) found.push_back(entry.path());
    }
    EXPECT_EQ(found.size(), 1u);
    return found.empty() ? fs::path() : found.front();
  }

  int run(const std::vector<ProbeEntry>& catalog) {
    return run_suite(options_, catalog, stdout_, stderr_);
  }

  fs::path out_;
  RunOptions options_;
  std::ostringstream stdout_, stderr_;
};

const std::vector<ProbeEntry> kMixedCatalog = {
    {"good", "good_probe.sh", false, ""},       {"crash", "crash_probe.sh", false, ""},
    {"hang", "hang_probe.sh", false, ""},       {"garbage", "garbage_probe.sh", false, ""},
    {"skip", "skip_probe.sh", false, ""},       {"fail", "fail_probe.sh", false, ""},
};

TEST_F(RunSuiteTest, EveryFailureIsRecordedAndTheRunGoesOn) {
  EXPECT_EQ(run(kMixedCatalog), 1);  // some probe failed
  const fs::path folder = run_folder();
  EXPECT_EQ(folder.extension(), "");  // complete: no ".incomplete"
  const Report report = report_from_json(nlohmann::json::parse(read_file(folder / "report.json")));
  ASSERT_EQ(report.probes.size(), 6u);
  auto probe = [&](const std::string& stage) {
    for (const auto& p : report.probes) {
      if (p.stage == stage) return p;
    }
    ADD_FAILURE() << "no outcome for " << stage;
    return ProbeOutcome{};
  };
  EXPECT_EQ(probe("good").status, ProbeStatus::ok);
  EXPECT_EQ(probe("good").measurements.size(), 4u);
  EXPECT_EQ(probe("crash").status, ProbeStatus::failed);
  EXPECT_NE(probe("crash").reason.find("signal 11"), std::string::npos) << probe("crash").reason;
  EXPECT_NE(probe("crash").reason.find("about to crash"), std::string::npos);
  EXPECT_EQ(probe("hang").status, ProbeStatus::failed);
  EXPECT_NE(probe("hang").reason.find("timed out"), std::string::npos);
  EXPECT_EQ(probe("garbage").status, ProbeStatus::failed);
  EXPECT_NE(probe("garbage").reason.find("no valid benchmark JSON"), std::string::npos);
  EXPECT_EQ(probe("skip").status, ProbeStatus::skipped);
  EXPECT_EQ(probe("skip").reason, "skipped: no CUDA device");
  EXPECT_EQ(probe("fail").status, ProbeStatus::failed);
  EXPECT_EQ(probe("fail").reason, "exit code 3: cudaMalloc on GPU 0: out of memory");

  EXPECT_TRUE(fs::exists(folder / "inventory.json"));
  EXPECT_TRUE(fs::exists(folder / "good.json"));
  EXPECT_TRUE(fs::exists(folder / "garbage.stdout"));  // kept for diagnosis, not as .json
  EXPECT_FALSE(fs::exists(folder / "garbage.json"));
  EXPECT_TRUE(fs::exists(folder / "crash.log"));
  const std::string summary = stdout_.str();
  EXPECT_NE(summary.find("memcpy, 1 thread"), std::string::npos);
  EXPECT_NE(summary.find("Probes without full results"), std::string::npos);
}

TEST_F(RunSuiteTest, AllGoodExitsZero) {
  EXPECT_EQ(run({{"good", "good_probe.sh", false, ""}, {"skip", "skip_probe.sh", false, ""}}), 0);
  EXPECT_NE(stdout_.str().find("results: "), std::string::npos);
}

TEST_F(RunSuiteTest, ConditionsAroundEveryProbeAndTheQuietCheckAreRecorded) {
  EXPECT_EQ(run({{"good", "good_probe.sh", false, ""}, {"crash", "crash_probe.sh", false, ""}}), 1);
  const auto document = nlohmann::json::parse(read_file(run_folder() / "report.json"));
  for (const auto& probe : document["probes"]) {
    const auto& c = probe["conditions"];
    ASSERT_TRUE(c.is_object()) << probe.dump();
    for (const char* key : {"other_cpu_percent", "steal_percent", "iowait_percent", "loadavg_1m", "governor",
                            "usable_cpus", "top_consumers", "gpu_processes"}) {
      EXPECT_TRUE(c.contains(key)) << key;
    }
    EXPECT_GE(c["other_cpu_percent"].get<double>(), 0.0);
    EXPECT_FALSE(c["governor"].get<std::string>().empty());
  }
  EXPECT_TRUE(document["quiet_check"].is_object());
  EXPECT_NE(stdout_.str().find("Conditions (others = CPU other processes used"), std::string::npos) << stdout_.str();
  EXPECT_NE(stderr_.str().find("other processes used"), std::string::npos) << "progress lines say the load";
}

// The probes' output is kept as they printed it, so what they are told must stay true after the
// run folder drops its ".incomplete": no file of a finished run names that temporary folder.
TEST_F(RunSuiteTest, NothingNamesTheUnfinishedRunFolder) {
  run({{"storage", "args_probe.sh", false, ""}});
  const fs::path folder = run_folder();
  const std::string label = read_file(folder / "storage.json");
  EXPECT_NE(label.find("--scratch-dir=" + out_.string() + " "), std::string::npos) << label;
  for (const auto& entry : fs::directory_iterator(folder)) {
    EXPECT_EQ(read_file(entry.path()).find(".incomplete"), std::string::npos) << entry.path();
  }
}

// --prom-textfile: the run's pipecheck.prom also lands in node_exporter's folder.
TEST_F(RunSuiteTest, PromTextfileGetsTheRunsMetrics) {
  const fs::path textfile = out_ / "textfile";
  fs::create_directories(textfile);
  options_.prom_textfile = textfile;
  run({{"good", "good_probe.sh", false, ""}});
  fs::path folder;
  for (const auto& entry : fs::directory_iterator(out_)) {
    if (entry.is_directory() && entry.path() != textfile) folder = entry.path();
  }
  EXPECT_EQ(read_file(textfile / "pipecheck.prom"), read_file(folder / "pipecheck.prom"));
  EXPECT_NE(stdout_.str().find("prometheus: " + (textfile / "pipecheck.prom").string()), std::string::npos);
}

TEST_F(RunSuiteTest, OnlySelectsStages) {
  options_.only = {"skip"};
  EXPECT_EQ(run(kMixedCatalog), 0);
  const Report report = report_from_json(nlohmann::json::parse(read_file(run_folder() / "report.json")));
  ASSERT_EQ(report.probes.size(), 1u);
  EXPECT_EQ(report.probes[0].stage, "skip");
}

TEST_F(RunSuiteTest, UnknownStageIsAUsageErrorAndWritesNothing) {
  options_.only = {"warp-drive"};
  try {
    run(kMixedCatalog);
    FAIL() << "accepted an unknown stage";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("unknown stage 'warp-drive'"), std::string::npos);
  }
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(RunSuiteTest, BadDecodeSizeIsAUsageErrorAndWritesNothing) {
  options_.decode_size = "4000by3000";
  try {
    run({{"good", "good_probe.sh", false, ""}});
    FAIL() << "accepted a bad size";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--decode-size 4000by3000"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(RunSuiteTest, MissingProbeBinaryIsAUsageErrorAndWritesNothing) {
  EXPECT_THROW(run({{"ghost", "no_such_probe", false, ""}}), UsageError);
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(RunSuiteTest, UnwritableOutIsAUsageError) {
  const fs::path file = out_.string() + "-file";
  write_file_atomically(file, "x");
  options_.out = file / "sub";
  EXPECT_THROW(run({{"good", "good_probe.sh", false, ""}}), UsageError);
  options_.out = file;
  EXPECT_THROW(run({{"good", "good_probe.sh", false, ""}}), UsageError);
  fs::remove(file);
}

TEST_F(RunSuiteTest, SkipIsSaidOnceInTheProgressLine) {
  EXPECT_EQ(run({{"skip", "skip_probe.sh", false, ""}}), 0);
  EXPECT_NE(stderr_.str().find("skip (skip_probe.sh): skipped - no CUDA device"), std::string::npos) << stderr_.str();
  EXPECT_EQ(stderr_.str().find("skipped - skipped"), std::string::npos) << stderr_.str();
}

TEST_F(RunSuiteTest, RawBytesOfAFileNameDoNotCostTheStage) {
  EXPECT_EQ(run({{"raw", "raw_name_probe.sh", false, ""}}), 0) << stderr_.str();
  const std::string text = read_file(run_folder() / "report.json");
  const Report report = report_from_json(nlohmann::json::parse(text));  // valid UTF-8 JSON
  ASSERT_EQ(report.probes.size(), 1u);
  EXPECT_EQ(report.probes[0].status, ProbeStatus::ok) << report.probes[0].reason;
  ASSERT_FALSE(report.probes[0].measurements.empty());
  EXPECT_EQ(report.probes[0].measurements[0].params.at("path"), "/d/caf\\xe9\\x1b[31m\\x01\\xff");
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "a raw escape reached report.json";
}

TEST_F(RunSuiteTest, OutputBeyondTheLimitIsAFailedProbeNotRead) {
  options_.timeout_seconds = 60;
  EXPECT_EQ(run({{"huge", "huge_output_probe.sh", false, ""}}), 1) << stderr_.str();
  const Report report = report_from_json(nlohmann::json::parse(read_file(run_folder() / "report.json")));
  ASSERT_EQ(report.probes.size(), 1u);
  EXPECT_EQ(report.probes[0].status, ProbeStatus::failed);
  EXPECT_NE(report.probes[0].reason.find("printed 70000000 bytes on stdout, more than the 64 MiB"), std::string::npos)
      << report.probes[0].reason;
}

TEST_F(RunSuiteTest, InterruptedProbeIsRecordedAsInterruptedNotAsATimeout) {
  options_.timeout_seconds = 60;
  std::thread interrupter([this] {
    // The hang probe's log exists once the driver runs it, so its SIGINT handler is in place.
    for (int i = 0; i < 2000; ++i) {
      std::error_code error;
      for (const auto& entry : fs::directory_iterator(out_, error)) {
        if (fs::exists(entry.path() / "hang.log")) {
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          kill(getpid(), SIGINT);
          return;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  const int code = run({{"good", "good_probe.sh", false, ""}, {"hang", "hang_probe.sh", false, ""},
                        {"skip", "skip_probe.sh", false, ""}});
  interrupter.join();
  EXPECT_EQ(code, 130);
  const fs::path folder = run_folder();
  EXPECT_EQ(folder.extension(), ".incomplete");
  const Report report = report_from_json(nlohmann::json::parse(read_file(folder / "report.json")));
  ASSERT_EQ(report.probes.size(), 2u);  // the probe after the interruption never ran
  EXPECT_EQ(report.probes[1].status, ProbeStatus::interrupted);
  EXPECT_EQ(report.probes[1].reason.find("timed out"), std::string::npos) << report.probes[1].reason;
  EXPECT_NE(report.probes[1].reason.find("stopped by SIGINT or SIGTERM"), std::string::npos) << report.probes[1].reason;
  EXPECT_NE(stderr_.str().find("hang (hang_probe.sh): interrupted - stopped by SIGINT"), std::string::npos) << stderr_.str();
  EXPECT_NE(report.judged.overall, Verdict::fail) << "an interruption is not a failure";
  EXPECT_EQ(stdout_.str().find("FAIL"), std::string::npos) << stdout_.str();
  // The stop was that run's: a process started afterwards in this process runs.
  ProcessSpec spec;
  spec.argv = {"/bin/true"};
  spec.stdout_path = out_ / "true.out";
  spec.stderr_path = out_ / "true.err";
  EXPECT_TRUE(run_process(spec).ok());
}

// create_run_folder in a child with a deadline: the bug it guards against was an endless loop.
std::optional<fs::path> folder_within_seconds(const fs::path& out, const std::string& base, int seconds) {
  const fs::path answer = out.string() + ".answer";
  const pid_t child = fork();
  if (child == 0) {
    try {
      write_file_atomically(answer, create_run_folder(out, base).string());
      _exit(0);
    } catch (...) {
      _exit(1);
    }
  }
  for (int i = 0; i < seconds * 100; ++i) {
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) {
      std::error_code error;
      const auto text = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? read_file(answer) : "";
      fs::remove(answer, error);
      return text.empty() ? std::nullopt : std::optional<fs::path>(text);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ADD_FAILURE() << "create_run_folder did not return within " << seconds << " s";
  return std::nullopt;
}

TEST_F(RunSuiteTest, RunFolderTakesTheNextFreeNameWhenAFinishedRunHasIt) {
  fs::create_directories(out_ / "host-20261201T000000Z");        // a finished run of this second
  fs::create_directories(out_ / "host-20261201T000000Z-2.incomplete");  // one still running
  fs::create_symlink("/nonexistent", out_ / "host-20261201T000000Z-3");  // even a dangling link takes a name
  EXPECT_EQ(folder_within_seconds(out_, "host-20261201T000000Z", 10),
            out_ / "host-20261201T000000Z-4.incomplete");
  EXPECT_TRUE(fs::is_directory(out_ / "host-20261201T000000Z-4.incomplete"));
}

// Under `srun -N 8 pipecheck run` each host's probes must not believe they are one rank of the
// launcher's job: the launcher's variables stay out of their environment, the rest stays in.
TEST_F(RunSuiteTest, ProbesDoNotSeeTheLaunchersVariables) {
  const std::vector<std::pair<const char*, const char*>> planted = {
      {"SLURM_JOB_ID", "4242"}, {"SLURM_PROCID", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"},
      {"PMI_RANK", "3"},        {"PMIX_RANK", "3"},    {"PIPECHECK_TEST_KEEP", "yes"}};
  for (const auto& [name, value] : planted) setenv(name, value, 1);
  EXPECT_EQ(run({{"env", "env_probe.sh", false, ""}}), 0);
  const std::string seen = read_file(run_folder() / "env.log");
  for (const auto& [name, value] : planted) unsetenv(name);
  EXPECT_NE(seen.find("PIPECHECK_TEST_KEEP=yes"), std::string::npos) << seen;
  for (const char* name : {"SLURM_JOB_ID=", "SLURM_PROCID=", "OMPI_COMM_WORLD_SIZE=", "PMI_RANK=", "PMIX_RANK="}) {
    EXPECT_EQ(seen.find(std::string("\n") + name), std::string::npos) << name << " reached the probe";
  }
}

// A multi-node NCCL run is a choice: --keep-launcher-env passes them on.
TEST_F(RunSuiteTest, KeepLauncherEnvPassesThem) {
  setenv("SLURM_JOB_ID", "4242", 1);
  options_.keep_launcher_env = true;
  EXPECT_EQ(run({{"env", "env_probe.sh", false, ""}}), 0);
  unsetenv("SLURM_JOB_ID");
  EXPECT_NE(read_file(run_folder() / "env.log").find("SLURM_JOB_ID=4242"), std::string::npos);
}

// A node without cuBLAS: the loader cannot start the probe. That is a skip naming what to
// install, not a failed probe (and not a failed run).
TEST_F(RunSuiteTest, AMissingGpuLibraryIsASkipWithWhatToInstall) {
  EXPECT_EQ(run({{"gemm", "nolib_probe.sh", false, ""}}), 0);
  const Report report = report_from_json(nlohmann::json::parse(read_file(run_folder() / "report.json")));
  ASSERT_EQ(report.probes.size(), 1u);
  EXPECT_EQ(report.probes[0].status, ProbeStatus::skipped);
  EXPECT_NE(report.probes[0].reason.find("libcublas.so.13 not found: install cuBLAS"), std::string::npos)
      << report.probes[0].reason;
}

TEST(OutcomeOfProcess, LoaderFailureIsASkipOnlyForExit127WithoutOutput) {
  ProcessResult loader;
  loader.ending = ProcessResult::Ending::exited;
  loader.exit_code = 127;
  const ProbeEntry probe{"nccl", "pipecheck-comm", false, ""};
  const std::string text =
      "pipecheck-comm: error while loading shared libraries: libnccl.so.2: cannot open shared object file: "
      "No such file or directory\n";
  const ProbeOutcome skipped = outcome_of_process(probe, loader, "", text);
  EXPECT_EQ(skipped.status, ProbeStatus::skipped);
  EXPECT_NE(skipped.reason.find("libnccl.so.2 not found: install NCCL"), std::string::npos) << skipped.reason;
  EXPECT_EQ(outcome_of_process(probe, loader, "", "pipecheck-comm: some other failure\n").status, ProbeStatus::failed);
  ProcessResult other = loader;
  other.exit_code = 3;
  EXPECT_EQ(outcome_of_process(probe, other, "", text).status, ProbeStatus::failed);
}

TEST(OutcomeOfProcess, SkipNeedsEmptyStdout) {
  ProcessResult exited;
  exited.ending = ProcessResult::Ending::exited;
  exited.exit_code = 0;
  const ProbeEntry probe{"x", "x", false, ""};
  EXPECT_EQ(outcome_of_process(probe, exited, "", "warming up\nskipped: needs 2 GPUs\n").status,
            ProbeStatus::skipped);
  EXPECT_EQ(outcome_of_process(probe, exited, "noise", "skipped: needs 2 GPUs\n").status,
            ProbeStatus::failed);
  EXPECT_EQ(outcome_of_process(probe, exited, R"({"benchmarks": []})", "").reason,
            "no measurements in its output");
}

// Cases that skipped themselves with the documented prefix make a skipped probe when nothing
// else ran; a case whose verifier caught wrong data keeps the probe ok, to be judged fail.
TEST(OutcomeOfProcess, SkippedCasesAndWrongResultsAreNotCaseErrors) {
  ProcessResult exited;
  exited.ending = ProcessResult::Ending::exited;
  exited.exit_code = 0;
  const ProbeEntry probe{"pipecheck-decode", "decode", false, ""};
  const std::string only_skipped = R"json({"benchmarks": [
    {"name": "decode/nvjpeg/iterations:1", "run_type": "iteration", "error_occurred": true,
     "error_message": "skipped: no nvJPEG (libnvjpeg.so.13: cannot open)"}]})json";
  const ProbeOutcome skipped = outcome_of_process(probe, exited, only_skipped, "");
  EXPECT_EQ(skipped.status, ProbeStatus::skipped);
  EXPECT_EQ(skipped.reason, "skipped: decode/nvjpeg: no nvJPEG (libnvjpeg.so.13: cannot open)");
  EXPECT_TRUE(skipped.case_errors.empty());

  const std::string only_wrong = R"json({"benchmarks": [
    {"name": "hostmem/read/real_time", "run_type": "iteration", "error_occurred": true,
     "error_message": "wrong result: read: word 17 holds 5, expected 4"}]})json";
  const ProbeOutcome wrong = outcome_of_process(probe, exited, only_wrong, "");
  EXPECT_EQ(wrong.status, ProbeStatus::ok);
  ASSERT_EQ(wrong.wrong_results.size(), 1u);
  EXPECT_EQ(wrong.wrong_results[0], "hostmem/read: read: word 17 holds 5, expected 4");

  const std::string skipped_and_error = R"json({"benchmarks": [
    {"name": "a", "run_type": "iteration", "error_occurred": true, "error_message": "skipped: n/a"},
    {"name": "b", "run_type": "iteration", "error_occurred": true, "error_message": "cudaMalloc failed"}]})json";
  EXPECT_EQ(outcome_of_process(probe, exited, skipped_and_error, "").status, ProbeStatus::failed);
}

TEST(StageArguments, StorageGetsScratchAndPathsDecodeGetsImages) {
  RunOptions options;
  options.storage_paths = {"/data", "/dev/nvme0n1"};
  options.images_dir = "/imgs";
  EXPECT_EQ(stage_arguments("storage", options, "/r/run1"),
            (std::vector<std::string>{"--scratch-dir=/r", "--path=/data", "--path=/dev/nvme0n1"}));
  EXPECT_EQ(stage_arguments("decode", options, "/r"), (std::vector<std::string>{"--images=/imgs"}));
  EXPECT_TRUE(stage_arguments("hostmem", options, "/r").empty());
  options.images_dir.clear();
  EXPECT_TRUE(stage_arguments("decode", options, "/r").empty());
  options.decode_size = "4000x3000";
  EXPECT_EQ(stage_arguments("decode", options, "/r"), (std::vector<std::string>{"--size=4000x3000"}));
}

// --images without --path: the storage probe reads the dataset itself; workers= reaches both
// the storage and the decode probe, so the budget finds the loader's own parallelism measured.
TEST(StageArguments, DatasetAndWorkersReachTheProbes) {
  RunOptions options;
  options.images_dir = "/imgs";
  options.workload = "bytes=100KB,workers=6";
  EXPECT_EQ(stage_arguments("storage", options, "/r/run1"),
            (std::vector<std::string>{"--scratch-dir=/r", "--path=/imgs", "--workers=6"}));
  // The workload reaches the decode probe: the loader's transform and the job's python, defaults; the
  // budget reads the loader's figures, so they are held to the noise target.
  EXPECT_EQ(stage_arguments("decode", options, "/r"), (std::vector<std::string>{"--images=/imgs", "--workers=6", "--crop=random-resized",
                                                                                "--tensor=float32", "--python=auto", "--budget=yes"}));
  EXPECT_TRUE(stage_arguments("hostmem", options, "/r").empty());
  options.storage_paths = {"/data"};
  options.workload = "train=640x640";
  EXPECT_EQ(stage_arguments("storage", options, "/r/run1"), (std::vector<std::string>{"--scratch-dir=/r", "--path=/data"}));
}

TEST(ProbeArguments, QuickAndFullDiffer) {
  const auto quick = probe_arguments(ProbeMode::quick);
  const auto full = probe_arguments(ProbeMode::full);
  EXPECT_NE(std::find(quick.begin(), quick.end(), "--pipecheck_quick"), quick.end());
  EXPECT_NE(std::find(full.begin(), full.end(), "--pipecheck_full"), full.end());
  EXPECT_NE(std::find(quick.begin(), quick.end(), "--benchmark_format=json"), quick.end());
  EXPECT_LT(default_timeout_seconds(ProbeMode::quick), default_timeout_seconds(ProbeMode::full));
}

// Without a baseline the probes decide verdicts against the run's inventory (and profile); a
// baseline run and --full hold every figure to the 2% noise compare needs.
TEST(ProbeArguments, VerdictsDecideUnlessABaselineOrFull) {
  const VerdictInputs verdicts{"/r/run/inventory.json", "/p/profile.toml"};
  const auto has = [](const std::vector<std::string>& args, const std::string& arg) {
    return std::find(args.begin(), args.end(), arg) != args.end();
  };
  for (ProbeMode mode : {ProbeMode::quick, ProbeMode::standard}) {
    const auto deciding = probe_arguments(mode, verdicts);
    EXPECT_TRUE(has(deciding, "--pipecheck_verdict_inventory=/r/run/inventory.json"));
    EXPECT_TRUE(has(deciding, "--pipecheck_verdict_profile=/p/profile.toml"));
    const auto baseline = probe_arguments(mode);
    EXPECT_FALSE(std::any_of(baseline.begin(), baseline.end(),
                             [](const std::string& a) { return a.find("verdict") != std::string::npos; }));
  }
  EXPECT_TRUE(has(probe_arguments(ProbeMode::standard), "--pipecheck_target_noise=2"));
  EXPECT_TRUE(has(probe_arguments(ProbeMode::quick, verdicts), "--pipecheck_target_noise=none"));
  // Quick caps an undecided verdict at 2.5 s a case on CPU stages, 1 s on the GPU's steady ones.
  EXPECT_TRUE(has(probe_arguments(ProbeMode::quick, verdicts), "--pipecheck_case_seconds=2.5"));
  EXPECT_TRUE(has(probe_arguments(ProbeMode::quick, verdicts, true), "--pipecheck_case_seconds=1"));
  const auto full = probe_arguments(ProbeMode::full, verdicts);
  EXPECT_FALSE(has(full, "--pipecheck_verdict_inventory=/r/run/inventory.json"));
  EXPECT_TRUE(has(full, "--pipecheck_target_noise=2"));
}

}  // namespace
}  // namespace pipecheck

namespace pipecheck {
namespace {

// Another machine's baseline is refused before any probe runs and before the run's folder is
// made (issue 24: it was refused only after every probe had run).
TEST_F(RunSuiteTest, AnotherMachinesBaselineIsRefusedBeforeAnyProbeRuns) {
  fs::create_directories(out_);
  options_.baseline = out_ / "baseline.json";
  fs::copy_file(fs::path(PIPECHECK_TEST_DATA) / "compare" / "recorded_baseline.json", options_.baseline);
  try {
    run({{"good", "good_probe.sh", false, ""}});
    ADD_FAILURE() << "a baseline of host node-a was taken on this machine";
  } catch (const UsageError& refused) {
    EXPECT_NE(std::string(refused.what()).find("node-a"), std::string::npos) << refused.what();
    EXPECT_NE(std::string(refused.what()).find("--force-baseline"), std::string::npos) << refused.what();
  }
  for (const auto& entry : fs::directory_iterator(out_)) {
    EXPECT_EQ(entry.path().filename(), "baseline.json") << "written before the refusal: " << entry.path();
  }
}

}  // namespace
}  // namespace pipecheck

namespace pipecheck {
namespace {

// A --baseline that cannot be created is refused before any probe runs, even as root, for whom
// access() says yes where creating fails (issue 24: refused only after every probe had run).
TEST_F(RunSuiteTest, ABaselineThatCannotBeCreatedIsRefusedBeforeAnyProbeRuns) {
  options_.baseline = "/proc/pipecheck-no-such-folder/baseline.json";
  try {
    run({{"good", "good_probe.sh", false, ""}});
    ADD_FAILURE() << "the run went on with a baseline it cannot write";
  } catch (const UsageError& refused) {
    EXPECT_NE(std::string(refused.what()).find("--baseline /proc/pipecheck-no-such-folder/baseline.json"),
              std::string::npos) << refused.what();
  }
  EXPECT_FALSE(fs::exists(out_)) << "the run's folder was made before the refusal";
}

}  // namespace
}  // namespace pipecheck
