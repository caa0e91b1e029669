// Reading a stress telemetry.csv: empty cells stay unknown, a row cut by kill -9 is dropped
// (never a crash), a malformed row is left out with a note, a missing column is an error.
#include "telemetry/telemetry_csv_reader.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/render_test_data.hpp"

namespace pipecheck {
namespace {

const std::string kHeader =
    "utc_time,elapsed_s,source,gpu_index,gpu_bus_id,temp_c,mem_temp_c,power_w,power_limit_w,sm_clock_mhz,"
    "mem_clock_mhz,util_gpu_pct,util_mem_pct,throttle_reasons,ecc_corrected,ecc_uncorrected,pcie_replays,xid,"
    "cpu_util_pct,cpu_temp_c,cpu_package_w,tflops,wrong_results\n";
const std::string kGpuRow =
    "2026-11-30T09:00:01.000Z,1.000,gpu,0,0000:17:00.0,61,70,690.5,700,1755,2619,100,60,"
    "SwPowerCap|HwThermalSlowdown,0,0,3,79,,,,701.2,0\n";
const std::string kHostRow = "2026-11-30T09:00:01.000Z,1.000,host,,,,,,,,,,,,,,,,12.5,55,210.0,,\n";

TEST(TelemetryCsvReader, ReadsRowsAndKeepsEmptyCellsUnknown) {
  const TelemetryLog log = parse_telemetry_log(kHeader + kGpuRow + kHostRow);
  ASSERT_EQ(log.samples.size(), 2u);
  EXPECT_TRUE(log.dropped.empty());
  const TelemetrySample& gpu = log.samples[0];
  EXPECT_EQ(gpu.source, "gpu");
  EXPECT_EQ(gpu.gpu_index, 0);
  EXPECT_EQ(gpu.gpu_bus_id, "0000:17:00.0");
  EXPECT_DOUBLE_EQ(gpu.power_w.value(), 690.5);
  EXPECT_EQ(gpu.throttle_reasons, (std::vector<std::string>{"SwPowerCap", "HwThermalSlowdown"}));
  EXPECT_EQ(gpu.xid, "79");
  EXPECT_FALSE(gpu.cpu_util_pct.has_value());
  const TelemetrySample& host = log.samples[1];
  EXPECT_EQ(host.source, "host");
  EXPECT_FALSE(host.gpu_index.has_value());
  EXPECT_FALSE(host.temp_c.has_value());
  EXPECT_DOUBLE_EQ(host.cpu_package_w.value(), 210.0);
}

TEST(TelemetryCsvReader, PartialLastRowAfterKillIsDropped) {
  for (std::size_t cut = 1; cut < kHostRow.size() - 1; ++cut) {
    const TelemetryLog log = parse_telemetry_log(kHeader + kGpuRow + kHostRow.substr(0, cut));
    ASSERT_EQ(log.samples.size(), 1u) << "cut at " << cut;
    ASSERT_EQ(log.dropped.size(), 1u);
    EXPECT_NE(log.dropped[0].find("partial last row"), std::string::npos);
  }
  // Cut right after a comma and right after a digit of the last field: still whole rows only.
  EXPECT_EQ(parse_telemetry_log(kHeader + kGpuRow + kGpuRow.substr(0, kGpuRow.size() - 2)).samples.size(), 1u);
}

TEST(TelemetryCsvReader, MalformedRowIsLeftOutWithANote) {
  const TelemetryLog log =
      parse_telemetry_log(kHeader + "2026,1.0,gpu,0\n" + "2026,2.0,gpu,0,b,hot,,,,,,,,,,,,,,,,,\n" + kGpuRow);
  EXPECT_EQ(log.samples.size(), 1u);
  ASSERT_EQ(log.dropped.size(), 2u);
  EXPECT_NE(log.dropped[0].find("line 2: 4 cells, expected 23"), std::string::npos) << log.dropped[0];
  EXPECT_NE(log.dropped[1].find("line 3: bad temp_c 'hot'"), std::string::npos) << log.dropped[1];
}

TEST(TelemetryCsvReader, MissingColumnOrEmptyTextIsAnError) {
  EXPECT_THROW(parse_telemetry_log(""), std::runtime_error);
  EXPECT_THROW(parse_telemetry_log("utc_time,elapsed_s,source\n"), std::runtime_error);
  try {
    parse_telemetry_log("utc_time,elapsed_s\n");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'source'"), std::string::npos) << e.what();
  }
}

TEST(TelemetryCsvReader, OnlyThermalAndHardwareSlowdownsCountAsThrottling) {
  TelemetrySample s;
  s.throttle_reasons = {"SwPowerCap"};
  EXPECT_FALSE(is_throttled(s));
  s.throttle_reasons = {"GpuIdle", "ApplicationsClocksSetting"};
  EXPECT_FALSE(is_throttled(s));
  s.throttle_reasons = {"SwPowerCap", "HwThermalSlowdown"};
  EXPECT_TRUE(is_throttled(s));
  s.throttle_reasons = {"HwSlowdown"};
  EXPECT_TRUE(is_throttled(s));
}

TEST(TelemetryCsvReader, RecordedBurnReadsWholeRowsAndDropsTheCutOne) {
  const TelemetryLog log = read_telemetry_log(testing::golden_folder("h200") / "telemetry.csv");
  EXPECT_EQ(log.samples.size(), 60u);
  ASSERT_EQ(log.dropped.size(), 1u);
  EXPECT_NE(log.dropped[0].find("line 62"), std::string::npos) << log.dropped[0];
}

}  // namespace
}  // namespace pipecheck
