// core/figure_text: the one way a figure is written in verdicts, findings and pages.
#include "core/figure_text.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(FigureText, BytesLabelsUseBinaryUnitsAndDropZeroDecimals) {
  EXPECT_EQ(bytes_label(4096), "4 KiB");
  EXPECT_EQ(bytes_label(268435456), "256 MiB");
  EXPECT_EQ(bytes_label(1536), "1.5 KiB");
  EXPECT_EQ(bytes_label(512), "512 B");
}

}  // namespace
}  // namespace pipecheck
