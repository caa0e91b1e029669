// The loader's per-sample transform after decode, step for step as torchvision 0.14 applies it to
// a PIL image (ImageFolder's pil_loader, then transforms.Compose of the training or evaluation
// transform, then ToTensor + Normalize).
#include "decode/loader_transform.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

std::string crop_mode_name(CropMode mode) {
  switch (mode) {
    case CropMode::random_resized: return "random-resized";
    case CropMode::center: return "center";
    case CropMode::none: return "none";
  }
  return "none";
}

std::string tensor_kind_name(TensorKind kind) { return kind == TensorKind::float32 ? "float32" : "uint8"; }

CropMode parse_crop_mode(const std::string& flag, const std::string& text) {
  for (CropMode mode : {CropMode::random_resized, CropMode::center, CropMode::none}) {
    if (text == crop_mode_name(mode)) return mode;
  }
  throw UsageError("--" + flag + " " + shortened(text) + ": expected random-resized, center or none");
}

TensorKind parse_tensor_kind(const std::string& flag, const std::string& text) {
  if (text == "float32") return TensorKind::float32;
  if (text == "uint8") return TensorKind::uint8;
  throw UsageError("--" + flag + " " + shortened(text) + ": expected float32 or uint8");
}

std::string loader_transform_words(const LoaderTransform& t) {
  const std::string size = std::to_string(t.width) + "x" + std::to_string(t.height);
  std::string text = "in Pillow's four-byte pixels: pil_loader's read and convert copy, ";
  if (t.crop == CropMode::random_resized) text += "RandomResizedCrop(" + size + ") + RandomHorizontalFlip";
  if (t.crop == CropMode::center) text += "Resize(" + std::to_string(center_resize_side(t)) + ") + CenterCrop(" + size + ")";
  if (t.crop == CropMode::none) text += "Resize((" + size + "))";
  text += t.tensor == TensorKind::float32 ? ", ToTensor + Normalize (float32)" : ", PILToTensor (uint8)";
  return text;
}

std::size_t tensor_bytes(const LoaderTransform& t) {
  return static_cast<std::size_t>(3) * t.width * t.height * (t.tensor == TensorKind::float32 ? 4 : 1);
}

int center_resize_side(const LoaderTransform& t) { return std::max(t.width, t.height) * 8 / 7; }

std::uint64_t LoaderRandom::next() {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double LoaderRandom::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

int LoaderRandom::below(int bound) { return bound <= 1 ? 0 : static_cast<int>(next() % static_cast<std::uint64_t>(bound)); }

namespace {

// Python's round(): half to even (the default rounding mode of nearbyint).
int python_round(double value) { return static_cast<int>(std::nearbyint(value)); }

}  // namespace

CropBox random_resized_crop_box(int width, int height, LoaderRandom& random) {
  const double area = static_cast<double>(width) * height;
  const double log_lo = std::log(3.0 / 4.0), log_hi = std::log(4.0 / 3.0);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target_area = area * (0.08 + (1.0 - 0.08) * random.uniform());
    const double aspect = std::exp(log_lo + (log_hi - log_lo) * random.uniform());
    const int w = python_round(std::sqrt(target_area * aspect));
    const int h = python_round(std::sqrt(target_area / aspect));
    if (0 < w && w <= width && 0 < h && h <= height) {
      const int top = random.below(height - h + 1);
      const int left = random.below(width - w + 1);
      return {left, top, w, h};
    }
  }
  const double in_ratio = static_cast<double>(width) / height;
  int w = width, h = height;
  if (in_ratio < 3.0 / 4.0) {
    h = python_round(w / (3.0 / 4.0));
  } else if (in_ratio > 4.0 / 3.0) {
    w = python_round(h * (4.0 / 3.0));
  }
  return {(width - w) / 2, (height - h) / 2, w, h};
}

SamplePlan plan_sample(int width, int height, const LoaderTransform& t, LoaderRandom& random) {
  SamplePlan plan;
  plan.box = {0, 0, width, height};
  if (t.crop == CropMode::random_resized) {
    plan.box = random_resized_crop_box(width, height, random);
    plan.flip = random.uniform() < 0.5;
  } else if (t.crop == CropMode::center) {
    // torchvision's Resize(int): the shorter side to S, the longer int(S * long / short).
    const int side = center_resize_side(t);
    if (width <= height) {
      plan.resized_width = side;
      plan.resized_height = static_cast<int>(static_cast<double>(side) * height / width);
    } else {
      plan.resized_height = side;
      plan.resized_width = static_cast<int>(static_cast<double>(side) * width / height);
    }
  }
  return plan;
}

SamplePlan scaled_plan(const SamplePlan& plan, int full_width, int full_height, int width, int height) {
  SamplePlan scaled = plan;
  if (width == full_width && height == full_height) return scaled;
  const double sx = static_cast<double>(width) / full_width, sy = static_cast<double>(height) / full_height;
  scaled.box.left = std::min(width - 1, static_cast<int>(plan.box.left * sx));
  scaled.box.top = std::min(height - 1, static_cast<int>(plan.box.top * sy));
  scaled.box.width = std::clamp(static_cast<int>(std::lround(plan.box.width * sx)), 1, width - scaled.box.left);
  scaled.box.height = std::clamp(static_cast<int>(std::lround(plan.box.height * sy)), 1, height - scaled.box.top);
  return scaled;
}

JpegScale loader_dct_scale(const SamplePlan& plan, int width, int height, const LoaderTransform& t) {
  // The scale whose decode of the box still has the pixels the resize needs, as fractions of
  // the image: the decoder works on the whole image, so the factor is the box's shrink.
  int need_w = t.width, need_h = t.height, have_w = plan.box.width, have_h = plan.box.height;
  if (t.crop == CropMode::center) {
    need_w = plan.resized_width;
    need_h = plan.resized_height;
    have_w = width;
    have_h = height;
  }
  const JpegScale box_scale = pick_dct_scale(have_w, have_h, need_w, need_h);
  return box_scale;
}

const RgbImage& final_image(const LoaderBuffers& buffers, const LoaderTransform&) { return buffers.packed; }

void apply_loader_transform(const PillowImage& decoded, const SamplePlan& plan, const LoaderTransform& t,
                            LoaderBuffers& buffers) {
  // pil_loader's img.convert("RGB"): a new image, a copy for RGB. Each step's image is a local:
  // freed at the end of the sample, or earlier, as Python drops it.
  PillowImage image = pillow_convert_rgb(decoded);
  if (t.crop == CropMode::random_resized) {
    // F.resized_crop: Image.crop, then Image.resize; RandomHorizontalFlip's transpose.
    PillowImage resized = pillow_resize_bilinear(pillow_crop(image, plan.box), t.width, t.height);
    image = plan.flip ? pillow_flip_left_right(resized) : std::move(resized);
  } else if (t.crop == CropMode::center) {
    // Resize(int) returns the image itself when its shorter side is already the size.
    if (plan.resized_width != image.width() || plan.resized_height != image.height()) {
      image = pillow_resize_bilinear(image, plan.resized_width, plan.resized_height);
    }
    const int top = python_round((plan.resized_height - t.height) / 2.0);
    const int left = python_round((plan.resized_width - t.width) / 2.0);
    image = pillow_crop(image, {left, top, t.width, t.height});
  } else {
    image = pillow_resize_bilinear(image, t.width, t.height);
  }
  buffers.packed = pillow_to_rgb(image);  // ToTensor's np.array(pic) reads pic.tobytes()
  if (t.tensor == TensorKind::float32) {
    to_float_tensor(buffers.packed, buffers.tensor_float);
  } else {
    to_uint8_tensor(buffers.packed, buffers.tensor_uint8);
  }
}

namespace {

// permute((2, 0, 1)).contiguous(): channel planes from interleaved pixels, a new tensor.
template <typename T>
std::vector<T> channel_planes(const std::vector<unsigned char>& interleaved, std::size_t plane) {
  std::vector<T> planes(plane * 3);
  for (int c = 0; c < 3; ++c) {
    T* dst = planes.data() + c * plane;
    for (std::size_t i = 0; i < plane; ++i) dst[i] = static_cast<T>(interleaved[i * 3 + c]);
  }
  return planes;
}

}  // namespace

void to_float_tensor(const RgbImage& image, std::vector<float>& out) {
  const std::size_t plane = static_cast<std::size_t>(image.width) * image.height;
  const std::vector<unsigned char> array(image.pixels);  // np.array(pic, copy=True)
  const std::vector<unsigned char> chw = channel_planes<unsigned char>(array, plane);
  const std::vector<float> as_float(chw.begin(), chw.end());  // .to(torch.float32)
  std::vector<float> divided(as_float.size());              // .div(255)
  for (std::size_t i = 0; i < divided.size(); ++i) divided[i] = as_float[i] / 255.0f;
  out = std::vector<float>(divided);  // Normalize (not in place) clones, then sub_(mean) and div_(std) in place
  for (int c = 0; c < 3; ++c) {
    float* v = out.data() + c * plane;
    for (std::size_t i = 0; i < plane; ++i) v[i] -= kNormalizeMean[c];
  }
  for (int c = 0; c < 3; ++c) {
    float* v = out.data() + c * plane;
    for (std::size_t i = 0; i < plane; ++i) v[i] /= kNormalizeStd[c];
  }
}

void to_uint8_tensor(const RgbImage& image, std::vector<unsigned char>& out) {
  const std::size_t plane = static_cast<std::size_t>(image.width) * image.height;
  const std::vector<unsigned char> array(image.pixels);  // np.array(pic, copy=True)
  out = channel_planes<unsigned char>(array, plane);     // collate's stack of the permuted view
}

namespace {

std::string value_at(const RgbImage& image, std::size_t index, double got, double expected) {
  const std::size_t plane = static_cast<std::size_t>(image.width) * image.height;
  const std::size_t channel = index / plane, at = index % plane;
  char text[160];
  std::snprintf(text, sizeof text, "channel %zu (%zu, %zu) is %.6g, expected %.6g", channel, at % image.width,
                at / image.width, got, expected);
  return text;
}

}  // namespace

std::string float_tensor_difference(const RgbImage& image, const std::vector<float>& tensor) {
  const std::size_t plane = static_cast<std::size_t>(image.width) * image.height;
  if (tensor.size() != plane * 3) return "the tensor holds " + std::to_string(tensor.size()) + " values, the image " + std::to_string(plane * 3);
  for (std::size_t i = 0; i < tensor.size(); ++i) {
    const std::size_t c = i / plane, at = i % plane;
    const double expected = (image.pixels[at * 3 + c] / 255.0 - kNormalizeMean[c]) / kNormalizeStd[c];
    // A NaN fails this too: the comparison is false.
    if (!(std::fabs(tensor[i] - expected) <= 1e-5)) return value_at(image, i, tensor[i], expected);
  }
  return "";
}

std::string uint8_tensor_difference(const RgbImage& image, const std::vector<unsigned char>& tensor) {
  const std::size_t plane = static_cast<std::size_t>(image.width) * image.height;
  if (tensor.size() != plane * 3) return "the tensor holds " + std::to_string(tensor.size()) + " values, the image " + std::to_string(plane * 3);
  for (std::size_t i = 0; i < tensor.size(); ++i) {
    const std::size_t c = i / plane, at = i % plane;
    if (tensor[i] != image.pixels[at * 3 + c]) return value_at(image, i, tensor[i], image.pixels[at * 3 + c]);
  }
  return "";
}

}  // namespace pipecheck
