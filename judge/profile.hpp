// The acceptance profile: per-stage thresholds and policies that turn "% of ceiling" into a
// verdict. A small text file of `key = value` lines; the default ships in default_profile.cpp.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/profile_key.hpp"
#include "report/verdict.hpp"

namespace pipecheck {

// Every key a profile may set, in documentation order. The judge reads only these.
std::vector<ProfileKeySpec> profile_keys();

// One key's value after parsing, with where it came from (for the Judgement's rule text).
struct ProfileValue {
  std::optional<double> number;   // percent, count, number; empty when `off`
  std::optional<Verdict> policy;  // policy keys
  std::string text;               // the value as written ("70", "off", "fail")
  std::string origin;             // "default profile line 12", "my.txt line 3"
};

class Profile {
 public:
  // A percent, count or number; empty when the key is `off` or not set.
  std::optional<double> threshold(const std::string& key) const;
  // A policy key's verdict; `fallback` when not set.
  Verdict policy(const std::string& key, Verdict fallback = Verdict::fail) const;
  // Percentage points above a threshold still judged `warn` (see default_profile.cpp).
  double warn_margin_percent() const;
  // "compute.bf16_min_percent = 70" as the Judgement's rule; "" when the key is not set.
  std::string rule(const std::string& key) const;
  bool has(const std::string& key) const { return values.count(key) != 0; }

  std::map<std::string, ProfileValue> values;
  std::vector<std::string> sources;  // "default profile", then each file overlaid on it
};

// The shipped profile's text (judge/default_profile.cpp and each stage's part), every key
// documented beside it.
std::string default_profile_text();
// The shipped profile, parsed.
const Profile& default_profile();

// Parses `text` over `base`: each line sets one key, the rest stay as in `base` (overlay).
// `source` names the text in errors ("my.txt"). Throws UsageError naming the source, the line
// and the key: unknown keys (with the nearest known key suggested), bad values, duplicates.
Profile parse_profile(const std::string& text, const std::string& source, const Profile& base = {});
// `--profile FILE`: the default profile with FILE overlaid on it. Throws UsageError when the
// file cannot be read or does not parse.
Profile load_profile(const std::filesystem::path& path);

}  // namespace pipecheck
