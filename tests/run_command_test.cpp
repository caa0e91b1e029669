// The driver: fake probes (real child processes) that work, crash, hang, print garbage, skip
// or fail; the results folder; bad input.
#include "app/run_command.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "reports/report.hpp"

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
  }
  void TearDown() override { fs::remove_all(out_); }

  // The one run folder inside out_.
  fs::path run_folder() const {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(out_)) found.push_back(entry.path());
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
    if (entry.path() != textfile) folder = entry.path();
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
  const ProbeEntry probe{"nccl", "pipecheck-nccl", false, ""};
  const std::string text =
      "pipecheck-nccl: error while loading shared libraries: libnccl.so.2: cannot open shared object file: "
      "No such file or directory\n";
  const ProbeOutcome skipped = outcome_of_process(probe, loader, "", text);
  EXPECT_EQ(skipped.status, ProbeStatus::skipped);
  EXPECT_NE(skipped.reason.find("libnccl.so.2 not found: install NCCL"), std::string::npos) << skipped.reason;
  EXPECT_EQ(outcome_of_process(probe, loader, "", "pipecheck-nccl: some other failure\n").status, ProbeStatus::failed);
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
}

TEST(ProbeArguments, QuickAndFullDiffer) {
  const auto quick = probe_arguments(ProbeMode::quick);
  const auto full = probe_arguments(ProbeMode::full);
  EXPECT_NE(std::find(quick.begin(), quick.end(), "--pipecheck_quick"), quick.end());
  EXPECT_NE(std::find(full.begin(), full.end(), "--pipecheck_full"), full.end());
  EXPECT_NE(std::find(quick.begin(), quick.end(), "--benchmark_format=json"), quick.end());
  EXPECT_LT(default_timeout_seconds(ProbeMode::quick), default_timeout_seconds(ProbeMode::full));
}

}  // namespace
}  // namespace pipecheck
