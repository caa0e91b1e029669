// nvJPEG at run time: an absent library or one lacking an entry point is a skip with the reason;
// status codes are named as nvjpeg.h names them.
#include "decode/jpeg_nvjpeg.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(JpegNvjpeg, AbsentLibraryIsASkipWithReason) {
  const NvjpegLibrary library({"libpipecheck-no-such-nvjpeg.so.1"});
  EXPECT_FALSE(library.ok());
  EXPECT_NE(library.error().find("libpipecheck-no-such-nvjpeg.so.1"), std::string::npos);
  EXPECT_EQ(nvjpeg_skip_status(library).rfind("skipped: no nvJPEG", 0), 0u);
}

TEST(JpegNvjpeg, LibraryWithoutTheEntryPointsIsNotNvjpeg) {
  const NvjpegLibrary library({"libc.so.6"});
  EXPECT_FALSE(library.ok());
  EXPECT_NE(library.error().find("libc.so.6 lacks nvjpegCreateEx"), std::string::npos) << library.error();
  EXPECT_NE(library.error().find("nvjpegDecodeBatched"), std::string::npos);
  EXPECT_EQ(library.api().create_ex, nullptr);
}

TEST(JpegNvjpeg, StatusCodesAreNamed) {
  EXPECT_EQ(nvjpeg_status_text(7), "NVJPEG_STATUS_ARCH_MISMATCH (7)");
  EXPECT_EQ(nvjpeg_status_text(10), "NVJPEG_STATUS_INCOMPLETE_BITSTREAM (10)");
  EXPECT_EQ(nvjpeg_status_text(42), "nvJPEG status (42)");
  EXPECT_EQ(nvjpeg_call_error("nvjpegDecodeBatched", 1, 3), "nvjpegDecodeBatched on GPU 1: NVJPEG_STATUS_BAD_JPEG (3)");
  EXPECT_EQ(nvjpeg_call_error("nvjpegDecodeBatched", 1, nvjpeg::success), "");
}

}  // namespace
}  // namespace pipecheck
