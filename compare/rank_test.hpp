// The statistics `compare` decides with: a two-sided Mann-Whitney U test on the kept
// repetitions of two runs (exact for small samples, ties by midranks), and Benjamini-Hochberg's
// control of the false-discovery rate across all the cases of one comparison.
#pragma once

#include <vector>

namespace pipecheck {

struct RankTestResult {
  double u = 0;        // min(U_a, U_b): 0 when every repetition of one run beats every one of the other
  double p_value = 1;  // two-sided
  bool exact = false;  // the exact permutation distribution, not the normal approximation
};

// Exact (every way n_a of the n_a + n_b pooled values could have fallen to the first run, ties
// as midranks) up to 60 values in all, else the normal approximation with tie and continuity
// corrections. p = 1 when either side is empty.
RankTestResult mann_whitney(const std::vector<double>& a, const std::vector<double>& b);

// The smallest two-sided p-value n_a vs n_b repetitions can give: 2 / C(n_a + n_b, n_a)
// (0.1 for 3 vs 3, 0.0079 for 5 vs 5); 1 when either is 0.
double smallest_p_value(int n_a, int n_b);

// Benjamini-Hochberg adjusted p-values (q-values), in the order given: a case is a discovery at
// false-discovery rate Q when its q <= Q.
std::vector<double> benjamini_hochberg(const std::vector<double>& p_values);

}  // namespace pipecheck
