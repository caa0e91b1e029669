// Reading an acceptance profile: `key = value` lines over a base profile, with errors that name
// the file, the line and the key, and suggest the key that was probably meant.
#include "reports/profile.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"

namespace pipecheck {

namespace {

std::string trim_text(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  const auto end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

const ProfileKeySpec* find_key(const std::string& name) {
  for (const auto& spec : profile_keys()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

// Edit distance where swapping two neighbours counts as one edit ("bf61" for "bf16").
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

// The nearest known key, when it is near enough to be what was meant.
std::string suggestion_for(const std::string& key) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& spec : profile_keys()) {
    const std::size_t distance = edit_distance(key, spec.name);
    if (distance < best_distance) {
      best_distance = distance;
      best = spec.name;
    }
  }
  const std::size_t allowed = std::max<std::size_t>(3, key.size() / 4);
  return best_distance <= allowed ? best : "";
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
    const ProfileKeySpec* spec = find_key(key);
    if (spec == nullptr) {
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
  static const Profile profile = parse_profile(default_profile_text(), "default profile");
  return profile;
}

Profile load_profile(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    const int error = errno;
    throw UsageError("profile " + path.string() + ": cannot read: " +
                     (error ? std::strerror(error) : "open failed"));
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw UsageError("profile " + path.string() + ": cannot read");
  return parse_profile(text.str(), path.string(), default_profile());
}

}  // namespace pipecheck
