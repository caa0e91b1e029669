// The registry of stages (see stage_registry.hpp).
#include "core/stage_registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace pipecheck {

namespace {

std::vector<StageSpec>& registry() {
  static std::vector<StageSpec> stages = [] {
    std::vector<StageSpec> builtin = builtin_stages();
    for (const StageSpec& spec : builtin) {
      const auto missing = missing_parts(spec);
      if (!missing.empty()) throw std::logic_error("stage " + spec.name + ": " + missing.front());
    }
    return builtin;
  }();
  return stages;
}

std::size_t generation = 1;

}  // namespace

std::size_t stage_registry_generation() { return generation; }

Siblings::Siblings() {
  static const std::vector<Measurement> none;
  all_ = &none;
}

Siblings::Siblings(const std::vector<Measurement>& all) : all_(&all) {
  for (const Measurement& m : all) by_key_.emplace(m.key, &m);  // the first of a key, as a search found
}

const Measurement* Siblings::find(const std::string& key) const {
  const auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : it->second;
}

const Siblings::Table& Siblings::table(const std::string& name, const BuildTable& build) const {
  auto it = tables_.find(name);
  if (it == tables_.end()) it = tables_.emplace(name, build(*all_)).first;
  return it->second;
}

std::vector<std::string> missing_parts(const StageSpec& spec) {
  std::vector<std::string> missing;
  const auto need = [&](bool present, const char* what) {
    if (!present) missing.push_back(what);
  };
  need(!spec.name.empty(), "no name");
  need(!spec.title.empty(), "no title");
  need(!spec.description.empty(), "no description");
  need(static_cast<bool>(spec.ceiling), "no ceiling rule");
  need(static_cast<bool>(spec.physical), "no physical ceiling rule");
  need(static_cast<bool>(spec.checks), "no judging rule");
  need(!spec.advice.empty(), "no advice");
  need(!spec.measurement_contract.empty(), "no measurement contract");
  need(spec.profile_text.empty() == spec.profile_keys.empty(), "profile text and keys disagree");
  for (const ProfileKeySpec& key : spec.profile_keys) {
    need(key.name.find('.') != std::string::npos, "a profile key without a prefix (\"stage.key\")");
    need(spec.profile_text.find("\n" + key.name + " = ") != std::string::npos ||
             spec.profile_text.rfind(key.name + " = ", 0) == 0,
         "a profile key missing from its profile text");
  }
  return missing;
}

const std::vector<StageSpec>& stage_registry() { return registry(); }

const StageSpec* find_stage(const std::string& name) {
  for (const StageSpec& spec : registry()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string stage_title(const std::string& name) {
  const StageSpec* spec = find_stage(name);
  return spec ? spec->title : name;
}

ScopedStage::ScopedStage(StageSpec spec) : name_(spec.name) {
  const auto missing = missing_parts(spec);
  if (!missing.empty()) throw std::invalid_argument("stage " + spec.name + ": " + missing.front());
  if (find_stage(spec.name)) throw std::invalid_argument("stage " + spec.name + " is registered already");
  registry().push_back(std::move(spec));
  ++generation;
}

ScopedStage::~ScopedStage() {
  auto& stages = registry();
  stages.erase(std::remove_if(stages.begin(), stages.end(), [&](const StageSpec& s) { return s.name == name_; }),
               stages.end());
  ++generation;
}

}  // namespace pipecheck
