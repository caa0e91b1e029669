// The training workload the pipeline budget is computed for: `--workload` text in, a record out.
#pragma once

#include <optional>
#include <string>

namespace pipecheck {

// `--workload image=2000x1500,bytes=450KB,batch=256,step_ms=120,workers=8`; keys in workload.cpp.
struct Workload {
  std::optional<int> image_width;   // image=WxH: the stored (encoded) image's pixels
  std::optional<int> image_height;
  std::optional<double> bytes_per_image;  // bytes=450KB: encoded size on disk; a measured
                                          // dataset gives its own
  std::optional<int> train_width;   // train=WxH: the tensor size fed to the GPU
  std::optional<int> train_height;
  std::optional<int> batch;         // batch=256: per-GPU batch
  std::optional<double> step_ms;    // step_ms=120: one training step on one GPU
  std::optional<int> gpus;          // gpus=8: data-parallel GPUs (default: GPUs in the inventory)
  std::optional<int> workers;       // workers=8: the data loader's worker processes (0: the
                                    // training process loads, as num_workers=0)
  // crop=random-resized|center|none: RandomResizedCrop + RandomHorizontalFlip (training), Resize +
  // CenterCrop (evaluation) or a plain resize to train=; what the decode probe measures.
  std::string crop = "random-resized";
  // tensor=float32|uint8: ToTensor + Normalize (4 bytes a value) or PILToTensor (1 byte).
  std::string tensor = "float32";
  bool loose_files = true;          // layout=loose|packed: one file per image, or shards
  std::string data;                 // data=nvme0n1 or a path: the disk the dataset is on
  std::string python = "auto";      // python=PATH|auto|none: the job's interpreter, measured
  std::string text;                 // as given
};

// The loader transform's values, in the words the workload and the decode probe share.
inline constexpr const char* kCropModes[] = {"random-resized", "center", "none"};
inline constexpr const char* kTensorKinds[] = {"float32", "uint8"};

// Bytes of one value of the sample's tensor: 4 for float32, 1 for uint8.
int tensor_value_bytes(const Workload& workload);

// Throws UsageError naming the key and what is wrong ("--workload: bytes=45XB: ...").
Workload parse_workload(const std::string& text);
// "2000x1500 images of 450 KB, batch 256, 120 ms/step, 8 GPUs, 8 loader workers, loose files"
std::string describe(const Workload& workload);

// "450 KB", "1.20 MB": decimal units, as disks are sold.
std::string bytes_words(double bytes);

}  // namespace pipecheck
