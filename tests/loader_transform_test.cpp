// The loader's transform held to torchvision 0.14's own output (tests/data/torchvision/make.py):
// RandomResizedCrop's crop and resize for one box, the flip, Resize + CenterCrop, ToTensor +
// Normalize, and the crop draws' distribution; the tensor verifiers see one changed value.
#include "decode/loader_transform.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "tests/ppm_image.hpp"

namespace pipecheck {
namespace {

using testing::read_ppm;

const std::string kTorchvision = std::string(PIPECHECK_TEST_DATA) + "/torchvision/";
const std::string kPillow = std::string(PIPECHECK_TEST_DATA) + "/pillow/";

int max_abs_difference(const RgbImage& a, const RgbImage& b) {
  int most = a.pixels.size() == b.pixels.size() ? 0 : 999;
  for (std::size_t i = 0; i < std::min(a.pixels.size(), b.pixels.size()); ++i) {
    most = std::max(most, std::abs(int(a.pixels[i]) - int(b.pixels[i])));
  }
  return most;
}

LoaderTransform train(int w, int h, CropMode crop, TensorKind tensor = TensorKind::float32) {
  LoaderTransform t;
  t.width = w;
  t.height = h;
  t.crop = crop;
  t.tensor = tensor;
  return t;
}

// F.resized_crop(top 5, left 9, 40 x 57 -> 24 x 32): our crop + resize in Pillow's storage gives
// torchvision's bytes exactly, and so does the flip.
TEST(LoaderTransform, ResizedCropMatchesTorchvision) {
  const RgbImage photo = read_ppm(kPillow + "photo.ppm");
  const LoaderTransform t = train(32, 24, CropMode::random_resized);
  SamplePlan plan;
  plan.box = {9, 5, 57, 40};
  LoaderBuffers buffers;
  apply_loader_transform(pillow_from_rgb(photo), plan, t, buffers);
  const RgbImage reference = read_ppm(kTorchvision + "resized-crop.ppm");
  EXPECT_EQ(max_abs_difference(final_image(buffers, t), reference), 0);
  plan.flip = true;
  apply_loader_transform(pillow_from_rgb(photo), plan, t, buffers);
  EXPECT_EQ(max_abs_difference(final_image(buffers, t), read_ppm(kTorchvision + "resized-crop-flip.ppm")), 0);
  // The wrong box is seen: one pixel off to the right is not torchvision's crop.
  plan.flip = false;
  plan.box.left += 3;
  apply_loader_transform(pillow_from_rgb(photo), plan, t, buffers);
  EXPECT_GT(max_abs_difference(final_image(buffers, t), reference), 4);
}

// Resize(36) + CenterCrop((24, 32)) then ToTensor + Normalize, against torchvision's tensor.
TEST(LoaderTransform, CenterCropAndTensorMatchTorchvision) {
  const RgbImage photo = read_ppm(kPillow + "photo.ppm");
  const LoaderTransform t = train(32, 24, CropMode::center);
  EXPECT_EQ(center_resize_side(t), 36);
  EXPECT_EQ(center_resize_side(train(224, 224, CropMode::center)), 256);
  LoaderRandom random;
  const SamplePlan plan = plan_sample(photo.width, photo.height, t, random);
  EXPECT_EQ(plan.resized_width, 54);
  EXPECT_EQ(plan.resized_height, 36);
  LoaderBuffers buffers;
  apply_loader_transform(pillow_from_rgb(photo), plan, t, buffers);
  const RgbImage reference = read_ppm(kTorchvision + "center.ppm");
  EXPECT_EQ(max_abs_difference(final_image(buffers, t), reference), 0);

  std::ifstream in(kTorchvision + "center.f32", std::ios::binary);
  std::vector<float> torch_tensor(3 * 24 * 32);
  in.read(reinterpret_cast<char*>(torch_tensor.data()), static_cast<std::streamsize>(torch_tensor.size() * 4));
  ASSERT_TRUE(in) << "center.f32: short";
  // Through torchvision's own pixels, our tensor is torch's to float32 rounding.
  std::vector<float> ours;
  to_float_tensor(reference, ours);
  ASSERT_EQ(ours.size(), torch_tensor.size());
  double most = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) most = std::max(most, double(std::fabs(ours[i] - torch_tensor[i])));
  EXPECT_LT(most, 2e-6);
  EXPECT_EQ(float_tensor_difference(reference, torch_tensor), "");
}

// The verifiers of the tensor catch one changed value (and a NaN), naming where.
TEST(LoaderTransform, TensorVerifiersCatchOneWrongValue) {
  const RgbImage photo = read_ppm(kPillow + "photo.ppm");
  std::vector<float> floats;
  to_float_tensor(photo, floats);
  EXPECT_EQ(float_tensor_difference(photo, floats), "");
  floats[96 * 64 + 96 * 3 + 10] += 0.01f;
  EXPECT_EQ(float_tensor_difference(photo, floats).rfind("channel 1 (10, 3) is", 0), 0u) << float_tensor_difference(photo, floats);
  floats[96 * 64 + 96 * 3 + 10] = std::nanf("");
  EXPECT_NE(float_tensor_difference(photo, floats), "");
  std::vector<unsigned char> bytes;
  to_uint8_tensor(photo, bytes);
  EXPECT_EQ(uint8_tensor_difference(photo, bytes), "");
  bytes[2 * 96 * 64 + 5] ^= 1;
  EXPECT_EQ(uint8_tensor_difference(photo, bytes).rfind("channel 2 (5, 0) is", 0), 0u) << uint8_tensor_difference(photo, bytes);
}

// Our draws follow torchvision's get_params: mean area fraction, mean log aspect and the central
// fallback's share, on a 4:3 image and on a 10:1 strip, within the statistical error of 20000 draws.
TEST(LoaderTransform, CropDrawsFollowTorchvisionsDistribution) {
  std::ifstream in(kTorchvision + "crop-stats.txt");
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    int w = 0, h = 0;
    double area = 0, log_aspect = 0, fallback = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "%dx%d mean_area %lf mean_log_aspect %lf fallback %lf", &w, &h, &area,
                          &log_aspect, &fallback), 5) << line;
    ++lines;
    LoaderRandom random;
    double our_area = 0, our_log_aspect = 0, our_fallback = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
      const CropBox box = random_resized_crop_box(w, h, random);
      ASSERT_TRUE(box.left >= 0 && box.top >= 0 && box.width > 0 && box.height > 0 && box.left + box.width <= w &&
                  box.top + box.height <= h) << line;
      our_area += double(box.width) * box.height / (double(w) * h);
      our_log_aspect += std::log(double(box.width) / box.height);
      our_fallback += box.height == h && box.top == 0 && box.width == static_cast<int>(std::nearbyint(h * 4.0 / 3)) &&
                      box.left == (w - box.width) / 2;
    }
    EXPECT_NEAR(our_area / n, area, 0.01) << line;
    EXPECT_NEAR(our_log_aspect / n, log_aspect, 0.01) << line;
    EXPECT_NEAR(our_fallback / n, fallback, 0.02) << line;
  }
  EXPECT_EQ(lines, 2);
}

TEST(LoaderTransform, BadWordsNameTheFlag) {
  try {
    parse_crop_mode("crop", "bogus");
    FAIL() << "crop bogus accepted";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--crop bogus: expected random-resized, center or none");
  }
  try {
    parse_tensor_kind("tensor", "int7");
    FAIL() << "tensor int7 accepted";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--tensor int7: expected float32 or uint8");
  }
  EXPECT_EQ(tensor_bytes(train(224, 224, CropMode::random_resized)), 602112u);
  EXPECT_EQ(tensor_bytes(train(224, 224, CropMode::random_resized, TensorKind::uint8)), 150528u);
}

// A DCT scale only where the transform reads fewer pixels than the image has: a 224 crop of a
// 3840x2400 photo's quarter decodes at 1/4 or smaller; a 250x250 crop at 224 cannot shrink (7/8
// of it is 219 pixels), a 300x300 one can by 3/4 (225).
TEST(LoaderTransform, DctScaleOnlyWhereItHelps) {
  const LoaderTransform t = train(224, 224, CropMode::random_resized);
  SamplePlan plan;
  plan.box = {0, 0, 1920, 1200};
  const JpegScale big = loader_dct_scale(plan, 3840, 2400, t);
  EXPECT_LT(double(big.num) / big.denom, 0.5);
  plan.box = {0, 0, 250, 250};
  const JpegScale small = loader_dct_scale(plan, 250, 250, t);
  EXPECT_EQ(small.num, small.denom);
  plan.box = {0, 0, 300, 300};
  const JpegScale three_quarters = loader_dct_scale(plan, 300, 300, t);
  EXPECT_EQ(three_quarters.num * 4, three_quarters.denom * 3);
  const SamplePlan scaled = scaled_plan(SamplePlan{{400, 200, 1920, 1200}, false, 0, 0}, 3840, 2400, 960, 600);
  EXPECT_EQ(scaled.box.left, 100);
  EXPECT_EQ(scaled.box.width, 480);
}

}  // namespace
}  // namespace pipecheck
