// --workload parsing: every key, size suffixes, and errors that name the key and what is wrong.
#include "budget/workload.hpp"

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
  const Workload w = parse_workload("image=2000x1500, bytes=450KB,batch=256,step_ms=120,train=224x224,gpus=2,layout=packed,data=nvme0n1,workers=6");
  EXPECT_EQ(w.image_width, 2000);
  EXPECT_EQ(w.image_height, 1500);
  EXPECT_DOUBLE_EQ(*w.bytes_per_image, 450e3);
  EXPECT_EQ(w.workers, 6);
  EXPECT_EQ(w.batch, 256);
  EXPECT_EQ(w.step_ms, 120);
  EXPECT_EQ(w.train_width, 224);
  EXPECT_EQ(w.gpus, 2);
  EXPECT_FALSE(w.loose_files);
  EXPECT_EQ(w.data, "nvme0n1");
  EXPECT_EQ(describe(w), "2000x1500 images of 450 KB, trained at 224x224 (crop random-resized, float32 tensors), batch 256, 120 ms/step, 2 GPUs, 6 loader workers, packed shards, data on nvme0n1");
}

// Every key is optional: a dataset the probes read gives its own sizes.
TEST(WorkloadParse, NothingIsRequired) {
  const Workload w = parse_workload("workers=1,train=640x640");
  EXPECT_FALSE(w.bytes_per_image.has_value());
  EXPECT_EQ(describe(w), "images, trained at 640x640 (crop random-resized, float32 tensors), 1 loader worker, loose files");
  EXPECT_EQ(describe(parse_workload("")), "images, loose files");
}

// The loader's transform: training's RandomResizedCrop and float tensors unless the workload says
// otherwise; workers=0 is DataLoader's num_workers=0 (the training process loads).
TEST(WorkloadParse, LoaderTransformKeys) {
  const Workload defaults = parse_workload("train=224x224");
  EXPECT_EQ(defaults.crop, "random-resized");
  EXPECT_EQ(defaults.tensor, "float32");
  EXPECT_EQ(tensor_value_bytes(defaults), 4);
  const Workload eval = parse_workload("train=224x224,crop=center,tensor=uint8,workers=0");
  EXPECT_EQ(eval.crop, "center");
  EXPECT_EQ(eval.tensor, "uint8");
  EXPECT_EQ(tensor_value_bytes(eval), 1);
  EXPECT_EQ(eval.workers, 0);
  EXPECT_EQ(describe(eval), "images, trained at 224x224 (crop center, uint8 tensors), no loader worker (the training process loads), loose files");
  EXPECT_EQ(parse_workload("crop=none").crop, "none");
}

TEST(WorkloadParse, SizeSuffixes) {
  EXPECT_DOUBLE_EQ(*parse_workload("bytes=300KiB").bytes_per_image, 307200);
  EXPECT_DOUBLE_EQ(*parse_workload("bytes=1.5MB").bytes_per_image, 1.5e6);
  EXPECT_DOUBLE_EQ(*parse_workload("bytes=2MiB").bytes_per_image, 2 * 1048576.0);
  EXPECT_DOUBLE_EQ(*parse_workload("bytes=4096").bytes_per_image, 4096);
  EXPECT_DOUBLE_EQ(*parse_workload("bytes=450kb").bytes_per_image, 450e3);
}

TEST(WorkloadParse, ErrorsNameTheKey) {
  EXPECT_EQ(error_of("bytes=45XB"), "--workload: bytes=45XB: expected a size like 450KB, 1.2MB or 300KiB");
  EXPECT_TRUE(contains(error_of("bytes=1KB,imgae=2x2"), "--workload: unknown key 'imgae' (keys: batch, bytes, crop, data, gpus, image, layout, python, step_ms, tensor, train, workers)"))
      << error_of("bytes=1KB,imgae=2x2");
  EXPECT_TRUE(contains(error_of("workers=-1"), "workers=-1: expected a whole number, 0 or more")) << error_of("workers=-1");
  EXPECT_TRUE(contains(error_of("workers=two"), "workers=two: expected a whole number, 0 or more"));
  EXPECT_EQ(error_of("crop=bogus"), "--workload: crop=bogus: expected random-resized, center or none");
  EXPECT_EQ(error_of("tensor=int7"), "--workload: tensor=int7: expected float32 or uint8");
  EXPECT_EQ(error_of("bytes=1KB,step_ms=100"), "--workload: step_ms= needs batch= (samples per GPU step)");
  EXPECT_TRUE(contains(error_of("bytes=1KB,image=2000by1500"), "image=2000by1500: expected WIDTHxHEIGHT")) << error_of("bytes=1KB,image=2000by1500");
  EXPECT_TRUE(contains(error_of("bytes=1KB,batch=0"), "batch=0: expected a whole number above 0"));
  EXPECT_TRUE(contains(error_of("bytes=1KB,step_ms=fast"), "step_ms=fast: expected milliseconds"));
  EXPECT_TRUE(contains(error_of("bytes=1KB,layout=zip"), "layout=zip: expected loose"));
  EXPECT_EQ(error_of("bytes=1KB,bytes=2KB"), "--workload: bytes given twice");
  EXPECT_TRUE(contains(error_of("bytes=1KB,batch"), "'batch': expected key=value"));
}

}  // namespace
}  // namespace pipecheck
