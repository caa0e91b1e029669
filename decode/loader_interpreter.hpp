// The training job's own interpreter, per sample. A torchvision loader spends, beside the pixel
// work the decode probe replays, Python's time on every sample: ImageFolder's __getitem__, Pillow's
// Python side of open/load/convert/crop/resize, RandomResizedCrop's draws through torch, each
// transform's dispatch, collate. Measured on a 2-vCPU VM it was 0.35 ms of the 4.3 ms a small
// ImageNet-like sample cost, so a budget without it stood 1.3x above the real DataLoader.
// This runs the job's Python (the workload's python=, or python3 on PATH) on the same
// DataLoader and transform over 16x16 JPEGs, where pixel work is nearly nothing: what is left is
// the interpreter's share, which the budget adds to each sample.
#pragma once

#include <string>
#include <sys/types.h>

#include "core/temporary_folder.hpp"
#include "decode/loader_transform.hpp"

namespace pipecheck {

// The python to measure: `wanted` is a path, "auto" (python3 on PATH, when it imports torch and
// torchvision) or "none". Returns "" for none, or auto where no such python is; throws UsageError
// for a named path that is not an executable file.
std::string choose_loader_python(const std::string& wanted);

// One Python process running the loader over tiny JPEGs (its own temporary folder), asked for
// samples round by round; its main thread's CPU time is the interpreter's share.
class LoaderInterpreter {
 public:
  // Starts `python`; throws RunError naming it and its last line of stderr when it cannot import
  // torch and torchvision or does not answer within `timeout_seconds`.
  LoaderInterpreter(const std::string& python, const LoaderTransform& transform, int batch, double timeout_seconds = 60);
  ~LoaderInterpreter();
  LoaderInterpreter(const LoaderInterpreter&) = delete;
  LoaderInterpreter& operator=(const LoaderInterpreter&) = delete;

  // Runs at least `samples` samples (whole batches) through the loader: the main thread's CPU
  // seconds and the samples run. Throws RunError when the process dies or answers nonsense.
  struct Round {
    double cpu_seconds = 0;
    int samples = 0;
  };
  Round run(int samples);
  // "python3 3.11.2, torch 1.13.0a0, torchvision 0.14.1a0"
  const std::string& versions() const { return versions_; }
  const std::string& python() const { return python_; }

 private:
  std::string read_line(double timeout_seconds);
  void stop();  // closes its stdin, waits a second, then kills it
  std::string python_;
  TemporaryFolder folder_;
  pid_t child_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string pending_;  // bytes read past the last line
  std::string versions_;
  double timeout_seconds_;
};

}  // namespace pipecheck
