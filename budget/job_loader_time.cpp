// The job's own loader's time a sample, its sets weighted by the dataset's files
// (budget/job_loader_time.hpp).
#include "budget/job_loader_time.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/figure_text.hpp"

namespace pipecheck {

namespace {

std::optional<double> label_number(const Measurement& m, const std::string& name) {
  const std::string text = param_or_empty(m.params, name);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(value) || value < 0) return std::nullopt;
  return value;
}

struct SetTime {
  std::string set;
  int files = 0;
  double mean = 0, sd = 0;  // seconds
  int count = 0;
};

}  // namespace

std::optional<JobLoaderTime> job_loader_time(const Measurement& job, const std::map<std::string, int>& files_by_set) {
  std::vector<SetTime> met;
  std::string missed;
  int files = 0;
  for (const auto& [set, count] : files_by_set) {
    if (count <= 0) continue;
    const auto mean = label_number(job, "job_ms_" + set), n = label_number(job, "job_n_" + set);
    if (!mean || !n || *n < 1 || *mean <= 0) {
      missed += (missed.empty() ? "" : ", ") + set + " (" + std::to_string(count) + " files)";
      continue;
    }
    met.push_back({set, count, *mean / 1e3, label_number(job, "job_sd_ms_" + set).value_or(0) / 1e3, static_cast<int>(*n)});
    files += count;
  }
  if (met.empty()) return std::nullopt;
  JobLoaderTime time;
  double variance = 0;  // of the weighted mean: each set's mean has its own sampling noise
  for (const SetTime& s : met) {
    const double share = double(s.files) / files;
    time.mean_seconds += share * s.mean;
    variance += share * share * s.sd * s.sd / s.count;
    time.samples += s.count;
    time.words += (time.words.empty() ? "" : ", ") + s.set + " " + figure(s.mean * 1e3, "ms") + " x " + percent_text(100.0 * share);
  }
  // 1.96 standard errors: the mean's 95% interval; the loader attains no more than its fast end.
  // Held to half the mean: a set met a few times cannot claim the loader runs twice as fast.
  time.fastest_seconds = std::max(time.mean_seconds - 1.96 * std::sqrt(variance), 0.5 * time.mean_seconds);
  time.other_seconds = label_number(job, "job_other_ms").value_or(0) / 1e3;
  time.words += " = " + figure(time.mean_seconds * 1e3, "ms") + " a sample, the fast end of its 95% interval " +
                figure(time.fastest_seconds * 1e3, "ms") + " (" + std::to_string(time.samples) + " samples)";
  if (!missed.empty()) time.words += "; not met in the job's rounds, left out: " + missed;
  return time;
}

}  // namespace pipecheck
