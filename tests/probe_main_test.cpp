// The probe conventions: label encoding and pipecheck's own flags.
#include "core/probe_main.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/process_runner.hpp"

#include <unistd.h>

#include <filesystem>

namespace pipecheck {
namespace {

// A probe whose stdout is /dev/full or closed lost its results and still exited 0; README: exit 3,
// said on stderr.
TEST(ProbeOutput, LostStdoutIsExitThree) {
  namespace fs = std::filesystem;
  const std::string probe = std::string(PIPECHECK_BIN_DIR) + "/pipecheck-hostmem";
  if (!fs::exists(probe)) GTEST_SKIP() << probe << " not built";
  const fs::path err = fs::temp_directory_path() / ("pipecheck-probe-full-" + std::to_string(getpid()));
  ProcessSpec spec;
  spec.argv = {probe, "--benchmark_min_time=0.01", "--benchmark_repetitions=1", "--pipecheck_quick",
               "--benchmark_format=json"};
  spec.stdout_path = "/dev/full";
  spec.stderr_path = err;
  spec.time_limit = std::chrono::seconds(120);
  const ProcessResult full = run_process(spec);
  const std::string text = read_file(err);
  EXPECT_EQ(full.ending, ProcessResult::Ending::exited) << full.describe();
  EXPECT_EQ(full.exit_code, 3) << text;
  EXPECT_NE(text.find("pipecheck-hostmem: cannot write standard output: No space left on device"), std::string::npos)
      << text;
  // Closed (`>&-`): fd 1 held on /dev/null read-only, so the writes fail instead of landing in a file.
  spec.argv.insert(spec.argv.begin(), {"/bin/sh", "-c", "exec \"$@\" >&-", "sh"});
  spec.stdout_path = err.string() + ".out";
  const ProcessResult closed = run_process(spec);
  const std::string closed_text = read_file(err);
  fs::remove(err);
  fs::remove(spec.stdout_path);
  EXPECT_EQ(closed.exit_code, 3) << closed_text;
  EXPECT_NE(closed_text.find("cannot write standard output"), std::string::npos) << closed_text;
}

TEST(ProbeLabel, RoundTrip) {
  const std::map<std::string, std::string> params = {
      {"what", "memcpy, 2 threads"}, {"threads", "2"}, {"expr", "a=b"}};
  EXPECT_EQ(decode_label(encode_label(params)), params);
}

TEST(ProbeLabel, IgnoresItemsWithoutKey) {
  const auto params = decode_label("=x;k=v;;junk");
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params.at("k"), "v");
}

std::vector<char*> argv_of(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return argv;
}

const std::vector<ProbeFlag> kFlags = {
    {"pipecheck_buffer_mib", "N", "buffer", whole_number(1, 1 << 24)},
    {"path", "PATH", "a path", some_text()},
    {"images", "DIR", "images", some_text()},
    {"qd", "N", "queue depth", whole_number(1, 4096)},
    gpus_flag(),
};

std::string usage_error(std::vector<std::string> args) {
  args.insert(args.begin(), "probe");
  auto argv = argv_of(args);
  int argc = static_cast<int>(argv.size());
  try {
    take_probe_flags(argc, argv.data(), kFlags);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(ProbeFlags, TakesOnlyPipecheckFlags) {
  std::vector<std::string> args = {"probe", "--benchmark_filter=x", "--pipecheck_quick",
                                   "--pipecheck_buffer_mib=64"};
  auto argv = argv_of(args);
  int argc = static_cast<int>(argv.size());
  const ProbeOptions options = take_probe_flags(argc, argv.data(), kFlags);
  EXPECT_EQ(options.mode, ProbeMode::quick);
  EXPECT_EQ(*options.last("buffer_mib"), "64");
  ASSERT_EQ(argc, 2);
  EXPECT_STREQ(argv[1], "--benchmark_filter=x");
}

TEST(ProbeFlags, OwnFlagsRepeatAndTakeTheirValue) {
  std::vector<std::string> args = {"probe", "--path", "/a", "--benchmark_filter=x", "--path=/b",
                                   "--images", "/imgs"};
  auto argv = argv_of(args);
  int argc = static_cast<int>(argv.size());
  const ProbeOptions options = take_probe_flags(argc, argv.data(), kFlags);
  EXPECT_EQ(options.all("path"), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(*options.last("images"), "/imgs");
  EXPECT_EQ(options.last("size"), nullptr);
  ASSERT_EQ(argc, 2);
  EXPECT_NE(usage_error({"--path"}), "");
}

TEST(ProbeFlags, MalformedFlagIsAUsageError) {
  for (std::string bad : {"--pipecheck_", "--pipecheck_quick=1", "--pipecheck_size", "--pipecheck_buffer_mib",
                          "--pipecheck_buffer_mib="}) {
    EXPECT_NE(usage_error({bad}), "") << bad;
  }
}

TEST(ProbeFlags, UnknownPipecheckFlagNamesTheNearest) {
  EXPECT_EQ(usage_error({"--pipecheck_bufer_mib=64"}),
            "unknown flag --pipecheck_bufer_mib (did you mean --pipecheck_buffer_mib?)");
  EXPECT_EQ(usage_error({"--pipecheck_qiuck"}), "unknown flag --pipecheck_qiuck (did you mean --pipecheck_quick?)");
  EXPECT_NE(usage_error({"--pipecheck_zzzzzzzzzzzz=1"}).find("(see --help)"), std::string::npos);
}

TEST(ProbeFlags, NumbersAreRangeAndOverflowChecked) {
  const std::string huge(309, '9');
  for (const std::string& value : {std::string("-1"), std::string("0"), std::string("18446744073709551615"),
                                   std::string("16777217"), huge, std::string("1e3"), std::string(" 5"),
                                   std::string("+5"), std::string("abc"), std::string("0x10")}) {
    const std::string error = usage_error({"--pipecheck_buffer_mib=" + value});
    EXPECT_EQ(error.rfind("--pipecheck_buffer_mib=", 0), 0u) << value << ": " << error;
    EXPECT_NE(error.find("expected a whole number from 1 to 16777216"), std::string::npos) << error;
    EXPECT_LT(error.size(), 160u) << "a huge value is echoed whole: " << error;
  }
  EXPECT_EQ(usage_error({"--pipecheck_buffer_mib=16777216"}), "");
  EXPECT_NE(usage_error({"--qd", "0"}).find("--qd=0: expected a whole number from 1 to 4096"), std::string::npos);
  EXPECT_EQ(usage_error({"--qd", "4096"}), "");
}

TEST(ProbeFlags, GpuListIsCheckedWithoutADevice) {
  EXPECT_NE(usage_error({"--gpus", "abc"}).find("--gpus=abc: expected GPU indices"), std::string::npos);
  EXPECT_NE(usage_error({"--gpus", "0,0"}).find("named twice"), std::string::npos);
  EXPECT_NE(usage_error({"--gpus=1024"}), "");
  EXPECT_NE(usage_error({"--gpus=0,"}), "");
  EXPECT_EQ(usage_error({"--gpus=0,2"}), "");
  EXPECT_EQ(usage_error({"--gpus=all"}), "");
}

TEST(ProbeFlags, HelpListsEveryFlagWithItsValue) {
  const std::string help = probe_flags_help(kFlags);
  EXPECT_NE(help.find("--pipecheck_quick"), std::string::npos) << help;
  EXPECT_NE(help.find("--pipecheck_buffer_mib=N"), std::string::npos) << help;
  EXPECT_NE(help.find("--qd N"), std::string::npos) << help;
  EXPECT_NE(help.find("--gpus LIST"), std::string::npos) << help;
}

TEST(ProbeLabel, NamesWithAnyBytesStayOneValue) {
  const std::map<std::string, std::string> params = {{"path", "/d/a;b\x1b"}, {"what", "x"}};
  const std::string label = encode_label(params);
  EXPECT_EQ(label, "path=/d/a\\x3bb\\x1b;what=x");
  EXPECT_EQ(decode_label(label).at("path"), "/d/a\\x3bb\\x1b");
}

}  // namespace
}  // namespace pipecheck
