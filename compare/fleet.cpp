// Fleet comparison: loading many hosts' runs, grouping their measurements and naming outliers.
// The fleet median (not the mean) is the reference, so one slow host cannot drag it down and
// hide itself; an outlier is a figure worse than it by more than the tolerance.
#include "compare/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <tuple>

#include "core/errors.hpp"
#include "core/json_records.hpp"
#include "compare/compare.hpp"

namespace pipecheck {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool is_run_input(const fs::path& path) {
  return !fs::is_directory(path) || fs::exists(path / "report.json");
}

bool is_incomplete(const fs::path& folder) {
  return folder.filename().string().ends_with(".incomplete");
}

// Run folders under a folder of runs, two levels deep at most (fleet/<host>/<run>/).
std::vector<fs::path> run_folders_under(const fs::path& folder, int depth,
                                        std::vector<std::string>& notes) {
  std::vector<fs::path> found;
  std::vector<fs::path> children;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.is_directory()) children.push_back(entry.path());
  }
  std::sort(children.begin(), children.end());
  for (const auto& child : children) {
    if (is_incomplete(child)) {
      notes.push_back("skipped " + child.string() + ": an unfinished run");
    } else if (fs::exists(child / "report.json")) {
      found.push_back(child);
    } else if (depth > 1) {
      const auto deeper = run_folders_under(child, depth - 1, notes);
      found.insert(found.end(), deeper.begin(), deeper.end());
    }
  }
  return found;
}

std::vector<fs::path> expand_inputs(const std::vector<fs::path>& inputs, std::vector<std::string>& notes) {
  std::vector<fs::path> runs;
  for (const auto& input : inputs) {
    if (!fs::exists(input)) throw UsageError(input.string() + ": no such file or folder");
    if (is_run_input(input)) {
      runs.push_back(input);
      continue;
    }
    const auto found = run_folders_under(input, 2, notes);
    if (found.empty()) throw UsageError(input.string() + ": no run folders (with report.json) in it");
    runs.insert(runs.end(), found.begin(), found.end());
  }
  return runs;
}

// The latest run of each host; earlier ones are named in a note.
std::vector<LoadedRun> latest_per_host(std::vector<LoadedRun> runs, std::vector<std::string>& notes) {
  std::map<std::string, LoadedRun> latest;
  for (auto& run : runs) {
    const std::string host = run.identity.hostname;
    auto it = latest.find(host);
    if (it == latest.end()) {
      latest.emplace(host, std::move(run));
      continue;
    }
    const bool newer = run.report.started_utc > it->second.report.started_utc;
    LoadedRun& dropped = newer ? it->second : run;
    notes.push_back("host " + host + ": using its latest run, not " + dropped.source.string());
    if (newer) it->second = std::move(run);
  }
  std::vector<LoadedRun> kept;
  for (auto& [host, run] : latest) kept.push_back(std::move(run));
  return kept;
}

// Older versions are read as they were written (core/outcome.hpp), so a mix is compared with a
// note; a version newer than ours was already refused when the run was read, unless forced.
void check_versions(const std::vector<LoadedRun>& runs, std::vector<std::string>& notes) {
  for (const auto& run : runs) {
    if (run.report.version == runs.front().report.version) continue;
    notes.push_back("fleet mixes report schema versions: " + runs.front().source.string() + " (version " +
                    std::to_string(runs.front().report.version) + ") and " + run.source.string() +
                    " (version " + std::to_string(run.report.version) + "); fields added later read as absent");
    return;
  }
}

// The GPU a measurement ran on, by bus id where the probe said it, else by CUDA index through
// the inventory (STYLE 12: join by bus id, not loop index).
struct GpuRef {
  std::string id;
  std::string name;
};

std::string param(const Measurement& m, const char* name) {
  const auto it = m.params.find(name);
  return it == m.params.end() ? "" : it->second;
}

std::optional<GpuRef> gpu_of(const Measurement& m, const RunIdentity& identity) {
  const std::string bdf = param(m, "gpu_bdf");
  const std::string index_text = param(m, "gpu");
  if (bdf.empty() && index_text.empty()) return std::nullopt;
  for (const auto& g : identity.gpus) {
    if (!bdf.empty() && g.pci_bdf == bdf) return GpuRef{bdf, g.name};
  }
  if (!bdf.empty()) return GpuRef{bdf, ""};
  const std::string digits = index_text.starts_with("gpu") ? index_text.substr(3) : index_text;
  const int index = std::atoi(digits.c_str());
  for (const auto& g : identity.gpus) {
    if (g.cuda_index == index && !g.pci_bdf.empty()) return GpuRef{g.pci_bdf, g.name};
  }
  return GpuRef{"gpu " + digits, ""};
}

bool is_gpu_part(const std::string& part) {
  if (part.starts_with("gpu_bdf:") || part.starts_with("gpu:")) return true;
  if (!part.starts_with("gpu") || part.size() == 3) return false;
  return std::all_of(part.begin() + 3, part.end(), [](char c) { return c >= '0' && c <= '9'; });
}

struct GroupKey {
  std::string group;
  std::string unit;
  bool operator<(const GroupKey& other) const {
    return std::tie(group, unit) < std::tie(other.group, other.unit);
  }
};

void add_run(std::map<GroupKey, FleetGroup>& groups, const LoadedRun& run) {
  for (const auto& probe : run.report.probes) {
    for (const auto& m : probe.measurements) {
      const auto gpu = gpu_of(m, run.identity);
      std::string group = gpu ? strip_gpu_part(m.key) : m.key;
      if (gpu && !gpu->name.empty()) group += " [" + gpu->name + "]";
      FleetGroup& g = groups[{group, m.unit}];
      if (g.samples.empty()) g = FleetGroup{group, m.what, m.unit, higher_is_better(m.unit), false, 0, {}};
      g.samples.push_back({run.identity.hostname, gpu ? gpu->id : "", gpu ? gpu->name : "", m.key,
                           m.stats, 0, false});
    }
  }
}

void judge_group(FleetGroup& group, const FleetOptions& options) {
  std::sort(group.samples.begin(), group.samples.end(), [](const FleetSample& a, const FleetSample& b) {
    return std::tie(a.host, a.gpu) < std::tie(b.host, b.gpu);
  });
  std::vector<double> medians;
  for (const auto& s : group.samples) medians.push_back(s.stats.median);
  group.fleet_median = summarize(medians).median;
  group.judged = static_cast<int>(medians.size()) >= options.min_samples && group.fleet_median != 0;
  if (!group.judged) return;
  for (auto& s : group.samples) {
    s.deviation_percent = 100.0 * (s.stats.median - group.fleet_median) / std::fabs(group.fleet_median);
    const double worse_by = group.higher_is_better ? -s.deviation_percent : s.deviation_percent;
    s.outlier = worse_by > options.tolerance_percent;
  }
}

// Worse = further in the bad direction: lower for rates, higher for times.
double badness(const FleetGroup& group, const FleetSample& sample) {
  return group.higher_is_better ? -sample.deviation_percent : sample.deviation_percent;
}

void collect_outliers(FleetResult& result) {
  std::map<std::pair<std::string, std::string>, FleetOutlier> by_subject;
  std::map<std::pair<std::string, std::string>, double> worst;
  for (const auto& group : result.groups) {
    for (const auto& s : group.samples) {
      if (!s.outlier) continue;
      const auto subject = std::make_pair(s.host, s.gpu);
      FleetOutlier& o = by_subject[subject];
      o.host = s.host;
      o.gpu = s.gpu;
      o.gpu_name = s.gpu_name;
      ++o.outlier_count;
      if (!worst.count(subject) || badness(group, s) > worst[subject]) {
        worst[subject] = badness(group, s);
        o.worst_deviation_percent = s.deviation_percent;
        o.worst_key = s.key;
      }
    }
  }
  for (auto& [subject, outlier] : by_subject) {
    (subject.second.empty() ? result.outlier_hosts : result.outlier_gpus).push_back(outlier);
  }
}

}  // namespace

std::string strip_gpu_part(const std::string& key) {
  std::string stripped;
  std::size_t start = 0;
  while (start <= key.size()) {
    std::size_t end = key.find('/', start);
    if (end == std::string::npos) end = key.size();
    const std::string part = key.substr(start, end - start);
    if (!is_gpu_part(part)) stripped += (stripped.empty() ? "" : "/") + part;
    start = end + 1;
  }
  return stripped;
}

std::vector<LoadedRun> load_fleet(const std::vector<fs::path>& inputs, bool force,
                                  std::vector<std::string>& notes) {
  std::vector<LoadedRun> runs;
  for (const auto& path : expand_inputs(inputs, notes)) runs.push_back(load_run(path, force));
  runs = latest_per_host(std::move(runs), notes);
  if (runs.size() < 2) {
    throw UsageError("a fleet needs runs from at least 2 hosts; found only host '" +
                     runs.front().identity.hostname + "' in " + runs.front().source.string());
  }
  check_versions(runs, notes);
  return runs;
}

FleetResult analyze_fleet(const std::vector<LoadedRun>& runs, const FleetOptions& options) {
  FleetResult result;
  result.options = options;
  std::map<GroupKey, FleetGroup> groups;
  for (const auto& run : runs) {
    result.runs.push_back({run.identity.hostname, run.source.string(), run.report.started_utc});
    add_run(groups, run);
  }
  std::sort(result.runs.begin(), result.runs.end(),
            [](const FleetRun& a, const FleetRun& b) { return a.host < b.host; });
  for (auto& [key, group] : groups) {
    judge_group(group, options);
    if (!group.judged) {
      result.notes.push_back(group.group + ": only " + std::to_string(group.samples.size()) +
                             " figure(s) in the fleet, not judged");
    }
    result.groups.push_back(std::move(group));
  }
  collect_outliers(result);
  return result;
}

namespace {

json sample_json(const FleetSample& s) {
  return json{{"host", s.host},     {"gpu", s.gpu},       {"gpu_name", s.gpu_name},
              {"key", s.key},       {"stats", s.stats},   {"deviation_percent", s.deviation_percent},
              {"outlier", s.outlier}};
}

json outlier_json(const FleetOutlier& o) {
  return json{{"host", o.host},
              {"gpu", o.gpu},
              {"gpu_name", o.gpu_name},
              {"outlier_count", o.outlier_count},
              {"worst_deviation_percent", o.worst_deviation_percent},
              {"worst_key", o.worst_key}};
}

json group_json(const FleetGroup& g) {
  json samples = json::array();
  for (const auto& s : g.samples) samples.push_back(sample_json(s));
  return json{{"group", g.group},
              {"what", g.what},
              {"unit", g.unit},
              {"higher_is_better", g.higher_is_better},
              {"judged", g.judged},
              {"fleet_median", g.fleet_median},
              {"samples", samples}};
}

}  // namespace

json fleet_to_json(const FleetResult& result) {
  json runs = json::array();
  for (const auto& r : result.runs) {
    runs.push_back({{"host", r.host}, {"source", r.source}, {"started_utc", r.started_utc}});
  }
  json groups = json::array();
  for (const auto& g : result.groups) groups.push_back(group_json(g));
  json hosts = json::array();
  for (const auto& o : result.outlier_hosts) hosts.push_back(outlier_json(o));
  json gpus = json::array();
  for (const auto& o : result.outlier_gpus) gpus.push_back(outlier_json(o));
  return json{{"schema", "pipecheck.fleet"},
              {"version", 1},
              {"tolerance_percent", result.options.tolerance_percent},
              {"runs", runs},
              {"outlier_hosts", hosts},
              {"outlier_gpus", gpus},
              {"notes", result.notes},
              {"groups", groups}};
}

}  // namespace pipecheck
