// `pipecheck check` on this machine, for real: a healthy fast check, a planted problem that
// exits 1 and drains through a recording scontrol, bad input, the prolog rule; the Slurm node
// name and drain command; Xids since boot from recorded files.
#include "app/check_command.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/slurm_drain.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "telemetry/kernel_xids.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

class CheckCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipecheck-check-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // An scontrol that records its arguments, one a line, and succeeds.
    scontrol_ = dir_ / "scontrol";
    std::ofstream(scontrol_) << "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > \"" << (dir_ / "scontrol.args").string()
                             << "\"\n";
    fs::permissions(scontrol_, fs::perms::owner_all);
    options_.scontrol = scontrol_.string();
    options_.fast = true;
    options_.kernel_log = (dir_ / "kmsg").string();
    std::ofstream(options_.kernel_log) << "6,100,5,-;Linux version 6.1.0\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  int check() {
    out_.str("");
    err_.str("");
    return run_check(options_, out_, err_);
  }
  void expect_file(const std::string& text) {
    options_.expect = dir_ / "node.conf";
    std::ofstream(options_.expect) << text;
  }

  fs::path dir_, scontrol_;
  CheckOptions options_;
  std::ostringstream out_, err_;
};

TEST_F(CheckCommand, ThisMachineAsItIsIsHealthy) {
  EXPECT_EQ(check(), 0) << out_.str() << err_.str();
  EXPECT_NE(out_.str().find("pipecheck check: healthy"), std::string::npos) << out_.str();
  EXPECT_FALSE(fs::exists(dir_ / "scontrol.args"));
}

// The planted problem: a GPU this machine lacks, and more memory than it has.
TEST_F(CheckCommand, APlantedProblemIsUnhealthyAndDrainsTheNode) {
  expect_file("gpu.count = " + std::to_string(1 + 8) + "\nhost.memory_min = 64TiB\n");
  options_.slurm_drain = true;
  options_.node = "node-17";
  EXPECT_EQ(check(), 1) << out_.str() << err_.str();
  const std::string printed = out_.str();
  EXPECT_NE(printed.find("FAIL host:"), std::string::npos) << printed;
  EXPECT_NE(printed.find("9 expected (expected by " + options_.expect.string() + ")"), std::string::npos) << printed;
  EXPECT_NE(printed.find("at least 65536 GiB expected"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pipecheck check: unhealthy"), std::string::npos) << printed;
  const std::string args = read_file(dir_ / "scontrol.args");
  EXPECT_EQ(args.rfind("update\nnodename=node-17\nstate=drain\nreason=pipecheck: host: ", 0), 0u) << args;
  EXPECT_NE(args.find("(+1 more)"), std::string::npos) << args;
  EXPECT_NE(err_.str().find("drained node node-17: pipecheck: host:"), std::string::npos) << err_.str();
}

// $SLURMD_NODENAME is outside text: it reached stderr raw (an ESC in it coloured the terminal).
TEST_F(CheckCommand, TheSlurmNodeNameIsEscapedOnStderr) {
  expect_file("host.cpus = 4096\n");
  options_.slurm_drain = true;
  setenv("SLURMD_NODENAME", "n\x1b[31m17\x9b", 1);
  EXPECT_EQ(check(), 1);
  unsetenv("SLURMD_NODENAME");
  EXPECT_EQ(err_.str().find('\x1b'), std::string::npos) << err_.str();
  EXPECT_NE(err_.str().find("drained node n\\x1b[31m17\\x9b"), std::string::npos) << err_.str();
}

// `check --burn` on a machine without a GPU said "healthy" where nothing was burned.
TEST_F(CheckCommand, BurnWithoutAGpuIsInconclusive) {
  options_.fast = false;
  options_.burn_s = 1;
  options_.burn_out = dir_ / "burn";
  if (fs::exists("/dev/nvidia0")) GTEST_SKIP() << "this machine has a GPU to burn";
  const int code = check();
  EXPECT_EQ(code, 4) << out_.str() << err_.str();
  EXPECT_NE(out_.str().find("no GPU to burn: nothing was burned"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("pipecheck check: inconclusive"), std::string::npos) << out_.str();
}

// TMPDIR=/nonexistent failed with the library's "temp_directory_path" without naming TMPDIR.
TEST_F(CheckCommand, AnUnusableTmpdirIsNamed) {
  options_.fast = false;
  options_.burn_s = 1;
  const char* saved = std::getenv("TMPDIR");
  const std::string kept = saved ? saved : "";
  setenv("TMPDIR", "/nonexistent", 1);
  try {
    check();
    ADD_FAILURE() << "ran with TMPDIR=/nonexistent: " << out_.str();
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("TMPDIR=/nonexistent: "), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("--burn-out"), std::string::npos) << error.what();
  } catch (const std::exception& error) {
    ADD_FAILURE() << "not a usage error naming TMPDIR: " << error.what();
  }
  if (saved) {
    setenv("TMPDIR", kept.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
}

TEST_F(CheckCommand, UnhealthyWithoutSlurmDrainDrainsNothing) {
  expect_file("host.cpus = 4096\n");
  EXPECT_EQ(check(), 1);
  EXPECT_FALSE(fs::exists(dir_ / "scontrol.args"));
}

TEST_F(CheckCommand, AFailingScontrolIsSaidAndTheCheckStillFails) {
  std::ofstream(scontrol_) << "#!/bin/sh\necho 'slurm_update error: Invalid node name specified' >&2\nexit 1\n";
  expect_file("host.cpus = 4096\n");
  options_.slurm_drain = true;
  options_.node = "nowhere";
  EXPECT_EQ(check(), 1);
  EXPECT_NE(err_.str().find("could not drain node nowhere: scontrol exit code 1: slurm_update error: Invalid node name"),
            std::string::npos)
      << err_.str();
}

TEST_F(CheckCommand, BadInputIsAUsageErrorBeforeAnyCheck) {
  expect_file("gpu.count = many\n");
  EXPECT_THROW(check(), UsageError);
  options_.expect.clear();
  options_.baseline = dir_ / "missing.json";
  EXPECT_THROW(check(), UsageError);
  options_.baseline.clear();
  options_.burn_s = 5;
  EXPECT_THROW(check(), UsageError);  // --burn needs the full check
}

TEST(SlurmDrain, NodeNameAndCommand) {
  EXPECT_EQ(slurm_node_name("n17", "gpu-a.cluster.example"), "n17");
  EXPECT_EQ(slurm_node_name(nullptr, "gpu-a.cluster.example"), "gpu-a");
  EXPECT_EQ(slurm_node_name("", "gpu-b"), "gpu-b");
  EXPECT_EQ(drain_command("scontrol", "n1", "pipecheck: host: 7 GPU(s) seen, 8 expected"),
            (std::vector<std::string>{"scontrol", "update", "nodename=n1", "state=drain",
                                      "reason=pipecheck: host: 7 GPU(s) seen, 8 expected"}));
  const DrainResult absent = drain_node("/nonexistent/scontrol", "n1", "pipecheck: x");
  EXPECT_FALSE(absent.drained);
  EXPECT_NE(absent.message.find("could not drain node n1: scontrol could not start"), std::string::npos) << absent.message;
}

TEST(KernelXids, ReadsXidRecordsSinceBoot) {
  const fs::path log = fs::temp_directory_path() / ("pipecheck-kmsg-" + std::to_string(getpid()));
  std::ofstream(log) << "6,100,5,-;Linux version 6.1.0\n"
                     << "4,1234,5678,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.\n"
                     << "4,1235,5679,-;NVRM: Xid (PCI:0000:3b:00): 13, Graphics SM Warp Exception\n"
                     << "4,1236,5680,-;NVRM: Xid (PCI:0000:5e:00): 48, An uncorrectable double bit error";
  const KernelXids found = read_kernel_xids(log.string());
  fs::remove(log);
  ASSERT_TRUE(found.readable);
  ASSERT_EQ(found.xids.size(), 3u);
  EXPECT_EQ(found.xids[0].bus_id, "0000:3b:00.0");
  EXPECT_EQ(found.xids[0].xid, 79);
  EXPECT_EQ(found.xids[2].bus_id, "0000:5e:00.0");
  EXPECT_EQ(found.xids[2].xid, 48);

  const KernelXids missing = read_kernel_xids("/nonexistent/kmsg");
  EXPECT_FALSE(missing.readable);
  EXPECT_NE(missing.why.find("Xids since boot not checked"), std::string::npos) << missing.why;
}

// The real kernel log of this machine, where readable: no Xid on a machine without NVIDIA GPUs.
TEST(KernelXids, ThisMachinesKernelLog) {
  const KernelXids found = read_kernel_xids();
  if (!found.readable) GTEST_SKIP() << found.why;
  for (const auto& xid : found.xids) EXPECT_GT(xid.xid, 0) << xid.text;
}

}  // namespace
}  // namespace pipecheck
