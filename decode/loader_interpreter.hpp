// The training job's own loader, run by the job's own Python. The decode probe replays a torchvision
// loader's per-sample path in C++ (decode/loader_transform.hpp), which tells what that path
// attains; the job runs Pillow's and torch's builds of it, with Python's time on every sample
// (ImageFolder's __getitem__, RandomResizedCrop's draws through torch, each transform's dispatch,
// collate). On a 2-vCPU VM the probe's path plus the interpreter's own time on 16x16 JPEGs came
// to 3.7 ms of the 5.3 ms a small ImageNet-like sample cost the real DataLoader: Pillow's
// resample ran 22% slower than the probe's (the same arithmetic, another build), torch's tensor
// passes and collate another 0.3 ms. So the budget reads the job's loader itself: the job's
// python (the workload's python=, or python3 on PATH) runs DataLoader(num_workers=0) with the
// workload's transform over the probe's own images, and its time a sample is what one loader
// costs the job: with torch's default threads as the training process runs it (workers=0), with
// one as a DataLoader worker sets (at 224x224 the default threads took 10% less on 2 vCPUs).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/temporary_folder.hpp"
#include "decode/loader_transform.hpp"

namespace pipecheck {

// The python to measure: `wanted` is a path, "auto" (python3 on PATH, when it imports torch and
// torchvision) or "none". Returns "" for none, or auto where no such python is; throws UsageError
// for a named path that is not an executable file.
std::string choose_loader_python(const std::string& wanted);

// One Python process running the job's loader over `files`, asked for samples round by round; its
// time a sample is one loader's.
class LoaderInterpreter {
 public:
  // Starts `python` on the JPEG `files` (read in a shuffled order, batches of `batch`); throws
  // RunError naming it and its last line of stderr when it cannot import torch and torchvision,
  // load the files or does not answer within `timeout_seconds`.
  // `sets` names each file's image set ("baseline", "progressive", "cmyk"); empty: all "all".
  LoaderInterpreter(const std::string& python, const LoaderTransform& transform, int batch,
                    const std::vector<std::filesystem::path>& files, double timeout_seconds = 60,
                    const std::vector<std::string>& sets = {});
  ~LoaderInterpreter();
  LoaderInterpreter(const LoaderInterpreter&) = delete;
  LoaderInterpreter& operator=(const LoaderInterpreter&) = delete;

  // One set's samples in a round: how many, and the sum and sum of squares of their seconds in
  // __getitem__ (load + transform; the DataLoader's sampler and collate are outside them).
  struct SampleTimes {
    int count = 0;
    double seconds = 0;
    double squares = 0;
  };
  // Runs at least `samples` samples (whole batches) through the loader with `torch_threads` torch
  // threads (0: torch's default): the seconds they took, the main thread's CPU seconds, the
  // samples run and each set's sample times. Throws RunError when the process dies or answers
  // nonsense (sets whose counts do not add up to the samples included).
  struct Round {
    double seconds = 0;
    double cpu_seconds = 0;
    int samples = 0;
    std::map<std::string, SampleTimes> sets;
  };
  Round run(int samples, int torch_threads);
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
