// What a torchvision training loader does to each decoded image before it becomes a batch: the
// crop and resize (RandomResizedCrop + RandomHorizontalFlip, Resize + CenterCrop, or a plain
// resize) and the tensor (ToTensor + Normalize to float32, or PILToTensor's uint8), with the
// copy pil_loader's convert("RGB") makes. The decode probe times this path; the tests hold it to
// torchvision's own output (tests/data/torchvision).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "decode/jpeg_decoder.hpp"
#include "decode/pillow_image.hpp"

namespace pipecheck {

enum class CropMode { random_resized, center, none };
enum class TensorKind { float32, uint8 };

// The workload's words (budget/workload.hpp): "random-resized", "center", "none"; "float32", "uint8".
std::string crop_mode_name(CropMode mode);
std::string tensor_kind_name(TensorKind kind);
// Throws UsageError naming the flag: "--crop bogus: expected random-resized, center or none".
CropMode parse_crop_mode(const std::string& flag, const std::string& text);
TensorKind parse_tensor_kind(const std::string& flag, const std::string& text);

struct LoaderTransform {
  int width = 224;   // train=WxH: the tensor's spatial size
  int height = 224;
  CropMode crop = CropMode::random_resized;
  TensorKind tensor = TensorKind::float32;
};

// The loader's per-sample path in words, for the decode cases' labels and the budget's derivation:
// "in Pillow's four-byte pixels: pil_loader's read and convert copy, RandomResizedCrop(224x224) + ...".
std::string loader_transform_words(const LoaderTransform& transform);

// Bytes of one sample's tensor: 3 x H x W values of 4 (float32) or 1 (uint8) bytes.
std::size_t tensor_bytes(const LoaderTransform& transform);

// The side Resize(S) sets before CenterCrop: 8/7 of the larger train side (256 for 224, as the
// ImageNet evaluation transform).
int center_resize_side(const LoaderTransform& transform);

// SplitMix64: the loader's random draws (crop, flip), seeded per thread so a run repeats itself.
struct LoaderRandom {
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  std::uint64_t next();
  double uniform();         // [0, 1)
  int below(int bound);     // [0, bound)
};

// torchvision 0.14 RandomResizedCrop.get_params with scale (0.08, 1) and ratio (3/4, 4/3): up to
// ten draws of area and log-uniform aspect, sides rounded half to even as Python's round(); then
// the central crop clamped to the ratio range.
CropBox random_resized_crop_box(int width, int height, LoaderRandom& random);

// What one sample's transform draws before any pixel is touched: the crop (random-resized), the
// flip, and for center the resized size.
struct SamplePlan {
  CropBox box;          // in the source image's pixels; the whole image for center and none
  bool flip = false;    // RandomHorizontalFlip's p = 0.5 (random-resized only)
  int resized_width = 0, resized_height = 0;  // center: Resize's output, before the crop
};
SamplePlan plan_sample(int width, int height, const LoaderTransform& transform, LoaderRandom& random);

// The plan for the same sample when the image was decoded at a smaller size (DCT scaling): the
// box scaled into the decoded image, as a ROI decoder (DALI, Pillow draft) maps it.
SamplePlan scaled_plan(const SamplePlan& plan, int full_width, int full_height, int width, int height);

// The DCT scale a loader can decode at and still have at least the pixels the transform reads
// from: the crop box's size against the train size (random-resized), the image against Resize's
// size (center), against the train size (none). 1/1 when no smaller scale keeps that.
JpegScale loader_dct_scale(const SamplePlan& plan, int width, int height, const LoaderTransform& transform);

// What a sample leaves for the batch: the packed bytes tobytes() gives numpy (what ToTensor read,
// and what the verifiers compare) and the tensor. Every image in between is freed when its sample
// is done, as Python frees them, so the allocator reuses or maps fresh memory as it does for
// Pillow (decode/pillow_image.hpp).
struct LoaderBuffers {
  RgbImage packed;
  std::vector<float> tensor_float;          // 3 x H x W, channel planes
  std::vector<unsigned char> tensor_uint8;  // 3 x H x W
};

// ImageNet's mean and std, as torchvision's reference training scripts normalise.
inline constexpr float kNormalizeMean[3] = {0.485f, 0.456f, 0.406f};
inline constexpr float kNormalizeStd[3] = {0.229f, 0.224f, 0.225f};

// Applies the transform to `decoded` (a decode in Pillow's storage, any mode) by `plan`, as
// torchvision runs it on a PIL image; the sample's image, packed, is `final_image(buffers)`, its
// tensor in tensor_float or tensor_uint8.
void apply_loader_transform(const PillowImage& decoded, const SamplePlan& plan, const LoaderTransform& transform,
                            LoaderBuffers& buffers);
const RgbImage& final_image(const LoaderBuffers& buffers, const LoaderTransform& transform);

// From packed RGB8 (tobytes()): ToTensor + Normalize, (value / 255 - mean[c]) / std[c] in float32,
// pass by pass as torch runs them, each pass into a new tensor (np.array's copy, the HWC to CHW
// copy, to(float), div(255), Normalize's clone, then sub_ and div_ in place). PILToTensor: the
// array copy, then the CHW copy collate's stack makes of its permuted view.
void to_float_tensor(const RgbImage& image, std::vector<float>& out);
void to_uint8_tensor(const RgbImage& image, std::vector<unsigned char>& out);

// The verifier of a tensor: every value against its pixel, recomputed in double. "" when all
// agree within 1e-5, else the first value that does not ("channel 1 (10, 3) is 0.52, expected 0.51").
std::string float_tensor_difference(const RgbImage& image, const std::vector<float>& tensor);
std::string uint8_tensor_difference(const RgbImage& image, const std::vector<unsigned char>& tensor);

}  // namespace pipecheck
