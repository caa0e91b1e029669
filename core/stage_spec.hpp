// One stage of the pipeline, described once: what the driver runs for it, how its figures are
// held against a ceiling and judged, what to do when they fall short. The catalog, the driver,
// the report, the judge, the budget's order, the findings' titles and every renderer read these
// records through the registry (core/stage_registry); none keeps a table of its own.
//
// Adding a probe: its folder (the executable), its record in stages/<name>_stage.cpp, and one
// line in stages/builtin_stages.cpp (CONTRIBUTING.md walks through it).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/inventory.hpp"
#include "core/measurement.hpp"
#include "core/probe_flags.hpp"
#include "core/profile_key.hpp"

namespace pipecheck {

// What `pipecheck run` was given that a stage's probe may need on its command line.
struct StageRunInputs {
  std::vector<std::string> storage_paths;  // --path
  std::string images_dir;                  // --images
  std::string decode_size;                 // --decode-size
  std::optional<int> workers;              // --workload workers=N: the loader's parallelism
  std::string workload;                    // --workload as given: the loader's transform and batch
  std::filesystem::path scratch_dir;       // the --out folder that holds the run's folder
};

// ---- What the judge runs for one measurement (judge/judge.cpp applies the profile) ----------

enum class CheckKind {
  percent_min,  // percent_of_ceiling >= the key's minimum (with the warn margin)
  value_min,    // the figure itself >= the key's minimum (with the warn margin, relative)
  count_max,    // a count <= the key's maximum; no warn band
  policy,       // a fact that holds: the key's verdict
};

struct Check {
  CheckKind kind;
  std::string key;
  double value = 0;  // value_min and count_max: the figure; unused otherwise
  std::string unit;  // value_min: the figure's unit
  std::string fact;  // policy and count_max: the fact in words
};

// What a stage's rule says about one measurement: the checks, or why none applies.
struct StageChecks {
  std::vector<Check> checks;
  std::string not_judged;  // "single-thread figures are not judged" when checks is empty
};

// The same probe's measurements, indexed once a probe: a rule that searched them for every
// measurement made `report` quadratic (a 50 MB report.json took over a minute).
class Siblings {
 public:
  using Table = std::map<std::string, double>;
  using BuildTable = std::function<Table(const std::vector<Measurement>&)>;

  Siblings();  // none
  explicit Siblings(const std::vector<Measurement>& all);
  const std::vector<Measurement>& all() const { return *all_; }
  // The first measurement of that key, or nullptr.
  const Measurement* find(const std::string& key) const;
  // A table a rule builds once over all of them (under a name of its own), then reads.
  const Table& table(const std::string& name, const BuildTable& build) const;

 private:
  const std::vector<Measurement>* all_;
  std::map<std::string, const Measurement*> by_key_;
  mutable std::map<std::string, Table> tables_;
};

// What a stage's rules see besides the measurement.
struct StageContext {
  const Inventory& inventory;
  const Siblings& siblings;  // the same probe's measurements
};

using CeilingRule = std::function<CeilingResult(const Measurement&, const StageContext&)>;
// The bound the hardware cannot exceed; `full_speed` is the inventory with every PCIe link at its
// maximum (ceilings/physical_ceiling). nullopt: none is known, or none applies.
using PhysicalRule = std::function<std::optional<Ceiling>(const Measurement&, const Inventory& as_found,
                                                          const Inventory& full_speed)>;
using JudgeRule = std::function<StageChecks(const Measurement&, const StageContext&)>;
using ProbeArguments = std::function<std::vector<std::string>(const StageRunInputs&)>;
// The case names the probe would register on a machine of this inventory, for `run --plan`
// where the probe cannot list them itself (a GPU stage on a machine without a GPU).
using PlannedCases = std::function<std::vector<std::string>(const Inventory&, ProbeMode)>;

struct StageSpec {
  std::string name;         // its key in core/stage_names.hpp
  std::string title;        // "Storage reads"
  std::string description;  // one line for the catalog: what the probe measures and how

  // The probe `pipecheck run` starts; empty for a stage no probe measures (stress: `pipecheck
  // stress` writes its figures).
  std::string executable;            // "pipecheck-storage", beside the pipecheck binary
  bool probe_needs_cuda = false;     // not built without a CUDA toolkit
  ProbeArguments probe_arguments;    // what it needs from `run`'s flags; may be empty
  // The probe checks what its arguments name before anything runs
  // (`--pipecheck_check_inputs`): a bad --path or --images is refused before the first probe.
  bool probe_checks_inputs = false;
  // For `run --plan`: the cases from the inventory where the probe cannot list them (empty: it
  // always can), and whether the probe runs a fixed count whatever the stopping rule (ranks of
  // a collective must run the same cases in the same order).
  PlannedCases planned_cases;
  bool fixed_repetitions = false;

  bool runs_on_gpu = false;  // another process on a GPU can slow its figures
  CeilingRule ceiling;       // the ceiling a figure's percentage is taken against
  PhysicalRule physical;     // the bound above which a figure is invalid
  JudgeRule checks;          // which profile keys judge a figure

  // Its part of the default acceptance profile: the text (comments and `key = value` lines, as
  // `pipecheck profile --show` prints it) and each key's meaning.
  std::string profile_text;
  std::vector<ProfileKeySpec> profile_keys;

  // What to check when one of its figures is below its threshold.
  std::string advice;
  // The params its probe writes so the ceiling and the rules find what they need.
  std::string measurement_contract;
};

// What a record lacks ("no ceiling rule"), empty when complete. A registered stage must be.
std::vector<std::string> missing_parts(const StageSpec& spec);

}  // namespace pipecheck
