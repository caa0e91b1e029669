// The pipeline budget: a training workload (image size, bytes per image, batch, step time) turns
// every stage's measured ceiling into samples/s, and names the stage that bounds training.
#pragma once

#include <optional>
#include <string>

#include "core/inventory.hpp"
#include "reports/report.hpp"
#include "reports/verdict.hpp"

namespace pipecheck {

// `--workload image=2000x1500,bytes=450KB,batch=256,step_ms=120`; keys in pipeline_budget.cpp.
struct Workload {
  std::optional<int> image_width;   // image=WxH: the stored (encoded) image's pixels
  std::optional<int> image_height;
  double bytes_per_image = 0;       // bytes=450KB: encoded size on disk (required)
  std::optional<int> train_width;   // train=WxH: the tensor size fed to the GPU
  std::optional<int> train_height;
  std::optional<int> batch;         // batch=256: per-GPU batch
  std::optional<double> step_ms;    // step_ms=120: one training step on one GPU
  std::optional<int> gpus;          // gpus=8: data-parallel GPUs (default: GPUs in the inventory)
  bool loose_files = true;          // layout=loose|packed: one file per image, or shards
  std::string data;                 // data=nvme0n1 or a path: the disk the dataset is on
  std::string text;                 // as given
};

// Throws UsageError naming the key and what is wrong ("--workload: bytes=45XB: ...").
Workload parse_workload(const std::string& text);
// "2000x1500 images of 450 KB, batch 256, 120 ms/step, 8 GPUs, loose files"
std::string describe(const Workload& workload);

// Each stage's samples/s from the measurements (ceilings attached), the lowest named.
PipelineBudget pipeline_budget(const Report& report, const Inventory& inventory,
                               const Workload& workload);

}  // namespace pipecheck
