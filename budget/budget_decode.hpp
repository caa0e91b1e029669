// The decode stage of the pipeline budget: what the loader's decode + resize delivers for the
// dataset's own mix of baseline, progressive and CMYK JPEGs, at the loader's parallelism.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "report/verdict.hpp"
#include "budget/workload.hpp"

namespace pipecheck {

// Each set's rate weighted by its share of the dataset's files: the time per image is the
// count-weighted mean of each set's time per image, so rate = 1 / sum(share_s / rate_s).
struct DecodeMix {
  std::optional<double> plain;  // whole decode + resize (Pillow, torchvision): the bound
  std::optional<double> dct;    // DCT-scaled decode + resize (Pillow draft, DALI, OpenCV
                                // IMREAD_REDUCED): achievable, shown beside
  int threads = 0;              // the thread count both are taken at
  std::string derivation;
};

// `decode` are the decode stage's measurements (images/s, labelled op, set, threads and the
// corpus counts baseline / progressive / cmyk).
DecodeMix decode_mix(const std::vector<const Measurement*>& decode, const Workload& workload);

// The budget's decode stage: the plain figure, the DCT figure in its derivation.
BudgetStage decode_stage_of(const std::vector<const Measurement*>& decode, const Workload& workload);

}  // namespace pipecheck
