// nvJPEG detection: an absent library gives "skipped: no nvJPEG" with the names tried.
#include "io/jpeg_nvjpeg.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(JpegNvjpeg, AbsentLibraryIsASkipWithReason) {
  const auto presence = find_nvjpeg({"libpipecheck-no-such-nvjpeg.so.1"});
  EXPECT_FALSE(presence.found);
  EXPECT_NE(presence.reason.find("libpipecheck-no-such-nvjpeg.so.1"), std::string::npos);
  EXPECT_EQ(nvjpeg_case_status(presence).rfind("skipped: no nvJPEG", 0), 0u);
}

TEST(JpegNvjpeg, LibraryWithoutTheEntryPointIsNotNvjpeg) {
  const auto presence = find_nvjpeg({"libc.so.6"});
  EXPECT_FALSE(presence.found);
  EXPECT_NE(presence.reason.find("lacks nvjpegCreateSimple"), std::string::npos);
}

TEST(JpegNvjpeg, FoundLibraryIsNamedInTheStatus) {
  NvjpegPresence presence{true, "libnvjpeg.so.12", ""};
  EXPECT_NE(nvjpeg_case_status(presence).find("libnvjpeg.so.12"), std::string::npos);
  EXPECT_EQ(nvjpeg_case_status(presence).rfind("skipped:", 0), 0u);
}

}  // namespace
}  // namespace pipecheck
