// The budget's decode stage from the decode probe's cases: each image set's rate (baseline,
// progressive, CMYK) of the loader's whole per-sample path (decode, crop + resize, tensor) at the
// loader's thread count, weighted by how many of the dataset's files each set holds; then each
// sample's hand-over to the training process, and the CPUs the workers share with it. The plain
// path is the bound; the DCT-scaled path beside it, where DCT scaling shrinks some decode.
#include "budget/budget_decode.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "budget/job_loader_time.hpp"
#include "core/figure_text.hpp"
#include "core/median_interval.hpp"
#include "core/stage_names.hpp"

namespace pipecheck {

namespace {

constexpr const char* kSets[] = {"baseline", "progressive", "cmyk"};
constexpr const char* kLoaderOp = "loader";         // the loader's path: decode whole, crop + resize, tensor
constexpr const char* kLoaderDctOp = "loader_dct";  // the same, DCT-scaled decode first
constexpr const char* kPlainOp = "resize_plain";    // older probes: decode whole, then resize
constexpr const char* kDctOp = "resize";            // older probes: DCT-scaled decode, then resize
constexpr const char* kFullOp = "full";             // decode only
constexpr const char* kHandoverOp = "handover";     // a batch from a worker process to the trainer
constexpr const char* kInterpreterOp = "interpreter";  // the job's own loader in its python, as a worker (older: tiny JPEGs)
constexpr const char* kInterpreterMainOp = "interpreter_main";  // the same as the training process runs it

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
  const Measurement* handover = nullptr;
  const Measurement* interpreter = nullptr;       // as a DataLoader worker runs the loader
  const Measurement* interpreter_main = nullptr;  // as the training process runs it (workers=0)

  const Measurement* find(const std::string& op, const std::string& set, int threads_) const {
    const auto it = by_key.find({op, set, threads_});
    return it == by_key.end() ? nullptr : it->second;
  }
};

Cases index_cases(const std::vector<const Measurement*>& decode) {
  Cases cases;
  for (const Measurement* m : decode) {
    const std::string op = op_of(*m);
    if (m->unit == "images/s" && m->stats.median > 0 && op == kHandoverOp) cases.handover = m;
    if (m->unit == "images/s" && m->stats.median > 0 && op == kInterpreterOp) cases.interpreter = m;
    if (m->unit == "images/s" && m->stats.median > 0 && op == kInterpreterMainOp) cases.interpreter_main = m;
    if (m->unit != "images/s" || m->stats.median <= 0 ||
        (op != kLoaderOp && op != kLoaderDctOp && op != kPlainOp && op != kDctOp && op != kFullOp)) {
      continue;
    }
    const int threads = int_param(m->params, "threads", 0);
    cases.by_key[{op, set_of(*m), threads}] = m;
    cases.threads.insert(threads);
    if (!cases.any) cases.any = m;
  }
  return cases;
}

std::string threads_words(int threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }

// The loader's workers when measured (one thread for workers=0: the training process loads);
// else the nearest count below (or the fewest), said so.
int pick_threads(const Cases& cases, const Workload& w, std::string& note) {
  const int most = *cases.threads.rbegin();
  if (!w.workers) {
    note = "; " + threads_words(most) + ", the most measured (workers= sets the loader's own count)";
    return most;
  }
  const int wanted = std::max(1, *w.workers);
  if (cases.threads.count(wanted)) return wanted;
  auto below = cases.threads.upper_bound(wanted);
  const int chosen = below == cases.threads.begin() ? *cases.threads.begin() : *std::prev(below);
  note = "; " + std::to_string(wanted) + " workers not measured: taken at " + threads_words(chosen) +
         " (pipecheck run --workload workers=" + std::to_string(wanted) + " measures them)";
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

// The set's rate for `op`; `instead` when the set has no `op` case (loader_dct is not measured
// where DCT scaling cannot shrink the set's decodes: there its rate is the loader's). A set
// measured only in full decode (older probes' progressive set) is scaled by how `op` compares
// with full decode on the baseline set, and marked estimated.
Term term_of(const Cases& cases, const std::string& op, const std::string& set, int count, int threads,
             const std::string& instead = "") {
  Term term{set, count, std::nullopt, false};
  if (const Measurement* m = cases.find(op, set, threads)) {
    term.rate = m->stats.median;
    return term;
  }
  if (const Measurement* m = instead.empty() ? nullptr : cases.find(instead, set, threads)) {
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

Mixed mix(const Cases& cases, const std::string& op, const std::map<std::string, int>& counts, int threads,
          const std::string& instead = "") {
  Mixed mixed;
  double files = 0, seconds = 0;
  for (const char* set : kSets) {
    const int count = counts.at(set);
    if (count == 0) continue;
    Term term = term_of(cases, op, set, count, threads, instead);
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

namespace {

double label_number(const Measurement& m, const std::string& name) { return std::atof(param(m, name).c_str()); }

// What the loader delivers from the threads' mixed rate: each worker's time per sample is its
// share of the threads' time plus the sample's hand-over; the CPUs the workers share with the
// training process bound them all. workers=0: the training process loads each batch, then steps.
struct Delivered {
  double rate = 0;
  std::string words;
};
// How much slower the probe's path runs a sample at T threads than at 1, for the dataset's mix:
// each set's pair-by-pair ratios (repetition i of 1 and of T threads ran side by side: the
// machine's drift cancels), their median and its 95% interval, weighted by the set's share of
// the 1-thread time. The budget is an upper bound: within its noise of 1 the threads are taken as
// not slowing each other; beyond it, at the interval's end nearest 1.
struct PathScale {
  double factor = 1;
  std::string words;  // "" when there is nothing to say (1 thread, nothing measured)
};
PathScale thread_slowdown(const Cases& cases, const std::string& op, const std::map<std::string, int>& counts, int threads) {
  if (threads <= 1) return {};
  double weight_sum = 0, median = 0, low = 0, high = 0;
  int pairs = 0;
  bool paired = false;  // some set's repetitions ran side by side; else the ratio of the medians
  for (const auto& [set, count] : counts) {
    const Measurement* one = cases.find(op, set, 1);
    const Measurement* many = cases.find(op, set, threads);
    if (count <= 0 || !one || !many || one->stats.median <= 0 || many->stats.median <= 0) continue;
    std::vector<double> ratios;
    if (one->interleaved && many->interleaved && one->repetitions.size() == many->repetitions.size()) {
      for (std::size_t i = 0; i < one->repetitions.size(); ++i) {
        if (many->repetitions[i] > 0) ratios.push_back(threads * one->repetitions[i] / many->repetitions[i]);
      }
    }
    if (ratios.size() < 2) ratios = {threads * one->stats.median / many->stats.median};  // older: the medians
    else paired = true;
    std::vector<double> sorted = ratios;
    std::sort(sorted.begin(), sorted.end());
    const double mid = sorted.size() % 2 ? sorted[sorted.size() / 2] : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
    const auto interval = median_interval(ratios);
    const double weight = count / one->stats.median;  // the set's seconds at 1 thread
    weight_sum += weight;
    median += weight * mid;
    low += weight * (interval ? interval->low : mid);
    high += weight * (interval ? interval->high : mid);
    pairs += static_cast<int>(ratios.size());
  }
  if (weight_sum <= 0) return {1, "; the probe's path not measured at 1 and " + threads_words(threads) + ": taken as not slowed"};
  median /= weight_sum, low /= weight_sum, high /= weight_sum;
  PathScale scale;
  scale.factor = low > 1 ? low : high < 1 ? high : 1.0;
  const std::string measured = "the probe's path at " + threads_words(threads) + " against 1: " + figure(median) +
                               (paired ? " [" + figure(low) + ", " + figure(high) + "] (" + std::to_string(pairs) + " pairs)"
                                       : std::string(" (the ratio of its medians)"));
  scale.words = !paired          ? " x " + figure(scale.factor) + " (" + measured + ")"
                : low <= 1 && high >= 1 ? " x 1 (" + measured + ", within its noise of 1)"
                                        : " x " + figure(scale.factor) + " (" + measured + ", its end nearest 1)";
  return scale;
}

// One loader thread's seconds a sample, and its words. The probe's path at `threads` threads by
// default; where the probe ran the job's own loader in its python (op interpreter, path job), that
// is the cost a sample, scaled by `path` (slowed from 1 to `threads` threads; for the DCT line
// also sped up as DCT scaling speeds the probe's path). Older probes measured the interpreter on
// tiny JPEGs: its time is added to the probe's path.
struct SampleCost {
  double seconds = 0;
  std::string words;
};
SampleCost sample_cost(double threads_rate, int threads, const Cases& cases, double scale, const PathScale& path,
                       bool training_process, const std::map<std::string, int>& counts) {
  const double probe_seconds = threads / threads_rate;
  const Measurement* job = training_process && cases.interpreter_main ? cases.interpreter_main : cases.interpreter;
  if (job && param(*job, "path") == "job") {
    // Each set's mean weighted by the dataset's files where the probe kept them; older: the median round.
    const std::optional<JobLoaderTime> sets = job_loader_time(*job, counts);
    // The training process's loader also collates in the DataLoader; a worker's collate is the hand-over's.
    const double other = sets && training_process ? sets->other_seconds : 0;
    const double job_seconds = (sets ? sets->fastest_seconds + other : 1 / job->stats.median) / scale;
    SampleCost cost{job_seconds * path.factor, ""};
    cost.words = figure(cost.seconds * 1000, "ms") + " (the job's own loader, " + param(*job, "versions") + ", on the probe's images" +
                 (op_of(*job) == kInterpreterMainOp ? ", torch's default threads as the training process runs it" : ", as a worker") +
                 ": " + (sets ? sets->words + (other > 0 ? " + its DataLoader's collate " + figure(other * 1000, "ms") : std::string()) + "; "
                              : std::string()) +
                 figure(job_seconds * 1000, "ms") + " a sample" + path.words;
    cost.words += ")";
    return cost;
  }
  SampleCost cost{probe_seconds, figure(probe_seconds * 1000, "ms")};
  if (job) {
    const double seconds = 1 / job->stats.median;
    cost.seconds += seconds;
    cost.words += " + the interpreter's own " + figure(seconds * 1000, "ms") + " (" + param(*job, "versions") + ", measured on 16x16 JPEGs)";
  }
  return cost;
}

Delivered deliver(double threads_rate, int threads, const Workload& w, const Cases& cases, double scale,
                  const PathScale& path, const std::map<std::string, int>& counts) {
  Delivered out;
  // One worker's seconds a sample, beside the others: the pixel work and the interpreter's.
  const SampleCost cost = sample_cost(threads_rate, threads, cases, scale, path, w.workers && *w.workers == 0, counts);
  const double per_sample = cost.seconds;
  const std::string pixel_words = figure(threads / threads_rate * 1000, "ms");
  const std::string& sample_words = cost.words;
  const std::string unmeasured =
      cases.interpreter ? "" : "; the training job's own loader is not measured (--workload python=PATH runs it)";
  if (w.workers && *w.workers == 0) {
    if (w.batch && w.step_ms) {
      const double batch_seconds = *w.batch * per_sample + *w.step_ms / 1000;
      out.rate = *w.batch / batch_seconds;
      out.words = "; no worker: the training process loads each batch, then steps: batch " + std::to_string(*w.batch) +
                  " x " + (cases.interpreter ? "(" + sample_words + ")" : pixel_words) + " + " + figure(*w.step_ms, "ms") +
                  " step = " + figure(out.rate, "samples/s") + unmeasured;
    } else {
      out.rate = 1 / per_sample;
      out.words = "; no worker: the training process loads: " + sample_words + " a sample = " + figure(out.rate, "samples/s") +
                  " (give batch= and step_ms= to add its steps)" + unmeasured;
    }
    return out;
  }
  const int workers = w.workers.value_or(threads);
  double handover = 0, parent = 0;
  std::string handover_words;
  if (cases.handover) {
    handover = 1 / cases.handover->stats.median;
    parent = label_number(*cases.handover, "parent_us_per_sample") / 1e6;
    handover_words = " + hand-over " + figure(handover * 1000, "ms") + " (batch " + param(*cases.handover, "batch") +
                     " of " + bytes_words(label_number(*cases.handover, "sample_bytes")) + " a sample, through shared memory)";
  } else {
    handover_words = " (no batch hand-over measured)";
  }
  const double worker_rate = workers / (per_sample + handover);
  out.rate = worker_rate;
  out.words = "; " + std::to_string(workers) + (workers == 1 ? " worker" : " workers") + " / (" + sample_words +
              " a sample" + handover_words + ") = " + figure(worker_rate, "samples/s");
  const int cpus = cases.any ? int_param(cases.any->params, "usable_cpus", 0) : 0;
  if (cpus <= 0) {
    out.words += " (the probe did not report its usable CPUs: the training process's share is not counted)" + unmeasured;
    return out;
  }
  // CPU seconds a sample: the threads' own (T threads on fewer CPUs share them), the
  // interpreter's, the hand-over, and the training process's receipt of it.
  const double cpu_per_sample = per_sample * std::min(threads, cpus) / threads + handover + parent;
  const double cpu_rate = cpus / cpu_per_sample;
  if (workers + 1 > cpus && cpu_rate < worker_rate) {
    out.rate = cpu_rate;
    out.words += "; " + std::to_string(workers) + " workers and the training process (" +
                 figure(parent * 1e6, "us") + " a sample) share " + std::to_string(cpus) + " usable CPUs: " +
                 std::to_string(cpus) + " / " + figure(cpu_per_sample * 1000, "ms") + " CPU a sample = " +
                 figure(cpu_rate, "samples/s");
  }
  out.words += unmeasured;
  return out;
}

}  // namespace

DecodeMix decode_mix(const std::vector<const Measurement*>& decode, const Workload& workload) {
  DecodeMix result;
  const Cases cases = index_cases(decode);
  if (!cases.any) {
    result.derivation = "no decode measurement (loader, resize_plain or full)";
    return result;
  }
  std::string threads_note, size_note;
  result.threads = pick_threads(cases, workload, threads_note);
  const double scale = pixel_scale(*cases.any, workload, size_note);
  const auto counts = set_counts(*cases.any);
  // The loader's path; an older probe's decode + resize, else full decode (an upper bound).
  const Mixed loader = mix(cases, kLoaderOp, counts, result.threads);
  const bool has_loader = loader.rate.has_value();
  const Mixed plain = has_loader ? loader : mix(cases, kPlainOp, counts, result.threads);
  const bool plain_measured = plain.rate.has_value();
  const Mixed& bound = plain_measured ? plain : mix(cases, kFullOp, counts, result.threads);
  const Mixed dct = has_loader ? mix(cases, kLoaderDctOp, counts, result.threads, kLoaderOp)
                               : mix(cases, kDctOp, counts, result.threads);
  std::string probe_train, transform, dct_percent;
  bool any_dct_case = false;
  for (const auto& [key, m] : cases.by_key) {
    if (!param(*m, "train_size").empty()) probe_train = param(*m, "train_size");
    if (!param(*m, "transform").empty()) transform = param(*m, "transform");
    if (std::get<0>(key) == kLoaderDctOp || std::get<0>(key) == kDctOp) any_dct_case = true;
  }
  const std::string train = probe_train.empty() ? "the training size" : probe_train;
  // Where the job's own loader was measured, the probe's path only scales it (threads, DCT).
  const bool job_measured = cases.interpreter && param(*cases.interpreter, "path") == "job";
  std::string text = has_loader ? std::string(job_measured ? "the probe's replay of " : "") + "the loader's path (decode whole, " +
                                      (transform.empty() ? train : transform) + ")"
                     : plain_measured ? "decode whole + resize to " + train + " (an older probe: no crop, no tensor)"
                                      : "full decode (no loader path measured: an upper bound of it)";
  if (bound.rate) {
    const double threads_rate = *bound.rate * scale;
    text += ", " + threads_words(result.threads) + size_note + ": " + terms_words(bound, scale);
    text += bound.terms.size() > 1 || !bound.left_out.empty() ? ", weighted by file count = " : " = ";
    text += figure(threads_rate, "samples/s");
    const PathScale slowdown = plain_measured ? thread_slowdown(cases, has_loader ? kLoaderOp : kPlainOp, counts, result.threads)
                                              : PathScale{};
    const Delivered delivered = deliver(threads_rate, result.threads, workload, cases, scale, slowdown, counts);
    result.plain = delivered.rate;
    text += delivered.words;
    // DCT scaling: only where some decode of the dataset shrinks, and the figure is above the plain one.
    if (dct.rate && any_dct_case) {
      // The job's own time sped up as DCT scaling speeds the probe's path at these threads.
      const PathScale dct_path{slowdown.factor * threads_rate / (*dct.rate * scale), ""};
      const double dct_rate = deliver(*dct.rate * scale, result.threads, workload, cases, scale, dct_path, counts).rate;
      if (dct_rate > *result.plain) {
        result.dct = dct_rate;
        text += "; achievable with DCT scaling (Pillow draft, DALI, OpenCV IMREAD_REDUCED): " + figure(dct_rate, "samples/s");
      }
    }
    if (!result.dct) text += "; DCT scaling would not help: no decode of these images shrinks at this crop and size";
  } else {
    text += ": not measured at " + threads_words(result.threads);
  }
  const std::string workload_train =
      workload.train_width ? std::to_string(*workload.train_width) + "x" + std::to_string(*workload.train_height) : "";
  if (!workload_train.empty() && !probe_train.empty() && probe_train != workload_train) {
    text += " (the probe resized to " + probe_train + ", the workload trains at " + workload_train + ")";
  }
  const Measurement* loader_case = nullptr;
  for (const auto& [key, m] : cases.by_key) {
    if (std::get<0>(key) == kLoaderOp) loader_case = m;
  }
  if (loader_case && (param(*loader_case, "crop") != workload.crop || param(*loader_case, "tensor") != workload.tensor)) {
    text += " (the probe measured crop " + param(*loader_case, "crop") + ", " + param(*loader_case, "tensor") +
            " tensors; the workload says crop " + workload.crop + ", " + workload.tensor + ")";
  }
  result.derivation = text + threads_note;
  return result;
}

BudgetStage decode_stage_of(const std::vector<const Measurement*>& decode, const Workload& workload) {
  const DecodeMix mixed = decode_mix(decode, workload);
  return {stage_name::decode, mixed.plain, mixed.derivation};
}

}  // namespace pipecheck
