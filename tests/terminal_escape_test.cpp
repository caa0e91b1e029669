// Every byte that reaches the terminal from outside the program (a probe's label, an edited
// report.json, a recorded host name or disk model, a compared run's keys) is written by the one
// policy of core/text_escape.hpp: no ESC, no C1, no bidi override, no newline inside a cell.
#include <gtest/gtest.h>

#include <string>

#include "core/inventory.hpp"
#include "compare/compare.hpp"
#include "render/compare_text.hpp"
#include "render/inventory_text.hpp"
#include "render/summary_table.hpp"
#include "render/text_wrap.hpp"
#include "tests/measurement_records.hpp"

namespace pipecheck {
namespace {

// No byte in `text` that a terminal acts on: ESC, C1 (raw 0x9b or U+009B), U+202E, 0xff.
void expect_inert(const std::string& text) {
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x9b'), std::string::npos) << text;
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << text;
  EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << text;
  EXPECT_EQ(text.find('\xff'), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
}

const std::string kClear = "\x1b[2J";
const std::string kRtl = "\xe2\x80\xae";  // U+202E RIGHT-TO-LEFT OVERRIDE

Report hostile_report() {
  Report report;
  ProbeOutcome probe;
  probe.probe = "pipecheck-hostmem";
  probe.stage = "hostmem";
  probe.status = ProbeStatus::ok;
  Measurement m = testing::measure("hostmem/memcpy", "host" + kClear + "mem", 12.5, "GB/s" + kRtl, {});
  m.what = "memcpy " + kClear + "\nsecond line\x9b" "31m";
  probe.measurements.push_back(m);
  report.probes.push_back(probe);
  ProbeOutcome failed;
  failed.probe = "pipecheck-storage";
  failed.stage = "storage";
  failed.status = ProbeStatus::failed;
  failed.reason = "exited 1: \x1b[31mred\xff";
  failed.case_errors = {"storage/read: " + kClear};
  report.probes.push_back(failed);
  return report;
}

TEST(TerminalEscape, SummaryTableEscapesLabelsReasonsAndUnits) {
  const std::string out = render_summary(hostile_report(), SummaryStyle{false, 120});
  expect_inert(out);
  EXPECT_NE(out.find("memcpy \\x1b[2J"), std::string::npos) << out;
  EXPECT_NE(out.find("\\x0asecond"), std::string::npos) << "a newline in a label starts no row of its own:\n" << out;
  EXPECT_NE(out.find("\\x1b[31mred\\xff"), std::string::npos) << out;
  EXPECT_NE(out.find("\\xe2\\x80\\xae"), std::string::npos) << out;
}

TEST(TerminalEscape, LayoutHelpersEscapeWhatTheyAreGiven) {
  expect_inert(wrap_text("a " + kClear + " b\x9b", "", "", 40));
  for (const auto& line : wrap_words(kRtl + "x", 40)) expect_inert(line);
  expect_inert(pad_right("\x1b]0;title\x07", 20));
  expect_inert(pad_left("\xff", 5));
}

TEST(TerminalEscape, InventoryTextEscapesRecordedNames) {
  Inventory inventory;
  inventory.hostname = "x\x1b[31m\xff";
  BlockDevice disk;
  disk.name = "sda";
  disk.model = kClear + "<script>";
  inventory.disks.push_back(disk);
  inventory.notes.push_back("note " + kRtl);
  const std::string out = render_inventory(inventory);
  expect_inert(out);
  EXPECT_NE(out.find("Host x\\x1b[31m\\xff"), std::string::npos) << out;
  EXPECT_NE(out.find("\\x1b[2J<script>"), std::string::npos) << out;
}

TEST(TerminalEscape, ComparisonEscapesKeysUnitsAndHosts) {
  Report a = hostile_report(), b = hostile_report();
  a.host = "node\x9b" "2J";
  a.probes[0].measurements[0].key = "hostmem/\x9b" "31m/memcpy";
  b.probes[0].measurements[0].key = "hostmem/\x9b" "31m/memcpy";
  const std::string out = render_comparison_text(compare_reports(a, b));
  expect_inert(out);
  EXPECT_NE(out.find("\\x9b31m"), std::string::npos) << out;
}

}  // namespace
}  // namespace pipecheck
