// What a reader must see first: every verdict that failed the run or has to be rerun (invalid,
// fail, inconclusive), worst first, each with its figure, its threshold and what to do. The
// HTML report opens with it ("Why this failed") and the Markdown report carries it too.
#pragma once

#include <string>
#include <vector>

#include "report/report.hpp"

namespace pipecheck {

struct AttentionItem {
  const Judgement* judgement = nullptr;
  const Measurement* measurement = nullptr;  // null for probe outcomes and inventory facts
  std::string title;       // "GPU compute (GEMM): BF16 GEMM, GPU 5"
  std::string figure;      // "655 TFLOP/s (650 - 660, n=5), 66.2% of 989 TFLOP/s"; "" for non-measurements
  std::string threshold;   // the profile line that decided: "compute.bf16_min_percent = 70"
  std::string finding;     // the text of a finding that cites it (what it means here), or ""
  std::string what_to_do;  // the advice for its stage and verdict
};

// Invalid first, then fail, then inconclusive; in the judge's order within each.
std::vector<AttentionItem> attention_items(const Report& report, const Judged& judged);

// What to do about one verdict of invalid, fail or inconclusive, by its kind and stage.
std::string advice_for(const Judgement& judgement);

}  // namespace pipecheck
