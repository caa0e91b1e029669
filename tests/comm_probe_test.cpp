// pipecheck-comm end to end: a short sweep whose data checks must pass on any GPU (one GPU is a
// one-rank job), or its "skipped: needs a GPU" exit 0 elsewhere; a bad flag; and the MPI launch path with
// `mpirun -np 2` on this machine (rank 0 alone speaks), skipped when mpirun cannot start here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "comm/comm_runner.hpp"
#include "core/benchmark_json.hpp"
#include "inventory/cuda_devices.hpp"
#include "core/process_runner.hpp"
#include "pipecheck_config.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

struct ProbeRun {
  ProcessResult process;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ProbeRun run(const std::vector<std::string>& argv) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-comm-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ProcessSpec spec;
  spec.argv = argv;
  spec.stdout_path = dir / "out";
  spec.stderr_path = dir / "err";
  spec.time_limit = std::chrono::minutes(3);
  ProbeRun result;
  result.process = run_process(spec);
  result.out = slurp(spec.stdout_path);
  result.err = slurp(spec.stderr_path);
  fs::remove_all(dir);
  return result;
}

std::string probe() { return (fs::path(PIPECHECK_BIN_DIR) / "pipecheck-comm").string(); }

int cuda_gpus() { return static_cast<int>(query_cuda_devices().devices.size()); }

std::size_t count_lines_starting(const std::string& text, const std::string& prefix) {
  std::size_t count = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) ++count;
  }
  return count;
}

// Every case measured, and each one's data check passed.
void expect_verified_results(const ProbeRun& r) {
  const ParsedBenchmarks parsed = parse_benchmark_json(r.out, "comm");
  EXPECT_TRUE(parsed.case_errors.empty()) << parsed.case_errors.front();
  ASSERT_FALSE(parsed.measurements.empty());
  for (const Measurement& m : parsed.measurements) {
    EXPECT_EQ(m.params.at("verified"), "yes") << m.key;
    EXPECT_EQ(m.params.at("wrong"), "0") << m.key;
    EXPECT_GT(m.stats.median, 0) << m.key;
  }
}

const std::vector<std::string> kShortSweep = {"--benchmark_format=json", "-b", "8", "-e", "1M", "-f", "32",
                                              "-n", "5", "-w", "1"};

// The probe with `flags`, then the short sweep; it must run to its end.
ProbeRun run_short_sweep(const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {probe()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), kShortSweep.begin(), kShortSweep.end());
  ProbeRun r = run(argv);
  EXPECT_TRUE(r.process.ok()) << r.process.describe() << "\n" << r.err;
  return r;
}

// True where this build or machine cannot run NCCL, after checking that the probe said why
// and measured nothing.
bool skipped_with_its_reason(const ProbeRun& r) {
  if (!comm_not_built_reason().empty()) {
    EXPECT_NE(r.err.find("skipped: built without NCCL"), std::string::npos) << r.err;
    return true;
  }
  if (cuda_gpus() == 0) {
    EXPECT_NE(r.err.find("skipped: needs a GPU (found 0"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("\"benchmarks\""), std::string::npos);
    return true;
  }
  return false;
}

TEST(CommProbe, RunsAndVerifiesOrSkipsWithReason) {
  if (!fs::exists(probe())) GTEST_SKIP() << "pipecheck-comm not built";
  const ProbeRun r = run_short_sweep({});
  if (!r.process.ok() || skipped_with_its_reason(r)) return;
  expect_verified_results(r);  // one GPU: a one-rank job, checked all the same
}

// -g 1, as nccl-tests runs on one GPU: every collective on one rank with its data check; busbw
// is 0 by the formula (broadcast aside), algbw is the figure, and the probe says why.
TEST(CommProbe, OneGpuRunsEveryCollectiveOnOneRank) {
  if (!fs::exists(probe())) GTEST_SKIP() << "pipecheck-comm not built";
  const ProbeRun r = run_short_sweep({"-g", "1"});
  if (!r.process.ok() || skipped_with_its_reason(r)) return;
  expect_verified_results(r);
  EXPECT_NE(r.err.find("one rank (nccl-tests -g 1)"), std::string::npos) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_TRUE(doc["context"].contains("comm_one_rank"));
  std::set<std::string> collectives;
  for (const auto& b : doc["benchmarks"]) {
    const std::string name = b["name"];
    EXPECT_NE(name.find("/ranks:1/"), std::string::npos) << name;
    collectives.insert(name.substr(5, name.find('/', 5) - 5));
    const double busbw = b["busbw_GBps"];
    const double algbw = b["algbw_GBps"];
    EXPECT_GT(algbw, 0) << name;
    if (name.find("/broadcast/") == std::string::npos) {
      EXPECT_EQ(busbw, 0) << name;
    }
    EXPECT_NEAR(b["bytes_per_second"].get<double>() / 1e9, algbw, algbw * 0.01 + 1e-9) << name;
  }
  EXPECT_EQ(collectives, (std::set<std::string>{"all_reduce", "all_gather", "reduce_scatter", "broadcast"}));
}

TEST(CommProbe, BadFlagIsAUsageError) {
  if (!fs::exists(probe())) GTEST_SKIP() << "pipecheck-comm not built";
  const ProbeRun r = run({probe(), "-e", "8X"});
  EXPECT_EQ(r.process.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("pipecheck-comm: --maxbytes '8X'"), std::string::npos) << r.err;
}

// mpirun as this machine allows it: as root Open MPI needs its two confirmations, and a
// container may have fewer slots than ranks.
std::vector<std::string> mpirun_argv(int ranks) {
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  std::vector<std::string> argv = {PIPECHECK_MPIEXEC, "-np", std::to_string(ranks)};
  if (std::string(PIPECHECK_MPIEXEC).find("mpirun") != std::string::npos) argv.push_back("--oversubscribe");
  return argv;
}

TEST(CommProbe, UnderMpirunRankZeroAloneSpeaks) {
  if (!PIPECHECK_HAVE_MPI || std::string(PIPECHECK_MPIEXEC).empty()) GTEST_SKIP() << "built without MPI";
  if (!fs::exists(probe())) GTEST_SKIP() << "pipecheck-comm not built";
  std::vector<std::string> check = mpirun_argv(2);
  check.push_back("true");
  const ProbeRun started = run(check);
  if (!started.process.ok()) GTEST_SKIP() << "mpirun cannot start 2 processes here: " << started.process.describe()
                                          << ": " << started.err.substr(0, 400);
  std::vector<std::string> argv = mpirun_argv(2);
  argv.push_back(probe());
  argv.insert(argv.end(), kShortSweep.begin(), kShortSweep.end());
  const ProbeRun r = run(argv);
  ASSERT_TRUE(r.process.ok()) << r.process.describe() << "\n" << r.err;
  if (!comm_not_built_reason().empty() || cuda_gpus() < 2) {
    // Both ranks skip alike; only rank 0's line is printed.
    EXPECT_EQ(count_lines_starting(r.err, "skipped: "), 1u) << r.err;
    EXPECT_EQ(r.out.find("\"benchmarks\""), std::string::npos);
    return;
  }
  EXPECT_EQ(count_lines_starting(r.out, "{"), 1u) << "one JSON document, from rank 0";
  expect_verified_results(r);
}

}  // namespace
}  // namespace pipecheck
