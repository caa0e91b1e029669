// The acceptance profile: the shipped one parses and documents every key; a user's file
// overlays it; typos and bad values are errors that name the file, the line and the key.
#include "judge/profile.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

std::string error_of(const std::string& text, const std::string& source = "my.txt") {
  try {
    parse_profile(text, source, default_profile());
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(Profile, DefaultParsesAndSetsEveryKey) {
  const Profile& profile = default_profile();
  for (const auto& spec : profile_keys()) {
    EXPECT_TRUE(profile.has(spec.name)) << spec.name << " is not in the default profile";
  }
  EXPECT_EQ(profile.threshold("compute.bf16_min_percent"), 70);
  EXPECT_EQ(profile.threshold("memory.hbm_copy_min_percent"), 85);
  EXPECT_EQ(profile.threshold("pcie.pinned_h2d_min_percent"), 80);
  EXPECT_EQ(profile.policy("pcie.link_downtrained", Verdict::info), Verdict::fail);
  EXPECT_EQ(profile.threshold("stress.wrong_results_max"), 0);
  EXPECT_EQ(profile.warn_margin_percent(), 5);
  EXPECT_FALSE(profile.threshold("storage.seq_read_min_gbps").has_value());  // off
}

TEST(Profile, KeyTableHasNoDuplicates) {
  std::set<std::string> names;
  for (const auto& spec : profile_keys()) EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
}

TEST(Profile, TypoNamesKeyLineAndSuggestion) {
  const std::string error = error_of("# mine\n\ncompute.bf61_min_percent = 75\n");
  EXPECT_EQ(error,
            "profile my.txt line 3: unknown key 'compute.bf61_min_percent' "
            "(did you mean compute.bf16_min_percent?)");
}

TEST(Profile, FarOffKeyGetsNoSuggestion) {
  const std::string error = error_of("banana = 3\n");
  EXPECT_NE(error.find("line 1: unknown key 'banana'"), std::string::npos) << error;
  EXPECT_EQ(error.find("did you mean"), std::string::npos) << error;
}

TEST(Profile, BadValuesNameLineAndWhatIsExpected) {
  EXPECT_EQ(error_of("compute.bf16_min_percent = 170\n"),
            "profile my.txt line 1: compute.bf16_min_percent = 170: expected a percent from 0 to 100, or off");
  EXPECT_NE(error_of("x\ncompute.bf16_min_percent = seventy\n").find("line 1: expected `key = value`"), std::string::npos);
  EXPECT_NE(error_of("pcie.link_downtrained = maybe\n").find("line 1: pcie.link_downtrained = maybe: expected fail, warn or info"),
            std::string::npos);
  EXPECT_NE(error_of("stress.wrong_results_max = 1.5\n").find("expected a whole number"), std::string::npos);
  EXPECT_NE(error_of("warn_margin_percent = off\n").find("expected a percent from 0 to 100"), std::string::npos);
  EXPECT_NE(error_of("compute.bf16_min_percent =\n").find("has no value"), std::string::npos);
  EXPECT_NE(error_of("compute.bf16_min_percent = -3\n").find("line 1"), std::string::npos);
}

TEST(Profile, KeySetTwiceInOneFileIsAnError) {
  EXPECT_EQ(error_of("compute.bf16_min_percent = 70\n\ncompute.bf16_min_percent = 80\n"),
            "profile my.txt line 3: compute.bf16_min_percent set again (first on line 1)");
}

TEST(Profile, OverlayChangesOnlyWhatItSets) {
  const Profile profile = parse_profile("compute.bf16_min_percent = 75%  # tighter\nmemory.hbm_copy_min_percent = off\n",
                                        "my.txt", default_profile());
  EXPECT_EQ(profile.threshold("compute.bf16_min_percent"), 75);
  EXPECT_FALSE(profile.threshold("memory.hbm_copy_min_percent").has_value());
  EXPECT_EQ(profile.threshold("pcie.pinned_h2d_min_percent"), 80);  // kept from the default
  EXPECT_EQ(profile.rule("compute.bf16_min_percent"), "compute.bf16_min_percent = 75% (my.txt line 1)");
  EXPECT_EQ(profile.rule("pcie.pinned_h2d_min_percent"), "pcie.pinned_h2d_min_percent = 80");
}

TEST(Profile, LoadProfileOverlaysTheDefaultAndNamesTheFile) {
  const std::string path = ::testing::TempDir() + "pipecheck_profile_test.txt";
  {
    std::ofstream file(path);
    file << "pcie.link_downtrained = warn\n";
  }
  const Profile profile = load_profile(path);
  EXPECT_EQ(profile.policy("pcie.link_downtrained"), Verdict::warn);
  EXPECT_EQ(profile.threshold("compute.bf16_min_percent"), 70);
  std::remove(path.c_str());
  try {
    load_profile(path);
    FAIL() << "a missing profile must be an error";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("profile " + path + ": cannot read"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace pipecheck
