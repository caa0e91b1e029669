// The `pipecheck` binary as a user runs it: bad input gives one line and exit code 2.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/file_io.hpp"
#include "tests/pipecheck_cli.hpp"
#include "core/process_runner.hpp"
#include "core/sysfs.hpp"
#include "tests/tool_runner.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

using testing::CliRun;
using testing::run_pipecheck;

void expect_usage_error(const CliRun& run, const std::string& names) {
  EXPECT_EQ(run.process.ending, ProcessResult::Ending::exited);
  EXPECT_EQ(run.process.exit_code, 2);
  EXPECT_NE(run.err.find(names), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "not one line: " << run.err;
}

TEST(Cli, UnknownFlag) { expect_usage_error(run_pipecheck({"run", "--turbo"}), "--turbo"); }

TEST(Cli, UnknownStage) {
  expect_usage_error(run_pipecheck({"run", "--only", "warp"}), "unknown stage 'warp'");
}

TEST(Cli, UnknownCommand) { expect_usage_error(run_pipecheck({"launch"}), "launch"); }

TEST(Cli, QuickAndFullExclude) {
  expect_usage_error(run_pipecheck({"run", "--quick", "--full"}), "--full");
}

TEST(Cli, UnwritableOut) {
  expect_usage_error(run_pipecheck({"run", "--out", "/proc/version/x"}), "/proc/version/x");
}

TEST(Cli, MissingStoragePath) {
  expect_usage_error(run_pipecheck({"run", "--path", "/no/such/dataset"}), "/no/such/dataset");
}

TEST(Cli, InventoryJsonIsJson) {
  const CliRun run = run_pipecheck({"inventory", "--json"});
  ASSERT_TRUE(run.process.ok()) << run.err;
  EXPECT_NE(run.out.find("\"schema\": \"pipecheck.inventory\""), std::string::npos);
}

TEST(Cli, HugeNumbersInMessagesAreShortened) {
  // CLI11's range check printed 1.8e308 in full: a 309-digit line.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "--timeout", "-5"}, {"run", "--timeout", std::string(400, '9')},
        {"compare", "--threshold", "-1", "a", "b"}, {"compare", "--tolerance", "-1e400", "--fleet", "a"},
        {"stress", "--matrix", std::string(309, '9')}}) {
    const CliRun run = run_pipecheck(args);
    expect_usage_error(run, "--");
    EXPECT_LT(run.err.size(), 200u) << run.err;
  }
}

TEST(Cli, FullOrClosedStdoutIsAnErrorNotSilence) {
  ProcessSpec spec;
  spec.argv = {std::string(PIPECHECK_BIN_DIR) + "/pipecheck", "inventory", "--json"};
  spec.stdout_path = "/dev/full";
  const fs::path err = fs::temp_directory_path() / ("pipecheck-cli-full-" + std::to_string(getpid()));
  spec.stderr_path = err;
  spec.time_limit = std::chrono::seconds(60);
  const ProcessResult full = run_process(spec);
  const std::string text = read_file(err);
  fs::remove(err);
  EXPECT_EQ(full.ending, ProcessResult::Ending::exited);
  EXPECT_EQ(full.exit_code, 3) << text;
  EXPECT_NE(text.find("pipecheck: cannot write standard output: No space left on device"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  // A closed stdout (`>&-`): the shell runs it with fd 1 closed.
  spec.argv = {"/bin/sh", "-c", "exec \"$0\" inventory --json >&-", std::string(PIPECHECK_BIN_DIR) + "/pipecheck"};
  spec.stdout_path = err.string() + ".out";
  const ProcessResult closed = run_process(spec);
  const std::string closed_text = read_file(err);
  fs::remove(err);
  fs::remove(spec.stdout_path);
  EXPECT_NE(closed.exit_code, 0) << closed_text;
  EXPECT_NE(closed_text.find("cannot write standard output"), std::string::npos) << closed_text;
}

// `pipecheck inventory | true` died by SIGPIPE with no word: now a line on stderr and exit 3.
TEST(Cli, AReaderThatWentAwayIsSaidNotASilentDeath) {
  const std::string bin = std::string(PIPECHECK_BIN_DIR) + "/pipecheck";
  const auto result = pipecheck::testing::run_tool(
      "bash -c '\"$0\" inventory | { exec 0<&-; sleep 1; }; echo \"exit ${PIPESTATUS[0]}\"' " + bin);
  EXPECT_NE(result.output.find("pipecheck: cannot write standard output: Broken pipe"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("exit 3"), std::string::npos) << result.output;
}

// Files named with bytes that are not UTF-8 (0xff, Latin-1 0xe9) or control characters (ESC,
// 0x01), in a dataset, as the dataset's folder and as --path: the stage runs, report.json is
// valid JSON holding the names escaped, and no raw escape reaches the terminal.
TEST(Cli, OddFileNamesNeverCostTheStorageStage) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-cli-names-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const fs::path dataset = dir / "data\xff\x1b[31m";
  fs::create_directories(dataset / "caf\xe9");
  write_file_atomically(dataset / "caf\xe9" / "a\x01.bin", std::string(300000, 'a'));
  write_file_atomically(dataset / "\x1b]0;pwned\x07.bin", std::string(200000, 'b'));
  write_file_atomically(dataset / "plain.bin", std::string(100000, 'c'));
  const fs::path file = dir / "single\xe9\x1b.bin";
  write_file_atomically(file, std::string(4 << 20, 'd'));
  const CliRun run = run_pipecheck({"run", "--quick", "--only", "storage", "--no-color", "--out", (dir / "out").string(),
                                    "--path", dataset.string(), "--path", file.string()});
  EXPECT_LE(run.process.exit_code, 1) << run.err;
  EXPECT_EQ(run.err.find('\x1b'), std::string::npos) << "a raw ESC reached the terminal";
  EXPECT_EQ(run.out.find('\x1b'), std::string::npos) << "a raw ESC reached the terminal";
  fs::path folder;
  for (const auto& entry : fs::directory_iterator(dir / "out")) {
    if (entry.is_directory()) folder = entry.path();  // not history.db beside it
  }
  const std::string text = read_file(folder / "report.json");
  const auto report = nlohmann::json::parse(text);
  ASSERT_EQ(report["probes"][0]["status"], "ok") << report["probes"][0].dump();
  EXPECT_NE(text.find("data\\\\xff\\\\x1b[31m"), std::string::npos) << "the folder's name, escaped";
  EXPECT_NE(text.find("single\\\\xe9\\\\x1b.bin"), std::string::npos) << "the file's name, escaped";
  fs::remove_all(dir);
}

TEST(Cli, BadRunInputIsRefusedBeforeAnyProbeRuns) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-cli-input-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "empty-folder" / "sub");
  fs::create_directories(dir / "no-jpegs");
  write_file_atomically(dir / "no-jpegs" / "notes.txt", "x");
  write_file_atomically(dir / "empty-file", "");
  write_file_atomically(dir / "a-file", "x");
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  const std::string out = (dir / "out").string();
  const struct {
    std::vector<std::string> args;
    std::string names;
  } cases[] = {
      {{"--path", (dir / "fifo").string()}, "a FIFO"},
      {{"--path", (dir / "empty-file").string()}, "an empty file"},
      {{"--path", (dir / "empty-folder").string()}, "without any regular file"},
      {{"--images", (dir / "no-jpegs").string()}, "no .jpg/.jpeg files found"},
      {{"--baseline", (dir / "a-file" / "baseline.json").string()}, "cannot be created"},
      {{"--baseline", (dir / "a-file").string()}, "not JSON"},
      // The same storage twice was measured twice.
      {{"--path", (dir / "a-file").string(), "--path", (dir / "." / "a-file").string()}, "given twice"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"run", "--quick", "--only", "storage", "decode", "--out", out};
    args.insert(args.end(), c.args.begin(), c.args.end());
    expect_usage_error(run_pipecheck(args), c.names);
    EXPECT_FALSE(fs::exists(out)) << "something was written for " << c.args[1];
  }
  fs::remove_all(dir);
}

// A recorded tree is a recorded machine: nothing of the host running pipecheck appears in what
// `pipecheck inventory --sysfs-root` prints, text or JSON.
TEST(Cli, RecordedTreeHoldsNothingOfTheLiveHost) {
  const std::string live_host = trim(read_file("/proc/sys/kernel/hostname"));
  const std::string live_kernel = trim(read_file("/proc/sys/kernel/osrelease"));
  std::string live_model;
  {
    const std::string cpuinfo = read_file("/proc/cpuinfo");
    const auto at = cpuinfo.find("model name");
    if (at != std::string::npos) live_model = trim(cpuinfo.substr(cpuinfo.find(':', at) + 1, cpuinfo.find('\n', at) - cpuinfo.find(':', at) - 1));
  }
  ASSERT_FALSE(live_host.empty());
  for (const char* name : {"gpu_without_driver", "vmd_nvme", "x86_old_kernel", "s390x_books", "disks_old_kernel"}) {
    SCOPED_TRACE(name);
    const std::string tree = std::string(PIPECHECK_TEST_DATA) + "/sysfs/" + name;
    const CliRun text = run_pipecheck({"inventory", "--sysfs-root", tree});
    const CliRun json_run = run_pipecheck({"inventory", "--json", "--sysfs-root", tree});
    ASSERT_TRUE(text.process.ok() && json_run.process.ok()) << text.err << json_run.err;
    for (const std::string* output : {&text.out, &json_run.out}) {
      // The host name as a word (a short name such as "vm" may sit inside longer words).
      const std::regex host_word("(^|[^A-Za-z0-9_-])" + live_host + "($|[^A-Za-z0-9_-])");
      EXPECT_FALSE(std::regex_search(*output, host_word)) << "live host name '" << live_host << "' in:\n" << *output;
      EXPECT_EQ(output->find(live_kernel), std::string::npos) << live_kernel;
      if (!live_model.empty()) {
        EXPECT_EQ(output->find(live_model + "\n"), std::string::npos) << live_model;
      }
      EXPECT_EQ(output->find("libnvidia-ml"), std::string::npos);  // this host's missing NVML
      EXPECT_EQ(output->find("libcuda"), std::string::npos);
    }
    const nlohmann::json j = nlohmann::json::parse(json_run.out);
    EXPECT_NE(j["hostname"], live_host);
    EXPECT_NE(j["software"]["kernel"], live_kernel);
    EXPECT_NE(j["cpu"]["model"], live_model);
    EXPECT_FALSE(j["software"]["cuda_built"].get<bool>());
    EXPECT_TRUE(j["software"]["runtime_cuda_version"].is_null());
    EXPECT_TRUE(j["software"]["nccl_version"].is_null());
    EXPECT_EQ(j["software"]["cuda_error"], "");
    EXPECT_EQ(j["software"]["nvml_error"], "");
    EXPECT_FALSE(j["recorded_root"].is_null());
  }
}

TEST(Cli, RecordedTreeListsTheGpusOnItsBus) {
  const std::string tree = std::string(PIPECHECK_TEST_DATA) + "/sysfs/gpu_without_driver";
  const CliRun run = run_pipecheck({"inventory", "--json", "--sysfs-root", tree});
  ASSERT_TRUE(run.process.ok()) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["hostname"], "nodriver");
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_EQ(j["gpus"][0]["pci_bdf"], "0000:18:00.0");
  EXPECT_EQ(j["gpus"][0]["seen_by"], nlohmann::json::array({"pci"}));
  const CliRun text = run_pipecheck({"inventory", "--sysfs-root", tree});
  EXPECT_NE(text.out.find("[0000:19:00.0]  seen on the bus only (driver: none bound)"), std::string::npos) << text.out;
}

// --only takes stages comma-separated as well as space-separated.
TEST(Cli, OnlyTakesCommaSeparatedStages) {
  // Each name is checked on its own: the bad one is named, not "decode,bogus".
  expect_usage_error(run_pipecheck({"run", "--only", "decode,bogus"}), "unknown stage 'bogus'");
  // Both good names get as far as looking for their probes.
  const fs::path out = fs::temp_directory_path() / ("pipecheck-only-" + std::to_string(getpid()));
  const auto run = run_pipecheck({"run", "--only", "decode,hostmem", "--probe-dir", "/nonexistent", "--out", out.string()});
  expect_usage_error(run, "probe binary missing: /nonexistent/pipecheck-decode");
  expect_usage_error(run_pipecheck({"run", "--only", "hostmem", "bogus"}), "unknown stage 'bogus'");
  EXPECT_FALSE(fs::exists(out)) << "nothing is written for bad input";
}

TEST(Cli, PromTextfileFolderIsCheckedBeforeAnythingRuns) {
  const fs::path out = fs::temp_directory_path() / ("pipecheck-prom-" + std::to_string(getpid()));
  const auto run = run_pipecheck({"run", "--only", "hostmem", "--out", out.string(), "--prom-textfile", "/nonexistent/textfile"});
  expect_usage_error(run, "--prom-textfile /nonexistent/textfile: no such folder");
  EXPECT_FALSE(fs::exists(out));
}

// CLI11's ExistingPath said "Path does not exist" for a symlink loop and for a path over 4096
// bytes, and echoed all 9 kB of it: the system's own words now, the path shortened.
TEST(Cli, PathFlagsSayWhyInTheSystemsWords) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-cli-paths-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::create_symlink(dir / "loop", dir / "loop");
  const CliRun loop = run_pipecheck({"run", "--path", (dir / "loop").string()});
  expect_usage_error(loop, "Too many levels of symbolic links");
  const std::string long_path = "/tmp/" + std::string(9000, 'x');
  const CliRun too_long = run_pipecheck({"run", "--path", long_path});
  expect_usage_error(too_long, "File name too long");
  EXPECT_LT(too_long.err.size(), 300u) << too_long.err.size() << " bytes";
  expect_usage_error(run_pipecheck({"run", "--images", "/etc/hostname"}), "not a directory");
  fs::remove_all(dir);
}

// `--only ,` took the next flag as its stage: "unknown stage '--quick'".
TEST(Cli, OnlyWithoutAStageNamesTheFlagItTook) {
  expect_usage_error(run_pipecheck({"run", "--only", ",", "--quick"}), "--only: '--quick' is a flag, not a stage");
}

TEST(Cli, WidthOutOfRange) { expect_usage_error(run_pipecheck({"run", "--width", "10"}), "--width"); }

}  // namespace
}  // namespace pipecheck

namespace pipecheck {
namespace {

// A disk whose sysfs size is not a count of sectors has an unknown size, never 0 (issue 24).
TEST(Cli, AGarbageDiskSizeIsUnknownNotZero) {
  const fs::path tree = fs::temp_directory_path() / ("pipecheck-garbage-size-" + std::to_string(getpid()));
  fs::remove_all(tree);
  fs::copy(fs::path(PIPECHECK_TEST_DATA) / "sysfs" / "vm_disks", tree,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const fs::path size = fs::canonical(tree / "sys/block/vda") / "size";
  fs::remove(size);
  write_file_atomically(size, "12x4\n");
  const CliRun text = run_pipecheck({"inventory", "--sysfs-root", tree.string()});
  const CliRun json_run = run_pipecheck({"inventory", "--json", "--sysfs-root", tree.string()});
  ASSERT_TRUE(text.process.ok() && json_run.process.ok()) << text.err << json_run.err;
  const auto line = text.out.find("  vda: ");
  ASSERT_NE(line, std::string::npos) << text.out;
  const std::string vda = text.out.substr(line, text.out.find('\n', line) - line);
  EXPECT_NE(vda.find("size unknown"), std::string::npos) << vda;
  bool found = false;
  const nlohmann::json inventory = nlohmann::json::parse(json_run.out);
  for (const auto& disk : inventory["disks"]) {
    if (disk["name"] != "vda") continue;
    found = true;
    EXPECT_TRUE(disk["size_bytes"].is_null()) << disk.dump();
  }
  EXPECT_TRUE(found);
  fs::remove_all(tree);
}

}  // namespace
}  // namespace pipecheck
