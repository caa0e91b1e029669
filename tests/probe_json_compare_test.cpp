// A probe's JSON is Google Benchmark's own: the library's compare.py (Debian libbenchmark-tools,
// run with Debian's /usr/bin/python3 and python3-scipy) compares two runs of it, case by case.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/file_io.hpp"
#include "tests/tool_runner.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

const std::string kCompare = "/usr/share/benchmark/compare.py";

// One short run of the host memory probe, its JSON as `pipecheck run` keeps it.
void run_hostmem(const fs::path& json) {
  const auto result = testing::run_tool(std::string(PIPECHECK_BIN_DIR) +
                                        "/pipecheck-hostmem --benchmark_format=json --benchmark_repetitions=3 "
                                        "--benchmark_min_time=0.01 --pipecheck_quick --pipecheck_buffer_mib=16 > " +
                                        json.string());
  ASSERT_EQ(result.status, 0) << result.output;
}

TEST(ProbeJson, GoogleBenchmarkComparePyReadsTwoRuns) {
  if (!fs::exists(kCompare)) GTEST_SKIP() << kCompare << " missing (Debian libbenchmark-tools; scripts/install-deps.sh --with-tests)";
  if (!testing::python_has("scipy")) GTEST_SKIP() << "python3-scipy missing for /usr/bin/python3 (scripts/install-deps.sh --with-tests)";
  const auto folder = testing::fresh_temp_folder("comparepy");
  run_hostmem(folder / "a.json");
  run_hostmem(folder / "b.json");
  const auto result = testing::run_tool("/usr/bin/python3 " + kCompare + " --no-color benchmarks " +
                                        (folder / "a.json").string() + " " + (folder / "b.json").string());
  EXPECT_EQ(result.status, 0) << result.output;
  // Every case of both runs is matched by name and compared, with its U test over the repetitions.
  for (const char* name : {"hostmem/memcpy/real_time/threads:1", "hostmem/read/real_time/threads:1",
                           "hostmem/write/real_time/threads:1"}) {
    EXPECT_NE(result.output.find(std::string(name) + "_pvalue"), std::string::npos) << name << "\n" << result.output;
    EXPECT_NE(result.output.find(std::string(name) + "_median"), std::string::npos) << name;
  }
  EXPECT_EQ(result.output.find("Traceback"), std::string::npos) << result.output;

  // And it refuses what is not Google Benchmark JSON: the check can fail.
  write_file_atomically(folder / "c.json", "{\"benchmarks\": 3}");
  EXPECT_NE(testing::run_tool("/usr/bin/python3 " + kCompare + " benchmarks " + (folder / "a.json").string() + " " +
                              (folder / "c.json").string())
                .status,
            0);
  fs::remove_all(folder);
}

}  // namespace
}  // namespace pipecheck
