// The flags of pipecheck-comm: nccl-tests' own names (long --minbytes ..., and the short -b -e
// -f -i -n -w -c -d -o -g -T, rewritten to the long ones), validated into CommOptions.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "comm/comm_model.hpp"
#include "comm/comm_sweep.hpp"
#include "core/probe_main.hpp"

namespace pipecheck {

struct CommOptions {
  SizeSweep sweep;
  bool sweep_given = false;                // a size flag was given: no mode default
  std::vector<Collective> collectives;     // in the order of collectives()
  std::vector<CommDtype> dtypes;           // in the order of comm_dtypes()
  int iters = 20;                          // collectives per timed sample (nccl-tests -n)
  int warmup_iters = 5;                    // untimed collectives before each size (-w)
  bool check = true;                       // data check after each size (-c)
  int timeout_seconds = 300;               // a wait that long without the GPUs finishing aborts the
                                           // communicators (-T, as nccl-tests; 0: wait forever)
  std::optional<int> ngpus;                // -g / --ngpus: the first N GPUs (single process)
};

// The flags run_probe_main hands to the probe (--NAME VALUE or --NAME=VALUE), each value
// checked on its own there and listed by --help: minbytes, maxbytes, stepfactor, stepbytes,
// iters, warmup_iters, check, timeout, datatype, collectives, op, ngpus, gpus.
const std::vector<ProbeFlag>& comm_own_flags();

// "-b 8 -e 1G -f 2" -> "--minbytes 8 --maxbytes 1G --stepfactor 2", "-b8" too; every other
// argument as it is. An unknown single-dash letter is left for Google Benchmark to reject.
std::vector<std::string> expand_short_flags(const std::vector<std::string>& args);

// The options from the flags and the mode's defaults. Throws UsageError naming the flag and
// its text: a bad size or number, an unknown collective or dtype, an op other than sum,
// --ngpus with --gpus, a sweep nccl-tests would refuse.
CommOptions parse_comm_options(const ProbeOptions& options);

}  // namespace pipecheck
