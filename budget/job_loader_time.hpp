// The training job's own loader's time a sample, from the decode probe's interpreter cases
// (decode/loader_cases): each image set's mean time a sample in __getitem__ (load + transform),
// weighted by the dataset's files as the probe's own cases are. A round draws a few images; a
// large photo's round one or two, and one progressive photo in five costs half again as much: the
// median of the rounds' rates moved 10-15% with the draw, the weighted mean does not.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/measurement.hpp"

namespace pipecheck {

struct JobLoaderTime {
  double mean_seconds = 0;     // the sets' means weighted by the dataset's files
  double fastest_seconds = 0;  // the low end of the mean's 95% interval: the budget is an upper bound
  double other_seconds = 0;    // the DataLoader's own time a sample beyond __getitem__ (sampler, collate)
  int samples = 0;             // the samples behind the weighted sets
  std::string words;           // "baseline 4.61 ms x 89.3%, progressive 7.12 ms x 10%; 1,024 samples"
};

// From a measurement labelled job_ms_<set>, job_sd_ms_<set>, job_n_<set> (and job_other_ms) and
// the dataset's files by set (`files_by_set`, zero counts ignored). A set of the dataset the job's
// rounds never met is left out and said so. nullopt: no per-set times (reports written before
// they were kept) or no set of the dataset met.
std::optional<JobLoaderTime> job_loader_time(const Measurement& job, const std::map<std::string, int>& files_by_set);

}  // namespace pipecheck
