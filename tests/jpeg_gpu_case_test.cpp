// Host logic of the GPU decode case: the batch cycles the images, slots fit the largest image,
// the backend falls back from the hardware engine with the reason kept, and the verification
// accepts a faithful decode and rejects a wrong one. The GPU run itself is checked by the probe
// test on a machine with a GPU.
#include "decode/jpeg_gpu_case.hpp"

#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <stdexcept>

#include "decode/jpeg_nvjpeg.hpp"

namespace pipecheck {
namespace {

JpegImage sized(int width, int height) {
  JpegImage image;
  image.header.width = width;
  image.header.height = height;
  return image;
}

TEST(JpegGpuCase, BatchRepeatsTheImagesInTurn) {
  const JpegImage a = sized(1, 1), b = sized(2, 2);
  const auto batch = fill_gpu_batch({&a, &b}, 5);
  ASSERT_EQ(batch.size(), 5u);
  EXPECT_EQ(batch[0], &a);
  EXPECT_EQ(batch[1], &b);
  EXPECT_EQ(batch[4], &a);
  EXPECT_TRUE(fill_gpu_batch({}, 4).empty());
}

TEST(JpegGpuCase, SlotsFitTheWidestAndTheTallestImage) {
  const JpegImage wide = sized(4000, 100), tall = sized(300, 3000);
  EXPECT_EQ(max_dimensions({&wide, &tall}), std::make_pair(4000, 3000));
}

TEST(JpegGpuCase, HardwareEngineIsPreferred) {
  std::vector<int> tried;
  const auto choice = choose_gpu_backend([&](int backend) { tried.push_back(backend); });
  EXPECT_EQ(choice.backend, nvjpeg::backend_hardware);
  EXPECT_EQ(tried, std::vector<int>{nvjpeg::backend_hardware});
  EXPECT_TRUE(choice.hardware_reason.empty());
}

TEST(JpegGpuCase, FallsBackToTheDefaultBackendAndSaysWhy) {
  const auto choice = choose_gpu_backend([](int backend) {
    if (backend == nvjpeg::backend_hardware) throw std::runtime_error("nvjpegCreateEx on GPU 0: NVJPEG_STATUS_ARCH_MISMATCH (7)");
  });
  EXPECT_EQ(choice.backend, nvjpeg::backend_default);
  EXPECT_EQ(choice.name, "default (CUDA)");
  EXPECT_NE(choice.hardware_reason.find("ARCH_MISMATCH"), std::string::npos);
}

TEST(JpegGpuCase, NoBackendIsAnErrorWithBothReasons) {
  const auto choice = choose_gpu_backend([](int backend) {
    throw std::runtime_error(backend == nvjpeg::backend_hardware ? "hw refused" : "default refused");
  });
  EXPECT_LT(choice.backend, 0);
  EXPECT_EQ(choice.hardware_reason, "hw refused");
  EXPECT_EQ(choice.error, "default refused");
}

JpegImage encoded_photo(int width, int height, std::vector<unsigned char>& rgb) {
  rgb = make_photo_like_rgb(width, height, 7);
  JpegImage image = sized(width, height);
  image.name = "photo.jpg";
  image.bytes = encode_jpeg(rgb, width, height, 90, TJSAMP_420, false);
  return image;
}

TEST(JpegGpuCase, FaithfulDecodePassesVerification) {
  std::vector<unsigned char> rgb;
  const JpegImage image = encoded_photo(96, 64, rgb);
  JpegDecoder decoder;
  RgbImage decoded;
  ASSERT_TRUE(decoder.decode(image.bytes.data(), image.bytes.size(), {1, 1}, decoded).ok);
  for (std::size_t i = 0; i < decoded.pixels.size(); i += 7) decoded.pixels[i] ^= 1;  // rounding-sized differences
  const auto check = verify_gpu_decode(decoded, image);
  EXPECT_TRUE(check.ok) << check.how;
  EXPECT_NE(check.how.find("photo.jpg"), std::string::npos);
}

TEST(JpegGpuCase, SwappedChannelsFailVerification) {
  std::vector<unsigned char> rgb;
  const JpegImage image = encoded_photo(96, 64, rgb);
  JpegDecoder decoder;
  RgbImage decoded;
  ASSERT_TRUE(decoder.decode(image.bytes.data(), image.bytes.size(), {1, 1}, decoded).ok);
  for (std::size_t i = 0; i + 2 < decoded.pixels.size(); i += 3) std::swap(decoded.pixels[i], decoded.pixels[i + 2]);
  const auto check = verify_gpu_decode(decoded, image);
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.how.find("largest difference"), std::string::npos) << check.how;  // and where
}

// Two decoders differ by rounding, so the GPU's output is held against TurboJPEG within a mean
// bound, which one wrong byte cannot cross; the probe catches one wrong byte by comparing each
// GPU batch with its first (first_pixel_difference, byte-exact), as gpu-burn compares results.
TEST(JpegGpuCase, OneWrongByteInALaterBatchIsCaughtAgainstTheFirst) {
  std::vector<unsigned char> rgb;
  const JpegImage image = encoded_photo(96, 64, rgb);
  JpegDecoder decoder;
  RgbImage first, later;
  ASSERT_TRUE(decoder.decode(image.bytes.data(), image.bytes.size(), {1, 1}, first).ok);
  later = first;
  later.pixels[3 * (96 * 63 + 95)] ^= 0x40;  // the last pixel's red
  EXPECT_TRUE(verify_gpu_decode(later, image).ok);  // within the lossy bound
  EXPECT_EQ(first_pixel_difference(later, first).rfind("pixel (95, 63) channel R is ", 0), 0u)
      << first_pixel_difference(later, first);
}

TEST(JpegGpuCase, WrongSizeFailsVerification) {
  std::vector<unsigned char> rgb;
  const JpegImage image = encoded_photo(96, 64, rgb);
  const RgbImage small{48, 32, std::vector<unsigned char>(48 * 32 * 3)};
  const auto check = verify_gpu_decode(small, image);
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.how.find("48x32"), std::string::npos);
}

}  // namespace
}  // namespace pipecheck
