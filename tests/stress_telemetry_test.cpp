// telemetry.csv (schema, round trip, a cut last line), the host sampler on a recorded sensor
// tree, the Xid kernel-log parser, and the CSV surviving a SIGKILL of a real stress run.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/file_io.hpp"
#include "telemetry/host_sampler.hpp"
#include "stress/stress_run.hpp"
#include "telemetry/telemetry_csv.hpp"
#include "telemetry/xid_monitor.hpp"

extern char** environ;

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TelemetryRow sample_gpu_row() {
  TelemetryRow row;
  row.utc_time = "2026-11-30T09:00:01.250Z";
  row.elapsed_s = 1.25;
  row.source = "gpu";
  row.gpu_index = 2;
  row.gpu_bus_id = "0000:17:00.0";
  row.temp_c = 71;
  row.mem_temp_c = 80;
  row.power_w = 689.5;
  row.power_limit_w = 700;
  row.sm_clock_mhz = 1980;
  row.mem_clock_mhz = 2619;
  row.util_gpu_pct = 100;
  row.util_mem_pct = 45;
  row.throttle_mask = 0x4 | 0x8;
  row.ecc_corrected = 0;
  row.ecc_uncorrected = 0;
  row.pcie_replays = 3;
  row.xids = {79, 48};
  row.tflops = 745.25;
  row.wrong_results = 0;
  return row;
}

TEST(StressTelemetryCsv, HeaderIsTheSchema) {
  EXPECT_EQ(telemetry_csv_header(),
            "utc_time,elapsed_s,source,gpu_index,gpu_bus_id,temp_c,mem_temp_c,power_w,power_limit_w,"
            "sm_clock_mhz,mem_clock_mhz,util_gpu_pct,util_mem_pct,throttle_reasons,ecc_corrected,"
            "ecc_uncorrected,pcie_replays,xid,cpu_util_pct,cpu_temp_c,cpu_package_w,tflops,wrong_results");
}

TEST(StressTelemetryCsv, RowRoundTripsWithEmptyCells) {
  const std::string line = format_telemetry_row(sample_gpu_row());
  EXPECT_EQ(line,
            "2026-11-30T09:00:01.250Z,1.250,gpu,2,0000:17:00.0,71,80,689.5,700.0,1980,2619,100,45,"
            "SwPowerCap|HwSlowdown,0,0,3,79|48,,,,745.250,0\n");
  TelemetryRow host;
  host.utc_time = "2026-11-30T09:00:01.250Z";
  host.source = "host";
  host.cpu_util_pct = 99.5;
  const auto parsed = parse_telemetry_csv(telemetry_csv_header() + "\n" + line + format_telemetry_row(host));
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors[0];
  ASSERT_EQ(parsed.rows.size(), 2u);
  EXPECT_EQ(parsed.rows[0].throttle_mask, 0xcu);
  EXPECT_EQ(parsed.rows[0].xids, (std::vector<int>{79, 48}));
  EXPECT_EQ(parsed.rows[0].gpu_index, 2);
  EXPECT_FALSE(parsed.rows[0].cpu_util_pct);
  EXPECT_FALSE(parsed.rows[1].gpu_index);
  EXPECT_DOUBLE_EQ(*parsed.rows[1].cpu_util_pct, 99.5);
}

TEST(StressTelemetryCsv, CutLastLineIsDroppedAndBadLinesNamed) {
  const std::string line = format_telemetry_row(sample_gpu_row());
  std::string text = telemetry_csv_header() + "\n" + line + line + line.substr(0, 20);
  auto parsed = parse_telemetry_csv(text);
  EXPECT_EQ(parsed.rows.size(), 2u);
  EXPECT_EQ(parsed.discarded_tail_bytes, 20u);
  EXPECT_TRUE(parsed.errors.empty());
  parsed = parse_telemetry_csv(telemetry_csv_header() + "\n" + "x,1,gpu\n" + line);
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_NE(parsed.errors[0].find("line 2"), std::string::npos);
  EXPECT_EQ(parsed.rows.size(), 1u);
}

TEST(StressTelemetryCsv, WriterAppendsWholeRowsAsItGoes) {
  const fs::path dir = scratch("csv");
  {
    TelemetryCsvWriter writer(dir / "telemetry.csv");
    writer.append({sample_gpu_row()});
    // Readable before the writer closes: nothing waits in a user-space buffer.
    const auto parsed = parse_telemetry_csv(read_file(dir / "telemetry.csv"));
    EXPECT_EQ(parsed.rows.size(), 1u);
    writer.append({sample_gpu_row(), sample_gpu_row()});
  }
  EXPECT_EQ(parse_telemetry_csv(read_file(dir / "telemetry.csv")).rows.size(), 3u);
  EXPECT_THROW(TelemetryCsvWriter(dir / "missing" / "telemetry.csv"), std::exception);
  fs::remove_all(dir);
}

fs::path host_tree_copy() {
  const fs::path dir = scratch("host-tree");
  fs::copy(fs::path(PIPECHECK_TEST_DATA) / "sysfs" / "stress_host", dir, fs::copy_options::recursive);
  return dir;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(StressHostTelemetry, ReadsRecordedTree) {
  const fs::path root = host_tree_copy();
  HostSampler sampler{SysfsRoot(root)};
  const auto t0 = HostSampler::Clock::now();
  const HostReading first = sampler.sample(t0);
  EXPECT_DOUBLE_EQ(*first.cpu_temp_c, 52.0);  // hottest coretemp sensor, not the NVMe's 70
  EXPECT_FALSE(first.cpu_util_pct);           // rates need a second sample
  EXPECT_FALSE(first.cpu_package_w);

  // One second later: 1000 more busy jiffies and 250 idle; package 0 used 100 J and package 1
  // 50 J across its counter's wrap.
  write_text(root / "proc/stat", "cpu  1750 0 750 8250 500 0 0 0 0 0\n");
  write_text(root / "sys/class/powercap/intel-rapl:0/energy_uj", "101000000\n");
  write_text(root / "sys/class/powercap/intel-rapl:1/energy_uj", "49671150\n");
  const HostReading second = sampler.sample(t0 + std::chrono::seconds(1));
  ASSERT_TRUE(second.cpu_util_pct);
  EXPECT_DOUBLE_EQ(*second.cpu_util_pct, 80.0);
  ASSERT_TRUE(second.cpu_package_w);
  EXPECT_NEAR(*second.cpu_package_w, 150.0, 1e-6);
  fs::remove_all(root);
}

TEST(StressHostTelemetry, FallsBackToCpuThermalZones) {
  const fs::path root = host_tree_copy();
  fs::remove_all(root / "sys/class/hwmon");
  fs::remove_all(root / "sys/class/powercap");
  HostSampler sampler{SysfsRoot(root)};
  const HostReading reading = sampler.sample(HostSampler::Clock::now());
  EXPECT_DOUBLE_EQ(*reading.cpu_temp_c, 53.0);  // x86_pkg_temp, not acpitz
  EXPECT_FALSE(reading.cpu_package_w);
  fs::remove_all(root);
}

TEST(StressHostTelemetry, ProcStatBusyExcludesIdleAndIowait) {
  const auto times = parse_proc_stat("cpu  10 20 30 400 50 6 7 8 9 10\ncpu0 1 1 1 1\n");
  ASSERT_TRUE(times);
  EXPECT_EQ(times->total, 10u + 20 + 30 + 400 + 50 + 6 + 7 + 8);  // guest is inside user
  EXPECT_EQ(times->busy, 10u + 20 + 30 + 6 + 7 + 8);
  EXPECT_FALSE(parse_proc_stat("intr 1 2 3\n"));
}

TEST(StressTelemetryXid, ParsesKernelLogRecords) {
  const auto event = parse_kernel_xid(
      "4,1234,5678901,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python, GPU has fallen off the bus.\n");
  ASSERT_TRUE(event);
  EXPECT_EQ(event->bus_id, "0000:3b:00.0");
  EXPECT_EQ(event->xid, 79);
  EXPECT_EQ(event->source, "kmsg");
  EXPECT_EQ(event->text.rfind("NVRM: Xid", 0), 0u);
  EXPECT_EQ(parse_kernel_xid("[ 12.3] NVRM: Xid (PCI:0000:B3:00): 48, pid='<unknown>', DBE")->bus_id,
            "0000:b3:00.0");
  EXPECT_FALSE(parse_kernel_xid("6,1,2,-;nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver"));
  EXPECT_FALSE(parse_kernel_xid("NVRM: Xid (PCI:garbage): x"));
}

TEST(StressTelemetryXid, SameXidFromBothSourcesIsOneEvent) {
  const XidEvent nvml{"0000:3b:00.0", 79, "nvml", "", 10.0};
  XidEvent kmsg{"0000:3b:00.0", 79, "kmsg", "NVRM: Xid ...", 11.5};
  EXPECT_TRUE(same_xid_event(nvml, kmsg));
  kmsg.elapsed_s = 30;
  EXPECT_FALSE(same_xid_event(nvml, kmsg));
  EXPECT_FALSE(same_xid_event(nvml, XidEvent{"0000:3b:00.0", 79, "nvml", "", 10.0}));
}

// The child half of KilledRunLeavesWholeRows: a real CPU stress run writing telemetry.csv into
// the folder named by the environment, until the parent kills it. Skipped in a normal run.
TEST(StressTelemetryChild, RunsUntilKilled) {
  const char* dir = std::getenv("PIPECHECK_STRESS_CHILD_DIR");
  if (!dir) GTEST_SKIP() << "the child of StressTelemetryKill.KilledRunLeavesWholeRows; runs only there";
  StressConfig config;
  config.cpu = true;
  config.cpu_threads = 1;
  config.no_gpu = true;
  config.duration_s = 60;
  config.interval_s = 0.05;
  config.out_dir = dir;
  std::ofstream log(fs::path(dir) / "child.log");
  run_stress(config, default_stress_hooks(), log);
}

TEST(StressTelemetryKill, KilledRunLeavesWholeRows) {
  const fs::path dir = scratch("kill");
  const std::string filter = "--gtest_filter=StressTelemetryChild.RunsUntilKilled";
  const std::string env = "PIPECHECK_STRESS_CHILD_DIR=" + dir.string();
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e) envp.push_back(*e);
  envp.push_back(const_cast<char*>(env.c_str()));
  envp.push_back(nullptr);
  char self[] = "/proc/self/exe";
  char* argv[] = {self, const_cast<char*>(filter.c_str()), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, (dir / "gtest.out").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t child = 0;
  ASSERT_EQ(posix_spawn(&child, "/proc/self/exe", &actions, nullptr, argv, envp.data()), 0);
  posix_spawn_file_actions_destroy(&actions);

  // Kill it mid-run: once it has written a few dozen rows (20 samples a second).
  const fs::path csv = dir / "telemetry.csv";
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::size_t lines = 0;
  while (std::chrono::steady_clock::now() < give_up && lines < 30) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::error_code error;
    if (fs::exists(csv, error)) {
      const std::string text = read_file(csv);
      lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    }
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the child ended by itself: " << status;
  ASSERT_GE(lines, 30u) << "the child wrote too little before the time limit";

  const std::string text = read_file(csv);
  const auto parsed = parse_telemetry_csv(text);
  EXPECT_TRUE(parsed.errors.empty()) << parsed.errors.front();
  // Every whole line after the header is a row; at most the very last line was cut.
  EXPECT_EQ(parsed.rows.size(), static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) - 1);
  ASSERT_GE(parsed.rows.size(), 29u);
  EXPECT_EQ(parsed.rows.back().source, "host");
  EXPECT_GT(parsed.rows.back().elapsed_s, parsed.rows.front().elapsed_s);
  EXPECT_FALSE(fs::exists(dir / "summary.json"));  // killed: no summary, the CSV is the record
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pipecheck
