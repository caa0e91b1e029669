// Loading runs to compare, and recording or checking results/baseline.json.
#include "compare/baseline.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <ostream>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/json_field_error.hpp"
#include "core/json_input.hpp"
#include "core/json_records.hpp"
#include "core/json_text.hpp"
#include "core/number_input.hpp"
#include "core/text_escape.hpp"
#include "render/compare_text.hpp"

namespace pipecheck {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json parse_json_file(const fs::path& path) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const RunError& error) {
    throw UsageError(escape_name(path.string()) + ": cannot read: " + error.what());
  }
  try {
    return parse_json(text);
  } catch (const json::exception& error) {
    throw UsageError(escape_name(path.string()) + ": not JSON (" + error.what() + ")");
  }
}

// A report of a newer schema than ours is parsed only when forced, read as if it were ours;
// the version it declared is kept so the mismatch still shows.
// "; pass --force to try anyway", or nothing when the command has no such flag.
std::string force_hint(const std::string& force_flag) {
  return force_flag.empty() ? "" : "; pass " + force_flag + " to try anyway";
}

// `prefix` names where the report sits in its file ("report" inside a baseline.json).
Report parse_report(const json& document, const fs::path& where, bool force, const std::string& force_flag,
                    const std::string& prefix = "") {
  if (!document.is_object() || !document.contains("schema") || document["schema"] != "pipecheck.report") {
    throw UsageError(escape_name(where.string()) + ": not a pipecheck report (no \"schema\": \"pipecheck.report\")");
  }
  const int version = read_fields(where, document, [](const json& d) { return schema_version_field(d, -1); }, prefix);
  json readable = document;
  if (version > kReportSchemaVersion) {
    if (!force) {
      throw UsageError(escape_name(where.string()) + ": report schema version " + std::to_string(version) +
                       " is newer than this pipecheck reads (" +
                       std::to_string(kReportSchemaVersion) + ")" + force_hint(force_flag));
    }
    readable["version"] = kReportSchemaVersion;
  }
  try {
    Report report = read_fields(where, readable, [](const json& d) { return report_from_json(d); }, prefix);
    report.version = version;
    return report;
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& error) {
    throw UsageError(escape_name(where.string()) + ": not a readable pipecheck report: " + error.what());
  }
}

std::string text_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

void sort_gpus(std::vector<GpuIdentity>& gpus) {
  std::sort(gpus.begin(), gpus.end(),
            [](const GpuIdentity& a, const GpuIdentity& b) { return a.pci_bdf < b.pci_bdf; });
}

// Tolerant on purpose: only the identity fields are read, whatever else the inventory holds.
RunIdentity identity_from_json(const json& document) {
  RunIdentity identity;
  if (!document.is_object()) return identity;
  identity.hostname = text_field(document, "hostname");
  const auto gpus = document.find("gpus");
  if (gpus == document.end() || !gpus->is_array()) return identity;
  identity.gpus_known = true;
  for (const auto& g : *gpus) {
    if (!g.is_object()) continue;
    const auto index = g.find("cuda_index");
    identity.gpus.push_back({index != g.end() && index->is_number_integer() ? index->get<int>() : -1,
                             text_field(g, "pci_bdf"), text_field(g, "uuid"), text_field(g, "name")});
  }
  sort_gpus(identity.gpus);
  return identity;
}

json identity_json(const RunIdentity& identity) {
  json gpus = json::array();
  for (const auto& g : identity.gpus) {
    gpus.push_back({{"cuda_index", g.cuda_index}, {"pci_bdf", g.pci_bdf}, {"uuid", g.uuid},
                    {"name", g.name}});
  }
  json document = {{"hostname", identity.hostname}};
  if (identity.gpus_known) document["gpus"] = gpus;
  return document;
}

// Only the identity is read, tolerantly; but an inventory of a newer schema is refused as a
// newer report is (core/outcome.hpp), unless forced.
RunIdentity identity_beside(const fs::path& report_path, const Report& report, bool force,
                            const std::string& force_flag) {
  const fs::path inventory_path = report_path.parent_path() / "inventory.json";
  RunIdentity identity;
  if (fs::exists(inventory_path)) {
    const json inventory = parse_json_file(inventory_path);
    const int version = read_fields(inventory_path, inventory,
                                    [](const json& d) { return d.is_object() ? schema_version_field(d, 0) : 0; });
    if (version > kInventorySchemaVersion && !force) {
      throw UsageError(escape_name(inventory_path.string()) + ": inventory schema version " + std::to_string(version) +
                       " is newer than this pipecheck reads (" + std::to_string(kInventorySchemaVersion) + ")" +
                       force_hint(force_flag));
    }
    identity = identity_from_json(inventory);
  }
  if (identity.hostname.empty()) identity.hostname = report.host;
  return identity;
}

LoadedRun load_baseline_document(const json& document, const fs::path& path, bool force,
                                 const std::string& force_flag) {
  const int version = read_fields(path, document, [](const json& d) { return schema_version_field(d, -1); });
  if (version > kBaselineSchemaVersion && !force) {
    throw UsageError(escape_name(path.string()) + ": baseline format version " + std::to_string(version) +
                     " is newer than this pipecheck reads (" +
                     std::to_string(kBaselineSchemaVersion) + ")" + force_hint(force_flag));
  }
  if (!document.contains("report")) throw UsageError(escape_name(path.string()) + ": baseline without a \"report\"");
  LoadedRun run;
  run.source = path;
  run.report_document = document["report"];
  run.report = parse_report(run.report_document, path, force, force_flag, "report");
  // The identity is what the GPU-set check compares: one that is there but damaged is refused,
  // never read as "GPU set unknown" (which would skip the check).
  read_fields(path, document, [](const json& d) {
    if (!d.contains("identity")) return 0;
    return in_field(d, "identity", [](const json& identity) {
      if (!identity.is_object()) throw FieldError("expected an object, found " + found_text(identity));
      if (identity.contains("gpus")) {
        for_each_element(identity, "gpus", [](const json& gpu) {
          if (!gpu.is_object()) throw FieldError("expected an object, found " + found_text(gpu));
        });
      }
      return 0;
    });
  });
  run.identity = identity_from_json(document.contains("identity") ? document["identity"] : json::object());
  if (run.identity.hostname.empty()) run.identity.hostname = run.report.host;
  return run;
}

fs::path report_path_of(const fs::path& path) {
  std::error_code error;
  if (!fs::exists(path, error)) throw UsageError(escape_name(path.string()) + ": no such file or folder");
  if (!fs::is_directory(path, error)) return path;
  const fs::path report = path / "report.json";
  if (!fs::exists(report, error)) {
    throw UsageError(escape_name(path.string()) + ": no report.json in this folder (not a pipecheck run folder)");
  }
  return report;
}

// "2x NVIDIA H100 (0000:17:00.0, 0000:2a:00.0)", one group per GPU name.
std::string describe_gpus(const std::vector<GpuIdentity>& gpus) {
  std::map<std::string, std::vector<std::string>> by_name;
  for (const auto& g : gpus) by_name[g.name.empty() ? "GPU" : g.name].push_back(g.pci_bdf);
  std::string text;
  for (const auto& [name, bdfs] : by_name) {
    std::string where;
    for (const auto& bdf : bdfs) where += (where.empty() ? "" : ", ") + bdf;
    text += (text.empty() ? "" : " + ") + std::to_string(bdfs.size()) + "x " + name + " (" + where + ")";
  }
  return text;
}

bool same_gpu(const GpuIdentity& a, const GpuIdentity& b) {
  const bool uuids_agree = a.uuid.empty() || b.uuid.empty() || a.uuid == b.uuid;
  return a.pci_bdf == b.pci_bdf && a.name == b.name && uuids_agree;
}

bool same_gpu_set(const RunIdentity& a, const RunIdentity& b) {
  if (!a.gpus_known || !b.gpus_known) return true;  // nothing to check against
  return std::equal(a.gpus.begin(), a.gpus.end(), b.gpus.begin(), b.gpus.end(), same_gpu);
}

// A GPU swapped in the same slot reads the same in describe(): name the uuids.
std::string swapped_gpu_detail(const RunIdentity& a, const RunIdentity& b) {
  for (const auto& old_gpu : a.gpus) {
    for (const auto& new_gpu : b.gpus) {
      if (old_gpu.pci_bdf == new_gpu.pci_bdf && !same_gpu(old_gpu, new_gpu)) {
        return "; GPU " + old_gpu.pci_bdf + " was " + old_gpu.uuid + ", now " + new_gpu.uuid;
      }
    }
  }
  return "";
}

}  // namespace

RunIdentity identity_of(const Inventory& inventory) {
  RunIdentity identity;
  identity.hostname = inventory.hostname;
  identity.gpus_known = true;
  for (const auto& g : inventory.gpus) identity.gpus.push_back({g.cuda_index, g.pci_bdf, g.uuid, g.name});
  sort_gpus(identity.gpus);
  return identity;
}

std::string describe(const RunIdentity& identity) {
  std::string text = "host '" + identity.hostname + "'";
  if (!identity.gpus_known) return text + " (GPUs not recorded)";
  if (identity.gpus.empty()) return text + " with no GPU";
  return text + " with " + describe_gpus(identity.gpus);
}

std::optional<std::string> identity_difference(const RunIdentity& baseline, const RunIdentity& current) {
  const bool hosts_known = !baseline.hostname.empty() && !current.hostname.empty();
  const bool same_host = !hosts_known || baseline.hostname == current.hostname;
  if (same_host && same_gpu_set(baseline, current)) return std::nullopt;
  std::string text = describe(baseline) + ", this run " + describe(current);
  if (describe(baseline) == describe(current)) text += swapped_gpu_detail(baseline, current);
  return text;
}

LoadedRun load_run(const fs::path& path, bool force, const std::string& force_flag) {
  const fs::path report_path = report_path_of(path);
  const json document = parse_json_file(report_path);
  if (document.is_object() && document.value("schema", "") == "pipecheck.baseline") {
    LoadedRun run = load_baseline_document(document, report_path, force, force_flag);
    run.source = path;
    return run;
  }
  LoadedRun run;
  run.source = path;
  run.report_document = document;
  run.report = parse_report(document, report_path, force, force_flag);
  run.identity = identity_beside(report_path, run.report, force, force_flag);
  const fs::path inventory_path = report_path.parent_path() / "inventory.json";
  if (fs::exists(inventory_path)) {
    try {
      run.inventory_document = parse_json_file(inventory_path);
    } catch (const std::exception&) {
      // Unreadable: the baseline is recorded without it, as before baselines held it.
    }
  }
  return run;
}

json baseline_document(const LoadedRun& run, const std::string& recorded_utc) {
  json document{{"schema", "pipecheck.baseline"},
              {"version", kBaselineSchemaVersion},
              {"recorded_utc", recorded_utc},
              {"source", run.source.string()},
              {"identity", identity_json(run.identity)},
              {"report", run.report_document}};
  if (run.inventory_document.is_object()) document["inventory"] = run.inventory_document;
  return document;
}

std::optional<std::string> baseline_mismatch(const LoadedRun& baseline, const LoadedRun& current,
                                             const fs::path& baseline_path) {
  // An older baseline is read as its version wrote it and compared; a newer one is not ours to read.
  if (baseline.report.version > current.report.version) {
    return "baseline " + escape_name(baseline_path.string()) + " holds report schema version " +
           std::to_string(baseline.report.version) + ", newer than this run's version " +
           std::to_string(current.report.version);
  }
  if (const auto difference = identity_difference(baseline.identity, current.identity)) {
    return "baseline " + escape_name(baseline_path.string()) + " is from " + *difference;
  }
  return std::nullopt;
}

Comparison compare_runs(const LoadedRun& baseline, const LoadedRun& current,
                        const CompareOptions& options) {
  Comparison comparison = compare_reports(baseline.report, current.report, options);
  comparison.baseline.source = escape_name(baseline.source.string());
  comparison.current.source = escape_name(current.source.string());
  return comparison;
}

namespace {

int record_baseline(const LoadedRun& run, const fs::path& baseline_path, std::ostream& out) {
  std::error_code error;
  if (baseline_path.has_parent_path()) fs::create_directories(baseline_path.parent_path(), error);
  if (error) throw RunError("create " + escape_name(baseline_path.parent_path().string()) + ": " + error.message());
  write_file_atomically(baseline_path, json_text(baseline_document(run, utc_now_iso())) + "\n");
  out << "baseline: recorded " << escape_name(baseline_path.string()) << " from " << escape_name(run.source.string())
      << " (" << describe(run.identity) << "); later runs are compared to it\n";
  return 0;
}

}  // namespace

void check_baseline_path(const fs::path& baseline_path, bool force) {
  const std::string shown = "--baseline " + escape_name(baseline_path.string());
  std::error_code error;
  const fs::file_status status = fs::status(baseline_path, error);
  if (fs::exists(status)) {
    if (fs::is_directory(status)) throw UsageError(shown + ": a folder, not a baseline file");
    try {
      load_run(baseline_path, force, "--force-baseline");
    } catch (const UsageError& refused) {
      throw UsageError(shown + ": " + refused.what());
    }
    return;
  }
  // It will be created: the nearest existing folder above it must let us create in it.
  fs::path folder = baseline_path.has_parent_path() ? baseline_path.parent_path() : fs::path(".");
  while (!fs::exists(fs::symlink_status(folder, error))) {
    // A relative path ends in the current folder: `results/baseline.json` on a fresh clone, where
    // `run` makes results/ (it was refused as "results is not a folder": make bench's first run).
    if (!folder.has_parent_path()) folder = folder.is_relative() ? fs::path(".") : folder;
    if (folder == "." || folder == folder.parent_path()) break;
    folder = folder.parent_path();
  }
  if (!fs::is_directory(folder, error)) {
    throw UsageError(shown + ": cannot be created: " + escape_name(folder.string()) + " is not a folder");
  }
  // Tried, not asked: access() lets root pass where creating fails (/proc, a read-only mount).
  std::string trial = (folder / ".pipecheck-baseline-XXXXXX").string();
  const int fd = mkstemp(trial.data());
  if (fd < 0) throw UsageError(errno_message(shown + ": cannot be created in", folder.string(), errno));
  close(fd);
  unlink(trial.c_str());
}

void check_baseline_machine(const fs::path& baseline_path, const RunIdentity& current, bool force) {
  if (force || !fs::exists(baseline_path)) return;
  const LoadedRun baseline = load_run(baseline_path, force, "--force-baseline");
  if (const auto difference = identity_difference(baseline.identity, current)) {
    throw UsageError("--baseline " + escape_name(baseline_path.string()) + " is from " + *difference +
                     "; delete it to record a new baseline, or pass --force-baseline to compare anyway");
  }
}

int record_or_compare_baseline(const fs::path& run_folder, const fs::path& baseline_path,
                               bool force, std::ostream& out, std::ostream& err,
                               const CompareOptions& options, const std::string& force_flag) {
  try {
    const LoadedRun current = load_run(run_folder);
    if (!fs::exists(baseline_path)) return record_baseline(current, baseline_path, out);
    const LoadedRun baseline = load_run(baseline_path, force, force_flag);
    const auto mismatch = baseline_mismatch(baseline, current, baseline_path);
    if (mismatch && !force) {
      err << "pipecheck: " << *mismatch
          << "; delete it to record a new baseline, or pass " << force_flag << " to compare anyway\n";
      return 2;
    }
    CompareOptions forced = options;
    forced.force = forced.force || force;
    Comparison comparison = compare_runs(baseline, current, forced);
    if (mismatch) comparison.notes.insert(comparison.notes.begin(), "forced: " + *mismatch);
    if (baseline.report.version < current.report.version) {
      comparison.notes.insert(comparison.notes.begin(),
                              "baseline " + escape_name(baseline_path.string()) + " holds report schema version " +
                                  std::to_string(baseline.report.version) + ", older than this run's " +
                                  std::to_string(current.report.version) + ": compared, fields added later read as absent");
    }
    out << render_comparison_text(comparison);
    return code(comparison.exit_code());
  } catch (const UsageError& error) {
    err << "pipecheck: baseline: " << error.what() << "\n";
    return 2;
  }
}

}  // namespace pipecheck
