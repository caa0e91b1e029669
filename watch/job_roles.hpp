// The roles in a job, from one sample of its process tree: which process runs the training loop
// and which are its loader's workers, by the tree's shape and what the threads do, never by a
// process's name (a multiprocessing pool of any program has the same roles as PyTorch's
// DataLoader).
#pragma once

#include <vector>

#include "watch/watch_sample.hpp"

namespace pipecheck {

// The training process is a process of the tree with a child that has no children of its own
// (a worker), whose main thread is not a launcher waiting for its child to end (S in
// wait4/waitid or a signal wait most of its time off a CPU); its workers are all its children. Of several, the
// one that with its workers used the most CPU. `saturated_pct`: a worker whose busiest thread's
// demand reaches this share of a core is saturated.
RolesWatch job_roles(const std::vector<ProcWatch>& procs, double saturated_pct);

}  // namespace pipecheck
