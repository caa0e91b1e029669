// The training job's interpreter as a real child process: Debian's python3 with torch and
// torchvision runs the loader over tiny JPEGs and answers with its CPU time (skipped where they
// are not installed, as on CI); a python that cannot run the script is named with its error; a
// path that is not a program is a usage error.
#include "decode/loader_interpreter.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

const char* kDebianPython = "/usr/bin/python3";

bool debian_torchvision() { return access(kDebianPython, X_OK) == 0 && choose_loader_python(kDebianPython) == kDebianPython &&
                                   std::system("/usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1") == 0; }

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
  LoaderTransform transform;
  std::filesystem::path folder;
  {
    LoaderInterpreter python(kDebianPython, transform, 8);
    EXPECT_EQ(python.versions().rfind("python3 3.", 0), 0u) << python.versions();
    EXPECT_NE(python.versions().find("torchvision"), std::string::npos) << python.versions();
    const LoaderInterpreter::Round round = python.run(20);
    EXPECT_EQ(round.samples, 24);  // whole batches of 8
    // Tens of microseconds to a few milliseconds a sample: Python's time, not pixel work.
    EXPECT_GT(round.cpu_seconds / round.samples, 10e-6);
    EXPECT_LT(round.cpu_seconds / round.samples, 20e-3);
    const LoaderInterpreter::Round again = python.run(8);
    EXPECT_EQ(again.samples, 8);
  }
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
    LoaderInterpreter python(fake.string(), transform, 8, 10);
    FAIL() << "a python without torch started";
  } catch (const RunError& error) {
    EXPECT_EQ(std::string(error.what()),
              fake.string() + ": the loader's interpreter did not start: ModuleNotFoundError: No module named torch");
  }
  std::filesystem::remove(fake);
}

}  // namespace
}  // namespace pipecheck
