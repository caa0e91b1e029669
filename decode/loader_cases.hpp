// The decode probe's cases of a loader's processes beside its per-sample path: the hand-over of
// each batch from a worker process to the training process, and the training job's own loader
// over the probe's images in the job's python (decode/loader_interpreter.hpp).
#pragma once

#include <map>
#include <string>

#include "decode/jpeg_corpus.hpp"
#include "decode/loader_transform.hpp"

namespace pipecheck {

struct LoaderCaseConfig {
  LoaderTransform transform;  // train size, crop, tensor: the loader's path
  int batch = 32;             // samples a batch hands over
  std::map<std::string, std::string> corpus_label;  // corpus facts repeated in every label
  // The training budget reads these cases (`run --workload`, probe flag --budget yes): each is
  // held to the noise target, not stopped with the verdicts it is the reference of.
  bool feeds_budget = false;
  const JpegCorpus* corpus = nullptr;  // the probe's images: the job's loader reads them too
};

// Register the cases with Google Benchmark; `config` must outlive them (read when they run).
void register_handover_case(const LoaderCaseConfig& config);
void register_interpreter_case(const LoaderCaseConfig& config, const std::string& python);
// Ends the interpreter case's python, if one started: before main returns.
void release_interpreter_case();

}  // namespace pipecheck
