// pipecheck-decode: CPU JPEG decode throughput (images/s, megapixels/s) on a user's dataset or a
// generated photo-like corpus: full decode, DCT-scaled decode, and the loader's whole per-sample
// path (decode, crop and resize, tensor, as torchvision does it; decode/loader_transform.hpp),
// from one thread to all cores, each thread with its own TurboJPEG handle; and the hand-over of
// a batch from a worker process to the training process (decode/batch_handover.hpp).
#include <benchmark/benchmark.h>
#include <turbojpeg.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "inventory/cuda_devices.hpp"
#include "core/cpu_allowance.hpp"
#include "core/case_messages.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/probe_main.hpp"
#include "core/repetition_rounds.hpp"
#include "core/stage_names.hpp"
#include "core/text_escape.hpp"
#include "decode/jpeg_corpus.hpp"
#include "decode/jpeg_decoder.hpp"
#include "decode/jpeg_gpu_case.hpp"
#include "decode/jpeg_gpu_decode.hpp"
#include "decode/jpeg_nvjpeg.hpp"
#include "decode/jpeg_scaling.hpp"
#include "decode/loader_transform.hpp"
#include "decode/loader_cases.hpp"
#include "decode/loader_interpreter.hpp"
#include "decode/pillow_decode.hpp"
#include "decode/pillow_image.hpp"

namespace pipecheck {
namespace {

// The work model: what each case does to one image after reading its bytes from memory.
enum class OpKind { full, dct_scaled, loader, loader_dct };
struct DecodeOp {
  const char* key;
  const char* what;
  OpKind kind;
  JpegScale scale;  // for dct_scaled
};
// loader is what a torchvision DataLoader worker does to each sample (decode whole, crop and
// resize, tensor); loader_dct the same with the DCT-scaled decode Pillow's draft(), DALI and
// OpenCV's IMREAD_REDUCED_* achieve.
constexpr DecodeOp kOps[] = {
    {"full", "full decode to RGB", OpKind::full, {1, 1}},
    {"loader", "the loader's path: decode, crop + resize, tensor", OpKind::loader, {1, 1}},
    {"loader_dct", "the loader's path, DCT-scaled decode first", OpKind::loader_dct, {1, 1}},
    {"dct_1_2", "DCT-scaled decode 1/2", OpKind::dct_scaled, {1, 2}},
    {"dct_1_4", "DCT-scaled decode 1/4", OpKind::dct_scaled, {1, 4}},
};

// What the resize is, in every resize case's label: the same filter as Pillow's
// Image.BILINEAR (the tests hold it to Pillow's own output) and torchvision's default.
constexpr const char* kResizeFilter =
    "bilinear with antialias: triangle filter widened by the shrink factor, as Pillow BILINEAR and "
    "torchvision Resize (antialias=True), stretched to the exact size";

// One set of images a case runs over, with what verifies its decodes.
struct ImageSet {
  std::string name;  // "baseline", "progressive", "cmyk"
  std::vector<const JpegImage*> images;
  const std::vector<unsigned char>* source_rgb = nullptr;  // pixels images[0] was encoded from
  std::string median_size;     // "2000x1500": the set's own images, each dimension's median
  std::size_t mean_bytes = 0;  // encoded bytes per image
};

std::string set_suffix(const ImageSet& set) {
  if (set.name == "progressive") return " (progressive)";
  if (set.name == "cmyk") return " (CMYK, converted to RGB)";
  return "";
}

// The loader's transform, batch and corpus facts (decode/loader_cases.hpp), and the decodes' own.
struct ProbeConfig : LoaderCaseConfig {
  int quality = 90;  // of a generated corpus: sets the verification bound
  int flags = 0;     // TJFLAG_* (fast DCT / fast upsampling when --decode fast)
};

struct Verification {
  bool ok = false;
  std::string how;
};

// Everything the cases read; built once in register_cases, alive until the process ends.
struct ProbeData {
  JpegCorpus corpus;
  JpegCorpus progressive_extra;  // progressive re-encode of generated images
  std::vector<unsigned char> first_rgb, first_progressive_rgb;
  std::vector<ImageSet> sets;
  ProbeConfig config;
  std::mutex mutex;
  std::map<std::string, Verification> verified;    // case key -> its one verification
  // Where each case's thread goes on in its share: each repetition takes the next images, so
  // the repetitions together cover the whole sample rather than its first images again.
  std::map<std::pair<std::string, int>, std::size_t> cursors;
  // Images each case's thread decoded since its output was last held against a fresh decode
  // (same keys). The check costs one image's work, so it runs on the thread's first call and
  // then once this many have gone by: under an eighth of the timed work, where Google
  // Benchmark's sizing calls decode one or two large images each (it was 3 s of quick's 18).
  static constexpr std::size_t kImagesBetweenChecks = 8;
  std::map<std::pair<std::string, int>, std::size_t> images_since_check;
  // The workers of the case group now running, by (threads, thread index), kept across Google
  // Benchmark's calls (it calls a case two or three times a repetition to size its iteration
  // count): a fresh worker's warm-up decodes cost more than the timed images in quick mode.
  // Another case group frees them first.
  std::string workers_key;
  std::map<std::pair<int, int>, std::unique_ptr<struct Worker>> workers;
};
ProbeData* g_data = nullptr;

bool is_loader(const DecodeOp& op) { return op.kind == OpKind::loader || op.kind == OpKind::loader_dct; }

// What one thread holds, as a loader worker does: its decoder, buffers and random draws.
struct Worker {
  JpegDecoder decoder;
  RgbImage decoded;  // the decode cases' output
  LoaderBuffers loader;
  LoaderRandom random;
  SamplePlan plan;      // the last sample's draws, in the full image's pixels
  JpegScale scale{1, 1};  // the last decode's DCT scale
};

// Decodes one image the way `op` does; a loader op draws its sample's crop and flip (or takes
// `fixed`, to repeat a sample) and runs the transform.
DecodeResult apply_op(Worker& w, const JpegImage& image, const DecodeOp& op, const ProbeConfig& config,
                      const SamplePlan* fixed = nullptr) {
  const LoaderTransform& t = config.transform;
  w.scale = op.scale;
  if (is_loader(op)) {
    w.plan = fixed ? *fixed : plan_sample(image.header.width, image.header.height, t, w.random);
    w.scale = op.kind == OpKind::loader_dct ? loader_dct_scale(w.plan, image.header.width, image.header.height, t) : JpegScale{1, 1};
  }
  // The decode cases through TurboJPEG's whole-image call, as tjbench and DALI's CPU path do.
  if (!is_loader(op)) return w.decoder.decode(image.bytes.data(), image.bytes.size(), w.scale, w.decoded, config.flags);
  // The loader reads the file (Python's read() copies its bytes) and decodes as Pillow does: a
  // row at a time, into a new image in Pillow's storage.
  const std::vector<unsigned char> file(image.bytes);
  PillowImage decoded;  // freed with the sample, as the loader's Python frees it
  DecodeResult result = pillow_decode(file.data(), file.size(), w.scale, decoded, config.flags);
  if (result.ok) {
    const SamplePlan plan = scaled_plan(w.plan, image.header.width, image.header.height, decoded.width(), decoded.height());
    apply_loader_transform(decoded, plan, t, w.loader);
  }
  return result;
}

const RgbImage& output_of(const Worker& w, const DecodeOp& op, const ProbeConfig& config) {
  return is_loader(op) ? final_image(w.loader, config.transform) : w.decoded;
}

// The tensor against the image it was made from, value by value: "" when it is right.
std::string tensor_check(const Worker& w, const ProbeConfig& config) {
  const RgbImage& image = final_image(w.loader, config.transform);
  return config.transform.tensor == TensorKind::float32 ? float_tensor_difference(image, w.loader.tensor_float)
                                                        : uint8_tensor_difference(image, w.loader.tensor_uint8);
}

// Decodes the set's first image once and compares the output with the source pixels (a
// generated corpus), or, for a dataset, with the full decode, through the same transform and
// draws; a loader op's tensor is checked value by value against its image.
Verification verify_op(const DecodeOp& op, const ImageSet& set, const ProbeConfig& config) {
  Worker worker;
  const JpegImage& image = *set.images.front();
  const DecodeResult result = apply_op(worker, image, op, config);
  if (!result.ok) return {false, "decode failed: " + result.message};
  const RgbImage& output = output_of(worker, op, config);
  RgbImage full, reference;
  std::vector<unsigned char> scratch;
  if (set.source_rgb != nullptr) {
    full = {image.header.width, image.header.height, *set.source_rgb};
  } else if (!worker.decoder.decode(image.bytes.data(), image.bytes.size(), {1, 1}, full).ok) {
    return {false, "reference full decode failed"};
  }
  bool scaled = false;
  if (is_loader(op)) {
    LoaderBuffers buffers;
    apply_loader_transform(pillow_from_rgb(full), worker.plan, config.transform, buffers);
    reference = final_image(buffers, config.transform);
    scaled = worker.scale.num != worker.scale.denom;
    if (const std::string wrong = tensor_check(worker, config); !wrong.empty()) return {false, "tensor: " + wrong};
  } else if (full.width == output.width && full.height == output.height) {
    reference = full;
  } else {
    resize_rgb(full, output.width, output.height, reference, scratch);
    scaled = true;
  }
  const double error = mean_abs_error(output, reference);
  // JPEG at quality q loses roughly (100 - q) / 10 levels on grainy content; scaling adds a
  // filter mismatch. Far above either, the output is wrong, not lossy.
  const double bound = (set.source_rgb ? 3.0 + 0.15 * (100 - config.quality) : 0.5) + (scaled ? 8.0 : 0.0);
  char text[160];
  std::snprintf(text, sizeof text, "mean abs error %.2f vs %s (bound %.1f)%s", error,
                set.source_rgb ? "source pixels" : "full decode", bound,
                is_loader(op) ? " through the same crop and resize; tensor checked value by value" : "");
  return {error >= 0 && error < bound, text};
}

// "" when `w`'s output equals a fresh decode of `image` by `op` with the same draws (new decoder,
// new buffers), else the first differing pixel or tensor byte, named with the image.
std::string fresh_decode_difference(const JpegImage& image, const DecodeOp& op, const ProbeConfig& config, const Worker& w) {
  Worker fresh;
  const DecodeResult result = apply_op(fresh, image, op, config, is_loader(op) ? &w.plan : nullptr);
  if (!result.ok) return image.name + ": the fresh reference decode failed: " + result.message;
  std::string difference = first_pixel_difference(output_of(w, op, config), output_of(fresh, op, config));
  if (difference.empty() && is_loader(op) &&
      (w.loader.tensor_float != fresh.loader.tensor_float || w.loader.tensor_uint8 != fresh.loader.tensor_uint8)) {
    difference = "the tensors differ";
  }
  return difference.empty() ? "" : image.name + ": the timed loop's last output differs from a fresh decode: " + difference;
}

// This thread's share of the set: every threads-th image, so all threads stay busy even
// when the set is smaller than the thread count.
std::vector<const JpegImage*> thread_share(const ImageSet& set, int thread, int threads) {
  std::vector<const JpegImage*> share;
  for (std::size_t i = thread; i < set.images.size(); i += threads) share.push_back(set.images[i]);
  if (share.empty()) share.push_back(set.images[thread % set.images.size()]);
  return share;
}

// The image of `share` with the most pixels: a warm-up on it grows every buffer to its final size.
const JpegImage* largest_of(const std::vector<const JpegImage*>& share) {
  const JpegImage* largest = share.front();
  for (const JpegImage* image : share) {
    if (double(image->header.width) * image->header.height > double(largest->header.width) * largest->header.height) largest = image;
  }
  return largest;
}

void run_case(benchmark::State& state, const DecodeOp& op, const ImageSet& set, const std::string& case_key) {
  ProbeData& data = *g_data;
  const int threads = state.threads();
  const auto share = thread_share(set, state.thread_index(), threads);
  std::size_t next = 0;
  Worker* held = nullptr;  // per thread, reused: what a loader worker holds
  bool fresh = false;
  {
    std::lock_guard<std::mutex> lock(data.mutex);
    next = data.cursors[{case_key + "/" + std::to_string(threads), state.thread_index()}] % share.size();
    if (data.workers_key != case_key) {
      data.workers.clear();
      data.workers_key = case_key;
    }
    auto& slot = data.workers[{threads, state.thread_index()}];
    fresh = slot == nullptr;
    if (fresh) slot = std::make_unique<Worker>();
    held = slot.get();
  }
  Worker& worker = *held;
  if (fresh) {
    // Its own draws; later calls go on drawing where the last stopped (other crops).
    worker.random.state += static_cast<std::uint64_t>(state.thread_index()) * 7919 + next;
    // Untimed: the largest image, so buffers reach their final size and the code and tables are
    // warm. (The first image to come was decoded here too: a worker is fresh every repetition,
    // as the rounds interleave the case groups, and in quick mode that was a fifth of its time.)
    apply_op(worker, *largest_of(share), op, data.config);
  }
  std::size_t failures = 0, dct_scaled = 0;
  double pixels = 0;
  std::string failure;
  const JpegImage* last = nullptr;
  for (auto _ : state) {
    const JpegImage& image = *share[next];
    last = &image;
    next = next + 1 == share.size() ? 0 : next + 1;
    const DecodeResult result = apply_op(worker, image, op, data.config);
    if (!result.ok) {  // every return code is checked; warnings count as failures too
      ++failures;
      failure = image.name + ": " + result.message;
    }
    dct_scaled += worker.scale.num != worker.scale.denom;
    pixels += static_cast<double>(image.header.width) * image.header.height;
  }
  bool check = false;
  {
    std::lock_guard<std::mutex> lock(data.mutex);
    const std::pair<std::string, int> slot{case_key + "/" + std::to_string(threads), state.thread_index()};
    data.cursors[slot] = next;
    std::size_t& since = data.images_since_check.try_emplace(slot, ProbeData::kImagesBetweenChecks).first->second;
    since += static_cast<std::size_t>(state.iterations());
    check = since >= ProbeData::kImagesBetweenChecks;
    if (check) since = 0;
  }
  if (failures > 0) {
    state.SkipWithError((std::to_string(failures) + " decodes failed, last: " + failure).c_str());
    return;
  }
  // The last output of the timed loop, from a decoder and buffers reused over many images, must
  // equal a fresh decode of the same bytes with the same draws byte for byte (TurboJPEG is
  // deterministic), and its tensor must hold its image's values.
  if (last != nullptr && check) {
    std::string wrong = fresh_decode_difference(*last, op, data.config, worker);
    if (wrong.empty() && is_loader(op)) {
      if (const std::string bad = tensor_check(worker, data.config); !bad.empty()) wrong = last->name + ": tensor: " + bad;
    }
    if (!wrong.empty()) {
      state.SkipWithError(wrong_result_message(wrong).c_str());
      return;
    }
  }
  state.counters["images_per_second"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["megapixels_per_second"] = benchmark::Counter(pixels / 1e6, benchmark::Counter::kIsRate);
  if (state.thread_index() != 0) return;  // one label per case
  Verification verification;
  {
    // Once per case, not once per Google Benchmark trial run: it is outside the timing but
    // costs wall time.
    std::lock_guard<std::mutex> lock(data.mutex);
    auto it = data.verified.find(case_key);
    if (it == data.verified.end()) it = data.verified.emplace(case_key, verify_op(op, set, data.config)).first;
    verification = it->second;
  }
  if (!verification.ok) {
    state.SkipWithError(wrong_result_message(set.images.front()->name + ": " + verification.how).c_str());
    return;
  }
  auto label = data.config.corpus_label;
  label["what"] = std::string(op.what) + set_suffix(set) + ", " + std::to_string(threads) +
                  (threads == 1 ? " thread" : " threads");
  label["op"] = op.key;
  label["set"] = set.name;
  label["set_images"] = std::to_string(set.images.size());
  label["set_median_size"] = set.median_size;
  label["set_mean_bytes"] = std::to_string(set.mean_bytes);
  label["threads"] = std::to_string(threads);
  label["verified"] = verification.ok ? "yes" : "no";
  label["verify"] = verification.how;
  if (is_loader(op)) {
    const LoaderTransform& t = data.config.transform;
    label["train_size"] = std::to_string(t.width) + "x" + std::to_string(t.height);
    label["crop"] = crop_mode_name(t.crop);
    label["tensor"] = tensor_kind_name(t.tensor);
    label["resize"] = kResizeFilter;
    label["transform"] = loader_transform_words(t);
  }
  if (op.kind == OpKind::loader_dct && state.iterations() > 0) {
    // Where DCT scaling could not shrink a sample's decode, this case is the loader case again.
    label["dct_scaled_percent"] = std::to_string(static_cast<int>(std::lround(100.0 * dct_scaled / state.iterations())));
  }
  // Scaling efficiency is the report's: pair by pair over the 1-thread and N-thread repetitions,
  // which core/repetition_rounds runs interleaved (ceilings/scaling_pairs).
  state.SetLabel(encode_label(label));
}

// Sizes: quick keeps the run to seconds; full widens the sample.
std::size_t default_count(ProbeMode mode) {
  return mode == ProbeMode::quick ? 6 : mode == ProbeMode::full ? 64 : 24;
}
std::size_t dataset_cap(ProbeMode mode) {
  return mode == ProbeMode::quick ? 64 : mode == ProbeMode::full ? 4096 : 512;
}

int parse_int_flag(const ProbeOptions& options, const std::string& flag, int fallback, int lo, int hi) {
  const std::string* text = options.last(flag);
  if (text == nullptr) return fallback;
  if (text->empty() || text->size() > 6 || text->find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(*text) < lo || std::stoi(*text) > hi) {
    throw UsageError("--" + flag + " " + shortened(*text) + ": expected a whole number in " +
                     std::to_string(lo) + ".." + std::to_string(hi));
  }
  return std::stoi(*text);
}

std::string join_bad_files(const std::vector<BadJpegFile>& bad, std::size_t limit) {
  std::string text;
  for (std::size_t i = 0; i < bad.size() && i < limit; ++i) {
    text += (i ? ", " : "") + bad[i].name + " (" + bad[i].reason + ")";
  }
  if (bad.size() > limit) text += ", ... " + std::to_string(bad.size() - limit) + " more";
  return text;
}

// Reports the corpus as context and as label fields every case carries.
void describe_corpus(const JpegCorpus& corpus, ProbeConfig& config) {
  const auto [mw, mh] = corpus.median_dimensions();
  std::string histogram;
  for (const auto& [name, n] : corpus.subsampling_histogram()) {
    histogram += (histogram.empty() ? "" : " ") + name + "=" + std::to_string(n);
  }
  const std::map<std::string, std::string> facts = {
      {"corpus", corpus.source},
      {"corpus_images", std::to_string(corpus.images.size())},
      {"corpus_bytes", std::to_string(corpus.total_bytes())},
      {"median_size", std::to_string(mw) + "x" + std::to_string(mh)},
      {"progressive", std::to_string(corpus.progressive_count())},
      {"cmyk", std::to_string(corpus.cmyk_count())},
      {"baseline", std::to_string(corpus.images.size() - corpus.progressive_count() - corpus.cmyk_count())},
      {"subsampling", histogram},
      {"bad_files", std::to_string(corpus.bad_files.size())},
  };
  for (const auto& [key, value] : facts) add_probe_context("pipecheck_decode_" + key, value);
  add_probe_context("pipecheck_decode_corpus_description", corpus.description);
  config.corpus_label = facts;
  // The budget shares these among the loader's workers and the training process.
  config.corpus_label["usable_cpus"] = std::to_string(usable_cpu_count());
  if (corpus.cmyk_count() > 0) {  // named, so the finding can say which files to convert
    std::vector<BadJpegFile> cmyk;
    for (const auto& image : corpus.images) {
      if (image.header.cmyk()) cmyk.push_back({image.name, image.header.colorspace == TJCS_YCCK ? "YCCK" : "CMYK"});
    }
    config.corpus_label["cmyk_file_names"] = join_bad_files(cmyk, 5);
  }
  if (!corpus.bad_files.empty()) {
    const std::string names = join_bad_files(corpus.bad_files, 5);
    add_probe_context("pipecheck_decode_bad_file_names", join_bad_files(corpus.bad_files, 50));
    config.corpus_label["bad_file_names"] = names;
    std::fprintf(stderr, "pipecheck-decode: %zu bad files left out: %s\n", corpus.bad_files.size(), names.c_str());
  }
}

void describe_set(ImageSet& set) {
  std::vector<int> widths, heights;
  std::size_t bytes = 0;
  for (const JpegImage* image : set.images) {
    widths.push_back(image->header.width);
    heights.push_back(image->header.height);
    bytes += image->bytes.size();
  }
  if (set.images.empty()) return;
  const auto mid = widths.size() / 2;
  std::nth_element(widths.begin(), widths.begin() + mid, widths.end());
  std::nth_element(heights.begin(), heights.begin() + mid, heights.end());
  set.median_size = std::to_string(widths[mid]) + "x" + std::to_string(heights[mid]);
  set.mean_bytes = bytes / set.images.size();
}

// Three sets, each with its own rate: baseline, progressive (several passes over the
// coefficients) and CMYK/YCCK (four components, then a conversion to RGB).
void build_sets(ProbeData& data) {
  ImageSet baseline, progressive, cmyk;
  baseline.name = "baseline";
  progressive.name = "progressive";
  cmyk.name = "cmyk";
  for (const auto& image : data.corpus.images) {
    const std::string set = image.header.set_name();
    (set == "cmyk" ? cmyk : set == "progressive" ? progressive : baseline).images.push_back(&image);
  }
  for (const auto& image : data.progressive_extra.images) progressive.images.push_back(&image);
  if (data.corpus.source == "generated") {
    baseline.source_rgb = &data.first_rgb;
    progressive.source_rgb = &data.first_progressive_rgb;
  }
  for (ImageSet* set : {&baseline, &progressive, &cmyk}) {
    if (set->images.empty()) continue;
    describe_set(*set);
    data.sets.push_back(*set);
  }
}

// Whether DCT scaling can shrink any of the set's decodes for this transform: eight draws per
// image with a fixed seed (no pixel touched). Where it cannot (images no larger than the crop
// needs), a loader_dct case would time the loader case again, and the budget would offer a
// figure that cannot help.
bool dct_can_help(const ImageSet& set, const LoaderTransform& t) {
  LoaderRandom random;
  for (const JpegImage* image : set.images) {
    for (int draw = 0; draw < 8; ++draw) {
      const SamplePlan plan = plan_sample(image->header.width, image->header.height, t, random);
      const JpegScale scale = loader_dct_scale(plan, image->header.width, image->header.height, t);
      if (scale.num != scale.denom) return true;
    }
  }
  return false;
}

// Which ops a set runs. A generated corpus: every op on baseline, the decodes and the loader's
// path on progressive. A dataset: what the budget reads (the loader's path, with DCT where it
// can help) and the full decode of baseline as the per-core reference, so a dataset run takes no
// longer than the generated corpus's.
bool runs_op(const ImageSet& set, const DecodeOp& op, bool generated, bool dct_helps) {
  if (op.kind == OpKind::loader) return true;
  if (op.kind == OpKind::loader_dct) return dct_helps;
  if (op.kind == OpKind::full) return generated || set.name == "baseline";
  return generated && set.name == "baseline";  // dct_1_2, dct_1_4
}

// Whether a set's loader cases are held to the noise target for the budget. A set of a dataset
// holding under 5% of its files is not: the budget weights it by its files, so its noise moves the
// mix by under a twentieth of itself (4 CMYK files of 512 took two groups of 5 s at a 14% noise
// that moved the mix 0.1%), and its cases stop as the others that feed no figure.
bool holds_set_to_noise(const ProbeData& data, const ImageSet& set) {
  if (!data.config.feeds_budget) return false;
  if (data.corpus.source == "generated" || data.corpus.images.empty()) return true;
  return set.images.size() * 20 >= data.corpus.images.size();
}

void register_benchmarks(ProbeData& data, const std::vector<int>& thread_counts) {
  const bool generated = data.corpus.source == "generated";
  for (const ImageSet& set : data.sets) {
    const bool dct_helps = dct_can_help(set, data.config.transform);
    if (!dct_helps) {
      add_probe_context("pipecheck_decode_dct_" + set.name,
                        "not measured: no " + set.name + " image decodes smaller than the transform reads from it");
    }
    for (const DecodeOp& op : kOps) {
      if (!runs_op(set, op, generated, dct_helps)) continue;
      const std::string key = set.name == "baseline" ? std::string(op.key) : std::string(op.key) + "_" + set.name;
      if (is_loader(op) && holds_set_to_noise(data, set)) hold_case_to_noise("decode/" + key);
      for (int threads : thread_counts) {
        benchmark::RegisterBenchmark(("decode/" + key).c_str(),
                                     [&op, &set, key](benchmark::State& state) { run_case(state, op, set, key); })
            ->Threads(threads)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}

// The GPU decode case (nvJPEG, batched, one GPU). Built lazily by its first run, so a run
// filtered to the CPU cases never touches the GPU.
struct GpuDecodeCase {
  int device = 0;
  std::vector<const JpegImage*> batch;
  std::unique_ptr<NvjpegLibrary> library;
  std::unique_ptr<GpuJpegDecoder> decoder;
  GpuBackendChoice backend;
  GpuDecodeCheck check;
  RgbImage first_output;  // image 0 of the warm-up batch: later batches must give the same bytes
  bool opened = false;

  // The decoder's nvJPEG handles, streams and buffers go before the library they came from, and
  // both before main returns: a static destroyed after exit() would call into a CUDA runtime
  // that has already shut down.
  void release() {
    decoder.reset();
    library.reset();
    opened = false;
  }
};
GpuDecodeCase& gpu_case() {
  static GpuDecodeCase gpu;
  return gpu;
}

void open_gpu_case(GpuDecodeCase& gpu) {
  gpu.opened = true;
  const auto [width, height] = max_dimensions(gpu.batch);
  gpu.backend = choose_gpu_backend([&gpu, width = width, height = height](int backend) {
    gpu.decoder.reset();
    gpu.decoder = std::make_unique<GpuJpegDecoder>(*gpu.library, gpu.device, backend,
                                                   static_cast<int>(gpu.batch.size()), width, height);
    gpu.decoder->decode(gpu.batch);  // the warm-up batch: a backend that refuses the images fails here
  });
  if (gpu.backend.backend < 0) {
    gpu.decoder.reset();
    return;
  }
  const JpegImage& first = *gpu.batch.front();
  gpu.first_output = gpu.decoder->download(0, first.header.width, first.header.height);
  gpu.check = verify_gpu_decode(gpu.first_output, first);
}

void run_gpu_case(benchmark::State& state, GpuDecodeCase& gpu) {
  if (!gpu.opened) open_gpu_case(gpu);
  if (!gpu.decoder) {
    state.SkipWithError(("no nvJPEG backend decodes this corpus: " + gpu.backend.error +
                         "; hardware: " + gpu.backend.hardware_reason).c_str());
    return;
  }
  double pixels_per_batch = 0;
  for (const JpegImage* image : gpu.batch) pixels_per_batch += static_cast<double>(image->header.width) * image->header.height;
  std::string unstable;
  try {
    for (auto _ : state) gpu.decoder->decode(gpu.batch);
    // The same bytes decode to the same pixels on the same GPU: the last batch's image 0 against
    // the warm-up's, byte for byte (gpu-burn's rule: each result against the first).
    const JpegImage& first = *gpu.batch.front();
    unstable = first_pixel_difference(gpu.decoder->download(0, first.header.width, first.header.height),
                                      gpu.first_output);
    if (!unstable.empty()) unstable = first.name + ": the last batch differs from the first: " + unstable;
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  if (!gpu.check.ok || !unstable.empty()) {
    state.SkipWithError(wrong_result_message(unstable.empty() ? gpu.check.how : unstable).c_str());
    return;
  }
  const double batches = static_cast<double>(state.iterations());
  state.counters["images_per_second"] = benchmark::Counter(batches * gpu.batch.size(), benchmark::Counter::kIsRate);
  state.counters["megapixels_per_second"] = benchmark::Counter(batches * pixels_per_batch / 1e6, benchmark::Counter::kIsRate);
  auto label = g_data->config.corpus_label;
  label["what"] = "nvJPEG GPU decode to RGB, batches of " + std::to_string(gpu.batch.size()) + ", GPU " +
                  std::to_string(gpu.device);
  label["op"] = "nvjpeg";
  label["set"] = "baseline";
  label["device"] = std::to_string(gpu.device);
  label["batch"] = std::to_string(gpu.batch.size());
  label["backend"] = gpu.backend.name;
  if (!gpu.backend.hardware_reason.empty()) label["hardware_backend"] = "not used: " + gpu.backend.hardware_reason;
  label["library"] = gpu.library->soname();
  label["verified"] = gpu.check.ok ? "yes" : "no";
  label["verify"] = gpu.check.how;
  state.SetLabel(encode_label(label));
}

// Why the GPU case cannot run here, or "" when it can.
std::string gpu_case_skip_reason(const NvjpegLibrary& library, const ProbeData& data) {
  if (!library.ok()) return nvjpeg_skip_status(library);
  if (!gpu_jpeg_decode_built()) return "skipped: GPU decode not built (no CUDA toolkit at configure time)";
  const CudaReport cuda = query_cuda_devices();
  if (cuda.devices.empty()) return "skipped: no CUDA device (" + cuda.error + ")";
  if (data.sets.empty() || data.sets.front().name != "baseline") {
    return "skipped: no baseline JPEGs in the corpus to decode on the GPU";
  }
  return "";
}

// The case stays in the list, so a filter or a compare still finds it, but times nothing: the
// driver reads the "skipped: " error as a skipped case (core/case_messages.hpp).
void register_skipped_gpu_case(const std::string& status) {
  add_probe_context("pipecheck_decode_nvjpeg", status);
  benchmark::RegisterBenchmark("decode/nvjpeg", [status](benchmark::State& state) {
    state.SkipWithError(skipped_case_message(status).c_str());
  })->Iterations(1);
}

int default_gpu_batch(ProbeMode mode) { return mode == ProbeMode::quick ? 16 : mode == ProbeMode::full ? 128 : 64; }

void register_gpu_case(ProbeData& data, const ProbeOptions& options) {
  GpuDecodeCase& gpu = gpu_case();
  gpu.device = parse_int_flag(options, "gpu", 0, 0, 1023);  // flags checked even where the case skips
  const int batch_size = parse_int_flag(options, "gpu-batch", default_gpu_batch(options.mode), 1, 4096);
  gpu.library = std::make_unique<NvjpegLibrary>();
  if (const std::string reason = gpu_case_skip_reason(*gpu.library, data); !reason.empty()) {
    register_skipped_gpu_case(reason);
    return;
  }
  gpu.batch = fill_gpu_batch(data.sets.front().images, batch_size);
  add_probe_context("pipecheck_decode_nvjpeg", "measured with " + gpu.library->soname());
  benchmark::RegisterBenchmark("decode/nvjpeg", [](benchmark::State& state) { run_gpu_case(state, gpu_case()); })
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

// --save-corpus DIR: writes the generated JPEGs, so another tool (tjbench) decodes the very
// same bytes. Only into the directory the user named.
void save_corpus(const JpegCorpus& corpus, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (const auto& image : corpus.images) {
    const auto path = std::filesystem::path(dir) / image.name;
    // Atomic and never through a link placed at the name (core/file_io.hpp).
    try {
      write_file_atomically(path, std::string(image.bytes.begin(), image.bytes.end()));
    } catch (const RunError& error) {
      throw UsageError("--save-corpus " + escape_name(dir) + ": cannot write: " + error.what());
    }
  }
}

// A flag read by one of the probe's parsers: its message, naming the flag, when it refuses.
template <typename Parse>
FlagCheck parsed_by(Parse parse) {
  return [parse](const std::string& text) {
    parse(text);
    return std::string();
  };
}

const std::vector<ProbeFlag> kFlags = {
    {"images", "DIR", "JPEG dataset folder, read recursively (default: a generated photo-like corpus)", some_text()},
    {"size", "WxH", "generated image size (default 2000x1500)",
     parsed_by([](const std::string& text) { parse_dimensions("size", text); })},
    {"quality", "N", "generated JPEG quality (default 90)", whole_number(1, 100)},
    {"count", "N", "generated images (default 6 quick, 24, 64 full)", whole_number(1, 100000)},
    {"train-size", "WxH", "the loader's tensor size: what it crops and resizes to (default 224x224)",
     parsed_by([](const std::string& text) { parse_dimensions("train-size", text); })},
    {"crop", "random-resized|center|none", "the loader's transform (default random-resized: RandomResizedCrop + flip)",
     parsed_by([](const std::string& text) { parse_crop_mode("crop", text); })},
    {"tensor", "float32|uint8", "ToTensor + Normalize (float32, default) or PILToTensor (uint8)",
     parsed_by([](const std::string& text) { parse_tensor_kind("tensor", text); })},
    {"batch", "N", "samples per batch handed from a worker to the training process (default 32)", whole_number(1, 65536)},
    {"threads", "N|LIST", "most threads (powers of two up to it) or a list such as 1,2,8",
     parsed_by([](const std::string& text) { parse_thread_counts(text); })},
    {"workers", "N", "the loader's worker count: measured beside the thread counts", whole_number(1, 4096)},
    {"decode", "accurate|fast", "libjpeg-turbo DCT and upsampling (default accurate)", one_of({"accurate", "fast"})},
    {"save-corpus", "DIR", "also write the generated JPEGs there (to decode the same bytes with tjbench)", some_text()},
    {"python", "PATH|auto|none", "the training job's python: its own loader (DataLoader, the transform) runs over the probe's images "
     "(auto: python3 on PATH when it has torch and torchvision; default none)",
     parsed_by([](const std::string& text) {
       if (text != "auto" && text != "none") choose_loader_python(text);
     })},
    {"budget", "yes|no", "the training budget reads the loader's cases (run passes yes with --workload): each is held "
     "to the noise target, not stopped with the scaling verdicts it is the reference of (default no)", one_of({"yes", "no"})},
    {"gpu", "N", "CUDA device of the nvJPEG case (default 0)", whole_number(0, 1023)},
    {"gpu-batch", "N", "images per nvJPEG batch (default 64)", whole_number(1, 4096)},
};

std::string register_cases(const ProbeOptions& options) {
  use_pillow_allocation_pattern();  // the loader's images get fresh or reused memory as Pillow's do
  static ProbeData data;
  g_data = &data;
  const auto size = parse_dimensions("size", options.last("size") ? *options.last("size") : "2000x1500");
  // The generated corpus holds `count` such images as RGB while encoding: keep to what a dataset
  // image may be (check_jpeg refuses larger ones too).
  if (static_cast<std::uint64_t>(size.first) * static_cast<std::uint64_t>(size.second) > kMaxJpegPixels) {
    throw UsageError("--size " + *options.last("size") + ": more than " + std::to_string(kMaxJpegPixels) + " pixels");
  }
  const auto train = parse_dimensions("train-size", options.last("train-size") ? *options.last("train-size") : "224x224");
  data.config.transform.width = train.first;
  data.config.transform.height = train.second;
  if (const std::string* crop = options.last("crop")) data.config.transform.crop = parse_crop_mode("crop", *crop);
  if (const std::string* tensor = options.last("tensor")) data.config.transform.tensor = parse_tensor_kind("tensor", *tensor);
  data.config.batch = parse_int_flag(options, "batch", 32, 1, 65536);
  data.config.feeds_budget = options.last("budget") && *options.last("budget") == "yes";
  if (data.config.feeds_budget) {
    add_probe_context("pipecheck_decode_held_to_noise",
                      "the loader's cases (loader, loader_dct, handover, interpreter, interpreter_main): the training budget reads them");
  }
  data.config.quality = parse_int_flag(options, "quality", 90, 1, 100);
  const int count = parse_int_flag(options, "count", static_cast<int>(default_count(options.mode)), 1, 100000);
  const int cores = usable_cpu_count();  // affinity and cgroup quota, not the machine's count
  auto thread_counts =
      options.last("threads") ? parse_thread_counts(*options.last("threads")) : default_thread_counts(cores, options.mode);
  // --workers N: the loader's worker count is measured too (the budget reads that case).
  if (options.last("workers")) {
    thread_counts = with_thread_count(thread_counts, parse_int_flag(options, "workers", 1, 1, 4096));
  }
  const std::string decode_mode = options.last("decode") ? *options.last("decode") : "accurate";
  if (decode_mode != "accurate" && decode_mode != "fast") {
    throw UsageError("--decode " + decode_mode + ": expected accurate or fast");
  }
  data.config.flags = decode_mode == "fast" ? TJFLAG_FASTDCT | TJFLAG_FASTUPSAMPLE : 0;
  add_probe_context("pipecheck_decode_flags", decode_mode == "fast" ? "fast (TJFLAG_FASTDCT | TJFLAG_FASTUPSAMPLE)" : "accurate (libjpeg-turbo defaults: islow DCT, smooth upsampling)");
  if (const std::string* dir = options.last("images")) {
    data.corpus = load_jpeg_directory(*dir, dataset_cap(options.mode));
  } else {
    GeneratedCorpusSpec spec{size.first, size.second, data.config.quality, static_cast<std::size_t>(count), TJSAMP_420, false};
    data.corpus = generate_jpeg_corpus(spec, &data.first_rgb);
    // A progressive re-encode of a few of the same scenes, so its cost shows beside baseline.
    spec.progressive = true;
    spec.count = std::min<std::size_t>(spec.count, 4);
    data.progressive_extra = generate_jpeg_corpus(spec, &data.first_progressive_rgb);
    if (const std::string* out = options.last("save-corpus")) save_corpus(data.corpus, *out);
    add_probe_context("pipecheck_decode_progressive_case", "progressive re-encode of the first " + std::to_string(spec.count) + " generated images");
  }
  describe_corpus(data.corpus, data.config);
  data.config.corpus = &data.corpus;
  build_sets(data);
  register_benchmarks(data, thread_counts);
  register_handover_case(data.config);
  if (const std::string python = choose_loader_python(options.last("python") ? *options.last("python") : "none"); !python.empty()) {
    register_interpreter_case(data.config, python);
  }
  register_gpu_case(data, options);
  return "";
}

// What `pipecheck run` checks before its first probe: --images holds a JPEG to decode.
void check_inputs(const ProbeOptions& options) {
  if (const std::string* dir = options.last("images")) check_jpeg_directory(*dir);
}

}  // namespace
}  // namespace pipecheck

int main(int argc, char** argv) {
  const int code = pipecheck::run_probe_main(argc, argv, pipecheck::stage_name::decode, "pipecheck-decode",
                                             pipecheck::register_cases, pipecheck::kFlags, pipecheck::check_inputs);
  pipecheck::gpu_case().release();  // the benchmarks have ended: nvJPEG and CUDA objects go now
  pipecheck::release_interpreter_case();  // its python ends, its folder goes
  return code;
}
