// The device side of the data check: fill a send buffer with a rank's inputs, count the
// received elements that differ from what the collective must produce. Asynchronous on the
// caller's stream and device; launch errors come back through cudaGetLastError.
#pragma once

#include <cstdint>

#include "comm/comm_model.hpp"

namespace pipecheck {

// send[i] = comm_input(rank, i, comm_modulus(ranks)) for i < count, as `dtype`.
void launch_fill_inputs(CommDtype dtype, void* send, std::uint64_t count, int rank, int ranks, void* stream);

// Adds to counters[0] (device memory) the receive elements of `rank` that comm_element_wrong()
// calls wrong against comm_expected(...) (a NaN, the poison left by a collective that never
// wrote, is wrong), and lowers counters[1] to the lowest wrong index (start it at ~0).
void launch_count_wrong(CommDtype dtype, Collective collective, const void* recv, const CollectiveCounts& counts,
                        int rank, int ranks, unsigned long long* counters, void* stream);

}  // namespace pipecheck
