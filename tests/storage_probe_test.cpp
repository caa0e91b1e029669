// The pipecheck-storage executable end to end: errors naming the path, labels, the forced
// pread fallback, a device path's identity, and no scratch file left after a run or Ctrl-C.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <map>
#include <nlohmann/json.hpp>

#include "core/probe_main.hpp"
#include "core/process_runner.hpp"
#include "io/storage_target.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

const std::string kProbe = std::string(PIPECHECK_BIN_DIR) + "/pipecheck-storage";

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct ProbeRun {
  ProcessResult result;
  std::string out;
  std::string err;
};

ProbeRun run_probe(const fs::path& dir, std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {kProbe, "--pipecheck_quick", "--benchmark_format=json", "--benchmark_min_time=0.01",
               "--benchmark_repetitions=1"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = dir / "out.json";
  spec.stderr_path = dir / "err.txt";
  spec.time_limit = std::chrono::seconds(30);
  ProbeRun run{run_process(spec), "", ""};
  run.out = slurp(spec.stdout_path);
  run.err = slurp(spec.stderr_path);
  fs::remove(spec.stdout_path);
  fs::remove(spec.stderr_path);
  return run;
}

class StorageProbe : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kProbe)) GTEST_SKIP() << kProbe << " not built";
    dir_ = fresh_dir("probe");
    fs::create_directories(dir_ / "scratch");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(StorageProbe, BadPathExitsTwoNamingThePath) {
  const std::string missing = (dir_ / "no-such-dataset").string();
  const ProbeRun run = run_probe(dir_, {"--path", missing});
  EXPECT_EQ(run.result.exit_code, 2) << run.result.describe();
  EXPECT_NE(run.err.find(missing), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;
}

TEST_F(StorageProbe, BadFlagValueExitsTwo) {
  const ProbeRun run = run_probe(dir_, {"--qd=0", "--scratch-dir=" + (dir_ / "scratch").string()});
  EXPECT_EQ(run.result.exit_code, 2);
  EXPECT_NE(run.err.find("--qd=0"), std::string::npos) << run.err;
  // Below the scratch file's smallest size: the flag is named, not the free space.
  const ProbeRun small = run_probe(dir_, {"--file-size=8M", "--scratch-dir=" + (dir_ / "scratch").string()});
  EXPECT_EQ(small.result.exit_code, 2);
  EXPECT_NE(small.err.find("--file-size=8M: at least 16M"), std::string::npos) << small.err;
}

TEST_F(StorageProbe, ScratchRunIsVerifiedAndLeavesNothingBehind) {
  const fs::path scratch = dir_ / "scratch";
  const ProbeRun run = run_probe(dir_, {"--scratch-dir=" + scratch.string(), "--file-size=16M",
                                        "--benchmark_filter=storage/(seq|rand)_read/"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe() << run.err;
  EXPECT_NE(run.out.find("\"bytes_per_second\""), std::string::npos);
  EXPECT_NE(run.out.find("\"iops\""), std::string::npos);
  EXPECT_NE(run.out.find("pattern=rand_read"), std::string::npos);
  EXPECT_NE(run.out.find("lat_p99_us="), std::string::npos);
  EXPECT_NE(run.out.find("verified=yes"), std::string::npos);
  EXPECT_EQ(run.out.find("verified=no"), std::string::npos);
  EXPECT_NE(run.out.find("disk_kind="), std::string::npos);
  EXPECT_TRUE(fs::is_empty(scratch));
}

TEST_F(StorageProbe, ScratchGoneAfterSigint) {
  const fs::path scratch = dir_ / "scratch";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string dir_flag = "--scratch-dir=" + scratch.string();
    freopen("/dev/null", "w", stdout);
    execl(kProbe.c_str(), kProbe.c_str(), "--pipecheck_quick", dir_flag.c_str(), "--file-size=64M",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // mid-fill or mid-read
  kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) || WIFEXITED(status));
  EXPECT_TRUE(fs::is_empty(scratch)) << "scratch file left behind after SIGINT";
}

TEST_F(StorageProbe, ForcedPreadEngineSaysSoAndStillMeasures) {
  const fs::path file = dir_ / "data.bin";
  std::ofstream(file, std::ios::binary) << std::string((2 << 20) + 777, 'q');  // odd size
  const ProbeRun run = run_probe(dir_, {"--path=" + file.string(), "--engine=pread", "--qd=4",
                                        "--benchmark_filter=storage/seq_read/"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe() << run.err;
  EXPECT_NE(run.out.find("engine=pread (forced by --engine=pread)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("verified=single_engine"), std::string::npos);
  EXPECT_NE(run.out.find("\"bytes_per_second\""), std::string::npos);
}

TEST_F(StorageProbe, DatasetEnginesAgree) {
  fs::create_directories(dir_ / "ds" / "sub");
  for (int i = 0; i < 20; ++i) {
    std::ofstream(dir_ / "ds" / (i % 2 ? "sub" : "") / ("img" + std::to_string(i)), std::ios::binary)
        << std::string(1000 + i * 3001, static_cast<char>('a' + i));
  }
  fs::create_directory_symlink("..", dir_ / "ds" / "sub" / "loop");
  const ProbeRun run = run_probe(dir_, {"--path", (dir_ / "ds").string(),
                                        "--benchmark_filter=storage/dataset_read/"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe() << run.err;
  EXPECT_NE(run.out.find("files=20"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("verified=yes"), std::string::npos) << run.out;
}

// A dataset read as a loader reads it: --workers threads, each reading one whole file at a time
// through the page cache, cold; its label carries the files read and their mean size, so the
// budget turns GB/s into files/s with the dataset's own sizes.
TEST_F(StorageProbe, DatasetReadByTheLoadersWorkers) {
  fs::create_directories(dir_ / "ds");
  std::uint64_t bytes = 0;
  for (int i = 0; i < 12; ++i) {
    const std::size_t size = 20000 + static_cast<std::size_t>(i) * 5000;
    std::ofstream(dir_ / "ds" / ("img" + std::to_string(i)), std::ios::binary) << std::string(size, 'x');
    bytes += size;
  }
  const ProbeRun run = run_probe(dir_, {"--path", (dir_ / "ds").string(), "--workers=3",
                                        "--benchmark_filter=storage/(dataset_read_workers|pread_baseline)/"});
  ASSERT_TRUE(run.result.ok()) << run.result.describe() << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  std::map<std::string, std::map<std::string, std::string>> labels;
  for (const auto& b : doc["benchmarks"]) {
    const auto label = decode_label(b["label"].get<std::string>());
    labels[label.at("pattern")] = label;
    EXPECT_GT(b["files_per_second"].get<double>(), 0) << b["name"];
  }
  ASSERT_EQ(labels.count("dataset_read_workers"), 1u) << run.out;
  const auto& workers = labels["dataset_read_workers"];
  EXPECT_EQ(workers.at("threads"), "3");
  EXPECT_EQ(workers.at("cache"), "buffered_cold");
  EXPECT_NE(workers.at("what").find("whole files, 3 loader workers (pread 128 KiB, page cache, cold)"), std::string::npos)
      << workers.at("what");
  // Whole passes over all 12 files: the mean is the dataset's.
  EXPECT_EQ(std::stoull(workers.at("files_read")) % 12, 0u) << workers.at("files_read");
  EXPECT_EQ(workers.at("mean_file_bytes"), std::to_string(bytes / 12));
  EXPECT_EQ(labels["pread_baseline"].at("threads"), "1");
  // One worker is the pread baseline itself: no second case for it.
  const ProbeRun one = run_probe(dir_, {"--path", (dir_ / "ds").string(), "--workers=1",
                                        "--benchmark_filter=storage/dataset_read_workers/"});
  EXPECT_EQ(one.out.find("dataset_read_workers"), std::string::npos) << one.out;
}

TEST_F(StorageProbe, DevicePathGivesItsIdentity) {
  struct stat info {};
  ASSERT_EQ(stat("/", &info), 0);
  const auto disk = disk_name_of(major(info.st_dev), minor(info.st_dev), SysfsRoot("/"));
  if (!disk || !fs::exists("/dev/" + *disk)) GTEST_SKIP() << "root filesystem is not on a block device";
  const std::string device = "/dev/" + *disk;
  // Identity needs only stat and sysfs, so it holds even where opening the device is refused.
  const DeviceIdentity identity = identify_device(device, SysfsRoot("/"));
  EXPECT_EQ(identity.device, *disk);
  EXPECT_NE(identity.disk_kind, "unknown");
  const int fd = open(device.c_str(), O_RDONLY | O_DIRECT);
  const int open_error = errno;
  if (fd >= 0) close(fd);
  // Random 4 KiB reads only: a handful of MiB from the device, read-only.
  const ProbeRun run = run_probe(dir_, {"--path", device, "--benchmark_filter=storage/rand_read/"});
  if (fd < 0) {
    // A sandbox (device cgroup, LSM) may refuse even root: one line naming the device, exit 2.
    EXPECT_EQ(run.result.exit_code, 2) << run.result.describe();
    EXPECT_NE(run.err.find(device), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(std::strerror(open_error)), std::string::npos) << run.err;
    return;
  }
  ASSERT_TRUE(run.result.ok()) << run.result.describe() << run.err;
  EXPECT_NE(run.out.find("device=" + *disk + ";"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("target=block_device"), std::string::npos);
  EXPECT_EQ(run.out.find("disk_kind=unknown"), std::string::npos);
  EXPECT_NE(run.out.find("verified=yes"), std::string::npos);
}

}  // namespace
}  // namespace pipecheck
