// pipecheck-decode run as a child process on small JPEGs: JSON with images_per_second for every
// case, bad files counted and named, bad input as one line and exit code 2.
#include <gtest/gtest.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/benchmark_json.hpp"
#include "core/file_io.hpp"
#include "core/inventory.hpp"
#include "core/json_records.hpp"
#include "core/probe_main.hpp"
#include "core/process_runner.hpp"
#include "decode/jpeg_corpus.hpp"
#include "judge/judge.hpp"
#include "judge/profile.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

struct ProbeRun {
  ProcessResult process;
  std::string out;
  std::string err;
};

ProbeRun run_jpeg_probe(const fs::path& scratch, std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode", "--benchmark_min_time=0.01",
               "--benchmark_format=json", "--pipecheck_repetitions=2"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = scratch / "out";
  spec.stderr_path = scratch / "err";
  spec.time_limit = std::chrono::seconds(60);
  return {run_process(spec), read_file(scratch / "out"), read_file(scratch / "err")};
}

struct Scratch {
  fs::path path = fs::temp_directory_path() / ("pipecheck-decodep-" + std::to_string(getpid()));
  Scratch() {
    fs::remove_all(path);
    fs::create_directories(path / "images/sub");
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_bytes(const fs::path& path, const std::vector<unsigned char>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
}

const nlohmann::json* find_run(const nlohmann::json& doc, const std::string& name) {
  for (const auto& run : doc["benchmarks"]) {
    if (run["name"] == name) return &run;
  }
  return nullptr;
}

TEST(JpegProbe, DatasetRunGivesRatesAndNamesBadFiles) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode")) GTEST_SKIP() << "pipecheck-decode not built";
  Scratch scratch;
  for (int i = 0; i < 2; ++i) {
    write_bytes(scratch.path / ("images/sub/p" + std::to_string(i) + ".jpg"),
                encode_jpeg(make_photo_like_rgb(120, 90, i + 1), 120, 90, 90, TJSAMP_420, i == 1));
  }
  write_bytes(scratch.path / "images/broken.jpg", {'n', 'o', 't', 'j', 'p', 'e', 'g'});
  const ProbeRun run = run_jpeg_probe(scratch.path, {"--images", (scratch.path / "images").string(),
                                                     "--threads", "1,2", "--train-size", "64x64"});
  ASSERT_TRUE(run.process.ok()) << run.process.describe() << "\n" << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["context"]["pipecheck_stage"], "decode");
  EXPECT_EQ(doc["context"]["pipecheck_decode_bad_files"], "1");
  EXPECT_NE(doc["context"]["pipecheck_decode_bad_file_names"].get<std::string>().find("broken.jpg"), std::string::npos);
  EXPECT_EQ(doc["context"]["pipecheck_decode_progressive"], "1");
  // A dataset runs what the budget reads: the loader's path per set (DCT-scaled where it can
  // help), the baseline's full decode as the per-core reference, the batch hand-over.
  for (const char* name : {"decode/full/real_time/threads:1", "decode/loader/real_time/threads:2",
                           "decode/loader_dct/real_time/threads:1", "decode/loader_progressive/real_time/threads:1"}) {
    const auto* r = find_run(doc, name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_GT((*r)["images_per_second"].get<double>(), 0) << name;
    EXPECT_GT((*r)["megapixels_per_second"].get<double>(), 0) << name;
    const auto label = decode_label((*r)["label"].get<std::string>());
    EXPECT_EQ(label.at("verified"), "yes") << name << ": " << label.at("verify");
    EXPECT_EQ(label.at("bad_files"), "1");
    EXPECT_FALSE(label.at("usable_cpus").empty());
  }
  EXPECT_EQ(find_run(doc, "decode/dct_1_4/real_time/threads:1"), nullptr);
  EXPECT_EQ(find_run(doc, "decode/full_progressive/real_time/threads:1"), nullptr);
  const auto loader = decode_label((*find_run(doc, "decode/loader/real_time/threads:1"))["label"].get<std::string>());
  EXPECT_EQ(loader.at("train_size"), "64x64");
  EXPECT_EQ(loader.at("crop"), "random-resized");
  EXPECT_EQ(loader.at("tensor"), "float32");
  EXPECT_NE(loader.at("verify").find("tensor checked value by value"), std::string::npos) << loader.at("verify");
  // The hand-over of a batch: 32 samples of 3 x 64 x 64 float32, every sample's stamps checked.
  const auto* handover = find_run(doc, "decode/handover/real_time");
  ASSERT_NE(handover, nullptr);
  ASSERT_FALSE(handover->value("error_occurred", false)) << (*handover)["error_message"];
  EXPECT_GT((*handover)["images_per_second"].get<double>(), 0);
  const auto handover_label = decode_label((*handover)["label"].get<std::string>());
  EXPECT_EQ(handover_label.at("sample_bytes"), "49152");
  EXPECT_EQ(handover_label.at("batch"), "32");
  EXPECT_GT(std::stod(handover_label.at("worker_us_per_sample")), 0);
  // 1 and 2 threads ran in rounds, interleaved, each repetition numbered, and said why they stopped.
  EXPECT_EQ(doc["context"]["pipecheck_interleaved"], "threads");
  int repetitions = 0;
  for (const auto& entry : doc["benchmarks"]) {
    if (entry["name"] != "decode/full/real_time/threads:2") continue;
    EXPECT_EQ(entry["repetition_index"], repetitions++);
    EXPECT_EQ(entry["repetitions"], 2);
  }
  EXPECT_EQ(repetitions, 2);
  EXPECT_EQ(doc["context"]["pipecheck_stop:decode/full/real_time/threads:2"].get<std::string>().rfind("fixed count of 2", 0), 0u);
  // The nvJPEG case: a placeholder that says why it was skipped, or, where nvJPEG and a GPU are,
  // a real case that decoded the dataset's baseline images and matched TurboJPEG.
  const auto* skipped = find_run(doc, "decode/nvjpeg/iterations:1");
  const auto* measured = find_run(doc, "decode/nvjpeg/real_time");
  ASSERT_NE(skipped == nullptr, measured == nullptr) << "exactly one nvJPEG case: " << run.out;
  if (skipped) {
    EXPECT_TRUE(skipped->value("error_occurred", false));
    EXPECT_EQ((*skipped)["error_message"].get<std::string>().rfind("skipped: ", 0), 0u) << (*skipped)["error_message"];
  } else {
    ASSERT_FALSE(measured->value("error_occurred", false)) << (*measured)["error_message"];
    EXPECT_GT((*measured)["images_per_second"].get<double>(), 0);
    const auto gpu_label = decode_label((*measured)["label"].get<std::string>());
    EXPECT_EQ(gpu_label.at("verified"), "yes") << gpu_label.at("verify");
  }
}

// Without nvJPEG (or a GPU) the GPU case is a skip, not a run: no timing, and the driver reads
// it as a skipped case, so the report says skipped instead of showing a ~1 us "decode".
TEST(JpegProbe, PlaceholderGpuCaseIsASkipWithNoTiming) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode")) GTEST_SKIP() << "pipecheck-decode not built";
  Scratch scratch;
  const ProbeRun run = run_jpeg_probe(scratch.path, {"--count", "2", "--size", "160x120", "--threads", "1",
                                                     "--benchmark_filter=decode/(nvjpeg|full/)"});
  ASSERT_TRUE(run.process.ok()) << run.process.describe() << "\n" << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  const auto* gpu = find_run(doc, "decode/nvjpeg/iterations:1");
  if (gpu == nullptr) GTEST_SKIP() << "nvJPEG runs here: the GPU case is measured, not a placeholder";
  EXPECT_TRUE((*gpu)["error_occurred"].get<bool>());
  EXPECT_FALSE(gpu->contains("images_per_second"));
  const ParsedBenchmarks parsed = parse_benchmark_json(run.out, "decode");
  ASSERT_EQ(parsed.skipped_cases.size(), 1u);
  EXPECT_EQ(parsed.skipped_cases[0].rfind("decode/nvjpeg: ", 0), 0u) << parsed.skipped_cases[0];
  EXPECT_TRUE(parsed.case_errors.empty()) << parsed.case_errors.front();
  for (const auto& m : parsed.measurements) EXPECT_NE(m.key, "decode/nvjpeg");
  ASSERT_EQ(parsed.measurements.size(), 1u);  // the CPU full decode still measured

  // The report: decode/nvjpeg judged skipped with its reason, not a case error.
  ProbeOutcome outcome{"pipecheck-decode", "decode", ProbeStatus::ok, "", 1, parsed.measurements, parsed.case_errors,
                       parsed.skipped_cases, parsed.wrong_results};
  Report report;
  report.probes.push_back(outcome);
  const auto judgements = judge_measurements(report, {}, default_profile());
  const auto skipped = std::find_if(judgements.begin(), judgements.end(),
                                    [](const Judgement& j) { return j.subject == "decode/nvjpeg"; });
  ASSERT_NE(skipped, judgements.end());
  EXPECT_EQ(skipped->verdict, Verdict::skipped);
  EXPECT_NE(skipped->explanation.find("nvJPEG"), std::string::npos) << skipped->explanation;
  for (const auto& j : judgements) EXPECT_NE(j.subject, "probe/decode/case_errors") << j.explanation;
}

// A CMYK JPEG in the dataset is an image: its own set with the loader's cases, verified, counted
// and named, never "corrupt". --workers adds the loader's worker count to the thread counts.
TEST(JpegProbe, CmykFilesAreTheirOwnSetAndWorkersAreMeasured) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode")) GTEST_SKIP() << "pipecheck-decode not built";
  Scratch scratch;
  fs::copy_file(fs::path(PIPECHECK_TEST_DATA) / "pillow/cmyk.jpg", scratch.path / "images/sub/cmyk.jpg");
  write_bytes(scratch.path / "images/rgb.jpg", encode_jpeg(make_photo_like_rgb(120, 90, 1), 120, 90, 90, TJSAMP_420, false));
  const ProbeRun run = run_jpeg_probe(scratch.path, {"--images", (scratch.path / "images").string(), "--threads", "1",
                                                     "--workers", "3", "--train-size", "64x64",
                                                     "--benchmark_filter=decode/(full|loader)"});
  ASSERT_TRUE(run.process.ok()) << run.process.describe() << "\n" << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["context"]["pipecheck_decode_bad_files"], "0");
  EXPECT_EQ(doc["context"]["pipecheck_decode_cmyk"], "1");
  EXPECT_EQ(doc["context"]["pipecheck_decode_baseline"], "1");
  for (const char* name : {"decode/loader_cmyk/real_time/threads:1", "decode/loader_cmyk/real_time/threads:3",
                           "decode/loader/real_time/threads:3"}) {
    const auto* r = find_run(doc, name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_GT((*r)["images_per_second"].get<double>(), 0) << name;
    const auto label = decode_label((*r)["label"].get<std::string>());
    EXPECT_EQ(label.at("verified"), "yes") << name << ": " << label.at("verify");
  }
  // The 96x64 CMYK image at 64x64: no DCT scale keeps the pixels the crop needs, so no DCT case,
  // and the context says why.
  EXPECT_EQ(find_run(doc, "decode/loader_dct_cmyk/real_time/threads:1"), nullptr);
  EXPECT_EQ(doc["context"]["pipecheck_decode_dct_cmyk"].get<std::string>().rfind("not measured: no cmyk image decodes smaller", 0), 0u);
  const auto label = decode_label((*find_run(doc, "decode/loader_cmyk/real_time/threads:1"))["label"]);
  EXPECT_EQ(label.at("set"), "cmyk");
  EXPECT_EQ(label.at("set_median_size"), "96x64");
  EXPECT_EQ(label.at("cmyk_file_names"), "sub/cmyk.jpg (CMYK)");
  EXPECT_NE(label.at("what").find("CMYK, converted to RGB"), std::string::npos) << label.at("what");
}

TEST(JpegProbe, GeneratedCorpusVerifiesAgainstSourcePixels) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode")) GTEST_SKIP() << "pipecheck-decode not built";
  Scratch scratch;
  const ProbeRun run = run_jpeg_probe(scratch.path, {"--count", "2", "--size", "160x120", "--train-size", "48x40",
                                                     "--threads", "1", "--benchmark_filter=decode/(full|loader|dct_1_2)"});
  ASSERT_TRUE(run.process.ok()) << run.process.describe() << "\n" << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["context"]["pipecheck_decode_subsampling"], "4:2:0=2");
  std::set<std::string> cases;
  for (const auto& r : doc["benchmarks"]) {
    const auto label = decode_label(r["label"].get<std::string>());
    EXPECT_EQ(label.at("verified"), "yes") << r["name"] << ": " << label.at("verify");
    EXPECT_NE(label.at("verify").find("source pixels"), std::string::npos);
    cases.insert(r["name"].get<std::string>());
  }
  // full, loader, loader_dct, dct_1_2, and full, loader, loader_dct of the progressive set
  EXPECT_EQ(cases.size(), 7u);
  EXPECT_EQ(doc["benchmarks"].size(), 14u);  // 2 repetitions each
  EXPECT_EQ(doc["context"]["executable"], std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode");
}

// On a machine with a GPU and libnvjpeg: the GPU case measures and its decode matches
// TurboJPEG's. Elsewhere it is a skip that says why (checked above).
TEST(JpegProbe, GpuDecodeMeasuresAndVerifiesWhereNvjpegRuns) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode")) GTEST_SKIP() << "pipecheck-decode not built";
  Scratch scratch;
  const ProbeRun run = run_jpeg_probe(scratch.path, {"--count", "4", "--size", "640x480", "--gpu-batch", "8",
                                                     "--benchmark_filter=decode/nvjpeg"});
  ASSERT_TRUE(run.process.ok()) << run.process.describe() << "\n" << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  if (const auto* skipped = find_run(doc, "decode/nvjpeg/iterations:1")) {
    GTEST_SKIP() << (*skipped)["error_message"];
  }
  const auto* gpu = find_run(doc, "decode/nvjpeg/real_time");
  ASSERT_NE(gpu, nullptr) << run.out;
  ASSERT_FALSE(gpu->contains("error_occurred") && (*gpu)["error_occurred"].get<bool>()) << (*gpu)["error_message"];
  EXPECT_GT((*gpu)["images_per_second"].get<double>(), 0);
  const auto label = decode_label((*gpu)["label"].get<std::string>());
  EXPECT_EQ(label.at("verified"), "yes") << label.at("verify");
  EXPECT_EQ(label.at("batch"), "8");
}

// With the job's python (Debian's, where it has torch and torchvision): the interpreter case runs
// that python's DataLoader and gives its samples per CPU second, named with its versions; without
// --python the case is not there at all.
TEST(JpegProbe, InterpreterCaseRunsTheJobsPython) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode")) GTEST_SKIP() << "pipecheck-decode not built";
  Scratch scratch;
  const ProbeRun without = run_jpeg_probe(scratch.path, {"--count", "1", "--size", "64x48", "--benchmark_list_tests=true"});
  ASSERT_TRUE(without.process.ok()) << without.err;
  EXPECT_EQ(without.out.find("interpreter"), std::string::npos) << without.out;
  if (std::system("/usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no /usr/bin/python3 with torch and torchvision";
  }
  const ProbeRun run = run_jpeg_probe(scratch.path, {"--count", "1", "--size", "64x48", "--python", "/usr/bin/python3",
                                                     "--batch", "8", "--benchmark_filter=decode/interpreter"});
  ASSERT_TRUE(run.process.ok()) << run.process.describe() << "\n" << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  const auto* interpreter = find_run(doc, "decode/interpreter/manual_time");
  ASSERT_NE(interpreter, nullptr) << run.out;
  ASSERT_FALSE(interpreter->contains("error_occurred") && (*interpreter)["error_occurred"].get<bool>())
      << (*interpreter)["error_message"];
  EXPECT_GT((*interpreter)["images_per_second"].get<double>(), 50);  // under 20 ms a sample
  const auto label = decode_label((*interpreter)["label"].get<std::string>());
  EXPECT_EQ(label.at("op"), "interpreter");
  EXPECT_EQ(label.at("python"), "/usr/bin/python3");
  EXPECT_NE(label.at("versions").find("torchvision"), std::string::npos) << label.at("versions");
}

// The probe as a child with `args`, an unreachable noise target and the shortest calls: its
// measurements by key (a failed run is a test failure, with its stderr).
std::map<std::string, Measurement> decode_measurements(const fs::path& folder, const std::vector<std::string>& args) {
  ProcessSpec spec;
  spec.argv = {std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode", "--benchmark_min_time=0.005", "--benchmark_format=json",
               "--pipecheck_target_noise=0.000001"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = folder / "out";
  spec.stderr_path = folder / "err";
  spec.time_limit = std::chrono::seconds(120);
  const ProcessResult process = run_process(spec);
  EXPECT_TRUE(process.ok()) << process.describe() << "\n" << read_file(folder / "err");
  std::map<std::string, Measurement> by_key;
  for (auto& m : parse_benchmark_json(read_file(folder / "out"), "decode").measurements) by_key[m.key] = m;
  return by_key;
}

// With verdicts to decide, the loader's 1-thread rate stops with the scaling verdict it is the
// reference of; the budget reads it, so --budget yes holds it (and the hand-over) to the noise
// target: an unreachable target keeps them going to the maximum, and their stop says why.
TEST(JpegProbe, TheBudgetsFiguresAreHeldToTheNoiseTarget) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode")) GTEST_SKIP() << "pipecheck-decode not built";
  Scratch scratch;
  Inventory inventory;
  inventory.cpu.physical_cores = 2;
  write_file_atomically(scratch.path / "inventory.json", nlohmann::json(inventory).dump());
  const auto run_with = [&](const std::string& budget) {
    return decode_measurements(scratch.path, {"--pipecheck_min_repetitions=3", "--pipecheck_max_repetitions=6",
                                              "--pipecheck_verdict_inventory=" + (scratch.path / "inventory.json").string(),
                                              "--count", "2", "--size", "320x240", "--threads", "1,2", "--budget", budget,
                                              "--benchmark_filter=^decode/(full|loader|handover)/"});
  };
  const std::string held = "(another figure is computed from it)";
  auto ran = run_with("yes");
  for (const std::string key : {"decode/loader/threads:1", "decode/handover"}) {
    ASSERT_TRUE(ran.count(key)) << key;
    EXPECT_EQ(ran[key].repetitions.size(), 6u) << key << ": " << ran[key].stopping;
    EXPECT_NE(ran[key].stopping.find(held), std::string::npos) << key << ": " << ran[key].stopping;
  }
  ASSERT_TRUE(ran.count("decode/full/threads:1"));
  EXPECT_EQ(ran["decode/full/threads:1"].stopping.find(held), std::string::npos) << ran["decode/full/threads:1"].stopping;
  ran = run_with("no");
  ASSERT_TRUE(ran.count("decode/loader/threads:1"));
  EXPECT_EQ(ran["decode/loader/threads:1"].stopping.find(held), std::string::npos) << ran["decode/loader/threads:1"].stopping;
}

// The job's python takes seconds to import torch and warm its loader up, inside the first call
// of whichever interpreter case runs first: that set-up is no repetition, so both cases keep
// their time cap for repetitions (the first once stopped at the minimum, 5 samples of a photo set
// against the other's 17).
TEST(JpegProbe, ThePythonsStartIsNotCountedAgainstACasesTimeCap) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode")) GTEST_SKIP() << "pipecheck-decode not built";
  if (std::system("/usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no /usr/bin/python3 with torch and torchvision";
  }
  Scratch scratch;
  auto by_key = decode_measurements(scratch.path, {"--pipecheck_min_repetitions=2", "--pipecheck_max_repetitions=12",
                                                   "--pipecheck_case_seconds=1", "--count", "2", "--size", "64x48", "--batch",
                                                   "4", "--budget", "yes", "--python", "/usr/bin/python3",
                                                   "--benchmark_filter=^decode/interpreter"});
  for (const std::string key : {"decode/interpreter", "decode/interpreter_main"}) {
    ASSERT_TRUE(by_key.count(key)) << key << " missing: " << read_file(scratch.path / "out").substr(0, 2000);
    EXPECT_EQ(by_key[key].repetitions.size(), 12u) << key << ": " << by_key[key].stopping;
  }
}

TEST(JpegProbe, BadInputIsOneLineAndExitCode2) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-decode")) GTEST_SKIP() << "pipecheck-decode not built";
  Scratch scratch;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--images", "/nonexistent/pipecheck-images"}, "/nonexistent/pipecheck-images"},
      {{"--images", (scratch.path / "images").string()}, "no .jpg/.jpeg files"},
      {{"--size", "20x"}, "--size 20x"},
      {{"--size", "60000x60000"}, "--size 60000x60000: more than 178956970 pixels"},  // 10 GB as RGB
      {{"--train-size", "big"}, "--train-size big"},
      {{"--quality", "101"}, "--quality=101: expected a whole number from 1 to 100"},
      {{"--threads", "0"}, "--threads 0"},
      {{"--gpu-batch", "0"}, "--gpu-batch=0"},
      {{"--gpu", "x"}, "--gpu=x"},
      {{"--python", "/nonexistent/python3"}, "--python /nonexistent/python3: not an executable file"},
  };
  for (const auto& [args, says] : cases) {
    const ProbeRun run = run_jpeg_probe(scratch.path, args);
    EXPECT_EQ(run.process.exit_code, 2) << says;
    EXPECT_NE(run.err.find(says), std::string::npos) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }
}

}  // namespace
}  // namespace pipecheck
