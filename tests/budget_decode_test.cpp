// The budget's decode stage: each set's rate (baseline, progressive, CMYK) weighted by its files,
// at the loader's workers; the plain path as the bound, the DCT path beside it; estimates and
// left-out sets said so.
#include "budget/budget_decode.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/figure_text.hpp"

#include "tests/measurement_records.hpp"

namespace pipecheck {
namespace {

using testing::contains;
using testing::decode_case;
using testing::measure;

// A dataset of 40 baseline, 10 progressive and 2 CMYK files, measured at 1 and 2 threads: each
// set's rate weighted by its file count (time per image averaged, so the slow set weighs more
// than its share of files), the plain path the bound, the DCT path beside it.
std::vector<Measurement> dataset_decode() {
  const std::map<std::string, std::string> corpus = {{"corpus", "/data/imgs"}, {"corpus_images", "52"}, {"baseline", "40"},
                                                     {"progressive", "10"}, {"cmyk", "2"}, {"median_size", "500x375"}};
  return {decode_case("resize_plain", "baseline", 1, 6, corpus),     decode_case("resize_plain", "baseline", 2, 12, corpus),
          decode_case("resize_plain", "progressive", 2, 4, corpus),  decode_case("resize_plain", "cmyk", 2, 3, corpus),
          decode_case("resize", "baseline", 2, 30, corpus),          decode_case("resize", "progressive", 2, 10, corpus),
          decode_case("resize", "cmyk", 2, 6, corpus),               decode_case("full", "baseline", 2, 15, corpus)};
}

std::vector<const Measurement*> pointers(const std::vector<Measurement>& ms) {
  std::vector<const Measurement*> out;
  for (const auto& m : ms) out.push_back(&m);
  return out;
}

TEST(BudgetDecode, DatasetMixWeighsEachSetByItsFiles) {
  const auto ms = dataset_decode();
  const DecodeMix mix = decode_mix(pointers(ms), parse_workload("workers=2,image=4000x3000"));
  ASSERT_TRUE(mix.plain && mix.dct);
  EXPECT_EQ(mix.threads, 2);
  EXPECT_NEAR(*mix.plain, 52 / (40 / 12.0 + 10 / 4.0 + 2 / 3.0), 1e-9);  // 8.00, not the baseline's 12
  EXPECT_NEAR(*mix.dct, 52 / (40 / 30.0 + 10 / 10.0 + 2 / 6.0), 1e-9);   // 19.5
  // A dataset's own images are measured as they are: image= does not rescale them.
  EXPECT_TRUE(contains(mix.derivation, "decode whole + resize to 640x640 (an older probe: no crop, no tensor), 2 threads on "
                                       "/data/imgs's own 52 images (median 500x375): baseline 12.0 images/s x 76.9%, "
                                       "progressive 4.00 images/s x 19.2%, cmyk 3.00 images/s x 3.8%, weighted by file count = "
                                       "8.00 samples/s; 2 workers / (250 ms a sample (no batch hand-over measured)) = 8.00 samples/s"))
      << mix.derivation;
  EXPECT_TRUE(contains(mix.derivation, "achievable with DCT scaling (Pillow draft, DALI, OpenCV IMREAD_REDUCED): 19.5 samples/s"))
      << mix.derivation;
}

TEST(BudgetDecode, WorkersPickTheThreadCount) {
  const auto ms = dataset_decode();
  EXPECT_EQ(decode_mix(pointers(ms), parse_workload("workers=1")).threads, 1);
  // One worker: only the baseline was measured at 1 thread; the others are left out, and said so.
  const DecodeMix one = decode_mix(pointers(ms), parse_workload("workers=1"));
  EXPECT_NEAR(*one.plain, 6, 1e-9);
  EXPECT_TRUE(contains(one.derivation, "not measured, left out: progressive (10 files); not measured, left out: cmyk (2 files)"))
      << one.derivation;
  // Three workers, not measured: the nearest count below, and how to measure it.
  const DecodeMix three = decode_mix(pointers(ms), parse_workload("workers=3"));
  EXPECT_EQ(three.threads, 2);
  EXPECT_TRUE(contains(three.derivation, "3 workers not measured: taken at 2 threads (pipecheck run --workload workers=3 measures them)"))
      << three.derivation;
  // No workers=: the most threads measured.
  const DecodeMix most = decode_mix(pointers(ms), parse_workload(""));
  EXPECT_EQ(most.threads, 2);
  EXPECT_TRUE(contains(most.derivation, "2 threads, the most measured (workers= sets the loader's own count)")) << most.derivation;
}

// An older probe measured progressive files in full decode only: their resize rate is estimated
// from it by the baseline's resize/full ratio, and marked so.
TEST(BudgetDecode, SetMeasuredOnlyInFullDecodeIsEstimated) {
  const std::map<std::string, std::string> corpus = {{"corpus", "/d"}, {"corpus_images", "5"}, {"baseline", "4"}, {"progressive", "1"}};
  const std::vector<Measurement> ms = {decode_case("resize_plain", "baseline", 2, 12, corpus), decode_case("full", "baseline", 2, 15, corpus),
                                       decode_case("full", "progressive", 2, 5, corpus)};
  const DecodeMix mix = decode_mix(pointers(ms), parse_workload("workers=2"));
  EXPECT_NEAR(*mix.plain, 5 / (4 / 12.0 + 1 / 4.0), 1e-9);  // progressive 5 x 12/15 = 4
  EXPECT_TRUE(contains(mix.derivation, "progressive 4.00 images/s (estimated from its full decode)")) << mix.derivation;
  EXPECT_FALSE(mix.dct.has_value());
}

// Without any plain resize case, full decode stands in as the nearest figure above it.
// The resize cases say what they resized to; a workload training at another size is told.
TEST(BudgetDecode, NamesTheProbesResizeTarget) {
  std::vector<Measurement> ms = {decode_case("full", "baseline", 2, 15), decode_case("resize_plain", "baseline", 2, 12)};
  ms[0].params.erase("train_size");  // full decode resizes nothing
  const DecodeMix mix = decode_mix(pointers(ms), parse_workload("train=224x224"));
  EXPECT_TRUE(contains(mix.derivation, "decode whole + resize to 640x640")) << mix.derivation;
  EXPECT_TRUE(contains(mix.derivation, "(the probe resized to 640x640, the workload trains at 224x224)")) << mix.derivation;
}

TEST(BudgetDecode, FullDecodeWhenNoPlainResize) {
  const std::vector<Measurement> ms = {decode_case("full", "baseline", 2, 15), decode_case("resize", "baseline", 2, 30)};
  const DecodeMix mix = decode_mix(pointers(ms), parse_workload(""));
  EXPECT_NEAR(*mix.plain, 15, 1e-9);
  EXPECT_NEAR(*mix.dct, 30, 1e-9);
  EXPECT_TRUE(contains(mix.derivation, "full decode (no loader path measured: an upper bound of it)")) << mix.derivation;
}

// The loader's path on a dataset measured at 1 and 2 threads on 2 usable CPUs, with the batch
// hand-over: 32 samples of 602 KB at 4000 samples/s (0.25 ms a sample), the training process
// 20 us a sample to receive them.
std::vector<Measurement> loader_decode(bool with_dct) {
  const std::map<std::string, std::string> corpus = {{"corpus", "/data/imgs"}, {"corpus_images", "50"}, {"baseline", "40"},
                                                     {"progressive", "10"}, {"cmyk", "0"}, {"median_size", "500x375"},
                                                     {"usable_cpus", "2"}};
  std::vector<Measurement> ms = {decode_case("loader", "baseline", 1, 200, corpus), decode_case("loader", "baseline", 2, 380, corpus),
                                 decode_case("loader", "progressive", 1, 100, corpus),
                                 decode_case("loader", "progressive", 2, 190, corpus)};
  for (auto& m : ms) {
    m.params["train_size"] = "224x224";
    m.params["crop"] = "random-resized";
    m.params["tensor"] = "float32";
    m.params["transform"] = "pil_loader convert copy, RandomResizedCrop(224x224) + RandomHorizontalFlip, ToTensor + Normalize (float32)";
  }
  if (with_dct) {
    ms.push_back(decode_case("loader_dct", "baseline", 1, 400, corpus));
    ms.back().params["dct_scaled_percent"] = "40";
  }
  ms.push_back(testing::measure("decode/handover", "decode", 4000, "images/s",
                                {{"op", "handover"}, {"threads", "1"}, {"batch", "32"}, {"sample_bytes", "602112"},
                                 {"parent_us_per_sample", "20"}, {"worker_us_per_sample", "240"}}));
  return ms;
}

// One worker on two CPUs: the worker's time a sample is the loader's path plus the hand-over;
// the training process has a CPU of its own.
TEST(BudgetDecode, OneWorkerPaysTheHandOver) {
  const auto ms = loader_decode(false);
  const DecodeMix mix = decode_mix(pointers(ms), parse_workload("workers=1,train=224x224"));
  const double path = 50 / (40 / 200.0 + 10 / 100.0);  // 166.7 samples/s at 1 thread
  ASSERT_TRUE(mix.plain);
  EXPECT_NEAR(*mix.plain, 1 / (1 / path + 1 / 4000.0), 1e-9);
  EXPECT_TRUE(contains(mix.derivation, "the loader's path (decode whole, pil_loader convert copy, RandomResizedCrop(224x224)"))
      << mix.derivation;
  EXPECT_TRUE(contains(mix.derivation, "1 worker / (6.00 ms a sample + hand-over 0.25 ms (batch 32 of 602 KB a sample, "
                                       "through shared memory)) = 160 samples/s")) << mix.derivation;
  // The images need no DCT shortcut at this crop: no DCT figure, and said so.
  EXPECT_FALSE(mix.dct);
  EXPECT_TRUE(contains(mix.derivation, "DCT scaling would not help")) << mix.derivation;
}

// Two workers on two CPUs: the training process's CPU comes out of theirs.
TEST(BudgetDecode, WorkersShareTheCpusWithTheTrainingProcess) {
  const auto ms = loader_decode(false);
  const DecodeMix mix = decode_mix(pointers(ms), parse_workload("workers=2,train=224x224"));
  const double rate2 = 50 / (40 / 380.0 + 10 / 190.0);  // 316.7 samples/s at 2 threads
  const double cpu_per_sample = 2 / rate2 + 1 / 4000.0 + 20e-6;
  ASSERT_TRUE(mix.plain);
  EXPECT_NEAR(*mix.plain, 2 / cpu_per_sample, 1e-9);
  EXPECT_LT(*mix.plain, 2 / (2 / rate2 + 1 / 4000.0));
  EXPECT_TRUE(contains(mix.derivation, "2 workers and the training process (20.0 us a sample) share 2 usable CPUs")) << mix.derivation;
}

// workers=0: the training process loads each batch, then steps; the two add up.
TEST(BudgetDecode, NoWorkerAddsTheStep) {
  const auto ms = loader_decode(false);
  const DecodeMix mix = decode_mix(pointers(ms), parse_workload("workers=0,batch=32,step_ms=5,train=224x224"));
  const double path = 50 / (40 / 200.0 + 10 / 100.0);
  EXPECT_EQ(mix.threads, 1);
  ASSERT_TRUE(mix.plain);
  EXPECT_NEAR(*mix.plain, 32 / (32 / path + 0.005), 1e-9);
  EXPECT_TRUE(contains(mix.derivation, "no worker: the training process loads each batch, then steps: batch 32 x 6.00 ms + 5.00 ms step"))
      << mix.derivation;
}

// The job's interpreter measured (2500 samples/s of its own time: 0.4 ms): every sample pays it,
// in the training process (workers=0), in each worker, and in the CPUs they share; unmeasured,
// the derivation says it is not counted.
TEST(BudgetDecode, InterpreterTimeIsAddedToEverySample) {
  auto ms = loader_decode(false);
  const double path = 50 / (40 / 200.0 + 10 / 100.0), rate2 = 50 / (40 / 380.0 + 10 / 190.0);
  EXPECT_TRUE(contains(decode_mix(pointers(ms), parse_workload("workers=1")).derivation,
                       "the training job's own loader is not measured (--workload python=PATH runs it)"));
  ms.push_back(testing::measure("decode/interpreter", "decode", 2500, "images/s",
                                {{"op", "interpreter"}, {"threads", "1"}, {"versions", "python3 3.11.2, torch 1.13.0a0, torchvision 0.14.1a0"}}));
  const DecodeMix none = decode_mix(pointers(ms), parse_workload("workers=0,batch=32,step_ms=5,train=224x224"));
  ASSERT_TRUE(none.plain);
  EXPECT_NEAR(*none.plain, 32 / (32 * (1 / path + 0.0004) + 0.005), 1e-9);
  EXPECT_TRUE(contains(none.derivation, "batch 32 x (6.00 ms + the interpreter's own 0.4 ms (python3 3.11.2, torch 1.13.0a0, "
                                        "torchvision 0.14.1a0, measured on 16x16 JPEGs)) + 5.00 ms step")) << none.derivation;
  EXPECT_FALSE(contains(none.derivation, "not measured")) << none.derivation;
  const DecodeMix one = decode_mix(pointers(ms), parse_workload("workers=1"));
  ASSERT_TRUE(one.plain);
  EXPECT_NEAR(*one.plain, 1 / (1 / path + 0.0004 + 1 / 4000.0), 1e-9);
  const DecodeMix two = decode_mix(pointers(ms), parse_workload("workers=2"));
  ASSERT_TRUE(two.plain);
  EXPECT_NEAR(*two.plain, 2 / (2 / rate2 + 0.0004 + 1 / 4000.0 + 20e-6), 1e-9);
}

// The job's own loader measured in its python (path job): 5 ms a sample as a worker, 4 ms with
// the training process's torch threads. It takes the place of the probe's path: the training
// process (workers=0) pays the 4 ms; a worker the 5 ms, slowed at 2 threads as the probe's path
// is (2 / 380 against 1 / 200 for the baseline, mixed with progressive); the DCT figure is the job's
// path sped up as the probe's path is by DCT scaling.
TEST(BudgetDecode, TheJobsOwnLoaderTakesThePlaceOfTheProbesPath) {
  auto ms = loader_decode(true);
  const std::string versions = "python3 3.11.2, torch 1.13.0a0, torchvision 0.14.1a0";
  ms.push_back(testing::measure("decode/interpreter", "decode", 200, "images/s",
                                {{"op", "interpreter"}, {"path", "job"}, {"threads", "1"}, {"versions", versions}}));
  ms.push_back(testing::measure("decode/interpreter_main", "decode", 250, "images/s",
                                {{"op", "interpreter_main"}, {"path", "job"}, {"threads", "1"}, {"versions", versions}}));
  const double path1 = 50 / (40 / 200.0 + 10 / 100.0), rate2 = 50 / (40 / 380.0 + 10 / 190.0);
  const DecodeMix none = decode_mix(pointers(ms), parse_workload("workers=0,batch=32,step_ms=5,train=224x224"));
  ASSERT_TRUE(none.plain);
  EXPECT_NEAR(*none.plain, 32 / (32 * 0.004 + 0.005), 1e-9);
  EXPECT_TRUE(contains(none.derivation, "batch 32 x (4.00 ms (the job's own loader, " + versions +
                                            ", on the probe's images, torch's default threads as the training process runs it: "
                                            "4.00 ms a sample)) + 5.00 ms step"))
      << none.derivation;
  const DecodeMix one = decode_mix(pointers(ms), parse_workload("workers=1"));
  ASSERT_TRUE(one.plain);
  EXPECT_NEAR(*one.plain, 1 / (0.005 + 1 / 4000.0), 1e-9);
  EXPECT_TRUE(contains(one.derivation, "1 worker / (5.00 ms (the job's own loader, " + versions +
                                           ", on the probe's images, as a worker: 5.00 ms a sample) a sample"))
      << one.derivation;
  const DecodeMix two = decode_mix(pointers(ms), parse_workload("workers=2"));
  ASSERT_TRUE(two.plain);
  const double worker = 0.005 * (2 / rate2) * path1;  // 5 ms x 1.05
  EXPECT_NEAR(*two.plain, 2 / (worker + 1 / 4000.0 + 20e-6), 1e-9);
  EXPECT_TRUE(contains(two.derivation, "5.00 ms a sample x 1.05 (the probe's path at 2 threads against 1: 1.05 (the ratio of its medians))"))
      << two.derivation;
  // DCT scaling: the baseline's 1-thread loader_dct at 400 against 200 (the progressive set has no
  // DCT case: its loader rate), the job's 5 ms scaled by that mixed path against the plain one.
  const double dct1 = 50 / (40 / 400.0 + 10 / 100.0);
  ASSERT_TRUE(one.dct);
  EXPECT_NEAR(*one.dct, 1 / (0.005 * path1 / dct1 + 1 / 4000.0), 1e-9);
}

// The probe's per-set times of the job's loader: each set's mean weighted by the dataset's files
// (40 baseline, 10 progressive), at the fast end of its interval; the training process adds its
// DataLoader's collate, a worker the hand-over instead.
std::vector<Measurement> with_job_sets() {
  auto ms = loader_decode(false);
  const std::map<std::string, std::string> sets = {{"job_ms_baseline", "4"},    {"job_sd_ms_baseline", "1"},
                                                    {"job_n_baseline", "400"},   {"job_ms_progressive", "10"},
                                                    {"job_sd_ms_progressive", "2"}, {"job_n_progressive", "40"},
                                                    {"job_other_ms", "0.25"},    {"path", "job"}, {"threads", "1"}};
  for (const char* op : {"interpreter", "interpreter_main"}) {
    auto params = sets;
    params["op"] = op;
    ms.push_back(testing::measure(std::string("decode/") + op, "decode", 999, "images/s", params));
  }
  return ms;
}

// Repetitions of the 1- and 2-thread loader cases as taken side by side.
void set_repetitions(std::vector<Measurement>& ms, const std::vector<double>& one, const std::vector<double>& two) {
  for (Measurement& m : ms) {
    if (param_or_empty(m.params, "op") != "loader") continue;
    const double scale = param_or_empty(m.params, "set") == "progressive" ? 0.5 : 1;
    m.repetitions.clear();
    for (double r : param_or_empty(m.params, "threads") == "1" ? one : two) m.repetitions.push_back(r * scale);
    m.interleaved = true;
  }
}

TEST(BudgetDecode, TheJobsLoaderWeighsItsSetsByTheDatasetsFiles) {
  auto ms = with_job_sets();
  const double fast = 5.2e-3 - 1.96 * std::sqrt(0.64 / 400 + 0.04 * 4 / 40) * 1e-3;  // job_loader_time_test
  const DecodeMix none = decode_mix(pointers(ms), parse_workload("workers=0,batch=32,step_ms=5"));
  ASSERT_TRUE(none.plain);
  EXPECT_NEAR(*none.plain, 32 / (32 * (fast + 0.25e-3) + 0.005), 1e-6);
  EXPECT_TRUE(contains(none.derivation, "baseline 4.00 ms x 80.0%, progressive 10.0 ms x 20.0% = 5.20 ms a sample, the fast end of its "
                                        "95% interval 5.05 ms (440 samples) + its DataLoader's collate 0.25 ms; 5.30 ms a sample"))
      << none.derivation;
  const DecodeMix one = decode_mix(pointers(ms), parse_workload("workers=1"));
  ASSERT_TRUE(one.plain);
  EXPECT_NEAR(*one.plain, 1 / (fast + 1 / 4000.0), 1e-6);
  // Two workers: the 1- and 2-thread pairs straddle 1 (1.05, 0.95, ...): the workers are not slowed.
  set_repetitions(ms, {200, 200, 200, 200, 200, 200, 200}, {380, 420, 390, 410, 400, 385, 415});
  const DecodeMix two = decode_mix(pointers(ms), parse_workload("workers=2"));
  ASSERT_TRUE(two.plain);
  EXPECT_NEAR(*two.plain, 2 / (fast + 1 / 4000.0 + 20e-6), 1e-6);
  EXPECT_TRUE(contains(two.derivation, "x 1 (the probe's path at 2 threads against 1: ")) << two.derivation;
  EXPECT_TRUE(contains(two.derivation, "(14 pairs), within its noise of 1)")) << two.derivation;
  // Pairs all above 1 (1.25 to 1.33): slowed, by the interval's end nearest 1.
  set_repetitions(ms, {200, 200, 200, 200, 200, 200, 200}, {320, 300, 310, 305, 315, 300, 310});
  const DecodeMix slowed = decode_mix(pointers(ms), parse_workload("workers=2"));
  ASSERT_TRUE(slowed.plain);
  EXPECT_LT(*slowed.plain, 2 / (fast * 1.25 + 1 / 4000.0 + 20e-6) + 1e-9);
  EXPECT_GT(*slowed.plain, 2 / (fast * 1.34 + 1 / 4000.0 + 20e-6));
  EXPECT_TRUE(contains(slowed.derivation, "its end nearest 1)")) << slowed.derivation;
}

// Where a loader_dct case shows decodes that shrink, the DCT figure is offered; a set without
// one counts at its loader rate.
TEST(BudgetDecode, DctFigureOnlyWhereItHelps) {
  const auto ms = loader_decode(true);
  const DecodeMix mix = decode_mix(pointers(ms), parse_workload("workers=1,train=224x224"));
  ASSERT_TRUE(mix.plain && mix.dct);
  const double dct_path = 50 / (40 / 400.0 + 10 / 100.0);
  EXPECT_NEAR(*mix.dct, 1 / (1 / dct_path + 1 / 4000.0), 1e-9);
  EXPECT_GT(*mix.dct, *mix.plain);
}

// A workload asking for another transform than the probe measured is told.
TEST(BudgetDecode, NamesAnotherTransformThanMeasured) {
  const auto ms = loader_decode(false);
  const DecodeMix mix = decode_mix(pointers(ms), parse_workload("workers=1,train=224x224,crop=center,tensor=uint8"));
  EXPECT_TRUE(contains(mix.derivation, "(the probe measured crop random-resized, float32 tensors; the workload says crop center, uint8)"))
      << mix.derivation;
}

}  // namespace
}  // namespace pipecheck
