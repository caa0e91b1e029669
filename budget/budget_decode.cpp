// The budget's decode stage from the decode probe's cases: each image set's rate (baseline,
// progressive, CMYK) at the loader's thread count, weighted by how many of the dataset's files
// each set holds; the plain path as the bound, the DCT-scaled path beside it.
#include "budget/budget_decode.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "core/figure_text.hpp"
#include "core/stage_names.hpp"

namespace pipecheck {

namespace {

constexpr const char* kSets[] = {"baseline", "progressive", "cmyk"};
constexpr const char* kPlainOp = "resize_plain";  // decode whole, then resize
constexpr const char* kDctOp = "resize";          // DCT-scaled decode, then resize
constexpr const char* kFullOp = "full";           // decode only

std::string param(const Measurement& m, const std::string& name) { return param_or_empty(m.params, name); }

std::string op_of(const Measurement& m) {
  std::string op = param(m, "op").empty() ? param(m, "case") : param(m, "op");
  for (const char* set : kSets) {  // older keys carried the set in the op: "full_progressive"
    const std::string suffix = std::string("_") + set;
    if (op.size() > suffix.size() && op.compare(op.size() - suffix.size(), suffix.size(), suffix) == 0) {
      op.resize(op.size() - suffix.size());
    }
  }
  return op;
}

std::string set_of(const Measurement& m) {
  const std::string set = param(m, "set");
  return set.empty() ? "baseline" : set;
}

using CaseKey = std::tuple<std::string, std::string, int>;  // op, set, threads

struct Cases {
  std::map<CaseKey, const Measurement*> by_key;
  std::set<int> threads;
  const Measurement* any = nullptr;  // one case, for the corpus facts every case carries

  const Measurement* find(const std::string& op, const std::string& set, int threads_) const {
    const auto it = by_key.find({op, set, threads_});
    return it == by_key.end() ? nullptr : it->second;
  }
};

Cases index_cases(const std::vector<const Measurement*>& decode) {
  Cases cases;
  for (const Measurement* m : decode) {
    const std::string op = op_of(*m);
    if (m->unit != "images/s" || m->stats.median <= 0 || (op != kPlainOp && op != kDctOp && op != kFullOp)) continue;
    const int threads = int_param(m->params, "threads", 0);
    cases.by_key[{op, set_of(*m), threads}] = m;
    cases.threads.insert(threads);
    if (!cases.any) cases.any = m;
  }
  return cases;
}

std::string threads_words(int threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }

// The loader's workers when measured; else the nearest count below (or the fewest), said so.
int pick_threads(const Cases& cases, const Workload& w, std::string& note) {
  const int most = *cases.threads.rbegin();
  if (!w.workers) {
    note = "; " + threads_words(most) + ", the most measured (workers= sets the loader's own count)";
    return most;
  }
  if (cases.threads.count(*w.workers)) return *w.workers;
  auto below = cases.threads.upper_bound(*w.workers);
  const int chosen = below == cases.threads.begin() ? *cases.threads.begin() : *std::prev(below);
  note = "; " + std::to_string(*w.workers) + " workers not measured: taken at " + threads_words(chosen) +
         " (pipecheck run --workload workers=" + std::to_string(*w.workers) + " measures them)";
  return chosen;
}

// How many of the dataset's files each set holds, from the corpus facts in every label.
std::map<std::string, int> set_counts(const Measurement& m) {
  const int progressive = std::max(0, int_param(m.params, "progressive", 0));
  const int cmyk = std::max(0, int_param(m.params, "cmyk", 0));
  int baseline = int_param(m.params, "baseline", -1);
  if (baseline < 0) baseline = std::max(0, int_param(m.params, "corpus_images", 1) - progressive - cmyk);
  std::map<std::string, int> counts = {{"baseline", baseline}, {"progressive", progressive}, {"cmyk", cmyk}};
  if (baseline + progressive + cmyk == 0) counts["baseline"] = 1;  // no corpus facts: one set
  return counts;
}

struct Term {
  std::string set;
  int count = 0;
  std::optional<double> rate;
  bool estimated = false;  // scaled from the set's full decode by the baseline's op/full ratio
};

// The set's rate for `op`; a set measured only in full decode (older probes' progressive set)
// is scaled by how `op` compares with full decode on the baseline set, and marked estimated.
Term term_of(const Cases& cases, const std::string& op, const std::string& set, int count, int threads) {
  Term term{set, count, std::nullopt, false};
  if (const Measurement* m = cases.find(op, set, threads)) {
    term.rate = m->stats.median;
    return term;
  }
  const Measurement* full = cases.find(kFullOp, set, threads);
  const Measurement* base_op = cases.find(op, "baseline", threads);
  const Measurement* base_full = cases.find(kFullOp, "baseline", threads);
  if (full && base_op && base_full) {
    term.rate = full->stats.median * base_op->stats.median / base_full->stats.median;
    term.estimated = true;
  }
  return term;
}

struct Mixed {
  std::optional<double> rate;
  std::vector<Term> terms;
  std::vector<std::string> left_out;  // sets in the dataset with no rate at all
};

Mixed mix(const Cases& cases, const std::string& op, const std::map<std::string, int>& counts, int threads) {
  Mixed mixed;
  double files = 0, seconds = 0;
  for (const char* set : kSets) {
    const int count = counts.at(set);
    if (count == 0) continue;
    Term term = term_of(cases, op, set, count, threads);
    if (!term.rate) {
      mixed.left_out.push_back(std::string(set) + " (" + std::to_string(count) + " files)");
      continue;
    }
    files += count;
    seconds += count / *term.rate;
    mixed.terms.push_back(term);
  }
  if (files > 0 && seconds > 0) mixed.rate = files / seconds;
  return mixed;
}

std::string terms_words(const Mixed& mixed, double scale) {
  int total = 0;
  for (const Term& t : mixed.terms) total += t.count;
  std::string text;
  for (const Term& t : mixed.terms) {
    text += (text.empty() ? "" : ", ") + t.set + " " + figure(*t.rate * scale, "images/s") + (t.estimated ? " (estimated from its full decode)" : "") +
            " x " + percent_text(100.0 * t.count / total);
  }
  for (const std::string& set : mixed.left_out) text += "; not measured, left out: " + set;
  return text;
}

std::optional<std::pair<int, int>> dimensions(const std::string& text) {
  const auto x = text.find('x');
  if (x == std::string::npos) return std::nullopt;
  const int w = std::atoi(text.substr(0, x).c_str()), h = std::atoi(text.substr(x + 1).c_str());
  if (w <= 0 || h <= 0) return std::nullopt;
  return std::pair<int, int>{w, h};
}

// A generated corpus stands in for the workload's images: its rate scales by pixels. A dataset's
// own images were measured as they are, sizes and all.
double pixel_scale(const Measurement& any, const Workload& w, std::string& note) {
  const bool generated = param(any, "corpus") == "generated" || param(any, "corpus").empty();
  if (!generated) {
    note = " on " + param(any, "corpus") + "'s own " + std::to_string(int_param(any.params, "corpus_images", 0)) +
           " images (median " + param(any, "median_size") + ")";
    return 1.0;
  }
  const auto measured = dimensions(param(any, "median_size"));
  if (!measured || !w.image_width) {
    note = " at the probe's image size" + (measured ? " " + param(any, "median_size") : std::string()) +
           (w.image_width ? std::string(", which it did not report") : std::string(": give image= to scale"));
    return 1.0;
  }
  const double probe_pixels = double(measured->first) * measured->second;
  const double workload_pixels = double(*w.image_width) * *w.image_height;
  note = " on generated " + param(any, "median_size") + " images, scaled x " + figure(probe_pixels / 1e6) + " / " +
         figure(workload_pixels / 1e6) + " Mpixel to the workload's";
  return probe_pixels / workload_pixels;
}

}  // namespace

DecodeMix decode_mix(const std::vector<const Measurement*>& decode, const Workload& workload) {
  DecodeMix result;
  const Cases cases = index_cases(decode);
  if (!cases.any) {
    result.derivation = "no decode measurement (resize_plain, resize or full)";
    return result;
  }
  std::string threads_note, size_note;
  result.threads = pick_threads(cases, workload, threads_note);
  const double scale = pixel_scale(*cases.any, workload, size_note);
  const auto counts = set_counts(*cases.any);
  const Mixed plain = mix(cases, kPlainOp, counts, result.threads);
  const Mixed dct = mix(cases, kDctOp, counts, result.threads);
  // Without the plain case (an older probe), full decode alone is the nearest figure above it.
  const bool plain_measured = plain.rate.has_value();
  const Mixed& bound = plain_measured ? plain : mix(cases, kFullOp, counts, result.threads);
  // The resize cases carry the size they resized to; full decode cases do not.
  std::string probe_train;
  for (const auto& [key, m] : cases.by_key) {
    if (!param(*m, "train_size").empty()) probe_train = param(*m, "train_size");
  }
  const std::string train = probe_train.empty() ? "the training size" : probe_train;
  std::string text = plain_measured
                         ? "decode whole + resize to " + train + " (what Pillow and torchvision do)"
                         : "full decode (no plain decode + resize measured: an upper bound of it)";
  if (bound.rate) {
    result.plain = *bound.rate * scale;
    text += ", " + threads_words(result.threads) + size_note + ": " + terms_words(bound, scale);
    text += bound.terms.size() > 1 || !bound.left_out.empty() ? ", weighted by file count = " : " = ";
    text += figure(*result.plain, "samples/s");
  } else {
    text += ": not measured at " + threads_words(result.threads);
  }
  if (dct.rate) {
    result.dct = *dct.rate * scale;
    text += "; achievable with DCT scaling (Pillow draft, DALI, OpenCV IMREAD_REDUCED): " +
            figure(*result.dct, "samples/s");
  }
  const std::string workload_train =
      workload.train_width ? std::to_string(*workload.train_width) + "x" + std::to_string(*workload.train_height) : "";
  if (!workload_train.empty() && !probe_train.empty() && probe_train != workload_train) {
    text += " (the probe resized to " + probe_train + ", the workload trains at " + workload_train + ")";
  }
  result.derivation = text + threads_note;
  return result;
}

BudgetStage decode_stage_of(const std::vector<const Measurement*>& decode, const Workload& workload) {
  const DecodeMix mixed = decode_mix(decode, workload);
  return {stage_name::decode, mixed.plain, mixed.derivation};
}

}  // namespace pipecheck
