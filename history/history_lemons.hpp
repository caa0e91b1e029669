// Lemon nodes: over a fleet's history, the hosts ranked by what went wrong on them (runs that
// failed or were inconclusive, drifts, flapping links, faults: crashes, hangs, Xid, ECC), each
// with its worst piece of evidence.
#pragma once

#include <string>
#include <vector>

#include "history/history_drift.hpp"
#include "history/history_record.hpp"

namespace pipecheck {

struct LemonHost {
  std::string host;
  int runs = 0;
  int failed_runs = 0;        // overall fail or invalid
  int inconclusive_runs = 0;
  int drifts = 0;             // steps and slides that made it worse
  int link_flaps = 0;
  int faults = 0;
  double score = 0;           // 3 x failed + inconclusive + 2 x (drifts + link flaps) + 3 x faults, per run seen
  std::string worst_evidence;
};

// Every host with anything against it, worst first; hosts with a clean history are left out.
std::vector<LemonHost> rank_lemons(const std::vector<HistoryRun>& runs, const std::vector<Drift>& drifts);

}  // namespace pipecheck
