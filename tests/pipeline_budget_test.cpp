// The pipeline budget: --workload parsing with its errors, each stage's samples/s arithmetic,
// and the stage named as the bound.
#include "reports/pipeline_budget.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string error_of(const std::string& text) {
  try {
    parse_workload(text);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(WorkloadParse, AllKeys) {
  const Workload w = parse_workload("image=2000x1500, bytes=450KB,batch=256,step_ms=120,train=224x224,gpus=2,layout=packed,data=nvme0n1");
  EXPECT_EQ(w.image_width, 2000);
  EXPECT_EQ(w.image_height, 1500);
  EXPECT_DOUBLE_EQ(w.bytes_per_image, 450e3);
  EXPECT_EQ(w.batch, 256);
  EXPECT_EQ(w.step_ms, 120);
  EXPECT_EQ(w.train_width, 224);
  EXPECT_EQ(w.gpus, 2);
  EXPECT_FALSE(w.loose_files);
  EXPECT_EQ(w.data, "nvme0n1");
  EXPECT_EQ(describe(w), "2000x1500 images of 450 KB, trained at 224x224, batch 256, 120 ms/step, 2 GPUs, packed shards, data on nvme0n1");
}

TEST(WorkloadParse, SizeSuffixes) {
  EXPECT_DOUBLE_EQ(parse_workload("bytes=300KiB").bytes_per_image, 307200);
  EXPECT_DOUBLE_EQ(parse_workload("bytes=1.5MB").bytes_per_image, 1.5e6);
  EXPECT_DOUBLE_EQ(parse_workload("bytes=2MiB").bytes_per_image, 2 * 1048576.0);
  EXPECT_DOUBLE_EQ(parse_workload("bytes=4096").bytes_per_image, 4096);
  EXPECT_DOUBLE_EQ(parse_workload("bytes=450kb").bytes_per_image, 450e3);
}

TEST(WorkloadParse, ErrorsNameTheKey) {
  EXPECT_EQ(error_of("bytes=45XB"), "--workload: bytes=45XB: expected a size like 450KB, 1.2MB or 300KiB");
  EXPECT_TRUE(contains(error_of("bytes=1KB,imgae=2x2"), "--workload: unknown key 'imgae' (keys: batch, bytes, data, gpus, image,"))
      << error_of("bytes=1KB,imgae=2x2");
  EXPECT_EQ(error_of("image=2000x1500"), "--workload: bytes= is required (encoded bytes per image, like bytes=450KB)");
  EXPECT_EQ(error_of("bytes=1KB,step_ms=100"), "--workload: step_ms= needs batch= (samples per GPU step)");
  EXPECT_TRUE(contains(error_of("bytes=1KB,image=2000by1500"), "image=2000by1500: expected WIDTHxHEIGHT")) << error_of("bytes=1KB,image=2000by1500");
  EXPECT_TRUE(contains(error_of("bytes=1KB,batch=0"), "batch=0: expected a whole number above 0"));
  EXPECT_TRUE(contains(error_of("bytes=1KB,step_ms=fast"), "step_ms=fast: expected milliseconds"));
  EXPECT_TRUE(contains(error_of("bytes=1KB,layout=zip"), "layout=zip: expected loose"));
  EXPECT_EQ(error_of("bytes=1KB,bytes=2KB"), "--workload: bytes given twice");
  EXPECT_TRUE(contains(error_of("bytes=1KB,batch"), "'batch': expected key=value"));
}

Measurement measure(const std::string& key, const std::string& stage, double median, const std::string& unit,
                    std::map<std::string, std::string> params) {
  Measurement m;
  m.key = key;
  m.stage = stage;
  m.what = key;
  m.unit = unit;
  m.stats = {median, median, median, 5};
  m.params = std::move(params);
  return m;
}

// A recorded machine: NVMe at 6.3 GB/s, decode 1000 images/s at 8 threads, memcpy 100 GB/s,
// two GPUs with pinned H2D 50 and 40 GB/s.
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
  report.probes.push_back({"pipecheck-jpeg", "decode", ProbeStatus::ok, "", 1,
                           {measure("decode/resize/threads:4", "decode", 600, "images/s",
                                    {{"op", "resize"}, {"set", "baseline"}, {"threads", "4"}, {"median_size", "2000x1500"}}),
                            measure("decode/resize/threads:8", "decode", 1000, "images/s",
                                    {{"op", "resize"}, {"set", "baseline"}, {"threads", "8"}, {"median_size", "2000x1500"}}),
                            measure("decode/full/threads:8", "decode", 1500, "images/s",
                                    {{"op", "full"}, {"set", "baseline"}, {"threads", "8"}, {"median_size", "2000x1500"}})},
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
  EXPECT_NEAR(*stage(budget, "decode").samples_per_second, 1000, 1e-9);               // resize, most threads
  EXPECT_NEAR(*stage(budget, "hostmem").samples_per_second, 50e9 / (224 * 224 * 3), 1);  // memcpy / 2
  EXPECT_NEAR(*stage(budget, "pcie").samples_per_second, 2 * 40e9 / (224 * 224 * 3), 1);  // slowest GPU x 2
  EXPECT_NEAR(*stage(budget, "gpu_step").samples_per_second, 2 * 256 / 0.120, 1e-6);
  EXPECT_EQ(budget.bounding_stage, "decode");
  EXPECT_TRUE(contains(budget.explanation, "training is bounded by decode at 1000 samples/s")) << budget.explanation;
  EXPECT_TRUE(contains(budget.explanation, "they would wait 76.6% of the time")) << budget.explanation;
  EXPECT_TRUE(contains(stage(budget, "storage").derivation, "nvme0n1: sequential 6.30 GB/s / 450 KB per image"))
      << stage(budget, "storage").derivation;  // the scratch disk sda is not the data disk
}

TEST(PipelineBudget, GpuBoundWhenTheStepIsSlow) {
  const Workload w = parse_workload("image=2000x1500,bytes=450KB,batch=256,step_ms=1000,train=224x224,gpus=2");
  const PipelineBudget budget = pipeline_budget(machine(), {}, w);
  EXPECT_EQ(budget.bounding_stage, "gpu_step");
  EXPECT_TRUE(contains(budget.explanation, "keeps up with the GPUs")) << budget.explanation;
}

TEST(PipelineBudget, DecodeScalesByPixels) {
  const PipelineBudget budget = pipeline_budget(machine(), {}, parse_workload("image=4000x3000,bytes=450KB"));
  EXPECT_NEAR(*stage(budget, "decode").samples_per_second, 250, 1e-9);
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

}  // namespace
}  // namespace pipecheck
