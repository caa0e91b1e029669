// What the renderers share: ceiling notes that name their basis once, cells that say each
// clause once.
#include "render/render_support.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(RenderSupport, RepeatedClausesAreLeftOut) {
  const std::string note = "unknown: memory channel count not reported by the platform";
  EXPECT_EQ(without_repeated_clauses("no ceiling to hold 2.37 GB/s against: " + note, note),
            "no ceiling to hold 2.37 GB/s against");
  EXPECT_EQ(without_repeated_clauses("the 1-thread rate is the per-core reference: 412 images/s",
                                     "no hardware ceiling for CPU decode; the 1-thread rate is the per-core reference"),
            "412 images/s");
  // Nothing repeated: as it was, separators and all.
  EXPECT_EQ(without_repeated_clauses("818 images/s is 99.3% of 824; >= 65%: pass", "824 images/s = 2 x 412"),
            "818 images/s is 99.3% of 824; >= 65%: pass");
  EXPECT_EQ(without_repeated_clauses("Judged At The Most Threads", "judged at the most threads"), "");
  EXPECT_EQ(without_repeated_clauses("", "anything"), "");
  EXPECT_EQ(without_repeated_clauses("9822 IOPS: a link bounds bytes, not operations (no threshold: x is off)",
                                     "no hardware ceiling for IOPS: a link bounds bytes, not operations"),
            "9822 IOPS (no threshold: x is off)");
}

TEST(RenderSupport, CeilingNoteNamesItsBasisOnce) {
  Measurement m;
  m.ceiling = CeilingResult::known({63, "GB/s", "link", "63.0 GB/s = 32 GT/s x16 x 128/130 / 8 (current link)"});
  EXPECT_EQ(ceiling_note(m), "63.0 GB/s = 32 GT/s x16 x 128/130 / 8 (current link)");
  m.ceiling = CeilingResult::known({614, "GB/s", "theoretical", "614.4 GB/s = 16 channels x 4800 MT/s x 8 bytes"});
  EXPECT_EQ(ceiling_note(m), "614.4 GB/s = 16 channels x 4800 MT/s x 8 bytes (theoretical)");
  m.ceiling = CeilingResult::unknown("no ceiling: virtual disk");
  EXPECT_EQ(ceiling_note(m), "no ceiling: virtual disk");
}

}  // namespace
}  // namespace pipecheck
