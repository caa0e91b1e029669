// Thread scaling measured fairly: when a case's 1-thread and N-thread repetitions ran
// interleaved round by round (core/repetition_rounds), the efficiency is taken pair by pair,
// rate_N[i] / (N x rate_1[i]) for each round i, so drift over the run (another process starting,
// a clock ramping) falls on both sides of each pair and cancels; the median of the pairs is the
// figure, and their interval its spread.
#pragma once

#include <optional>
#include <vector>

#include "core/measurement.hpp"

namespace pipecheck {

// The pair-by-pair efficiencies (ratios, 1 = linear), or empty when the two cases were not run
// interleaved, have different repetition counts, or fewer than 2 pairs.
std::vector<double> pair_efficiencies(const Measurement& one_thread, const Measurement& n_threads, int threads);

// Sets percent_of_ceiling, percent_low and percent_high of every measurement: from the median
// and its interval against the ceiling, and for a thread-scaling figure (ceiling basis "linear
// scaling") from its pairs with the 1-thread case when there are pairs, saying so in the
// ceiling's derivation.
void attach_percentages(std::vector<Measurement>& measurements);

}  // namespace pipecheck
