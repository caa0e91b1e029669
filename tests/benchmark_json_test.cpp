// Google Benchmark JSON -> measurements: grouping repetitions, keys, labels, errors, garbage.
#include "core/benchmark_json.hpp"

#include <gtest/gtest.h>

#include "core/case_messages.hpp"
#include "core/file_io.hpp"

namespace pipecheck {
namespace {

const std::string kData = PIPECHECK_TEST_DATA;

TEST(MeasurementKey, DropsTimingParts) {
  EXPECT_EQ(measurement_key("hostmem/memcpy/real_time/threads:2"), "hostmem/memcpy/threads:2");
  EXPECT_EQ(measurement_key("gemm/bf16/8192/min_time:0.500/repeats:5/manual_time"), "gemm/bf16/8192");
  EXPECT_EQ(measurement_key("plain"), "plain");
}

TEST(ParseBenchmarkJson, RecordedHostmemOutput) {
  const auto parsed = parse_benchmark_json(read_file(kData + "/probes/hostmem_sample.json"), "hostmem");
  EXPECT_EQ(parsed.context.at("pipecheck_stage"), "hostmem");
  ASSERT_EQ(parsed.measurements.size(), 4u);  // memcpy and read, 1 and 2 threads
  const Measurement& m = parsed.measurements[0];
  EXPECT_EQ(m.key, "hostmem/memcpy/threads:1");
  EXPECT_EQ(m.what, "memcpy, 1 thread");
  EXPECT_EQ(m.unit, "GB/s");
  EXPECT_EQ(m.stage, "hostmem");
  EXPECT_EQ(m.stats.samples, 3);  // three repetitions, aggregates ignored
  EXPECT_LE(m.stats.min, m.stats.median);
  EXPECT_LE(m.stats.median, m.stats.max);
  EXPECT_GT(m.stats.min, 0.1);  // GB/s, not bytes/s
  EXPECT_EQ(m.params.at("op"), "memcpy");
  EXPECT_EQ(m.params.count("what"), 0u);
}

TEST(ParseBenchmarkJson, MedianOfRepetitions) {
  const std::string text = R"({"context": {}, "benchmarks": [
    {"name": "x/a", "run_name": "x/a", "run_type": "iteration", "bytes_per_second": 3e9},
    {"name": "x/a", "run_name": "x/a", "run_type": "iteration", "bytes_per_second": 1e9},
    {"name": "x/a", "run_name": "x/a", "run_type": "iteration", "bytes_per_second": 2e9},
    {"name": "x/a_median", "run_name": "x/a", "run_type": "aggregate", "bytes_per_second": 9e9}]})";
  const auto parsed = parse_benchmark_json(text, "x");
  ASSERT_EQ(parsed.measurements.size(), 1u);
  EXPECT_DOUBLE_EQ(parsed.measurements[0].stats.median, 2.0);
  EXPECT_DOUBLE_EQ(parsed.measurements[0].stats.min, 1.0);
  EXPECT_DOUBLE_EQ(parsed.measurements[0].stats.max, 3.0);
}

// A case that totals its rounds over its repetitions says the totals in its last label
// (decode/loader_cases: the job's loader): the measurement keeps that one.
TEST(ParseBenchmarkJson, TheLastRepetitionsLabelIsKept) {
  const std::string text = R"({"context": {}, "benchmarks": [
    {"name": "x/a", "run_name": "x/a", "run_type": "iteration", "bytes_per_second": 3e9, "label": "samples=10"},
    {"name": "x/a", "run_name": "x/a", "run_type": "iteration", "bytes_per_second": 1e9, "label": "samples=20"},
    {"name": "x/a", "run_name": "x/a", "run_type": "iteration", "bytes_per_second": 2e9, "label": "samples=30"}]})";
  const auto parsed = parse_benchmark_json(text, "x");
  ASSERT_EQ(parsed.measurements.size(), 1u);
  EXPECT_EQ(parsed.measurements[0].params.at("samples"), "30");
}

TEST(ParseBenchmarkJson, ErrorCasesAreKeptApart) {
  const std::string text = R"({"benchmarks": [
    {"name": "x/bad", "run_type": "iteration", "error_occurred": true,
     "error_message": "verification failed"},
    {"name": "x/tflops", "run_type": "iteration", "flop_per_second": 5e14}]})";
  const auto parsed = parse_benchmark_json(text, "compute");
  ASSERT_EQ(parsed.case_errors.size(), 1u);
  EXPECT_EQ(parsed.case_errors[0], "x/bad: verification failed");
  ASSERT_EQ(parsed.measurements.size(), 1u);
  EXPECT_EQ(parsed.measurements[0].unit, "TFLOP/s");
  EXPECT_DOUBLE_EQ(parsed.measurements[0].stats.median, 500.0);
}

// The prefixes of core/case_messages.hpp sort error runs: a skip and a caught wrong result are
// not case errors, and a case repeated over repetitions is listed once.
TEST(ParseBenchmarkJson, SkippedCasesAndWrongResultsByPrefix) {
  const std::string text = R"json({"benchmarks": [
    {"name": "decode/nvjpeg/iterations:1", "run_type": "iteration", "error_occurred": true,
     "error_message": "skipped: no nvJPEG (libnvjpeg.so.13: not found)"},
    {"name": "decode/nvjpeg/iterations:1", "run_type": "iteration", "error_occurred": true,
     "error_message": "skipped: no nvJPEG (libnvjpeg.so.13: not found)"},
    {"name": "hbm/copy/manual_time", "run_type": "iteration", "error_occurred": true,
     "error_message": "wrong result: copy: 1 of 4096 elements wrong, first c[17]"},
    {"name": "hbm/read/manual_time", "run_type": "iteration", "error_occurred": true,
     "error_message": "cudaMalloc: out of memory"}]})json";
  const auto parsed = parse_benchmark_json(text, "memory");
  EXPECT_EQ(parsed.skipped_cases, (std::vector<std::string>{"decode/nvjpeg: no nvJPEG (libnvjpeg.so.13: not found)"}));
  EXPECT_EQ(parsed.wrong_results, (std::vector<std::string>{"hbm/copy: copy: 1 of 4096 elements wrong, first c[17]"}));
  EXPECT_EQ(parsed.case_errors, (std::vector<std::string>{"hbm/read: cudaMalloc: out of memory"}));
  EXPECT_TRUE(parsed.measurements.empty());
}

TEST(CaseMessages, PrefixesRoundTrip) {
  EXPECT_EQ(skipped_case_message("no GPU"), "skipped: no GPU");
  EXPECT_EQ(skipped_case_message("skipped: no GPU"), "skipped: no GPU");  // never twice
  EXPECT_EQ(classify_case_message(skipped_case_message("no GPU")).kind, CaseMessage::skipped);
  EXPECT_EQ(classify_case_message(skipped_case_message("no GPU")).text, "no GPU");
  EXPECT_EQ(classify_case_message(wrong_result_message("D(1,2) = 3")).kind, CaseMessage::wrong_result);
  EXPECT_EQ(classify_case_message(wrong_result_message("D(1,2) = 3")).text, "D(1,2) = 3");
  EXPECT_EQ(classify_case_message("Skipped because").kind, CaseMessage::error);  // the exact prefix only
}

TEST(ParseBenchmarkJson, GarbageIsRejectedWithAReason) {
  EXPECT_THROW(parse_benchmark_json("hello", "x"), std::runtime_error);
  EXPECT_THROW(parse_benchmark_json("[1, 2]", "x"), std::runtime_error);
  EXPECT_THROW(parse_benchmark_json(R"({"context": {}})", "x"), std::runtime_error);
  EXPECT_THROW(parse_benchmark_json(R"({"benchmarks": [{"x": 1}]})", "x"), std::runtime_error);
  try {
    parse_benchmark_json("", "x");
    FAIL() << "empty text accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("not JSON"), std::string::npos);
  }
}

}  // namespace
}  // namespace pipecheck
