// The verdicts that need attention first, and what to do about each (see attention.hpp).
#include "render/attention.hpp"

#include <algorithm>
#include <map>

#include "render/render_support.hpp"
#include "render/summary_table.hpp"

namespace pipecheck {

namespace {

// What to do when a stage's figure is below its threshold: the checks a person accepting the
// machine runs next, in the order they usually find the cause.
const std::map<std::string, std::string>& stage_advice() {
  static const std::map<std::string, std::string> advice = {
      {"storage",
       "Check that the disk measured is the one the dataset lives on and that nothing else reads from it "
       "(iostat -x while the probe runs); for a network file system check its server and link. Stage the dataset "
       "on local NVMe, or pack it into fewer, larger files."},
      {"decode",
       "Check the CPU governor (performance), that nothing else runs on the cores and that the process is not "
       "limited to a few CPUs (cgroup quota, taskset); compare one thread with tjbench. Too slow for the "
       "workload: decode on the GPU (nvJPEG, DALI) or store images pre-resized."},
      {"hostmem",
       "Check that every memory channel is populated and the DIMMs run at their rated speed (pipecheck "
       "inventory as root lists them), and the BIOS memory and NUMA settings."},
      {"pcie",
       "Check the GPU's link width and speed while copies run (pipecheck inventory, nvidia-smi -q -d PCIE); "
       "reseat the card or its riser and check the BIOS PCIe settings. Copy from pinned memory on the GPU's "
       "NUMA node."},
      {"memory",
       "Check the GPU's memory clock, temperature and ECC counters under load (pipecheck stress); a GPU well "
       "below its identical peers is a candidate for replacement."},
      {"compute",
       "Check the GPU's SM clock, power limit and clock-event reasons under load (pipecheck stress, nvidia-smi "
       "-q -d PERFORMANCE) and compare it with the machine's other GPUs; a GPU well below its peers is a "
       "candidate for replacement."},
      {"comm",
       "Check the NVLink and NVSwitch state (nvidia-smi nvlink -s, nvidia-smi topo -m), the transport NCCL "
       "chose (NCCL_DEBUG=INFO) and, across nodes, the NICs NCCL may use (NCCL_IB_HCA, NCCL_SOCKET_IFNAME)."},
      {"stress",
       "Wrong results or slowdowns under a burn: check cooling, power delivery and the GPU's Xid and ECC "
       "errors; a GPU that computes wrong results must not train."},
  };
  return advice;
}

std::string subject_title(const Judgement& j, const Measurement* m) {
  const std::string what = m ? m->what : (j.what.empty() ? j.subject : j.what);
  return stage_title(j.stage) + ": " + what;
}

std::string figure_of(const Measurement& m) {
  std::string figure = measured_text(m);
  if (m.stats.samples > 1) {
    figure += " (" + format_figure(m.stats.min) + " - " + format_figure(m.stats.max) + " over " +
              std::to_string(m.stats.samples) + " repetitions)";
  }
  if (m.percent_of_ceiling) figure += ", " + percent_text(m) + " of " + ceiling_value_text(m);
  return figure;
}

}  // namespace

std::string advice_for(const Judgement& j) {
  if (j.probe_failed) {
    return "The probe crashed, hung or printed no valid output: read " + j.stage +
           ".log in the run folder and rerun the stage alone (pipecheck run --only " + j.stage + ").";
  }
  if (j.verdict == Verdict::invalid) {
    return "A figure above its physical ceiling is a measurement error, never a pass: the probe measured "
           "something its ceiling does not bound (a cache, a compressed path), or the ceiling's inputs (clocks, "
           "link, channels) are wrong. Check the ceiling's derivation against the inventory; if both are right, "
           "report it as a pipecheck bug.";
  }
  if (j.verdict == Verdict::inconclusive) {
    return "The noise measured around the probe could have produced this result: rerun on a quiet machine "
           "(nothing else running, performance governor) before judging it.";
  }
  const auto& advice = stage_advice();
  const auto it = advice.find(j.stage);
  if (it != advice.end()) return it->second;
  return "Rerun the stage alone (pipecheck run --only " + j.stage +
         ") to confirm it, then compare the figure with its ceiling's derivation.";
}

std::vector<AttentionItem> attention_items(const Report& report, const Judged& judged) {
  std::map<std::string, const Measurement*> measurements;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) measurements.emplace(m.key, &m);
  }
  std::vector<AttentionItem> items;
  for (const auto& j : judged.judgements) {
    if (!is_failure(j.verdict) && j.verdict != Verdict::inconclusive) continue;
    AttentionItem item;
    item.judgement = &j;
    const auto it = measurements.find(j.subject);
    item.measurement = it == measurements.end() ? nullptr : it->second;
    item.title = subject_title(j, item.measurement);
    if (item.measurement) item.figure = figure_of(*item.measurement);
    item.threshold = j.rule;
    // A finding that cites this subject says what it means in this machine's terms.
    for (const auto& finding : judged.findings) {
      if (std::find(finding.evidence.begin(), finding.evidence.end(), j.subject) != finding.evidence.end()) {
        item.finding = finding.text;
        break;
      }
    }
    item.what_to_do = advice_for(j);
    items.push_back(std::move(item));
  }
  std::stable_sort(items.begin(), items.end(), [](const AttentionItem& a, const AttentionItem& b) {
    return severity(a.judgement->verdict) > severity(b.judgement->verdict);
  });
  return items;
}

}  // namespace pipecheck
