// pipecheck-jpeg run as a child process on small JPEGs: JSON with images_per_second for every
// case, bad files counted and named, bad input as one line and exit code 2.
#include <gtest/gtest.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/file_io.hpp"
#include "core/probe_main.hpp"
#include "core/process_runner.hpp"
#include "io/jpeg_corpus.hpp"

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
  spec.argv = {std::string(PIPECHECK_BIN_DIR) + "/pipecheck-jpeg", "--benchmark_min_time=0.01",
               "--benchmark_format=json"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = scratch / "out";
  spec.stderr_path = scratch / "err";
  spec.time_limit = std::chrono::seconds(60);
  return {run_process(spec), read_file(scratch / "out"), read_file(scratch / "err")};
}

struct Scratch {
  fs::path path = fs::temp_directory_path() / ("pipecheck-jpegp-" + std::to_string(getpid()));
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
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-jpeg")) GTEST_SKIP() << "pipecheck-jpeg not built";
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
  for (const char* name : {"decode/full/real_time/threads:1", "decode/resize/real_time/threads:2",
                           "decode/dct_1_4/real_time/threads:1",
                           "decode/full_progressive/real_time/threads:1"}) {
    const auto* r = find_run(doc, name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_GT((*r)["images_per_second"].get<double>(), 0) << name;
    EXPECT_GT((*r)["megapixels_per_second"].get<double>(), 0) << name;
    const auto label = decode_label((*r)["label"].get<std::string>());
    EXPECT_EQ(label.at("verified"), "yes") << name << ": " << label.at("verify");
    EXPECT_EQ(label.at("bad_files"), "1");
  }
  const auto label = decode_label((*find_run(doc, "decode/full/real_time/threads:2"))["label"]);
  EXPECT_EQ(label.count("scaling_efficiency"), 1u);
  // The nvJPEG case: a placeholder that says why it was skipped, or, where nvJPEG and a GPU are,
  // a real case that decoded the dataset's baseline images and matched TurboJPEG.
  const auto* skipped = find_run(doc, "decode/nvjpeg/iterations:1");
  const auto* measured = find_run(doc, "decode/nvjpeg/real_time");
  ASSERT_NE(skipped == nullptr, measured == nullptr) << "exactly one nvJPEG case: " << run.out;
  if (skipped) {
    EXPECT_EQ(decode_label((*skipped)["label"]).at("status").rfind("skipped:", 0), 0u);
  } else {
    ASSERT_FALSE(measured->value("error_occurred", false)) << (*measured)["error_message"];
    EXPECT_GT((*measured)["images_per_second"].get<double>(), 0);
    const auto gpu_label = decode_label((*measured)["label"].get<std::string>());
    EXPECT_EQ(gpu_label.at("verified"), "yes") << gpu_label.at("verify");
  }
}

TEST(JpegProbe, GeneratedCorpusVerifiesAgainstSourcePixels) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-jpeg")) GTEST_SKIP() << "pipecheck-jpeg not built";
  Scratch scratch;
  const ProbeRun run = run_jpeg_probe(scratch.path, {"--count", "2", "--size", "160x120", "--train-size", "48x40",
                                                     "--threads", "1", "--benchmark_filter=decode/(full|resize|dct_1_2)"});
  ASSERT_TRUE(run.process.ok()) << run.process.describe() << "\n" << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["context"]["pipecheck_decode_subsampling"], "4:2:0=2");
  int cases = 0;
  for (const auto& r : doc["benchmarks"]) {
    const auto label = decode_label(r["label"].get<std::string>());
    EXPECT_EQ(label.at("verified"), "yes") << r["name"] << ": " << label.at("verify");
    EXPECT_NE(label.at("verify").find("source pixels"), std::string::npos);
    ++cases;
  }
  EXPECT_EQ(cases, 5);  // full, resize, resize_plain, dct_1_2, full_progressive
}

// On a machine with a GPU and libnvjpeg: the GPU case measures and its decode matches
// TurboJPEG's. Elsewhere it is a skip that says why (checked above).
TEST(JpegProbe, GpuDecodeMeasuresAndVerifiesWhereNvjpegRuns) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-jpeg")) GTEST_SKIP() << "pipecheck-jpeg not built";
  Scratch scratch;
  const ProbeRun run = run_jpeg_probe(scratch.path, {"--count", "4", "--size", "640x480", "--gpu-batch", "8",
                                                     "--benchmark_filter=decode/nvjpeg"});
  ASSERT_TRUE(run.process.ok()) << run.process.describe() << "\n" << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  if (const auto* skipped = find_run(doc, "decode/nvjpeg/iterations:1")) {
    GTEST_SKIP() << decode_label((*skipped)["label"]).at("status");
  }
  const auto* gpu = find_run(doc, "decode/nvjpeg/real_time");
  ASSERT_NE(gpu, nullptr) << run.out;
  ASSERT_FALSE(gpu->contains("error_occurred") && (*gpu)["error_occurred"].get<bool>()) << (*gpu)["error_message"];
  EXPECT_GT((*gpu)["images_per_second"].get<double>(), 0);
  const auto label = decode_label((*gpu)["label"].get<std::string>());
  EXPECT_EQ(label.at("verified"), "yes") << label.at("verify");
  EXPECT_EQ(label.at("batch"), "8");
}

TEST(JpegProbe, BadInputIsOneLineAndExitCode2) {
  if (!fs::exists(std::string(PIPECHECK_BIN_DIR) + "/pipecheck-jpeg")) GTEST_SKIP() << "pipecheck-jpeg not built";
  Scratch scratch;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--images", "/nonexistent/pipecheck-images"}, "/nonexistent/pipecheck-images"},
      {{"--images", (scratch.path / "images").string()}, "no .jpg/.jpeg files"},
      {{"--size", "20x"}, "--size 20x"},
      {{"--size", "60000x60000"}, "--size 60000x60000: more than 268435456 pixels"},  // 10 GB as RGB
      {{"--train-size", "big"}, "--train-size big"},
      {{"--quality", "101"}, "--quality 101"},
      {{"--threads", "0"}, "--threads 0"},
      {{"--gpu-batch", "0"}, "--gpu-batch 0"},
      {{"--gpu", "x"}, "--gpu x"},
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
