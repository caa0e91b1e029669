// Reading an acceptance profile: `key = value` lines over a base profile, with errors that name
// the file, the line and the key, and suggest the key that was probably meant.
#include "judge/profile.hpp"

#include "core/stage_registry.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/nearest_name.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

namespace {

std::string trim_text(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  const auto end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

std::optional<ProfileKeySpec> find_key(const std::string& name) {
  for (const auto& spec : profile_keys()) {
    if (spec.name == name) return spec;
  }
  return std::nullopt;
}

// The nearest known key, when it is near enough to be what was meant.
std::string suggestion_for(const std::string& key) {
  std::vector<std::string> names;
  for (const auto& spec : profile_keys()) names.push_back(spec.name);
  return nearest_name(key, names);
}

// A figure: digits with an optional fraction and an optional trailing '%'.
std::optional<double> parse_figure(std::string text, bool allow_percent_sign) {
  if (allow_percent_sign && !text.empty() && text.back() == '%') text = trim_text(text.substr(0, text.size() - 1));
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// The value of one line; empty, with `expected` saying what a valid one looks like.
std::optional<ProfileValue> parse_value(const ProfileKeySpec& spec, const std::string& text, std::string& expected) {
  ProfileValue value;
  value.text = text;
  const bool off_allowed = spec.name != "warn_margin_percent";
  if (text == "off" && off_allowed) return value;
  const std::string or_off = off_allowed ? ", or off" : "";
  switch (spec.kind) {
    case ProfileValueKind::percent: {
      const auto figure = parse_figure(text, true);
      if (figure && *figure <= 100) {
        value.number = *figure;
        return value;
      }
      expected = "a percent from 0 to 100" + or_off;
      break;
    }
    case ProfileValueKind::count: {
      const auto figure = parse_figure(text, false);
      if (figure && std::floor(*figure) == *figure) {
        value.number = *figure;
        return value;
      }
      expected = "a whole number, 0 or more" + or_off;
      break;
    }
    case ProfileValueKind::number: {
      const auto figure = parse_figure(text, false);
      if (figure) {
        value.number = *figure;
        return value;
      }
      expected = "a number, 0 or more" + or_off;
      break;
    }
    case ProfileValueKind::policy: {
      const auto verdict = parse_verdict(text);
      if (verdict == Verdict::fail || verdict == Verdict::warn || verdict == Verdict::info) {
        value.policy = verdict;
        return value;
      }
      expected = "fail, warn or info";
      break;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> Profile::threshold(const std::string& key) const {
  const auto it = values.find(key);
  return it == values.end() ? std::nullopt : it->second.number;
}

Verdict Profile::policy(const std::string& key, Verdict fallback) const {
  const auto it = values.find(key);
  return it == values.end() || !it->second.policy ? fallback : *it->second.policy;
}

double Profile::warn_margin_percent() const { return threshold("warn_margin_percent").value_or(0); }

std::string Profile::rule(const std::string& key) const {
  const auto it = values.find(key);
  if (it == values.end()) return "";
  std::string text = key + " = " + it->second.text;
  // Say where a value came from when it is not the shipped default.
  if (it->second.origin.rfind("default profile", 0) != 0) text += " (" + it->second.origin + ")";
  return text;
}

Profile parse_profile(const std::string& text, const std::string& source, const Profile& base) {
  Profile profile = base;
  profile.sources.push_back(source);
  std::map<std::string, int> seen_on_line;
  std::istringstream lines(text);
  std::string raw;
  int number = 0;
  while (std::getline(lines, raw)) {
    ++number;
    const std::string where = "profile " + source + " line " + std::to_string(number);
    const auto hash = raw.find('#');
    const std::string line = trim_text(hash == std::string::npos ? raw : raw.substr(0, hash));
    if (line.empty()) continue;
    const auto equals = line.find('=');
    if (equals == std::string::npos) {
      throw UsageError(where + ": expected `key = value`, got '" + line + "'");
    }
    const std::string key = trim_text(line.substr(0, equals));
    const std::string value_text = trim_text(line.substr(equals + 1));
    if (key.empty()) throw UsageError(where + ": no key before '='");
    const std::optional<ProfileKeySpec> spec = find_key(key);
    if (!spec) {
      const std::string suggestion = suggestion_for(key);
      throw UsageError(where + ": unknown key '" + key + "'" +
                       (suggestion.empty() ? " (not a profile key; the default profile lists every key)"
                                           : " (did you mean " + suggestion + "?)"));
    }
    if (const auto first = seen_on_line.find(key); first != seen_on_line.end()) {
      throw UsageError(where + ": " + key + " set again (first on line " +
                       std::to_string(first->second) + ")");
    }
    seen_on_line[key] = number;
    if (value_text.empty()) throw UsageError(where + ": " + key + " has no value");
    std::string expected;
    std::optional<ProfileValue> value = parse_value(*spec, value_text, expected);
    if (!value) throw UsageError(where + ": " + key + " = " + value_text + ": expected " + expected);
    value->origin = source + " line " + std::to_string(number);
    profile.values[key] = std::move(*value);
  }
  return profile;
}

const Profile& default_profile() {
  // Parsed again only when the registry changed (a test's own stage brings its keys).
  static std::size_t parsed_for = 0;
  static Profile profile;
  if (parsed_for != stage_registry_generation()) {
    profile = parse_profile(default_profile_text(), "default profile");
    parsed_for = stage_registry_generation();
  }
  return profile;
}

Profile load_profile(const std::filesystem::path& path) {
  std::string text;
  try {
    text = read_file(path);  // refuses a FIFO or a device: never hangs
  } catch (const RunError& error) {
    throw UsageError("profile " + escape_name(path.string()) + ": cannot read: " + error.what());
  }
  return parse_profile(text, escape_name(path.string()), default_profile());
}

}  // namespace pipecheck
