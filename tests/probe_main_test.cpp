// The probe conventions: label encoding and pipecheck's own flags.
#include "core/probe_main.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

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

TEST(ProbeFlags, TakesOnlyPipecheckFlags) {
  std::vector<std::string> args = {"probe", "--benchmark_filter=x", "--pipecheck_quick",
                                   "--pipecheck_buffer_mib=64"};
  auto argv = argv_of(args);
  int argc = static_cast<int>(argv.size());
  const ProbeOptions options = take_probe_flags(argc, argv.data());
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
  const ProbeOptions options = take_probe_flags(argc, argv.data(), {"path", "images"});
  EXPECT_EQ(options.all("path"), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(*options.last("images"), "/imgs");
  EXPECT_EQ(options.last("size"), nullptr);
  ASSERT_EQ(argc, 2);
  std::vector<std::string> missing = {"probe", "--path"};
  auto argv2 = argv_of(missing);
  int argc2 = 2;
  EXPECT_THROW(take_probe_flags(argc2, argv2.data(), {"path"}), UsageError);
}

TEST(ProbeFlags, MalformedFlagIsAUsageError) {
  for (std::string bad : {"--pipecheck_", "--pipecheck_quick=1", "--pipecheck_size"}) {
    std::vector<std::string> args = {"probe", bad};
    auto argv = argv_of(args);
    int argc = 2;
    EXPECT_THROW(take_probe_flags(argc, argv.data()), UsageError) << bad;
  }
}

}  // namespace
}  // namespace pipecheck
