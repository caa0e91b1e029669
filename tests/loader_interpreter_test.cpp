// The training job's own loader as a real child process: Debian's python3 with torch and
// torchvision runs DataLoader with the workload's transform over real JPEG files and answers with
// its CPU time (skipped where they are not installed, as on CI); a file it cannot load and a
// python that cannot run the script are named with their error; a path that is not a program is
// a usage error.
#include "decode/loader_interpreter.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/errors.hpp"
#include "core/temporary_folder.hpp"
#include "decode/jpeg_corpus.hpp"

namespace pipecheck {
namespace {

const char* kDebianPython = "/usr/bin/python3";

bool debian_torchvision() { return access(kDebianPython, X_OK) == 0 && choose_loader_python(kDebianPython) == kDebianPython &&
                                   std::system("/usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1") == 0; }

// `count` generated JPEGs of `width` x `height` written to `folder`: their paths.
std::vector<std::filesystem::path> write_jpegs(const std::filesystem::path& folder, int count, int width, int height) {
  GeneratedCorpusSpec spec;
  spec.width = width;
  spec.height = height;
  spec.count = static_cast<std::size_t>(count);
  std::vector<std::filesystem::path> files;
  for (const JpegImage& image : generate_jpeg_corpus(spec).images) {
    files.push_back(folder / image.name);
    std::ofstream(files.back(), std::ios::binary)
        .write(reinterpret_cast<const char*>(image.bytes.data()), static_cast<std::streamsize>(image.bytes.size()));
  }
  return files;
}

TEST(LoaderInterpreter, ChoosesNoneAutoOrAProgram) {
  EXPECT_EQ(choose_loader_python("none"), "");
  EXPECT_EQ(choose_loader_python(""), "");
  try {
    choose_loader_python("/no/such/python");
    FAIL() << "a missing program was accepted";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--python /no/such/python: not an executable file");
  }
  // A file without execute permission is no program either.
  const std::filesystem::path plain = std::filesystem::temp_directory_path() / ("pipecheck-not-python-" + std::to_string(getpid()));
  std::ofstream(plain) << "print(1)\n";
  std::filesystem::permissions(plain, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  EXPECT_THROW(choose_loader_python(plain.string()), UsageError);
  std::filesystem::remove(plain);
  // auto is python3 on PATH when it has torch and torchvision, else nothing: never an error.
  EXPECT_NO_THROW(choose_loader_python("auto"));
}

TEST(LoaderInterpreter, MeasuresTheLoadersOwnTimeASample) {
  if (!debian_torchvision()) GTEST_SKIP() << "no /usr/bin/python3 with torch and torchvision";
  TemporaryFolder folder("pipecheck-interpreter-test-");
  const auto files = write_jpegs(folder.path(), 6, 320, 240);
  for (const CropMode crop : {CropMode::random_resized, CropMode::center, CropMode::none}) {
    LoaderTransform transform;
    transform.width = 64;
    transform.height = 48;
    transform.crop = crop;
    LoaderInterpreter python(kDebianPython, transform, 4, files);
    EXPECT_EQ(python.versions().rfind("python3 3.", 0), 0u) << python.versions();
    EXPECT_NE(python.versions().find("torchvision"), std::string::npos) << python.versions();
    for (const int torch_threads : {1, 0}) {  // a worker's one thread, the training process's default
      const LoaderInterpreter::Round round = python.run(10, torch_threads);
      // Whole batches of 4 (an epoch of 6 ends in a batch of 2): at least 10, less than a batch over.
      EXPECT_GE(round.samples, 10);
      EXPECT_LT(round.samples, 14);
      // A 320x240 JPEG's decode, crop, resize and tensor: more than the interpreter's own tens of
      // microseconds, less than 50 ms; its main thread's CPU time within the time it took.
      EXPECT_GT(round.seconds / round.samples, 100e-6);
      EXPECT_LT(round.seconds / round.samples, 50e-3);
      EXPECT_GT(round.cpu_seconds, 0);
      EXPECT_LE(round.cpu_seconds, round.seconds * 1.05);
    }
  }
}

// A file that is no image: the loader's own error, named, when the process starts (it loads a
// batch before it answers) or at the latest in a round.
TEST(LoaderInterpreter, AFileTheLoaderCannotReadIsNamed) {
  if (!debian_torchvision()) GTEST_SKIP() << "no /usr/bin/python3 with torch and torchvision";
  TemporaryFolder folder("pipecheck-interpreter-test-");
  const std::filesystem::path bad = folder.path() / "not-a-jpeg.jpg";
  std::ofstream(bad) << "not a JPEG";
  LoaderTransform transform;
  try {
    LoaderInterpreter python(kDebianPython, transform, 1, {bad});
    python.run(1, 1);
    FAIL() << "a file that is no image was loaded";
  } catch (const RunError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot identify image file"), std::string::npos) << error.what();
  }
  EXPECT_THROW(LoaderInterpreter(kDebianPython, transform, 1, {}), RunError);
}

TEST(LoaderInterpreter, APythonThatCannotRunTheLoaderIsNamed) {
  // A program that exits at once: no "ready" line; its stderr's last line is the reason.
  const std::filesystem::path fake = std::filesystem::temp_directory_path() / ("pipecheck-fake-python-" + std::to_string(getpid()));
  {
    std::ofstream out(fake);
    out << "#!/bin/sh\necho 'ModuleNotFoundError: No module named torch' >&2\nexit 1\n";
  }
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  LoaderTransform transform;
  try {
    LoaderInterpreter python(fake.string(), transform, 8, {fake}, 10);
    FAIL() << "a python without torch started";
  } catch (const RunError& error) {
    EXPECT_EQ(std::string(error.what()),
              fake.string() + ": the loader's interpreter did not start: ModuleNotFoundError: No module named torch");
  }
  std::filesystem::remove(fake);
}

// Each file's set goes to the python; each round says every set's samples and their seconds.
TEST(LoaderInterpreter, EachRoundSaysEachSetsSampleTimes) {
  if (!debian_torchvision()) GTEST_SKIP() << "no /usr/bin/python3 with torch and torchvision";
  TemporaryFolder folder("pipecheck-interpreter-test-");
  const auto files = write_jpegs(folder.path(), 6, 320, 240);
  LoaderTransform transform;
  transform.width = 64;
  transform.height = 48;
  LoaderInterpreter python(kDebianPython, transform, 6, files, 60,
                           {"baseline", "progressive", "baseline", "progressive", "baseline", "cmyk"});
  const LoaderInterpreter::Round round = python.run(12, 1);  // two epochs of the 6 files: every set met
  ASSERT_EQ(round.sets.size(), 3u);
  EXPECT_EQ(round.sets.at("baseline").count, round.samples / 2);
  EXPECT_EQ(round.sets.at("progressive").count, round.samples / 3);
  EXPECT_EQ(round.sets.at("cmyk").count, round.samples / 6);
  double in_sets = 0;
  for (const auto& [set, times] : round.sets) {
    EXPECT_GT(times.seconds, 0) << set;
    EXPECT_GE(times.squares * times.count, times.seconds * times.seconds * 0.999) << set;  // Cauchy-Schwarz
    in_sets += times.seconds;
  }
  EXPECT_LE(in_sets, round.seconds);  // __getitem__ is inside the round, the collate outside it
  EXPECT_GT(in_sets, round.seconds * 0.5);
  EXPECT_THROW(LoaderInterpreter(kDebianPython, transform, 1, files, 60, {"baseline"}), RunError);  // a set for every file
}

// An answer whose sets do not add up to its samples, or whose times are no numbers, is refused.
TEST(LoaderInterpreter, AnAnswerWhoseSetsDoNotAddUpIsRefused) {
  const std::filesystem::path fake = std::filesystem::temp_directory_path() / ("pipecheck-fake-python-" + std::to_string(getpid()));
  LoaderTransform transform;
  for (const std::string answer : {"0.1 0.05 4 baseline:3:0.05:0.001", "0.1 0.05 4 baseline:4:0.2:0.01",
                                   "0.1 0.05 4 baseline:4:x:0.01", "0.1 0.05 4 baseline:2:0.02:0.001 baseline:2:0.02:0.001",
                                   "0.1 0.05 4"}) {
    {
      std::ofstream out(fake);
      out << "#!/bin/sh\necho 'ready python3 3.11.2, torch 1, torchvision 1'\nread line\necho '" << answer << "'\nread line\n";
    }
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
    LoaderInterpreter python(fake.string(), transform, 4, {fake}, 10);
    try {
      python.run(4, 1);
      ADD_FAILURE() << "accepted: " << answer;
    } catch (const RunError& error) {
      EXPECT_NE(std::string(error.what()).find("answered '" + answer + "'"), std::string::npos) << error.what();
    }
  }
  // The same answer with its sets adding up is taken.
  {
    std::ofstream out(fake);
    out << "#!/bin/sh\necho 'ready python3 3.11.2, torch 1, torchvision 1'\nread line\n"
           "echo '0.1 0.05 4 baseline:3:0.06:0.0013 cmyk:1:0.02:0.0004'\nread line\n";
  }
  LoaderInterpreter python(fake.string(), transform, 4, {fake}, 10);
  const LoaderInterpreter::Round round = python.run(4, 1);
  EXPECT_EQ(round.sets.at("baseline").count, 3);
  EXPECT_DOUBLE_EQ(round.sets.at("cmyk").seconds, 0.02);
  std::filesystem::remove(fake);
}

}  // namespace
}  // namespace pipecheck
