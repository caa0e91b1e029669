// The pipeline budget: each stage's samples/s arithmetic, the decode stage's dataset mix at the
// loader's workers, storage from the dataset's own cold reads, and the stage named as the bound.
#include "budget/pipeline_budget.hpp"

#include <gtest/gtest.h>

#include "tests/measurement_records.hpp"

#include "core/errors.hpp"

namespace pipecheck {
namespace {

using testing::contains;
using testing::decode_case;
using testing::measure;

// A recorded machine: NVMe at 6.3 GB/s, decode + resize 700 images/s plain and 1000 DCT-scaled
// at 8 threads, memcpy 100 GB/s, two GPUs with pinned H2D 50 and 40 GB/s.
Report machine(double rand_gbps = 0.4) {
  Report report;
  report.probes.push_back({"pipecheck-storage", "storage", ProbeStatus::ok, "", 1,
                           {measure("storage/seq_read/nvme", "storage", 6.3, "GB/s",
                                    {{"pattern", "seq_read"}, {"device", "nvme0n1"}, {"target", "file"}}),
                            measure("storage/rand_read/nvme", "storage", rand_gbps, "GB/s",
                                    {{"pattern", "rand_read"}, {"device", "nvme0n1"}, {"bs", "4096"}, {"target", "file"}}),
                            measure("storage/seq_read/scratch", "storage", 0.2, "GB/s",
                                    {{"pattern", "seq_read"}, {"device", "sda"}, {"target", "scratch_file"}})},
                           {}});
  report.probes.push_back({"pipecheck-decode", "decode", ProbeStatus::ok, "", 1,
                           {decode_case("resize_plain", "baseline", 4, 400), decode_case("resize_plain", "baseline", 8, 700),
                            decode_case("resize", "baseline", 4, 600), decode_case("resize", "baseline", 8, 1000),
                            decode_case("full", "baseline", 8, 1500)},
                           {}});
  report.probes.push_back({"pipecheck-hostmem", "hostmem", ProbeStatus::ok, "", 1,
                           {measure("hostmem/memcpy/threads:1", "hostmem", 10, "GB/s", {{"op", "memcpy"}, {"threads", "1"}}),
                            measure("hostmem/memcpy/threads:32", "hostmem", 100, "GB/s", {{"op", "memcpy"}, {"threads", "32"}})},
                           {}});
  report.probes.push_back({"pipecheck-pcie", "pcie", ProbeStatus::ok, "", 1,
                           {measure("pcie/h2d/pinned/gpu0", "pcie", 50, "GB/s", {{"direction", "h2d"}, {"host_memory", "pinned"}, {"gpu", "0"}}),
                            measure("pcie/h2d/pinned/gpu1", "pcie", 40, "GB/s", {{"direction", "h2d"}, {"host_memory", "pinned"}, {"gpu", "1"}}),
                            measure("pcie/h2d/pageable/gpu0", "pcie", 9, "GB/s", {{"direction", "h2d"}, {"host_memory", "pageable"}, {"gpu", "0"}})},
                           {}});
  return report;
}

const BudgetStage& stage(const PipelineBudget& budget, const std::string& name) {
  for (const auto& s : budget.stages) {
    if (s.stage == name) return s;
  }
  static const BudgetStage none{};
  ADD_FAILURE() << "no budget stage " << name;
  return none;
}

TEST(PipelineBudget, EveryStageInSamplesAndTheBound) {
  const Workload w = parse_workload("image=2000x1500,bytes=450KB,batch=256,step_ms=120,train=224x224,gpus=2");
  const PipelineBudget budget = pipeline_budget(machine(), {}, w);
  ASSERT_EQ(budget.stages.size(), 5u);
  EXPECT_NEAR(*stage(budget, "storage").samples_per_second, 6.3e9 / 450e3, 1);       // 14000; IOPS 97656 higher
  EXPECT_NEAR(*stage(budget, "decode").samples_per_second, 700, 1e-9);                // plain resize, most threads
  // float32 tensors (ToTensor + Normalize, the workload's default): 4 bytes a value.
  EXPECT_NEAR(*stage(budget, "hostmem").samples_per_second, 50e9 / (224 * 224 * 3 * 4), 1);  // memcpy / 2
  EXPECT_NEAR(*stage(budget, "pcie").samples_per_second, 2 * 40e9 / (224 * 224 * 3 * 4), 1);  // slowest GPU x 2
  EXPECT_NEAR(*stage(budget, "gpu_step").samples_per_second, 2 * 256 / 0.120, 1e-6);
  EXPECT_EQ(budget.bounding_stage, "decode");
  EXPECT_TRUE(contains(budget.explanation, "training is bounded by decode at 700 samples/s")) << budget.explanation;
  EXPECT_TRUE(contains(budget.explanation, "with DCT scaling (Pillow draft, DALI, OpenCV IMREAD_REDUCED) decode would give 1000 samples/s"))
      << budget.explanation;
  EXPECT_TRUE(contains(budget.explanation, "they would wait 83.6% of the time")) << budget.explanation;
  EXPECT_TRUE(contains(stage(budget, "storage").derivation, "nvme0n1: sequential O_DIRECT 6.30 GB/s / 450 KB per image"))
      << stage(budget, "storage").derivation;  // the scratch disk sda is not the data disk
}

// tensor=uint8 (PILToTensor, normalised on the GPU): a quarter of float32's bytes to copy.
TEST(PipelineBudget, Uint8TensorsCopyAQuarterOfTheBytes) {
  const PipelineBudget budget = pipeline_budget(machine(), {}, parse_workload("train=224x224,tensor=uint8"));
  EXPECT_NEAR(*stage(budget, "hostmem").samples_per_second, 50e9 / (224 * 224 * 3), 1);
  EXPECT_TRUE(contains(stage(budget, "hostmem").derivation, "224x224x3 uint8 = 151 KB per tensor")) << stage(budget, "hostmem").derivation;
}

TEST(PipelineBudget, GpuBoundWhenTheStepIsSlow) {
  const Workload w = parse_workload("image=2000x1500,bytes=450KB,batch=256,step_ms=1000,train=224x224,gpus=2");
  const PipelineBudget budget = pipeline_budget(machine(), {}, w);
  EXPECT_EQ(budget.bounding_stage, "gpu_step");
  EXPECT_TRUE(contains(budget.explanation, "keeps up with the GPUs")) << budget.explanation;
}

TEST(PipelineBudget, DecodeScalesByPixels) {
  const PipelineBudget budget = pipeline_budget(machine(), {}, parse_workload("image=4000x3000,bytes=450KB"));
  EXPECT_NEAR(*stage(budget, "decode").samples_per_second, 175, 1e-9);
  EXPECT_FALSE(stage(budget, "gpu_step").samples_per_second.has_value());
}

TEST(PipelineBudget, LooseFilesOnSlowRandomReadsBoundStorage) {
  // 180 IOPS of 4 KiB.
  const PipelineBudget budget = pipeline_budget(machine(180 * 4096 / 1e9), {}, parse_workload("image=2000x1500,bytes=450KB"));
  EXPECT_NEAR(*stage(budget, "storage").samples_per_second, 180, 1e-6);
  EXPECT_EQ(budget.bounding_stage, "storage");
  const PipelineBudget packed =
      pipeline_budget(machine(180 * 4096 / 1e9), {}, parse_workload("image=2000x1500,bytes=450KB,layout=packed"));
  EXPECT_NEAR(*stage(packed, "storage").samples_per_second, 14000, 1);
}

TEST(PipelineBudget, DataKeyChoosesTheDisk) {
  const PipelineBudget budget = pipeline_budget(machine(), {}, parse_workload("bytes=450KB,data=sda,layout=packed"));
  EXPECT_NEAR(*stage(budget, "storage").samples_per_second, 0.2e9 / 450e3, 1e-6);
  // Without image= or train= the tensor size is unknown: those stages say so.
  EXPECT_FALSE(stage(budget, "pcie").samples_per_second.has_value());
  EXPECT_TRUE(contains(stage(budget, "pcie").derivation, "give image= or train="));
}

TEST(PipelineBudget, GpuCountDefaultsToTheInventory) {
  Inventory inventory;
  inventory.gpus.resize(4);
  const PipelineBudget budget = pipeline_budget(machine(), inventory, parse_workload("bytes=450KB,batch=100,step_ms=100"));
  EXPECT_NEAR(*stage(budget, "gpu_step").samples_per_second, 4000, 1e-6);
}

// A dataset read by the loader's workers gives files/s itself: no bytes= needed, the workers=
// count chosen, and more parallel reads pointed at when the disk gives more.
Report dataset_reads() {
  auto read = [](const std::string& pattern, int threads, double gbps, const std::string& qd) {
    return measure("storage/" + pattern + "/vda", "storage", gbps, "GB/s",
                   {{"pattern", pattern}, {"device", "vda"}, {"target", "directory"}, {"path", "/data/imgs"},
                    {"threads", std::to_string(threads)}, {"qd", qd}, {"mean_file_bytes", "450000"},
                    {"files", "1000"}, {"size_bytes", "400000000"}});
  };
  Report report;
  report.probes.push_back({"pipecheck-storage", "storage", ProbeStatus::ok, "", 1,
                           {read("pread_baseline", 1, 0.0675, "1"), read("dataset_read_workers", 4, 0.18, "1"),
                            read("dataset_read", 1, 0.9, "32"),
                            measure("storage/seq_read/scratch", "storage", 2.0, "GB/s",
                                    {{"pattern", "seq_read"}, {"device", "vda"}, {"target", "scratch_file"}})},
                           {}});
  return report;
}

TEST(PipelineBudget, StorageFromTheDatasetsOwnColdReads) {
  const PipelineBudget four = pipeline_budget(dataset_reads(), {}, parse_workload("workers=4"));
  EXPECT_NEAR(*stage(four, "storage").samples_per_second, 0.18e9 / 450000, 1e-6);  // 400 files/s
  EXPECT_TRUE(contains(stage(four, "storage").derivation,
                       "/data/imgs on vda: whole files read cold by 4 workers (pread, page cache): 400 files/s, 180 MB/s "
                       "(450 KB per file) = 400 samples/s; 32 reads in flight gave 900 MB/s (2000 files/s): more workers or "
                       "prefetch would read faster"))
      << stage(four, "storage").derivation;
  const PipelineBudget one = pipeline_budget(dataset_reads(), {}, parse_workload("workers=1"));
  EXPECT_NEAR(*stage(one, "storage").samples_per_second, 150, 1e-6);  // 67.5 MB/s / 450 KB
  const PipelineBudget eight = pipeline_budget(dataset_reads(), {}, parse_workload("workers=8"));
  EXPECT_NEAR(*stage(eight, "storage").samples_per_second, 400, 1e-6);
  EXPECT_TRUE(contains(stage(eight, "storage").derivation, "(8 workers not measured: pipecheck run --workload workers=8 measures them)"))
      << stage(eight, "storage").derivation;
  // Three, not measured: the nearest count below (1), not the most (4).
  const PipelineBudget three = pipeline_budget(dataset_reads(), {}, parse_workload("workers=3"));
  EXPECT_NEAR(*stage(three, "storage").samples_per_second, 150, 1e-6);
}

// A loader reads through the page cache: the cold buffered figure is its sequential ceiling
// where measured, not O_DIRECT's; the scratch file is named as the disk, not the dataset.
TEST(PipelineBudget, ColdReadsBeforeDirectOnes) {
  Report report;
  report.probes.push_back({"pipecheck-storage", "storage", ProbeStatus::ok, "", 1,
                           {measure("storage/seq_read/vda", "storage", 1.79, "GB/s",
                                    {{"pattern", "seq_read"}, {"device", "vda"}, {"target", "scratch_file"}}),
                            measure("storage/seq_read_buffered_cold/vda", "storage", 1.19, "GB/s",
                                    {{"pattern", "seq_read_buffered_cold"}, {"device", "vda"}, {"target", "scratch_file"}})},
                           {}});
  const PipelineBudget budget = pipeline_budget(report, {}, parse_workload("bytes=500KB,layout=packed"));
  EXPECT_NEAR(*stage(budget, "storage").samples_per_second, 1.19e9 / 500e3, 1e-6);
  EXPECT_TRUE(contains(stage(budget, "storage").derivation,
                       "vda: sequential cold through the page cache, as a loader reads, 1.19 GB/s / 500 KB per image = "
                       "2380 samples/s (O_DIRECT: 1.79 GB/s) (the probe's scratch file: the disk, not the dataset"))
      << stage(budget, "storage").derivation;
  // Without bytes= and no dataset read, the disk's GB/s cannot become samples/s: said so.
  const PipelineBudget no_bytes = pipeline_budget(report, {}, parse_workload("layout=packed"));
  EXPECT_FALSE(stage(no_bytes, "storage").samples_per_second.has_value());
  EXPECT_TRUE(contains(stage(no_bytes, "storage").derivation, "give bytes=")) << stage(no_bytes, "storage").derivation;
}

}  // namespace
}  // namespace pipecheck
