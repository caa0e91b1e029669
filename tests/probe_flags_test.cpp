// Every probe executable, every flag its --help lists: a bad or huge number, a typo and a GPU
// list that is not one end in exit 2 with one line naming the flag, on a machine with or
// without a GPU; nothing crashes or runs with a wrapped value.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "core/file_io.hpp"
#include "core/process_runner.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

const char* const kProbes[] = {"pipecheck-storage", "pipecheck-decode", "pipecheck-hostmem", "pipecheck-pcie",
                               "pipecheck-memory",     "pipecheck-compute", "pipecheck-comm"};

struct ProbeRun {
  ProcessResult process;
  std::string out;
  std::string err;
};

ProbeRun run_probe(const std::string& probe, const std::vector<std::string>& args) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-flags-" + std::to_string(getpid()));
  fs::create_directories(dir);
  ProcessSpec spec;
  spec.argv = {std::string(PIPECHECK_BIN_DIR) + "/" + probe};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = dir / "out";
  spec.stderr_path = dir / "err";
  spec.time_limit = std::chrono::seconds(60);
  ProbeRun run{run_process(spec), read_file(dir / "out"), read_file(dir / "err")};
  fs::remove_all(dir);
  return run;
}

bool built(const std::string& probe) { return access((std::string(PIPECHECK_BIN_DIR) + "/" + probe).c_str(), X_OK) == 0; }

struct ListedFlag {
  std::string name;   // "qd", "pipecheck_buffer_mib"
  std::string value;  // "N", "SIZE", ...
};

// The flags a probe's --help lists under pipecheck's heading.
std::vector<ListedFlag> listed_flags(const std::string& help) {
  std::vector<ListedFlag> flags;
  const auto start = help.find("pipecheck flags");
  if (start == std::string::npos) return flags;
  static const std::regex line(R"(^  --([a-z_-]+)(?:[ =]([A-Za-z|_]+))?)", std::regex::multiline);
  const std::string part = help.substr(start);
  for (auto it = std::sregex_iterator(part.begin(), part.end(), line); it != std::sregex_iterator(); ++it) {
    flags.push_back({(*it)[1].str(), (*it)[2].str()});
  }
  return flags;
}

std::string given(const ListedFlag& flag, const std::string& value) {
  return "--" + flag.name + "=" + value;
}

void expect_usage_error(const std::string& probe, const std::string& arg, const std::string& names) {
  const ProbeRun run = run_probe(probe, {arg});
  EXPECT_EQ(run.process.ending, ProcessResult::Ending::exited) << probe << " " << arg << ": " << run.process.describe();
  EXPECT_EQ(run.process.exit_code, 2) << probe << " " << arg << ": " << run.err;
  EXPECT_NE(run.err.find(names), std::string::npos) << probe << " " << arg << ": " << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << probe << " " << arg << ": " << run.err;
  EXPECT_LT(run.err.size(), 300u) << "a long value echoed whole: " << run.err;
}

TEST(ProbeFlagsEveryProbe, HelpListsPipecheckFlagsBesideGoogleBenchmarks) {
  for (const char* probe : kProbes) {
    if (!built(probe)) continue;
    const ProbeRun run = run_probe(probe, {"--help"});
    EXPECT_EQ(run.process.exit_code, 0) << probe;
    EXPECT_NE(run.out.find("--benchmark_filter"), std::string::npos) << probe << ": " << run.out;
    EXPECT_NE(run.out.find("--pipecheck_quick"), std::string::npos) << probe << ": " << run.out;
    EXPECT_FALSE(listed_flags(run.out).empty()) << probe;
  }
  const std::string storage = run_probe("pipecheck-storage", {"--help"}).out;
  for (const char* flag : {"--path PATH", "--qd N", "--bs SIZE", "--engine io_uring|pread"}) {
    EXPECT_NE(storage.find(flag), std::string::npos) << flag << " missing from:\n" << storage;
  }
  EXPECT_NE(run_probe("pipecheck-hostmem", {"--help"}).out.find("--pipecheck_buffer_mib=N"), std::string::npos);
  EXPECT_NE(run_probe("pipecheck-decode", {"--help"}).out.find("--images DIR"), std::string::npos);
}

TEST(ProbeFlagsEveryProbe, EveryNumberFlagRefusesBadAndHugeValues) {
  const std::string huge(309, '9');
  int checked = 0;
  for (const char* probe : kProbes) {
    if (!built(probe)) continue;
    for (const ListedFlag& flag : listed_flags(run_probe(probe, {"--help"}).out)) {
      const bool number = flag.value == "N" || flag.value == "S" || flag.value == "SIZE" || flag.value == "WxH" ||
                          flag.value == "MxNxK" || flag.value == "N|LIST" || flag.value == "0|1";
      if (!number) continue;
      for (const std::string& value : {std::string("-1"), huge, std::string("18446744073709551617"), std::string("abc")}) {
        expect_usage_error(probe, given(flag, value), "--" + flag.name);
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 20) << "the probes' --help lists fewer number flags than expected";
}

TEST(ProbeFlagsEveryProbe, HostmemHugeBufferIsRefusedNotWrapped) {
  // It crashed with SIGSEGV (-1) or "measured" a 64-byte buffer (2^64-1 wrapped).
  expect_usage_error("pipecheck-hostmem", "--pipecheck_buffer_mib=-1", "--pipecheck_buffer_mib");
  expect_usage_error("pipecheck-hostmem", "--pipecheck_buffer_mib=18446744073709551615", "--pipecheck_buffer_mib");
  expect_usage_error("pipecheck-hostmem", "--pipecheck_buffer_mib=16777216", "do not fit in this machine's memory");
}

TEST(ProbeFlagsEveryProbe, TyposNameTheNearestFlag) {
  for (const char* probe : kProbes) {
    if (!built(probe)) continue;
    expect_usage_error(probe, "--pipecheck_qiuck", "did you mean --pipecheck_quick?");
    expect_usage_error(probe, "--benchmark_repetitons=3", "did you mean --benchmark_repetitions?");
  }
  expect_usage_error("pipecheck-hostmem", "--pipecheck_bufer_mib=64", "did you mean --pipecheck_buffer_mib?");
  expect_usage_error("pipecheck-storage", "--qdd=4", "did you mean --qd?");
  expect_usage_error("pipecheck-decode", "--image=/tmp", "did you mean --images?");
}

TEST(ProbeFlagsEveryProbe, GpuProbesRefuseABadGpuListWithoutADevice) {
  for (const char* probe : {"pipecheck-pcie", "pipecheck-memory", "pipecheck-compute", "pipecheck-comm"}) {
    if (!built(probe)) continue;
    expect_usage_error(probe, "--gpus=abc", "--gpus=abc");
    expect_usage_error(probe, "--gpus=0,0", "named twice");
  }
}

}  // namespace
}  // namespace pipecheck
