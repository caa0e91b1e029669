// Ranking hosts by their history (see history_lemons.hpp).
#include "history/history_lemons.hpp"

#include <algorithm>
#include <map>

namespace pipecheck {

std::vector<LemonHost> rank_lemons(const std::vector<HistoryRun>& runs, const std::vector<Drift>& drifts) {
  std::map<std::string, LemonHost> hosts;
  // The worst evidence is kept by rank: a fault beats a failed verdict beats a drift.
  std::map<std::string, int> evidence_rank;
  auto offer = [&](const std::string& host, int rank, const std::string& text) {
    auto at = evidence_rank.find(host);
    if (at != evidence_rank.end() && at->second >= rank) return;
    evidence_rank[host] = rank;
    hosts[host].worst_evidence = text;
  };
  for (const auto& run : runs) {
    LemonHost& h = hosts[run.host];
    h.host = run.host;
    ++h.runs;
    if (run.overall == "fail" || run.overall == "invalid") {
      ++h.failed_runs;
      for (const auto& v : run.verdicts) {
        if (v.verdict == "fail" || v.verdict == "invalid") {
          offer(run.host, 3, run.started_utc + " " + run.command + ": " + v.subject + " " + v.verdict + ": " + v.explanation);
          break;
        }
      }
      offer(run.host, 3, run.started_utc + " " + run.command + ": overall " + run.overall);
    } else if (run.overall == "inconclusive") {
      ++h.inconclusive_runs;
      offer(run.host, 1, run.started_utc + " " + run.command + ": overall inconclusive");
    }
    for (const auto& f : run.faults) {
      ++h.faults;
      offer(run.host, 4, run.started_utc + " " + run.command + ": " + f.kind + ": " + f.detail);
    }
  }
  for (const auto& d : drifts) {
    LemonHost& h = hosts[d.host];
    h.host = d.host;
    if (d.kind == "link") {
      ++h.link_flaps;
      offer(d.host, 2, d.what + ": " + d.evidence);
    } else if (d.worse) {
      ++h.drifts;
      offer(d.host, 2, d.key + ": " + d.evidence);
    }
  }
  std::vector<LemonHost> ranked;
  for (auto& [name, h] : hosts) {
    const double raw = 3.0 * h.failed_runs + h.inconclusive_runs + 2.0 * (h.drifts + h.link_flaps) + 3.0 * h.faults;
    if (raw <= 0) continue;
    h.score = raw / std::max(1, h.runs);
    ranked.push_back(h);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const LemonHost& a, const LemonHost& b) { return a.score > b.score; });
  return ranked;
}

}  // namespace pipecheck
