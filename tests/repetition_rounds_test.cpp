// Rounds of repetitions in a real probe (pipecheck-hostmem on small buffers, run as a child):
// every thread count of a case gets the same number of repetitions, numbered in the order they
// ran; a case stops at its maximum, or when its noise is under the target; the Google Benchmark
// flags keep working.
#include "core/repetition_rounds.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <nlohmann/json.hpp>

#include "core/benchmark_json.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/inventory.hpp"
#include "core/json_records.hpp"
#include "core/process_runner.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

const std::string kProbe = std::string(PIPECHECK_BIN_DIR) + "/pipecheck-hostmem";

struct Scratch {
  fs::path path = fs::temp_directory_path() / ("pipecheck-rounds-" + std::to_string(getpid()));
  Scratch() { fs::create_directories(path); }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

struct Ran {
  ProcessResult process;
  std::string out, err;
};

Ran run_hostmem(const Scratch& scratch, std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {kProbe, "--benchmark_format=json", "--benchmark_min_time=0.001", "--pipecheck_buffer_mib=4",
               "--benchmark_filter=hostmem/read"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = scratch.path / "out";
  spec.stderr_path = scratch.path / "err";
  spec.time_limit = std::chrono::seconds(90);
  const ProcessResult process = run_process(spec);
  return {process, read_file(spec.stdout_path), read_file(spec.stderr_path)};
}

TEST(RepetitionRounds, EveryThreadCountGetsTheSameNumberedRepetitions) {
  if (!fs::exists(kProbe)) GTEST_SKIP() << "pipecheck-hostmem not built";
  Scratch scratch;
  const Ran ran = run_hostmem(scratch, {"--pipecheck_min_repetitions=3", "--pipecheck_max_repetitions=4",
                                        "--pipecheck_target_noise=0.000001"});
  ASSERT_TRUE(ran.process.ok()) << ran.process.describe() << "\n" << ran.err;
  const auto doc = nlohmann::json::parse(ran.out);
  EXPECT_EQ(doc["context"]["pipecheck_interleaved"], "threads");
  EXPECT_EQ(doc["context"]["pipecheck_repetition_rule"],
            "3 to 4 repetitions until the median's noise is <= 1e-06%, at most 10 s a case");
  const ParsedBenchmarks parsed = parse_benchmark_json(ran.out, "hostmem");
  ASSERT_FALSE(parsed.measurements.empty());
  for (const auto& m : parsed.measurements) {
    EXPECT_EQ(m.repetitions.size(), 4u) << m.key;  // noise never under 1e-6%: the maximum
    EXPECT_EQ(m.stats.samples, 4) << m.key;
    EXPECT_TRUE(m.interleaved);
    EXPECT_EQ(m.stopping.rfind("maximum of 4 repetitions", 0), 0u) << m.stopping;
    EXPECT_TRUE(m.noise_percent.has_value());
  }
  for (const auto& run : doc["benchmarks"]) {
    EXPECT_EQ(run["repetitions"], 4);
    EXPECT_GE(run["repetition_index"].get<int>(), 0);
    EXPECT_LT(run["repetition_index"].get<int>(), 4);
  }
}

TEST(RepetitionRounds, StopsOnceTheNoiseIsUnderTheTarget) {
  if (!fs::exists(kProbe)) GTEST_SKIP() << "pipecheck-hostmem not built";
  Scratch scratch;
  const Ran ran = run_hostmem(scratch, {"--pipecheck_min_repetitions=3", "--pipecheck_max_repetitions=50",
                                        "--pipecheck_target_noise=100"});
  ASSERT_TRUE(ran.process.ok()) << ran.err;
  for (const auto& m : parse_benchmark_json(ran.out, "hostmem").measurements) {
    // Usually after the minimum of 3; a loaded machine can make 4 MiB reads noisier than 100%.
    EXPECT_GE(m.repetitions.size(), 3u) << m.key;
    EXPECT_LT(m.repetitions.size(), 50u) << m.key;
    EXPECT_EQ(m.stopping.rfind("converged: noise", 0), 0u) << m.stopping;
    EXPECT_LE(*m.noise_percent, 100.0) << m.key;
  }
  EXPECT_NE(ran.err.find("converged"), std::string::npos) << "each stop is said on stderr: " << ran.err;
}

TEST(RepetitionRounds, GoogleBenchmarksOwnFlagsStillWork) {
  if (!fs::exists(kProbe)) GTEST_SKIP() << "pipecheck-hostmem not built";
  Scratch scratch;
  // --benchmark_out gets the whole document once, after the last round.
  const fs::path out = scratch.path / "file.json";
  const Ran ran = run_hostmem(scratch, {"--pipecheck_repetitions=2", "--benchmark_out=" + out.string()});
  ASSERT_TRUE(ran.process.ok()) << ran.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(out))["benchmarks"], nlohmann::json::parse(ran.out)["benchmarks"]);
  // --benchmark_repetitions: Google Benchmark's own fixed count, with its aggregates.
  const Ran plain = run_hostmem(scratch, {"--benchmark_repetitions=2"});
  ASSERT_TRUE(plain.process.ok()) << plain.err;
  EXPECT_NE(plain.out.find("\"aggregate_name\": \"median\""), std::string::npos);
  // Both at once is a usage error naming them.
  const Ran both = run_hostmem(scratch, {"--benchmark_repetitions=2", "--pipecheck_repetitions=3"});
  EXPECT_EQ(both.process.exit_code, 2);
  EXPECT_NE(both.err.find("--benchmark_repetitions excludes"), std::string::npos) << both.err;
  const Ran bad = run_hostmem(scratch, {"--pipecheck_target_noise=0"});
  EXPECT_EQ(bad.process.exit_code, 2);
  EXPECT_NE(bad.err.find("--pipecheck_target_noise=0"), std::string::npos) << bad.err;
}

// The console table's name column is as wide as the longest name: the rounds' report once
// handed Google Benchmark a context whose width was never set, and a decode probe printed 8.6 GB
// of padding for eight rows.
TEST(RepetitionRounds, TheConsoleTableIsAsWideAsItsLongestName) {
  if (!fs::exists(kProbe)) GTEST_SKIP() << "pipecheck-hostmem not built";
  Scratch scratch;
  const Ran ran = run_hostmem(scratch, {"--pipecheck_repetitions=2", "--benchmark_format=console", "--benchmark_color=false"});
  ASSERT_TRUE(ran.process.ok()) << ran.process.describe() << "\n" << ran.err.substr(0, 2000);
  ASSERT_LT(ran.out.size(), 64u * 1024) << ran.out.substr(0, 2000);
  std::vector<std::string> rows;
  std::istringstream lines(ran.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("hostmem/", 0) == 0) rows.push_back(line);
  }
  ASSERT_FALSE(rows.empty()) << ran.out;
  std::size_t longest_name = 0;
  for (const std::string& row : rows) longest_name = std::max(longest_name, row.find(' '));
  for (const std::string& row : rows) {  // the name, its padding, then the time column's digits
    const std::size_t column = row.find_first_not_of(' ', row.find(' '));
    EXPECT_LE(column, longest_name + 2 + 12) << row.substr(0, 200);
  }
}

TEST(RepetitionRounds, ExactNamePatternsMatchOnlyThemselves) {
  EXPECT_EQ(exact_name_pattern("decode/full/real_time/threads:2"), "decode/full/real_time/threads:2");
  EXPECT_EQ(exact_name_pattern("a.b(c)+[d]|e*?^$\\"), "a\\.b\\(c\\)\\+\\[d\\]\\|e\\*\\?\\^\\$\\\\");
}

TEST(RepetitionRounds, TakesOutTheFlagsThatDecideHowToRun) {
  std::vector<std::string> args = {"probe", "--benchmark_out=/tmp/x.json", "--benchmark_out_format=json",
                                   "--benchmark_repetitions=3", "--benchmark_filter=a", "--benchmark_list_tests"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  const BenchmarkFlags flags = take_benchmark_flags(argc, argv.data());
  EXPECT_EQ(flags.out, "/tmp/x.json");
  EXPECT_EQ(flags.out_format, "json");
  EXPECT_TRUE(flags.repetitions);
  EXPECT_TRUE(flags.list_tests);
  ASSERT_EQ(argc, 4);  // the out flags are taken; the rest stay for Google Benchmark
  EXPECT_STREQ(argv[1], "--benchmark_repetitions=3");
  std::vector<std::string> bad = {"probe", "--benchmark_out_format=xml"};
  std::vector<char*> bad_argv = {bad[0].data(), bad[1].data()};
  int bad_argc = 2;
  EXPECT_THROW(take_benchmark_flags(bad_argc, bad_argv.data()), UsageError);
}

}  // namespace
}  // namespace pipecheck

namespace pipecheck {
namespace {

// With verdicts to decide, a judged figure stops at its minimum once its verdict is the same at
// both ends of its interval, and the 1-thread figure it is judged beside stops with it; without
// (the same run, no inventory) both run to their maximum. A DRAM ceiling of 64 channels of
// DDR5-6400 (3.3 TB/s) puts this machine's read far below the 60% minimum: fail, decided.
TEST(RepetitionRounds, ADecidedVerdictStopsTheFigureAndItsReference) {
  if (!fs::exists(kProbe)) GTEST_SKIP() << "pipecheck-hostmem not built";
  Scratch scratch;
  Inventory inventory;
  inventory.memory.memory_channels = 64;
  DimmInfo dimm;
  dimm.speed_mts = 6400;
  dimm.data_width_bits = 64;
  inventory.memory.dimms.push_back(dimm);
  write_file_atomically(scratch.path / "inventory.json", nlohmann::json(inventory).dump());
  const std::vector<std::string> counts = {"--pipecheck_min_repetitions=3", "--pipecheck_max_repetitions=12",
                                           "--pipecheck_target_noise=0.000001"};
  std::vector<std::string> deciding = counts;
  deciding.push_back("--pipecheck_verdict_inventory=" + (scratch.path / "inventory.json").string());
  const Ran decided = run_hostmem(scratch, deciding);
  ASSERT_TRUE(decided.process.ok()) << decided.process.describe() << "\n" << decided.err;
  const ParsedBenchmarks parsed = parse_benchmark_json(decided.out, "hostmem");
  ASSERT_EQ(parsed.measurements.size(), 2u);
  for (const auto& m : parsed.measurements) {
    EXPECT_EQ(m.repetitions.size(), 3u) << m.key << ": " << m.stopping;
    const bool most_threads = m.key != "hostmem/read/threads:1";
    const std::string expected = most_threads ? "verdict decided after 3 repetitions: fail at both ends"
                                              : "stopped with the verdicts it is the reference of, after 3 repetitions";
    EXPECT_EQ(m.stopping.rfind(expected, 0), 0u) << m.key << ": " << m.stopping;
  }
  const Ran undecided = run_hostmem(scratch, counts);
  ASSERT_TRUE(undecided.process.ok()) << undecided.err;
  for (const auto& m : parse_benchmark_json(undecided.out, "hostmem").measurements) {
    EXPECT_EQ(m.repetitions.size(), 12u) << m.key << ": " << m.stopping;
  }
  // An inventory that is not one is refused by name before anything runs.
  write_file_atomically(scratch.path / "bad.json", "[1, 2");
  std::vector<std::string> bad = counts;
  bad.push_back("--pipecheck_verdict_inventory=" + (scratch.path / "bad.json").string());
  const Ran refused = run_hostmem(scratch, bad);
  EXPECT_EQ(refused.process.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("--pipecheck_verdict_inventory="), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace pipecheck

namespace pipecheck {
namespace {

// The operations share each thread count's buffers: a write pass fills the source with one byte,
// so a read after it must find its counting words refilled (its check reads every word). Two
// rounds put a read after a write whatever the order inside each round.
TEST(RepetitionRounds, AReadAfterAWriteOnSharedBuffersStillVerifies) {
  if (!fs::exists(kProbe)) GTEST_SKIP() << "pipecheck-hostmem not built";
  Scratch scratch;
  const Ran ran = run_hostmem(scratch, {"--benchmark_filter=hostmem/(read|write)", "--pipecheck_repetitions=3"});
  ASSERT_TRUE(ran.process.ok()) << ran.process.describe() << "\n" << ran.err;
  const ParsedBenchmarks parsed = parse_benchmark_json(ran.out, "hostmem");
  EXPECT_TRUE(parsed.wrong_results.empty()) << parsed.wrong_results.front();
  EXPECT_TRUE(parsed.case_errors.empty());
  EXPECT_EQ(parsed.measurements.size(), 4u);
  for (const auto& m : parsed.measurements) EXPECT_EQ(m.params.at("verified"), "yes") << m.key;
}

}  // namespace
}  // namespace pipecheck
